//! The `loa6` program driven as the NUS course's framework drives it: a fresh process per
//! request, the request on standard input, one line back within 3 s of the start; and
//! the referee asking programs in that protocol.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{Reply, ask_program};
use ggp_player::agent::{AgentConfig, AgentKind};
use ggp_player::game::{self, Game, MoveBuffer, Outcome};
use ggp_player::games::loa::Loa;
use ggp_player::games::loa::nus::PROTOCOL;
use ggp_player::games::loa::spec::Loa6;
use ggp_player::referee::mover::{Fault, Mover};
use ggp_player::referee::native::{self, Contestant};
use ggp_player::referee::program::Program;
use ggp_player::spec::start;

fn ask(request: &str) -> Reply {
    ask_program(env!("CARGO_BIN_EXE_loa6"), request)
}

fn move_request(rows: &[&str]) -> String {
    format!("move\n7\n6\n{}\n", rows.join("\n"))
}

/// Asks for a move on `rows`: the reply must be one legal move, in time; returns the
/// position and the move.
fn legal_reply(request: &str) -> (Loa, <Loa as Game>::Move) {
    let rows: Vec<&str> = request.lines().skip(3).map(str::trim).collect();
    let position = (PROTOCOL.read_board)(7, &rows).unwrap();
    let reply = ask(request);
    assert!(reply.success, "stderr: {}", reply.stderr);
    assert!(
        reply.took < PROTOCOL.limit,
        "answered after {:?}, the course's limit is {:?}",
        reply.took,
        PROTOCOL.limit
    );
    let lines: Vec<&str> = reply.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {:?}", reply.stdout);
    assert!(
        lines[0].len() == 4 && lines[0].bytes().all(|b| !b.is_ascii_lowercase()),
        "four capitals: {:?}",
        lines[0]
    );
    let mv = (PROTOCOL.read_move)(&position, lines[0])
        .unwrap_or_else(|| panic!("{:?} is not legal on\n{position}", lines[0]));
    (position, mv)
}

#[test]
fn identify_answers_one_printable_line() {
    let reply = ask("identify\n");
    assert!(reply.success);
    let name = reply.stdout.strip_suffix('\n').expect("a whole line");
    assert!(!name.is_empty() && name.len() <= 80, "{name:?}");
    assert!(name.bytes().all(|b| (b' '..=b'~').contains(&b)), "{name:?}");
}

#[test]
fn the_start_gets_a_legal_move_in_time_whatever_the_line_endings() {
    let start = [".XXXX.", "O....O", "O....O", "O....O", "O....O", ".XXXX."];
    legal_reply(&move_request(&start));
    // CR/LF and trailing spaces, as a framework on another system may send.
    let crlf = move_request(&start).replace('\n', "  \r\n");
    let reply = ask(&crlf);
    assert!(reply.success, "{}", reply.stderr);
    assert_eq!(reply.stdout.trim().len(), 4);
}

#[test]
fn a_winning_capture_is_taken() {
    // GAMES.md §1.4: B2-E5 captures and joins X's pieces into one group.
    let request = move_request(&["......", ".X...O", ".O....", ".O.XX.", ".O.XO.", "......"]);
    let (mut position, mv) = legal_reply(&request);
    position.make(mv);
    assert_eq!(game::result(&position), Some(Outcome::Loss), "{position}");
}

#[test]
fn the_one_move_that_stops_both_threats_is_found() {
    // O's stray A5 joins its group by A5-C5 or by taking C3; only C3-C5 stops both (every
    // other X move lets O win next, as the test checks).
    let request = move_request(&["..X...", "....O.", ".XXO..", "X..OO.", "O....O", ".X...."]);
    let (position, mv) = legal_reply(&request);
    let mut list = <Loa as Game>::MoveList::default();
    position.generate_moves(&mut list);
    let loses_next = |m| {
        let mut after = position.clone();
        after.make(m);
        let mut replies = <Loa as Game>::MoveList::default();
        after.generate_moves(&mut replies);
        replies.as_slice().iter().any(|&r| {
            let mut end = after.clone();
            end.make(r);
            game::result(&end) == Some(Outcome::Loss)
        })
    };
    let safe: Vec<String> = list
        .as_slice()
        .iter()
        .filter(|&&m| !loses_next(m))
        .map(|&m| (PROTOCOL.write_move)(&position, m))
        .collect();
    assert_eq!(safe, ["C3C5"]);
    assert!(list.as_slice().len() > 10);
    assert_eq!((PROTOCOL.write_move)(&position, mv), "C3C5");
}

#[test]
fn unreadable_requests_get_one_line_on_stderr_and_a_failure() {
    let start = ".XXXX.\nO....O\nO....O\nO....O\nO....O\n.XXXX.\n";
    let cases = [
        ("", "empty"),
        ("hello\n", "unknown request"),
        ("move\n", "number"),
        ("move\nfirst\n6\n", "whole number"),
        (&*format!("move\n1\n8\n{start}"), "board size"),
        ("move\n1\n6\n.XXXX.\nO....O\n", "board lines"),
        (
            &*format!("move\n1\n6\n{}", start.replace("O....O\n.X", "O..Q.O\n.X")),
            "cells are",
        ),
        (
            &*format!("move\n1\n6\n{}", start.replace(".XXXX.\nO", ".XXXXX.\nO")),
            "7 cells",
        ),
        // X is already one group and O not: the game is over, there is no move to make.
        (
            "move\n1\n6\nXX....\n......\n......\n....O.\n......\n.....O\n",
            "game is over",
        ),
    ];
    for (request, expected) in cases {
        let reply = ask(request);
        assert!(!reply.success, "{request:?} was accepted");
        assert!(reply.stdout.is_empty(), "{request:?}: {}", reply.stdout);
        let lines: Vec<&str> = reply.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{request:?}: {}", reply.stderr);
        assert!(lines[0].contains(expected), "{request:?}: {}", lines[0]);
    }
}

