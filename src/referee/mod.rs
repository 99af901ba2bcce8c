//! The referee: a GGP game manager that drives players over HTTP as the real
//! controllers do, validates every move, and runs tournaments with statistics. It names
//! no game: a game's engine checks the moves of the rules it reads ([`ggp_match`]), the
//! reasoner those of any other GDL ([`general`]), and in-process agents play any
//! registered game without HTTP ([`native`]), as do course programs asked in their
//! course's own way ([`program`], [`dir_program`]).

pub mod child_cpu;
pub mod client;
pub mod dialect;
pub mod dir_program;
pub mod general;
pub mod ggp;
pub mod ggp_match;
pub mod interactive;
pub mod mover;
pub mod native;
pub mod one_match;
pub mod play_clock;
pub mod players;
pub mod program;
pub mod record;
pub mod report;
pub mod shell;
pub mod split;
pub mod stats;
pub mod summary;
pub mod tournament;
