//! Lazy SMP's one piece of coordination: which moves some thread is searching right now,
//! so that another thread reaching the same position searches them last (ABDADA's idea,
//! without its exclusivity). [`super::order::Order`] reads it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Moves that some thread is searching now, by position hash and move code: a small
/// lossy table (a slot holds one key; a collision only costs a missed deferral).
pub(super) struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Busy {
    pub(super) fn new(slots: usize) -> Busy {
        Busy {
            slots: (0..slots.next_power_of_two())
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    fn key(hash: u64, code: u16) -> u64 {
        (hash ^ (u64::from(code) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1
    }

    fn slot(&self, key: u64) -> usize {
        (key >> 40) as usize & (self.slots.len() - 1)
    }

    pub(super) fn is_busy(&self, hash: u64, code: u16) -> bool {
        let key = Busy::key(hash, code);
        self.slots[self.slot(key)].load(Ordering::Relaxed) == key
    }

    /// Marks the move as being searched; returns what [`Busy::leave`] needs.
    pub(super) fn enter(&self, hash: u64, code: u16) -> (usize, u64) {
        let key = Busy::key(hash, code);
        let slot = self.slot(key);
        self.slots[slot].store(key, Ordering::Relaxed);
        (slot, key)
    }

    pub(super) fn leave(&self, (slot, key): (usize, u64)) {
        // Only if no other move has taken the slot since.
        let _ = self.slots[slot].compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}
