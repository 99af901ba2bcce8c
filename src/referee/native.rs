//! Matches on a registered game itself, no HTTP and no rules sent: between agents of
//! this process, or course programs asked for each move in their own protocol
//! ([`super::program`]). The referee still trusts nothing: every move is checked against
//! the legal moves and timed against the clock, and a side that fails either loses the
//! game.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use tracing::warn;

use super::dir_program::DirProgram;
use super::interactive::Interactive;
use super::mover::{Fault, Mover};
use super::play_clock::PlayClock;
use super::program::Program;
use super::record::{self, CpuTime, FaultKind, MatchRecord, OnMove};
use crate::agent::{Agent, AgentConfig, AgentKind};
use crate::game::{self, Game, MoveBuffer, Outcome};
use crate::search::{BestSoFar, Limits, Table, clock, quick_move};
use crate::spec::{self, CourseProgram, GameSpec};

/// Kept back from the play clock when an agent is told its deadline: what it takes to
/// stop a search and hand back its move (a few milliseconds), with room for a busy
/// machine, where a search thread waits its turn for a core (tens of milliseconds, more
/// at several runnable threads a core): 100 ms, or a twentieth of a long clock, and never
/// more than half the clock.
pub fn margin(play_clock: Duration) -> Duration {
    (play_clock / 20)
        .max(Duration::from_millis(100))
        .min(play_clock / 2)
}

/// An in-process agent given as `agent:random`, `agent:greedy[:EVAL]`,
/// `agent:alphabeta[:EVAL]` (the game's default evaluation unless named),
/// `agent:minimax[:DEPTH][:EVAL]` (depth 2 unless given), `agent:mcts` or `agent:mcts:N`
/// (at most N iterations a move).
pub fn parse_agent(s: &str) -> Option<Result<AgentConfig, String>> {
    let rest = s.trim().strip_prefix("agent:")?;
    let mut words = rest.split(':');
    let kind = match words.next().unwrap_or("") {
        "random" => AgentKind::Random,
        "greedy" => AgentKind::Greedy,
        "alphabeta" => AgentKind::Alphabeta,
        "minimax" => AgentKind::Minimax,
        "mcts" => AgentKind::Mcts,
        _ => {
            return Some(Err(format!(
                "{s:?}: an in-process agent is agent:random, agent:greedy[:EVAL], agent:alphabeta[:EVAL], agent:minimax[:DEPTH][:EVAL] or agent:mcts[:ITERATIONS]"
            )));
        }
    };
    let mut config = AgentConfig {
        kind,
        threads: 1,
        ..AgentConfig::default()
    };
    let mut args: Vec<&str> = words.collect();
    match kind {
        AgentKind::Mcts if !args.is_empty() => match args.remove(0).parse::<u64>() {
            Ok(n) if n > 0 => config.iterations = Some(n),
            _ => {
                return Some(Err(format!(
                    "{s:?}: agent:mcts:N takes a positive number of iterations"
                )));
            }
        },
        AgentKind::Minimax
            if args
                .first()
                .is_some_and(|a| a.starts_with(|c: char| c.is_ascii_digit())) =>
        {
            match args.remove(0).parse::<u32>() {
                Ok(d) if (1..=crate::search::MAX_DEPTH).contains(&d) => config.depth = Some(d),
                _ => {
                    return Some(Err(format!(
                        "{s:?}: agent:minimax:DEPTH takes a depth of 1 to {} plies",
                        crate::search::MAX_DEPTH
                    )));
                }
            }
        }
        _ => {}
    }
    match args[..] {
        [] => {}
        [name] if kind != AgentKind::Mcts && kind != AgentKind::Random => {
            let known = crate::games::all_evaluations()
                .into_iter()
                .find(|&(_, e)| e == name);
            match known {
                Some((_, e)) => config.eval = Some(e),
                None => return Some(Err(format!("{s:?}: no game has an evaluation {name:?}"))),
            }
        }
        _ => return Some(Err(format!("{s:?}: too many parts after the agent's kind"))),
    }
    Some(Ok(config))
}

/// A player of a match on the game itself: an agent of this process (`agent:...`) or a
/// course program started for every move (`program:COMMAND`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contestant {
    Agent(AgentConfig),
    Program(String),
}

