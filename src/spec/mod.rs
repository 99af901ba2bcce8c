//! What a game tells the tools about itself: [`GameSpec`], the trait each game implements
//! beside its rules, and the descriptions it fills in (its GGP rules in [`ggp`], the
//! protocols of its course programs in [`request`], [`interactive`] and [`workdir`]).
//! Only descriptions live here; the tools that use them sit above the games.

pub mod ggp;
pub mod interactive;
pub mod request;
pub mod workdir;

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
    /// Transposition-table entries one alpha-beta thread stores in a CPU-second, at most
    /// (it stores one at each position it expands; measured, rounded up): a table is made
    /// no larger than its search can fill in its time, since each of its pages costs a
    /// write or a page fault whether the search uses it or not.
    const STORES_PER_SECOND: u64;

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
    /// `selfplay --record`), leaving out the terms named in `without` (their weights 0;
    /// [`crate::fit::LeftOut::find`] says how a term names features), or `None` for a
    /// game without one.
    fn tune(_files: &[std::path::PathBuf], _without: &[String]) -> Option<Result<Tuning, String>> {
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
    /// How the referee plays the game's course program (see [`CourseProgram`]), or
    /// `None` for a game without one.
    fn course_program() -> Option<CourseProgram<Self::Game>> {
        None
    }
    /// How the engine reads the move terms of `rules` (from [`GameSpec::ggp_rules`]), so
    /// that the referee checks moves with the engine; `None` leaves it to the reasoner.
    fn ggp_notation(_rules: &[Sexpr]) -> Option<Arc<dyn GgpRules<Game = Self::Game>>> {
        None
    }
}

/// The one protocol in which a game's course ran its students' programs, filled in by the
/// game; the referee plays any program that speaks it.
pub enum CourseProgram<G: Game> {
    /// Started once per request, the board on standard input (see [`request`]).
    Request(&'static request::RequestProtocol<G>),
    /// One process for a whole game, told the other side's moves (see [`interactive`]).
    Interactive(&'static interactive::InteractiveProtocol<G>),
    /// Started once per move in a directory of its own, on a CPU-time budget for the
    /// whole game (see [`workdir`]).
    Directory(&'static workdir::DirectoryProtocol<G>),
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

/// The position in `text`, written as `S`'s course program reads it: a request (`move`,
/// its number, the size, the rows) or an input file.
pub fn read_position<S: GameSpec>(text: &str) -> Result<S::Game, String> {
    match S::course_program() {
        Some(CourseProgram::Request(protocol)) => match request::read_request(protocol, text)? {
            request::Request::Move { position, .. } => Ok(position),
            request::Request::Identify => Err("an `identify` request holds no position".into()),
        },
        Some(CourseProgram::Directory(protocol)) => (protocol.read_input)(text),
        _ => Err(format!(
            "{} has no course program whose input states a position",
            S::NAME
        )),
    }
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
