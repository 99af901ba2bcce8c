//! `serve`: the GGP player.

use std::net::IpAddr;
use std::time::Duration;

use ggp_player::agent::{AgentConfig, AgentKind};
use ggp_player::games;
use ggp_player::gdl::Engine;
use ggp_player::mcts::cutoff::CutoffSetting;
use ggp_player::mcts::heuristic::{BiasWeight, HeuristicSetting};
use ggp_player::mcts::{Playouts, TranspositionValues};
use ggp_player::memory;
use ggp_player::player::ServeConfig;
use ggp_player::player::handler::DEFAULT_MAX_MATCHES;
use ggp_player::player::server;

use super::{parse_hash_mb, runtime};

#[derive(clap::Args)]
pub struct ServeArgs {
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
    /// machine, replies came at most 39 ms after the search deadline (p99 12 ms; with more
    /// matches than cores and a busy machine, p99 28 ms, max 37 ms); the default covers
    /// that with room for a LAN. Raise it for a slow
    /// network or a busy machine (see scripts/README.md).
    #[arg(long, default_value_t = server::DEFAULT_MARGIN.as_millis() as u64)]
    margin_ms: u64,
    /// Seed of the random agent and of Monte-Carlo tree search, for reproducible games.
    #[arg(long)]
    seed: Option<u64>,
    /// How Monte-Carlo tree search plays out its leaves: auto (mast or random, chosen per
    /// general game in the start clock by quick games of one against the other; mast in
    /// the engine's own games), mast (each role's move with the best average reward so far
    /// in the match, or 40% of the time a random one), nst (as mast, each move rated also
    /// by its average reward right after the move before it) or random (uniformly random
    /// moves).
    #[arg(long, value_enum, default_value_t = Playouts::default())]
    playouts: Playouts,
    /// In games no engine of ours recognises, whether Monte-Carlo tree search may stop its
    /// playouts after a few moves and score them by the rules' goal values: auto (where
    /// random games in the start clock show that the goals before the end predict the
    /// result, as a piece count may), on (wherever the goals vary before the end, to
    /// measure what the cut is worth) or off (always play to the end).
    #[arg(long, value_enum, default_value_t = CutoffSetting::Auto)]
    cutoff: CutoffSetting,
    /// In games no engine of ours recognises, whether Monte-Carlo tree search may stop its
    /// playouts a few moves after its leaf and score them by an evaluation found in the
    /// start clock by random games: auto (by counts of the state's facts, pieces of each
    /// colour say, where such a count predicts the result), on (with any count that says
    /// anything of it, to measure what the heuristic is worth), learnt (by a weight for
    /// every fact of the state fitted to the games' results, where it predicts games held
    /// out of the fit better than a constant) or off.
    #[arg(long, value_enum, default_value_t = HeuristicSetting::default())]
    heuristics: HeuristicSetting,
    /// With a heuristic found (`--heuristics auto`, `on` or `learnt`), its weight as a progressive
    /// bias: the tree's selection adds W·(H − ½)/(visits + 1) to a move's value, H the
    /// heuristic's value of the position it leads to, and the playouts run to the end
    /// instead of being cut. 0 (the default) for no bias.
    #[arg(long, default_value = "0", value_parser = BiasWeight::parse)]
    progressive_bias: BiasWeight,
    /// Whether Monte-Carlo tree search makes one node of a position reached by several
    /// orders of moves, sharing what was learnt of it (true or false).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    transpositions: bool,
    /// With transpositions, where Monte-Carlo tree search's selection reads a move's mean
    /// reward: edge (the move's own statistics, from the iterations that played it from
    /// that position) or node (the position it leads to, from every iteration through
    /// it, whichever position they came from).
    #[arg(long, value_enum, default_value_t = TranspositionValues::Edge)]
    transposition_values: TranspositionValues,
    /// Whether the Monte-Carlo trees of several threads (--threads) share the positions
    /// they prove while they search (true or false).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    shared_proofs: bool,
    /// Whether Monte-Carlo tree search also rates a move by the results of every
    /// iteration that played it anywhere below the position, in the tree or in the
    /// playout (GRAVE: generalised rapid action value estimation), while its own results
    /// are few (true or false).
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    rave: bool,
    /// Monte-Carlo tree search iterations per move at most, the clock still applying: a
    /// search that does not depend on the machine's speed or load, for comparing players
    /// (with --no-ponder, since a ponder grows the tree as well).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    iterations: Option<u64>,
    /// What answers the rules of a game no engine of ours recognises: auto (the
    /// propositional network where it can be built in the start clock, unless a short
    /// race at START finds the reasoner clearly faster; else the reasoner), reasoner, or
    /// propnet (refuse a match whose network cannot be built).
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    gdl_engine: Engine,
    /// Threads of each search, sharing one transposition table (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Transposition tables' total in MiB, shared equally among the matches the player
    /// plays at once: each match's table (or Monte-Carlo tree, in games played by MCTS)
    /// is hash-mb / max-matches, kept for the match. At least 1 MiB a match: a total
    /// below --max-matches is refused.
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

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let config = ServeConfig {
        bind: args.bind,
        port: args.port,
        agent: AgentConfig {
            kind: args.agent,
            eval: args.eval,
            seed: args.seed,
            playouts: args.playouts,
            cutoff: args.cutoff,
            heuristics: args.heuristics,
            progressive_bias: args.progressive_bias,
            transpositions: args.transpositions,
            transposition_values: args.transposition_values,
            shared_proofs: args.shared_proofs,
            rave: args.rave,
            iterations: args.iterations,
            hash_mb: args.hash_mb,
            gdl_engine: args.gdl_engine,
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
    config.check_hash()?;
    memory::check_table(args.hash_mb, "--hash-mb (all matches' tables together)")
        .map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        server::is_valid_name(&config.name),
        "bad --name {:?}: it must be one token, without spaces, parentheses or ';'",
        config.name
    );
    runtime()?.block_on(async {
        let listener = server::bind(&config).await?;
        server::serve(config, listener, server::shutdown_signal()).await?;
        Ok(())
    })
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