impl std::fmt::Display for Contestant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Contestant::Agent(config) => config.fmt(f),
            Contestant::Program(command) => write!(f, "program `{command}`"),
        }
    }
}

/// An agent told its deadline: the clock less its [`margin`], from the moment the move
/// is asked for. It searches on a thread of its own while this one waits, so that a
/// search kept from stopping in time (a busy machine can leave its thread without a core
/// for longer than the margin) still gives a move in time: at the give-up instant of
/// [`clock::move_time`], the best move the search has published, or a quick legal move
/// if it has published none, as the GGP player and the course programs answer.
struct Timed<G: Game> {
    /// Shared with the search's thread; an overrunning search keeps it until it stops.
    agent: Arc<Mutex<Agent<G>>>,
    play_clock: Duration,
}

impl<G: Game> Mover<G> for Timed<G> {
    fn next_move(&mut self, position: &G, _ply: usize, earlier: &[u64]) -> Result<G::Move, Fault> {
        let time = clock::move_time(Instant::now(), self.play_clock, margin(self.play_clock));
        let best = Arc::new(BestSoFar::default());
        let limits = Limits::until(time.search_until).with_best(Arc::clone(&best));
        let (found, answer) = mpsc::channel();
        let (agent, root, earlier) = (Arc::clone(&self.agent), position.clone(), earlier.to_vec());
        let search = move || {
            let mut agent = agent.lock().unwrap_or_else(|e| e.into_inner());
            let _ = found.send(agent.choose(&root, &limits, &earlier).map(|c| c.mv));
        };
        if let Err(e) = thread::Builder::new().name("agent".into()).spawn(search) {
            warn!(error = %e, "cannot start the agent's search thread: answering a quick move");
        }
        match answer.recv_timeout(time.give_up_at.saturating_duration_since(Instant::now())) {
            Ok(mv) => mv.ok_or(Fault::NoMove),
            Err(_) => {
                let published = best.get(position);
                warn!(
                    depth = published.and_then(|(_, d)| d),
                    "no move from the agent's search in time: answering its best move so far"
                );
                published
                    .map(|(mv, _)| mv)
                    .or_else(|| quick_move(position))
                    .ok_or(Fault::NoMove)
            }
        }
    }
}

/// The mover of `contestant` in game `S`, or why it cannot play `S`. An agent has
/// `play_clock` for each move; a program asked through its game's request protocol has
/// the course's limit per move, one run in a directory of its own has `play_clock` of
/// CPU time for the whole game.
pub fn mover<S: GameSpec>(
    contestant: &Contestant,
    play_clock: Duration,
) -> Result<Box<dyn Mover<S::Game>>, String> {
    match contestant {
        Contestant::Agent(config) => Ok(Box::new(Timed {
            agent: Arc::new(Mutex::new(Agent::new::<S>(sized::<S>(*config, play_clock)))),
            play_clock,
        })),
        Contestant::Program(command) => match S::course_program() {
            Some(CourseProgram::Request(protocol)) => Ok(Box::new(Program::new(command, protocol))),
            Some(CourseProgram::Interactive(protocol)) => {
                Ok(Box::new(Interactive::new(command, protocol)))
            }
            Some(CourseProgram::Directory(protocol)) => {
                Ok(Box::new(DirProgram::new(command, protocol, play_clock)))
            }
            None => Err(no_protocol::<S>()),
        },
    }
}

/// `config` with an alpha-beta table no larger than its searches can fill: room for two
/// moves' stores (the table is kept from move to move) at `play_clock` less the
/// [`margin`], within the configured size. The agent writes its whole table before the
/// match starts, so a 0.1 s match should not pay for the table of a 10 s one.
fn sized<S: GameSpec>(config: AgentConfig, play_clock: Duration) -> AgentConfig {
    if config.kind != AgentKind::Alphabeta {
        return config;
    }
    let search = play_clock.saturating_sub(margin(play_clock));
    let filled = Table::megabytes_filled(S::STORES_PER_SECOND, config.threads, search * 2);
    AgentConfig {
        hash_mb: filled.min(config.hash_mb).max(1),
        ..config
    }
}

