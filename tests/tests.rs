//! One integration-test binary (links once), a module per area.

mod ataxx;
mod classic;
mod cli;
mod common;
mod controller;
mod cs61b;
mod docs;
mod engine;
mod fuzz;
mod games;
mod gdl;
mod general;
mod halma;
mod layers;
mod loa6;
mod mcts;
mod port;
mod properties;
mod propnet;
mod referee;
mod scrambled;
mod search;
mod server;
mod solved;
mod tournament;
mod web;
