//! When a search must stop (depth, deadlines and an external stop flag), and how many
//! threads it may take.
//!
//! Only the searching thread reads the clock, every few thousand nodes; other
//! threads stop it through the shared flag.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The deepest iteration the search will start; also bounds the ply arrays.
pub const MAX_DEPTH: u32 = 120;

#[derive(Clone, Debug)]
pub struct Limits {
    /// Do not start an iteration deeper than this.
    pub max_depth: u32,
    /// Do not start a new iteration after this instant.
    pub soft_deadline: Option<Instant>,
    /// Abort the running iteration at this instant.
    pub hard_deadline: Option<Instant>,
    /// Abort as soon as this becomes true (set by another thread).
    pub stop: Option<Arc<AtomicBool>>,
    /// Abort once a thread has searched this many nodes: on one thread, the same search
    /// and the same move on any machine at any load (repeatable play), the deadlines then
    /// only a safety net.
    pub max_nodes: Option<u64>,
    /// The most threads the search may run on, whatever it was configured with: its
    /// share of the cores when several searches run at once.
    pub max_threads: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: MAX_DEPTH,
            soft_deadline: None,
            hard_deadline: None,
            stop: None,
            max_nodes: None,
            max_threads: None,
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

    pub(super) fn may_start_iteration(&self) -> bool {
        !self.must_abort() && self.soft_deadline.is_none_or(|d| Instant::now() < d)
    }
}
