//! Join plans: the order in which a rule's literals are matched, and how each reads its
//! table.
//!
//! The planner orders positive literals greedily by their estimated number of matches:
//! a relation of `n` facts whose pattern has `k` leaves (constants and variables), `b` of
//! them bound, is guessed to yield `n^((k-b)/k)` rows (ties keep the rule's own order).
//! A "delta" literal (the one reading only the newest facts in a recursive stratum) goes
//! first. Negations, `distinct` and fully bound positive literals are checked as soon as
//! their variables are bound.

use super::hash::FastMap;
use super::rules::{Literal, RAtom, RTerm, Rule};
use super::table::{Probe, ProbeList, functor_value};
use super::term::{Store as _, SymId, TermId, TermTable};

pub(crate) type RelId = u32;

/// A term pattern: variables are numbered per rule, ground parts are frozen term ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pat {
    Var(u32),
    Const(TermId),
    App(SymId, Box<[Pat]>),
}

/// One value of an index key at query time.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeyPart {
    Const(u64),
    Var(u32),
}

/// How a literal reads its relation.
#[derive(Clone, Debug)]
pub(crate) struct Access {
    pub rel: RelId,
    pub args: Box<[Pat]>,
    /// The index to probe, or `None` to scan every row.
    pub index: Option<usize>,
    pub key: Box<[KeyPart]>,
    /// Variables first bound by this literal.
    pub fresh: Box<[u32]>,
}

#[derive(Clone, Debug)]
pub(crate) enum Step {
    Pos(Access),
    Neg(Access),
    Distinct(Pat, Pat),
    Same(Pat, Pat),
}

#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub head_rel: RelId,
    pub head: Box<[Pat]>,
    pub vars: usize,
    pub steps: Box<[Step]>,
    /// The step that reads only the newest facts of its relation (semi-naive evaluation).
    pub delta: Option<usize>,
}

/// The indexes each relation needs, as lists of probes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Registry {
    pub probes: Vec<Vec<ProbeList>>,
    known: FastMap<(RelId, ProbeList), usize>,
}

impl Registry {
    pub fn new(relations: usize) -> Registry {
        Registry {
            probes: vec![Vec::new(); relations],
            known: FastMap::default(),
        }
    }

    fn index_for(&mut self, rel: RelId, probes: ProbeList) -> usize {
        let list = &mut self.probes[rel as usize];
        *self
            .known
            .entry((rel, probes))
            .or_insert_with_key(|(_, p)| {
                list.push(p.clone());
                list.len() - 1
            })
    }
}

/// A rule term as a pattern; ground parts are interned in `terms`.
pub(crate) fn pattern(t: &RTerm, terms: &mut TermTable) -> Pat {
    match t {
        RTerm::Var(v) => Pat::Var(*v),
        // A symbol's term id is its symbol id.
        RTerm::Sym(s) => Pat::Const(*s),
        RTerm::App(f, args) => {
            let pats: Vec<Pat> = args.iter().map(|a| pattern(a, terms)).collect();
            let ids: Option<Vec<TermId>> = pats
                .iter()
                .map(|p| match p {
                    Pat::Const(c) => Some(*c),
                    _ => None,
                })
                .collect();
            match ids {
                Some(ids) => Pat::Const(terms.intern(*f, &ids)),
                None => Pat::App(*f, pats.into_boxed_slice()),
            }
        }
    }
}

/// Appends the variables of `p` (with repetitions).
fn pat_vars(p: &Pat, out: &mut Vec<u32>) {
    match p {
        Pat::Var(v) => out.push(*v),
        Pat::Const(_) => {}
        Pat::App(_, args) => args.iter().for_each(|a| pat_vars(a, out)),
    }
}

fn dedup(mut vars: Vec<u32>) -> Vec<u32> {
    vars.sort_unstable();
    vars.dedup();
    vars
}

/// A body literal with its patterns.
enum Lit {
    Pos(RelId, Box<[Pat]>),
    Neg(RelId, Box<[Pat]>),
    Distinct(Pat, Pat),
    Same(Pat, Pat),
}

impl Lit {
    fn vars(&self) -> Vec<u32> {
        let mut out = Vec::new();
        match self {
            Lit::Pos(_, args) | Lit::Neg(_, args) => {
                args.iter().for_each(|a| pat_vars(a, &mut out))
            }
            Lit::Distinct(a, b) | Lit::Same(a, b) => {
                pat_vars(a, &mut out);
                pat_vars(b, &mut out);
            }
        }
        dedup(out)
    }
}

