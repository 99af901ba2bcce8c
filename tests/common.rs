//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// `../shared/reference/` beside the project's root (also present on CI).
pub fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference")
}
