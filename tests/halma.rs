//! The built `halma` program as the course's master program runs it: a fresh process in
//! a directory holding `input.txt`, judged by the `output.txt` it leaves there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ggp_player::agent::{AgentConfig, AgentKind};
use ggp_player::game::{Game, Outcome};
use ggp_player::games::halma::protocol::{EXAMPLES, Input, Mode};
use ggp_player::games::halma::spec::HalmaSpec;
use ggp_player::games::halma::{HOME, Halma, Side};
use ggp_player::referee::mover::{Fault, Mover};
use ggp_player::referee::native::{self, Contestant};

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("halma-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_halma"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the program runs")
}

/// Runs the program on `input` in `dir`; returns the position, the play it wrote (which
/// must be legal) and its report line.
fn play(dir: &Path, input: &str) -> (Halma, ggp_player::games::halma::Move, String) {
    std::fs::write(dir.join("input.txt"), input).unwrap();
    let out = run_in(dir, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let position = Input::parse(input).unwrap().position;
    let answer = std::fs::read_to_string(dir.join("output.txt")).expect("output.txt");
    let m = position
        .parse_play(&answer)
        .unwrap_or_else(|e| panic!("illegal output {answer:?}: {e}\n{position}"));
    // Exactly the course's format: one line per step or jump, single spaces.
    for line in answer.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words.len(), 3, "{answer:?}");
    }
    eprintln!("{}", stderr.trim_end());
    (position, m, stderr)
}

/// The course's `input.txt` for `position`, its side to move, in `mode` with `seconds`.
fn input(mode: Mode, seconds: f64, position: &Halma) -> String {
    Input {
        mode,
        seconds,
        position: position.clone(),
    }
    .to_string()
}

/// `text` with its time line replaced by `seconds`.
fn with_time(text: &str, seconds: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = seconds;
    lines.join("\n") + "\n"
}

fn with_side(p: &Halma, side: Side) -> Halma {
    Halma::from_bits(p.pieces(Side::Black), p.pieces(Side::White), side).unwrap()
}

