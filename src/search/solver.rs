//! A solver: the game-theoretic value (win, draw or loss) of a position, by alpha-beta
//! over the three outcomes only, to the end of the game.
//!
//! Without distances to the end, far more positions share a value than in the playing
//! search, where a win in 5 and a win in 7 differ: every transposition is a hit, and a
//! cut-off needs only *a* win, not the fastest. That makes proofs much cheaper; the
//! playing search then finds the fastest win or slowest loss within the proven value.
//! The solver keeps its results in a table of its own ([`ProofTable`]): each entry holds
//! the bounds proven on the position's value (merged over the searches that met it) and
//! the move that proved them, and a full bucket gives up the entry that cost the fewest
//! nodes. A proof of a 5×5 board visits far more positions than any table keeps, and a
//! table that replaced by age (as the playing search's does) lost the expensive entries
//! near the root to the many cheap ones below them.
//!
//! Moves are tried in the table's order first, then wins and captures by the game's
//! priority, then quiet moves by the history heuristic alone: the cut-offs each move made
//! so far, weighted towards the root. Which quiet move refutes is learnt far better than
//! guessed from the board: it cut the nodes of one-thread proofs by 9–67% on every board
//! measured (course 4×7 56.1 M → 21.4 M, standard 5×5 31.4 M → 26.7 M).
//!
//! In a game whose positions repeat ([`Game::REPEATS`]), a position already on the path
//! counts as a draw (play could go round forever). That value depends on the path, so no
//! result that rests on it is stored. Lines longer than [`max_ply`] plies stop the solve
//! (reported as [`Solution::too_deep`]) rather than overflow the stack.
//!
//! The table is the solver's whole state, so a long solve can be saved to a file now and
//! then and resumed from it ([`solve_resumable`], `checkpoint`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tracing::info;

use super::alphabeta::extend_by;
use super::busy::Busy;
use super::checkpoint::{self, Checkpoint, Header, Writer};
use super::limits::Limits;
use super::order::Order;
use super::progress::{Lately, Progress};
use super::prooftable::{ProofTable, key_of};
use crate::game::{Game, MoveBuffer, Outcome, TACTICAL_PRIORITY};

/// How many nodes pass between two looks at the clock (a power of two).
const CHECK_EVERY: u64 = 4096;
/// Plies from the root within which a cut-off counts in the history (see
/// [`Solver::reward`]).
const HISTORY_PLIES: usize = 64;
/// Entries of the history: every move code, once per side.
const HISTORY_LEN: usize = 2 << u16::BITS;
/// The most a tactical move's priority counts in [`order_key`], so that the key, that
/// times 2^20, fits an `i32`; a win's priority is far above any capture's.
const TACTICAL_CAP: i32 = 1000;
/// Stack the solver's recursion may take (the main thread has 8 MiB).
const STACK_BYTES: usize = 4 << 20;
/// A frame's own size besides its move list, generously.
const FRAME_BYTES: usize = 512;

/// The longest line the solver follows in `G`: at most 1000 plies, fewer when its move
/// lists are large.
pub fn max_ply<G: Game>() -> usize {
    (STACK_BYTES / (std::mem::size_of::<G::MoveList>() + FRAME_BYTES)).min(1000)
}

/// What a solve found.
#[derive(Clone, Debug)]
pub struct Solution<M> {
    /// The value for the side to move, `None` when the limits stopped the solver first.
    pub value: Option<Outcome>,
    /// The solver stopped because a line ran longer than [`max_ply`] plies.
    pub too_deep: bool,
    /// A line that keeps the value (each side playing a move that achieves it).
    pub line: Vec<M>,
    /// When the limits stopped the solver (alpha-beta), the codes ([`Game::move_code`])
    /// of the moves from the root to where its first thread was: the completed work
    /// hangs off this line ([`proven_below`]).
    pub stopped: Vec<u16>,
    pub nodes: u64,
    pub time: std::time::Duration,
}

/// Solves `root` within `limits` (its depth is ignored: the solver goes to the end) on
/// `threads` threads, storing what it proves in `table` (see the module documentation).
///
/// More threads run the same proof from the root over the one table, each putting off a
/// move another is searching right now near the root, so that they take different
/// parts of the tree and find each other's results in the table; the first to settle
/// the root ends the proof for all.
pub fn solve<G: Game>(
    root: &G,
    limits: &Limits,
    table: &ProofTable,
    threads: usize,
) -> Solution<G::Move> {
    solve_reporting(root, limits, table, threads, None)
}

