//! The `Game` trait: everything the search needs to know about a two-player,
//! alternating-move, perfect-information game, and nothing more.
//!
//! Keeping the search behind this trait lets other games of the same family
//! (Lines of Action, Ataxx, Halma) reuse it later.

use std::fmt::Debug;

/// The result of a finished game, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win,
    Loss,
    Draw,
}

/// A fixed-capacity move list that lives on the stack: the search allocates no
/// heap memory per node.
pub trait MoveBuffer<M>: Default {
    fn as_slice(&self) -> &[M];
    fn as_mut_slice(&mut self) -> &mut [M];
    fn clear(&mut self);
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }
}

/// The least [`Game::move_priority`] of a capture or a win.
pub const TACTICAL_PRIORITY: i32 = 100;

pub trait Game: Clone + Send + Sync + 'static {
    type Move: Copy + Eq + Default + Debug + Send + Sync + 'static;
    type MoveList: MoveBuffer<Self::Move>;

    /// Fills `list` with every legal move of the side to move (cleared first).
    fn generate_moves(&self, list: &mut Self::MoveList);
    /// Plays `m`, which must be legal in the current position.
    fn make(&mut self, m: Self::Move);
    /// Takes back `m`, which must be the last move made.
    fn unmake(&mut self, m: Self::Move);
    /// The outcome when the game is over regardless of the moves available (for
    /// Breakthrough: a pawn stands on its goal row), seen from the side to move.
    fn decided(&self) -> Option<Outcome>;
    /// Whether the side to move has a legal move (cheaper than listing them).
    fn has_moves(&self) -> bool {
        let mut list = Self::MoveList::default();
        self.generate_moves(&mut list);
        !list.is_empty()
    }
    /// The outcome when the side to move has no legal move.
    fn outcome_without_moves(&self) -> Outcome;
    /// A Zobrist-style hash of the position, side to move included.
    fn hash(&self) -> u64;
    /// A cheap static ordering hint: larger means search earlier. Captures and wins must
    /// be given [`TACTICAL_PRIORITY`] or more, quiet moves less: the search orders the
    /// former before killer moves and never reduces them.
    fn move_priority(&self, m: Self::Move) -> i32;
    /// The move in the game's own notation, for logs and principal lines.
    fn move_name(&self, m: Self::Move) -> String;
    /// A compact code of the move (the transposition table stores it; history tables
    /// index by it modulo their size). Distinct moves of one position have distinct codes.
    fn move_code(m: Self::Move) -> u16;
    /// Whether the side to move has a move that wins at once (cheaper than listing moves;
    /// the search then needs no further look at this position).
    fn can_win_now(&self) -> bool {
        self.winning_move().is_some()
    }
    /// A move that wins at once, if there is one.
    fn winning_move(&self) -> Option<Self::Move> {
        None
    }
    /// Whether the side not to move would win at once if it were its turn: a threat the
    /// side to move must answer, so the search looks one ply further instead of guessing.
    fn threatened(&self) -> bool {
        false
    }
}

/// A static evaluation, in centi-pawn-like units, from the side to move's view.
pub trait Evaluator<G: Game>: Send + Sync {
    fn evaluate(&self, game: &G) -> i32;
}

/// The most legal moves any game may offer in one position; the search keeps
/// per-move ordering keys in a stack array of this size.
pub const MAX_BRANCHING: usize = 256;
