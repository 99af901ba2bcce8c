//! Halma on 16×16 with two players and 19-piece camps (USC CSCI-561, Fall 2019, HW2
//! with its addendum; `GAMES.md` §4).
//!
//! Board and notation: square `y * 16 + x`, x the column (0–15, left to right) and y the
//! row (0–15, top to bottom), written `x,y` (H-7). Black's home camp is the top-left
//! corner, White's the bottom-right one; each side's goal is the other's home. A play is
//! written as the course writes it: `E x,y x,y` for a step, and for a jump chain one
//! `J x,y x,y` line per jump ([`Halma::chain`]); [`Game::move_name`] gives the chain's
//! first and last squares on one line (`J 9,9 13,13`), which [`Game::parse_move`] reads
//! as well as the full chain.
//!
//! Decisions where the handout is silent (the resolutions of `GAMES.md` §4.5):
//! - The colour to move is whatever the position says; nothing assumes that Black
//!   starts (H-1). The start position has White to move, as the course's cross-check
//!   (40 plays for White) has it.
//! - A jump chain never revisits a square, its start included, and the moving piece is
//!   lifted for the whole chain (H-2, H-5); only a play's start and end squares count for
//!   the camp rules (H-3); forced evacuation uses the addendum's "farther" test (H-4).
//! - A play is its (start, end) pair: two chains to the same square are one play, listed
//!   once, and written out along one chain of jumps that reaches it.
//! - A side with no legal play loses (it cannot write a legal `output.txt`). There is no
//!   draw rule and no move cap (H-6): positions can repeat.

pub mod agent;
pub mod bits;
pub mod budget;
pub mod eval;
pub mod master;
mod movegen;
mod notation;
pub mod playdata;
pub mod protocol;
pub mod spec;

use std::fmt;

use bits::{Bits, N, SQUARES};

use crate::game::{ArrayMoves, Game, MoveBuffer, Outcome, TACTICAL_PRIORITY};
use crate::games::side::splitmix;

/// Pieces of each side.
pub const PIECES: usize = 19;
/// Each piece can end on any empty square: a sound bound on the plays of one position.
pub const MAX_MOVES: usize = PIECES * (SQUARES - PIECES);

pub use crate::games::side::Side;

/// Halma's view of the two sides.
impl Side {
    /// The course's word for the side: `BLACK` or `WHITE`.
    pub fn word(self) -> &'static str {
        match self {
            Side::Black => "BLACK",
            Side::White => "WHITE",
        }
    }
    /// The corner of the side's home camp, as (x, y).
    pub fn home_corner(self) -> (i32, i32) {
        match self {
            Side::Black => (0, 0),
            Side::White => (15, 15),
        }
    }
}

/// A play from `from` to `to` (squares `y * 16 + x`): a step when they are adjacent, a
/// jump chain otherwise (a chain moves an even number of squares on each axis).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
}

impl Move {
    pub fn new(from: usize, to: usize) -> Move {
        Move {
            from: from as u8,
            to: to as u8,
        }
    }
    pub fn from(self) -> usize {
        usize::from(self.from)
    }
    pub fn to(self) -> usize {
        usize::from(self.to)
    }
    pub fn is_step(self) -> bool {
        let (fx, fy) = xy(self.from());
        let (tx, ty) = xy(self.to());
        (fx - tx).abs() <= 1 && (fy - ty).abs() <= 1
    }
}

pub type MoveList = ArrayMoves<Move, MAX_MOVES>;

/// The (x, y) of a square.
pub fn xy(sq: usize) -> (i32, i32) {
    ((sq % N) as i32, (sq / N) as i32)
}

/// The camps: Black's home is the 19 squares with x + y ≤ 5 and x, y ≤ 4 (`GAMES.md`
/// §4.1); White's is its point mirror.
pub const HOME: [Bits; 2] = {
    let mut camps = [Bits::EMPTY; 2];
    let mut x = 0;
    while x <= 4 {
        let mut y = 0;
        while y <= 4 {
            if x + y <= 5 {
                camps[0] = camps[0].with(y * N + x);
                camps[1] = camps[1].with((15 - y) * N + 15 - x);
            }
            y += 1;
        }
        x += 1;
    }
    camps
};

