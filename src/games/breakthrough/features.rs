//! The features of the tuned evaluation ([`super::eval::Tuned`]): counts of pawns by
//! kind and by distance to their goal row, seen from the side to move.
//!
//! The evaluation is linear in these counts, so fitting its weights to game results is a
//! logistic regression (`ggp-player tune`). One function computes them for both uses: the
//! search sums weights as it goes (no vector is built), the tuner records the counts.
//!
//! Distances are counted to the goal row rather than from home so that one weight means
//! the same on every board height (a pawn two rows from its goal is as dangerous on 6×6
//! as on 10×10). The side to move and its opponent get weights of their own: tempo
//! matters in a race, and a hanging pawn of the opponent can be taken now.

use super::board::{Board, Color};
use super::geometry::Geometry;
pub use crate::fit::Sink;

/// Distances to the goal row are bucketed `1..=DIST` (the last bucket holds all further).
const DIST: usize = 9;
/// Short distances, for the rarer kinds (defended, hanging, exchanged, races).
const NEAR: usize = 6;
/// Home-row pawns by their distance from the nearest edge column, `0..EDGE` (last = more),
/// as [`Geometry::edge_files`] groups the columns.
const EDGE: usize = 4;

/// Where each kind of feature starts, for one side; the opponent's copy follows at `SIDE`.
const ADVANCE: usize = 0;
const HOME: usize = ADVANCE + DIST;
const EDGE_FILE: usize = HOME + EDGE;
const DEFENDED: usize = EDGE_FILE + 1;
const HANGING: usize = DEFENDED + NEAR;
const EXCHANGED: usize = HANGING + NEAR;
const RACE: usize = EXCHANGED + NEAR;
const SIDE: usize = RACE + NEAR;
/// The side to move's constant (its tempo).
const TEMPO: usize = 2 * SIDE;
/// The number of features.
pub const COUNT: usize = TEMPO + 1;

/// Feature names, in index order, for the tuner's report.
pub fn names() -> Vec<String> {
    let mut out = vec![String::new(); COUNT];
    for (side, who) in [(0, "us"), (SIDE, "them")] {
        for d in 0..DIST {
            out[side + ADVANCE + d] = format!("{who} pawn {}", dist_name(d, DIST));
        }
        for e in 0..EDGE {
            let plus = if e + 1 == EDGE { "+" } else { "" };
            out[side + HOME + e] = format!("{who} home guard edge+{e}{plus}");
        }
        out[side + EDGE_FILE] = format!("{who} edge file");
        for d in 0..NEAR {
            let name = dist_name(d, NEAR);
            out[side + DEFENDED + d] = format!("{who} defended {name}");
            out[side + HANGING + d] = format!("{who} hanging {name}");
            out[side + EXCHANGED + d] = format!("{who} exchanged {name}");
            out[side + RACE + d] = format!("{who} win race {name}");
        }
    }
    out[TEMPO] = "tempo".to_string();
    out
}

fn dist_name(bucket: usize, buckets: usize) -> String {
    let plus = if bucket + 1 == buckets { "+" } else { "" };
    format!("d{}{plus}", bucket + 1)
}

/// Adds the position's feature counts to `sink`, from the side to move's view.
#[inline]
pub fn extract(board: &Board, sink: &mut impl Sink) {
    let g = board.geometry();
    let us = board.side_to_move();
    let h = g.height() as usize;
    let pawns = [board.pawns(us), board.pawns(us.other())];
    let attacks = [attacks(g, us, pawns[0]), attacks(g, us.other(), pawns[1])];
    // A pawn outside every enemy cone can be neither blocked nor taken: a runner.
    let cones = [cone(g, us, pawns[0]), cone(g, us.other(), pawns[1])];
    let edges = &g.edge_files;
    let mut nearest_runner = [usize::MAX; 2];
    for (side, color) in [(0usize, us), (1, us.other())] {
        let base = side * SIDE;
        let (own, theirs) = (attacks[side], attacks[1 - side]);
        let p = pawns[side];
        let defended = p & own;
        let hanging = p & theirs & !own;
        let exchanged = p & theirs & own;
        let runners = p & !cones[1 - side];
        for y in 1..=h {
            let row = g.row(y as u8);
            let on_row = p & row;
            if on_row == 0 {
                continue;
            }
            let dist = match color {
                Color::White => h - y,
                Color::Black => y - 1,
            };
            let far = dist.min(DIST) - 1;
            let near = dist.min(NEAR) - 1;
            sink.add(base + ADVANCE + far, on_row.count_ones() as i32);
            sink.add(base + DEFENDED + near, (defended & row).count_ones() as i32);
            sink.add(base + HANGING + near, (hanging & row).count_ones() as i32);
            sink.add(
                base + EXCHANGED + near,
                (exchanged & row).count_ones() as i32,
            );
            if runners & row != 0 {
                nearest_runner[side] = nearest_runner[side].min(dist);
            }
            if dist == h - 1 {
                for (e, &mask) in edges.iter().enumerate() {
                    sink.add(base + HOME + e, (on_row & mask).count_ones() as i32);
                }
            } else {
                sink.add(base + EDGE_FILE, (on_row & edges[0]).count_ones() as i32);
            }
        }
    }
    // The race goes to the nearer runner; the side to move wins ties (it moves first).
    let [ours, theirs] = nearest_runner;
    if ours != usize::MAX && ours <= theirs {
        sink.add(RACE + ours.min(NEAR) - 1, 1);
    } else if theirs != usize::MAX {
        sink.add(SIDE + RACE + theirs.min(NEAR) - 1, 1);
    }
    sink.add(TEMPO, 1);
}

