//! Head variables that nothing in their rule's body binds.
//!
//! GDL asks every variable of a rule to occur in a positive literal of its body (a "safe"
//! rule). Some published games break that in their heads and mean "for any value":
//! `(<= (sum ?x 0 ?x) (succ 0 1))` (ggp-base's attrition war and Colonel Blotto),
//! `(<= (goal ?p 0) (not (true (gameover))))`. Provers that read rules top-down, as most
//! GGP systems do, play such games: the query binds the variable. A bottom-up reasoner
//! needs values to range over. Where the relation is computed only for what is asked of
//! it ([`super::demand`], which rewrites such relations even when they do not depend on
//! the state), the asking binds the variable, as the query does top-down. A variable left
//! free is bound here by a literal added to the body: over the roles where it stands for
//! one (the first argument of `legal` or `goal`), else over every ground term written in
//! the rules (their constants and ground compound terms). The values a query passes come
//! from the rules' terms, so every answer it can reach is derived; a compound term the
//! rules only build (from variables) is outside that range, which no published game
//! needs. The parser still refuses a variable no question binds: one that occurs only in
//! a negation or a `distinct`, and one in the head of a keyword other than the role of
//! `legal` and `goal` (the models ask for every move, value and fluent).

use std::collections::HashSet;

use super::rules::{Literal, RAtom, RTerm, Rule};
use super::term::{SymId, Symbols};

/// The relation of every ground term written in the rules (a space: no GDL symbol
/// starts with one).
const TERMS: &str = " term";

/// The relations with a rule whose head has a variable that nothing in its body binds.
pub(super) fn with_free_head_variables(rules: &[Rule]) -> HashSet<(SymId, usize)> {
    rules
        .iter()
        .filter(|r| !free_head_variables(r).is_empty())
        .map(|r| (r.head.pred, r.head.args.len()))
        .collect()
}

/// `rules` with each head variable that no positive literal of its body binds bound by
/// `role` or by the relation of the rules' ground terms (whose facts are added when
/// needed), and how many rules range over those terms. The parser has refused every
/// other unsafe variable.
pub(super) fn bind_head_variables(
    mut rules: Vec<Rule>,
    symbols: &mut Symbols,
) -> (Vec<Rule>, usize) {
    let role = symbols.intern("role");
    let legal = symbols.intern("legal");
    let goal = symbols.intern("goal");
    let terms = symbols.intern(TERMS);
    let mut bound_rules = 0;
    let mut by_terms = 0;
    for rule in &mut rules {
        let free = free_head_variables(rule);
        if free.is_empty() {
            continue;
        }
        bound_rules += 1;
        let names_role = |v: u32| {
            (rule.head.pred == legal || rule.head.pred == goal)
                && rule.head.args.len() == 2
                && rule.head.args[0] == RTerm::Var(v)
        };
        let range: Vec<Literal> = free
            .iter()
            .map(|&v| {
                let pred = if names_role(v) { role } else { terms };
                Literal::Pos(RAtom {
                    pred,
                    args: vec![RTerm::Var(v)],
                })
            })
            .collect();
        let over_terms = range
            .iter()
            .any(|l| matches!(l, Literal::Pos(a) if a.pred == terms));
        by_terms += usize::from(over_terms);
        tracing::debug!(
            "{}: a head variable nothing in the body binds ranges over {}",
            rule.text,
            if over_terms {
                "the rules' ground terms"
            } else {
                "the roles"
            }
        );
        rule.body.extend(range);
    }
    if bound_rules > 0 {
        tracing::debug!(
            "{bound_rules} rules have a head variable that nothing in their body binds \
             (unsafe in GDL's letter): it ranges over the roles or the rules' ground terms"
        );
    }
    if by_terms > 0 {
        let mut ground = Vec::new();
        for rule in &rules {
            ground_terms_of(&rule.head, &mut ground);
            for lit in &rule.body {
                match lit {
                    Literal::Pos(a) | Literal::Neg(a) => ground_terms_of(a, &mut ground),
                    Literal::Distinct(a, b) | Literal::Same(a, b) => {
                        collect_ground(a, &mut ground);
                        collect_ground(b, &mut ground);
                    }
                }
            }
        }
        let mut seen = HashSet::new();
        ground.retain(|t| seen.insert(t.clone()));
        rules.extend(ground.into_iter().map(|t| Rule {
            head: RAtom {
                pred: terms,
                args: vec![t],
            },
            body: Vec::new(),
            vars: 0,
            text: String::from("(a ground term of the rules)"),
        }));
    }
    (rules, by_terms)
}

/// The head variables of `rule` that no positive literal of its body binds.
fn free_head_variables(rule: &Rule) -> Vec<u32> {
    let mut positive = Vec::new();
    for lit in &rule.body {
        if let Literal::Pos(a) = lit {
            a.collect_vars(&mut positive);
        }
    }
    let mut head = Vec::new();
    rule.head.collect_vars(&mut head);
    let mut free: Vec<u32> = head.into_iter().filter(|v| !positive.contains(v)).collect();
    free.sort_unstable();
    free.dedup();
    free
}

fn ground_terms_of(a: &RAtom, out: &mut Vec<RTerm>) {
    a.args.iter().for_each(|t| collect_ground(t, out));
}

/// Pushes `t` if it is ground, and every ground term inside it.
fn collect_ground(t: &RTerm, out: &mut Vec<RTerm>) {
    match t {
        RTerm::Var(_) => {}
        RTerm::Sym(_) => out.push(t.clone()),
        RTerm::App(_, args) => {
            args.iter().for_each(|a| collect_ground(a, out));
            let mut vars = Vec::new();
            t.collect_vars(&mut vars);
            if vars.is_empty() {
                out.push(t.clone());
            }
        }
    }
}
