//! `ggp-player`: the command line. Parses arguments and calls into the library.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use ggp_player::agent::{AgentConfig, AgentKind, DEFAULT_HASH_MB};
use ggp_player::game::{Game, MoveBuffer};
use ggp_player::games::{self, GameSpec};
use ggp_player::gdl::Gdl;
use ggp_player::player::ServeConfig;
use ggp_player::player::handler::DEFAULT_MAX_MATCHES;
use ggp_player::player::server;
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::general::{GdlMatchSpec, play_gdl_match};
use ggp_player::referee::ggp_match::{GgpGame, MatchSpec};
use ggp_player::referee::native::{self, Contestant};
use ggp_player::referee::play_clock::PlayClock;
use ggp_player::referee::players::{PlayerSpec, RunningPlayer};
use ggp_player::referee::report::MatchView;
use ggp_player::referee::split;
use ggp_player::referee::stats::{Sprt, format_elo};
use ggp_player::referee::tournament::{self, Arena, Entrant, Format, TournamentConfig};
use ggp_player::{bench, memory, search, selfplay};
use tracing_subscriber::EnvFilter;

/// The deepest perft accepted: deeper runs take hours even on small boards.
const MAX_PERFT_DEPTH: u32 = 20;

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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve as a GGP player: listen for a game controller's HTTP messages (POST /) and
    /// play every Breakthrough match it starts, several at once if asked.
    Serve(ServeArgs),
    /// Referee one match between GGP players over HTTP, as the real controllers do, or
    /// between two in-process agents in any game; print the moves, the faults and the
    /// result. Breakthrough over GGP, or any GDL game with --rules.
    Match(MatchArgs),
    /// Play many matches between named players (both colours, several sizes and play
    /// clocks), GGP players or in-process agents of any game (--game); print a table
    /// with score, Elo and 95% interval, and an SPRT verdict.
    Tournament(TournamentArgs),
    /// GDL: print the project's rules for a game, or check a GDL file.
    #[command(subcommand)]
    Gdl(GdlCommand),
    /// Count move sequences of exactly DEPTH plies from the start position.
    Perft {
        /// Board size: WIDTHxHEIGHT for Breakthrough, width 2-10, height 4-10 (e.g. 8x8);
        /// `ggp-player games` tells each game's.
        size: String,
        /// Number of plies (1-20).
        #[arg(value_parser = parse_perft_depth)]
        depth: u32,
        #[command(flatten)]
        game: GameArgs,
    },
    /// Solve a board from its start position (or from the position after --after moves):
    /// prove its value (win, draw or loss for the side to move) and print it with a line
    /// that keeps it, the nodes searched and the time.
    Solve {
        /// Board size: WIDTHxHEIGHT for Breakthrough, width 2-10, height 4-10 (e.g. 5x5).
        size: String,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
        time: f64,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = DEFAULT_HASH_MB, value_parser = parse_hash_mb)]
        hash_mb: usize,
        /// The solver: alpha-beta over the three outcomes, or df-pn (depth-first
        /// proof-number search; games whose positions never repeat).
        #[arg(long, value_enum, default_value_t = SolverKind::Alphabeta)]
        solver: SolverKind,
        /// Threads (all cores by default).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: Option<u32>,
        /// Save the solve to FILE now and then, when it stops and on Ctrl-C; if FILE is
        /// there, resume from it (the same command carries on where it stopped, with the
        /// saved table's size). The file is as large as the table.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
        /// Seconds between two saves of --checkpoint.
        #[arg(long, default_value_t = 600.0, value_parser = parse_seconds)]
        checkpoint_every: f64,
        /// Alpha-beta: also solve every position up to PLIES moves from the start and
        /// print, for the start and each of them, the moves that keep its value, one JSON
        /// line each (the source of the player's table of solved openings). --time covers
        /// the whole run.
        #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(0..=2))]
        openings: Option<u32>,
        /// Solve the position after this move instead of the start, in the game's
        /// notation (e.g. "(move 1 2 1 3)"); repeat it for each move, in order.
        #[arg(long, value_name = "MOVE")]
        after: Vec<String>,
        #[command(flatten)]
        game: GameArgs,
    },
    /// Compare evaluations: two of them play each other in this process at a fixed depth,
    /// from random openings (each with both colours); prints the first one's score and Elo.
    /// With --record, also writes every position and its game's result for `tune`.
    Selfplay {
        #[command(flatten)]
        config: selfplay::SelfplayConfig,
        /// The game.
        #[arg(long, default_value = "breakthrough")]
        game: String,
        /// Append the games' positions to this file (one line each, with the result).
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Fit the `tuned` evaluation's weights to recorded games (from `selfplay --record`):
    /// a logistic regression of the results on the evaluation's features, checked on
    /// every tenth game held out. Prints the fit and writes the weights as Rust source.
    Tune {
        /// Positions files written by `selfplay --record`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where to write the weights (e.g. src/games/breakthrough/weights.rs); printed if absent.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The game whose evaluation is fitted.
        #[arg(long, default_value = "breakthrough")]
        game: String,
    },
    /// Search the fixed benchmark positions to fixed depths; prints nodes, time, nodes/s.
    Bench {
        /// The game whose positions are searched.
        #[arg(long, default_value = "breakthrough")]
        game: String,
        /// Evaluation used by the search (the game's bench evaluation by default, fixed so
        /// that node counts stay comparable between versions: `improved` for Breakthrough).
        #[arg(long)]
        eval: Option<String>,
        /// Threads of each search.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
        /// Transposition table size in MiB (one table, emptied before each position).
        #[arg(long, default_value_t = 64, value_parser = parse_hash_mb)]
        hash_mb: usize,
    },
    /// List the games every engine tool takes with --game, with their board sizes,
    /// variants and evaluations.
    Games {
        /// List the toy games that exist for the tests too (walk).
        #[arg(long)]
        include_test_games: bool,
    },
}

