//! The built `halma` program as the course's master program runs it: a fresh process in
//! a directory holding `input.txt`, judged by the `output.txt` it leaves there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ggp_player::game::{Game, Outcome};
use ggp_player::games::halma::protocol::{EXAMPLES, Input, Mode};
use ggp_player::games::halma::{HOME, Halma, Side};

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
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read input.txt"));
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
