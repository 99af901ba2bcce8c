//! Breakthrough as the tools see it: sizes, variants, evaluations and the fixed
//! benchmark positions that every speed claim refers to.

use std::sync::Arc;

use super::eval::{Baseline, Improved, Racing, Tuned};
use super::ggp::BreakthroughRules;
use super::terms::Terms;
use super::{Board, BoardSize, Color, Variant};
use crate::sexpr::Sexpr;
use crate::spec::ggp::GgpRules;
use crate::spec::{BenchPosition, Evaluation, GameSpec};

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
    const TOURNAMENT_SIZE: &'static str = "5x5";
    const VARIANTS: &'static [&'static str] = &["course", "standard"];
    const SIDES: [&'static str; 2] = ["white", "black"];
    // `improved`, so that node counts stay comparable between versions.
    const BENCH_EVALUATION: &'static str = "improved";
    // Measured: docs/measurements.md, "What the search can fill".
    const STORES_PER_SECOND: u64 = 2_600_000;

    fn start(size: &str, variant: &str) -> Result<Board, String> {
        let (size, variant) = size_and_variant(size, variant)?;
        Ok(Board::with_variant(size, variant))
    }

    /// The project's own rules (`gdl/`), the standard variant's with one rule more.
    fn gdl_text(size: &str, variant: &str) -> Option<Result<String, String>> {
        Some(
            size_and_variant(size, variant)
                .map(|(size, variant)| super::gdl::breakthrough_rules_variant(size, variant)),
        )
    }

    fn ggp_notation(rules: &[Sexpr]) -> Option<Arc<dyn GgpRules<Game = Board>>> {
        let terms = Terms::from_rules(rules).ok()?;
        // The engine's colours are the rules' order of play: white, then black.
        (terms.role_index == [0, 1])
            .then(|| Arc::new(BreakthroughRules::new(terms)) as Arc<dyn GgpRules<Game = Board>>)
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
    ) -> crate::spec::ggp::Recognition<Board> {
        super::ggp::recognise(match_id, rules, gdl)
    }

    fn tune(
        files: &[std::path::PathBuf],
        without: &[String],
    ) -> Option<Result<crate::spec::Tuning, String>> {
        Some(super::tune::tune_files(files, without))
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

fn size_and_variant(size: &str, variant: &str) -> Result<(BoardSize, Variant), String> {
    let size: BoardSize = size.parse().map_err(|e| format!("{e}"))?;
    let variant: Variant = variant
        .parse()
        .map_err(|e: <Variant as std::str::FromStr>::Err| e.to_string())?;
    Ok((size, variant))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_reads_and_writes_the_moves_of_the_rules_it_sends() {
        let rules = Breakthrough::ggp_rules("3x5", "course").unwrap().unwrap();
        let notation = Breakthrough::ggp_notation(&rules).unwrap();
        assert_eq!(notation.roles(), ["white", "black"]);
        assert_eq!(notation.seats(), [0, 1]);
        let board = Board::new("3x5".parse().unwrap());
        let first = notation.substitute(&board).unwrap();
        assert_eq!(
            notation.move_term(&board, first).to_string(),
            "(move 1 2 1 3)"
        );
        let term = Sexpr::parse("(MOVE 2 2 2 3)").unwrap();
        let m = notation.parse_move(&board, &term).unwrap();
        assert_eq!(notation.move_term(&board, m).to_string(), "(move 2 2 2 3)");
        let diagonal = Sexpr::parse("(move 1 2 2 3)").unwrap();
        let err = notation.parse_move(&board, &diagonal).unwrap_err();
        assert!(err.contains("illegal"), "{err}");
        assert!(notation.is_noop(&Sexpr::atom("NOOP")));
        // The standard variant's rules, and sizes or variants the game does not have.
        assert!(Breakthrough::ggp_rules("3x5", "standard").unwrap().is_ok());
        assert!(Breakthrough::ggp_rules("12x5", "course").unwrap().is_err());
        assert!(Breakthrough::ggp_rules("5x5", "chess").unwrap().is_err());
    }
}
