//! Game-tree search over the [`crate::game::Game`] trait: iterative-deepening
//! alpha-beta with a hard deadline and per-iteration statistics.

mod alphabeta;
mod busy;
mod checkpoint;
pub mod clock;
pub mod cpu;
mod dfpn;
mod greedy;
mod limits;
pub mod minimax;
pub mod openings;
mod order;
mod progress;
mod prooftable;
pub mod score;
mod solver;
mod stats;
mod tt;

pub use alphabeta::{Options, keeping_codes, quick_move, search, search_with};
pub use checkpoint::Checkpoint;
pub use dfpn::{DfpnOptions, solve_dfpn};
pub use greedy::greedy_moves;
pub use limits::{BestSoFar, Limits, MAX_DEPTH};
pub use progress::Progress;
pub use prooftable::{ProofTable, position_key};
pub use solver::{
    Keeping, Reporting, Solution, SolvedOpening, add_known, keeping_moves, max_ply, proven_below,
    proven_bounds, solve, solve_reporting, solve_resumable,
};
pub use stats::{IterationStats, SearchResult, rate};
pub use tt::{Bound, Entry, Table};
