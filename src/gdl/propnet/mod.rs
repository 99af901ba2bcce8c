//! The propositional network: the game's rules compiled, for one match, into a circuit
//! of and/or/not gates over the propositions of its ground atoms.
//!
//! - [`ground`] instantiates the rules over the domains the reasoner computes for a
//!   relaxed copy of them;
//! - [`build`] makes the circuit: *base* propositions (the fluents of the state),
//!   *inputs* (the moves played), and gates for every derived atom, among them the
//!   `legal`, `next`, `goal` and `terminal` outputs;
//! - [`optimise`] folds constants, shares identical gates and drops what no output needs;
//! - [`index`] finds a fluent's or a move's proposition from its term;
//! - [`eval`] sweeps the gates in order over flat arrays;
//! - [`propagate`] keeps every gate's value and, when bases or inputs flip, updates only
//!   the gates they reach; [`walk`] plays random playouts with it, step to step.
//!
//! A state is a bit set over the base propositions. A query answers for the same state
//! exactly what the reasoner answers (the tests check it on every game the project has);
//! a state or move the network does not know (a fluent no reachable state can hold) is
//! left to the reasoner by the caller. When grounding would be too large, [`Propnet::build`]
//! says why and the game is played by the reasoner alone.

mod build;
mod eval;
mod ground;
mod index;
mod optimise;
mod propagate;
mod walk;

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rand::RngExt;

use super::prover::Program;
use super::term::{Store, Term, TermId, TermTable};
use super::{Analysis, PlayoutLimit, State, highest_goal};
use crate::rng::Rng;
use eval::{Cone, Net};
use index::TermIndex;
use propagate::Propagator;
use walk::Walk;

/// How the network is evaluated, in playouts and in queries on one state
/// ([`Propnet::analyse`], [`Propnet::next_state`]). A propagated query starts from
/// wherever a pooled evaluation was left: in a tree search that is the state the last
/// playout ended in, or the parent of the node being expanded, so only the differences
/// are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluator {
    /// Every gate a step needs, swept in order from scratch at every step.
    Sweep,
    /// Only the gates the changed fluents and moves reach, step to step.
    Propagate,
}

/// Networks with fewer gates are swept, in playouts and queries. Propagation pays a fixed cost per
/// playout (taking a pooled evaluation, loading the state by its differences) and per
/// change; in lowest unique number (46 gates, one step a game) that made it 0.7 times as
/// fast as sweeping, while tic-tac-toe (99 gates) gained 1.2–1.3 times and every larger
/// game measured more (docs/measurements.md).
const SWEEP_BELOW: usize = 50;

/// How a random playout ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayoutEnd {
    /// Each role's goal where it ended (see [`super::Gdl::goals`]).
    pub goals: Vec<Option<u32>>,
    /// Whether the game ended (terminal, or a role had no legal move), rather than being
    /// cut after the most steps asked for.
    pub finished: bool,
}

/// One role's move: the move, its input proposition, its `legal` proposition.
struct Move {
    term: Term,
    input: u32,
    legal: u32,
}

pub(crate) struct Propnet {
    net: Net,
    /// The fluents, by base index, in the order of [`Term`] (so states come out sorted).
    fluents: Vec<Term>,
    /// Each fluent's base index.
    fluent_index: TermIndex,
    /// Per role: its moves, in the order of [`Term`].
    moves: Vec<Vec<Move>>,
    /// Per role: each move's input proposition.
    move_index: Vec<TermIndex>,
    /// Per role: (value, proposition) of its goals.
    goals: Vec<Vec<(Option<u32>, u32)>>,
    terminal: u32,
    /// Per fluent: the proposition `next(fluent)`.
    next: Vec<u32>,
    initial: Vec<u64>,
    /// The gates of `legal`, `goal` and `terminal`; of `next`; of `next` without those
    /// of the first (for a state whose first cone is already swept).
    analysis: Cone,
    successor: Cone,
    successor_after: Cone,
    /// Value arrays of finished queries, so that a query need not allocate.
    pool: Mutex<Vec<Vec<bool>>>,
    /// How playouts and queries are evaluated unless the caller says.
    evaluator: Evaluator,
    propagator: Propagator,
    /// Evaluations of finished propagating playouts, each still up to date with the
    /// state it ended in, so that the next playout starts by changing only what differs.
    walks: Mutex<Vec<Walk>>,
    /// Whether a state giving a role several goal values was logged already.
    several_goals: AtomicBool,
}

