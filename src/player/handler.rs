//! The player proper: the matches it is playing and what it answers to each message.
//! No HTTP here (that is [`super::server`]), no game (each match is a
//! [`MatchSession`]), and no search details beyond handing a match's search and its
//! deadline to the [`SearchService`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::{error, info, warn};

use super::observe::Observer;
use super::protocol::Request;
use super::service::SearchService;
use super::session::{MatchSession, MatchState, Reply, StartError};
use super::start;
use crate::agent::AgentConfig;
use crate::search::clock;
use crate::sexpr::Sexpr;

/// Matches remembered at once; a START beyond this forgets the longest-idle match
/// (Dresden just stops talking to a player whose match it cancels).
pub const MAX_MATCHES: usize = 256;

/// What the player needs to know beyond the messages.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    /// Name given in the INFO reply: a single token.
    pub name: String,
    pub agent: AgentConfig,
    /// Time kept back from the play clock for network and processing: the search stops at
    /// receipt time + play clock − margin.
    pub margin: Duration,
    /// Searches that can run at once, each on `agent.threads` threads (at least one).
    pub threads: usize,
    /// Search on the opponent's time and during the start clock, to fill the match's
    /// transposition table for the next move.
    pub ponder: bool,
}

/// Why a message about a match could not be served.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error("unknown match '{0}': no START was received for it, or it is over")]
    UnknownMatch(String),
    #[error("cannot play match '{match_id}': {source}")]
    BadStart {
        match_id: String,
        #[source]
        source: StartError,
    },
}

pub struct Player {
    config: PlayerConfig,
    matches: Mutex<HashMap<String, Box<dyn MatchSession>>>,
    search: SearchService,
    /// Told about every match (the web page), if anyone watches.
    observer: Option<Arc<dyn Observer>>,
}

impl Player {
    /// Starts the search threads.
    pub fn new(config: PlayerConfig) -> std::io::Result<Player> {
        let search = SearchService::new(config.threads)?;
        Ok(Player {
            config,
            matches: Mutex::new(HashMap::new()),
            search,
            observer: None,
        })
    }

    /// The same player, reporting its matches to `observer`.
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Player {
        self.observer = Some(observer);
        self
    }

    /// Tells the observer, if there is one, that a message brought `moves` to `session`.
    fn report_move(&self, session: &dyn MatchSession, moves: Option<&[Sexpr]>, received: Instant) {
        if let Some(observer) = &self.observer {
            let joint = moves.map(|m| m.iter().map(|t| t.to_string()).collect());
            observer.moved(
                &session.info().match_id,
                joint,
                session.snapshot(),
                received,
            );
        }
    }

    pub fn config(&self) -> &PlayerConfig {
        &self.config
    }

    /// Matches in progress.
    pub fn match_count(&self) -> usize {
        self.matches().len()
    }

    /// The reply to `request`, received at `received`.
    pub async fn handle(&self, request: Request, received: Instant) -> Result<String, PlayerError> {
        // Any message about a match ends its pondering: the position is about to change.
        if let Request::Start { match_id, .. }
        | Request::Play { match_id, .. }
        | Request::Stop { match_id, .. }
        | Request::Abort { match_id } = &request
        {
            self.search.stop_pondering(match_id);
        }
        match request {
            Request::Start {
                match_id,
                role,
                rules,
                start_clock,
                play_clock,
            } => self.start(match_id, &role, &rules, start_clock, play_clock, received),
            Request::Play { match_id, moves } => self.play(&match_id, moves, received).await,
            Request::Stop { match_id, moves } => self.stop(&match_id, moves, received),
            Request::Abort { match_id } => {
                self.matches()
                    .remove(&match_id)
                    .ok_or_else(|| PlayerError::UnknownMatch(match_id.clone()))?;
                if let Some(observer) = &self.observer {
                    observer.finished(&match_id, true);
                }
                info!(match_id, "match aborted");
                Ok("done".to_owned())
            }
            Request::Info => Ok(format!("((name {}) (status available))", self.config.name)),
            Request::Preview { .. } => Ok("ready".to_owned()),
        }
    }

    /// Starts preparing `session`'s next move until `until` or the next message about it,
    /// if the player ponders and the session has something to prepare.
    fn start_pondering(&self, session: &mut dyn MatchSession, until: Instant) {
        if !self.config.ponder {
            return;
        }
        let Some(ponder) = session.ponder() else {
            return;
        };
        if let Err(e) = self.search.ponder(&session.info().match_id, until, ponder) {
            warn!(match_id = session.info().match_id, error = %e, "cannot ponder");
        }
    }

