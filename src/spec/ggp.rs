//! How rules sent over GGP map onto a game's engine. At START the player asks each
//! registered game whether it recognises the rules ([`super::GameSpec::recognise_ggp`]);
//! a game that does (by the rules' structure, whatever their symbols are called) and
//! whose engine the reasoner confirms gives the player a [`GgpRules`]: the start
//! position, the roles, and the translation between the rules' move terms and the
//! engine's moves. The referee uses the same translation for the rules it sends
//! ([`super::GameSpec::ggp_notation`]), so that every reply is checked by the engine
//! (microseconds a move) rather than by the reasoner. No HTTP here.

use std::sync::Arc;

use crate::game::Game;
use crate::sexpr::Sexpr;

/// The rules of one match, as the game's engine plays them.
pub trait GgpRules: Send + Sync {
    type Game: Game;
    /// The position the rules start from; seat 0 is to move.
    fn start(&self) -> Self::Game;
    /// The roles as the rules spell them, in the rules' order.
    fn roles(&self) -> &[String];
    /// The index among the rules' roles of each seat (seat 0 moves first).
    fn seats(&self) -> [usize; 2];
    /// How the rules spell the move of the side not to move.
    fn noop(&self) -> &str;
    fn is_noop(&self, term: &Sexpr) -> bool;
    /// The engine's move for `term`, a move of the side to move in `position`, or why it
    /// is not one.
    fn parse_move(
        &self,
        position: &Self::Game,
        term: &Sexpr,
    ) -> Result<<Self::Game as Game>::Move, String>;
    /// The move as the rules write it.
    fn move_term(&self, position: &Self::Game, m: <Self::Game as Game>::Move) -> Sexpr;
    /// What a controller plays for a side whose move is missing or illegal: its first
    /// legal move in the rules' own order (Dresden's choice), not the engine's.
    fn substitute(&self, position: &Self::Game) -> Option<<Self::Game as Game>::Move>;
}

/// What a game makes of the rules sent in START.
pub enum Recognition<G: Game> {
    /// Not this game (why, for the log).
    Other(String),
    /// This game, but its engine does not play these rules as sent (why): the reasoner
    /// must play them.
    Reasoner(String),
    /// This game, played by the engine.
    Engine(Arc<dyn GgpRules<Game = G>>),
}
