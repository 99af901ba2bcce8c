//! The reasoner: compiles rules into strata of join plans, computes the
//! state-independent relations once, and answers queries about a state bottom-up.
//!
//! Relations are split by what they depend on:
//! - *fixed* relations (`role`, `succ`, `init`, the board geometry…) depend on neither
//!   `true` nor `does`; they are computed once, when the rules are compiled;
//! - *state* relations depend on `true` or `does`; a query loads the state's fluents
//!   as `true` facts (and the joint move as `does` facts), then evaluates, stratum by
//!   stratum, only the strata that the asked relation (`legal`, `next`, `terminal`,
//!   `goal`) depends on.

use std::sync::Mutex;
use std::time::Instant;

use super::demand::{is_asking, restrict_to_demand};
use super::error::GdlError;
use super::eval::{MAX_FACTS, MAX_STEPS, Overflow, Scratch, Stratum, Tables, eval_stratum};
use super::hash::FastMap;
use super::plan::{Pat, Registry, RelId, SizeEstimate, compile};
use super::rules::{Literal, RAtom, Rule};
use super::safety::{bind_head_variables, with_free_head_variables};
use super::split::read_rules;
use super::strata::{Dependencies, Strata};
use super::table::Table;
use super::term::{
    MAX_TERM_DEPTH, Overlay, Store, SymId, Symbols, Term, TermId, TermTable, export, import,
};
use crate::sexpr::Sexpr;

/// The relations a query asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Query {
    Legal = 0,
    Next = 1,
    Terminal = 2,
    Goal = 3,
    /// `legal`, `terminal` and `goal` together.
    All = 4,
}

/// The relations GDL gives a meaning to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keywords {
    pub truth: RelId,
    pub does: RelId,
    pub role: RelId,
    pub init: RelId,
    pub base: RelId,
    pub legal: RelId,
    pub next: RelId,
    pub goal: RelId,
    pub terminal: RelId,
}

/// Joint moves of the walk on which the two ways of compiling a game are compared.
const WALK_PLIES: usize = 4;

#[derive(Debug)]
pub(crate) struct Program {
    pub symbols: Symbols,
    /// The rules compiled (rewritten, where relations are computed only where asked for:
    /// the network grounds these).
    pub rules: Vec<Rule>,
    /// Every term of the rules and of the fixed relations.
    pub terms: TermTable,
    pub kw: Keywords,
    names: Vec<SymId>,
    arity: Vec<usize>,
    /// Per relation: depends on `true` or `does`.
    state_dependent: Vec<bool>,
    registry: Registry,
    /// The state-dependent strata, in evaluation order.
    strata: Vec<Stratum>,
    /// Per [`Query`]: the strata to evaluate, in order.
    needs: [Vec<usize>; 5],
    /// Facts of the fixed relations (empty tables for the others).
    fixed: Vec<Table>,
    /// Workspaces of finished queries, kept so that the next query need not allocate.
    pool: Mutex<Vec<Workspace>>,
}

/// Most idle workspaces kept (one per thread that queries at the same time is enough).
const POOL_LIMIT: usize = 16;

/// The tables and buffers of one query.
#[derive(Debug, Default)]
struct Workspace {
    /// Per relation; only those of the state relations are used.
    tables: Vec<Table>,
    scratch: Scratch,
}

/// The outcome of one query: the tables of the state relations it evaluated.
pub(crate) struct Evaluation<'p> {
    prog: &'p Program,
    pub store: Overlay<'p>,
    /// Join steps taken and facts derived.
    pub work: u64,
    work_space: Workspace,
}

impl Drop for Evaluation<'_> {
    fn drop(&mut self) {
        let mut work = std::mem::take(&mut self.work_space);
        for (t, &dependent) in work.tables.iter_mut().zip(&self.prog.state_dependent) {
            if dependent {
                t.clear();
            }
        }
        if let Ok(mut pool) = self.prog.pool.lock()
            && pool.len() < POOL_LIMIT
        {
            pool.push(work);
        }
    }
}

