//! Monte-Carlo tree search over the GDL reasoner: a player for any game the reasoner
//! reads, whatever its number of roles and whether they move in turn or at once.
//!
//! Decoupled UCT: each node keeps, for every role, visit counts and reward sums of that
//! role's own moves; a joint move is every role's UCB choice, and each role's reward (its
//! goal value, 0–100 scaled to 0–1) is credited to its own move. Leaves are valued by a
//! uniformly random playout. The clock is checked before every step of a playout, so a
//! search never runs past its deadline by more than one reasoner step, however long the
//! game. The tree is kept between searches: a later search from a position reached in
//! the tree starts from that subtree.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::RngExt;
use rand::seq::IndexedRandom;

use crate::gdl::{Gdl, State, Term};

/// UCB exploration constant, for rewards in [0, 1].
const EXPLORATION: f64 = 0.5;
/// Steps after which a playout stops and scores the state it reached (games that do not
/// end, or end only after very long random play).
const MAX_PLAYOUT_STEPS: usize = 1_000;
/// Nodes kept at most (a node holds a state and its legal moves: about a kilobyte or two
/// on a 10x10 board); beyond, leaves are no longer expanded, only played out.
const MAX_NODES: usize = 50_000;

/// One position of the tree.
struct Node {
    state: State,
    /// Terminal (or stuck: a role without legal moves).
    terminal: bool,
    /// Per role: its legal moves (empty when terminal).
    legal: Vec<Vec<Term>>,
    /// Per role: its reward in this state, when terminal.
    rewards: Vec<f64>,
    visits: u32,
    /// Per role, per legal move: visits and reward sum.
    stats: Vec<Vec<Stat>>,
    /// Children by joint move (a move index per role).
    children: HashMap<Vec<u32>, usize>,
}

#[derive(Clone, Copy, Default)]
struct Stat {
    visits: u32,
    sum: f64,
}

impl Stat {
    fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.sum / self.visits as f64
        }
    }
}

/// How an iteration valued its leaf.
enum Leaf {
    /// A terminal node of the tree: its goals.
    Terminal,
    /// A random playout.
    PlayedOut,
}

/// What a search found for one role.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The most visited move (`None` without legal moves or in a terminal state).
    pub best: Option<Term>,
    /// Its visits and mean reward (0–1).
    pub visits: u32,
    pub value: f64,
    /// Iterations of this search (selection to a leaf, and back up).
    pub iterations: u64,
    /// Random playouts among them (the others ended in a terminal node of the tree).
    pub playouts: u64,
    /// Nodes in the tree after it.
    pub nodes: usize,
    pub elapsed: Duration,
}

/// A search tree for one game, kept across searches.
pub struct Mcts {
    gdl: Arc<Gdl>,
    nodes: Vec<Node>,
    root: usize,
    rng: crate::rng::Rng,
}

impl Mcts {
    /// An empty tree; `seed` makes the playouts reproducible.
    pub fn new(gdl: Arc<Gdl>, seed: Option<u64>) -> Mcts {
        Mcts {
            gdl,
            nodes: Vec::new(),
            root: 0,
            rng: crate::rng::seeded(seed),
        }
    }

