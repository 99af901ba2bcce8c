//! The referee: a GGP game manager that drives players over HTTP as the real
//! controllers do, validates every move, and runs tournaments with statistics.
//! Breakthrough is refereed with the bitboard engine ([`game`]), any other GDL game with
//! the reasoner ([`general`]).

pub mod client;
pub mod dialect;
pub mod game;
pub mod general;
pub mod native;
pub mod players;
pub mod stats;
pub mod tournament;
