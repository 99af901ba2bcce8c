//! Symbols and ground terms.
//!
//! GDL is case-insensitive: [`Symbols`] interns names without regard to ASCII case but
//! remembers the first spelling seen, so that moves can be echoed back exactly as the rules
//! spell them. Ground terms are hash-consed into ids ([`TermTable`]): two ids are equal
//! exactly when the terms are, which makes joins and `distinct` cheap comparisons of ids.
//!
//! The table built while the rules are compiled is frozen afterwards; a query that meets a
//! term the table lacks puts it in an [`Overlay`] that lives only as long as the query.
//! The public [`Term`] is the id of a frozen term, or a small tree for the rare term that
//! is not in the frozen table.

use std::sync::Arc;

use super::hash::{FastMap, finish, mix};

pub(crate) type SymId = u32;
pub(crate) type TermId = u32;

/// "No term" in the hash chains.
const NONE: TermId = TermId::MAX;

/// Deepest term nesting the reasoner derives or accepts (a term of depth 0 is a symbol).
/// Real GDL stays far below; the limit keeps runaway rules such as
/// `(<= (nat (s ?x)) (nat ?x))` from growing terms forever.
pub(crate) const MAX_TERM_DEPTH: u32 = 100;

/// Symbol names, interned without regard to ASCII case.
#[derive(Clone, Debug, Default)]
pub(crate) struct Symbols {
    /// The first spelling seen of each symbol.
    names: Vec<Box<str>>,
    /// Lower-case name → id.
    by_key: FastMap<Box<str>, SymId>,
}

impl Symbols {
    pub fn intern(&mut self, name: &str) -> SymId {
        if let Some(id) = self.get(name) {
            return id;
        }
        let id = self.names.len() as SymId;
        self.names.push(name.into());
        self.by_key.insert(name.to_ascii_lowercase().into(), id);
        id
    }

