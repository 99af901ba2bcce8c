//! Relations computed only where they are asked for (the "magic sets" rewriting).
//!
//! The reasoner works bottom-up: each state derives every fact of every relation, whether
//! a query needs it or not. Rules that count with an accumulator defeat that. Published
//! nine men's morris counts the stones by walking the board from a running tally,
//! `(count_loop ?pit ?whites ?blacks ?w ?b)`, which is only ever asked from the first
//! pit with tallies of 0; bottom-up, it is derived from every pit with every pair of
//! tallies, some hundred thousand facts a state, where 24 are needed. The network's
//! grounding, which assumes every fluent at once, finds millions and gives up.
//!
//! So a state-dependent relation that every reading binds in some argument positions
//! (constants, or variables bound by the literals before it, read left to right as
//! written) gets a companion relation of the bindings asked for: each of its rules
//! first requires that its head was asked for, and each reading adds a rule that asks
//! for it, from what the reading's rule has bound by then. The answers to every query
//! are unchanged; only facts nobody asks for are no longer derived.
//!
//! Relations that do not depend on the state are left alone (they are computed once,
//! and asking for them from the state would recompute them each time), unless a rule of
//! theirs has a head variable that only the asking binds ([`super::safety`]); and so are
//! the keywords, which the models read whole. A relation whose rewriting would make a
//! relation depend on its own negation is left as written too.

use std::collections::HashSet;

use super::hash::FastMap;
use super::rules::{Literal, RAtom, RTerm, Rule, is_keyword};
use super::strata::{Dependencies, Strata};
use super::term::{SymId, Symbols};

/// How the name of the relation of what is asked of a relation starts (a space: no GDL
/// symbol does).
const ASKED: &str = " asked ";

/// Whether `pred` names what is asked of a relation.
pub(super) fn is_asking(symbols: &Symbols, pred: SymId) -> bool {
    symbols.name(pred).starts_with(ASKED)
}

/// A relation: its name and arity.
type Rel = (SymId, usize);

/// Per argument position of a relation, whether every reading binds it.
type Adornment = Vec<bool>;

/// Most times the rewriting is tried again, each time without the relations that made
/// the last try unstratified.
const TRIES: usize = 8;

