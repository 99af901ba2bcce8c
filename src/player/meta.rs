//! The general player's meta-gaming: before its tree search, a match looks once at what
//! kind of game it plays (logged), with `--playouts auto` chooses its playouts by a
//! trial (logged, [`crate::mcts::choice`]), and a single-player game, or a two-player
//! game of moves in turn, is solved outright when its positions fit in memory
//! ([`crate::mcts::puzzle`]), so that later moves are answered from the solution. Where
//! the goal values say something before the end, the tree's playouts are cut short and
//! scored by them ([`crate::mcts::cutoff`], `--cutoff`). It runs in the start clock (before
//! START is answered, or at the first ponder or search with `--no-ponder`), on the
//! opponent's time and, while the game is not solved yet, in the
//! first half of each move search (a two-player game's first quarter: the tree search
//! plays while it is not solved).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tracing::{debug, info};

use crate::gdl::{Gdl, State, Term};
use crate::mcts::Playouts;
use crate::mcts::choice::{Trial, Verdict, choose};
use crate::mcts::cutoff::{self, CutoffSetting, Detection};
use crate::mcts::heuristic::{self, HeuristicSetting};
use crate::mcts::meta::Survey;
use crate::mcts::puzzle::{BEST, Puzzle, Unsolved};
use crate::mcts::walks::Walks;
use crate::mcts::{Evaluator, Timer};

/// The random walks' share of the time the meta-gaming is given, at most: the walks
/// the survey and the cut-off's detection both read, played once.
const WALKS_SHARE: u32 = 5;
/// The playouts' trial. At 200 iterations a move, 16 pairs of quick games chose random
/// playouts in connect four and MAST in the five games tried where MAST wins, from every
/// seed tried (at 50 iterations and 4 pairs, connect four's verdict was a coin toss).
/// Played whole they took 1.3 s in connect four and 20 s in reversi 6×6 (test profile),
/// where the clock cuts them short.
const TRIAL: Trial = Trial {
    iterations: 200,
    pairs: 16,
    least_pairs: 4,
};

/// One match's meta-gaming.
pub struct Meta {
    gdl: Arc<Gdl>,
    /// The survey, once made.
    survey: Option<Survey>,
    /// Whether playouts may be cut by the goal values.
    cutoff: CutoffSetting,
    /// What the cut-off's detection found, once made (unless `--cutoff off`).
    detection: Option<Detection>,
    /// Whether playouts may be cut and scored by a heuristic found here.
    heuristics: HeuristicSetting,
    /// The weight of the heuristic's progressive bias (0: its playouts are cut instead).
    bias: f64,
    /// The heuristic's evaluation, once found (never if none predicts).
    evaluation: Option<Evaluator<State>>,
    /// The game's solution so far, for one role or two; `None` in other games or once
    /// given up.
    puzzle: Option<Puzzle<Arc<Gdl>>>,
    /// Whether the game is solved from the match's start.
    solved: bool,
    /// Time spent solving so far.
    solving: Duration,
    /// Whether the playouts are to be chosen by a trial (`--playouts auto`).
    choose_playouts: bool,
    /// The trial's verdict, once made.
    verdict: Option<Verdict>,
    /// The trial's seed (`--seed`).
    seed: Option<u64>,
}

/// Until when [`Meta::prepare`] may work.
#[derive(Clone, Copy, Debug)]
pub struct Until {
    /// The end of the meta-gaming (the puzzle's search).
    pub all: Instant,
    /// The end of the playouts' trial.
    pub trial: Instant,
}

impl Meta {
    /// The meta-gaming of `gdl`; a game's solution may take `memory_bytes`.
    /// With `playouts` [`Playouts::Auto`] it chooses the playouts, its trial seeded by
    /// `seed`.
    pub fn new(
        gdl: Arc<Gdl>,
        memory_bytes: usize,
        cutoff: CutoffSetting,
        playouts: Playouts,
        seed: Option<u64>,
    ) -> Meta {
        let root = gdl.initial_state();
        let roles = gdl.roles().len();
        let puzzle = solvable(roles).then(|| Puzzle::for_game(&gdl, &root, memory_bytes, roles));
        Meta {
            gdl,
            survey: None,
            cutoff,
            detection: None,
            heuristics: HeuristicSetting::Off,
            bias: 0.0,
            evaluation: None,
            puzzle,
            solved: false,
            solving: Duration::ZERO,
            choose_playouts: playouts == Playouts::Auto,
            verdict: None,
            seed,
        }
    }