/// Progress reports of a long solve: told how it stands every `every`.
pub struct Reporting<'a> {
    pub report: &'a (dyn Fn(&Progress) + Sync),
    pub every: Duration,
}

/// [`solve`], reporting its progress.
pub fn solve_reporting<G: Game>(
    root: &G,
    limits: &Limits,
    table: &ProofTable,
    threads: usize,
    reporting: Option<Reporting>,
) -> Solution<G::Move> {
    run(root, limits, table, threads, reporting.as_ref(), None).0
}

/// [`solve_reporting`], saved to `checkpoint` now and then and when it stops, and resumed
/// from it when its file is there (with the saved table's size, not `hash_mb`). The
/// nodes and time are the whole solve's, resumed runs included. `Err` for a checkpoint
/// that cannot be read, that another solver wrote or that belongs to another solve, and
/// for a last save that fails before the value is found.
pub fn solve_resumable<G: Game>(
    root: &G,
    limits: &Limits,
    hash_mb: usize,
    threads: usize,
    reporting: Option<Reporting>,
    checkpoint: &Checkpoint,
) -> Result<Solution<G::Move>, String> {
    let root_hash = root.hash();
    let (header, table) = match checkpoint::resume(checkpoint, Writer::AlphaBeta, root_hash)? {
        Some((header, table)) => (Some(header), table),
        None => (None, ProofTable::new(hash_mb)),
    };
    let saving = Saving {
        checkpoint,
        root: root_hash,
        before: header.map_or((0, Duration::ZERO), |h| (h.nodes, h.elapsed)),
    };
    let (mut solution, drawing) = run(
        root,
        limits,
        &table,
        threads,
        reporting.as_ref(),
        Some(&saving),
    );
    solution.nodes += saving.before.0;
    solution.time += saving.before.1;
    // The proof under way when the solve stopped (told on resuming; the table alone
    // leads a resumed run back to it).
    let phase = u8::from(solution.value.is_none() && drawing);
    // A value found is reported even if its last save fails; work not yet saved is lost
    // with it, so that is an error.
    match saving.save(&table, phase, solution.nodes, solution.time) {
        Err(e) if solution.value.is_some() => tracing::warn!("{e}"),
        saved => saved?,
    }
    Ok(solution)
}

/// Where a resumable solve saves itself, and what it had done before this run.
struct Saving<'a> {
    checkpoint: &'a Checkpoint<'a>,
    root: u64,
    /// Nodes and time of the runs before this one.
    before: (u64, Duration),
}

impl Saving<'_> {
    fn save(
        &self,
        table: &ProofTable,
        phase: u8,
        nodes: u64,
        elapsed: Duration,
    ) -> Result<(), String> {
        let header = Header {
            label: self.checkpoint.label.to_owned(),
            root: self.root,
            phase,
            saw_draw: false,
            nodes,
            elapsed,
        };
        checkpoint::save(self.checkpoint.path, Writer::AlphaBeta, &header, table)
    }
}

/// A solve on `threads` threads; a thread beside them reports its progress and saves it.
/// Also whether the second proof ("can the side to move avoid losing?") was the last
/// under way.
fn run<G: Game>(
    root: &G,
    limits: &Limits,
    table: &ProofTable,
    threads: usize,
    reporting: Option<&Reporting>,
    saving: Option<&Saving>,
) -> (Solution<G::Move>, bool) {
    let start = Instant::now();
    let shared = Shared::new(table, limits, threads);
    let done = AtomicBool::new(false);
    let value = std::thread::scope(|scope| {
        if reporting.is_some() || saving.is_some() {
            let (shared, done) = (&shared, &done);
            scope.spawn(move || shared.chores_until(done, reporting, saving, start));
        }
        let value = shared.value(root, threads);
        done.store(true, Ordering::Relaxed);
        value
    });
    let line = value.map_or_else(Vec::new, |_| principal_line(root, table));
    let solution = Solution {
        value,
        too_deep: shared.too_deep.load(Ordering::Relaxed),
        line,
        nodes: shared.nodes.load(Ordering::Relaxed),
        time: start.elapsed(),
        stopped: std::mem::take(
            &mut *shared
                .stopped
                .lock()
                .expect("no thread panicked holding it"),
        ),
    };
    info!(
        value = ?solution.value,
        nodes = solution.nodes,
        time_ms = solution.time.as_millis() as u64,
        threads,
        "solve done"
    );
    (solution, shared.drawing.load(Ordering::Relaxed))
}

