//! The CS61B `loa` program driven by scripts in the course harness's format
//! (`tests/data/loa/*.in`, expected output in `*.std`), through our own `test-loa`
//! ([`harness`]), and run as the graders did: two programs against each other, and a
//! whole AI game under a CPU limit.

mod display;
mod harness;
mod referee;

use std::path::PathBuf;
use std::process::Command;

use ggp_player::game::Game;
use ggp_player::games::loa::{DEFAULT_LIMIT, Loa, NoMove};
use harness::{Message, Run, Script, normalise, run_one, run_two};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/loa")
        .join(name)
}

fn script(name: &str) -> Script {
    Script::load(&data(&format!("{name}.in")))
}

fn passed(name: &str, run: &Run) {
    assert!(
        run.failure.is_none(),
        "{name}: {:?}\nstderr:\n{}",
        run.failure,
        run.stderr
    );
}

/// Runs `name.in` and compares its output with `name.std` as `tester.py` does.
fn check(name: &str) -> Run {
    let run = run_one(&script(name), None);
    passed(name, &run);
    let expected = std::fs::read_to_string(data(&format!("{name}.std"))).unwrap();
    assert_eq!(
        normalise(&run.output),
        normalise(&expected),
        "{name}: output\n{}",
        run.output
    );
    run
}

/// Replays the awaited AI moves from the start: each must be legal.
fn assert_legal_game(messages: &[String]) {
    let mut board = Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT));
    for line in messages {
        match harness::message(line) {
            Some(Message::Move(m)) => {
                let mv = board
                    .parse_move(&m)
                    .unwrap_or_else(|| panic!("{m} is illegal on\n{board}"));
                board.make(mv);
            }
            Some(Message::Win(_)) => {
                assert!(
                    ggp_player::game::result(&board).is_some(),
                    "a result announced with the game on:\n{board}"
                );
                return;
            }
            None => panic!("malformed {line:?}"),
        }
    }
}

#[test]
fn the_start_position_is_dumped() {
    check("start");
}

#[test]
fn typed_moves_are_played_and_illegal_ones_refused_without_protocol_marks() {
    let run = check("manual");
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "one line per refused move: {errors:?}");
    for e in errors {
        assert!(
            !e.contains('*') && !e.contains('>') && !e.contains("==="),
            "{e:?}"
        );
    }
}

#[test]
fn comments_blank_lines_and_any_case_are_read() {
    let run = check("case");
    assert_eq!(run.stderr, "", "help and comments are not errors");
}

#[test]
fn set_changes_squares_and_the_side_to_move() {
    check("set");
}

#[test]
fn a_typed_winning_move_ends_the_game_once() {
    let run = check("win");
    assert_eq!(run.messages, ["* Black wins."]);
}

#[test]
fn a_set_that_joins_both_sides_credits_the_side_not_to_move() {
    check("setwin");
}

#[test]
fn limit_5_ties_after_ten_plies() {
    check("limit");
}

#[test]
fn new_restores_the_start_and_the_default_limit() {
    check("new");
}

#[test]
fn the_default_white_ai_answers_a_typed_move() {
    let run = check("ai-white");
    assert_eq!(run.messages.len(), 1);
    let mut board = Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT));
    board.make(board.parse_move("b1-d3").unwrap());
    let Some(Message::Move(reply)) = harness::message(&run.messages[0]) else {
        panic!("{:?}", run.messages)
    };
    assert!(board.parse_move(&reply).is_some(), "{reply} after b1-d3");
}

#[test]
fn an_ai_game_against_itself_finishes_inside_the_game_budget() {
    let run = check("ai");
    assert_legal_game(&run.messages);
    // The harness fails a game over 60 s; report the time (a measurement, not a bound).
    eprintln!(
        "loa AI against itself: {} plies in {:?}",
        run.messages.len() - 1,
        run.game_times
    );
}

/// The first move (0 for the game's first) whose search the AI's time guard stopped
/// early, as the program notes on stderr: from there on the same seed may play otherwise.
fn first_cut_move(run: &Run) -> Option<usize> {
    run.stderr
        .lines()
        .filter_map(|line| {
            line.strip_prefix("note: move ")?
                .split(':')
                .next()?
                .parse()
                .ok()
        })
        .map(|n: usize| n - 1)
        .min()
}