    pub fn get(&self, name: &str) -> Option<SymId> {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            self.by_key.get(name.to_ascii_lowercase().as_str()).copied()
        } else {
            self.by_key.get(name).copied()
        }
    }

    pub fn name(&self, id: SymId) -> &str {
        &self.names[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    functor: SymId,
    /// Arguments are `args[start..start + arity]`; a symbol has arity 0.
    start: u32,
    arity: u32,
    depth: u32,
}

fn key_hash(functor: SymId, args: &[TermId]) -> u64 {
    let mut h = mix(0, functor as u64);
    for &a in args {
        h = mix(h, a as u64);
    }
    finish(h)
}

/// Hash-consed ground terms with ids `offset..offset + len`.
#[derive(Clone, Debug, Default)]
pub(crate) struct TermTable {
    offset: u32,
    nodes: Vec<Node>,
    args: Vec<TermId>,
    /// Hash of (functor, args) → the newest compound with that hash.
    heads: FastMap<u64, TermId>,
    /// Per node: the previous compound with the same hash, or `NONE`.
    chain: Vec<TermId>,
}

impl TermTable {
    /// A table whose first `symbols` ids are the symbols themselves (term id = symbol id).
    pub fn with_symbols(symbols: usize) -> TermTable {
        let mut t = TermTable::default();
        for s in 0..symbols {
            t.nodes.push(Node {
                functor: s as SymId,
                start: 0,
                arity: 0,
                depth: 0,
            });
            t.chain.push(NONE);
        }
        t
    }

    fn with_offset(offset: u32) -> TermTable {
        TermTable {
            offset,
            ..TermTable::default()
        }
    }

    /// One past the largest id in the table.
    pub fn end(&self) -> u32 {
        self.offset + self.nodes.len() as u32
    }

    fn has(&self, id: TermId) -> bool {
        id >= self.offset && id < self.end()
    }

    fn get(&self, id: TermId) -> (SymId, &[TermId]) {
        let n = &self.nodes[(id - self.offset) as usize];
        (
            n.functor,
            &self.args[n.start as usize..(n.start + n.arity) as usize],
        )
    }

    fn depth_of(&self, id: TermId) -> u32 {
        self.nodes[(id - self.offset) as usize].depth
    }

    /// The compound `(functor args…)` if the table has it.
    pub fn find(&self, functor: SymId, args: &[TermId]) -> Option<TermId> {
        let mut id = *self.heads.get(&key_hash(functor, args))?;
        while id != NONE {
            let (f, a) = self.get(id);
            if f == functor && a == args {
                return Some(id);
            }
            id = self.chain[(id - self.offset) as usize];
        }
        None
    }

    /// Adds a compound known to be absent.
    fn insert_new(&mut self, functor: SymId, args: &[TermId], depth: u32) -> TermId {
        let id = self.end();
        let start = self.args.len() as u32;
        self.args.extend_from_slice(args);
        self.nodes.push(Node {
            functor,
            start,
            arity: args.len() as u32,
            depth,
        });
        let prev = self.heads.insert(key_hash(functor, args), id);
        self.chain.push(prev.unwrap_or(NONE));
        id
    }
}

/// Where terms live while rules are evaluated.
pub(crate) trait Store {
    /// Functor and arguments of a term (no arguments for a symbol).
    fn node(&self, id: TermId) -> (SymId, &[TermId]);
    /// Nesting depth: 0 for a symbol.
    fn depth(&self, id: TermId) -> u32;
    /// The id of the compound `(functor args…)`; `args` is not empty.
    fn intern(&mut self, functor: SymId, args: &[TermId]) -> TermId;
    /// Whether `id` names a term of this store.
    fn valid(&self, id: TermId) -> bool;
}

fn depth_over<S: Store + ?Sized>(s: &S, args: &[TermId]) -> u32 {
    1 + args.iter().map(|&a| s.depth(a)).max().unwrap_or(0)
}

impl Store for TermTable {
    #[inline]
    fn node(&self, id: TermId) -> (SymId, &[TermId]) {
        self.get(id)
    }

    #[inline]
    fn depth(&self, id: TermId) -> u32 {
        self.depth_of(id)
    }

    fn intern(&mut self, functor: SymId, args: &[TermId]) -> TermId {
        if let Some(id) = self.find(functor, args) {
            return id;
        }
        let depth = depth_over(self, args);
        self.insert_new(functor, args, depth)
    }

    fn valid(&self, id: TermId) -> bool {
        self.has(id)
    }
}

/// The frozen table plus the terms one query creates.
pub(crate) struct Overlay<'a> {
    base: &'a TermTable,
    local: TermTable,
}

impl<'a> Overlay<'a> {
    pub fn new(base: &'a TermTable) -> Overlay<'a> {
        Overlay {
            base,
            local: TermTable::with_offset(base.end()),
        }
    }
}

impl Store for Overlay<'_> {
    #[inline]
    fn node(&self, id: TermId) -> (SymId, &[TermId]) {
        if id < self.local.offset {
            self.base.get(id)
        } else {
            self.local.get(id)
        }
    }

    #[inline]
    fn depth(&self, id: TermId) -> u32 {
        if id < self.local.offset {
            self.base.depth_of(id)
        } else {
            self.local.depth_of(id)
        }
    }

    fn intern(&mut self, functor: SymId, args: &[TermId]) -> TermId {
        if let Some(id) = self.base.find(functor, args) {
            return id;
        }
        if let Some(id) = self.local.find(functor, args) {
            return id;
        }
        let depth = depth_over(self, args);
        self.local.insert_new(functor, args, depth)
    }

    fn valid(&self, id: TermId) -> bool {
        self.base.has(id) || self.local.has(id)
    }
}

/// A ground term of one [`Gdl`](super::Gdl): roles, moves and fluents.
///
/// Terms are compared, hashed and ordered structurally, but only among terms of the same
/// `Gdl`; print one with [`Gdl::term_to_sexpr`](super::Gdl::term_to_sexpr) or
/// [`Gdl::display`](super::Gdl::display), build one with
/// [`Gdl::term_from_sexpr`](super::Gdl::term_from_sexpr).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Term(Repr);

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum Repr {
    /// A term of the frozen table (every symbol is one).
    Known(TermId),
    /// A compound the frozen table lacks; its arguments follow the same rule.
    Built(Arc<Built>),
}