/// A position's proven value and every move that keeps it.
#[derive(Clone, Debug)]
pub struct Keeping<M> {
    /// The value for the side to move.
    pub value: Outcome,
    /// The legal moves after which the value still holds, in the order the game lists
    /// them: every move of a lost position (none can lose more), none of a finished game.
    pub moves: Vec<M>,
}

/// One position of a game's table of solved openings, as `solve --openings` writes it
/// (a JSON line): the board and variant, the moves from the start in the game's
/// notation, the value for the side to move and the moves that keep it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SolvedOpening {
    pub board: String,
    pub variant: String,
    pub after: Vec<String>,
    pub value: Outcome,
    pub keeping: Vec<String>,
    /// Taken from a proof's principal line rather than from `solve --openings`: `keeping`
    /// holds the line's move only (others may keep the value too), and the board's other
    /// openings are not tabled. For boards whose openings cost too much to solve one by
    /// one, it is what the proof of the start gives for free.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub line_only: bool,
}

/// Solves `root` and then each of its moves (one null-window test each, over the same
/// `table`, so that every child starts from what the root's proof left there): what a
/// player needs to never give the value away. `None` when the limits, or a line longer
/// than [`max_ply`], stopped it.
pub fn keeping_moves<G: Game>(
    root: &G,
    limits: &Limits,
    table: &ProofTable,
    threads: usize,
) -> Option<Keeping<G::Move>> {
    let shared = Shared::new(table, limits, threads);
    let value = shared.value(root, threads)?;
    let mut moves = Vec::new();
    if crate::game::result(root).is_none() {
        let mut list = G::MoveList::default();
        root.generate_moves(&mut list);
        for &m in list.as_slice() {
            let mut child = root.clone();
            child.make(m);
            let keeps = match value {
                Outcome::Loss => true,
                // The opponent must be lost: can it avoid losing?
                Outcome::Win => shared.test(&child, threads, -1, 0)? <= -1,
                // No move wins (the root is a draw): a move keeps the draw unless the
                // opponent wins after it.
                Outcome::Draw => shared.test(&child, threads, 0, 1)? < 1,
            };
            if keeps {
                moves.push(m);
            }
        }
    }
    Some(Keeping { value, moves })
}

/// What is proven about `position`'s value for its side to move, as the least and most
/// it can be: from the game when it is over or won in one move, else from the solver's
/// `table`, if given and holding it. `None` when nothing is. A caller that splits a
/// position into its children learns this way what a solve of the position proved about
/// each of them before it stopped.
pub fn proven_bounds<G: Game>(
    position: &G,
    table: Option<&ProofTable>,
) -> Option<(Outcome, Outcome)> {
    if let Some(o) = crate::game::result(position) {
        return Some((o, o));
    }
    if position.can_win_now() {
        return Some((Outcome::Win, Outcome::Win));
    }
    let p = Proven::unpack(table?.get(key_of(position).0)?);
    Some((outcome_of(p.least), outcome_of(p.most)))
}

/// Puts into `table` what is proven elsewhere about the position of `key` (a
/// [`super::position_key`]): its value for the side to move is at least `least` and at
/// most `most`. A solve over the table then takes it as a result of its own wherever it
/// meets the position (by any line, or as its mirror image) and does not search below it.
/// It is stored as the most work a table entry can stand for, so that the solve's own
/// entries never push it out.
pub fn add_known(table: &ProofTable, key: u64, least: Outcome, most: Outcome) {
    let proven = Proven {
        least: value_of(least),
        most: value_of(most),
        move_code: None,
    };
    table.put(key, proven.pack(), u64::from(KNOWN_WORK));
}

/// What `table` proves about positions below `root` whose proofs cost at least
/// `min_work` nodes (and were not given by [`add_known`]): the keys, each once, with the
/// least and most the value can be for the side to move there. It follows the lines
/// through such positions only, so that it stays within the expensive top of the solve's
/// tree: at most about `nodes / min_work` positions at each depth. These are what a later
/// solve of `root` (or one that meets them) would otherwise pay for again.
pub fn proven_below<G: Game>(
    root: &G,
    table: &ProofTable,
    min_work: u64,
    stopped: &[u16],
) -> Vec<(u64, Outcome, Outcome)> {
    let mut walk = ProvenWalk {
        table,
        min_work: min_work.max(1),
        seen: std::collections::HashSet::new(),
        found: Vec::new(),
    };
    walk.below(&mut root.clone(), stopped, 0);
    walk.found
}

