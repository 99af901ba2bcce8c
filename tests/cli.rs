//! The command line: correct output for good input, a one-line error and a
//! non-zero exit (never a panic) for bad input.

use std::process::{Command, Output};

use crate::common::{free_port, rules_line};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// What the command printed; it must succeed (else its error fails the test).
fn succeeded(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn perft_prints_the_count() {
    let out = run(&["perft", "5x5", "4"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("perft 5x5 depth 4: 1180 nodes"), "{stdout}");
    let out = run(&["perft", "8x8", "3", "--variant", "standard"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("perft 8x8 depth 3: 11132 nodes"),
        "{stdout}"
    );
    let out = run(&["perft", "8x8", "3", "--variant", "course"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("depth 3: 576 nodes"));
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["perft", "8x8", "8"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Close the reading end long before the count is printed.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn solve_prints_the_value_and_a_line_that_keeps_it() {
    let out = run(&["solve", "3x5"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("3x5: draw for white ("), "{stdout}");
    let line = stdout.lines().nth(1).unwrap();
    assert!(
        line.starts_with("line (") && line.contains("(move "),
        "{stdout}"
    );
}

#[test]
fn the_proof_number_solver_proves_the_same_value() {
    let out = run(&["solve", "4x4", "--variant", "standard", "--solver", "dfpn"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let alphabeta = run(&["solve", "4x4", "--variant", "standard"]);
    let expected = String::from_utf8_lossy(&alphabeta.stdout);
    let value = |s: &str| s.split(" (").next().unwrap().to_owned();
    assert_eq!(value(&stdout), value(&expected));
    assert!(stdout.contains("line ("), "{stdout}");
}

#[test]
fn a_solve_cut_short_carries_on_from_its_checkpoint() {
    // Boards that take either solver about a second, far longer than the first run.
    for (solver, board) in [("dfpn", "4x5"), ("alphabeta", "5x5")] {
        let path =
            std::env::temp_dir().join(format!("cli-resume-{solver}-{}.ckpt", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let file = path.to_str().unwrap();
        let args = [
            "solve",
            board,
            "--solver",
            solver,
            "--threads",
            "1",
            "--hash-mb",
            "16",
            "--checkpoint",
            file,
        ];
        let short = run(&[&args[..], &["--time", "0.01"]].concat());
        let stderr = String::from_utf8_lossy(&short.stderr);
        assert!(!short.status.success());
        assert!(
            stderr.contains("not solved within 0.01 s") && stderr.contains("resumes it"),
            "{solver}: {stderr}"
        );
        let long = run(&[&args[..], &["--time", "600"]].concat());
        let stdout = String::from_utf8_lossy(&long.stdout);
        let stderr = String::from_utf8_lossy(&long.stderr);
        assert!(stderr.contains("resuming from"), "{stderr}");
        assert!(
            stdout.starts_with(&format!("{board}: draw for white (")),
            "{solver}: {stdout}{stderr}"
        );
        // The same file for other rules: refused.
        let other = run(&[&args[..], &["--variant", "standard"]].concat());
        let stderr = String::from_utf8_lossy(&other.stderr);
        assert!(
            !other.status.success() && stderr.contains("checkpoint of another solve"),
            "{stderr}"
        );
        // With --openings, whose table is not saved: refused before anything runs.
        let openings = run(&[&args[..], &["--openings", "1"]].concat());
        assert!(
            !openings.status.success()
                && String::from_utf8_lossy(&openings.stderr).contains("--openings cannot")
        );
        std::fs::remove_file(&path).unwrap();
        // A file that cannot be written: refused before the solve starts.
        let out = run(&[
            "solve",
            "3x5",
            "--solver",
            solver,
            "--checkpoint",
            "/nonexistent/c",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("cannot write the checkpoint /nonexistent/c"),
            "{stderr}"
        );
    }
}

/// The JSON lines of `solve --openings` in its output.
fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The solve of standard 4x5 (a loss for white) on one thread, as JSON.
const SOLVE_STANDARD_4X5: [&str; 7] = [
    "solve",
    "4x5",
    "--variant",
    "standard",
    "--threads",
    "1",
    "--json",
];

/// `solve ARGS --json` as JSON: it must succeed and print one line.
fn solve_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn solve_json_answers_a_job_in_one_line() {
    let json = solve_json;
    // Standard 4x5 is a loss for white; its ten first moves are listed.
    let start = json(&SOLVE_STANDARD_4X5);
    assert_eq!(start["to_move"], "white");
    assert_eq!(start["value"], "loss");
    assert_eq!(start["variant"], "standard");
    let moves = start["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 10, "{start}");
    assert!(!start["line"].as_array().unwrap().is_empty());
    // Each move's position, with what the solve proved of it: a win for black after
    // every first move; a first move and its mirror image lead to one key.
    let children = start["children"].as_array().unwrap();
    assert_eq!(children.len(), 10, "{start}");
    assert!(children.iter().all(|c| c["at_least"] == "win"), "{start}");
    assert_eq!(moves[0], "(move 1 2 1 3)");
    assert_eq!(moves[3], "(move 4 2 4 3)");
    assert_eq!(children[0]["key"], children[3]["key"]);
    assert_ne!(children[0]["key"], children[1]["key"]);
    // After any first move black is to move and wins: the value is for black.
    let first = moves[3].as_str().unwrap();
    let after = json(&[
        "solve",
        "4x5",
        "--variant",
        "standard",
        "--after",
        first,
        "--json",
    ]);
    assert_eq!(after["to_move"], "black");
    assert_eq!(after["value"], "win");
    assert_eq!(after["after"], serde_json::json!([first]));
    // A budget too small: "unknown", no error, and the nodes stop within a step of it.
    let cut = [
        "solve",
        "5x5",
        "--variant",
        "standard",
        "--threads",
        "1",
        "--nodes",
        "20000",
    ];
    let unknown = json(&[&cut[..], &["--json"]].concat());
    assert_eq!(unknown["value"], "unknown");
    assert!(unknown["line"].as_array().unwrap().is_empty());
    assert_eq!(unknown["moves"].as_array().unwrap().len(), 13);
    assert_eq!(unknown["children"].as_array().unwrap().len(), 13);
    let nodes = unknown["nodes"].as_u64().unwrap();
    assert!((20000..20000 + 2 * 4096).contains(&nodes), "{unknown}");
    // Without --json the same budget is an error that says so.
    let out = run(&cut);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("was not solved"),
        "{stderr}"
    );
    let out = run(&["solve", "5x5", "--nodes", "0"]);
    assert!(!out.status.success());
    // A finished game has no moves: on course 2x4 black is left without one (a draw).
    let line = [
        "(move 1 2 2 3)",
        "(move 1 4 2 3)",
        "(move 2 2 1 3)",
        "(move 2 4 1 3)",
        "(move 1 1 1 2)",
        "(move 2 3 1 2)",
        "(move 2 1 1 2)",
    ];
    let mut args = vec!["solve", "2x4", "--json"];
    for m in line {
        args.extend(["--after", m]);
    }
    let over = json(&args);
    assert_eq!(over["moves"], serde_json::json!([]));
    assert_eq!(over["to_move"], "black");
    assert_eq!(over["value"], "draw");
}

/// The children and proven a `--json` report proves something about, as the
/// lines of a `--known` file.
fn known_file(name: &str, report: &serde_json::Value) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("ggp-known-{}-{name}.jsonl", std::process::id()));
    let mut text = String::new();
    for entry in ["children", "proven"]
        .iter()
        .flat_map(|field| report[field].as_array().unwrap())
        .filter(|c| c.get("at_least").is_some() || c.get("at_most").is_some())
    {
        text += &format!("{entry}\n");
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn solve_known_positions_stand_as_proven_and_a_rerun_goes_on_from_its_last_run() {
    // Standard 4x5: black wins after each of white's first moves. Told so, the solve
    // of the start needs no search below them, and the value stays a loss for white.
    let base = SOLVE_STANDARD_4X5;
    let alone = solve_json(&base);
    let children = known_file("4x5", &alone);
    let told = solve_json(&[&base[..], &["--known", children.to_str().unwrap()]].concat());
    assert_eq!(
        (&told["value"], &alone["value"]),
        (&"loss".into(), &"loss".into())
    );
    assert!(told["nodes"].as_u64().unwrap() <= 4096, "{told}");
    assert!(alone["nodes"].as_u64().unwrap() > 100_000, "{alone}");
    // What is known is believed: the same file read as "white wins after every move"
    // (each child a loss for black) makes the start a win.
    let text = std::fs::read_to_string(&children).unwrap();
    std::fs::write(
        &children,
        text.replace("\"at_least\":\"win\"", "\"at_most\":\"loss\""),
    )
    .unwrap();
    let lied = solve_json(&[&base[..], &["--known", children.to_str().unwrap()]].concat());
    assert_eq!(lied["value"], "win");
    // Course 5x5 (a draw) cut at 262,144 nodes: the run proved bounds below its start. The
    // whole solve told them costs fewer nodes than from nothing, for the same value.
    let course = [
        "solve",
        "5x5",
        "--variant",
        "course",
        "--threads",
        "1",
        "--json",
    ];
    let cut = solve_json(&[&course[..], &["--nodes", "262144"]].concat());
    assert_eq!(cut["value"], "unknown");
    assert!(!cut["proven"].as_array().unwrap().is_empty(), "{cut}");
    assert_eq!(cut["key"].as_str().unwrap().len(), 16);
    let last_run = known_file("course", &cut);
    let again = solve_json(&[&course[..], &["--known", last_run.to_str().unwrap()]].concat());
    let fresh = solve_json(&course);
    assert_eq!(
        (&again["value"], &fresh["value"]),
        (&"draw".into(), &"draw".into())
    );
    let (again, fresh) = (
        again["nodes"].as_u64().unwrap(),
        fresh["nodes"].as_u64().unwrap(),
    );
    // Measured: 809,435 nodes against 956,560.
    assert!(again < fresh, "told: {again} nodes, from nothing: {fresh}");
    // Bad files are refused with a line that says where.
    std::fs::write(&last_run, "{\"key\":\"12\"}\n").unwrap();
    let out = run(&[&course[..], &["--known", last_run.to_str().unwrap()]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains(":1: \"12\" is not a key"),
        "{stderr}"
    );
    let key = "{\"key\":\"00000000000000ab\"";
    std::fs::write(
        &last_run,
        format!("{key},\"at_least\":\"win\"}}\n{key},\"at_most\":\"draw\"}}\n"),
    )
    .unwrap();
    let out = run(&[&course[..], &["--known", last_run.to_str().unwrap()]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains(":2: the position"),
        "{stderr}"
    );
    let out = run(&[
        &course[..],
        &["--known", last_run.to_str().unwrap(), "--solver", "dfpn"],
    ]
    .concat());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--known is for --solver alphabeta"));
    for path in [children, last_run] {
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn solve_after_moves_solves_the_position_they_reach() {
    // Course 5x5: white's (move 2 2 2 3) loses; black then wins.
    let out = run(&["solve", "5x5", "--after", "(move 2 2 2 3)"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("5x5 after (move 2 2 2 3): win for black ("),
        "{stdout}"
    );
    let out = run(&[
        "solve",
        "5x5",
        "--after",
        "(move 2 2 2 3)",
        "--solver",
        "dfpn",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(": win for black ("));
    // Two moves in, with the moves that keep the value after each reply of white.
    let out = run(&[
        "solve",
        "3x5",
        "--after",
        "(move 1 2 1 3)",
        "--after",
        "(move 2 4 1 3)",
        "--openings",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("3x5 after (move 1 2 1 3) (move 2 4 1 3): draw for white"));
    let lines = json_lines(&stdout);
    assert!(lines.len() > 2, "{stdout}");
    for line in &lines {
        let after = line["after"].as_array().unwrap();
        assert_eq!(
            after[..2],
            [
                serde_json::json!("(move 1 2 1 3)"),
                serde_json::json!("(move 2 4 1 3)")
            ]
        );
    }
    // A move that is not legal there is named in the error.
    let out = run(&[
        "solve",
        "3x5",
        "--after",
        "(move 1 2 1 3)",
        "--after",
        "(move 1 4 1 3)",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && stderr.contains("\"(move 1 4 1 3)\" is not a legal move after (move 1 2 1 3)"),
        "{stderr}"
    );
}

#[test]
fn solve_openings_prints_the_lines_of_the_players_table() {
    let out = run(&["solve", "4x4", "--variant", "standard", "--openings", "1"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed = json_lines(&stdout);
    // The start, then one line for each first move (none of them ends the game here).
    assert_eq!(printed.len(), 7, "{stdout}");
    assert_eq!(printed[0]["after"], serde_json::json!([]));
    assert_eq!(printed[0]["value"], "loss", "black wins standard 4x4");
    for line in &printed[1..] {
        assert_eq!(line["after"].as_array().unwrap().len(), 1);
        assert_eq!(line["value"], "win");
        assert!(!line["keeping"].as_array().unwrap().is_empty());
    }
    // The table built into the player holds exactly these lines for this board.
    let table = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/games/breakthrough/solved.jsonl"
    ))
    .unwrap();
    let tabled: Vec<serde_json::Value> = table
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["board"] == "4x4" && l["variant"] == "standard")
        .collect();
    assert_eq!(tabled, printed);
    // Only the alpha-beta solver writes them, at most two plies deep.
    for (args, error) in [
        (
            &["solve", "4x4", "--openings", "1", "--solver", "dfpn"][..],
            "for --solver alphabeta",
        ),
        (&["solve", "4x4", "--openings", "3"][..], "--openings"),
    ] {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(error), "{stderr}");
    }
    let out = run(&["solve", "8x8", "--openings", "1", "--time", "0.2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("not solved"),
        "{stderr}"
    );
}

/// Whether python3 is missing, said as the reason `what` is not run (the test skips).
fn no_python(what: &str) -> bool {
    let missing = Command::new("python3").arg("--version").output().is_err();
    if missing {
        eprintln!("skipped: no python3 to run {what}");
    }
    missing
}

/// `scripts/recheck-line.py`, the second route for boards one solver settles: the other
/// solver agrees along the line, and a wrong value given with a line is caught.
#[test]
fn recheck_line_agrees_along_the_line_and_catches_a_wrong_value() {
    if no_python("scripts/recheck-line.py") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("recheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = dir.join("rechecks.jsonl");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/recheck-line.py");
    let recheck = |extra: &[&str]| {
        Command::new("python3")
            .arg(script)
            .args([
                "4x5",
                "--variant",
                "standard",
                "--hash-mb",
                "16",
                "--time",
                "60",
            ])
            .args(["--binary", env!("CARGO_BIN_EXE_ggp-player")])
            .arg("--results")
            .arg(&results)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = recheck(&["--plies", "1,2,5"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = json_lines(&std::fs::read_to_string(&results).unwrap());
    assert_eq!(records.len(), 3, "{stdout}");
    for (record, ply) in records.iter().zip([1, 2, 5]) {
        assert_eq!(record["ply"], ply);
        assert_eq!(record["solver"], "dfpn");
        assert_eq!(record["expected"], "win for black", "standard 4x5");
        assert_eq!(record["value"], "win for black");
        assert_eq!(record["agrees"], true);
    }
    // The other way round, from a line given with a value that is wrong.
    let out = recheck(&[
        "--solver",
        "dfpn",
        "--plies",
        "2",
        "--line",
        "(move 1 2 1 3) (move 2 4 1 3)",
        "--value",
        "win for white",
    ]);
    assert_eq!(out.status.code(), Some(1), "a disagreement fails the run");
    let records = json_lines(&std::fs::read_to_string(&results).unwrap());
    assert_eq!(records.len(), 4);
    assert_eq!(records[3]["solver"], "alphabeta");
    assert_eq!(records[3]["agrees"], false);
    // A ply past the line's end is reported, not skipped in silence.
    let out = recheck(&["--plies", "200"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the line has only"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `scripts/solved-table.py` keeps the line each solve prints, and
/// `scripts/solved-openings.py` tables a board solved in more than `--max-seconds` from
/// that line: the one position where the line's move keeps the value, which a solve
/// after that move confirms.
#[test]
fn the_scripts_table_a_board_from_the_line_its_solve_printed() {
    if no_python("the scripts") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("line-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (results, table) = (dir.join("solved.jsonl"), dir.join("openings.jsonl"));
    let script = |name: &str, args: &[&str]| {
        let out = Command::new("python3")
            .arg(format!("{}/scripts/{name}", env!("CARGO_MANIFEST_DIR")))
            .args(args)
            .args(["--binary", env!("CARGO_BIN_EXE_ggp-player")])
            .arg("--results")
            .arg(&results)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let md = dir.join("solved.md");
    let md = md.to_str().unwrap();
    // Course 3x5 is a draw and standard 4x5 a win for black (the other two are solved too).
    script(
        "solved-table.py",
        &[
            "--sizes",
            "3x5,4x5",
            "--budget",
            "60",
            "--hash-mb",
            "16",
            "--out",
            md,
        ],
    );
    let records = json_lines(&std::fs::read_to_string(&results).unwrap());
    assert_eq!(records.len(), 4);
    script(
        "solved-openings.py",
        &[
            "--max-seconds",
            "0",
            "--table",
            dir.join("openings.jsonl").to_str().unwrap(),
        ],
    );
    let entries = json_lines(&std::fs::read_to_string(&table).unwrap());
    assert_eq!(entries.len(), 4, "one position a board");
    let moves = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_owned())
            .collect()
    };
    let mut black_wins = 0;
    for r in &records {
        let (size, variant) = (r["size"].as_str().unwrap(), r["variant"].as_str().unwrap());
        let e = entries
            .iter()
            .find(|e| e["board"] == size && e["variant"] == variant)
            .unwrap_or_else(|| panic!("{size} {variant} not tabled"));
        let line = moves(&r["line"]);
        assert!(line.len() >= 2, "{r}");
        assert_eq!(e["line_only"], true);
        let (after, value) = if r["value"] == "win for black" {
            black_wins += 1;
            (&line[..1], "win")
        } else {
            (&[][..], if r["value"] == "draw" { "draw" } else { "win" })
        };
        assert_eq!(moves(&e["after"]), after, "{e}");
        assert_eq!(e["value"], value, "{e}");
        let keeping = moves(&e["keeping"]);
        assert_eq!(keeping, line[after.len()..=after.len()], "{e}");
        // Solved after the kept move, the side that made it still has its value.
        let mut args = vec!["solve", size, "--variant", variant, "--hash-mb", "16"];
        for m in after.iter().chain(&keeping) {
            args.extend(["--after", m.as_str()]);
        }
        let out = run(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let expected = match value {
            "draw" => "draw for",
            _ => "loss for",
        };
        assert!(stdout.contains(&format!(": {expected}")), "{stdout}");
    }
    assert!(black_wins >= 1, "standard 4x5 is a win for black");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_plays_every_opening_with_both_colours() {
    // An evaluation against itself: each opening's two games are the same game with the
    // colours swapped, so the first side scores exactly half.
    let out = run(&[
        "selfplay",
        "improved",
        "improved",
        "--size",
        "5x5",
        "--depth",
        "2",
        "--openings",
        "5",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("improved vs improved on 5x5 at depth 2: +")
            && stdout.contains("score 50.0%"),
        "{stdout}"
    );
    let games: u32 = stdout
        .split(['+', '=', '-', ','])
        .skip(1)
        .take(3)
        .map(|n| n.trim().parse::<u32>().unwrap())
        .sum();
    assert_eq!(games, 10, "{stdout}");
}

#[test]
fn selfplay_records_positions_that_tune_fits() {
    let dir = std::env::temp_dir().join(format!("ggp-cli-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("positions.txt");
    let weights = dir.join("weights.rs");
    let _ = std::fs::remove_file(&data);
    let data_arg = data.to_str().unwrap();
    for (size, seed) in [("5x6", "1"), ("6x5", "2")] {
        let out = run(&[
            "selfplay",
            "improved",
            "improved",
            "--size",
            size,
            "--depth",
            "2",
            "--openings",
            "40",
            "--seed",
            seed,
            "--record",
            data_arg,
        ]);
        assert!(out.status.success(), "{out:?}");
    }
    // Every game is recorded (appended), one position per line; a run's 40 openings are
    // numbered (both of an opening's games share its number).
    let text = std::fs::read_to_string(&data).unwrap();
    let games: std::collections::HashSet<(&str, &str)> = text
        .lines()
        .map(|l| {
            let mut f = l.split(' ');
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(games.len(), 80);

    let out = run(&["tune", data_arg, "--out", weights.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("tuned:    log-loss"), "{stdout}");
    assert!(stdout.contains("improved: log-loss"), "{stdout}");
    let source = std::fs::read_to_string(&weights).unwrap();
    assert!(source.contains("pub const WEIGHTS: [i32; COUNT] = ["));
    assert_eq!(
        source.lines().filter(|l| l.contains(", // ")).count(),
        ggp_player::games::breakthrough::features::COUNT
    );

    // A damaged file is refused with the line that is wrong.
    std::fs::write(&data, "0 8x8 w ff ff00 1\nnot a position\n").unwrap();
    let out = run(&["tune", data_arg]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 2"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ataxx records its self-play too, and `tune --game ataxx` fits its features to them.
#[test]
fn ataxx_selfplay_records_positions_that_tune_fits() {
    let dir = std::env::temp_dir().join(format!("ggp-cli-ataxx-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("positions.txt");
    let weights = dir.join("weights.rs");
    let _ = std::fs::remove_file(&data);
    let data_arg = data.to_str().unwrap();
    let out = run(&[
        "selfplay",
        "positional",
        "material",
        "--game",
        "ataxx",
        "--depth",
        "1",
        "--openings",
        "30",
        "--record",
        data_arg,
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&data).unwrap();
    let games: std::collections::HashSet<&str> =
        text.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(games.len(), 30);

    let out = run(&[
        "tune",
        "--game",
        "ataxx",
        data_arg,
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("tuned:      log-loss"), "{stdout}");
    assert!(stdout.contains("positional: log-loss"), "{stdout}");
    let source = std::fs::read_to_string(&weights).unwrap();
    assert_eq!(
        source.lines().filter(|l| l.contains(", // ")).count(),
        ggp_player::games::ataxx::features::COUNT
    );

    // Without a term: its weights are written as 0 and the report says so; a term that
    // names no feature is refused with the features' names.
    let out = run(&[
        "tune",
        "--game",
        "ataxx",
        data_arg,
        "--without",
        "threat",
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said = "fitted without threat: weights 0 for threat (opening), threat (ending)";
    assert!(stdout.contains(said), "{stdout}");
    let source = std::fs::read_to_string(&weights).unwrap();
    assert!(source.contains(said), "{source}");
    for zero in ["    0, // threat (opening)", "    0, // threat (ending)"] {
        assert!(source.lines().any(|l| l == zero), "{source}");
    }
    let out = run(&["tune", "--game", "ataxx", data_arg, "--without", "thread"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"thread\" names no feature") && stderr.contains("stable (ending)"),
        "{stderr}"
    );

    std::fs::write(&data, "0 1 40 b 0 1\n0 1 40 b 0 2\n").unwrap();
    let out = run(&["tune", "--game", "ataxx", data_arg]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2") && stderr.contains("bad score"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_sizes_and_depths_are_rejected_with_the_valid_range() {
    let cases: &[(&[&str], &str)] = &[
        (&["perft", "11x8", "3"], "2-10"),
        (&["perft", "8x3", "3"], "4-10"),
        (&["perft", "1x1", "3"], "2-10"),
        (&["perft", "8by8", "3"], "WIDTHxHEIGHT"),
        (&["perft", "", "3"], "WIDTHxHEIGHT"),
        (&["perft", "8x8", "0"], "1 to 20"),
        (&["perft", "8x8", "21"], "1 to 20"),
        (&["perft", "8x8", "99999999999999999999"], "1 to 20"),
        (&["perft", "8x8", "-3"], "unexpected argument"),
        (&["bench", "--eval", "magic"], "baseline"),
        (&["bench", "--hash-mb", "0"], "1 to 65536"),
        (&["solve", "5x5", "--time", "0"], "above 0"),
        (&["solve", "12x5"], "2-10"),
        (
            &["solve", "8x8", "--time", "0.2"],
            "not solved within 0.2 s",
        ),
        (
            &["perft", "8x8", "3", "--variant", "chess"],
            "course or standard",
        ),
        (&["frobnicate"], "unrecognized subcommand"),
    ];
    for (args, needle) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_table_larger_than_the_free_memory_is_refused_at_the_start() {
    let Some(free) = ggp_player::memory::available_mib() else {
        eprintln!("skipped: this system does not report its available memory");
        return;
    };
    if free >= 65_536 {
        eprintln!("skipped: {free} MiB available, more than the largest table");
        return;
    }
    let cases: &[&[&str]] = &[
        &["solve", "4x4", "--hash-mb", "65536"],
        &["solve", "4x4", "--solver", "dfpn", "--hash-mb", "65536"],
        &["bench", "--hash-mb", "65536"],
        &["serve", "--port", "0", "--hash-mb", "65536"],
    ];
    for args in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("--hash-mb"), "{args:?}: {stderr}");
        assert!(
            stderr.contains("asks for a table of 65536 MiB"),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("MiB of memory is available"),
            "{args:?}: {stderr}"
        );
    }
    // A checkpoint is resumed with the table it saved, whatever --hash-mb says: a file
    // larger than the free memory is refused before it is read (a sparse file here).
    let path = std::env::temp_dir().join(format!("ckpt-too-large-{}", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    file.set_len((free as u64 + 4096) << 20).unwrap();
    let out = run(&[
        "solve",
        "4x4",
        "--hash-mb",
        "1",
        "--checkpoint",
        path.to_str().unwrap(),
    ]);
    std::fs::remove_file(&path).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("resuming from"), "{stderr}");
    assert!(stderr.contains(&format!("{} MiB", free + 4096)), "{stderr}");
}

#[test]
fn help_explains_every_subcommand() {
    let out = run(&["--help"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for sub in ["serve", "match", "tournament", "gdl", "perft", "bench"] {
        assert!(stdout.contains(sub), "{stdout}");
    }
    // Every command's help, nested ones too, reads as prose: no rustdoc links or paths.
    let mut commands: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = commands.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = succeeded(&args);
        for leak in ["[`", "super::", "crate::"] {
            assert!(
                !help.contains(leak),
                "{leak:?} in `{}`:\n{help}",
                args.join(" ")
            );
        }
        seen += 1;
        let listed = help
            .lines()
            .skip_while(|l| *l != "Commands:")
            .skip(1)
            .take_while(|l| !l.is_empty());
        for line in listed {
            let name = line.split_whitespace().next().unwrap();
            if name != "help" {
                commands.push(path.iter().cloned().chain([name.to_owned()]).collect());
            }
        }
    }
    assert!(seen > 12, "only {seen} commands' help read");
}

#[test]
fn gdl_prints_the_project_rules_and_checks_files() {
    let out = run(&["gdl", "breakthrough", "6x7"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/gdl/breakthrough_6x7.gdl"
    ))
    .unwrap();
    assert_eq!(text, committed, "the command prints the committed file");

    let stdout = succeeded(&[
        "gdl",
        "check",
        concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/breakthrough_5x5.gdl"),
    ]);
    assert!(stdout.contains("roles: white black"), "{stdout}");
    assert!(
        stdout.contains("legal moves of white at the start: 5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("legal moves of black at the start: 1"),
        "{stdout}"
    );
    // The model is the one the race chose, as the player chooses it at START.
    let race = stdout
        .lines()
        .find_map(|l| l.strip_prefix("race: random playouts made "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let rates: Vec<f64> = race
        .split(' ')
        .filter_map(|w| w.trim_end_matches(',').parse().ok())
        .collect();
    let &[network, reasoner] = &rates[..] else {
        panic!("{race}")
    };
    let model = if reasoner >= 1.5 * network && reasoner > 0.0 {
        "model: reasoner (no propositional network: it was slower than the reasoner"
    } else {
        "model: propositional network"
    };
    assert!(stdout.contains(model), "{stdout}");

    let out = run(&["gdl", "check", "/nonexistent.gdl"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));

    // A terminal state's goals must be one whole number from 0 to 100 per role.
    let game = "(init (step 0)) (<= (legal white go) (true (step 0))) \
                (<= (next (step 1)) (does white go)) (<= terminal (true (step 1)))";
    for (rules, needle) in [
        (
            "(role white) (<= (goal white 999) (true (step 1)))",
            "goal value 999",
        ),
        (
            "(role white) (<= (goal white 100) (true (step 0)))",
            "warning: white has no goal value",
        ),
    ] {
        let path = std::env::temp_dir().join(format!("ggp-check-{}.gdl", std::process::id()));
        std::fs::write(&path, format!("{rules} {game}")).unwrap();
        let out = run(&["gdl", "check", path.to_str().unwrap()]);
        let _ = std::fs::remove_file(&path);
        // Faulty, but found in sheets in use (a missing goal): a warning, counted as 0.
        let warned = needle.starts_with("warning");
        let said = if warned { &out.stdout } else { &out.stderr };
        let said = String::from_utf8_lossy(said);
        assert!(
            out.status.success() == warned && said.contains(needle),
            "{rules}: {said}"
        );
    }
    let out = run(&["gdl", "breakthrough", "12x3"]);
    assert!(!out.status.success());
}

#[test]
fn gdl_compare_checks_scrambled_rules() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/tictactoe.gdl");
    let stdout = succeeded(&["gdl", "compare", file, "--games", "3", "--scramble", "5"]);
    // Tic-tac-toe names 16 symbols besides the keywords and numbers.
    assert!(
        stdout.contains("scrambled with seed 5: 16 symbols renamed"),
        "{stdout}"
    );
    assert!(stdout.contains("model: propositional network"), "{stdout}");
    assert!(stdout.contains("random games (3 reached"), "{stdout}");
}

#[test]
fn gdl_bench_measures_tree_searches_with_each_playout_and_with_grave() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/connect_four.gdl");
    for extra in [None, Some("--rave")] {
        let mut args = vec![
            "gdl",
            "bench",
            file,
            "--mcts",
            "--seconds",
            "0.2",
            "--rounds",
            "1",
        ];
        args.extend(extra);
        let stdout = succeeded(&args);
        let medians = stdout
            .lines()
            .find_map(|l| l.strip_prefix("median playouts/s: "))
            .unwrap_or_else(|| panic!("{stdout}"));
        // Every kind of playout, by the reasoner and by each way of evaluating the
        // network, made playouts.
        let words: Vec<&str> = medians.split(' ').collect();
        assert_eq!(words.len(), 18, "{medians}");
        for pair in words.chunks(2) {
            let rate: f64 = pair[1].parse().unwrap();
            assert!(rate > 0.0, "{extra:?}: {medians}");
        }
        for kind in ["Random", "Mast", "Nst"] {
            for model in ["reasoner", "sweep", "propagate"] {
                let name = format!("{kind}/{model}");
                assert!(words.contains(&name.as_str()), "{name}: {medians}");
            }
        }
    }
}

#[test]
fn match_referees_two_started_players_and_prints_the_result() {
    let stdout = succeeded(&[
        "match",
        "--white",
        "ggp-player serve --agent random --seed 1",
        "--black",
        "ggp-player serve --agent random --seed 2",
        "--size",
        "4x5",
        "--startclock",
        "1",
        "--playclock",
        "1",
        "--dialect",
        "dresden",
    ]);
    assert!(stdout.contains("   1. white (move "), "{stdout}");
    let result = stdout
        .lines()
        .find(|l| l.starts_with("result: "))
        .expect("a result line");
    assert!(
        ["result: 100 0", "result: 0 100", "result: 50 50"]
            .iter()
            .any(|r| result.starts_with(r)),
        "{result}"
    );
    assert!(result.ends_with(" 0 faults"), "{result}");

    let out = run(&["match", "--white", "http://127.0.0.1", "--black", "x"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("host:port"));

    // A course program that gives no answer loses, its fault told in words.
    let stdout = succeeded(&[
        "match",
        "--game",
        "loa6",
        "--white",
        "program:/nonexistent/loa6",
        "--black",
        "agent:random",
    ]);
    assert!(
        stdout.contains("fault: white gave no answer (stderr: ") && stdout.contains("not found)"),
        "{stdout}"
    );

    // A port nobody listens on (one just freed) is an error, not a match of faults.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let nobody = format!("http://127.0.0.1:{port}");
    let out = run(&[
        "match", "--white", &nobody, "--black", &nobody, "--size", "2x4",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("nobody answers at 127.0.0.1:{port}")),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("result:"));
}

#[test]
fn match_and_tournament_play_a_gdl_file() {
    let rules = |file: &str| format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
    let random = |seed: u32| format!("ggp-player serve --agent random --seed {seed}");
    let (lun, rps) = (rules("lowest_unique.gdl"), rules("rps_well.gdl"));
    // Three roles, one --player each, in role order.
    let stdout = succeeded(&[
        "match",
        "--rules",
        &lun,
        "--player",
        &random(1),
        "--player",
        &random(2),
        "--player",
        &random(3),
        "--startclock",
        "1",
        "--playclock",
        "1",
    ]);
    assert!(stdout.contains("   1. ((pick "), "{stdout}");
    let result = stdout
        .lines()
        .find(|l| l.starts_with("result: red "))
        .expect("a result");
    assert!(
        result.contains(", green ") && result.ends_with(" 0 faults"),
        "{result}"
    );

    // Two roles, left and right: a --player each (--white and --black name roles
    // these rules do not have); a tournament records the game under its name.
    // In-process agents play registered games, not a GDL file: said before the clock.
    let out = run(&[
        "match",
        "--rules",
        &rps,
        "--player",
        "agent:random",
        "--player",
        "agent:random",
        "--playclock",
        "0.1",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--rules plays a GDL file between GGP players")
            && !stderr.contains("whole seconds"),
        "{stderr}"
    );
    let out = run(&["match", "--rules", &rps, "--white", "x:1", "--black", "y:1"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the roles are left, right, not white and black: give one --player per role"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&[
        "match",
        "--rules",
        &rps,
        "--player",
        &random(4),
        "--player",
        &random(5),
        "--playclock",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("after 3 steps"));
    let results = std::env::temp_dir().join(format!("ggp-cli-rps-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&results);
    let stdout = succeeded(&[
        "tournament",
        "--rules",
        &rps,
        "--player",
        &format!("a={}", random(6)),
        "--player",
        &format!("b={}", random(7)),
        "--games",
        "2",
        "--playclocks",
        "1",
        "--startclock",
        "1",
        "--results",
        results.to_str().unwrap(),
    ]);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("a ") && l.contains(" 2 ")),
        "{stdout}"
    );
    let saved = std::fs::read_to_string(&results).unwrap();
    assert_eq!(saved.lines().count(), 2);
    assert!(
        saved.lines().all(|l| l.contains(r#""size":"rps_well""#)),
        "{saved}"
    );
    let _ = std::fs::remove_file(&results);

    // Wrong numbers of players, and a file that is not GDL.
    for (args, needle) in [
        (
            vec!["match", "--rules", &lun, "--white", "x:1", "--black", "y:1"],
            "3 roles",
        ),
        (
            vec![
                "tournament",
                "--rules",
                &lun,
                "--player",
                "a=x:1",
                "--player",
                "b=y:1",
            ],
            "3 roles",
        ),
        (
            vec![
                "match",
                "--rules",
                "Cargo.toml",
                "--white",
                "x:1",
                "--black",
                "y:1",
            ],
            "not valid GDL",
        ),
    ] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// One HTTP exchange with a player, reading the reply to the end (as the controllers do).
fn exchange(port: u16, body: &str) -> std::io::Result<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
    write!(
        stream,
        "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    Ok(reply)
}

/// `serve --include-test-games` offers the toy game walk on its page too (without the
/// flag it is left out: see the browser tests in tests/web.rs).
#[test]
fn serve_offers_the_test_games_on_the_page_when_asked() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["serve", "--port", &port.to_string(), "--include-test-games"])
        .args(["--threads", "1", "--no-ponder", "--hash-mb", "16"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let offers = loop {
        let got = std::net::TcpStream::connect(("127.0.0.1", port)).and_then(|mut stream| {
            write!(
                stream,
                "GET /api/games HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"
            )?;
            let mut reply = String::new();
            stream.read_to_string(&mut reply)?;
            Ok(reply)
        });
        match got {
            Ok(reply) => break reply,
            Err(_) if started.elapsed().as_secs() < 10 => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => panic!("the player did not start: {e}"),
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        offers.starts_with("HTTP/1.0 200") || offers.starts_with("HTTP/1.1 200"),
        "{offers}"
    );
    assert!(offers.contains(r#""name":"walk""#), "{offers}");
    assert!(offers.contains(r#""name":"halma""#), "{offers}");
}

#[test]
fn a_player_whose_log_nobody_reads_keeps_replying() {
    use std::process::Stdio;
    let port = free_port();
    // stderr is a pipe that is never read: once its buffer is full, a player that waited
    // for its log lines to be written would stop answering.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["serve", "--port", &port.to_string(), "--margin-ms", "900"])
        // Each match is aborted after its move, and the table is small: the log is what
        // is tested, and 40 matches must not each keep a table.
        .args(["--threads", "1", "--no-ponder", "--hash-mb", "16"])
        .env("RUST_LOG", "trace")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while exchange(port, "( INFO )").is_err() {
        assert!(started.elapsed().as_secs() < 10, "the player did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let rules = rules_line("5x5");
    let mut result = Ok(());
    for i in 0..40 {
        let start = exchange(port, &format!("(START m{i} white ({rules}) 5 1)"));
        let play = exchange(port, &format!("(PLAY m{i} NIL)"));
        let abort = exchange(port, &format!("(ABORT m{i})"));
        match (start, play, abort) {
            (Ok(s), Ok(p), Ok(a))
                if s.ends_with("ready") && p.contains("(move ") && a.ends_with("done") => {}
            other => {
                result = Err(format!("exchange {i}: {other:?}"));
                break;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();
}

/// A release-like player on a free port (one search thread, no pondering, a small
/// table, `margin_ms`, and `env`), answering INFO: the process, its port, and its log
/// (standard error) line by line.
fn logged_player(
    margin_ms: &str,
    env: &[(&str, &str)],
) -> (std::process::Child, u16, std::sync::mpsc::Receiver<String>) {
    logged_player_with(margin_ms, env, &[])
}

/// [`logged_player`] with more `serve` arguments.
fn logged_player_with(
    margin_ms: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> (std::process::Child, u16, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader};
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args([
            "serve",
            "--port",
            &port.to_string(),
            "--margin-ms",
            margin_ms,
        ])
        .args(["--threads", "1", "--no-ponder", "--hash-mb", "16"])
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, log) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let started = std::time::Instant::now();
    while exchange(port, "( INFO )").is_err() {
        assert!(started.elapsed().as_secs() < 10, "the player did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (child, port, log)
}

#[test]
fn sigterm_finishes_the_reply_in_progress_then_exits_0() {
    use std::io::Read;
    use std::time::Duration;
    // Each move searches 1 s of its 3 s play clock; the log tells when the PLAY is read.
    let (mut child, port, log) = logged_player("2000", &[]);
    let rules = rules_line("5x5");
    let start = exchange(port, &format!("(START t white ({rules}) 10 3)")).unwrap();
    assert!(start.ends_with("ready"), "{start}");
    // A client that connected but has not sent its request yet: closed at shutdown.
    let mut waiting = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // One that has sent its head and part of its body (a slow or stalled client): closed
    // within a second of the signal, not kept for the 30 s body timeout.
    let mut partial = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::io::Write::write_all(
        &mut partial,
        b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n(PLAY t",
    )
    .unwrap();
    partial
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let play = std::thread::spawn(move || exchange(port, "(PLAY t NIL)"));
    let read = |what: &str| loop {
        let line = log
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no log line for {what}"));
        if line.contains(what) {
            break line;
        }
    };
    read("kind=\"play\"");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let reply = play.join().unwrap().unwrap();
    assert!(reply.starts_with("HTTP/1.0 200 OK"), "{reply}");
    assert!(reply.ends_with(')') && reply.contains("(move "), "{reply}");
    let mut rest = Vec::new();
    assert_eq!(
        waiting.read_to_end(&mut rest).unwrap(),
        0,
        "closed, no reply"
    );
    // Closed well before its 30 s body timeout (the read above would fail after 20 s).
    let partial_reply = partial.read_to_end(&mut rest);
    assert!(
        matches!(partial_reply, Ok(0))
            || partial_reply
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "the partial request is closed without a reply: {partial_reply:?} {rest:?}"
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    read("SIGTERM");
    assert!(exchange(port, "( INFO )").is_err(), "no longer listening");
}

/// The GGP player's search stalls after its first iteration (the test hook
/// `GGP_PLAYER_TEST_STALL_DEPTH`, one search thread): the reply, at the deadline, is that
/// iteration's best move, and the log says which fallback was used.
#[test]
fn a_stalled_search_is_answered_with_its_last_iteration_s_move() {
    use std::time::Duration;
    let (mut child, port, log) = logged_player("1000", &[("GGP_PLAYER_TEST_STALL_DEPTH", "1")]);
    let (mv, _) = first_move(port, "white", &rules_line("8x8"));
    let mut depth_1 = None;
    let mut fallback = None;
    while fallback.is_none() {
        let line = log
            .recv_timeout(Duration::from_secs(20))
            .expect("a log line for the fallback");
        if line.contains(": iteration ") && line.contains(" depth=1 ") {
            depth_1 = line
                .split("best=")
                .nth(1)
                .map(|b| b.split(" score=").next().unwrap_or("").to_owned());
        }
        if line.contains("no search result") {
            fallback = Some(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let fallback = fallback.unwrap();
    assert!(
        fallback.contains("playing the best move the search had published")
            && fallback.contains("depth=1"),
        "{fallback}"
    );
    let depth_1 = depth_1.expect("the first iteration was logged");
    assert_eq!(mv, depth_1, "the reply is the first iteration's move");
}

/// Starts match `s` (start clock 10 s, play clock 3 s) with us as `role`, and asks for
/// the first move: the reply's body, and how long it took.
fn first_move(port: u16, role: &str, rules: &str) -> (String, std::time::Duration) {
    let start = exchange(port, &format!("(START s {role} ({rules}) 10 3)")).unwrap();
    assert!(start.ends_with("ready"), "{start}");
    let asked = std::time::Instant::now();
    let reply = exchange(port, "(PLAY s NIL)").unwrap();
    let body = reply.rsplit("\r\n\r\n").next().unwrap_or("").trim();
    (body.to_owned(), asked.elapsed())
}

/// A tree search that stalls past its deadline (a test hook makes it sleep once it has
/// published a move) is answered with the move its tree had chosen, never with a move
/// chosen without search: in a game the engine plays (`--agent mcts`) and in one it does
/// not (connect four, by the general player).
#[test]
fn a_stalled_tree_search_is_answered_with_the_tree_s_choice() {
    use std::time::Duration;
    let connect_four =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/connect_four.gdl"))
            .unwrap()
            .lines()
            .map(|l| l.split(';').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join(" ");
    let cases = [
        (
            rules_line("6x6"),
            "white",
            vec!["--agent", "mcts"],
            "(move ",
        ),
        (connect_four, "red", vec![], "(drop "),
    ];
    for (rules, role, args, shape) in cases {
        let stall = [("GGP_PLAYER_TEST_STALL_MCTS", "1")];
        let (mut child, port, log) = logged_player_with("1000", &stall, &args);
        let (mv, answered) = first_move(port, role, &rules);
        let fallback = loop {
            let line = log
                .recv_timeout(Duration::from_secs(20))
                .expect("a log line for the fallback");
            if line.contains("no search result") {
                break line;
            }
        };
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            fallback.contains("playing the best move the search had published (the tree's choice)"),
            "{args:?}: {fallback}"
        );
        assert!(mv.starts_with(shape), "{args:?}: {mv}");
        assert!(fallback.contains(&mv), "{args:?}: {mv} in {fallback}");
        assert!(answered < Duration::from_secs(3), "{args:?}: {answered:?}");
    }
}

/// `perft --position FILE` counts from a position written as the course program reads
/// it: the start written that way counts as the start does, another position differently,
/// and a file that is not a position gets a clear error.
#[test]
fn perft_counts_from_a_position_in_the_course_s_format() {
    let dir = std::env::temp_dir().join(format!("perft-position-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let count = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
            .arg("perft")
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let nodes = text
            .split(": ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok());
        (nodes, err)
    };
    let cases = [
        (
            "loa6",
            "6x6",
            "move\n1\n6\n.XXXX.\nO....O\nO....O\nO....O\nO....O\n.XXXX.\n",
            "move\n1\n6\n.XXXX.\nO....O\n.O...O\nO....O\nO....O\n.XXXX.\n",
        ),
        (
            "ataxx",
            "7x7",
            "move\n1\n7\n1:0:0:0:0:0:2:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n2:0:0:0:0:0:1:\n",
            "move\n1\n7\n1:1:0:0:0:0:2:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n0:0:0:0:0:0:0:\n2:0:0:0:0:0:1:\n",
        ),
    ];
    for (game, size, start, other) in cases {
        let (from_start, err) = count(&["--game", game, size, "3"]);
        assert!(from_start.is_some(), "{game}: {err}");
        let file = dir.join(format!("{game}-position.txt"));
        let from_text = |text: &str| {
            std::fs::write(&file, text).unwrap();
            count(&[
                "--game",
                game,
                size,
                "3",
                "--position",
                file.to_str().unwrap(),
            ])
        };
        let (written, err) = from_text(start);
        assert_eq!(written, from_start, "{game}: {err}");
        let (moved, err) = from_text(other);
        assert!(
            moved.is_some() && moved != from_start,
            "{game}: {moved:?} {err}"
        );
    }
    let halma = "docs/examples/halma-input.txt";
    let (from_start, _) = count(&["--game", "halma", "16x16", "2"]);
    let (written, err) = count(&["--game", "halma", "16x16", "2", "--position", halma]);
    assert!(
        from_start.is_some() && written == from_start,
        "halma: {err}"
    );
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "identify\n").unwrap();
    let (none, err) = count(&[
        "--game",
        "loa6",
        "6x6",
        "2",
        "--position",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(none, None);
    assert!(
        err.contains("bad.txt") && err.contains("no position"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn input_files_are_read_up_to_a_cap_named_in_one_line() {
    let cases: [&[&str]; 5] = [
        &["gdl", "check", "/dev/zero"],
        &["perft", "5x5", "1", "--position", "/dev/zero"],
        &["solve", "3x4", "--known", "/dev/zero"],
        &["tune", "/dev/zero"],
        &[
            "match",
            "--rules",
            "/dev/zero",
            "--white",
            "x:1",
            "--black",
            "y:1",
        ],
    ];
    for args in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains("/dev/zero"), "{args:?}: {stderr}");
        assert!(
            stderr.contains(" MiB, the most read of a "),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn selfplay_refuses_to_report_a_score_of_no_games() {
    let out = run(&[
        "selfplay",
        "tuned",
        "baseline",
        "--openings",
        "2",
        "--depth",
        "1",
        "--size",
        "2x4",
        "--opening-plies",
        "20",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains("no games played"), "{stderr}");
    assert!(stderr.contains("--opening-plies"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn limits_are_stated_and_bad_values_refused_by_name() {
    let help = succeeded(&["solve", "--help"]);
    assert!(help.contains("PLIES (0, 1 or 2)"), "{help}");
    let out = run(&["tournament", "--concurrency", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--concurrency"), "{stderr}");
    // A directory opens as a file does; the error must still say which input it was.
    let dir = std::env::temp_dir().join(format!("loa-input-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loa"))
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(&*dir.to_string_lossy()), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Each match's table is at least 1 MiB, so a total below --max-matches cannot be kept:
/// `serve` refuses it at the start (it rounded each share up to 1 MiB, 1 GiB in all).
#[test]
fn serve_refuses_a_hash_total_smaller_than_its_matches() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let port = free_port().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["serve", "--port", &port, "--no-ponder", "--threads", "1"])
        .args(["--hash-mb", "8", "--max-matches", "1024"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve started with --hash-mb 8 and --max-matches 1024");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: --hash-mb 8 is less than --max-matches 1024: each match needs a table of at \
         least 1 MiB, so give --hash-mb 1024 or more, or --max-matches 8 or fewer"
    );
    // One MiB a match is enough.
    let config = |hash_mb, max_matches| ggp_player::player::ServeConfig {
        agent: ggp_player::agent::AgentConfig {
            hash_mb,
            ..ggp_player::agent::AgentConfig::default()
        },
        max_matches,
        ..ggp_player::player::ServeConfig::default()
    };
    assert!(config(8, 8).check_hash().is_ok());
    assert_eq!(config(8, 8).match_hash_mb(), 1);
    assert!(config(7, 8).check_hash().is_err());
}
