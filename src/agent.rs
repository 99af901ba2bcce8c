//! What to play, in any game: the agents the server and the referee choose by name.

use std::fmt;

use rand::seq::IndexedRandom;

use crate::game::{self, Evaluator, Game, MoveBuffer};
use crate::mcts::native::{Native, Turn};
use crate::mcts::{Budget, Mcts, Playouts};
use crate::search::{self, Limits, Options, SearchResult, Table, minimax};
use crate::spec::{GameSpec, evaluation};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentKind {
    /// A uniformly random legal move.
    Random,
    /// The move whose position the chosen evaluation likes best, one ply deep (a win at
    /// once first, ties broken at random): the baseline a search must beat. A random move
    /// in GDL games the engine does not know.
    Greedy,
    /// Iterative-deepening alpha-beta with the chosen evaluation.
    Alphabeta,
    /// Plain minimax to a fixed depth (2 unless configured) with the chosen evaluation,
    /// ties broken at random: the baseline some courses graded against.
    Minimax,
    /// Monte-Carlo tree search, its playouts random or guided by the moves' average
    /// rewards (`--playouts`; no evaluation).
    Mcts,
}

/// The depth of the minimax agent when none is given: the course's reference agent's.
pub const DEFAULT_MINIMAX_DEPTH: u32 = 2;

/// MCTS iterations per move when neither a deadline nor a count is given, so that a
/// search without a clock still ends.
pub const DEFAULT_MCTS_ITERATIONS: u64 = 10_000;

/// The transposition table size when none is given, in MiB: plenty for a 10 s move on a
/// 2-core machine. Written in full when the agent is made ([`Agent::new`]).
pub const DEFAULT_HASH_MB: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentConfig {
    pub kind: AgentKind,
    /// The alpha-beta evaluation by name; `None` for each game's default (its first). A
    /// game without an evaluation of this name plays with its default.
    pub eval: Option<&'static str>,
    /// Seed of the random agent and of MCTS; `None` draws one from the OS.
    pub seed: Option<u64>,
    /// Threads of each search.
    pub threads: usize,
    /// Transposition table size in MiB (one table per match, kept between its moves).
    pub hash_mb: usize,
    /// MCTS iterations per move at most (the clock still applies): with a seed, the same
    /// moves on any machine.
    pub iterations: Option<u64>,
    /// How MCTS playouts choose their moves.
    pub playouts: Playouts,
    /// Whether the general player's MCTS playouts may be cut by the goal values.
    pub cutoff: crate::mcts::cutoff::CutoffSetting,
    /// Whether they may be cut and scored by a heuristic found in the start clock.
    pub heuristics: crate::mcts::heuristic::HeuristicSetting,
    /// The weight of the heuristic's progressive bias in the tree's selection; 0 for
    /// none (then the heuristic scores cut playouts instead).
    pub progressive_bias: crate::mcts::heuristic::BiasWeight,
    /// Whether an MCTS tree makes one node of a position reached by several orders of
    /// moves.
    pub transpositions: bool,
    /// Where an MCTS selection reads a move's mean with transpositions: its own
    /// statistics, or the position it leads to.
    pub transposition_values: crate::mcts::TranspositionValues,
    /// Whether the MCTS trees of several threads share the positions they prove.
    pub shared_proofs: bool,
    /// Whether an MCTS selection also reads the moves' all-moves statistics (GRAVE).
    pub rave: bool,
    /// The minimax agent's depth in plies ([`DEFAULT_MINIMAX_DEPTH`] if `None`).
    pub depth: Option<u32>,
    /// What answers the rules of a game no engine recognises: the propositional network
    /// where it can be built (the default), or the reasoner.
    pub gdl_engine: crate::gdl::Engine,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            kind: AgentKind::Alphabeta,
            eval: None,
            seed: None,
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            iterations: None,
            playouts: Playouts::default(),
            cutoff: crate::mcts::cutoff::CutoffSetting::Auto,
            heuristics: crate::mcts::heuristic::HeuristicSetting::Off,
            progressive_bias: crate::mcts::heuristic::BiasWeight::NONE,
            transpositions: true,
            transposition_values: crate::mcts::TranspositionValues::Edge,
            shared_proofs: true,
            rave: false,
            depth: None,
            gdl_engine: crate::gdl::Engine::Auto,
        }
    }
}

impl fmt::Display for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            AgentKind::Random => f.write_str("random"),
            AgentKind::Greedy => write!(f, "greedy({})", self.eval.unwrap_or("default")),
            AgentKind::Alphabeta => write!(f, "alphabeta({})", self.eval.unwrap_or("default")),
            AgentKind::Minimax => write!(
                f,
                "minimax({}, {})",
                self.depth.unwrap_or(DEFAULT_MINIMAX_DEPTH),
                self.eval.unwrap_or("default")
            ),
            AgentKind::Mcts => match self.iterations {
                Some(n) => write!(f, "mcts({n} iterations)"),
                None => f.write_str("mcts"),
            },
        }
    }
}

