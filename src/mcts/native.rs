//! Any [`Game`] as a [`Model`]: two roles moving in turn, the one not to move waiting
//! (its only move is `None`). Rewards come from the [`Outcome`]: 1, 0.5 or 0.

use std::marker::PhantomData;

use rand::RngExt;

use super::{Expansion, MAX_PLAYOUT_STEPS, Mast, Model, Timer};
use crate::game::{Game, MoveBuffer, Outcome};
use crate::rng::Rng;

/// A position and whose turn it is. Roles are numbered by the tree, not by the game (which
/// does not say whose turn it is): a search usually calls the side to move at its root 0.
#[derive(Clone, Debug)]
pub struct Turn<G> {
    pub position: G,
    /// The role to move: 0 or 1.
    pub mover: usize,
}

impl<G> Turn<G> {
    /// `position` with role 0 to move.
    pub fn new(position: G) -> Turn<G> {
        Turn { position, mover: 0 }
    }
}

/// The model of game `G`; it holds nothing, the positions hold the game.
pub struct Native<G>(PhantomData<fn() -> G>);

impl<G> Default for Native<G> {
    fn default() -> Self {
        Native(PhantomData)
    }
}

impl<G: Game> Model for Native<G> {
    type State = Turn<G>;
    type Move = Option<G::Move>;
    /// A native step takes tens of nanoseconds; reading the clock about as long.
    const CLOCK_EVERY: u32 = 256;

    fn expand(&self, state: &Turn<G>) -> Expansion<Option<G::Move>> {
        if let Some(outcome) = state.position.decided() {
            return Expansion::Over(rewards(outcome, state.mover).to_vec());
        }
        let mut list = G::MoveList::default();
        state.position.generate_moves(&mut list);
        if list.is_empty() {
            let outcome = state.position.outcome_without_moves();
            return Expansion::Over(rewards(outcome, state.mover).to_vec());
        }
        let mut legal = vec![vec![None], vec![None]];
        legal[state.mover] = list.as_slice().iter().copied().map(Some).collect();
        Expansion::Moves(legal)
    }

    fn next(&self, state: &Turn<G>, joint: &[Option<G::Move>]) -> Turn<G> {
        let mut position = state.position.clone();
        if let Some(m) = joint[state.mover] {
            position.make(m);
        }
        Turn {
            position,
            mover: 1 - state.mover,
        }
    }

    /// Plays on one copy of the position with one move list. Only a game whose positions
    /// repeat can go on for ever: its playouts stop after [`MAX_PLAYOUT_STEPS`] plies and
    /// count as a draw.
    fn playout(
        &self,
        state: Turn<G>,
        rng: &mut Rng,
        timer: &mut Timer,
        mut mast: Option<&mut Mast>,
    ) -> Option<Vec<f64>> {
        let Turn {
            mut position,
            mut mover,
        } = state;
        let mut list = G::MoveList::default();
        let mut keys = Vec::new();
        let mut plies = 0;
        let outcome = loop {
            if timer.expired() {
                return None;
            }
            if let Some(outcome) = position.decided() {
                break outcome;
            }
            position.generate_moves(&mut list);
            if list.is_empty() {
                break position.outcome_without_moves();
            }
            if G::REPEATS && plies == MAX_PLAYOUT_STEPS {
                return Some(vec![0.5, 0.5]);
            }
            let i = match mast.as_deref_mut() {
                Some(mast) => {
                    keys.clear();
                    keys.extend(list.as_slice().iter().map(|&m| G::move_code(m) as u32));
                    mast.pick(mover, &keys, rng)
                }
                None => rng.random_range(..list.len()),
            };
            let m = list.as_slice()[i];
            position.make(m);
            mover = 1 - mover;
            plies += 1;
        };
        Some(rewards(outcome, mover).to_vec())
    }

    /// The move's code; the waiting side's `None` is 0 (never rated: the side has no
    /// choice).
    fn move_key(&self, _role: usize, m: &Option<G::Move>) -> u32 {
        m.map_or(0, |m| G::move_code(m) as u32)
    }

    /// By hash, which covers everything that decides the rest of the game.
    fn same(&self, a: &Turn<G>, b: &Turn<G>) -> bool {
        a.mover == b.mover && a.position.hash() == b.position.hash()
    }

    fn key(&self, state: &Turn<G>) -> u64 {
        crate::gdl::hash::finish(state.position.hash() ^ state.mover as u64)
    }
}

/// Both roles' rewards when the game ended with `outcome` for role `mover`.
fn rewards(outcome: Outcome, mover: usize) -> [f64; 2] {
    let own = match outcome {
        Outcome::Win => 1.0,
        Outcome::Draw => 0.5,
        Outcome::Loss => 0.0,
    };
    let mut r = [1.0 - own; 2];
    r[mover] = own;
    r
}
