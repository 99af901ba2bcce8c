//! Ataxx Reloaded on 7×7 (NUS CS3243, 2010; `GAMES.md` §2): a bitboard engine.
//!
//! Board and notation: square `y * 7 + x` in a `u64`, x the column (0 left), y the row
//! (0 at the top), as the course writes squares (`x:y`, x first; A-1). A move is written
//! `fx:fy:tx:ty:` like the course's `4:5:4:2:`; a pass, which the course has no word for,
//! is written `pass`.
//!
//! Rules as resolved in `GAMES.md` §2.6:
//! - Clones go to any of the 8 neighbours; jumps by (±2,0), (0,±2), (±2,±2), (±3,0),
//!   (0,±3) only, over anything; the destination must be empty; every opposing piece
//!   next to the destination changes colour.
//! - A side with no legal move passes while the other can move. Both sides can never be
//!   stuck at once while both have pieces and a square is empty, so the pass cannot loop.
//! - The game ends when the board is full, when a side has no pieces, or after 200 plies
//!   (the end of the 100th turn); more pieces wins, and equal counts (possible only at the
//!   turn limit) draw. The ply count is part of the position and of its hash, so a
//!   position never repeats at the same count ([`Game::REPEATS`] stays off).
//!
//! Clones and the search. A clone leaves its source where it is, so clones from different
//! sources to one square give the same position. [`Game::generate_moves`] lists each such
//! square once (from the lowest-numbered source), so the search never looks at the same
//! child twice and a random mover picks among distinct positions; jumps, which empty
//! their source, are all listed. The course's perft counts distinct from-to pairs, which
//! [`Ataxx::perft_pairs`] (what `perft --game ataxx` runs) gets by weighting each clone by
//! its number of sources. [`Game::parse_move`] reads a clone from any source and returns
//! the listed move for its square.
//!
//! Ordering: a move's priority is the piece difference it gains at once (a clone one plus
//! two per piece converted, a jump two per piece converted less half the own pieces left
//! next to the square it empties); one converting four or more counts as a capture (see
//! `TACTICAL_FLIPS`). A win at once by wiping the opponent out (possible only against
//! eight pieces or fewer) is found without listing moves; one by ending the game ahead is
//! looked for only on the last ply or with one empty square left.

mod board;
pub mod eval;
pub mod features;
mod movegen;
pub mod nus;
#[cfg(test)]
mod reference;
pub mod spec;
mod text;
pub mod tune;
mod weights;

use std::fmt;

use crate::game::{ArrayMoves, Game, MoveBuffer, Outcome, TACTICAL_PRIORITY};
use board::{FLIP_KEYS, FULL, NEIGHBOURS, PIECE_KEYS, WHITE_TO_MOVE_KEY, ply_key};
pub use board::{N, SQUARES, coords, square};

/// The game ends after this many plies: the end of the 100th turn (`GAMES.md` §2.3).
pub const PLY_LIMIT: u32 = 200;

/// A bound on the moves of one position: at most 47 clone squares (a side to move has a
/// piece and so does the other) plus every jump pair of the board (176, each listed once
/// since a pair joins a piece to an empty square).
pub const MAX_MOVES: usize = 47 + 176;

pub use crate::games::side::Side;

/// A clone or a jump from `from` to `to`, or the pass (`from == to == PASS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    clone: bool,
}

const PASS: u8 = u8::MAX;

impl Move {
    pub const PASS: Move = Move {
        from: PASS,
        to: PASS,
        clone: false,
    };
    fn clone_to(from: usize, to: usize) -> Move {
        Move {
            from: from as u8,
            to: to as u8,
            clone: true,
        }
    }
    fn jump(from: usize, to: usize) -> Move {
        Move {
            from: from as u8,
            to: to as u8,
            clone: false,
        }
    }
    pub fn is_pass(self) -> bool {
        self.from == PASS
    }
    pub fn is_clone(self) -> bool {
        self.clone
    }
    pub fn from(self) -> usize {
        usize::from(self.from)
    }
    pub fn to(self) -> usize {
        usize::from(self.to)
    }
}

pub type MoveList = ArrayMoves<Move, MAX_MOVES>;

/// Moves converting this many pieces or more count as captures for the search: tried
/// before killer moves and never reduced. Most middle-game moves convert one or two, and
/// exempting those from late-move reductions doubled the nodes to a given depth (`bench`)
/// without winning more games at that depth; a threshold of five changed the middle-game
/// bench's best move.
const TACTICAL_FLIPS: i32 = 4;

/// A position: the pieces, the side to move, the ply count, and what undoes the moves
/// made on it.
#[derive(Clone)]
pub struct Ataxx {
    pieces: [u64; 2],
    side: Side,
    ply: u32,
    /// Zobrist hash of the pieces and the side to move (the ply key is added in `hash`).
    zobrist: u64,
    /// The pieces each move made on this position converted, so that `unmake` can turn
    /// them back: the game ends by `PLY_LIMIT`, so no line is longer.
    converted: [u64; PLY_LIMIT as usize],
    made: usize,
}

