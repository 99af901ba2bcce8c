//! Lines of Action in the registry: `--game loa`.

use super::{Concentration, DEFAULT_LIMIT, Loa, NoMove};
use crate::games::{BenchPosition, Evaluation, GameSpec};

pub struct LoaSpec;

static EVALUATIONS: [Evaluation<Loa>; 1] = [Evaluation {
    name: "concentration",
    about: "How closely each side's pieces gather round their centre of mass",
    evaluator: &Concentration,
}];

impl GameSpec for LoaSpec {
    type Game = Loa;
    const NAME: &'static str = "loa";
    const ABOUT: &'static str =
        "Lines of Action, 6x6 (NUS CS3243 rules) or 8x8 (CS61B rules: passes, 60-ply tie)";
    const SIZES: &'static str = "6x6 or 8x8";
    const DEFAULT_SIZE: &'static str = "8x8";
    const TOURNAMENT_SIZE: &'static str = "6x6";
    const VARIANTS: &'static [&'static str] = &["course", "nus", "cs61b"];
    const SIDES: [&'static str; 2] = ["black", "white"];
    const BENCH_EVALUATION: &'static str = "concentration";

    fn start(size: &str, variant: &str) -> Result<Loa, String> {
        let n = match size {
            "6x6" => 6,
            "8x8" => 8,
            _ => return Err(format!("{size:?} is not a LOA board: use {}", Self::SIZES)),
        };
        let nus = match variant {
            "nus" => true,
            "cs61b" => false,
            _ => n == 6,
        };
        Ok(if nus {
            Loa::start(n, NoMove::Loses, None)
        } else {
            Loa::start(n, NoMove::Passes, Some(DEFAULT_LIMIT))
        })
    }

    fn evaluations() -> &'static [Evaluation<Loa>] {
        &EVALUATIONS
    }

    fn bench_positions() -> Vec<BenchPosition<Loa>> {
        [("6x6", 8), ("8x8", 7)]
            .into_iter()
            .map(|(size, depth)| BenchPosition {
                name: format!("{size} start"),
                position: Self::start(size, "course").expect("valid bench boards"),
                depth,
            })
            .collect()
    }
}
