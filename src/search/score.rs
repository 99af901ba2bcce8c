//! Search scores: evaluations stay far below `WIN`; a win found `ply` plies from
//! the root scores `WIN - ply`, so faster wins and slower losses score higher.

use crate::game::Outcome;

use super::limits::MAX_DEPTH;

pub const WIN: i32 = 1_000_000;
pub const INFINITY: i32 = WIN + 1;
pub const DRAW: i32 = 0;

/// The score of a finished game `ply` plies from the root, from the side to move's view.
pub fn outcome(o: Outcome, ply: usize) -> i32 {
    match o {
        Outcome::Win => WIN - ply as i32,
        Outcome::Loss => -(WIN - ply as i32),
        Outcome::Draw => DRAW,
    }
}

/// Whether a score is a forced win or loss (rather than an evaluation).
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= WIN - 2 * MAX_DEPTH as i32
}

/// The outcome a decisive score proves, if it is decisive.
pub fn decisive_outcome(score: i32) -> Option<Outcome> {
    if !is_decisive(score) {
        None
    } else if score > 0 {
        Some(Outcome::Win)
    } else {
        Some(Outcome::Loss)
    }
}

/// Plies to the end of a decisive score.
pub fn plies_to_end(score: i32) -> Option<u32> {
    is_decisive(score).then(|| (WIN - score.abs()) as u32)
}

/// A human-readable score: `win in 5`, `loss in 4`, or the evaluation.
pub fn describe(score: i32) -> String {
    match (decisive_outcome(score), plies_to_end(score)) {
        (Some(Outcome::Win), Some(p)) => format!("win in {p}"),
        (Some(_), Some(p)) => format!("loss in {p}"),
        _ => score.to_string(),
    }
}
