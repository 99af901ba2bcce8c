//! The matches the page shows: every match the player is in (reported through
//! [`Observer`]) and every game played on the page, live and finished, each under a
//! serial number of its own (a controller may reuse a match id). Bounded: the oldest
//! finished records go first, and a record keeps at most [`MAX_MOVES`] moves.
//! Every change is announced on a broadcast channel for the page's live updates.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::web::grid_axes::GridAxes;
use crate::web::observe::{Observer, SearchFigures, Snapshot};

/// Records kept at once.
pub const MAX_RECORDS: usize = 200;
/// Moves kept per record; a longer game keeps its first moves and its current board.
pub const MAX_MOVES: usize = 1000;
/// Longest position text kept (a GDL state can be large).
const MAX_BOARD_BYTES: usize = 16 * 1024;

/// Who plays the match: a GGP controller, someone on the page, or the program that
/// serves the page (`loa --display`), whose manual side may be played on the page too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Controller,
    Page,
    Program,
}

/// One move (or one joint move) of a record.
#[derive(Clone, Debug, Serialize)]
pub struct MoveRecord {
    /// 1 for the first move.
    pub ply: u32,
    /// The role that moved, when one role moved and the others waited.
    pub mover: Option<usize>,
    /// What was played: the mover's move, or every role's when several moved.
    pub text: String,
    /// Every role's move, in role order, when several roles moved at once.
    pub joint: Option<Vec<String>>,
    /// The cells the piece passed through, start to end (row from the top, column from
    /// the left), when a move is more than a start and an end: a Halma chain of jumps.
    pub path: Option<Vec<[usize; 2]>>,
    /// Time from the message that asked for the move to the one that brought it.
    pub ms: u64,
    /// The position after the move.
    pub board: String,
    /// Our search for this move, when it was ours and searched.
    pub search: Option<SearchFigures>,
}

/// A match or page game as the page sees it.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub id: u64,
    pub source: Source,
    pub match_id: String,
    pub game: &'static str,
    /// The board's size, from its diagram (`WIDTHxHEIGHT`; empty for GDL facts).
    pub size: String,
    pub roles: Vec<String>,
    /// The engine's role (ours in a controller's match, the opponent's on the page).
    pub us: usize,
    /// `engine`, `propnet` or `reasoner`.
    pub model: &'static str,
    pub start_clock_ms: u64,
    pub play_clock_ms: u64,
    /// Milliseconds since the Unix epoch.
    pub started: u64,
    pub board: String,
    pub plies: u32,
    pub moves: Vec<MoveRecord>,
    /// The roles whose move is awaited (several when they move at once).
    pub to_move: Vec<usize>,
    /// How the rules lay out a GDL state's grid, for its diagrams.
    #[serde(skip)]
    pub grid_axes: Vec<GridAxes>,
    /// Every role's goal when the game ended in our model.
    pub goals: Option<Vec<Option<u32>>>,
    pub broken: Option<String>,
    /// `live`, `finished` or `aborted`.
    pub status: &'static str,
    /// Bumped at every change.
    pub version: u64,
    #[serde(skip)]
    pub(crate) last_message: Option<Instant>,
    /// Our latest search, until the move it chose arrives.
    #[serde(skip)]
    pending: Option<SearchFigures>,
}

impl Record {
    pub fn is_live(&self) -> bool {
        self.status == "live"
    }
}

/// The status of the change that ends the event streams.
pub const CLOSING: &str = "closing";

/// What a change announces: enough for the page to know what to fetch again.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    pub id: u64,
    pub version: u64,
    pub plies: u32,
    pub status: &'static str,
}

/// The records, by serial number, and where each live controller match is.
pub struct Store {
    inner: Mutex<Inner>,
    changes: broadcast::Sender<Change>,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    records: BTreeMap<u64, Record>,
    /// Live controller matches by match id.
    live: HashMap<String, u64>,
}

/// What a new record starts with.
pub struct NewRecord {
    pub source: Source,
    pub match_id: String,
    pub snapshot: Snapshot,
    pub model: &'static str,
    pub start_clock: Duration,
    pub play_clock: Duration,
}

fn millis(d: Duration) -> u64 {
    d.as_millis().min(u128::from(u64::MAX)) as u64
}

fn bounded(mut text: String) -> String {
    if text.len() > MAX_BOARD_BYTES {
        let mut end = MAX_BOARD_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n…");
    }
    text
}

impl Default for Store {
    fn default() -> Self {
        Store {
            inner: Mutex::default(),
            changes: broadcast::channel(256).0,
        }
    }
}

impl Store {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Listens to every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Every record, newest first.
    pub fn list(&self) -> Vec<Record> {
        self.inner().records.values().rev().cloned().collect()
    }

