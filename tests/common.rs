//! Helpers shared by the integration tests.

// The same lookup as the unit tests' (one file, compiled into both).
#[path = "../src/testing.rs"]
mod testing;
#[allow(unused_imports)]
pub(crate) use testing::reference_dir;

/// The course kiosk's template (its rules without the size facts); `None`, after the
/// skip line, without the course's files.
#[allow(dead_code)]
pub fn course_template() -> Option<String> {
    let path = reference_dir()?.join("gdl/kiosk_breakthrough_rules_template.kif");
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Sends the library's logs to the test output when `RUST_LOG` is set (e.g.
/// `RUST_LOG=info cargo test server:: -- --nocapture`); idempotent.
#[allow(dead_code)]
pub fn init_test_logging() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .with_ansi(false)
            .try_init();
    }
}

/// The GDL keywords, which scrambling leaves alone.
const KEYWORDS: [&str; 14] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not", "or",
    "base", "input", "<=",
];

/// ggp-base's scrambling done ourselves: every symbol but the keywords, numbers and
/// variables renamed consistently to a random lower-case word (seeded). Returns the
/// scrambled rules and the renaming.
#[allow(dead_code)]
pub fn scramble(
    rules: &[ggp_player::sexpr::Sexpr],
    seed: u64,
) -> (
    Vec<ggp_player::sexpr::Sexpr>,
    std::collections::BTreeMap<String, String>,
) {
    use ggp_player::sexpr::Sexpr;
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut names = std::collections::BTreeMap::new();
    let mut used = std::collections::BTreeSet::new();
    fn walk(
        e: &Sexpr,
        names: &mut std::collections::BTreeMap<String, String>,
        used: &mut std::collections::BTreeSet<String>,
        rng: &mut rand_xoshiro::Xoshiro256PlusPlus,
    ) -> Sexpr {
        match e {
            Sexpr::List(items) => {
                Sexpr::list(items.iter().map(|i| walk(i, names, used, rng)).collect())
            }
            Sexpr::Atom(a) => {
                let key = a.to_ascii_lowercase();
                let keep = KEYWORDS.contains(&key.as_str())
                    || a.starts_with('?')
                    || a.bytes().all(|b| b.is_ascii_digit());
                if keep {
                    return e.clone();
                }
                let name = names.entry(key).or_insert_with(|| {
                    loop {
                        let len = rng.random_range(5..11);
                        let word: String = (0..len)
                            .map(|_| (b'a' + rng.random_range(0..26u8)) as char)
                            .collect();
                        if !KEYWORDS.contains(&word.as_str()) && used.insert(word.clone()) {
                            break word;
                        }
                    }
                });
                Sexpr::atom(name.clone())
            }
        }
    }
    let out = rules
        .iter()
        .map(|r| walk(r, &mut names, &mut used, &mut rng))
        .collect();
    (out, names)
}

/// What a one-request program answered, and how long it took from its start.
#[allow(dead_code)]
pub struct Reply {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
    pub took: std::time::Duration,
}

/// Runs `program` once with `request` on its standard input, as the NUS course's
/// framework did.
#[allow(dead_code)]
pub fn ask_program(program: &str, request: &str) -> Reply {
    ask_program_with(program, request, &[])
}

/// [`ask_program`] with `env` added to the program's environment.
#[allow(dead_code)]
pub fn ask_program_with(program: &str, request: &str, env: &[(&str, &str)]) -> Reply {
    run_program(program, &[], env, request)
}

/// Runs `program` with `args` and `env` added, `input` on its standard input; its reply.
#[allow(dead_code)]
pub fn run_program(program: &str, args: &[&str], env: &[(&str, &str)], input: &str) -> Reply {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Reply {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        success: out.status.success(),
        took: started.elapsed(),
    }
}

/// The Breakthrough move a referee's record writes as `(move x1 y1 x2 y2)`, if it is
/// legal on `board`.
#[allow(dead_code)]
pub fn move_of_record(
    board: &ggp_player::games::breakthrough::Board,
    text: &str,
) -> Option<ggp_player::games::breakthrough::Move> {
    let term = ggp_player::sexpr::Sexpr::parse(text).ok()?;
    let n: Vec<u32> = term.as_list()?[1..]
        .iter()
        .map(|a| a.as_atom()?.parse().ok())
        .collect::<Option<_>>()?;
    board.find_move(*n.first()?, *n.get(1)?, *n.get(2)?, *n.get(3)?)
}

/// A port no one listens on now.
#[allow(dead_code)]
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Our Breakthrough rules for `size` (e.g. "5x5") on one line, comments dropped, as a
/// START message carries them.
#[allow(dead_code)]
pub fn rules_line(size: &str) -> String {
    ggp_player::games::breakthrough::gdl::breakthrough_rules(size.parse().unwrap())
        .lines()
        .map(|l| l.split(';').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The controllers' match ids in a `GET /api/matches` answer, newest first.
#[allow(dead_code)]
pub fn match_ids(list: &serde_json::Value) -> Vec<&str> {
    list["matches"]
        .as_array()
        .map(|all| all.iter().filter_map(|m| m["match_id"].as_str()).collect())
        .unwrap_or_default()
}