/// Which game, and which rules of it.
#[derive(clap::Args)]
struct GameArgs {
    /// The game (`ggp-player games` lists them).
    #[arg(long, default_value = "breakthrough")]
    game: String,
    /// Rules variant, the game's first by default: course (diagonal steps only capture)
    /// or standard (also onto empty squares) for Breakthrough.
    #[arg(long)]
    variant: Option<String>,
}

/// An evaluation some game has.
fn parse_eval(s: &str) -> Result<&'static str, String> {
    let all = games::all_evaluations();
    match all.iter().find(|(_, e)| *e == s) {
        Some((_, e)) => Ok(e),
        None => {
            let names: Vec<String> = all.iter().map(|(g, e)| format!("{e} ({g})")).collect();
            Err(format!(
                "no game has an evaluation {s:?}: use {}",
                names.join(", ")
            ))
        }
    }
}

fn parse_perft_depth(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(d) if (1..=MAX_PERFT_DEPTH as u64).contains(&d) => Ok(d as u32),
        _ => Err(format!(
            "the depth must be a whole number from 1 to {MAX_PERFT_DEPTH}"
        )),
    }
}

/// The largest transposition table accepted, in MiB.
const MAX_HASH_MB: usize = 1 << 16;

fn parse_hash_mb(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "the table size must be a whole number of MiB from 1 to {MAX_HASH_MB}"
        )),
    }
}

fn main() -> ExitCode {
    quiet_on_closed_stdout();
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
    let _flush_logs_on_exit = init_logging(match cli.command {
        Command::Serve(_) => "info",
        Command::Match(_) | Command::Tournament(_) => "error",
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

/// Output piped into a reader that stops early (`ggp-player tune data | head`) closes our
/// stdout, and `println!` then panics. That is no error of ours: end quietly with the
/// status a shell gives a process killed by SIGPIPE (128 + 13), as other tools do.
/// Every other panic keeps the default report.
fn quiet_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info)
    }));
}

/// Logs to stderr; `RUST_LOG` overrides `default`. Lines go through a background writer
/// that drops lines rather than wait: a search thread logging into a pipe nobody reads
/// (or a slow terminal) must never hold up a reply. The guard flushes at exit.
fn init_logging(default: &str) -> tracing_appender::non_blocking::WorkerGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(true)
        .finish(std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    guard
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve(args)?,
        Command::Match(args) => referee_match(args)?,
        Command::Tournament(args) => run_tournament(args)?,
        Command::Gdl(GdlCommand::Print { size, game }) => {
            let name = game.game.clone();
            games::dispatch(&name, PrintGdl { size, game })??
        }
        Command::Gdl(GdlCommand::Check { file }) => check_gdl(&file)?,
        Command::Perft { size, depth, game } => {
            let name = game.game.clone();
            games::dispatch(&name, Perft { size, depth, game })??
        }
        Command::Solve {
            size,
            time,
            hash_mb,
            solver,
            threads,
            checkpoint,
            checkpoint_every,
            openings,
            after,
            game,
        } => {
            let name = game.game.clone();
            games::dispatch(
                &name,
                Solve {
                    size,
                    time,
                    hash_mb,
                    solver,
                    threads,
                    checkpoint,
                    checkpoint_every,
                    openings,
                    after,
                    game,
                },
            )??
        }
        Command::Selfplay {
            config,
            game,
            record,
        } => games::dispatch(&game, SelfplayCmd { config, record })??,
        Command::Tune { files, out, game } => games::dispatch(&game, Tune { files, out })??,
        Command::Bench {
            game,
            eval,
            threads,
            hash_mb,
        } => games::dispatch(
            &game,
            Bench {
                eval,
                threads: usize::from(threads),
                hash_mb,
            },
        )??,
        Command::Games { include_test_games } => {
            for name in games::offered(include_test_games) {
                games::dispatch(name, ListGame)?;
            }
        }
    }
    Ok(())
}

/// `perft` on any game.
struct Perft {
    size: String,
    depth: u32,
    game: GameArgs,
}

