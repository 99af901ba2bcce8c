//! The player proper: the matches it is playing and what it answers to each message.
//! No HTTP here (that is [`super::server`]), and no search details beyond handing a
//! position and a deadline to the [`SearchService`] (or, in a match played by the
//! reasoner, to a [`Search`] of its tree on a blocking thread).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::{error, info, warn};

use super::general::{GeneralSession, Reply, Search};
use super::protocol::Request;
use super::service::{self, SearchService};
use super::session::{self, MatchState, Opened, Session, StartError, Turn, quick_move};
use crate::agent::{Agent, AgentConfig, AgentKind};
use crate::games::breakthrough::terms::Terms;
use crate::games::breakthrough::{Board, MoveList};
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
    matches: Mutex<HashMap<String, Match>>,
    search: SearchService,
    /// The ponder search of each match that has one; dropping it stops it.
    ponders: Mutex<HashMap<String, service::Pending<crate::games::breakthrough::Move>>>,
}

/// A match in progress: Breakthrough played by the engine, or any game by the reasoner.
enum Match {
    Engine(Session),
    General(GeneralSession),
}

impl Match {
    fn last_seen(&self) -> Instant {
        match self {
            Match::Engine(s) => s.last_seen,
            Match::General(g) => g.last_seen,
        }
    }
}

/// What a PLAY on our turn needs once the match table is unlocked.
enum Pending {
    Engine(OurTurn),
    General {
        search: Search,
        play_clock: Duration,
    },
}

struct OurTurn {
    board: Board,
    agent: Arc<Mutex<Agent<Board>>>,
    terms: Arc<Terms>,
    play_clock: Duration,
}

