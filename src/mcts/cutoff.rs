//! Goal-value cut-offs: where a game's goal values say something before its end (a
//! piece count in reversi, say), a playout can stop after a few steps and score the
//! position it reached by its goals, instead of playing on to the end. Such playouts are
//! cheaper, and the goal of a position a few moves ahead is often a better guess of the
//! result than the end of one random game.
//!
//! Whether a game is of that kind is found in the start clock ([`Detection::of`]): the
//! start clock's random walks through it ([`super::walks`]), the goal values of every
//! position on the way, and how well the goals
//! after [`Detection::steps`] moves predict the results the walks reached. Games whose
//! goals are constant until the end (connect four, hex, nim) are played to the end as
//! before.

use std::fmt;

use super::walks::Walks;

/// Whether MCTS playouts may be cut by the goal values (`serve --cutoff`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CutoffSetting {
    /// Where the start clock's walks find the goal values informative before the end.
    #[default]
    Auto,
    /// Wherever the goal values vary before the end, however little they predict (for
    /// measuring what the cut is worth).
    On,
    /// Never: every playout goes on to the end of the game.
    Off,
}

impl CutoffSetting {
    /// The cut this setting makes of a game, given what its walks found.
    pub fn cut(self, found: &Detection) -> Option<usize> {
        match self {
            CutoffSetting::Auto => found.cutoff(),
            CutoffSetting::On => found.possible(),
            CutoffSetting::Off => None,
        }
    }

    /// The meta-gaming's line for the cut this setting makes, given what the walks found.
    pub fn describe(self, found: &Detection) -> String {
        let cut = match self.cut(found) {
            Some(steps) => format!("playouts cut after {steps} moves, scored by the goals"),
            None => "playouts to the end".to_owned(),
        };
        let name = match self {
            CutoffSetting::Auto => "auto",
            CutoffSetting::On => "on",
            CutoffSetting::Off => "off",
        };
        format!("{cut} (--cutoff {name}: {found})")
    }
}

/// Walks the detection reads at most.
pub const WALKS: u32 = 40;
/// The cut as a share of the walks' median length: a playout stops after length /
/// `CUT_SHARE` steps.
const CUT_SHARE: usize = 3;
/// A cut of fewer steps than this saves too little to be worth a guess.
const MIN_CUT: usize = 4;
/// Non-terminal positions in which every role must have a goal value, at least.
const MIN_DEFINED: f64 = 0.9;
/// The least correlation between the goals after the cut and the walks' results.
const MIN_CORRELATION: f64 = 0.3;

/// What the walks found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    /// Walks played (to the end, or to [`super::MAX_PLAYOUT_STEPS`]).
    pub walks: u32,
    /// Their median length, in joint moves.
    pub length: usize,
    /// The share of non-terminal positions in which every role had a goal value.
    pub defined: f64,
    /// Whether a role's goal took more than one value in non-terminal positions.
    pub varies: bool,
    /// The correlation between a role's goal (0–1) in the non-terminal positions at
    /// least [`Detection::steps`] moves in and its reward at the walk's end; `None` when
    /// nothing varies.
    pub correlation: Option<f64>,
    /// The cut: moves a playout plays before it is scored by its goals.
    pub steps: usize,
}

impl Detection {
    /// The cut, where the goal values are informative enough to play by it.
    pub fn cutoff(&self) -> Option<usize> {
        self.possible()
            .filter(|_| self.correlation.is_some_and(|c| c >= MIN_CORRELATION))
    }

    /// The cut, where the goal values vary before the end (and are nearly always
    /// defined), whatever they say of the result.
    pub fn possible(&self) -> Option<usize> {
        let usable = self.varies && self.defined >= MIN_DEFINED;
        (usable && self.steps < self.length).then_some(self.steps)
    }
}

impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let correlation = self
            .correlation
            .map_or("none".to_owned(), |c| format!("{c:.2}"));
        write!(
            f,
            "{} walks of median length {}, goals defined in {:.0}% of positions, {}, \
             correlation with the result {correlation}",
            self.walks,
            self.length,
            self.defined * 100.0,
            if self.varies { "varying" } else { "constant" },
        )
    }
}