fn access(rel: RelId, args: &[Pat], bound: &[bool], registry: &mut Registry) -> Access {
    fn walk(
        p: &Pat,
        path: &mut Vec<u32>,
        bound: &[bool],
        probes: &mut Vec<Probe>,
        key: &mut Vec<KeyPart>,
    ) {
        match p {
            Pat::Const(c) => {
                probes.push(Probe {
                    path: path.clone().into(),
                    functor: false,
                });
                key.push(KeyPart::Const(*c as u64));
            }
            Pat::Var(v) if bound[*v as usize] => {
                probes.push(Probe {
                    path: path.clone().into(),
                    functor: false,
                });
                key.push(KeyPart::Var(*v));
            }
            Pat::Var(_) => {}
            Pat::App(f, kids) => {
                probes.push(Probe {
                    path: path.clone().into(),
                    functor: true,
                });
                key.push(KeyPart::Const(functor_value(*f, kids.len())));
                for (j, k) in kids.iter().enumerate() {
                    path.push(j as u32);
                    walk(k, path, bound, probes, key);
                    path.pop();
                }
            }
        }
    }
    let mut probes = Vec::new();
    let mut key = Vec::new();
    let mut path = Vec::new();
    for (i, a) in args.iter().enumerate() {
        path.push(i as u32);
        walk(a, &mut path, bound, &mut probes, &mut key);
        path.pop();
    }
    let mut fresh = Vec::new();
    for a in args {
        pat_vars(a, &mut fresh);
    }
    let mut fresh = dedup(fresh);
    fresh.retain(|v| !bound[*v as usize]);
    let index = (!probes.is_empty()).then(|| registry.index_for(rel, probes.into_boxed_slice()));
    Access {
        rel,
        args: args.into(),
        index,
        key: key.into_boxed_slice(),
        fresh: fresh.into_boxed_slice(),
    }
}

/// Number of leaves (constants and variables) of a pattern, and how many are bound.
fn leaves(p: &Pat, bound: &[bool]) -> (u32, u32) {
    match p {
        Pat::Const(_) => (1, 1),
        Pat::Var(v) => (1, bound[*v as usize] as u32),
        Pat::App(_, kids) => kids.iter().fold((0, 0), |(t, b), k| {
            let (t2, b2) = leaves(k, bound);
            (t + t2, b + b2)
        }),
    }
}

/// Estimated number of facts a relation has, given the literal's patterns (whose ground
/// parts are terms of the table).
pub(crate) type SizeEstimate<'a> = &'a dyn Fn(RelId, &[Pat], &TermTable) -> f64;

