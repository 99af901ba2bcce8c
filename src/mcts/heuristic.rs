//! Heuristics found in the start clock: counts of the state's facts that say, in the
//! middle of a game, who is likely to win it (the pieces of each colour in checkers or
//! reversi), and an evaluation of a position built from them for the playouts
//! (`serve --heuristics`).
//!
//! The candidates come from the facts themselves: for every relation of the state (say
//! `cell`) and every argument place that takes only a few values (its third, the piece
//! or colour on a cell), the number of facts with each value there (`(cell _ _ black)`).
//! Random walks through the game ([`detect`]) score each candidate by the correlation,
//! at a few fixed plies in the middle of the walks, of its count with the walks' result
//! (the first role's goal minus the second's). Comparing positions of the same ply leaves
//! out counts that only grow with the moves (the marks of tic-tac-toe, the discs of
//! connect four). Those that clear [`MIN_CORRELATION`] make the evaluation: a weighted
//! sum of their counts, each weight its correlation, turned into the two roles' values by
//! a logistic fitted on the same walks ([`Evaluation`]). A playout then stops a few moves
//! after its leaf and is scored by that evaluation ([`super::Mcts::set_heuristic`]); or,
//! with `--progressive-bias`, the playouts run to the end and the evaluation biases the
//! tree's selection instead ([`super::Mcts::set_bias`]).
//!
//! `--heuristics learnt` weighs every fluent instead of counts ([`super::learnt`]); [`find`]
//! makes either evaluation.
//!
//! Only games of two roles are evaluated: the result is one role's lead over the other.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use super::cutoff::correlation;
use super::{Evaluator, MAX_PLAYOUT_STEPS, Timer, learnt};
use crate::gdl::{Gdl, State, Term};
use crate::rng::Rng;

/// Whether MCTS playouts are cut and scored by a heuristic found in the start clock
/// (`serve --heuristics`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum HeuristicSetting {
    /// Where the start clock's walks find a count that predicts the result.
    Auto,
    /// With whatever counts say anything of the result, however little (for measuring).
    On,
    // The fit is `super::learnt`'s; clap shows the doc comment as the help.
    /// With a weight for every fluent, fitted to random games' results, where it
    /// predicts held-out games better than a constant.
    Learnt,
    /// Never: playouts as without heuristics.
    #[default]
    Off,
}

impl HeuristicSetting {
    /// The least correlation of a count the evaluation uses under this setting; `None`
    /// when off or when it learns weights of fluents instead of counts.
    fn threshold(self) -> Option<f64> {
        match self {
            HeuristicSetting::Auto => Some(MIN_CORRELATION),
            HeuristicSetting::On => Some(ON_CORRELATION),
            HeuristicSetting::Learnt | HeuristicSetting::Off => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            HeuristicSetting::Auto => "auto",
            HeuristicSetting::On => "on",
            HeuristicSetting::Learnt => "learnt",
            HeuristicSetting::Off => "off",
        }
    }
}

/// The weight of the heuristic's progressive bias (`serve --progressive-bias`): a
/// number from 0 (no bias) to 10⁶, never NaN, so that it compares as equal to itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct BiasWeight(f64);

impl Eq for BiasWeight {}

impl BiasWeight {
    pub const NONE: BiasWeight = BiasWeight(0.0);

    /// The weight `text` says: a number from 0 to 10⁶.
    pub fn parse(text: &str) -> Result<BiasWeight, String> {
        match text.trim().parse::<f64>() {
            Ok(w) if (0.0..=1e6).contains(&w) => Ok(BiasWeight(w)),
            _ => Err("expected a weight from 0 to 1000000".to_owned()),
        }
    }

    pub fn get(self) -> f64 {
        self.0
    }
}

/// Walks of the detection at most.
pub const WALKS: u32 = 100;
/// Moves a playout plays from its leaf before the evaluation scores it.
pub const STEPS: usize = 4;
/// An argument place taking more values than this (a coordinate of a large board, a
/// number) makes no candidates.
const MAX_VALUES: usize = 12;
/// The least correlation of a count with the result for `auto` to use it.
const MIN_CORRELATION: f64 = 0.3;
/// The least correlation of a count for `on` to use it.
const ON_CORRELATION: f64 = 0.1;
/// Sampled positions needed before any count is trusted.
const MIN_SAMPLES: usize = 30;

/// A candidate: the number of the state's facts of `relation` (of `arity` arguments)
/// whose argument `place` is `value`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Feature {
    pub relation: String,
    pub arity: usize,
    pub place: usize,
    pub value: String,
}