impl Evaluation<'_> {
    /// The facts of `rel` (fixed or evaluated).
    pub fn table(&self, rel: RelId) -> &Table {
        if self.prog.state_dependent[rel as usize] {
            &self.work_space.tables[rel as usize]
        } else {
            &self.prog.fixed[rel as usize]
        }
    }

    pub fn export(&self, id: TermId) -> Term {
        export(&self.store, self.prog.terms.end(), id)
    }

    /// The integer an atom stands for (goal values).
    pub fn number(&self, id: TermId) -> Option<u32> {
        let (f, args) = self.store.node(id);
        if !args.is_empty() {
            return None;
        }
        self.prog.symbols.name(f).parse().ok()
    }
}

impl Program {
    /// Compiles a game's rules: as written, or with the relations that are asked for
    /// with arguments bound computed only where asked for ([`super::demand`]), whichever
    /// does less work on the first states of a game ([`Program::work_on_a_walk`]).
    pub fn compile(items: &[Sexpr]) -> Result<Program, GdlError> {
        let (written, rewritten) = Program::compile_both(items)?;
        let Some(rewritten) = rewritten else {
            return Ok(written);
        };
        // The rules as written are walked only until they are known to do more: a walk of
        // rules that blow up can take seconds.
        let after = rewritten.work_on_a_walk(u64::MAX);
        let before = written.work_on_a_walk(after.saturating_mul(4) / 3 + 1);
        let chosen = after.saturating_mul(4) < before.saturating_mul(3);
        tracing::debug!(
            before,
            after,
            "relations computed where asked for: {}",
            if chosen { "yes" } else { "no, as written" }
        );
        Ok(if chosen { rewritten } else { written })
    }

    /// The rules compiled as written, and as rewritten where a relation is asked for
    /// with arguments bound (and the rewritten rules compile). Where only the rewriting
    /// binds the head variables the rules leave free ([`super::safety`]), the rules as
    /// written, whose free variables would range over every ground term of the rules,
    /// are not compiled: the rewritten program comes first, alone.
    pub fn compile_both(items: &[Sexpr]) -> Result<(Program, Option<Program>), GdlError> {
        let mut symbols = Symbols::default();
        let rules = read_rules(items, &mut symbols)?;
        let free = with_free_head_variables(&rules);
        if !free.is_empty() {
            tracing::warn!(
                "{} relations have a rule with a head variable that nothing in its body binds \
                 (unsafe by GDL's letter): the variable takes the values asked for, as in \
                 top-down provers",
                free.len()
            );
        }
        let mut asked_symbols = symbols.clone();
        let asked = restrict_to_demand(&rules, &mut asked_symbols, &free)
            .map(|asked| bind_head_variables(asked, &mut asked_symbols));
        let (rules, by_terms) = bind_head_variables(rules, &mut symbols);
        if by_terms > 0
            && let Some((asked, 0)) = &asked
        {
            match Program::from_rules(asked.clone(), asked_symbols.clone(), None) {
                Ok(rewritten) => {
                    tracing::debug!(
                        "relations computed where asked for: yes, they bind the rules' free head variables"
                    );
                    return Ok((rewritten, None));
                }
                Err(e) => tracing::debug!("the rules as rewritten do not compile: {e}"),
            }
        }
        let written = Program::from_rules(rules, symbols, None)?;
        let rewritten = asked.and_then(|(asked, _)| {
            Program::from_rules(asked, asked_symbols, None)
                .inspect_err(|e| tracing::debug!("the rules as rewritten do not compile: {e}"))
                .ok()
        });
        Ok((written, rewritten))
    }

    /// Whether the rules were rewritten to compute relations only where asked for.
    #[cfg(test)]
    pub fn demand(&self) -> bool {
        let asking = |r: &Rule| super::demand::is_asking(&self.symbols, r.head.pred);
        self.rules.iter().any(asking)
    }

