//! The GGP HTTP player.
//!
//! - [`protocol`]: the controllers' messages, parsed from request bodies.
//! - [`session`]: one match, whatever the game, behind a trait.
//! - [`start`]: who plays a new match: the registered games are asked in turn whether
//!   their engine plays the rules, else the reasoner does.
//! - [`engine`]: a match played by a game's own engine (any registered game).
//! - [`general`]: a match of any game played by the reasoner (Monte-Carlo tree search):
//!   rules no game's engine plays as sent.
//! - [`meta`]: the general player's meta-gaming: what kind of game, and single-player
//!   games solved outright.
//! - [`service`]: the search threads (never a tokio worker) and their jobs.
//! - [`handler`]: the player: its matches and the reply to each message.
//! - [`gate`]: who may use the port (another site's page may not; the page answers
//!   only under this player's host names).
//! - [`server`]: HTTP: the router, the listener, one reply per connection.

pub mod engine;
pub mod gate;
pub mod general;
pub mod handler;
pub mod meta;
pub mod protocol;
pub mod server;
pub mod service;
pub mod session;
pub mod start;

pub use handler::{Player, PlayerConfig, PlayerError};
pub use server::{ServeConfig, ServeError, app, bind, serve};