/// `rules` with each relation that is asked for with some arguments bound computed only
/// for the bindings asked for; `None` where there is no such relation. Relations whose
/// rewriting would leave a relation depending on its own negation are left as written.
/// Relations of `forced` are rewritten even where they do not depend on the state (their
/// rules have a head variable only the asking binds, [`super::safety`]).
pub(super) fn restrict_to_demand(
    rules: &[Rule],
    symbols: &mut Symbols,
    forced: &HashSet<Rel>,
) -> Option<Vec<Rule>> {
    let mut excluded = HashSet::new();
    for _ in 0..TRIES {
        let adornments = adornments(rules, symbols, forced, &excluded);
        if adornments.is_empty() {
            return None;
        }
        let mut asked: Vec<(&Rel, &Adornment)> = adornments.iter().collect();
        asked.sort_unstable_by_key(|(rel, _)| **rel);
        let mut names: FastMap<Rel, SymId> = FastMap::default();
        for &(&rel, _) in &asked {
            let name = format!("{ASKED}{}", symbols.name(rel.0));
            names.insert(rel, symbols.intern(&name));
        }
        let out = rewrite(rules, &adornments, &names);
        let unstratified = unstratified(&out, &adornments, &names);
        if unstratified.is_empty() {
            tracing::debug!(
                "computed only where asked for: {}",
                asked
                    .iter()
                    .map(|((pred, _), a)| {
                        let shape: String = a.iter().map(|&b| if b { 'b' } else { 'f' }).collect();
                        format!("{} ({shape})", symbols.name(*pred))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Some(out);
        }
        tracing::debug!(
            "not computed only where asked for, as that would leave a relation depending on \
             its own negation: {}",
            unstratified
                .iter()
                .map(|(pred, _)| symbols.name(*pred))
                .collect::<Vec<_>>()
                .join(", ")
        );
        excluded.extend(unstratified);
    }
    None
}

/// The rules with each relation of `adornments` asked for, under its companion's name in
/// `names`.
fn rewrite(
    rules: &[Rule],
    adornments: &FastMap<Rel, Adornment>,
    names: &FastMap<Rel, SymId>,
) -> Vec<Rule> {
    let demand = Demand { adornments, names };
    let mut out: Vec<Rule> = Vec::with_capacity(rules.len() * 2);
    let mut seen = HashSet::new();
    for rule in rules {
        let asked_head = demand.asked(&rule.head);
        for (site, bound) in demand.sites(rule) {
            let Some(asking) = demand.asking_rule(rule, site, &bound, asked_head.as_ref()) else {
                continue;
            };
            if seen.insert((asking.head.clone(), asking.body.clone())) {
                out.push(asking);
            }
        }
        let mut rewritten = rule.clone();
        if let Some(asked) = asked_head {
            rewritten.body.insert(0, Literal::Pos(asked));
        }
        out.push(rewritten);
    }
    out
}

/// The rewritten relations (of `adornments`, with companions named in `names`) in a
/// stratum of `rules` that negates a relation of its own; none if `rules` are stratified.
fn unstratified(
    rules: &[Rule],
    adornments: &FastMap<Rel, Adornment>,
    names: &FastMap<Rel, SymId>,
) -> Vec<Rel> {
    let mut deps = Dependencies::default();
    deps.add_rules(rules);
    let strata = Strata::of(&deps.graph());
    let asking: FastMap<SymId, Rel> = names.iter().map(|(&rel, &name)| (name, rel)).collect();
    let mut bad: Vec<Rel> = Vec::new();
    for (_, b) in deps.negated_within(&strata) {
        for &member in &strata.comps[strata.comp_of[b as usize]] {
            let (pred, arity) = deps.rels[member as usize];
            let rel = asking.get(&pred).copied().unwrap_or((pred, arity));
            if adornments.contains_key(&rel) && !bad.contains(&rel) {
                bad.push(rel);
            }
        }
    }
    bad.sort_unstable();
    bad
}

/// The relations to rewrite, each with the positions every reading binds (at least
/// one): the greatest such assignment, found by starting from "all bound" and
/// unbinding what some reading leaves free until nothing changes.
fn adornments(
    rules: &[Rule],
    symbols: &Symbols,
    forced: &HashSet<Rel>,
    excluded: &HashSet<Rel>,
) -> FastMap<Rel, Adornment> {
    let mut deps = Dependencies::default();
    deps.add_rules(rules);
    let succ = deps.graph();
    let strata = Strata::of(&succ);
    let mut state_dependent = vec![false; deps.rels.len()];
    for (name, arity) in [("true", 1), ("does", 2)] {
        if let Some(&r) = symbols.get(name).and_then(|s| deps.ids.get(&(s, arity))) {
            state_dependent[r as usize] = true;
        }
    }
    strata.spread(&succ, &mut state_dependent);
    let mut adorn: FastMap<Rel, Adornment> = FastMap::default();
    for &h in &deps.heads {
        let (pred, arity) = deps.rels[h as usize];
        // The keywords are read whole by the models.
        if (state_dependent[h as usize] || forced.contains(&(pred, arity)))
            && arity > 0
            && !is_keyword(symbols.name(pred))
            && !excluded.contains(&(pred, arity))
        {
            adorn.insert((pred, arity), vec![true; arity]);
        }
    }
    loop {
        let demand = Demand {
            adornments: &adorn,
            names: &FastMap::default(),
        };
        let mut next = adorn.clone();
        let mut read = HashSet::new();
        for rule in rules {
            for (site, bound) in demand.sites(rule) {
                let atom = site.atom;
                let rel = (atom.pred, atom.args.len());
                read.insert(rel);
                if let Some(a) = next.get_mut(&rel) {
                    for (slot, arg) in a.iter_mut().zip(&atom.args) {
                        *slot &= is_bound(arg, &bound);
                    }
                }
            }
        }
        // A relation no rule reads is left whole: nothing would ask for any of it.
        next.retain(|rel, a| read.contains(rel) && a.iter().any(|&b| b));
        if next == adorn {
            return adorn;
        }
        adorn = next;
    }
}

/// Where a rewritten relation is read in a rule's body: the literal's place and atom,
/// and whether it is positive (read with what the literals before it bound) or negative
/// (read once the whole body is).
#[derive(Clone, Copy, Debug)]
struct Site<'r> {
    index: usize,
    atom: &'r RAtom,
    positive: bool,
}

/// The relations being rewritten, and the names of their companions.
struct Demand<'a> {
    adornments: &'a FastMap<Rel, Adornment>,
    names: &'a FastMap<Rel, SymId>,
}

impl Demand<'_> {
    fn adornment(&self, a: &RAtom) -> Option<&Adornment> {
        self.adornments.get(&(a.pred, a.args.len()))
    }

    /// The companion atom asking for `a`: its arguments in the bound positions.
    fn asked(&self, a: &RAtom) -> Option<RAtom> {
        let adornment = self.adornment(a)?;
        let pred = *self.names.get(&(a.pred, a.args.len()))?;
        let args = a
            .args
            .iter()
            .zip(adornment)
            .filter(|&(_, &b)| b)
            .map(|(t, _)| t.clone())
            .collect();
        Some(RAtom { pred, args })
    }

    /// The variables bound when the rule's body starts: those of its head's bound
    /// positions, if the head is rewritten.
    fn head_bound(&self, rule: &Rule) -> Vec<bool> {
        let mut bound = vec![false; rule.vars as usize];
        if let Some(adornment) = self.adornment(&rule.head) {
            for (arg, _) in rule.head.args.iter().zip(adornment).filter(|&(_, &b)| b) {
                bind(arg, &mut bound);
            }
        }
        bound
    }

    /// Each reading of a rewritten relation in `rule`'s body, with the variables bound
    /// at it.
    fn sites<'r>(&self, rule: &'r Rule) -> Vec<(Site<'r>, Vec<bool>)> {
        let mut bound = self.head_bound(rule);
        let mut all = bound.clone();
        for lit in &rule.body {
            if let Literal::Pos(a) = lit {
                a.args.iter().for_each(|t| bind(t, &mut all));
            }
        }
        let mut out = Vec::new();
        for (i, lit) in rule.body.iter().enumerate() {
            match lit {
                Literal::Pos(atom) => {
                    if self.adornment(atom).is_some() {
                        let site = Site {
                            index: i,
                            atom,
                            positive: true,
                        };
                        out.push((site, bound.clone()));
                    }
                    atom.args.iter().for_each(|t| bind(t, &mut bound));
                }
                Literal::Neg(atom) if self.adornment(atom).is_some() => {
                    let site = Site {
                        index: i,
                        atom,
                        positive: false,
                    };
                    out.push((site, all.clone()));
                }
                _ => {}
            }
        }
        out
    }

    /// The rule asking for the relation read at `site` of `rule`: its head the bound
    /// arguments there, its body what bound them (the rule's own companion, if asked
    /// for, and the positive literals read before; the `distinct`s among them whose
    /// variables are all bound).
    fn asking_rule(
        &self,
        rule: &Rule,
        site: Site,
        bound: &[bool],
        asked_head: Option<&RAtom>,
    ) -> Option<Rule> {
        let head = self.asked(site.atom)?;
        let before = if site.positive {
            site.index
        } else {
            rule.body.len()
        };
        let mut body: Vec<Literal> = asked_head.cloned().map(Literal::Pos).into_iter().collect();
        for (i, lit) in rule.body[..before].iter().enumerate() {
            let keep = match lit {
                Literal::Pos(_) => i != site.index,
                Literal::Distinct(a, b) | Literal::Same(a, b) => {
                    is_bound(a, bound) && is_bound(b, bound)
                }
                Literal::Neg(_) => false,
            };
            if keep {
                body.push(lit.clone());
            }
        }
        Some(renumbered(Rule {
            head,
            body,
            vars: rule.vars,
            text: format!("(asking for a relation of {})", rule.text),
        }))
    }
}

