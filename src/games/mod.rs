//! The games, one folder each, and the one registry through which the generic layers
//! (the tools, the referee, the player) reach them.
//!
//! A game joins by implementing [`GameSpec`] in its folder and adding one line to the
//! `registry!` below. The tools never name a game: they implement [`Tool`], whose
//! `run` is generic over the spec, and [`dispatch`] calls it with the game asked for.

pub mod ataxx;
pub mod breakthrough;
pub mod ggp;
pub mod halma;
pub mod loa;
pub mod side;
pub mod walk;

use std::sync::Arc;

use crate::game::{Evaluator, Game};
use crate::gdl::{Gdl, GdlError};
use crate::sexpr::Sexpr;
use ggp::{GgpRules, Recognition};

/// A game as the tools see it: its name, its start positions, its evaluations and its
/// benchmark positions.
pub trait GameSpec: 'static {
    type Game: Game;
    /// The name given to `--game`.
    const NAME: &'static str;
    /// One line for `--help` and listings.
    const ABOUT: &'static str;
    /// What a board size looks like for this game, for help and errors.
    const SIZES: &'static str;
    /// The board size used when none is given.
    const DEFAULT_SIZE: &'static str;
    /// The board size a tournament plays when given none (small boards make many quick
    /// games).
    const TOURNAMENT_SIZE: &'static str = Self::DEFAULT_SIZE;
    /// The variants of the rules, the default first (one entry for a game without any).
    const VARIANTS: &'static [&'static str];
    /// The players' names, the one that moves first from the start first.
    const SIDES: [&'static str; 2];
    /// A toy game that exists for the tests: left out of what is offered to people (the
    /// page's games) unless they ask for test games.
    const TEST_GAME: bool = false;
    /// The evaluation `bench` uses unless told otherwise (fixed, so that node counts stay
    /// comparable between versions).
    const BENCH_EVALUATION: &'static str;

    /// The start position on a board of `size` under `variant` (one of
    /// [`GameSpec::VARIANTS`]), or why there is none.
    fn start(size: &str, variant: &str) -> Result<Self::Game, String>;
    /// The game's evaluations, the default first.
    fn evaluations() -> &'static [Evaluation<Self::Game>];
    /// The positions `bench` searches, each to a fixed depth.
    fn bench_positions() -> Vec<BenchPosition<Self::Game>>;
    /// What the rules sent in a GGP START are to this game (see [`ggp`]): by default, not
    /// this game (it has no GGP rules).
    fn recognise_ggp(
        _match_id: &str,
        _rules: &[Sexpr],
        _gdl: Result<&Gdl, &GdlError>,
    ) -> Recognition<Self::Game> {
        Recognition::Other(format!("{} has no GGP rules", Self::NAME))
    }
    /// Fits the game's tunable evaluation to the positions files `files` (written by
    /// `selfplay --record`), or `None` for a game without one.
    fn tune(_files: &[std::path::PathBuf]) -> Option<Result<Tuning, String>> {
        None
    }
    /// Perft from `position` (the generic count unless the game has a faster one).
    fn perft(position: &mut Self::Game, depth: u32) -> u64 {
        crate::game::perft(position, depth)
    }
    /// A recorded position of self-play, as one line of the game's training data (for
    /// `tune`), when the game has an evaluation to fit. `first_score` is the score (1,
    /// 0.5, 0) of the side that moved first from the start; `game` the game's number.
    fn training_line(_position: &Self::Game, _first_score: f64, _game: u64) -> Option<String> {
        None
    }
    /// The game's own GDL for a board of `size` under `variant`, as text (what `gdl print`
    /// shows), or `None` for a game without GDL (its matches are between in-process
    /// agents).
    fn gdl_text(_size: &str, _variant: &str) -> Option<Result<String, String>> {
        None
    }
    /// The GDL rules sent to GGP players for a board of `size` under `variant` (the game's
    /// own GDL, read), or `None` for a game without GDL.
    fn ggp_rules(size: &str, variant: &str) -> Option<Result<Vec<Sexpr>, String>> {
        Some(
            Self::gdl_text(size, variant)?
                .map(|text| Sexpr::parse_all(&text).expect("a game's own GDL parses")),
        )
    }
    /// How the game's course agent is asked for a move when the course starts it once per
    /// request (see [`crate::oneshot`]), or `None` for a game without such an agent.
    fn request_protocol() -> Option<&'static crate::oneshot::RequestProtocol<Self::Game>> {
        None
    }
    /// How the game's course program is played when it keeps a whole game in one process
    /// (see [`crate::interactive`]), or `None` for a game without such a program.
    fn interactive_protocol() -> Option<&'static crate::interactive::InteractiveProtocol<Self::Game>>
    {
        None
    }
    /// How the game's course agent is asked for a move when the course starts it once per
    /// move in a directory of its own, on a CPU-time budget for the whole game (see
    /// [`crate::workdir`]), or `None`.
    fn directory_protocol() -> Option<&'static crate::workdir::DirectoryProtocol<Self::Game>> {
        None
    }
    /// Whether the referee can play the game's course programs: it has one of the
    /// protocols above.
    fn plays_programs() -> bool {
        Self::request_protocol().is_some()
            || Self::interactive_protocol().is_some()
            || Self::directory_protocol().is_some()
    }
    /// How the engine reads the move terms of `rules` (from [`GameSpec::ggp_rules`]), so
    /// that the referee checks moves with the engine; `None` leaves it to the reasoner.
    fn ggp_notation(_rules: &[Sexpr]) -> Option<Arc<dyn GgpRules<Game = Self::Game>>> {
        None
    }
}

