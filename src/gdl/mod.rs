//! The Game Description Language: reading rules and reasoning with them.
//!
//! [`Gdl`] compiles a game description (the rules a controller sends in START, or a
//! `.gdl`/`.kif` file) and answers the questions a player asks: the roles, the initial
//! state, the legal moves, the next state, whether a state is terminal and the goal
//! values. It knows nothing about any particular game, so it plays by whatever rules it
//! is sent — variants, the course's size-10 defect, scrambled symbols.
//!
//! The reasoner is bottom-up: relations that do not depend on the state are computed
//! once when the rules are compiled; a query evaluates the others from the state's
//! fluents (and the joint move), stratum by stratum, with semi-naive recursion and
//! stratified negation, over hash-consed terms and hash-indexed fact tables. Where it
//! does less work so, a state-dependent relation is computed only for the arguments the
//! rules ask it for ([`demand`]).
//!
//! Malformed or unstratified rules are refused with a [`GdlError`]; nothing panics on
//! any input. Valid GDL (whose recursion is restricted) always has finite answers; for
//! rules that would derive without end, the fixed relations are refused when compiled,
//! and a query stops at a limit (millions of facts, terms nested 100 deep) and answers
//! with what it found.
//!
//! The reasoner knows no game; each game's own rules, where it has them, are written by
//! its folder under `src/games/`.

mod compare;
mod demand;
mod error;
mod eval;
pub(crate) mod hash;
mod plan;
mod propnet;
mod prover;
mod random;
mod rules;
mod safety;
mod scramble;
mod speed;
mod split;
mod strata;
mod table;
mod term;

pub use compare::{Compared, MAX_COMPARED_STEPS};
pub use error::GdlError;
pub use propnet::{Evaluator, PlayoutEnd};
pub use random::RandomGame;
pub use scramble::scramble;
pub use speed::{RACE_TIME, Race, playouts_in};
pub use term::Term;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

use propnet::Propnet;
use prover::{Program, Query};
use term::{MAX_TERM_DEPTH, Shape, TermId};

use crate::rng::Rng;
use crate::sexpr::Sexpr;

/// Which model answers a [`Gdl`]'s queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    // The race at START is `Gdl::keep_the_faster`; clap shows this variant's doc comment
    // as its help, so the comment says it in words.
    /// The propositional network where the rules can be grounded within its size
    /// bound, else the reasoner. (The player also races the two at START and keeps the
    /// faster.)
    #[default]
    Auto,
    /// The bottom-up reasoner alone.
    Reasoner,
    /// The propositional network, or an error if it cannot be built.
    Propnet,
}

/// A game state: the set of fluents that are true, kept sorted and free of duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    fluents: Vec<Term>,
}

impl State {
    /// A state holding `fluents` (terms of the `Gdl` that will reason about it).
    pub fn from_fluents(fluents: impl IntoIterator<Item = Term>) -> State {
        let mut fluents: Vec<Term> = fluents.into_iter().collect();
        fluents.sort_unstable();
        fluents.dedup();
        State { fluents }
    }

    /// The fluents, sorted.
    pub fn fluents(&self) -> &[Term] {
        &self.fluents
    }

    pub fn contains(&self, fluent: &Term) -> bool {
        self.fluents.binary_search(fluent).is_ok()
    }

    pub fn len(&self) -> usize {
        self.fluents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fluents.is_empty()
    }
}

/// Everything a player asks about one state, from a single evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub terminal: bool,
    /// Per role (in role order): its legal moves, sorted.
    pub legal: Vec<Vec<Term>>,
    /// Per role: its goal value (see [`Gdl::goals`]).
    pub goals: Vec<Option<u32>>,
}

/// A role's goal from the values the rules give it in one state (`None` for a value
/// that is not a whole number): the highest whole number. More than one is logged, once
/// per game (`logged`).
pub(crate) fn highest_goal(
    values: impl Iterator<Item = Option<u32>>,
    logged: &AtomicBool,
) -> Option<u32> {
    let mut numbers: Vec<u32> = values.flatten().collect();
    numbers.sort_unstable();
    numbers.dedup();
    if numbers.len() > 1 && !logged.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "the rules give a role several goal values in one state ({numbers:?}); the highest counts"
        );
    }
    numbers.last().copied()
}