/// The walk of [`proven_below`].
struct ProvenWalk<'a> {
    table: &'a ProofTable,
    min_work: u64,
    seen: std::collections::HashSet<u64>,
    found: Vec<(u64, Outcome, Outcome)>,
}

impl ProvenWalk<'_> {
    /// Below `position`, `ply` moves from the root: through the children whose proofs
    /// cost enough, and the one `stopped` goes on to, which has no entry (its search was
    /// cut short) but the completed work of its own line below it.
    fn below<G: Game>(&mut self, position: &mut G, stopped: &[u16], ply: usize) {
        if ply >= max_ply::<G>() || crate::game::result(position).is_some() {
            return;
        }
        let mut list = G::MoveList::default();
        position.generate_moves(&mut list);
        for &m in list.as_slice() {
            position.make(m);
            let (key, _) = key_of(position);
            if stopped.first() == Some(&G::move_code(m)) {
                self.below(position, &stopped[1..], ply + 1);
            } else if let Some(entry) = self.table.entry(key)
                && u64::from(entry.work) >= self.min_work
                && self.seen.insert(key)
            {
                let p = Proven::unpack(entry.payload);
                if entry.work != KNOWN_WORK && (p.least, p.most) != (-1, 1) {
                    self.found
                        .push((key, outcome_of(p.least), outcome_of(p.most)));
                }
                if p.least != p.most {
                    self.below(position, &[], ply + 1);
                }
            }
            position.unmake(m);
        }
    }
}

/// The work an entry of [`add_known`] stands for: the most there is.
const KNOWN_WORK: u32 = u32::MAX;

/// Slots of the marks of moves being searched (with more than one thread).
const BUSY_SLOTS: usize = 1 << 16;
/// Plies from the root within which a thread puts off a move another is searching:
/// deeper, the marks would cost more than the work they share out.
const DEFER_PLIES: usize = 12;
/// Plies from the root whose counts of moves searched the progress line shows.
const LINE_PLIES: usize = 4;

/// What the threads of a solve share.
struct Shared<'a> {
    table: &'a ProofTable,
    limits: &'a Limits,
    /// Set when the test under way is settled (or must end).
    stop: AtomicBool,
    busy: Option<Busy>,
    /// Nodes so far, brought up to date every [`CHECK_EVERY`] nodes of each thread.
    nodes: AtomicU64,
    too_deep: AtomicBool,
    /// The test under way is "can the side to move avoid losing?" (else "can it win?").
    drawing: AtomicBool,
    /// Moves searched and moves in all (packed by [`pack_count`]) at each node of the
    /// first thread's line, from the root down; zero below the node it is in.
    line: [AtomicU32; LINE_PLIES],
    /// The first thread's line when it was stopped ([`Solution::stopped`]).
    stopped: Mutex<Vec<u16>>,
}

impl<'a> Shared<'a> {
    fn new(table: &'a ProofTable, limits: &'a Limits, threads: usize) -> Self {
        Shared {
            table,
            limits,
            stop: AtomicBool::new(false),
            busy: (threads > 1).then(|| Busy::new(BUSY_SLOTS)),
            nodes: AtomicU64::new(0),
            too_deep: AtomicBool::new(false),
            drawing: AtomicBool::new(false),
            line: Default::default(),
            stopped: Mutex::new(Vec::new()),
        }
    }

    /// The first thread's line as (moves searched, moves) from the root down.
    fn line(&self) -> Vec<(u32, u32)> {
        self.line
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .take_while(|&c| c != 0)
            .map(unpack_count)
            .collect()
    }

    /// Records that the first thread searched `searched` of the `moves` of its node at
    /// `ply` (and so is no deeper).
    fn count_line(&self, ply: usize, searched: usize, moves: usize) {
        self.line[ply].store(pack_count(searched, moves), Ordering::Relaxed);
        self.clear_line(ply + 1);
    }

    /// Forgets the line from `ply` down.
    fn clear_line(&self, ply: usize) {
        for count in &self.line[ply..] {
            count.store(0, Ordering::Relaxed);
        }
    }

