//! The tuned evaluation's weights, written by `ggp-player tune --game ataxx`.
//!
//! From: the games of 725 openings (the run was stopped at 117,371 positions) of
//! `selfplay positional positional --game ataxx --depth 4 --openings 1500
//! --opening-plies 6 --seed 11 --record`
//! Fitted on 105547 positions; 11824 positions of held-out games:
//! tuned:      log-loss 0.6111, winner predicted 60.3%
//! positional: log-loss 0.6573, winner predicted 59.3%
//! one piece is 0.212 logits

use super::features::COUNT;

#[rustfmt::skip]
pub const WEIGHTS: [i32; COUNT] = [
    -4, // material (opening)
    204, // material (ending)
    -31, // gain (opening)
    78, // gain (ending)
    -9, // threat (opening)
    -16, // threat (ending)
    -35, // frontier (opening)
    -90, // frontier (ending)
    -50, // safe (opening)
    31, // safe (ending)
    -1, // holes (opening)
    6, // holes (ending)
    20, // jumps (opening)
    -43, // jumps (ending)
    -5, // parity (opening)
    -3, // parity (ending)
    157, // tempo (opening)
    6, // tempo (ending)
    0, // stable (opening)
    0, // stable (ending)
    0, // limit (opening)
    0, // limit (ending)
];