impl games::Tool for Perft {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let mut position = games::start::<S>(Some(&self.size), self.game.variant.as_deref())
            .map_err(anyhow::Error::msg)?;
        let start = Instant::now();
        let nodes = S::perft(&mut position, self.depth);
        let time = start.elapsed();
        println!(
            "perft {} depth {}: {nodes} nodes in {:.3} s ({:.1} M nodes/s)",
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

impl games::Tool for Bench {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        // Check the evaluation before the header is printed.
        games::evaluation::<S>(self.eval.as_deref().unwrap_or(S::BENCH_EVALUATION))
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
struct ListGame;

impl games::Tool for ListGame {
    type Output = ();
    fn run<S: GameSpec>(self) {
        println!("{}: {}", S::NAME, S::ABOUT);
        println!("  sizes:       {} (default {})", S::SIZES, S::DEFAULT_SIZE);
        println!("  variants:    {}", S::VARIANTS.join(", "));
        let evals: Vec<&str> = S::evaluations().iter().map(|e| e.name).collect();
        println!("  evaluations: {}", evals.join(", "));
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1e6 => Ok(t),
        _ => Err("expected a number of seconds above 0 (at most 1000000)".to_owned()),
    }
}

/// `selfplay` on any game.
struct SelfplayCmd {
    config: selfplay::SelfplayConfig,
    record: Option<PathBuf>,
}

impl games::Tool for SelfplayCmd {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let config = &self.config;
        selfplay::check::<S>(config, self.record.is_some()).map_err(anyhow::Error::msg)?;
        let file = match &self.record {
            Some(path) => Some(selfplay::PositionsFile::append(path).map_err(anyhow::Error::msg)?),
            None => None,
        };
        let record = |lines: &[String]| {
            if let Some(f) = &file {
                f.record(lines);
            }
        };
        let bar = indicatif::ProgressBar::new(u64::from(config.openings) * 2);
        let wdl = selfplay::run::<S>(
            config,
            |w| {
                bar.set_position(u64::from(w.games()));
                bar.set_message(format!("{w}"));
            },
            file.is_some()
                .then_some(&record as &(dyn Fn(&[String]) + Sync)),
        )
        .map_err(anyhow::Error::msg);
        bar.finish_and_clear();
        let wdl = wdl?;
        if let Some(f) = file {
            f.finish().map_err(anyhow::Error::msg)?;
        }
        let (lo, elo, hi) = wdl.elo();
        println!(
            "{} vs {} on {} at depth {}: {wdl}, score {:.1}%, Elo {} [{}, {}]",
            config.first,
            config.second,
            config.size.as_deref().unwrap_or(S::DEFAULT_SIZE),
            config.depth,
            100.0 * wdl.score(),
            format_elo(elo),
            format_elo(lo),
            format_elo(hi)
        );
        Ok(())
    }
}

/// `tune` on any game with an evaluation to fit.
struct Tune {
    files: Vec<PathBuf>,
    out: Option<PathBuf>,
}

impl games::Tool for Tune {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let Some(tuning) = S::tune(&self.files) else {
            anyhow::bail!("{} has no evaluation to fit", S::NAME);
        };
        let tuning = tuning.map_err(anyhow::Error::msg)?;
        eprintln!("{}", tuning.data);
        println!("{}", tuning.report);
        match self.out {
            Some(path) => {
                std::fs::write(&path, tuning.source)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                println!("weights written to {}", path.display());
            }
            None => print!("{}", tuning.source),
        }
        Ok(())
    }
}

/// The solvers `solve` offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SolverKind {
    Alphabeta,
    Dfpn,
}

/// `solve` on any game.
struct Solve {
    size: String,
    time: f64,
    hash_mb: usize,
    solver: SolverKind,
    threads: Option<u32>,
    checkpoint: Option<PathBuf>,
    checkpoint_every: f64,
    openings: Option<u32>,
    after: Vec<String>,
    game: GameArgs,
}

