//! `bench`: a game's fixed benchmark positions searched to fixed depths, the figures
//! every speed claim refers to.

use std::time::{Duration, Instant};

use crate::game::Game;
use crate::search::{self, Limits, Options, Table};
use crate::spec::{GameSpec, evaluation};

/// One searched bench position.
pub struct BenchLine {
    pub name: String,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub best: String,
    pub score: i32,
}

/// Searches every bench position of `S` to its depth with the evaluation `eval` (the
/// game's bench evaluation if `None`) on `threads` threads, calling `report` after each.
/// One table of `hash_mb` MiB serves every position, emptied before each (outside the
/// timing): a fresh allocation would time the kernel handing out pages.
pub fn run<S: GameSpec>(
    eval: Option<&str>,
    threads: usize,
    hash_mb: usize,
    mut report: impl FnMut(&BenchLine),
) -> Result<Vec<BenchLine>, String> {
    let eval = evaluation::<S>(eval.unwrap_or(S::BENCH_EVALUATION))?;
    let mut lines = Vec::new();
    let options = Options {
        threads,
        ..Options::default()
    };
    let table = Table::new(hash_mb);
    for p in S::bench_positions() {
        table.clear();
        let start = Instant::now();
        let r = search::search_with(
            &p.position,
            eval.evaluator,
            &Limits::depth(p.depth),
            &table,
            &options,
        );
        let line = BenchLine {
            name: p.name,
            depth: r.depth,
            nodes: r.nodes,
            time: start.elapsed(),
            best: r.best_move.map_or("-".into(), |m| p.position.move_name(m)),
            score: r.score,
        };
        report(&line);
        lines.push(line);
    }
    Ok(lines)
}