    pub fn get(&self, id: u64) -> Option<Record> {
        self.inner().records.get(&id).cloned()
    }

    /// Adds a record; returns its serial number.
    pub fn open(&self, new: NewRecord) -> u64 {
        let mut inner = self.inner();
        inner.next_id += 1;
        let id = inner.next_id;
        let s = new.snapshot;
        let record = Record {
            id,
            source: new.source,
            match_id: new.match_id.clone(),
            game: s.game,
            size: super::diagram::Diagram::parse_with(&s.board, &s.grid_axes).size(),
            roles: s.roles,
            us: s.us,
            model: new.model,
            start_clock_ms: millis(new.start_clock),
            play_clock_ms: millis(new.play_clock),
            started: millis(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default(),
            ),
            board: bounded(s.board),
            plies: s.plies,
            moves: Vec::new(),
            to_move: s.to_move,
            grid_axes: s.grid_axes,
            goals: s.goals,
            broken: s.broken,
            status: "live",
            version: 1,
            last_message: None,
            pending: None,
        };
        if new.source == Source::Controller {
            // A START for a known id replaces the match (as the player does).
            if let Some(old) = inner.live.insert(new.match_id, id)
                && let Some(r) = inner.records.get_mut(&old)
            {
                r.status = "aborted";
                r.version += 1;
            }
        }
        inner.records.insert(id, record);
        while inner.records.len() > MAX_RECORDS {
            let oldest = inner
                .records
                .values()
                .find(|r| !r.is_live())
                .or_else(|| inner.records.values().next())
                .map(|r| r.id);
            let Some(oldest) = oldest else { break };
            if let Some(r) = inner.records.remove(&oldest)
                && inner.live.get(&r.match_id) == Some(&oldest)
            {
                inner.live.remove(&r.match_id);
            }
        }
        let change = change_of(&inner.records[&id]);
        drop(inner);
        let _ = self.changes.send(change);
        id
    }

    /// Changes record `id` with `f`, bumps its version and announces it; `None` if there
    /// is no such record.
    pub fn update<T>(&self, id: u64, f: impl FnOnce(&mut Record) -> T) -> Option<T> {
        let mut inner = self.inner();
        let record = inner.records.get_mut(&id)?;
        let out = f(record);
        record.version += 1;
        let change = change_of(record);
        drop(inner);
        let _ = self.changes.send(change);
        Some(out)
    }

    /// Ends every open event stream (the server is shutting down).
    pub fn close(&self) {
        let _ = self.changes.send(Change {
            id: 0,
            version: 0,
            plies: 0,
            status: CLOSING,
        });
    }

    fn live_id(&self, match_id: &str) -> Option<u64> {
        self.inner().live.get(match_id).copied()
    }
}

fn change_of(r: &Record) -> Change {
    Change {
        id: r.id,
        version: r.version,
        plies: r.plies,
        status: r.status,
    }
}