impl Detection {
    /// What the walks played to their end say of the goal values.
    pub fn of(walks: &Walks) -> Detection {
        let mut lengths: Vec<usize> = walks.done.iter().map(|w| w.positions.len()).collect();
        lengths.sort_unstable();
        let length = lengths.get(lengths.len() / 2).copied().unwrap_or(0);
        let steps = (length / CUT_SHARE).max(MIN_CUT);
        let positions: usize = lengths.iter().sum();
        let mut defined = 0;
        let mut seen: Option<Vec<f64>> = None;
        let mut varies = false;
        let mut pairs = Vec::new();
        for w in &walks.done {
            for (ply, position) in w.positions.iter().enumerate() {
                // Every role's goal, if every role has one.
                let Some(goals) = position.goals.iter().copied().collect::<Option<Vec<f64>>>()
                else {
                    continue;
                };
                defined += 1;
                varies |= seen.as_ref().is_some_and(|s| *s != goals);
                if ply >= steps {
                    pairs.extend(goals.iter().copied().zip(w.result.iter().copied()));
                }
                seen.get_or_insert(goals);
            }
        }
        Detection {
            walks: walks.done.len() as u32,
            length,
            defined: if positions == 0 {
                0.0
            } else {
                defined as f64 / positions as f64
            },
            varies,
            correlation: varies.then(|| correlation(&pairs)).flatten(),
            steps,
        }
    }
}