impl games::Tool for Solve {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let size = &self.size;
        let mut root = games::start::<S>(Some(size), self.game.variant.as_deref())
            .map_err(anyhow::Error::msg)?;
        for (i, name) in self.after.iter().enumerate() {
            if ggp_player::game::result(&root).is_some() {
                anyhow::bail!("--after: the game is over before {name:?}");
            }
            let Some(m) = root.parse_move(name) else {
                anyhow::bail!(
                    "--after: {name:?} is not a legal move {}",
                    match i {
                        0 => "at the start".to_owned(),
                        _ => format!("after {}", self.after[..i].join(" ")),
                    }
                );
            };
            root.make(m);
        }
        let mut limits = search::Limits::until(Instant::now() + Duration::from_secs_f64(self.time));
        let mut interrupted = None;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = self.threads.map_or(cores, |t| t as usize);
        if self.checkpoint.is_some() && self.openings.is_some() {
            anyhow::bail!("--openings cannot be saved to a --checkpoint: give one or the other");
        }
        if self.openings.is_some() && self.solver != SolverKind::Alphabeta {
            anyhow::bail!("--openings is for --solver alphabeta");
        }
        let mut label = format!(
            "{} {size} {}",
            self.game.game,
            self.game.variant.as_deref().unwrap_or("(default rules)")
        );
        if !self.after.is_empty() {
            label += &format!(" after {}", self.after.join(" "));
        }
        let checkpoint = self.checkpoint.as_deref().map(|path| search::Checkpoint {
            path,
            every: Duration::from_secs_f64(self.checkpoint_every),
            label: &label,
        });
        // A resumed solve takes its table's size from its file (checked as it is read).
        let resuming = checkpoint.as_ref().is_some_and(|c| c.path.exists());
        if !resuming {
            memory::check_table(self.hash_mb, "--hash-mb").map_err(anyhow::Error::msg)?;
        }
        let bar = solve_progress_bar();
        if let Some(c) = &checkpoint {
            if resuming {
                bar.bar
                    .suspend(|| eprintln!("resuming from {}", c.path.display()));
            } else {
                // Found out now, not at the first save, minutes or hours in.
                std::fs::write(c.path, b"")
                    .and_then(|()| std::fs::remove_file(c.path))
                    .map_err(|e| {
                        anyhow::anyhow!("cannot write the checkpoint {}: {e}", c.path.display())
                    })?;
            }
            // Ctrl-C stops the solve, which then saves where it is.
            let flag = stop_on_ctrl_c();
            interrupted = Some(flag.clone());
            limits = limits.with_stop(flag);
        }
        // The alpha-beta table stays here for --openings; a resumable solve keeps its own.
        let mut table = None;
        let report = |p: &search::Progress| bar.report(p);
        let reporting = search::Reporting {
            report: &report,
            every: bar.every,
        };
        let s = match (self.solver, &checkpoint) {
            (SolverKind::Dfpn, _) => {
                let options = search::DfpnOptions {
                    threads,
                    checkpoint,
                    progress: Some(&report),
                    progress_every: bar.every,
                    ..search::DfpnOptions::new(self.hash_mb)
                };
                search::solve_dfpn(&root, &limits, &options)
            }
            (SolverKind::Alphabeta, Some(c)) => {
                search::solve_resumable(&root, &limits, self.hash_mb, threads, Some(reporting), c)
            }
            (SolverKind::Alphabeta, None) => {
                let table = table.insert(search::ProofTable::new(self.hash_mb));
                Ok(search::solve_reporting(
                    &root,
                    &limits,
                    table,
                    threads,
                    Some(reporting),
                ))
            }
        };
        bar.bar.finish_and_clear();
        let s = s.map_err(anyhow::Error::msg)?;
        if s.too_deep {
            anyhow::bail!(
                "{size} was not solved: a line ran longer than {} plies ({} nodes)",
                search::max_ply::<S::Game>(),
                s.nodes
            );
        }
        let Some(value) = s.value else {
            let saved = match &self.checkpoint {
                Some(path) => format!("; saved to {}: the same command resumes it", path.display()),
                None => "; try a longer --time or a larger --hash-mb".to_owned(),
            };
            if interrupted.is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed)) {
                anyhow::bail!(
                    "{size} was interrupted after {:.1} s ({} nodes){saved}",
                    s.time.as_secs_f64(),
                    s.nodes
                );
            }
            anyhow::bail!(
                "{size} was not solved within {} s ({} nodes){saved}",
                self.time,
                s.nodes
            );
        };
        // Moves alternate (a pass is a move), so the side to move follows from the count.
        let (position, mover) = match self.after.len() {
            0 => (String::new(), S::SIDES[0]),
            n => (format!(" after {}", self.after.join(" ")), S::SIDES[n % 2]),
        };
        println!(
            "{size}{position}: {} for {mover} ({} nodes in {:.3} s)",
            outcome_word(value),
            s.nodes,
            s.time.as_secs_f64()
        );
        println!(
            "line ({} plies): {}",
            s.line.len(),
            solution_line(&root, &s.line)
        );
        if let (Some(plies), Some(table)) = (self.openings, &table) {
            let variant = self
                .game
                .variant
                .as_deref()
                .unwrap_or(S::VARIANTS[0])
                .to_ascii_lowercase();
            let mut book = Openings {
                board: size,
                variant: &variant,
                limits: &limits,
                table,
                threads,
                after: self.after.clone(),
            };
            book.print(&root, plies)?;
        }
        Ok(())
    }
}

/// `solve --openings`: the moves that keep the value of every position near the start.
struct Openings<'a> {
    board: &'a str,
    variant: &'a str,
    limits: &'a search::Limits,
    table: &'a search::ProofTable,
    threads: usize,
    /// The moves from the start to the position being solved, in the game's notation.
    after: Vec<String>,
}

impl Openings<'_> {
    /// Prints the line of `position` (reached by `self.after`) and, `plies` deep, of every
    /// position after it; finished games are left out.
    fn print<G: Game>(&mut self, position: &G, plies: u32) -> anyhow::Result<()> {
        if ggp_player::game::result(position).is_some() {
            return Ok(());
        }
        let k = search::keeping_moves(position, self.limits, self.table, self.threads).ok_or_else(
            || {
                let position = match self.after.is_empty() {
                    true => "the start position".to_owned(),
                    false => format!("the position after {}", self.after.join(" ")),
                };
                anyhow::anyhow!(
                    "{}: {position} was not solved within --time (or a line ran too deep)",
                    self.board
                )
            },
        )?;
        let line = search::SolvedOpening {
            board: self.board.to_owned(),
            variant: self.variant.to_owned(),
            after: self.after.clone(),
            value: k.value,
            keeping: k.moves.iter().map(|&m| position.move_name(m)).collect(),
            line_only: false,
        };
        println!("{}", serde_json::to_string(&line)?);
        if plies > 0 {
            let mut list = G::MoveList::default();
            position.generate_moves(&mut list);
            for &m in list.as_slice() {
                let mut child = position.clone();
                child.make(m);
                self.after.push(position.move_name(m));
                self.print(&child, plies - 1)?;
                self.after.pop();
            }
        }
        Ok(())
    }
}

/// A flag raised by the first Ctrl-C (which then no longer ends the process at once).
fn stop_on_ctrl_c() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let raised = flag.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(tokio::signal::ctrl_c()).ok()?;
        eprintln!("interrupted: stopping and saving");
        raised.store(true, std::sync::atomic::Ordering::Relaxed);
        Some(())
    });
    flag
}