/// How long a playout may go on: `max_steps` joint moves at most, and only while
/// `stop`, asked before every step, says no; and how it moves: uniformly at random, or
/// as `pick` says.
pub struct PlayoutLimit<'a> {
    pub max_steps: usize,
    pub stop: &'a mut dyn FnMut() -> bool,
    pub pick: Option<PickMove<'a>>,
}

/// A playout's choice of one role's move: given the role, the keys of its legal moves
/// ([`Gdl::move_key`], in the order of the moves) and the random numbers, the index of
/// the move to play: below the number of keys (a pick out of range is a bug, and panics
/// whichever model plays).
pub type PickMove<'a> = &'a mut dyn FnMut(usize, &[u32], &mut Rng) -> usize;

/// A compiled game description.
///
/// Its queries are answered by the reasoner, or by the propositional network when one
/// was built ([`Gdl::use_engine`]); the two give the same answers.
#[derive(Clone)]
pub struct Gdl {
    prog: Arc<Program>,
    propnet: Option<Arc<Propnet>>,
    /// How the network is evaluated in playouts, if not as the network chose.
    evaluator: Option<Evaluator>,
    /// Whether a state giving a role several goal values was logged already.
    several_goals: Arc<AtomicBool>,
    roles: Vec<Term>,
    role_ids: Vec<TermId>,
    initial: State,
}

impl std::fmt::Debug for Gdl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let roles: Vec<String> = self.roles.iter().map(|r| self.display(r)).collect();
        f.debug_struct("Gdl")
            .field("roles", &roles)
            .field("initial_fluents", &self.initial.len())
            .finish_non_exhaustive()
    }
}

impl Gdl {
    /// Compiles the rules of a game (the list of facts and rules of a START message).
    pub fn from_sexprs(rules: &[Sexpr]) -> Result<Gdl, GdlError> {
        let odd = rules.iter().filter(|r| rules::odd_declaration(r)).count();
        if odd > 0 {
            tracing::warn!(
                "{odd} base or input declarations with another number of arguments than GDL's \
                 (ggp-base's shorthand) are left out; the rules do not need them"
            );
        }
        Gdl::from_program(Program::compile(rules)?)
    }

    /// A `Gdl` answered by a compiled program (its network built later, if wanted).
    fn from_program(prog: Program) -> Result<Gdl, GdlError> {
        let role_ids: Vec<TermId> = prog.fixed(prog.kw.role).iter().map(|row| row[0]).collect();
        if role_ids.is_empty() {
            return Err(GdlError::NoRoles);
        }
        let roles = role_ids.iter().map(|&id| Term::known(id)).collect();
        let initial = State::from_fluents(
            prog.fixed(prog.kw.init)
                .iter()
                .map(|row| Term::known(row[0])),
        );
        Ok(Gdl {
            prog: Arc::new(prog),
            propnet: None,
            evaluator: None,
            several_goals: Arc::default(),
            roles,
            role_ids,
            initial,
        })
    }

    /// Compiles the text of a whole `.gdl` / `.kif` file.
    pub fn parse(text: &str) -> Result<Gdl, GdlError> {
        Gdl::from_sexprs(&Sexpr::parse_all(text)?)
    }

    /// [`Gdl::parse`], then [`Gdl::use_engine`]: an error if `engine` is
    /// [`Engine::Propnet`] and the network cannot be built.
    pub fn parse_with(text: &str, engine: Engine) -> Result<Gdl, GdlError> {
        let rules = Sexpr::parse_all(text)?;
        let mut gdl = Gdl::from_sexprs(&rules)?;
        gdl.use_engine(engine, None).map_err(GdlError::Propnet)?;
        Ok(gdl)
    }

    /// Chooses the model that answers the queries. With [`Engine::Auto`], a network that cannot be built (by
    /// `deadline`, if given) leaves the reasoner in charge and the reason is returned as
    /// `Ok(Some(why))`; with [`Engine::Propnet`] it is an error.
    pub fn use_engine(
        &mut self,
        engine: Engine,
        deadline: Option<Instant>,
    ) -> Result<Option<String>, String> {
        self.propnet = None;
        if engine == Engine::Reasoner {
            return Ok(None);
        }
        match self.build_network(deadline) {
            // A last check of the grounding: it must start where the reasoner does.
            Ok(net) if net.initial_state() != self.initial => {
                let why = "its initial state differs from the reasoner's".to_string();
                if engine == Engine::Auto {
                    Ok(Some(why))
                } else {
                    Err(why)
                }
            }
            Ok(net) => {
                self.propnet = Some(Arc::new(net));
                Ok(None)
            }
            Err(why) if engine == Engine::Auto => Ok(Some(why)),
            Err(why) => Err(why),
        }
    }

