//! Lines of Action on 6×6 (NUS CS3243, 2007) and 8×8 (CS61B, Spring 2020), one bitboard
//! engine whose tables are chosen by the board size (`GAMES.md` §1, §3, §5).
//!
//! Board and notation: square `row * n + col` in a `u64`; row 0 is the row labelled `1`
//! in the ruleset's own coordinates, so 8×8 counts ranks from the bottom (CS61B) and 6×6
//! rows from the top (NUS). Both start positions are symmetric, so one setup serves both.
//! Moves are written `f3-d5` (lowercase, hyphen) on both sizes; on 6×6 the NUS form
//! `D1B3` is read as well. A pass is written `pass`.
//!
//! Decisions where the handouts are silent:
//! - The win test reads only the position: if the side that just moved is connected it
//!   wins, else if the side to move is connected that side wins (so a set-up position
//!   with both connected credits the side not to move, as `GAMES.md` L8-6 says).
//!   A side with one piece is connected.
//! - NUS rules: a side with no legal move loses (L6-5); no move limit, so positions may
//!   repeat.
//! - CS61B rules: a side with no legal move passes (L8-4); if neither side can move the
//!   game is a tie. The game is a tie once the ply limit (60 by default) is reached
//!   without a win; a win on the last ply counts, since the win test comes first.
//! - The registry has two names (`spec`): `loa6` plays the NUS rules by default, `loa8`
//!   CS61B's; the variants `nus` and `cs61b` force one ruleset on either board.

pub mod cs61b;
pub mod eval;
pub mod nus;
pub mod spec;

use std::fmt;

use crate::game::{ArrayMoves, Game, MoveBuffer, Outcome, TACTICAL_PRIORITY};
use crate::games::side::{DIRS, splitmix};

/// At most 12 pieces with 8 directions each.
pub const MAX_MOVES: usize = 96;

/// The CS61B default: 60 plies in total (`GAMES.md` L8-1).
pub const DEFAULT_LIMIT: u32 = 60;

pub use crate::games::side::Side;

/// What happens to a side with no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoMove {
    /// NUS: it loses.
    Loses,
    /// CS61B: it passes.
    Passes,
}

/// A move from `from` to `to`; `from == to == PASS` is a pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    capture: bool,
}

const PASS: u8 = u8::MAX;

impl Move {
    pub const PASS: Move = Move {
        from: PASS,
        to: PASS,
        capture: false,
    };
    pub fn is_pass(self) -> bool {
        self.from == PASS
    }
    pub fn is_capture(self) -> bool {
        self.capture
    }
    pub fn from(self) -> usize {
        usize::from(self.from)
    }
    pub fn to(self) -> usize {
        usize::from(self.to)
    }
}

pub type MoveList = ArrayMoves<Move, MAX_MOVES>;

/// Per-size tables, built at compile time so that a fresh process pays nothing (§5).
pub struct Tables {
    n: usize,
    board: u64,
    /// Squares from a square (exclusive) to the edge in each direction.
    ray: [[u64; 8]; 64],
    /// The whole line through a square for each pair of directions.
    line: [[u64; 4]; 64],
    /// How many steps fit between a square and the edge in each direction.
    room: [[u8; 8]; 64],
    /// The signed index step of each direction.
    delta: [i32; 8],
    not_first_col: u64,
    not_last_col: u64,
    /// The squares on the board's edge (for evaluations).
    edge: u64,
}

impl Tables {
    const fn new(n: usize) -> Tables {
        let mut t = Tables {
            n,
            board: if n == 8 {
                u64::MAX
            } else {
                (1u64 << (n * n)) - 1
            },
            ray: [[0; 8]; 64],
            line: [[0; 4]; 64],
            room: [[0; 8]; 64],
            delta: [0; 8],
            not_first_col: 0,
            not_last_col: 0,
            edge: 0,
        };
        let mut d = 0;
        while d < 8 {
            t.delta[d] = DIRS[d].1 * n as i32 + DIRS[d].0;
            d += 1;
        }
        let mut sq = 0;
        while sq < n * n {
            let (c, r) = ((sq % n) as i32, (sq / n) as i32);
            if c != 0 {
                t.not_first_col |= 1 << sq;
            }
            if c != n as i32 - 1 {
                t.not_last_col |= 1 << sq;
            }
            if c == 0 || r == 0 || c == n as i32 - 1 || r == n as i32 - 1 {
                t.edge |= 1 << sq;
            }
            let mut d = 0;
            while d < 8 {
                let (mut cc, mut rr, mut steps) = (c + DIRS[d].0, r + DIRS[d].1, 0);
                while cc >= 0 && rr >= 0 && cc < n as i32 && rr < n as i32 {
                    t.ray[sq][d] |= 1 << (rr as usize * n + cc as usize);
                    steps += 1;
                    cc += DIRS[d].0;
                    rr += DIRS[d].1;
                }
                t.room[sq][d] = steps;
                d += 1;
            }
            let mut l = 0;
            while l < 4 {
                t.line[sq][l] = t.ray[sq][2 * l] | t.ray[sq][2 * l + 1] | 1 << sq;
                l += 1;
            }
            sq += 1;
        }
        t
    }

