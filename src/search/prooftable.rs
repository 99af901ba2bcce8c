//! The solvers' transposition table: proven results and proof numbers, shared by the
//! threads of a solve without locks, where a new entry replaces the one of least work.
//!
//! Both solvers look up positions far more often than they could keep them all (a proof
//! of a 5×5 board visits hundreds of millions), so what an entry stands for decides what
//! is kept: the nodes spent on it. Losing a cheap entry costs little to redo; losing one
//! near the root costs the proof below it.
//!
//! An entry is two 64-bit words: the payload (the solver's to define), and the key's
//! check bits with the work, stored XOR a hash of the payload. A read whose two words
//! come from two different writes (two threads at once) then fails its check like an
//! entry of another position (but for one chance in 2³²), so a torn entry is not read;
//! it is only lost, which costs work, not correctness.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::game::Game;

/// The key under which the solvers keep `game`'s position, and whether it is its mirror
/// image's ([`Game::mirror_hash`]): of the two hashes the lesser, so that a position and
/// its mirror image, which have one value, share an entry (a move stored there is then
/// the mirror image's, when the key was). Mixed, because the lesser of two hashes is not
/// spread evenly and the table takes its buckets and checks from the key's bits.
pub(super) fn key_of<G: Game>(game: &G) -> (u64, bool) {
    let hash = game.hash();
    match game.mirror_hash() {
        Some(mirror) if mirror < hash => (mix(mirror), true),
        _ => (mix(hash), false),
    }
}

/// The solvers' key of `game`'s position ([`key_of`]) without the mirror flag: two
/// positions with one key have one value.
pub fn position_key<G: Game>(game: &G) -> u64 {
    key_of(game).0
}

/// Entries of a table bucket: a new entry replaces the one of least work.
pub(super) const WAYS: usize = 4;

/// [`WAYS`] entries of two words, aligned to a cache line of its own (64 bytes), so that
/// a lookup costs one memory access (an 8-byte aligned allocation may split a bucket over
/// two lines). Each entry is `[payload, (check << 32 | work) ^ mix(payload)]`; an empty
/// entry has no work.
#[repr(align(64))]
struct Bucket([[AtomicU64; 2]; WAYS]);

/// One entry as read: `check` is the key's high half.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Slot {
    pub check: u32,
    pub payload: u64,
    /// Nodes spent on the position, 0 for an empty slot.
    pub work: u32,
}

/// A hash of the payload (SplitMix64's finaliser): every bit of it moves the check bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Slot {
    pub(super) fn words(self) -> [u64; 2] {
        let tag = u64::from(self.check) << 32 | u64::from(self.work);
        [self.payload, tag ^ mix(self.payload)]
    }

    pub(super) fn from_words([payload, mixed]: [u64; 2]) -> Slot {
        let tag = mixed ^ mix(payload);
        Slot {
            check: (tag >> 32) as u32,
            payload,
            work: tag as u32,
        }
    }
}

/// The table: buckets of four (`WAYS`) entries, replaced by work.
pub struct ProofTable {
    /// Written in full when made, so that no page fault falls inside the search (lazily
    /// zeroed pages measured no faster).
    buckets: Box<[Bucket]>,
    mask: u64,
}

impl ProofTable {
    /// A table of about `mb` MiB (a power of two of buckets, at least one).
    pub fn new(mb: usize) -> ProofTable {
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
        let mut buckets = Vec::with_capacity(n);
        advise_huge_pages(buckets.spare_capacity_mut());
        buckets.extend((0..n).map(|_| {
            Bucket(std::array::from_fn(|_| {
                [AtomicU64::new(0), AtomicU64::new(0)]
            }))
        }));
        ProofTable {
            buckets: buckets.into_boxed_slice(),
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

    /// Starts loading `key`'s bucket into the cache, for a [`ProofTable::get`] soon after:
    /// the solvers look up every child of a position, and nearly every lookup misses the
    /// caches, so the loads are started together and overlap.
    pub(super) fn touch(&self, key: u64) {
        let bucket = self.bucket_of(key);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint: it reads nothing the program sees, cannot
        // fault, and here points into a live bucket besides. The call is `unsafe` only for
        // its target feature, SSE, which every x86-64 processor has (the target's
        // baseline). Measured against a relaxed load of the bucket through `black_box`
        // (which stalls retirement until the data arrives): `solve 3x7 --variant standard
        // --solver dfpn --threads 1` 46.6 → 35.4 s.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>((&raw const self.buckets[bucket]).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        std::hint::black_box(self.words(bucket, 0)[0].load(Ordering::Relaxed));
    }

    pub(super) fn get(&self, key: u64) -> Option<u64> {
        self.entry(key).map(|s| s.payload)
    }

    /// `key`'s entry, with the work it stands for.
    pub(super) fn entry(&self, key: u64) -> Option<Slot> {
        let check = (key >> 32) as u32;
        let bucket = self.bucket_of(key);
        (0..WAYS)
            .map(|way| self.slot(bucket, way))
            .find(|s| s.check == check && s.work > 0)
    }

    /// Stores a position's payload and the `work` just spent on it (work adds up over the
    /// searches of one position).
    pub(super) fn put(&self, key: u64, payload: u64, work: u64) {
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
                payload,
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

/// Asks Linux to back `memory` (not yet written) with 2 MiB pages where it can: the
/// solvers read the table at random, and with 4 KiB pages nearly every read also misses
/// the TLB. Where the system gives none (or is not Linux), nothing changes.
fn advise_huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    const HUGE: usize = 2 << 20;
    let start = memory.as_mut_ptr() as usize;
    let end = start + std::mem::size_of_val(memory);
    let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
    if last <= first {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: `first..last` lies inside `memory`, an allocation this function borrows
    // mutably, and is page-aligned. MADV_HUGEPAGE changes only how the kernel backs the
    // pages, never their contents or whether they are mapped (and nothing has been
    // written there yet). The call is `unsafe` only because it takes a raw address.
    // Measured (`solve 3x7 --variant standard`, 256 MiB): 3.06 → 2.50 s with the
    // alpha-beta solver, 35.5 → 31.5 s with df-pn on one thread.
    unsafe {
        // Only a hint: without it the table works the same, on small pages.
        let _ = rustix::mm::madvise(
            first as *mut std::ffi::c_void,
            last - first,
            rustix::mm::Advice::LinuxHugepage,
        );
    }
}

/// Buckets [`ProofTable::filled`] looks at, at most.
const FILLED_SAMPLE: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_and_a_torn_one_is_not_read() {
        let table = ProofTable::with_buckets(4);
        let key = 0x1234_5678_0000_0002;
        assert_eq!(table.get(key), None);
        table.put(key, 3 << 32 | 7, 10);
        assert_eq!(table.get(key), Some(3 << 32 | 7));
        table.put(key, 5, 5);
        assert_eq!(table.get(key), Some(5));
        let way = (0..WAYS).find(|&w| table.slot(2, w).work > 0).unwrap();
        assert_eq!(table.slot(2, way).work, 15);
        // Another position's payload with this one's tag, as a read between two threads'
        // writes may see them: not this position.
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
            table.put(i << 32, 1, work);
        }
        table.put(9 << 32, 2, 1);
        assert_eq!(table.get(2 << 32), None);
        assert_eq!(table.get(9 << 32), Some(2));
        assert_eq!(table.get(1 << 32), Some(1));
        assert!((table.filled() - 1.0).abs() < 1e-9);
    }
}