    /// Reports how the solve stands every `reporting.every`, and saves it every
    /// `saving.checkpoint.every`, until `done` is raised.
    fn chores_until(
        &self,
        done: &AtomicBool,
        reporting: Option<&Reporting>,
        saving: Option<&Saving>,
        start: Instant,
    ) {
        let (mut lately, mut last_save) = (Lately::new(0), Instant::now());
        let before = saving.map_or((0, Duration::ZERO), |s| s.before);
        let tick = reporting
            .map(|r| r.every)
            .into_iter()
            .chain(saving.map(|s| s.checkpoint.every))
            .min()
            .unwrap_or(Duration::from_secs(1))
            .clamp(Duration::from_millis(1), Duration::from_millis(50));
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(tick);
            let drawing = self.drawing.load(Ordering::Relaxed);
            let nodes = self.nodes.load(Ordering::Relaxed);
            let elapsed = start.elapsed();
            if let Some(r) = reporting
                && lately.due(r.every)
            {
                (r.report)(&Progress {
                    proof: if drawing { "draw" } else { "win" },
                    root: None,
                    line: self.line(),
                    nodes: before.0 + nodes,
                    elapsed: before.1 + elapsed,
                    rate: nodes as f64 / elapsed.as_secs_f64().max(1e-9),
                    lately: lately.rate(nodes),
                    table_mb: self.table.bytes() >> 20,
                    table_filled: self.table.filled(),
                });
            }
            if let Some(s) = saving
                && last_save.elapsed() >= s.checkpoint.every
            {
                // A failed save is reported and tried again later, not fatal: the solve
                // itself is sound.
                let saved = s.save(
                    self.table,
                    u8::from(drawing),
                    before.0 + nodes,
                    before.1 + elapsed,
                );
                if let Err(e) = saved {
                    tracing::warn!("{e}");
                }
                last_save = Instant::now();
            }
        }
    }

    /// The value of `root` by two null-window tests around the draw (can the side to move
    /// win? can it avoid losing?); `None` when stopped.
    fn value<G: Game>(&self, root: &G, threads: usize) -> Option<Outcome> {
        if self.test(root, threads, 0, 1)? >= 1 {
            return Some(Outcome::Win);
        }
        Some(if self.test(root, threads, -1, 0)? <= -1 {
            Outcome::Loss
        } else {
            Outcome::Draw
        })
    }

    /// One null-window test of `root` on `threads` threads: the value of the first to
    /// finish, `None` when the limits (or a line too deep) stopped them all.
    fn test<G: Game>(&self, root: &G, threads: usize, alpha: i32, beta: i32) -> Option<i32> {
        self.stop.store(false, Ordering::Relaxed);
        self.drawing.store(beta <= 0, Ordering::Relaxed);
        self.clear_line(0);
        let found = Mutex::new(None);
        let run = |first: bool| {
            let mut s = Solver::new(root, self, first);
            let (v, _) = s.node(alpha, beta);
            // The nodes not yet counted (see `Solver::node`).
            self.nodes
                .fetch_add(s.nodes & (CHECK_EVERY - 1), Ordering::Relaxed);
            if first && s.aborted {
                s.stopped.reverse();
                *self.stopped.lock().expect("no thread panics holding it") = s.stopped;
            }
            if !s.aborted {
                self.stop.store(true, Ordering::Relaxed);
                found
                    .lock()
                    .expect("no thread panics holding it")
                    .get_or_insert(v);
            }
        };
        std::thread::scope(|scope| {
            for _ in 1..threads {
                std::thread::Builder::new()
                    .stack_size(STACK_BYTES + (1 << 20))
                    .spawn_scoped(scope, || run(false))
                    .expect("a solver thread starts");
            }
            run(true);
        });
        found.into_inner().expect("no thread panicked holding it")
    }
}

struct Solver<'a, G> {
    game: G,
    shared: &'a Shared<'a>,
    nodes: u64,
    aborted: bool,
    /// The first thread, whose line the progress shows.
    first: bool,
    /// Ordering keys of the moves of every node on the path, stacked.
    keys: Vec<i32>,
    /// Hashes of the positions on the path.
    path: Vec<u64>,
    /// Hashes of the children of every node on the path, stacked (for
    /// [`Solver::cut_by_table`]).
    hashes: Vec<u64>,
    /// Indices of moves put off because another thread was searching them, stacked.
    deferred: Vec<usize>,
    /// The history heuristic: the cut-offs each move code made (weighted by [`reward`]),
    /// one half of the table per parity of the ply, that is per side.
    ///
    /// [`reward`]: Solver::reward
    history: Vec<u32>,
    /// Once stopped, the codes of the moves from where it stopped back to the root.
    stopped: Vec<u16>,
}