    /// The squares 8-adjacent to `b`, and `b` itself.
    fn grow(&self, b: u64) -> u64 {
        let h = b | (b & self.not_last_col) << 1 | (b & self.not_first_col) >> 1;
        (h | h << self.n | h >> self.n) & self.board
    }

    /// Whether the pieces `b` form one 8-connected group (none or one piece do).
    fn connected(&self, b: u64) -> bool {
        if b == 0 {
            return true;
        }
        let mut group = b & b.wrapping_neg();
        loop {
            let next = self.grow(group) & b;
            if next == group {
                return group == b;
            }
            group = next;
        }
    }
}

static TABLES_6: Tables = Tables::new(6);
static TABLES_8: Tables = Tables::new(8);

/// Zobrist keys of a piece of each side on each square.
static PIECE_KEYS: [[u64; 64]; 2] = {
    let mut k = [[0; 64]; 2];
    let mut i = 0;
    while i < 128 {
        k[i / 64][i % 64] = splitmix(0x4c4f_4100_0000_0000 + i as u64);
        i += 1;
    }
    k
};
const WHITE_TO_MOVE_KEY: u64 = splitmix(0x4c4f_41ff);

/// The key of a ply count (a function, since `limit N` allows any count).
fn ply_key(ply: u32) -> u64 {
    splitmix(0x4c4f_4150_4c59_0000 ^ u64::from(ply))
}

/// A position of Lines of Action with its rules.
#[derive(Clone)]
pub struct Loa {
    tables: &'static Tables,
    pieces: [u64; 2],
    side: Side,
    ply: u32,
    /// The ply count at which the game is a tie, if any.
    limit: Option<u32>,
    no_move: NoMove,
    /// Zobrist hash of the pieces and the side to move (the ply key is added in `hash`).
    zobrist: u64,
}

impl Loa {
    /// The start position on an `n`×`n` board (6 or 8), black to move.
    pub fn start(n: usize, no_move: NoMove, limit: Option<u32>) -> Loa {
        let mut black = 0u64;
        let mut white = 0u64;
        for i in 1..n - 1 {
            black |= 1 << i | 1 << ((n - 1) * n + i);
            white |= 1 << (i * n) | 1 << (i * n + n - 1);
        }
        Loa::from_bits(n, black, white, Side::Black, no_move, limit)
    }

    /// The position with these pieces (`row * n + col` bits) and `side` to move.
    pub fn from_bits(
        n: usize,
        black: u64,
        white: u64,
        side: Side,
        no_move: NoMove,
        limit: Option<u32>,
    ) -> Loa {
        let tables = match n {
            6 => &TABLES_6,
            8 => &TABLES_8,
            _ => panic!("Lines of Action is played on 6x6 or 8x8, not {n}x{n}"),
        };
        assert_eq!(black & white, 0, "two pieces on one square");
        assert_eq!((black | white) & !tables.board, 0, "a piece off the board");
        let mut p = Loa {
            tables,
            pieces: [black, white],
            side,
            ply: 0,
            limit,
            no_move,
            zobrist: 0,
        };
        p.zobrist = p.zobrist_from_scratch();
        p
    }

