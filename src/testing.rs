//! Helpers for the unit tests.

use std::io::Write;
use std::path::PathBuf;

/// `../shared/reference/` beside the project's root: the course's own files (its GDL,
/// the recorded controller traffic), which the repository does not carry. When they are
/// absent this prints the one line saying that the calling test skipped, and why, and
/// returns `None`; the test then returns. With `GGP_PLAYER_NO_REFERENCE` set they count
/// as absent, so that CI runs the suite a second time the way a user's clone does, with
/// nothing beside it, without building it again.
///
/// With `GGP_PLAYER_REFERENCE_USERS=FILE` set, the name of each test that is given the
/// files is appended to FILE: CI then runs only those tests a second time without them.
pub(crate) fn reference_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if dir.is_dir() && std::env::var_os("GGP_PLAYER_NO_REFERENCE").is_none() {
        if let Some(list) = std::env::var_os("GGP_PLAYER_REFERENCE_USERS") {
            let listed = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&list)
                // One write, so that tests listing themselves at once cannot mix lines.
                .and_then(|mut f| f.write_all(format!("{test}\n").as_bytes()));
            if let Err(e) = listed {
                panic!(
                    "cannot list {test} in {}: {e}",
                    PathBuf::from(list).display()
                );
            }
        }
        return Some(dir);
    }
    // Straight to stderr rather than eprintln!, which the test harness swallows for a
    // passing test: a skip must show in every run. One write of the whole line, so that
    // tests skipping at once cannot mix their lines (CI reads them back).
    let line = format!(
        "skipped {test}: it needs the course's files in ../shared/reference/, which are not here\n"
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
    None
}