impl fmt::Display for Feature {
    /// `(cell _ _ black)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}", self.relation)?;
        for i in 0..self.arity {
            let arg = if i == self.place { &self.value } else { "_" };
            write!(f, " {arg}")?;
        }
        f.write_str(")")
    }
}

/// A candidate and what the walks found of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub feature: Feature,
    /// Its correlation with the result among positions of the same ply.
    pub correlation: f64,
    /// Its mean and standard deviation (within plies) over the sampled positions.
    pub mean: f64,
    pub deviation: f64,
}

/// What the walks found.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    /// Walks played.
    pub walks: u32,
    /// Their median length, in joint moves.
    pub length: usize,
    /// Positions sampled in the middle of the walks.
    pub samples: usize,
    /// Every candidate that varied among positions of the same ply, the most predictive
    /// first.
    pub scored: Vec<Scored>,
    /// Each sampled position's counts of the scored candidates (in their order) and its
    /// walk's result: what the evaluation's logistic is fitted to.
    positions: Vec<(Vec<f64>, f64)>,
}

impl Detection {
    /// The indices of the counts an evaluation uses at `threshold`.
    fn kept(&self, threshold: f64) -> Vec<usize> {
        if self.samples < MIN_SAMPLES {
            return Vec::new();
        }
        (0..self.scored.len())
            .filter(|&i| self.scored[i].correlation.abs() >= threshold)
            .collect()
    }

    /// The counts `auto` would play by: those that clear [`MIN_CORRELATION`].
    pub fn predictive(&self) -> Vec<&Scored> {
        let kept = self.kept(MIN_CORRELATION);
        kept.into_iter().map(|i| &self.scored[i]).collect()
    }

    /// The slope `a` of the fit of the sampled results by `tanh(a · score)` (by least
    /// squares, at small scores), the score weighting the counts `kept` by `weight`:
    /// `None` if the scores say nothing of the results.
    fn scale(&self, kept: &[usize], weight: impl Fn(&Scored) -> f64) -> Option<f64> {
        let (mut sy, mut ss) = (0.0, 0.0);
        for (counts, result) in &self.positions {
            let score: f64 = kept
                .iter()
                .map(|&i| weight(&self.scored[i]) * (counts[i] - self.scored[i].mean))
                .sum();
            sy += score * result;
            ss += score * score;
        }
        (sy > 0.0 && ss > 0.0).then(|| sy / ss)
    }
}

impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} walks of median length {}, {} positions sampled",
            self.walks, self.length, self.samples
        )?;
        if self.scored.is_empty() {
            return f.write_str(", no count varies");
        }
        f.write_str(", best counts:")?;
        for s in self.scored.iter().take(4) {
            write!(f, " {} {:+.2}", s.feature, s.correlation)?;
        }
        Ok(())
    }
}

/// A position's value to both roles from the counts of its facts.
pub struct Evaluation {
    gdl: Arc<Gdl>,
    /// Each kept count's weight (its correlation over its deviation).
    weights: HashMap<Feature, f64>,
    /// The weighted means, taken off every score.
    offset: f64,
    /// The logistic's slope.
    scale: f64,
}

impl Evaluation {
    /// The evaluation by the counts of `found` that clear `setting`'s threshold, if any
    /// does and they say something of the walks' results; `None` otherwise.
    pub fn new(gdl: Arc<Gdl>, found: &Detection, setting: HeuristicSetting) -> Option<Evaluation> {
        let kept = found.kept(setting.threshold()?);
        if kept.is_empty() || gdl.roles().len() != 2 {
            return None;
        }
        let weight = |s: &Scored| s.correlation / s.deviation;
        let scale = found.scale(&kept, weight)?;
        let kept: Vec<&Scored> = kept.into_iter().map(|i| &found.scored[i]).collect();
        Some(Evaluation {
            gdl,
            weights: kept
                .iter()
                .map(|s| (s.feature.clone(), weight(s)))
                .collect(),
            offset: kept.iter().map(|s| weight(s) * s.mean).sum(),
            scale,
        })
    }

    /// The weighted sum of the state's counts, less the weighted means: above 0 where
    /// the first role leads.
    pub fn score(&self, state: &State) -> f64 {
        let mut score = -self.offset;
        for fact in state.fluents() {
            for feature in features_of(&self.gdl, fact) {
                score += self.weights.get(&feature).copied().unwrap_or(0.0);
            }
        }
        score
    }

