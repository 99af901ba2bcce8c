//! The `ataxx` program driven as the NUS course's framework drives it (a fresh process
//! per request, one line back within 5 s of the start), and the referee playing it.

use std::time::Duration;

use crate::common::{Reply, ask_program};
use ggp_player::agent::{AgentConfig, AgentKind};
use ggp_player::game::{self, Game, Outcome};
use ggp_player::games::ataxx::Ataxx;
use ggp_player::games::ataxx::nus::PROTOCOL;
use ggp_player::games::ataxx::spec::AtaxxSpec;
use ggp_player::referee::native::{self, Contestant};
use ggp_player::referee::program::Program;
use ggp_player::spec::start;

fn ask(request: &str) -> Reply {
    ask_program(env!("CARGO_BIN_EXE_ataxx"), request)
}

fn move_request(number: i64, rows: &[&str]) -> String {
    format!("move\n{number}\n7\n{}\n", rows.join("\n"))
}

/// The reply to a move request: one legal move in the course's form, in time.
fn legal_reply(number: i64, rows: &[&str]) -> (Ataxx, <Ataxx as Game>::Move) {
    let position = (PROTOCOL.read_board)(number, rows).unwrap();
    let reply = ask(&move_request(number, rows));
    assert!(reply.success, "stderr: {}", reply.stderr);
    assert!(
        reply.took < PROTOCOL.limit,
        "answered after {:?}",
        reply.took
    );
    let line = reply.stdout.strip_suffix('\n').expect("one whole line");
    assert!(!line.contains('\n') && line.len() == 8, "{line:?}");
    let mv = (PROTOCOL.read_move)(&position, line)
        .unwrap_or_else(|| panic!("{line:?} is not legal on\n{position:?}"));
    (position, mv)
}

const START: [&str; 7] = [
    "1:0:0:0:0:0:2:",
    "0:0:0:0:0:0:0:",
    "0:0:0:0:0:0:0:",
    "0:0:0:0:0:0:0:",
    "0:0:0:0:0:0:0:",
    "0:0:0:0:0:0:0:",
    "2:0:0:0:0:0:1:",
];

#[test]
fn identify_and_the_start_get_their_answers() {
    let reply = ask("identify\r\n");
    assert!(reply.success);
    let name = reply.stdout.trim_end_matches('\n');
    assert!(!name.is_empty() && name.len() <= 80 && !name.contains('\r'));
    legal_reply(1, &START);
}

#[test]
fn a_move_that_takes_every_opposing_piece_is_played() {
    // Both of 2's pieces touch b2 and a2: a clone there converts them and ends the game.
    let rows = [
        "2:2:0:0:0:0:0:",
        "0:0:0:0:0:0:0:",
        "1:0:0:0:0:0:0:",
        "0:0:0:0:0:0:0:",
        "0:0:0:0:0:0:0:",
        "0:0:0:0:0:0:0:",
        "0:0:0:0:0:0:1:",
    ];
    let (mut position, mv) = legal_reply(30, &rows);
    position.make(mv);
    assert_eq!(game::result(&position), Some(Outcome::Loss), "{position:?}");
}

#[test]
fn lines_run_together_read_alike() {
    let one_line = START.concat();
    legal_reply(1, &[&one_line]);
}

#[test]
fn a_side_without_a_move_names_its_piece_twice() {
    // 1's only piece is boxed in at 0:0 (every clone and jump target is taken); 2 can
    // still clone into 6:6, so 1 must pass, which the protocol cannot say.
    let mut rows = vec!["2:2:2:2:2:2:2:"; 7];
    rows[0] = "1:2:2:2:2:2:2:";
    rows[6] = "2:2:2:2:2:2:0:";
    let reply = ask(&move_request(20, &rows));
    assert!(reply.success, "{}", reply.stderr);
    assert_eq!(reply.stdout, "0:0:0:0:\n");
}

#[test]
fn the_turn_number_sets_how_near_the_end_is() {
    // Read as turns up to 100, as plies above; never at or past the 200-ply end.
    let ply = |n| (PROTOCOL.read_board)(n, &START).unwrap().ply();
    assert_eq!((ply(1), ply(50), ply(100)), (0, 98, 198));
    assert_eq!((ply(150), ply(500), ply(-3)), (149, 199, 0));
}

#[test]
fn unreadable_requests_get_one_line_on_stderr_and_a_failure() {
    let board = START.join("\n");
    let cases = [
        ("", "empty"),
        ("move\n1\n6\n", "board size"),
        (&*format!("move\nx\n7\n{board}\n"), "whole number"),
        (
            &*format!("move\n1\n7\n{}\n", board.replacen("1:", "3:", 1)),
            "not 0, 1 or 2",
        ),
        (
            &*format!("move\n1\n7\n{}\n", board.replacen("0:0:", "0:", 1)),
            "this one 48",
        ),
        (
            &*format!("move\n1\n7\n{}\n", board.replace('1', "0")),
            "no piece",
        ),
    ];
    for (request, expected) in cases {
        let reply = ask(request);
        assert!(!reply.success && reply.stdout.is_empty(), "{request:?}");
        assert_eq!(reply.stderr.lines().count(), 1, "{}", reply.stderr);
        assert!(
            reply.stderr.contains(expected),
            "{request:?}: {}",
            reply.stderr
        );
    }
}

#[test]
fn the_referee_plays_the_program_in_its_own_protocol() {
    let board = start::<AtaxxSpec>(None, None).unwrap();
    let clock = Duration::from_millis(100);
    let random = Contestant::Agent(AgentConfig {
        kind: AgentKind::Random,
        seed: Some(2),
        ..AgentConfig::default()
    });
    let mut random = native::mover::<AtaxxSpec>(&random, clock).unwrap();
    let mut ataxx = Program::new(env!("CARGO_BIN_EXE_ataxx"), &PROTOCOL);
    let r = native::play(&board, &[], [&mut *random, &mut ataxx], clock, 2);
    assert_eq!(
        (r.fault.clone(), r.moves.len(), r.capped),
        (None, 2, true),
        "{r:?}"
    );
}

#[test]
fn help_prints_the_usage_without_waiting_for_a_request() {
    crate::common::help_prints_the_usage(env!("CARGO_BIN_EXE_ataxx"), "ataxx");
}
