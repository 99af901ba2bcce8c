//! The NUS CS3243 (2010) agent's request format (`GAMES.md` §2.5): seven board lines of
//! `d:` cells, `1` the agent and to move (whatever colour it started as, A-7); the answer
//! is `fx:fy:tx:ty:`, x the column.
//!
//! The request's number line sets how far the game is from its 200-ply end, which the
//! handout leaves open (A-3: turns or plies). A number above 100 can only count plies;
//! otherwise it is read as turns, which puts the end nearer, never farther, than it is,
//! so the search hurries to convert near the limit rather than count on time it lacks.

use std::time::Duration;

use super::board::{N, coords};
use super::{Ataxx, Move, PLY_LIMIT};
use crate::game::Game;
use crate::spec::request::RequestProtocol;

pub static PROTOCOL: RequestProtocol<Ataxx> = RequestProtocol {
    agent_name: concat!("ggp-player ataxx ", env!("CARGO_PKG_VERSION")),
    size: N,
    limit: Duration::from_secs(5),
    // The course's 5 s less 0.7 s for a loaded machine.
    answer_within: Duration::from_millis(4300),
    read_board,
    write_board,
    write_move,
    read_move,
    is_pass: Move::is_pass,
};

/// The plies played before a request numbered `number`, short of the limit so
/// that the agent always has a move to make.
fn plies_played(number: i64) -> u32 {
    let played = if number > 100 {
        number - 1
    } else {
        2 * (number - 1)
    };
    played.clamp(0, i64::from(PLY_LIMIT) - 1) as u32
}

/// The 49 cells in order, however the lines break (the handout's text runs them
/// together).
fn read_board(number: i64, rows: &[&str]) -> Result<Ataxx, String> {
    let position = Ataxx::from_course_board(&rows.join("\n"), plies_played(number))?;
    if position.pieces(position.side_to_move()) == 0 {
        return Err("the agent (1) has no piece on the board: the game is over".to_owned());
    }
    Ok(position)
}

fn write_board(position: &Ataxx) -> Vec<String> {
    position
        .course_board(position.side_to_move())
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A pass cannot be written, and the course allows no skip: the agent then names
/// its first piece's square twice, a well-formed line the framework can forfeit.
fn write_move(position: &Ataxx, m: Move) -> String {
    if m.is_pass() {
        let own = position.pieces(position.side_to_move());
        let (x, y) = coords(own.trailing_zeros() as usize);
        return format!("{x}:{y}:{x}:{y}:");
    }
    position.move_name(m)
}

/// Exactly `fx:fy:tx:ty:` with the trailing colon, as the course writes it.
fn read_move(position: &Ataxx, text: &str) -> Option<Move> {
    let text = text.trim();
    let well_formed = text.len() == 8 && text.ends_with(':');
    well_formed.then(|| position.parse_move(text)).flatten()
}