    /// Both roles' values (0–1), their sum 1: the first's the logistic of the score.
    pub fn value(&self, state: &State) -> Vec<f64> {
        let first = 1.0 / (1.0 + (-2.0 * self.scale * self.score(state)).exp());
        vec![first, 1.0 - first]
    }

    /// The evaluation as the tree's playouts take it.
    pub fn evaluator(self: Arc<Self>) -> Evaluator<State> {
        Arc::new(move |state: &State| self.value(state))
    }
}

impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut weights: Vec<_> = self.weights.iter().collect();
        weights.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(b.0)));
        let parts: Vec<String> = weights
            .iter()
            .map(|(feature, w)| format!("{w:+.2}·{feature}"))
            .collect();
        write!(f, "{}", parts.join(" "))
    }
}

/// The candidates `fact` counts towards: one for each argument place.
fn features_of(gdl: &Gdl, fact: &Term) -> Vec<Feature> {
    let sexpr = gdl.term_to_sexpr(fact);
    let Some(items) = sexpr.as_list() else {
        return Vec::new();
    };
    let Some((relation, args)) = items.split_first() else {
        return Vec::new();
    };
    let Some(relation) = relation.as_atom() else {
        return Vec::new();
    };
    args.iter()
        .enumerate()
        .map(|(place, value)| Feature {
            relation: relation.to_owned(),
            arity: args.len(),
            place,
            value: value.to_string(),
        })
        .collect()
}

/// One sampled position: its counts of every candidate, its ply, the walk's result.
struct Sample {
    counts: BTreeMap<Feature, f64>,
    ply: usize,
    result: f64,
}

/// Walks up to [`WALKS`] uniformly random games from `root` (fewer if `timer` runs out
/// first) and scores the counts of their facts by how well they predict the results.
pub fn detect(gdl: &Gdl, root: &State, rng: &mut Rng, timer: &mut Timer) -> Detection {
    let walks = walk(gdl, root, WALKS, rng, timer);
    let mut lengths: Vec<usize> = walks.iter().map(|w| w.0.len()).collect();
    lengths.sort_unstable();
    let length = lengths.get(lengths.len() / 2).copied().unwrap_or(0);
    let plies: BTreeSet<usize> = [length / 3, length / 2, 2 * length / 3]
        .into_iter()
        .filter(|&p| p > 0)
        .collect();
    let mut samples = Vec::new();
    for (positions, result) in &walks {
        for &ply in &plies {
            let Some(state) = positions.get(ply) else {
                continue;
            };
            let mut counts = BTreeMap::new();
            for fact in state.fluents() {
                for feature in features_of(gdl, fact) {
                    *counts.entry(feature).or_insert(0.0) += 1.0;
                }
            }
            samples.push(Sample {
                counts,
                ply,
                result: *result,
            });
        }
    }
    let scored = score(&samples);
    let positions = samples
        .iter()
        .map(|s| {
            let counts = scored
                .iter()
                .map(|c| s.counts.get(&c.feature).copied().unwrap_or(0.0))
                .collect();
            (counts, s.result)
        })
        .collect();
    Detection {
        walks: walks.len() as u32,
        length,
        samples: samples.len(),
        scored,
        positions,
    }
}

/// Up to `count` uniformly random games of a two-player `gdl` from `root` (fewer if
/// `timer` runs out first; none in games of other numbers of roles), each as the states
/// it went through before its end and its result ([`lead`]).
pub fn walk(
    gdl: &Gdl,
    root: &State,
    count: u32,
    rng: &mut Rng,
    timer: &mut Timer,
) -> Vec<(Vec<State>, f64)> {
    let mut walks = Vec::new();
    if gdl.roles().len() != 2 {
        return walks;
    }
    for _ in 0..count {
        let mut state = root.clone();
        let mut positions = Vec::new();
        let mut result = None;
        for _ in 0..MAX_PLAYOUT_STEPS {
            if timer.expired() {
                return walks;
            }
            let a = gdl.analyse(&state);
            if a.terminal || a.legal.iter().any(Vec::is_empty) {
                result = Some(lead(&a.goals));
                break;
            }
            positions.push(state.clone());
            let joint = crate::mcts::random_joint(&a.legal, rng);
            state = gdl.next_state(&state, &joint);
        }
        let result = result.unwrap_or_else(|| lead(&gdl.goals(&state)));
        walks.push((positions, result));
    }
    walks
}

/// The first role's goal less the second's, on a scale of −1 to 1 (a missing goal 0).
fn lead(goals: &[Option<u32>]) -> f64 {
    let g = |i: usize| goals.get(i).copied().flatten().unwrap_or(0).min(100) as f64 / 100.0;
    g(0) - g(1)
}

