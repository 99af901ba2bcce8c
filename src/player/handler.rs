//! The player proper: the matches it is playing and what it answers to each message.
//! No HTTP here (that is [`super::server`]), no game (each match is a
//! [`MatchSession`]), and no search details beyond handing a match's search and its
//! deadline to the [`SearchService`].
//!
//! Nothing slow runs on the async runtime or under the table of matches: START's
//! compilation and recognition, and every joint move's step (the reasoner's can be slow),
//! run on tokio's blocking threads (not the search threads, which may be busy searching
//! another match until its deadline), each match behind its own lock.
//!
//! Memory is bounded: at most [`PlayerConfig::max_matches`] matches live at once (a START
//! beyond is refused), each with its share of the table budget, and a match that hears
//! nothing for longer than its clocks allow is freed ([`Player::free_idle`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::{debug, error, info, warn};

use super::protocol::Request;
use super::service::SearchService;
use super::session::{Answer, MatchSession, MatchState, Ponder, Reply, StartError};
use super::start;
use crate::agent::AgentConfig;
use crate::search::{Limits, clock};
use crate::sexpr::Sexpr;
use crate::web::observe::Observer;

/// Default of [`PlayerConfig::max_matches`]: a 2-core machine plays a few matches at
/// once well; more only share the same cores.
pub const DEFAULT_MAX_MATCHES: usize = 8;
/// A match is freed when no message about it came for its start clock + play clock + this
/// (controllers that crash or give up never send STOP or ABORT; Dresden just stops
/// talking to a player whose match it cancels).
pub const IDLE_GRACE: Duration = Duration::from_secs(30);
/// Longest ponder: the table or tree is grown long before this, and clocks may be a day.
pub const MAX_PONDER: Duration = Duration::from_secs(60);
/// START is answered at least this long before its start clock ends, whatever the play
/// margin: the preparation before it checks its clock only between reasoner steps.
pub const START_MARGIN: Duration = Duration::from_millis(500);
/// How long the work left after a move waits, so that the reply is sent before it takes
/// the core.
const TIDY_PAUSE: Duration = Duration::from_millis(5);
/// Less time than this left of the start clock is not worth a preparation.
const MIN_PREPARE: Duration = Duration::from_millis(200);
/// How long past its end START waits for a preparation still in a reasoner step.
const PREPARE_GRACE: Duration = Duration::from_millis(100);

/// What the player needs to know beyond the messages.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    /// Name given in the INFO reply: a single token.
    pub name: String,
    pub agent: AgentConfig,
    /// Time kept back from the play clock for network and processing: the search stops at
    /// receipt time + play clock − margin.
    pub margin: Duration,
    /// Cores shared among the searches running at once; a search alone runs on
    /// `agent.threads` threads.
    pub threads: usize,
    /// Search on the opponent's time and during the start clock, to fill the match's
    /// transposition table for the next move.
    pub ponder: bool,
    /// Matches live at once; a START for a new match beyond this is refused.
    pub max_matches: usize,
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
    #[error(
        "cannot start match '{match_id}': {max} matches are in progress, the most this \
         player plays at once (STOP or ABORT one, or start the player with a larger \
         --max-matches)"
    )]
    Busy { match_id: String, max: usize },
    #[error("an internal error stopped the work on match '{match_id}' (see the player's log)")]
    Crashed { match_id: String },
}

/// A START's place in the room while its rules compile, given back when dropped: when
/// the match goes in (under the lock of the matches) or when the START fails.
struct Place<'a> {
    opening: &'a AtomicUsize,
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.opening.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One match in the table: its session behind its own lock, so that a slow step of one
/// match holds up no other, and when it was last heard of.
struct Entry {
    session: Arc<Mutex<Box<dyn MatchSession>>>,
    last_seen: Instant,
    /// Freed when nothing about it came for this long: its clocks and [`IDLE_GRACE`].
    idle_limit: Duration,
}

type Session = Arc<Mutex<Box<dyn MatchSession>>>;

pub struct Player {
    config: PlayerConfig,
    matches: Mutex<HashMap<String, Entry>>,
    /// STARTs of new matches admitted and still compiling their rules. Each holds a
    /// place in the room (taken and given back under the lock of `matches`), so that a
    /// burst of STARTs beyond `max_matches` is refused before any of the extra ones
    /// compiles its rules.
    opening: AtomicUsize,
    search: SearchService,
    /// Told about every match (the web page), if anyone watches.
    observer: Option<Arc<dyn Observer>>,
}