    /// The same meta-gaming, seeking a heuristic as `heuristics` says, to bias the
    /// selection by it with weight `bias` if above 0, else to cut the playouts by it.
    pub fn with_heuristics(mut self, heuristics: HeuristicSetting, bias: f64) -> Meta {
        self.heuristics = heuristics;
        self.bias = bias;
        self
    }

    /// Steps after which the tree's playouts stop and are scored by the heuristic, and
    /// its evaluation, where one was found and does not bias the selection instead.
    pub fn heuristic(&self) -> Option<(usize, Evaluator<State>)> {
        let evaluation = self.evaluation.clone().filter(|_| self.bias <= 0.0)?;
        Some((heuristic::STEPS, evaluation))
    }

    /// The progressive bias's weight and evaluation, where a heuristic was found and
    /// `--progressive-bias` is above 0.
    pub fn bias(&self) -> Option<(f64, Evaluator<State>)> {
        let evaluation = self.evaluation.clone().filter(|_| self.bias > 0.0)?;
        Some((self.bias, evaluation))
    }

    /// The playouts the trial chose, once made.
    pub fn playouts(&self) -> Option<Playouts> {
        self.verdict.map(|v| v.playouts)
    }

    /// Takes `verdict` as the trial's, without playing it.
    #[cfg(test)]
    pub fn set_verdict(&mut self, verdict: Verdict) {
        self.verdict = Some(verdict);
    }

    /// What the survey found, once made.
    pub fn survey(&self) -> Option<Survey> {
        self.survey
    }

    /// Steps after which the tree's playouts stop and score their goals, where the
    /// detection found the goals informative.
    pub fn cutoff(&self) -> Option<usize> {
        self.cutoff.cut(self.detection.as_ref()?)
    }

    /// Whether a solution is held or still sought (and takes its share of the memory).
    pub fn holds_solution(&self) -> bool {
        self.puzzle.is_some()
    }

    /// Whether the game is solved from its start.
    pub fn solved(&self) -> bool {
        self.solved
    }

    /// Surveys the game and detects informative goals (once, from one set of random
    /// walks), chooses the playouts (once, if asked to) until
    /// `until.trial`, and tries to solve the game from `state` until `until.all`, all of
    /// it at most until `stop`; logs what it found under `match_id`.
    pub fn prepare(&mut self, state: &State, until: Until, stop: &AtomicBool, match_id: &str) {
        let deadline = until.all;
        if self.survey.is_none() {
            let now = Instant::now();
            let until = now + deadline.saturating_duration_since(now) / WALKS_SHARE;
            let mut timer = Timer::new(Some(until), Some(stop), 1);
            let mut rng = crate::rng::seeded(Some(0));
            let walks = Walks::play(&self.gdl, state, cutoff::WALKS, &mut rng, &mut timer);
            let found = Survey::of(&walks);
            let cut = if self.cutoff == CutoffSetting::Off {
                "playouts to the end (--cutoff off)".to_owned()
            } else {
                let detection = Detection::of(&walks);
                self.detection = Some(detection);
                self.cutoff.describe(&detection)
            };
            info!(match_id, "meta-gaming: {found}; {cut}");
            if self.heuristics != HeuristicSetting::Off {
                let mut timer = Timer::new(Some(until + 2 * (until - now)), Some(stop), 1);
                let (evaluation, line) = heuristic::find(
                    &self.gdl,
                    state,
                    self.heuristics,
                    self.bias,
                    &mut rng,
                    &mut timer,
                );
                info!(match_id, "meta-gaming: {line}");
                self.evaluation = evaluation;
            }
            self.survey = Some(found);
        }
        if self.choose_playouts && self.verdict.is_none() {
            let verdict = choose(&self.gdl, state, TRIAL, self.seed, until.trial, stop);
            info!(match_id, "playouts: {verdict}");
            self.verdict = Some(verdict);
        }
        if self.survey.is_some_and(|s| s.simultaneous) && self.puzzle.take().is_some() {
            info!(
                match_id,
                "not solving the game: its roles move at once, not in turn"
            );
        }
        let Some(puzzle) = &mut self.puzzle else {
            return;
        };
        let single = self.gdl.roles().len() == 1;
        let kind = if single {
            "single-player game"
        } else {
            "two-player game"
        };
        let started = Instant::now();
        // A two-player game is searched for at most GIVE_UP in all.
        let deadline = if single {
            deadline
        } else {
            deadline.min(started + GIVE_UP.saturating_sub(self.solving))
        };
        let mut timer = Timer::new(Some(deadline), Some(stop), 1);
        let solved = puzzle.solve(&self.gdl, state, &mut timer);
        // Every move here solved too, so that a win is answered by its shortest line
        // known; the solution stands without them.
        if solved.is_ok()
            && self.gdl.roles().len() == 2
            && puzzle.solve_moves(&self.gdl, state, &mut timer).is_err()
        {
            debug!(match_id, "not every move here solved yet");
        }
        self.solving += started.elapsed();
        let seconds = format!("{:.2}", self.solving.as_secs_f64());
        match solved {
            Ok(value) => {
                if !self.solved {
                    let goals: Vec<u32> = value[..self.gdl.roles().len()]
                        .iter()
                        .map(|v| (v * 100.0).round() as u32)
                        .collect();
                    info!(
                        match_id,
                        positions = puzzle.positions(),
                        seconds,
                        "{kind} solved, its goals under best play {goals:?}: answering from the solution"
                    );
                }
                self.solved = true;
            }
            Err(Unsolved::OutOfTime) if single || self.solving < GIVE_UP => {}
            Err(why) => {
                info!(
                    match_id,
                    positions = puzzle.positions(),
                    seconds,
                    "{kind} not solved ({why:?}): searching the tree"
                );
                self.puzzle = None;
            }
        }
    }