/// What the table keeps of a position: the least and most its value can be (−1, 0 or
/// 1), and the move that proved them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Proven {
    least: i32,
    most: i32,
    move_code: Option<u16>,
}

impl Proven {
    /// Bits 0–15: the move code plus one (0 for none); 16–17 and 18–19: least and most
    /// plus one.
    fn pack(self) -> u64 {
        let code = self.move_code.map_or(0, |c| u64::from(c) + 1);
        code | ((self.least + 1) as u64) << 16 | ((self.most + 1) as u64) << 18
    }

    fn unpack(p: u64) -> Proven {
        let code = (p & 0xffff) as u16;
        Proven {
            least: ((p >> 16) & 3) as i32 - 1,
            most: ((p >> 18) & 3) as i32 - 1,
            move_code: code.checked_sub(1),
        }
    }
}

impl<'a, G: Game> Solver<'a, G> {
    fn new(root: &G, shared: &'a Shared<'a>, first: bool) -> Self {
        Solver {
            game: root.clone(),
            shared,
            nodes: 0,
            aborted: false,
            first,
            keys: Vec::new(),
            path: Vec::new(),
            hashes: Vec::new(),
            deferred: Vec::new(),
            history: vec![0; HISTORY_LEN],
            stopped: Vec::new(),
        }
    }

    /// The value (−1, 0 or 1) within `(alpha, beta)`, fail-soft, and whether it rests on a
    /// repetition of the path (and so holds for this path only).
    fn node(&mut self, alpha: i32, beta: i32) -> (i32, bool) {
        self.nodes += 1;
        if self.nodes & (CHECK_EVERY - 1) == 0 {
            let total = self.shared.nodes.fetch_add(CHECK_EVERY, Ordering::Relaxed) + CHECK_EVERY;
            let limits = self.shared.limits;
            if self.shared.stop.load(Ordering::Relaxed)
                || limits.must_abort()
                || limits.nodes_spent(total)
            {
                self.aborted = true;
            }
        }
        if self.aborted {
            return (0, false);
        }
        if let Some(o) = self.game.decided() {
            return (value_of(o), false);
        }
        if self.path.len() >= max_ply::<G>() {
            self.shared.too_deep.store(true, Ordering::Relaxed);
            self.shared.stop.store(true, Ordering::Relaxed);
            self.aborted = true;
            return (0, false);
        }
        let hash = self.game.hash();
        if G::REPEATS && self.path.contains(&hash) {
            return (0, true);
        }
        self.path.push(hash);
        let result = self.expand(alpha, beta);
        self.path.pop();
        result
    }

