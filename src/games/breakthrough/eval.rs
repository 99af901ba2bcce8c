//! Static evaluations of Breakthrough positions, from the side to move's view.

use super::board::{Board, Color};
use super::features::{self, Sink};
use super::weights::WEIGHTS;
use crate::game::Evaluator;

/// The course's evaluation, `50 - (distance of white's most advanced pawn to row H)
/// plus (distance of black's most advanced pawn to row 1)`, negated for black.
/// The constant 50 is dropped so that 0 means "even", like a draw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Baseline;

impl Baseline {
    /// Distances of each side's most advanced pawn to its goal row (the board
    /// height when a side has no pawn left).
    pub fn distances(board: &Board) -> [i32; 2] {
        let g = board.geometry();
        let (w, h) = (g.stride as i32, g.height() as i32);
        let [white, black] = [board.pawns(Color::White), board.pawns(Color::Black)];
        let dw = if white == 0 {
            h
        } else {
            let top = 127 - white.leading_zeros() as i32;
            h - (top / w + 1)
        };
        let db = if black == 0 {
            h
        } else {
            black.trailing_zeros() as i32 / w
        };
        [dw, db]
    }
}

impl Evaluator<Board> for Baseline {
    fn evaluate(&self, board: &Board) -> i32 {
        let [dw, db] = Baseline::distances(board);
        let white_view = db - dw;
        match board.side_to_move() {
            Color::White => white_view,
            Color::Black => -white_view,
        }
    }
}

/// A richer evaluation: material, advancement (growing with the square of the
/// distance travelled, since advanced pawns win races), pawns defended by a
/// neighbour behind them, pawns left hanging, and pawns kept on the home row
/// (the last line of defence: an intruder must capture or pass them).
#[derive(Clone, Copy, Debug, Default)]
pub struct Improved;

const PAWN: i32 = 100;
const HOME_GUARD: i32 = 12;

impl Improved {
    /// White's view of the position.
    fn white_view(board: &Board) -> i32 {
        let g = board.geometry();
        let h = g.height() as i32;
        let [white, black] = [board.pawns(Color::White), board.pawns(Color::Black)];
        let white_att = features::attacks(g, Color::White, white);
        let black_att = features::attacks(g, Color::Black, black);
        let sides = [
            (white, white & white_att, white & black_att & !white_att),
            (black, black & black_att, black & white_att & !black_att),
        ];
        let mut score = [0i32; 2];
        for y in 1..=h {
            let row = g.row(y as u8);
            for (c, &(pawns, defended, hanging)) in sides.iter().enumerate() {
                // Rows travelled from the home row.
                let r = if c == 0 { y - 1 } else { h - y };
                let n = (pawns & row).count_ones() as i32;
                if n == 0 {
                    continue;
                }
                let adv = 3 * r * r * 64 / ((h - 1) * (h - 1)) * 4;
                let mut v = n * (PAWN + adv);
                v += (defended & row).count_ones() as i32 * (6 + 2 * r);
                v -= (hanging & row).count_ones() as i32 * (10 + 4 * r);
                if r == 0 {
                    v += n * HOME_GUARD;
                }
                score[c] += v;
            }
        }
        score[0] - score[1]
    }
}

impl Evaluator<Board> for Improved {
    fn evaluate(&self, board: &Board) -> i32 {
        let v = Improved::white_view(board);
        match board.side_to_move() {
            Color::White => v,
            Color::Black => -v,
        }
    }
}

/// [`Improved`] plus races: a pawn with no enemy pawn anywhere in the cone in front of it
/// (the squares an enemy could block or capture it from) reaches its goal in as many
/// moves as it has rows left. The side whose fastest such runner arrives first (the side
/// to move winning ties) gets a bonus that grows as the runner nears its goal. The search
/// sees runners one step from the goal; this sees them from afar.
#[derive(Clone, Copy, Debug, Default)]
pub struct Racing;

/// The bonus of a won race: `RUNNER_BASE + RUNNER_STEP * rows travelled`.
const RUNNER_BASE: i32 = 150;
const RUNNER_STEP: i32 = 40;
/// Runners are looked for among pawns at least this far (in tenths of the board) from home.
const RUNNER_FROM_TENTHS: i32 = 4;

impl Racing {
    /// Moves the fastest runner of `color` needs to reach its goal row, if it has one: a
    /// pawn far enough from home outside every enemy cone ([`features::runners`]).
    fn runner(board: &Board, color: Color) -> Option<i32> {
        let g = board.geometry();
        let h = g.height() as i32;
        let first = (RUNNER_FROM_TENTHS * (h - 1) + 9) / 10;
        let runners = features::runners(g, color, board.pawns(color), board.pawns(color.other()));
        (1..=h)
            .map(|y| (y, runners & g.row(y as u8)))
            .filter(|&(_, on_row)| on_row != 0)
            .map(|(y, _)| if color == Color::White { h - y } else { y - 1 })
            .filter(|&left| h - 1 - left >= first)
            .min()
    }
}

impl Evaluator<Board> for Racing {
    fn evaluate(&self, board: &Board) -> i32 {
        let mover = board.side_to_move();
        let mut v = Improved::white_view(board);
        if mover == Color::Black {
            v = -v;
        }
        let h = board.geometry().height() as i32;
        let ours = Racing::runner(board, mover);
        let theirs = Racing::runner(board, mover.other());
        let bonus = |left: i32| RUNNER_BASE + RUNNER_STEP * (h - 1 - left);
        match (ours, theirs) {
            // The side to move wins ties: it arrives a move earlier.
            (Some(a), Some(b)) if a <= b => v + bonus(a),
            (Some(a), None) => v + bonus(a),
            (_, Some(b)) => v - bonus(b),
            _ => v,
        }
    }
}

/// A linear evaluation over [`features`] (pawns by distance to goal, home guards by
/// column, defended, hanging and exchanged pawns, races, tempo), with weights fitted to
/// the results of self-play games by `ggp-player tune` rather than chosen by hand.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tuned;

/// Sums the weights of the features as they are counted.
struct Dot(i32);

impl Sink for Dot {
    #[inline(always)]
    fn add(&mut self, feature: usize, count: i32) {
        self.0 += WEIGHTS[feature] * count;
    }
}

impl Evaluator<Board> for Tuned {
    fn evaluate(&self, board: &Board) -> i32 {
        let mut dot = Dot(0);
        features::extract(board, &mut dot);
        dot.0
    }
}
