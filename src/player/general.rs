//! A match of any game, followed and played by the GDL reasoner: the fallback for rules
//! that are not Breakthrough, or that the bitboard engine does not model (the course
//! rules on size-10 boards).
//!
//! Every role moves at every step, as GDL has it: when we have a single legal move
//! (`noop` while the other side moves) it is the reply, at once; otherwise a Monte-Carlo
//! tree search ([`crate::mcts`]) chooses, on as many trees as it is given threads, or a
//! uniformly random move for the random agent. A game solved by the meta-gaming
//! ([`super::meta`]) is answered from its solution at once where it is a puzzle or won;
//! where it gives a draw, the tree search chooses among the moves that keep it. The reply
//! is always one of our legal moves in the rules' spelling.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use tracing::warn;

use super::meta::{Meta, Until};
use super::session::{
    Fallback, JointMoveError, MatchInfo, MatchSession, MatchState, Ponder, Reply, StartError,
};
use crate::agent::{AgentConfig, AgentKind};
use crate::gdl::{Analysis, Gdl, State, Term};
use crate::mcts::forest::{Ended, Forest};
use crate::mcts::{Budget, Evaluator, Playouts};
use crate::search::Limits;
use crate::sexpr::Sexpr;
use crate::web::grid_axes::{self, GridAxes};
use crate::web::observe::{SearchFigures, Snapshot};

/// What guides the tree's search besides its playouts: the goals' cut-off, the
/// heuristic's cut playouts and the heuristic's progressive bias.
type Guides = (
    Option<usize>,
    Option<(usize, Evaluator<State>)>,
    Option<(f64, Evaluator<State>)>,
);

/// One match played by the reasoner.
pub struct GeneralSession {
    info: MatchInfo,
    /// Our role's index among the rules' roles.
    pub us: usize,
    gdl: Arc<Gdl>,
    position: State,
    /// Terminal, legal moves and goals of `position`.
    analysis: Analysis,
    /// The search trees (one per thread), kept between turns; `None` for the random agent.
    tree: Option<Arc<Mutex<Forest<Arc<Gdl>>>>>,
    /// The meta-gaming, for the agents that search.
    meta: Option<Arc<Mutex<Meta>>>,
    /// Iterations per search at most (`--iterations`).
    iterations: Option<u64>,
    /// Threads a search may use at most.
    threads: usize,
    /// The match's memory share, MiB: the trees' once no solution is sought.
    memory_mb: usize,
    /// The random agent's generator.
    rng: crate::rng::Rng,
    /// The figures of our last move search, until the page takes them.
    figures: Arc<Mutex<Option<SearchFigures>>>,
    /// Why our last move search ended.
    ended: Arc<Mutex<Option<Ended>>>,
    /// How the rules lay out the state's grid, for the page.
    grid_axes: Vec<GridAxes>,
}

/// A search of the tree for our move, or to grow it while no reply is due.
struct Search {
    gdl: Arc<Gdl>,
    tree: Arc<Mutex<Forest<Arc<Gdl>>>>,
    meta: Option<Arc<Mutex<Meta>>>,
    threads: usize,
    /// The match's memory share, MiB: the trees' once no solution is sought.
    memory_mb: usize,
    position: State,
    us: usize,
    legal: Vec<Term>,
    iterations: Option<u64>,
    play_clock: Duration,
    /// Where a move search (not a ponder) leaves its figures.
    figures: Option<Arc<Mutex<Option<SearchFigures>>>>,
    /// Where a move search leaves why it ended.
    ended: Arc<Mutex<Option<Ended>>>,
    /// Where a move search publishes its tree's choice as it goes, for the answer if it
    /// overruns.
    published: Option<Arc<Mutex<Option<Term>>>>,
}

impl GeneralSession {
    /// A new match of `gdl`, where we play `role` (compared without regard to case).
    pub fn new(
        match_id: &str,
        role: &str,
        gdl: Gdl,
        play_clock: Duration,
        agent: AgentConfig,
    ) -> Result<GeneralSession, StartError> {
        let us = gdl
            .role_index(role)
            .ok_or_else(|| StartError::UnknownRole {
                role: role.to_owned(),
                roles: roles_text(&gdl),
            })?;
        let gdl = Arc::new(gdl);
        let position = gdl.initial_state();
        let analysis = gdl.analyse(&position);
        let searches = matches!(agent.kind, AgentKind::Alphabeta | AgentKind::Mcts);
        // The solution of a single-player game, or of a two-player one, takes half the
        // memory while it is sought, the trees the rest; if it is given up, the trees
        // take all of it.
        let puzzle_mb = if gdl.roles().len() <= 2 {
            agent.hash_mb / 2
        } else {
            0
        };
        let tree = searches.then(|| {
            let mb = agent.hash_mb - puzzle_mb;
            Arc::new(Mutex::new(
                Forest::new(gdl.clone(), agent.seed, mb, agent.threads)
                    .with_playouts(agent.playouts)
                    .with_rave(agent.rave)
                    .with_transpositions(agent.transpositions)
                    .with_transposition_values(agent.transposition_values)
                    .with_shared_proofs(agent.shared_proofs),
            ))
        });
        let meta = searches.then(|| {
            let bytes = puzzle_mb.max(1) << 20;
            let meta = Meta::new(gdl.clone(), bytes, agent.cutoff, agent.playouts, agent.seed)
                .with_heuristics(agent.heuristics, agent.progressive_bias.get());
            Arc::new(Mutex::new(meta))
        });
        Ok(GeneralSession {
            info: MatchInfo::new(match_id, role, play_clock),
            us,
            gdl,
            position,
            analysis,
            tree,
            iterations: agent.iterations,
            meta,
            threads: agent.threads.max(1),
            memory_mb: agent.hash_mb,
            rng: crate::rng::seeded(agent.seed),
            figures: Arc::default(),
            ended: Arc::default(),
            grid_axes: Vec::new(),
        })
    }