/// Marks the variables of `t` bound.
fn bind(t: &RTerm, bound: &mut [bool]) {
    let mut vars = Vec::new();
    t.collect_vars(&mut vars);
    vars.into_iter().for_each(|v| bound[v as usize] = true);
}

/// Whether every variable of `t` is bound.
fn is_bound(t: &RTerm, bound: &[bool]) -> bool {
    let mut vars = Vec::new();
    t.collect_vars(&mut vars);
    vars.into_iter().all(|v| bound[v as usize])
}

/// `rule` with its variables numbered `0..` in order of appearance.
fn renumbered(rule: Rule) -> Rule {
    let mut order: Vec<u32> = Vec::new();
    rule.head.collect_vars(&mut order);
    rule.body.iter().for_each(|l| l.collect_vars(&mut order));
    let mut map = vec![u32::MAX; rule.vars as usize];
    let mut next = 0;
    for v in order {
        if map[v as usize] == u32::MAX {
            map[v as usize] = next;
            next += 1;
        }
    }
    let term = |t: &RTerm| renumber_term(t, &map);
    let atom = |a: &RAtom| RAtom {
        pred: a.pred,
        args: a.args.iter().map(term).collect(),
    };
    let body = rule
        .body
        .iter()
        .map(|l| match l {
            Literal::Pos(a) => Literal::Pos(atom(a)),
            Literal::Neg(a) => Literal::Neg(atom(a)),
            Literal::Distinct(a, b) => Literal::Distinct(term(a), term(b)),
            Literal::Same(a, b) => Literal::Same(term(a), term(b)),
        })
        .collect();
    Rule {
        head: atom(&rule.head),
        body,
        vars: next,
        text: rule.text,
    }
}

