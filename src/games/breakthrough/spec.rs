//! Breakthrough as the tools see it: sizes, variants, evaluations and the fixed
//! benchmark positions that every speed claim refers to.

use super::eval::{Baseline, Improved, Racing, Tuned};
use super::{Board, BoardSize, Color, Variant};
use crate::games::{BenchPosition, Evaluation, GameSpec};

/// Breakthrough in the registry.
pub struct Breakthrough;

static EVALUATIONS: [Evaluation<Board>; 4] = [
    Evaluation {
        name: "tuned",
        about: "Pawns by distance to goal, guards, defended/hanging/exchanged pawns and races, weighted by a fit to self-play results (`tune`)",
        evaluator: &Tuned,
    },
    Evaluation {
        name: "improved",
        about: "Material, advancement, defended and hanging pawns, home-row guards",
        evaluator: &Improved,
    },
    Evaluation {
        name: "racing",
        about: "`improved` plus pawn races: unstoppable runners, who arrives first",
        evaluator: &Racing,
    },
    Evaluation {
        name: "baseline",
        about: "The course's evaluation: distances of the most advanced pawns to the goal rows",
        evaluator: &Baseline,
    },
];

impl GameSpec for Breakthrough {
    type Game = Board;
    const NAME: &'static str = "breakthrough";
    const ABOUT: &'static str = "Breakthrough, 2x4 to 10x10, course or standard rules";
    const SIZES: &'static str = "WIDTHxHEIGHT, width 2-10, height 4-10 (e.g. 8x8)";
    const DEFAULT_SIZE: &'static str = "8x8";
    const VARIANTS: &'static [&'static str] = &["course", "standard"];
    const SIDES: [&'static str; 2] = ["white", "black"];
    // `improved`, so that node counts stay comparable between versions.
    const BENCH_EVALUATION: &'static str = "improved";

    fn start(size: &str, variant: &str) -> Result<Board, String> {
        let size: BoardSize = size.parse().map_err(|e| format!("{e}"))?;
        let variant: Variant = variant
            .parse()
            .map_err(|e: <Variant as std::str::FromStr>::Err| e.to_string())?;
        Ok(Board::with_variant(size, variant))
    }

    fn evaluations() -> &'static [Evaluation<Board>] {
        &EVALUATIONS
    }

    fn bench_positions() -> Vec<BenchPosition<Board>> {
        POSITIONS
            .iter()
            .map(|p| BenchPosition {
                name: p.name.to_owned(),
                position: p.board(),
                depth: p.depth,
            })
            .collect()
    }

    fn recognise_ggp(
        match_id: &str,
        rules: &[crate::sexpr::Sexpr],
        gdl: Result<&crate::gdl::Gdl, &crate::gdl::GdlError>,
    ) -> crate::games::ggp::Recognition<Board> {
        super::ggp::recognise(match_id, rules, gdl)
    }

    fn perft(position: &mut Board, depth: u32) -> u64 {
        super::perft::perft(position, depth)
    }

    fn training_line(position: &Board, first_score: f64, game: u64) -> Option<String> {
        let sample = crate::games::breakthrough::tune::Sample {
            board: position.clone(),
            white_score: first_score,
            game,
        };
        Some(sample.to_line())
    }
}

/// A benchmark position written as a diagram, and the depth `bench` searches it to.
pub struct Diagram {
    pub name: &'static str,
    pub diagram: &'static str,
    pub depth: u32,
}

/// Start positions and middle games (most reached by seeded random play) on 5x5,
/// 6x6 and 8x8.
pub const POSITIONS: &[Diagram] = &[
    Diagram {
        name: "5x5 start",
        diagram: "BBBBB BBBBB ..... WWWWW WWWWW",
        depth: 19,
    },
    Diagram {
        name: "5x5 middle",
        diagram: "BB.BB .BBB. ..W.. WW.WW W.WWW",
        depth: 19,
    },
    Diagram {
        name: "6x6 start",
        diagram: "BBBBBB BBBBBB ...... ...... WWWWWW WWWWWW",
        depth: 15,
    },
    Diagram {
        name: "6x6 middle",
        diagram: "BBBBBB B...B. .BBWB. ...... WWWW.W WWWW.W",
        depth: 16,
    },
    Diagram {
        name: "8x8 start",
        diagram: "BBBBBBBB BBBBBBBB ........ ........ ........ ........ WWWWWWWW WWWWWWWW",
        depth: 12,
    },
    Diagram {
        name: "8x8 opening",
        diagram: "BB.BBBBB BBB.B..B ...B.BB. ..B..... ....W..W ..W..... WW.W.WWW WWWWWWW.",
        depth: 12,
    },
    Diagram {
        name: "8x8 middle",
        diagram: ".BBBBBBB B.B..B.. .B.B...B BW..B.B. ...W.W.. ......W. W.W.WWWW WWWWW..W",
        depth: 12,
    },
    Diagram {
        name: "8x8 late middle",
        diagram: "BB.B..BB ....BB.. BBB.B.BB ..WB.B.. W..W.... W.WW..WW .W..WW.. ..W.WWWW",
        depth: 12,
    },
];

impl Diagram {
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
