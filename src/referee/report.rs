//! How `match` shows a finished match, whoever played it: a line per move with its time,
//! the faults, the result. Each kind of record gives a [`MatchView`] of itself.

use super::general::GdlRecord;
use super::native::NativeRecord;
use super::record::MatchRecord;

/// A finished match as `match` prints it after its header.
pub struct MatchView<'a> {
    /// Who made each move, when the roles take turns (the first role first); `None` when
    /// every role moves at every step, and a move is a joint move.
    pub sides: Option<[&'a str; 2]>,
    pub moves: &'a [String],
    /// Microseconds each move took.
    pub move_us: &'a [u64],
    /// Each fault, as written after `fault: `.
    pub faults: Vec<String>,
    /// The result, as written after `result: `.
    pub result: String,
}

/// The line of move `i` (from 0), made by `sides[i % 2]` when the roles take turns.
pub fn move_line(sides: Option<[&str; 2]>, i: usize, m: &str, us: u64) -> String {
    let ms = us as f64 / 1e3;
    match sides {
        Some(sides) => format!("{:>4}. {:<5} {m:<20} {ms:>8.1} ms", i + 1, sides[i % 2]),
        None => format!("{:>4}. {m:<40} {ms:>8.1} ms", i + 1),
    }
}

impl MatchView<'_> {
    /// The lines to print, in order.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = (self.moves.iter().zip(self.move_us).enumerate())
            .map(|(i, (m, &us))| move_line(self.sides, i, m, us))
            .collect();
        lines.extend(self.after_moves());
        lines
    }

    /// The lines after the moves': the faults, then the result.
    pub fn after_moves(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.faults.iter().map(|f| format!("fault: {f}")).collect();
        lines.push(format!("result: {}", self.result));
        lines
    }
}

/// What the result line adds when faulty rules gave a role several goal values at the
/// end: each such role's values (the highest was counted).
fn several_goals(roles: &[String], values: Option<&[Vec<u32>]>) -> String {
    let several: Vec<String> = roles
        .iter()
        .zip(values.unwrap_or_default())
        .filter(|(_, v)| v.len() > 1)
        .map(|(r, v)| {
            let v: Vec<String> = v.iter().map(u32::to_string).collect();
            format!("{r} {}", v.join(" and "))
        })
        .collect();
    match several.is_empty() {
        true => String::new(),
        false => format!(
            "; the rules gave {}, the highest counted",
            several.join(", ")
        ),
    }
}

impl MatchRecord {
    pub fn view(&self) -> MatchView<'_> {
        MatchView {
            sides: Some(self.role_names()),
            moves: &self.moves,
            move_us: &self.move_us,
            faults: self
                .faults
                .iter()
                .map(|f| format!("ply {} {} {:?}: {}", f.ply, f.role, f.kind, f.detail))
                .collect(),
            result: format!(
                "{} {} ({}) after {} moves in {:.1} s, {} faults{}",
                self.goals[0],
                self.goals[1],
                self.verdict(),
                self.moves.len(),
                self.duration_ms as f64 / 1e3,
                self.faults.len(),
                several_goals(&self.roles, self.goal_values.as_ref().map(|v| &v[..]))
            ),
        }
    }
}

impl GdlRecord {
    pub fn view(&self) -> MatchView<'_> {
        let goals: Vec<String> = self
            .roles
            .iter()
            .zip(&self.goals)
            .map(|(r, g)| format!("{r} {g}"))
            .collect();
        MatchView {
            sides: None,
            moves: &self.moves,
            move_us: &self.move_us,
            faults: self
                .faults
                .iter()
                .map(|f| format!("step {} {} {:?}: {}", f.ply, f.role, f.kind, f.detail))
                .collect(),
            result: format!(
                "{}{} after {} steps in {:.1} s, {} faults{}",
                goals.join(", "),
                if self.finished { "" } else { " (unfinished)" },
                self.moves.len(),
                self.duration_ms as f64 / 1e3,
                self.faults.len(),
                several_goals(&self.roles, self.goal_values.as_deref())
            ),
        }
    }
}

impl NativeRecord {
    /// The view of a game between `sides` (the first moved first), stopped at `max_plies`.
    pub fn view<'a>(&'a self, sides: [&'a str; 2], max_plies: u32) -> MatchView<'a> {
        let verdict = match self.scores {
            [1.0, _] if self.capped => {
                format!("{} wins on time left at the {max_plies}-ply cap", sides[0])
            }
            [_, 1.0] if self.capped => {
                format!("{} wins on time left at the {max_plies}-ply cap", sides[1])
            }
            [1.0, _] => format!("{} wins", sides[0]),
            [_, 1.0] => format!("{} wins", sides[1]),
            _ if self.capped => format!("draw at the {max_plies}-ply cap"),
            _ => "draw".to_owned(),
        };
        let cpu: Vec<String> = (0..2)
            .filter_map(|side| {
                let (used, left) = (self.time_used[side]?, self.time_left[side]?);
                Some(format!(
                    "{} {:.3} s used, {:.3} s left",
                    sides[side],
                    used.as_secs_f64(),
                    left.as_secs_f64()
                ))
            })
            .collect();
        let time_left = match cpu.is_empty() {
            true => String::new(),
            false => format!("; CPU time: {}", cpu.join(", ")),
        };
        MatchView {
            sides: Some(sides),
            moves: &self.moves,
            move_us: &self.move_us,
            faults: self
                .fault
                .iter()
                .map(|(side, fault)| format!("{} {fault}", sides[*side]))
                .collect(),
            result: format!(
                "{} {} ({verdict}) after {} moves, {} faults{time_left}",
                self.scores[0],
                self.scores[1],
                self.moves.len(),
                usize::from(self.fault.is_some())
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::record::{Fault, FaultKind};
    use std::time::Duration;

    #[test]
    fn every_record_prints_its_moves_faults_and_result() {
        let record = MatchRecord {
            id: "m".into(),
            size: "5x5".into(),
            roles: ["white".into(), "black".into()],
            players: ["a".into(), "b".into()],
            cpu: [None, None],
            dialect: None,
            start_clock: 1,
            play_clock: crate::referee::play_clock::PlayClock::from_secs(1),
            moves: vec!["(move 1 2 1 3)".into(), "(move 1 4 1 3)".into()],
            faults: vec![Fault {
                ply: 1,
                role: "black".into(),
                kind: FaultKind::Late,
                detail: "slow".into(),
            }],
            goals: [0, 100],
            duration_ms: 2500,
            move_us: vec![1500, 2_000_000],
            referee_overhead_us: 0,
            worker: None,
            goal_values: None,
            opening: None,
        };
        assert_eq!(
            record.view().lines(),
            [
                "   1. white (move 1 2 1 3)            1.5 ms",
                "   2. black (move 1 4 1 3)         2000.0 ms",
                "fault: ply 1 black Late: slow",
                "result: 0 100 (black wins) after 2 moves in 2.5 s, 1 faults",
            ]
        );
        let native = NativeRecord {
            moves: vec!["0-1".into()],
            opening: 0,
            move_us: vec![100],
            scores: [0.5, 0.5],
            fault: None,
            capped: true,
            time_left: [None, Some(Duration::from_millis(1500))],
            time_used: [None, Some(Duration::from_millis(8500))],
            overhead_us: 0,
        };
        assert_eq!(
            native.view(["white", "black"], 1).lines(),
            [
                "   1. white 0-1                       0.1 ms",
                "result: 0.5 0.5 (draw at the 1-ply cap) after 1 moves, 0 faults; CPU time: black 8.500 s used, 1.500 s left",
            ]
        );
    }
}
