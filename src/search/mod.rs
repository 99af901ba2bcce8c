//! Game-tree search over the [`crate::game::Game`] trait: iterative-deepening
//! alpha-beta with a hard deadline and per-iteration statistics.

mod alphabeta;
mod limits;
pub mod score;
mod stats;

pub use alphabeta::search;
pub use limits::{Limits, MAX_DEPTH};
pub use stats::{IterationStats, SearchResult, rate};