/// Every candidate of few values per place, scored by its correlation with the result
/// among positions of the same ply (each centred on its ply's mean).
fn score(samples: &[Sample]) -> Vec<Scored> {
    let mut values: BTreeMap<(&str, usize, usize), BTreeSet<&str>> = BTreeMap::new();
    for s in samples {
        for f in s.counts.keys() {
            values
                .entry((&f.relation, f.arity, f.place))
                .or_default()
                .insert(&f.value);
        }
    }
    let candidates: Vec<&Feature> = samples
        .iter()
        .flat_map(|s| s.counts.keys())
        .filter(|f| values[&(f.relation.as_str(), f.arity, f.place)].len() <= MAX_VALUES)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut plies: BTreeMap<usize, Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        plies.entry(s.ply).or_default().push(s);
    }
    let mut scored = Vec::new();
    for feature in candidates {
        let count = |s: &Sample| s.counts.get(feature).copied().unwrap_or(0.0);
        // Each count and result less its ply's mean.
        let mut centred = Vec::with_capacity(samples.len());
        for group in plies.values() {
            let n = group.len() as f64;
            let mx = group.iter().map(|s| count(s)).sum::<f64>() / n;
            let my = group.iter().map(|s| s.result).sum::<f64>() / n;
            centred.extend(group.iter().map(|s| (count(s) - mx, s.result - my)));
        }
        if let Some(correlation) = correlation(&centred) {
            let n = samples.len() as f64;
            let sxx: f64 = centred.iter().map(|(x, _)| x * x).sum();
            scored.push(Scored {
                feature: feature.clone(),
                correlation,
                mean: samples.iter().map(count).sum::<f64>() / n,
                deviation: (sxx / n).sqrt(),
            });
        }
    }
    scored.sort_by(|a, b| {
        b.correlation
            .abs()
            .total_cmp(&a.correlation.abs())
            .then_with(|| a.feature.cmp(&b.feature))
    });
    scored
}

