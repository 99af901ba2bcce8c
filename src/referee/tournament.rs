//! Tournaments: many matches between named players over several conditions (a game's
//! board sizes, or a rules file) and play clocks, each pairing with both colours,
//! several at once, every finished match appended to a results file at once so that
//! nothing is lost and an interrupted tournament can be resumed. The players are GGP
//! players refereed over HTTP, or in-process agents of any registered game ([`Arena`]);
//! the results, the table and the statistics are the same for both.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::dialect::Dialect;
use super::ggp_match::{GgpGame, MatchSpec};
use super::native::{Contestant, NativeGames, Opening};
use super::play_clock::PlayClock;
use super::players::{PlayerSpec, RunningPlayer};
use super::record::MatchRecord;
use super::stats::{Sprt, Verdict, Wdl};
use crate::spec::{self, GameSpec};
use crate::{games, input_file};

#[derive(Clone, Debug)]
pub struct Entrant {
    pub name: String,
    pub spec: PlayerSpec,
}

impl Entrant {
    /// `NAME=URL-or-command` (e.g. `rand=ggp-player serve --agent random`), or
    /// `NAME=agent:KIND` for an in-process agent.
    pub fn parse(s: &str) -> Result<Entrant, String> {
        let (name, spec) = s
            .split_once('=')
            .ok_or_else(|| format!("{s:?}: expected NAME=URL or NAME=COMMAND, e.g. 'rand=ggp-player serve --agent random'"))?;
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("{s:?}: a player name must be one word"));
        }
        Ok(Entrant {
            name: name.to_string(),
            spec: PlayerSpec::parse(spec)?,
        })
    }

    /// The entrant as a player of the game itself, unless it is a GGP player.
    fn contestant(&self) -> Option<Contestant> {
        self.spec.contestant()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Every player against every other.
    RoundRobin,
    /// The first player against each of the others.
    Gauntlet,
}

#[derive(Clone, Debug)]
pub struct TournamentConfig {
    pub entrants: Vec<Entrant>,
    pub format: Format,
    pub play_clocks: Vec<PlayClock>,
    pub start_clock: u64,
    /// Games per pairing, condition and play clock; colours alternate.
    pub games: u32,
    pub concurrency: usize,
    pub dialect: Dialect,
    pub results: PathBuf,
    pub resume: bool,
    pub sprt: Option<Sprt>,
    pub progress: bool,
    /// Random openings for in-process matches, if any.
    pub openings: Option<Openings>,
}

/// Random openings: both games of a round pair (the same players, colours swapped)
/// start from one line of up to `plies` random moves, drawn from `seed` and the pair's
/// number, so that players whose search is deterministic do not play one game over
/// and over, and neither colour's luck in the opening counts twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Openings {
    pub plies: u32,
    pub seed: u64,
}

impl Openings {
    /// The opening of the games of round `round`: one per two rounds.
    fn of_round(self, round: u32) -> Opening {
        const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
        Opening {
            plies: self.plies,
            seed: self
                .seed
                .wrapping_add(u64::from(round / 2).wrapping_mul(GOLDEN)),
        }
    }
}

/// What a tournament's matches are played in: one game per condition (board size, or
/// rules file), and how a match of it is played.
#[derive(Clone)]
pub enum Arena {
    /// GGP players (URLs or commands), started once for the whole tournament; every
    /// match refereed over HTTP.
    Ggp(Vec<GgpGame>),
    /// In-process agents (`agent:...`) and course programs (`program:...`) on a
    /// registered game itself; every match on a blocking thread of its own.
    Native(NativeGames),
}

/// Refused: in-process agents or course programs and GGP players in one tournament.
const MIXED: &str = "in-process agents (agent:...) or course programs (program:...) and GGP players \
                     cannot meet in one tournament: those play the game itself, without HTTP; give \
                     every player as agent:... or program:..., or none";