impl Player {
    /// Starts the search threads.
    pub fn new(config: PlayerConfig) -> std::io::Result<Player> {
        let search = SearchService::new(config.threads)?;
        Ok(Player {
            config,
            matches: Mutex::new(HashMap::new()),
            search,
            ponders: Mutex::new(HashMap::new()),
        })
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
            self.stop_pondering(match_id);
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
            Request::Stop { match_id, moves } => self.stop(&match_id, moves),
            Request::Abort { match_id } => {
                self.matches()
                    .remove(&match_id)
                    .ok_or_else(|| PlayerError::UnknownMatch(match_id.clone()))?;
                info!(match_id, "match aborted");
                Ok("done".to_owned())
            }
            Request::Info => Ok(format!("((name {}) (status available))", self.config.name)),
            Request::Preview { .. } => Ok("ready".to_owned()),
        }
    }

    fn ponders(
        &self,
    ) -> MutexGuard<'_, HashMap<String, service::Pending<crate::games::breakthrough::Move>>> {
        self.ponders.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stop_pondering(&self, match_id: &str) {
        self.ponders().remove(match_id);
    }

    /// Starts searching `session`'s position until `until` or the next message, if the
    /// player ponders and the match is played by the alphabeta engine.
    fn start_pondering(&self, session: &Session, until: Instant) {
        if !self.config.ponder
            || self.config.agent.kind != AgentKind::Alphabeta
            || !session.ponderable()
        {
            return;
        }
        match self
            .search
            .ponder(session.board.clone(), session.agent.clone(), until)
        {
            Ok(pending) => {
                self.ponders().insert(session.match_id.clone(), pending);
            }
            Err(e) => warn!(match_id = session.match_id, error = %e, "cannot ponder"),
        }
    }

    fn matches(&self) -> MutexGuard<'_, HashMap<String, Match>> {
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
        let opened = session::open(
            &match_id,
            role,
            rules,
            start_clock,
            play_clock,
            self.config.agent,
        )
        .map_err(|source| PlayerError::BadStart {
            match_id: match_id.clone(),
            source,
        })?;
        let budget = self.search_time(play_clock);
        let entry = match opened {
            Opened::Engine(mut session) => {
                session.last_seen = received;
                info!(
                    match_id,
                    role,
                    color = %session.color,
                    size = %session.terms.size,
                    model = "engine",
                    start_clock_s = start_clock.as_secs_f64(),
                    play_clock_s = play_clock.as_secs_f64(),
                    search_ms = budget.as_millis() as u64,
                    agent = %self.config.agent,
                    "match started"
                );
                // Prepare during the start clock (and the first move's wait): the table
                // is warm when the first PLAY comes.
                self.start_pondering(&session, received + start_clock + play_clock);
                Match::Engine(session)
            }
            Opened::General(mut game) => {
                game.last_seen = received;
                info!(
                    match_id,
                    role,
                    roles = game.roles(),
                    model = "reasoner",
                    start_clock_s = start_clock.as_secs_f64(),
                    play_clock_s = play_clock.as_secs_f64(),
                    search_ms = budget.as_millis() as u64,
                    agent = %self.config.agent,
                    "match started"
                );
                // Grow the tree while the start clock runs (`ready` goes at once).
                if let Some(search) = game.background_search() {
                    let until = received + self.search_time(start_clock);
                    let id = match_id.clone();
                    tokio::task::spawn_blocking(move || search.run(&id, until));
                }
                Match::General(game)
            }
        };
        if play_clock.saturating_sub(self.config.margin) < play_clock / 10 {
            warn!(
                match_id,
                margin_ms = self.config.margin.as_millis() as u64,
                "the margin leaves almost nothing of the play clock: searching {} ms a move",
                budget.as_millis()
            );
        }
        let mut matches = self.matches();
        if matches.insert(match_id.clone(), entry).is_some() {
            info!(
                match_id,
                "a new START for a known match id: the old match is dropped"
            );
        } else if matches.len() > MAX_MATCHES {
            let oldest = matches
                .iter()
                .filter(|(id, _)| **id != match_id)
                .min_by_key(|(_, s)| s.last_seen())
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
        let turn = 'turn: {
            let mut matches = self.matches();
            let s = match matches.get_mut(match_id) {
                None => return Err(PlayerError::UnknownMatch(match_id.to_owned())),
                Some(Match::General(game)) => {
                    match general_turn(game, moves.as_deref(), received) {
                        Reply::Now(text) => return Ok(text),
                        Reply::Search(search) => {
                            break 'turn Pending::General {
                                search,
                                play_clock: game.play_clock,
                            };
                        }
                    }
                }
                Some(Match::Engine(s)) => s,
            };
            s.last_seen = received;
            if moves.is_none() && s.plies > 0 {
                warn!(
                    match_id,
                    plies = s.plies,
                    "PLAY with NIL in the middle of a match: keeping our position"
                );
            }
            if let Err(e) = s.apply(moves.as_deref()) {
                error!(
                    match_id,
                    error = %e,
                    "the joint move does not fit our model of the match: the match is broken, \
                     replying {} from now on",
                    s.terms.noop()
                );
            }
            match s.turn() {
                Turn::Ours => Pending::Engine(OurTurn {
                    board: s.board.clone(),
                    agent: s.agent.clone(),
                    terms: s.terms.clone(),
                    play_clock: s.play_clock,
                }),
                Turn::Theirs => {
                    // The opponent's turn: think on its time (a little past its clock).
                    self.start_pondering(s, received + s.play_clock + Duration::from_secs(1));
                    return Ok(s.terms.noop().to_owned());
                }
                Turn::Over => {
                    warn!(
                        match_id,
                        "PLAY after the end of the game in our model: replying noop"
                    );
                    return Ok(s.terms.noop().to_owned());
                }
                Turn::Broken => {
                    if let MatchState::Broken(why) = &s.state {
                        warn!(match_id, broken_by = %why, "PLAY in a broken match: replying noop");
                    }
                    return Ok(s.terms.noop().to_owned());
                }
            }
        };

        let turn = match turn {
            Pending::Engine(turn) => turn,
            Pending::General { search, play_clock } => {
                let t = clock::move_time(received, play_clock, self.config.margin);
                return Ok(general_move(match_id, search, t.search_until, t.give_up_at).await);
            }
        };
        let board = turn.board;
        let play_clock = turn.play_clock;
        let t = clock::move_time(received, play_clock, self.config.margin);
        let searched = match self
            .search
            .submit(board.clone(), turn.agent, t.search_until)
        {
            Ok(pending) => pending
                .wait_until(t.give_up_at)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let mut legal = MoveList::default();
        board.generate_moves(&mut legal);
        let mv = match searched {
            Ok(Some(choice)) if legal.contains(choice.mv) => Some(choice.mv),
            Ok(Some(choice)) => {
                error!(match_id, mv = ?choice.mv, "the agent chose an illegal move: playing a quick legal move");
                quick_move(&board)
            }
            Ok(None) => {
                error!(
                    match_id,
                    "the agent found no move: playing a quick legal move"
                );
                quick_move(&board)
            }
            Err(why) => {
                warn!(
                    match_id,
                    why, "no search result: playing a quick legal move"
                );
                quick_move(&board)
            }
        };
        Ok(match mv {
            Some(mv) => turn.terms.move_term(&board, mv).to_string(),
            // Unreachable: `Turn::Ours` means a legal move exists.
            None => turn.terms.noop().to_owned(),
        })
    }

    fn stop(&self, match_id: &str, moves: Option<Vec<Sexpr>>) -> Result<String, PlayerError> {
        let entry = self
            .matches()
            .remove(match_id)
            .ok_or_else(|| PlayerError::UnknownMatch(match_id.to_owned()))?;
        let mut s = match entry {
            Match::Engine(s) => s,
            Match::General(game) => {
                general_stop(game, moves.as_deref());
                return Ok("done".to_owned());
            }
        };
        if let Err(e) = s.apply(moves.as_deref()) {
            error!(match_id, error = %e, "the final joint move does not fit our model of the match");
        }
        let us = s.color.index();
        match (&s.state, s.goals()) {
            (_, Some(goals)) => {
                let result = match goals[us] {
                    100 => "win",
                    0 => "loss",
                    _ => "draw",
                };
                info!(
                    match_id,
                    role = s.role,
                    goals = %format!("{} {}", goals[0], goals[1]),
                    result,
                    plies = s.plies,
                    "match over"
                );
            }
            (MatchState::Broken(why), None) => {
                warn!(match_id, broken_by = %why, plies = s.plies, "match over; result unknown (the match was broken)");
            }
            (MatchState::Active, None) => {
                warn!(
                    match_id,
                    plies = s.plies,
                    "match stopped before the end of the game in our model"
                );
            }
        }
        Ok("done".to_owned())
    }
}

