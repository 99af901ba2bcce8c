//! The GDL reasoner as a [`Model`]: every role moves at every step, as GDL has it.

use std::hash::{BuildHasher, BuildHasherDefault};
use std::sync::Arc;

use super::{Expansion, MAX_PLAYOUT_STEPS, Mast, Model, Timer};
use crate::gdl::hash::FastHasher;
use crate::gdl::{Analysis, Gdl, PickMove, PlayoutLimit, State, Term};
use crate::rng::Rng;

impl Model for Arc<Gdl> {
    type State = State;
    type Move = Term;
    /// A reasoner step takes microseconds: the clock costs nothing beside it.
    const CLOCK_EVERY: u32 = 1;

    fn expand(&self, state: &State) -> Expansion<Term> {
        expansion(self.analyse(state))
    }

    /// One analysis of `state` gives both.
    fn expand_with_goals(&self, state: &State) -> (Expansion<Term>, Vec<Option<f64>>) {
        let analysis = self.analyse(state);
        let goals = analysis.goals.iter().map(|g| g.map(scaled)).collect();
        (expansion(analysis), goals)
    }

    fn next(&self, state: &State, joint: &[Term]) -> State {
        self.next_state(state, joint)
    }

    /// A playout cut at [`MAX_PLAYOUT_STEPS`] scores the goals of the state it reached, a
    /// missing goal as 0.5. The propositional network, where the game has one, plays it
    /// without leaving its bit sets.
    fn playout(
        &self,
        state: State,
        rng: &mut Rng,
        timer: &mut Timer,
        mast: Option<&mut Mast>,
    ) -> Option<Vec<f64>> {
        self.playout_cut(state, rng, timer, mast, MAX_PLAYOUT_STEPS)
    }

    /// Cut at `steps` (or [`MAX_PLAYOUT_STEPS`], the smaller), scored as there.
    fn playout_cut(
        &self,
        state: State,
        rng: &mut Rng,
        timer: &mut Timer,
        mast: Option<&mut Mast>,
        steps: usize,
    ) -> Option<Vec<f64>> {
        let mut pick =
            mast.map(|mast| move |role, keys: &[u32], rng: &mut Rng| mast.pick(role, keys, rng));
        let limit = PlayoutLimit {
            max_steps: steps.min(MAX_PLAYOUT_STEPS),
            stop: &mut || timer.expired(),
            pick: pick.as_mut().map(|p| p as PickMove),
        };
        let end = Gdl::playout(self, &state, rng, limit)?;
        let missing = (!end.finished).then_some(0.5);
        Some(rewards(&end.goals, missing))
    }

    fn move_key(&self, role: usize, m: &Term) -> u32 {
        Gdl::move_key(self, role, m)
    }

    fn same(&self, a: &State, b: &State) -> bool {
        a == b
    }

    fn key(&self, state: &State) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(state)
    }

    /// The fluents' vector (a compound term's own heap is left out: rare, and small).
    fn heap_bytes(&self, state: &State) -> usize {
        std::mem::size_of_val(state.fluents())
    }
}

/// Terminal, or stuck (a role without legal moves, which GDL forbids but a faulty game
/// may still have): over.
fn expansion(analysis: Analysis) -> Expansion<Term> {
    if analysis.terminal || analysis.legal.iter().any(Vec::is_empty) {
        Expansion::Over(rewards(&analysis.goals, None))
    } else {
        Expansion::Moves(analysis.legal)
    }
}

/// A goal value scaled to [0, 1].
fn scaled(goal: u32) -> f64 {
    goal.min(100) as f64 / 100.0
}

/// Goal values scaled to [0, 1]; a missing goal counts as `missing` (0 unless given).
fn rewards(goals: &[Option<u32>], missing: Option<f64>) -> Vec<f64> {
    goals
        .iter()
        .map(|g| g.map_or(missing.unwrap_or(0.0), scaled))
        .collect()
}
