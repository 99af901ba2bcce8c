//! A course program as a player the way USC CSCI-561's master program ran one
//! ([`crate::spec::workdir`]): for every move a fresh directory holding the input file, the
//! program started there through the shell, its move read from the output file. The
//! CPU time it used (its threads and the children it waited for) is taken from its
//! budget for the whole game, which the input file tells it; the files the protocol
//! carries go from each of its moves to its next.
//!
//! It loses the game when its time left reaches zero (its process group is killed once
//! its CPU time runs past the time left plus the protocol's grace), or when the output
//! file is missing or names no legal move. The wall clock bounds only a program that
//! waits instead of thinking: [`WALL_FACTOR`] times its CPU allowance, so that a busy
//! machine, which stretches a move's wall time but not its CPU time, costs no game.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::child_cpu::{self, Limits, Stopped};
use super::mover::{Fault, Mover};
use super::shell;
use crate::game::Game;
use crate::spec::workdir::DirectoryProtocol;

/// The most of the output file and of the program's stderr read.
const MAX_READ_BYTES: u64 = 64 * 1024;

/// How many times its CPU allowance (time left and grace) a move may take on the wall
/// clock before the program is killed as hung.
pub const WALL_FACTOR: u32 = 3;

/// Numbers the directories of this process's programs.
static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// One player's program for one game.
pub struct DirProgram<G: Game> {
    command: String,
    protocol: &'static DirectoryProtocol<G>,
    budget: Duration,
    used: Duration,
    /// The carried files the program left after its last move, by name.
    carried: Vec<(&'static str, Vec<u8>)>,
    /// This player's own folder for the game, one directory per move inside.
    root: PathBuf,
    grace: Duration,
}

impl<G: Game> DirProgram<G> {
    /// `command` (run by `sh -c`) with `budget` of CPU time for the whole game.
    pub fn new(
        command: &str,
        protocol: &'static DirectoryProtocol<G>,
        budget: Duration,
    ) -> DirProgram<G> {
        let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("ggp-referee-{}-{n}", std::process::id()));
        DirProgram {
            command: command.to_owned(),
            protocol,
            budget,
            used: Duration::ZERO,
            carried: Vec::new(),
            root,
            grace: protocol.grace,
        }
    }

    /// The same program given `grace` past its time left instead of the protocol's
    /// (tests that wait for a kill).
    pub fn with_grace(mut self, grace: Duration) -> DirProgram<G> {
        self.grace = grace;
        self
    }

    /// CPU time the program has used in this game so far.
    pub fn used(&self) -> Duration {
        self.used
    }

    fn left(&self) -> Duration {
        self.budget.saturating_sub(self.used)
    }

    /// The wall time the next move may take: [`WALL_FACTOR`] times its CPU allowance.
    fn wall_bound(&self) -> Duration {
        (self.left() + self.grace) * WALL_FACTOR
    }

    /// Runs one move in `dir`, which holds the input and the carried files.
    fn run_in(&mut self, dir: &Path, position: &G) -> Result<G::Move, Fault> {
        let began = Instant::now();
        let limits = Limits {
            cpu: self.left() + self.grace,
            wall: self.wall_bound(),
        };
        let stderr_path = dir.with_extension("stderr");
        let stderr =
            std::fs::File::create(&stderr_path).map_err(|e| referee_trouble(&stderr_path, e))?;
        let mut child = shell::command(&self.command)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .map_err(|e| Fault::NoAnswer(format!("`{}` did not start: {e}", self.command)))?;
        let finished = child_cpu::wait_charged(&mut child, began, limits)
            .map_err(|e| Fault::NoAnswer(format!("could not wait for `{}`: {e}", self.command)))?;
        let wall = began.elapsed();
        // Killed at its CPU allowance: a descendant killed with it was never reaped, so
        // `wait4` may have missed its time; the allowance it passed is the least used.
        self.used += match finished.stopped {
            Stopped::CpuLimit => finished.cpu.max(limits.cpu),
            _ => finished.cpu,
        };
        tracing::debug!(
            command = %self.command,
            cpu_ms = finished.cpu.as_secs_f64() * 1e3,
            wall_ms = wall.as_secs_f64() * 1e3,
            left_ms = self.left().as_secs_f64() * 1e3,
            "program move"
        );
        if finished.stopped == Stopped::WallLimit {
            return Err(Fault::Late {
                ms: wall.as_millis() as u64,
            });
        }
        if self.used >= self.budget {
            return Err(Fault::OutOfTime {
                used_ms: self.used.as_millis() as u64,
                budget_ms: self.budget.as_millis() as u64,
            });
        }
        let output = dir.join(self.protocol.output);
        let Some(text) = read_at_most(&output) else {
            let err = read_at_most(&stderr_path).unwrap_or_default();
            let mut why = match err.lines().find(|l| !l.trim().is_empty()) {
                Some(line) => format!("{}; stderr: {}", finished.status, line.trim()),
                None => finished.status.to_string(),
            };
            // The shell's "command not found": most often a relative path, which the
            // fresh directory does not resolve.
            if finished.status.code() == Some(127) {
                why.push_str(
                    "; the command runs in a fresh directory, so give its paths from the root",
                );
            }
            return Err(Fault::NoAnswer(format!(
                "no {} ({why})",
                self.protocol.output
            )));
        };
        let mv = (self.protocol.read_output)(position, &text)
            .map_err(|why| Fault::Illegal(format!("{text:?}: {why}")))?;
        self.carried = self
            .protocol
            .carried
            .iter()
            .filter_map(|&name| Some((name, std::fs::read(dir.join(name)).ok()?)))
            .collect();
        Ok(mv)
    }
}

/// Why the referee itself could not set a move up: reported as the program's fault,
/// since the game cannot go on, with the cause.
fn referee_trouble(path: &Path, e: std::io::Error) -> Fault {
    Fault::NoAnswer(format!(
        "the referee could not write {}: {e}",
        path.display()
    ))
}

/// At most [`MAX_READ_BYTES`] of a file as text, or `None` if it cannot be read.
fn read_at_most(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_READ_BYTES)
        .read_to_end(&mut text)
        .ok()?;
    Some(String::from_utf8_lossy(&text).into_owned())
}

impl<G: Game> Mover<G> for DirProgram<G> {
    /// The wall-clock bound of the next move, for a program that hangs.
    fn clock(&self, _play_clock: Duration) -> Duration {
        self.wall_bound()
    }

    fn time_left(&self) -> Option<Duration> {
        Some(self.left())
    }

    fn time_used(&self) -> Option<Duration> {
        Some(self.used)
    }

    fn next_move(&mut self, position: &G, ply: usize, _earlier: &[u64]) -> Result<G::Move, Fault> {
        let dir = self.root.join(format!("ply-{ply}"));
        std::fs::create_dir_all(&dir).map_err(|e| referee_trouble(&dir, e))?;
        let input = (self.protocol.write_input)(position, self.left());
        let mut files = vec![(self.protocol.input, input.into_bytes())];
        files.append(&mut self.carried);
        for (name, bytes) in files {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|e| referee_trouble(&path, e))?;
        }
        let result = self.run_in(&dir, position);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_file(dir.with_extension("stderr"));
        result
    }
}

impl<G: Game> Drop for DirProgram<G> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