impl Arena {
    /// Game `S` on each of `sizes` between GGP players, over the rules the game sends.
    pub fn ggp<S: GameSpec>(sizes: &[String]) -> Result<Arena, String> {
        let games = sizes.iter().map(|size| GgpGame::of::<S>(size, None));
        Ok(Arena::Ggp(games.collect::<Result<_, _>>()?))
    }

    /// Game `S` on each of `sizes` between in-process agents; a game longer than
    /// `max_plies` is a draw.
    pub fn native<S: GameSpec>(sizes: &[String], max_plies: u32) -> Result<Arena, String> {
        Ok(Arena::Native(NativeGames::new::<S>(
            sizes, None, max_plies,
        )?))
    }

    /// The arena `entrants` play in: in-process agents play the registered game called
    /// `game` itself; GGP players its GDL rules, or those of the file `rules`. `sizes`
    /// (the game's tournament size if empty; ignored with `rules`) are the conditions.
    pub fn choose(
        game: &str,
        rules: Option<&Path>,
        sizes: &[String],
        max_plies: u32,
        entrants: &[Entrant],
    ) -> Result<Arena, String> {
        let in_process = in_process(entrants)?;
        if let Some(path) = rules {
            if in_process {
                return Err("in-process agents (agent:...) play registered games (--game), not a GDL file's rules".into());
            }
            return Ok(Arena::Ggp(vec![GgpGame::from_file(path)?]));
        }
        let chooser = Chooser {
            sizes: sizes.to_vec(),
            max_plies,
            in_process,
        };
        games::dispatch(game, chooser).map_err(|e| e.to_string())?
    }

    /// The two roles of condition number `condition`, the one that moves first first.
    pub fn roles(&self, condition: usize) -> [String; 2] {
        let roles = match self {
            Arena::Ggp(games) => games[condition].roles(),
            Arena::Native(native) => native.sides.map(str::to_owned).to_vec(),
        };
        match <[String; 2]>::try_from(roles) {
            Ok(two) => two,
            Err(roles) => [0, 1].map(|i| roles.get(i).cloned().unwrap_or_default()),
        }
    }

    /// The conditions, as the records name them.
    pub fn conditions(&self) -> Vec<String> {
        match self {
            Arena::Ggp(games) => games.iter().map(|g| g.condition.clone()).collect(),
            Arena::Native(native) => native.sizes.clone(),
        }
    }
}

/// Whether the entrants are all in-process agents (or else all GGP players).
fn in_process(entrants: &[Entrant]) -> Result<bool, String> {
    let agents = entrants.iter().filter(|e| e.contestant().is_some()).count();
    if agents > 0 && agents < entrants.len() {
        return Err(MIXED.to_owned());
    }
    Ok(agents > 0)
}

/// [`Arena::choose`] for one registered game.
struct Chooser {
    sizes: Vec<String>,
    max_plies: u32,
    in_process: bool,
}

impl spec::Tool for Chooser {
    type Output = Result<Arena, String>;
    fn run<S: GameSpec>(self) -> Result<Arena, String> {
        let sizes = if self.sizes.is_empty() {
            vec![S::TOURNAMENT_SIZE.to_owned()]
        } else {
            self.sizes
        };
        if self.in_process {
            return Arena::native::<S>(&sizes, self.max_plies);
        }
        if S::ggp_rules(S::DEFAULT_SIZE, S::VARIANTS[0]).is_none() {
            return Err(format!(
                "{} has no GGP rules: its players must be in-process agents, e.g. --player a=agent:alphabeta --player b=agent:random",
                S::NAME
            ));
        }
        Arena::ggp::<S>(&sizes)
    }
}

/// One game to play: the entrants playing the first and the second role, and the
/// conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Game {
    pub first: usize,
    pub second: usize,
    /// The condition's number in the arena.
    pub condition: usize,
    pub play_clock: PlayClock,
    /// The round it belongs to (colours swap from one round to the next).
    pub round: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("{0}")]
    Config(String),
    /// The results file cannot be read or written; the message names it.
    #[error("{0}")]
    Results(String),
    #[error("{0}")]
    Player(String),
}