/// The mover of a joint move: the one role that did not play `noop`.
fn mover(joint: &[String]) -> Option<usize> {
    let mut moving = joint
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.eq_ignore_ascii_case("noop"));
    match (moving.next(), moving.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

impl Record {
    /// Adds a move that brought the game to `snapshot`, at `at`.
    pub fn push_move(&mut self, joint: &[String], snapshot: Snapshot, at: Instant) {
        self.push_move_along(joint, snapshot, at, None);
    }

    /// [`Record::push_move`] of a move that passed through the cells `path`.
    pub fn push_move_along(
        &mut self,
        joint: &[String],
        snapshot: Snapshot,
        at: Instant,
        path: Option<Vec<[usize; 2]>>,
    ) {
        let ms = self
            .last_message
            .map_or(0, |t| millis(at.saturating_duration_since(t)));
        self.last_message = Some(at);
        let mover = mover(joint);
        let text = match mover {
            Some(i) => joint[i].clone(),
            None => joint.join(" / "),
        };
        let search = if mover.is_none_or(|m| m == self.us) {
            self.pending.take()
        } else {
            None
        };
        let board = bounded(snapshot.board);
        if self.moves.len() < MAX_MOVES {
            self.moves.push(MoveRecord {
                ply: snapshot.plies,
                mover,
                text,
                joint: (mover.is_none() && joint.len() > 1).then(|| joint.to_vec()),
                path,
                ms,
                board: board.clone(),
                search,
            });
        }
        self.board = board;
        self.to_move = snapshot.to_move;
        self.plies = snapshot.plies;
        self.goals = snapshot.goals;
        self.broken = snapshot.broken;
    }

    /// Our search for the move about to be played.
    pub fn set_pending(&mut self, figures: SearchFigures) {
        self.pending = Some(figures);
    }

    /// Marks the start of a turn (the time of the move made in it counts from here).
    pub fn turn_started(&mut self, at: Instant) {
        self.last_message = Some(at);
    }

    pub fn finish(&mut self, aborted: bool) {
        if self.is_live() {
            self.status = if aborted { "aborted" } else { "finished" };
        }
    }
}

/// The store watching the player's matches.
impl Observer for Store {
    fn started(
        &self,
        match_id: &str,
        snapshot: Snapshot,
        start_clock: Duration,
        play_clock: Duration,
        model: &'static str,
    ) {
        self.open(NewRecord {
            source: Source::Controller,
            match_id: match_id.to_owned(),
            snapshot,
            model,
            start_clock,
            play_clock,
        });
    }

    fn moved(
        &self,
        match_id: &str,
        joint: Option<Vec<String>>,
        snapshot: Snapshot,
        received: Instant,
    ) {
        let Some(id) = self.live_id(match_id) else {
            return;
        };
        self.update(id, |r| match joint {
            Some(joint) => r.push_move(&joint, snapshot, received),
            None => r.turn_started(received),
        });
    }

    fn searched(&self, match_id: &str, figures: SearchFigures) {
        if let Some(id) = self.live_id(match_id) {
            self.update(id, |r| r.set_pending(figures));
        }
    }

    fn finished(&self, match_id: &str, aborted: bool) {
        let id = self.inner().live.remove(match_id);
        if let Some(id) = id {
            self.update(id, |r| r.finish(aborted));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(board: &str, plies: u32) -> Snapshot {
        Snapshot {
            game: "breakthrough",
            roles: vec!["white".into(), "black".into()],
            us: 1,
            board: board.into(),
            plies,
            goals: None,
            broken: None,
            to_move: vec![plies as usize % 2],
            grid_axes: Vec::new(),
        }
    }

    fn figures() -> SearchFigures {
        SearchFigures {
            method: "alphabeta",
            depth: 3,
            score: Some(12),
            win_rate: None,
            proven: None,
            nodes: 100,
            nodes_per_second: 1000,
            pv: vec!["(move 1 3 1 2)".into()],
            time: Duration::from_millis(100),
        }
    }

    #[test]
    fn a_match_is_followed_from_start_to_stop() {
        let store = Store::default();
        let mut changes = store.subscribe();
        let t0 = Instant::now();
        store.started(
            "m",
            snapshot("BB\n..\n..\nWW", 0),
            Duration::from_secs(5),
            Duration::from_secs(1),
            "engine",
        );
        assert_eq!(store.list()[0].size, "2x4");
        store.moved("m", None, snapshot("BB\n..\n..\nWW", 0), t0);
        let joint = |a: &str, b: &str| Some(vec![a.to_owned(), b.to_owned()]);
        store.moved(
            "m",
            joint("(move 1 1 1 2)", "noop"),
            snapshot("BB\n..\nW.\n.W", 1),
            t0 + Duration::from_millis(700),
        );
        store.searched("m", figures());
        store.moved(
            "m",
            joint("noop", "(move 1 4 1 3)"),
            snapshot("B.\n..\n..\n.W", 2),
            t0 + Duration::from_millis(1200),
        );
        store.finished("m", false);
        let r = &store.list()[0];
        assert_eq!(r.status, "finished");
        assert_eq!(r.plies, 2);
        assert_eq!(r.moves.len(), 2);
        assert_eq!((r.moves[0].mover, r.moves[0].ms), (Some(0), 700));
        assert!(r.moves[0].search.is_none(), "white's move is not ours");
        assert_eq!((r.moves[1].mover, r.moves[1].ms), (Some(1), 500));
        assert_eq!(r.moves[1].search.as_ref().map(|f| f.depth), Some(3));
        assert_eq!(r.board, "B.\n..\n..\n.W");
        let mut seen = 0;
        while let Ok(c) = changes.try_recv() {
            assert_eq!(c.id, r.id);
            seen += 1;
        }
        assert_eq!(seen, 6, "every change is announced");
        // Reports about an unknown match change nothing.
        store.moved("other", joint("a", "b"), snapshot("", 1), t0);
        assert_eq!(store.list().len(), 1);
    }

    #[test]
    fn the_oldest_finished_records_go_first() {
        let store = Store::default();
        let clock = Duration::from_secs(1);
        store.started("live", snapshot("", 0), clock, clock, "engine");
        for i in 0..MAX_RECORDS + 5 {
            let id = format!("m{i}");
            store.started(&id, snapshot("", 0), clock, clock, "engine");
            store.finished(&id, false);
        }
        let list = store.list();
        assert_eq!(list.len(), MAX_RECORDS);
        assert!(list.iter().any(|r| r.match_id == "live" && r.is_live()));
    }
}