/// One game of `loa6` from the start between `first` and `second`, capped at `plies`.
fn refereed(
    first: &mut dyn Mover<Loa>,
    second: &mut dyn Mover<Loa>,
    plies: u32,
) -> native::NativeRecord {
    let start = start::<Loa6>(None, None).unwrap();
    native::play(
        &start,
        &[],
        [first, second],
        Duration::from_millis(100),
        plies,
    )
}

fn random_agent() -> Box<dyn Mover<Loa>> {
    let random = Contestant::Agent(AgentConfig {
        kind: AgentKind::Random,
        seed: Some(1),
        ..AgentConfig::default()
    });
    native::mover::<Loa6>(&random, Duration::from_millis(100)).unwrap()
}

#[test]
fn the_referee_asks_a_program_in_its_own_protocol_and_judges_its_answers() {
    // The real agent: a legal move, in time, through a fresh process.
    let mut loa6 = Program::new(env!("CARGO_BIN_EXE_loa6"), &PROTOCOL);
    let r = refereed(&mut loa6, &mut *random_agent(), 2);
    assert_eq!(
        (r.fault.clone(), r.moves.len(), r.capped),
        (None, 2, true),
        "{r:?}"
    );

    // An answer that is no move, a program that fails, one that never answers: each
    // loses the game with the fault recorded.
    let mut garbage = Program::new("echo ZZZZ", &PROTOCOL);
    let r = refereed(&mut *random_agent(), &mut garbage, 10);
    assert_eq!(r.fault, Some((1, Fault::Illegal("\"ZZZZ\"".into()))));
    assert_eq!(r.scores, [1.0, 0.0]);
    let mut failing = Program::new("echo 'cannot think' >&2; exit 3", &PROTOCOL);
    let r = refereed(&mut failing, &mut *random_agent(), 10);
    assert_eq!(
        r.fault,
        Some((0, Fault::NoAnswer("stderr: cannot think".into())))
    );
    let mut asleep = Program::new("exec sleep 30", &PROTOCOL);
    let began = Instant::now();
    let r = refereed(&mut asleep, &mut *random_agent(), 10);
    assert!(
        matches!(r.fault, Some((0, Fault::Late { ms })) if ms >= 3000),
        "{r:?}"
    );
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "killed at the limit"
    );
}

#[test]
fn programs_play_only_games_with_a_protocol() {
    let out = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["match", "--game", "walk", "--white", "program:true"])
        .args(["--black", "agent:random", "--playclock", "0.1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("walk has no course program protocol"), "{err}");
    assert!(err.contains("loa6"), "{err}");
}

#[test]
fn a_request_is_answered_while_the_framework_keeps_the_pipe_open() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_loa6"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let request = move_request(&[".XXXX.", "O....O", "O....O", "O....O", "O....O", ".XXXX."]);
    stdin.write_all(request.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // stdin stays open: the answer must come anyway, within the course's limit.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let took = started.elapsed();
    assert_eq!(line.trim().len(), 4, "{line:?}");
    assert!(took < PROTOCOL.limit, "answered after {took:?}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// The search's table is no larger than the search can fill before the answer: every
/// page of it a search touches is a page fault in the search and a page to free at the
/// exit. A 64 MiB table, which a 2 s search touches all over, made the process 68 MB.
/// The peak is read from the process's own memory (`VmHWM`) while it runs: the kernel's
/// `ru_maxrss` of a child carries over the parent's peak when the child starts, and this
/// test binary is itself large while other tests run.
#[test]
fn the_table_is_no_larger_than_the_search_can_fill() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_loa6"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let request = move_request(&[".XXXX.", "O....O", "O....O", "O....O", "O....O", ".XXXX."]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(request.as_bytes()).unwrap();
    drop(stdin);
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text.lines().find_map(|l| l.strip_prefix("VmHWM:"));
            if let Some(kib) = hwm.and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert!(status.success());
    assert!(peak_kib > 0, "no reading of the program's memory");
    let mib = peak_kib >> 10;
    assert!(mib < 40, "the program was {mib} MiB resident at its peak");
}

/// A search that stalls after its first iteration (the test hook
/// `GGP_PLAYER_TEST_STALL_DEPTH`) overruns: the watchdog answers at the deadline with the
/// move the search published, never a move chosen without search.
#[test]
fn a_stalled_search_is_answered_with_the_move_it_published() {
    let request = move_request(&[".XXXX.", "O....O", "O....O", "O....O", "O....O", ".XXXX."]);
    let reply = crate::common::ask_program_with(
        env!("CARGO_BIN_EXE_loa6"),
        &request,
        &[("GGP_PLAYER_TEST_STALL_DEPTH", "1")],
    );
    assert!(reply.success, "{}", reply.stderr);
    assert!(
        reply
            .stderr
            .contains("answering the best move it published (depth"),
        "{}",
        reply.stderr
    );
    let rows: Vec<&str> = request.lines().skip(3).collect();
    let position = (PROTOCOL.read_board)(7, &rows).unwrap();
    assert!(
        (PROTOCOL.read_move)(&position, reply.stdout.trim()).is_some(),
        "{:?} is legal",
        reply.stdout
    );
}

#[test]
fn help_prints_the_usage_without_waiting_for_a_request() {
    crate::common::help_prints_the_usage(env!("CARGO_BIN_EXE_loa6"), "loa6");
}
