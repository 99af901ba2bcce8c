//! The GGP HTTP player.
//!
//! - [`protocol`]: the controllers' messages, parsed from request bodies.
//! - [`session`]: one match: the rules' terms, the position, our role, the clocks.
//! - [`general`]: a match of any game played by the reasoner (Monte-Carlo tree search):
//!   rules that are not Breakthrough, or that the engine does not model.
//! - [`service`]: the search threads (never a tokio worker) and their jobs.
//! - [`handler`]: the player: its matches and the reply to each message.
//! - [`server`]: HTTP: the router, the listener, one reply per connection.

pub mod general;
pub mod handler;
pub mod protocol;
pub mod server;
pub mod service;
pub mod session;

pub use handler::{Player, PlayerConfig, PlayerError};
pub use server::{ServeConfig, ServeError, app, bind, serve};
