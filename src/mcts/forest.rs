//! Root parallelisation: one tree per thread, each with its own random numbers and an
//! equal share of the memory bound, all searching the same position at once. The move is
//! chosen from the roots' statistics summed over the trees. The trees share no locks (the
//! model is read-only); what they share while they search is a lock-free table of
//! proven positions ([`super::shared`]), so that a position one tree proves is proven in
//! all. A tree that proves the root stops the others: its proof is the answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::{Budget, Choice, Mcts, Model, Playouts, Publish, SharedProofs, Stat, most_visited};

/// Why a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The root is proven: no more search can change the answer.
    Proven,
    /// Its stop flag was raised.
    Stopped,
    /// Its iterations were done.
    Iterations,
    /// Its deadline came.
    Deadline,
    /// None of these: the search stopped before its limits, which it should never do.
    Early,
}

/// The trees of one match, one per thread, kept across searches like a single tree.
pub struct Forest<M: Model> {
    trees: Vec<Mcts<M>>,
}

/// How often the thread that waits for the trees looks at the caller's stop flag.
const WATCH_EVERY: Duration = Duration::from_millis(1);

impl<M> Forest<M>
where
    M: Model + Clone + Send + Sync,
    M::State: Send + Sync,
    M::Move: Send,
{
    /// `threads` trees (at least one) over `model`, sharing `memory_mb` MiB between them;
    /// tree `i` draws its random numbers from `seed + i` (from the OS without a seed).
    pub fn new(model: M, seed: Option<u64>, memory_mb: usize, threads: usize) -> Forest<M> {
        let threads = threads.max(1);
        let share = (memory_mb.max(1) << 20) / threads;
        let trees = (0..threads)
            .map(|i| Mcts::with_memory(model.clone(), seed.map(|s| s + i as u64), share))
            .collect();
        Forest { trees }
    }

    /// The memory bound of all the trees together and what they hold now, in bytes.
    pub fn memory(&self) -> (usize, usize) {
        self.trees.iter().fold((0, 0), |(m, b), t| {
            let (tm, tb) = t.memory();
            (m + tm, b + tb)
        })
    }

    /// Every tree's memory bound set to its share of `memory_mb` MiB (a larger bound
    /// lets a full tree grow again; a smaller one applies at its next recycling).
    pub fn set_memory(&mut self, memory_mb: usize) {
        let share = (memory_mb.max(1) << 20) / self.trees.len().max(1);
        for tree in &mut self.trees {
            tree.set_memory(share);
        }
    }

    /// The forest with `f` applied to every tree.
    fn map_trees(self, f: impl FnMut(Mcts<M>) -> Mcts<M>) -> Forest<M> {
        Forest {
            trees: self.trees.into_iter().map(f).collect(),
        }
    }

    /// Every tree's playouts played by `playouts`.
    pub fn with_playouts(self, playouts: Playouts) -> Forest<M> {
        self.map_trees(|t| t.with_playouts(playouts))
    }

    /// Every tree's playouts cut after `steps` steps ([`super::cutoff`]), or not.
    pub fn set_cutoff(&mut self, steps: Option<usize>) {
        for tree in &mut self.trees {
            tree.set_cutoff(steps);
        }
    }

    /// Every tree's playouts cut and scored by an evaluation ([`super::heuristic`]), or
    /// not.
    pub fn set_heuristic(&mut self, heuristic: Option<(usize, super::Evaluator<M::State>)>) {
        for tree in &mut self.trees {
            tree.set_heuristic(heuristic.clone());
        }
    }

    /// Every tree's selection biased by an evaluation ([`Mcts::set_bias`]), or not.
    pub fn set_bias(&mut self, bias: Option<(f64, super::Evaluator<M::State>)>) {
        for tree in &mut self.trees {
            tree.set_bias(bias.clone());
        }
    }

    /// Every tree's selection reading all-moves statistics if `on` ([`Mcts::with_rave`]).
    pub fn with_rave(self, on: bool) -> Forest<M> {
        self.map_trees(|t| t.with_rave(on))
    }

    /// Every tree with transpositions if `on` ([`Mcts::with_transpositions`]).
    pub fn with_transpositions(self, on: bool) -> Forest<M> {
        self.map_trees(|t| t.with_transpositions(on))
    }

    /// Every tree's selection reading a move's mean where `values` says
    /// ([`Mcts::with_transposition_values`]).
    pub fn with_transposition_values(self, values: super::TranspositionValues) -> Forest<M> {
        self.map_trees(|t| t.with_transposition_values(values))
    }

    /// The trees sharing their proofs while they search, if `on` and there are several
    /// ([`SharedProofs`]; its table is 1 MiB besides the trees' memory).
    pub fn with_shared_proofs(self, on: bool) -> Forest<M> {
        if !on || self.trees.len() < 2 {
            return self;
        }
        let shared = Arc::new(SharedProofs::default());
        self.map_trees(|t| t.with_shared_proofs(shared.clone()))
    }

    /// Every tree's playouts played by `playouts` from now on: MAST statistics already
    /// learnt are kept while the playouts stay guided, dropped when they become random.
    pub fn set_playouts(&mut self, playouts: Playouts) {
        for tree in &mut self.trees {
            tree.set_playouts(playouts);
        }
    }

    /// How the trees play out their leaves now: [`Playouts::Mast`] or
    /// [`Playouts::Random`].
    pub fn playouts(&self) -> Playouts {
        self.trees[0].playouts()
    }

    pub fn model(&self) -> &M {
        self.trees[0].model()
    }

    /// Trees in the forest: the most threads a search uses.
    pub fn threads(&self) -> usize {
        self.trees.len()
    }

    /// Every tree's root moved to `state`, as a search of it would move it; what that
    /// drops is held for [`Forest::free_dropped`].
    pub fn advance(&mut self, state: &M::State) {
        for tree in &mut self.trees {
            tree.set_root(state);
        }
    }

    /// Frees what the trees' roots dropped ([`Mcts::free_dropped`]), until done or `stop`
    /// is raised; how many nodes it freed.
    pub fn free_dropped(&mut self, stop: Option<&AtomicBool>) -> usize {
        self.trees.iter_mut().map(|t| t.free_dropped(stop)).sum()
    }

    /// Nodes the trees hold for freeing ([`Mcts::held`]).
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.trees.iter().map(Mcts::held).sum()
    }

    /// Nodes in all the trees.
    pub fn nodes(&self) -> usize {
        self.trees.iter().map(|t| t.nodes.len()).sum()
    }

    /// Searches `state` for role `role` within `budget` on the first `threads` trees at
    /// once (at least one, at most all); `budget.iterations` is shared between them. The
    /// choice sums the trees' root statistics; why the search ended comes with it.
    pub fn search_within(
        &mut self,
        state: &M::State,
        role: usize,
        budget: Budget,
        threads: usize,
    ) -> (Choice<M::Move>, Ended) {
        self.search_publishing(state, role, budget, threads, None)
    }

    /// [`Forest::search_within`], the first tree handing `publish` the move it would
    /// choose as it goes ([`Mcts::search_publishing`]).
    pub fn search_publishing(
        &mut self,
        state: &M::State,
        role: usize,
        budget: Budget,
        threads: usize,
        publish: Publish<M::Move>,
    ) -> (Choice<M::Move>, Ended) {
        let started = Instant::now();
        let threads = threads.clamp(1, self.trees.len());
        let active = &mut self.trees[..threads];
        let choices: Vec<Choice<M::Move>> = if threads == 1 {
            vec![active[0].search_publishing(state, role, budget, publish)]
        } else {
            search_together(active, state, role, budget, publish)
        };
        let mut choice = merge(&self.trees[..threads], role, &choices);
        choice.elapsed = started.elapsed();
        let ended = if choice.proven.is_some() {
            Ended::Proven
        } else if budget.deadline.is_some_and(|d| Instant::now() >= d) {
            Ended::Deadline
        } else if budget.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            Ended::Stopped
        } else if budget.iterations.is_some_and(|n| choice.iterations >= n) {
            Ended::Iterations
        } else {
            Ended::Early
        };
        (choice, ended)
    }
}

