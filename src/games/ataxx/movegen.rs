//! Move generation by destination: every empty square a side reaches gets one clone (from
//! its lowest-numbered source) and one jump per jumping source; and the perft of the
//! course, which counts from-to pairs.

use super::board::{JUMP_TARGETS, NEIGHBOURS, squares};
use super::{Ataxx, Move, MoveList};
use crate::game::{Game, MoveBuffer};

/// Pushes the moves of the side with pieces `own` onto `empty` squares.
pub fn push_moves(own: u64, empty: u64, list: &mut MoveList) {
    // Only squares within reach: most empty squares are far from every piece early on.
    for to in squares(empty & reach(own)) {
        push_moves_to(own, to, list);
    }
}

/// Pushes the moves of the side with pieces `own` onto the empty square `to`.
pub fn push_moves_to(own: u64, to: usize, list: &mut MoveList) {
    let clones = own & NEIGHBOURS[to];
    if clones != 0 {
        list.push(Move::clone_to(clones.trailing_zeros() as usize, to));
    }
    for from in squares(own & JUMP_TARGETS[to]) {
        list.push(Move::jump(from, to));
    }
}

/// The squares the pieces `own` clone or jump to, empty or not.
pub fn reach(own: u64) -> u64 {
    let mut r = super::board::grow(own);
    for from in squares(own) {
        r |= JUMP_TARGETS[from];
    }
    r
}

/// Whether the side with pieces `own` has a move onto one of `empty`.
pub fn can_move(own: u64, empty: u64) -> bool {
    squares(own).any(|from| (NEIGHBOURS[from] | JUMP_TARGETS[from]) & empty != 0)
}

/// An empty square that `mover` reaches and whose neighbours hold every piece of `victim`:
/// a move there wipes the victim out.
pub fn wipe_out_square(mover: u64, victim: u64, empty: u64) -> Option<usize> {
    if victim == 0 || victim.count_ones() > 8 {
        return None;
    }
    let mut squares_next_to_all = empty;
    for sq in squares(victim) {
        squares_next_to_all &= NEIGHBOURS[sq];
    }
    squares(squares_next_to_all).find(|&to| mover & (NEIGHBOURS[to] | JUMP_TARGETS[to]) != 0)
}

impl Ataxx {
    /// The number of from-to pairs a listed move stands for: a clone's sources, else one.
    pub fn pairs(&self, m: Move) -> u64 {
        if m.is_clone() {
            u64::from((self.own_and_opposing().0 & NEIGHBOURS[m.to()]).count_ones())
        } else {
            1
        }
    }

    /// Perft as the course counts it: move sequences of `depth` plies where a move is a
    /// distinct from-to pair (clones from different sources count apart), a pass one move.
    /// A line that ends the game early adds nothing.
    pub fn perft_pairs(&mut self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.decided().is_some() {
            return 0;
        }
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        let mut total = 0;
        for &m in list.as_slice() {
            let below = if depth == 1 {
                1
            } else {
                self.make(m);
                let n = self.perft_pairs(depth - 1);
                self.unmake(m);
                n
            };
            total += self.pairs(m) * below;
        }
        total
    }
}
