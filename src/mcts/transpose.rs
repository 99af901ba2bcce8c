//! Transpositions: with them on, the tree is a graph in which a position reached by
//! several orders of moves is one node, found by its state's [`Model::key`] (and checked
//! with [`Model::same`], so that two positions whose keys collide stay apart). The
//! statistics of each move stay in the node it is played from, so that UCB still counts
//! how often each parent tried it; what lies below the shared node (its own moves'
//! statistics, its subtree, its proof) serves every parent. A position can repeat on the
//! way down in a game whose positions repeat: the iteration then plays it out rather
//! than enter it again, so a selection never goes round a cycle.

use super::memory::CHILD_ENTRY_BYTES;
use super::{Mcts, Model};

impl<M: Model> Mcts<M> {
    /// The node of `state` already in the tree, if transpositions are on and it is.
    pub(super) fn transposition(&self, state: &M::State) -> Option<usize> {
        let &node = self.table.as_ref()?.get(&self.model.key(state))?;
        self.model
            .same(&self.nodes[node].state, state)
            .then_some(node)
    }

    /// Links the joint move `joint` of node `at`, which leads to `next`, to the node of
    /// `next` if the tree has one already and there is room for the link; that node.
    pub(super) fn link(&mut self, at: usize, joint: &[u32], next: &M::State) -> Option<usize> {
        let node = self.transposition(next)?;
        if self.bytes + CHILD_ENTRY_BYTES > self.memory {
            return None;
        }
        self.bytes += CHILD_ENTRY_BYTES;
        let parent = &mut self.nodes[at];
        parent.children.insert(joint.to_vec(), node);
        parent.bytes += CHILD_ENTRY_BYTES;
        Some(node)
    }

    /// Indexes the nodes anew after they were renumbered.
    pub(super) fn reindex(&mut self) {
        if let Some(table) = &mut self.table {
            table.clear();
            for (i, n) in self.nodes.iter().enumerate() {
                table.entry(n.key).or_insert(i);
            }
        }
    }
}