/// What a tournament produced: every record (resumed ones included) and the SPRT verdict.
pub struct Outcome {
    pub records: Vec<MatchRecord>,
    /// The first entrant's results against the second (what the SPRT is computed on).
    pub first_pair: Wdl,
    pub verdict: Option<Verdict>,
    pub interrupted: bool,
}

/// The full schedule, interleaved so that any prefix is balanced across conditions,
/// clocks, pairings and colours.
pub(super) fn schedule(config: &TournamentConfig, conditions: usize) -> Vec<Game> {
    let n = config.entrants.len();
    let pairs: Vec<(usize, usize)> = match config.format {
        Format::RoundRobin => (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect(),
        Format::Gauntlet => (1..n).map(|b| (0, b)).collect(),
    };
    let mut games = Vec::new();
    for round in 0..config.games {
        for condition in 0..conditions {
            for &play_clock in &config.play_clocks {
                for &(a, b) in &pairs {
                    let (first, second) = if round % 2 == 0 { (a, b) } else { (b, a) };
                    games.push(Game {
                        first,
                        second,
                        condition,
                        play_clock,
                        round,
                    });
                }
            }
        }
    }
    games
}

/// Reads the records of an earlier run (one JSON object per line).
pub fn read_results(path: &Path) -> Result<Vec<MatchRecord>, TournamentError> {
    if let Err(e) = std::fs::metadata(path)
        && e.kind() == std::io::ErrorKind::NotFound
    {
        return Ok(Vec::new());
    }
    let mut records = Vec::new();
    input_file::for_each_line(
        path,
        input_file::RESULTS,
        input_file::MAX_RECORD_LINE,
        |number, line| {
            if !line.trim().is_empty() {
                records.push(
                    serde_json::from_str(line).map_err(|e| {
                        format!("results file {} line {number}: {e}", path.display())
                    })?,
                );
            }
            Ok(())
        },
    )
    .map_err(TournamentError::Results)?;
    Ok(records)
}

fn cannot_write(path: &Path, e: std::io::Error) -> TournamentError {
    TournamentError::Results(format!("cannot write {}: {e}", path.display()))
}

/// Refuses a configuration that cannot be played in `arena`: too few or duplicate
/// players, an SPRT between more than two, players of the wrong kind, nothing to play.
pub(super) fn check(config: &TournamentConfig, arena: &Arena) -> Result<(), TournamentError> {
    let names: Vec<&str> = config.entrants.iter().map(|e| e.name.as_str()).collect();
    if names.len() < 2 {
        return Err(TournamentError::Config(
            "a tournament needs at least two players".into(),
        ));
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(TournamentError::Config(format!(
                "two players are named {n}"
            )));
        }
    }
    if config.sprt.is_some() && names.len() != 2 {
        return Err(TournamentError::Config(
            "--sprt compares exactly two players".into(),
        ));
    }
    let in_process = in_process(&config.entrants).map_err(TournamentError::Config)?;
    match arena {
        Arena::Ggp(games) => {
            if in_process {
                return Err(TournamentError::Config(
                    "in-process agents (agent:...) play in their own arena, without HTTP".into(),
                ));
            }
            if let Some(game) = games.iter().find(|g| g.roles().len() != 2) {
                return Err(TournamentError::Config(format!(
                    "{} has {} roles: a tournament pairs two players",
                    game.condition,
                    game.roles().len()
                )));
            }
        }
        Arena::Native(_) if !in_process => {
            return Err(TournamentError::Config(
                "GGP players need a game refereed over GGP, not in-process matches".into(),
            ));
        }
        Arena::Native(native) => {
            for c in config.entrants.iter().filter_map(Entrant::contestant) {
                native
                    .accepts(&c, config.openings.is_some())
                    .map_err(TournamentError::Config)?;
            }
        }
    }
    if let (Arena::Ggp(_), Some(_)) = (arena, config.openings) {
        return Err(TournamentError::Config(
            "--openings: GGP players start every match from the rules' initial state; \
             random openings are for in-process agents and course programs"
                .into(),
        ));
    }
    if let (Arena::Ggp(_), Some(clock)) = (
        arena,
        config.play_clocks.iter().find(|c| c.whole_secs().is_none()),
    ) {
        return Err(TournamentError::Config(format!(
            "play clock {clock}: GGP players take whole seconds (fractions only between in-process agents)"
        )));
    }
    if config.games == 0 || arena.conditions().is_empty() || config.play_clocks.is_empty() {
        return Err(TournamentError::Config(
            "nothing to play: give games, sizes and play clocks".into(),
        ));
    }
    Ok(())
}