    /// Reads from the START's `rules` how they lay out the state's grid, for the page.
    pub fn with_rules_layout(mut self, rules: &[Sexpr]) -> GeneralSession {
        self.grid_axes = grid_axes::of_rules(rules);
        self
    }

    /// The roles with a choice to make now: a move other than a lone `noop`.
    fn roles_to_move(&self) -> Vec<usize> {
        if self.analysis.terminal {
            return Vec::new();
        }
        let lone_noop = |moves: &[Term]| {
            moves.len() == 1 && self.gdl.display(&moves[0]).eq_ignore_ascii_case("noop")
        };
        (0..self.analysis.legal.len())
            .filter(|&r| !self.analysis.legal[r].is_empty() && !lone_noop(&self.analysis.legal[r]))
            .collect()
    }

    pub fn is_over(&self) -> bool {
        self.analysis.terminal
    }

    /// `moves` read as the rules' terms, each checked against its role's legal moves.
    fn joint(&self, moves: &[Sexpr]) -> Result<Vec<Term>, JointMoveError> {
        let roles = self.gdl.roles();
        if moves.len() != roles.len() {
            return Err(JointMoveError::WrongCount {
                expected: roles.len(),
                got: moves.len(),
            });
        }
        if self.analysis.terminal {
            return Err(JointMoveError::AfterTheEnd);
        }
        let mut joint = Vec::with_capacity(roles.len());
        for (i, m) in moves.iter().enumerate() {
            let not_legal = |reason: String| JointMoveError::NotLegal {
                role: self.gdl.display(&roles[i]),
                term: m.to_string(),
                reason,
            };
            let term = self
                .gdl
                .term_from_sexpr(m)
                .map_err(|e| not_legal(e.to_string()))?;
            if !self.analysis.legal[i].contains(&term) {
                return Err(not_legal(
                    "not among its legal moves in the rules".to_owned(),
                ));
            }
            joint.push(term);
        }
        Ok(joint)
    }

    /// Why our last move search ended (a ponder leaves nothing).
    pub fn last_search_ended(&self) -> Option<Ended> {
        *self.ended.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Our move in the solution of a solved puzzle, or a winning one of a solved
    /// two-player game, if it has one here (none while a search holds the solution: it
    /// answers from it itself).
    fn solved_move(&self) -> Option<Term> {
        let meta = self.meta.as_ref()?.try_lock().ok()?;
        meta.answer(&self.position, self.us)
            .filter(|m| self.analysis.legal[self.us].contains(m))
    }

    /// A search of the current position in `tree`; a move search (`record`) leaves its
    /// figures for [`MatchSession::take_figures`].
    fn search(&self, tree: Arc<Mutex<Forest<Arc<Gdl>>>>, record: bool) -> Search {
        Search {
            figures: record.then(|| self.figures.clone()),
            ended: self.ended.clone(),
            published: record.then(Arc::default),
            gdl: self.gdl.clone(),
            tree,
            meta: self.meta.clone(),
            threads: self.threads,
            memory_mb: self.memory_mb,
            position: self.position.clone(),
            us: self.us,
            iterations: self.iterations,
            play_clock: self.info.play_clock,
            legal: self
                .analysis
                .legal
                .get(self.us)
                .cloned()
                .unwrap_or_default(),
        }
    }
}

impl MatchSession for GeneralSession {
    fn info(&self) -> &MatchInfo {
        &self.info
    }

    fn info_mut(&mut self) -> &mut MatchInfo {
        &mut self.info
    }

    fn our_role_index(&self) -> usize {
        self.us
    }

    fn model(&self) -> &'static str {
        self.gdl.engine_name()
    }

