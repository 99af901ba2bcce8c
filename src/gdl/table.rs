//! Fact tables: the rows of one relation, free of duplicates, with hash indexes.
//!
//! An index looks at a fixed list of places in a row ([`Probe`]s): the term at a path,
//! or the functor and arity of the term at a path. A literal such as
//! `(true (cell ?x ?y white))` with `?x` bound reads the index on
//! [functor of arg 0, arg 0.0, arg 0.2]. Index keys are 64-bit hashes of the probed
//! values; a lookup yields a superset of the matching rows (in the rare case of a hash
//! collision) and the caller unifies each candidate, so collisions cost time, never
//! correctness.

use super::hash::{FastMap, finish, mix};
use super::term::{Store, SymId, TermId};

/// "No row" at the end of a chain.
pub(crate) const NO_ROW: u32 = u32::MAX;

/// A place in a row that an index looks at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Probe {
    /// Argument position, then argument positions inside compound terms.
    pub path: Box<[u32]>,
    /// Look at the functor and arity there rather than at the whole term.
    pub functor: bool,
}

pub(crate) type ProbeList = Box<[Probe]>;

/// The value a functor probe yields for `(functor …)` with `arity` arguments.
#[inline]
pub(crate) fn functor_value(functor: SymId, arity: usize) -> u64 {
    (functor as u64) | (arity as u64) << 32 | 1 << 63
}

/// Hash of a sequence of probed values.
#[inline]
pub(crate) fn key_of(values: impl Iterator<Item = u64>) -> u64 {
    finish(values.fold(KEY_SEED, mix))
}

const KEY_SEED: u64 = 0x51;

fn probe_value<S: Store>(store: &S, row: &[TermId], probe: &Probe) -> Option<u64> {
    let (&first, rest) = probe.path.split_first()?;
    let mut t = *row.get(first as usize)?;
    for &i in rest {
        t = *store.node(t).1.get(i as usize)?;
    }
    Some(if probe.functor {
        let (f, args) = store.node(t);
        functor_value(f, args.len())
    } else {
        t as u64
    })
}

#[derive(Clone, Debug, Default)]
struct Index {
    /// Key → newest row with that key.
    heads: FastMap<u64, u32>,
    /// Per row: the previous row with the same key, or `NO_ROW`.
    next: Vec<u32>,
}

impl Index {
    /// Adds row number `r` (the newest row) to the index.
    fn link<S: Store>(&mut self, probes: &[Probe], row: &[TermId], r: u32, store: &S) {
        debug_assert_eq!(self.next.len(), r as usize);
        let mut hash = KEY_SEED;
        for p in probes {
            match probe_value(store, row, p) {
                Some(v) => hash = mix(hash, v),
                None => {
                    self.next.push(NO_ROW);
                    return;
                }
            }
        }
        let prev = self.heads.insert(finish(hash), r);
        self.next.push(prev.unwrap_or(NO_ROW));
    }
}

/// The facts of one relation, in the order they were found.
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    arity: usize,
    rows: Vec<TermId>,
    len: u32,
    /// Row hash → newest row with that hash; `dedup_next` chains the older ones.
    dedup: FastMap<u64, u32>,
    dedup_next: Vec<u32>,
    indexes: Vec<Index>,
}