impl Player {
    pub fn new(config: PlayerConfig) -> Player {
        let search = SearchService::new(config.threads);
        Player {
            config,
            matches: Mutex::new(HashMap::new()),
            opening: AtomicUsize::new(0),
            search,
            observer: None,
        }
    }

    /// The same player, reporting its matches to `observer`.
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Player {
        self.observer = Some(observer);
        self
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
            } => {
                self.start(match_id, role, rules, start_clock, play_clock, received)
                    .await
            }
            Request::Play { match_id, moves } => self.play(&match_id, moves, received).await,
            Request::Stop { match_id, moves } => self.stop(&match_id, moves, received).await,
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
            Request::Info => {
                // ggp-base's match server schedules only players that say `available`:
                // a player with no room says `busy` rather than refuse the START.
                let status = if self.is_full(&self.matches()) {
                    "busy"
                } else {
                    "available"
                };
                Ok(format!("((name {}) (status {status}))", self.config.name))
            }
            Request::Preview { .. } => Ok("ready".to_owned()),
        }
    }

    /// Starts `ponder` for `match_id` until `until` (at most [`MAX_PONDER`] from now) or
    /// the next message about the match.
    fn start_pondering(&self, match_id: &str, ponder: Option<Ponder>, until: Instant) {
        let Some(ponder) = ponder else {
            return;
        };
        let until = until.min(Instant::now() + MAX_PONDER);
        if let Err(e) = self.search.ponder(match_id, until, ponder) {
            warn!(match_id, error = %e, "cannot ponder");
        }
    }

    /// Starts `tidy` for `match_id` after [`TIDY_PAUSE`], so that the reply leaves first:
    /// work on the opponent's time, as pondering is (none with `--no-ponder`), which
    /// gives way to move searches and to the match's next ponder.
    fn start_tidying(&self, match_id: &str, tidy: Option<Ponder>, until: Instant) {
        let Some(tidy) = tidy else {
            return;
        };
        let paused = move |limits: &Limits| {
            std::thread::sleep(TIDY_PAUSE);
            tidy(limits);
        };
        if let Err(e) = self.search.tidy(match_id, until, paused) {
            warn!(match_id, error = %e, "cannot free what the move left");
        }
    }

    fn matches(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        // A panic elsewhere while holding the lock leaves the table usable.
        self.matches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Frees the matches that heard nothing for longer than their clocks allow (and stops
    /// their pondering); returns how many.
    pub fn free_idle(&self, now: Instant) -> usize {
        let (idle, freed) = {
            let mut matches = self.matches();
            let idle: Vec<(String, Duration)> = matches
                .iter()
                .map(|(id, e)| (id, now.saturating_duration_since(e.last_seen), e.idle_limit))
                .filter(|(_, quiet, limit)| quiet > limit)
                .map(|(id, quiet, _)| (id.clone(), quiet))
                .collect();
            // Dropped (their tables freed) once the table of matches is unlocked.
            let freed: Vec<Entry> = idle
                .iter()
                .filter_map(|(id, _)| matches.remove(id))
                .collect();
            (idle, freed)
        };
        drop(freed);
        for (match_id, quiet) in &idle {
            self.search.stop_pondering(match_id);
            if let Some(observer) = &self.observer {
                observer.finished(match_id, true);
            }
            warn!(
                match_id,
                quiet_s = quiet.as_secs(),
                "no message about the match for longer than its clocks allow: freed"
            );
        }
        idle.len()
    }

    /// The session of `match_id`, now heard of at `received`.
    fn session(&self, match_id: &str, received: Instant) -> Result<Session, PlayerError> {
        let mut matches = self.matches();
        let entry = matches
            .get_mut(match_id)
            .ok_or_else(|| PlayerError::UnknownMatch(match_id.to_owned()))?;
        entry.last_seen = entry.last_seen.max(received);
        Ok(Arc::clone(&entry.session))
    }

    async fn start(
        &self,
        match_id: String,
        role: String,
        rules: Vec<Sexpr>,
        start_clock: Duration,
        play_clock: Duration,
        received: Instant,
    ) -> Result<String, PlayerError> {
        // Refused before the rules are compiled, and checked again when the match goes in.
        self.free_idle(Instant::now());
        let place = self.take_place(&match_id)?;
        let agent = self.config.agent;
        let ponders = self.config.ponder;
        // The start clock's preparation ends a margin before the controller's deadline.
        let ready_by = (received + start_clock).checked_sub(self.config.margin.max(START_MARGIN));
        let opened = {
            let (match_id, role) = (match_id.clone(), role.clone());
            tokio::task::spawn_blocking(move || {
                start::open(&match_id, &role, &rules, play_clock, agent, ready_by)
            })
            .await
        };
        let mut session = match opened {
            Ok(Ok(session)) => session,
            Ok(Err(source)) => return Err(PlayerError::BadStart { match_id, source }),
            Err(_) => return Err(PlayerError::Crashed { match_id }),
        };
        if ponders
            && let Some(ready_by) = ready_by.filter(|&by| by > Instant::now() + MIN_PREPARE)
            && let Some(prepare) = session.prepare()
        {
            self.prepare(&match_id, ready_by, prepare).await;
        }
        let ponder = if ponders { session.ponder() } else { None };
        let budget = self.search_time(play_clock);
        let (model, agent, solved) = (session.model(), session.agent(), session.solved());
        let snapshot = self.observer.as_ref().map(|_| session.snapshot());
        let entry = Entry {
            session: Arc::new(Mutex::new(session)),
            last_seen: received,
            idle_limit: start_clock + play_clock + IDLE_GRACE,
        };
        // Admitted, registered and shown to the observer under one lock: a START refused
        // here (others filled the room since the first check) leaves no trace, and a PLAY
        // for the match can only be reported after its start.
        let replaced = {
            let mut matches = self.matches();
            drop(place);
            self.check_room(&matches, &match_id)?;
            if let (Some(observer), Some(snapshot)) = (&self.observer, snapshot) {
                observer.started(&match_id, snapshot, start_clock, play_clock, model);
            }
            matches.insert(match_id.clone(), entry)
        };
        info!(
            match_id,
            role,
            model,
            start_clock_s = start_clock.as_secs_f64(),
            play_clock_s = play_clock.as_secs_f64(),
            search_ms = budget.as_millis() as u64,
            agent,
            solved,
            "match started"
        );
        if play_clock.saturating_sub(self.config.margin) < play_clock / 10 {
            warn!(
                match_id,
                margin_ms = self.config.margin.as_millis() as u64,
                "the margin leaves almost nothing of the play clock: searching {} ms a move",
                budget.as_millis()
            );
        }
        if replaced.is_some() {
            info!(
                match_id,
                "a new START for a known match id: the old match is dropped"
            );
        }
        // Prepare during the start clock (and the first move's wait): the table or tree
        // is grown when the first PLAY comes.
        self.start_pondering(&match_id, ponder, received + start_clock + play_clock);
        Ok("ready".to_owned())
    }

    /// Runs a match's preparation until `ready_by`, giving way to move searches as a
    /// ponder does ([`SearchService::prepare`]); what it leaves undone the match's later
    /// searches do. Waits at most [`PREPARE_GRACE`] past `ready_by`: the preparation
    /// checks its clock only between reasoner steps, and START must be answered in time.
    async fn prepare(&self, match_id: &str, ready_by: Instant, prepare: Ponder) {
        match self.search.prepare(match_id, ready_by, prepare) {
            Ok(Some(pending)) => {
                if pending.wait_until(ready_by + PREPARE_GRACE).await.is_err() {
                    debug!(match_id, "the preparation was stopped at the start clock");
                }
            }
            Ok(None) => {}
            Err(e) => warn!(match_id, error = %e, "cannot prepare"),
        }
    }

    /// A place in the room for a START of `match_id` while its rules compile; none
    /// (`None`) for a new START of a match in progress, which replaces it.
    fn take_place(&self, match_id: &str) -> Result<Option<Place<'_>>, PlayerError> {
        let matches = self.matches();
        self.check_room(&matches, match_id)?;
        if matches.contains_key(match_id) {
            return Ok(None);
        }
        self.opening.fetch_add(1, Ordering::Relaxed);
        Ok(Some(Place {
            opening: &self.opening,
        }))
    }

    /// Whether `max_matches` matches are in progress or starting.
    fn is_full(&self, matches: &HashMap<String, Entry>) -> bool {
        matches.len() + self.opening.load(Ordering::Relaxed) >= self.config.max_matches
    }

    /// Refuses a START of a new match when there is no room for it.
    fn check_room(
        &self,
        matches: &HashMap<String, Entry>,
        match_id: &str,
    ) -> Result<(), PlayerError> {
        let max = self.config.max_matches;
        if self.is_full(matches) && !matches.contains_key(match_id) {
            warn!(match_id, max, "too many matches at once: START refused");
            return Err(PlayerError::Busy {
                match_id: match_id.to_owned(),
                max,
            });
        }
        Ok(())
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
        let session = self.session(match_id, received)?;
        let ponders = self.config.ponder;
        let stepped = {
            let match_id = match_id.to_owned();
            let (session, observer) = (Arc::clone(&session), self.observer.clone());
            tokio::task::spawn_blocking(move || {
                let mut s = session.lock().unwrap_or_else(|e| e.into_inner());
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
                        "the joint move does not fit our model of the match: the match is \
                         broken, replying {} from now on",
                        s.noop()
                    );
                }
                report_move(observer.as_ref(), s.as_ref(), moves.as_deref(), received);
                let reply = s.reply();
                let ponder = match reply {
                    Reply::Wait(_) if ponders => s.ponder(),
                    _ => None,
                };
                (reply, ponder, s.info().play_clock)
            })
            .await
        };
        let Ok((reply, ponder, play_clock)) = stepped else {
            return Err(PlayerError::Crashed {
                match_id: match_id.to_owned(),
            });
        };
        let (fallback, search) = match reply {
            Reply::Now(text) => return Ok(text),
            Reply::Wait(text) => {
                // The opponent's turn: think on its time (a little past its clock).
                let until = received + play_clock + Duration::from_secs(1);
                self.start_pondering(match_id, ponder, until);
                return Ok(text);
            }
            Reply::Search { fallback, search } => (fallback, search),
        };
        let t = clock::move_time(received, play_clock, self.config.margin);
        let searched = match self.search.submit(t.search_until, search) {
            Ok(pending) => pending
                .wait_until(t.give_up_at)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let (figures, tidy) = {
            let mut s = session.lock().unwrap_or_else(|e| e.into_inner());
            (s.take_figures(), if ponders { s.tidy() } else { None })
        };
        if let (Some(observer), Some(figures)) = (&self.observer, figures) {
            observer.searched(match_id, figures);
        }
        self.start_tidying(match_id, tidy, received + play_clock);
        Ok(match searched {
            Ok(text) => text,
            Err(why) => match fallback.answer() {
                Answer::Published {
                    text,
                    depth: Some(depth),
                } => {
                    warn!(
                        match_id,
                        why,
                        depth,
                        reply = text,
                        "no search result: playing the best move the search had published"
                    );
                    text
                }
                Answer::Published { text, depth: None } => {
                    warn!(
                        match_id,
                        why,
                        reply = text,
                        "no search result: playing the best move the search had published (the tree's choice)"
                    );
                    text
                }
                Answer::Quick(text) => {
                    warn!(
                        match_id,
                        why,
                        reply = text,
                        "no search result: playing a quick legal move (the search had published none)"
                    );
                    text
                }
            },
        })
    }

    async fn stop(
        &self,
        match_id: &str,
        moves: Option<Vec<Sexpr>>,
        received: Instant,
    ) -> Result<String, PlayerError> {
        let entry = self
            .matches()
            .remove(match_id)
            .ok_or_else(|| PlayerError::UnknownMatch(match_id.to_owned()))?;
        let match_id = match_id.to_owned();
        let crashed = PlayerError::Crashed {
            match_id: match_id.clone(),
        };
        let observer = self.observer.clone();
        tokio::task::spawn_blocking(move || {
            let mut s = entry.session.lock().unwrap_or_else(|e| e.into_inner());
            log_result(&match_id, s.as_mut(), moves.as_deref());
            report_move(observer.as_ref(), s.as_ref(), moves.as_deref(), received);
            if let Some(observer) = &observer {
                observer.finished(&match_id, false);
            }
        })
        .await
        .map_err(|_| crashed)?;
        Ok("done".to_owned())
    }
}

