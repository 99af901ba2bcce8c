//! The solved openings of Breakthrough: for the boards this project has solved, the start
//! position's value and the first moves that keep it, and the same for every position
//! after white's first move. `solve --openings 1` writes the lines of `solved.jsonl`
//! (`scripts/solved-openings.py` runs it for every board); the player then never gives
//! away a proven draw or win in the first two plies, where its own search is furthest
//! from seeing the end. Boards whose start alone took a long solve (a quarter of an hour
//! to hours) are tabled from their proof's principal line instead: the one position of the
//! first two plies where the line's move is proven to keep the value (the start, or
//! after white's first move when black wins), with that move alone (`line_only`).
//!
//! Moves are kept in the game's notation and found again among the legal moves of their
//! position when the table is first read, so the table does not depend on how moves are
//! coded.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Board, BoardSize, Move, Variant};
use crate::game::{Game, Outcome};
use crate::search::SolvedOpening;

/// The table as `solve --openings` prints it, one position per line.
const TABLE: &str = include_str!("solved.jsonl");

/// A tabled position, its value for the side to move and the moves that keep it.
struct Solved {
    board: Board,
    value: Outcome,
    keeping: Vec<Move>,
    line_only: bool,
}

/// A board the table covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tabled {
    pub width: u8,
    pub height: u8,
    pub variant: Variant,
    /// The positions tabled.
    pub positions: usize,
    /// Tabled from a proof's principal line only (see the module doc).
    pub line_only: bool,
}

/// The table's positions by board and variant.
type Positions = HashMap<(u8, u8, Variant), Vec<Solved>>;

fn positions() -> &'static Positions {
    static PARSED: OnceLock<Positions> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut map = Positions::new();
        for line in TABLE.lines().filter(|l| !l.trim().is_empty()) {
            // The table's test reads every line; a line this build could not read would
            // only be left out here.
            if let Some((key, solved)) = parse(line) {
                map.entry(key).or_default().push(solved);
            }
        }
        map
    })
}

/// One line of the table: its board and variant, and the position it tables.
fn parse(line: &str) -> Option<((u8, u8, Variant), Solved)> {
    let p = serde_json::from_str::<SolvedOpening>(line).ok()?;
    let (w, h) = p.board.split_once('x')?;
    let size = BoardSize::new(w.parse().ok()?, h.parse().ok()?).ok()?;
    let variant: Variant = p.variant.parse().ok()?;
    let mut board = Board::with_variant(size, variant);
    for name in &p.after {
        let m = board.parse_move(name)?;
        board.make(m);
    }
    let keeping = p
        .keeping
        .iter()
        .map(|name| board.parse_move(name))
        .collect::<Option<Vec<_>>>()?;
    let key = (size.width(), size.height(), variant);
    Some((
        key,
        Solved {
            board,
            value: p.value,
            keeping,
            line_only: p.line_only,
        },
    ))
}

/// The value of `board` for the side to move and the moves that keep it, if the table
/// holds the position.
pub fn lookup(board: &Board) -> Option<(Outcome, Vec<Move>)> {
    let geo = board.geometry();
    positions()
        .get(&(geo.width(), geo.height(), geo.variant))?
        .iter()
        .find(|s| s.board == *board)
        .map(|s| (s.value, s.keeping.clone()))
}

/// Every board and variant the table covers, and the number of lines it holds (which the
/// table's test compares with the positions read).
pub fn boards() -> (Vec<Tabled>, usize) {
    let mut all: Vec<_> = positions()
        .iter()
        .map(|(&(width, height, variant), p)| Tabled {
            width,
            height,
            variant,
            positions: p.len(),
            line_only: p.iter().any(|s| s.line_only),
        })
        .collect();
    all.sort_by_key(|b| {
        let (w, h) = (u32::from(b.width), u32::from(b.height));
        (b.variant.name(), w * h, h, w)
    });
    let lines = TABLE.lines().filter(|l| !l.trim().is_empty()).count();
    (all, lines)
}

/// The size of the table's text built into the program, in bytes.
pub fn text_bytes() -> usize {
    TABLE.len()
}
