//! Walk in the registry: `--game walk`.

use std::sync::Arc;

use super::{Graph, Mobility, Walk};
use crate::game::Evaluator;
use crate::spec::{BenchPosition, Evaluation, GameSpec};

pub struct WalkSpec;

/// Scores every position alike: a search with it only sees the end of the game.
pub struct Blind;

impl Evaluator<Walk> for Blind {
    fn evaluate(&self, _: &Walk) -> i32 {
        0
    }
}

static EVALUATIONS: [Evaluation<Walk>; 2] = [
    Evaluation {
        name: "mobility",
        about: "Edges of one's own out of the token's node, less the opponent's",
        evaluator: &Mobility,
    },
    Evaluation {
        name: "blind",
        about: "Every position alike (only the end of the game counts)",
        evaluator: &Blind,
    },
];

/// The seed of the graphs `N` names.
const SEED: u64 = 1;
/// The most edges a node of those graphs has.
const DEGREE: u16 = 6;

impl GameSpec for WalkSpec {
    type Game = Walk;
    const NAME: &'static str = "walk";
    const ABOUT: &'static str =
        "Walk, a toy game on a graph that tests repetitions, passes, ply limits and wide nodes";
    const SIZES: &'static str =
        "N: a random graph of N nodes (3-1000), or starN: a hub with N spokes (1-400)";
    const DEFAULT_SIZE: &'static str = "40";
    const VARIANTS: &'static [&'static str] = &["free", "limit40"];
    const SIDES: [&'static str; 2] = ["white", "black"];
    const TEST_GAME: bool = true;
    const BENCH_EVALUATION: &'static str = "mobility";
    // Not measured (its searches end at once): Breakthrough's, the fastest game's.
    const STORES_PER_SECOND: u64 = 2_600_000;

    fn start(size: &str, variant: &str) -> Result<Walk, String> {
        let bad = || format!("{size:?} is not a Walk board: expected {}", Self::SIZES);
        let graph = match size.strip_prefix("star") {
            Some(n) => match n.parse::<u16>() {
                Ok(n) if (1..=400).contains(&n) => Graph::star(n),
                _ => return Err(bad()),
            },
            None => match size.parse::<u16>() {
                Ok(n) if (3..=1000).contains(&n) => Graph::random(SEED, n, DEGREE),
                _ => return Err(bad()),
            },
        };
        let limit = (variant == "limit40").then_some(40);
        Ok(Walk::new(Arc::new(graph), limit))
    }

    fn evaluations() -> &'static [Evaluation<Walk>] {
        &EVALUATIONS
    }

    fn bench_positions() -> Vec<BenchPosition<Walk>> {
        [
            ("40", "free", 30),
            ("40", "limit40", 40),
            ("star300", "free", 8),
        ]
        .into_iter()
        .map(|(size, variant, depth)| BenchPosition {
            name: format!("{size} {variant}"),
            position: Self::start(size, variant).expect("valid bench boards"),
            depth,
        })
        .collect()
    }
}
