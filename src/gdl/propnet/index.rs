//! The network's fluents and moves looked up by their terms, read for every fluent of
//! every state a tree search hands over: by the term's id where it has one (an array
//! read), by hashing otherwise.

use super::super::hash::FastMap;
use super::super::term::Term;

/// Ids past this are hashed rather than given a slot in the array: the array is at most
/// four bytes times this.
const MOST_SLOTS: usize = 1 << 22;

/// None in a slot of `by_id`.
const ABSENT: u32 = u32::MAX;

pub(super) struct TermIndex {
    /// Per term id: the term's number, or [`ABSENT`] (which no term is given).
    by_id: Vec<u32>,
    /// The terms without an id, or with one past [`MOST_SLOTS`].
    others: FastMap<Term, u32>,
}

impl TermIndex {
    /// Gives each term its number.
    pub fn new<'a>(numbered: impl IntoIterator<Item = (&'a Term, u32)>) -> TermIndex {
        let mut index = TermIndex {
            by_id: Vec::new(),
            others: FastMap::default(),
        };
        for (term, number) in numbered {
            match term.known_id().map(|id| id as usize) {
                Some(id) if id < MOST_SLOTS => {
                    if index.by_id.len() <= id {
                        index.by_id.resize(id + 1, ABSENT);
                    }
                    index.by_id[id] = number;
                }
                _ => {
                    index.others.insert(term.clone(), number);
                }
            }
        }
        index
    }

    /// The number of `term`, if it is one of the indexed terms.
    #[inline]
    pub fn get(&self, term: &Term) -> Option<u32> {
        match term.known_id() {
            Some(id) if (id as usize) < MOST_SLOTS => self
                .by_id
                .get(id as usize)
                .copied()
                .filter(|&n| n != ABSENT),
            _ => self.others.get(term).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_found_by_id_or_by_hash_and_others_are_absent() {
        let a = Term::known(3);
        let b = Term::known(7);
        let built = Term::compound(2, vec![Term::known(1), Term::known(9)]);
        let far = Term::known(MOST_SLOTS as u32 + 5);
        let index = TermIndex::new([(&b, 0), (&built, 1), (&a, 20), (&far, 3)]);
        assert_eq!(index.get(&b), Some(0));
        assert_eq!(index.get(&built), Some(1));
        assert_eq!(index.get(&a), Some(20));
        assert_eq!(index.get(&far), Some(3));
        assert_eq!(index.get(&Term::known(5)), None);
        assert_eq!(index.get(&Term::known(100)), None);
        let other = Term::compound(2, vec![Term::known(1), Term::known(8)]);
        assert_eq!(index.get(&other), None);
    }
}
