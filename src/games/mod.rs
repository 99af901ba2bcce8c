//! The games, one folder each.

pub mod walk;
