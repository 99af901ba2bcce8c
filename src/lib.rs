//! A General Game Playing (GGP) player for Breakthrough.
//!
//! The crate is organised in rooms with one job each; dependencies point one way:
//! `player` (HTTP) uses `agent`, which uses `search`, which knows only the [`game::Game`]
//! trait that `breakthrough` implements. The rules know nothing of HTTP.

pub mod agent;
pub mod bench;
pub mod game;
pub mod games;
pub mod gdl;
pub mod mcts;
pub mod player;
pub mod referee;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod sexpr;
#[cfg(test)]
mod testing;
