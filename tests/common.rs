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

/// ggp-base's scrambling (the library's, which `gdl compare --scramble` uses too).
#[allow(unused_imports)]
pub use ggp_player::gdl::scramble;

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

/// A program run once per request (loa6, ataxx): `--help` and `-h` print its usage,
/// naming the `identify` request, on stdout and succeed at once, without reading a
/// request; any other argument prints the usage on stderr and fails with 2.
pub fn help_prints_the_usage(program: &str, name: &str) {
    let run = |arg: &str| {
        std::process::Command::new(program)
            .arg(arg)
            .output()
            .unwrap()
    };
    let usage = format!("usage: {name} ");
    for help in ["--help", "-h"] {
        let out = run(help);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.starts_with(&usage), "{stdout}");
        assert!(stdout.contains("`identify`"), "{stdout}");
    }
    let out = run("--bogus");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(&usage));
    assert!(out.stdout.is_empty());
}