    /// A position from a diagram: `n` rows as printed (top first), cells `b`/`X` black,
    /// `w`/`O` white, anything else (`-`, `.`) empty; blanks ignored.
    pub fn from_diagram(
        n: usize,
        diagram: &str,
        side: Side,
        no_move: NoMove,
        limit: Option<u32>,
    ) -> Result<Loa, String> {
        let cells: Vec<char> = diagram.chars().filter(|c| !c.is_whitespace()).collect();
        if !(n == 6 || n == 8) || cells.len() != n * n {
            return Err(format!("a {n}x{n} diagram has {} cells", n * n));
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (i, &c) in cells.iter().enumerate() {
            let sq = Loa::square_of_printed(n, i / n, i % n);
            match c {
                'b' | 'B' | 'x' | 'X' => black |= 1 << sq,
                'w' | 'W' | 'o' | 'O' => white |= 1 << sq,
                _ => {}
            }
        }
        Ok(Loa::from_bits(n, black, white, side, no_move, limit))
    }

    /// The square shown at printed line `line` (top first), column `col`.
    fn square_of_printed(n: usize, line: usize, col: usize) -> usize {
        let row = if n == 8 { n - 1 - line } else { line };
        row * n + col
    }

    pub fn size(&self) -> usize {
        self.tables.n
    }
    pub fn side_to_move(&self) -> Side {
        self.side
    }
    pub fn pieces(&self, side: Side) -> u64 {
        self.pieces[side.index()]
    }
    pub fn ply(&self) -> u32 {
        self.ply
    }
    pub fn limit(&self) -> Option<u32> {
        self.limit
    }
    pub fn no_move_rule(&self) -> NoMove {
        self.no_move
    }
    /// Sets the tie limit in plies (`limit N` gives `2N`).
    pub fn set_limit(&mut self, limit: Option<u32>) {
        self.limit = limit;
    }
    /// Sets the ply count (for positions set up mid-game).
    pub fn set_ply(&mut self, ply: u32) {
        self.ply = ply;
    }

    /// The hash recomputed from the pieces and the side to move.
    pub fn zobrist_from_scratch(&self) -> u64 {
        let mut h = if self.side == Side::White {
            WHITE_TO_MOVE_KEY
        } else {
            0
        };
        for (s, &bits) in self.pieces.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                h ^= PIECE_KEYS[s][b.trailing_zeros() as usize];
                b &= b - 1;
            }
        }
        h
    }

    /// Whether `side`'s pieces form one group.
    pub fn connected(&self, side: Side) -> bool {
        self.tables.connected(self.pieces[side.index()])
    }

    /// The square's name in the ruleset's coordinates, e.g. `f3`.
    pub fn square_name(&self, sq: usize) -> String {
        let n = self.size();
        format!("{}{}", (b'a' + (sq % n) as u8) as char, sq / n + 1)
    }

    /// The square named `text` (`f3`, any case), if on the board.
    pub fn parse_square(&self, text: &str) -> Option<usize> {
        let n = self.size();
        let b = text.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let col = usize::from(b[0].to_ascii_lowercase().checked_sub(b'a')?);
        let row = usize::from(b[1].checked_sub(b'1')?);
        (col < n && row < n).then_some(row * n + col)
    }

    fn push_moves(&self, list: &mut MoveList) {
        let t = self.tables;
        let own = self.pieces[self.side.index()];
        let opp = self.pieces[self.side.other().index()];
        let occ = own | opp;
        let mut b = own;
        while b != 0 {
            let from = b.trailing_zeros() as usize;
            b &= b - 1;
            for l in 0..4 {
                let count = (t.line[from][l] & occ).count_ones();
                for d in [2 * l, 2 * l + 1] {
                    if count > u32::from(t.room[from][d]) {
                        continue;
                    }
                    let to = (from as i32 + count as i32 * t.delta[d]) as usize;
                    let passed = t.ray[from][d] & !t.ray[to][d] & !(1 << to);
                    if passed & opp == 0 && own & 1 << to == 0 {
                        list.push(Move {
                            from: from as u8,
                            to: to as u8,
                            capture: opp & 1 << to != 0,
                        });
                    }
                }
            }
        }
    }

    /// The same pieces with the other side to move (for evaluations that compare what
    /// each side could do).
    fn flipped(&self) -> Loa {
        let mut other = self.clone();
        other.pass_turn();
        other
    }

    fn toggle(&mut self, side: Side, sq: usize) {
        self.pieces[side.index()] ^= 1 << sq;
        self.zobrist ^= PIECE_KEYS[side.index()][sq];
    }

    fn pass_turn(&mut self) {
        self.side = self.side.other();
        self.zobrist ^= WHITE_TO_MOVE_KEY;
    }
}

