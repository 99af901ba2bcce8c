//! The move generator as it was before the whole-board version (`movegen`), kept for the
//! tests to check the new one against: it finds the reach by a loop over the pieces, and
//! its perft lists and makes every move of the last ply where the new one counts them.
//! Also the evaluation's best gain as it was, square by square.

use super::board::{JUMP_TARGETS, NEIGHBOURS, grow, squares};
use super::{Ataxx, Move};
use crate::game::Game;

/// The squares the pieces `own` clone or jump to, piece by piece.
pub fn reach(own: u64) -> u64 {
    let mut reach = grow(own);
    for from in squares(own) {
        reach |= JUMP_TARGETS[from];
    }
    reach
}

/// The moves of the side with pieces `own` onto `empty`, in the order of `movegen`.
pub fn moves(own: u64, empty: u64) -> Vec<Move> {
    let mut out = Vec::new();
    for to in squares(empty & reach(own)) {
        let clones = own & NEIGHBOURS[to];
        if clones != 0 {
            out.push(Move::clone_to(clones.trailing_zeros() as usize, to));
        }
        for from in squares(own & JUMP_TARGETS[to]) {
            out.push(Move::jump(from, to));
        }
    }
    out
}

/// Whether the side with pieces `own` has a move onto one of `empty`, piece by piece.
pub fn can_move(own: u64, empty: u64) -> bool {
    squares(own).any(|from| (NEIGHBOURS[from] | JUMP_TARGETS[from]) & empty != 0)
}

/// The listed moves of `p` (a pass when only the other side can move).
pub fn listed(p: &Ataxx) -> Vec<Move> {
    if p.decided().is_some() {
        return Vec::new();
    }
    let (own, opp) = p.own_and_opposing();
    let out = moves(own, p.empty());
    if out.is_empty() && can_move(opp, p.empty()) {
        vec![Move::PASS]
    } else {
        out
    }
}

/// The course's perft with every ply's moves listed and made, the last one included.
pub fn perft_pairs(p: &mut Ataxx, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for m in listed(p) {
        let weight = p.pairs(m);
        p.make(m);
        total += weight * perft_pairs(p, depth - 1);
        p.unmake(m);
    }
    total
}

/// The best gain in piece difference of `own` against `opp` in one move, one target
/// square at a time (`movegen::best_gain`).
pub fn best_gain(own: u64, opp: u64, empty: u64) -> i32 {
    let clone_to = grow(own) & empty;
    let mut best = 0;
    for to in squares(reach(own) & empty) {
        let converted = 2 * (NEIGHBOURS[to] & opp).count_ones() as i32;
        best = best.max(converted + i32::from(clone_to & 1 << to != 0));
    }
    best
}
