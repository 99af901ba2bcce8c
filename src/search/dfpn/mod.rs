//! A proof-number solver: depth-first proof-number search (df-pn) with the 1+ε
//! threshold of Pawlewicz and Lew, over any game whose positions do not repeat.
//!
//! Why df-pn and not PN²: both spend their effort where a proof is cheapest, by proof
//! and disproof numbers, which in Breakthrough (narrow forcing races beside wide quiet
//! play) beats alpha-beta's fixed order by far. PN² keeps its first-level tree in memory
//! and so runs out of it on exactly the boards worth solving; df-pn keeps nothing but a
//! transposition table, whose size is fixed up front (`--hash-mb`) and whose entries are
//! replaced by the work they stand for, so a long solve slows as it fills instead of
//! failing. The 1+ε threshold lets a child run on until its disproof number passes its
//! sibling's by a quarter, instead of by one, which cuts df-pn's switching back and forth
//! between siblings of equal standing.
//!
//! Proof numbers are kept from the side to move's view ("φ/δ"): φ is the effort to show
//! the side to move reaches its goal, δ the effort to show it does not; a position's φ
//! is its children's least δ and its δ the sum of their φ. The two sides' goals are
//! complementary: the first player (the attacker, to move at the root) wants at least
//! the target (a win, or at least a draw) and the other wants to keep it below. A value
//! is found as the alpha-beta solver does, by one or two such proofs: can the first
//! player win, and if not, can it draw. The second is skipped when no drawn end was met
//! in the first, whose disproof then rests on losses only.
//!
//! Known wins in one ([`Game::can_win_now`]) close a node without listing its moves.
//!
//! More threads share the table (`table`, without locks) and start from the root
//! together; a thread choosing a child passes over one that another thread is in (as if
//! its disproof number were twice as large), so that they prove different parts of the
//! tree. The first to settle the root ends the proof for all. A solve can be saved to a
//! file now and then and resumed from it (`checkpoint`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tracing::info;

use super::checkpoint::{self, Checkpoint, Header, Writer};
use super::limits::Limits;
use super::progress::{Lately, Progress};
use super::prooftable::{ProofTable, key_of};
use super::solver::{Solution, max_ply};
use crate::game::{Game, MoveBuffer, Outcome};
use busy::Busy;

mod busy;

/// A proof or disproof number that cannot be reached.
const INF: u32 = u32::MAX / 2;
/// How many nodes pass between two looks at the clock (a power of two).
const CHECK_EVERY: u64 = 4096;

/// How to run a df-pn solve besides its limits.
pub struct DfpnOptions<'a> {
    /// Size of the table in MiB (a resumed solve keeps its saved table's size).
    pub hash_mb: usize,
    /// Threads searching at once.
    pub threads: usize,
    /// Where to save the solve now and then, and to resume it from when the file is
    /// there.
    pub checkpoint: Option<Checkpoint<'a>>,
    /// Told how the solve stands every [`DfpnOptions::progress_every`].
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    pub progress_every: Duration,
}

impl DfpnOptions<'_> {
    /// One thread, a table of `hash_mb` MiB, no checkpoint and no progress reports.
    pub fn new(hash_mb: usize) -> DfpnOptions<'static> {
        DfpnOptions {
            hash_mb,
            threads: 1,
            checkpoint: None,
            progress: None,
            progress_every: Duration::from_secs(10),
        }
    }
}

/// What the attacker (the side to move at the root) sets out to prove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Win,
    AtLeastDraw,
}