fn no_protocol<S: GameSpec>() -> String {
    let with: Vec<&str> = crate::games::with_programs();
    format!(
        "{} has no course program protocol (program:... plays {})",
        S::NAME,
        crate::spec::one_of(&with)
    )
}

/// One refereed game.
#[derive(Clone, Debug)]
pub struct NativeRecord {
    /// The moves in the game's notation, the opening's first.
    pub moves: Vec<String>,
    /// How many of the first moves were the referee's random opening (see [`play`]).
    pub opening: u32,
    /// Microseconds each move took (0 for the opening's).
    pub move_us: Vec<u64>,
    /// Scores (1, 0.5, 0) of the side that moved first and of the other.
    pub scores: [f64; 2],
    /// The fault that ended the game, and the side (0 first, 1 second) that made it.
    pub fault: Option<(usize, Fault)>,
    /// Stopped at the ply cap before the game ended: a draw, unless both players keep a
    /// budget for the whole game ([`Mover::time_left`]), when more time left wins.
    pub capped: bool,
    /// Each side's time left of its budget for the whole game at the end, for players
    /// that keep one.
    pub time_left: [Option<Duration>; 2],
    /// Each side's time used of that budget, for the same players.
    pub time_used: [Option<Duration>; 2],
    /// Median time per ply spent by the referee itself (not waiting for an agent), in
    /// microseconds.
    pub overhead_us: u64,
}

/// The line `match` prints before an in-process match of `game` on `size` starts.
pub fn header(
    game: &str,
    size: &str,
    sides: [&str; 2],
    players: &[Contestant; 2],
    play_clock: PlayClock,
) -> String {
    format!(
        "{game} match on {size}: {} {}, {} {}; play clock {} s, in-process",
        sides[0], players[0], sides[1], players[1], play_clock
    )
}

/// Plays `start` to the end between `players` (the first moves first), each move within
/// its clock ([`Mover::clock`] of `play_clock`); a game longer than `max_plies` is a
/// draw, or when both players keep a budget for the whole game, won by the one with
/// more of it left (the USC Halma master's tie-break, `GAMES.md` §4.3).
///
/// The legal moves of `opening` are made first, for the players: each is then asked
/// about the position after them (so only players asked one position at a time, agents
/// and request programs, may be given an opening).
pub fn play<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: [&mut dyn Mover<G>; 2],
    play_clock: Duration,
    max_plies: u32,
) -> NativeRecord {
    play_telling(
        start,
        opening,
        players,
        play_clock,
        max_plies,
        &|_, _, _| {},
    )
}

