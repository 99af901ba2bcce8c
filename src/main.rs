//! `ggp-player`: the command line. Parses arguments and calls into the library.

use std::net::IpAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use ggp_player::agent::{AgentConfig, AgentKind, EvalKind};
use ggp_player::breakthrough::{Board, BoardSize, perft::perft};
use ggp_player::player::ServeConfig;
use ggp_player::player::server;
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
    /// Serve as a GGP player: listen for a game controller's HTTP messages (POST /) and
    /// play every Breakthrough match it starts, several at once if asked.
    Serve(ServeArgs),
    /// Count move sequences of exactly DEPTH plies from the start position.
    Perft {
        /// Board size WIDTHxHEIGHT, width 2-10, height 4-10 (e.g. 8x8).
        size: BoardSize,
        /// Number of plies (1-20).
        #[arg(value_parser = parse_perft_depth)]
        depth: u32,
    },
    /// Search the fixed benchmark positions to fixed depths; prints nodes, time, nodes/s.
    Bench {
        /// Evaluation used by the search.
        #[arg(long, value_enum, default_value_t = EvalKind::Improved)]
        eval: EvalKind,
    },
}

fn parse_perft_depth(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(d) if (1..=MAX_PERFT_DEPTH as u64).contains(&d) => Ok(d as u32),
        _ => Err(format!(
            "the depth must be a whole number from 1 to {MAX_PERFT_DEPTH}"
        )),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    init_logging(match cli.command {
        Command::Serve(_) => "info",
        _ => "warn",
    });
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
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve(args)?,
        Command::Perft { size, depth } => {
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

#[derive(clap::Args)]
struct ServeArgs {
    /// TCP port to listen on (4001 is the course kiosk's default remote player).
    #[arg(long, default_value_t = server::DEFAULT_PORT)]
    port: u16,
    /// Address to listen on. The default, 127.0.0.1, serves controllers on this machine
    /// only; use --bind 0.0.0.0 (or ::) to serve a controller on another host.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// What to play.
    #[arg(long, value_enum, default_value_t = AgentKind::Alphabeta)]
    agent: AgentKind,
    /// Evaluation used by the alphabeta agent.
    #[arg(long, value_enum, default_value_t = EvalKind::Improved)]
    eval: EvalKind,
    /// Milliseconds kept back from the play clock: the search stops at receipt time + play
    /// clock - margin. Measured at a 1 s play clock with two matches at once on a 2-core
    /// machine, replies came at most 12 ms after the search deadline (28 ms with two CPU
    /// hogs running); the default covers that with room for a LAN. Raise it for a slow
    /// network or a busy machine (see scripts/README.md).
    #[arg(long, default_value_t = server::DEFAULT_MARGIN.as_millis() as u64)]
    margin_ms: u64,
    /// Seed of the random agent (and of random tie-breaks), for reproducible games.
    #[arg(long)]
    seed: Option<u64>,
    /// Search threads, i.e. moves searched at once (default: one per core, at least 2).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Name given in INFO replies: one token, without spaces or parentheses.
    #[arg(long, default_value = server::DEFAULT_NAME)]
    name: String,
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = ServeConfig {
        bind: args.bind,
        port: args.port,
        agent: AgentConfig {
            kind: args.agent,
            eval: args.eval,
            seed: args.seed,
        },
        margin: Duration::from_millis(args.margin_ms),
        threads: args.threads.map_or(0, usize::from),
        name: args.name,
    };
    anyhow::ensure!(
        server::is_valid_name(&config.name),
        "bad --name {:?}: it must be one token, without spaces, parentheses or ';'",
        config.name
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = server::bind(&config).await?;
        server::serve(config, listener, shutdown_signal()).await?;
        Ok(())
    })
}

/// Completes on Ctrl-C (or SIGTERM on Unix).
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("Ctrl-C: stopping"),
        () = terminate => tracing::info!("SIGTERM: stopping"),
    }
}
