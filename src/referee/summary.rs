//! What a tournament prints when it ends: the table of every pairing (score, Elo and its
//! 95% interval, faults), the SPRT verdict, the referee's overhead per move and where
//! the results are.

use super::stats::format_elo;
use super::tournament::{Outcome, TournamentConfig, table};

/// The lines of the tournament's summary.
pub fn summary(config: &TournamentConfig, outcome: &Outcome) -> Vec<String> {
    let mut lines = Vec::new();
    let names: Vec<String> = config.entrants.iter().map(|e| e.name.clone()).collect();
    lines.push(format!(
        "{:<12} {:<12} {:<10} {:>6} {:>16} {:>7} {:>22} {:>7}",
        "player",
        "opponent",
        "condition",
        "games",
        "+win =draw -loss",
        "score",
        "Elo [95% interval]",
        "faults"
    ));
    for row in table(&outcome.records, &names) {
        let (lo, elo, hi) = row.wdl.elo();
        lines.push(format!(
            "{:<12} {:<12} {:<10} {:>6} {:>16} {:>6.1}% {:>22} {:>7}",
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
            row.faults
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
    lines.push(format!("results: {}", config.results.display()));
    lines
}