impl Target {
    /// Mixed into table keys, so that the two proofs never read each other's entries.
    fn salt(self) -> u64 {
        match self {
            Target::Win => 0,
            Target::AtLeastDraw => 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// Whether the attacker's outcome `o` meets the target.
    fn met_by(self, o: Outcome) -> bool {
        match self {
            Target::Win => o == Outcome::Win,
            Target::AtLeastDraw => o != Outcome::Loss,
        }
    }

    fn phase(self) -> u8 {
        match self {
            Target::Win => 0,
            Target::AtLeastDraw => 1,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Target::Win => "win",
            Target::AtLeastDraw => "draw",
        }
    }
}

/// φ and δ of a position whose side to move reaches its goal, or does not.
fn settled(reached: bool) -> (u32, u32) {
    if reached { (0, INF) } else { (INF, 0) }
}

/// A child while its parent is searched.
struct Child<M> {
    mv: M,
    key: u64,
    phi: u32,
    delta: u32,
}

/// What the threads of one solve share.
struct Shared<'a> {
    table: &'a ProofTable,
    /// The positions threads are in; only with more than one thread.
    busy: Option<Busy>,
    limits: &'a Limits,
    /// Set when the proof under way is settled or the solve must end.
    stop: AtomicBool,
    /// The settled proof: whether the attacker reached its target.
    proved: Mutex<Option<bool>>,
    too_deep: AtomicBool,
    /// A drawn end was met: a failed proof of a win then says nothing about a loss.
    saw_draw: AtomicBool,
    /// Nodes of all threads, counted in steps of [`CHECK_EVERY`].
    nodes: AtomicU64,
    /// The root's φ and δ as last seen, packed.
    root: AtomicU64,
}

impl Shared<'_> {
    /// The φ and δ stored for `key`.
    fn numbers(&self, key: u64) -> Option<(u32, u32)> {
        self.table.get(key).map(unpack)
    }
}

/// φ and δ as one table payload (φ high).
fn pack(phi: u32, delta: u32) -> u64 {
    u64::from(phi) << 32 | u64::from(delta)
}

fn unpack(packed: u64) -> (u32, u32) {
    ((packed >> 32) as u32, packed as u32)
}

/// The main thread's housekeeping: progress reports and saves.
struct Chores<'a> {
    options: &'a DfpnOptions<'a>,
    label_root: u64,
    began: Instant,
    before: (u64, Duration),
    lately: Lately,
    last_save: Instant,
}

struct Search<'s, 'c, G: Game> {
    game: G,
    shared: &'s Shared<'s>,
    target: Target,
    nodes: u64,
    aborted: bool,
    ply: usize,
    /// The main thread's only.
    chores: Option<&'c mut Chores<'s>>,
}

impl<'s, 'c, G: Game> Search<'s, 'c, G> {
    fn new(game: G, shared: &'s Shared<'s>, target: Target) -> Search<'s, 'c, G> {
        Search {
            game,
            shared,
            target,
            nodes: 0,
            aborted: false,
            ply: 0,
            chores: None,
        }
    }

    /// The table key: a position and its mirror image share one ([`key_of`]).
    fn key(&self) -> u64 {
        key_of(&self.game).0 ^ self.target.salt()
    }

    /// The end of the game for the side to move, if the position is one, as φ and δ.
    fn terminal(&mut self) -> Option<(u32, u32)> {
        self.decided_or_won().or_else(|| {
            (!self.game.has_moves()).then(|| self.settle(self.game.outcome_without_moves()))
        })
    }

    /// [`Search::terminal`] but for the want of moves, which a caller about to list the
    /// moves tells for itself.
    fn decided_or_won(&mut self) -> Option<(u32, u32)> {
        match self.game.decided() {
            Some(o) => Some(self.settle(o)),
            None if self.game.can_win_now() => Some(settled(true)),
            None => self.bounded(),
        }
    }

    /// φ and δ of a position whose [`Game::value_bounds`] settle the target.
    fn bounded(&mut self) -> Option<(u32, u32)> {
        let (least, most) = self.game.value_bounds()?;
        let attacker = self.ply.is_multiple_of(2);
        let (least, most) = if attacker {
            (least, most)
        } else {
            (most.flipped(), least.flipped())
        };
        let reached = if self.target.met_by(least) {
            true
        } else if !self.target.met_by(most) {
            // Refuted by an end that may be a draw: as a drawn end met.
            if most == Outcome::Draw {
                self.shared.saw_draw.store(true, Ordering::Relaxed);
            }
            false
        } else {
            return None;
        };
        Some(settled(reached == attacker))
    }

    /// φ and δ of a game that ended in `outcome` for the side to move.
    fn settle(&mut self, outcome: Outcome) -> (u32, u32) {
        let attacker = self.ply.is_multiple_of(2);
        if outcome == Outcome::Draw {
            self.shared.saw_draw.store(true, Ordering::Relaxed);
        }
        let for_attacker = if attacker { outcome } else { outcome.flipped() };
        settled(self.target.met_by(for_attacker) == attacker)
    }

