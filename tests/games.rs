//! Every engine tool takes `--game`: the toy game Walk, registered by one line, goes
//! through perft, solve, bench and selfplay like Breakthrough.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout_of(args: &[&str]) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn games_lists_every_registered_game_and_the_test_games_when_asked() {
    let out = stdout_of(&["games"]);
    for game in ["breakthrough", "loa6", "loa8", "ataxx", "halma"] {
        assert!(out.contains(&format!("{game}: ")), "{out}");
    }
    assert!(!out.contains("walk: "), "the toy game is left out: {out}");
    assert!(
        out.contains("evaluations: tuned, improved, racing, baseline"),
        "{out}"
    );
    let out = stdout_of(&["games", "--include-test-games"]);
    assert!(out.contains("walk: "), "{out}");
    assert!(out.contains("variants:    free, limit40"), "{out}");
}

#[test]
fn perft_counts_lines_of_action_from_the_8x8_start() {
    let out = stdout_of(&["perft", "--game", "loa8", "8x8", "3"]);
    assert!(out.contains("44952"), "{out}");
}

#[test]
fn perft_counts_ataxx_from_to_pairs_from_the_start() {
    let out = stdout_of(&["perft", "--game", "ataxx", "7x7", "4"]);
    assert!(out.contains("perft 7x7 depth 4: 119520 nodes"), "{out}");
}

#[test]
fn perft_counts_halma_from_the_start() {
    // The camps are far apart: 40 x 40 lines at depth 2, and 62,240 at depth 3.
    let out = stdout_of(&["perft", "--game", "halma", "16x16", "3"]);
    assert!(out.contains("perft 16x16 depth 3: 62240 nodes"), "{out}");
}

#[test]
fn perft_counts_the_moves_of_any_game() {
    // The star's hub has 300 spokes; from every rim node but the last black must go back
    // to the hub, and from the last one onto white's goal, which ends the game.
    for (depth, count) in [(1, 300), (2, 300), (3, 299 * 300)] {
        let out = stdout_of(&["perft", "--game", "walk", "star300", &depth.to_string()]);
        assert!(
            out.contains(&format!("perft star300 depth {depth}: {count} nodes")),
            "{out}"
        );
    }
}

#[test]
fn solve_proves_a_toy_game_and_prints_its_line() {
    let out = stdout_of(&["solve", "--game", "walk", "star300"]);
    let mut lines = out.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("star300: win for white ("),
        "{out}"
    );
    assert_eq!(lines.next(), Some("line (2 plies): 0-300 300-301"), "{out}");
}

#[test]
fn the_proof_number_solver_refuses_games_that_repeat() {
    let out = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["solve", "--game", "walk", "star300", "--solver", "dfpn"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("positions never repeat"), "{err}");
}

#[test]
fn bench_searches_the_games_own_positions() {
    let out = stdout_of(&["bench", "--game", "walk"]);
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 5, "header, three positions, total: {out}");
    assert!(
        rows[3].starts_with("star300 free") && rows[3].contains("0-300"),
        "{out}"
    );
    assert!(rows[3].ends_with("win in 2"), "{out}");
    assert!(rows[4].starts_with("total"), "{out}");
}

#[test]
fn selfplay_plays_a_toy_game_with_its_own_evaluations() {
    // An evaluation against itself scores exactly half (each opening with both sides),
    // also when games go round in circles until the ply cap.
    for variant in ["free", "limit40"] {
        let out = stdout_of(&[
            "selfplay",
            "mobility",
            "mobility",
            "--game",
            "walk",
            "--variant",
            variant,
            "--depth",
            "4",
            "--openings",
            "10",
            "--max-plies",
            "200",
        ]);
        assert!(
            out.starts_with("mobility vs mobility on 40 at depth 4: +"),
            "{out}"
        );
        assert!(out.contains("score 50.0%"), "{out}");
    }
}

