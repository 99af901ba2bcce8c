//! One integration-test binary (links once), a module per area.

mod common;
mod engine;
