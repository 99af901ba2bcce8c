//! Relations negated inside their own recursion, split by the constants of their heads.
//!
//! The GDL specification asks for rules stratified over relation names: no relation may
//! depend on its own negation. Some published games break that letter while meaning
//! something well founded, e.g. a draw as "neither a win nor a loss":
//! `(<= (goal ?r 50) (role ?r) (not (goal ?r 100)) (not (goal ?r 0)))`. No ground atom
//! there depends on its own negation, and provers that read such rules top-down (as most
//! GGP systems do) play the game. Here such a relation is split into one relation per
//! distinct pattern of constant arguments in its heads (`goal ?r 100`, `goal ?r 0`,
//! `goal ?r 50`), a literal reads every part it can match, and the relation itself is
//! the union of its parts. When the split rules are stratified the game is accepted; when
//! they are not (`(<= (p 1) (not (p 2)))` with `(<= (p 2) (not (p 1)))`), the compiler
//! refuses them as before.

use super::error::GdlError;
use super::hash::FastMap;
use super::rules::{Literal, MAX_ALTERNATIVES, RAtom, RTerm, Rule, parse_rules};
use super::strata::{Dependencies, Strata};
use super::term::{SymId, Symbols};
use crate::sexpr::Sexpr;

/// A relation: its name and arity.
type Rel = (SymId, usize);

/// A head's constant arguments (`None` where it has a variable or a compound term).
type Pattern = Vec<Option<SymId>>;

fn pattern(a: &RAtom) -> Pattern {
    a.args
        .iter()
        .map(|t| match t {
            RTerm::Sym(s) => Some(*s),
            _ => None,
        })
        .collect()
}

/// Whether an atom with arguments `args` can be an instance of a head of pattern `p`.
fn may_match(p: &Pattern, args: &[RTerm]) -> bool {
    p.iter().zip(args).all(|(c, t)| match (c, t) {
        (Some(c), RTerm::Sym(s)) => c == s,
        (Some(_), RTerm::App(..)) => false,
        _ => true,
    })
}

/// The relations that are negated inside their own recursion.
fn negated_in_own_recursion(rules: &[Rule]) -> Vec<Rel> {
    let mut deps = Dependencies::default();
    deps.add_rules(rules);
    let strata = Strata::of(&deps.graph());
    let bad: Vec<usize> = deps
        .negated_within(&strata)
        .map(|(i, _)| strata.comp_of[deps.heads[i] as usize])
        .collect();
    (0..deps.rels.len())
        .filter(|&r| bad.contains(&strata.comp_of[r]))
        .map(|r| deps.rels[r])
        .collect()
}

/// Reads every fact and rule ([`parse_rules`]), with the relations negated inside their
/// own recursion split, as both models need them.
pub(crate) fn read_rules(items: &[Sexpr], symbols: &mut Symbols) -> Result<Vec<Rule>, GdlError> {
    let rules = parse_rules(items, symbols)?;
    Ok(split_negated_recursion(rules, symbols))
}

/// `rules` with every relation negated inside its own recursion split by its heads'
/// constants (the rules unchanged when there is none, or no split would help).
pub(super) fn split_negated_recursion(rules: Vec<Rule>, symbols: &mut Symbols) -> Vec<Rule> {
    let bad = negated_in_own_recursion(&rules);
    if bad.is_empty() {
        return rules;
    }
    // Per relation to split: its head patterns and the name of each part.
    let mut parts: FastMap<Rel, Vec<(Pattern, SymId)>> = FastMap::default();
    for r in &rules {
        let rel = (r.head.pred, r.head.args.len());
        if !bad.contains(&rel) {
            continue;
        }
        let p = pattern(&r.head);
        let known = parts.entry(rel).or_default();
        if !known.iter().any(|(q, _)| *q == p) {
            let name = format!(" {} part {}", symbols.name(rel.0), known.len());
            known.push((p, symbols.intern(&name)));
        }
    }
    parts.retain(|_, ps| ps.len() > 1);
    if parts.is_empty() {
        return rules;
    }
    let part_of =
        |a: &RAtom| -> Option<&Vec<(Pattern, SymId)>> { parts.get(&(a.pred, a.args.len())) };
    let mut out = Vec::with_capacity(rules.len() * 2);
    for r in &rules {
        let head = match part_of(&r.head) {
            Some(ps) => {
                let p = pattern(&r.head);
                let Some(&(_, name)) = ps.iter().find(|(q, _)| *q == p) else {
                    continue;
                };
                RAtom {
                    pred: name,
                    args: r.head.args.clone(),
                }
            }
            None => r.head.clone(),
        };
        // Each body literal becomes one of several alternatives (a positive literal of a
        // split relation: any part it may match) or several literals (a negative one:
        // none of them holds).
        let mut bodies: Vec<Vec<Literal>> = vec![Vec::new()];
        for lit in &r.body {
            let (atom, positive) = match lit {
                Literal::Pos(a) => (a, true),
                Literal::Neg(a) => (a, false),
                other => {
                    bodies.iter_mut().for_each(|b| b.push(other.clone()));
                    continue;
                }
            };
            let Some(ps) = part_of(atom) else {
                bodies.iter_mut().for_each(|b| b.push(lit.clone()));
                continue;
            };
            let matching: Vec<RAtom> = ps
                .iter()
                .filter(|(p, _)| may_match(p, &atom.args))
                .map(|&(_, name)| RAtom {
                    pred: name,
                    args: atom.args.clone(),
                })
                .collect();
            if !positive {
                for b in &mut bodies {
                    b.extend(matching.iter().cloned().map(Literal::Neg));
                }
                continue;
            }
            if bodies.len() * matching.len() > MAX_ALTERNATIVES {
                // Too many to write out: leave the rules as they are, to be refused.
                return rules;
            }
            bodies = bodies
                .iter()
                .flat_map(|b| {
                    matching.iter().map(move |m| {
                        let mut b = b.clone();
                        b.push(Literal::Pos(m.clone()));
                        b
                    })
                })
                .collect();
        }
        out.extend(bodies.into_iter().map(|body| Rule {
            head: head.clone(),
            body,
            vars: r.vars,
            text: r.text.clone(),
        }));
    }
    // The relation itself: the union of its parts.
    let mut split: Vec<(&Rel, &Vec<(Pattern, SymId)>)> = parts.iter().collect();
    split.sort_unstable_by_key(|(rel, _)| **rel);
    for (&(pred, arity), ps) in split {
        for &(_, name) in ps {
            let args: Vec<RTerm> = (0..arity as u32).map(RTerm::Var).collect();
            out.push(Rule {
                head: RAtom {
                    pred,
                    args: args.clone(),
                },
                body: vec![Literal::Pos(RAtom { pred: name, args })],
                vars: arity as u32,
                text: format!("({} as the union of its parts)", symbols.name(pred)),
            });
        }
    }
    // Still negated inside its own recursion: refused, naming the relation as written.
    if negated_in_own_recursion(&out).is_empty() {
        out
    } else {
        rules
    }
}
