//! Tournaments: many matches between named players over several board sizes and
//! play clocks, each pairing with both colours, several at once, every finished
//! match appended to a results file at once so that nothing is lost and an
//! interrupted tournament can be resumed.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::dialect::Dialect;
use super::game::{MatchRecord, MatchSpec, play_match};
use super::general::{GdlMatchSpec, play_gdl_match};
use super::players::{PlayerSpec, RunningPlayer};
use super::stats::{Sprt, Verdict, Wdl};
use crate::games::breakthrough::BoardSize;
use crate::gdl::Gdl;
use crate::sexpr::Sexpr;

#[derive(Clone, Debug)]
pub struct Entrant {
    pub name: String,
    pub spec: PlayerSpec,
}

impl Entrant {
    /// `NAME=URL-or-command`, e.g. `rand=ggp-player serve --agent random`.
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
    pub sizes: Vec<BoardSize>,
    pub play_clocks: Vec<u64>,
    pub start_clock: u64,
    /// Games per pairing, size and play clock; colours alternate.
    pub games: u32,
    pub concurrency: usize,
    pub dialect: Dialect,
    pub results: PathBuf,
    pub resume: bool,
    pub sprt: Option<Sprt>,
    pub progress: bool,
    /// A two-player GDL game to play instead of Breakthrough (refereed by the reasoner;
    /// `sizes` then only needs one entry, which is ignored).
    pub game: Option<GdlGame>,
}

/// A GDL game for a tournament: its name (the condition in the results) and rules.
#[derive(Clone, Debug)]
pub struct GdlGame {
    pub name: String,
    pub rules: Vec<Sexpr>,
    pub gdl: Arc<Gdl>,
}

impl TournamentConfig {
    /// The condition a game is recorded under: the board size, or the GDL game's name.
    fn condition(&self, size: BoardSize) -> String {
        match &self.game {
            Some(game) => game.name.clone(),
            None => size.to_string(),
        }
    }
}

/// One game to play: entrant indices and conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Game {
    white: usize,
    black: usize,
    size: BoardSize,
    play_clock: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("{0}")]
    Config(String),
    #[error("results file {path}: {error}")]
    Results { path: PathBuf, error: String },
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

