//! Helpers for the unit tests.

use std::io::Write;
use std::path::PathBuf;

/// `../shared/reference/` beside the project's root: the course's own files (its GDL,
/// the recorded controller traffic), which the repository does not carry. When they are
/// absent this prints the one line saying that the calling test skipped, and why, and
/// returns `None`; the test then returns. With `GGP_PLAYER_NO_REFERENCE` set they count
/// as absent, so that CI runs the suite a second time the way a user's clone does, with
/// nothing beside it, without building it again.
pub(crate) fn reference_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    if dir.is_dir() && std::env::var_os("GGP_PLAYER_NO_REFERENCE").is_none() {
        return Some(dir);
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    // Straight to stderr rather than eprintln!, which the test harness swallows for a
    // passing test: a skip must show in every run.
    let _ = writeln!(
        std::io::stderr(),
        "skipped {test}: it needs the course's files in ../shared/reference/, which are not here"
    );
    None
}
