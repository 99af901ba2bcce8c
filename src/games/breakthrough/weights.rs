//! The tuned evaluation's weights, written by `ggp-player tune`.
//!
//! From: r1.txt r2.txt
//! Fitted on 1842252 positions; 204242 positions of held-out games:
//! tuned:    log-loss 0.6424, winner predicted 61.6%
//! improved: log-loss 0.6748, winner predicted 56.4%

use super::features::COUNT;

#[rustfmt::skip]
pub const WEIGHTS: [i32; COUNT] = [
    121, // us pawn d1
    194, // us pawn d2
    178, // us pawn d3
    150, // us pawn d4
    133, // us pawn d5
    122, // us pawn d6
    117, // us pawn d7
    117, // us pawn d8
    108, // us pawn d9+
    0, // us home guard edge+0
    6, // us home guard edge+1
    10, // us home guard edge+2
    20, // us home guard edge+3+
    -38, // us edge file
    118, // us defended d1
    17, // us defended d2
    -11, // us defended d3
    -7, // us defended d4
    3, // us defended d5
    9, // us defended d6+
    0, // us hanging d1
    58, // us hanging d2
    45, // us hanging d3
    68, // us hanging d4
    57, // us hanging d5
    54, // us hanging d6+
    0, // us exchanged d1
    28, // us exchanged d2
    60, // us exchanged d3
    69, // us exchanged d4
    76, // us exchanged d5
    78, // us exchanged d6+
    0, // us win race d1
    491, // us win race d2
    218, // us win race d3
    30, // us win race d4
    -3, // us win race d5
    2, // us win race d6+
    -124, // them pawn d1
    -195, // them pawn d2
    -178, // them pawn d3
    -149, // them pawn d4
    -132, // them pawn d5
    -122, // them pawn d6
    -118, // them pawn d7
    -118, // them pawn d8
    -108, // them pawn d9+
    1, // them home guard edge+0
    -4, // them home guard edge+1
    -10, // them home guard edge+2
    -19, // them home guard edge+3+
    36, // them edge file
    -105, // them defended d1
    -23, // them defended d2
    7, // them defended d3
    4, // them defended d4
    -3, // them defended d5
    -8, // them defended d6+
    0, // them hanging d1
    97, // them hanging d2
    99, // them hanging d3
    70, // them hanging d4
    62, // them hanging d5
    79, // them hanging d6+
    0, // them exchanged d1
    -20, // them exchanged d2
    -52, // them exchanged d3
    -66, // them exchanged d4
    -79, // them exchanged d5
    -99, // them exchanged d6+
    0, // them win race d1
    -422, // them win race d2
    -186, // them win race d3
    -19, // them win race d4
    5, // them win race d5
    -2, // them win race d6+
    6, // tempo
];