/// The progress of a long solve: a line redrawn every second on a terminal, else one
/// printed every minute (a log).
struct SolveProgress {
    bar: indicatif::ProgressBar,
    every: Duration,
    terminal: bool,
}

fn solve_progress_bar() -> SolveProgress {
    use std::io::IsTerminal;
    let terminal = std::io::stderr().is_terminal();
    let bar = indicatif::ProgressBar::new_spinner();
    if terminal {
        bar.enable_steady_tick(Duration::from_millis(250));
    }
    SolveProgress {
        bar,
        every: Duration::from_secs(if terminal { 1 } else { 60 }),
        terminal,
    }
}

impl SolveProgress {
    fn report(&self, p: &search::Progress) {
        if self.terminal {
            self.bar.set_message(p.to_string());
        } else {
            eprintln!("{p}");
        }
    }
}

fn outcome_word(o: ggp_player::game::Outcome) -> &'static str {
    match o {
        ggp_player::game::Outcome::Win => "win",
        ggp_player::game::Outcome::Loss => "loss",
        ggp_player::game::Outcome::Draw => "draw",
    }
}

/// The principal line in the game's notation.
fn solution_line<G: Game>(root: &G, pv: &[G::Move]) -> String {
    let mut b = root.clone();
    let mut words = Vec::new();
    for &m in pv {
        words.push(b.move_name(m));
        b.make(m);
    }
    if words.is_empty() {
        "-".to_owned()
    } else {
        words.join(" ")
    }
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
    /// Evaluation used by the alphabeta agent, in the games that have one of this name
    /// (`ggp-player games` lists them); each game's default otherwise (`tuned` for
    /// Breakthrough).
    #[arg(long, value_parser = parse_eval)]
    eval: Option<&'static str>,
    /// Milliseconds kept back from the play clock: the search stops at receipt time + play
    /// clock - margin. Measured at a 1 s play clock with two matches at once on a 2-core
    /// machine, replies came at most 12 ms after the search deadline (28 ms with two CPU
    /// hogs running); the default covers that with room for a LAN. Raise it for a slow
    /// network or a busy machine (see scripts/README.md).
    #[arg(long, default_value_t = server::DEFAULT_MARGIN.as_millis() as u64)]
    margin_ms: u64,
    /// Seed of the random agent and of Monte-Carlo tree search, for reproducible games.
    #[arg(long)]
    seed: Option<u64>,
    /// Threads of each search, sharing one transposition table (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Transposition tables' total in MiB, shared equally among the matches the player
    /// plays at once: each match's table is hash-mb / max-matches, kept for the match.
    #[arg(long, default_value_t = server::DEFAULT_TOTAL_HASH_MB, value_parser = parse_hash_mb)]
    hash_mb: usize,
    /// Matches played at once; a START for another one is refused until one ends (STOP,
    /// ABORT, or no message for its start clock + play clock + 30 s).
    #[arg(long, default_value_t = DEFAULT_MAX_MATCHES as u16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    max_matches: u16,
    /// Do not search on the opponent's time or during the start clock (e.g. when both
    /// players of a test share the machine's cores).
    #[arg(long)]
    no_ponder: bool,
    /// Name given in INFO replies: one token, without spaces or parentheses.
    #[arg(long, default_value = server::DEFAULT_NAME)]
    name: String,
    /// A host name under which the page may also be opened (repeatable), e.g. this
    /// machine's name with --bind 0.0.0.0. localhost, 127.0.0.1, [::1] and the address a
    /// browser connected to are always accepted; other names are refused (421), which
    /// stops DNS-rebinding attacks. Controllers reach POST / under any name.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// Offer the toy games that exist for the tests (walk) on the web page too.
    #[arg(long)]
    include_test_games: bool,
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = ServeConfig {
        bind: args.bind,
        port: args.port,
        agent: AgentConfig {
            kind: args.agent,
            eval: args.eval,
            seed: args.seed,
            hash_mb: args.hash_mb,
            ..AgentConfig::default()
        },
        margin: Duration::from_millis(args.margin_ms),
        threads: args.threads.map_or(0, usize::from),
        ponder: !args.no_ponder,
        name: args.name,
        max_matches: usize::from(args.max_matches),
        allow_hosts: args.allow_hosts,
        include_test_games: args.include_test_games,
    };
    memory::check_table(args.hash_mb, "--hash-mb (all matches' tables together)")
        .map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        server::is_valid_name(&config.name),
        "bad --name {:?}: it must be one token, without spaces, parentheses or ';'",
        config.name
    );
    runtime()?.block_on(async {
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

#[derive(Subcommand)]
enum GdlCommand {
    /// Print a game's own GDL for a board size (Breakthrough's are the files in gdl/).
    #[command(visible_alias = "breakthrough")]
    Print {
        /// Board size (WIDTHxHEIGHT for Breakthrough, width 2-10, height 4-10).
        size: String,
        #[command(flatten)]
        game: GameArgs,
    },
    /// Read a GDL file with the reasoner: print its roles, the initial state's size, the
    /// legal moves there, and the result of one random game.
    Check {
        /// The GDL (KIF) file.
        file: PathBuf,
    },
}

/// `gdl print`: a game's own GDL.
struct PrintGdl {
    size: String,
    game: GameArgs,
}

impl games::Tool for PrintGdl {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let variant = self.game.variant.as_deref().unwrap_or(S::VARIANTS[0]);
        // The size and variant are checked the way every tool checks them.
        games::start::<S>(Some(&self.size), Some(variant)).map_err(anyhow::Error::msg)?;
        let Some(text) = S::gdl_text(&self.size, variant) else {
            anyhow::bail!("{} has no GDL rules", S::NAME);
        };
        print!("{}", text.map_err(anyhow::Error::msg)?);
        Ok(())
    }
}

fn check_gdl(file: &std::path::Path) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let gdl = Gdl::parse(&text).with_context(|| format!("{} is not valid GDL", file.display()))?;
    let roles = gdl.role_names();
    let state = gdl.initial_state();
    println!("roles: {}", roles.join(" "));
    println!("initial state: {} facts", state.len());
    for (role, moves) in roles.iter().zip(gdl.all_legal_moves(&state)) {
        println!("legal moves of {role} at the start: {}", moves.len());
    }
    let game = gdl
        .random_game(&mut rand::rng(), 10_000)
        .map_err(anyhow::Error::msg)?;
    let goals: Vec<String> = game
        .goals
        .iter()
        .map(|g| g.map_or("none".into(), |v| v.to_string()))
        .collect();
    println!(
        "a random game: {} steps, goals {}",
        game.steps,
        goals.join(" ")
    );
    Ok(())
}

