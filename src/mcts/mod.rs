//! Monte-Carlo tree search over any [`Model`]: the GDL reasoner ([`reasoner`], for any
//! game it reads, whatever its number of roles and whether they move in turn or at once)
//! and every native [`crate::game::Game`] ([`native`], two roles in turn).
//!
//! Decoupled UCT: each node keeps, for every role, visit counts and reward sums of that
//! role's own moves; a joint move is every role's UCB choice, and each role's reward (0–1)
//! is credited to its own move. Leaves are valued by a playout, uniformly random or
//! guided by the moves' average rewards ([`policy`], MAST). The clock
//! is read every [`Model::CLOCK_EVERY`] playout steps, so a search never runs past its
//! deadline by more than that many steps, however long the game.
//!
//! The tree is kept between searches: a later search from a position reached in the tree
//! starts from that subtree. It is bounded by memory, not by a number of nodes: when full,
//! its least visited nodes are recycled ([`memory`]). Where one role moves at a time, won,
//! lost and drawn positions are proven and back up as exact values ([`proof`]); a search
//! whose root is proven stops at once. With transpositions on, a position reached by
//! several orders of moves is one node ([`transpose`]); the trees of several threads
//! share their proofs ([`shared`]). With GRAVE, the selection also reads the moves'
//! all-moves statistics ([`rave`]).

mod bias;
pub mod choice;
pub mod cutoff;
pub mod forest;
pub mod heuristic;
pub mod learnt;
mod memory;
pub mod meta;
pub mod native;
pub mod policy;
mod proof;
pub mod puzzle;
mod rave;
pub mod reasoner;
pub mod shared;
mod transpose;
pub mod walks;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::RngExt;
use smallvec::SmallVec;

use crate::gdl::hash::FastMap;
use crate::gdl::{Gdl, Term};
use crate::rng::Rng;
use memory::CHILD_ENTRY_BYTES;
pub use policy::{Mast, Playouts};
pub use shared::SharedProofs;
pub use transpose::TranspositionValues;
// The reasoner's tests use the tree with GDL states.
#[cfg(test)]
use crate::gdl::State;

/// UCB exploration constant, for rewards in [0, 1].
const EXPLORATION: f64 = 0.5;
/// Steps after which a playout that may not end (the reasoner's games, native games whose
/// positions repeat) stops and scores the state it reached.
pub const MAX_PLAYOUT_STEPS: usize = 1_000;

/// How often a publishing search ([`Mcts::search_publishing`]) hands over the move it
/// would choose: often enough that a search stalled near its deadline has a recent one,
/// rarely enough to cost nothing beside the iterations.
const PUBLISH_EVERY: Duration = Duration::from_millis(10);

/// Where a publishing search hands over the move it would choose, if anywhere.
pub type Publish<'a, Move> = Option<&'a mut (dyn FnMut(&Move) + Send)>;

/// A position's value to every role (0–1, in role order), where the game is not over:
/// what scores a playout cut short by a heuristic ([`heuristic`]).
pub type Evaluator<S> = Arc<dyn Fn(&S) -> Vec<f64> + Send + Sync>;

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
    /// [`Model::expand`], with every role's goal value (0–1) in `state`, `None` where a
    /// role has none: what the start clock's walks record ([`walks`]). A model without
    /// goal values before the end gives none.
    fn expand_with_goals(&self, state: &Self::State) -> (Expansion<Self::Move>, Vec<Option<f64>>) {
        let expansion = self.expand(state);
        let roles = match &expansion {
            Expansion::Over(rewards) => rewards.len(),
            Expansion::Moves(legal) => legal.len(),
        };
        (expansion, vec![None; roles])
    }
    /// The state after `joint`: one legal move per role, in role order.
    fn next(&self, state: &Self::State, joint: &[Self::Move]) -> Self::State;
    /// Play from `state` to the end, uniformly random or, given `mast`, by its
    /// [`Mast::pick`] (which records the moves), calling `timer.expired()` before every
    /// step: each role's reward, or `None` if the timer ran out first. A playout that
    /// might not end stops after [`MAX_PLAYOUT_STEPS`].
    fn playout(
        &self,
        state: Self::State,
        rng: &mut Rng,
        timer: &mut Timer,
        mast: Option<&mut Mast>,
    ) -> Option<Vec<f64>>;
    /// A number for role `role`'s move `m`, the same in every state (distinct moves of
    /// a role should have distinct numbers): what [`Mast`] rates.
    /// [`Model::playout`] stopped after `steps` steps at most: where the game is not over
    /// by then, each role's goal value in the state it reached ([`cutoff`]). A model
    /// without goal values before the end plays to the end.
    fn playout_cut(
        &self,
        state: Self::State,
        rng: &mut Rng,
        timer: &mut Timer,
        mast: Option<&mut Mast>,
        _steps: usize,
    ) -> Option<Vec<f64>> {
        self.playout(state, rng, timer, mast)
    }
    fn move_key(&self, role: usize, m: &Self::Move) -> u32;
    /// Whether `a` and `b` are the same position, so that a tree grown from one serves
    /// the other.
    fn same(&self, a: &Self::State, b: &Self::State) -> bool;
    /// A 64-bit hash of `state`, equal for states that [`Model::same`] calls the same:
    /// what finds a position reached by another order of moves, in a tree or between
    /// the trees of several threads.
    fn key(&self, state: &Self::State) -> u64;
    /// Bytes `state` holds on the heap, beyond its own size: what the tree's memory bound
    /// counts for it.
    fn heap_bytes(&self, _state: &Self::State) -> usize {
        0
    }
}