impl Ataxx {
    /// The course's start position, black (`1`) to move.
    pub fn start() -> Ataxx {
        let bit = |x, y| 1u64 << square(x, y);
        Ataxx::new(
            bit(0, 0) | bit(N - 1, N - 1),
            bit(N - 1, 0) | bit(0, N - 1),
            Side::Black,
            0,
        )
    }

    /// The position with these pieces (bit `y * 7 + x`), `side` to move, after `ply` plies.
    pub fn new(black: u64, white: u64, side: Side, ply: u32) -> Ataxx {
        assert_eq!(black & white, 0, "two pieces on one square");
        assert_eq!((black | white) & !FULL, 0, "a piece off the board");
        let mut p = Ataxx {
            pieces: [black, white],
            side,
            ply,
            zobrist: 0,
            converted: [0; PLY_LIMIT as usize],
            made: 0,
        };
        p.zobrist = p.zobrist_from_scratch();
        p
    }

    pub fn side_to_move(&self) -> Side {
        self.side
    }
    pub fn pieces(&self, side: Side) -> u64 {
        self.pieces[side.index()]
    }
    /// The pieces of the side to move and of the other side.
    pub fn own_and_opposing(&self) -> (u64, u64) {
        (
            self.pieces[self.side.index()],
            self.pieces[self.side.other().index()],
        )
    }
    pub fn empty(&self) -> u64 {
        FULL & !(self.pieces[0] | self.pieces[1])
    }
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// Plies left before the turn limit ends the game.
    pub fn plies_left(&self) -> u32 {
        PLY_LIMIT.saturating_sub(self.ply)
    }

    /// The hash recomputed from the pieces and the side to move.
    pub fn zobrist_from_scratch(&self) -> u64 {
        let mut h = if self.side == Side::White {
            WHITE_TO_MOVE_KEY
        } else {
            0
        };
        for (s, &bits) in self.pieces.iter().enumerate() {
            for sq in board::squares(bits) {
                h ^= PIECE_KEYS[s][sq];
            }
        }
        h
    }

    /// The pieces a move onto `to` by the side to move converts.
    fn converts(&self, to: usize) -> u64 {
        NEIGHBOURS[to] & self.pieces[self.side.other().index()]
    }