    /// Named as the agent configuration names the one that plays here.
    fn agent(&self) -> String {
        let kind = match self.tree {
            Some(_) => AgentKind::Mcts,
            None => AgentKind::Random,
        };
        let plays = AgentConfig {
            kind,
            iterations: self.iterations,
            ..AgentConfig::default()
        };
        plays.to_string()
    }

    /// Each term must be a legal move of its role.
    fn step(&mut self, moves: &[Sexpr]) -> Result<(), JointMoveError> {
        let joint = self.joint(moves)?;
        self.position = self.gdl.next_state(&self.position, &joint);
        self.analysis = self.gdl.analyse(&self.position);
        Ok(())
    }

    fn reply(&mut self) -> Reply {
        let ours = match (&self.info.state, self.analysis.terminal) {
            (MatchState::Active, false) => &self.analysis.legal[self.us],
            (MatchState::Active, true) => {
                warn!(
                    match_id = self.info.match_id,
                    "PLAY after the end of the game in our model: replying noop"
                );
                return Reply::Now("noop".to_owned());
            }
            _ => return Reply::Now("noop".to_owned()),
        };
        let text = |m: &Term| self.gdl.display(m);
        match (ours.as_slice(), &self.tree) {
            ([], _) => Reply::Now("noop".to_owned()),
            // Nothing to choose: the reply goes out at once, and the tree may grow on the
            // others' time.
            ([only], Some(_)) => Reply::Wait(text(only)),
            ([only], None) => Reply::Now(text(only)),
            (moves, None) => Reply::Now(
                moves
                    .choose(&mut self.rng)
                    .map_or_else(|| "noop".to_owned(), text),
            ),
            (_, Some(_)) if let Some(solved) = self.solved_move() => Reply::Now(text(&solved)),
            (_, Some(tree)) => {
                let search = self.search(tree.clone(), true);
                let match_id = self.info.match_id.clone();
                let (slot, gdl) = (search.published.clone(), self.gdl.clone());
                let fallback = Fallback::or_published(search.fallback(), move || {
                    let published = slot?.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    Some((gdl.display(&published?), None))
                });
                Reply::Search {
                    fallback,
                    search: Box::new(move |limits| search.run(&match_id, limits)),
                }
            }
        }
    }

    /// Grows the tree from the current position, so that a PLAY finds it grown; none for
    /// the random agent, or when the game is over or the match broken.
    fn ponder(&mut self) -> Option<Ponder> {
        if self.info.state != MatchState::Active || self.analysis.terminal {
            return None;
        }
        let search = self.search(self.tree.clone()?, false);
        let match_id = self.info.match_id.clone();
        Some(Box::new(move |limits| {
            // What moving the root drops is freed now, not on the next move's clock.
            let mut tree = search.tree.lock().unwrap_or_else(|e| e.into_inner());
            tree.advance(&search.position);
            tree.free_dropped(limits.stop.as_deref());
            drop(tree);
            drop(search.run(&match_id, limits));
        }))
    }

    fn tidy(&mut self) -> Option<Ponder> {
        let tree = self.tree.clone()?;
        Some(Box::new(move |limits| {
            let mut tree = tree.lock().unwrap_or_else(|e| e.into_inner());
            tree.free_dropped(limits.stop.as_deref());
        }))
    }

    /// The meta-gaming: the survey, the playouts' trial and the game's solution, until
    /// the start clock's deadline or done; the tree is grown after `ready`, by the ponder.
    fn prepare(&mut self) -> Option<Ponder> {
        if self.info.state != MatchState::Active || self.analysis.terminal {
            return None;
        }
        let search = self.search(self.tree.clone()?, false);
        let match_id = self.info.match_id.clone();
        Some(Box::new(move |limits| {
            let (deadline, stop) = bounds(limits);
            search.prepare(&match_id, deadline, &stop);
        }))
    }

    fn solved(&self) -> bool {
        self.meta
            .as_ref()
            .is_some_and(|m| m.lock().unwrap_or_else(|e| e.into_inner()).solved())
    }

    fn noop(&self) -> String {
        "noop".to_owned()
    }

    /// Every role's goal once the game is over in our model, in role order.
    fn goals(&self) -> Option<Vec<Option<u32>>> {
        (self.info.state == MatchState::Active && self.analysis.terminal)
            .then(|| self.analysis.goals.clone())
    }

    fn take_figures(&mut self) -> Option<SearchFigures> {
        self.figures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The board is the state's facts, one per line.
    fn snapshot(&self) -> Snapshot {
        let mut facts: Vec<String> = self
            .position
            .fluents()
            .iter()
            .map(|f| self.gdl.display(f))
            .collect();
        facts.sort();
        Snapshot {
            game: "gdl",
            roles: self.gdl.role_names(),
            us: self.us,
            board: facts.join("\n"),
            plies: self.info.plies,
            goals: self.goals(),
            broken: self.broken(),
            to_move: self.roles_to_move(),
            grid_axes: self.grid_axes.clone(),
        }
    }
}

impl Search {
    /// Our first legal move, as reply text: the answer when the search cannot give one.
    fn fallback(&self) -> String {
        self.legal
            .first()
            .map_or_else(|| "noop".to_owned(), |m| self.gdl.display(m))
    }