#[derive(clap::Args)]
struct MatchArgs {
    /// The white player (the first role's with --rules; in other games the side that
    /// moves first, whatever the game calls it): a URL (http://127.0.0.1:4001), a
    /// command that starts one, e.g. 'ggp-player serve --agent random' (run on a free
    /// port given as --port N); or, playing the game itself when --black does too, an
    /// in-process agent (agent:random, agent:greedy[:EVAL], agent:alphabeta[:EVAL],
    /// agent:minimax[:DEPTH][:EVAL], agent:mcts[:N]) or a course program played in its
    /// game's own protocol on the course's clock (program:COMMAND): started for every
    /// move (e.g. program:target/release/loa6 with --game loa6, within the course's
    /// limit; with --game halma, in a fresh directory, on --playclock CPU seconds for the
    /// whole game), or for a whole game as CS61B's harness runs two
    /// (program:target/release/loa with --game loa8).
    #[arg(long, value_parser = PlayerSpec::parse, required_unless_present = "players")]
    white: Option<PlayerSpec>,
    /// The black player (the second role's with --rules; in other games the side that
    /// moves second): a URL or a command, as for --white.
    #[arg(long, value_parser = PlayerSpec::parse, required_unless_present = "players")]
    black: Option<PlayerSpec>,
    /// With --rules: the player of each role, in the rules' role order, as for --white
    /// (instead of --white and --black; any number of roles).
    #[arg(long = "player", value_parser = PlayerSpec::parse, requires = "rules", conflicts_with_all = ["white", "black"])]
    players: Vec<PlayerSpec>,
    /// Play the game of this GDL (KIF) file instead of Breakthrough: sent in START, every
    /// move checked by the reasoner, every role's goal recorded (--size is ignored).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// The game: Breakthrough between GGP players (or in-process agents), any other
    /// registered game between in-process agents (`ggp-player games` lists them).
    #[arg(long, default_value = "breakthrough")]
    game: String,
    /// Board size (the game's default if absent: 8x8 for Breakthrough, WIDTHxHEIGHT,
    /// width 2-10, height 4-10).
    #[arg(long)]
    size: Option<String>,
    /// Rules variant (the game's default if absent): of the GDL sent to GGP players, or
    /// of an in-process match.
    #[arg(long)]
    variant: Option<String>,
    /// In an in-process match, a game still going after this many plies is a draw (won
    /// by the one with more CPU time left when both players are course programs on a
    /// budget for the whole game, as in halma).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    max_plies: u32,
    /// Seconds the players get after START.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    startclock: u64,
    /// Seconds per move: whole seconds for GGP players (START carries whole seconds),
    /// fractions too (e.g. 0.1) between in-process agents. A course program on a budget
    /// for the whole game (halma) gets this many CPU seconds for the game instead.
    #[arg(long, default_value = "10", value_parser = PlayClock::parse)]
    playclock: PlayClock,
    /// Whose way of writing messages to imitate.
    #[arg(long, value_enum, default_value_t = Dialect::GgpBase)]
    dialect: Dialect,
}

