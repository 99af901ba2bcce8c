//! The general player's meta-gaming: before its tree search, a match looks once at what
//! kind of game it plays (logged), with `--playouts auto` chooses its playouts by a
//! trial (logged, [`crate::mcts::choice`]), and a single-player game is solved outright
//! when its positions fit in memory, so that every later move is answered from the
//! solution at once. Where the goal values say something before the end, the tree's
//! playouts are cut short and scored by them ([`crate::mcts::cutoff`], `--cutoff`). It runs in the start clock (the first ponder) and, while the game is
//! not solved yet, in the first half of each move search.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use tracing::info;

use crate::gdl::{Gdl, State, Term};
use crate::mcts::Playouts;
use crate::mcts::choice::{Trial, Verdict, choose};
use crate::mcts::cutoff::{self, CutoffSetting, Detection};
use crate::mcts::heuristic::{self, Evaluation, HeuristicSetting};
use crate::mcts::meta::Survey;
use crate::mcts::puzzle::{Puzzle, Unsolved};
use crate::mcts::walks::Walks;
use crate::mcts::{Evaluator, Model, Timer};

/// The random walks' share of the time the meta-gaming is given, at most: the walks
/// the survey and the cut-off's detection both read, played once.
const WALKS_SHARE: u32 = 5;
/// The playouts' trial: small searches, so that a few games fit in a start clock even
/// where playouts are slow (reversi's are a few hundred a second).
const TRIAL: Trial = Trial {
    iterations: 50,
    pairs: 4,
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
    evaluation: Option<Arc<Evaluation>>,
    /// A single-player game's solution so far; `None` in other games or once given up.
    puzzle: Option<Puzzle<Arc<Gdl>>>,
    /// Whether the puzzle is solved from the match's start.
    solved: bool,
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
    /// The meta-gaming of `gdl`; a single-player game's solution may take `memory_bytes`.
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
        // A table entry: the state (its fluents), its move and value, the map's overhead.
        let per_position =
            std::mem::size_of::<(State, f64, Option<Term>)>() + gdl.heap_bytes(&root) + 32;
        let puzzle = (gdl.roles().len() == 1).then(|| Puzzle::new(memory_bytes, per_position));
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
        Some((heuristic::STEPS, evaluation.evaluator()))
    }

    /// The progressive bias's weight and evaluation, where a heuristic was found and
    /// `--progressive-bias` is above 0.
    pub fn bias(&self) -> Option<(f64, Evaluator<State>)> {
        let evaluation = self.evaluation.clone().filter(|_| self.bias > 0.0)?;
        Some((self.bias, evaluation.evaluator()))
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

    /// Whether the single-player game is solved from its start.
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
                let found = heuristic::detect(&self.gdl, state, &mut rng, &mut timer);
                let evaluation = Evaluation::new(self.gdl.clone(), &found, self.heuristics);
                let line =
                    heuristic::describe(self.heuristics, self.bias, evaluation.as_ref(), &found);
                info!(match_id, "meta-gaming: {line}");
                self.evaluation = evaluation.map(Arc::new);
            }
            self.survey = Some(found);
        }
        if self.choose_playouts && self.verdict.is_none() {
            let verdict = choose(&self.gdl, state, TRIAL, self.seed, until.trial, stop);
            info!(match_id, "playouts: {verdict}");
            self.verdict = Some(verdict);
        }
        let Some(puzzle) = &mut self.puzzle else {
            return;
        };
        let mut timer = Timer::new(Some(deadline), Some(stop), 1);
        match puzzle.solve(&self.gdl, state, &mut timer) {
            Ok(value) => {
                if !self.solved {
                    info!(
                        match_id,
                        positions = puzzle.positions(),
                        value = (value * 100.0).round() as u32,
                        "single-player game solved: answering from the solution"
                    );
                }
                self.solved = true;
            }
            Err(Unsolved::OutOfTime) => {}
            Err(why) => {
                info!(
                    match_id,
                    positions = puzzle.positions(),
                    "single-player game not solved ({why:?}): searching the tree"
                );
                self.puzzle = None;
            }
        }
    }

    /// The move of the solution at `state`, once solved.
    pub fn answer(&self, state: &State) -> Option<Term> {
        self.puzzle.as_ref()?.answer(state)?.best.clone()
    }
}
