//! Quick evaluation matches inside one process: two evaluations play each other at a
//! fixed search depth from many random openings, each opening once with each colour.
//!
//! Fixed depth makes the games independent of the machine's load and of time
//! management, so differences come from the evaluations alone; that is what tuning an
//! evaluation needs (thousands of games in minutes). Claims about the player's strength
//! are measured with the referee (`tournament`), at real clocks.

use std::thread;

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::agent::EvalKind;
use crate::breakthrough::{Board, BoardSize, Color, MoveList};
use crate::referee::stats::Wdl;
use crate::search::{self, Limits, Options, Table};
use crate::tune::Sample;

#[derive(Clone, Debug, clap::Args)]
pub struct SelfplayConfig {
    /// The evaluation under test.
    pub first: EvalKind,
    /// The evaluation it is compared with.
    pub second: EvalKind,
    /// Board size WIDTHxHEIGHT.
    #[arg(long, default_value = "8x8")]
    pub size: BoardSize,
    /// Search depth of every move.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub depth: u32,
    /// Random openings; each is played twice, colours swapped.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub openings: u32,
    /// Random plies in each opening.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=20))]
    pub opening_plies: u32,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (default: all cores).
    #[arg(skip = std::thread::available_parallelism().map_or(1, |n| n.get()))]
    pub workers: usize,
}

/// Plays the match; returns `first`'s wins, draws and losses. `progress` is called after
/// each game with the running totals, `record` with the game's positions (the training
/// data of `tune`).
pub fn run(
    config: &SelfplayConfig,
    progress: impl Fn(&Wdl) + Sync,
    record: impl Fn(&[Sample]) + Sync,
) -> Wdl {
    let openings = openings(config);
    let total = std::sync::Mutex::new(Wdl::default());
    let next = std::sync::atomic::AtomicUsize::new(0);
    thread::scope(|s| {
        for _ in 0..config.workers.max(1) {
            s.spawn(|| {
                let table = Table::new(4);
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= openings.len() * 2 {
                        break;
                    }
                    let first_is_white = i.is_multiple_of(2);
                    let (score, positions) = play(config, &openings[i / 2], first_is_white, &table);
                    let white_score = if first_is_white { score } else { 1.0 - score };
                    let samples: Vec<Sample> = positions
                        .into_iter()
                        .map(|board| Sample {
                            board,
                            white_score,
                            // Both games of an opening share its number, so that
                            // `tune` never trains on one and tests on the other.
                            game: (i / 2) as u64,
                        })
                        .collect();
                    record(&samples);
                    let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
                    t.add(score);
                    progress(&t);
                }
            });
        }
    });
    total.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Distinct random openings that leave the game undecided.
fn openings(config: &SelfplayConfig) -> Vec<Board> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut attempts = 0;
    while out.len() < config.openings as usize && attempts < config.openings * 100 {
        attempts += 1;
        let mut board = Board::new(config.size);
        let mut list = MoveList::default();
        for _ in 0..config.opening_plies {
            board.generate_moves(&mut list);
            let moves: Vec<_> = list.iter().collect();
            match moves.choose(&mut rng) {
                Some(&m) => board.make(m),
                None => break,
            }
        }
        if board.result().is_none() && seen.insert(board.hash()) {
            out.push(board);
        }
    }
    out
}

/// One game from `opening`; returns the first evaluation's score (1, 0.5 or 0) and the
/// positions of the game (the finished one excluded).
fn play(
    config: &SelfplayConfig,
    opening: &Board,
    first_is_white: bool,
    table: &Table,
) -> (f64, Vec<Board>) {
    let mut board = opening.clone();
    let mut positions = Vec::new();
    let limits = Limits::depth(config.depth);
    let options = Options::default();
    loop {
        if let Some(result) = board.result() {
            let first = if first_is_white {
                Color::White
            } else {
                Color::Black
            };
            let score = match result {
                Some(winner) if winner == first => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            return (score, positions);
        }
        let white_to_move = board.side_to_move() == Color::White;
        let eval = if white_to_move == first_is_white {
            config.first
        } else {
            config.second
        };
        // A fresh table per move: no memory of the other side's searches.
        table.clear();
        let r = search::search_with(&board, eval.evaluator(), &limits, table, &options);
        let Some(m) = r.best_move else {
            return (0.5, positions); // Unreachable: a game that is not over has a move.
        };
        positions.push(board.clone());
        board.make(m);
    }
}