/// A chosen move, with the search that chose it (none for the random agent).
#[derive(Clone, Debug)]
pub struct Choice<M> {
    pub mv: M,
    /// Alpha-beta's search.
    pub search: Option<SearchResult<M>>,
    /// Monte-Carlo tree search's (each step of its line: the mover's move, `None` for
    /// the side that waits).
    pub tree: Option<crate::mcts::Choice<Option<M>>>,
}

/// An agent playing one game of `G`: its configuration, its random numbers, its
/// transposition table or its MCTS tree (kept from move to move).
pub struct Agent<G: Game> {
    config: AgentConfig,
    evaluator: &'static dyn Evaluator<G>,
    rng: crate::rng::Rng,
    /// The match's transposition table (alpha-beta's), made with the agent: before any
    /// move's clock starts.
    table: Option<Table>,
    /// The MCTS tree, made at the first search; the next search starts from the subtree
    /// of the position it is given when the tree reached it.
    tree: Option<Mcts<Native<G>>>,
}

impl<G: Game> Agent<G> {
    /// An agent for game `S`, with the evaluation the configuration names (the game's
    /// default if it names none, or one the game does not have).
    pub fn new<S: GameSpec<Game = G>>(config: AgentConfig) -> Agent<G> {
        Agent::with_evaluator(config, evaluator_of::<S>(config))
    }

    /// An agent searching with `evaluator` (the configuration's name is not consulted).
    /// Its table is written in full now ([`Table::written`]), so that no move's search
    /// pays for the table's pages: a match's agent is made before its first clock starts.
    pub fn with_evaluator(config: AgentConfig, evaluator: &'static dyn Evaluator<G>) -> Agent<G> {
        Agent::made(config, evaluator, Table::written)
    }

    /// An agent for a process that answers one move and exits (a course's program run
    /// once a request): made inside that move's clock, its table's pages are left for
    /// the search to touch, so that the process takes only the pages it uses (and frees
    /// fewer at its exit).
    pub fn for_one_move<S: GameSpec<Game = G>>(config: AgentConfig) -> Agent<G> {
        Agent::made(config, evaluator_of::<S>(config), Table::new)
    }

    fn made(
        config: AgentConfig,
        evaluator: &'static dyn Evaluator<G>,
        table: fn(usize) -> Table,
    ) -> Agent<G> {
        Agent {
            config,
            evaluator,
            rng: crate::rng::seeded(config.seed),
            table: (config.kind == AgentKind::Alphabeta).then(|| table(config.hash_mb)),
            tree: None,
        }
    }

    pub fn config(&self) -> AgentConfig {
        self.config
    }

    /// Frees what the MCTS tree's last moves dropped ([`Mcts::free_dropped`]), until done
    /// or `stop` is raised: for a player to call once its reply has gone.
    pub fn free_dropped(&mut self, stop: Option<&std::sync::atomic::AtomicBool>) -> usize {
        self.tree.as_mut().map_or(0, |t| t.free_dropped(stop))
    }

    /// Picks a move for the side to move, within `limits`; `None` only when the game is
    /// over. `earlier` lists the positions played before (games that repeat).
    pub fn choose(
        &mut self,
        position: &G,
        limits: &Limits,
        earlier: &[u64],
    ) -> Option<Choice<G::Move>> {
        if game::result(position).is_some() {
            return None;
        }
        match self.config.kind {
            AgentKind::Random => {
                let mut list = G::MoveList::default();
                position.generate_moves(&mut list);
                list.as_slice().choose(&mut self.rng).map(|&mv| Choice {
                    mv,
                    search: None,
                    tree: None,
                })
            }
            AgentKind::Greedy => self.greedy_move(position).map(|mv| Choice {
                mv,
                search: None,
                tree: None,
            }),
            AgentKind::Alphabeta => {
                let options = Options {
                    threads: limits.threads(self.config.threads),
                    earlier: earlier.to_vec(),
                    // Only moves that keep a value the game's table of solved positions
                    // knows.
                    root_moves: search::keeping_codes(position),
                    ..Options::default()
                };
                // Made with the agent: an alpha-beta agent always has one.
                let table = self
                    .table
                    .get_or_insert_with(|| Table::new(self.config.hash_mb));
                let result = search::search_with(position, self.evaluator, limits, table, &options);
                result.best_move.map(|mv| Choice {
                    mv,
                    search: Some(result),
                    tree: None,
                })
            }
            AgentKind::Minimax => self.minimax_move(position, limits).map(|mv| Choice {
                mv,
                search: None,
                tree: None,
            }),
            AgentKind::Mcts => self.mcts_move(position, limits),
        }
    }

    /// The legal move that wins at once, or else one of those after which the opponent's
    /// position evaluates worst for it (a random one of equals).
    fn greedy_move(&mut self, position: &G) -> Option<G::Move> {
        search::greedy_moves(position, self.evaluator, &[])
            .choose(&mut self.rng)
            .copied()
    }