/// What is left of a tournament: the records already in the results file, and the
/// games of the schedule still missing from it, each with its number in the schedule.
pub(super) struct Pending {
    pub records: Vec<MatchRecord>,
    pub todo: Vec<(usize, Game)>,
}

/// Reads the results file and leaves out of the schedule the games it already holds;
/// refuses a file with results unless `config.resume`.
pub(super) fn pending(
    config: &TournamentConfig,
    arena: &Arena,
) -> Result<Pending, TournamentError> {
    let names: Vec<&str> = config.entrants.iter().map(|e| e.name.as_str()).collect();
    let conditions = arena.conditions();
    let records = read_results(&config.results)?;
    if !records.is_empty() && !config.resume {
        return Err(TournamentError::Config(format!(
            "{} already holds {} results: pass --resume to continue that tournament, or choose another --results file",
            config.results.display(),
            records.len()
        )));
    }
    let mut strangers: Vec<&str> = records
        .iter()
        .flat_map(|r| r.players.iter().map(String::as_str))
        .filter(|p| !names.contains(p))
        .collect();
    strangers.sort_unstable();
    strangers.dedup();
    if !strangers.is_empty() {
        return Err(TournamentError::Config(format!(
            "{} holds games of {}, who {} not in this tournament: resume it with the same --player list, or choose another --results file",
            config.results.display(),
            strangers.join(", "),
            if strangers.len() == 1 { "is" } else { "are" }
        )));
    }
    let mut done: HashMap<(String, String, String, PlayClock), u32> = HashMap::new();
    for r in &records {
        *done
            .entry((
                r.players[0].clone(),
                r.players[1].clone(),
                r.size.clone(),
                r.play_clock,
            ))
            .or_default() += 1;
    }
    let todo = schedule(config, conditions.len())
        .into_iter()
        .enumerate()
        .filter(|(_, g)| {
            let key = (
                names[g.first].to_string(),
                names[g.second].to_string(),
                conditions[g.condition].clone(),
                g.play_clock,
            );
            match done.get_mut(&key) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            }
        })
        .collect();
    Ok(Pending { records, todo })
}

/// The first entrant's results against the second in `records`, and the SPRT's verdict
/// on them when there is an SPRT.
pub(super) fn sprt_state(
    config: &TournamentConfig,
    records: &[MatchRecord],
) -> (Wdl, Option<Verdict>) {
    let names: Vec<&str> = config.entrants.iter().map(|e| e.name.as_str()).collect();
    let mut wdl = Wdl::default();
    for r in records {
        tally_sprt(&mut wdl, r, &names);
    }
    (wdl, config.sprt.map(|s| s.verdict(&wdl)))
}

/// Where the matches are played: the GGP players started for the whole tournament, or
/// the in-process contestants.
pub(super) struct Venue<'a> {
    config: &'a TournamentConfig,
    arena: &'a Arena,
    players: Vec<RunningPlayer>,
    addrs: Vec<String>,
    contestants: Vec<Option<Contestant>>,
    ggp_games: Vec<Arc<GgpGame>>,
}

