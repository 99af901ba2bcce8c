//! Grounding: every instance of every rule that can ever matter, found by the reasoner
//! itself on a relaxed copy of the rules.
//!
//! The relaxed rules drop every negative literal, read `true` as "any fluent that `init`
//! or `next` can give" and `does` as "any move `legal` can give". Their least model
//! holds every atom the real rules can derive in any reachable state, so its finite
//! tables are the domains of the circuit. Each rule `i` also gets a relation
//! `inst_i(vars…)` whose body is the relaxed body: its facts are the variable bindings of
//! the rule's instances. The reasoner computes all of it once, as fixed relations.
//! Relations computed only where asked for (see [`demand`]) are grounded only where some
//! state may ask for them, and computed there by their rules as written.

use std::time::Instant;

use super::super::demand;
use super::super::error::GdlError;
use super::super::plan::RelId;
use super::super::prover::Program;
use super::super::rules::{Literal, RAtom, RTerm, Rule};
use super::super::term::{Store, SymId, Symbols, TermId, TermTable};

/// Most literal instances (body literals plus heads) the grounding may produce before
/// the network is given up as too large to build. Most are folded away: 8×8 checkers
/// grounds to more than 2 million and optimises to 8,128 gates. The start clock's
/// deadline bounds the time it takes.
pub(super) const MAX_GROUND_LITERALS: usize = 16_000_000;

/// The game's symbols the grounding looks for.
#[derive(Clone, Copy)]
pub(super) struct Names {
    pub truth: SymId,
    pub does: SymId,
    pub init: SymId,
    pub next: SymId,
    pub legal: SymId,
    pub goal: SymId,
    pub terminal: SymId,
}

impl Names {
    fn of(symbols: &mut Symbols) -> Names {
        Names {
            truth: symbols.intern("true"),
            does: symbols.intern("does"),
            init: symbols.intern("init"),
            next: symbols.intern("next"),
            legal: symbols.intern("legal"),
            goal: symbols.intern("goal"),
            terminal: symbols.intern("terminal"),
        }
    }
}

/// The ground instances of the game's rules.
pub(super) struct Grounding {
    /// Every ground term met, atoms included (an atom is the term `(relation args…)`).
    pub terms: TermTable,
    pub names: Names,
    /// The game's rules (after `or` is multiplied out).
    pub rules: Vec<Rule>,
    /// Per rule: its instances' bindings, `rules[i].vars` ids each.
    pub bindings: Vec<Vec<TermId>>,
    /// Per rule: how many instances it has.
    pub instances: Vec<usize>,
    /// The fluents some reachable state may hold.
    pub fluents: Vec<TermId>,
    /// The (role, move) pairs some role may play.
    pub moves: Vec<(TermId, TermId)>,
    /// The (role, value) pairs some state may give.
    pub goals: Vec<(TermId, TermId)>,
}