/// Every tree of `trees` searches on a thread of its own, until the budget's deadline,
/// the caller's stop flag or a tree's proof of the root.
fn search_together<M>(
    trees: &mut [Mcts<M>],
    state: &M::State,
    role: usize,
    budget: Budget,
    mut publish: Publish<M::Move>,
) -> Vec<Choice<M::Move>>
where
    M: Model + Send + Sync,
    M::State: Send + Sync,
    M::Move: Send,
{
    let count = trees.len() as u64;
    // The trees' own flag: raised by the caller's, or by a tree that proved the root.
    let done = AtomicBool::new(false);
    let waiter = thread::current();
    thread::scope(|scope| {
        let (done, waiter) = (&done, &waiter);
        let workers: Vec<_> = trees
            .iter_mut()
            .enumerate()
            .map(|(i, tree)| {
                // The first tree publishes.
                let publish = publish.take();
                let share = Budget {
                    deadline: budget.deadline,
                    stop: Some(done),
                    // The first trees take the remainder: the total is the budget's.
                    iterations: budget
                        .iterations
                        .map(|n| n / count + u64::from((i as u64) < n % count)),
                };
                scope.spawn(move || {
                    let choice = tree.search_publishing(state, role, share, publish);
                    if choice.proven.is_some() {
                        done.store(true, Ordering::Relaxed);
                    }
                    waiter.unpark();
                    choice
                })
            })
            .collect();
        while !workers.iter().all(|w| w.is_finished()) {
            if budget.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                done.store(true, Ordering::Relaxed);
            }
            thread::park_timeout(WATCH_EVERY);
        }
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// One choice from the trees' searches of the same root: a proof if a tree has one, else
/// the move with the most visits summed over the trees (a move proven in one tree counts
/// at its value there, as a single tree counts it).
fn merge<M: Model>(trees: &[Mcts<M>], role: usize, choices: &[Choice<M::Move>]) -> Choice<M::Move> {
    if let [one] = choices {
        return one.clone();
    }
    let total = |f: fn(&Choice<M::Move>) -> u64| choices.iter().map(f).sum::<u64>();
    let (iterations, playouts) = (total(|c| c.iterations), total(|c| c.playouts));
    let nodes = choices.iter().map(|c| c.nodes).sum();
    if let Some(i) = choices.iter().position(|c| c.proven.is_some()) {
        return Choice {
            iterations,
            playouts,
            nodes,
            ..choices[i].clone()
        };
    }
    let roots: Vec<_> = trees.iter().map(|t| &t.nodes[t.root]).collect();
    let moves = roots[0].stats_of(role).len();
    // The same position under the same rules: the same legal moves, in the same order.
    let aligned = roots.iter().all(|r| r.stats_of(role).len() == moves);
    if !aligned || moves == 0 {
        return Choice {
            iterations,
            playouts,
            nodes,
            ..choices[0].clone()
        };
    }
    let mut summed = vec![Stat::default(); moves];
    let mut known: Vec<Option<f64>> = vec![None; moves];
    for root in &roots {
        for (i, s) in root.stats_of(role).iter().enumerate() {
            summed[i].visits += s.visits;
            summed[i].sum += s.sum;
        }
        if root.mover == Some(role) {
            for (i, k) in root.known.iter().enumerate() {
                if let Some(v) = k.as_ref().and_then(|k| k.get(role)) {
                    known[i] = Some(*v);
                }
            }
        }
    }
    let open: Vec<usize> = (0..moves).filter(|&i| known[i].is_none()).collect();
    let best_open =
        most_visited(&open.iter().map(|&i| summed[i]).collect::<Vec<_>>()).map(|j| open[j]);
    let best_known = (0..moves)
        .filter_map(|i| Some((i, known[i]?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let best = match (best_known, best_open) {
        (Some((_, v)), Some(j)) if v < summed[j].mean() => j,
        (Some((i, _)), _) => i,
        (None, Some(j)) => j,
        (None, None) => 0,
    };
    // The line of the tree that visited the chosen move most.
    let lead = (0..roots.len())
        .max_by_key(|&t| roots[t].stats_of(role)[best].visits)
        .unwrap_or(0);
    Choice {
        best: Some(roots[0].legal[role][best].clone()),
        visits: summed[best].visits,
        value: known[best].unwrap_or_else(|| summed[best].mean()),
        iterations,
        playouts,
        nodes,
        proven: None,
        elapsed: Duration::ZERO,
        line: choices[lead].line.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::{after, game};
    use super::*;
    use crate::gdl::Term;

    fn until(ms: u64) -> Option<Instant> {
        Some(Instant::now() + Duration::from_millis(ms))
    }

    fn within(ms: u64) -> Budget<'static> {
        Budget {
            deadline: until(ms),
            ..Budget::default()
        }
    }

    fn root_visits<M: Model>(forest: &Forest<M>) -> Vec<u32> {
        forest
            .trees
            .iter()
            .map(|t| t.nodes.get(t.root).map_or(0, |n| n.visits))
            .collect()
    }

    #[test]
    fn threads_grow_a_tree_each_and_their_roots_are_summed() {
        let gdl = game("connect_four.gdl");
        let start = gdl.initial_state();
        let mut forest = Forest::new(gdl.clone(), Some(3), 16, 2);
        let budget = Budget {
            iterations: Some(301),
            ..Budget::default()
        };
        let (choice, ended) = forest.search_within(&start, 0, budget, 2);
        assert_eq!(ended, Ended::Iterations);
        assert_eq!(choice.iterations, 301);
        // Each tree searched its share, on its own random numbers.
        assert_eq!(root_visits(&forest), [151, 150]);
        let best = choice.best.clone().unwrap();
        let i = forest.trees[0].nodes[0].legal[0]
            .iter()
            .position(|m| *m == best)
            .unwrap();
        let per_tree: Vec<u32> = forest
            .trees
            .iter()
            .map(|t| t.nodes[t.root].stats_of(0)[i].visits)
            .collect();
        assert_eq!(choice.visits, per_tree.iter().sum::<u32>(), "{per_tree:?}");
        assert!(per_tree.iter().all(|&v| v > 0), "{per_tree:?}");
        // Given one thread, only the first tree searches.
        let (choice, _) = forest.search_within(&start, 0, budget, 1);
        assert_eq!(choice.iterations, 301);
        assert_eq!(root_visits(&forest), [452, 150]);
    }

    #[test]
    fn a_proof_answers_at_once_and_an_open_position_searches_to_its_deadline() {
        let gdl = game("tictactoe.gdl");
        // x has 1 1 and 2 2, o has 1 2 and 1 3: x wins with 3 3.
        let win = after(
            &gdl,
            &[
                &["(mark 1 1)", "noop"],
                &["noop", "(mark 1 2)"],
                &["(mark 2 2)", "noop"],
                &["noop", "(mark 1 3)"],
            ],
        );
        let mut forest = Forest::new(gdl.clone(), Some(1), 16, 2);
        let (choice, ended) = forest.search_within(&win, 0, within(60_000), 2);
        assert_eq!(ended, Ended::Proven);
        assert_eq!(gdl.display(&choice.best.unwrap()), "(mark 3 3)");
        assert_eq!(choice.proven, Some(1.0));
        // Connect four's start is far from proven: the search ends at its deadline only.
        let c4 = game("connect_four.gdl");
        let mut forest = Forest::new(c4.clone(), Some(1), 16, 2);
        let (choice, ended) = forest.search_within(&c4.initial_state(), 0, within(500), 2);
        assert_eq!((ended, choice.proven), (Ended::Deadline, None));
        assert!(choice.iterations > 0 && choice.best.is_some(), "{choice:?}");
    }

    /// With one thread and with two, the search hands over its choice as it goes (about
    /// every 10 ms): legal moves of the root.
    #[test]
    fn a_publishing_search_hands_over_its_choice_as_it_goes() {
        let c4 = game("connect_four.gdl");
        let start = c4.initial_state();
        let legal = c4.all_legal_moves(&start).swap_remove(0);
        for threads in [1, 2] {
            let mut forest = Forest::new(c4.clone(), Some(1), 16, threads);
            let mut published = Vec::new();
            let mut publish = |m: &Term| published.push(m.clone());
            let (choice, _) = forest.search_publishing(
                &start,
                0,
                within(300),
                threads,
                Some(&mut publish as &mut (dyn FnMut(&Term) + Send)),
            );
            assert!(published.len() >= 5, "{threads}: {}", published.len());
            assert!(published.iter().all(|m| legal.contains(m)), "{threads}");
            assert!(choice.best.is_some(), "{threads}");
        }
    }

    #[test]
    fn the_callers_stop_flag_stops_every_tree() {
        let c4 = game("connect_four.gdl");
        let mut forest = Forest::new(c4.clone(), Some(1), 16, 2);
        let stop = Arc::new(AtomicBool::new(false));
        let raise = {
            let stop = stop.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(100));
                stop.store(true, Ordering::Relaxed);
            })
        };
        let budget = Budget {
            deadline: until(20_000),
            stop: Some(&stop),
            iterations: None,
        };
        let (choice, ended) = forest.search_within(&c4.initial_state(), 0, budget, 2);
        raise.join().unwrap();
        assert_eq!(ended, Ended::Stopped);
        assert!(root_visits(&forest).iter().all(|&v| v > 0), "{choice:?}");
    }
}
