//! The GGP HTTP player.
pub mod protocol;