/// Squares `color`'s pawns attack: diagonally in front of them.
#[inline]
pub(super) fn attacks(g: &Geometry, color: Color, p: u128) -> u128 {
    let s = g.stride;
    match color {
        Color::White => ((p & g.not_last_col) << (s + 1)) | ((p & g.not_first_col) << (s - 1)),
        Color::Black => ((p & g.not_last_col) >> (s - 1)) | ((p & g.not_first_col) >> (s + 1)),
    }
}

/// `color`'s pawns that no enemy pawn can ever block or take: those outside every enemy
/// cone (a pawn's own cone holds an enemy exactly when it lies in that enemy's cone).
#[inline]
pub(super) fn runners(g: &Geometry, color: Color, ours: u128, theirs: u128) -> u128 {
    ours & !cone(g, color.other(), theirs)
}

/// Every square in front of `color`'s pawns within their widening cones: the squares from
/// which they could still block or take an enemy pawn on its way.
#[inline]
fn cone(g: &Geometry, color: Color, p: u128) -> u128 {
    let s = g.stride;
    let mut front = p;
    let mut all = 0;
    for _ in 1..g.height() {
        front = match color {
            Color::White => (front << s) | attacks(g, color, front),
            Color::Black => (front >> s) | attacks(g, color, front),
        } & g.all;
        all |= front;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::Counts;

    fn counts(diagram: &str, side: Color) -> Vec<i32> {
        let board = Board::from_diagram(diagram, side).unwrap();
        let mut c = Counts(vec![0; COUNT]);
        extract(&board, &mut c);
        c.0
    }

    fn index(name: &str) -> usize {
        names()
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no feature {name:?}"))
    }

    #[test]
    fn names_are_distinct_and_complete() {
        let n = names();
        assert_eq!(n.len(), COUNT);
        let set: std::collections::HashSet<_> = n.iter().collect();
        assert_eq!(set.len(), COUNT);
        assert!(n.iter().all(|s| !s.is_empty()));
    }

    /// A hand-worked 5x6 position, white to move. White: a1 and e1 guard the home row
    /// (distance 5, edge columns), a3 (distance 3, edge file) defends b4 (distance 2).
    /// Black: c6 at home (distance 5, two columns from the edge), e4 (distance 3, edge
    /// file). Nothing is attacked, and every pawn lies in an enemy cone (c6's cone covers
    /// rows 1-4 entirely; e1's covers e4), so there is no race.
    #[test]
    fn hand_worked_position() {
        let c = counts(
            ". . b . .
             . . . . .
             . w . . b
             w . . . .
             . . . . .
             w . . . w",
            Color::White,
        );
        let expect = [
            ("us pawn d5", 2),
            ("us pawn d3", 1),
            ("us pawn d2", 1),
            ("us home guard edge+0", 2),
            ("us edge file", 1),
            ("us defended d2", 1),
            ("them pawn d5", 1),
            ("them pawn d3", 1),
            ("them home guard edge+2", 1),
            ("them edge file", 1),
            ("tempo", 1),
        ];
        let mut want = vec![0; COUNT];
        for (name, n) in expect {
            want[index(name)] = n;
        }
        let names = names();
        for i in 0..COUNT {
            assert_eq!(c[i], want[i], "feature {}", names[i]);
        }
    }

    /// White's e3 is outside both black cones (a5's and b5's reach d3 at most) and two
    /// rows from its goal; black's pawns are inside the cone of white's a1. So the race
    /// is white's, whoever is to move; captures: b5 attacks nothing, a1 nothing.
    #[test]
    fn race_goes_to_the_only_runner() {
        let diagram = "b b . . .
                       . . . . .
                       . . . . w
                       . . . . .
                       w . . . .";
        let white = counts(diagram, Color::White);
        let black = counts(diagram, Color::Black);
        assert_eq!(white[index("us win race d2")], 1);
        assert_eq!(black[index("them win race d2")], 1);
        let races = |c: &[i32]| {
            (0..COUNT)
                .filter(|&i| names()[i].contains("race") && c[i] != 0)
                .count()
        };
        assert_eq!(races(&white), 1);
        assert_eq!(races(&black), 1);
        // The same pawns seen from the other side: us and them swap.
        assert_eq!(white[index("us pawn d2")], black[index("them pawn d2")]);
        assert_eq!(white[index("them home guard edge+0")], 1);
        assert_eq!(white[index("them home guard edge+1")], 1);
    }

    /// A hanging pawn and an exchange on 4x4: white b1 attacks a2 and c2 (both one row
    /// from row 1); black c2 is defended by d3, black a2 is not. Black attacks b1 from a2
    /// and c2, and b1 (three rows from row 4) has no defender.
    #[test]
    fn hanging_and_exchanged() {
        let c = counts(
            ". . . .
             . . . b
             b . b .
             . w . .",
            Color::White,
        );
        assert_eq!(c[index("them hanging d1")], 1);
        assert_eq!(c[index("them exchanged d1")], 1);
        assert_eq!(c[index("them defended d1")], 1);
        assert_eq!(c[index("them defended d2")], 0);
        assert_eq!(c[index("us hanging d3")], 1);
        assert_eq!(c[index("us home guard edge+1")], 1);
    }
}