/// What a state holds for the search.
pub enum Expansion<M> {
    /// The game is over: every role's reward (0–1), in role order.
    Over(Vec<f64>),
    /// Every role's legal moves, in role order, none of them empty.
    Moves(Vec<Vec<M>>),
}

/// The role that chooses among `legal` (every role's legal moves) where at most one does:
/// the one with more than one move, role 0 where none has; `None` where several choose
/// at once.
pub fn mover<M>(legal: &[Vec<M>]) -> Option<usize> {
    let mut choosers = (0..legal.len()).filter(|&r| legal[r].len() > 1);
    match (choosers.next(), choosers.next()) {
        (None, _) => Some(0),
        (Some(r), None) => Some(r),
        (Some(_), Some(_)) => None,
    }
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
    /// When the clock was last read (never without a deadline).
    read_at: Option<Instant>,
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
            read_at: None,
        }
    }

    /// The time to the deadline, read now; `None` without a deadline.
    fn left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether the deadline has passed or the stop flag is raised (as of the last read).
    pub fn expired(&mut self) -> bool {
        if !self.expired {
            if self.until_check == 0 {
                self.until_check = self.every;
                self.read_at = self.deadline.map(|_| Instant::now());
                self.expired = self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
                    || self
                        .deadline
                        .zip(self.read_at)
                        .is_some_and(|(d, now)| now >= d);
            }
            self.until_check -= 1;
        }
        self.expired
    }
}

/// Test hook: with `GGP_PLAYER_TEST_STALL_MCTS=1` in the environment, a publishing
/// search stops responding for 30 s after it first publishes a move, ignoring its
/// deadline, as a search starved of CPU would. Tests use it to check that whoever waits
/// answers with the published move (never a move chosen without search).
fn stall_for_tests() {
    static STALL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let stall = STALL.get_or_init(|| std::env::var_os("GGP_PLAYER_TEST_STALL_MCTS").is_some());
    if *stall {
        tracing::warn!("GGP_PLAYER_TEST_STALL_MCTS: the search stalls for 30 s");
        std::thread::sleep(Duration::from_secs(30));
    }
}

/// One position of the tree.
struct Node<S, M> {
    state: S,
    /// [`Model::key`] of the state, where something reads it ([`Mcts::keyed`]); else 0.
    key: u64,
    /// Terminal (or stuck: a role without legal moves).
    terminal: bool,
    /// Per role: its legal moves (empty when terminal).
    legal: Vec<Vec<M>>,
    visits: u32,
    /// Per role, the rewards of the iterations through this node summed, where
    /// [`TranspositionValues::Node`] reads them (else empty).
    sums: Vec<f64>,
    /// Per legal move, role after role in one vector (one allocation per node, not one
    /// per role): visits and reward sum ([`Node::stats_of`]).
    stats: Vec<Stat>,
    /// Per role, the progressive bias's evaluation of this position, taken when the
    /// node was made ([`bias`]); empty without one.
    value: Vec<f64>,
    /// Children by the number of their joint move ([`Node::joint_key`]), hashed fast:
    /// read at every step of every descent.
    children: FastMap<u64, usize>,
    /// The role that chooses here (role 0 when none has a choice); `None` when several
    /// roles choose at once, where nothing is proven.
    mover: Option<usize>,
    /// Every role's reward under best play, once proven (a terminal node's goals).
    proven: Option<Vec<f64>>,
    /// With GRAVE, once visited [`rave::REFERENCE_VISITS`] times: the all-moves
    /// statistics of the moves played below it ([`rave`]).
    amaf: Option<Box<rave::Amaf>>,
    /// Per move of the mover: the proven rewards after it, once one is proven (empty
    /// before). Kept here rather than in the child, which may be recycled.
    known: Vec<Option<Vec<f64>>>,
    /// What the memory bound counts for this node.
    bytes: usize,
}

