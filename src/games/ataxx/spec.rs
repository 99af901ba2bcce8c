//! Ataxx in the registry: `--game ataxx`.

use super::eval::{Material, Positional, Tuned, WEIGHTS};
use super::{Ataxx, Side};
use crate::spec::{BenchPosition, CourseProgram, Evaluation, GameSpec};

pub struct AtaxxSpec;

/// The first is the default: `tuned` won an SPRT against `positional` at 1 s a move.
static EVALUATIONS: [Evaluation<Ataxx>; 3] = [
    Evaluation {
        name: "tuned",
        about: "`positional`'s terms, squares only a jump reaches, stable pieces, parity, \
                tempo and the piece difference near the turn limit, with opening and ending \
                weights fitted to self-play results (`tune`)",
        evaluator: &Tuned(&super::weights::WEIGHTS),
    },
    Evaluation {
        name: "positional",
        about: "Pieces, plus the best conversion waiting, exposed and safe pieces and \
                holes next to own pieces, fading near the turn limit",
        evaluator: &Positional(WEIGHTS),
    },
    Evaluation {
        name: "material",
        about: "The piece difference",
        evaluator: &Material,
    },
];

/// A middle game reached by play (black to move at ply 20) and an ending with few empty
/// squares: the bench covers the wide middle and the narrow end.
const MIDDLE_GAME: &str = "
    1:1:1:0:0:2:2:
    1:1:0:0:2:2:2:
    1:0:0:0:0:2:0:
    0:0:0:0:0:0:0:
    0:2:0:0:1:0:0:
    2:2:2:0:1:1:1:
    2:2:0:0:0:1:1:";
const ENDING: &str = "
    1:1:1:2:2:2:2:
    1:1:1:2:2:0:2:
    1:1:0:1:2:2:2:
    1:2:2:1:1:0:2:
    2:2:0:1:1:1:1:
    2:2:2:0:1:1:1:
    2:2:2:1:0:1:1:";

impl GameSpec for AtaxxSpec {
    type Game = Ataxx;
    const NAME: &'static str = "ataxx";
    const ABOUT: &'static str =
        "Ataxx Reloaded 7x7 (NUS CS3243 rules: no knight jumps, straight 3-jumps, 100 turns)";
    const SIZES: &'static str = "7x7";
    const DEFAULT_SIZE: &'static str = "7x7";
    const VARIANTS: &'static [&'static str] = &["course"];
    const SIDES: [&'static str; 2] = ["black", "white"];
    const BENCH_EVALUATION: &'static str = "positional";
    // Measured: docs/measurements.md, "What the search can fill".
    const STORES_PER_SECOND: u64 = 1_300_000;

    fn start(size: &str, _variant: &str) -> Result<Ataxx, String> {
        match size {
            "7x7" => Ok(Ataxx::start()),
            _ => Err(format!(
                "{size:?} is not an Ataxx board: use {}",
                Self::SIZES
            )),
        }
    }

    fn evaluations() -> &'static [Evaluation<Ataxx>] {
        &EVALUATIONS
    }

    fn course_program() -> Option<CourseProgram<Ataxx>> {
        Some(CourseProgram::Request(&super::nus::PROTOCOL))
    }

    fn bench_positions() -> Vec<BenchPosition<Ataxx>> {
        let board = |text: &str, ply| {
            let (black, white) = super::text::parse_course_board(text).expect("valid bench boards");
            Ataxx::new(black, white, Side::Black, ply)
        };
        vec![
            BenchPosition {
                name: "start".into(),
                position: Ataxx::start(),
                depth: 9,
            },
            BenchPosition {
                name: "middle game".into(),
                position: board(MIDDLE_GAME, 20),
                depth: 8,
            },
            BenchPosition {
                name: "ending".into(),
                position: board(ENDING, 80),
                depth: 10,
            },
        ]
    }

    fn perft(position: &mut Ataxx, depth: u32) -> u64 {
        position.perft_pairs(depth)
    }

    fn tune(
        files: &[std::path::PathBuf],
        without: &[String],
    ) -> Option<Result<crate::spec::Tuning, String>> {
        Some(super::tune::tune_files(files, without))
    }

    fn training_line(position: &Ataxx, first_score: f64, game: u64) -> Option<String> {
        let sample = super::tune::Sample {
            position: position.clone(),
            black_score: first_score,
            game,
        };
        Some(sample.to_line())
    }
}
