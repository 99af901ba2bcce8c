//! Monte-Carlo tree search over any [`Model`]: the GDL reasoner ([`reasoner`], for any
//! game it reads, whatever its number of roles and whether they move in turn or at once)
//! and every native [`crate::game::Game`] ([`native`], two roles in turn).
//!
//! Decoupled UCT: each node keeps, for every role, visit counts and reward sums of that
//! role's own moves; a joint move is every role's UCB choice, and each role's reward (0–1)
//! is credited to its own move. Leaves are valued by a uniformly random playout. The clock
//! is read every [`Model::CLOCK_EVERY`] playout steps, so a search never runs past its
//! deadline by more than that many steps, however long the game. The tree is kept between
//! searches: a later search from a position reached in the tree starts from that subtree.

pub mod native;
pub mod reasoner;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::RngExt;

use crate::gdl::{Gdl, Term};
use crate::rng::Rng;
// The reasoner's tests use the tree with GDL states.
#[cfg(test)]
use crate::gdl::State;

/// UCB exploration constant, for rewards in [0, 1].
const EXPLORATION: f64 = 0.5;
/// Steps after which a playout that may not end (the reasoner's games, native games whose
/// positions repeat) stops and scores the state it reached.
pub const MAX_PLAYOUT_STEPS: usize = 1_000;
/// Nodes kept at most (a reasoner node holds a state and its legal moves: about a
/// kilobyte or two on a 10x10 board); beyond, leaves are no longer expanded, only played
/// out.
const MAX_NODES: usize = 50_000;

/// A game as the search sees it: at every step each role picks one of its legal moves (a
/// role that waits has exactly one), and the joint move leads to the next state.
pub trait Model {
    type State: Clone;
    type Move: Clone;
    /// Playout steps between two looks at the clock: 1 where a step costs far more than
    /// reading the clock (the reasoner), a few hundred where a step takes nanoseconds.
    const CLOCK_EVERY: u32;

    /// Every role's legal moves in `state`, or every role's reward if the game is over.
    fn expand(&self, state: &Self::State) -> Expansion<Self::Move>;
    /// The state after `joint`: one legal move per role, in role order.
    fn next(&self, state: &Self::State, joint: &[Self::Move]) -> Self::State;
    /// Uniformly random play from `state` to the end, calling `timer.expired()` before
    /// every step: each role's reward, or `None` if the timer ran out first. A playout
    /// that might not end stops after [`MAX_PLAYOUT_STEPS`].
    fn playout(&self, state: Self::State, rng: &mut Rng, timer: &mut Timer) -> Option<Vec<f64>>;
    /// Whether `a` and `b` are the same position, so that a tree grown from one serves
    /// the other.
    fn same(&self, a: &Self::State, b: &Self::State) -> bool;
}

/// What a state holds for the search.
pub enum Expansion<M> {
    /// The game is over: every role's reward (0–1), in role order.
    Over(Vec<f64>),
    /// Every role's legal moves, in role order, none of them empty.
    Moves(Vec<Vec<M>>),
}

/// When a search stops: the first of these limits it meets.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget<'a> {
    pub deadline: Option<Instant>,
    pub stop: Option<&'a AtomicBool>,
    /// Iterations at most: reproducible searches, whatever the machine's speed.
    pub iterations: Option<u64>,
}

/// The deadline and stop flag of a search, read only every so many calls so that fast
/// models do not spend their time reading the clock.
pub struct Timer<'a> {
    deadline: Option<Instant>,
    stop: Option<&'a AtomicBool>,
    every: u32,
    until_check: u32,
    expired: bool,
}