/// A joint move: one move index per role, held inline for up to four roles, so that a
/// selection allocates nothing.
type Joint = SmallVec<[u32; 4]>;

impl<S, M> Node<S, M> {
    /// Role `role`'s statistics, one per legal move (none for a role the node lacks).
    fn stats_of(&self, role: usize) -> &[Stat] {
        &self.stats[self.span(role)]
    }

    /// [`Node::stats_of`], for tests that set statistics by hand.
    #[cfg(test)]
    fn stats_of_mut(&mut self, role: usize) -> &mut [Stat] {
        let span = self.span(role);
        &mut self.stats[span]
    }

    /// Where role `role`'s statistics lie in [`Node::stats`] (empty for a role the node
    /// lacks).
    fn span(&self, role: usize) -> std::ops::Range<usize> {
        let Some(moves) = self.legal.get(role) else {
            return 0..0;
        };
        let first = self.legal[..role].iter().map(Vec::len).sum();
        first..first + moves.len()
    }

    /// The number of joint move `joint` among the node's joint moves (the roles' move
    /// indices as digits, each in the base of its role's number of moves): what the
    /// node's children are found by. `None` where that number does not fit in 64 bits
    /// (only where the joint moves are that many): such a joint move gets no child, and
    /// what follows it is played out.
    fn joint_key(&self, joint: &[u32]) -> Option<u64> {
        let mut key = 0u64;
        for (moves, &m) in self.legal.iter().zip(joint).rev() {
            key = key
                .checked_mul(moves.len() as u64)?
                .checked_add(u64::from(m))?;
        }
        Some(key)
    }

    /// The child after joint move `joint`, if the tree has it.
    fn child(&self, joint: &[u32]) -> Option<usize> {
        self.children.get(&self.joint_key(joint)?).copied()
    }

    /// The child after role `role`'s move `i`, the other roles playing their first move
    /// (their only one where `role` is the node's mover), if the tree has it.
    fn child_after(&self, role: usize, i: usize) -> Option<usize> {
        let mut joint = Joint::from_elem(0, self.legal.len());
        *joint.get_mut(role)? = u32::try_from(i).ok()?;
        self.child(&joint)
    }
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
    /// A terminal or proven node of the tree: its exact rewards.
    Known,
    /// A playout.
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
    /// Playouts among them (the others ended in a terminal node of the tree).
    pub playouts: u64,
    /// Nodes in the tree after it.
    pub nodes: usize,
    /// Our reward under best play (0–1) when the search proved its root.
    pub proven: Option<f64>,
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
            proven = self.proven,
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
    /// The memory bound, in bytes, and what the nodes hold now ([`Node::bytes`]).
    memory: usize,
    bytes: usize,
    /// The largest node made so far: the room an expansion may need.
    largest: usize,
    /// Set when recycling could not make room; cleared when the root moves on.
    full: bool,
    /// Set when the deadline was too near to recycle: the tree grows no more in this
    /// search ([`memory`]).
    paused: bool,
    /// The most a recycling has taken per node, for telling whether one fits before the
    /// deadline.
    recycle_per_node: Duration,
    /// Nodes recycled since the tree was made.
    recycled: u64,
    /// What the root's moves dropped, not yet freed ([`memory`]).
    dropped: memory::Dropped<M::State, M::Move>,
    /// The playouts' move statistics, when they are guided by them.
    mast: Option<Mast>,
    /// Steps after a leaf at which playouts stop and score their goals ([`cutoff`]).
    cutoff: Option<usize>,
    /// Steps after a leaf at which playouts stop and are scored by an evaluation
    /// ([`heuristic`]); before the goals' cut-off where both are set.
    heuristic: Option<(usize, Evaluator<M::State>)>,
    /// The progressive bias's weight and evaluation ([`bias`]), if the selection has one.
    bias: Option<(f64, Evaluator<M::State>)>,
    /// With transpositions: every node by its state's key, so that a position reached by
    /// two orders of moves is one node ([`transpose`]).
    table: Option<FastMap<u64, usize>>,
    /// Proofs shared with the other threads' trees, when there are others.
    shared: Option<Arc<SharedProofs>>,
    /// Where selection reads a move's mean, with transpositions ([`transpose`]).
    values: TranspositionValues,
    /// Whether the selection reads all-moves statistics ([`rave`]).
    rave: bool,
    /// The moves of an iteration at and below a position, while [`rave`] credits them.
    amaf_below: crate::gdl::hash::FastSet<u64>,
}