/// Tells `observer`, if there is one, that a message brought `moves` to `session`.
fn report_move(
    observer: Option<&Arc<dyn Observer>>,
    session: &dyn MatchSession,
    moves: Option<&[Sexpr]>,
    received: Instant,
) {
    if let Some(observer) = observer {
        let joint = moves.map(|m| m.iter().map(|t| t.to_string()).collect());
        observer.moved(
            &session.info().match_id,
            joint,
            session.snapshot(),
            received,
        );
    }
}

/// Applies a STOP's final joint move and logs the result.
fn log_result(match_id: &str, s: &mut dyn MatchSession, moves: Option<&[Sexpr]>) {
    if let Err(e) = s.apply(moves) {
        error!(match_id, error = %e, "the final joint move does not fit our model of the match");
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::breakthrough::gdl::breakthrough_rules;

    fn player(max_matches: usize) -> Player {
        Player::new(PlayerConfig {
            name: "t".to_owned(),
            agent: AgentConfig {
                hash_mb: 1,
                ..AgentConfig::default()
            },
            margin: Duration::from_millis(900),
            threads: 1,
            ponder: true,
            max_matches,
        })
    }

    async fn send(player: &Player, text: &str) -> Result<String, PlayerError> {
        player
            .handle(Request::parse(text).unwrap(), Instant::now())
            .await
    }

    fn start(id: &str, role: &str) -> String {
        let rules: String = breakthrough_rules("4x4".parse().unwrap())
            .lines()
            .map(|l| l.split(';').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join(" ");
        format!("(START {id} {role} ({rules}) 10 1)")
    }

    #[tokio::test]
    async fn a_start_beyond_the_cap_is_refused_until_a_match_ends() {
        let p = player(2);
        assert_eq!(send(&p, &start("a", "white")).await.unwrap(), "ready");
        assert_eq!(send(&p, &start("b", "black")).await.unwrap(), "ready");
        let refused = send(&p, &start("c", "white")).await.unwrap_err();
        assert!(matches!(refused, PlayerError::Busy { max: 2, .. }));
        assert!(refused.to_string().contains("--max-matches"), "{refused}");
        assert_eq!(p.match_count(), 2);
        // A new START of a match in progress replaces it: no room needed.
        assert_eq!(send(&p, &start("b", "white")).await.unwrap(), "ready");
        assert_eq!(send(&p, "(ABORT a)").await.unwrap(), "done");
        assert_eq!(send(&p, &start("c", "white")).await.unwrap(), "ready");
        assert_eq!(p.match_count(), 2);
    }

    #[tokio::test]
    async fn info_says_busy_while_there_is_no_room_for_a_match() {
        let p = player(1);
        assert_eq!(
            send(&p, "(INFO)").await.unwrap(),
            "((name t) (status available))"
        );
        assert_eq!(send(&p, &start("a", "white")).await.unwrap(), "ready");
        assert_eq!(
            send(&p, "(INFO)").await.unwrap(),
            "((name t) (status busy))"
        );
        assert_eq!(send(&p, "(ABORT a)").await.unwrap(), "done");
        let place = p.take_place("b").unwrap();
        assert_eq!(
            send(&p, "(INFO)").await.unwrap(),
            "((name t) (status busy))"
        );
        drop(place);
        assert_eq!(
            send(&p, "(INFO)").await.unwrap(),
            "((name t) (status available))"
        );
    }

    /// A START holds its place while its rules compile: a burst of STARTs beyond the
    /// room is refused before the extra ones compile anything (each used to compile its
    /// rules and only then be refused).
    #[test]
    fn a_start_holds_its_place_in_the_room_while_its_rules_compile() {
        let p = player(2);
        let a = p.take_place("a").unwrap();
        let b = p.take_place("b").unwrap();
        let refused = p.take_place("c").err().unwrap();
        assert!(
            matches!(refused, PlayerError::Busy { max: 2, .. }),
            "{refused}"
        );
        // A failed START gives its place back.
        drop(a);
        let c = p.take_place("c").unwrap();
        assert!(p.take_place("d").is_err());
        drop((b, c));
        assert_eq!(p.opening.load(Ordering::Relaxed), 0);
    }

    /// STARTs sent at once beyond the room must leave no match on the observer: those
    /// refused once compiled were shown live on the page for ever.
    #[tokio::test]
    async fn starts_refused_at_once_leave_no_match_on_the_observer() {
        let store = Arc::new(crate::web::store::Store::default());
        let p = player(1).with_observer(store.clone());
        let starts: Vec<String> = (0..8).map(|i| start(&format!("r{i}"), "white")).collect();
        // Each START's first poll takes a place in the room or is refused, before any
        // compiles its rules.
        let replies = futures::future::join_all(starts.iter().map(|s| send(&p, s))).await;
        let admitted: Vec<String> = replies
            .iter()
            .zip(0..)
            .filter(|(r, _)| r.is_ok())
            .map(|(_, i)| format!("r{i}"))
            .collect();
        assert_eq!(admitted.len(), 1, "{replies:?}");
        for refused in replies.iter().filter_map(|r| r.as_ref().err()) {
            assert!(
                matches!(refused, PlayerError::Busy { max: 1, .. }),
                "{refused}"
            );
        }
        let shown: Vec<String> = store.list().into_iter().map(|r| r.match_id).collect();
        assert_eq!(shown, admitted);
        assert_eq!(p.match_count(), 1);
    }

    #[tokio::test]
    async fn a_general_game_is_prepared_in_the_start_clock_before_ready() {
        let p = player(4);
        // Nim with heaps of 3, 4, 5 and 6 counters: small enough to solve at once.
        let nim =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/nim.gdl")).unwrap();
        let rules: String = nim
            .lines()
            .map(|l| l.split(';').next().unwrap_or(""))
            .map(|l| match l.trim() {
                "(init (size a 11))" => "(init (size a 3))",
                "(init (size b 12))" => "(init (size b 4))",
                "(init (size c 15))" => "(init (size c 5))",
                "(init (size d 25))" => "(init (size d 6))",
                other => other,
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert!(rules.contains("(size d 6)"), "nim.gdl's heaps changed");
        let sent = Instant::now();
        let start = format!("(START n first ({rules}) 20 1)");
        assert_eq!(send(&p, &start).await.unwrap(), "ready");
        // Answered within the start clock less its margin, the game solved by then.
        assert!(sent.elapsed() < Duration::from_secs(20) - START_MARGIN);
        let session = p.matches().get("n").unwrap().session.clone();
        assert!(session.lock().unwrap().solved(), "not solved before ready");
        // A START whose clock leaves too little to prepare answers without solving.
        let quick = format!("(START q first ({rules}) 0 1)");
        assert_eq!(send(&p, &quick).await.unwrap(), "ready");
        let session = p.matches().get("q").unwrap().session.clone();
        p.search.stop_pondering("q");
        assert!(!session.lock().unwrap().solved());
    }

    #[tokio::test]
    async fn a_quiet_match_is_freed_with_its_ponder() {
        let p = player(4);
        assert_eq!(send(&p, &start("q", "white")).await.unwrap(), "ready");
        assert!(p.search.is_pondering("q"), "pondering from START");
        // Start clock 10 s + play clock 1 s + the grace: not yet quiet for that long.
        assert_eq!(p.free_idle(Instant::now()), 0);
        let later = Instant::now() + Duration::from_secs(11) + IDLE_GRACE;
        assert_eq!(p.free_idle(later + Duration::from_secs(1)), 1);
        assert_eq!(p.match_count(), 0);
        assert!(!p.search.is_pondering("q"));
        let gone = send(&p, "(PLAY q NIL)").await.unwrap_err();
        assert!(matches!(gone, PlayerError::UnknownMatch(_)), "{gone}");
    }

    #[tokio::test]
    async fn a_message_keeps_a_match_alive() {
        let p = player(4);
        assert_eq!(send(&p, &start("k", "black")).await.unwrap(), "ready");
        let almost = Instant::now() + Duration::from_secs(10) + IDLE_GRACE;
        // Heard of just before it would have been quiet too long.
        let reply = p
            .handle(Request::parse("(PLAY k NIL)").unwrap(), almost)
            .await
            .unwrap();
        assert_eq!(reply, "noop");
        assert_eq!(p.free_idle(almost + Duration::from_secs(5)), 0);
        assert_eq!(p.match_count(), 1);
    }

    /// After a move search, the work left (freeing what the search dropped from its tree)
    /// runs on the opponent's time as a ponder does, and not with `--no-ponder`.
    #[tokio::test]
    async fn a_move_search_leaves_its_tidying_to_after_the_reply() {
        for ponder in [true, false] {
            let p = Player::new(PlayerConfig {
                name: "t".to_owned(),
                agent: AgentConfig {
                    kind: crate::agent::AgentKind::Mcts,
                    hash_mb: 1,
                    ..AgentConfig::default()
                },
                margin: Duration::from_millis(900),
                threads: 1,
                ponder,
                max_matches: 1,
            });
            let rules: String = breakthrough_rules("6x6".parse().unwrap())
                .lines()
                .map(|l| l.split(';').next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join(" ");
            let start = format!("(START m black ({rules}) 10 1)");
            assert_eq!(send(&p, &start).await.unwrap(), "ready");
            assert_eq!(send(&p, "(PLAY m NIL)").await.unwrap(), "noop");
            assert!(!p.search.is_pondering("m"), "an MCTS agent does not ponder");
            let ours = send(&p, "(PLAY m ((move 1 2 1 3) noop))").await.unwrap();
            assert!(ours.starts_with("(move "), "{ours}");
            assert_eq!(p.search.is_pondering("m"), ponder, "ponder {ponder}");
        }
    }
}