    /// The share of a search's time the solution is sought in while not solved: for a
    /// puzzle, all of a ponder's and half of a move's; for a two-player game (where the
    /// tree search plays until it is solved) all of the start clock's, half of a later
    /// ponder's and a quarter of a move's.
    pub fn solving_share(&self, pondering: bool) -> u32 {
        match (self.gdl.roles().len() == 1, pondering) {
            (true, true) => 1,
            (true, false) => 2,
            (false, true) if self.survey.is_none() => 1,
            (false, true) => 2,
            (false, false) => 4,
        }
    }

    /// The move to answer at once at `state` for role `us`, once solved: a puzzle's
    /// move, or in a two-player game a winning move (the one of the shortest line).
    pub fn answer(&self, state: &State, us: usize) -> Option<Term> {
        let puzzle = self.puzzle.as_ref()?;
        let solved = puzzle.answer(state)?;
        if self.gdl.roles().len() == 1 {
            return solved.best.clone();
        }
        if solved.rewards[us] < BEST {
            return None;
        }
        let keeping = puzzle.keeping(&self.gdl, state, us);
        keeping
            .into_iter()
            .min_by_key(|&(_, plies)| plies)
            .map(|(m, _)| m)
    }

    /// The moves of `us` at `state` that keep what the solution gives it, in a solved
    /// two-player game that gives it something but not a win (a draw, say), the
    /// solution's move first: the tree search chooses among them. `None` where the
    /// solution gives nothing (a loss: the tree search plays on, as the opponent may
    /// err, and its playouts prefer moves that make erring easy), or is not known.
    pub fn keeping(&self, state: &State, us: usize) -> Option<Vec<Term>> {
        let puzzle = self.puzzle.as_ref()?;
        let solved = puzzle.answer(state)?;
        if self.gdl.roles().len() != 2 || solved.rewards[us] <= 0.0 {
            return None;
        }
        let keeping: Vec<Term> = puzzle
            .keeping(&self.gdl, state, us)
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        (!keeping.is_empty()).then_some(keeping)
    }
}

/// Search time after which a two-player game still not solved is given up: the tree
/// search has played it all along with less time.
const GIVE_UP: Duration = Duration::from_secs(20);

/// Whether games of `roles` roles may be solved outright: one role, or two (when they
/// move in turn, as the survey finds).
fn solvable(roles: usize) -> bool {
    roles == 1 || roles == 2
}
