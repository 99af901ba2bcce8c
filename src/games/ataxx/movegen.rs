//! Move generation on whole bitboards: the clone targets are the union of the pieces'
//! neighbourhoods (one grow), the jump targets the union of twelve shifted boards, and
//! the moves are listed by destination: every empty square a side reaches gets one clone
//! (from its lowest-numbered source) and one jump per jumping source. Also the perft of
//! the course, which counts from-to pairs, with its last ply counted from the tables
//! without making or listing a move.

use super::board::{
    JUMP_TARGETS, MOVES, NEIGHBOURS, grow, jump_reach, max_count, neighbour_counts, squares,
};
use super::{Ataxx, Move, MoveList};
use crate::game::{Game, MoveBuffer};

/// Pushes the moves of the side with pieces `own` onto `empty` squares.
pub fn push_moves(own: u64, empty: u64, list: &mut MoveList) {
    let clone_to = grow(own) & empty;
    for to in squares(clone_to | jump_reach(own) & empty) {
        if clone_to & 1 << to != 0 {
            let from = (own & NEIGHBOURS[to]).trailing_zeros() as usize;
            list.push(Move::clone_to(from, to));
        }
        for from in squares(own & JUMP_TARGETS[to]) {
            list.push(Move::jump(from, to));
        }
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
    grow(own) | jump_reach(own)
}

/// Whether the side with pieces `own` has a move onto one of `empty`.
pub fn can_move(own: u64, empty: u64) -> bool {
    reach(own) & empty != 0
}

/// The from-to pairs of the side with pieces `own` onto `empty` squares (the relation is
/// symmetric, so a piece's targets are looked up from whichever side has fewer squares).
pub fn count_pairs(own: u64, empty: u64) -> u64 {
    let (walk, other) = if own.count_ones() <= empty.count_ones() {
        (own, empty)
    } else {
        (empty, own)
    };
    squares(walk)
        .map(|sq| u64::from((MOVES[sq] & other).count_ones()))
        .sum()
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
    squares(squares_next_to_all).find(|&to| mover & MOVES[to] != 0)
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

    /// The from-to pairs the side to move can play, a pass counting one: perft's last
    /// ply, counted without listing or making a move.
    pub fn pairs_to_move(&self) -> u64 {
        if self.decided().is_some() {
            return 0;
        }
        let (own, opp) = self.own_and_opposing();
        let empty = self.empty();
        match count_pairs(own, empty) {
            0 => u64::from(can_move(opp, empty)),
            n => n,
        }
    }

    /// Perft as the course counts it: move sequences of `depth` plies where a move is a
    /// distinct from-to pair (clones from different sources count apart), a pass one move.
    /// A line that ends the game early adds nothing. The moves of the last ply are counted
    /// ([`Ataxx::pairs_to_move`]), not made.
    pub fn perft_pairs(&mut self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.pairs_to_move(),
            _ => {
                let mut list = MoveList::default();
                self.generate_moves(&mut list);
                let mut total = 0;
                for &m in list.as_slice() {
                    let weight = self.pairs(m);
                    self.make(m);
                    total += weight * self.perft_pairs(depth - 1);
                    self.unmake(m);
                }
                total
            }
        }
    }
}
/// The best gain in piece difference of the side with pieces `own` against `opp` in one
/// move: a clone gains its piece and twice what it converts, a jump twice what it converts.
/// The conversions of every square are counted at once ([`neighbour_counts`]).
pub fn best_gain(own: u64, opp: u64, empty: u64) -> i32 {
    let clone_to = grow(own) & empty;
    let jump_to = reach(own) & empty & !clone_to;
    let counts = neighbour_counts(opp);
    let by_clone = max_count(&counts, clone_to).map_or(0, |c| 1 + 2 * c as i32);
    let by_jump = max_count(&counts, jump_to).map_or(0, |c| 2 * c as i32);
    by_clone.max(by_jump)
}
