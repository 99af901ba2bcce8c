//! The tree's memory bound. Every node counts its own size, its state's heap, its legal
//! moves, statistics and proofs, its entries for its children and, with transpositions,
//! its entry in their table. An iteration that would
//! go past the bound first recycles the tree: the least visited nodes go (their parents
//! keep their moves' statistics and proofs), leaving about half the bound, so that the
//! search goes on growing where it looks most. Recycling is not cut by the clock (it took
//! 66–155 ms for 47,000–94,000 nodes of checkers 6×6 in a loaded release build), so a
//! search whose deadline is nearer than it might take stops growing its tree instead.
//!
//! The nodes a move of the root drops are not freed on that move's clock: freeing is most
//! of a re-rooting's cost (tens of milliseconds for a tree of 100,000 nodes). They are
//! held, still counted against the bound, until the player frees them once its reply has
//! gone ([`Mcts::free_dropped`]), or the tree needs their room.

use std::mem::size_of;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Mcts, Model, Node, Stat, Timer};

/// What a recycling is taken to cost per node until one is measured: about the 1.65 µs
/// measured in checkers 6×6.
pub(super) const FIRST_RECYCLE_PER_NODE: Duration = Duration::from_micros(2);

/// What a parent's entry for one child costs: the joint move's number, the child's index,
/// and the hash table's own overhead (its control bytes and its empty slots), roughly.
pub(super) const CHILD_ENTRY_BYTES: usize = size_of::<u64>() + size_of::<usize>() + 16;

/// What the transposition table's entry for one node costs: its key and index and the
/// hash table's overhead, roughly.
const TABLE_ENTRY_BYTES: usize = 2 * size_of::<u64>() + 8;

/// How many dropped nodes are freed between two looks at the stop flag.
pub(super) const FREE_CHUNK: usize = 1024;

/// Nodes dropped from the tree and not yet freed: one batch per move of the root.
pub(super) struct Dropped<S, Mv> {
    batches: Vec<Vec<Node<S, Mv>>>,
    /// The bytes of the nodes the batches hold ([`Node::bytes`]).
    pub(super) bytes: usize,
}

impl<S, Mv> Default for Dropped<S, Mv> {
    fn default() -> Self {
        Dropped {
            batches: Vec::new(),
            bytes: 0,
        }
    }
}

impl<S, Mv> Dropped<S, Mv> {
    /// Holds `batch` for freeing later.
    pub(super) fn hold(&mut self, batch: Vec<Node<S, Mv>>) {
        self.bytes += batch.iter().map(|n| n.bytes).sum::<usize>();
        self.batches.push(batch);
    }

    /// How many nodes the batches hold.
    pub(super) fn nodes(&self) -> usize {
        self.batches.iter().map(Vec::len).sum()
    }

    /// Frees up to [`FREE_CHUNK`] nodes of the last batch; false if there were none.
    fn free_chunk(&mut self) -> bool {
        let Some(batch) = self.batches.last_mut() else {
            return false;
        };
        let rest = batch.len().saturating_sub(FREE_CHUNK);
        self.bytes -= batch[rest..].iter().map(|n| n.bytes).sum::<usize>();
        batch.truncate(rest);
        if batch.is_empty() {
            self.batches.pop();
        }
        true
    }
}

impl<M: Model> Mcts<M> {
    /// Frees the nodes the root's moves dropped ([`memory`]), until done or `stop` is
    /// raised (looked at before each chunk); how many it freed. A player calls it once
    /// its reply has gone, so that the freeing is on no move's clock.
    pub fn free_dropped(&mut self, stop: Option<&AtomicBool>) -> usize {
        if self.dropped.batches.is_empty() {
            return 0;
        }
        let (started, before) = (Instant::now(), self.held());
        while !stop.is_some_and(|s| s.load(Ordering::Relaxed)) && self.dropped.free_chunk() {}
        let freed = before - self.held();
        tracing::debug!(
            freed,
            left = self.held(),
            ms = started.elapsed().as_secs_f64() * 1e3,
            "dropped nodes freed"
        );
        freed
    }

    /// The bytes [`Node::bytes`] counts for `node`, but for its parent's entry.
    pub(super) fn node_bytes(&self, node: &Node<M::State, M::Move>) -> usize {
        let per_role = |len: usize| {
            size_of::<Vec<M::Move>>() + len * (size_of::<M::Move>() + size_of::<Stat>())
        };
        size_of::<Node<M::State, M::Move>>()
            + self.model.heap_bytes(&node.state)
            + (node.sums.len() + node.value.len()) * size_of::<f64>()
            + node.legal.iter().map(|m| per_role(m.len())).sum::<usize>()
            + node
                .proven
                .as_ref()
                .map_or(0, |p| p.len() * size_of::<f64>())
            + node.known.len() * size_of::<Option<Vec<f64>>>()
            + node.known.iter().flatten().map(Vec::len).sum::<usize>() * size_of::<f64>()
            + node
                .amaf
                .as_ref()
                .map_or(0, |a| a.len() * super::rave::AMAF_ENTRY_BYTES)
            + if self.table.is_some() {
                TABLE_ENTRY_BYTES
            } else {
                0
            }
    }