#[test]
fn match_referees_two_in_process_agents_in_any_game() {
    let out = stdout_of(&[
        "match",
        "--game",
        "walk",
        "--size",
        "star300",
        "--white",
        "agent:alphabeta:mobility",
        "--black",
        "agent:random",
        "--playclock",
        "1",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("walk match on star300: white alphabeta(mobility), black random"),
        "{out}"
    );
    assert!(lines[1].starts_with("   1. white 0-300 "), "{out}");
    assert!(lines[2].starts_with("   2. black 300-301 "), "{out}");
    assert_eq!(
        lines[3], "result: 1 0 (white wins) after 2 moves, 0 faults",
        "{out}"
    );
    // Breakthrough too, and the searcher beats the random mover.
    let out = stdout_of(&[
        "match",
        "--size",
        "5x5",
        "--white",
        "agent:random",
        "--black",
        "agent:alphabeta",
        "--playclock",
        "1",
    ]);
    assert!(
        out.lines()
            .last()
            .unwrap()
            .starts_with("result: 0 1 (black wins)"),
        "{out}"
    );
    assert!(out.contains("   2. black (move "), "{out}");
}

#[test]
fn lines_of_action_seats_are_named_by_its_roles_in_matches_plans_and_records() {
    // Black moves first: --black names the first mover, and the records say so.
    let words = "match --game loa6 --white agent:random --black agent:greedy --playclock 0.05";
    let words: Vec<&str> = words.split(' ').chain(["--max-plies", "2"]).collect();
    let out = stdout_of(&words);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("loa6 match on 6x6: black greedy(default), white random;"),
        "{out}"
    );
    assert!(lines[1].starts_with("   1. black "), "{out}");
    let results = std::env::temp_dir().join(format!("ggp-loa6-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&results);
    let args = [
        "tournament",
        "--game",
        "loa6",
        "--player",
        "a=agent:greedy",
        "--player",
        "b=agent:random",
        "--games",
        "1",
        "--playclocks",
        "0.05",
        "--results",
        results.to_str().unwrap(),
    ];
    let plan = stdout_of(&[&args[..], &["--plan"]].concat());
    assert!(
        plan.contains(r#""players":{"black":"a","white":"b"}"#),
        "{plan}"
    );
    stdout_of(&args);
    let saved = std::fs::read_to_string(&results).unwrap();
    assert!(
        saved.contains(r#""roles":["black","white"],"players":{"black":"a","white":"b"}"#),
        "{saved}"
    );
    assert!(!saved.contains(r#""white":"a""#), "{saved}");
    let _ = std::fs::remove_file(&results);
}

#[test]
fn tournament_of_in_process_agents_in_the_toy_game() {
    let results = std::env::temp_dir().join(format!("ggp-walk-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&results);
    let out = stdout_of(&[
        "tournament",
        "--game",
        "walk",
        "--player",
        "a=agent:alphabeta",
        "--player",
        "b=agent:random",
        "--sizes",
        "40",
        "--games",
        "10",
        "--results",
        results.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("player       opponent     condition"),
        "{out}"
    );
    // a b all games +win =draw -loss score ...
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(row[..4], ["a", "b", "all", "10"], "{out}");
    let score: f64 = row[7].trim_end_matches('%').parse().unwrap();
    assert!(score > 50.0, "the searcher beats the random mover: {out}");
    assert!(
        lines[2].starts_with("referee overhead per move: median "),
        "{out}"
    );
    let saved = std::fs::read_to_string(&results).unwrap();
    assert_eq!(saved.lines().count(), 10, "{saved}");
    assert!(
        saved.lines().all(|l| l.contains(r#""size":"40""#)),
        "{saved}"
    );
    let _ = std::fs::remove_file(&results);
}

#[test]
fn gdl_print_writes_the_game_s_own_rules() {
    let ours = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/gdl/breakthrough_5x5.gdl"
    ))
    .unwrap();
    assert_eq!(stdout_of(&["gdl", "print", "5x5"]), ours);
    assert_eq!(stdout_of(&["gdl", "breakthrough", "5x5"]), ours);
    let standard = stdout_of(&["gdl", "print", "4x6", "--variant", "standard"]);
    assert!(
        standard.starts_with(";;;; Breakthrough, standard variant"),
        "{standard}"
    );
}

#[test]
fn bad_game_arguments_get_one_clear_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["perft", "--game", "chess", "8x8", "2"],
            "no game is called \"chess\": use breakthrough, walk, loa6, loa8, ataxx or halma",
        ),
        (
            &["perft", "--game", "walk", "8x8", "2"],
            "is not a Walk board",
        ),
        (
            &["perft", "--game", "walk", "40", "2", "--variant", "course"],
            "use free or limit40",
        ),
        (
            &["bench", "--game", "walk", "--eval", "tuned"],
            "use mobility or blind",
        ),
        (
            &[
                "selfplay", "mobility", "blind", "--game", "walk", "--record", "x.txt",
            ],
            "walk has no evaluation to fit",
        ),
        (&["solve", "--game", "walk", "star0"], "is not a Walk board"),
        (
            &["gdl", "print", "--game", "walk", "40"],
            "walk has no GDL rules",
        ),
        (&["gdl", "print", "12x4"], "out of range"),
        (
            &["tune", "--game", "walk", "x.txt"],
            "walk has no evaluation to fit",
        ),
        (
            &[
                "match",
                "--game",
                "walk",
                "--white",
                "agent:random",
                "--black",
                "http://127.0.0.1:9",
            ],
            "plays only against another one",
        ),
        (
            &[
                "match",
                "--game",
                "walk",
                "--white",
                "http://127.0.0.1:9",
                "--black",
                "http://127.0.0.1:9",
            ],
            "walk has no GGP rules",
        ),
        (
            &[
                "tournament",
                "--game",
                "walk",
                "--player",
                "a=http://127.0.0.1:9",
                "--player",
                "b=http://127.0.0.1:9",
            ],
            "walk has no GGP rules",
        ),
        (
            &[
                "tournament",
                "--player",
                "a=agent:random",
                "--player",
                "b=http://127.0.0.1:9",
            ],
            "cannot meet in one tournament",
        ),
        (
            &[
                "tournament",
                "--game",
                "walk",
                "--sizes",
                "5x5",
                "--player",
                "a=agent:random",
                "--player",
                "b=agent:random",
            ],
            "is not a Walk board",
        ),
    ];
    for (args, needle) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    assert!(
        !std::path::Path::new("x.txt").exists(),
        "a refused command wrote nothing"
    );
}
