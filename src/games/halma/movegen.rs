//! Legal plays: steps and jump chains by flood fill, then the camp rules of `GAMES.md`
//! §4.2.

use super::bits::Bits;
use super::{HOME, Halma, Move, MoveList, Side, goal, xy};
use crate::game::MoveBuffer;

/// The squares a piece on `from` reaches by one or more jumps, with `occupied` the
/// pieces on the board (the mover's included). The piece is lifted: its square can be
/// neither jumped over nor landed on (H-2, H-5). A square is reachable by a chain that
/// never revisits a square exactly when it is reachable at all, so the fill needs no
/// path bookkeeping.
pub(super) fn jumps(occupied: Bits, from: usize) -> Bits {
    let start = Bits::square(from);
    let others = occupied ^ start;
    let empty = !others;
    let mut reached = start;
    let mut frontier = start;
    loop {
        let mut next = Bits::EMPTY;
        for d in 0..8 {
            next |= (frontier.step(d) & others).step(d) & empty;
        }
        next &= !reached;
        if next.is_empty() {
            return reached ^ start;
        }
        reached |= next;
        frontier = next;
    }
}

/// Every square a piece on `from` can end a play on, camp rules aside.
fn destinations(occupied: Bits, from: usize) -> Bits {
    (Bits::square(from).neighbours() & !occupied) | jumps(occupied, from)
}

/// Whether a play from `from` to `to` inside `side`'s home moves farther from the home
/// corner: farther on one axis and not nearer on the other (the addendum's test, H-4).
fn farther(side: Side, from: usize, to: usize) -> bool {
    let (cx, cy) = side.home_corner();
    let ((fx, fy), (tx, ty)) = (xy(from), xy(to));
    let (dx, dy) = ((fx - cx).abs(), (fy - cy).abs());
    let (dx2, dy2) = ((tx - cx).abs(), (ty - cy).abs());
    (dx2 > dx && dy2 >= dy) || (dy2 > dy && dx2 >= dx)
}

/// The squares of `to` where a play of `side` from `from` may end under rules 1 and 2:
/// no return home, no leaving the goal camp.
fn allowed(side: Side, from: usize, mut to: Bits) -> Bits {
    if !HOME[side.index()].has(from) {
        to &= !HOME[side.index()];
    }
    if goal(side).has(from) {
        to &= goal(side);
    }
    to
}

fn push_all(list: &mut MoveList, from: usize, to: Bits) {
    for t in to.iter() {
        list.push(Move::new(from, t));
    }
}

impl Halma {
    /// Fills `list` with `side`'s legal plays, as if it were `side`'s turn.
    pub(super) fn generate_for(&self, side: Side, list: &mut MoveList) {
        list.clear();
        let own = self.pieces(side);
        let occupied = self.occupied();
        let home = HOME[side.index()];
        let at_home = own & home;
        if !at_home.is_empty() {
            // Forced evacuation: first, home pieces leaving home.
            for from in at_home.iter() {
                push_all(list, from, destinations(occupied, from) & !home);
            }
            if !list.is_empty() {
                return;
            }
            // Then home pieces moving farther from the corner within home.
            for from in at_home.iter() {
                for to in (destinations(occupied, from) & home).iter() {
                    if farther(side, from, to) {
                        list.push(Move::new(from, to));
                    }
                }
            }
            if !list.is_empty() {
                return;
            }
        }
        for from in own.iter() {
            push_all(
                list,
                from,
                allowed(side, from, destinations(occupied, from)),
            );
        }
    }

    /// Whether `side` has a legal play. Forced evacuation only picks among the plays
    /// rules 1 and 2 allow, so one of those is enough; a step is looked for first.
    pub(super) fn has_plays(&self, side: Side) -> bool {
        let own = self.pieces(side);
        let empty = !self.occupied();
        let home = HOME[side.index()];
        let goal = goal(side);
        let at_home = own & home;
        let in_goal = own & goal;
        let elsewhere = own & !home & !goal;
        if !(at_home.neighbours() & empty).is_empty()
            || !(in_goal.neighbours() & empty & goal).is_empty()
            || !(elsewhere.neighbours() & empty & !home).is_empty()
        {
            return true;
        }
        let mut list = MoveList::default();
        self.generate_for(side, &mut list);
        !list.is_empty()
    }
}
