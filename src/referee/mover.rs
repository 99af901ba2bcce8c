//! What every kind of contestant is to the referee: something asked for a move, and the
//! faults by which a side loses outside the rules. The kinds (agents, course programs)
//! implement [`Mover`] in modules of their own.

use std::time::Duration;

use crate::game::{Game, MoveBuffer};

/// What the referee asks a contestant for.
pub trait Mover<G: Game> {
    /// The time this player has for a move when the match's clock is `play_clock`.
    fn clock(&self, play_clock: Duration) -> Duration {
        play_clock
    }
    /// What is left of this player's budget for the whole game, when it plays on one (a
    /// course program charged its CPU time): at the ply cap, the side with more time
    /// left wins.
    fn time_left(&self) -> Option<Duration> {
        None
    }
    /// What this player has used of that budget so far.
    fn time_used(&self) -> Option<Duration> {
        None
    }
    /// A move for the side to move after `ply` plies, within [`Mover::clock`] from now;
    /// `earlier` holds the positions played before (games that repeat).
    fn next_move(&mut self, position: &G, ply: usize, earlier: &[u64]) -> Result<G::Move, Fault>;
    /// The other side played `mv` in `position`: a player that keeps its own game (a
    /// long-running program) hears of it here.
    fn observe(&mut self, _position: &G, _mv: G::Move) {}
}

/// Why a side lost by the referee's decision rather than the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// It gave no move in a position that has legal moves.
    NoMove,
    /// It gave a move that is not legal.
    Illegal(String),
    /// Its move came after the play clock (or it was killed for running on).
    Late { ms: u64 },
    /// A program gave no answer (the reason, e.g. its exit status and stderr).
    NoAnswer(String),
    /// A program's CPU time for the whole game ran out.
    OutOfTime { used_ms: u64, budget_ms: u64 },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::NoMove => write!(f, "gave no move"),
            Fault::Illegal(m) => write!(f, "illegal move {m}"),
            Fault::Late { ms } => write!(f, "answered late, after {ms} ms"),
            Fault::NoAnswer(why) => write!(f, "gave no answer ({why})"),
            Fault::OutOfTime { used_ms, budget_ms } => {
                write!(
                    f,
                    "ran out of time: {used_ms} ms of CPU time of {budget_ms} ms"
                )
            }
        }
    }
}

/// The pass a course's framework makes for a side whose only move is one (`is_pass`
/// tells which): its protocols cannot write a pass, so the program is not asked.
pub fn forced_pass<G: Game>(position: &G, is_pass: fn(G::Move) -> bool) -> Option<G::Move> {
    let mut list = G::MoveList::default();
    position.generate_moves(&mut list);
    match list.as_slice() {
        [only] if is_pass(*only) => Some(*only),
        _ => None,
    }
}
