//! A game that another program plays and shows on the page (the CS61B `loa --display`):
//! the program reports its position to the [`super::store::Store`] itself, and the page's
//! moves in that game are handed to the program, which plays them as if typed.

use super::page_games::{LegalMove, PlayError};

pub trait Host: Send + Sync {
    /// Whether record `id` is the host's game.
    fn owns(&self, id: u64) -> bool;
    /// The moves the page may make in it now (none when it is not the page's turn).
    fn legal(&self) -> Option<Vec<LegalMove>>;
    /// Hands the page's move `text` to the program.
    fn play(&self, text: &str) -> Result<(), PlayError>;
}
