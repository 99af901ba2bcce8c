//! `playdata.txt`: what the agent keeps between the plays of one `GAME` (`GAMES.md`
//! §4.4): the hashes of the positions seen so far, so that the search can tell a line
//! going back to one of them (scored as a draw) from real progress.
//!
//! The master deletes the file before each game, and it may be missing later too (H-1):
//! a missing, unreadable or other colour's file just means no history.

use std::path::Path;

use super::Side;
use crate::input_file;

pub const FILE: &str = "playdata.txt";
const HEADER: &str = "halma-playdata 1";
/// Positions kept: far more than a game's plays, so the file stays small.
const KEEP: usize = 1000;

/// The positions recorded for `side` in `dir`'s `playdata.txt`, oldest first.
pub fn read(dir: &Path, side: Side) -> Vec<u64> {
    let Ok(text) = input_file::read_to_string(&dir.join(FILE), input_file::PROGRAM_INPUT) else {
        return Vec::new();
    };
    let mut lines = text.lines().map(str::trim);
    if lines.next() != Some(HEADER) || lines.next() != Some(side.word()) {
        return Vec::new();
    }
    let hashes: Option<Vec<u64>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| u64::from_str_radix(l, 16).ok())
        .collect();
    hashes.unwrap_or_default()
}

/// Records `seen` (oldest first; only the last `KEEP` of them) for `side` in `dir`.
pub fn write(dir: &Path, side: Side, seen: &[u64]) -> std::io::Result<()> {
    let seen = &seen[seen.len().saturating_sub(KEEP)..];
    let mut text = format!("{HEADER}\n{}\n", side.word());
    for h in seen {
        text.push_str(&format!("{h:016x}\n"));
    }
    std::fs::write(dir.join(FILE), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_survives_a_round_trip_and_is_per_colour() {
        let dir = std::env::temp_dir().join(format!("halma-playdata-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(read(&dir, Side::White).is_empty());
        write(&dir, Side::White, &[1, u64::MAX, 42]).unwrap();
        assert_eq!(read(&dir, Side::White), [1, u64::MAX, 42]);
        assert!(read(&dir, Side::Black).is_empty());
        std::fs::write(dir.join(FILE), "halma-playdata 1\nWHITE\nnot hex\n").unwrap();
        assert!(read(&dir, Side::White).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