/// The public form of a grounding term, as the game's own reasoner spells it.
fn public(relaxed: &TermTable, real: &TermTable, id: TermId) -> Term {
    let (f, args) = relaxed.node(id);
    if args.is_empty() {
        return Term::known(f);
    }
    let kids: Vec<Term> = args.iter().map(|&a| public(relaxed, real, a)).collect();
    let ids: Option<Vec<TermId>> = kids.iter().map(Term::known_id).collect();
    match ids.and_then(|ids| real.find(f, &ids)) {
        Some(id) => Term::known(id),
        None => Term::compound(f, kids),
    }
}

const FIRST_BASE: usize = 2;

/// Why a network was not made, when its deadline passed first.
pub(super) const NOT_IN_TIME: &str = "it was not built in the time allowed";

impl Propnet {
    /// The network of the rules `prog` (the reasoner, with roles `roles`) was compiled
    /// from; an error saying why when the rules cannot be grounded within the size bound,
    /// or by `deadline` if given.
    pub fn build(
        prog: &Program,
        roles: &[Term],
        deadline: Option<Instant>,
    ) -> Result<Propnet, String> {
        let late = || match deadline {
            Some(d) if Instant::now() >= d => Err(NOT_IN_TIME.to_string()),
            _ => Ok(()),
        };
        let started = Instant::now();
        let mut g = ground::ground(prog.rules.clone(), prog.symbols.clone(), deadline)?;
        late()?;
        let grounded = started.elapsed();
        let real = &prog.terms;
        let mut fluents: Vec<(Term, TermId)> = g
            .fluents
            .iter()
            .map(|&f| (public(&g.terms, real, f), f))
            .collect();
        fluents.sort_unstable();
        g.fluents = fluents.iter().map(|&(_, f)| f).collect();
        let fluents: Vec<Term> = fluents.into_iter().map(|(t, _)| t).collect();
        let role_of = |g: &ground::Grounding, r: TermId| {
            let t = public(&g.terms, real, r);
            roles.iter().position(|x| *x == t)
        };
        let move_roles: Vec<Option<usize>> = g.moves.iter().map(|&(r, _)| role_of(&g, r)).collect();
        let move_terms: Vec<Term> = g
            .moves
            .iter()
            .map(|&(_, m)| public(&g.terms, real, m))
            .collect();
        let goal_of: Vec<(Option<usize>, Option<u32>)> = g
            .goals
            .iter()
            .map(|&(r, v)| {
                let (f, args) = g.terms.node(v);
                let value = if args.is_empty() && (f as usize) < prog.symbols.len() {
                    prog.symbols.name(f).parse().ok()
                } else {
                    None
                };
                (role_of(&g, r), value)
            })
            .collect();

        let circuit = build::build(g);
        late()?;
        let built = started.elapsed();
        let folded = optimise::optimise(circuit)?;
        late()?;
        let net = Net::new(&folded.gates, folded.cycles);
        tracing::debug!(
            grounded_ms = grounded.as_millis() as u64,
            built_ms = built.as_millis() as u64,
            optimised_ms = started.elapsed().as_millis() as u64,
            "propositional network made"
        );

        let mut moves: Vec<Vec<Move>> = (0..roles.len()).map(|_| Vec::new()).collect();
        for (i, (role, term)) in move_roles.into_iter().zip(move_terms).enumerate() {
            if let Some(r) = role {
                moves[r].push(Move {
                    term,
                    input: (FIRST_BASE + fluents.len() + i) as u32,
                    legal: folded.legal[i],
                });
            }
        }
        moves
            .iter_mut()
            .for_each(|m| m.sort_by(|a, b| a.term.cmp(&b.term)));
        let move_index = moves
            .iter()
            .map(|ms| TermIndex::new(ms.iter().map(|m| (&m.term, m.input))))
            .collect();
        let mut goals: Vec<Vec<(Option<u32>, u32)>> = vec![Vec::new(); roles.len()];
        for ((role, value), &p) in goal_of.into_iter().zip(&folded.goals) {
            if let Some(r) = role {
                goals[r].push((value, p));
            }
        }
        let mut initial = vec![0u64; fluents.len().div_ceil(64)];
        for (i, _) in folded.init.iter().enumerate().filter(|(_, b)| **b) {
            initial[i / 64] |= 1 << (i % 64);
        }
        let mut first: Vec<u32> = moves.iter().flatten().map(|m| m.legal).collect();
        first.extend(goals.iter().flatten().map(|&(_, p)| p));
        first.push(folded.terminal);
        let first = net.needs(&first);
        let second = net.needs(&folded.next);
        let after: Vec<bool> = second.iter().zip(&first).map(|(&s, &f)| s && !f).collect();
        let evaluator = if net.size().0 < SWEEP_BELOW {
            Evaluator::Sweep
        } else {
            Evaluator::Propagate
        };
        Ok(Propnet {
            evaluator,
            propagator: Propagator::new(&net),
            walks: Mutex::new(Vec::new()),
            analysis: net.cone(&first),
            successor: net.cone(&second),
            successor_after: net.cone(&after),
            net,
            fluent_index: TermIndex::new(fluents.iter().zip(0..)),
            fluents,
            moves,
            move_index,
            goals,
            terminal: folded.terminal,
            next: folded.next,
            initial,
            pool: Mutex::new(Vec::new()),
            several_goals: AtomicBool::new(false),
        })
    }