    /// Counts a node; every [`CHECK_EVERY`] of them looks at the limits and does the
    /// chores.
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & (CHECK_EVERY - 1) != 0 {
            return;
        }
        let shared = self.shared;
        let total = shared.nodes.fetch_add(CHECK_EVERY, Ordering::Relaxed) + CHECK_EVERY;
        if shared.limits.must_abort() || shared.limits.nodes_spent(total) {
            shared.stop.store(true, Ordering::Relaxed);
        }
        if shared.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        let target = self.target;
        if let Some(chores) = self.chores.as_deref_mut() {
            chores.now_and_then(shared, target);
        }
    }

    /// Searches the current position until its φ reaches `th_phi` or its δ reaches
    /// `th_delta`; returns them (as far as they got, when aborted).
    fn mid(&mut self, th_phi: u32, th_delta: u32) -> (u32, u32) {
        self.count_node();
        if self.ply >= max_ply::<G>() {
            self.shared.too_deep.store(true, Ordering::Relaxed);
            self.shared.stop.store(true, Ordering::Relaxed);
            self.aborted = true;
        }
        if self.aborted {
            return (1, 1);
        }
        if let Some(values) = self.decided_or_won() {
            return values;
        }
        let key = self.key();
        if let Some(busy) = &self.shared.busy {
            busy.enter(key);
        }
        let values = self.expand(key, th_phi, th_delta);
        if let Some(busy) = &self.shared.busy {
            busy.leave(key);
        }
        values
    }

    /// `f` run in the position after `mv`.
    fn in_child<R>(&mut self, mv: G::Move, f: impl FnOnce(&mut Self) -> R) -> R {
        self.game.make(mv);
        self.ply += 1;
        let r = f(self);
        self.ply -= 1;
        self.game.unmake(mv);
        r
    }

    /// [`Search::mid`] once the position is known to go on.
    fn expand(&mut self, key: u64, th_phi: u32, th_delta: u32) -> (u32, u32) {
        let nodes_before = self.nodes;
        let mut list = G::MoveList::default();
        self.game.generate_moves(&mut list);
        if list.is_empty() {
            return self.settle(self.game.outcome_without_moves());
        }
        // The children's keys first, each bucket's load started as its key is known,
        // so that the table's cache misses overlap instead of coming one after another.
        let mut children: Vec<Child<G::Move>> = Vec::with_capacity(list.len());
        for &mv in list.as_slice() {
            let key = self.in_child(mv, |s| s.key());
            self.shared.table.touch(key);
            children.push(Child {
                mv,
                key,
                phi: 1,
                delta: 1,
            });
        }
        for child in &mut children {
            (child.phi, child.delta) = match self.shared.numbers(child.key) {
                Some(values) => values,
                None => self.in_child(child.mv, |s| s.terminal()).unwrap_or((1, 1)),
            };
        }
        let (mut phi, mut delta);
        loop {
            // φ: the least δ of a child; δ: the sum of the children's φ. The child to
            // search is the one of least δ, a child another thread is in counting twice.
            let (mut best, mut least, mut second) = (0, INF, INF);
            phi = INF;
            delta = 0u32;
            for (i, c) in children.iter().enumerate() {
                delta = delta.saturating_add(c.phi).min(INF);
                phi = phi.min(c.delta);
                let rank = match &self.shared.busy {
                    Some(busy) if c.delta > 0 && busy.taken(c.key) => {
                        c.delta.saturating_mul(2).min(INF)
                    }
                    _ => c.delta,
                };
                if rank < least {
                    (second, least, best) = (least, rank, i);
                } else if rank < second {
                    second = rank;
                }
            }
            if self.ply == 0 {
                self.shared.root.store(pack(phi, delta), Ordering::Relaxed);
            }
            if phi >= th_phi || delta >= th_delta || self.aborted {
                break;
            }
            let child = &children[best];
            let child_th_phi = th_delta
                .saturating_sub(delta)
                .saturating_add(child.phi)
                .min(INF);
            let eased = (u64::from(second) + u64::from(second) / 4 + 1).min(u64::from(INF));
            // Never at or below the child's own δ (which a child passed over for being
            // busy may already have): its search must have room to move.
            let child_th_delta = th_phi.min(eased as u32).max(child.delta + 1);
            let (p, d) = self.in_child(child.mv, |s| s.mid(child_th_phi, child_th_delta));
            if self.aborted {
                break;
            }
            (children[best].phi, children[best].delta) = (p, d);
        }
        if !self.aborted {
            self.shared
                .table
                .put(key, pack(phi, delta), self.nodes - nodes_before);
        }
        (phi, delta)
    }

    /// Proves or disproves the target from the root; `None` when stopped first.
    fn prove(&mut self) -> Option<bool> {
        let (phi, delta) = self.mid(INF - 1, INF - 1);
        if self.aborted {
            return None;
        }
        debug_assert!(
            phi == 0 || delta == 0,
            "the root is settled: ({phi}, {delta})"
        );
        Some(phi == 0)
    }

    /// [`Search::prove`] as one of a proof's threads: the first to settle the root
    /// records it and stops the others; the nodes not yet counted are counted.
    fn run(mut self) {
        let found = self.prove();
        let shared = self.shared;
        shared
            .nodes
            .fetch_add(self.nodes & (CHECK_EVERY - 1), Ordering::Relaxed);
        if let Some(v) = found {
            shared
                .proved
                .lock()
                .expect("no thread panics holding it")
                .get_or_insert(v);
            shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// A line from the root that keeps the proven `value`, as far as the table still
    /// holds it: the side that reaches its goal moves into a position where the other
    /// fails, the other into any position it still loses. A draw rests on both proofs:
    /// the first player keeps at least the draw, the second keeps it from a win.
    fn line(&mut self, value: Outcome) -> Vec<G::Move> {
        let last = self.target;
        let mut line = Vec::new();
        let mut list = G::MoveList::default();
        loop {
            if value == Outcome::Draw {
                self.target = if self.ply.is_multiple_of(2) {
                    Target::AtLeastDraw
                } else {
                    Target::Win
                };
            }
            if self.terminal().is_some() || line.len() >= max_ply::<G>() {
                break;
            }
            let Some((phi, _)) = self.shared.numbers(self.key()) else {
                break;
            };
            self.game.generate_moves(&mut list);
            let mut pick = None;
            for &mv in list.as_slice() {
                let values =
                    self.in_child(mv, |s| s.shared.numbers(s.key()).or_else(|| s.terminal()));
                match values {
                    Some((_, 0)) if phi == 0 => pick = Some(mv),
                    Some((0, _)) if phi != 0 => pick = Some(mv),
                    _ => continue,
                }
                break;
            }
            let Some(mv) = pick else { break };
            self.game.make(mv);
            self.ply += 1;
            line.push(mv);
        }
        self.target = last;
        line
    }
}

impl<'a> Chores<'a> {
    /// Nodes and time over the whole solve.
    fn totals(&self, shared: &Shared) -> (u64, Duration) {
        (
            self.before.0 + shared.nodes.load(Ordering::Relaxed),
            self.before.1 + self.began.elapsed(),
        )
    }

    fn now_and_then(&mut self, shared: &Shared, target: Target) {
        if let Some(report) = self.options.progress
            && self.lately.due(self.options.progress_every)
        {
            report(&self.progress(shared, target));
        }
        if let Some(c) = &self.options.checkpoint
            && self.last_save.elapsed() >= c.every
        {
            // A failed save is reported and retried at the next turn, not fatal: the
            // solve itself is sound.
            if let Err(e) = self.save(shared, target) {
                tracing::warn!("{e}");
            }
            self.last_save = Instant::now();
        }
    }

    fn progress(&mut self, shared: &Shared, target: Target) -> Progress {
        let (phi, delta) = unpack(shared.root.load(Ordering::Relaxed));
        let (nodes, elapsed) = self.totals(shared);
        let run = shared.nodes.load(Ordering::Relaxed);
        Progress {
            proof: target.word(),
            root: Some((phi, delta)).filter(|&(p, d)| p < INF && d < INF),
            line: Vec::new(),
            nodes,
            elapsed,
            rate: run as f64 / self.began.elapsed().as_secs_f64().max(1e-9),
            lately: self.lately.rate(run),
            table_mb: shared.table.bytes() >> 20,
            table_filled: shared.table.filled(),
        }
    }

    fn save(&self, shared: &Shared, target: Target) -> Result<(), String> {
        let Some(c) = &self.options.checkpoint else {
            return Ok(());
        };
        let (nodes, elapsed) = self.totals(shared);
        let header = Header {
            label: c.label.to_owned(),
            root: self.label_root,
            phase: target.phase(),
            saw_draw: shared.saw_draw.load(Ordering::Relaxed),
            nodes,
            elapsed,
        };
        checkpoint::save(c.path, Writer::Dfpn, &header, shared.table)
    }
}

/// Runs one proof on every thread until one settles it or the solve must end.
fn run_proof<'s, G: Game>(
    root: &G,
    shared: &'s Shared<'s>,
    target: Target,
    threads: usize,
    chores: &mut Chores<'s>,
) -> Option<bool> {
    shared.stop.store(false, Ordering::Relaxed);
    *shared.proved.lock().expect("no thread panics holding it") = None;
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| Search::new(root.clone(), shared, target).run());
        }
        let mut main = Search::new(root.clone(), shared, target);
        main.chores = Some(chores);
        main.run();
    });
    *shared.proved.lock().expect("no thread panics holding it")
}

