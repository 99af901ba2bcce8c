//! Bottom-up evaluation: runs join plans over fact tables, one stratum at a time.
//!
//! A stratum is a strongly connected group of relations; every relation it reads lies in
//! an earlier stratum or in the stratum itself (never negated: the rules are stratified).
//! A stratum without recursion runs each of its rules once; a recursive one runs
//! semi-naively: after a first pass, each round re-runs only the rule variants that read
//! a fact found in the previous round, until nothing new turns up.
//!
//! The join is an explicit loop over the plan's steps with one cursor per step, so deep
//! rule bodies cannot exhaust the stack.

use std::time::Instant;

use super::plan::{Access, KeyPart, Pat, Plan, Registry, RelId, Step};
use super::table::{NO_ROW, Table, key_of};
use super::term::{MAX_TERM_DEPTH, Store, TermId};

/// A variable not bound yet.
const UNBOUND: TermId = TermId::MAX;

/// Most facts one evaluation may hold (all tables together).
pub(crate) const MAX_FACTS: usize = 4_000_000;
/// Most join steps (rows tried) one evaluation may take: seconds of work, far more than
/// any real game needs, but a bound on rules that would join without end.
pub(crate) const MAX_STEPS: u64 = 300_000_000;
/// Join steps between two looks at the clock of an evaluation with a deadline.
const STEPS_PER_LOOK: u64 = 1 << 16;
/// Term ids a join's output may hold before the rows already known, or found twice, are
/// dropped from it. A join may find the same rows again and again up to [`MAX_STEPS`]:
/// before the output was compacted, amazonsSuicide's relaxed rules filled 2 GB with it.
const COMPACT_AT: usize = 1 << 22;

/// The rules of one stratum, compiled.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stratum {
    pub rels: Vec<RelId>,
    /// One plan per rule.
    pub plans: Vec<Plan>,
    /// One plan per positive literal of a relation of this stratum (recursive strata).
    pub delta_plans: Vec<Plan>,
}

/// What stopped an evaluation early, and the work done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Overflow {
    /// Stopped: more than [`MAX_FACTS`] facts, more than [`MAX_STEPS`] join steps, or
    /// past the deadline (`late`).
    pub facts: bool,
    /// When to stop, if ever; and whether the evaluation stopped for it.
    pub deadline: Option<Instant>,
    pub late: bool,
    /// Join steps taken.
    pub steps: u64,
    /// Most join steps to take, where fewer than [`MAX_STEPS`].
    pub cap: Option<u64>,
    /// A derived term nested deeper than [`MAX_TERM_DEPTH`] (the fact was dropped).
    pub depth: Option<RelId>,
    /// New facts the evaluation may still add (below [`MAX_FACTS`]): a join whose output
    /// holds more new rows than this stops (set before each join).
    pub room: usize,
}

impl Overflow {
    /// Whether the deadline has passed; if so the evaluation is marked stopped for it.
    fn past_deadline(&mut self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.facts = true;
            self.late = true;
        }
        self.late
    }
}

/// The tables an evaluation reads: fixed (state-independent, computed once) or its own.
pub(crate) struct Tables<'a> {
    pub fixed: &'a [Table],
    pub own: &'a mut [Table],
    /// Per relation: whether its table is in `own`.
    pub is_own: &'a [bool],
}

/// Reusable buffers.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    bindings: Vec<TermId>,
    cursors: Vec<Cursor>,
    build: Vec<TermId>,
    out: Vec<TermId>,
}

#[derive(Clone, Copy, Debug)]
enum Cursor {
    Done,
    /// Next row of an index chain.
    Chain(u32),
    /// Next row of a scan and its end.
    Scan(u32, u32),
}

struct View<'a> {
    fixed: &'a [Table],
    own: &'a [Table],
    is_own: &'a [bool],
}

impl View<'_> {
    #[inline]
    fn table(&self, rel: RelId) -> &Table {
        if self.is_own[rel as usize] {
            &self.own[rel as usize]
        } else {
            &self.fixed[rel as usize]
        }
    }
}

/// Evaluates `stratum`, adding what it derives to the tables in `tables.own`.
pub(crate) fn eval_stratum<S: Store>(
    stratum: &Stratum,
    tables: &mut Tables,
    registry: &Registry,
    store: &mut S,
    scratch: &mut Scratch,
    overflow: &mut Overflow,
    facts: &mut usize,
) {
    // First pass: every rule over everything known.
    for plan in &stratum.plans {
        run_and_insert(
            plan, None, tables, registry, store, scratch, overflow, facts,
        );
        if overflow.facts {
            return;
        }
    }
    if stratum.delta_plans.is_empty() {
        return;
    }
    // Semi-naive rounds: `low..high` of each relation is what the last round found.
    let mut low: Vec<u32> = vec![0; stratum.rels.len()];
    loop {
        let high: Vec<u32> = stratum
            .rels
            .iter()
            .map(|&r| tables.own[r as usize].len())
            .collect();
        if low == high {
            return;
        }
        for plan in &stratum.delta_plans {
            let Some(Step::Pos(acc)) = plan.delta.map(|d| &plan.steps[d]) else {
                continue;
            };
            let Some(k) = stratum.rels.iter().position(|&r| r == acc.rel) else {
                continue;
            };
            if low[k] == high[k] {
                continue;
            }
            run_and_insert(
                plan,
                Some((low[k], high[k])),
                tables,
                registry,
                store,
                scratch,
                overflow,
                facts,
            );
            if overflow.facts {
                return;
            }
        }
        low = high;
    }
}