/// [`play`], telling `on_move` each move (the opening's too) as it is made.
pub fn play_telling<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: [&mut dyn Mover<G>; 2],
    play_clock: Duration,
    max_plies: u32,
    on_move: OnMove<'_>,
) -> NativeRecord {
    let mut position = start.clone();
    let mut record = NativeRecord {
        moves: Vec::new(),
        opening: 0,
        move_us: Vec::new(),
        scores: [0.5, 0.5],
        fault: None,
        capped: false,
        time_left: [None; 2],
        time_used: [None; 2],
        overhead_us: 0,
    };
    let mut overheads = Vec::new();
    let mut earlier = Vec::new();
    let mut list = G::MoveList::default();
    for &mv in opening {
        position.generate_moves(&mut list);
        if game::result(&position).is_some() || !list.as_slice().contains(&mv) {
            break;
        }
        let name = position.move_name(mv);
        on_move(record.moves.len(), &name, 0);
        record.moves.push(name);
        record.move_us.push(0);
        record.opening += 1;
        if G::REPEATS {
            earlier.push(position.hash());
        }
        position.make(mv);
    }
    for ply in record.opening as usize..max_plies as usize {
        let side = ply % 2;
        let ply_start = Instant::now();
        if let Some(outcome) = game::result(&position) {
            let mover = match outcome {
                Outcome::Win => 1.0,
                Outcome::Draw => 0.5,
                Outcome::Loss => 0.0,
            };
            record.scores[side] = mover;
            record.scores[1 - side] = 1.0 - mover;
            return record.finish(overheads, &players);
        }
        let clock = players[side].clock(play_clock);
        let began = Instant::now();
        let choice = players[side].next_move(&position, ply, &earlier);
        let took = began.elapsed();
        position.generate_moves(&mut list);
        let fault = match choice {
            Err(fault) => Some(fault),
            Ok(mv) if !list.as_slice().contains(&mv) => Some(Fault::Illegal(format!("{mv:?}"))),
            Ok(_) if took > clock => Some(Fault::Late {
                ms: took.as_millis() as u64,
            }),
            Ok(mv) => {
                let (name, us) = (position.move_name(mv), took.as_micros() as u64);
                on_move(record.moves.len(), &name, us);
                record.moves.push(name);
                record.move_us.push(us);
                if G::REPEATS {
                    earlier.push(position.hash());
                }
                players[1 - side].observe(&position, mv);
                position.make(mv);
                None
            }
        };
        overheads.push(ply_start.elapsed().saturating_sub(took));
        if let Some(fault) = fault {
            record.scores[side] = 0.0;
            record.scores[1 - side] = 1.0;
            record.fault = Some((side, fault));
            return record.finish(overheads, &players);
        }
    }
    record.capped = game::result(&position).is_none();
    if record.capped {
        if let [Some(first), Some(second)] = [players[0].time_left(), players[1].time_left()]
            && first != second
        {
            let first_wins = if first > second { 1.0 } else { 0.0 };
            record.scores = [first_wins, 1.0 - first_wins];
        }
    } else {
        // The last move ended the game exactly at the cap.
        let side = max_plies as usize % 2;
        let mover = match game::result(&position) {
            Some(Outcome::Win) => 1.0,
            Some(Outcome::Loss) => 0.0,
            _ => 0.5,
        };
        record.scores[side] = mover;
        record.scores[1 - side] = 1.0 - mover;
    }
    record.finish(overheads, &players)
}

impl NativeRecord {
    /// The record with the referee's median overhead and the players' time left.
    fn finish<G: Game>(
        mut self,
        mut overheads: Vec<Duration>,
        players: &[&mut dyn Mover<G>; 2],
    ) -> NativeRecord {
        self.time_left = [players[0].time_left(), players[1].time_left()];
        self.time_used = [players[0].time_used(), players[1].time_used()];
        overheads.sort_unstable();
        self.overhead_us = overheads
            .get(overheads.len() / 2)
            .map_or(0, |d| d.as_micros() as u64);
        self
    }
}

/// A random opening for one match: up to `plies` random legal moves drawn from `seed`
/// (see [`play`]); a tournament gives both games of a pair, colours swapped, the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    pub plies: u32,
    pub seed: u64,
}

impl Opening {
    /// Its moves from `start`: the first of a hundred random lines drawn from the seed
    /// that leaves the game undecided, or none if every one ends it.
    pub fn line<G: Game>(self, start: &G) -> Vec<G::Move> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.seed);
        (0..100)
            .map(|_| game::random_line(start, self.plies, &mut rng))
            .find(|(position, _)| game::result(position).is_none())
            .map(|(_, line)| line)
            .unwrap_or_else(|| {
                warn!(
                    plies = self.plies,
                    "every random opening ended the game: playing from the start"
                );
                Vec::new()
            })
    }
}