    /// [`Propnet::build`], given up at `deadline` if given: the build stops by itself
    /// soon after it in its longest phases, and is left to end on a thread of its own
    /// in the others (its result dropped), so that the caller answers in time.
    fn build_network(&self, deadline: Option<Instant>) -> Result<Propnet, String> {
        let Some(deadline) = deadline else {
            return Propnet::build(&self.prog, &self.roles, None);
        };
        let (sent, built) = mpsc::channel();
        let (prog, roles) = (Arc::clone(&self.prog), self.roles.clone());
        std::thread::spawn(move || {
            // Nobody listens once the deadline has passed.
            let _ = sent.send(Propnet::build(&prog, &roles, Some(deadline)));
        });
        match built.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => Err(propnet::NOT_IN_TIME.into()),
            Err(RecvTimeoutError::Disconnected) => Err("its build failed".into()),
        }
    }

    /// What answers the queries: `"propnet"` or `"reasoner"`.
    pub fn engine_name(&self) -> &'static str {
        if self.propnet.is_some() {
            "propnet"
        } else {
            "reasoner"
        }
    }

    /// Which model answers, for the log and the tools: the network with its size, or the
    /// reasoner with `fallback`, the reason [`Gdl::use_engine`] gave for not building one.
    pub fn model_description(&self, fallback: Option<&str>) -> String {
        match (&self.propnet, fallback) {
            (Some(net), _) => format!("propositional network ({})", net.describe()),
            (None, Some(why)) => format!("reasoner (no propositional network: {why})"),
            (None, None) => "reasoner".to_owned(),
        }
    }

    /// The same game answered by the reasoner alone (sharing its compiled rules, so
    /// that terms and states of one are terms and states of the other).
    pub fn reasoner_only(&self) -> Gdl {
        Gdl {
            propnet: None,
            ..self.clone()
        }
    }

    /// The same game with its network evaluated by `evaluator` (see
    /// [`Evaluator`]; the answers are the same, only their speed differs).
    pub fn with_evaluator(&self, evaluator: Evaluator) -> Gdl {
        Gdl {
            evaluator: Some(evaluator),
            ..self.clone()
        }
    }

    /// Joint moves from `state` (uniformly random, or the `limit`'s picks) until the
    /// game ends (terminal, or a role without legal moves) or the `limit`'s steps are
    /// played; `None` if its `stop` ended the playout first.
    pub fn playout(
        &self,
        state: &State,
        rng: &mut Rng,
        mut limit: PlayoutLimit,
    ) -> Option<PlayoutEnd> {
        if let Some(net) = &self.propnet
            && let Some(end) = net.playout(state, rng, &mut limit, self.evaluator)
        {
            return end;
        }
        let mut state = state.clone();
        for _ in 0..limit.max_steps {
            if (limit.stop)() {
                return None;
            }
            let a = self.analyse(&state);
            if a.terminal || a.legal.iter().any(Vec::is_empty) {
                return Some(PlayoutEnd {
                    goals: a.goals,
                    finished: true,
                });
            }
            let joint: Vec<Term> = a
                .legal
                .iter()
                .enumerate()
                .map(|(role, moves)| {
                    let i = match limit.pick.as_mut() {
                        Some(pick) => {
                            let keys: Vec<u32> =
                                moves.iter().map(|m| self.move_key(role, m)).collect();
                            pick(role, &keys, rng)
                        }
                        None => rand::RngExt::random_range(rng, 0..moves.len()),
                    };
                    moves[i].clone()
                })
                .collect();
            state = self.next_state(&state, &joint);
        }
        Some(PlayoutEnd {
            goals: self.goals(&state),
            finished: false,
        })
    }

    /// A number for role `role`'s move `m`, the same in every state, that playouts
    /// give [`PlayoutLimit::pick`]: its input proposition in the network where there is one, else
    /// the term's id (a hash for a term built during play, rare).
    pub fn move_key(&self, role: usize, m: &Term) -> u32 {
        if let Some(key) = self.propnet.as_ref().and_then(|p| p.move_key(role, m)) {
            return key;
        }
        m.known_id().unwrap_or_else(|| {
            use std::hash::{BuildHasher, BuildHasherDefault};
            let hash = BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(m);
            (hash as u32) | 1 << 31
        })
    }

    /// The roles, in the order of the `(role …)` facts (the order of joint moves).
    pub fn roles(&self) -> &[Term] {
        &self.roles
    }

    /// The roles as text, in role order.
    pub fn role_names(&self) -> Vec<String> {
        self.roles.iter().map(|r| self.display(r)).collect()
    }

    /// The index of the role spelt `name` (compared without regard to case).
    pub fn role_index(&self, name: &str) -> Option<usize> {
        let sym = self.prog.symbols.get(name)?;
        self.role_ids.iter().position(|&id| id == sym)
    }

    /// The state given by the `init` facts.
    pub fn initial_state(&self) -> State {
        self.initial.clone()
    }

    /// The legal moves of role number `role` (sorted); none for an unknown role.
    pub fn legal_moves(&self, state: &State, role: usize) -> Vec<Term> {
        let Some(&rid) = self.role_ids.get(role) else {
            return Vec::new();
        };
        if let Some(a) = self.net_analysis(state) {
            return a.legal.into_iter().nth(role).unwrap_or_default();
        }
        let ev = self.prog.evaluate(Query::Legal, &state.fluents, &[]);
        self.moves_of(&ev, rid)
    }

    /// The legal moves of every role, in role order.
    pub fn all_legal_moves(&self, state: &State) -> Vec<Vec<Term>> {
        if let Some(a) = self.net_analysis(state) {
            return a.legal;
        }
        let ev = self.prog.evaluate(Query::Legal, &state.fluents, &[]);
        self.role_ids
            .iter()
            .map(|&r| self.moves_of(&ev, r))
            .collect()
    }

    fn moves_of(&self, ev: &prover::Evaluation, role: TermId) -> Vec<Term> {
        let mut moves: Vec<Term> = ev
            .table(self.prog.kw.legal)
            .iter()
            .filter(|row| row[0] == role)
            .map(|row| ev.export(row[1]))
            .collect();
        moves.sort_unstable();
        moves
    }

    /// The state after the joint move `joint` (one move per role, in role order). The
    /// moves are not checked for legality; use [`Gdl::legal_moves`] for that.
    pub fn next_state(&self, state: &State, joint: &[Term]) -> State {
        if let Some(next) = self
            .propnet
            .as_ref()
            .and_then(|p| p.next_state(state, joint, self.evaluator))
        {
            return next;
        }
        let does: Vec<(TermId, &Term)> = self.role_ids.iter().copied().zip(joint).collect();
        let ev = self.prog.evaluate(Query::Next, &state.fluents, &does);
        State::from_fluents(
            ev.table(self.prog.kw.next)
                .iter()
                .map(|row| ev.export(row[0])),
        )
    }

    pub fn is_terminal(&self, state: &State) -> bool {
        if let Some(a) = self.net_analysis(state) {
            return a.terminal;
        }
        let ev = self.prog.evaluate(Query::Terminal, &state.fluents, &[]);
        ev.table(self.prog.kw.terminal).len() > 0
    }

    /// Per role: its goal value in `state`, `None` where the rules give no whole number.
    /// Rules that give a role several values in one state are faulty; the highest counts
    /// (as in other GGP systems), and the first such state is logged.
    pub fn goals(&self, state: &State) -> Vec<Option<u32>> {
        if let Some(a) = self.net_analysis(state) {
            return a.goals;
        }
        let ev = self.prog.evaluate(Query::Goal, &state.fluents, &[]);
        self.goals_of(&ev)
    }

    /// Per role: every whole-number goal value the rules give it in `state`, ascending.
    /// More than one is a fault of the rules ([`Gdl::goals`] counts the highest); the
    /// referee records them.
    pub fn goal_values(&self, state: &State) -> Vec<Vec<u32>> {
        let ev = self.prog.evaluate(Query::Goal, &state.fluents, &[]);
        let goal = ev.table(self.prog.kw.goal);
        self.role_ids
            .iter()
            .map(|&r| {
                let mut values: Vec<u32> = goal
                    .iter()
                    .filter(|row| row[0] == r)
                    .filter_map(|row| ev.number(row[1]))
                    .collect();
                values.sort_unstable();
                values.dedup();
                values
            })
            .collect()
    }

    fn goals_of(&self, ev: &prover::Evaluation) -> Vec<Option<u32>> {
        let goal = ev.table(self.prog.kw.goal);
        self.role_ids
            .iter()
            .map(|&r| {
                let values = goal
                    .iter()
                    .filter(|row| row[0] == r)
                    .map(|row| ev.number(row[1]));
                highest_goal(values, &self.several_goals)
            })
            .collect()
    }

    /// [`Gdl::analyse`] by the network, where there is one and it knows `state`.
    fn net_analysis(&self, state: &State) -> Option<Analysis> {
        self.propnet.as_ref()?.analyse(state, self.evaluator)
    }

    /// Terminal, legal moves and goals of `state` in one evaluation (cheaper than asking
    /// for each separately).
    pub fn analyse(&self, state: &State) -> Analysis {
        if let Some(a) = self.net_analysis(state) {
            return a;
        }
        let ev = self.prog.evaluate(Query::All, &state.fluents, &[]);
        Analysis {
            terminal: ev.table(self.prog.kw.terminal).len() > 0,
            legal: self
                .role_ids
                .iter()
                .map(|&r| self.moves_of(&ev, r))
                .collect(),
            goals: self.goals_of(&ev),
        }
    }

    /// Reads a ground term (a move from the wire, a fluent) in this game's symbols,
    /// without regard to case.
    pub fn term_from_sexpr(&self, s: &Sexpr) -> Result<Term, GdlError> {
        self.read_term(s, 0)
    }

    /// [`Gdl::term_from_sexpr`] of a text such as `(move 1 2 1 3)`.
    pub fn parse_term(&self, text: &str) -> Result<Term, GdlError> {
        self.term_from_sexpr(&Sexpr::parse(text)?)
    }

    fn read_term(&self, s: &Sexpr, depth: u32) -> Result<Term, GdlError> {
        let not_a_term = |reason: &str| GdlError::NotATerm {
            term: error::quote(s),
            reason: reason.to_string(),
        };
        if depth > MAX_TERM_DEPTH {
            return Err(not_a_term("nested too deeply"));
        }
        let symbol = |name: &str| -> Result<u32, GdlError> {
            if name.starts_with('?') {
                return Err(not_a_term("it contains a variable"));
            }
            self.prog
                .symbols
                .get(name)
                .ok_or_else(|| GdlError::UnknownSymbol(name.to_string()))
        };
        let (name, args) = match s {
            Sexpr::Atom(a) => return Ok(Term::known(symbol(a)?)),
            Sexpr::List(items) => match items.split_first() {
                Some((Sexpr::Atom(name), args)) => (name, args),
                _ => return Err(not_a_term("a compound term starts with a symbol")),
            },
        };
        let f = symbol(name)?;
        if args.is_empty() {
            return Ok(Term::known(f));
        }
        let args = args
            .iter()
            .map(|a| self.read_term(a, depth + 1))
            .collect::<Result<Vec<Term>, _>>()?;
        let ids: Option<Vec<TermId>> = args.iter().map(Term::known_id).collect();
        match ids.and_then(|ids| self.prog.terms.find(f, &ids)) {
            Some(id) => Ok(Term::known(id)),
            None => Ok(Term::compound(f, args)),
        }
    }

    /// A term as an S-expression, with symbols spelt as in the rules (the first spelling
    /// seen), ready to send to a controller.
    pub fn term_to_sexpr(&self, t: &Term) -> Sexpr {
        use term::Store as _;
        let (f, args): (u32, Vec<Term>) = match t.shape() {
            Shape::Known(id) => {
                if !self.prog.terms.valid(id) {
                    return Sexpr::atom("?invalid");
                }
                let (f, args) = self.prog.terms.node(id);
                (f, args.iter().map(|&a| Term::known(a)).collect())
            }
            Shape::Compound(f, args) => (f, args.to_vec()),
        };
        if f as usize >= self.prog.symbols.len() {
            return Sexpr::atom("?invalid");
        }
        let name = Sexpr::atom(self.prog.symbols.name(f));
        if args.is_empty() {
            return name;
        }
        let mut items = vec![name];
        items.extend(args.iter().map(|a| self.term_to_sexpr(a)));
        Sexpr::list(items)
    }

    /// A term as text, e.g. `(move 1 2 1 3)`.
    pub fn display(&self, t: &Term) -> String {
        self.term_to_sexpr(t).to_string()
    }
}

#[cfg(test)]
mod tests;
