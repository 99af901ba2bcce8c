//! When a search must stop (depth, deadlines and an external stop flag), and how many
//! threads it may take.
//!
//! Only the searching thread reads the clock, every few thousand nodes; other
//! threads stop it through the shared flag.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::game::{Game, MoveBuffer};

/// The deepest iteration the search will start; also bounds the ply arrays.
pub const MAX_DEPTH: u32 = 120;

#[derive(Clone, Debug)]
pub struct Limits {
    /// Do not start an iteration deeper than this.
    pub max_depth: u32,
    /// Do not start a new iteration after this instant.
    pub soft_deadline: Option<Instant>,
    /// Do not start a new iteration once this is true: a mark on a clock other than the
    /// wall's (the process's CPU time, say), raised by another thread.
    pub soft_stop: Option<Arc<AtomicBool>>,
    /// Abort the running iteration at this instant.
    pub hard_deadline: Option<Instant>,
    /// Abort as soon as this becomes true (set by another thread).
    pub stop: Option<Arc<AtomicBool>>,
    /// Abort once a thread has searched this many nodes: on one thread, the same search
    /// and the same move on any machine at any load (repeatable play), the deadlines then
    /// only a safety net. The solvers count the nodes of all their threads together.
    pub max_nodes: Option<u64>,
    /// The most threads the search may run on, whatever it was configured with: its
    /// share of the cores when several searches run at once.
    pub max_threads: Option<usize>,
    /// Where the search publishes its best root move as soon as it has one, for a caller
    /// that must answer before the search returns.
    pub best: Option<Arc<BestSoFar>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: MAX_DEPTH,
            soft_deadline: None,
            soft_stop: None,
            hard_deadline: None,
            stop: None,
            max_nodes: None,
            max_threads: None,
            best: None,
        }
    }
}

impl Limits {
    /// Search exactly to `depth` (no clock).
    pub fn depth(depth: u32) -> Limits {
        Limits {
            max_depth: depth.clamp(1, MAX_DEPTH),
            ..Limits::default()
        }
    }

    /// Search until `deadline` (hard), with no depth limit.
    pub fn until(deadline: Instant) -> Limits {
        Limits {
            hard_deadline: Some(deadline),
            ..Limits::default()
        }
    }

    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Limits {
        self.stop = Some(stop);
        self
    }

    /// Aborts after `nodes` nodes of a thread, whatever the clock.
    pub fn with_max_nodes(mut self, nodes: u64) -> Limits {
        self.max_nodes = Some(nodes);
        self
    }

    /// Publishes the best root move found so far in `best`.
    pub fn with_best(mut self, best: Arc<BestSoFar>) -> Limits {
        self.best = Some(best);
        self
    }

    /// Runs on at most `threads` threads (at least one).
    pub fn with_max_threads(mut self, threads: usize) -> Limits {
        self.max_threads = Some(threads.max(1));
        self
    }

    /// `configured` threads, or fewer if these limits say so.
    pub fn threads(&self, configured: usize) -> usize {
        self.max_threads
            .map_or(configured, |most| configured.min(most))
            .max(1)
    }

    pub(super) fn must_abort(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
            || self.hard_deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether `nodes` nodes use up the budget of [`Limits::max_nodes`].
    pub(super) fn nodes_spent(&self, nodes: u64) -> bool {
        self.max_nodes.is_some_and(|n| nodes >= n)
    }

    pub(super) fn may_start_iteration(&self) -> bool {
        !self.must_abort()
            && self.soft_deadline.is_none_or(|d| Instant::now() < d)
            && !self
                .soft_stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// The best root move a running search has found: that of its deepest iteration, or a
/// better one found in the iteration after it; or a tree search's choice so far. Written
/// at most a few times per iteration (every few milliseconds by a tree search); read by
/// whoever must answer if the search overruns.
#[derive(Debug, Default)]
pub struct BestSoFar {
    /// The move's code ([`Game::move_code`]) and the depth it was searched to (none for
    /// a tree search's choice).
    found: Mutex<Option<(u16, Option<u32>)>>,
}

impl BestSoFar {
    /// Records `mv`, searched to `depth`, unless a deeper move is already recorded.
    pub fn publish<G: Game>(&self, mv: G::Move, depth: u32) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if found.is_none_or(|(_, d)| Some(depth) >= d) {
            *found = Some((G::move_code(mv), Some(depth)));
        }
    }

    /// Records `mv`, a tree search's choice as it stands, in place of its last one.
    pub fn publish_choice<G: Game>(&self, mv: G::Move) {
        *self.found.lock().unwrap_or_else(|e| e.into_inner()) = Some((G::move_code(mv), None));
    }

    /// The recorded move, as a legal move of `position` (the root searched), and its depth
    /// (none for a tree search's choice).
    pub fn get<G: Game>(&self, position: &G) -> Option<(G::Move, Option<u32>)> {
        let (code, depth) = (*self.found.lock().unwrap_or_else(|e| e.into_inner()))?;
        let mut legal = G::MoveList::default();
        position.generate_moves(&mut legal);
        legal
            .as_slice()
            .iter()
            .find(|&&m| G::move_code(m) == code)
            .map(|&m| (m, depth))
    }
}