    fn matches(&self) -> MutexGuard<'_, HashMap<String, Box<dyn MatchSession>>> {
        // A panic elsewhere while holding the lock leaves the table usable.
        self.matches.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn start(
        &self,
        match_id: String,
        role: &str,
        rules: &[Sexpr],
        start_clock: Duration,
        play_clock: Duration,
        received: Instant,
    ) -> Result<String, PlayerError> {
        let mut session = start::open(&match_id, role, rules, play_clock, self.config.agent)
            .map_err(|source| PlayerError::BadStart {
                match_id: match_id.clone(),
                source,
            })?;
        session.info_mut().last_seen = received;
        let budget = self.search_time(play_clock);
        info!(
            match_id,
            role,
            model = session.model(),
            start_clock_s = start_clock.as_secs_f64(),
            play_clock_s = play_clock.as_secs_f64(),
            search_ms = budget.as_millis() as u64,
            agent = %self.config.agent,
            "match started"
        );
        // Prepare during the start clock (and the first move's wait): the table or tree
        // is grown when the first PLAY comes.
        self.start_pondering(session.as_mut(), received + start_clock + play_clock);
        if play_clock.saturating_sub(self.config.margin) < play_clock / 10 {
            warn!(
                match_id,
                margin_ms = self.config.margin.as_millis() as u64,
                "the margin leaves almost nothing of the play clock: searching {} ms a move",
                budget.as_millis()
            );
        }
        if let Some(observer) = &self.observer {
            observer.started(
                &match_id,
                session.snapshot(),
                start_clock,
                play_clock,
                session.model(),
            );
        }
        let mut matches = self.matches();
        if matches.insert(match_id.clone(), session).is_some() {
            info!(
                match_id,
                "a new START for a known match id: the old match is dropped"
            );
        } else if matches.len() > MAX_MATCHES {
            let oldest = matches
                .iter()
                .filter(|(id, _)| **id != match_id)
                .min_by_key(|(_, s)| s.info().last_seen)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                matches.remove(&oldest);
                warn!(
                    match_id = oldest,
                    "too many matches: forgetting the longest idle one"
                );
            }
        }
        Ok("ready".to_owned())
    }

    fn search_time(&self, clock: Duration) -> Duration {
        clock::search_time(clock, self.config.margin)
    }

    async fn play(
        &self,
        match_id: &str,
        moves: Option<Vec<Sexpr>>,
        received: Instant,
    ) -> Result<String, PlayerError> {
        let (fallback, search, play_clock) = {
            let mut matches = self.matches();
            let s = matches
                .get_mut(match_id)
                .ok_or_else(|| PlayerError::UnknownMatch(match_id.to_owned()))?;
            s.info_mut().last_seen = received;
            if moves.is_none() && s.info().plies > 0 {
                warn!(
                    match_id,
                    plies = s.info().plies,
                    "PLAY with NIL in the middle of a match: keeping our position"
                );
            }
            if let Err(e) = s.apply(moves.as_deref()) {
                error!(
                    match_id,
                    error = %e,
                    "the joint move does not fit our model of the match: the match is broken, \
                     replying {} from now on",
                    s.noop()
                );
            }
            self.report_move(s.as_ref(), moves.as_deref(), received);
            match s.reply() {
                Reply::Now(text) => return Ok(text),
                Reply::Wait(text) => {
                    // The opponent's turn: think on its time (a little past its clock).
                    let until = received + s.info().play_clock + Duration::from_secs(1);
                    self.start_pondering(s.as_mut(), until);
                    return Ok(text);
                }
                Reply::Search { fallback, search } => (fallback, search, s.info().play_clock),
            }
        };
        let t = clock::move_time(received, play_clock, self.config.margin);
        let searched = match self.search.submit(t.search_until, search) {
            Ok(pending) => pending
                .wait_until(t.give_up_at)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Some(observer) = &self.observer {
            let figures = self
                .matches()
                .get_mut(match_id)
                .and_then(|s| s.take_figures());
            if let Some(figures) = figures {
                observer.searched(match_id, figures);
            }
        }
        Ok(match searched {
            Ok(text) => text,
            Err(why) => {
                warn!(
                    match_id,
                    why, "no search result: playing a quick legal move"
                );
                fallback
            }
        })
    }

    fn stop(
        &self,
        match_id: &str,
        moves: Option<Vec<Sexpr>>,
        received: Instant,
    ) -> Result<String, PlayerError> {
        let mut s = self
            .matches()
            .remove(match_id)
            .ok_or_else(|| PlayerError::UnknownMatch(match_id.to_owned()))?;
        if let Err(e) = s.apply(moves.as_deref()) {
            error!(match_id, error = %e, "the final joint move does not fit our model of the match");
        }
        self.report_move(s.as_ref(), moves.as_deref(), received);
        if let Some(observer) = &self.observer {
            observer.finished(match_id, false);
        }
        match (&s.info().state, s.goals()) {
            (_, Some(goals)) => {
                let shown: Vec<String> = goals
                    .iter()
                    .map(|g| g.map_or("none".to_owned(), |g| g.to_string()))
                    .collect();
                let ours = goals[s.our_role_index()];
                let result = match ours {
                    Some(100) => "win",
                    Some(0) => "loss",
                    Some(_) => "draw",
                    None => "none",
                };
                info!(
                    match_id,
                    role = s.info().role,
                    goals = shown.join(" "),
                    result,
                    plies = s.info().plies,
                    "match over"
                );
            }
            (MatchState::Broken(why), None) => {
                warn!(match_id, broken_by = %why, plies = s.info().plies, "match over; result unknown (the match was broken)");
            }
            (MatchState::Active, None) => {
                warn!(
                    match_id,
                    plies = s.info().plies,
                    "match stopped before the end of the game in our model"
                );
            }
        }
        Ok("done".to_owned())
    }
}
