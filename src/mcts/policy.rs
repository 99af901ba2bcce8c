//! How playouts choose their moves: uniformly at random, by the move-average sampling
//! technique (MAST), or by MAST with pairs of moves (NST, the N-gram selection technique).
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
//! NST also keeps, for every move, its mean reward right after each move played before
//! it in the iteration (by any role). Where that pair has weight enough, a move is rated
//! by the average of its own mean and the pair's: a reply's worth often depends on what
//! it answers (a blocked column, a recapture), which a move's mean alone cannot see.
//!
//! Moves are known by a key per role ([`super::Model::move_key`]): dense small numbers
//! index a table, others a hash map.

use std::collections::HashMap;

use rand::RngExt;

use crate::gdl::hash::FastMap;
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
    /// As MAST, each move rated also by its average reward right after the move before it
    /// (N-grams of two moves), where that pair was played often enough.
    Nst,
    // The choice is `super::choice`'s; clap shows the doc comment as the help.
    /// Chosen per game in the start clock by a few quick games of MAST against random
    /// playouts; MAST until then, or where nothing chooses.
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

/// A move of the iteration under way: its role, its key, and the key of the choice
/// played before it in the iteration, if any.
#[derive(Clone, Copy, Debug)]
struct Played {
    role: usize,
    key: u32,
    after: Option<u32>,
}

/// The move-average statistics of one match, and the moves of the iteration under way.
#[derive(Default)]
pub struct Mast {
    roles: Vec<RoleTable>,
    /// With N-grams: per (role, the move before, the move), its statistics.
    pairs: Option<FastMap<(u32, u32, u32), Average>>,
    /// Every move played in the iteration so far.
    played: Vec<Played>,
    /// The key of the last choice in the iteration so far.
    last: Option<u32>,
    /// Picks uniformly at random, only recording the moves (for GRAVE's all-moves
    /// statistics, [`super::rave`]).
    uniform: bool,
}

/// The weight a pair of moves needs before its mean counts (N-grams are noisy at first).
const PAIR_WEIGHT: f64 = 7.0;

impl Mast {
    /// Statistics of single moves; with `pairs`, of pairs of moves in a row too
    /// ([`Playouts::Nst`]).
    pub fn new(pairs: bool) -> Mast {
        Mast {
            pairs: pairs.then(FastMap::default),
            ..Mast::default()
        }
    }

    /// A recorder of the playouts' moves that picks them uniformly at random: random
    /// playouts whose moves GRAVE reads.
    pub fn uniform() -> Mast {
        Mast {
            uniform: true,
            ..Mast::default()
        }
    }

    /// Whether it picks uniformly at random ([`Mast::uniform`]).
    pub fn is_uniform(&self) -> bool {
        self.uniform
    }

    /// The choices of the iteration under way so far: role and key.
    pub fn recorded(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.played.iter().map(|p| (p.role, p.key))
    }

    /// Whether pairs of moves are rated too.
    pub fn rates_pairs(&self) -> bool {
        self.pairs.is_some()
    }

    /// The mean reward of role `role`'s move `key` so far; `None` if never rated.
    pub fn mean(&self, role: usize, key: u32) -> Option<f64> {
        let a = self.roles.get(role)?.get(key)?;
        (a.weight > 0.0).then(|| a.sum / a.weight)
    }

    /// What a playout rates role `role`'s move `key` at, after the choice `after`: its
    /// mean (1 if never rated), averaged with the pair's mean where that has weight enough.
    fn rating(&self, role: usize, key: u32, after: Option<u32>) -> f64 {
        let single = self.mean(role, key).unwrap_or(1.0);
        let pair = after.and_then(|a| self.pairs.as_ref()?.get(&(role as u32, a, key)));
        match pair {
            Some(p) if p.weight >= PAIR_WEIGHT => (single + p.sum / p.weight) / 2.0,
            _ => single,
        }
    }

    /// Which of role `role`'s legal moves (their keys, at least one) a playout plays: the
    /// best rated, ties broken at random, except with chance [`EPSILON`] any. Records it
    /// when it was a choice.
    pub fn pick(&mut self, role: usize, keys: &[u32], rng: &mut Rng) -> usize {
        if keys.len() == 1 {
            return 0;
        }
        let pick = if self.uniform || rng.random_bool(EPSILON) {
            rng.random_range(..keys.len())
        } else {
            self.best(role, keys, rng)
        };
        self.played(role, keys[pick]);
        pick
    }

