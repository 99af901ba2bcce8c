//! The `ggp-player` commands, one file per command or family: each turns its arguments
//! into calls of the library, and prints what they return.

mod engine;
mod gdl;
mod referee;
mod selfplay;
mod serve;
mod solve;

use clap::{Parser, Subcommand};
use ggp_player::games;

#[derive(Parser)]
#[command(
    name = "ggp-player",
    version,
    about = "A General Game Playing (GGP) player, and the engine, referee and solver of the \
             course games (Breakthrough, Lines of Action, Ataxx, Halma)",
    long_about = "A General Game Playing (GGP) player: Breakthrough on boards from 2x4 to \
                  10x10 (WIDTHxHEIGHT) by the rules sent, any other GDL game by Monte-Carlo \
                  search. The engine tools (perft, bench, solve, selfplay, match, tournament) \
                  take --game for the other course games (`ggp-player games` lists them).\n\n\
                  Logs go to stderr; set RUST_LOG (e.g. RUST_LOG=debug) to change how much \
                  is logged."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve as a GGP player: listen for a game controller's HTTP messages (POST /) and
    /// play every match it starts (Breakthrough with its engine, any other GDL game by
    /// tree search), several at once, and serve the web page on the same port.
    Serve(serve::ServeArgs),
    /// Referee one match between GGP players over HTTP, as the real controllers do, or
    /// between two in-process agents in any game; print each move with its time as it is
    /// made, then the faults and the result. Breakthrough over GGP, or any GDL game with
    /// --rules.
    Match(referee::MatchArgs),
    /// Play many matches between named players (both colours, several sizes and play
    /// clocks), GGP players or in-process agents of any game (--game); print a table
    /// with score, Elo and 95% interval, and an SPRT verdict.
    Tournament(referee::TournamentArgs),
    /// GDL: print the project's rules for a game, or check a GDL file.
    #[command(subcommand)]
    Gdl(gdl::GdlCommand),
    /// Count move sequences of exactly DEPTH plies from the start position.
    Perft(engine::PerftArgs),
    /// Solve a board from its start position (or from the position after --after moves):
    /// prove its value (win, draw or loss for the side to move) and print it with a line
    /// that keeps it, the nodes searched and the time.
    Solve(solve::SolveArgs),
    /// Compare evaluations: two of them play each other in this process at a fixed depth,
    /// from random openings (each with both colours); prints the first one's score and Elo.
    /// With --record, also writes every position and its game's result for `tune`.
    Selfplay(selfplay::SelfplayArgs),
    /// Fit the `tuned` evaluation's weights to recorded games (from `selfplay --record`):
    /// a logistic regression of the results on the evaluation's features, checked on
    /// every tenth game held out. Prints the fit and writes the weights as Rust source.
    Tune(selfplay::TuneArgs),
    /// Search the fixed benchmark positions to fixed depths; prints nodes, time, nodes/s.
    Bench(engine::BenchArgs),
    /// List the games every engine tool takes with --game, with their board sizes,
    /// variants and evaluations.
    Games {
        /// List the toy games that exist for the tests too (walk).
        #[arg(long)]
        include_test_games: bool,
    },
}

impl Command {
    /// How much is logged unless `RUST_LOG` says otherwise.
    pub fn log_level(&self) -> &'static str {
        match self {
            Command::Serve(_) => "info",
            Command::Match(_) | Command::Tournament(_) => "error",
            _ => "warn",
        }
    }
}

/// Which game, and which rules of it.
#[derive(clap::Args)]
pub struct GameArgs {
    /// The game (`ggp-player games` lists them).
    #[arg(long, default_value = "breakthrough")]
    pub game: String,
    /// Rules variant, the game's first by default: course (diagonal steps only capture)
    /// or standard (also onto empty squares) for Breakthrough.
    #[arg(long)]
    pub variant: Option<String>,
}

/// The largest transposition table accepted, in MiB.
const MAX_HASH_MB: usize = 1 << 16;

pub(crate) fn parse_hash_mb(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "the table size must be a whole number of MiB from 1 to {MAX_HASH_MB}"
        )),
    }
}

pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1e6 => Ok(t),
        _ => Err("expected a number of seconds above 0 (at most 1000000)".to_owned()),
    }
}

/// The one runtime of the commands that talk over the network.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

/// Runs `command`.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve::run(args),
        Command::Match(args) => referee::run_match(args),
        Command::Tournament(args) => referee::run_tournament(args),
        Command::Gdl(command) => gdl::run(command),
        Command::Perft(args) => engine::perft(args),
        Command::Solve(args) => solve::run(args),
        Command::Selfplay(args) => selfplay::selfplay(args),
        Command::Tune(args) => selfplay::tune(args),
        Command::Bench(args) => engine::bench(args),
        Command::Games { include_test_games } => {
            for name in games::offered(include_test_games) {
                games::dispatch(name, engine::ListGame)?;
            }
            Ok(())
        }
    }
}