    fn expand(&mut self, mut alpha: i32, beta: i32) -> (i32, bool) {
        if self.game.can_win_now() {
            return (1, false);
        }
        let nodes_before = self.nodes;
        let (key, mirrored) = key_of(&self.game);
        let known = self.shared.table.get(key).map(Proven::unpack);
        if let Some(p) = known {
            if p.least >= beta || p.least == p.most {
                return (p.least, false);
            }
            if p.most <= alpha {
                return (p.most, false);
            }
        }
        let table_move = known
            .and_then(|p| p.move_code)
            .map(|c| oriented(&self.game, c, mirrored));
        let mut list = G::MoveList::default();
        self.game.generate_moves(&mut list);
        if list.is_empty() {
            return (value_of(self.game.outcome_without_moves()), false);
        }
        let mut moves = list.as_mut_slice();
        if self.game.threatened() {
            moves = self.stopping_threat(moves);
            if moves.is_empty() {
                return (-1, false);
            }
        }
        if !G::REPEATS
            && let Some(v) = self.cut_by_table(moves, beta)
        {
            return (v, false);
        }
        let n = moves.len();
        let base = self.keys.len();
        let side = (self.path.len() & 1) << u16::BITS;
        for &m in moves.iter() {
            let code = G::move_code(m);
            let key = if Some(code) == table_move {
                i32::MAX
            } else {
                order_key(
                    self.game.move_priority(m),
                    self.history[side | usize::from(code)],
                )
            };
            self.keys.push(key);
        }
        let alpha_in = alpha;
        let mut best = -2;
        let mut best_move = None;
        // An upper bound (or exact value) rests on every move; a cut-off only on its move.
        let mut dependent = false;
        // With more threads, near the root a move another thread is searching right now
        // is put off to the end (the table may answer it by then); the first never is.
        // Moves are marked as the table keys them, so that a thread in a position's
        // mirror image (after the mirror of a first move, say) puts them off too.
        let busy_code = |game: &G, m: G::Move| oriented(game, G::move_code(m), mirrored);
        let busy = self
            .shared
            .busy
            .as_ref()
            .filter(|_| self.path.len() <= DEFER_PLIES);
        let mut order = Order::new(&self.deferred);
        let mut searched = 0;
        // The root is at ply 0 (its hash is on the path).
        let counted = (self.first && self.path.len() <= LINE_PLIES).then(|| self.path.len() - 1);
        if let Some(ply) = counted {
            self.shared.count_line(ply, 0, n);
        }
        while let Some(index) = order.next(
            moves,
            &mut self.keys[base..base + n],
            &mut self.deferred,
            searched,
            |m| busy.is_some_and(|b| b.is_busy(key, busy_code(&self.game, m))),
        ) {
            let m = moves[index];
            let mark = busy.map(|b| b.enter(key, busy_code(&self.game, m)));
            self.game.make(m);
            let (v, on_path) = self.node(-beta, -alpha);
            let v = -v;
            self.game.unmake(m);
            if let (Some(b), Some(mark)) = (busy, mark) {
                b.leave(mark);
            }
            if self.aborted {
                self.stopped.push(G::move_code(m));
                break;
            }
            searched += 1;
            if let Some(ply) = counted {
                self.shared.count_line(ply, searched, n);
            }
            dependent |= on_path;
            if v > best {
                best = v;
                best_move = Some(m);
                alpha = alpha.max(v);
                if v >= beta {
                    dependent = on_path;
                    self.reward(side | usize::from(G::move_code(m)));
                    break;
                }
            }
        }
        self.keys.truncate(base);
        order.finish(&mut self.deferred);
        if self.aborted {
            return (0, false);
        }
        if dependent {
            // Valid from this path only: keep it out of the table.
            return (best, true);
        }
        // Fail-soft: a cut-off proves at least `best`, a fail-low at most `best`, and a
        // value inside the window exactly `best`; merged with what was known before.
        let (mut least, mut most) = known.map_or((-1, 1), |p| (p.least, p.most));
        if best > alpha_in {
            least = least.max(best);
        }
        if best < beta {
            most = most.min(best);
        }
        let proven = Proven {
            least,
            most,
            move_code: best_move
                .map(G::move_code)
                .or(table_move)
                .map(|c| oriented(&self.game, c, mirrored)),
        };
        self.shared
            .table
            .put(key, proven.pack(), self.nodes - nodes_before);
        (best, false)
    }

    /// The moves that stop a threat to win next move, moved to the front of `moves`:
    /// the others lose at once (the side to move cannot win first, or `expand` would have
    /// stopped), so they are not searched.
    fn stopping_threat<'m>(&mut self, moves: &'m mut [G::Move]) -> &'m mut [G::Move] {
        let mut kept = 0;
        for i in 0..moves.len() {
            let m = moves[i];
            self.game.make(m);
            let stops = !self.game.can_win_now();
            self.game.unmake(m);
            if stops {
                moves.swap(kept, i);
                kept += 1;
            }
        }
        &mut moves[..kept]
    }

    /// Credits the move at `index` of the history with a cut-off at this ply: more near
    /// the root, whose cut-offs spare larger trees. All entries halve when one grows
    /// large, so that recent cut-offs weigh more than old ones.
    fn reward(&mut self, index: usize) {
        let weight = (HISTORY_PLIES.saturating_sub(self.path.len()) as u32).pow(2);
        let h = &mut self.history[index];
        *h += weight;
        if *h >= 1 << 27 {
            self.history.iter_mut().for_each(|h| *h >>= 1);
        }
    }

    /// Enhanced transposition cut-off: a value of at least `beta` through a child the
    /// table already proves good enough, found before any child is searched. The
    /// children's buckets are all requested before the first is read, so that their
    /// cache misses overlap.
    fn cut_by_table(&mut self, moves: &[G::Move], beta: i32) -> Option<i32> {
        let base = self.hashes.len();
        for &m in moves {
            self.game.make(m);
            let (h, _) = key_of(&self.game);
            self.game.unmake(m);
            self.shared.table.touch(h);
            self.hashes.push(h);
        }
        let cut = self.hashes[base..]
            .iter()
            .filter_map(|&h| self.shared.table.get(h))
            .map(|p| -Proven::unpack(p).most)
            .find(|&v| v >= beta);
        self.hashes.truncate(base);
        cut
    }
}