#[test]
fn plays_the_winning_answers_of_the_handout_and_a_legal_third() {
    let dir = scratch("examples");
    for (i, (text, answer)) in EXAMPLES.iter().enumerate() {
        let (position, m, _) = play(&dir, text);
        let written = std::fs::read_to_string(dir.join("output.txt")).unwrap();
        if i < 2 {
            assert_eq!(written, *answer, "example {}", i + 1);
            let mut after = position.clone();
            after.make(m);
            assert_eq!(after.decided(), Some(Outcome::Loss));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plays_from_the_start_with_either_colour() {
    let dir = scratch("start");
    for side in [Side::White, Side::Black] {
        let start = with_side(&Halma::start(), side);
        let (_, m, _) = play(&dir, &input(Mode::Single, 0.5, &start));
        // Forced evacuation: every opening play leaves home.
        assert!(HOME[side.index()].has(m.from()) && !HOME[side.index()].has(m.to()));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_hundredth_of_a_second_still_gets_a_legal_play() {
    let dir = scratch("tiny");
    for seconds in ["0.01", "0.02", "0.05"] {
        for (text, _) in EXAMPLES {
            play(&dir, &with_time(text, seconds));
        }
        play(
            &dir,
            &input(Mode::Game, seconds.parse().unwrap(), &Halma::start()),
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn forced_evacuation_is_obeyed() {
    // One Black piece still at home on 2,3, on the camp's edge; Black's other pieces
    // are far ahead. Every legal play takes the home piece out.
    let rows = [
        "................",
        "................",
        "................",
        "..B.............",
        "................",
        "................",
        "................",
        "......W.........",
        "........BB......",
        "...........BBBBB",
        "...........BBBBB",
        "..............BB",
        ".............BBB",
        ".............B..",
        "................",
        "................",
    ];
    let text = format!("SINGLE\nBLACK\n0.3\n{}\n", rows.join("\n"));
    let dir = scratch("evacuation");
    let (_, m, _) = play(&dir, &text);
    assert!(HOME[0].has(m.from()) && !HOME[0].has(m.to()), "{m:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_game_keeps_time_for_every_play_to_the_cap() {
    // At a game's first play, 2.4 s is less than its 500 plays to the 1,000-ply cap
    // cost without a search: the program plays at once.
    let dir = scratch("reserve");
    let start = Halma::start();
    let (_, _, report) = play(&dir, &input(Mode::Game, 2.4, &start));
    assert!(report.contains("no time to search"), "{report}");
    // After 400 plays of its own (two positions each in its history), 100 are left to
    // the cap and the same 2.4 s leaves room for a search.
    let mut history = "halma-playdata 1\nWHITE\n".to_owned();
    for i in 1..=800u64 {
        history.push_str(&format!("{i:016x}\n"));
    }
    std::fs::write(dir.join("playdata.txt"), history).unwrap();
    let (_, _, report) = play(&dir, &input(Mode::Game, 2.4, &start));
    assert!(!report.contains("no time to search"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_no_time_left_the_last_piece_still_finds_the_last_hole() {
    // White's goal camp (Black's home) is full but for 2,3; White's last piece waits on
    // 5,0, just outside it. Stepping 1,4 into the hole and back is as advancing as any
    // play; the hole must travel to the waiting piece instead (3,2, then 4,1), which
    // the race evaluation sees one play ahead. No time is left: nothing is searched.
    let rows = [
        "WWWWWW..........",
        "WWWWW...........",
        "WWWW............",
        "WW..............",
        "WW..............",
        "................",
        "................",
        "...BBBBBBB......",
        "...BBBBBBB......",
        "....BBBBB.......",
        "................",
        "................",
        "................",
        "................",
        "................",
        "................",
    ];
    let mut position = Input::parse(&format!("GAME\nWHITE\n0.3\n{}\n", rows.join("\n")))
        .unwrap()
        .position;
    let dir = scratch("last-hole");
    for _ in 0..6 {
        let (_, m, report) = play(&dir, &input(Mode::Game, 0.0, &position));
        assert!(report.contains("no time to search"), "{report}");
        position.make(m);
        if position.decided().is_some() {
            assert_eq!(position.decided(), Some(Outcome::Loss), "{position}");
            std::fs::remove_dir_all(&dir).unwrap();
            return;
        }
        // Black shuffles one piece far from the camp.
        let black = position
            .parse_play("E 8,9 8,10")
            .or_else(|_| position.parse_play("E 8,10 8,9"));
        position.make(black.unwrap());
    }
    panic!("White did not fill its camp in 6 plays:\n{position}");
}

#[test]
fn blank_lines_carriage_returns_and_trailing_spaces_are_read() {
    let (text, answer) = EXAMPLES[0];
    let messy = format!(
        "\r\n{}\r\n\r\n",
        text.lines()
            .map(|l| format!("{l}  \r"))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let dir = scratch("messy");
    play(&dir, &messy);
    assert_eq!(
        std::fs::read_to_string(dir.join("output.txt")).unwrap(),
        answer
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_huge_time_counts_as_an_hour_and_never_panics() {
    // Black's one piece in the far corner, walled in but for one step: played at once.
    let mut rows = vec![vec![b'.'; 16]; 16];
    rows[15][15] = b'B';
    for (x, y) in [(14, 15), (13, 15), (14, 14), (13, 13)] {
        rows[y][x] = b'W';
    }
    let board: String = rows
        .iter()
        .map(|r| String::from_utf8(r.clone()).unwrap() + "\n")
        .collect();
    let dir = scratch("huge-time");
    for time in ["1e12", "1e19", "1e20", "1e308"] {
        for mode in ["SINGLE", "GAME"] {
            play(&dir, &format!("{mode}\nBLACK\n{time}\n{board}"));
            let answer = std::fs::read_to_string(dir.join("output.txt")).unwrap();
            assert_eq!(answer, "E 15,15 15,14\n", "{mode} {time}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_input_gets_one_stderr_line_a_failure_and_no_output() {
    let (good, _) = EXAMPLES[0];
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "ends before the mode"),
        (good.replacen("SINGLE", "TRIPLE", 1), "TRIPLE"),
        (good.replacen("WHITE", "GREEN", 1), "GREEN"),
        (good.replacen("100.0", "soon", 1), "soon"),
        (good.replacen("WWWWW......", "WWWWWX.....", 1), "'X'"),
        (
            good.replacen("WWWWW...........\n", "", 1),
            "ends before board row 15",
        ),
        (
            good.replacen("WWWWW...........", "WWWWW..........", 1),
            "15 characters",
        ),
        (format!("{good}extra\n"), "after the board"),
        (
            good.replacen("................\n", "BBBBBBBBBBBBBBBB\n", 1),
            "at most 19",
        ),
    ];
    let dir = scratch("malformed");
    for (text, message) in cases {
        // A stale answer must not survive either.
        std::fs::write(dir.join("output.txt"), "E 0,0 1,1\n").unwrap();
        std::fs::write(dir.join("input.txt"), &text).unwrap();
        let out = run_in(&dir, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(message), "{message:?} not in {stderr}");
        assert!(!dir.join("output.txt").exists(), "{text:?}");
    }
    std::fs::remove_file(dir.join("input.txt")).unwrap();
    let out = run_in(&dir, &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read ./input.txt"));
    // An input.txt that never ends is read only up to a cap, and refused in one line.
    std::os::unix::fs::symlink("/dev/zero", dir.join("input.txt")).unwrap();
    let out = run_in(&dir, &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim(),
        "halma: ./input.txt is longer than 1 MiB, the most read of a program input file"
    );
    assert!(!dir.join("output.txt").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_game_keeps_its_history_in_playdata() {
    // Each player runs in a directory of its own, as under the master program.
    let dirs = [scratch("game-white"), scratch("game-black")];
    let mut position = Halma::start();
    for _ in 0..4 {
        let side = position.side_to_move();
        let dir = &dirs[usize::from(side == Side::Black)];
        let (p, m, _) = play(dir, &input(Mode::Game, 20.0, &position));
        position = p;
        position.make(m);
    }
    // Black's history after its second play: two positions a play.
    let data = std::fs::read_to_string(dirs[1].join("playdata.txt")).unwrap();
    assert!(data.starts_with("halma-playdata 1\nBLACK\n"), "{data}");
    assert_eq!(data.lines().count(), 2 + 4, "{data}");
    // A damaged file is no reason to fail.
    std::fs::write(dirs[0].join("playdata.txt"), "garbage").unwrap();
    play(&dirs[0], &input(Mode::Game, 20.0, &position));
    for dir in dirs {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn calibrate_writes_the_measured_speed_and_the_agent_reads_it() {
    let dir = scratch("calibrate");
    let out = run_in(&dir, &["calibrate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("calibration.txt")).unwrap();
    let rate: f64 = text
        .trim()
        .strip_prefix("nodes_per_second ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text:?}"));
    assert!(rate > 0.0);
    eprintln!("calibration: {rate:.0} nodes per CPU second");
    play(&dir, &with_time(EXAMPLES[2].0, "0.01"));
    let out = run_in(&dir, &["what"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The course's master program, as the referee imitates it: `command` on `budget` of
/// CPU time for the whole game, `grace` past it before a kill.
fn master(
    command: &str,
    budget: Duration,
    grace: Duration,
) -> ggp_player::referee::dir_program::DirProgram<Halma> {
    use ggp_player::games::halma::master::PROTOCOL;
    ggp_player::referee::dir_program::DirProgram::new(command, &PROTOCOL, budget).with_grace(grace)
}

fn random_agent(seed: u64) -> Box<dyn Mover<Halma>> {
    let random = Contestant::Agent(AgentConfig {
        kind: AgentKind::Random,
        seed: Some(seed),
        ..AgentConfig::default()
    });
    native::mover::<HalmaSpec>(&random, Duration::from_secs(1)).unwrap()
}

/// White's first play as a shell command writes it (it leaves home by a step).
const FIRST_PLAY: &str = "echo 'E 13,12 12,11' > output.txt";

#[test]
fn the_master_judges_garbage_silence_and_overrunning_programs() {
    let start = Halma::start();
    let long = Duration::from_secs(5);
    let fault = |command: &str, budget, grace| {
        let mut program = master(command, budget, grace);
        let r = native::play(&start, &[], [&mut program, &mut *random_agent(1)], long, 10);
        assert_eq!(r.scores, [0.0, 1.0], "{command}: {r:?}");
        (r.fault.expect("a fault").1, program.used())
    };
    let (f, _) = fault("echo 'E 99,99 1,1' > output.txt", long, long);
    assert!(
        matches!(&f, Fault::Illegal(why) if why.contains("99,99")),
        "{f:?}"
    );
    let (f, _) = fault("echo 'J 13,12 12,11' > output.txt", long, long);
    assert!(matches!(&f, Fault::Illegal(_)), "{f:?}");
    let (f, _) = fault("echo 'no idea' >&2; exit 3", long, long);
    assert!(
        matches!(&f, Fault::NoAnswer(why) if why.contains("no output.txt") && why.contains("no idea")),
        "{f:?}"
    );
    let (f, _) = fault("relative/path/to/agent", long, long);
    assert!(
        matches!(&f, Fault::NoAnswer(why) if why.contains("not found") && why.contains("from the root")),
        "{f:?}"
    );
    // CPU time past the budget loses even with a legal play written.
    let burn = format!("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; {FIRST_PLAY}");
    let (f, used) = fault(&burn, Duration::from_millis(50), long);
    assert!(
        matches!(f, Fault::OutOfTime { used_ms, budget_ms: 50 } if used_ms >= 50),
        "{f:?}"
    );
    assert!(used >= Duration::from_millis(50));
    // Thinking on past the time left and the grace (CPU time): killed, out of time.
    // On a machine so loaded that the loop gets under a third of a core, the wall-clock
    // guard (three times the time left and the grace) fires first: late, having used less
    // than the limit.
    let began = std::time::Instant::now();
    let (f, used) = fault(
        "while :; do :; done",
        Duration::from_millis(100),
        Duration::from_millis(300),
    );
    match f {
        Fault::OutOfTime {
            used_ms,
            budget_ms: 100,
        } => assert!(used_ms >= 400, "{f:?}"),
        Fault::Late { .. } => assert!(used < Duration::from_millis(400), "{f:?} {used:?}"),
        _ => panic!("{f:?}"),
    }
    assert!(began.elapsed() < long, "killed at the limit");
    // Hung (no CPU time used) for three times the time left and the grace: killed, late.
    let began = std::time::Instant::now();
    let (f, used) = fault(
        "sleep 30",
        Duration::from_millis(100),
        Duration::from_millis(100),
    );
    assert!(matches!(f, Fault::Late { ms } if ms >= 600), "{f:?}");
    assert!(used < Duration::from_millis(100), "{used:?}");
    assert!(began.elapsed() < long, "killed at the wall bound");
    // Waiting is not thinking: a program that sleeps past its budget is not charged.
    let mut sleeper = master(
        &format!("sleep 0.3; {FIRST_PLAY}"),
        Duration::from_millis(200),
        long,
    );
    let r = native::play(&start, &[], [&mut sleeper, &mut *random_agent(1)], long, 1);
    assert_eq!((r.fault, r.moves.len()), (None, 1), "{:?}", r.moves);
    assert!(sleeper.used() < Duration::from_millis(200));
}

#[test]
fn the_master_carries_playdata_from_a_programs_play_to_its_next() {
    let dir = scratch("carried");
    let log = dir.join("log");
    // Logs the lines of playdata.txt it finds (0 when there is none), then plays.
    let command = format!(
        "(test -f playdata.txt && wc -l < playdata.txt || echo 0) >> '{}'; exec '{}'",
        log.display(),
        env!("CARGO_BIN_EXE_halma")
    );
    let mut program = master(&command, Duration::from_secs(5), Duration::from_secs(5));
    let r = native::play(
        &Halma::start(),
        &[],
        [&mut *random_agent(2), &mut program],
        Duration::from_secs(5),
        6,
    );
    assert_eq!((r.fault, r.moves.len()), (None, 6));
    let seen: Vec<u32> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    // A header of two lines, then two positions per play.
    assert_eq!(seen, [0, 4, 6]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_match_runs_the_built_program_against_an_agent_to_the_end() {
    let out = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["match", "--game", "halma", "--black", "agent:random"])
        .arg(format!("--white=program:{}", env!("CARGO_BIN_EXE_halma")))
        // CPU seconds for the whole game: room for a long game against a random
        // player, each play's process costing a few milliseconds on a loaded machine.
        .args(["--playclock", "5"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let result = stdout.lines().last().unwrap();
    assert!(result.contains("(white wins)"), "{result}");
    // `... 0 faults; CPU time: white U s used, L s left`, which add up to the budget.
    let cpu = result
        .split_once(" 0 faults; CPU time: white ")
        .unwrap_or_else(|| panic!("{result}"))
        .1;
    let figures: Vec<f64> = cpu
        .split_whitespace()
        .filter_map(|w| w.trim_end_matches(',').parse().ok())
        .collect();
    assert_eq!(cpu.matches(" s ").count(), 2, "{result}");
    assert!((figures[0] + figures[1] - 5.0).abs() < 0.0015, "{result}");
}

#[test]
fn a_tournament_records_and_reports_each_program_s_cpu_time() {
    let results = std::env::temp_dir().join(format!("ggp-halma-cpu-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&results);
    let out = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args([
            "tournament",
            "--game",
            "halma",
            "--player",
            "r=agent:random",
        ])
        .arg(format!(
            "--player=h=program:{}",
            env!("CARGO_BIN_EXE_halma")
        ))
        // A short game: ten plays a side, on 5 CPU seconds each.
        .args([
            "--games",
            "1",
            "--playclocks",
            "5",
            "--max-plies",
            "20",
            "--results",
        ])
        .arg(&results)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = std::fs::read_to_string(&results).unwrap();
    let record: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    // The random agent (white, first) keeps no budget; the program plays black.
    assert_eq!(
        record["players"],
        serde_json::json!({"white": "r", "black": "h"})
    );
    let cpu = record["cpu"].as_object().unwrap();
    assert_eq!(cpu.keys().collect::<Vec<_>>(), ["black"], "{line}");
    let (used, left) = (
        cpu["black"]["used_ms"].as_u64().unwrap(),
        cpu["black"]["left_ms"].as_u64().unwrap(),
    );
    // Each is rounded down to the millisecond.
    assert!(used > 0 && (4999..=5000).contains(&(used + left)), "{line}");
    let report = stdout
        .lines()
        .find(|l| l.starts_with("CPU time of h over 1 games: used median "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let left_s = format!("left min {:.3} s", left as f64 / 1e3);
    assert!(report.contains(&left_s), "{report}");
    assert!(!stdout.contains("CPU time of r"), "{stdout}");
    let _ = std::fs::remove_file(&results);
}

#[test]
fn help_prints_the_usage_on_stdout() {
    let dir = scratch("help");
    let out = run_in(&dir, &["--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: halma "));
    let out = run_in(&dir, &["--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("usage: halma "));
    std::fs::remove_dir_all(&dir).unwrap();
}