    /// Searches within `limits` (its hard deadline, stop flag and threads) and returns our
    /// move as reply text: the solution's move in a solved single-player game, else the
    /// trees' most visited legal move, else the first legal move. Only a solved or proven
    /// position answers before the deadline.
    fn run(self, match_id: &str, limits: &Limits) -> String {
        let (deadline, stop) = bounds(limits);
        let stop = &stop;
        if let Some(solved) = self.prepare(match_id, deadline, stop) {
            self.record_end(Ended::Proven);
            return self.gdl.display(&solved);
        }
        let (cutoff, heuristic, bias) = self.cutoff();
        let mut tree = self.tree.lock().unwrap_or_else(|e| e.into_inner());
        if !self.solution_held() {
            tree.set_memory(self.memory_mb);
        }
        tree.set_cutoff(cutoff);
        tree.set_heuristic(heuristic);
        tree.set_bias(bias);
        if let Some(playouts) = self.chosen_playouts() {
            tree.set_playouts(playouts);
        }
        let threads = limits.threads(self.threads);
        let budget = Budget {
            deadline: Some(deadline),
            stop: Some(stop),
            iterations: self.iterations,
        };
        let legal = &self.legal;
        let mut publish = self.published.as_ref().map(|slot| {
            let keeping = self.keeping();
            move |m: &Term| {
                if let Some(m) = publishable(legal, keeping.as_deref(), m) {
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(m.clone());
                }
            }
        });
        let publish = publish
            .as_mut()
            .map(|p| p as &mut (dyn FnMut(&Term) + Send));
        let (choice, ended) =
            tree.search_publishing(&self.position, self.us, budget, threads, publish);
        choice.log(match_id);
        tracing::debug!(match_id, threads, ?ended, "mcts search ended");
        self.record_end(ended);
        let best = choice.best.clone().filter(|m| self.legal.contains(m));
        let played = self.keep(match_id, best.clone());
        if let Some(slot) = &self.figures {
            // The line shown starts with the move played: the solution's alone, if it
            // overrode the tree's.
            let line = match played.as_ref().filter(|&m| Some(m) != best.as_ref()) {
                Some(m) => vec![self.gdl.display(m)],
                None => self.line_text(&choice.line),
            };
            let figures = SearchFigures::of_mcts(&choice, line);
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(figures);
        }
        match played {
            Some(m) => self.gdl.display(&m),
            None => self.fallback(),
        }
    }
}

/// What a move search publishes when its tree would choose `m`: the move itself if it is
/// legal and keeps what the solution gives us (`keeping`, as [`Search::keep`] has it),
/// else the solution's move.
fn publishable<'a>(legal: &[Term], keeping: Option<&'a [Term]>, m: &'a Term) -> Option<&'a Term> {
    match keeping {
        Some(kept) if !kept.contains(m) => kept.first(),
        _ => legal.contains(m).then_some(m),
    }
}

impl Search {
    /// The tree search's `choice`, unless the solution says it gives away what the
    /// position holds for us (a draw, say): then the solution's move.
    fn keep(&self, match_id: &str, choice: Option<Term>) -> Option<Term> {
        let Some(keeping) = self.keeping() else {
            return choice;
        };
        match choice {
            Some(m) if keeping.contains(&m) => Some(m),
            _ => {
                let kept = keeping.into_iter().next();
                tracing::info!(
                    match_id,
                    "the tree's move would give away the solution's value: playing {}",
                    kept.as_ref()
                        .map_or_else(String::new, |m| self.gdl.display(m))
                );
                kept
            }
        }
    }

    /// Our moves here that keep what the solution gives us ([`Meta::keeping`]); `None`
    /// where it allows any.
    fn keeping(&self) -> Option<Vec<Term>> {
        let meta = self.meta.as_ref()?;
        let meta = meta.lock().unwrap_or_else(|e| e.into_inner());
        meta.keeping(&self.position, self.us)
    }

    /// Leaves why a move search (not a ponder) ended.
    fn record_end(&self, ended: Ended) {
        if self.figures.is_some() {
            *self.ended.lock().unwrap_or_else(|e| e.into_inner()) = Some(ended);
        }
    }