/// Moves searched and moves in all in one word (each at most 65,535 here); never zero
/// for a node with moves.
fn pack_count(searched: usize, moves: usize) -> u32 {
    let cap = |x: usize| x.min(0xffff) as u32;
    cap(searched) << 16 | cap(moves)
}

fn unpack_count(packed: u32) -> (u32, u32) {
    (packed >> 16, packed & 0xffff)
}

/// A move code as `game` sees it, stored under a key that was (`mirrored`) or was not its
/// mirror image's; the same turns a code of `game` into the key's (mirroring is its own
/// inverse).
fn oriented<G: Game>(game: &G, code: u16, mirrored: bool) -> u16 {
    if mirrored {
        game.mirror_code(code)
    } else {
        code
    }
}

/// A move's ordering key in the solver: tactical moves (wins, captures) by the game's
/// priority first, then by history; quiet moves by history alone, since which quiet move
/// refutes is learnt from the cut-offs far better than guessed from the board.
fn order_key(priority: i32, history: u32) -> i32 {
    let class = if priority >= TACTICAL_PRIORITY {
        priority.min(TACTICAL_CAP)
    } else {
        0
    };
    // `history` stays below 2^27 (see `reward`), so the shifted value below 2^20.
    class * (1 << 20) + (history >> 8) as i32
}

fn value_of(o: Outcome) -> i32 {
    match o {
        Outcome::Win => 1,
        Outcome::Loss => -1,
        Outcome::Draw => 0,
    }
}

fn outcome_of(v: i32) -> Outcome {
    match v {
        1 => Outcome::Win,
        0 => Outcome::Draw,
        _ => Outcome::Loss,
    }
}

/// The table's moves from `root` on, while they are legal and the game goes on.
fn principal_line<G: Game>(root: &G, table: &ProofTable) -> Vec<G::Move> {
    let mut line = Vec::new();
    extend_by(root, &mut line, |game| {
        let (key, mirrored) = key_of(game);
        let code = Proven::unpack(table.get(key)?).move_code?;
        Some(oriented(game, code, mirrored))
    });
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_entry_reads_back_its_bounds_and_move() {
        for least in -1..=1 {
            for most in least..=1 {
                for move_code in [None, Some(0), Some(513), Some(u16::MAX - 1)] {
                    let p = Proven {
                        least,
                        most,
                        move_code,
                    };
                    assert_eq!(Proven::unpack(p.pack()), p);
                }
            }
        }
    }

    #[test]
    fn the_first_thread_counts_the_moves_searched_along_its_line() {
        use crate::games::breakthrough::spec::Breakthrough;
        // Course 5x5 is a draw: "can white win?" fails, so every one of white's five
        // first steps is searched; "can it draw?" holds after one or more of them.
        let root = crate::spec::start::<Breakthrough>(Some("5x5"), Some("course")).unwrap();
        let table = ProofTable::new(16);
        let limits = Limits::default();
        let shared = Shared::new(&table, &limits, 1);
        assert_eq!(shared.line(), []);
        assert_eq!(shared.test(&root, 1, 0, 1), Some(0));
        assert_eq!(shared.line(), [(5, 5)]);
        assert_eq!(shared.test(&root, 1, -1, 0), Some(0));
        let line = shared.line();
        assert!(
            line.len() == 1 && line[0].0 >= 1 && line[0].1 == 5,
            "{line:?}"
        );
        assert_eq!(pack_count(70_000, 3), 0xffff << 16 | 3);
    }

    #[test]
    fn a_win_comes_before_a_capture_and_a_capture_before_any_quiet_move() {
        let most = (1 << 27) - 1;
        let win = order_key(1_000_000, 0);
        let far_capture = order_key(TACTICAL_PRIORITY + 5, 0);
        let near_capture = order_key(TACTICAL_PRIORITY + 1, most);
        assert!(win > far_capture && far_capture > near_capture);
        assert!(near_capture > order_key(TACTICAL_PRIORITY - 1, most));
        // Among quiet moves the history decides, not the game's priority.
        assert!(order_key(1, 4096) > order_key(9, 0));
        assert!(order_key(1, most) < order_key(TACTICAL_PRIORITY, 0));
    }
}
