//! Races already decided: a pawn that nothing can stop reaching its goal row before the
//! other side can reach its own, known without a search (for the solvers' bounds).
//!
//! A runner is a pawn outside every enemy cone ([`features::runners`]): no enemy pawn can
//! ever stand in front of it or take it, and as enemy pawns only move forward their cones
//! only shrink, so it stays one. With no pawn of its own in front of it either, it steps
//! straight to its goal row in as many moves as it has rows left, whatever the other
//! side does. The other side's pawns move one row a move, so none arrives in fewer moves
//! than its most advanced pawn has rows left. The side whose runner arrives first wins,
//! unless a side is left without a legal move on the way, which ends the game drawn (the
//! runner's side always has the runner's step, so only the other side can be).

use super::board::{Board, Color};
use super::features;
use super::geometry::Geometry;

/// Moves the most advanced of `pawns` (some of `color`'s) needs to reach its goal row,
/// `None` for no pawn.
fn rows_left(g: &Geometry, color: Color, pawns: u128) -> Option<u32> {
    if pawns == 0 {
        return None;
    }
    // Rows are `stride` bits apart from row 1 up.
    let row = |bit: u32| bit / g.stride + 1;
    Some(match color {
        Color::White => u32::from(g.height()) - row(127 - pawns.leading_zeros()),
        Color::Black => row(pawns.trailing_zeros()) - 1,
    })
}

/// Moves `color`'s most advanced pawn needs (`u32::MAX` without pawns).
fn nearest(board: &Board, color: Color) -> u32 {
    rows_left(board.geometry(), color, board.pawns(color)).unwrap_or(u32::MAX)
}

/// Moves `color`'s fastest unstoppable pawn needs: a runner with nothing in front of it.
fn fastest_runner(board: &Board, color: Color) -> Option<u32> {
    let g = board.geometry();
    // Every square with a pawn somewhere straight ahead of it, towards `color`'s goal.
    let mut front = board.pawns(Color::White) | board.pawns(Color::Black);
    let mut blocked = 0;
    for _ in 1..g.height() {
        front = match color {
            Color::White => front >> g.stride,
            Color::Black => (front << g.stride) & g.all,
        };
        blocked |= front;
    }
    let runners = features::runners(g, color, board.pawns(color), board.pawns(color.other()));
    rows_left(g, color, runners & !blocked)
}

impl Board {
    /// The side that wins the race from here, if one already has: its runner arrives
    /// before any pawn of the other side can (the game may still end drawn on the way,
    /// with the other side out of moves). The side to move arrives first on equal counts.
    pub fn race_winner(&self) -> Option<Color> {
        let us = self.side_to_move();
        let them = us.other();
        if fastest_runner(self, us).is_some_and(|a| a <= nearest(self, them)) {
            return Some(us);
        }
        if fastest_runner(self, them).is_some_and(|a| a < nearest(self, us)) {
            return Some(them);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{self, MoveBuffer, Outcome};
    use crate::games::breakthrough::MoveList;
    use crate::games::breakthrough::spec::Breakthrough;
    use std::collections::HashMap;

    /// The exact value for the side to move, by exhaustive search.
    fn value(board: &mut Board, memo: &mut HashMap<u64, Outcome>) -> Outcome {
        if let Some(o) = game::result(board) {
            return o;
        }
        if let Some(&o) = memo.get(&board.hash()) {
            return o;
        }
        let mut list = MoveList::default();
        board.generate_moves(&mut list);
        let mut best = Outcome::Loss;
        for &m in list.as_slice() {
            board.make(m);
            let o = value(board, memo).flipped();
            board.unmake(m);
            if o == Outcome::Win || (o == Outcome::Draw && best == Outcome::Loss) {
                best = o;
            }
            if best == Outcome::Win {
                break;
            }
        }
        memo.insert(board.hash(), best);
        best
    }

    /// Every position reachable on small boards under both rule variants: wherever a race
    /// is called, the exact value agrees with it (the winner never loses, the other side
    /// never wins), and it is called somewhere.
    #[test]
    fn a_called_race_is_never_lost() {
        for variant in ["course", "standard"] {
            for size in ["3x4", "4x4", "2x6"] {
                let start = crate::spec::start::<Breakthrough>(Some(size), Some(variant)).unwrap();
                let mut memo = HashMap::new();
                let mut seen = std::collections::HashSet::new();
                let mut stack = vec![start];
                let mut called = 0;
                while let Some(mut b) = stack.pop() {
                    if !seen.insert(b.hash()) || game::result(&b).is_some() {
                        continue;
                    }
                    if let Some(winner) = b.race_winner() {
                        called += 1;
                        let v = value(&mut b, &mut memo);
                        let ok = if winner == b.side_to_move() {
                            v != Outcome::Loss
                        } else {
                            v != Outcome::Win
                        };
                        assert!(ok, "{variant} {size}: {winner:?} called, value {v:?}\n{b}");
                    }
                    let mut list = MoveList::default();
                    b.generate_moves(&mut list);
                    for &m in list.as_slice() {
                        let mut c = b.clone();
                        c.make(m);
                        stack.push(c);
                    }
                }
                assert!(called > 100, "{variant} {size}: {called} races called");
            }
        }
    }
}