impl<'a> Timer<'a> {
    /// A timer that reads the clock at its first call and then every `every` calls.
    pub fn new(deadline: Option<Instant>, stop: Option<&'a AtomicBool>, every: u32) -> Timer<'a> {
        Timer {
            deadline,
            stop,
            every: every.max(1),
            until_check: 0,
            expired: false,
        }
    }

    /// Whether the deadline has passed or the stop flag is raised (as of the last read).
    pub fn expired(&mut self) -> bool {
        if !self.expired {
            if self.until_check == 0 {
                self.until_check = self.every;
                self.expired = self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
                    || self.deadline.is_some_and(|d| Instant::now() >= d);
            }
            self.until_check -= 1;
        }
        self.expired
    }
}

/// One position of the tree.
struct Node<S, M> {
    state: S,
    /// Terminal (or stuck: a role without legal moves).
    terminal: bool,
    /// Per role: its legal moves (empty when terminal).
    legal: Vec<Vec<M>>,
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
pub struct Choice<M = Term> {
    /// The most visited move (`None` without legal moves or in a terminal state).
    pub best: Option<M>,
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
    /// The most visited line from the root (its first step holds the best move), at most
    /// [`LINE_STEPS`] steps: at each node every role's most visited move, as far as the
    /// tree holds the joint move they make. A step has the moves of the roles that had a
    /// choice (all roles' when none had).
    pub line: Vec<Vec<M>>,
}

/// Steps of [`Choice::line`] at most.
pub const LINE_STEPS: usize = 12;

impl<M> Choice<M> {
    /// The search's figures, at debug level; `context` says whose search it was (a match
    /// id, or `agent`).
    pub fn log(&self, context: &str) {
        tracing::debug!(
            context,
            iterations = self.iterations,
            playouts = self.playouts,
            nodes = self.nodes,
            visits = self.visits,
            value = self.value,
            ms = self.elapsed.as_millis() as u64,
            "mcts search"
        );
    }
}

/// A search tree for one game, kept across searches.
pub struct Mcts<M: Model = Arc<Gdl>> {
    model: M,
    nodes: Vec<Node<M::State, M::Move>>,
    root: usize,
    rng: Rng,
}

impl<M: Model> Mcts<M> {
    /// An empty tree; `seed` makes the playouts reproducible.
    pub fn new(model: M, seed: Option<u64>) -> Mcts<M> {
        Mcts {
            model,
            nodes: Vec::new(),
            root: 0,
            rng: crate::rng::seeded(seed),
        }
    }

    pub fn model(&self) -> &M {
        &self.model
    }

    /// Searches `state` until `deadline` or until `stop` is raised, and returns the best
    /// move of role number `role` found so far (at least one playout's worth if there is
    /// time for one).
    pub fn search(
        &mut self,
        state: &M::State,
        role: usize,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> Choice<M::Move> {
        let budget = Budget {
            deadline: Some(deadline),
            stop: Some(stop),
            iterations: None,
        };
        self.search_within(state, role, budget)
    }

    /// [`Mcts::search`] within `budget`. Without any limit in it, the search never ends.
    pub fn search_within(
        &mut self,
        state: &M::State,
        role: usize,
        budget: Budget,
    ) -> Choice<M::Move> {
        let started = Instant::now();
        self.set_root(state);
        let mut timer = Timer::new(budget.deadline, budget.stop, M::CLOCK_EVERY);
        let (mut iterations, mut playouts) = (0, 0);
        while budget.iterations.is_none_or(|n| iterations < n) && !timer.expired() {
            match self.iterate(&mut timer) {
                Some(Leaf::Terminal) => iterations += 1,
                Some(Leaf::PlayedOut) => {
                    iterations += 1;
                    playouts += 1;
                }
                None => {}
            }
        }
        let root = &self.nodes[self.root];
        let best = root.stats.get(role).and_then(|stats| most_visited(stats));
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
            line: self.best_line(),
        }
    }

    /// [`Choice::line`] of the tree as it stands.
    fn best_line(&self) -> Vec<Vec<M::Move>> {
        let mut line = Vec::new();
        let mut at = self.root;
        while line.len() < LINE_STEPS {
            let n = &self.nodes[at];
            if n.terminal {
                break;
            }
            let joint: Option<Vec<u32>> = n
                .stats
                .iter()
                .map(|stats| {
                    most_visited(stats)
                        .filter(|&i| stats[i].visits > 0)
                        .map(|i| i as u32)
                })
                .collect();
            let Some(joint) = joint else { break };
            let moves = self.joint_moves(at, &joint);
            let chosen: Vec<M::Move> = moves
                .iter()
                .enumerate()
                .filter(|&(r, _)| n.legal[r].len() > 1)
                .map(|(_, m)| m.clone())
                .collect();
            line.push(if chosen.is_empty() { moves } else { chosen });
            match n.children.get(&joint) {
                Some(&child) => at = child,
                None => break,
            }
        }
        line
    }