#[allow(clippy::too_many_arguments)]
fn run_and_insert<S: Store>(
    plan: &Plan,
    delta: Option<(u32, u32)>,
    tables: &mut Tables,
    registry: &Registry,
    store: &mut S,
    scratch: &mut Scratch,
    overflow: &mut Overflow,
    facts: &mut usize,
) {
    let mut out = std::mem::take(&mut scratch.out);
    out.clear();
    let view = View {
        fixed: tables.fixed,
        own: tables.own,
        is_own: tables.is_own,
    };
    overflow.room = MAX_FACTS.saturating_sub(*facts);
    let found = run(plan, &view, delta, store, scratch, &mut out, overflow);
    let rel = plan.head_rel as usize;
    let probes = &registry.probes[rel];
    let table = &mut tables.own[rel];
    let arity = plan.head.len();
    if arity == 0 {
        if found > 0 && table.insert(&[], probes, store) {
            *facts += 1;
        }
    } else {
        // A join may find far more rows than fit: stop at the bound, or at the deadline.
        for (i, row) in out.chunks_exact(arity).enumerate() {
            if table.insert(row, probes, store) {
                *facts += 1;
            }
            if *facts > MAX_FACTS {
                break;
            }
            if (i as u64 + 1).is_multiple_of(STEPS_PER_LOOK) && overflow.past_deadline() {
                break;
            }
        }
    }
    if *facts > MAX_FACTS {
        overflow.facts = true;
    }
    scratch.out = out;
}

/// Keeps a join's output free of rows the head's table holds and of repeats, once it is
/// large: each row is checked once, at the first check after it was found.
struct Compactor {
    /// The rows kept so far, to find repeats.
    seen: Table,
    /// Term ids at the start of the output that have been checked.
    kept: usize,
}

impl Compactor {
    fn new(arity: usize) -> Compactor {
        Compactor {
            seen: Table::new(arity, 0),
            kept: 0,
        }
    }

    /// Drops from `out` (rows of the head's arity) the unchecked rows `head` or an
    /// earlier row holds; returns the rows left.
    fn compact<S: Store>(&mut self, out: &mut Vec<TermId>, head: &Table, store: &S) -> usize {
        let arity = self.seen.arity();
        let mut w = self.kept;
        for r in (self.kept..out.len()).step_by(arity) {
            let row = &out[r..r + arity];
            if !head.contains(row) && self.seen.insert(row, &[], store) {
                out.copy_within(r..r + arity, w);
                w += arity;
            }
        }
        out.truncate(w);
        self.kept = w;
        w / arity
    }
}

#[inline]
fn unify<S: Store>(p: &Pat, t: TermId, b: &mut [TermId], store: &S) -> bool {
    match p {
        Pat::Const(c) => *c == t,
        Pat::Var(v) => {
            let slot = &mut b[*v as usize];
            if *slot == UNBOUND {
                *slot = t;
                true
            } else {
                *slot == t
            }
        }
        Pat::App(f, kids) => {
            let (g, args) = store.node(t);
            g == *f
                && args.len() == kids.len()
                && kids.iter().zip(args).all(|(k, &a)| unify(k, a, b, store))
        }
    }
}

/// The term a pattern stands for under `b`; `None` if it would be nested too deeply.
fn build<S: Store>(
    p: &Pat,
    b: &[TermId],
    store: &mut S,
    stack: &mut Vec<TermId>,
) -> Option<TermId> {
    match p {
        Pat::Const(c) => Some(*c),
        Pat::Var(v) => Some(b[*v as usize]),
        Pat::App(f, kids) => {
            let start = stack.len();
            for k in kids.iter() {
                let id = build(k, b, store, stack);
                match id {
                    Some(id) => stack.push(id),
                    None => {
                        stack.truncate(start);
                        return None;
                    }
                }
            }
            let id = store.intern(*f, &stack[start..]);
            stack.truncate(start);
            (store.depth(id) <= MAX_TERM_DEPTH).then_some(id)
        }
    }
}

fn same<S: Store>(x: &Pat, y: &Pat, b: &[TermId], store: &mut S, stack: &mut Vec<TermId>) -> bool {
    match (build(x, b, store, stack), build(y, b, store, stack)) {
        (Some(a), Some(c)) => a == c,
        _ => false,
    }
}

