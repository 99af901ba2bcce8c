//! Quick evaluation matches inside one process: two evaluations play each other at a
//! fixed search depth from many random openings, each opening once with each colour.
//!
//! Fixed depth makes the games independent of the machine's load and of time
//! management, so differences come from the evaluations alone; that is what tuning an
//! evaluation needs (thousands of games in minutes). Claims about the player's strength
//! are measured with the referee (`tournament`), at real clocks.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::game::{self, Game, Outcome};
use crate::referee::stats::Wdl;
use crate::search::{self, Limits, Options, Table};
use crate::spec::{GameSpec, evaluation, start};

#[derive(Clone, Debug, clap::Args)]
pub struct SelfplayConfig {
    /// The evaluation under test (the game's names; e.g. tuned, improved, racing or
    /// baseline for Breakthrough).
    pub first: String,
    /// The evaluation it is compared with.
    pub second: String,
    /// Board size (the game's default if absent; WIDTHxHEIGHT for Breakthrough).
    #[arg(long)]
    pub size: Option<String>,
    /// Rules variant (the game's default if absent).
    #[arg(long)]
    pub variant: Option<String>,
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
    /// A game still going after this many plies is scored a draw (in a game whose
    /// positions repeat, play could go round forever).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_plies: u32,
    /// Games played at once (default: all cores).
    #[arg(skip = std::thread::available_parallelism().map_or(1, |n| n.get()))]
    pub workers: usize,
}

/// Receives a finished game's positions as lines of training data.
pub type Recorder<'a> = &'a (dyn Fn(&[String]) + Sync);

/// A positions file that `selfplay --record` appends to, shared by every worker: a
/// game's lines go in together, and a write that fails is reported at the end rather
/// than stopping the games.
pub struct PositionsFile {
    writer: Mutex<BufWriter<File>>,
    failed: AtomicBool,
}

impl PositionsFile {
    /// Opens `path` to append to it (creating it if need be).
    pub fn append(path: &Path) -> Result<PositionsFile, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open {} to record positions: {e}", path.display()))?;
        Ok(PositionsFile {
            writer: Mutex::new(BufWriter::new(file)),
            failed: AtomicBool::new(false),
        })
    }

    /// Appends one game's lines (a [`Recorder`]).
    pub fn record(&self, lines: &[String]) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if !lines.iter().all(|l| writeln!(w, "{l}").is_ok()) {
            self.failed.store(true, Ordering::Relaxed);
        }
    }

    /// Flushes the file; an error if any write failed.
    pub fn finish(self) -> Result<(), String> {
        let mut w = self.writer.into_inner().unwrap_or_else(|e| e.into_inner());
        if w.flush().is_err() || self.failed.into_inner() {
            return Err("writing the positions failed; the file may be incomplete".into());
        }
        Ok(())
    }
}

/// What `run` would refuse, found before anything is started or written: unknown
/// evaluations, a bad board or variant, or recording a game that has no training data.
pub fn check<S: GameSpec>(config: &SelfplayConfig, recording: bool) -> Result<(), String> {
    evaluation::<S>(&config.first)?;
    evaluation::<S>(&config.second)?;
    let start = start::<S>(config.size.as_deref(), config.variant.as_deref())?;
    if recording && S::training_line(&start, 0.5, 0).is_none() {
        return Err(format!(
            "{} has no evaluation to fit: nothing to record",
            S::NAME
        ));
    }
    Ok(())
}

/// Plays the match in game `S`; returns `first`'s wins, draws and losses. `progress` is
/// called after each game with the running totals; `record`, if given, with the game's
/// positions as lines of training data (the input of `tune`; an error for a game without
/// any).
pub fn run<S: GameSpec>(
    config: &SelfplayConfig,
    progress: impl Fn(&Wdl) + Sync,
    record: Option<Recorder<'_>>,
) -> Result<Wdl, String> {
    check::<S>(config, record.is_some())?;
    let first = evaluation::<S>(&config.first)?.evaluator;
    let second = evaluation::<S>(&config.second)?.evaluator;
    let start = start::<S>(config.size.as_deref(), config.variant.as_deref())?;
    let openings = openings(&start, config);
    if openings.is_empty() {
        return Err(format!(
            "no games played: every random opening of {} plies ended the game (take fewer \
             --opening-plies)",
            config.opening_plies
        ));
    }
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
                    // The first evaluation plays the side that moves first from the start
                    // in even games, the other side in odd ones.
                    let first_starts = i.is_multiple_of(2);
                    let evals = if first_starts {
                        [first, second]
                    } else {
                        [second, first]
                    };
                    let (starter_score, positions) = play(config, &openings[i / 2], evals, &table);
                    if let Some(record) = record {
                        // Both games of an opening share its number, so that `tune` never
                        // trains on one and tests on the other.
                        let lines: Vec<String> = positions
                            .iter()
                            .filter_map(|p| S::training_line(p, starter_score, (i / 2) as u64))
                            .collect();
                        record(&lines);
                    }
                    let score = if first_starts {
                        starter_score
                    } else {
                        1.0 - starter_score
                    };
                    let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
                    t.add(score);
                    progress(&t);
                }
            });
        }
    });
    Ok(total.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// A position and whether the side to move is the one that moved first from the start.
struct Opening<G> {
    position: G,
    starter_to_move: bool,
}

/// Distinct random openings that leave the game undecided.
fn openings<G: Game>(start: &G, config: &SelfplayConfig) -> Vec<Opening<G>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut attempts = 0;
    while out.len() < config.openings as usize && attempts < config.openings * 100 {
        attempts += 1;
        let (position, line) = game::random_line(start, config.opening_plies, &mut rng);
        let starter_to_move = line.len().is_multiple_of(2);
        if game::result(&position).is_none() && seen.insert(position.hash()) {
            out.push(Opening {
                position,
                starter_to_move,
            });
        }
    }
    out
}

/// One game from `opening`, `evals[0]` playing the side that moved first from the start;
/// returns that side's score (1, 0.5 or 0) and the positions of the game (the finished
/// one excluded).
fn play<G: Game>(
    config: &SelfplayConfig,
    opening: &Opening<G>,
    evals: [&dyn crate::game::Evaluator<G>; 2],
    table: &Table,
) -> (f64, Vec<G>) {
    let mut position = opening.position.clone();
    let mut starter_to_move = opening.starter_to_move;
    let mut positions = Vec::new();
    let limits = Limits::depth(config.depth);
    // In a game that repeats, the search knows the positions played, so that neither side
    // walks into a repetition by accident.
    let mut options = Options::default();
    for ply in 0.. {
        if ply == config.max_plies {
            return (0.5, positions);
        }
        if let Some(outcome) = game::result(&position) {
            let mover_score = match outcome {
                Outcome::Win => 1.0,
                Outcome::Draw => 0.5,
                Outcome::Loss => 0.0,
            };
            let score = if starter_to_move {
                mover_score
            } else {
                1.0 - mover_score
            };
            return (score, positions);
        }
        let eval = evals[usize::from(!starter_to_move)];
        // A fresh table per move: no memory of the other side's searches.
        table.clear();
        let r = search::search_with(&position, eval, &limits, table, &options);
        let Some(m) = r.best_move else {
            return (0.5, positions); // Unreachable: a game that is not over has a move.
        };
        if G::REPEATS {
            options.earlier.push(position.hash());
        }
        positions.push(position.clone());
        position.make(m);
        starter_to_move = !starter_to_move;
    }
    unreachable!("the loop returns at max_plies")
}
