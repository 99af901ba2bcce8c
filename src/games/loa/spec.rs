//! Lines of Action in the registry: `--game loa6` (the NUS 6×6 assignment) and
//! `--game loa8` (CS61B's 8×8 one), one engine under two names so that each course's
//! rules are the default of its own board.

use super::eval::{Concentration, Structure};
use super::{DEFAULT_LIMIT, Loa, NoMove};
use crate::spec::{BenchPosition, CourseProgram, Evaluation, GameSpec};

static EVALUATIONS: [Evaluation<Loa>; 2] = [
    Evaluation {
        name: "structure",
        about: "Spread, groups, neighbours, centre and edge of each side's pieces",
        evaluator: &Structure,
    },
    Evaluation {
        name: "concentration",
        about: "How closely each side's pieces gather round their centre of mass",
        evaluator: &Concentration,
    },
];

/// The position of `n`×`n` LOA under the ruleset `variant` (`nus` or `cs61b`).
fn start(n: usize, size: &str, sizes: &str, variant: &str) -> Result<Loa, String> {
    if size != format!("{n}x{n}") {
        return Err(format!("{size:?} is not this LOA's board: use {sizes}"));
    }
    Ok(if variant == "nus" {
        Loa::start(n, NoMove::Loses, None)
    } else {
        Loa::start(n, NoMove::Passes, Some(DEFAULT_LIMIT))
    })
}

/// The start of `n`×`n` searched to `depth` under the spec's default rules.
fn bench(n: usize, rules: &str, depth: u32) -> Vec<BenchPosition<Loa>> {
    let size = format!("{n}x{n}");
    vec![BenchPosition {
        name: format!("{size} start"),
        position: start(n, &size, &size, rules).expect("the bench board is valid"),
        depth,
    }]
}

/// NUS CS3243 (2007): 6×6, a side without a move loses, no move limit.
pub struct Loa6;

impl GameSpec for Loa6 {
    type Game = Loa;
    const NAME: &'static str = "loa6";
    const ABOUT: &'static str =
        "Lines of Action 6x6, NUS CS3243 rules (no move loses; variant cs61b: passes, 60-ply tie)";
    const SIZES: &'static str = "6x6";
    const DEFAULT_SIZE: &'static str = "6x6";
    const VARIANTS: &'static [&'static str] = &["nus", "cs61b"];
    const SIDES: [&'static str; 2] = ["black", "white"];
    const BENCH_EVALUATION: &'static str = "concentration";
    // The figure the `loa6` program's 16 MiB table and its answer times were measured
    // with (docs/measurements.md, "What the search can fill"); 726,000 measured since.
    const STORES_PER_SECOND: u64 = 400_000;

    fn start(size: &str, variant: &str) -> Result<Loa, String> {
        start(6, size, Self::SIZES, variant)
    }

    fn evaluations() -> &'static [Evaluation<Loa>] {
        &EVALUATIONS
    }

    fn bench_positions() -> Vec<BenchPosition<Loa>> {
        bench(6, Self::VARIANTS[0], 8)
    }

    fn course_program() -> Option<CourseProgram<Loa>> {
        Some(CourseProgram::Request(&super::nus::PROTOCOL))
    }
}

/// CS61B (Spring 2020): 8×8, a side without a move passes, a tie after 60 plies.
pub struct Loa8;

impl GameSpec for Loa8 {
    type Game = Loa;
    const NAME: &'static str = "loa8";
    const ABOUT: &'static str = "Lines of Action 8x8, CS61B rules (passes, 60-ply tie; variant nus: no move loses, no limit)";
    const SIZES: &'static str = "8x8";
    const DEFAULT_SIZE: &'static str = "8x8";
    const VARIANTS: &'static [&'static str] = &["cs61b", "nus"];
    const SIDES: [&'static str; 2] = ["black", "white"];
    const BENCH_EVALUATION: &'static str = "concentration";
    // Measured: docs/measurements.md, "What the search can fill".
    const STORES_PER_SECOND: u64 = 650_000;

    fn start(size: &str, variant: &str) -> Result<Loa, String> {
        start(8, size, Self::SIZES, variant)
    }

    fn evaluations() -> &'static [Evaluation<Loa>] {
        &EVALUATIONS
    }

    fn bench_positions() -> Vec<BenchPosition<Loa>> {
        bench(8, Self::VARIANTS[0], 7)
    }

    fn course_program() -> Option<CourseProgram<Loa>> {
        Some(CourseProgram::Interactive(&super::cs61b::PROTOCOL))
    }
}