fn renumber_term(t: &RTerm, map: &[u32]) -> RTerm {
    match t {
        RTerm::Var(v) => RTerm::Var(map[*v as usize]),
        RTerm::Sym(s) => RTerm::Sym(*s),
        RTerm::App(f, args) => RTerm::App(*f, args.iter().map(|a| renumber_term(a, map)).collect()),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::gdl::rules::parse_rules;
    use crate::sexpr::Sexpr;

    /// Whether no relation of `rules` depends on its own negation.
    fn stratified(rules: &[Rule]) -> bool {
        let mut deps = Dependencies::default();
        deps.add_rules(rules);
        let strata = Strata::of(&deps.graph());
        deps.negated_within(&strata).next().is_none()
    }

    /// Two players fill a ring of `pits` with stones; the stones are counted the way
    /// published nine men's morris counts them, by walking the pits from a running tally
    /// (tallies up to `most`), and whoever has more wins. A pit between a white and a
    /// black stone is blocked.
    pub fn tally_game(pits: usize, most: usize) -> String {
        let mut g = String::from(
            "(role white) (role black) (init (control white)) (init (step 0))
            (<= (legal ?p (place ?c)) (true (control ?p)) (true (cell ?c empty))
                (not (blocked ?c)))
            (<= (legal ?p pass) (true (control ?p)))
            (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
            (<= (blocked ?c) (neighbour ?c ?d) (neighbour ?c ?e) (true (cell ?d white))
                (true (cell ?e black)))
            (<= (neighbour ?x ?y) (follows ?x ?y))
            (<= (neighbour ?x ?y) (follows ?y ?x))
            (<= (placed ?c) (does ?p (place ?c)))
            (<= (next (cell ?c ?p)) (does ?p (place ?c)))
            (<= (next (cell ?c ?x)) (true (cell ?c ?x)) (not (placed ?c)))
            (<= (next (control black)) (true (control white)))
            (<= (next (control white)) (true (control black)))
            (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
            (<= (count ?w ?b) (tally 1 0 0 ?w ?b))
            (<= (tally ?c ?w0 ?b0 ?w ?b) (add ?c ?w0 ?b0 ?w1 ?b1) (follows ?c ?d)
                (tally ?d ?w1 ?b1 ?w ?b))
            (<= (add ?c ?w0 ?b ?w ?b) (true (cell ?c white)) (succ ?w0 ?w) (number ?b))
            (<= (add ?c ?w ?b0 ?w ?b) (true (cell ?c black)) (succ ?b0 ?b) (number ?w))
            (<= (add ?c ?w ?b ?w ?b) (true (cell ?c empty)) (number ?w) (number ?b))
            (<= open (true (cell ?c empty)))
            (<= terminal (not open))
            (<= (smaller ?x ?y) (succ ?x ?y))
            (<= (smaller ?x ?z) (succ ?x ?y) (smaller ?y ?z))
            (<= (goal white 100) (count ?w ?b) (smaller ?b ?w))
            (<= (goal white 50) (count ?w ?w))
            (<= (goal white 0) (count ?w ?b) (smaller ?w ?b))
            (<= (goal black 100) (count ?w ?b) (smaller ?w ?b))
            (<= (goal black 50) (count ?w ?w))
            (<= (goal black 0) (count ?w ?b) (smaller ?b ?w))
            ",
        );
        g += &format!("(<= (tally {pits} ?w0 ?b0 ?w ?b) (add {pits} ?w0 ?b0 ?w ?b))\n");
        for c in 1..=pits {
            g += &format!("(init (cell {c} empty)) ");
            if c < pits {
                g += &format!("(follows {c} {}) ", c + 1);
            }
        }
        g += &format!("(neighbour {pits} 1) (neighbour 1 {pits})\n");
        for n in 0..=most {
            g += &format!("(number {n}) ");
            if n < most {
                g += &format!("(succ {n} {}) ", n + 1);
            }
        }
        g + &format!("(<= terminal (true (step {pits})))\n")
    }

    fn rewritten(text: &str) -> (Option<Vec<Rule>>, Symbols) {
        let mut symbols = Symbols::default();
        let rules = parse_rules(&Sexpr::parse_all(text).unwrap(), &mut symbols).unwrap();
        (
            restrict_to_demand(&rules, &mut symbols, &HashSet::new()),
            symbols,
        )
    }

    /// The relations whose rules ask first whether they are asked for.
    fn restricted(rules: &[Rule], symbols: &Symbols) -> Vec<String> {
        let mut names: Vec<String> = rules
            .iter()
            .filter(|r| {
                matches!(r.body.first(), Some(Literal::Pos(a))
                    if symbols.name(a.pred).starts_with(" asked "))
                    && !symbols.name(r.head.pred).starts_with(" asked ")
            })
            .map(|r| symbols.name(r.head.pred).to_owned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    #[test]
    fn relations_read_with_bound_arguments_are_asked_for() {
        let (rules, symbols) = rewritten(&tally_game(6, 12));
        let rules = rules.expect("rewritten");
        // Not `count` (read with nothing bound), nor the fixed `smaller`, `neighbour` and
        // `follows`, nor any keyword; `placed` is read from `next` with its pit bound.
        assert_eq!(
            restricted(&rules, &symbols),
            ["add", "blocked", "placed", "tally"]
        );
        // The walk starts at the first pit with both tallies at 0, and asks for the
        // pits that follow with the tallies found so far.
        let asking: Vec<String> = rules
            .iter()
            .filter(|r| symbols.name(r.head.pred) == " asked tally")
            .map(|r| format!("{} {:?}", r.body.len(), r.head.args.len()))
            .collect();
        assert_eq!(asking, ["0 3", "3 3"], "a fact and the recursive ask");
    }

    #[test]
    fn relations_that_would_leave_the_rules_unstratified_are_left_as_written() {
        // `q` negates `p`, which does not depend on `q`; but asked for from `q`'s
        // recursion, `p` would, and `q` would depend on its own negation. `w` is asked
        // for all the same.
        let text = "(role r) (init (s 1)) (<= (q ?x) (true (s ?x)))
            (<= (q ?y) (q ?x) (succ ?x ?y) (not (p ?y)))
            (<= (p ?x) (true (t ?x)))
            (<= (w ?x) (true (s ?x)))
            (succ 1 2) (succ 2 3)
            (<= (legal r a) (q 3)) (<= (legal r b) (w 2)) (<= (next (s 1)) (true (s 1)))
            (<= terminal (q 2)) (<= (goal r 100) (q 1))";
        let mut symbols = Symbols::default();
        let rules = parse_rules(&Sexpr::parse_all(text).unwrap(), &mut symbols).unwrap();
        assert!(stratified(&rules));
        let none = HashSet::new();
        let first = adornments(&rules, &symbols, &none, &none);
        assert!(first.contains_key(&(symbols.get("p").unwrap(), 1)));
        let (kept, symbols) = rewritten(text);
        let kept = kept.expect("w is rewritten");
        assert!(stratified(&kept));
        assert_eq!(restricted(&kept, &symbols), ["w"]);
    }
}