/// The goal camp of `side`: the other side's home.
pub fn goal(side: Side) -> Bits {
    HOME[side.other().index()]
}

/// Each side's distance from a square to its goal corner, `dx + dy` (a diagonal step
/// towards the corner gains two).
pub const DISTANCE: [[u8; SQUARES]; 2] = {
    let mut d = [[0; SQUARES]; 2];
    let mut sq = 0;
    while sq < SQUARES {
        let (x, y) = (sq % N, sq / N);
        d[0][sq] = (30 - x - y) as u8;
        d[1][sq] = (x + y) as u8;
        sq += 1;
    }
    d
};

/// Zobrist keys of a piece of each side on each square (built at compile time: a fresh
/// process per move pays nothing, `GAMES.md` §5).
static PIECE_KEYS: [[u64; SQUARES]; 2] = {
    let mut k = [[0; SQUARES]; 2];
    let mut i = 0;
    while i < 2 * SQUARES {
        k[i / SQUARES][i % SQUARES] = splitmix(0x4841_4c4d_4100_0000 + i as u64);
        i += 1;
    }
    k
};
const WHITE_TO_MOVE_KEY: u64 = splitmix(0x4841_4c4d_41ff);

/// A Halma position: the pieces and the side to move.
#[derive(Clone, PartialEq, Eq)]
pub struct Halma {
    pieces: [Bits; 2],
    side: Side,
    zobrist: u64,
}

impl Halma {
    /// The start position: each home camp full of its owner's pieces, White to move.
    pub fn start() -> Halma {
        Halma::from_bits(HOME[0], HOME[1], Side::White).expect("the start is valid")
    }

    /// The position with these pieces and `side` to move, or why there is none (pieces
    /// overlapping, or more than [`PIECES`] of a side).
    pub fn from_bits(black: Bits, white: Bits, side: Side) -> Result<Halma, String> {
        if !(black & white).is_empty() {
            return Err("a square holds two pieces".into());
        }
        for (name, b) in [("black", black), ("white", white)] {
            if b.count() as usize > PIECES {
                return Err(format!(
                    "{} {name} pieces: a side has at most {PIECES}",
                    b.count()
                ));
            }
        }
        let mut p = Halma {
            pieces: [black, white],
            side,
            zobrist: 0,
        };
        p.zobrist = p.zobrist_from_scratch();
        Ok(p)
    }

    pub fn side_to_move(&self) -> Side {
        self.side
    }
    pub fn pieces(&self, side: Side) -> Bits {
        self.pieces[side.index()]
    }
    pub fn occupied(&self) -> Bits {
        self.pieces[0] | self.pieces[1]
    }

    /// The hash recomputed from the pieces and the side to move.
    pub fn zobrist_from_scratch(&self) -> u64 {
        let mut h = if self.side == Side::White {
            WHITE_TO_MOVE_KEY
        } else {
            0
        };
        for (keys, pieces) in PIECE_KEYS.iter().zip(self.pieces) {
            for sq in pieces.iter() {
                h ^= keys[sq];
            }
        }
        h
    }

    /// Whether `side` has won: its goal camp full, at least one square by its own pieces.
    pub fn has_won(&self, side: Side) -> bool {
        let g = goal(side);
        (self.occupied() & g) == g && !(self.pieces[side.index()] & g).is_empty()
    }

    /// The one empty square of `side`'s goal camp, when exactly one is empty: only then
    /// can a single play complete the camp.
    fn last_hole(&self, side: Side) -> Option<usize> {
        let holes = goal(side) & !self.occupied();
        (holes.count() == 1).then(|| holes.first().expect("one hole"))
    }

    /// A play of `side` that wins at once: into the goal camp's last hole from outside
    /// the camp (a play inside the camp leaves its start empty).
    fn winning_move_for(&self, side: Side) -> Option<Move> {
        let hole = self.last_hole(side)?;
        let g = goal(side);
        let mut list = MoveList::default();
        self.generate_for(side, &mut list);
        list.as_slice()
            .iter()
            .copied()
            .find(|m| m.to() == hole && !g.has(m.from()))
    }

