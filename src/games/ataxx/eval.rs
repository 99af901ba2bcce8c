//! Evaluations, in hundredths of a piece from the side to move's view.
//!
//! - [`Material`]: the piece difference, the yardstick.
//! - [`Tuned`]: `positional`'s terms and a few more ([`super::features`]), with opening
//!   and ending weights fitted to self-play results (`ggp-player tune --game ataxx`).
//! - [`Positional`]: the piece difference plus what a one-ply look at the board says will
//!   happen to it next. Ataxx material swings by many pieces in one move, so a static
//!   count misjudges every position where the side to move has a big conversion waiting;
//!   the main term is therefore the side to move's best immediate gain (counted in part,
//!   since the opponent answers), less a smaller share of the opponent's. Pieces next to
//!   an empty square the opponent reaches are the ones it can convert (frontier); pieces
//!   with no empty square around can never change colour (safe); empty squares next to
//!   own pieces are holes the opponent may land in. Near the turn limit only the final
//!   count matters, so every term but material fades over the last plies.
//!
//! The terms and weights were chosen by fixed-depth self-play (docs/measurements.md, Ataxx): counting
//! the squares a side clones to as mobility lost games, and the same count as a penalty
//! (holes) won them; squares only one side reaches ("territory") lost games at every
//! weight tried, so the evaluation leaves them out.

use super::Ataxx;
use super::board::{FULL, grow};
use super::features::{self, DIVISOR, Sink};
use super::movegen::{best_gain, reach};
use crate::game::Evaluator;

/// One piece.
const PIECE: i32 = 100;

/// The piece difference.
pub struct Material;

impl Evaluator<Ataxx> for Material {
    fn evaluate(&self, p: &Ataxx) -> i32 {
        let (own, opp) = p.own_and_opposing();
        PIECE * (own.count_ones() as i32 - opp.count_ones() as i32)
    }
}

/// The weights of [`Positional`], in hundredths of a piece.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// Per piece of the side to move's best immediate gain in piece difference.
    pub gain: i32,
    /// Per piece of the opponent's best immediate gain (were it to move).
    pub threat: i32,
    /// Per own piece next to an empty square the opponent reaches.
    pub frontier: i32,
    /// Per own piece with no empty neighbour.
    pub safe: i32,
    /// Per empty square next to an own piece (a penalty).
    pub holes: i32,
    /// Over how many last plies the positional terms fade out.
    pub fade_plies: u32,
}

/// The weights found by fixed-depth self-play against [`Material`] (docs/measurements.md).
pub const WEIGHTS: Weights = Weights {
    gain: 80,
    threat: 20,
    frontier: 16,
    safe: 8,
    holes: 3,
    fade_plies: 10,
};

/// Material plus the one-ply outlook described in the module documentation.
pub struct Positional(pub Weights);

/// What the side with pieces `own` has on the board apart from material, against `opp`.
fn outlook(w: &Weights, own: u64, opp: u64, empty: u64) -> i32 {
    let holes = grow(own) & empty;
    let frontier = own & grow(reach(opp) & empty);
    let safe = own & !grow(empty);
    w.safe * safe.count_ones() as i32
        - w.frontier * frontier.count_ones() as i32
        - w.holes * holes.count_ones() as i32
}

impl Evaluator<Ataxx> for Positional {
    fn evaluate(&self, p: &Ataxx) -> i32 {
        let w = &self.0;
        let (own, opp) = p.own_and_opposing();
        let empty = FULL & !(own | opp);
        let material = PIECE * (own.count_ones() as i32 - opp.count_ones() as i32);
        let left = p.plies_left();
        if left <= 1 || empty == 0 {
            return material;
        }
        let positional = w.gain * best_gain(own, opp, empty)
            - w.threat * best_gain(opp, own, empty)
            + outlook(w, own, opp, empty)
            - outlook(w, opp, own, empty);
        let fade = left.min(w.fade_plies) as i32;
        material + positional * fade / w.fade_plies as i32
    }
}

/// A linear evaluation over [`features`] with weights in hundredths of a piece (by
/// default those `tune` fitted, [`super::weights::WEIGHTS`]).
pub struct Tuned(pub &'static [i32; features::COUNT]);

/// Sums the weights of the features as they are counted.
struct Dot<'a>(&'a [i32; features::COUNT], i64);

impl Sink for Dot<'_> {
    #[inline(always)]
    fn add(&mut self, feature: usize, count: i32) {
        self.1 += i64::from(self.0[feature]) * i64::from(count);
    }
}

impl Evaluator<Ataxx> for Tuned {
    fn evaluate(&self, p: &Ataxx) -> i32 {
        let mut dot = Dot(self.0, 0);
        features::extract(p, &mut dot);
        (dot.1 / i64::from(DIVISOR)) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, MoveBuffer};
    use crate::games::ataxx::MoveList;
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;

    /// `positional`'s weights written as feature weights, as `weights.rs` held them
    /// before the first fit.
    const AS_FEATURES: [i32; features::COUNT] = [
        100, 100, 80, 80, -20, -20, -16, -16, 8, 8, -3, -3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    /// The features carry `positional`'s terms exactly: with its weights they score
    /// every position of random games as it does (to within the rounding of one
    /// division, taken at a different step), fade near the turn limit included.
    #[test]
    fn the_features_with_positional_weights_are_positional() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let (tuned, positional) = (Tuned(&AS_FEATURES), Positional(WEIGHTS));
        let mut list = MoveList::default();
        let mut checked = 0;
        for _ in 0..40 {
            let mut p = Ataxx::start();
            while p.decided().is_none() {
                let (a, b) = (tuned.evaluate(&p), positional.evaluate(&p));
                assert!((a - b).abs() <= 1, "{a} against {b} in\n{p}");
                checked += 1;
                p.generate_moves(&mut list);
                p.make(*list.as_slice().choose(&mut rng).unwrap());
            }
        }
        assert!(checked > 2000, "{checked} positions");
    }
}
