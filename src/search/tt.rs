//! The transposition table: one table shared by every search thread of a match, kept
//! between moves so that each search (and pondering) starts from what earlier ones learnt.
//!
//! Lock-free: an entry is two atomic words, the data and the position's hash XOR the data.
//! A reader accepts an entry only when the XOR gives back its own hash, so an entry torn by
//! two threads writing at once reads as a miss instead of as wrong data.
//!
//! Scores of won and lost positions are stored relative to the stored position (distance
//! to the end from there), and turned back into distance from the root when read, so an
//! entry is right wherever in the tree the position is met again.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use super::score::{self, WIN};

/// Entries per bucket: a probe reads one cache line's worth.
const BUCKET: usize = 2;
/// The size of an entry in bytes (two words).
const ENTRY_BYTES: usize = 16;
/// The memory page of the systems the tables are written for (small pages).
const PAGE_BYTES: usize = 4096;
/// Stored as the depth of proven entries: valid for a search of any depth.
const PROVEN_DEPTH: u8 = u8::MAX;

/// What a stored score says about the position's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value itself.
    Exact,
    /// The value is at least the score (the search failed high).
    Lower,
    /// The value is at most the score (the search failed low).
    Upper,
}

impl Bound {
    /// What a fail-soft search result `best` says, given the window `(alpha, beta)` it was
    /// searched with.
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// An entry as read back from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best (or refuting) move's code, `None` when no move was best.
    pub move_code: Option<u16>,
    /// The score, distance-corrected for the ply it was read at.
    pub score: i32,
    /// The remaining depth searched; `u8::MAX` for proven entries.
    pub depth: u8,
    pub bound: Bound,
    /// No evaluated leaf lies behind the score: it is the game-theoretic value (or bound).
    pub proven: bool,
}

impl Entry {
    /// Whether this entry settles a search of `depth` with window `(alpha, beta)`.
    pub fn cuts(&self, depth: u32, alpha: i32, beta: i32) -> bool {
        u32::from(self.depth) >= depth
            && match self.bound {
                Bound::Exact => true,
                Bound::Lower => self.score >= beta,
                Bound::Upper => self.score <= alpha,
            }
    }
}

pub struct Table {
    words: Box<[AtomicU64]>,
    /// Bucket count minus one (a power of two minus one).
    mask: usize,
    /// Bumped at every new search, so entries of old searches are replaced first.
    generation: AtomicU8,
}

impl Table {
    /// A table of at most `megabytes` MiB (rounded down to a power of two buckets; at least
    /// one bucket). The memory is zeroed by the allocator, so pages are only touched when used.
    pub fn new(megabytes: usize) -> Table {
        let bytes = megabytes.saturating_mul(1 << 20);
        let buckets = (bytes / (BUCKET * ENTRY_BYTES)).max(1);
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        let words: Box<[AtomicU64]> = bytemuck::zeroed_slice_box(buckets * BUCKET * 2);
        Table {
            words,
            mask: buckets - 1,
            generation: AtomicU8::new(0),
        }
    }

    /// A table as [`Table::new`] makes it, with every page written now: for a table made
    /// before a clock starts (an agent's, when the match begins), so that no search pays
    /// for the pages. Left to the first touch, each page is faulted in the middle of a
    /// search, twice (a probe maps the shared zero page, a store then copies it): a
    /// 256 MiB table is 131,072 faults over the first moves, and on a loaded machine the
    /// first move's 2,048 nodes between two looks at the clock took tens of
    /// milliseconds. Small pages: 2 MiB ones take the kernel's compaction, which has
    /// taken seconds on a loaded machine.
    pub fn written(megabytes: usize) -> Table {
        let table = Table::new(megabytes);
        // One word a page is enough: the kernel zeroes the whole page it maps.
        for word in table.words.iter().step_by(PAGE_BYTES / 8) {
            word.store(0, Ordering::Relaxed);
        }
        table
    }