    /// The outcome for the side to move of the game ending now: more pieces wins.
    fn by_count(own: u64, opp: u64) -> Outcome {
        match own.count_ones().cmp(&opp.count_ones()) {
            std::cmp::Ordering::Greater => Outcome::Win,
            std::cmp::Ordering::Less => Outcome::Loss,
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// Whether `m` (legal) ends the game at once with the mover ahead.
    fn wins_at_once(&self, m: Move) -> bool {
        let (mut own, mut opp) = self.own_and_opposing();
        if !m.is_pass() {
            let flips = self.converts(m.to());
            own |= flips | 1 << m.to();
            opp &= !flips;
            if !m.clone {
                own &= !(1 << m.from());
            }
        }
        let over = opp == 0 || own | opp == FULL || self.ply + 1 >= PLY_LIMIT;
        over && own.count_ones() > opp.count_ones()
    }

    fn toggle_turn(&mut self) {
        self.side = self.side.other();
        self.zobrist ^= WHITE_TO_MOVE_KEY;
    }
}

impl Game for Ataxx {
    type Move = Move;
    type MoveList = MoveList;
    const MAX_MOVES: usize = MAX_MOVES;

    fn generate_moves(&self, list: &mut MoveList) {
        list.clear();
        // A finished game has no moves (and a line never outgrows `converted`).
        if self.decided().is_some() {
            return;
        }
        let (own, opp) = self.own_and_opposing();
        movegen::push_moves(own, self.empty(), list);
        if list.is_empty() && movegen::can_move(opp, self.empty()) {
            list.push(Move::PASS);
        }
    }

    fn has_moves(&self) -> bool {
        let (own, opp) = self.own_and_opposing();
        movegen::can_move(own, self.empty()) || movegen::can_move(opp, self.empty())
    }

    fn make(&mut self, m: Move) {
        let mut flips = 0;
        if !m.is_pass() {
            let s = self.side.index();
            let to = m.to();
            flips = self.converts(to);
            self.pieces[s] |= flips | 1 << to;
            self.pieces[1 - s] ^= flips;
            self.zobrist ^= PIECE_KEYS[s][to];
            if !m.clone {
                self.pieces[s] ^= 1 << m.from();
                self.zobrist ^= PIECE_KEYS[s][m.from()];
            }
            for sq in board::squares(flips) {
                self.zobrist ^= FLIP_KEYS[sq];
            }
        }
        self.converted[self.made] = flips;
        self.made += 1;
        self.toggle_turn();
        self.ply += 1;
    }

    fn unmake(&mut self, m: Move) {
        self.toggle_turn();
        self.ply -= 1;
        self.made -= 1;
        if !m.is_pass() {
            let s = self.side.index();
            let to = m.to();
            let flips = self.converted[self.made];
            self.pieces[s] ^= flips | 1 << to;
            self.pieces[1 - s] |= flips;
            self.zobrist ^= PIECE_KEYS[s][to];
            if !m.clone {
                self.pieces[s] |= 1 << m.from();
                self.zobrist ^= PIECE_KEYS[s][m.from()];
            }
            for sq in board::squares(flips) {
                self.zobrist ^= FLIP_KEYS[sq];
            }
        }
    }

    fn decided(&self) -> Option<Outcome> {
        let (own, opp) = self.own_and_opposing();
        let over = own == 0 || opp == 0 || own | opp == FULL || self.ply >= PLY_LIMIT;
        over.then(|| Ataxx::by_count(own, opp))
    }

    fn outcome_without_moves(&self) -> Outcome {
        // Neither side can move (not reachable in play): nothing changes any more.
        let (own, opp) = self.own_and_opposing();
        Ataxx::by_count(own, opp)
    }

    fn hash(&self) -> u64 {
        self.zobrist ^ ply_key(self.ply)
    }

    fn move_priority(&self, m: Move) -> i32 {
        if m.is_pass() {
            return 0;
        }
        let flips = self.converts(m.to()).count_ones() as i32;
        // The gain in piece difference, less for a jump the own pieces left next to the
        // square it empties (an opponent landing there converts them).
        let gain = if m.clone {
            2 * flips + 1
        } else {
            let (own, _) = self.own_and_opposing();
            2 * flips - (NEIGHBOURS[m.from()] & own).count_ones() as i32 / 2
        };
        if flips >= TACTICAL_FLIPS {
            TACTICAL_PRIORITY + gain
        } else {
            gain
        }
    }

    fn move_name(&self, m: Move) -> String {
        if m.is_pass() {
            return "pass".to_owned();
        }
        let ((fx, fy), (tx, ty)) = (coords(m.from()), coords(m.to()));
        format!("{fx}:{fy}:{tx}:{ty}:")
    }

    /// A clone is made by any of the mover's pieces next to its target (the course's
    /// notation names one of them); a jump by its own piece. The diagram has row `y`,
    /// column `x`.
    fn move_cells(&self, m: Move) -> Option<(Vec<[usize; 2]>, [usize; 2])> {
        if m.is_pass() {
            return None;
        }
        let cell = |sq: usize| {
            let (x, y) = coords(sq);
            [y, x]
        };
        let from = if m.is_clone() {
            board::squares(NEIGHBOURS[m.to()] & self.own_and_opposing().0)
                .map(cell)
                .collect()
        } else {
            vec![cell(m.from())]
        };
        Some((from, cell(m.to())))
    }

    fn parse_move(&self, text: &str) -> Option<Move> {
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        let legal = list.as_slice();
        if text.trim().eq_ignore_ascii_case("pass") {
            return legal.iter().copied().find(|m| m.is_pass());
        }
        let (from, to) = text::parse_move_squares(text)?;
        legal.iter().copied().find(|m| {
            !m.is_pass()
                && m.to() == to
                && if m.clone {
                    NEIGHBOURS[to] & 1 << from != 0 && self.own_and_opposing().0 & 1 << from != 0
                } else {
                    m.from() == from
                }
        })
    }

    fn move_code(m: Move) -> u16 {
        let (from, to) = (u16::from(m.from), u16::from(m.to));
        if m.is_pass() {
            (SQUARES as u16 + 1) << 6
        } else if m.clone {
            (SQUARES as u16) << 6 | to
        } else {
            from << 6 | to
        }
    }

    fn winning_move(&self) -> Option<Move> {
        let (own, opp) = self.own_and_opposing();
        let empty = self.empty();
        if let Some(to) = movegen::wipe_out_square(own, opp, empty) {
            let mut list = MoveList::default();
            movegen::push_moves_to(own, to, &mut list);
            return list.as_slice().first().copied();
        }
        // Otherwise only the turn limit or filling the last square can end the game.
        if self.ply + 1 < PLY_LIMIT && empty.count_ones() != 1 {
            return None;
        }
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        list.as_slice()
            .iter()
            .copied()
            .find(|&m| self.wins_at_once(m))
    }

    fn threatened(&self) -> bool {
        let (own, opp) = self.own_and_opposing();
        movegen::wipe_out_square(opp, own, self.empty()).is_some()
    }
}

impl fmt::Display for Ataxx {
    /// The board in the course's format (black `1`, white `2`), then the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.course_board(Side::Black))?;
        let side = match self.side {
            Side::Black => "black",
            Side::White => "white",
        };
        write!(f, "{side} to move (ply {})", self.ply)
    }
}

impl fmt::Debug for Ataxx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ataxx\n{self}")
    }
}

#[cfg(test)]
mod tests;
