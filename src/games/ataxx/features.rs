//! The features of the tuned evaluation ([`super::eval::Tuned`]), from the side to move's
//! view: the terms of [`super::eval::Positional`] and a few more, each counted twice, once
//! for the opening and once for the ending.
//!
//! Terms: the piece difference; the side to move's best conversion waiting and the
//! opponent's; the difference in frontier pieces (next to an empty square the opponent
//! reaches), in safe pieces (no empty neighbour: they can never change colour), in holes
//! (empty squares next to own pieces, where the opponent may land), in squares only
//! a jump reaches, and in stable pieces (see below); the
//! parity of the empty squares (+1 odd, −1 even: with one clone a ply, odd leaves the
//! last square to the side to move); a constant (the tempo); and the piece difference
//! again near the turn limit (see below).
//!
//! Stability: no Ataxx piece is stable for good, since a jump empties the square it
//! leaves and a piece next to an empty square can be converted. A safe piece (no empty
//! neighbour) cannot be converted by the opponent's next move. A stable one has, besides,
//! no neighbour that can move onto an empty square: the opponent's next move cannot empty
//! a square next to it either, so its next two moves cannot convert it, unless the
//! piece's own side empties a neighbour in between.
//!
//! Phase: each term has an opening weight and an ending weight, blended by the empty
//! squares left (all opening at the start's 45, all ending on a full board), so that one
//! weight vector can say that a conversion waiting matters more early and the piece
//! count more late. Turn limit: every term but the piece difference fades out over the
//! last [`FADE`] plies, as in `positional`, since only the final count decides the game;
//! and since the phase follows the empty squares, a long game can reach the limit with
//! its piece difference still weighted as in the opening, so the `limit` term counts the
//! difference once more, growing over the last [`LIMIT_PLIES`] plies.
//!
//! The evaluation is linear in these counts, so fitting the weights to game results is
//! a logistic regression (`ggp-player tune`, [`crate::fit`]). A count is the term times
//! its phase share times its fade, in units of 1/[`DIVISOR`] of the term.

use super::Ataxx;
use super::board::{FULL, grow};
use super::movegen::{best_gain, reach};
pub use crate::fit::Sink;

/// The empty squares of the start: the phase is all opening from here up.
pub const PHASE: i32 = 45;
/// Over how many last plies every term but the piece difference fades out.
pub const FADE: i32 = 10;
/// What a count is divided by to give the term in its own units.
pub const DIVISOR: i32 = PHASE * FADE;
/// Over how many last plies the `limit` term grows from nothing to the full difference.
pub const LIMIT_PLIES: i32 = 40;

/// The terms, in order; each has an opening feature (`2 * term`) and an ending one
/// (`2 * term + 1`).
pub const TERMS: [&str; 11] = [
    "material", "gain", "threat", "frontier", "safe", "holes", "jumps", "parity", "tempo",
    "stable", "limit",
];
const MATERIAL: usize = 0;
const LIMIT: usize = 10;
/// The number of features.
pub const COUNT: usize = 2 * TERMS.len();

/// Feature names, in index order, for the tuner's report.
pub fn names() -> Vec<String> {
    TERMS
        .iter()
        .flat_map(|t| [format!("{t} (opening)"), format!("{t} (ending)")])
        .collect()
}

/// The index of the opening feature of `term` (one of [`TERMS`]).
pub fn opening(term: &str) -> usize {
    2 * TERMS
        .iter()
        .position(|t| *t == term)
        .unwrap_or_else(|| panic!("no term {term:?}"))
}

