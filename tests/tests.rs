//! One integration-test binary (links once), a module per area.

mod cli;
mod common;
mod engine;
mod games;
mod gdl;
mod general;
mod halma;
mod mcts;
mod referee;
mod scrambled;
mod search;
mod server;
mod tournament;
