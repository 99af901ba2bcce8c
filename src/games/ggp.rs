//! What a game with GDL rules lends the GGP referee: its engine, reading and writing the
//! rules' move terms, so that every reply is checked by the engine rather than by the
//! reasoner (microseconds instead of milliseconds a move).

use crate::game::Game;
use crate::sexpr::Sexpr;

/// The move terms of a game's own GDL rules, as its engine reads and writes them.
///
/// Only for rules the engine plays exactly: two roles taking turns (the one not to move
/// answers the rules' noop), the same legal moves, and goals 100, 50 and 0 for a win, a
/// draw and a loss as [`crate::game::result`] scores them.
pub trait GgpNotation<G: Game>: Send + Sync {
    /// The roles as the rules spell them, in the rules' order, which must also be the
    /// order of play: the first role moves first.
    fn roles(&self) -> [String; 2];
    /// The rules' noop, as they spell it.
    fn noop(&self) -> Sexpr;
    /// Whether `term` is the noop (in any case).
    fn is_noop(&self, term: &Sexpr) -> bool;
    /// The legal move of the side to move that `term` writes, or why it is none.
    fn read_move(&self, position: &G, term: &Sexpr) -> Result<G::Move, String>;
    /// `m`, a legal move of the side to move, as the rules write it.
    fn write_move(&self, position: &G, m: G::Move) -> Sexpr;
    /// What a controller plays for a side whose move is missing or illegal: its first
    /// legal move in the rules' own order (Dresden's choice), not the engine's.
    fn substitute(&self, position: &G) -> Option<G::Move>;
}