#[test]
fn the_same_seed_plays_the_same_game() {
    // A guard stops a search early only on a machine far slower or busier than planned;
    // the games then agree up to the move it cut, and the pair is played again.
    for attempt in 1..=3 {
        let first = run_one(&script("ai"), None);
        let second = run_one(&script("ai"), None);
        passed("ai", &first);
        passed("ai", &second);
        let cut = first_cut_move(&first)
            .into_iter()
            .chain(first_cut_move(&second))
            .min();
        let Some(cut) = cut else {
            assert_eq!(first.messages, second.messages);
            return;
        };
        assert_eq!(first.messages.get(..cut), second.messages.get(..cut));
        eprintln!(
            "attempt {attempt}: the time guard cut move {}; the games agree before it",
            cut + 1
        );
    }
    eprintln!("every attempt had a move cut short: the games were compared up to the cut");
}

#[test]
fn two_programs_play_each_other_and_agree_on_the_result() {
    let (one, two) = run_two(&script("remote-1"), &script("remote-2"));
    passed("remote-1", &one);
    passed("remote-2", &two);
    let results: Vec<String> = [&one, &two]
        .iter()
        .map(|r| normalise(&r.output).join("\n"))
        .collect();
    assert_eq!(results[0], results[1]);
    assert!(
        matches!(harness::message(&results[0]), Some(Message::Win(_))),
        "{results:?}"
    );
    // Program 1 saw its own moves and the result; together with program 2's, the game.
    let mut game = Vec::new();
    let (black, white) = (&one.messages, &two.messages);
    for i in 0..black.len().max(white.len()) {
        for side in [black, white] {
            if let Some(m) = side.get(i)
                && matches!(harness::message(m), Some(Message::Move(_)))
            {
                game.push(m.clone());
            }
        }
    }
    game.push(results[0].clone());
    assert_legal_game(&game);
    eprintln!(
        "two loa programs: {} plies, {:?} and {:?}",
        game.len() - 1,
        one.game_times,
        two.game_times
    );
}

#[test]
fn an_ai_game_against_itself_fits_under_a_10_cpu_second_limit() {
    let run = run_one(&script("ai"), Some(10));
    passed("ai under ulimit -St 10", &run);
    assert_legal_game(&run.messages);
    // The shell's `times`: its second line is the program's user and system CPU time.
    eprintln!(
        "loa AI game under ulimit -St 10: wall {:?}, CPU (user system) {}",
        run.game_times,
        run.stderr.lines().last().unwrap_or("?")
    );
}

#[test]
fn strict_ends_the_run_at_an_illegal_move() {
    let mut s = script("manual");
    s.command.push("--strict".into());
    let run = run_one(&s, None);
    let failure = run.failure.expect("an illegal move fails the run");
    assert!(failure.contains("exit"), "{failure}");
    assert_eq!(
        run.output, "",
        "the dump after the illegal move is never reached"
    );
}

#[test]
fn display_leaves_the_text_output_as_it_was() {
    let mut s = script("case");
    s.command.push("--display".into());
    let run = run_one(&s, None);
    passed("case --display", &run);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("loa: the board is on http://127.0.0.1:"),
        "{}",
        run.stderr
    );
    let expected = std::fs::read_to_string(data("case.std")).unwrap();
    assert_eq!(normalise(&run.output), normalise(&expected));
}