    /// One of the moves plain minimax to the configured depth values best (at random
    /// among equals). Stopped by `limits`, it picks among the moves valued so far.
    fn minimax_move(&mut self, position: &G, limits: &Limits) -> Option<G::Move> {
        let depth = self.config.depth.unwrap_or(DEFAULT_MINIMAX_DEPTH);
        let values = minimax::root_values(position, self.evaluator, depth, limits);
        let best = values.iter().map(|&(_, v)| v).max()?;
        let best: Vec<G::Move> = values
            .iter()
            .filter(|&&(_, v)| v == best)
            .map(|&(m, _)| m)
            .collect();
        best.choose(&mut self.rng).copied()
    }

    /// MCTS until the hard deadline (else the soft one), the stop flag or the configured
    /// iterations; a single legal move at once (without a search). Always a legal move
    /// when there is one.
    fn mcts_move(&mut self, position: &G, limits: &Limits) -> Option<Choice<G::Move>> {
        let mut list = G::MoveList::default();
        position.generate_moves(&mut list);
        let legal = list.as_slice();
        if legal.len() <= 1 {
            return legal.first().map(|&mv| Choice {
                mv,
                search: None,
                tree: None,
            });
        }
        let deadline = limits.hard_deadline.or(limits.soft_deadline);
        let iterations = match (self.config.iterations, deadline, &limits.stop) {
            (None, None, None) => Some(DEFAULT_MCTS_ITERATIONS),
            (n, _, _) => n,
        };
        let budget = Budget {
            deadline,
            stop: limits.stop.as_deref(),
            iterations,
        };
        let config = self.config;
        let tree = self.tree.get_or_insert_with(|| {
            Mcts::new(Native::default(), config.seed, config.hash_mb)
                .with_playouts(config.playouts)
                .with_rave(config.rave)
                .with_transpositions(config.transpositions)
                .with_transposition_values(config.transposition_values)
        });
        let mut publish = limits.best.as_deref().map(|best| {
            move |m: &Option<G::Move>| {
                if let Some(mv) = *m
                    && legal.contains(&mv)
                {
                    best.publish_choice::<G>(mv);
                }
            }
        });
        let publish = publish.as_mut().map(|p| p as &mut (dyn FnMut(&_) + Send));
        let choice = tree.search_publishing(&Turn::new(position.clone()), 0, budget, publish);
        choice.log("agent");
        let mv = choice
            .best
            .flatten()
            .filter(|m| legal.contains(m))
            .or(legal.first().copied())?;
        Some(Choice {
            mv,
            search: None,
            tree: Some(choice),
        })
    }
}

/// The evaluation `config` names in game `S` (the game's default if it names none, or
/// one the game does not have).
fn evaluator_of<S: GameSpec>(config: AgentConfig) -> &'static dyn Evaluator<S::Game> {
    config
        .eval
        .and_then(|name| evaluation::<S>(name).ok())
        .unwrap_or(&S::evaluations()[0])
        .evaluator
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::breakthrough::spec::Breakthrough;
    use crate::games::breakthrough::{Board, Color};

    fn greedy(seed: u64) -> Agent<Board> {
        Agent::new::<Breakthrough>(AgentConfig {
            kind: AgentKind::Greedy,
            eval: Some("baseline"),
            seed: Some(seed),
            ..AgentConfig::default()
        })
    }

    #[test]
    fn an_alphabeta_agent_has_its_table_before_its_first_move() {
        let config = AgentConfig {
            hash_mb: 2,
            ..AgentConfig::default()
        };
        for agent in [
            Agent::new::<Breakthrough>(config),
            Agent::for_one_move::<Breakthrough>(config),
        ] {
            assert_eq!(agent.table.as_ref().map(Table::bytes), Some(2 << 20));
        }
        // Agents that do not search make none.
        assert!(greedy(1).table.is_none());
    }

    #[test]
    fn greedy_takes_a_win_at_once() {
        // White's pawn on b4 reaches the goal row; every other move leaves the game on.
        let board = Board::from_diagram(
            &"B.B.B .W... ..... ..B.. WWW.W".replace(' ', "\n"),
            Color::White,
        )
        .unwrap();
        for seed in 0..5 {
            let choice = greedy(seed)
                .choose(&board, &Limits::default(), &[])
                .unwrap();
            let mut after = board.clone();
            after.make(choice.mv);
            assert_eq!(
                game::result(&after),
                Some(game::Outcome::Loss),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn greedy_plays_a_move_of_best_immediate_evaluation() {
        let board = Board::from_diagram(
            &"BBBBB .BB.B ..W.. W..WW WW.WW".replace(' ', "\n"),
            Color::Black,
        )
        .unwrap();
        let evaluator = evaluation::<Breakthrough>("baseline").unwrap().evaluator;
        let score = |mv| {
            let mut after = board.clone();
            after.make(mv);
            -evaluator.evaluate(&after)
        };
        let mut list = <Board as Game>::MoveList::default();
        board.generate_moves(&mut list);
        let best = list.as_slice().iter().map(|&m| score(m)).max().unwrap();
        let worst = list.as_slice().iter().map(|&m| score(m)).min().unwrap();
        assert!(best > worst, "the position must tell moves apart");
        for seed in 0..5 {
            let choice = greedy(seed)
                .choose(&board, &Limits::default(), &[])
                .unwrap();
            assert_eq!(score(choice.mv), best, "seed {seed}");
        }
    }
}
