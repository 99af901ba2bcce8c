//! The tuned evaluation's weights, written by `ggp-player tune --game ataxx`.
//!
//! From: the games of 704 openings (the run was stopped at 125,336 positions) of the
//! previous `tuned` against itself, `selfplay tuned tuned --game ataxx --depth 4
//! --openings 1000 --opening-plies 6 --seed 12 --record`
//! Fitted on 112678 positions; 12658 positions of held-out games:
//! tuned:      log-loss 0.6372, winner predicted 61.0%
//! positional: log-loss 0.6671, winner predicted 57.2%
//! one piece is 0.183 logits
//! Then `threat`'s two weights (−18, −5) set to 0 by hand: without them the weights won
//! 62.5% of 800 games at depth 4 against the fit as it came (docs/measurements.md).

use super::features::COUNT;

#[rustfmt::skip]
pub const WEIGHTS: [i32; COUNT] = [
    20, // material (opening)
    180, // material (ending)
    -12, // gain (opening)
    58, // gain (ending)
    0, // threat (opening)
    0, // threat (ending)
    -42, // frontier (opening)
    -88, // frontier (ending)
    -15, // safe (opening)
    64, // safe (ending)
    -5, // holes (opening)
    26, // holes (ending)
    3, // jumps (opening)
    -15, // jumps (ending)
    -6, // parity (opening)
    6, // parity (ending)
    118, // tempo (opening)
    72, // tempo (ending)
    598, // stable (opening)
    -18, // stable (ending)
    -5, // limit (opening)
    162, // limit (ending)
];
