//! `perft`, `bench` and `games`: the engine tools on any registered game.

use std::time::Instant;

use ggp_player::spec::{self, GameSpec, Tool};
use ggp_player::{bench, games, input_file, memory, search};

use super::{GameArgs, parse_hash_mb};

/// The deepest perft accepted: deeper runs take hours even on small boards.
const MAX_PERFT_DEPTH: u32 = 20;

#[derive(clap::Args)]
pub struct PerftArgs {
    /// Board size: WIDTHxHEIGHT for Breakthrough, width 2-10, height 4-10 (e.g. 8x8);
    /// `ggp-player games` tells each game's.
    pub size: String,
    /// Number of plies (1-20).
    #[arg(value_parser = parse_perft_depth)]
    pub depth: u32,
    #[command(flatten)]
    pub game: GameArgs,
    /// Count from the position in FILE instead of the start, written as the game's course
    /// program reads it: a `move` request for loa6 and ataxx (e.g. a handout's example),
    /// an input.txt for halma. SIZE must still be the game's size.
    #[arg(long, value_name = "FILE")]
    pub position: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// The game whose positions are searched.
    #[arg(long, default_value = "breakthrough")]
    pub game: String,
    /// Evaluation used by the search (the game's bench evaluation by default, fixed so
    /// that node counts stay comparable between versions: `improved` for Breakthrough).
    #[arg(long)]
    pub eval: Option<String>,
    /// Threads of each search.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Transposition table size in MiB (one table, emptied before each position).
    #[arg(long, default_value_t = 64, value_parser = parse_hash_mb)]
    pub hash_mb: usize,
}

fn parse_perft_depth(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(d) if (1..=MAX_PERFT_DEPTH as u64).contains(&d) => Ok(d as u32),
        _ => Err(format!(
            "the depth must be a whole number from 1 to {MAX_PERFT_DEPTH}"
        )),
    }
}

pub fn perft(args: PerftArgs) -> anyhow::Result<()> {
    games::dispatch(&args.game.game.clone(), args)?
}

pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let bench = Bench {
        eval: args.eval,
        threads: usize::from(args.threads),
        hash_mb: args.hash_mb,
    };
    games::dispatch(&args.game, bench)?
}

/// `perft` on the game asked for.
impl Tool for PerftArgs {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let mut position = spec::start::<S>(Some(&self.size), self.game.variant.as_deref())
            .map_err(anyhow::Error::msg)?;
        if let Some(path) = &self.position {
            let text = input_file::read_to_string(path, input_file::POSITIONS)
                .map_err(anyhow::Error::msg)?;
            position = spec::read_position::<S>(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
        let start = Instant::now();
        let nodes = S::perft(&mut position, self.depth);
        let time = start.elapsed();
        println!(
            "perft {} depth {}: {nodes} nodes in {:.3} s ({:.1} M nodes/s; the last ply's \
             moves are counted, not made)",
            self.size,
            self.depth,
            time.as_secs_f64(),
            search::rate(nodes, time) as f64 / 1e6
        );
        Ok(())
    }
}

/// `bench` on any game.
struct Bench {
    eval: Option<String>,
    threads: usize,
    hash_mb: usize,
}

impl Tool for Bench {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        // Check the evaluation before the header is printed.
        spec::evaluation::<S>(self.eval.as_deref().unwrap_or(S::BENCH_EVALUATION))
            .map_err(anyhow::Error::msg)?;
        memory::check_table(self.hash_mb, "--hash-mb").map_err(anyhow::Error::msg)?;
        println!(
            "{:<16} {:>5} {:>12} {:>10} {:>12}  {:<18} score",
            "position", "depth", "nodes", "time ms", "nodes/s", "best"
        );
        let lines = bench::run::<S>(self.eval.as_deref(), self.threads, self.hash_mb, |l| {
            println!(
                "{:<16} {:>5} {:>12} {:>10.1} {:>12}  {:<18} {}",
                l.name,
                l.depth,
                l.nodes,
                time_ms(l.time),
                search::rate(l.nodes, l.time),
                l.best,
                search::score::describe(l.score)
            );
        })
        .map_err(anyhow::Error::msg)?;
        let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
        let time = lines.iter().map(|l| l.time).sum();
        println!(
            "{:<16} {:>5} {:>12} {:>10.1} {:>12}",
            "total",
            "",
            nodes,
            time_ms(time),
            search::rate(nodes, time)
        );
        Ok(())
    }
}

/// `games`: one paragraph per game offered.
pub struct ListGame;

impl Tool for ListGame {
    type Output = ();
    fn run<S: GameSpec>(self) {
        println!("{}: {}", S::NAME, S::ABOUT);
        println!("  sizes:       {} (default {})", S::SIZES, S::DEFAULT_SIZE);
        println!("  variants:    {}", S::VARIANTS.join(", "));
        let evals: Vec<&str> = S::evaluations().iter().map(|e| e.name).collect();
        println!("  evaluations: {}", evals.join(", "));
    }
}

fn time_ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