/// The full schedule, interleaved so that any prefix is balanced across sizes,
/// clocks, pairings and colours.
fn schedule(config: &TournamentConfig) -> Vec<Game> {
    let n = config.entrants.len();
    let pairs: Vec<(usize, usize)> = match config.format {
        Format::RoundRobin => (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect(),
        Format::Gauntlet => (1..n).map(|b| (0, b)).collect(),
    };
    let mut games = Vec::new();
    for round in 0..config.games {
        for &size in &config.sizes {
            for &play_clock in &config.play_clocks {
                for &(a, b) in &pairs {
                    let (white, black) = if round % 2 == 0 { (a, b) } else { (b, a) };
                    games.push(Game {
                        white,
                        black,
                        size,
                        play_clock,
                    });
                }
            }
        }
    }
    games
}

/// Reads the records of an earlier run (one JSON object per line).
pub fn read_results(path: &Path) -> Result<Vec<MatchRecord>, TournamentError> {
    let err = |error: String| TournamentError::Results {
        path: path.to_path_buf(),
        error,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(err(e.to_string())),
    };
    let mut records = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| err(e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        records.push(serde_json::from_str(&line).map_err(|e| err(format!("line {}: {e}", i + 1)))?);
    }
    Ok(records)
}

/// Plays the tournament. `rules` gives the GDL sent for a board size.
pub async fn run(
    config: &TournamentConfig,
    rules: impl Fn(BoardSize) -> Vec<Sexpr>,
) -> Result<Outcome, TournamentError> {
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
    if let Some(game) = &config.game
        && game.gdl.roles().len() != 2
    {
        return Err(TournamentError::Config(format!(
            "{} has {} roles: a tournament pairs two players",
            game.name,
            game.gdl.roles().len()
        )));
    }
    if config.games == 0 || config.sizes.is_empty() || config.play_clocks.is_empty() {
        return Err(TournamentError::Config(
            "nothing to play: give games, sizes and play clocks".into(),
        ));
    }

    // Earlier results: refuse to mix runs by accident; skip what is done on --resume.
    let mut records = read_results(&config.results)?;
    if !records.is_empty() && !config.resume {
        return Err(TournamentError::Config(format!(
            "{} already holds {} results: pass --resume to continue that tournament, or choose another --results file",
            config.results.display(),
            records.len()
        )));
    }
    let mut done: HashMap<(String, String, String, u64), u32> = HashMap::new();
    for r in &records {
        *done
            .entry((
                r.white.clone(),
                r.black.clone(),
                r.size.clone(),
                r.play_clock,
            ))
            .or_default() += 1;
    }
    let todo: Vec<Game> = schedule(config)
        .into_iter()
        .filter(|g| {
            let key = (
                names[g.white].to_string(),
                names[g.black].to_string(),
                config.condition(g.size),
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

    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.results)
        .map_err(|e| TournamentError::Results {
            path: config.results.clone(),
            error: e.to_string(),
        })?;

    let mut players = Vec::new();
    for e in &config.entrants {
        let p = RunningPlayer::start(&e.spec)
            .await
            .map_err(|m| TournamentError::Player(format!("{}: {m}", e.name)))?;
        players.push(p);
    }
    let addrs: Vec<String> = players.iter().map(|p| p.addr.clone()).collect();

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
    let mut sprt_wdl = Wdl::default();
    for r in &records {
        tally_sprt(&mut sprt_wdl, r, &names);
    }
    let mut verdict = config.sprt.map(|s| s.verdict(&sprt_wdl));
    bar.set_message(summary(&records, &names));

    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let permits = Arc::new(Semaphore::new(config.concurrency.max(1)));
    let mut running = JoinSet::new();
    let mut queue = todo.into_iter().enumerate();
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
            let id = format!("ref-{stamp}-{n}");
            let pair = [g.white, g.black];
            match &config.game {
                None => {
                    let spec = MatchSpec {
                        id,
                        size: g.size,
                        rules: rules(g.size),
                        addrs: pair.map(|p| addrs[p].clone()),
                        names: pair.map(|p| names[p].to_string()),
                        start_clock: config.start_clock,
                        play_clock: g.play_clock,
                        dialect: config.dialect,
                    };
                    running.spawn(async move {
                        let record = play_match(&spec).await;
                        drop(permit);
                        record
                    });
                }
                Some(game) => {
                    let spec = GdlMatchSpec {
                        id,
                        game: game.name.clone(),
                        rules: game.rules.clone(),
                        gdl: game.gdl.clone(),
                        addrs: pair.iter().map(|&p| addrs[p].clone()).collect(),
                        names: pair.iter().map(|&p| names[p].to_string()).collect(),
                        start_clock: config.start_clock,
                        play_clock: g.play_clock,
                        dialect: config.dialect,
                    };
                    running.spawn(async move {
                        let record = play_gdl_match(&spec).await.two_player();
                        drop(permit);
                        record.expect("a two-role game gives a two-player record")
                    });
                }
            }
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let Some(joined) = joined else { break };
                let record = joined.map_err(|e| TournamentError::Player(format!("a match task failed: {e}")))?;
                let line = serde_json::to_string(&record).expect("records serialise") + "\n";
                out.write_all(line.as_bytes())
                    .and_then(|_| out.flush())
                    .map_err(|e| TournamentError::Results { path: config.results.clone(), error: e.to_string() })?;
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
    for p in players {
        p.stop().await;
    }
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
    pub faults: u32,
}

/// Rows for every pairing: all conditions together, then each size and clock.
pub fn table(records: &[MatchRecord], names: &[String]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let mut conditions: Vec<(String, u64)> = records
                .iter()
                .filter(|r| r.score_between(a, b).is_some())
                .map(|r| (r.size.clone(), r.play_clock))
                .collect();
            conditions.sort_by_key(|(s, c)| {
                (
                    s.parse::<BoardSize>().map(|z| (z.width(), z.height())).ok(),
                    *c,
                )
            });
            conditions.dedup();
            let mut push = |label: String, filter: &dyn Fn(&MatchRecord) -> bool| {
                let mut wdl = Wdl::default();
                let mut faults = 0;
                for r in records.iter().filter(|r| filter(r)) {
                    if let Some(score) = r.score_between(a, b) {
                        wdl.add(score);
                        faults += r.faults_of(a) as u32;
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
