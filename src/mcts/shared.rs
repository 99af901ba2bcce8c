//! Proofs shared between the trees of several threads: a table from a state's
//! [`Model::key`] to its proven rewards, which every tree writes when it proves a
//! position and reads when it enters one, so that a position one thread proved is
//! proven for all. The table is a fixed array of slots written without locks: a slot
//! holds the packed rewards and the key mixed with them, so that a slot read while
//! another thread writes it is seen as empty, never as another position's proof. A
//! newer proof takes the slot of an older one whose key falls there.
//!
//! Rewards are packed as whole hundredths, one byte per role, which holds every GDL goal
//! (0–100) and the native games' 0, ½ and 1 exactly; a game of more than
//! [`MAX_ROLES`] roles, or a reward that is not a whole hundredth, is not shared.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Mcts, Model};

/// Roles whose rewards fit in a slot beside their count.
pub const MAX_ROLES: usize = 7;

/// Slots of the table: 1 MiB of them, more than the proofs of a game's searches.
const SLOTS: usize = 1 << 16;

#[derive(Default)]
struct Slot {
    /// The key mixed with the data: a slot whose two words do not match is empty.
    check: AtomicU64,
    /// The packed rewards; 0 when the slot is empty.
    data: AtomicU64,
}

/// The table of proofs the trees of one match share.
pub struct SharedProofs {
    slots: Box<[Slot]>,
}

impl Default for SharedProofs {
    fn default() -> Self {
        SharedProofs {
            slots: (0..SLOTS).map(|_| Slot::default()).collect(),
        }
    }
}

impl SharedProofs {
    /// The bytes the table holds.
    pub const BYTES: usize = SLOTS * size_of::<Slot>();

    fn slot(&self, key: u64) -> &Slot {
        &self.slots[(key as usize) & (SLOTS - 1)]
    }

    /// Records that the position of `key` is proven to give `rewards`, if they can be
    /// packed.
    pub fn put(&self, key: u64, rewards: &[f64]) {
        let Some(data) = pack(rewards) else { return };
        let slot = self.slot(key);
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// The proven rewards of the position of `key`, if a tree proved it.
    pub fn get(&self, key: u64) -> Option<Vec<f64>> {
        let slot = self.slot(key);
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        (data != 0 && check ^ data == key).then(|| unpack(data))
    }
}

/// `rewards` as a count of roles in the low byte and a byte of hundredths per role
/// above; `None` where that would not give them back exactly.
fn pack(rewards: &[f64]) -> Option<u64> {
    if rewards.is_empty() || rewards.len() > MAX_ROLES {
        return None;
    }
    let mut data = rewards.len() as u64;
    for (i, &r) in rewards.iter().enumerate() {
        let hundredths = (r * 100.0).round();
        if !(0.0..=100.0).contains(&hundredths) || hundredths / 100.0 != r {
            return None;
        }
        data |= (hundredths as u64) << (8 * (i + 1));
    }
    Some(data)
}

fn unpack(data: u64) -> Vec<f64> {
    let roles = (data & 0xff) as usize;
    (1..=roles)
        .map(|i| ((data >> (8 * i)) & 0xff) as f64 / 100.0)
        .collect()
}

impl<M: Model> Mcts<M> {
    /// Makes `node` proven if another tree proved its position (where one role chooses:
    /// elsewhere nothing is proven).
    pub(super) fn import_proof(&mut self, node: usize) {
        let Some(shared) = &self.shared else { return };
        let n = &self.nodes[node];
        if n.proven.is_some() || n.mover.is_none() {
            return;
        }
        let Some(rewards) = shared.get(n.key).filter(|r| r.len() == n.legal.len()) else {
            return;
        };
        let added = rewards.len() * size_of::<f64>();
        self.nodes[node].proven = Some(rewards);
        self.nodes[node].bytes += added;
        self.bytes += added;
    }

    /// Drops the root's proof if it came from another tree: that proof gives the root's
    /// value but not the move that keeps it, which only the root's own proven moves show.
    /// The search then runs until they do, as it reads its children's proofs from the
    /// table at once. Without this, a root proven by another tree ended its search before
    /// the first iteration and answered with its most visited move, which may throw the
    /// proven result away.
    pub(super) fn own_root_proof(&mut self) {
        let n = &self.nodes[self.root];
        let Some(proven) = &n.proven else { return };
        if n.terminal || n.known.iter().flatten().any(|k| k == proven) {
            return;
        }
        let dropped = proven.len() * size_of::<f64>();
        let n = &mut self.nodes[self.root];
        n.proven = None;
        n.bytes -= dropped;
        self.bytes -= dropped;
    }

    /// Tells the other trees that `node` is proven.
    pub(super) fn export_proof(&self, node: usize) {
        if let (Some(shared), Some(proven)) = (&self.shared, &self.nodes[node].proven) {
            shared.put(self.nodes[node].key, proven);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_come_back_exactly_or_are_not_shared() {
        let table = SharedProofs::default();
        table.put(42, &[1.0, 0.0]);
        table.put(7, &[0.5, 0.5, 0.25]);
        assert_eq!(table.get(42), Some(vec![1.0, 0.0]));
        assert_eq!(table.get(7), Some(vec![0.5, 0.5, 0.25]));
        // Another key of the same slot is not this position.
        assert_eq!(table.get(42 + SLOTS as u64), None);
        assert_eq!(table.get(43), None);
        // A third of a point, or eight roles, cannot be packed: nothing is written.
        table.put(9, &[1.0 / 3.0, 0.0]);
        table.put(10, &[0.0; 8]);
        assert_eq!((table.get(9), table.get(10)), (None, None));
        // A newer proof takes the slot.
        table.put(42 + SLOTS as u64, &[0.0, 1.0]);
        assert_eq!(table.get(42), None);
        assert_eq!(table.get(42 + SLOTS as u64), Some(vec![0.0, 1.0]));
    }
}
