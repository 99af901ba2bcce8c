//! One integration-test binary (links once), a module per area.

mod cli;
mod common;
mod engine;
mod general;
mod gdl;
mod referee;
mod search;
mod server;
mod tournament;