    /// The network's size, for the log: fluents, moves, gates and their input edges.
    pub fn describe(&self) -> String {
        let (gates, edges) = self.net.size();
        let moves: usize = self.moves.iter().map(Vec::len).sum();
        let how = match self.evaluator {
            Evaluator::Sweep => "swept",
            Evaluator::Propagate => "evaluated by propagation",
        };
        format!(
            "{} fluents, {moves} moves, {gates} gates, {edges} gate inputs; {how}",
            self.fluents.len()
        )
    }

    fn bits(&self, state: &State) -> Option<Vec<u64>> {
        let mut bits = vec![0u64; self.fluents.len().div_ceil(64)];
        for f in state.fluents() {
            let i = self.fluent_index.get(f)? as usize;
            bits[i / 64] |= 1 << (i % 64);
        }
        Some(bits)
    }

    fn state_of(&self, bits: &[u64]) -> State {
        let held = bits.iter().map(|w| w.count_ones() as usize).sum();
        let mut fluents = Vec::with_capacity(held);
        for (w, &word) in bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                fluents.push(self.fluents[w * 64 + rest.trailing_zeros() as usize].clone());
                rest &= rest - 1;
            }
        }
        // Already sorted and distinct.
        State { fluents }
    }

    pub fn initial_state(&self) -> State {
        self.state_of(&self.initial)
    }

    fn with_vals<T>(&self, f: impl FnOnce(&mut [bool]) -> T) -> T {
        let pooled = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut vals = pooled.unwrap_or_else(|| {
            let mut v = vec![false; self.net.len()];
            v[1] = true;
            v
        });
        let out = f(&mut vals);
        if let Ok(mut pool) = self.pool.lock()
            && pool.len() < 16
        {
            pool.push(vals);
        }
        out
    }

    /// Puts the state in `vals` and clears every input.
    fn load(&self, bits: &[u64], vals: &mut [bool]) {
        let n = self.fluents.len();
        for (i, v) in vals[FIRST_BASE..FIRST_BASE + n].iter_mut().enumerate() {
            *v = bits[i / 64] >> (i % 64) & 1 == 1;
        }
        let moves: usize = self.moves.iter().map(Vec::len).sum();
        vals[FIRST_BASE + n..FIRST_BASE + n + moves].fill(false);
    }

    fn goals_in(&self, vals: &[bool]) -> Vec<Option<u32>> {
        self.goals
            .iter()
            .map(|gs| {
                let held = gs
                    .iter()
                    .filter(|&&(_, p)| vals[p as usize])
                    .map(|&(v, _)| v);
                highest_goal(held, &self.several_goals)
            })
            .collect()
    }

    /// Terminal, legal moves and goals of `state`, evaluated by `how` (by default as
    /// chosen for this network's size); `None` if it holds a fluent the network does
    /// not know.
    pub fn analyse(&self, state: &State, how: Option<Evaluator>) -> Option<Analysis> {
        let bits = self.bits(state)?;
        Some(match how.unwrap_or(self.evaluator) {
            Evaluator::Sweep => self.with_vals(|vals| {
                self.load(&bits, vals);
                self.net.run(&self.analysis, vals);
                self.analysis_in(vals)
            }),
            Evaluator::Propagate => self.analyse_propagating(&bits),
        })
    }

    fn analysis_in(&self, vals: &[bool]) -> Analysis {
        Analysis {
            terminal: vals[self.terminal as usize],
            legal: self
                .moves
                .iter()
                .map(|ms| {
                    ms.iter()
                        .filter(|m| vals[m.legal as usize])
                        .map(|m| m.term.clone())
                        .collect()
                })
                .collect(),
            goals: self.goals_in(vals),
        }
    }

    /// The state after `joint`, evaluated by `how` (as for [`Propnet::analyse`]); `None`
    /// if the state or a move is unknown to the network.
    pub fn next_state(
        &self,
        state: &State,
        joint: &[Term],
        how: Option<Evaluator>,
    ) -> Option<State> {
        let bits = self.bits(state)?;
        let mut inputs = Vec::with_capacity(joint.len());
        for (index, m) in self.move_index.iter().zip(joint) {
            inputs.push(index.get(m)?);
        }
        let mut out = vec![0u64; bits.len()];
        match how.unwrap_or(self.evaluator) {
            Evaluator::Sweep => self.with_vals(|vals| {
                self.load(&bits, vals);
                inputs.iter().for_each(|&i| vals[i as usize] = true);
                self.net.run(&self.successor, vals);
                self.store_next(vals, &mut out);
            }),
            Evaluator::Propagate => self.next_propagating(&bits, &inputs, &mut out),
        }
        Some(self.state_of(&out))
    }

    fn store_next(&self, vals: &[bool], out: &mut [u64]) {
        out.fill(0);
        for (i, &p) in self.next.iter().enumerate() {
            if vals[p as usize] {
                out[i / 64] |= 1 << (i % 64);
            }
        }
    }

    /// The input proposition of role `role`'s move `m`, if the network knows it: the
    /// key ([`super::Gdl::move_key`]) its playouts give the move.
    pub fn move_key(&self, role: usize, m: &Term) -> Option<u32> {
        self.move_index.get(role)?.get(m)
    }

    /// [`super::Gdl::playout`] in bit sets, evaluated by `how` (by default as chosen for
    /// this network's size); `None` if the state holds a fluent the network does not know.
    pub fn playout(
        &self,
        state: &State,
        rng: &mut Rng,
        limit: &mut PlayoutLimit,
        how: Option<Evaluator>,
    ) -> Option<Option<PlayoutEnd>> {
        let bits = self.bits(state)?;
        Some(match how.unwrap_or(self.evaluator) {
            Evaluator::Sweep => self.playout_sweeping(bits, rng, limit),
            Evaluator::Propagate => self.playout_propagating(&bits, rng, limit),
        })
    }

    fn playout_sweeping(
        &self,
        mut bits: Vec<u64>,
        rng: &mut Rng,
        limit: &mut PlayoutLimit,
    ) -> Option<PlayoutEnd> {
        let mut spare = bits.clone();
        let (mut keys, mut chosen) = (Vec::new(), Vec::new());
        self.with_vals(|vals| {
            for _ in 0..limit.max_steps {
                if (limit.stop)() {
                    return None;
                }
                self.load(&bits, vals);
                self.net.run(&self.analysis, vals);
                if vals[self.terminal as usize]
                    || !self.pick_moves(vals, rng, limit, &mut keys, &mut chosen)
                {
                    return Some(self.ended(vals, true));
                }
                chosen.iter().for_each(|&i| vals[i as usize] = true);
                self.net.run(&self.successor_after, vals);
                self.store_next(vals, &mut spare);
                std::mem::swap(&mut bits, &mut spare);
            }
            self.load(&bits, vals);
            self.net.run(&self.analysis, vals);
            Some(self.ended(vals, false))
        })
    }

    /// Each role's move among its legal ones in `vals` (uniformly random, or as the
    /// `limit` picks), their inputs put in `chosen`; false if a role has no legal move.
    fn pick_moves(
        &self,
        vals: &[bool],
        rng: &mut Rng,
        limit: &mut PlayoutLimit,
        keys: &mut Vec<u32>,
        chosen: &mut Vec<u32>,
    ) -> bool {
        chosen.clear();
        for (role, ms) in self.moves.iter().enumerate() {
            // Every move written, the legal ones kept: no branch on legality.
            keys.resize(ms.len(), 0);
            let mut n = 0;
            for m in ms {
                keys[n] = m.input;
                n += vals[m.legal as usize] as usize;
            }
            keys.truncate(n);
            if keys.is_empty() {
                return false;
            }
            let k = match limit.pick.as_mut() {
                Some(pick) => pick(role, keys, rng),
                None => rng.random_range(0..keys.len()),
            };
            chosen.push(keys[k]);
        }
        true
    }

    fn ended(&self, vals: &[bool], finished: bool) -> PlayoutEnd {
        PlayoutEnd {
            goals: self.goals_in(vals),
            finished,
        }
    }
}
