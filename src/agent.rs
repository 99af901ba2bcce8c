//! What to play: the agents the server and the referee choose by name.

use std::fmt;

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::breakthrough::eval::{Baseline, Improved, Racing, Tuned};
use crate::breakthrough::{Board, Move, MoveList};
use crate::game::Evaluator;
use crate::search::{self, Limits, Options, SearchResult, Table};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentKind {
    /// A uniformly random legal move.
    Random,
    /// Iterative-deepening alpha-beta with the chosen evaluation.
    Alphabeta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalKind {
    /// The course's evaluation: distances of the most advanced pawns to the goal rows.
    Baseline,
    /// Material, advancement, defended and hanging pawns, home-row guards.
    Improved,
    /// `improved` plus pawn races: unstoppable runners, who arrives first.
    Racing,
    /// Pawns by distance to goal, guards, defended/hanging/exchanged pawns and races,
    /// weighted by a fit to self-play results (`tune`).
    Tuned,
}

impl EvalKind {
    pub fn evaluator(self) -> &'static dyn Evaluator<Board> {
        match self {
            EvalKind::Baseline => &Baseline,
            EvalKind::Improved => &Improved,
            EvalKind::Racing => &Racing,
            EvalKind::Tuned => &Tuned,
        }
    }
}

impl fmt::Display for EvalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EvalKind::Baseline => "baseline",
            EvalKind::Improved => "improved",
            EvalKind::Racing => "racing",
            EvalKind::Tuned => "tuned",
        })
    }
}

/// The transposition table size when none is given, in MiB: plenty for a 10 s move on a
/// 2-core machine, and the pages are only taken as they are used.
pub const DEFAULT_HASH_MB: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentConfig {
    pub kind: AgentKind,
    pub eval: EvalKind,
    /// Seed of the random agent; `None` draws one from the OS.
    pub seed: Option<u64>,
    /// Threads of each search.
    pub threads: usize,
    /// Transposition table size in MiB (one table per match, kept between its moves).
    pub hash_mb: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            kind: AgentKind::Alphabeta,
            eval: EvalKind::Tuned,
            seed: None,
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
        }
    }
}

impl fmt::Display for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            AgentKind::Random => f.write_str("random"),
            AgentKind::Alphabeta => write!(f, "alphabeta({})", self.eval),
        }
    }
}

/// A chosen move, with the search that chose it (none for the random agent).
#[derive(Clone, Debug)]
pub struct Choice {
    pub mv: Move,
    pub search: Option<SearchResult<Move>>,
}

pub struct Agent {
    config: AgentConfig,
    rng: Xoshiro256PlusPlus,
    /// The match's transposition table, made at the first search.
    table: Option<Table>,
}

impl Agent {
    pub fn new(config: AgentConfig) -> Agent {
        let rng = match config.seed {
            Some(seed) => Xoshiro256PlusPlus::seed_from_u64(seed),
            None => rand::make_rng(),
        };
        Agent {
            config,
            rng,
            table: None,
        }
    }

    pub fn config(&self) -> AgentConfig {
        self.config
    }

    /// Picks a move for the side to move, within `limits`; `None` only when the
    /// game is over or the side to move has no legal move.
    pub fn choose(&mut self, board: &Board, limits: &Limits) -> Option<Choice> {
        if board.winner().is_some() {
            return None;
        }
        match self.config.kind {
            AgentKind::Random => {
                let mut list = MoveList::default();
                board.generate_moves(&mut list);
                let moves: Vec<Move> = list.iter().collect();
                moves
                    .choose(&mut self.rng)
                    .map(|&mv| Choice { mv, search: None })
            }
            AgentKind::Alphabeta => {
                let options = Options {
                    threads: self.config.threads,
                    ..Options::default()
                };
                let table = self
                    .table
                    .get_or_insert_with(|| Table::new(self.config.hash_mb));
                let result = search::search_with(
                    board,
                    self.config.eval.evaluator(),
                    limits,
                    table,
                    &options,
                );
                result.best_move.map(|mv| Choice {
                    mv,
                    search: Some(result),
                })
            }
        }
    }
}