/// Applies a PLAY's joint move to a match played by the reasoner; the reply, or the
/// search that will give it.
fn general_turn(game: &mut GeneralSession, moves: Option<&[Sexpr]>, received: Instant) -> Reply {
    game.last_seen = received;
    let match_id = game.match_id.clone();
    if moves.is_none() && game.plies > 0 {
        warn!(
            match_id,
            plies = game.plies,
            "PLAY with NIL in the middle of a match: keeping our position"
        );
    }
    if let Err(e) = game.apply(moves) {
        error!(
            match_id,
            error = %e,
            "the joint move does not fit our model of the match: the match is broken, \
             replying noop from now on"
        );
    } else if game.is_over() {
        warn!(
            match_id,
            "PLAY after the end of the game in our model: replying noop"
        );
    }
    game.reply()
}

/// Our move in a match played by the reasoner: searched on a blocking thread (never a
/// tokio worker) until `deadline`; the first legal move if no result by `give_up_at`.
async fn general_move(
    match_id: &str,
    search: Search,
    deadline: Instant,
    give_up_at: Instant,
) -> String {
    let fallback = search.fallback();
    let stop = search.stop_flag();
    let id = match_id.to_owned();
    let task = tokio::task::spawn_blocking(move || search.run(&id, deadline));
    let late = tokio::time::Instant::from_std(give_up_at);
    match tokio::time::timeout_at(late, task).await {
        Ok(Ok(mv)) => mv,
        Ok(Err(e)) => {
            error!(match_id, error = %e, "the reasoner's search failed: playing its first legal move");
            fallback
        }
        Err(_) => {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            warn!(
                match_id,
                "the reasoner's search did not finish in time: playing its first legal move"
            );
            fallback
        }
    }
}

/// The end of a match played by the reasoner: the last joint move and the result, logged.
fn general_stop(mut game: GeneralSession, moves: Option<&[Sexpr]>) {
    let match_id = game.match_id.clone();
    if let Err(e) = game.apply(moves) {
        error!(match_id, error = %e, "the final joint move does not fit our model of the match");
    }
    match (&game.state, game.goals()) {
        (_, Some(goals)) => {
            let shown: Vec<String> = goals
                .iter()
                .map(|g| g.map_or("none".to_owned(), |g| g.to_string()))
                .collect();
            info!(
                match_id,
                role = game.role,
                goals = shown.join(" "),
                ours = shown[game.us],
                plies = game.plies,
                "match over"
            );
        }
        (MatchState::Broken(why), None) => {
            warn!(match_id, broken_by = %why, plies = game.plies, "match over; result unknown (the match was broken)");
        }
        (MatchState::Active, None) => {
            warn!(
                match_id,
                plies = game.plies,
                "match stopped before the end of the game in our model"
            );
        }
    }
}
