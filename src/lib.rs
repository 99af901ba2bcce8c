//! A General Game Playing (GGP) player for Breakthrough, and the engine, tools and
//! referee for the other games of the same course family.
//!
//! The crate is organised in rooms with one job each; dependencies point one way. The
//! front ends (`player` over HTTP, `referee`, the tools and `main`) reach the games only
//! through the registry in [`games`]; `agent` and `search` know only the [`game::Game`]
//! trait that each game implements; the games know nothing of HTTP or of the player.

pub mod agent;
pub mod bench;
pub mod fit;
pub mod game;
pub mod games;
pub mod gdl;
pub mod input_file;
pub mod mcts;
pub mod memory;
pub mod oneshot;
pub mod player;
pub mod referee;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod sexpr;
pub mod solve;
pub mod spec;
#[cfg(test)]
mod testing;
pub mod web;