    fn toggle(&mut self, side: Side, sq: usize) {
        self.pieces[side.index()] ^= Bits::square(sq);
        self.zobrist ^= PIECE_KEYS[side.index()][sq];
    }

    fn pass_turn(&mut self) {
        self.side = self.side.other();
        self.zobrist ^= WHITE_TO_MOVE_KEY;
    }
}

impl Game for Halma {
    type Move = Move;
    type MoveList = MoveList;
    const MAX_MOVES: usize = MAX_MOVES;
    const REPEATS: bool = true;

    fn generate_moves(&self, list: &mut MoveList) {
        self.generate_for(self.side, list);
    }

    fn make(&mut self, m: Move) {
        self.toggle(self.side, m.from());
        self.toggle(self.side, m.to());
        self.pass_turn();
    }

    fn unmake(&mut self, m: Move) {
        self.pass_turn();
        self.toggle(self.side, m.to());
        self.toggle(self.side, m.from());
    }

    fn decided(&self) -> Option<Outcome> {
        // Only the side that just moved can have completed its camp (`GAMES.md` §4.3).
        self.has_won(self.side.other()).then_some(Outcome::Loss)
    }

    fn has_moves(&self) -> bool {
        self.has_plays(self.side)
    }

    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Loss
    }

    fn hash(&self) -> u64 {
        self.zobrist
    }

    fn move_priority(&self, m: Move) -> i32 {
        let s = self.side.index();
        if self.last_hole(self.side) == Some(m.to()) && !goal(self.side).has(m.from()) {
            return TACTICAL_PRIORITY;
        }
        // Progress towards the goal corner first; leaving home is progress too.
        let gain = i32::from(DISTANCE[s][m.from()]) - i32::from(DISTANCE[s][m.to()]);
        let leaves_home = HOME[s].has(m.from()) && !HOME[s].has(m.to());
        2 * gain + if leaves_home { 10 } else { 0 }
    }

    fn move_path(&self, m: Move) -> Option<Vec<[usize; 2]>> {
        let chain = self.chain(m);
        (chain.len() > 2).then(|| chain.iter().map(|&sq| [sq / N, sq % N]).collect())
    }

    fn move_name(&self, m: Move) -> String {
        let kind = if m.is_step() { 'E' } else { 'J' };
        format!(
            "{kind} {} {}",
            notation::square_name(m.from()),
            notation::square_name(m.to())
        )
    }

    fn parse_move(&self, text: &str) -> Option<Move> {
        // The course's lines, or the one-line name of a chain (`J 9,9 13,13`).
        self.parse_play(text).ok().or_else(|| {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut list = MoveList::default();
            self.generate_moves(&mut list);
            list.as_slice()
                .iter()
                .copied()
                .find(|&m| self.move_name(m).eq_ignore_ascii_case(&text))
        })
    }

    fn move_code(m: Move) -> u16 {
        // `from != to`, so the code is never `u16::MAX`.
        u16::from(m.from) << 8 | u16::from(m.to)
    }

    fn can_win_now(&self) -> bool {
        self.last_hole(self.side).is_some() && self.winning_move().is_some()
    }

    fn winning_move(&self) -> Option<Move> {
        self.winning_move_for(self.side)
    }

    fn threatened(&self) -> bool {
        self.winning_move_for(self.side.other()).is_some()
    }
}

impl fmt::Display for Halma {
    /// The board as the course's `input.txt` writes it (16 lines of `B`, `W`, `.`), then
    /// the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in 0..N {
            let line: String = (0..N)
                .map(|x| {
                    let sq = y * N + x;
                    if self.pieces[0].has(sq) {
                        'B'
                    } else if self.pieces[1].has(sq) {
                        'W'
                    } else {
                        '.'
                    }
                })
                .collect();
            writeln!(f, "{line}")?;
        }
        write!(f, "{} to move", self.side.word())
    }
}

impl fmt::Debug for Halma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Halma\n{self}")
    }
}

#[cfg(test)]
mod tests;
