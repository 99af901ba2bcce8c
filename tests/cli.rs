//! The command line: correct output for good input, a one-line error and a
//! non-zero exit (never a panic) for bad input.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn perft_prints_the_count() {
    let out = run(&["perft", "5x5", "4"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("perft 5x5 depth 4: 1180 nodes"), "{stdout}");
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
fn help_explains_every_subcommand() {
    let out = run(&["--help"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for sub in ["perft", "bench"] {
        assert!(stdout.contains(sub), "{stdout}");
    }
}
