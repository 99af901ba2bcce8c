//! Transpositions: with them on, the tree is a graph in which a position reached by
//! several orders of moves is one node, found by its state's [`Model::key`] (and checked
//! with [`Model::same`], so that two positions whose keys collide stay apart). The
//! statistics of each move stay in the node it is played from, so that UCB still counts
//! how often each parent tried it; what lies below the shared node (its own moves'
//! statistics, its subtree, its proof) serves every parent. A position can repeat on the
//! way down in a game whose positions repeat: the iteration then plays it out rather
//! than enter it again, so a selection never goes round a cycle.
//!
//! A move's own statistics count only the iterations that played it from that parent:
//! what the shared position below learnt through its other parents is not in them. With
//! [`TranspositionValues::Node`] the mover's selection reads a move's mean from the
//! position it leads to instead, over every iteration that went through it, whichever
//! parent they came from (UCT2 in the terms of Childs, Brodeur and Kocsis, 2008); the
//! move's own visits still decide how much it is explored, and the move played is
//! still the most visited.

use super::memory::CHILD_ENTRY_BYTES;
use super::{Mcts, Model};

/// Where the search reads a move's mean reward when it selects, with transpositions on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TranspositionValues {
    /// The move's own statistics at the node it is played from.
    #[default]
    Edge,
    /// The position it leads to: every iteration through that position counts, from any
    /// parent. Only where one role chooses; where several choose at once a role's move
    /// leads to several positions, and its own statistics count.
    Node,
}

impl<M: Model> Mcts<M> {
    /// The node of `state` already in the tree, if transpositions are on and it is.
    pub(super) fn transposition(&self, state: &M::State) -> Option<usize> {
        let &node = self.table.as_ref()?.get(&self.model.key(state))?;
        self.model
            .same(&self.nodes[node].state, state)
            .then_some(node)
    }

    /// Links the joint move numbered `key` of node `at`, which leads to `next`, to the
    /// node of `next` if the tree has one already and there is room for the link; that
    /// node.
    pub(super) fn link(&mut self, at: usize, key: u64, next: &M::State) -> Option<usize> {
        let node = self.transposition(next)?;
        if self.bytes + CHILD_ENTRY_BYTES > self.memory {
            return None;
        }
        self.bytes += CHILD_ENTRY_BYTES;
        let parent = &mut self.nodes[at];
        parent.children.insert(key, node);
        parent.bytes += CHILD_ENTRY_BYTES;
        Some(node)
    }

    /// Whether the nodes sum their iterations' rewards for [`TranspositionValues::Node`].
    pub(super) fn node_values(&self) -> bool {
        self.values == TranspositionValues::Node && self.table.is_some()
    }