/// Compiles `rule` (whose relations `rel_of` numbers) into a join plan. `delta` is the
/// body position of the positive literal to read only the newest facts of, if any.
pub(crate) fn compile(
    rule: &Rule,
    rel_of: &dyn Fn(&RAtom) -> RelId,
    size: SizeEstimate,
    terms: &mut TermTable,
    registry: &mut Registry,
    delta: Option<usize>,
) -> Plan {
    let pats = |a: &RAtom, terms: &mut TermTable| -> Box<[Pat]> {
        a.args.iter().map(|t| pattern(t, terms)).collect()
    };
    let lits: Vec<Lit> = rule
        .body
        .iter()
        .map(|l| match l {
            Literal::Pos(a) => Lit::Pos(rel_of(a), pats(a, terms)),
            Literal::Neg(a) => Lit::Neg(rel_of(a), pats(a, terms)),
            Literal::Distinct(a, b) => Lit::Distinct(pattern(a, terms), pattern(b, terms)),
            Literal::Same(a, b) => Lit::Same(pattern(a, terms), pattern(b, terms)),
        })
        .collect();
    let vars: Vec<Vec<u32>> = lits.iter().map(Lit::vars).collect();
    let mut bound = vec![false; rule.vars as usize];
    let mut placed = vec![false; lits.len()];
    let mut steps = Vec::with_capacity(lits.len());
    let mut delta_step = None;

    let mut place =
        |i: usize, bound: &mut Vec<bool>, steps: &mut Vec<Step>, registry: &mut Registry| {
            if delta == Some(i) {
                delta_step = Some(steps.len());
            }
            steps.push(match &lits[i] {
                Lit::Pos(rel, args) => Step::Pos(access(*rel, args, bound, registry)),
                Lit::Neg(rel, args) => Step::Neg(access(*rel, args, bound, registry)),
                Lit::Distinct(a, b) => Step::Distinct(a.clone(), b.clone()),
                Lit::Same(a, b) => Step::Same(a.clone(), b.clone()),
            });
            for &v in &vars[i] {
                bound[v as usize] = true;
            }
        };

    if let Some(d) = delta.filter(|&d| matches!(lits.get(d), Some(Lit::Pos(..)))) {
        place(d, &mut bound, &mut steps, registry);
        placed[d] = true;
    }
    loop {
        // Every check whose variables are all bound.
        let mut progress = true;
        while progress {
            progress = false;
            for i in 0..lits.len() {
                if !placed[i] && vars[i].iter().all(|&v| bound[v as usize]) {
                    place(i, &mut bound, &mut steps, registry);
                    placed[i] = true;
                    progress = true;
                }
            }
        }
        let estimate = |i: usize| -> f64 {
            let Lit::Pos(rel, args) = &lits[i] else {
                return f64::INFINITY;
            };
            let (total, fixed) = args.iter().fold((0, 0), |(t, b), a| {
                let (t2, b2) = leaves(a, &bound);
                (t + t2, b + b2)
            });
            if total == 0 {
                return 1.0;
            }
            size(*rel, args, terms)
                .max(1.0)
                .powf((total - fixed) as f64 / total as f64)
        };
        let best = (0..lits.len())
            .filter(|&i| !placed[i] && matches!(lits[i], Lit::Pos(..)))
            .min_by(|&a, &b| estimate(a).total_cmp(&estimate(b)));
        match best {
            Some(i) => {
                place(i, &mut bound, &mut steps, registry);
                placed[i] = true;
            }
            None => break,
        }
    }
    // Safe rules leave nothing behind; place anything left anyway, in order.
    let left: Vec<usize> = (0..lits.len()).filter(|&i| !placed[i]).collect();
    for i in left {
        place(i, &mut bound, &mut steps, registry);
    }
    Plan {
        head_rel: rel_of(&rule.head),
        head: pats(&rule.head, terms),
        vars: rule.vars as usize,
        steps: steps.into_boxed_slice(),
        delta: delta_step,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gdl::rules::parse_rules;
    use crate::gdl::term::Symbols;
    use crate::sexpr::Sexpr;

    #[test]
    fn checks_go_early_and_small_literals_first() {
        let text =
            "(<= (h ?a ?c) (p ?a) (q ?c) (r ?a ?b) (not (s ?a)) (distinct ?b ?c) (t ?b (f ?c 1)))";
        let mut symbols = Symbols::default();
        let rules = parse_rules(&Sexpr::parse_all(text).unwrap(), &mut symbols).unwrap();
        let mut terms = TermTable::with_symbols(symbols.len());
        let mut registry = Registry::new(8);
        let rel_of = |a: &RAtom| a.pred;
        let order_of = |plan: &Plan| -> Vec<String> {
            plan.steps
                .iter()
                .map(|s| match s {
                    Step::Pos(a) => format!("+{}", symbols.name(a.rel)),
                    Step::Neg(a) => format!("-{}", symbols.name(a.rel)),
                    Step::Distinct(..) => "distinct".into(),
                    Step::Same(..) => "same".into(),
                })
                .collect()
        };
        // p has 5 facts, q 50, r 100 (10 per ?a), t 1000 (about 3 per ?b).
        let size = |rel: RelId, _: &[Pat], _: &TermTable| match symbols.name(rel) {
            "p" => 5.0,
            "q" => 50.0,
            "r" => 100.0,
            _ => 1000.0,
        };
        let plan = compile(&rules[0], &rel_of, &size, &mut terms, &mut registry, None);
        let order = order_of(&plan);
        // After p and r, (t ?b (f ?c 1)) with ?b bound (1000^(1/3) = 10) beats (q ?c)
        // (50); then q is only a check.
        assert_eq!(order, ["+p", "-s", "+r", "+t", "+q", "distinct"]);
        let Step::Pos(t) = &plan.steps[3] else {
            panic!()
        };
        assert_eq!(&*t.fresh, &[1], "?c");
        assert_eq!(t.key.len(), 3, "?b, functor f/2, 1");
        let Step::Pos(q) = &plan.steps[4] else {
            panic!()
        };
        assert!(q.fresh.is_empty());
        // With a tiny q: q, then p (5), then r (81^(1/2) = 9) before t (10).
        let size = |rel: RelId, _: &[Pat], _: &TermTable| match symbols.name(rel) {
            "p" => 5.0,
            "q" => 2.0,
            "r" => 81.0,
            _ => 1000.0,
        };
        let plan = compile(&rules[0], &rel_of, &size, &mut terms, &mut registry, None);
        let order = order_of(&plan);
        assert_eq!(order, ["+q", "+p", "-s", "+r", "distinct", "+t"]);
        let delta = compile(
            &rules[0],
            &rel_of,
            &size,
            &mut terms,
            &mut registry,
            Some(1),
        );
        assert_eq!(delta.delta, Some(0));
        assert!(matches!(&delta.steps[0], Step::Pos(a) if symbols.name(a.rel) == "q"));
    }
}
