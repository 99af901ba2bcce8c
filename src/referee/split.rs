//! A tournament split into single games, so that something else can schedule them: the
//! plan lists the games still to play (as the results file and an SPRT leave them), and
//! one game of the schedule can be played on its own with the same referee, clocks and
//! records as in [`tournament::run`]. The Dask driver in `cluster/` runs each game as
//! a task on whichever machine is free and appends the records to the results file.

use std::io::Write;

use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

use super::play_clock::PlayClock;
use super::record::{MatchRecord, Seats};
use super::stats::Verdict;
use super::tournament::{
    Arena, TournamentConfig, TournamentError, Venue, check, pending, schedule, sprt_state, stamp,
};

/// One game of the schedule still to play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedGame {
    /// Its number in the whole schedule: what [`play_one`] takes.
    pub game: usize,
    /// The player of each role, keyed by the game's names for the roles, the one that
    /// moves first first.
    pub players: Seats<String>,
    /// The condition, as the records name it.
    pub size: String,
    pub play_clock: PlayClock,
}

/// The games still missing from the results file, in the order a tournament plays
/// them; none once an SPRT is decided on the results already there.
pub fn plan(config: &TournamentConfig, arena: &Arena) -> Result<Vec<PlannedGame>, TournamentError> {
    check(config, arena)?;
    let left = pending(config, arena)?;
    let (_, verdict) = sprt_state(config, &left.records);
    if matches!(verdict, Some(Verdict::AcceptH0 | Verdict::AcceptH1)) {
        return Ok(Vec::new());
    }
    let conditions = arena.conditions();
    let name = |i: usize| config.entrants[i].name.clone();
    Ok(left
        .todo
        .into_iter()
        .map(|(game, g)| PlannedGame {
            game,
            players: Seats(
                arena
                    .roles(g.condition)
                    .into_iter()
                    .zip([name(g.first), name(g.second)])
                    .collect(),
            ),
            size: conditions[g.condition].clone(),
            play_clock: g.play_clock,
        })
        .collect())
}

/// Plays game `game` of the whole schedule (the results file is neither read nor
/// written) and returns its record.
pub async fn play_one(
    config: &TournamentConfig,
    arena: &Arena,
    game: usize,
) -> Result<MatchRecord, TournamentError> {
    check(config, arena)?;
    let games = schedule(config, arena.conditions().len());
    let Some(&g) = games.get(game) else {
        return Err(TournamentError::Config(format!(
            "game {game}: the schedule has {} games, numbered from 0",
            games.len()
        )));
    };
    let venue = Venue::open(config, arena).await?;
    let mut running = JoinSet::new();
    venue.start(&mut running, format!("ref-{}-{game}", stamp()), g, ());
    let joined = running.join_next().await.expect("one match started");
    venue.close().await;
    joined.map_err(|e| TournamentError::Player(format!("the match task failed: {e}")))
}

/// Prints [`plan`] as one JSON object a line.
pub fn print_plan(
    config: &TournamentConfig,
    arena: &Arena,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    for g in plan(config, arena)? {
        writeln!(out, "{}", serde_json::to_string(&g)?)?;
    }
    Ok(())
}

/// Plays game `game` ([`play_one`]) and prints its record as the results file's line.
pub async fn print_game(
    config: &TournamentConfig,
    arena: &Arena,
    game: usize,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let record = play_one(config, arena, game).await?;
    writeln!(out, "{}", serde_json::to_string(&record)?)?;
    Ok(())
}