    /// Makes the node of `state` the root: found among the root's children or
    /// grandchildren (the usual case between two of our turns), its subtree kept and the
    /// rest dropped; else a fresh tree.
    fn set_root(&mut self, state: &M::State) {
        if let Some(root) = self.nodes.get(self.root) {
            if self.model.same(&root.state, state) {
                return;
            }
            let same = |n: usize| self.model.same(&self.nodes[n].state, state);
            let children: Vec<usize> = root.children.values().copied().collect();
            let found = children.iter().copied().find(|&c| same(c)).or_else(|| {
                children
                    .iter()
                    .find_map(|&c| self.nodes[c].children.values().copied().find(|&g| same(g)))
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
        let mut old: Vec<Option<Node<M::State, M::Move>>> = std::mem::take(&mut self.nodes)
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

    fn node(&self, state: M::State) -> Node<M::State, M::Move> {
        let (terminal, legal, rewards) = match self.model.expand(&state) {
            Expansion::Over(rewards) => (true, Vec::new(), rewards),
            Expansion::Moves(legal) => (false, legal, Vec::new()),
        };
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
    fn iterate(&mut self, timer: &mut Timer) -> Option<Leaf> {
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
            let moves = self.joint_moves(at, &joint);
            let next = self.model.next(&self.nodes[at].state, &moves);
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
                break (self.playout(next, Some(id), timer)?, Leaf::PlayedOut);
            }
            break (self.playout(next, None, timer)?, Leaf::PlayedOut);
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

    /// Every role's UCB choice at `node` (a role with one move plays it); an unvisited
    /// move first, drawn at random among them.
    fn select(&mut self, node: usize) -> Vec<u32> {
        let n = &self.nodes[node];
        let log_n = (n.visits.max(1) as f64).ln();
        let mut joint = Vec::with_capacity(n.stats.len());
        for stats in &n.stats {
            let unvisited = stats.iter().filter(|s| s.visits == 0).count();
            let pick = if unvisited > 0 {
                let k = self.rng.random_range(..unvisited);
                let mut fresh = (0..stats.len()).filter(|&i| stats[i].visits == 0);
                fresh.nth(k).unwrap_or(0) as u32
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

    fn joint_moves(&self, node: usize, joint: &[u32]) -> Vec<M::Move> {
        let legal = &self.nodes[node].legal;
        joint
            .iter()
            .enumerate()
            .map(|(r, &m)| legal[r][m as usize].clone())
            .collect()
    }

    /// The model's playout from `state`. `known` is the non-terminal node of `state`, if
    /// it has one: its legal moves give the first step without asking the model again.
    fn playout(
        &mut self,
        state: M::State,
        known: Option<usize>,
        timer: &mut Timer,
    ) -> Option<Vec<f64>> {
        let state = match known {
            Some(node) => {
                if timer.expired() {
                    return None;
                }
                let joint = random_joint(&self.nodes[node].legal, &mut self.rng);
                self.model.next(&state, &joint)
            }
            None => state,
        };
        self.model.playout(state, &mut self.rng, timer)
    }
}

/// The move with the most visits (the better mean among equals), if there is a move.
fn most_visited(stats: &[Stat]) -> Option<usize> {
    (0..stats.len()).max_by(|&a, &b| {
        let (a, b) = (stats[a], stats[b]);
        (a.visits, a.mean())
            .partial_cmp(&(b.visits, b.mean()))
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// One uniformly random move of each role (every role has one).
fn random_joint<M: Clone>(legal: &[Vec<M>], rng: &mut Rng) -> Vec<M> {
    legal
        .iter()
        .map(|moves| moves[rng.random_range(0..moves.len())].clone())
        .collect()
}

#[cfg(test)]
mod tests;