    /// The whole MiB of the entries that `threads` search threads, each storing at most
    /// `stores_per_second` entries a CPU-second, can write in `time` (0 under one MiB): the
    /// most a table made for that search can use.
    pub fn megabytes_filled(stores_per_second: u64, threads: usize, time: Duration) -> usize {
        let entries = stores_per_second as f64 * threads as f64 * time.as_secs_f64();
        usize::try_from((entries as u64).saturating_mul(ENTRY_BYTES as u64) >> 20)
            .unwrap_or(usize::MAX)
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Marks the start of a new search: older entries become the first to be replaced.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Forgets everything (a new match).
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// Per mille of the entries in the first 500 buckets that the current search wrote.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed) & GEN_MASK;
        let sample = (self.mask + 1).min(500);
        let mut used = 0;
        for b in 0..sample {
            for e in 0..BUCKET {
                let data = self.words[(b * BUCKET + e) * 2 + 1].load(Ordering::Relaxed);
                if data != 0 && unpack_generation(data) == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * BUCKET)) as u32
    }

    fn bucket(&self, hash: u64) -> usize {
        // The high bits choose the bucket; the key check uses all 64.
        ((hash >> 32) as usize & self.mask) * BUCKET * 2
    }

    /// The entry stored for `hash`, with its score corrected for `ply`.
    pub fn probe(&self, hash: u64, ply: usize) -> Option<Entry> {
        let base = self.bucket(hash);
        for e in 0..BUCKET {
            let key = self.words[base + e * 2].load(Ordering::Relaxed);
            let data = self.words[base + e * 2 + 1].load(Ordering::Relaxed);
            if data != 0 && key ^ data == hash {
                let mut entry = unpack(data);
                entry.score = score_from_table(entry.score, ply);
                return Some(entry);
            }
        }
        None
    }

    /// Stores the result of a search of `depth` at `ply` from the root.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        hash: u64,
        ply: usize,
        depth: u32,
        score: i32,
        bound: Bound,
        proven: bool,
        move_code: Option<u16>,
    ) {
        let generation = self.generation.load(Ordering::Relaxed) & GEN_MASK;
        let depth = if proven {
            PROVEN_DEPTH
        } else {
            depth.min(u32::from(PROVEN_DEPTH) - 1) as u8
        };
        let base = self.bucket(hash);
        // The slot holding this position, else the least valuable one: old and shallow.
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for e in 0..BUCKET {
            let key = self.words[base + e * 2].load(Ordering::Relaxed);
            let data = self.words[base + e * 2 + 1].load(Ordering::Relaxed);
            if data != 0 && key ^ data == hash {
                let old = unpack(data);
                // Keep a deeper result of this search unless the new one is exact or proven.
                if old.depth > depth
                    && bound != Bound::Exact
                    && !proven
                    && unpack_generation(data) == generation
                {
                    return;
                }
                victim = e;
                break;
            }
            let worth = if data == 0 {
                i32::MIN
            } else {
                let age = generation.wrapping_sub(unpack_generation(data)) & GEN_MASK;
                i32::from(unpack(data).depth) - 8 * i32::from(age)
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = e;
            }
        }
        let data = pack(
            move_code,
            score_to_table(score, ply),
            depth,
            bound,
            proven,
            generation,
        );
        self.words[base + victim * 2].store(hash ^ data, Ordering::Relaxed);
        self.words[base + victim * 2 + 1].store(data, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} MiB)", self.bytes() >> 20)
    }
}

/// Distance from the root → distance from the stored position.
fn score_to_table(s: i32, ply: usize) -> i32 {
    if !score::is_decisive(s) {
        s
    } else if s > 0 {
        s + ply as i32
    } else {
        s - ply as i32
    }
}

fn score_from_table(s: i32, ply: usize) -> i32 {
    if !score::is_decisive(s) {
        s
    } else if s > 0 {
        (s - ply as i32).min(WIN)
    } else {
        (s + ply as i32).max(-WIN)
    }
}

// The data word: move code + 1 (16 bits, 0 = none), score (32), depth (8), bound (2),
// proven (1), generation (5). A stored entry is never all zero: its bound is never 0.
const GEN_MASK: u8 = 0x1f;

fn pack(
    move_code: Option<u16>,
    score: i32,
    depth: u8,
    bound: Bound,
    proven: bool,
    generation: u8,
) -> u64 {
    let m = move_code.map_or(0, |c| u64::from(c) + 1) & 0xffff;
    let bound = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    m | (u64::from(score as u32) << 16)
        | (u64::from(depth) << 48)
        | (bound << 56)
        | (u64::from(proven) << 58)
        | (u64::from(generation & GEN_MASK) << 59)
}

fn unpack(data: u64) -> Entry {
    let m = (data & 0xffff) as u16;
    Entry {
        move_code: m.checked_sub(1),
        score: (data >> 16) as u32 as i32,
        depth: (data >> 48) as u8,
        bound: match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        },
        proven: (data >> 58) & 1 == 1,
    }
}

