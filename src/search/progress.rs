//! How a long solve stands: what both solvers report now and then for a progress line.

use std::time::{Duration, Instant};

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
    /// Nodes per second since the last progress line: the speed now, which the average
    /// hides after hours (when other work starts sharing the machine, say).
    pub lately: f64,
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
            " | {:.1} M nodes, {:.2} M nodes/s ({:.2} M since the last line) | table {} MiB, \
             {:.0}% full | {}h{:02}m{:02}s",
            self.nodes as f64 / 1e6,
            self.rate / 1e6,
            self.lately / 1e6,
            self.table_mb,
            self.table_filled * 100.0,
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )
    }
}

/// When the last progress line was due and the run's node count then.
#[derive(Clone, Copy, Debug)]
pub struct Lately {
    at: Instant,
    nodes: u64,
}

impl Lately {
    /// From now, with the run's node count now.
    pub fn new(nodes: u64) -> Lately {
        Lately {
            at: Instant::now(),
            nodes,
        }
    }

    /// Whether `every` has passed since the last line.
    pub fn due(&self, every: Duration) -> bool {
        self.at.elapsed() >= every
    }

    /// Nodes per second since the last line, from the run's node count now (which only
    /// grows); the next line counts from here.
    pub fn rate(&mut self, nodes: u64) -> f64 {
        let seconds = self.at.elapsed().as_secs_f64().max(1e-9);
        let rate = nodes.saturating_sub(self.nodes) as f64 / seconds;
        *self = Lately::new(nodes);
        rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_since_the_last_line_counts_from_that_line() {
        let mut lately = Lately::new(1_000);
        assert!(!lately.due(Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(20));
        assert!(lately.due(Duration::from_millis(10)));
        let first = lately.rate(3_000);
        // 2,000 nodes in at least 20 ms: at most 100,000 a second, and more than none.
        assert!(first > 0.0 && first <= 100_000.0, "{first}");
        // Nothing searched since: the next line shows none.
        assert_eq!(lately.rate(3_000), 0.0);
    }

    #[test]
    fn a_progress_line_shows_the_average_and_the_recent_rate() {
        let p = Progress {
            proof: "draw",
            root: None,
            line: vec![(2, 6), (0, 7)],
            nodes: 38_049_200_000,
            elapsed: Duration::from_secs(6 * 3600 + 5 * 60 + 36),
            rate: 2_760_000.0,
            lately: 1_100_000.0,
            table_mb: 16384,
            table_filled: 1.0,
        };
        assert_eq!(
            p.to_string(),
            "proof of a draw | moves searched 2/6 › 0/7 | 38049.2 M nodes, 2.76 M nodes/s \
             (1.10 M since the last line) | table 16384 MiB, 100% full | 6h05m36s"
        );
    }
}