    /// The meta-gaming before the tree search: the survey and the playouts' trial once,
    /// and the game's solution, sought in a share of the time to `deadline`
    /// ([`Meta::solving_share`]); its move here, if it is solved and answers at once
    /// ([`Meta::answer`]). Where no move is due (the preparation in START, a ponder) the
    /// trial takes at most half of what is left less a play clock, else a quarter of the
    /// move's time.
    fn prepare(&self, match_id: &str, deadline: Instant, stop: &AtomicBool) -> Option<Term> {
        let mut meta = self
            .meta
            .as_ref()?
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let left = deadline.saturating_duration_since(now);
        let until = match self.figures {
            Some(_) => Until {
                all: now + left / meta.solving_share(false),
                trial: now + left / 4,
            },
            None => Until {
                all: now + left / meta.solving_share(true),
                trial: now + left.saturating_sub(self.play_clock) / 2,
            },
        };
        meta.prepare(&self.position, until, stop, match_id);
        meta.answer(&self.position, self.us)
            .filter(|m| self.legal.contains(m))
    }

    /// Whether the meta-gaming holds (or still seeks) a solution, in its share of the
    /// memory.
    fn solution_held(&self) -> bool {
        self.meta
            .as_ref()
            .is_some_and(|m| m.lock().unwrap_or_else(|e| e.into_inner()).holds_solution())
    }

    /// Where the meta-gaming cuts the playouts: by the goals ([`crate::mcts::cutoff`])
    /// and by a heuristic ([`crate::mcts::heuristic`]); and the heuristic's progressive
    /// bias of the selection, if it has one instead.
    fn cutoff(&self) -> Guides {
        let Some(meta) = self.meta.as_ref() else {
            return (None, None, None);
        };
        let meta = meta.lock().unwrap_or_else(|e| e.into_inner());
        (meta.cutoff(), meta.heuristic(), meta.bias())
    }

    /// The playouts the meta-gaming's trial chose, once made.
    fn chosen_playouts(&self) -> Option<Playouts> {
        let meta = self
            .meta
            .as_ref()?
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        meta.playouts()
    }