/// One registered game's in-process matches with the game's type out of sight: what a
/// tournament between agents plays.
#[derive(Clone)]
pub struct NativeGames {
    /// The game's sides, the one that moves first first.
    pub sides: [&'static str; 2],
    /// The board sizes, as the game writes them.
    pub sizes: Vec<String>,
    /// Why course programs cannot play this game, if they cannot.
    no_programs: Option<String>,
    /// Why its course programs cannot start from an opening: they keep their own game.
    no_openings: Option<String>,
    play: Arc<PlayFn>,
}

/// Plays the start position of the board size numbered `size` between two contestants,
/// from a random opening if one is given.
type PlayFn =
    dyn Fn(usize, &[Contestant; 2], Duration, Option<Opening>) -> NativeRecord + Send + Sync;

impl NativeGames {
    /// Game `S` on each of `sizes` under `variant` (the game's first if `None`); a game
    /// longer than `max_plies` is a draw.
    pub fn new<S: GameSpec>(
        sizes: &[String],
        variant: Option<&str>,
        max_plies: u32,
    ) -> Result<NativeGames, String> {
        let starts = sizes
            .iter()
            .map(|size| spec::start::<S>(Some(size), variant))
            .collect::<Result<Vec<S::Game>, String>>()?;
        let play = move |size: usize,
                         players: &[Contestant; 2],
                         clock: Duration,
                         opening: Option<Opening>| {
            let start = &starts[size];
            let line = opening.map_or_else(Vec::new, |o| o.line(start));
            let [mut first, mut second] = players
                .each_ref()
                .map(|p| mover::<S>(p, clock).expect("contestants are checked before play"));
            play(start, &line, [&mut *first, &mut *second], clock, max_plies)
        };
        let no_openings =
            matches!(S::course_program(), Some(CourseProgram::Interactive(_))).then(|| {
                format!(
                    "--openings: {}'s course program keeps its own game from the start; \
                     openings are for agents and programs asked one position at a time",
                    S::NAME
                )
            });
        Ok(NativeGames {
            sides: S::SIDES,
            sizes: sizes.to_vec(),
            no_programs: S::course_program().is_none().then(no_protocol::<S>),
            no_openings,
            play: Arc::new(play),
        })
    }

    /// Whether `contestant` can play this game (a program needs the game's protocol),
    /// from random openings if `openings` (a program that keeps its own game cannot).
    pub fn accepts(&self, contestant: &Contestant, openings: bool) -> Result<(), String> {
        let refusal = self
            .no_programs
            .as_ref()
            .or(self.no_openings.as_ref().filter(|_| openings));
        match (contestant, refusal) {
            (Contestant::Program(_), Some(why)) => Err(why.clone()),
            _ => Ok(()),
        }
    }

