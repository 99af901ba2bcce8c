//! The proof-number solver's transposition table, shared by its threads without locks,
//! and the marks of the positions its threads are in.
//!
//! An entry is two 64-bit words: the proof numbers, and the key's check bits with the
//! work, stored XOR a hash of the proof numbers. A read whose two words come from two
//! different writes (two threads at once) then fails its check like an entry of another
//! position (but for one chance in 2³²), so a torn entry is not read; it is only lost,
//! which costs work, not correctness.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// Entries of a table bucket: a new entry replaces the one of least work.
pub(super) const WAYS: usize = 4;

/// [`WAYS`] entries of two words, aligned to a cache line of its own (64 bytes), so that
/// a lookup costs one memory access: df-pn looks up every child of every position it
/// expands (an 8-byte aligned allocation may split a bucket over two lines). Each entry
/// is `[proof numbers, (check << 32 | work) ^ mix(proof numbers)]`; an empty entry has
/// no work.
#[repr(align(64))]
struct Bucket([[AtomicU64; 2]; WAYS]);

/// One entry as read: `check` is the key's high half.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Slot {
    pub check: u32,
    pub phi: u32,
    pub delta: u32,
    /// Nodes spent on the position, 0 for an empty slot.
    pub work: u32,
}

/// A hash of the proof numbers' word (SplitMix64's finaliser): every bit of it moves
/// the check bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Slot {
    pub(super) fn words(self) -> [u64; 2] {
        let pn = u64::from(self.phi) << 32 | u64::from(self.delta);
        let tag = u64::from(self.check) << 32 | u64::from(self.work);
        [pn, tag ^ mix(pn)]
    }

    pub(super) fn from_words([pn, mixed]: [u64; 2]) -> Slot {
        let tag = mixed ^ mix(pn);
        Slot {
            check: (tag >> 32) as u32,
            phi: (pn >> 32) as u32,
            delta: pn as u32,
            work: tag as u32,
        }
    }
}

/// The table: buckets of [`WAYS`] entries, replaced by work.
pub(super) struct ProofTable {
    /// Written in full when made, so that no page fault falls inside the search (lazily
    /// zeroed pages measured no faster).
    buckets: Box<[Bucket]>,
    mask: u64,
}

impl ProofTable {
    /// A table of about `mb` MiB (a power of two of buckets, at least one).
    pub(super) fn new(mb: usize) -> ProofTable {
        let bytes = mb.max(1) << 20;
        let want = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let n = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        ProofTable::with_buckets(n)
    }

    /// A table of `n` buckets, a power of two.
    pub(super) fn with_buckets(n: usize) -> ProofTable {
        assert!(n.is_power_of_two(), "a power of two of buckets");
        ProofTable {
            buckets: (0..n)
                .map(|_| {
                    Bucket(std::array::from_fn(|_| {
                        [AtomicU64::new(0), AtomicU64::new(0)]
                    }))
                })
                .collect(),
            mask: n as u64 - 1,
        }
    }

    pub(super) fn buckets(&self) -> usize {
        self.buckets.len()
    }

    fn words(&self, bucket: usize, way: usize) -> &[AtomicU64; 2] {
        &self.buckets[bucket].0[way]
    }

    /// The bucket `key` belongs in: its low bits.
    fn bucket_of(&self, key: u64) -> usize {
        (key & self.mask) as usize
    }

    pub(super) fn slot(&self, bucket: usize, way: usize) -> Slot {
        let [a, b] = self.words(bucket, way);
        Slot::from_words([a.load(Ordering::Relaxed), b.load(Ordering::Relaxed)])
    }

    pub(super) fn store(&self, bucket: usize, way: usize, slot: Slot) {
        let [a, b] = self.words(bucket, way);
        let [x, y] = slot.words();
        a.store(x, Ordering::Relaxed);
        b.store(y, Ordering::Relaxed);
    }