/// Pearson's correlation of the pairs; `None` where either side is constant.
pub(super) fn correlation(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len() as f64;
    let (mx, my) = pairs
        .iter()
        .fold((0.0, 0.0), |(x, y), &(a, b)| (x + a / n, y + b / n));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{game, random_walks};
    use super::super::walks::{Position, Walk};
    use super::super::{Mcts, Model, Timer};
    use super::*;

    fn detection(file: &str) -> Detection {
        Detection::of(&random_walks(file, WALKS, 3))
    }

    /// Per position of a walk: both roles' goals, `None` where they have none.
    type Goals = Vec<Option<Vec<f64>>>;

    /// Walks of two roles, each given by its positions' goals and its result.
    fn walks(walks: Vec<(Goals, Vec<f64>)>) -> Walks {
        let position = |goals: Option<Vec<f64>>| Position {
            moves: vec![2, 1],
            goals: goals.map_or(vec![None, None], |g| g.into_iter().map(Some).collect()),
        };
        Walks {
            done: walks
                .into_iter()
                .map(|(goals, result)| Walk {
                    positions: goals.into_iter().map(position).collect(),
                    result,
                })
                .collect(),
            cut: Vec::new(),
            roles: 2,
        }
    }

    /// Reversi's goal (who has more discs now) varies from the first move but predicts
    /// little of a random game's result: it may be cut (`on`), it is not by default.
    /// Goals given only at the end (50 each before it) cannot be cut at all.
    #[test]
    fn reversi_leads_vary_but_say_little_and_end_only_goals_are_never_cut() {
        let reversi = detection("reversi_6x6.gdl");
        assert!(reversi.varies && reversi.defined == 1.0, "{reversi:?}");
        assert_eq!(reversi.steps, reversi.length / CUT_SHARE, "{reversi}");
        assert!(reversi.steps >= MIN_CUT, "{reversi}");
        let c = reversi.correlation.expect("the lead varies");
        assert!(c > 0.0 && c < MIN_CORRELATION, "{reversi}");
        assert_eq!(CutoffSetting::On.cut(&reversi), Some(reversi.steps));
        assert_eq!(CutoffSetting::Auto.cut(&reversi), None);
        assert_eq!(CutoffSetting::Off.cut(&reversi), None);
        let line = CutoffSetting::On.describe(&reversi);
        let cut = format!(
            "playouts cut after {} moves, scored by the goals",
            reversi.steps
        );
        assert!(line.starts_with(&cut), "{line}");
        for file in ["connect_four.gdl", "hex.gdl", "checkers_6x6.gdl"] {
            let d = detection(file);
            assert!(!d.varies && d.correlation.is_none(), "{file}: {d:?}");
            assert_eq!(CutoffSetting::On.cut(&d), None, "{file}");
            let line = CutoffSetting::On.describe(&d);
            assert!(
                line.starts_with("playouts to the end (--cutoff on: "),
                "{line}"
            );
        }
    }

    #[test]
    fn goals_that_predict_the_result_are_played_by() {
        let lead = |v: f64| Some(vec![v, 1.0 - v]);
        let walk = |v: f64| {
            let goals = (0..12).map(|i| lead(if i < 2 { 0.5 } else { v }));
            (goals.collect(), vec![v, 1.0 - v])
        };
        let d = Detection::of(&walks(vec![walk(1.0), walk(0.0), walk(1.0)]));
        assert_eq!((d.length, d.steps), (12, MIN_CUT));
        assert!(d.correlation.unwrap() > 0.99, "{d:?}");
        assert_eq!(CutoffSetting::Auto.cut(&d), Some(MIN_CUT));
    }

    #[test]
    fn weak_or_missing_goals_are_not_played_by() {
        // Goals that vary but say nothing of the result: the same sequence in a won and a
        // lost walk.
        let noise: Goals = (0..12)
            .map(|i| Some(vec![(i % 2) as f64, 1.0 - (i % 2) as f64]))
            .collect();
        let d = Detection::of(&walks(vec![
            (noise.clone(), vec![1.0, 0.0]),
            (noise, vec![0.0, 1.0]),
        ]));
        assert!(d.varies && d.correlation.unwrap().abs() < 1e-9, "{d:?}");
        assert_eq!(d.cutoff(), None);
        // Goals that predict the result, but missing in half the positions.
        let lead = |v: f64| Some(vec![v, 1.0 - v]);
        let half: Vec<_> = (0..12)
            .map(|i| if i % 2 == 0 { lead(1.0) } else { None })
            .collect();
        let lost: Vec<_> = (0..12).map(|_| lead(0.0)).collect();
        let d = Detection::of(&walks(vec![(half, vec![1.0, 0.0]), (lost, vec![0.0, 1.0])]));
        assert!(
            d.correlation.unwrap() > 0.9 && d.defined < MIN_DEFINED,
            "{d:?}"
        );
        assert_eq!(d.cutoff(), None);
    }

    /// Reversi from the start: 2 discs each (50–50); after black's first move, whichever
    /// it is, black has 4 and white 1 (100–0); after white's reply, 3 each.
    #[test]
    fn a_cut_playout_scores_the_goals_where_it_stopped() {
        let gdl = game("reversi_6x6.gdl");
        let start = gdl.initial_state();
        for seed in 0..4 {
            let mut rng = crate::rng::seeded(Some(seed));
            let mut timer = Timer::new(None, None, 1);
            let mut cut = |steps| gdl.playout_cut(start.clone(), &mut rng, &mut timer, None, steps);
            assert_eq!(cut(0), Some(vec![0.5, 0.5]));
            assert_eq!(cut(1), Some(vec![1.0, 0.0]));
            assert_eq!(cut(2), Some(vec![0.5, 0.5]));
        }
        // Four iterations from the start: each expands one of black's four moves and plays
        // out from there. Cut at once, each scores 100–0; cut after white's reply, 50–50.
        for (steps, value) in [(0, 1.0), (1, 0.5)] {
            let mut tree = Mcts::new(gdl.clone(), Some(1), 16);
            tree.set_cutoff(Some(steps));
            let budget = super::super::Budget {
                iterations: Some(4),
                ..Default::default()
            };
            let choice = tree.search_within(&start, 0, budget);
            assert_eq!((choice.playouts, choice.value), (4, value), "{steps}");
        }
    }
}