    /// Searches `state` until `deadline` or until `stop` is raised, and returns the best
    /// move of role number `role` found so far (at least one playout's worth if there is
    /// time for one).
    pub fn search(
        &mut self,
        state: &State,
        role: usize,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> Choice {
        let started = Instant::now();
        self.set_root(state);
        let (mut iterations, mut playouts) = (0, 0);
        while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
            match self.iterate(deadline, stop) {
                Some(Leaf::Terminal) => iterations += 1,
                Some(Leaf::PlayedOut) => {
                    iterations += 1;
                    playouts += 1;
                }
                None => {}
            }
        }
        let root = &self.nodes[self.root];
        let best = root.stats.get(role).and_then(|stats| {
            (0..stats.len()).max_by(|&a, &b| {
                let (a, b) = (stats[a], stats[b]);
                (a.visits, a.mean())
                    .partial_cmp(&(b.visits, b.mean()))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
        });
        let (visits, value) = best.map_or((0, 0.0), |i| {
            let s = root.stats[role][i];
            (s.visits, s.mean())
        });
        Choice {
            best: best.map(|i| root.legal[role][i].clone()),
            visits,
            value,
            iterations,
            playouts,
            nodes: self.nodes.len(),
            elapsed: started.elapsed(),
        }
    }

    /// Makes the node of `state` the root: found among the root's children or
    /// grandchildren (the usual case between two of our turns), its subtree kept and the
    /// rest dropped; else a fresh tree.
    fn set_root(&mut self, state: &State) {
        if let Some(root) = self.nodes.get(self.root) {
            if root.state == *state {
                return;
            }
            let children: Vec<usize> = root.children.values().copied().collect();
            let found = children
                .iter()
                .copied()
                .find(|&c| self.nodes[c].state == *state)
                .or_else(|| {
                    children.iter().find_map(|&c| {
                        self.nodes[c]
                            .children
                            .values()
                            .copied()
                            .find(|&g| self.nodes[g].state == *state)
                    })
                });
            if let Some(found) = found {
                self.keep_subtree(found);
                return;
            }
        }
        self.nodes.clear();
        let node = self.node(state.clone());
        self.nodes.push(node);
        self.root = 0;
    }

    /// Keeps only the subtree of `root`, renumbered from 0 (its root).
    fn keep_subtree(&mut self, root: usize) {
        let mut order = vec![root];
        let mut index = HashMap::from([(root, 0)]);
        let mut next = 0;
        while let Some(&n) = order.get(next) {
            for &c in self.nodes[n].children.values() {
                index.entry(c).or_insert_with(|| {
                    order.push(c);
                    order.len() - 1
                });
            }
            next += 1;
        }
        let mut old: Vec<Option<Node>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        self.nodes = order
            .iter()
            .filter_map(|&n| old[n].take())
            .map(|mut node| {
                for child in node.children.values_mut() {
                    *child = index[child];
                }
                node
            })
            .collect();
        self.root = 0;
    }

    fn node(&self, state: State) -> Node {
        let analysis = self.gdl.analyse(&state);
        let stuck = analysis.legal.iter().any(Vec::is_empty);
        let terminal = analysis.terminal || stuck;
        let rewards = rewards(&analysis.goals, None);
        let legal = if terminal { Vec::new() } else { analysis.legal };
        let stats = legal
            .iter()
            .map(|m| vec![Stat::default(); m.len()])
            .collect();
        Node {
            state,
            terminal,
            legal,
            rewards,
            visits: 0,
            stats,
            children: HashMap::new(),
        }
    }

    /// One selection, expansion, playout and backup; how the leaf was valued. `None` if
    /// the clock ran out first (nothing is backed up then).
    fn iterate(&mut self, deadline: Instant, stop: &AtomicBool) -> Option<Leaf> {
        let mut path: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut at = self.root;
        let (rewards, leaf) = loop {
            if self.nodes[at].terminal {
                break (self.nodes[at].rewards.clone(), Leaf::Terminal);
            }
            let joint = self.select(at);
            if let Some(&child) = self.nodes[at].children.get(&joint) {
                path.push((at, joint));
                at = child;
                continue;
            }
            let moves = self.joint_terms(at, &joint);
            let next = self.gdl.next_state(&self.nodes[at].state, &moves);
            path.push((at, joint.clone()));
            if self.nodes.len() < MAX_NODES {
                let node = self.node(next.clone());
                let id = self.nodes.len();
                self.nodes.push(node);
                self.nodes[at].children.insert(joint, id);
                if self.nodes[id].terminal {
                    break (self.nodes[id].rewards.clone(), Leaf::Terminal);
                }
                path.push((id, Vec::new()));
                break (
                    self.playout(next, Some(id), deadline, stop)?,
                    Leaf::PlayedOut,
                );
            }
            break (self.playout(next, None, deadline, stop)?, Leaf::PlayedOut);
        };
        for (node, joint) in path {
            let n = &mut self.nodes[node];
            n.visits += 1;
            for (role, &m) in joint.iter().enumerate() {
                let s = &mut n.stats[role][m as usize];
                s.visits += 1;
                s.sum += rewards.get(role).copied().unwrap_or(0.0);
            }
        }
        Some(leaf)
    }

    /// Every role's UCB choice at `node` (a role with one move plays it).
    fn select(&mut self, node: usize) -> Vec<u32> {
        let n = &self.nodes[node];
        let log_n = (n.visits.max(1) as f64).ln();
        let mut joint = Vec::with_capacity(n.stats.len());
        for stats in &n.stats {
            let unvisited: Vec<u32> = (0..stats.len() as u32)
                .filter(|&i| stats[i as usize].visits == 0)
                .collect();
            let pick = if let Some(&i) = unvisited.choose(&mut self.rng) {
                i
            } else {
                let ucb = |s: &Stat| s.mean() + EXPLORATION * (log_n / s.visits as f64).sqrt();
                (0..stats.len())
                    .max_by(|&a, &b| ucb(&stats[a]).total_cmp(&ucb(&stats[b])))
                    .unwrap_or(0) as u32
            };
            joint.push(pick);
        }
        joint
    }

    fn joint_terms(&self, node: usize, joint: &[u32]) -> Vec<Term> {
        let legal = &self.nodes[node].legal;
        joint
            .iter()
            .enumerate()
            .map(|(r, &m)| legal[r][m as usize].clone())
            .collect()
    }

    /// Random play from `state` to the end (or [`MAX_PLAYOUT_STEPS`]); each role's
    /// reward. `None` if the deadline or `stop` came first. `known` is the non-terminal
    /// node of `state`, if it has one: its legal moves are not analysed again.
    fn playout(
        &mut self,
        mut state: State,
        mut known: Option<usize>,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> Option<Vec<f64>> {
        for _ in 0..MAX_PLAYOUT_STEPS {
            if Instant::now() >= deadline || stop.load(Ordering::Relaxed) {
                return None;
            }
            let joint = match known.take() {
                Some(node) => random_joint(&self.nodes[node].legal, &mut self.rng),
                None => {
                    let a = self.gdl.analyse(&state);
                    if a.terminal || a.legal.iter().any(Vec::is_empty) {
                        return Some(rewards(&a.goals, None));
                    }
                    random_joint(&a.legal, &mut self.rng)
                }
            };
            state = self.gdl.next_state(&state, &joint);
        }
        let goals = self.gdl.goals(&state);
        Some(rewards(&goals, Some(0.5)))
    }
}

/// Goal values scaled to [0, 1]; a missing goal counts as `missing` (0 unless given).
fn rewards(goals: &[Option<u32>], missing: Option<f64>) -> Vec<f64> {
    goals
        .iter()
        .map(|g| g.map_or(missing.unwrap_or(0.0), |v| v.min(100) as f64 / 100.0))
        .collect()
}

/// One uniformly random move of each role (every role has one).
fn random_joint(legal: &[Vec<Term>], rng: &mut impl rand::Rng) -> Vec<Term> {
    legal
        .iter()
        .map(|moves| moves[rng.random_range(0..moves.len())].clone())
        .collect()
}

#[cfg(test)]
mod tests;
