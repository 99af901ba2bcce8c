//! Static evaluations of Breakthrough positions, from the side to move's view.

use super::board::{Board, Color};
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
        let s = g.stride;
        let h = g.height() as i32;
        let [white, black] = [board.pawns(Color::White), board.pawns(Color::Black)];
        // Squares each side attacks (diagonally in front of its pawns).
        let white_att =
            ((white & g.not_last_col) << (s + 1)) | ((white & g.not_first_col) << (s - 1));
        let black_att =
            ((black & g.not_last_col) >> (s - 1)) | ((black & g.not_first_col) >> (s + 1));
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
