//! What a tournament prints when it ends: the table of every pairing (score, Elo and its
//! 95% interval, the player's and the opponent's faults), the SPRT verdict, the referee's
//! overhead per move, how often each pair of goals ended a match, the CPU time of players
//! charged it for whole games, and where the results are.

use super::record::{CpuTime, MatchRecord};
use super::stats::format_elo;
use super::tournament::{Outcome, TournamentConfig, table};

/// The lines of the tournament's summary.
pub fn summary(config: &TournamentConfig, outcome: &Outcome) -> Vec<String> {
    let mut lines = Vec::new();
    let names: Vec<String> = config.entrants.iter().map(|e| e.name.clone()).collect();
    lines.push(format!(
        "{:<12} {:<12} {:<10} {:>6} {:>16} {:>7} {:>22} {:>12}",
        "player",
        "opponent",
        "condition",
        "games",
        "+win =draw -loss",
        "score",
        "Elo [95% interval]",
        "faults p/o"
    ));
    for row in table(&outcome.records, &names) {
        let (lo, elo, hi) = row.wdl.elo();
        lines.push(format!(
            "{:<12} {:<12} {:<10} {:>6} {:>16} {:>6.1}% {:>22} {:>12}",
            row.player,
            row.opponent,
            row.condition,
            row.wdl.games(),
            row.wdl.to_string(),
            100.0 * row.wdl.score(),
            format!(
                "{} [{}, {}]",
                format_elo(elo),
                format_elo(lo),
                format_elo(hi)
            ),
            format!("{}/{}", row.faults[0], row.faults[1])
        ));
    }
    if let (Some(sprt), Some(verdict)) = (config.sprt, outcome.verdict) {
        let (lower, upper) = sprt.bounds();
        let wdl = outcome.first_pair;
        lines.push(format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} (bounds {:.2}, {:.2}): {verdict}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.llr(&wdl),
            lower,
            upper
        ));
    }
    let mut overheads: Vec<u64> = outcome
        .records
        .iter()
        .map(|r| r.referee_overhead_us)
        .collect();
    overheads.sort_unstable();
    if let Some(median) = overheads.get(overheads.len() / 2) {
        lines.push(format!(
            "referee overhead per move: median {median} µs over {} matches",
            overheads.len()
        ));
    }
    lines.extend(goal_line(&outcome.records));
    lines.extend(cpu_lines(&outcome.records, &names));
    lines.push(format!("results: {}", config.results.display()));
    lines
}

/// How often each pair of goals ended a match, in the roles' order (most frequent
/// first), so that a result such as 50 to 100 (a loss for the 50) shows as it was.
fn goal_line(records: &[MatchRecord]) -> Option<String> {
    let mut counts: Vec<([u8; 2], usize)> = Vec::new();
    for r in records {
        match counts.iter_mut().find(|(g, _)| *g == r.goals) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.goals, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    let pairs: Vec<String> = counts
        .iter()
        .map(|([a, b], n)| format!("{a}-{b} ×{n}"))
        .collect();
    (!pairs.is_empty()).then(|| format!("goals (first role-second role): {}", pairs.join(", ")))
}

/// For each player charged CPU time for the whole game (a Halma course program): what it
/// used and what it had left at the end of its games, so that the clock can be checked
/// from a tournament.
fn cpu_lines(records: &[MatchRecord], names: &[String]) -> Vec<String> {
    let secs = |ms: u64| ms as f64 / 1e3;
    let mut lines = Vec::new();
    for name in names {
        let times: Vec<CpuTime> = records
            .iter()
            .filter_map(|r| r.cpu[r.seat_of(name)?])
            .collect();
        if times.is_empty() {
            continue;
        }
        let mut used: Vec<u64> = times.iter().map(|t| t.used_ms).collect();
        let mut left: Vec<u64> = times.iter().map(|t| t.left_ms).collect();
        used.sort_unstable();
        left.sort_unstable();
        lines.push(format!(
            "CPU time of {name} over {} games: used median {:.3} s, max {:.3} s; left min {:.3} s, median {:.3} s",
            times.len(),
            secs(used[used.len() / 2]),
            secs(used[used.len() - 1]),
            secs(left[0]),
            secs(left[left.len() / 2]),
        ));
    }
    lines
}