    /// Starts loading `key`'s bucket (a load whose value is not waited for), for a
    /// [`ProofTable::get`] soon after.
    pub(super) fn touch(&self, key: u64) {
        let [first, _] = self.words(self.bucket_of(key), 0);
        std::hint::black_box(first.load(Ordering::Relaxed));
    }

    pub(super) fn get(&self, key: u64) -> Option<(u32, u32)> {
        let check = (key >> 32) as u32;
        let bucket = self.bucket_of(key);
        (0..WAYS)
            .map(|way| self.slot(bucket, way))
            .find(|s| s.check == check && s.work > 0)
            .map(|s| (s.phi, s.delta))
    }

    /// Stores a position's proof numbers and the `work` just spent on it (work adds up
    /// over the searches of one position).
    pub(super) fn put(&self, key: u64, phi: u32, delta: u32, work: u64) {
        let check = (key >> 32) as u32;
        let bucket = self.bucket_of(key);
        let slots: [Slot; WAYS] = std::array::from_fn(|way| self.slot(bucket, way));
        let work = u32::try_from(work).unwrap_or(u32::MAX).max(1);
        let (way, work) = match slots.iter().position(|s| s.check == check && s.work > 0) {
            Some(i) => (i, slots[i].work.saturating_add(work)),
            None => {
                let least = (0..WAYS)
                    .min_by_key(|&i| slots[i].work)
                    .expect("a bucket has entries");
                (least, work)
            }
        };
        self.store(
            bucket,
            way,
            Slot {
                check,
                phi,
                delta,
                work,
            },
        );
    }

    /// The share of entries in use, from a sample of at most [`FILLED_SAMPLE`] buckets
    /// spread over the table (all of a small one): a progress report may come every
    /// second, and a look at every entry reads the whole table.
    pub(super) fn filled(&self) -> f64 {
        let step = (self.buckets() / FILLED_SAMPLE).max(1);
        let sampled: Vec<usize> = (0..self.buckets()).step_by(step).collect();
        let used: usize = sampled
            .iter()
            .map(|&b| (0..WAYS).filter(|&w| self.slot(b, w).work > 0).count())
            .sum();
        used as f64 / (sampled.len() * WAYS) as f64
    }

    pub(super) fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.buckets)
    }
}

/// Buckets [`ProofTable::filled`] looks at, at most.
const FILLED_SAMPLE: usize = 1 << 16;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_and_a_torn_one_is_not_read() {
        let table = ProofTable::with_buckets(4);
        let key = 0x1234_5678_0000_0002;
        assert_eq!(table.get(key), None);
        table.put(key, 3, 7, 10);
        assert_eq!(table.get(key), Some((3, 7)));
        table.put(key, 0, u32::MAX / 2, 5);
        assert_eq!(table.get(key), Some((0, u32::MAX / 2)));
        let way = (0..WAYS).find(|&w| table.slot(2, w).work > 0).unwrap();
        assert_eq!(table.slot(2, way).work, 15);
        // Another position's proof numbers with this one's tag, as a read between two
        // threads' writes may see them: not this position, even with the same φ.
        let [_, tag] = table.slot(2, way).words();
        let [a, b] = table.words(2, way);
        a.store(9, Ordering::Relaxed);
        b.store(tag, Ordering::Relaxed);
        assert_eq!(table.get(key), None);
    }

    #[test]
    fn a_full_bucket_gives_up_its_entry_of_least_work() {
        let table = ProofTable::with_buckets(1);
        for (i, work) in [(1u64, 50), (2, 5), (3, 70), (4, 60)] {
            table.put(i << 32, 1, 1, work);
        }
        table.put(9 << 32, 2, 2, 1);
        assert_eq!(table.get(2 << 32), None);
        assert_eq!(table.get(9 << 32), Some((2, 2)));
        assert_eq!(table.get(1 << 32), Some((1, 1)));
        assert!((table.filled() - 1.0).abs() < 1e-9);
    }
}