impl<'a> Venue<'a> {
    /// Starts the GGP players, if the arena has them.
    pub(super) async fn open(
        config: &'a TournamentConfig,
        arena: &'a Arena,
    ) -> Result<Venue<'a>, TournamentError> {
        let mut players = Vec::new();
        if let Arena::Ggp(_) = arena {
            for e in &config.entrants {
                let p = RunningPlayer::start(&e.spec)
                    .await
                    .map_err(|m| TournamentError::Player(format!("{}: {m}", e.name)))?;
                players.push(p);
            }
        }
        Ok(Venue {
            config,
            arena,
            addrs: players.iter().map(|p| p.addr.clone()).collect(),
            players,
            contestants: config.entrants.iter().map(Entrant::contestant).collect(),
            ggp_games: match arena {
                Arena::Ggp(games) => games.iter().cloned().map(Arc::new).collect(),
                Arena::Native(_) => Vec::new(),
            },
        })
    }

    /// Starts game `g` as match `id` in `running`; `guard` is dropped when it ends.
    pub(super) fn start<G: Send + 'static>(
        &self,
        running: &mut JoinSet<MatchRecord>,
        id: String,
        g: Game,
        guard: G,
    ) {
        let pair = [g.first, g.second];
        let names = pair.map(|p| self.config.entrants[p].name.clone());
        match self.arena {
            Arena::Ggp(_) => {
                let game = self.ggp_games[g.condition].clone();
                let spec = MatchSpec {
                    id,
                    addrs: pair.map(|p| self.addrs[p].clone()),
                    names,
                    start_clock: self.config.start_clock,
                    play_clock: g
                        .play_clock
                        .whole_secs()
                        .expect("checked: GGP clocks are whole seconds"),
                    dialect: self.config.dialect,
                };
                running.spawn(async move {
                    let record = game.play(&spec).await;
                    drop(guard);
                    record
                });
            }
            Arena::Native(native) => {
                let native = native.clone();
                let players = pair.map(|p| {
                    self.contestants[p]
                        .clone()
                        .expect("every entrant plays the game itself")
                });
                let opening = self.config.openings.map(|o| o.of_round(g.round));
                running.spawn_blocking(move || {
                    let record =
                        native.play_match(id, g.condition, names, &players, g.play_clock, opening);
                    drop(guard);
                    record
                });
            }
        }
    }

    /// Stops the GGP players.
    pub(super) async fn close(self) {
        for p in self.players {
            p.stop().await;
        }
    }
}

/// A prefix for match ids that differs between runs.
pub(super) fn stamp() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Plays the tournament in `arena`.
pub async fn run(config: &TournamentConfig, arena: &Arena) -> Result<Outcome, TournamentError> {
    check(config, arena)?;
    let names: Vec<&str> = config.entrants.iter().map(|e| e.name.as_str()).collect();
    let Pending { mut records, todo } = pending(config, arena)?;

    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.results)
        .map_err(|e| cannot_write(&config.results, e))?;
    let venue = Venue::open(config, arena).await?;

    let bar = if config.progress {
        ProgressBar::new(todo.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games  {elapsed_precise} (eta {eta})  {msg}",
        )
        .expect("valid template"),
    );
    let (mut sprt_wdl, mut verdict) = sprt_state(config, &records);
    bar.set_message(summary(&records, &names));

    let stamp = stamp();
    let permits = Arc::new(Semaphore::new(config.concurrency.max(1)));
    let mut running = JoinSet::new();
    let mut queue = todo.into_iter();
    let mut interrupted = false;
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let decided = matches!(verdict, Some(Verdict::AcceptH0 | Verdict::AcceptH1));
        // Start matches while there is room, work, and no verdict.
        while !decided && !interrupted && permits.available_permits() > 0 {
            let Some((n, g)) = queue.next() else { break };
            let permit = permits
                .clone()
                .acquire_owned()
                .await
                .expect("semaphore open");
            venue.start(&mut running, format!("ref-{stamp}-{n}"), g, permit);
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let Some(joined) = joined else { break };
                let record = match joined {
                    Ok(record) => record,
                    // Stopped by Ctrl-C: that match is simply not played.
                    Err(e) if e.is_cancelled() => continue,
                    Err(e) => return Err(TournamentError::Player(format!("a match task failed: {e}"))),
                };
                let line = serde_json::to_string(&record).expect("records serialise") + "\n";
                out.write_all(line.as_bytes())
                    .and_then(|_| out.flush())
                    .map_err(|e| cannot_write(&config.results, e))?;
                tally_sprt(&mut sprt_wdl, &record, &names);
                records.push(record);
                verdict = config.sprt.map(|s| s.verdict(&sprt_wdl));
                bar.inc(1);
                bar.set_message(summary(&records, &names));
            }
            _ = &mut ctrl_c, if !interrupted => {
                interrupted = true;
                running.abort_all();
                bar.println("interrupted: finished matches are saved; run again with --resume to continue");
            }
        }
    }
    bar.finish();
    venue.close().await;
    Ok(Outcome {
        first_pair: sprt_wdl,
        records,
        verdict,
        interrupted,
    })
}