fn unpack_generation(data: u64) -> u8 {
    (data >> 59) as u8 & GEN_MASK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_reads_back_every_field() {
        let t = Table::new(1);
        assert_eq!(t.bytes(), 1 << 20);
        t.store(
            0xdead_beef_1234_5678,
            3,
            7,
            -42,
            Bound::Upper,
            false,
            Some(513),
        );
        let e = t.probe(0xdead_beef_1234_5678, 3).unwrap();
        assert_eq!(
            e,
            Entry {
                move_code: Some(513),
                score: -42,
                depth: 7,
                bound: Bound::Upper,
                proven: false
            }
        );
        assert_eq!(t.probe(0xdead_beef_1234_5679, 3), None);
        t.store(99, 0, 2, 0, Bound::Exact, true, None);
        let e = t.probe(99, 5).unwrap();
        assert_eq!((e.move_code, e.depth, e.proven), (None, u8::MAX, true));
        assert!(e.cuts(100, -1, 1));
    }

    #[test]
    fn win_scores_keep_their_distance_from_wherever_they_are_read() {
        let t = Table::new(1);
        // A win 3 plies after the stored position, stored at ply 4: score WIN - 7.
        t.store(1, 4, 9, WIN - 7, Bound::Exact, true, Some(0));
        assert_eq!(t.probe(1, 4).unwrap().score, WIN - 7);
        assert_eq!(t.probe(1, 10).unwrap().score, WIN - 13);
        t.store(2, 2, 9, -(WIN - 5), Bound::Lower, true, None);
        assert_eq!(t.probe(2, 0).unwrap().score, -(WIN - 3));
    }

    #[test]
    fn cut_offs_respect_depth_and_bound() {
        let e = Entry {
            move_code: None,
            score: 10,
            depth: 4,
            bound: Bound::Lower,
            proven: false,
        };
        assert!(e.cuts(4, 0, 10));
        assert!(!e.cuts(4, 0, 11));
        assert!(!e.cuts(5, 0, 10));
        let upper = Entry {
            bound: Bound::Upper,
            ..e
        };
        assert!(upper.cuts(3, 10, 20));
        assert!(!upper.cuts(3, 9, 20));
    }

    /// Minor page faults of the calling thread so far, where Linux says.
    fn thread_faults() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        // After the command's closing parenthesis come the state (field 3) and, seven
        // fields on, `minflt` (field 10).
        let fields = stat.rsplit_once(')')?.1;
        fields.split_whitespace().nth(7)?.parse().ok()
    }

    #[test]
    fn a_written_table_is_used_without_page_faults() {
        let table = Table::written(16);
        let Some(before) = thread_faults() else {
            return;
        };
        // A probe and a store in every page, as a search's first stores are spread.
        let buckets_a_page = (PAGE_BYTES / (BUCKET * ENTRY_BYTES)) as u64;
        let pages = (table.bytes() / PAGE_BYTES) as u64;
        for page in 0..pages {
            let hash = (page * buckets_a_page) << 32 | 1;
            assert_eq!(table.probe(hash, 0), None);
            table.store(hash, 0, 1, 0, Bound::Exact, false, None);
        }
        let faults = thread_faults().unwrap() - before;
        // Left to the first touch, each of the 4,096 pages would be faulted once or twice.
        assert!(
            faults < pages / 16,
            "{faults} page faults over {pages} pages"
        );
        assert!(table.probe(1, 0).is_some());
    }

    #[test]
    fn a_full_bucket_keeps_the_deeper_entry_of_the_current_search() {
        let t = Table::new(0); // a single bucket: every hash collides
        t.store(1, 0, 9, 1, Bound::Exact, false, None);
        t.store(2, 0, 2, 2, Bound::Exact, false, None);
        t.store(3, 0, 5, 3, Bound::Exact, false, None);
        assert!(t.probe(1, 0).is_some(), "the deepest entry survives");
        assert!(t.probe(2, 0).is_none(), "the shallowest is replaced");
        assert!(t.probe(3, 0).is_some());
        // In a later search, old entries give way even when deeper.
        for _ in 0..4 {
            t.new_search();
        }
        t.store(4, 0, 1, 4, Bound::Exact, false, None);
        t.store(5, 0, 1, 5, Bound::Exact, false, None);
        assert!(t.probe(4, 0).is_some() && t.probe(5, 0).is_some());
    }
}
