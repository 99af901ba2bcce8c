//! What a search reports: per iteration and in total.

use std::time::Duration;

use crate::game::Outcome;

/// Statistics of one iteration of iterative deepening.
#[derive(Clone, Debug)]
pub struct IterationStats {
    /// The depth limit of the iteration, in plies.
    pub depth: u32,
    /// Positions visited in this iteration (every position made, leaves included).
    pub nodes: u64,
    /// Positions whose successors were generated (state expansions).
    pub expansions: u64,
    /// Time spent in this iteration.
    pub time: Duration,
    /// Whether the iteration was cut short by the clock or a stop request (its best
    /// move is used only if the first root move had been searched).
    pub complete: bool,
    pub best_move: String,
    pub score: i32,
}

/// Nodes per second, 0 when no time was measured.
pub fn rate(nodes: u64, time: Duration) -> u64 {
    let secs = time.as_secs_f64();
    if secs > 0.0 {
        (nodes as f64 / secs) as u64
    } else {
        0
    }
}

/// The result of a whole search.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// The move to play; `None` only when the position has no legal move or the game is over.
    pub best_move: Option<M>,
    /// Score of `best_move` from the side to move's view (see [`super::score`]).
    pub score: i32,
    /// Depth of the iteration that produced `best_move`.
    pub depth: u32,
    /// The principal variation, starting with `best_move`.
    pub pv: Vec<M>,
    /// The game-theoretic value when the search proved it.
    pub proven: Option<Outcome>,
    pub nodes: u64,
    pub expansions: u64,
    pub time: Duration,
    /// The main thread's iterations.
    pub iterations: Vec<IterationStats>,
    /// Threads that searched.
    pub threads: usize,
}

impl<M> SearchResult<M> {
    pub fn nodes_per_second(&self) -> u64 {
        rate(self.nodes, self.time)
    }
}