impl<M: Model> Mcts<M> {
    /// An empty tree of at most `memory_mb` MiB; `seed` makes the playouts reproducible.
    pub fn new(model: M, seed: Option<u64>, memory_mb: usize) -> Mcts<M> {
        Mcts::with_memory(model, seed, memory_mb.max(1) << 20)
    }

    /// An empty tree of at most `bytes` bytes (as [`Node::bytes`] counts them).
    pub fn with_memory(model: M, seed: Option<u64>, bytes: usize) -> Mcts<M> {
        Mcts {
            model,
            nodes: Vec::new(),
            root: 0,
            rng: crate::rng::seeded(seed),
            memory: bytes,
            bytes: 0,
            largest: 0,
            full: false,
            paused: false,
            recycle_per_node: memory::FIRST_RECYCLE_PER_NODE,
            recycled: 0,
            dropped: memory::Dropped::default(),
            mast: None,
            cutoff: None,
            heuristic: None,
            bias: None,
            table: None,
            shared: None,
            values: TranspositionValues::Edge,
            rave: false,
            amaf_below: Default::default(),
        }
    }

    /// The same tree with playouts chosen by `playouts`.
    pub fn with_playouts(mut self, playouts: Playouts) -> Mcts<M> {
        self.mast = None;
        self.set_playouts(playouts);
        self
    }

    /// The same tree, its selection reading all-moves statistics (GRAVE, [`rave`]) if
    /// `on`.
    pub fn with_rave(mut self, on: bool) -> Mcts<M> {
        let playouts = self.playouts();
        self.rave = on;
        // Random playouts gain or lose the recorder GRAVE reads.
        self.set_playouts(playouts);
        self
    }

    /// The playouts played by `playouts` from now on: MAST statistics already learnt are
    /// kept while the playouts stay guided the same way, dropped when they change.
    pub fn set_playouts(&mut self, playouts: Playouts) {
        let pairs = playouts == Playouts::Nst;
        if !playouts.guided() {
            // GRAVE reads the random playouts' moves: a recorder keeps them.
            let keeps = self.mast.as_ref().is_some_and(Mast::is_uniform);
            if !(self.rave && keeps) {
                self.mast = self.rave.then(Mast::uniform);
            }
        } else if self
            .mast
            .as_ref()
            .is_none_or(|m| m.is_uniform() || m.rates_pairs() != pairs)
        {
            self.mast = Some(Mast::new(pairs));
        }
    }

    /// How the tree plays out its leaves now: [`Playouts::Mast`], [`Playouts::Nst`] or
    /// [`Playouts::Random`].
    pub fn playouts(&self) -> Playouts {
        match &self.mast {
            Some(m) if m.is_uniform() => Playouts::Random,
            Some(m) if m.rates_pairs() => Playouts::Nst,
            Some(_) => Playouts::Mast,
            None => Playouts::Random,
        }
    }

    /// Playouts cut after `steps` steps from their leaf and scored by the goals there
    /// ([`cutoff`]), or played to the end (`None`).
    pub fn set_cutoff(&mut self, steps: Option<usize>) {
        self.cutoff = steps;
    }