/// Solves `root` by df-pn within `limits` (its depth is ignored); `Err` for a game whose
/// positions may repeat, which df-pn's table cannot tell apart by path, and for a
/// checkpoint that cannot be read or belongs to another solve.
pub fn solve_dfpn<G: Game>(
    root: &G,
    limits: &Limits,
    options: &DfpnOptions,
) -> Result<Solution<G::Move>, String> {
    if G::REPEATS {
        return Err("the proof-number solver needs a game whose positions never repeat".into());
    }
    let began = Instant::now();
    let resumed = match &options.checkpoint {
        Some(c) => checkpoint::resume(c, Writer::Dfpn, root.hash())?,
        None => None,
    };
    let (header, table) = match resumed {
        Some((h, t)) => (Some(h), t),
        None => (None, ProofTable::new(options.hash_mb)),
    };
    let shared = Shared {
        table: &table,
        busy: (options.threads > 1).then(Busy::new),
        limits,
        stop: AtomicBool::new(false),
        proved: Mutex::new(None),
        too_deep: AtomicBool::new(false),
        saw_draw: AtomicBool::new(header.as_ref().is_some_and(|h| h.saw_draw)),
        nodes: AtomicU64::new(0),
        root: AtomicU64::new(0),
    };
    let mut chores = Chores {
        options,
        label_root: root.hash(),
        began,
        before: header
            .as_ref()
            .map_or((0, Duration::ZERO), |h| (h.nodes, h.elapsed)),
        lately: Lately::new(0),
        last_save: began,
    };
    let threads = options.threads.max(1);
    let mut target = if header.as_ref().is_some_and(|h| h.phase == 1) {
        Target::AtLeastDraw
    } else {
        Target::Win
    };
    let value = loop {
        let found = run_proof(root, &shared, target, threads, &mut chores);
        match (target, found) {
            (_, None) => break None,
            (Target::Win, Some(true)) => break Some(Outcome::Win),
            (Target::Win, Some(false)) if !shared.saw_draw.load(Ordering::Relaxed) => {
                break Some(Outcome::Loss);
            }
            (Target::Win, Some(false)) => target = Target::AtLeastDraw,
            (Target::AtLeastDraw, Some(true)) => break Some(Outcome::Draw),
            (Target::AtLeastDraw, Some(false)) => break Some(Outcome::Loss),
        }
    };
    if options.checkpoint.is_some() {
        // A value found is reported even if its last save fails; work not yet saved is
        // lost with it, so that is an error.
        match chores.save(&shared, target) {
            Err(e) if value.is_some() => tracing::warn!("{e}"),
            saved => saved?,
        }
    }
    let mut search = Search::new(root.clone(), &shared, target);
    let line = value.map_or_else(Vec::new, |v| search.line(v));
    let (nodes, time) = chores.totals(&shared);
    let solution = Solution {
        value,
        too_deep: shared.too_deep.load(Ordering::Relaxed),
        line,
        nodes,
        time,
        stopped: Vec::new(),
    };
    info!(
        value = ?solution.value,
        nodes = solution.nodes,
        time_ms = solution.time.as_millis() as u64,
        threads,
        "df-pn solve done"
    );
    Ok(solution)
}
