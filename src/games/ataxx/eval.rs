//! Evaluations, in hundredths of a piece from the side to move's view.
//!
//! - [`Material`]: the piece difference, the yardstick.
//! - [`Positional`]: the piece difference plus what a one-ply look at the board says will
//!   happen to it next. Ataxx material swings by many pieces in one move, so a static
//!   count misjudges every position where the side to move has a big conversion waiting;
//!   the main term is therefore the side to move's best immediate gain (counted in part,
//!   since the opponent answers). Pieces next to empty squares the opponent reaches are
//!   the ones it can convert (frontier); pieces with no empty square around can never
//!   change colour (safe). Empty squares only one side reaches will mostly end up its own
//!   once the board fills. Mobility keeps a side from being shut in and made to pass
//!   while the other fills the board. Near the turn limit only the final count matters, so
//!   every term but material fades over the last plies.

use super::Ataxx;
use super::board::{FULL, JUMP_TARGETS, NEIGHBOURS, grow, squares};
use super::movegen::reach;
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
    /// Per empty square only the own side reaches by a clone.
    pub territory: i32,
    /// Per square the own side clones to.
    pub mobility: i32,
    /// Over how many last plies the positional terms fade out.
    pub fade_plies: u32,
}

/// The weights found by fixed-depth self-play against [`Material`] (README).
pub const WEIGHTS: Weights = Weights {
    gain: 50,
    threat: 20,
    frontier: 8,
    safe: 4,
    territory: 15,
    mobility: 3,
    fade_plies: 10,
};

/// Material plus the one-ply outlook described in the module documentation.
pub struct Positional(pub Weights);

/// The best gain in piece difference of the side with pieces `own` against `opp` in one
/// move: a clone gains its piece and twice what it converts, a jump twice what it converts.
fn best_gain(own: u64, opp: u64, empty: u64) -> i32 {
    let clone_to = grow(own) & empty;
    let jump_to = reach(own) & empty & !clone_to;
    let mut best = 0;
    for to in squares(clone_to) {
        best = best.max(1 + 2 * (NEIGHBOURS[to] & opp).count_ones() as i32);
    }
    for to in squares(jump_to) {
        best = best.max(2 * (NEIGHBOURS[to] & opp).count_ones() as i32);
    }
    best
}

/// What the side with pieces `own` has on the board apart from material, against `opp`.
fn outlook(w: &Weights, own: u64, opp: u64, empty: u64) -> i32 {
    let own_clone = grow(own) & empty;
    let opp_clone = grow(opp) & empty;
    let opp_reach = opp_clone | jump_reach(opp) & empty;
    let frontier = own & grow(opp_reach);
    let safe = own & !grow(empty);
    let territory = own_clone & !opp_clone;
    w.frontier * -(frontier.count_ones() as i32)
        + w.safe * safe.count_ones() as i32
        + w.territory * territory.count_ones() as i32
        + w.mobility * own_clone.count_ones() as i32
}

fn jump_reach(own: u64) -> u64 {
    squares(own).fold(0, |r, sq| r | JUMP_TARGETS[sq])
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