    /// Playouts cut after `steps` steps from their leaf and scored by `evaluate`
    /// ([`heuristic`]), or not (`None`).
    pub fn set_heuristic(&mut self, heuristic: Option<(usize, Evaluator<M::State>)>) {
        self.heuristic = heuristic;
    }

    /// The same tree, a position reached by several orders of moves one node in it if
    /// `on` (statistics and proofs found through one order serve the others).
    pub fn with_transpositions(mut self, on: bool) -> Mcts<M> {
        self.table = on.then(Default::default);
        self.nodes.clear();
        self
    }

    /// The same tree, its selection reading a move's mean where `values` says: from the
    /// move or, with transpositions, from the position it leads to ([`transpose`]).
    pub fn with_transposition_values(mut self, values: TranspositionValues) -> Mcts<M> {
        self.values = values;
        // Its nodes, made without their sums, are made anew.
        self.nodes.clear();
        self
    }

    /// The same tree, reading and writing proofs in `shared` (a table other trees use).
    pub fn with_shared_proofs(mut self, shared: Arc<SharedProofs>) -> Mcts<M> {
        self.shared = Some(shared);
        // Its nodes, made without keys, are made anew.
        self.nodes.clear();
        self
    }

    /// Whether the nodes' keys are read: by the transposition table or the shared
    /// proofs. Without either, [`Model::key`] (a hash of the whole state) is not computed.
    fn keyed(&self) -> bool {
        self.table.is_some() || self.shared.is_some()
    }

    /// The playouts' move statistics, if they are guided by them.
    pub fn mast(&self) -> Option<&Mast> {
        self.mast.as_ref().filter(|m| !m.is_uniform())
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
        self.search_publishing(state, role, budget, None)
    }