impl Table {
    pub fn new(arity: usize, indexes: usize) -> Table {
        Table {
            arity,
            indexes: vec![Index::default(); indexes],
            ..Table::default()
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn arity(&self) -> usize {
        self.arity
    }

    /// Replaces the indexes by those given by `probes`, for the rows already present.
    pub fn reindex<S: Store>(&mut self, probes: &[ProbeList], store: &S) {
        self.indexes = vec![Index::default(); probes.len()];
        for (index, probes) in self.indexes.iter_mut().zip(probes) {
            for r in 0..self.len {
                let start = r as usize * self.arity;
                index.link(probes, &self.rows[start..start + self.arity], r, store);
            }
        }
    }

    /// Empties the table, keeping its memory for reuse.
    pub fn clear(&mut self) {
        self.rows.clear();
        self.len = 0;
        self.dedup.clear();
        self.dedup_next.clear();
        for ix in &mut self.indexes {
            ix.heads.clear();
            ix.next.clear();
        }
    }

    #[inline]
    pub fn row(&self, r: u32) -> &[TermId] {
        let start = r as usize * self.arity;
        &self.rows[start..start + self.arity]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[TermId]> {
        (0..self.len).map(|r| self.row(r))
    }

    /// Whether the table holds `row`.
    pub fn contains(&self, row: &[TermId]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        if self.arity == 0 {
            self.len > 0
        } else {
            self.find(row, key_of(row.iter().map(|&t| t as u64)))
        }
    }

    fn find(&self, row: &[TermId], hash: u64) -> bool {
        let mut r = match self.dedup.get(&hash) {
            Some(&r) => r,
            None => return false,
        };
        while r != NO_ROW {
            if self.row(r) == row {
                return true;
            }
            r = self.dedup_next[r as usize];
        }
        false
    }

    /// Adds `row` unless it is already present; `probes` are the relation's indexes.
    /// Returns whether the row was new.
    pub fn insert<S: Store>(&mut self, row: &[TermId], probes: &[ProbeList], store: &S) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        if self.arity == 0 {
            if self.len > 0 {
                return false;
            }
        } else {
            let hash = key_of(row.iter().map(|&t| t as u64));
            if self.find(row, hash) {
                return false;
            }
            let prev = self.dedup.insert(hash, self.len);
            self.dedup_next.push(prev.unwrap_or(NO_ROW));
        }
        let r = self.len;
        self.rows.extend_from_slice(row);
        self.len += 1;
        for (index, probes) in self.indexes.iter_mut().zip(probes) {
            index.link(probes, row, r, store);
        }
        true
    }

    /// The newest row whose probed values hash to `key` in index `index`, or `NO_ROW`.
    #[inline]
    pub fn first(&self, index: usize, key: u64) -> u32 {
        self.indexes
            .get(index)
            .and_then(|ix| ix.heads.get(&key))
            .copied()
            .unwrap_or(NO_ROW)
    }

    /// The row after `row` in its chain of index `index`, or `NO_ROW`.
    #[inline]
    pub fn next(&self, index: usize, row: u32) -> u32 {
        self.indexes[index].next[row as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gdl::term::TermTable;

    #[test]
    fn rows_are_deduplicated_and_indexed() {
        // Symbols 0..5; term 5 = (0 1 2) ("cell 1 2"), term 6 = (0 3 2).
        let mut terms = TermTable::with_symbols(5);
        let c12 = terms.intern(0, &[1, 2]);
        let c32 = terms.intern(0, &[3, 2]);
        let probes: Vec<ProbeList> = vec![
            vec![
                Probe {
                    path: vec![0].into(),
                    functor: true,
                },
                Probe {
                    path: vec![0, 1].into(),
                    functor: false,
                },
            ]
            .into(),
        ];
        let mut t = Table::new(2, 1);
        assert!(t.insert(&[c12, 4], &probes, &terms));
        assert!(t.insert(&[c32, 4], &probes, &terms));
        assert!(
            t.insert(&[4, 4], &probes, &terms),
            "a symbol is not indexed"
        );
        assert!(!t.insert(&[c12, 4], &probes, &terms));
        assert_eq!(t.len(), 3);
        let key = key_of([functor_value(0, 2), 2].into_iter());
        let mut found = Vec::new();
        let mut r = t.first(0, key);
        while r != NO_ROW {
            found.push(t.row(r).to_vec());
            r = t.next(0, r);
        }
        assert_eq!(found, vec![vec![c32, 4], vec![c12, 4]]);

        let mut z = Table::new(0, 0);
        assert!(z.insert(&[], &[], &terms));
        assert!(!z.insert(&[], &[], &terms));
        assert_eq!(z.len(), 1);
        assert_eq!(z.iter().count(), 1);
    }
}
