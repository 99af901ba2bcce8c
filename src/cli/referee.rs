//! `match` and `tournament`: the referee.

use std::path::PathBuf;

use ggp_player::games;
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::ggp_match::GgpGame;
use ggp_player::referee::one_match::{self, GgpTerms, NativeMatch};
use ggp_player::referee::play_clock::PlayClock;
use ggp_player::referee::players::PlayerSpec;
use ggp_player::referee::split;
use ggp_player::referee::stats::Sprt;
use ggp_player::referee::summary::summary;
use ggp_player::referee::tournament::{self, Arena, Entrant, Format, Openings, TournamentConfig};
use ggp_player::spec::{GameSpec, Tool};

use super::runtime;

#[derive(clap::Args)]
pub struct MatchArgs {
    /// The player of the role called white (in Breakthrough and Halma it moves first; in
    /// Lines of Action and Ataxx, Black does): a URL (http://127.0.0.1:4001), a
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
    /// The player of the role called black: a URL or a command, as for --white.
    #[arg(long, value_parser = PlayerSpec::parse, required_unless_present = "players")]
    black: Option<PlayerSpec>,
    /// With --rules: the player of each role, in the rules' role order: a URL or a
    /// command that starts a GGP player, as for --white (instead of --white and --black,
    /// which need roles called so; any number of roles).
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
pub struct TournamentArgs {
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
    /// Matches played at once, at least 1 (default: one per two cores, so that each
    /// player's search gets a core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: Option<u32>,
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
    /// In-process matches: start each pair of games (the same players, colours swapped)
    /// from its own position PLIES random moves from the start, so that players whose
    /// search is deterministic (one thread, a fixed depth) do not repeat one game. The
    /// records keep the opening's moves first and say how many there were.
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(1..=100))]
    openings: Option<u32>,
    /// The seed the random openings are drawn from (the same seed, the same openings).
    #[arg(long, default_value_t = 1, requires = "openings")]
    opening_seed: u64,
}

/// Prints a line of the match as it comes.
fn print(line: String) {
    println!("{line}");
}

/// One match of a GDL game, any number of roles, printed step by step.
fn referee_gdl_match(args: MatchArgs, rules: &std::path::Path) -> anyhow::Result<()> {
    let game = GgpGame::from_file(rules).map_err(anyhow::Error::msg)?;
    let roles = game.roles();
    let specs: Vec<PlayerSpec> = match (args.white, args.black) {
        (Some(white), Some(black)) if roles.len() == 2 => one_match::by_role(&roles, white, black)
            .map_err(anyhow::Error::msg)?
            .to_vec(),
        (white, black) if args.players.is_empty() => white.into_iter().chain(black).collect(),
        _ => args.players,
    };
    anyhow::ensure!(
        specs.len() == roles.len(),
        "{} has {} roles ({}): give one --player per role, in that order",
        game.condition,
        roles.len(),
        roles.join(", ")
    );
    anyhow::ensure!(
        specs.iter().all(|p| p.contestant().is_none()),
        "--rules plays a GDL file between GGP players: give each role a URL or a command that \
         starts one; in-process agents (agent:...) and course programs (program:...) play a \
         registered game with --game instead"
    );
    let terms = GgpTerms {
        start_clock: args.startclock,
        play_clock: one_match::ggp_clock(args.playclock).map_err(anyhow::Error::msg)?,
        dialect: args.dialect,
    };
    runtime()?
        .block_on(one_match::gdl_match(&game, &specs, terms, &print))
        .map_err(anyhow::Error::msg)
}

pub fn run_match(args: MatchArgs) -> anyhow::Result<()> {
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
            return games::dispatch(&args.game, Native(native))?.map_err(anyhow::Error::msg);
        }
        (Some(_), None) | (None, Some(_)) => anyhow::bail!(
            "an in-process agent (agent:...) or course program (program:...) plays only against another one: give both --white and --black so"
        ),
        _ => {}
    }
    let game = one_match::ggp_game(&args.game, args.size.as_deref(), args.variant.as_deref())
        .map_err(anyhow::Error::msg)?;
    let terms = GgpTerms {
        start_clock: args.startclock,
        play_clock: one_match::ggp_clock(args.playclock).map_err(anyhow::Error::msg)?,
        dialect: args.dialect,
    };
    let specs = [white.clone(), black.clone()];
    runtime()?
        .block_on(one_match::ggp_match(&game, specs, terms, &print))
        .map_err(anyhow::Error::msg)
}

/// A match on the game asked for, between in-process contestants.
struct Native(NativeMatch);

impl Tool for Native {
    type Output = Result<(), String>;
    fn run<S: GameSpec>(self) -> Result<(), String> {
        self.0.run::<S>(&print)
    }
}

pub fn run_tournament(args: TournamentArgs) -> anyhow::Result<()> {
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
        concurrency: args.concurrency.map_or(cores / 2, |c| c as usize).max(1),
        dialect: args.dialect,
        results: args.results,
        resume: args.resume,
        sprt: args.sprt,
        progress: true,
        openings: args.openings.map(|plies| Openings {
            plies,
            seed: args.opening_seed,
        }),
    };
    if args.plan {
        return split::print_plan(&config, &arena, &mut std::io::stdout());
    }
    if let Some(game) = args.only_game {
        let mut out = std::io::stdout();
        return runtime()?.block_on(split::print_game(&config, &arena, game, &mut out));
    }
    let outcome = runtime()?.block_on(tournament::run(&config, &arena))?;
    for line in summary(&config, &outcome) {
        println!("{line}");
    }
    if outcome.interrupted {
        anyhow::bail!("interrupted; run again with --resume to play the missing games");
    }
    Ok(())
}
