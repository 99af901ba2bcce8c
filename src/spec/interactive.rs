//! Programs that play a whole game in one long-running process, the way CS61B's
//! `test-loa` harness drives two of them against each other (`GAMES.md` §3.3,
//! `#*remote move/win`): each is told which side it plays, is fed the other side's
//! moves as lines on its standard input, and prints its own moves among whatever else it
//! prints. A game says how that conversation is written in an [`InteractiveProtocol`];
//! the referee plays it.

use std::time::Duration;

use crate::game::Game;

/// How one game's long-running programs are talked to.
pub struct InteractiveProtocol<G: Game> {
    /// The most one move may take, from the line that asks for it (the opponent's move,
    /// or the setup for the first mover) to the program's move line.
    pub move_limit: Duration,
    /// The most all of one program's moves in a game may take together.
    pub game_limit: Duration,
    /// The lines that make the program play the side numbered `side` (0 moves first) and
    /// wait for the other's moves.
    pub setup: fn(side: usize) -> &'static [&'static str],
    /// The line that feeds a move made by the other side, or `None` for a move the
    /// protocol cannot write (a pass, which the program makes by itself).
    pub write_move: fn(&G, G::Move) -> Option<String>,
    /// The move text of one output line that announces the program's move, or `None` for
    /// any other line (prompts, results, chatter); read by the game's
    /// [`Game::parse_move`].
    pub move_text: fn(&str) -> Option<String>,
    /// Whether a move is a pass: the program makes it by itself, without a line.
    pub is_pass: fn(G::Move) -> bool,
    /// Text on the program's standard error that the course's harness takes as a crash.
    pub crash_text: &'static str,
    /// The most output lines the harness accepts from a program over a game.
    pub max_lines: usize,
    /// The line that ends the program.
    pub quit: &'static str,
}