/// What `tune` found: a line on the data, the fit's report, and the weights as source.
#[derive(Clone, Debug)]
pub struct Tuning {
    pub data: String,
    pub report: String,
    pub source: String,
}

/// A named evaluation of a game.
pub struct Evaluation<G: Game> {
    pub name: &'static str,
    pub about: &'static str,
    pub evaluator: &'static dyn Evaluator<G>,
}

/// A named benchmark position and the depth `bench` searches it to.
pub struct BenchPosition<G> {
    pub name: String,
    pub position: G,
    pub depth: u32,
}

/// The evaluation of `S` called `name`, or an error listing the names there are.
pub fn evaluation<S: GameSpec>(name: &str) -> Result<&'static Evaluation<S::Game>, String> {
    let all = S::evaluations();
    all.iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|e| e.name).collect();
        format!(
            "{} has no evaluation {name:?}: use {}",
            S::NAME,
            one_of(&names)
        )
    })
}

/// The start position of `S` for an optional size and variant (the defaults otherwise).
pub fn start<S: GameSpec>(size: Option<&str>, variant: Option<&str>) -> Result<S::Game, String> {
    let variant = variant.unwrap_or(S::VARIANTS[0]);
    if !S::VARIANTS.contains(&variant) {
        return Err(format!(
            "{} has no variant {variant:?}: use {}",
            S::NAME,
            one_of(S::VARIANTS)
        ));
    }
    S::start(size.unwrap_or(S::DEFAULT_SIZE), variant)
}

/// `a, b or c`.
pub fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Something a tool does with whichever game it is given.
pub trait Tool {
    type Output;
    fn run<S: GameSpec>(self) -> Self::Output;
}

/// A name given to `--game` that no game has.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("no game is called {name:?}: use {}", one_of(NAMES))]
pub struct UnknownGame {
    pub name: String,
}

macro_rules! registry {
    ($($spec:ty),* $(,)?) => {
        /// The names of the registered games, in order.
        pub const NAMES: &[&str] = &[$(<$spec as GameSpec>::NAME),*];

        /// Each registered game's name and description.
        pub fn list() -> Vec<(&'static str, &'static str)> {
            vec![$((<$spec as GameSpec>::NAME, <$spec as GameSpec>::ABOUT)),*]
        }

        /// The names of the games offered to people: every game but the test games,
        /// unless `include_test_games`.
        pub fn offered(include_test_games: bool) -> Vec<&'static str> {
            let mut names = Vec::new();
            $(if include_test_games || !<$spec as GameSpec>::TEST_GAME {
                names.push(<$spec as GameSpec>::NAME);
            })*
            names
        }

        /// Runs `tool` on the game called `name`.
        pub fn dispatch<T: Tool>(name: &str, tool: T) -> Result<T::Output, UnknownGame> {
            $(
                if name.eq_ignore_ascii_case(<$spec as GameSpec>::NAME) {
                    return Ok(tool.run::<$spec>());
                }
            )*
            Err(UnknownGame { name: name.to_owned() })
        }

        /// The games whose course programs the referee can ask for moves.
        pub fn with_programs() -> Vec<&'static str> {
            let mut names = Vec::new();
            $(if <$spec as GameSpec>::plays_programs() {
                names.push(<$spec as GameSpec>::NAME);
            })*
            names
        }

        /// Every evaluation of every game, as (game, evaluation) names.
        pub fn all_evaluations() -> Vec<(&'static str, &'static str)> {
            let mut all = Vec::new();
            $(all.extend(<$spec as GameSpec>::evaluations().iter().map(|e| (<$spec as GameSpec>::NAME, e.name)));)*
            all
        }

        /// Runs `tool` on the registered games in order until one gives an answer.
        pub fn first<T, R>(tool: T) -> Option<R>
        where
            T: Tool<Output = Option<R>> + Clone,
        {
            $(
                if let Some(r) = tool.clone().run::<$spec>() {
                    return Some(r);
                }
            )*
            None
        }
    };
}

// The registered games: one line each.
registry!(
    crate::games::breakthrough::spec::Breakthrough,
    walk::spec::WalkSpec,
    loa::spec::Loa6,
    loa::spec::Loa8,
    ataxx::spec::AtaxxSpec,
    halma::spec::HalmaSpec,
);