#[test]
fn input_and_output_files_and_the_log_replay_the_game() {
    let dir = std::env::temp_dir().join(format!("loa-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output, log) = (dir.join("in"), dir.join("out"), dir.join("log"));
    std::fs::write(&input, "seed 5\nauto black\ndump\n").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_loa"))
        .arg(format!("--log={}", log.display()))
        .args([&input, &output])
        .status()
        .unwrap();
    assert!(status.success());
    let played = std::fs::read_to_string(&output).unwrap();
    let final_dump = played
        .split_once("===")
        .map(|(_, d)| d.to_owned())
        .expect("a dump");
    // The log is a script: fed back with a dump, it reaches the same board.
    let mut replay = std::fs::read_to_string(&log).unwrap();
    replay.push_str("dump\n");
    std::fs::write(&input, &replay).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_loa"))
        .args([&input, &output])
        .status()
        .unwrap();
    assert!(status.success());
    let replayed = std::fs::read_to_string(&output).unwrap();
    assert_eq!(
        replayed.split_once("===").map(|(_, d)| d.to_owned()),
        Some(final_dump),
        "log:\n{replay}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_harness_reads_prompts_moves_and_results_as_test_loa_does() {
    assert_eq!(harness::strip_prompt("b> w>   * e1-e3"), "* e1-e3");
    assert_eq!(harness::strip_prompt("    - b b -"), "    - b b -");
    assert_eq!(
        harness::message("  *  Black   wins. "),
        Some(Message::Win("Black wins.".into()))
    );
    assert_eq!(
        harness::message("* B4-d6"),
        Some(Message::Move("B4-d6".into()))
    );
    assert_eq!(harness::message("* b4d6"), None);
    assert_eq!(harness::message("* Black wins"), None);
    assert_eq!(normalise("a  # note\n\n   \nb \n#*move\n"), ["a", "b"]);
}

#[test]
fn the_harness_fails_a_program_that_does_not_move_in_time() {
    let s = Script::parse("#* loa\nmanual white\n#*time 1 1\n#*move\n");
    let run = run_one(&s, None);
    let failure = run.failure.expect("nobody moves");
    assert!(failure.contains("time limit"), "{failure}");
}

/// `loa --display` with input that ends without a final newline, or ends after a game
/// between AIs: the program exits 0 at the end of its input, as it does without
/// `--display`, instead of waiting for the page forever.
#[test]
fn the_display_ends_with_its_input() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // A game between AIs ends in a win or, at the move limit, a tie (their searches run
    // on several threads, so the game differs from run to run).
    for (input, expected) in [
        ("dump", &["Next move: black"][..]),
        ("auto white\nauto black", &["wins.", "Tie game."][..]),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_loa"))
            .args(["--display", "--port", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        // A hang shows as no exit within a minute (a game between AIs takes seconds).
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > std::time::Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{input:?}: still running after its input ended");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert!(status.success(), "{input:?}: {status}");
        assert!(expected.iter().any(|e| out.contains(e)), "{input:?}: {out}");
    }
}

/// An input that is not commands (here an endless line of zero bytes) ends the run with
/// one clear error, instead of filling the memory.
#[test]
fn an_input_that_is_not_commands_is_refused_in_one_line() {
    let refusal = "loa: a line of the input is longer than 4096 bytes: it is not commands";
    let out = Command::new(env!("CARGO_BIN_EXE_loa"))
        .arg("/dev/zero")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), refusal);
    // The same with the page, whose input comes through another thread.
    let out = Command::new(env!("CARGO_BIN_EXE_loa"))
        .args(["--display", "--port", "0", "/dev/zero"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().last(), Some(refusal), "{stderr}");
}

/// `loa --java-shim DIR` writes a `java` that runs the course's `java -ea loa.Main ARGS`
/// as this program: with DIR first on PATH, a course script's own command line gives
/// exactly the output the built program gives.
#[test]
fn the_java_shim_runs_the_course_s_command_line_as_loa() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("loa-java-shim-{}", std::process::id()));
    let made = Command::new(env!("CARGO_BIN_EXE_loa"))
        .arg("--java-shim")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = script("case");
    let input = script.lines.join("\n") + "\n";
    let run = |program: &str, args: &[&str]| {
        let reply = crate::common::run_program(program, args, &[("PATH", &path)], &input);
        assert!(reply.success, "{program} {args:?}: {}", reply.stderr);
        reply.stdout
    };
    let direct = run(env!("CARGO_BIN_EXE_loa"), &["--strict"]);
    let through_java = run("java", &["-ea", "-cp", "classes", "loa.Main", "--strict"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(direct.contains("==="), "a dump: {direct}");
    assert_eq!(through_java, direct);
}
