//! GRAVE (generalised rapid action value estimation): the selection also rates a move by
//! its *all-moves-as-first* statistics, the rewards of every iteration that played the
//! same move (by the same role) anywhere below the position, in the tree or in the
//! playout. A move good later in a line is often good now (a strong square, a capture
//! that stays open), and these statistics grow many times faster than the move's own.
//!
//! Only positions visited at least [`REFERENCE_VISITS`] times keep them (few positions,
//! with statistics worth reading); a position visited less reads those of its nearest
//! ancestor on the way down that keeps them, the *reference*. A move's value is then
//! `(1 − β)·mean + β·amaf`, where `β = a / (a + v + BIAS·a·v)` for `v` visits of the move
//! and `a` of its all-moves statistics. β is about `a / (a + v)` until `v` nears
//! `1 / BIAS`: the shared statistics, which count more iterations, weigh at least as much
//! as the move's own for a long time, and less only in positions searched very deeply.
//! A move never played from the position is rated by its all-moves mean (and the usual
//! exploration term), not drawn first at random: the likeliest moves are tried first.
//!
//! The playouts' moves are those [`Mast`] records: a tree with GRAVE and uniformly
//! random playouts keeps a [`Mast`] that picks uniformly ([`Mast::uniform`]).

use super::{Joint, Mast, Mcts, Model, Stat};
use crate::gdl::hash::FastMap;

/// Visits from which a position keeps all-moves statistics and is read as a reference.
pub(super) const REFERENCE_VISITS: u32 = 50;
/// The weight of the product in β's denominator: how soon a move's own statistics take
/// over from the shared ones.
const BIAS: f64 = 1e-5;
/// What the memory bound counts for one move's all-moves statistics in a position.
pub(super) const AMAF_ENTRY_BYTES: usize = 40;

/// A position's all-moves statistics: per role and move key ([`amaf_key`]).
pub(super) type Amaf = FastMap<u64, Stat>;

/// The key of role `role`'s move `key` in [`Amaf`].
fn amaf_key(role: usize, key: u32) -> u64 {
    ((role as u64) << 32) | u64::from(key)
}

/// A move's value blended from its `mean` over `visits` and its all-moves statistics
/// `amaf`, if any (GRAVE's formula above).
pub(super) fn blend(mean: f64, visits: u32, amaf: Option<Stat>) -> f64 {
    let Some(amaf) = amaf.filter(|s| s.visits > 0) else {
        return mean;
    };
    let (a, v) = (f64::from(amaf.visits), f64::from(visits));
    let beta = a / (a + v + BIAS * a * v);
    (1.0 - beta) * mean + beta * amaf.mean()
}

impl<M: Model> Mcts<M> {
    /// Role `role`'s all-moves statistics at the reference `reference` for each of its
    /// legal moves at `node` (empty without a reference).
    pub(super) fn amaf_of(
        &self,
        reference: Option<usize>,
        node: usize,
        role: usize,
    ) -> Vec<Option<Stat>> {
        let Some(amaf) = reference.and_then(|r| self.nodes[r].amaf.as_deref()) else {
            return Vec::new();
        };
        self.nodes[node].legal[role]
            .iter()
            .map(|m| {
                amaf.get(&amaf_key(role, self.model.move_key(role, m)))
                    .copied()
            })
            .collect()
    }

    /// Credits the all-moves statistics of the positions on `path` (the iteration's way
    /// down) that keep them with `rewards`: each with every move chosen at or below it, in
    /// the tree or in the playout (as [`Mast`] recorded them), once each. A position
    /// reaching [`REFERENCE_VISITS`] starts keeping them.
    pub(super) fn credit_amaf(&mut self, path: &[(usize, Joint)], rewards: &[f64]) {
        // The set is kept between iterations, so that none allocates it again.
        let mut below = std::mem::take(&mut self.amaf_below);
        below.clear();
        let playout = self.mast.iter().flat_map(Mast::recorded);
        below.extend(playout.map(|(r, k)| amaf_key(r, k)));
        for (node, joint) in path.iter().rev() {
            let n = &self.nodes[*node];
            for (role, &m) in joint.iter().enumerate() {
                if n.legal[role].len() > 1 {
                    let key = self.model.move_key(role, &n.legal[role][m as usize]);
                    below.insert(amaf_key(role, key));
                }
            }
            let n = &mut self.nodes[*node];
            if n.visits + 1 < REFERENCE_VISITS {
                continue;
            }
            let amaf = n.amaf.get_or_insert_with(Default::default);
            let before = amaf.len();
            for &k in &below {
                let s = amaf.entry(k).or_default();
                s.visits += 1;
                s.sum += rewards.get((k >> 32) as usize).copied().unwrap_or(0.0);
            }
            let added = (amaf.len() - before) * AMAF_ENTRY_BYTES;
            n.bytes += added;
            self.bytes += added;
        }
        self.amaf_below = below;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_leans_on_its_shared_statistics_while_its_own_are_few() {
        let amaf = Stat {
            visits: 1000,
            sum: 900.0,
        };
        // Never played here: the shared mean alone.
        assert!((blend(0.0, 0, Some(amaf)) - 0.9).abs() < 1e-12);
        // A few visits: close to the shared mean still.
        let few = blend(0.2, 10, Some(amaf));
        assert!(few > 0.85 && few < 0.9, "{few}");
        // Many: its own mean leads.
        let many = blend(0.2, 1_000_000, Some(amaf));
        assert!(many < 0.3, "{many}");
        // Without shared statistics, its own mean.
        assert_eq!(blend(0.2, 10, None), 0.2);
        assert_eq!(blend(0.2, 10, Some(Stat::default())), 0.2);
    }
}