impl Game for Loa {
    type Move = Move;
    type MoveList = MoveList;
    // A pass comes only when there is no other move.
    const MAX_MOVES: usize = MAX_MOVES;
    // Without a move limit (NUS rules) a position can come back.
    const REPEATS: bool = true;

    fn generate_moves(&self, list: &mut MoveList) {
        list.clear();
        self.push_moves(list);
        if list.is_empty() && self.no_move == NoMove::Passes {
            let mut other = self.clone();
            other.side = self.side.other();
            other.push_moves(list);
            // Only a side whose opponent can move passes; otherwise the game is over.
            let opponent_moves = !list.is_empty();
            list.clear();
            if opponent_moves {
                list.push(Move::PASS);
            }
        }
    }

    fn make(&mut self, m: Move) {
        if !m.is_pass() {
            let (from, to) = (m.from(), m.to());
            if m.capture {
                self.toggle(self.side.other(), to);
            }
            self.toggle(self.side, from);
            self.toggle(self.side, to);
        }
        self.pass_turn();
        self.ply += 1;
    }

    fn unmake(&mut self, m: Move) {
        self.pass_turn();
        self.ply -= 1;
        if !m.is_pass() {
            let (from, to) = (m.from(), m.to());
            self.toggle(self.side, to);
            self.toggle(self.side, from);
            if m.capture {
                self.toggle(self.side.other(), to);
            }
        }
    }

    fn decided(&self) -> Option<Outcome> {
        if self.connected(self.side.other()) {
            return Some(Outcome::Loss);
        }
        if self.connected(self.side) {
            return Some(Outcome::Win);
        }
        self.limit
            .is_some_and(|l| self.ply >= l)
            .then_some(Outcome::Draw)
    }

    fn outcome_without_moves(&self) -> Outcome {
        match self.no_move {
            NoMove::Loses => Outcome::Loss,
            // Neither side can move: nothing can change, a tie.
            NoMove::Passes => Outcome::Draw,
        }
    }

    fn hash(&self) -> u64 {
        match self.limit {
            Some(_) => self.zobrist ^ ply_key(self.ply),
            None => self.zobrist,
        }
    }

    fn move_priority(&self, m: Move) -> i32 {
        if m.capture {
            return TACTICAL_PRIORITY;
        }
        if m.is_pass() {
            return 0;
        }
        // Quiet moves towards the centre first: pieces gather there.
        let n = self.size() as i32;
        let (c, r) = (m.to() as i32 % n, m.to() as i32 / n);
        -((2 * c - n + 1).abs() + (2 * r - n + 1).abs())
    }

    fn move_name(&self, m: Move) -> String {
        if m.is_pass() {
            "pass".to_owned()
        } else {
            format!(
                "{}-{}",
                self.square_name(m.from()),
                self.square_name(m.to())
            )
        }
    }

    fn parse_move(&self, text: &str) -> Option<Move> {
        let text = text.trim().to_ascii_lowercase();
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        if text == "pass" {
            return list.as_slice().iter().copied().find(|m| m.is_pass());
        }
        let (from, to) = match text.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None if text.len() == 4 => text.split_at(2),
            None => return None,
        };
        let (from, to) = (self.parse_square(from)?, self.parse_square(to)?);
        list.as_slice()
            .iter()
            .copied()
            .find(|m| !m.is_pass() && m.from() == from && m.to() == to)
    }

    fn move_code(m: Move) -> u16 {
        if m.is_pass() {
            u16::MAX - 1
        } else {
            u16::from(m.from) << 6 | u16::from(m.to)
        }
    }
}

impl fmt::Display for Loa {
    /// The board as printed by the ruleset (CS61B: rank 8 first), then the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.size();
        for line in 0..n {
            let cells: Vec<&str> = (0..n)
                .map(|col| {
                    let bit = 1u64 << Loa::square_of_printed(n, line, col);
                    if self.pieces[0] & bit != 0 {
                        "b"
                    } else if self.pieces[1] & bit != 0 {
                        "w"
                    } else {
                        "-"
                    }
                })
                .collect();
            writeln!(f, "    {}", cells.join(" "))?;
        }
        let side = match self.side {
            Side::Black => "black",
            Side::White => "white",
        };
        write!(f, "Next move: {side} (ply {})", self.ply)
    }
}

impl fmt::Debug for Loa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Loa {0}x{0} {1:?}\n{self}", self.size(), self.no_move)
    }
}

#[cfg(test)]
mod tests;
