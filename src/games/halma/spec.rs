//! Halma in the registry: `--game halma`.

use super::eval::{Distance, Race};
use super::protocol::{EXAMPLES, Input};
use super::{Halma, master};
use crate::spec::{BenchPosition, CourseProgram, Evaluation, GameSpec};

pub struct HalmaSpec;

static EVALUATIONS: [Evaluation<Halma>; 2] = [
    Evaluation {
        name: "race",
        about: "Way left to the goal corner, pieces in the goal camp or still at home, the straggler, the move in hand",
        evaluator: &Race,
    },
    Evaluation {
        name: "distance",
        about: "Way left to the goal corner only",
        evaluator: &Distance,
    },
];

impl GameSpec for HalmaSpec {
    type Game = Halma;
    const NAME: &'static str = "halma";
    const ABOUT: &'static str =
        "Halma 16x16, two players, 19-piece camps (USC CSCI-561 2019 rules, White starts)";
    const SIZES: &'static str = "16x16";
    const DEFAULT_SIZE: &'static str = "16x16";
    const VARIANTS: &'static [&'static str] = &["course"];
    const SIDES: [&'static str; 2] = ["white", "black"];
    const BENCH_EVALUATION: &'static str = "race";
    // Measured: docs/measurements.md, "What the search can fill".
    const STORES_PER_SECOND: u64 = 850_000;

    fn start(size: &str, _variant: &str) -> Result<Halma, String> {
        match size {
            "16x16" => Ok(Halma::start()),
            _ => Err(format!(
                "{size:?} is not a Halma board: use {}",
                Self::SIZES
            )),
        }
    }

    fn evaluations() -> &'static [Evaluation<Halma>] {
        &EVALUATIONS
    }

    fn course_program() -> Option<CourseProgram<Halma>> {
        Some(CourseProgram::Directory(&master::PROTOCOL))
    }

    fn bench_positions() -> Vec<BenchPosition<Halma>> {
        let example3 = Input::parse(EXAMPLES[2].0).expect("the handout's example reads");
        vec![
            BenchPosition {
                name: "start".into(),
                position: Halma::start(),
                depth: 7,
            },
            BenchPosition {
                name: "example 3".into(),
                position: example3.position,
                // A won endgame: every node looks for the win into the last hole.
                depth: 6,
            },
        ]
    }
}
