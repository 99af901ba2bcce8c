//! `ggp-player`: the command line. Parses arguments and calls into the library.

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use ggp_player::agent::EvalKind;
use ggp_player::breakthrough::{Board, BoardSize, perft::perft};
use ggp_player::{bench, search};
use tracing_subscriber::EnvFilter;

/// The deepest perft accepted: deeper runs take hours even on small boards.
const MAX_PERFT_DEPTH: u32 = 20;

#[derive(Parser)]
#[command(
    name = "ggp-player",
    version,
    about = "A Breakthrough player for the General Game Playing (GGP) HTTP protocol",
    long_about = "A Breakthrough player for the General Game Playing (GGP) HTTP protocol.\n\n\
                  Boards from 2x4 to 10x10 (WIDTHxHEIGHT). Logs go to stderr; set RUST_LOG \
                  (e.g. RUST_LOG=debug) to change how much is logged."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count move sequences of exactly DEPTH plies from the start position.
    Perft {
        /// Board size WIDTHxHEIGHT, width 2-10, height 4-10 (e.g. 8x8).
        size: BoardSize,
        /// Number of plies (1-20).
        depth: u32,
    },
    /// Search the fixed benchmark positions to fixed depths; prints nodes, time, nodes/s.
    Bench {
        /// Evaluation used by the search.
        #[arg(long, value_enum, default_value_t = EvalKind::Improved)]
        eval: EvalKind,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    init_logging("warn");
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs to stderr; `RUST_LOG` overrides `default`.
fn init_logging(default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Perft { size, depth } => {
            anyhow::ensure!(
                (1..=MAX_PERFT_DEPTH).contains(&depth),
                "perft depth {depth} is out of range: it must be 1-{MAX_PERFT_DEPTH}"
            );
            let mut board = Board::new(size);
            let start = Instant::now();
            let nodes = perft(&mut board, depth);
            let time = start.elapsed();
            println!(
                "perft {size} depth {depth}: {nodes} nodes in {:.3} s ({:.1} M nodes/s)",
                time.as_secs_f64(),
                search::rate(nodes, time) as f64 / 1e6
            );
        }
        Command::Bench { eval } => {
            println!(
                "{:<16} {:>5} {:>12} {:>10} {:>12}  {:<18} score",
                "position", "depth", "nodes", "time ms", "nodes/s", "best"
            );
            let lines = bench::run(eval, 0, |l| {
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
            });
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
        }
    }
    Ok(())
}

fn time_ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
