//! How playouts choose their moves: uniformly at random, or by the move-average sampling
//! technique (MAST).
//!
//! MAST keeps, for every role and every move of that role (whatever the state it was
//! played in), the mean reward of the iterations that played it, in the tree or in a
//! playout. A playout then plays each role's best-rated legal move, except with
//! probability [`EPSILON`] a uniformly random one (epsilon-greedy; a move never rated
//! counts as a win, so that each is tried). A move good in one position of a game is
//! often good in others (a centre square, a capture, a piece's advance): playouts become
//! more like play, and their results say more. The statistics are kept for the whole
//! match; when the root moves on they are [`DECAY`]ed, so that what the later game
//! teaches counts more.
//!
//! Moves are known by a key per role ([`super::Model::move_key`]): dense small numbers
//! index a table, others a hash map.

use std::collections::HashMap;

use rand::RngExt;

use crate::rng::Rng;

/// The chance of a uniformly random move in a MAST playout.
pub const EPSILON: f64 = 0.4;
/// What a move's statistics keep of their weight each time the root moves on.
pub const DECAY: f64 = 0.5;
/// Keys below this index a table (the others a hash map).
const DENSE_KEYS: u32 = 1 << 20;

/// How playouts choose their moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Playouts {
    /// Uniformly random moves.
    Random,
    /// Each role's move with the best average reward so far, else (40% of the time) a
    /// random one.
    Mast,
    /// Chosen per game in the start clock by a few quick games of MAST against random
    /// playouts ([`super::choice`]); MAST until then, or where nothing chooses.
    #[default]
    Auto,
}

impl Playouts {
    /// Whether a tree set to these playouts keeps MAST statistics (until a choice says
    /// otherwise, `Auto` plays MAST).
    pub fn guided(self) -> bool {
        self != Playouts::Random
    }
}

#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Average {
    weight: f64,
    sum: f64,
}

/// One role's statistics.
#[derive(Default)]
struct RoleTable {
    dense: Vec<Average>,
    sparse: HashMap<u32, Average>,
}

impl RoleTable {
    fn get(&self, key: u32) -> Option<&Average> {
        if key < DENSE_KEYS {
            self.dense.get(key as usize)
        } else {
            self.sparse.get(&key)
        }
    }

    fn entry(&mut self, key: u32) -> &mut Average {
        if key < DENSE_KEYS {
            let i = key as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, Average::default());
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(key).or_default()
        }
    }
}

/// The move-average statistics of one match, and the moves of the iteration under way.
#[derive(Default)]
pub struct Mast {
    roles: Vec<RoleTable>,
    /// (role, key) of every move played in the iteration so far.
    played: Vec<(usize, u32)>,
}

impl Mast {
    /// The mean reward of role `role`'s move `key` so far; `None` if never rated.
    pub fn mean(&self, role: usize, key: u32) -> Option<f64> {
        let a = self.roles.get(role)?.get(key)?;
        (a.weight > 0.0).then(|| a.sum / a.weight)
    }

    /// Which of role `role`'s legal moves (their keys, at least one) a playout plays: the
    /// best rated, ties broken at random, except with chance [`EPSILON`] any. Records it
    /// when it was a choice.
    pub fn pick(&mut self, role: usize, keys: &[u32], rng: &mut Rng) -> usize {
        if keys.len() == 1 {
            return 0;
        }
        let pick = if rng.random_bool(EPSILON) {
            rng.random_range(..keys.len())
        } else {
            self.best(role, keys, rng)
        };
        self.played.push((role, keys[pick]));
        pick
    }

    fn best(&self, role: usize, keys: &[u32], rng: &mut Rng) -> usize {
        let (mut best, mut best_value, mut ties) = (0, f64::NEG_INFINITY, 0u32);
        for (i, &key) in keys.iter().enumerate() {
            let value = self.mean(role, key).unwrap_or(1.0);
            if value > best_value {
                (best, best_value, ties) = (i, value, 1);
            } else if value == best_value {
                ties += 1;
                if rng.random_range(..ties) == 0 {
                    best = i;
                }
            }
        }
        best
    }

    /// Records a move chosen in the tree.
    pub fn played(&mut self, role: usize, key: u32) {
        self.played.push((role, key));
    }

    /// Credits every move of the iteration with its role's reward, and starts the next.
    pub fn credit(&mut self, rewards: &[f64]) {
        for (role, key) in self.played.drain(..) {
            if self.roles.len() <= role {
                self.roles.resize_with(role + 1, RoleTable::default);
            }
            let a = self.roles[role].entry(key);
            a.weight += 1.0;
            a.sum += rewards.get(role).copied().unwrap_or(0.0);
        }
    }

    /// Forgets the moves of an iteration that did not finish.
    pub fn discard(&mut self) {
        self.played.clear();
    }

    /// Weighs what is known so far by [`DECAY`] (the means stay as they are).
    pub fn decay(&mut self) {
        for table in &mut self.roles {
            let averages = table.dense.iter_mut().chain(table.sparse.values_mut());
            for a in averages {
                a.weight *= DECAY;
                a.sum *= DECAY;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Role 0's picks between keys 1 and 2 over `n` draws: how many were key 1.
    fn picks_of_first(mast: &mut Mast, n: usize) -> usize {
        let mut rng = crate::rng::seeded(Some(7));
        let picked = (0..n)
            .filter(|_| mast.pick(0, &[1, 2], &mut rng) == 0)
            .count();
        mast.discard();
        picked
    }

    #[test]
    fn playouts_favour_the_move_that_won() {
        let mut mast = Mast::default();
        for _ in 0..5 {
            mast.played(0, 1);
            mast.credit(&[1.0]);
            mast.played(0, 2);
            mast.credit(&[0.0]);
        }
        assert_eq!(mast.mean(0, 1), Some(1.0));
        assert_eq!(mast.mean(0, 2), Some(0.0));
        // Greedy 60% of the time, random 40%: key 1 about 80% of the time.
        let first = picks_of_first(&mut mast, 2_000);
        assert!((1_450..1_750).contains(&first), "{first}");
    }

    #[test]
    fn a_move_never_rated_is_tried_before_a_good_one() {
        let mut mast = Mast::default();
        mast.played(0, 1);
        mast.credit(&[0.9]);
        assert_eq!(mast.mean(0, 2), None);
        // Key 1 only when the pick is random (40%), and then half the time.
        let first = picks_of_first(&mut mast, 2_000);
        assert!((300..500).contains(&first), "{first}");
    }

    #[test]
    fn decay_lets_later_results_count_more() {
        let mut mast = Mast::default();
        for _ in 0..4 {
            mast.played(1, 3);
            mast.credit(&[0.0, 1.0]);
        }
        mast.decay();
        assert_eq!(mast.mean(1, 3), Some(1.0));
        for _ in 0..2 {
            mast.played(1, 3);
            mast.credit(&[1.0, 0.0]);
        }
        // Weight 4 halved to 2, then two losses: 2/4, where without the decay 4/6.
        assert_eq!(mast.mean(1, 3), Some(0.5));
        // Keys past the table go to the map, and count the same way.
        mast.played(1, u32::MAX);
        mast.credit(&[0.0, 0.25]);
        assert_eq!(mast.mean(1, u32::MAX), Some(0.25));
    }
}
