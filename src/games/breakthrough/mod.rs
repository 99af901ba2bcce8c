//! Breakthrough under the course rules (see `shared/RULES.md`) and the standard variant
//! ([`Variant`]): bitboards for every board from 2x4 to 10x10, move generation, perft and
//! evaluations.

mod board;
pub mod eval;
pub mod features;
pub mod gdl;
mod geometry;
pub mod ggp;
mod movegen;
pub mod perft;
mod race;

mod recognise;
pub mod solved;
pub mod spec;
pub mod terms;
pub mod tune;
pub mod verify;
mod weights;
mod zobrist;

pub use board::{Board, Color, MAX_MOVES, Move, MoveList};
pub use geometry::{BoardSize, Geometry, SizeError, Variant};

use crate::game::{Game, Outcome, TACTICAL_PRIORITY};

impl Game for Board {
    type Move = Move;
    type MoveList = MoveList;

    const MAX_MOVES: usize = MAX_MOVES;

    #[inline]
    fn generate_moves(&self, list: &mut MoveList) {
        Board::generate_moves(self, list)
    }

    #[inline]
    fn make(&mut self, m: Move) {
        Board::make(self, m)
    }

    #[inline]
    fn unmake(&mut self, m: Move) {
        Board::unmake(self, m)
    }

    #[inline]
    fn decided(&self) -> Option<Outcome> {
        self.winner().map(|w| {
            if w == self.side_to_move() {
                Outcome::Win
            } else {
                Outcome::Loss
            }
        })
    }

    #[inline]
    fn has_moves(&self) -> bool {
        Board::has_moves(self)
    }

    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Draw
    }

    #[inline]
    fn hash(&self) -> u64 {
        Board::hash(self)
    }

    #[inline]
    fn mirror_hash(&self) -> Option<u64> {
        Some(zobrist::mirrored(Board::hash(self)))
    }

    fn mirror_code(&self, code: u16) -> u16 {
        self.mirror_move(Move::from_code(code)).code()
    }

    #[inline]
    fn move_priority(&self, m: Move) -> i32 {
        if self.is_winning_move(m) {
            return 1_000_000;
        }
        // Further advanced destinations first; captures before quiet moves.
        let (_, y) = self.geometry().coords(m.to());
        let advance = match self.side_to_move() {
            Color::White => y as i32,
            Color::Black => self.geometry().height() as i32 + 1 - y as i32,
        };
        advance + if m.is_capture() { TACTICAL_PRIORITY } else { 0 }
    }

    #[inline]
    fn move_code(m: Move) -> u16 {
        m.code()
    }

    #[inline]
    fn can_win_now(&self) -> bool {
        Board::can_win_now(self)
    }

    fn winning_move(&self) -> Option<Move> {
        if !Board::can_win_now(self) {
            return None;
        }
        let mut list = MoveList::default();
        Board::generate_moves(self, &mut list);
        list.iter().find(|&m| self.is_winning_move(m))
    }

    #[inline]
    fn threatened(&self) -> bool {
        Board::threatened(self)
    }

    /// The table of solved openings ([`solved`]).
    fn solved(&self) -> Option<(Outcome, Vec<Move>)> {
        solved::lookup(self)
    }

    /// A race already won ([`Board::race_winner`]): its winner does not lose and the
    /// other side does not win (a side out of moves on the way draws).
    fn value_bounds(&self) -> Option<(Outcome, Outcome)> {
        let winner = self.race_winner()?;
        Some(if winner == self.side_to_move() {
            (Outcome::Draw, Outcome::Win)
        } else {
            (Outcome::Loss, Outcome::Draw)
        })
    }

    fn move_name(&self, m: Move) -> String {
        let (x1, y1, x2, y2) = self.move_coords(m);
        format!("(move {x1} {y1} {x2} {y2})")
    }
}