#[derive(clap::Args)]
struct TournamentArgs {
    /// A player as NAME=PLAYER, PLAYER being a URL (http://127.0.0.1:4001), a command
    /// that starts one on a free port given as --port N ('ggp-player' means this binary),
    /// e.g. --player 'rand=ggp-player serve --agent random'; or an in-process agent
    /// (agent:random, agent:greedy[:EVAL], agent:alphabeta[:EVAL],
    /// agent:minimax[:DEPTH][:EVAL], agent:mcts[:N]), which
    /// plays any game without HTTP, or a course program asked in its game's own protocol
    /// (program:COMMAND, e.g. 'ours=program:target/release/loa6'; a halma program gets
    /// the play clock as its CPU seconds for the whole game). At least two, all GGP
    /// players or none.
    #[arg(long = "player", required = true, value_parser = Entrant::parse)]
    players: Vec<Entrant>,
    /// Round robin (everyone against everyone) or gauntlet (the first against each other).
    #[arg(long, value_enum, default_value_t = Format::RoundRobin)]
    format: Format,
    /// The game (`ggp-player games` lists them): its GDL rules for GGP players (only
    /// Breakthrough has them), the game itself for in-process agents.
    #[arg(long, default_value = "breakthrough")]
    game: String,
    /// Board sizes, comma-separated, as the game writes them (e.g. 5x5,6x6 for
    /// Breakthrough, 40,star300 for walk); default 5x5 for Breakthrough, the game's
    /// default size for the others.
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<String>,
    /// Play clocks in seconds, comma-separated: whole seconds for GGP players, fractions
    /// too (e.g. 0.1) between in-process agents; for a course program on a budget for
    /// the whole game (halma), its CPU seconds for the game.
    #[arg(long, value_delimiter = ',', default_value = "1", value_parser = PlayClock::parse)]
    playclocks: Vec<PlayClock>,
    /// Seconds the players get after START.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600))]
    startclock: u64,
    /// Games per pairing, size and play clock; colours alternate.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
    /// Matches played at once (default: one per two cores, so that each player's search
    /// gets a core).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Whose way of writing messages to imitate.
    #[arg(long, value_enum, default_value_t = Dialect::GgpBase)]
    dialect: Dialect,
    /// Results file: one JSON line per finished match, written as soon as it ends.
    #[arg(long, default_value = "results.jsonl")]
    results: PathBuf,
    /// Continue the tournament recorded in --results: play only the games still missing.
    #[arg(long)]
    resume: bool,
    /// Play the two-player game of this GDL (KIF) file instead of Breakthrough, refereed
    /// by the reasoner (--sizes is ignored; results are recorded under the file's name).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// In-process matches: a game still going after this many plies is a draw (won by
    /// the one with more CPU time left when both players are course programs on a
    /// budget for the whole game, as in halma).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    max_plies: u32,
    /// Stop once a sequential probability ratio test is decided: ELO0,ELO1,ALPHA,BETA
    /// (e.g. 0,50,0.05,0.05; H1 means the first player is stronger by about ELO1).
    #[arg(long)]
    sprt: Option<Sprt>,
    /// Print the games still to play (as --results and --resume leave them; none once
    /// the SPRT is decided) as JSON lines, each with its number for --only-game; play
    /// nothing.
    #[arg(long, conflicts_with = "only_game")]
    plan: bool,
    /// Play only game K of the schedule and print its record as a JSON line (--results
    /// is not read or written): how a cluster plays a tournament (docs/cluster.md).
    #[arg(long, value_name = "K")]
    only_game: Option<usize>,
}

/// The one runtime of the commands that talk over the network.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

fn print_view(view: MatchView<'_>) {
    for line in view.lines() {
        println!("{line}");
    }
}

/// A match id that no earlier run used.
fn match_id(what: &str) -> anyhow::Result<String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis();
    Ok(format!("match-{what}-{stamp}"))
}

/// One match of a GDL game, any number of roles, printed step by step.
fn referee_gdl_match(args: MatchArgs, rules: &std::path::Path) -> anyhow::Result<()> {
    let game = GgpGame::from_file(rules).map_err(anyhow::Error::msg)?;
    let gdl = game
        .reasoner()
        .expect("a rules file is refereed by the reasoner")
        .clone();
    let specs: Vec<PlayerSpec> = if args.players.is_empty() {
        args.white.into_iter().chain(args.black).collect()
    } else {
        args.players
    };
    let roles = game.roles().len();
    anyhow::ensure!(
        specs.len() == roles,
        "{} has {roles} roles: give one --player per role (or --white and --black for two)",
        game.condition
    );
    runtime()?.block_on(async {
        let players = RunningPlayer::start_all(&specs)
            .await
            .map_err(anyhow::Error::msg)?;
        let addrs: Vec<String> = players.iter().map(|p| p.addr.clone()).collect();
        let spec = GdlMatchSpec {
            id: match_id(&game.condition)?,
            game: game.condition.clone(),
            rules: game.rules.clone(),
            gdl,
            names: addrs.clone(),
            addrs,
            start_clock: args.startclock,
            play_clock: ggp_clock(args.playclock)?,
            dialect: args.dialect,
        };
        println!("{}", spec.header());
        let record = play_gdl_match(&spec).await;
        for p in players {
            p.stop().await;
        }
        print_view(record.view());
        anyhow::Ok(())
    })
}

fn referee_match(args: MatchArgs) -> anyhow::Result<()> {
    if let Some(rules) = args.rules.clone() {
        return referee_gdl_match(args, &rules);
    }
    let (Some(white), Some(black)) = (&args.white, &args.black) else {
        anyhow::bail!("give --white and --black (or --rules FILE with a --player per role)");
    };
    match (white.contestant(), black.contestant()) {
        (Some(w), Some(b)) => {
            let native = NativeMatch {
                players: [w, b],
                size: args.size.clone(),
                variant: args.variant.clone(),
                play_clock: args.playclock,
                max_plies: args.max_plies,
            };
            return games::dispatch(&args.game, native)?;
        }
        (Some(_), None) | (None, Some(_)) => anyhow::bail!(
            "an in-process agent (agent:...) or course program (program:...) plays only against another one: give both --white and --black so"
        ),
        _ => {}
    }
    let of = GgpGameOf {
        size: args.size.clone(),
        variant: args.variant.clone(),
    };
    let game = games::dispatch(&args.game, of)?.map_err(anyhow::Error::msg)?;
    let specs = [white.clone(), black.clone()];
    runtime()?.block_on(async {
        let players = RunningPlayer::start_all(&specs)
            .await
            .map_err(anyhow::Error::msg)?;
        let addrs = [players[0].addr.clone(), players[1].addr.clone()];
        let spec = MatchSpec {
            id: match_id(&game.condition)?,
            names: addrs.clone(),
            addrs,
            start_clock: args.startclock,
            play_clock: ggp_clock(args.playclock)?,
            dialect: args.dialect,
        };
        println!("{}", spec.header(&game));
        let record = game.play(&spec).await;
        for p in players {
            p.stop().await;
        }
        print_view(record.view());
        anyhow::Ok(())
    })
}

