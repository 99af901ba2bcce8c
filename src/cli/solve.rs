//! `solve`: a board's value from its start or from a position after given moves.

use std::path::PathBuf;

use ggp_player::agent::DEFAULT_HASH_MB;
use ggp_player::games;
use ggp_player::solve::{SolveJob, SolverKind};
use ggp_player::spec::{GameSpec, Tool};

use super::{GameArgs, parse_hash_mb, parse_seconds};

#[derive(clap::Args)]
pub struct SolveArgs {
    /// Board size: WIDTHxHEIGHT for Breakthrough, width 2-10, height 4-10 (e.g. 5x5).
    pub size: String,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    pub time: f64,
    /// Also give up after this many nodes (all threads together, counted in steps of
    /// 4096): a budget that, on one thread, stops at the same place at any load.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Print the answer as one line of JSON: the board, variant, moves (--after), the
    /// side to move, its value (win, draw, loss or, when --time or --nodes ran out first,
    /// unknown, which is then no error), nodes, seconds, a line that keeps the value, the
    /// legal moves at the position and what is known of the position after each, its
    /// key, and the positions below it whose proofs cost the solve most.
    #[arg(long)]
    pub json: bool,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = DEFAULT_HASH_MB, value_parser = parse_hash_mb)]
    pub hash_mb: usize,
    /// The solver: alpha-beta over the three outcomes, or df-pn (depth-first
    /// proof-number search; games whose positions never repeat).
    #[arg(long, value_enum, default_value_t = SolverKind::Alphabeta)]
    pub solver: SolverKind,
    /// Threads (all cores by default).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Save the solve to FILE now and then, when it stops and on Ctrl-C; if FILE is
    /// there, resume from it (the same command carries on where it stopped, with the
    /// saved table's size). The file is as large as the table.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between two saves of --checkpoint.
    #[arg(long, default_value_t = 600.0, value_parser = parse_seconds)]
    pub checkpoint_every: f64,
    /// Alpha-beta: also solve every position up to PLIES (0, 1 or 2) moves from the start and
    /// print, for the start and each of them, the moves that keep its value, one JSON
    /// line each (the source of the player's table of solved openings). --time covers
    /// the whole run.
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(0..=2))]
    pub openings: Option<u32>,
    /// Positions proven already (by other solves), one JSON object a line as `--json`
    /// reports a child: {"key": ..., "at_least": ..., "at_most": ...}, the key as
    /// `--json` gives it, the bounds for the side to move there. The solve takes them as
    /// proven wherever it meets them, by any line or as their mirror images (alpha-beta
    /// without --checkpoint only).
    #[arg(long, value_name = "FILE")]
    pub known: Option<PathBuf>,
    /// Solve the position after this move instead of the start, in the game's
    /// notation (e.g. "(move 1 2 1 3)"); repeat it for each move, in order.
    #[arg(long, value_name = "MOVE")]
    pub after: Vec<String>,
    #[command(flatten)]
    pub game: GameArgs,
}

pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let job = SolveJob {
        game: &args.game.game,
        size: &args.size,
        variant: args.game.variant.as_deref(),
        after: &args.after,
        time: args.time,
        hash_mb: args.hash_mb,
        solver: args.solver,
        threads: args.threads.map_or(cores, |t| t as usize),
        checkpoint: args.checkpoint.as_deref(),
        checkpoint_every: args.checkpoint_every,
        openings: args.openings,
        max_nodes: args.nodes,
        json: args.json,
        known: args.known.as_deref(),
    };
    games::dispatch(&args.game.game, Solve(job))?.map_err(anyhow::Error::msg)
}

/// `solve` on the game asked for.
struct Solve<'a>(SolveJob<'a>);

impl Tool for Solve<'_> {
    type Output = Result<(), String>;
    fn run<S: GameSpec>(self) -> Result<(), String> {
        self.0.run::<S>(&mut |line| println!("{line}"))
    }
}