    /// A best line in the rules' spelling: each step the moves of the roles that move
    /// (not `noop`), separated by ` / ` when several do at once.
    fn line_text(&self, line: &[Vec<Term>]) -> Vec<String> {
        line.iter()
            .map(|step| {
                let shown: Vec<String> = step.iter().map(|m| self.gdl.display(m)).collect();
                let moving: Vec<&str> = shown
                    .iter()
                    .map(String::as_str)
                    .filter(|m| !m.eq_ignore_ascii_case("noop"))
                    .collect();
                if moving.is_empty() {
                    shown.join(" / ")
                } else {
                    moving.join(" / ")
                }
            })
            .collect()
    }
}

fn roles_text(gdl: &Gdl) -> String {
    gdl.role_names().join(", ")
}

/// The deadline and stop flag of `limits`: a year away, and a flag of its own, where it
/// has none.
fn bounds(limits: &Limits) -> (Instant, Arc<AtomicBool>) {
    let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
    let stop = limits.stop.clone().unwrap_or_default();
    (limits.hard_deadline.unwrap_or(far), stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::choice::Verdict;
    use crate::player::session::Answer;
    use std::sync::atomic::Ordering;

    fn session(file: &str, role: &str, agent: AgentConfig) -> GeneralSession {
        let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
        let gdl = Gdl::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let d = Duration::from_secs(1);
        GeneralSession::new("m", role, gdl, d, agent).unwrap()
    }

    /// Plays `s` to the end against `theirs` (an opponent's move, given its role and a
    /// generator drawn from `seed`), our moves searched for `ms` milliseconds each unless
    /// answered at once; the goals, and whether every one of our moves was answered at
    /// once.
    fn play_out(
        s: &mut GeneralSession,
        theirs: impl Fn(&GeneralSession, usize, &mut crate::rng::Rng) -> Term,
        seed: u64,
        ms: u64,
    ) -> (Vec<u32>, bool) {
        let mut rng = crate::rng::seeded(Some(seed));
        let mut at_once = true;
        while !s.is_over() {
            let mut joint = Vec::new();
            for role in 0..s.analysis.legal.len() {
                let mv = if role == s.us {
                    match s.reply() {
                        Reply::Now(mv) | Reply::Wait(mv) => mv,
                        Reply::Search { search, .. } => {
                            at_once = false;
                            let mv = search(&within(ms));
                            // The page's line for the search starts with the move played.
                            if let Some(f) = s.take_figures() {
                                assert_eq!(f.pv.first(), Some(&mv), "{f:?}");
                            }
                            mv
                        }
                    }
                } else {
                    s.gdl.display(&theirs(s, role, &mut rng))
                };
                joint.push(Sexpr::parse(&mv).unwrap());
            }
            s.apply(Some(&joint)).unwrap();
        }
        let goals = s.goals().unwrap().into_iter().map(Option::unwrap);
        (goals.collect(), at_once)
    }

    /// A uniformly random legal move of `role`.
    fn random(s: &GeneralSession, role: usize, rng: &mut crate::rng::Rng) -> Term {
        s.analysis.legal[role].choose(rng).unwrap().clone()
    }

    #[test]
    fn won_nim_solved_in_the_start_clock_is_answered_from_its_solution_and_won() {
        let path = format!("{}/gdl/nim.gdl", env!("CARGO_MANIFEST_DIR"));
        let gdl = Gdl::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        // Heaps of 3, 4, 5 and 6 counters: their nim-sum is 4, so first wins.
        let start = crate::mcts::nim(&gdl, [3, 4, 5, 6], "first");
        // A random opponent that takes every chance we give it: a move to heaps of
        // nim-sum zero, where there is one.
        let punishing = |s: &GeneralSession, role: usize, rng: &mut crate::rng::Rng| {
            let legal = &s.analysis.legal[role];
            let to_zero = legal.iter().find(|&m| {
                let mut joint = vec![m.clone(); 2];
                joint[s.us] = s.analysis.legal[s.us][0].clone();
                let after = s.gdl.next_state(&s.position, &joint);
                crate::mcts::nim_sum(&s.gdl, &after).0 == 0
            });
            to_zero.cloned().unwrap_or_else(|| random(s, role, rng))
        };
        for seed in 0..4 {
            let d = Duration::from_secs(1);
            let gdl = Gdl::clone(&gdl);
            let mut s = GeneralSession::new("m", "first", gdl, d, AgentConfig::default()).unwrap();
            s.position = start.clone();
            s.analysis = s.gdl.analyse(&start);
            s.ponder().unwrap()(&within(20_000));
            assert!(s.meta.clone().unwrap().lock().unwrap().solved());
            let (goals, at_once) = play_out(&mut s, punishing, seed, 50);
            assert_eq!(goals, [100, 0], "seed {seed}");
            assert!(at_once, "seed {seed}: a move was searched");
        }
    }

    #[test]
    fn solved_tic_tac_toe_never_loses_even_with_a_one_iteration_tree() {
        // One iteration a move: the tree's choice is nearly random, and only the solution
        // keeps the draw (and takes a win the opponent gives away).
        let weak = AgentConfig {
            iterations: Some(1),
            seed: Some(1),
            ..AgentConfig::default()
        };
        for seed in 0..6 {
            let role = ["xplayer", "oplayer"][seed as usize % 2];
            let mut s = session("tictactoe.gdl", role, weak);
            assert_eq!(s.agent(), "mcts(1 iterations)");
            s.ponder().unwrap()(&within(20_000));
            assert!(s.meta.clone().unwrap().lock().unwrap().solved());
            let us = s.us;
            let (goals, _) = play_out(&mut s, random, seed, 1_000);
            assert!(goals[us] >= 50, "seed {seed} as {role}: {goals:?}");
        }
    }

    fn moves(text: &str) -> Vec<Sexpr> {
        Sexpr::parse(text).unwrap().as_list().unwrap().to_vec()
    }

    fn now(r: Reply) -> String {
        match r {
            Reply::Now(text) => text,
            _ => panic!("expected an immediate reply"),
        }
    }

    fn within(ms: u64) -> Limits {
        Limits::until(Instant::now() + Duration::from_millis(ms))
    }

    #[test]
    fn follows_tic_tac_toe_and_replies_noop_at_once_when_not_to_move() {
        let mut s = session("tictactoe.gdl", "OPLAYER", AgentConfig::default());
        assert_eq!(s.us, 1);
        // The default agent is alpha-beta, which the reasoner plays by MCTS.
        assert_eq!(s.agent(), "mcts");
        // x's turn: noop at once, and the tree may grow meanwhile.
        let Reply::Wait(reply) = s.reply() else {
            panic!("expected noop while x moves, with pondering");
        };
        assert_eq!(reply, "noop");
        s.apply(Some(&moves("((MARK 2 2) NOOP)"))).unwrap();
        let Reply::Search { search, .. } = s.reply() else {
            panic!("o has eight moves");
        };
        // Long enough for a tree of some iterations beside the solver's share on a
        // loaded machine.
        let reply = search(&within(1000));
        assert!(reply.starts_with("(mark "), "{reply}");
        // The search leaves its figures once: our move first in its line.
        let f = s.take_figures().expect("a move search leaves figures");
        assert_eq!((f.method, f.pv[0].as_str()), ("mcts", reply.as_str()));
        assert!(f.nodes >= 1 && f.depth as usize == f.pv.len(), "{f:?}");
        assert!((0.0..=1.0).contains(&f.win_rate.unwrap()), "{f:?}");
        assert_eq!(s.take_figures(), None);
        s.apply(Some(&[Sexpr::atom("noop"), Sexpr::parse(&reply).unwrap()]))
            .unwrap();
        assert_eq!(s.info().plies, 2);
        assert_eq!(s.goals(), None);
    }

    #[test]
    fn the_trees_take_the_whole_memory_once_the_solution_is_given_up() {
        let agent = AgentConfig {
            hash_mb: 2,
            seed: Some(3),
            ..AgentConfig::default()
        };
        let mut s = session("connect_four.gdl", "red", agent);
        let tree = s.tree.clone().unwrap();
        let bound = || tree.lock().unwrap().memory().0;
        assert_eq!(bound(), 1 << 20, "half for the solution while it is sought");
        // Connect four does not fit in 1 MiB: the solver gives it up within a few
        // searches (a quarter of each).
        let meta = s.meta.clone().unwrap();
        let held = || meta.lock().unwrap().holds_solution();
        for _ in 0..20 {
            if !held() {
                break;
            }
            let Reply::Search { search, .. } = s.reply() else {
                panic!("red has seven moves");
            };
            search(&within(1_000));
        }
        assert!(!held(), "connect four's solution was not given up");
        assert_eq!(bound(), 2 << 20, "the trees did not take the freed memory");
    }

    #[test]
    fn refuses_illegal_joint_moves_and_unknown_roles() {
        for bad in [
            "((mark 2 2))",
            "((mark 2 2) noop noop)",
            "((mark 2 2) (mark 1 1))",
            "((mark 4 4) noop)",
            "((jump 1 1) noop)",
        ] {
            let mut s = session("tictactoe.gdl", "xplayer", AgentConfig::default());
            assert!(s.apply(Some(&moves(bad))).is_err(), "{bad}");
            assert!(matches!(s.info().state, MatchState::Broken(_)));
            assert_eq!(now(s.reply()), "noop");
        }
        let path = format!("{}/gdl/tictactoe.gdl", env!("CARGO_MANIFEST_DIR"));
        let gdl = Gdl::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let d = Duration::from_secs(1);
        let e = GeneralSession::new("m", "white", gdl, d, AgentConfig::default())
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "role 'white' is not one of the rules' roles (xplayer, oplayer)"
        );
    }

    #[test]
    fn the_random_agent_replies_at_once_with_legal_moves() {
        let random = AgentConfig {
            kind: AgentKind::Random,
            seed: Some(7),
            ..AgentConfig::default()
        };
        let mut s = session("lowest_unique.gdl", "blue", random);
        assert_eq!(s.agent(), "random");
        assert!(s.ponder().is_none());
        let mv = now(s.reply());
        assert!(
            ["(pick 1)", "(pick 2)", "(pick 3)"].contains(&mv.as_str()),
            "{mv}"
        );
        s.apply(Some(&moves("((pick 1) (pick 1) (pick 3))")))
            .unwrap();
        assert!(s.is_over());
        assert_eq!(s.goals(), Some(vec![Some(0), Some(0), Some(100)]));
    }

    #[test]
    fn a_move_search_answers_at_its_deadline_unless_its_position_is_proven() {
        let mut s = session("connect_four.gdl", "red", AgentConfig::default());
        let Reply::Search { search, .. } = s.reply() else {
            panic!("red has seven moves");
        };
        let reply = search(&within(500));
        assert!(
            s.analysis.legal[0]
                .iter()
                .any(|m| s.gdl.display(m) == reply)
        );
        assert_eq!(s.last_search_ended(), Some(Ended::Deadline));
        // x to play with 1 1 and 2 2 against o's 1 2 and 1 3: the win at 3 3 is proven,
        // and answered long before the clock's end.
        let mut s = session("tictactoe.gdl", "xplayer", AgentConfig::default());
        for joint in [
            "((mark 1 1) noop)",
            "(noop (mark 1 2))",
            "((mark 2 2) noop)",
            "(noop (mark 1 3))",
        ] {
            s.apply(Some(&moves(joint))).unwrap();
        }
        let Reply::Search { search, .. } = s.reply() else {
            panic!("x has five moves");
        };
        assert_eq!(search(&within(600_000)), "(mark 3 3)");
        assert_eq!(s.last_search_ended(), Some(Ended::Proven));
    }

    #[test]
    fn a_puzzle_solved_in_the_start_clock_is_answered_from_its_solution() {
        let mut s = session("lamps.gdl", "solver", AgentConfig::default());
        assert!(matches!(s.reply(), Reply::Search { .. }), "not solved yet");
        // The start clock's search: the survey, then the solution (the search ends once
        // it has it).
        let ponder = s.ponder().unwrap();
        ponder(&within(5_000));
        let meta = s.meta.clone().unwrap();
        let survey = meta.lock().unwrap().survey().unwrap();
        assert!(survey.single_player() && meta.lock().unwrap().solved());
        for _ in 0..6 {
            let mv = now(s.reply());
            assert!(mv.starts_with("(press "), "{mv}");
            s.apply(Some(&[Sexpr::parse(&mv).unwrap()])).unwrap();
        }
        assert_eq!(s.goals(), Some(vec![Some(100)]));
    }

    #[test]
    fn auto_playouts_are_chosen_in_the_start_clock_and_played_by_the_tree() {
        let auto = AgentConfig {
            playouts: Playouts::Auto,
            seed: Some(3),
            ..AgentConfig::default()
        };
        let mut s = session("tictactoe.gdl", "xplayer", auto);
        let tree = s.tree.clone().unwrap();
        assert_eq!(
            tree.lock().unwrap().playouts(),
            Playouts::Mast,
            "until chosen"
        );
        // The start clock's ponder (its deadline a play clock, 1 s, past the start
        // clock's end): the trial, then the tree's search with the chosen playouts.
        let ponder = s.ponder().unwrap();
        ponder(&within(3_000));
        let chosen = s.meta.clone().unwrap().lock().unwrap().playouts();
        let chosen = chosen.expect("a verdict once the start clock's ponder ran");
        assert!(matches!(chosen, Playouts::Mast | Playouts::Random));
        assert_eq!(tree.lock().unwrap().playouts(), chosen);
        // A verdict for random playouts turns the tree's MAST off at its next search.
        let mut s = session("tictactoe.gdl", "xplayer", auto);
        let random = Verdict {
            playouts: Playouts::Random,
            games: 2,
            iterations: 50,
            mast: 0.0,
            random: 1.0,
        };
        s.meta.clone().unwrap().lock().unwrap().set_verdict(random);
        s.ponder().unwrap()(&within(200));
        let tree = s.tree.clone().unwrap();
        assert_eq!(tree.lock().unwrap().playouts(), Playouts::Random);
        // With MAST asked for, no trial is made.
        let mast = AgentConfig {
            playouts: Playouts::Mast,
            ..AgentConfig::default()
        };
        let mut s = session("tictactoe.gdl", "xplayer", mast);
        s.ponder().unwrap()(&within(200));
        assert_eq!(s.meta.clone().unwrap().lock().unwrap().playouts(), None);
    }

    /// A published move is legal, and where a solution holds a draw, one that keeps it
    /// (the solution's own move in place of one that does not), as the move played is.
    #[test]
    fn a_published_move_is_legal_and_keeps_what_the_solution_gives() {
        let s = session("tictactoe.gdl", "xplayer", AgentConfig::default());
        let legal = s.analysis.legal[s.us].clone();
        let theirs = s.analysis.legal[1 - s.us][0].clone();
        let keeping = [legal[4].clone(), legal[0].clone()];
        assert_eq!(publishable(&legal, None, &legal[2]), Some(&legal[2]));
        assert_eq!(publishable(&legal, None, &theirs), None);
        assert_eq!(
            publishable(&legal, Some(&keeping), &legal[0]),
            Some(&legal[0])
        );
        assert_eq!(
            publishable(&legal, Some(&keeping), &legal[2]),
            Some(&legal[4])
        );
    }

    #[test]
    fn pondering_grows_the_tree_until_its_stop_flag() {
        let mut s = session("rps_well.gdl", "right", AgentConfig::default());
        let ponder = s.ponder().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let far = Limits::until(Instant::now() + Duration::from_secs(60)).with_stop(stop.clone());
        let worker = std::thread::spawn(move || ponder(&far));
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        stop.store(true, Ordering::Relaxed);
        worker.join().unwrap();
        let Reply::Search { search, fallback } = s.reply() else {
            panic!("four throws");
        };
        let Answer::Quick(fallback) = fallback.answer() else {
            panic!("the search has published nothing before it runs");
        };
        assert!(fallback.starts_with("(play "), "{fallback}");
        assert_eq!(s.take_figures(), None, "pondering leaves no figures");
        let mv = search(&within(50));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(mv.starts_with("(play "), "{mv}");
    }

    /// What moving the root drops is freed off the move's clock: by the ponder that
    /// moves it, or by the work left after the reply.
    #[test]
    fn a_move_leaves_its_dropped_nodes_to_the_ponder_or_the_tidying_after_it() {
        let agent = AgentConfig {
            iterations: Some(300),
            seed: Some(1),
            ..AgentConfig::default()
        };
        let mut s = session("connect_four.gdl", "red", agent);
        let tree = s.tree.clone().unwrap();
        let search = |s: &mut GeneralSession| match s.reply() {
            Reply::Search { search, .. } => search(&within(2_000)),
            _ => panic!("expected a search"),
        };
        let ours = search(&mut s);
        s.apply(Some(&moves(&format!("({ours} noop)")))).unwrap();
        assert!(matches!(s.reply(), Reply::Wait(_)));
        s.ponder().unwrap()(&within(2_000));
        assert_eq!(tree.lock().unwrap().held(), 0, "the ponder freed its drop");
        s.apply(Some(&moves("(noop (drop 4))"))).unwrap();
        search(&mut s);
        let held = tree.lock().unwrap().held();
        assert!(held > 0, "the search's drop is held");
        s.tidy().unwrap()(&within(2_000));
        assert_eq!(tree.lock().unwrap().held(), 0, "tidied");
    }
}