    /// Per move of `role` at `node`, the mean reward of the position it leads to, where
    /// [`TranspositionValues::Node`] reads it there: `role` is the node's mover and the
    /// position is in the tree and visited. `None` for a move whose own mean counts.
    pub(super) fn child_means(&self, node: usize, role: usize) -> Vec<Option<f64>> {
        let n = &self.nodes[node];
        if !self.node_values() || n.mover != Some(role) {
            return Vec::new();
        }
        (0..n.legal[role].len())
            .map(|i| {
                let c = &self.nodes[n.child_after(role, i)?];
                let sum = c.sums.get(role)?;
                (c.visits > 0).then(|| sum / f64::from(c.visits))
            })
            .collect()
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::Stat;
    use super::super::tests::{
        check_choice, check_tree, game, marks, nim, random_game_from, within,
    };
    use super::*;
    use crate::gdl::{State, Term};

    fn graph(file: &str, seed: u64) -> (std::sync::Arc<crate::gdl::Gdl>, Mcts) {
        let gdl = game(file);
        let tree = Mcts::new(gdl.clone(), Some(seed), 64)
            .with_transpositions(true)
            .with_transposition_values(TranspositionValues::Node);
        (gdl, tree)
    }

    /// The node of `state` in `tree`.
    fn node_of(tree: &Mcts, state: &State) -> usize {
        tree.nodes.iter().position(|n| n.state == *state).unwrap()
    }

    /// Every (parent, move of its mover) leading to `node`.
    fn edges_into(tree: &Mcts, node: usize) -> Vec<(usize, usize)> {
        let mut edges = Vec::new();
        for (p, n) in tree.nodes.iter().enumerate() {
            let mover = n.mover.unwrap();
            for m in 0..n.stats_of(mover).len() {
                if n.child_after(mover, m) == Some(node) {
                    edges.push((p, m));
                }
            }
        }
        edges
    }

    #[test]
    fn a_shared_position_sums_the_iterations_of_all_its_parents() {
        let (gdl, mut tree) = graph("tictactoe.gdl", 11);
        tree.search_within(&gdl.initial_state(), 0, within(3_000));
        let mut shared = 0;
        for (id, n) in tree.nodes.iter().enumerate() {
            // Tic-tac-toe has no cycles, and an unproven node was never proven: every
            // iteration that played a move into it went through it.
            if id == tree.root || n.proven.is_some() {
                continue;
            }
            let edges = edges_into(&tree, id);
            shared += usize::from(edges.len() > 1);
            let mover = tree.nodes[edges[0].0].mover.unwrap();
            let (mut visits, mut sum) = (0, 0.0);
            for &(p, m) in &edges {
                let s = tree.nodes[p].stats_of(mover)[m];
                visits += s.visits;
                sum += s.sum;
            }
            assert_eq!((n.visits, n.sums[mover]), (visits, sum), "node {id}");
        }
        assert!(shared > 10, "{shared} positions with several parents");
    }

    #[test]
    fn a_shared_position_s_value_through_another_parent_steers_the_selection() {
        let (gdl, mut tree) = graph("tictactoe.gdl", 11);
        tree.search_within(&gdl.initial_state(), 0, within(3_000));
        // A: x 1 1, o 2 2, x to move; its move (mark 3 3) leads to N, which x 3 3,
        // o 2 2 (B) reaches too.
        let a = node_of(&tree, &marks(&gdl, &["1 1", "2 2"]));
        let n = node_of(&tree, &marks(&gdl, &["1 1", "2 2", "3 3"]));
        let b = node_of(&tree, &marks(&gdl, &["3 3", "2 2"]));
        let mark = gdl.parse_term("(mark 3 3)").unwrap();
        let m = tree.nodes[a].legal[0]
            .iter()
            .position(|t| *t == mark)
            .unwrap();
        assert_eq!(tree.nodes[a].child(&[m as u32, 0]), Some(n));
        assert!(tree.nodes[b].children.values().any(|&c| c == n));
        // Through A every move of x has scored a half, (mark 3 3) nothing; the position
        // it leads to has scored a win in all of its 100 iterations (through B), and
        // every other child of A a half.
        let children: Vec<usize> = tree.nodes[a].children.values().copied().collect();
        for c in children {
            let (visits, sums) = if c == n {
                (100, vec![100.0, 0.0])
            } else {
                (10, vec![5.0, 5.0])
            };
            tree.nodes[c].visits = visits;
            tree.nodes[c].sums = sums;
        }
        let node = &mut tree.nodes[a];
        node.known.clear();
        for (i, s) in node.stats_of_mut(0).iter_mut().enumerate() {
            let sum = if i == m { 0.0 } else { 5.0 };
            *s = Stat { visits: 10, sum };
        }
        node.visits = 10 * node.stats_of(0).len() as u32;
        assert_eq!(
            tree.select(a, None)[0] as usize,
            m,
            "node values: the win below"
        );
        tree.values = TranspositionValues::Edge;
        assert_ne!(
            tree.select(a, None)[0] as usize,
            m,
            "edge values: nothing through A"
        );
    }

    /// Searches every position of random games of `file` from `start`, with node values,
    /// and checks every proof against a full minimax.
    fn proofs_stay_exact(file: &str, start: impl Fn(&crate::gdl::Gdl) -> State, games: u64) {
        let mut memo = HashMap::new();
        for seed in 0..games {
            let (gdl, mut tree) = graph(file, seed);
            let start = start(&gdl);
            random_game_from(&gdl, start, seed, |state, ply| {
                let legal = gdl.analyse(state).legal;
                let role = (0..legal.len()).find(|&r| legal[r].len() > 1).unwrap_or(0);
                let choice = tree.search_within(state, role, within(300));
                let context = format!("{file}, seed {seed}, ply {ply}");
                check_choice(&gdl, state, role, &choice, &mut memo, &context);
                check_tree(&tree, &mut memo, &context);
            });
        }
    }

    #[test]
    fn with_node_values_proofs_stay_exact_in_tic_tac_toe_and_nim() {
        proofs_stay_exact("tictactoe.gdl", |gdl| gdl.initial_state(), 6);
        proofs_stay_exact("nim.gdl", |gdl| nim(gdl, [2, 3, 4, 1], "first"), 6);
        // And the won nim position is proven, with its only winning move.
        let (gdl, mut tree) = graph("nim.gdl", 6);
        let won = nim(&gdl, [1, 3, 0, 0], "first");
        let c = tree.search_within(&won, 0, within(100_000));
        assert_eq!(c.proven, Some(1.0), "{c:?}");
        let best: Term = c.best.unwrap();
        assert_eq!(gdl.display(&best), "(reduce b 1)");
    }
}
