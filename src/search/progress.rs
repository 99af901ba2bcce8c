//! How a long solve stands: what both solvers report now and then for a progress line.

use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Progress {
    /// The proof under way: "win" (can the side to move win?) or "draw" (can it at
    /// least draw?).
    pub proof: &'static str,
    /// df-pn: the root's proof and disproof numbers for that proof, as last seen, while
    /// both are finite.
    pub root: Option<(u32, u32)>,
    /// Alpha-beta: along the line one thread is searching, from the root down a few
    /// plies, how many of each node's moves are searched (settled) out of how many.
    /// The root's count rises slowest: it tells how far a proof has come.
    pub line: Vec<(u32, u32)>,
    /// Nodes and time over the whole solve, resumed runs included.
    pub nodes: u64,
    pub elapsed: Duration,
    /// Nodes per second in this run.
    pub rate: f64,
    pub table_mb: usize,
    /// The share of the table's entries in use.
    pub table_filled: f64,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "proof of a {}", self.proof)?;
        if let Some((phi, delta)) = self.root {
            write!(f, ": φ {phi} δ {delta} at the root")?;
        }
        if !self.line.is_empty() {
            let counts: Vec<String> = self.line.iter().map(|(d, n)| format!("{d}/{n}")).collect();
            write!(f, " | moves searched {}", counts.join(" › "))?;
        }
        let secs = self.elapsed.as_secs();
        write!(
            f,
            " | {:.1} M nodes, {:.2} M nodes/s | table {} MiB, {:.0}% full | {}h{:02}m{:02}s",
            self.nodes as f64 / 1e6,
            self.rate / 1e6,
            self.table_mb,
            self.table_filled * 100.0,
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )
    }
}
