//! The fixed benchmark positions that every speed claim refers to.

use std::time::{Duration, Instant};

use crate::agent::EvalKind;
use crate::breakthrough::{Board, BoardSize, Color};
use crate::search::{self, Limits, Options, Table};

/// A named position and the depth `bench` searches it to.
pub struct BenchPosition {
    pub name: &'static str,
    pub diagram: &'static str,
    pub depth: u32,
}

/// Start positions and middle games (most reached by seeded random play) on 5x5,
/// 6x6 and 8x8.
pub const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        name: "5x5 start",
        diagram: "BBBBB BBBBB ..... WWWWW WWWWW",
        depth: 19,
    },
    BenchPosition {
        name: "5x5 middle",
        diagram: "BB.BB .BBB. ..W.. WW.WW W.WWW",
        depth: 19,
    },
    BenchPosition {
        name: "6x6 start",
        diagram: "BBBBBB BBBBBB ...... ...... WWWWWW WWWWWW",
        depth: 15,
    },
    BenchPosition {
        name: "6x6 middle",
        diagram: "BBBBBB B...B. .BBWB. ...... WWWW.W WWWW.W",
        depth: 16,
    },
    BenchPosition {
        name: "8x8 start",
        diagram: "BBBBBBBB BBBBBBBB ........ ........ ........ ........ WWWWWWWW WWWWWWWW",
        depth: 12,
    },
    BenchPosition {
        name: "8x8 opening",
        diagram: "BB.BBBBB BBB.B..B ...B.BB. ..B..... ....W..W ..W..... WW.W.WWW WWWWWWW.",
        depth: 12,
    },
    BenchPosition {
        name: "8x8 middle",
        diagram: ".BBBBBBB B.B..B.. .B.B...B BW..B.B. ...W.W.. ......W. W.W.WWWW WWWWW..W",
        depth: 12,
    },
    BenchPosition {
        name: "8x8 late middle",
        diagram: "BB.B..BB ....BB.. BBB.B.BB ..WB.B.. W..W.... W.WW..WW .W..WW.. ..W.WWWW",
        depth: 12,
    },
];

impl BenchPosition {
    /// The position, white to move; diagrams list rows top (y = height) first.
    pub fn board(&self) -> Board {
        let rows = self
            .diagram
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("\n");
        Board::from_diagram(&rows, Color::White).expect("bench diagrams are valid")
    }

    pub fn size(&self) -> BoardSize {
        self.board().size()
    }
}

/// One searched bench position.
pub struct BenchLine {
    pub name: &'static str,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub best: String,
    pub score: i32,
}

/// Searches every bench position to its depth with `eval` on `threads` threads, calling
/// `report` after each. One table of `hash_mb` MiB serves every position, emptied before
/// each (outside the timing): a fresh allocation would time the kernel handing out pages.
pub fn run(
    eval: EvalKind,
    threads: usize,
    hash_mb: usize,
    mut report: impl FnMut(&BenchLine),
) -> Vec<BenchLine> {
    let mut lines = Vec::new();
    let options = Options {
        threads,
        ..Options::default()
    };
    let table = Table::new(hash_mb);
    for p in POSITIONS {
        let board = p.board();
        table.clear();
        let start = Instant::now();
        let r = search::search_with(
            &board,
            eval.evaluator(),
            &Limits::depth(p.depth),
            &table,
            &options,
        );
        let line = BenchLine {
            name: p.name,
            depth: r.depth,
            nodes: r.nodes,
            time: start.elapsed(),
            best: r.best_move.map_or("-".into(), |m| {
                let (a, b, c, d) = board.move_coords(m);
                format!("(move {a} {b} {c} {d})")
            }),
            score: r.score,
        };
        report(&line);
        lines.push(line);
    }
    lines
}
