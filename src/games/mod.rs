//! The games, one folder each, and the one registry through which the fronts (the
//! tools, the referee, the player) reach them.
//!
//! A game joins by implementing [`GameSpec`] in its folder and adding one line to the
//! `registry!` below. The tools never name a game: they implement [`Tool`], whose
//! `run` is generic over the spec, and [`dispatch`] calls it with the game asked for.

pub mod ataxx;
pub mod breakthrough;
pub mod halma;
pub mod loa;
pub mod side;
pub mod walk;

use crate::spec::{GameSpec, Tool, one_of};

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
            $(if <$spec as GameSpec>::course_program().is_some() {
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