    /// One match on the board size numbered `size`: `names` are the names of `players`,
    /// the first moving first, each [accepted](NativeGames::accepts). Blocks until the
    /// game ends. The record carries the CPU time used and left of each player on a
    /// budget for the whole game.
    pub fn play_match(
        &self,
        id: String,
        size: usize,
        names: [String; 2],
        players: &[Contestant; 2],
        play_clock: PlayClock,
        opening: Option<Opening>,
    ) -> MatchRecord {
        let began = Instant::now();
        let r = (self.play)(size, players, play_clock.duration(), opening);
        let faults = r.fault.iter().map(|(side, f)| {
            let (kind, detail) = match f {
                Fault::NoMove => (FaultKind::NoMove, "no move".to_owned()),
                Fault::Illegal(m) => (FaultKind::Illegal, m.clone()),
                Fault::Late { ms } => (FaultKind::Late, format!("took {ms} ms")),
                Fault::NoAnswer(why) => (FaultKind::NoMove, why.clone()),
                Fault::OutOfTime { used_ms, budget_ms } => (
                    FaultKind::OutOfTime,
                    format!("used {used_ms} ms of CPU time of {budget_ms} ms"),
                ),
            };
            record::Fault {
                ply: r.moves.len() as u32,
                role: self.sides[*side].to_owned(),
                kind,
                detail,
            }
        });
        let ms = |d: Duration| d.as_millis() as u64;
        let cpu = [0, 1].map(|side| match (r.time_used[side], r.time_left[side]) {
            (Some(used), Some(left)) => Some(CpuTime {
                used_ms: ms(used),
                left_ms: ms(left),
            }),
            _ => None,
        });
        MatchRecord {
            id,
            size: self.sizes[size].clone(),
            players: names,
            cpu,
            dialect: None,
            start_clock: 0,
            play_clock,
            faults: faults.collect(),
            goals: r.scores.map(|s| (s * 100.0).round() as u8),
            duration_ms: began.elapsed().as_millis() as u64,
            move_us: r.move_us,
            referee_overhead_us: r.overhead_us,
            roles: self.sides.map(str::to_owned),
            worker: None,
            goal_values: None,
            opening: opening.map(|_| r.opening),
            moves: r.moves,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::walk::spec::WalkSpec;
    use crate::spec::start;

    #[test]
    fn the_margin_grows_with_the_clock_and_leaves_half_of_a_short_one() {
        let ms = Duration::from_millis;
        assert_eq!(margin(ms(100)), ms(50));
        assert_eq!(margin(ms(250)), ms(100));
        assert_eq!(margin(ms(1000)), ms(100));
        assert_eq!(margin(ms(5000)), ms(250));
        assert_eq!(margin(Duration::ZERO), Duration::ZERO);
    }

    #[test]
    fn parses_agents_and_refuses_others() {
        let a = parse_agent("agent:alphabeta:mobility").unwrap().unwrap();
        assert_eq!((a.kind, a.eval), (AgentKind::Alphabeta, Some("mobility")));
        let g = parse_agent("agent:greedy:baseline").unwrap().unwrap();
        assert_eq!((g.kind, g.eval), (AgentKind::Greedy, Some("baseline")));
        let r = parse_agent("agent:random").unwrap().unwrap();
        assert_eq!((r.kind, r.eval), (AgentKind::Random, None));
        assert!(parse_agent("http://127.0.0.1:4001").is_none());
        assert!(
            parse_agent("agent:magic")
                .unwrap()
                .unwrap_err()
                .contains("agent:random")
        );
        assert!(
            parse_agent("agent:alphabeta:nope")
                .unwrap()
                .unwrap_err()
                .contains("no game")
        );
        let m = parse_agent("agent:mcts").unwrap().unwrap();
        assert_eq!((m.kind, m.iterations), (AgentKind::Mcts, None));
        let m = parse_agent("agent:mcts:500").unwrap().unwrap();
        assert_eq!(
            (m.kind, m.eval, m.iterations),
            (AgentKind::Mcts, None, Some(500))
        );
        for bad in ["agent:mcts:0", "agent:mcts:many"] {
            let e = parse_agent(bad).unwrap().unwrap_err();
            assert!(e.contains("positive number"), "{e}");
        }
        let m = parse_agent("agent:minimax").unwrap().unwrap();
        assert_eq!((m.kind, m.depth, m.eval), (AgentKind::Minimax, None, None));
        let m = parse_agent("agent:minimax:3:distance").unwrap().unwrap();
        assert_eq!(
            (m.kind, m.depth, m.eval),
            (AgentKind::Minimax, Some(3), Some("distance"))
        );
        let m = parse_agent("agent:minimax:race").unwrap().unwrap();
        assert_eq!((m.depth, m.eval), (None, Some("race")));
        for bad in [
            "agent:minimax:0",
            "agent:minimax:2x",
            "agent:minimax:2:race:3",
            "agent:random:race",
        ] {
            assert!(parse_agent(bad).unwrap().is_err(), "{bad}");
        }
    }

    #[test]
    fn an_agents_table_is_what_its_clock_can_fill_within_the_configured_size() {
        use crate::games::ataxx::spec::AtaxxSpec;
        let configured = AgentConfig::default();
        let mb =
            |config, secs: f64| sized::<AtaxxSpec>(config, Duration::from_secs_f64(secs)).hash_mb;
        let (short, long) = (mb(configured, 0.1), mb(configured, 5.0));
        assert!(short < long, "{short} MiB at 0.1 s, {long} MiB at 5 s");
        assert!(short >= 1);
        // A clock that could fill more than the configured size gets the configured size.
        assert_eq!(mb(configured, 600.0), configured.hash_mb);
        let small = AgentConfig {
            hash_mb: 8,
            ..configured
        };
        assert!((1..=8).contains(&mb(small, 5.0)));
        // Two threads store twice as much.
        let two = AgentConfig {
            threads: 2,
            ..configured
        };
        assert!(mb(two, 1.0) > mb(configured, 1.0));
        // Only alpha-beta's table is sized: MCTS keeps the size it was given.
        let mcts = AgentConfig {
            kind: AgentKind::Mcts,
            ..configured
        };
        assert_eq!(mb(mcts, 0.1), configured.hash_mb);
    }

    #[test]
    fn the_star_is_won_by_the_searcher_and_scored_both_ways() {
        let board = start::<WalkSpec>(Some("star300"), None).unwrap();
        let clock = Duration::from_secs(5);
        let player = |kind| {
            let config = AgentConfig {
                kind,
                seed: Some(3),
                hash_mb: 1,
                ..AgentConfig::default()
            };
            mover::<WalkSpec>(&Contestant::Agent(config), clock).unwrap()
        };
        let mut searcher = player(AgentKind::Alphabeta);
        let mut random = player(AgentKind::Random);
        let r = play(&board, &[], [&mut *searcher, &mut *random], clock, 100);
        assert_eq!(r.moves, ["0-300", "300-301"]);
        assert_eq!(
            (r.scores, r.fault.clone(), r.capped),
            ([1.0, 0.0], None, false)
        );
        // Black has no goal of its own: it can only wait for white to find the last spoke,
        // so the game ends at the cap (a draw) or with white's win.
        let r = play(&board, &[], [&mut *random, &mut *searcher], clock, 40);
        assert_eq!(r.fault, None);
        assert!(r.capped && r.scores == [0.5, 0.5] || !r.capped && r.scores == [1.0, 0.0]);
        assert_eq!(r.moves.len(), r.move_us.len());
        assert_eq!(r.moves.len() == 40, r.capped);
    }

    #[test]
    fn an_agent_whose_search_cannot_run_still_answers_in_time() {
        let board = start::<WalkSpec>(Some("star300"), None).unwrap();
        let agent = Arc::new(Mutex::new(Agent::new::<WalkSpec>(AgentConfig {
            seed: Some(1),
            hash_mb: 1,
            ..AgentConfig::default()
        })));
        let mut timed = Timed {
            agent: Arc::clone(&agent),
            play_clock: Duration::from_secs(1),
        };
        // The search's thread waits for the agent, held here, as a search starved of CPU
        // waits for a core: the answer is the quick move, given without the search.
        let held = agent.lock().unwrap();
        let mv = timed.next_move(&board, 0, &[]).unwrap();
        drop(held);
        assert_eq!(mv, quick_move(&board).unwrap());
        // Free again, the agent searches and answers a legal move.
        let searched = timed.next_move(&board, 0, &[]).unwrap();
        let mut legal = <crate::games::walk::Walk as Game>::MoveList::default();
        board.generate_moves(&mut legal);
        assert!(legal.as_slice().contains(&searched));
    }

    /// An agent that reports a fixed budget left, as a program on a game budget does.
    struct OnBudget {
        agent: Box<dyn Mover<crate::games::walk::Walk>>,
        left: Duration,
    }

    impl Mover<crate::games::walk::Walk> for OnBudget {
        fn time_left(&self) -> Option<Duration> {
            Some(self.left)
        }
        fn next_move(
            &mut self,
            position: &crate::games::walk::Walk,
            ply: usize,
            earlier: &[u64],
        ) -> Result<crate::games::walk::Move, Fault> {
            self.agent.next_move(position, ply, earlier)
        }
    }

    #[test]
    fn at_the_cap_more_time_left_wins_when_both_keep_a_budget() {
        let board = start::<WalkSpec>(Some("star300"), None).unwrap();
        let clock = Duration::from_secs(5);
        let random = |seed| {
            let config = AgentConfig {
                kind: AgentKind::Random,
                seed: Some(seed),
                ..AgentConfig::default()
            };
            mover::<WalkSpec>(&Contestant::Agent(config), clock).unwrap()
        };
        let budget = |seed, secs| OnBudget {
            agent: random(seed),
            left: Duration::from_secs(secs),
        };
        // Two plies cannot end a game on the star unless white finds the last spoke.
        for (white, black, scores) in [(7, 3, [1.0, 0.0]), (3, 7, [0.0, 1.0]), (5, 5, [0.5, 0.5])] {
            let (mut w, mut b) = (budget(1, white), budget(2, black));
            let r = play(&board, &[], [&mut w, &mut b], clock, 2);
            if !r.capped {
                continue;
            }
            assert_eq!(r.scores, scores, "{white} s against {black} s");
            let left = [white, black].map(|s| Some(Duration::from_secs(s)));
            assert_eq!(r.time_left, left);
        }
        // Without a budget on one side, the cap is a draw.
        let (mut w, mut b) = (budget(1, 7), random(2));
        let r = play(&board, &[], [&mut w, &mut *b], clock, 2);
        assert!(!r.capped || r.scores == [0.5, 0.5], "{r:?}");
        assert_eq!(r.time_left, [Some(Duration::from_secs(7)), None]);
    }
}