/// Adds the position's feature counts to `sink`, from the side to move's view.
#[inline]
pub fn extract(p: &Ataxx, sink: &mut impl Sink) {
    let (own, opp) = p.own_and_opposing();
    let empty = FULL & !(own | opp);
    let empties = empty.count_ones() as i32;
    let left = p.plies_left() as i32;
    let opening = empties.min(PHASE);
    let ending = PHASE - opening;
    let fade = if left <= 1 || empty == 0 {
        0
    } else {
        left.min(FADE)
    };
    // The limit term's share of the full difference, in tenths (`FADE`ths).
    let near = (LIMIT_PLIES - left).max(0) * FADE / LIMIT_PLIES;
    let count = |b: u64| b.count_ones() as i32;
    let stable = !grow(reach(empty));
    let material = count(own) - count(opp);
    let (own_reach, opp_reach) = (reach(own) & empty, reach(opp) & empty);
    let (own_clones, opp_clones) = (grow(own) & empty, grow(opp) & empty);
    let terms = [
        material,
        best_gain(own, opp, empty),
        best_gain(opp, own, empty),
        count(own & grow(opp_reach)) - count(opp & grow(own_reach)),
        count(own & !grow(empty)) - count(opp & !grow(empty)),
        count(own_clones) - count(opp_clones),
        count(own_reach & !own_clones) - count(opp_reach & !opp_clones),
        if empties % 2 == 1 { 1 } else { -1 },
        1,
        count(own & stable) - count(opp & stable),
        material,
    ];
    for (t, &term) in terms.iter().enumerate() {
        let f = match t {
            MATERIAL => FADE,
            LIMIT => near,
            _ => fade,
        };
        sink.add(2 * t, term * opening * f);
        sink.add(2 * t + 1, term * ending * f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::Counts;
    use crate::games::ataxx::Side;

    fn counts(p: &Ataxx) -> Vec<i32> {
        let mut c = Counts(vec![0; COUNT]);
        extract(p, &mut c);
        c.0
    }

    /// The start: equal sides, so every difference is zero; 45 empty squares, all
    /// opening; each side's best gain is a clone converting nothing (1).
    #[test]
    fn the_start_is_all_opening_and_even() {
        let c = counts(&Ataxx::start());
        let full = PHASE * FADE;
        let mut want = vec![0; COUNT];
        want[opening("gain")] = full;
        want[opening("threat")] = full;
        want[opening("parity")] = full; // 45 empty squares: odd.
        want[opening("tempo")] = full;
        assert_eq!(c, want, "{:?}", names());
    }

    /// A hand-worked ending, black to move at ply 195 (5 plies left: the fade is 5 of
    /// 10) with 4 empty squares (an even count; 4 of 45 opening). Rows from the top:
    /// black on row 0 but its last square, white on rows 1, 3 and 5, black on row 2's
    /// first four squares and on rows 4 and 6. Black has 24 pieces, white 21.
    #[test]
    fn hand_worked_ending() {
        let text = "1:1:1:1:1:1:0:
                    2:2:2:2:2:2:2:
                    1:1:1:1:0:0:0:
                    2:2:2:2:2:2:2:
                    1:1:1:1:1:1:1:
                    2:2:2:2:2:2:2:
                    1:1:1:1:1:1:1:";
        let (black, white) = crate::games::ataxx::text::parse_course_board(text).unwrap();
        let p = Ataxx::new(black, white, Side::Black, 195);
        let c = counts(&p);
        let (open, end) = (4, PHASE - 4);
        let term = |name: &str| {
            let i = opening(name);
            let f = match name {
                "material" => FADE,
                "limit" => 8, // 35 of the last 40 plies: 8 tenths, rounded down.
                _ => 5,
            };
            assert_eq!(c[i] * end, c[i + 1] * open, "{name}: phase split");
            assert_eq!(c[i] % (open * f), 0, "{name}");
            c[i] / (open * f)
        };
        assert_eq!(term("material"), 24 - 21);
        // Black's best: a clone to row 2's fifth square, next to six white pieces
        // (1 + 2 * 6). White's best: converting the one black piece next to the top
        // right corner or to row 2's fifth square (1 + 2 * 1).
        assert_eq!(term("gain"), 13);
        assert_eq!(term("threat"), 3);
        // White reaches all four empty squares, next to two black pieces; black reaches
        // all four too (two by jumps only), next to eight white pieces.
        assert_eq!(term("frontier"), 2 - 8);
        assert_eq!(term("safe"), (24 - 2) - (21 - 8));
        assert_eq!(term("holes"), 2 - 4);
        assert_eq!(term("jumps"), 2);
        assert_eq!(term("parity"), -1);
        assert_eq!(term("tempo"), 1);
        // The squares that can move onto an empty one reach left to row 2's second
        // square (three from its fifth) and down to row 5 (three from row 2); no piece
        // next to one of them: black's top left corner, row 4's first square and row
        // 6's first three; white's first square of row 5.
        assert_eq!(term("stable"), 5 - 1);
        assert_eq!(term("limit"), 24 - 21);
    }
}
