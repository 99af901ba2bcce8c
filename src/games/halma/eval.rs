//! Evaluations of a Halma position: a race, in tenths of a square of progress.
//!
//! Halma is a race: each side's pieces travel to the far corner, and a position is good
//! when one's own pieces have less way left to go than the opponent's. Both evaluations
//! only ever improve when a piece moves forward, so a search never gains by shuffling a
//! piece back and forth.

use super::{DISTANCE, HOME, Halma, Side, goal};
use crate::game::Evaluator;

/// The way left for every piece: the sum over pieces of `dx + dy` to the goal corner.
pub(super) fn way_left(p: &Halma, side: Side) -> i32 {
    let d = &DISTANCE[side.index()];
    p.pieces(side).iter().map(|sq| i32::from(d[sq])).sum()
}

/// The plain race: the opponent's way left less one's own, ten points a square.
pub struct Distance;

impl Evaluator<Halma> for Distance {
    fn evaluate(&self, p: &Halma) -> i32 {
        let side = p.side_to_move();
        10 * (way_left(p, side.other()) - way_left(p, side))
    }
}

/// Points per square of way left.
const SQUARE: i32 = 10;
/// A piece inside its goal camp: the camp must be filled, and `dx + dy` alone rates the
/// squares just outside the camp's edge (5,0 and 0,5 from the corner) like those inside.
const IN_GOAL: i32 = 15;
/// A piece still at home: it must leave, and until it does forced evacuation takes the
/// side's choice of play away.
const AT_HOME: i32 = 20;
/// Per square of the farthest piece's way left: a straggler left alone has no pieces to
/// jump over and ends the race last.
const STRAGGLER: i32 = 4;
/// Per king step from a piece outside its goal camp to the camp's nearest hole: near the
/// end the way to the corner alone is flat along the camp's edge, and the last pieces
/// must find the squares still free.
const HOLE: i32 = 6;
/// King steps beyond which a piece counts as far from every hole.
const HOLE_HORIZON: u32 = 6;
/// The side to move is about one play ahead in the race.
const TEMPO: i32 = 20;

/// The race with the details that decide close games: pieces in the goal camp, pieces
/// still at home and the straggler, plus the move in hand.
pub struct Race;

fn race(p: &Halma, side: Side) -> i32 {
    let d = &DISTANCE[side.index()];
    let own = p.pieces(side);
    let (mut total, mut farthest) = (0, 0);
    for sq in own.iter() {
        let w = i32::from(d[sq]);
        total += w;
        farthest = farthest.max(w);
    }
    let in_goal = (own & goal(side)).count() as i32;
    let at_home = (own & HOME[side.index()]).count() as i32;
    -SQUARE * total + IN_GOAL * in_goal
        - AT_HOME * at_home
        - STRAGGLER * farthest
        - HOLE * hole_steps(p, side)
}

/// The king steps from each of `side`'s pieces outside its goal camp to the camp's
/// nearest empty square, each at most [`HOLE_HORIZON`] + 1, summed: rings grown round
/// the holes, a few bitboard operations each.
fn hole_steps(p: &Halma, side: Side) -> i32 {
    let holes = goal(side) & !p.occupied();
    let mut left = p.pieces(side) & !goal(side);
    if holes.is_empty() || left.is_empty() {
        return 0;
    }
    let (mut reach, mut total) = (holes, 0);
    for k in 1..=HOLE_HORIZON {
        reach |= reach.neighbours();
        let arrived = left & reach;
        total += k * arrived.count();
        left ^= arrived;
        if left.is_empty() {
            return total as i32;
        }
    }
    (total + (HOLE_HORIZON + 1) * left.count()) as i32
}

impl Evaluator<Halma> for Race {
    fn evaluate(&self, p: &Halma) -> i32 {
        let side = p.side_to_move();
        race(p, side) - race(p, side.other()) + TEMPO
    }
}