    /// The join steps and facts of evaluating the first states of a game: from the
    /// initial state, up to [`WALK_PLIES`] joint moves of each role's first legal move,
    /// every query on each state; the walk stops once the work passes `cap`.
    pub(super) fn work_on_a_walk(&self, cap: u64) -> u64 {
        let mut state: Vec<Term> = self
            .fixed(self.kw.init)
            .iter()
            .map(|row| Term::known(row[0]))
            .collect();
        let roles: Vec<TermId> = self.fixed(self.kw.role).iter().map(|row| row[0]).collect();
        let mut work = 0;
        for _ in 0..WALK_PLIES {
            let within = Some(cap.saturating_sub(work).saturating_add(1));
            let ev = self.evaluate_within(Query::All, &state, &[], within);
            work += ev.work;
            if work > cap || ev.table(self.kw.terminal).len() > 0 {
                break;
            }
            let legal = ev.table(self.kw.legal);
            let joint: Option<Vec<Term>> = roles
                .iter()
                .map(|&r| {
                    legal
                        .iter()
                        .find(|row| row[0] == r)
                        .map(|row| ev.export(row[1]))
                })
                .collect();
            drop(ev);
            let Some(joint) = joint else {
                break;
            };
            let does: Vec<(TermId, &Term)> = roles.iter().copied().zip(&joint).collect();
            let within = Some(cap.saturating_sub(work).saturating_add(1));
            let ev = self.evaluate_within(Query::Next, &state, &does, within);
            work += ev.work;
            state = ev
                .table(self.kw.next)
                .iter()
                .map(|row| ev.export(row[0]))
                .collect();
        }
        work
    }

