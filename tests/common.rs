//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// `../shared/reference/` beside the project's root (also present on CI).
pub fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference")
}

/// Sends the library's logs to the test output when `RUST_LOG` is set (e.g.
/// `RUST_LOG=info cargo test server:: -- --nocapture`); idempotent.
#[allow(dead_code)]
pub fn init_test_logging() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .with_ansi(false)
            .try_init();
    }
}
