//! The tree's memory bound. Every node counts its own size, its state's heap, its legal
//! moves, statistics and proofs, its entries for its children and, with transpositions,
//! its entry in their table. An iteration that would
//! go past the bound first recycles the tree: the least visited nodes go (their parents
//! keep their moves' statistics and proofs), leaving about half the bound, so that the
//! search goes on growing where it looks most. Recycling is not cut by the clock (it took
//! 66–155 ms for 47,000–94,000 nodes of checkers 6×6 in a loaded release build), so a
//! search whose deadline is nearer than it might take stops growing its tree instead.

use std::mem::size_of;
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

impl<M: Model> Mcts<M> {
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

    /// Recycles the tree if the next expansion might not fit: keeps the root and its
    /// most visited descendants, about half the bound. When that frees nothing (a root
    /// alone that fills the bound), the tree stays full until its root moves on. When
    /// twice the slowest recycling so far (per node) would not fit before the `timer`'s
    /// deadline, the tree grows no more in this search instead.
    pub(super) fn make_room(&mut self, timer: &Timer) {
        if self.full || self.paused || self.bytes + self.largest <= self.memory {
            return;
        }
        let nodes = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
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
        let took = self.keep(self.root, |n| n.visits > threshold);
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
    /// kept, renumbered from 0 (the root); recounts the bytes. Says how long it took: it
    /// is not cut by the clock.
    pub(super) fn keep(
        &mut self,
        root: usize,
        keep: impl Fn(&Node<M::State, M::Move>) -> bool,
    ) -> Duration {
        let started = Instant::now();
        // Each node's new number by its old one; a vector, as this visits every node.
        const DROPPED: usize = usize::MAX;
        let mut index = vec![DROPPED; self.nodes.len()];
        index[root] = 0;
        let mut order = vec![root];
        let mut next = 0;
        while let Some(&n) = order.get(next) {
            for &c in self.nodes[n].children.values() {
                if index[c] == DROPPED && keep(&self.nodes[c]) {
                    index[c] = order.len();
                    order.push(c);
                }
            }
            next += 1;
        }
        let mut old: Vec<Option<Node<M::State, M::Move>>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        self.nodes = order
            .iter()
            .filter_map(|&n| old[n].take())
            .map(|mut node| {
                let before = node.children.len();
                node.children.retain(|_, child| match index[*child] {
                    DROPPED => false,
                    i => {
                        *child = i;
                        true
                    }
                });
                node.bytes -= (before - node.children.len()) * CHILD_ENTRY_BYTES;
                node
            })
            .collect();
        self.root = 0;
        self.full = false;
        self.bytes = self.nodes.iter().map(|n| n.bytes).sum();
        self.reindex();
        // Freeing the dropped nodes is most of the cost: it is timed too, not left to the
        // end of the scope, after the clock is read.
        drop((old, index, order));
        started.elapsed()
    }
}
