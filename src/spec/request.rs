//! The NUS CS3243 request protocol (`GAMES.md` §1.5, §2.5) as a game describes it: how
//! one request's board lines and the answer's move are written. The agent that answers
//! requests is [`crate::oneshot`]'s; the referee writes requests and reads answers with
//! the same description.

use std::time::Duration;

use crate::game::{self, Game};

/// How one game's requests and answers are written.
pub struct RequestProtocol<G: Game> {
    /// The program's name, answered to `identify`.
    pub agent_name: &'static str,
    /// The board's size: the request's third line, and the number of board lines.
    pub size: usize,
    /// The course's limit per request, process start included.
    pub limit: Duration,
    /// When this program answers, counted from its start: the limit less room for a
    /// loaded machine.
    pub answer_within: Duration,
    /// The position of the board lines (the request's non-blank lines after the size,
    /// trimmed; a protocol whose lines may run together counts cells, not lines), the
    /// agent to move, given the request's number line.
    pub read_board: fn(i64, &[&str]) -> Result<G, String>,
    /// The board lines of a position, the side to move written as the agent.
    pub write_board: fn(&G) -> Vec<String>,
    /// A move as the answer line.
    pub write_move: fn(&G, G::Move) -> String,
    /// The legal move an answer line names, if it names one.
    pub read_move: fn(&G, &str) -> Option<G::Move>,
    /// Whether a move is a pass, which the protocol cannot write: the course's framework
    /// passes for a side without another move, without asking it.
    pub is_pass: fn(G::Move) -> bool,
}

/// A request read from the input.
#[derive(Clone, Debug)]
pub enum Request<G> {
    Identify,
    Move {
        /// The request's number line (turns elapsed or the move number).
        number: i64,
        position: G,
    },
}

/// Reads a request: the first non-blank line is the command (any case), then for `move`
/// its number, the size and the board lines. Blank lines, trailing spaces and CR are
/// ignored.
pub fn read_request<G: Game>(
    protocol: &RequestProtocol<G>,
    text: &str,
) -> Result<Request<G>, String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let command = lines
        .next()
        .ok_or("empty request: expected `identify` or `move`")?;
    if command.eq_ignore_ascii_case("identify") {
        return Ok(Request::Identify);
    }
    if !command.eq_ignore_ascii_case("move") {
        return Err(format!(
            "unknown request {:?}: expected `identify` or `move`",
            shorten(command)
        ));
    }
    let number = lines
        .next()
        .ok_or("`move` without its number line")?
        .parse::<i64>()
        .map_err(|_| "the line after `move` must be a whole number".to_owned())?;
    let size = lines.next().ok_or("`move` without the board's size")?;
    if size.parse::<usize>().ok() != Some(protocol.size) {
        return Err(format!(
            "board size {:?}: this agent plays on {}",
            shorten(size),
            protocol.size
        ));
    }
    let rows: Vec<&str> = lines.collect();
    let position = (protocol.read_board)(number, &rows)?;
    if let Some(outcome) = game::result(&position) {
        return Err(format!(
            "the game is over on this board ({} for the agent): there is no move to make",
            match outcome {
                game::Outcome::Win => "a win",
                game::Outcome::Loss => "a loss",
                game::Outcome::Draw => "a draw",
            }
        ));
    }
    Ok(Request::Move { number, position })
}

/// The request the framework sends for `position` (its side to move as the agent).
pub fn write_request<G: Game>(protocol: &RequestProtocol<G>, number: i64, position: &G) -> String {
    let mut text = format!("move\n{number}\n{}\n", protocol.size);
    for row in (protocol.write_board)(position) {
        text.push_str(&row);
        text.push('\n');
    }
    text
}

/// At most 40 characters of `text`, for error messages about input of any length.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}
