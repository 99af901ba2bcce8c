//! The marks of the positions df-pn's threads are in.

use std::sync::atomic::{AtomicU8, Ordering};

/// Entries of [`Busy`]: positions share one by their key's bits, which only makes two
/// threads avoid each other a little more than they need.
const BUSY_ENTRIES: usize = 1 << 16;

/// How many threads are searching each position right now, so that a thread choosing a
/// child avoids one another thread is already proving (the threads would otherwise all
/// follow the same most-proving path).
pub(super) struct Busy(Vec<AtomicU8>);

impl Busy {
    pub(super) fn new() -> Busy {
        Busy((0..BUSY_ENTRIES).map(|_| AtomicU8::new(0)).collect())
    }

    fn at(&self, key: u64) -> &AtomicU8 {
        &self.0[(key >> 40) as usize & (BUSY_ENTRIES - 1)]
    }

    pub(super) fn enter(&self, key: u64) {
        self.at(key).fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn leave(&self, key: u64) {
        self.at(key).fetch_sub(1, Ordering::Relaxed);
    }

    pub(super) fn taken(&self, key: u64) -> bool {
        self.at(key).load(Ordering::Relaxed) > 0
    }
}
