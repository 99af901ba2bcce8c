//! Agents started once per move in a directory of their own, the way USC CSCI-561's
//! master program ran its students' agents (`GAMES.md` §4.4): the master writes an input
//! file there (the position, the side to move and that side's time left for the whole
//! game), runs the agent with that directory as its working directory, and reads its
//! move from an output file. The agent's CPU time, not the wall clock, is charged to
//! its budget, and a few named files may carry its own notes from one of its moves to
//! its next within a game.
//!
//! Each game says how its files are written and read in a [`DirectoryProtocol`]; the
//! referee does the rest.

use std::time::Duration;

use crate::game::Game;

/// How one game's agent is asked for a move through files in its working directory.
pub struct DirectoryProtocol<G: Game> {
    /// The file the referee writes before each move.
    pub input: &'static str,
    /// The file the agent leaves its move in.
    pub output: &'static str,
    /// The input file for `position` (its side to move being the agent's) when that side
    /// has `time_left` of CPU time for the rest of the game.
    pub write_input: fn(&G, Duration) -> String,
    /// The legal move the output file's text names, or what is wrong with it.
    pub read_output: fn(&G, &str) -> Result<G::Move, String>,
    /// Files the agent may leave for its own next move in the same game (absent on its
    /// first move, as the course's master deleted them before each game).
    pub carried: &'static [&'static str],
    /// How long past its time left (on the wall clock) an agent may run before it is
    /// killed: the course's grace period.
    pub grace: Duration,
}