/// Adds a record to the score of entrant 0 against entrant 1.
fn tally_sprt(wdl: &mut Wdl, r: &MatchRecord, names: &[&str]) {
    if let Some(score) = r.score_between(names[0], names[1]) {
        wdl.add(score);
    }
}

/// `name score/games` for each entrant, for the progress bar.
fn summary(records: &[MatchRecord], names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            let scores: Vec<f64> = records.iter().filter_map(|r| r.score_of(n)).collect();
            let (score, games) = (scores.iter().sum::<f64>(), scores.len());
            format!("{n} {score}/{games}")
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// One row of the results table: `player` against `opponent` under some conditions.
#[derive(Clone, Debug)]
pub struct Row {
    pub player: String,
    pub opponent: String,
    /// `all`, or a size and play clock such as `8x8 1s`.
    pub condition: String,
    pub wdl: Wdl,
    /// Faults of `player` and of `opponent`, in these matches.
    pub faults: [u32; 2],
}

/// `s` cut into runs of digits, read as numbers, and runs of other characters, so that
/// conditions sort as people read them: `5x5` before `10x10`, `40` before `300`.
fn natural_key(s: &str) -> Vec<(u64, String)> {
    let mut key = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let digits = c.is_ascii_digit();
        let end = rest
            .find(|ch: char| ch.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        key.push(match run.parse::<u64>() {
            Ok(n) if digits => (n, String::new()),
            _ => (u64::MAX, run.to_owned()),
        });
        rest = tail;
    }
    key
}

/// Rows for every pairing: all conditions together, then each size and clock.
pub fn table(records: &[MatchRecord], names: &[String]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let mut conditions: Vec<(String, PlayClock)> = records
                .iter()
                .filter(|r| r.score_between(a, b).is_some())
                .map(|r| (r.size.clone(), r.play_clock))
                .collect();
            conditions.sort_by_key(|(s, c)| (natural_key(s), *c));
            conditions.dedup();
            let mut push = |label: String, filter: &dyn Fn(&MatchRecord) -> bool| {
                let mut wdl = Wdl::default();
                let mut faults = [0; 2];
                for r in records.iter().filter(|r| filter(r)) {
                    if let Some(score) = r.score_between(a, b) {
                        wdl.add(score);
                        faults[0] += r.faults_of(a) as u32;
                        faults[1] += r.faults_of(b) as u32;
                    }
                }
                if wdl.games() > 0 {
                    rows.push(Row {
                        player: a.clone(),
                        opponent: b.clone(),
                        condition: label,
                        wdl,
                        faults,
                    });
                }
            };
            push("all".into(), &|_| true);
            if conditions.len() > 1 {
                for (size, clock) in &conditions {
                    push(format!("{size} {clock}s"), &|r| {
                        r.size == *size && r.play_clock == *clock
                    });
                }
            }
        }
    }
    rows
}