/// Grounds `rules` (read with `symbols`, the game program's own), by `deadline` if given.
pub(super) fn ground(
    rules: Vec<Rule>,
    mut symbols: Symbols,
    deadline: Option<Instant>,
) -> Result<Grounding, String> {
    let names = Names::of(&mut symbols);
    let any_true = symbols.intern(" true");
    let any_does = symbols.intern(" does");
    let relax = |a: &RAtom| -> RAtom {
        let pred = if a.pred == names.truth && a.args.len() == 1 {
            any_true
        } else if a.pred == names.does && a.args.len() == 2 {
            any_does
        } else {
            a.pred
        };
        RAtom {
            pred,
            args: a.args.clone(),
        }
    };
    let mut relaxed = Vec::with_capacity(rules.len() * 2 + 3);
    let mut inst_preds = Vec::with_capacity(rules.len());
    for (i, r) in rules.iter().enumerate() {
        let body: Vec<Literal> = r
            .body
            .iter()
            .filter_map(|l| match l {
                Literal::Pos(a) => Some(Literal::Pos(relax(a))),
                Literal::Neg(_) => None,
                other => Some(other.clone()),
            })
            .collect();
        let inst = symbols.intern(&format!(" inst{i}"));
        inst_preds.push(inst);
        relaxed.push(Rule {
            head: r.head.clone(),
            body: body.clone(),
            vars: r.vars,
            text: r.text.clone(),
        });
        if demand::is_asking(&symbols, r.head.pred) {
            // Not in the circuit: its instances are not needed.
            continue;
        }
        relaxed.push(Rule {
            head: RAtom {
                pred: inst,
                args: (0..r.vars).map(RTerm::Var).collect(),
            },
            body,
            vars: r.vars,
            text: r.text.clone(),
        });
    }
    let link = |head: SymId, from: SymId, arity: u32| Rule {
        head: RAtom {
            pred: head,
            args: (0..arity).map(RTerm::Var).collect(),
        },
        body: vec![Literal::Pos(RAtom {
            pred: from,
            args: (0..arity).map(RTerm::Var).collect(),
        })],
        vars: arity,
        text: String::from("(relaxed true/does)"),
    };
    relaxed.push(link(any_true, names.init, 1));
    relaxed.push(link(any_true, names.next, 1));
    relaxed.push(link(any_does, names.legal, 2));

    let mut prog = Program::from_rules(relaxed, symbols, deadline)
        .map_err(|e: GdlError| format!("the rules cannot be grounded: {e}"))?;
    let rows = |prog: &Program, pred: SymId, arity: usize| -> Vec<Vec<TermId>> {
        prog.relation(pred, arity)
            .map(|r: RelId| prog.fixed(r).iter().map(<[TermId]>::to_vec).collect())
            .unwrap_or_default()
    };
    let mut bindings = Vec::with_capacity(rules.len());
    let mut instances = Vec::with_capacity(rules.len());
    let mut literals = 0usize;
    // What a relation is asked for ([`demand`]) limits its instances to those some state
    // may ask for; the circuit then computes each instance by its rules as written, so
    // the asking relations themselves, and the rules' reading of them, are left out.
    let asking = |a: &RAtom| demand::is_asking(&prog.symbols, a.pred);
    let mut rules = rules;
    for (r, &pred) in rules.iter_mut().zip(&inst_preds) {
        let found = if asking(&r.head) {
            Vec::new()
        } else {
            rows(&prog, pred, r.vars as usize)
        };
        r.body
            .retain(|l| !matches!(l, Literal::Pos(a) if asking(a)));
        literals = literals.saturating_add(found.len().saturating_mul(r.body.len() + 1));
        if literals > MAX_GROUND_LITERALS {
            return Err(format!(
                "grounding the rules gives more than {MAX_GROUND_LITERALS} literal instances"
            ));
        }
        instances.push(found.len());
        bindings.push(found.concat());
    }
    let pairs = |rows: Vec<Vec<TermId>>| rows.into_iter().map(|r| (r[0], r[1])).collect();
    let fluents = rows(&prog, any_true, 1).into_iter().map(|r| r[0]).collect();
    let moves = pairs(rows(&prog, any_does, 2));
    let goals = pairs(rows(&prog, names.goal, 2));
    Ok(Grounding {
        terms: std::mem::take(&mut prog.terms),
        names,
        rules,
        bindings,
        instances,
        fluents,
        moves,
        goals,
    })
}

impl Grounding {
    /// The atom `(pred args…)` (the symbol `pred` when there are no arguments).
    pub fn atom(&mut self, pred: SymId, args: &[TermId]) -> TermId {
        if args.is_empty() {
            pred
        } else {
            self.terms.intern(pred, args)
        }
    }

    /// `t` with the variables of `binding` put in.
    pub fn instantiate(terms: &mut TermTable, t: &RTerm, binding: &[TermId]) -> TermId {
        match t {
            RTerm::Var(v) => binding[*v as usize],
            RTerm::Sym(s) => *s,
            RTerm::App(f, args) => {
                let ids: Vec<TermId> = args
                    .iter()
                    .map(|a| Grounding::instantiate(terms, a, binding))
                    .collect();
                terms.intern(*f, &ids)
            }
        }
    }

    /// The ground atom of `a` under `binding`.
    pub fn atom_of(&mut self, a: &RAtom, binding: &[TermId]) -> TermId {
        let args: Vec<TermId> = a
            .args
            .iter()
            .map(|t| Grounding::instantiate(&mut self.terms, t, binding))
            .collect();
        self.atom(a.pred, &args)
    }
}