#[derive(PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
struct Built {
    functor: SymId,
    args: Box<[Term]>,
}

/// A view of a term's top level.
pub(crate) enum Shape<'t> {
    Known(TermId),
    Compound(SymId, &'t [Term]),
}

impl Term {
    pub(crate) fn known(id: TermId) -> Term {
        Term(Repr::Known(id))
    }

    pub(crate) fn compound(functor: SymId, args: Vec<Term>) -> Term {
        Term(Repr::Built(Arc::new(Built {
            functor,
            args: args.into_boxed_slice(),
        })))
    }

    pub(crate) fn shape(&self) -> Shape<'_> {
        match &self.0 {
            Repr::Known(id) => Shape::Known(*id),
            Repr::Built(b) => Shape::Compound(b.functor, &b.args),
        }
    }

    /// The frozen id, if the term has one.
    pub(crate) fn known_id(&self) -> Option<TermId> {
        match self.0 {
            Repr::Known(id) => Some(id),
            Repr::Built(_) => None,
        }
    }
}

/// The public form of a term of `store`; `frozen_end` is the end of the frozen table.
pub(crate) fn export<S: Store>(store: &S, frozen_end: u32, id: TermId) -> Term {
    if id < frozen_end {
        return Term::known(id);
    }
    let (functor, args) = store.node(id);
    let args = args.iter().map(|&a| export(store, frozen_end, a)).collect();
    Term::compound(functor, args)
}

/// The id of `term` in `store`, or `None` if the term cannot belong to this store (a
/// term of another `Gdl`).
pub(crate) fn import<S: Store>(store: &mut S, term: &Term) -> Option<TermId> {
    match term.shape() {
        Shape::Known(id) => store.valid(id).then_some(id),
        Shape::Compound(functor, args) => {
            let mut ids = Vec::with_capacity(args.len());
            for a in args {
                ids.push(import(store, a)?);
            }
            if ids.is_empty() || !store.valid(functor) || store.depth(functor) != 0 {
                return None;
            }
            Some(store.intern(functor, &ids))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_ignore_case_but_keep_first_spelling() {
        let mut s = Symbols::default();
        let a = s.intern("Cell");
        assert_eq!(s.intern("CELL"), a);
        assert_eq!(s.intern("cell"), a);
        assert_eq!(s.name(a), "Cell");
        assert_eq!(s.get("cElL"), Some(a));
        assert_eq!(s.get("cells"), None);
        assert_ne!(s.intern("x"), a);
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn terms_are_hash_consed() {
        let mut t = TermTable::with_symbols(3);
        let f = 0;
        let ab = t.intern(f, &[1, 2]);
        assert_eq!(t.intern(f, &[1, 2]), ab);
        let ba = t.intern(f, &[2, 1]);
        assert_ne!(ab, ba);
        let nested = t.intern(f, &[ab, ba]);
        assert_eq!(t.depth(nested), 2);
        assert_eq!(t.node(nested), (f, &[ab, ba][..]));
        assert_eq!(t.find(f, &[ab, ab]), None);

        let mut o = Overlay::new(&t);
        assert_eq!(o.intern(f, &[1, 2]), ab, "frozen terms keep their ids");
        let new = o.intern(f, &[ab, ab]);
        assert!(new >= t.end());
        assert_eq!(o.intern(f, &[ab, ab]), new);
        let public = export(&o, t.end(), new);
        assert_eq!(public.known_id(), None);
        assert_eq!(export(&o, t.end(), ab), Term::known(ab));
        let mut o2 = Overlay::new(&t);
        let back = import(&mut o2, &public).unwrap();
        assert_eq!(o2.node(back), (f, &[ab, ab][..]));
        assert_eq!(import(&mut o2, &Term::known(9999)), None);
    }
}