    fn best(&self, role: usize, keys: &[u32], rng: &mut Rng) -> usize {
        let (mut best, mut best_value, mut ties) = (0, f64::NEG_INFINITY, 0u32);
        for (i, &key) in keys.iter().enumerate() {
            let value = self.rating(role, key, self.last);
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

    /// Records a choice: the next one follows it.
    pub fn played(&mut self, role: usize, key: u32) {
        self.played.push(Played {
            role,
            key,
            after: self.last,
        });
        self.last = Some(key);
    }

    /// Starts a run of choices after the choice `key` (`None`: after none), as a playout
    /// follows its path in the tree.
    pub fn follow(&mut self, key: Option<u32>) {
        self.last = key;
    }

    /// Credits every move of the iteration with its role's reward, and starts the next.
    pub fn credit(&mut self, rewards: &[f64]) {
        if self.uniform {
            self.discard();
            return;
        }
        for p in self.played.drain(..) {
            let reward = rewards.get(p.role).copied().unwrap_or(0.0);
            if self.roles.len() <= p.role {
                self.roles.resize_with(p.role + 1, RoleTable::default);
            }
            let a = self.roles[p.role].entry(p.key);
            a.weight += 1.0;
            a.sum += reward;
            if let (Some(pairs), Some(after)) = (&mut self.pairs, p.after) {
                let a = pairs.entry((p.role as u32, after, p.key)).or_default();
                a.weight += 1.0;
                a.sum += reward;
            }
        }
        self.last = None;
    }

    /// Forgets the moves of an iteration that did not finish.
    pub fn discard(&mut self) {
        self.played.clear();
        self.last = None;
    }

    /// Weighs what is known so far by [`DECAY`] (the means stay as they are).
    pub fn decay(&mut self) {
        let pairs = self.pairs.iter_mut().flat_map(|p| p.values_mut());
        let singles = self
            .roles
            .iter_mut()
            .flat_map(|t| t.dense.iter_mut().chain(t.sparse.values_mut()));
        for a in singles.chain(pairs) {
            a.weight *= DECAY;
            a.sum *= DECAY;
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

    /// After move 5, move 1 has always lost and move 2 won; after move 6 the other way
    /// round. Alone each move has won half its games, so plain MAST cannot tell them
    /// apart; with pairs the playout follows what came before.
    #[test]
    fn pairs_of_moves_let_a_reply_depend_on_the_move_before() {
        let mut nst = Mast::new(true);
        let mut mast = Mast::new(false);
        for m in [&mut nst, &mut mast] {
            for _ in 0..10 {
                for (before, good, bad) in [(5, 2, 1), (6, 1, 2)] {
                    for (key, reward) in [(good, 1.0), (bad, 0.0)] {
                        m.played(1, before);
                        m.played(0, key);
                        m.credit(&[reward, 1.0 - reward]);
                    }
                }
            }
            assert_eq!((m.mean(0, 1), m.mean(0, 2)), (Some(0.5), Some(0.5)));
        }
        let mut rng = crate::rng::seeded(Some(3));
        // The share of 1,000 picks that were key 1, after `before`.
        let mut ones = |m: &mut Mast, before: u32| {
            let n = (0..1_000)
                .filter(|_| {
                    m.follow(Some(before));
                    m.pick(0, &[1, 2], &mut rng) == 0
                })
                .count();
            m.discard();
            n
        };
        // Greedy 60% of the time, random 40%: the better reply about 80% of the time.
        let (after_5, after_6) = (ones(&mut nst, 5), ones(&mut nst, 6));
        assert!(after_5 < 300 && after_6 > 700, "{after_5} {after_6}");
        // Plain MAST ties, and picks each about half the time whatever came before.
        let (after_5, after_6) = (ones(&mut mast, 5), ones(&mut mast, 6));
        assert!((400..600).contains(&after_5), "{after_5}");
        assert!((400..600).contains(&after_6), "{after_6}");
    }

    /// A pair counts only once it has weight enough; below that, the single move's mean.
    #[test]
    fn a_pair_played_rarely_does_not_count() {
        let mut nst = Mast::new(true);
        for _ in 0..20 {
            nst.played(0, 1);
            nst.credit(&[1.0]);
        }
        for _ in 0..6 {
            nst.played(1, 9);
            nst.played(0, 1);
            nst.credit(&[0.0, 1.0]);
        }
        // Move 1 alone: 20 wins in 26; after move 9: 6 losses, below the weight needed.
        assert_eq!(nst.rating(0, 1, Some(9)), 20.0 / 26.0);
        nst.played(1, 9);
        nst.played(0, 1);
        nst.credit(&[0.0, 1.0]);
        assert_eq!(nst.rating(0, 1, Some(9)), (20.0 / 27.0) / 2.0);
        assert_eq!(nst.rating(0, 1, None), 20.0 / 27.0);
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