    /// Compiles rules already read (the propositional network compiles a relaxed copy
    /// of the game's rules this way), its fixed relations computed by `deadline` if given.
    pub fn from_rules(
        rules: Vec<Rule>,
        mut symbols: Symbols,
        deadline: Option<Instant>,
    ) -> Result<Program, GdlError> {
        // Number the relations: (name, arity), the keywords first.
        let mut deps = Dependencies::default();
        let mut keyword = |name: &str, n: usize| deps.relation(symbols.intern(name), n);
        let kw = Keywords {
            truth: keyword("true", 1),
            does: keyword("does", 2),
            role: keyword("role", 1),
            init: keyword("init", 1),
            base: keyword("base", 1),
            legal: keyword("legal", 2),
            next: keyword("next", 1),
            goal: keyword("goal", 2),
            terminal: keyword("terminal", 0),
        };
        deps.add_rules(&rules);

        // Strata: components of the dependency graph, dependencies first.
        let succ = deps.graph();
        let strata = Strata::of(&succ);
        if let Some((i, b)) = deps.negated_within(&strata).next() {
            return Err(GdlError::Unstratified {
                rule: rules[i].text.clone(),
                relation: symbols.name(deps.rels[b as usize].0).to_string(),
            });
        }

        // Which relations depend on the state.
        let mut state_dependent = vec![false; deps.rels.len()];
        state_dependent[kw.truth as usize] = true;
        state_dependent[kw.does as usize] = true;
        strata.spread(&succ, &mut state_dependent);
        let Dependencies {
            ids,
            rels,
            heads: head_rel,
            ..
        } = deps;
        let (names, arity): (Vec<SymId>, Vec<usize>) = rels.into_iter().unzip();
        let Strata { comps, comp_of } = strata;
        let n = names.len();
        let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); comps.len()];
        for (i, &h) in head_rel.iter().enumerate() {
            rules_of[comp_of[h as usize]].push(i);
        }
        for (what, r) in [("role", kw.role), ("init", kw.init)] {
            if state_dependent[r as usize] {
                return Err(GdlError::NotFixed {
                    relation: what.to_string(),
                });
            }
        }

        // Join plans, stratum by stratum: first those of the fixed relations, with sizes
        // guessed from the rules.
        let mut terms = TermTable::with_symbols(symbols.len());
        let mut registry = Registry::new(n);
        let rel_of = |a: &RAtom| ids[&(a.pred, a.args.len())];
        let compile_stratum =
            |c: usize, size: SizeEstimate, terms: &mut TermTable, registry: &mut Registry| {
                let mut s = Stratum {
                    rels: comps[c].clone(),
                    ..Stratum::default()
                };
                for &i in &rules_of[c] {
                    let rule = &rules[i];
                    s.plans
                        .push(compile(rule, &rel_of, size, terms, registry, None));
                    for (pos, lit) in rule.body.iter().enumerate() {
                        if let Literal::Pos(a) = lit
                            && comp_of[rel_of(a) as usize] == c
                        {
                            s.delta_plans.push(compile(
                                rule,
                                &rel_of,
                                size,
                                terms,
                                registry,
                                Some(pos),
                            ));
                        }
                    }
                }
                s
            };
        let mut given = vec![0usize; n];
        let mut derived = vec![false; n];
        for (i, r) in rules.iter().enumerate() {
            if r.body.is_empty() {
                given[head_rel[i] as usize] += 1;
            } else {
                derived[head_rel[i] as usize] = true;
            }
        }
        let rough = |rel: RelId, _: &[Pat], _: &TermTable| -> f64 {
            given[rel as usize] as f64 + if derived[rel as usize] { 100.0 } else { 0.0 }
        };
        let mut all_strata: Vec<Stratum> = vec![Stratum::default(); comps.len()];
        for c in 0..comps.len() {
            if !state_dependent[comps[c][0] as usize] {
                all_strata[c] = compile_stratum(c, &rough, &mut terms, &mut registry);
            }
        }

        // The fixed relations, once and for all.
        let mut fixed: Vec<Table> = (0..n)
            .map(|r| {
                let indexes = if state_dependent[r] {
                    0
                } else {
                    registry.probes[r].len()
                };
                Table::new(arity[r], indexes)
            })
            .collect();
        let all_own = vec![true; n];
        let mut scratch = Scratch::default();
        let mut overflow = Overflow {
            deadline,
            ..Overflow::default()
        };
        let mut facts = 0;
        for (c, s) in all_strata.iter().enumerate() {
            if state_dependent[comps[c][0] as usize] || s.plans.is_empty() {
                continue;
            }
            let mut tables = Tables {
                fixed: &[],
                own: &mut fixed,
                is_own: &all_own,
            };
            eval_stratum(
                s,
                &mut tables,
                &registry,
                &mut terms,
                &mut scratch,
                &mut overflow,
                &mut facts,
            );
            if overflow.late {
                return Err(GdlError::OutOfTime);
            }
            if overflow.facts {
                return Err(GdlError::TooManyFacts {
                    facts: MAX_FACTS,
                    steps: MAX_STEPS,
                });
            }
            if let Some(r) = overflow.depth {
                return Err(GdlError::DerivedTooDeep {
                    relation: symbols.name(names[r as usize]).to_string(),
                    limit: MAX_TERM_DEPTH,
                });
            }
        }

        // Then the plans of the state relations, with the sizes of the fixed relations
        // known; `true` facts are guessed from the `base` facts of the same functor.
        let mut base_count: FastMap<(SymId, usize), f64> = FastMap::default();
        for row in fixed[kw.base as usize].iter() {
            let (f, args) = terms.node(row[0]);
            *base_count.entry((f, args.len())).or_default() += 1.0;
        }
        let all_base = fixed[kw.base as usize].len() as f64;
        let roles = fixed[kw.role as usize].len() as f64;
        // What a state relation is asked for ([`super::demand`]) is read first: it binds
        // the rule's head to the few values asked in the state, the point of asking.
        // (Not in the fixed relations, where the relaxed rules of the network ask for
        // the values of every state at once.)
        let asking: Vec<bool> = names.iter().map(|&s| is_asking(&symbols, s)).collect();
        let sized = |rel: RelId, args: &[Pat], terms: &TermTable| -> f64 {
            if !state_dependent[rel as usize] {
                return fixed[rel as usize].len() as f64;
            }
            if asking[rel as usize] {
                return 1.0;
            }
            if rel == kw.does {
                return roles;
            }
            if rel != kw.truth || all_base == 0.0 {
                return 100.0;
            }
            let functor = match args.first() {
                Some(Pat::Const(id)) => {
                    let (f, a) = terms.node(*id);
                    (f, a.len())
                }
                Some(Pat::App(f, kids)) => (*f, kids.len()),
                _ => return all_base,
            };
            base_count.get(&functor).copied().unwrap_or(1.0)
        };
        for c in 0..comps.len() {
            if state_dependent[comps[c][0] as usize] {
                all_strata[c] = compile_stratum(c, &sized, &mut terms, &mut registry);
            }
        }
        for (r, table) in fixed.iter_mut().enumerate() {
            if !state_dependent[r] {
                table.reindex(&registry.probes[r], &terms);
            }
        }

        // The state-dependent strata, and which of them each query needs.
        let mut strata = Vec::new();
        let mut stratum_of_comp = vec![usize::MAX; comps.len()];
        for (c, s) in all_strata.into_iter().enumerate() {
            if state_dependent[comps[c][0] as usize] && !s.plans.is_empty() {
                stratum_of_comp[c] = strata.len();
                strata.push(s);
            }
        }
        let needs_of = |targets: &[RelId]| -> Vec<usize> {
            let mut seen = vec![false; n];
            let mut todo: Vec<u32> = targets.to_vec();
            while let Some(r) = todo.pop() {
                if !std::mem::replace(&mut seen[r as usize], true) {
                    todo.extend(&succ[r as usize]);
                }
            }
            let mut out: Vec<usize> = (0..n)
                .filter(|&r| seen[r])
                .map(|r| stratum_of_comp[comp_of[r]])
                .filter(|&s| s != usize::MAX)
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let needs = [
            needs_of(&[kw.legal]),
            needs_of(&[kw.next]),
            needs_of(&[kw.terminal]),
            needs_of(&[kw.goal]),
            needs_of(&[kw.legal, kw.terminal, kw.goal]),
        ];

        Ok(Program {
            symbols,
            rules,
            terms,
            kw,
            names,
            arity,
            state_dependent,
            registry,
            strata,
            needs,
            fixed,
            pool: Mutex::new(Vec::new()),
        })
    }

    /// The relation `pred` of `arity` arguments, if the rules name it.
    pub fn relation(&self, pred: SymId, arity: usize) -> Option<RelId> {
        (0..self.names.len())
            .find(|&r| self.names[r] == pred && self.arity[r] == arity)
            .map(|r| r as RelId)
    }

    /// The facts of a fixed relation.
    pub fn fixed(&self, rel: RelId) -> &Table {
        &self.fixed[rel as usize]
    }

    /// Evaluates what `query` needs in the state whose fluents are `truths`, with the
    /// joint move `does` (pairs of role and move). Terms of another `Gdl` are ignored.
    pub fn evaluate<'p>(
        &'p self,
        query: Query,
        truths: &[Term],
        does: &[(TermId, &Term)],
    ) -> Evaluation<'p> {
        self.evaluate_within(query, truths, does, None)
    }

    /// [`Program::evaluate`], stopped after `cap` join steps if given (its answers are
    /// then incomplete; only its work counts).
    fn evaluate_within<'p>(
        &'p self,
        query: Query,
        truths: &[Term],
        does: &[(TermId, &Term)],
        cap: Option<u64>,
    ) -> Evaluation<'p> {
        let mut store = Overlay::new(&self.terms);
        let pooled = self.pool.lock().ok().and_then(|mut pool| pool.pop());
        let mut work = pooled.unwrap_or_else(|| Workspace {
            tables: (0..self.names.len())
                .map(|r| {
                    if self.state_dependent[r] {
                        Table::new(self.arity[r], self.registry.probes[r].len())
                    } else {
                        Table::default()
                    }
                })
                .collect(),
            scratch: Scratch::default(),
        });
        let Workspace { tables, scratch } = &mut work;
        let truth = self.kw.truth as usize;
        for t in truths {
            if let Some(id) = import(&mut store, t) {
                tables[truth].insert(&[id], &self.registry.probes[truth], &store);
            }
        }
        let d = self.kw.does as usize;
        for &(role, m) in does {
            if let Some(id) = import(&mut store, m) {
                tables[d].insert(&[role, id], &self.registry.probes[d], &store);
            }
        }
        let mut overflow = Overflow {
            cap,
            ..Overflow::default()
        };
        let mut facts = 0;
        for &s in &self.needs[query as usize] {
            let mut view = Tables {
                fixed: &self.fixed,
                own: tables,
                is_own: &self.state_dependent,
            };
            eval_stratum(
                &self.strata[s],
                &mut view,
                &self.registry,
                &mut store,
                scratch,
                &mut overflow,
                &mut facts,
            );
            if overflow.facts {
                break;
            }
        }
        Evaluation {
            prog: self,
            store,
            work: overflow.steps + facts as u64,
            work_space: work,
        }
    }
}
