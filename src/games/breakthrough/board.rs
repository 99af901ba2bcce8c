//! The Breakthrough position: two bitboards, the side to move and an incremental
//! Zobrist hash, with make/unmake.

use std::fmt;

use super::geometry::{BoardSize, Geometry, Variant};
use super::zobrist;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The GGP role name of the course rules.
    pub fn role_name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.role_name())
    }
}

/// A move: origin and destination squares and whether it captures.
/// Packed in 16 bits so that move lists stay small.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    const CAPTURE: u16 = 1 << 14;

    #[inline(always)]
    pub fn new(from: u8, to: u8, capture: bool) -> Move {
        Move(from as u16 | (to as u16) << 7 | if capture { Self::CAPTURE } else { 0 })
    }

    #[inline(always)]
    pub fn from(self) -> u8 {
        (self.0 & 0x7f) as u8
    }

    #[inline(always)]
    pub fn to(self) -> u8 {
        ((self.0 >> 7) & 0x7f) as u8
    }

    #[inline(always)]
    pub fn is_capture(self) -> bool {
        self.0 & Self::CAPTURE != 0
    }

    /// The packed bits: origin, destination and capture flag (15 bits).
    #[inline(always)]
    pub fn code(self) -> u16 {
        self.0
    }

    /// The move whose [`Move::code`] is `code`.
    pub fn from_code(code: u16) -> Move {
        Move(code)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}{}{}", self.from(), kind, self.to())
    }
}

/// Capacity of a move list: at most 2 * 10 pawns with 3 moves each.
pub const MAX_MOVES: usize = 64;

/// A move list on the stack.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::default(); MAX_MOVES],
            len: 0,
        }
    }
}

impl MoveList {
    #[inline(always)]
    pub(super) fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        self.moves[..self.len].iter().copied()
    }

    pub fn contains(&self, m: Move) -> bool {
        self.iter().any(|x| x == m)
    }
}

impl crate::game::MoveBuffer<Move> for MoveList {
    fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
    fn clear(&mut self) {
        self.len = 0;
    }
}

/// A Breakthrough position; its geometry carries the variant.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    pub(super) geo: Geometry,
    /// Pawns of white (`[0]`) and black (`[1]`).
    pub(super) pawns: [u128; 2],
    pub(super) side: Color,
    pub(super) hash: u64,
}

impl Board {
    /// The initial position: white on rows 1-2, black on the top two rows, white to move.
    /// Under the course rules.
    pub fn new(size: BoardSize) -> Board {
        Board::with_variant(size, Variant::Course)
    }

    /// The initial position of `variant`.
    pub fn with_variant(size: BoardSize, variant: Variant) -> Board {
        let geo = Geometry::with_variant(size, variant);
        let white = geo.row(1) | geo.row(2);
        let black = geo.row(size.height()) | geo.row(size.height() - 1);
        Board::from_parts(geo, [white, black], Color::White)
    }

    /// A position from pawn sets (bits outside the board are ignored); for tests,
    /// puzzles and resynchronisation with a controller.
    pub fn from_parts(geo: Geometry, pawns: [u128; 2], side: Color) -> Board {
        let pawns = [pawns[0] & geo.all, pawns[1] & geo.all & !pawns[0]];
        let mut board = Board {
            geo,
            pawns,
            side,
            hash: 0,
        };
        board.hash = board.compute_hash();
        board
    }

    /// Parses a diagram: one line per row, top row (y = height) first, `W`/`w` white,
    /// `B`/`b` black, `.` empty; whitespace inside a line is ignored.
    pub fn from_diagram(diagram: &str, side: Color) -> Result<Board, String> {
        let rows: Vec<Vec<char>> = diagram
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        let height = rows.len() as u32;
        let width = rows.first().map_or(0, |r| r.len()) as u32;
        let size = BoardSize::new(width, height).map_err(|e| e.to_string())?;
        let geo = Geometry::new(size);
        let mut pawns = [0u128; 2];
        for (i, row) in rows.iter().enumerate() {
            if row.len() as u32 != width {
                return Err(format!(
                    "row {} has {} squares, expected {width}",
                    i + 1,
                    row.len()
                ));
            }
            let y = height - i as u32;
            for (j, c) in row.iter().enumerate() {
                let sq = geo.square(j as u32 + 1, y).expect("inside the board");
                match c {
                    'W' | 'w' => pawns[0] |= 1 << sq,
                    'B' | 'b' => pawns[1] |= 1 << sq,
                    '.' => {}
                    other => return Err(format!("unexpected {other:?} in diagram")),
                }
            }
        }
        Ok(Board::from_parts(geo, pawns, side))
    }

    fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::Black {
            zobrist::SIDE
        } else {
            0
        };
        for color in 0..2 {
            let mut bb = self.pawns[color];
            while bb != 0 {
                let sq = bb.trailing_zeros() as u8;
                bb &= bb - 1;
                h ^= zobrist::pawn(self.geo.size.width(), color, sq);
            }
        }
        h
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn size(&self) -> BoardSize {
        self.geo.size
    }

    pub fn variant(&self) -> Variant {
        self.geo.variant
    }

    /// The same position under `variant`'s rules.
    pub fn into_variant(self, variant: Variant) -> Board {
        let geo = Geometry::with_variant(self.size(), variant);
        Board::from_parts(geo, self.pawns, self.side)
    }

    pub fn side_to_move(&self) -> Color {
        self.side
    }

    pub fn pawns(&self, color: Color) -> u128 {
        self.pawns[color.index()]
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The position's mirror image (left and right swapped), the same side to move.
    pub fn mirrored(&self) -> Board {
        let mirror = |mut bb: u128| {
            let mut out = 0u128;
            while bb != 0 {
                out |= 1u128 << self.geo.mirror(bb.trailing_zeros() as u8);
                bb &= bb - 1;
            }
            out
        };
        Board::from_parts(
            self.geo,
            [mirror(self.pawns[0]), mirror(self.pawns[1])],
            self.side,
        )
    }

    /// The mirror image of `m` (left and right swapped).
    pub fn mirror_move(&self, m: Move) -> Move {
        Move::new(
            self.geo.mirror(m.from()),
            self.geo.mirror(m.to()),
            m.is_capture(),
        )
    }

    /// The side with a pawn on its goal row, if any: the game is then over.
    #[inline(always)]
    pub fn winner(&self) -> Option<Color> {
        if self.pawns[0] & self.geo.goal[0] != 0 {
            Some(Color::White)
        } else if self.pawns[1] & self.geo.goal[1] != 0 {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// Whether `m` puts a pawn on the mover's goal row (and so wins at once).
    #[inline(always)]
    pub fn is_winning_move(&self, m: Move) -> bool {
        self.geo.goal[self.side.index()] >> m.to() & 1 != 0
    }

    /// Plays a legal move.
    #[inline(always)]
    pub fn make(&mut self, m: Move) {
        self.toggle(self.side.index(), m);
        self.side = self.side.other();
    }

    /// Takes back the last move made.
    #[inline(always)]
    pub fn unmake(&mut self, m: Move) {
        self.side = self.side.other();
        self.toggle(self.side.index(), m);
    }

    /// Moves the pawn of `us` between the squares of `m` (either way: XOR is its own
    /// inverse), with the capture and the side to move in the hash.
    #[inline(always)]
    fn toggle(&mut self, us: usize, m: Move) {
        let (from, to) = (m.from(), m.to());
        self.pawns[us] ^= 1u128 << from | 1u128 << to;
        let width = self.geo.size.width();
        self.hash ^= zobrist::pawn(width, us, from) ^ zobrist::pawn(width, us, to) ^ zobrist::SIDE;
        if m.is_capture() {
            self.pawns[us ^ 1] ^= 1u128 << to;
            self.hash ^= zobrist::pawn(width, us ^ 1, to);
        }
    }

    /// Finds the legal move from `(x1, y1)` to `(x2, y2)` in GGP coordinates.
    pub fn find_move(&self, x1: u32, y1: u32, x2: u32, y2: u32) -> Option<Move> {
        let from = self.geo.square(x1, y1)?;
        let to = self.geo.square(x2, y2)?;
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        list.iter().find(|m| m.from() == from && m.to() == to)
    }

    /// `(x1, y1, x2, y2)` of a move in GGP coordinates.
    pub fn move_coords(&self, m: Move) -> (u8, u8, u8, u8) {
        let (x1, y1) = self.geo.coords(m.from());
        let (x2, y2) = self.geo.coords(m.to());
        (x1, y1, x2, y2)
    }

    /// The game's result once it is over: `Some(winner)` or `Some(None)` for a draw.
    pub fn result(&self) -> Option<Option<Color>> {
        if let Some(w) = self.winner() {
            return Some(Some(w));
        }
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        list.is_empty().then_some(None)
    }

    /// GGP goal values `[white, black]` of a finished game (100 win, 50 draw, 0 loss).
    pub fn goals(&self) -> Option<[u8; 2]> {
        self.result().map(|r| match r {
            Some(Color::White) => [100, 0],
            Some(Color::Black) => [0, 100],
            None => [50, 50],
        })
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in (1..=self.geo.height() as u32).rev() {
            for x in 1..=self.geo.width() as u32 {
                let bit = 1u128 << self.geo.square(x, y).expect("on board");
                let c = if self.pawns[0] & bit != 0 {
                    'W'
                } else if self.pawns[1] & bit != 0 {
                    'B'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.side)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}\n{self}", self.geo.width(), self.geo.height())
    }
}