    /// The memory bound in bytes, and what the tree holds now.
    pub fn memory(&self) -> (usize, usize) {
        (self.memory, self.bytes)
    }

    /// Sets the memory bound to `bytes`: a tree left full under a smaller bound may grow
    /// again; one over a smaller bound is recycled at its next expansion.
    pub fn set_memory(&mut self, bytes: usize) {
        if bytes != self.memory {
            self.memory = bytes;
            // Whether it is full is found again at the next expansion.
            self.full = false;
        }
    }

    /// Nodes recycled since the tree was made.
    pub fn recycled(&self) -> u64 {
        self.recycled
    }

    /// Nodes dropped by the root's moves and not yet freed.
    pub fn held(&self) -> usize {
        self.dropped.nodes()
    }

    /// Recycles the tree if the next expansion might not fit: keeps the root and its
    /// most visited descendants, about half the bound. When that frees nothing (a root
    /// alone that fills the bound), the tree stays full until its root moves on. When
    /// twice the slowest recycling so far (per node) would not fit before the `timer`'s
    /// deadline, the tree grows no more in this search instead.
    pub(super) fn make_room(&mut self, timer: &Timer) {
        let held = self.bytes + self.dropped.bytes;
        if self.full || self.paused || held + self.largest <= self.memory {
            return;
        }
        let nodes = u32::try_from(self.nodes.len() + self.held()).unwrap_or(u32::MAX);
        let cost = self
            .recycle_per_node
            .saturating_mul(nodes.saturating_mul(2));
        if timer.left().is_some_and(|left| left < cost) {
            self.paused = true;
            tracing::debug!(
                nodes = self.nodes.len(),
                "tree full near the deadline: growing no more in this search"
            );
            return;
        }
        if self.free_dropped(None) > 0 && self.bytes + self.largest <= self.memory {
            return;
        }
        let started = Instant::now();
        let mut by_visits: Vec<(u32, usize)> =
            self.nodes.iter().map(|n| (n.visits, n.bytes)).collect();
        by_visits.sort_unstable_by_key(|&(visits, _)| std::cmp::Reverse(visits));
        let half = self.memory / 2;
        let mut total = 0;
        // Keep the nodes visited more than the first that would not fit; nodes visited as
        // often go together, so that what is kept never depends on their order.
        let threshold = by_visits
            .iter()
            .find(|&&(_, bytes)| {
                total += bytes + CHILD_ENTRY_BYTES;
                total > half
            })
            .map_or(0, |&(visits, _)| visits);
        let before = self.nodes.len();
        drop(self.keep(self.root, |n| n.visits > threshold));
        let took = started.elapsed();
        self.recycled += (before - self.nodes.len()) as u64;
        self.full = self.bytes + self.largest > self.memory;
        let per_node = took / u32::try_from(before.max(1)).unwrap_or(u32::MAX);
        self.recycle_per_node = self.recycle_per_node.max(per_node);
        tracing::debug!(
            before,
            after = self.nodes.len(),
            ms = took.as_secs_f64() * 1e3,
            "tree recycled"
        );
    }

    /// Keeps `root` and those of its descendants that `keep` accepts and whose parent is
    /// kept, in their order, in place: the vector keeps its room, and no kept node is
    /// copied elsewhere. Recounts the bytes. Returns the rest, unfreed: freeing them is
    /// most of the cost.
    pub(super) fn keep(
        &mut self,
        root: usize,
        keep: impl Fn(&Node<M::State, M::Move>) -> bool,
    ) -> Vec<Node<M::State, M::Move>> {
        // Each node's new number by its old one; a vector, as this visits every node.
        const DROPPED: usize = usize::MAX;
        const KEPT: usize = 0;
        let mut index = vec![DROPPED; self.nodes.len()];
        index[root] = KEPT;
        let mut queue = vec![root];
        let mut next = 0;
        while let Some(&n) = queue.get(next) {
            for &c in self.nodes[n].children.values() {
                if index[c] == DROPPED && keep(&self.nodes[c]) {
                    index[c] = KEPT;
                    queue.push(c);
                }
            }
            next += 1;
        }
        drop(queue);
        for (kept, i) in index.iter_mut().filter(|i| **i != DROPPED).enumerate() {
            *i = kept;
        }
        let mut at = 0;
        let dropped: Vec<_> = self
            .nodes
            .extract_if(.., |_| {
                at += 1;
                index[at - 1] == DROPPED
            })
            .collect();
        for node in &mut self.nodes {
            let before = node.children.len();
            node.children.retain(|_, child| match index[*child] {
                DROPPED => false,
                i => {
                    *child = i;
                    true
                }
            });
            node.bytes -= (before - node.children.len()) * CHILD_ENTRY_BYTES;
        }
        self.root = index[root];
        self.full = false;
        self.bytes = self.nodes.iter().map(|n| n.bytes).sum();
        self.reindex();
        dropped
    }
}