    /// [`Mcts::search_within`], handing `publish` the move it would choose as it goes
    /// (every [`PUBLISH_EVERY`] or so, where the budget has a deadline). Whoever must
    /// answer when the search overruns its deadline (its CPU taken away near the end)
    /// then plays that move rather than one chosen without search.
    pub fn search_publishing(
        &mut self,
        state: &M::State,
        role: usize,
        budget: Budget,
        mut publish: Publish<M::Move>,
    ) -> Choice<M::Move> {
        let started = Instant::now();
        self.set_root(state);
        self.own_root_proof();
        self.paused = false;
        let mut timer = Timer::new(budget.deadline, budget.stop, M::CLOCK_EVERY);
        let (mut iterations, mut playouts) = (0, 0);
        let mut published_at: Option<Instant> = None;
        while budget.iterations.is_none_or(|n| iterations < n)
            && self.nodes[self.root].proven.is_none()
            && !timer.expired()
        {
            match self.iterate(&mut timer) {
                Some(Leaf::Known) => iterations += 1,
                Some(Leaf::PlayedOut) => {
                    iterations += 1;
                    playouts += 1;
                }
                None => {}
            }
            if let Some(publish) = publish.as_mut()
                && let Some(now) = timer.read_at
                && published_at.is_none_or(|at| now >= at + PUBLISH_EVERY)
                && let Some(best) = self.best_move(role)
            {
                publish(&self.nodes[self.root].legal[role][best]);
                published_at = Some(now);
                stall_for_tests();
            }
        }
        let root = &self.nodes[self.root];
        let best = self.best_move(role);
        let (visits, value) = best.map_or((0, 0.0), |i| {
            let s = root.stats_of(role)[i];
            (s.visits, s.mean())
        });
        Choice {
            best: best.map(|i| root.legal[role][i].clone()),
            visits,
            value,
            iterations,
            playouts,
            nodes: self.nodes.len(),
            proven: root.proven.as_ref().and_then(|p| p.get(role).copied()),
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
            let joint: Option<Joint> = (0..n.legal.len())
                .map(|role| {
                    let stats = n.stats_of(role);
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
            match n.child(&joint) {
                Some(child) => at = child,
                None => break,
            }
        }
        line
    }

    /// Makes the node of `state` the root: found among the root's children or
    /// grandchildren (the usual case between two of our turns), its subtree kept and the
    /// rest dropped; else a fresh tree. What is dropped is held for
    /// [`Mcts::free_dropped`], so that freeing it is not on this move's clock; what an
    /// earlier move dropped and nobody freed is freed first.
    pub(super) fn set_root(&mut self, state: &M::State) {
        if let Some(root) = self.nodes.get(self.root) {
            if self.model.same(&root.state, state) {
                return;
            }
            if let Some(mast) = &mut self.mast {
                mast.decay();
            }
            let same = |n: usize| self.model.same(&self.nodes[n].state, state);
            let children: Vec<usize> = root.children.values().copied().collect();
            let found = children.iter().copied().find(|&c| same(c)).or_else(|| {
                children
                    .iter()
                    .find_map(|&c| self.nodes[c].children.values().copied().find(|&g| same(g)))
            });
            let found = found.or_else(|| self.transposition(state));
            // What an earlier move dropped, if nobody freed it since.
            self.free_dropped(None);
            if let Some(found) = found {
                // Logged so that its cost can be read beside the recyclings'.
                let started = Instant::now();
                let before = self.nodes.len();
                let dropped = self.keep(found, |_| true);
                self.dropped.hold(dropped);
                tracing::debug!(
                    before,
                    after = self.nodes.len(),
                    ms = started.elapsed().as_secs_f64() * 1e3,
                    "tree re-rooted"
                );
                return;
            }
            let old = std::mem::take(&mut self.nodes);
            self.dropped.hold(old);
        }
        let node = self.node(state.clone());
        self.bytes = node.bytes;
        self.full = false;
        if let Some(table) = &mut self.table {
            table.clear();
            table.insert(node.key, 0);
        }
        self.nodes.push(node);
        self.root = 0;
    }

    fn node(&self, state: M::State) -> Node<M::State, M::Move> {
        let (proven, legal) = match self.model.expand(&state) {
            Expansion::Over(rewards) => (Some(rewards), Vec::new()),
            Expansion::Moves(legal) => (None, legal),
        };
        let stats = vec![Stat::default(); legal.iter().map(Vec::len).sum()];
        let sums = if self.node_values() {
            vec![0.0; legal.len()]
        } else {
            Vec::new()
        };
        let mover = mover(&legal);
        let value = if proven.is_none() {
            self.evaluate(&state)
        } else {
            Vec::new()
        };
        let mut node = Node {
            key: if self.keyed() {
                self.model.key(&state)
            } else {
                0
            },
            state,
            terminal: proven.is_some(),
            legal,
            visits: 0,
            sums,
            stats,
            value,
            children: FastMap::default(),
            mover,
            proven,
            known: Vec::new(),
            amaf: None,
            bytes: 0,
        };
        node.bytes = self.node_bytes(&node);
        node
    }

    /// One selection, expansion, playout and backup; how the leaf was valued. `None` if
    /// the clock ran out first (nothing is backed up then).
    fn iterate(&mut self, timer: &mut Timer) -> Option<Leaf> {
        self.make_room(timer);
        let mut path: Vec<(usize, Joint)> = Vec::new();
        let mut at = self.root;
        // GRAVE's reference: the last position on the way that keeps all-moves statistics.
        let mut reference = None;
        let (rewards, leaf) = loop {
            if at != self.root {
                self.import_proof(at);
            }
            if let Some(proven) = &self.nodes[at].proven {
                break (proven.clone(), Leaf::Known);
            }
            if self.nodes[at].amaf.is_some() {
                reference = Some(at);
            }
            let joint = self.select(at, reference);
            if let Some(known) = self.known_after(at, &joint) {
                path.push((at, joint));
                break (known, Leaf::Known);
            }
            let key = self.nodes[at].joint_key(&joint);
            if let Some(&child) = key.and_then(|k| self.nodes[at].children.get(&k)) {
                path.push((at, joint));
                if self.table.is_some() && path.iter().any(|&(n, _)| n == child) {
                    // A position repeated on the way down: played out, not entered again.
                    let state = self.nodes[child].state.clone();
                    break (self.playout(state, None, &path, timer)?, Leaf::PlayedOut);
                }
                at = child;
                continue;
            }
            let moves = self.joint_moves(at, &joint);
            let next = self.model.next(&self.nodes[at].state, &moves);
            path.push((at, joint));
            let Some(key) = key else {
                // Joint moves past numbering: nothing below this node is kept.
                break (self.playout(next, None, &path, timer)?, Leaf::PlayedOut);
            };
            if let Some(child) = self.link(at, key, &next) {
                if path.iter().any(|&(n, _)| n == child) {
                    break (self.playout(next, None, &path, timer)?, Leaf::PlayedOut);
                }
                at = child;
                continue;
            }
            // A full tree grows no more: the leaf is only played out, without expanding it.
            let node = (!self.full && !self.paused).then(|| self.node(next.clone()));
            if let Some(node) = node.filter(|node| {
                self.largest = self.largest.max(node.bytes + CHILD_ENTRY_BYTES);
                self.bytes + node.bytes + CHILD_ENTRY_BYTES <= self.memory
            }) {
                let id = self.nodes.len();
                self.bytes += node.bytes + CHILD_ENTRY_BYTES;
                if let Some(table) = &mut self.table {
                    table.entry(node.key).or_insert(id);
                }
                self.nodes.push(node);
                let parent = &mut self.nodes[at];
                parent.children.insert(key, id);
                parent.bytes += CHILD_ENTRY_BYTES;
                self.import_proof(id);
                if let Some(proven) = &self.nodes[id].proven {
                    break (proven.clone(), Leaf::Known);
                }
                path.push((id, Joint::new()));
                break (self.playout(next, Some(id), &path, timer)?, Leaf::PlayedOut);
            }
            break (self.playout(next, None, &path, timer)?, Leaf::PlayedOut);
        };
        if self.rave {
            self.credit_amaf(&path, &rewards);
        }
        if self.mast.is_some() {
            self.credit_moves(&path, &rewards);
        }
        for (node, joint) in &path {
            let n = &mut self.nodes[*node];
            n.visits += 1;
            for (role, sum) in n.sums.iter_mut().enumerate() {
                *sum += rewards.get(role).copied().unwrap_or(0.0);
            }
            let mut first = 0;
            for (role, &m) in joint.iter().enumerate() {
                let s = &mut n.stats[first + m as usize];
                s.visits += 1;
                s.sum += rewards.get(role).copied().unwrap_or(0.0);
                first += n.legal[role].len();
            }
        }
        if matches!(leaf, Leaf::Known) {
            self.back_up_proofs(&path);
        }
        Some(leaf)
    }

    /// Every role's UCB choice at `node` (a role with one move plays it); an unvisited
    /// move first, drawn at random among them. With GRAVE, a move's mean is blended
    /// with its all-moves statistics at `reference`, and an unvisited move that has them
    /// is rated by them rather than drawn first.
    fn select(&mut self, node: usize, reference: Option<usize>) -> Joint {
        let n = &self.nodes[node];
        let log_n = (n.visits.max(1) as f64).ln();
        let mut joint = Joint::new();
        for role in 0..n.legal.len() {
            let stats = n.stats_of(role);
            // A proven move of the mover counts at its exact value, without exploration.
            let known = |i: usize| {
                (n.mover == Some(role))
                    .then(|| n.known.get(i)?.as_ref()?.get(role).copied())
                    .flatten()
            };
            let amaf = if self.rave {
                self.amaf_of(reference, node, role)
            } else {
                Vec::new()
            };
            let rated = |i: usize| amaf.get(i).copied().flatten().is_some_and(|a| a.visits > 0);
            let unvisited = (0..stats.len())
                .filter(|&i| stats[i].visits == 0 && !rated(i))
                .count();
            let pick = if unvisited > 0 {
                let k = self.rng.random_range(..unvisited);
                let mut fresh = (0..stats.len()).filter(|&i| stats[i].visits == 0 && !rated(i));
                fresh.nth(k).unwrap_or(0) as u32
            } else {
                // Read only here: a node with unvisited moves draws one of them.
                let child_means = self.child_means(node, role);
                let biases = self.biases(node, role);
                let ucb = |i: usize| {
                    let s = &stats[i];
                    let mean = child_means.get(i).copied().flatten();
                    known(i).unwrap_or_else(|| {
                        let mean = mean.unwrap_or_else(|| s.mean());
                        rave::blend(mean, s.visits, amaf.get(i).copied().flatten())
                            + EXPLORATION * (log_n / s.visits.max(1) as f64).sqrt()
                            + biases.get(i).copied().unwrap_or(0.0)
                    })
                };
                (0..stats.len())
                    .max_by(|&a, &b| ucb(a).total_cmp(&ucb(b)))
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
        path: &[(usize, Joint)],
        timer: &mut Timer,
    ) -> Option<Vec<f64>> {
        self.follow(path);
        if let Some((steps, evaluate)) = self.heuristic.clone() {
            let played = self.playout_evaluated(state, steps, &evaluate, timer);
            if played.is_none()
                && let Some(mast) = &mut self.mast
            {
                mast.discard();
            }
            return played;
        }
        let state = match known {
            Some(node) if self.cutoff != Some(0) => {
                if timer.expired() {
                    return None;
                }
                let legal = &self.nodes[node].legal;
                let joint = playout_joint(&self.model, self.mast.as_mut(), legal, &mut self.rng);
                self.model.next(&state, &joint)
            }
            _ => state,
        };
        let mast = self.mast.as_mut();
        let played = match self.cutoff {
            Some(steps) => {
                let left = steps.saturating_sub(usize::from(known.is_some()));
                self.model
                    .playout_cut(state, &mut self.rng, timer, mast, left)
            }
            None => self.model.playout(state, &mut self.rng, timer, mast),
        };
        if played.is_none()
            && let Some(mast) = &mut self.mast
        {
            mast.discard();
        }
        played
    }

    /// A playout of at most `steps` steps from `state`, scored by `evaluate` where the
    /// game is not over by then: `None` if the timer ran out first.
    fn playout_evaluated(
        &mut self,
        mut state: M::State,
        steps: usize,
        evaluate: &Evaluator<M::State>,
        timer: &mut Timer,
    ) -> Option<Vec<f64>> {
        for step in 0..=steps {
            if timer.expired() {
                return None;
            }
            let legal = match self.model.expand(&state) {
                Expansion::Over(rewards) => return Some(rewards),
                Expansion::Moves(legal) => legal,
            };
            if step == steps {
                break;
            }
            let joint = playout_joint(&self.model, self.mast.as_mut(), &legal, &mut self.rng);
            state = self.model.next(&state, &joint);
        }
        Some(evaluate(&state))
    }

    /// Where pairs of moves are rated, lets the playout's first choice follow the last
    /// choice of `path`, the iteration's way down the tree.
    fn follow(&mut self, path: &[(usize, Joint)]) {
        let Some(mast) = self.mast.as_mut().filter(|m| m.rates_pairs()) else {
            return;
        };
        let last = path.iter().rev().find_map(|(node, joint)| {
            let legal = &self.nodes[*node].legal;
            let (role, &m) = joint
                .iter()
                .enumerate()
                .rev()
                .find(|&(role, _)| legal[role].len() > 1)?;
            Some(self.model.move_key(role, &legal[role][m as usize]))
        });
        mast.follow(last);
    }

    /// Credits the moves of an iteration's path in the tree, with those of its playout,
    /// with their roles' `rewards` in the playouts' statistics. Only choices count.
    fn credit_moves(&mut self, path: &[(usize, Joint)], rewards: &[f64]) {
        let Some(mast) = &mut self.mast else { return };
        // The path's choices follow one another from the root.
        mast.follow(None);
        for (node, joint) in path {
            let legal = &self.nodes[*node].legal;
            for (role, &m) in joint.iter().enumerate() {
                if legal[role].len() > 1 {
                    mast.played(role, self.model.move_key(role, &legal[role][m as usize]));
                }
            }
        }
        mast.credit(rewards);
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

/// A playout's joint move from `legal`: by `mast`'s picks if given, else at random.
fn playout_joint<M: Model>(
    model: &M,
    mast: Option<&mut Mast>,
    legal: &[Vec<M::Move>],
    rng: &mut Rng,
) -> Vec<M::Move> {
    match mast {
        Some(mast) => legal
            .iter()
            .enumerate()
            .map(|(role, moves)| {
                let keys: Vec<u32> = moves.iter().map(|m| model.move_key(role, m)).collect();
                moves[mast.pick(role, &keys, rng)].clone()
            })
            .collect(),
        None => random_joint(legal, rng),
    }
}

/// One move drawn at random for each role from its `legal` moves.
pub(super) fn random_joint<M: Clone>(legal: &[Vec<M>], rng: &mut Rng) -> Vec<M> {
    legal
        .iter()
        .map(|moves| moves[rng.random_range(0..moves.len())].clone())
        .collect()
}

#[cfg(test)]
mod tests;
// Nim positions for the player's tests.
#[cfg(test)]
pub(crate) use tests::{nim, nim_sum};