/// What `setting` finds from `root` (unless off) by random games until `timer` runs out:
/// the evaluation to use, if any, and the meta-gaming's line for it, the evaluation to
/// bias the selection with weight `bias` if above 0, else to score cut playouts.
pub fn find(
    gdl: &Arc<Gdl>,
    root: &State,
    setting: HeuristicSetting,
    bias: f64,
    rng: &mut Rng,
    timer: &mut Timer,
) -> (Option<Evaluator<State>>, String) {
    let name = setting.name();
    let used = |e: &dyn fmt::Display| {
        if bias > 0.0 {
            format!("selection biased by {bias} × ({e})")
        } else {
            format!("playouts cut after {STEPS} moves, scored by {e}")
        }
    };
    if setting == HeuristicSetting::Learnt {
        let walks = walk(gdl, root, learnt::WALKS, rng, timer);
        return match learnt::learn(gdl.clone(), &walks) {
            Ok(l) if l.fit.useful() => {
                let line = format!("{} (--heuristics {name})", used(&l));
                (Some(Arc::new(l).evaluator()), line)
            }
            Ok(l) => (None, format!("no heuristic (--heuristics {name}: {l})")),
            Err(why) => (None, format!("no heuristic (--heuristics {name}: {why})")),
        };
    }
    let found = detect(gdl, root, rng, timer);
    match Evaluation::new(gdl.clone(), &found, setting) {
        Some(e) => {
            let line = format!("{} (--heuristics {name}: {found})", used(&e));
            (Some(Arc::new(e).evaluator()), line)
        }
        None => (None, format!("no heuristic (--heuristics {name}: {found})")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::game;
    use super::super::{Budget, Mcts};
    use super::*;
    use crate::sexpr::Sexpr;

    fn detection(gdl: &Gdl) -> Detection {
        let mut rng = crate::rng::seeded(Some(3));
        let mut timer = Timer::new(None, None, 1);
        detect(gdl, &gdl.initial_state(), &mut rng, &mut timer)
    }

    /// Checkers' pieces predict who wins a random game (red is the first role): every
    /// piece count kept counts red's pieces with a positive weight, white's with a
    /// negative one. In tic-tac-toe and nim no count varies among positions of the same
    /// ply, so nothing is kept and `auto` plays without a heuristic.
    #[test]
    fn checkers_pieces_predict_and_tictactoe_and_nim_have_nothing() {
        let checkers = game("checkers_6x6.gdl");
        let found = detection(&checkers);
        let pieces: Vec<&Scored> = found
            .predictive()
            .into_iter()
            .filter(|s| s.feature.relation == "cell" && s.feature.place == 2)
            .collect();
        assert!(!pieces.is_empty(), "{found}");
        for s in &pieces {
            let red = s.feature.value.starts_with('r');
            assert_eq!(s.correlation > 0.0, red, "{found}");
        }
        let evaluation = Evaluation::new(checkers, &found, HeuristicSetting::Auto);
        assert!(evaluation.is_some(), "{found}");
        assert!(Evaluation::new(game("checkers_6x6.gdl"), &found, HeuristicSetting::Off).is_none());
        for file in ["tictactoe.gdl", "nim.gdl"] {
            let gdl = game(file);
            let found = detection(&gdl);
            assert!(found.samples >= MIN_SAMPLES, "{file}: {found}");
            assert!(found.predictive().is_empty(), "{file}: {found}");
            assert!(Evaluation::new(gdl, &found, HeuristicSetting::Auto).is_none());
        }
    }

    /// Checkers from the start, one piece added: a red king makes red's value higher
    /// than at the start, a white man lower (each counted by the evaluation `on` makes),
    /// the two values always summing to 1.
    #[test]
    fn a_piece_more_is_worth_more_to_its_own_side() {
        let gdl = game("checkers_6x6.gdl");
        let found = detection(&gdl);
        let on = Evaluation::new(gdl.clone(), &found, HeuristicSetting::On).unwrap();
        for piece in ["rk", "wm"] {
            let weighted = on.weights.keys().any(|f| f.value == piece);
            assert!(weighted, "{piece}: {on}");
        }
        let start = gdl.initial_state();
        let with = |piece: &str| {
            let text = format!("(cell 3 3 {piece})");
            let fact = gdl.term_from_sexpr(&Sexpr::parse(&text).unwrap()).unwrap();
            let facts = start.fluents().iter().cloned().chain([fact]);
            on.value(&State::from_fluents(facts))
        };
        let base = on.value(&start);
        assert!((base[0] + base[1] - 1.0).abs() < 1e-9, "{base:?}");
        assert!(with("rk")[0] > base[0], "{on}");
        assert!(with("wm")[0] < base[0], "{on}");
    }

    /// Positions in the middle of fresh random games (another seed than the detection's):
    /// red's value is higher on average in the games red went on to win than in those it
    /// lost.
    #[test]
    fn the_evaluation_favours_the_side_that_goes_on_to_win() {
        let gdl = game("checkers_6x6.gdl");
        let found = detection(&gdl);
        let on = Evaluation::new(gdl.clone(), &found, HeuristicSetting::On).unwrap();
        let mut rng = crate::rng::seeded(Some(11));
        let (mut won, mut lost) = (Vec::new(), Vec::new());
        for _ in 0..60 {
            let mut state = gdl.initial_state();
            let mut middle = None;
            for ply in 0..MAX_PLAYOUT_STEPS {
                let a = gdl.analyse(&state);
                if a.terminal {
                    break;
                }
                if ply == found.length / 2 {
                    middle = Some(on.value(&state)[0]);
                }
                let joint = crate::mcts::random_joint(&a.legal, &mut rng);
                state = gdl.next_state(&state, &joint);
            }
            let result = lead(&gdl.goals(&state));
            match middle {
                Some(v) if result > 0.0 => won.push(v),
                Some(v) if result < 0.0 => lost.push(v),
                _ => {}
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!(won.len() >= 5 && lost.len() >= 5, "{won:?} {lost:?}");
        assert!(mean(&won) > mean(&lost), "{won:?} {lost:?}");
    }

    /// A tree whose playouts are cut at once scores each by the evaluator, in role order:
    /// four iterations from the start, each valued 0.9 to red, make red's value 0.9.
    #[test]
    fn a_cut_playout_is_scored_by_the_evaluator() {
        let gdl = game("checkers_6x6.gdl");
        let mut tree = Mcts::new(gdl.clone(), Some(1), 16);
        let evaluate: Evaluator<State> = Arc::new(|_: &State| vec![0.9, 0.1]);
        tree.set_heuristic(Some((0, evaluate)));
        let budget = Budget {
            iterations: Some(4),
            ..Default::default()
        };
        let choice = tree.search_within(&gdl.initial_state(), 0, budget);
        assert_eq!(choice.playouts, 4);
        assert!((choice.value - 0.9).abs() < 1e-9, "{}", choice.value);
    }
}
