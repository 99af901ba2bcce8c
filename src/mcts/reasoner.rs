//! The GDL reasoner as a [`Model`]: every role moves at every step, as GDL has it.

use std::sync::Arc;

use super::{Expansion, MAX_PLAYOUT_STEPS, Model, Timer, random_joint};
use crate::gdl::{Gdl, State, Term};
use crate::rng::Rng;

impl Model for Arc<Gdl> {
    type State = State;
    type Move = Term;
    /// A reasoner step takes microseconds: the clock costs nothing beside it.
    const CLOCK_EVERY: u32 = 1;

    /// Terminal, or stuck (a role without legal moves, which GDL forbids but a faulty
    /// game may still have): over.
    fn expand(&self, state: &State) -> Expansion<Term> {
        let analysis = self.analyse(state);
        if analysis.terminal || analysis.legal.iter().any(Vec::is_empty) {
            Expansion::Over(rewards(&analysis.goals, None))
        } else {
            Expansion::Moves(analysis.legal)
        }
    }

    fn next(&self, state: &State, joint: &[Term]) -> State {
        self.next_state(state, joint)
    }

    /// A playout cut at [`MAX_PLAYOUT_STEPS`] scores the goals of the state it reached, a
    /// missing goal as 0.5.
    fn playout(&self, mut state: State, rng: &mut Rng, timer: &mut Timer) -> Option<Vec<f64>> {
        for _ in 0..MAX_PLAYOUT_STEPS {
            if timer.expired() {
                return None;
            }
            let a = self.analyse(&state);
            if a.terminal || a.legal.iter().any(Vec::is_empty) {
                return Some(rewards(&a.goals, None));
            }
            let joint = random_joint(&a.legal, rng);
            state = self.next_state(&state, &joint);
        }
        let goals = self.goals(&state);
        Some(rewards(&goals, Some(0.5)))
    }

    fn same(&self, a: &State, b: &State) -> bool {
        a == b
    }
}

/// Goal values scaled to [0, 1]; a missing goal counts as `missing` (0 unless given).
fn rewards(goals: &[Option<u32>], missing: Option<f64>) -> Vec<f64> {
    goals
        .iter()
        .map(|g| g.map_or(missing.unwrap_or(0.0), |v| v.min(100) as f64 / 100.0))
        .collect()
}