/// The play clock of a match with GGP players, whose START carries whole seconds.
fn ggp_clock(clock: PlayClock) -> anyhow::Result<u64> {
    clock.whole_secs().ok_or_else(|| {
        anyhow::anyhow!("--playclock {clock}: GGP players take whole seconds (fractions only between in-process agents)")
    })
}

/// A game over GGP, on the size asked for or the game's default.
struct GgpGameOf {
    size: Option<String>,
    variant: Option<String>,
}

impl games::Tool for GgpGameOf {
    type Output = Result<GgpGame, String>;
    fn run<S: GameSpec>(self) -> Result<GgpGame, String> {
        let size = self.size.as_deref().unwrap_or(S::DEFAULT_SIZE);
        GgpGame::of::<S>(size, self.variant.as_deref())
    }
}

/// A match on a game itself between in-process agents or course programs, printed move
/// by move.
struct NativeMatch {
    players: [Contestant; 2],
    size: Option<String>,
    variant: Option<String>,
    play_clock: PlayClock,
    max_plies: u32,
}

impl games::Tool for NativeMatch {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let start = games::start::<S>(self.size.as_deref(), self.variant.as_deref())
            .map_err(anyhow::Error::msg)?;
        let clock = self.play_clock.duration();
        let [mut first, mut second] = self
            .players
            .each_ref()
            .map(|p| native::mover::<S>(p, clock));
        let size = self.size.as_deref().unwrap_or(S::DEFAULT_SIZE);
        println!(
            "{}",
            native::header(S::NAME, size, S::SIDES, &self.players, self.play_clock)
        );
        let (first, second) = (
            first.as_deref_mut().map_err(|e| anyhow::anyhow!("{e}"))?,
            second.as_deref_mut().map_err(|e| anyhow::anyhow!("{e}"))?,
        );
        let record = native::play(
            &start,
            [first, second],
            self.play_clock.duration(),
            self.max_plies,
        );
        print_view(record.view(S::SIDES, self.max_plies));
        Ok(())
    }
}

fn run_tournament(args: TournamentArgs) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let arena = Arena::choose(
        &args.game,
        args.rules.as_deref(),
        &args.sizes,
        args.max_plies,
        &args.players,
    )
    .map_err(anyhow::Error::msg)?;
    let config = TournamentConfig {
        entrants: args.players,
        format: args.format,
        play_clocks: args.playclocks,
        start_clock: args.startclock,
        games: args.games,
        concurrency: args.concurrency.unwrap_or(cores / 2).max(1),
        dialect: args.dialect,
        results: args.results,
        resume: args.resume,
        sprt: args.sprt,
        progress: true,
    };
    if args.plan {
        return split::print_plan(&config, &arena, &mut std::io::stdout());
    }
    if let Some(game) = args.only_game {
        return runtime()?.block_on(split::print_game(
            &config,
            &arena,
            game,
            &mut std::io::stdout(),
        ));
    }
    let outcome = runtime()?.block_on(tournament::run(&config, &arena))?;
    let names: Vec<String> = config.entrants.iter().map(|e| e.name.clone()).collect();
    println!(
        "{:<12} {:<12} {:<10} {:>6} {:>16} {:>7} {:>22} {:>7}",
        "player",
        "opponent",
        "condition",
        "games",
        "+win =draw -loss",
        "score",
        "Elo [95% interval]",
        "faults"
    );
    for row in tournament::table(&outcome.records, &names) {
        let (lo, elo, hi) = row.wdl.elo();
        println!(
            "{:<12} {:<12} {:<10} {:>6} {:>16} {:>6.1}% {:>22} {:>7}",
            row.player,
            row.opponent,
            row.condition,
            row.wdl.games(),
            row.wdl.to_string(),
            100.0 * row.wdl.score(),
            format!(
                "{} [{}, {}]",
                format_elo(elo),
                format_elo(lo),
                format_elo(hi)
            ),
            row.faults
        );
    }
    if let (Some(sprt), Some(verdict)) = (config.sprt, outcome.verdict) {
        let (lower, upper) = sprt.bounds();
        let wdl = outcome.first_pair;
        println!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} (bounds {:.2}, {:.2}): {verdict}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.llr(&wdl),
            lower,
            upper
        );
    }
    let mut overheads: Vec<u64> = outcome
        .records
        .iter()
        .map(|r| r.referee_overhead_us)
        .collect();
    overheads.sort_unstable();
    if let Some(median) = overheads.get(overheads.len() / 2) {
        println!(
            "referee overhead per move: median {median} µs over {} matches",
            overheads.len()
        );
    }
    println!("results: {}", config.results.display());
    if outcome.interrupted {
        anyhow::bail!("interrupted; run again with --resume to play the missing games");
    }
    Ok(())
}