fn key(acc: &Access, b: &[TermId]) -> u64 {
    key_of(acc.key.iter().map(|k| match *k {
        KeyPart::Const(v) => v,
        KeyPart::Var(v) => b[v as usize] as u64,
    }))
}

fn open(acc: &Access, table: &Table, b: &[TermId], range: Option<(u32, u32)>) -> Cursor {
    match acc.index {
        Some(ix) => Cursor::Chain(table.first(ix, key(acc, b))),
        None => match range {
            Some((lo, hi)) => Cursor::Scan(lo, hi),
            None => Cursor::Scan(0, table.len()),
        },
    }
}

/// Advances `cursor` to the next row matching `acc`, binding its fresh variables.
#[inline]
fn next_match<S: Store>(
    cursor: &mut Cursor,
    acc: &Access,
    table: &Table,
    b: &mut [TermId],
    store: &S,
    range: Option<(u32, u32)>,
    tried: &mut u64,
) -> bool {
    loop {
        *tried += 1;
        let r = match *cursor {
            Cursor::Done => return false,
            Cursor::Chain(r) => {
                if r == NO_ROW {
                    *cursor = Cursor::Done;
                    return false;
                }
                // `index` is set whenever the cursor is a chain.
                *cursor = Cursor::Chain(acc.index.map_or(NO_ROW, |ix| table.next(ix, r)));
                r
            }
            Cursor::Scan(r, end) => {
                if r >= end {
                    *cursor = Cursor::Done;
                    return false;
                }
                *cursor = Cursor::Scan(r + 1, end);
                r
            }
        };
        if let Some((lo, hi)) = range
            && (r < lo || r >= hi)
        {
            continue;
        }
        for &v in acc.fresh.iter() {
            b[v as usize] = UNBOUND;
        }
        let row = table.row(r);
        if acc
            .args
            .iter()
            .zip(row)
            .all(|(p, &t)| unify(p, t, b, store))
        {
            if acc.fresh.is_empty() {
                // A fully bound literal matches at most one row.
                *cursor = Cursor::Done;
            }
            return true;
        }
    }
}

/// Runs one plan; appends the head rows it derives to `out` and returns how many.
fn run<S: Store>(
    plan: &Plan,
    view: &View,
    delta: Option<(u32, u32)>,
    store: &mut S,
    scratch: &mut Scratch,
    out: &mut Vec<TermId>,
    overflow: &mut Overflow,
) -> usize {
    let Scratch {
        bindings: b,
        cursors,
        build: stack,
        ..
    } = scratch;
    let steps = &plan.steps;
    let n = steps.len();
    b.clear();
    b.resize(plan.vars, UNBOUND);
    cursors.clear();
    cursors.resize(n, Cursor::Done);
    let mut found = 0;
    let mut depth = 0;
    let mut entering = true;
    let mut tried: u64 = 0;
    let limit = overflow.cap.map_or(MAX_STEPS, |c| c.min(MAX_STEPS));
    let mut compactor: Option<Compactor> = None;
    let mut compact_at = COMPACT_AT;
    loop {
        tried += 1;
        if overflow.steps + tried > limit {
            overflow.facts = true;
            break;
        }
        if (overflow.steps + tried).is_multiple_of(STEPS_PER_LOOK) && overflow.past_deadline() {
            break;
        }
        if depth == n {
            let start = out.len();
            let mut ok = true;
            for p in plan.head.iter() {
                match build(p, b, store, stack) {
                    Some(id) => out.push(id),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                found += 1;
                if out.len() >= compact_at {
                    let c = compactor.get_or_insert_with(|| Compactor::new(plan.head.len()));
                    if c.compact(out, view.table(plan.head_rel), store) > overflow.room {
                        overflow.facts = true;
                        break;
                    }
                    compact_at = compact_at.max(2 * out.len());
                }
            } else {
                out.truncate(start);
                overflow.depth = Some(plan.head_rel);
            }
            if n == 0 {
                break;
            }
            depth -= 1;
            entering = false;
            continue;
        }
        let ok = match &steps[depth] {
            Step::Pos(acc) => {
                let table = view.table(acc.rel);
                let range = if plan.delta == Some(depth) {
                    delta
                } else {
                    None
                };
                if entering {
                    cursors[depth] = open(acc, table, b, range);
                }
                next_match(
                    &mut cursors[depth],
                    acc,
                    table,
                    b,
                    &*store,
                    range,
                    &mut tried,
                )
            }
            Step::Neg(acc) => {
                entering && {
                    let table = view.table(acc.rel);
                    let mut c = open(acc, table, b, None);
                    !next_match(&mut c, acc, table, b, &*store, None, &mut tried)
                }
            }
            Step::Distinct(x, y) => entering && !same(x, y, b, store, stack),
            Step::Same(x, y) => entering && same(x, y, b, store, stack),
        };
        if ok {
            depth += 1;
            entering = true;
        } else if depth == 0 {
            break;
        } else {
            depth -= 1;
            entering = false;
        }
    }
    overflow.steps += tried;
    found
}
