//! A learnt evaluation (`serve --heuristics learnt`): a weight for every fluent of the
//! game, each a 0/1 feature (a disc on a corner, a piece on a given square, whose turn it
//! is), fitted in the start clock to the results of random games, like a piece-square
//! table learnt from the rules alone.
//!
//! Random walks from the match's position ([`super::heuristic::walk`]) give positions
//! from the middle half of each walk and the walk's result (the first role's goal less
//! the second's, mapped to 0–1). The weights are a logistic regression of the results on
//! the fluents, with a ridge penalty ([`crate::fit::newton_ridge`]) chosen on part of the
//! walks, fitted to four walks in five; the fifth walk of every five is held out, and its
//! positions measure the fit's log-loss beside a constant predictor's (the mean result of
//! the fitted walks).
//! The evaluation is used only where it beats the constant by [`MIN_GAIN`] of the
//! constant's loss: where random games' results do not depend on the fluents in a way
//! a sum of weights can say, nothing is used.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::Evaluator;
use crate::fit::{Sparse, measure, newton_ridge, sigmoid};
use crate::gdl::{Gdl, State, Term};

/// Walks the start clock plays for the fit at most.
pub const WALKS: u32 = 1_000;
/// The walks are dealt into this many parts: the last ([`TEST`]) is held out of the fit
/// to measure it, the one before ([`CHECK`]) chooses the ridge among [`RIDGES`] by the
/// log-loss of fits to the others; the chosen ridge is then fitted to all but the last.
const PARTS: usize = 5;
const TEST: usize = PARTS - 1;
const CHECK: usize = PARTS - 2;
/// The ridge penalties per position tried: the fewer the walks for the fluents, the
/// larger the one that predicts best, keeping a rare fluent's weight small.
const RIDGES: [f64; 5] = [0.001, 0.003, 0.01, 0.03, 0.1];
/// Positions sampled from each walk's middle half at most.
const PER_WALK: usize = 6;
/// Features fitted at most (the most varied fluents first): the fit's Newton steps solve
/// a dense system of this size.
const MAX_FEATURES: usize = 300;
/// Positions each of the fit and the held-out measure needs at least.
const MIN_POSITIONS: usize = 40;
/// The least gain in held-out log-loss over the constant, as a share of the constant's,
/// for the evaluation to be used: above what fits to the same walks with their results
/// shuffled among them (so that the fluents say nothing of them) reached
/// (docs/measurements.md, "A learnt evaluation").
pub const MIN_GAIN: f64 = 0.01;

/// How the fit did.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Walks played, and the positions fitted and held out.
    pub walks: usize,
    pub train: usize,
    pub test: usize,
    /// Fluents given a weight.
    pub features: usize,
    /// The ridge penalty chosen.
    pub ridge: f64,
    /// Mean log-loss (nats) of the held-out positions, by the fit and by the constant.
    pub loss: f64,
    pub constant: f64,
    /// The share of held-out positions of decided walks whose winner the fit names.
    pub accuracy: f64,
}

impl Fit {
    /// The held-out log-loss saved over the constant, as a share of the constant's.
    pub fn gain(&self) -> f64 {
        if self.constant > 0.0 {
            1.0 - self.loss / self.constant
        } else {
            0.0
        }
    }

    /// Whether the fit predicts well enough to be used.
    pub fn useful(&self) -> bool {
        self.gain() >= MIN_GAIN
    }
}

impl fmt::Display for Fit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} walks, {} fluents weighted on {} positions (ridge {}); {} held-out \
             positions: log-loss {:.4} against the constant's {:.4} (gain {:.1}%, {:.1}% \
             needed), winner predicted {:.1}%",
            self.walks,
            self.features,
            self.train,
            self.ridge,
            self.test,
            self.loss,
            self.constant,
            100.0 * self.gain(),
            100.0 * MIN_GAIN,
            100.0 * self.accuracy
        )
    }
}

/// A position's value from weights of its fluents.
pub struct Learnt {
    gdl: Arc<Gdl>,
    weights: HashMap<Term, f64>,
    /// The logit of a position with none of the weighted fluents.
    intercept: f64,
    pub fit: Fit,
}

impl Learnt {
    /// The first role's winning chances' logit at `state`.
    pub fn logit(&self, state: &State) -> f64 {
        let sum: f64 = state
            .fluents()
            .iter()
            .filter_map(|f| self.weights.get(f))
            .sum();
        self.intercept + sum
    }

    /// Both roles' values (0–1), their sum 1.
    pub fn value(&self, state: &State) -> Vec<f64> {
        let first = sigmoid(self.logit(state));
        vec![first, 1.0 - first]
    }

    /// The weight of `fluent` (0 for one not weighted).
    pub fn weight(&self, fluent: &Term) -> f64 {
        self.weights.get(fluent).copied().unwrap_or(0.0)
    }

    /// The evaluation as the tree takes it.
    pub fn evaluator(self: Arc<Self>) -> Evaluator<State> {
        Arc::new(move |state: &State| self.value(state))
    }
}

impl fmt::Display for Learnt {
    /// The fit, and the largest weights.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut weights: Vec<_> = self.weights.iter().collect();
        weights.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(b.0)));
        write!(f, "{}; largest weights:", self.fit)?;
        for (fluent, w) in weights.iter().take(4) {
            write!(f, " {w:+.2}·{}", self.gdl.display(fluent))?;
        }
        Ok(())
    }
}

/// One sampled position: its fluents and its walk's result (0–1, 1 the first role won).
struct Sample<'a> {
    fluents: &'a [Term],
    result: f64,
}

/// Fits the weights to `walks` (each the states a random game went through and its
/// result, the first role's lead from −1 to 1): the evaluation, with its fit, or why
/// none could be made. Whether it is worth using is [`Fit::useful`].
pub fn learn(gdl: Arc<Gdl>, walks: &[(Vec<State>, f64)]) -> Result<Learnt, String> {
    // Each position with the part of the walks it comes from: the last part is held
    // out, the one before chooses the ridge.
    let mut samples = Vec::new();
    for (i, (states, lead)) in walks.iter().enumerate() {
        let (from, to) = (states.len() / 4, 3 * states.len() / 4);
        let stride = ((to - from) / PER_WALK).max(1);
        let result = (lead.clamp(-1.0, 1.0) + 1.0) / 2.0;
        for state in states[from..to].iter().step_by(stride).take(PER_WALK) {
            let sample = Sample {
                fluents: state.fluents(),
                result,
            };
            samples.push((i % PARTS, sample));
        }
    }
    let (test, train): (Vec<_>, Vec<_>) = samples.iter().partition(|(p, _)| *p == TEST);
    if train.len() < MIN_POSITIONS || test.len() < MIN_POSITIONS {
        return Err(format!(
            "too few positions to fit: {} walks, {} positions to fit, {} held out",
            walks.len(),
            train.len(),
            test.len()
        ));
    }
    let train: Vec<&Sample> = train.into_iter().map(|(_, s)| s).collect();
    let index = features(&train);
    let vector = |s: &Sample| {
        let mut v = Sparse(vec![(0, 1.0)]);
        v.0.extend(
            s.fluents
                .iter()
                .filter_map(|f| index.get(f))
                .map(|&i| (i as u16, 1.0)),
        );
        (v, s.result)
    };
    let vectors = |keep: &dyn Fn(usize) -> bool| -> Vec<(Sparse, f64)> {
        samples
            .iter()
            .filter(|(p, _)| keep(*p))
            .map(|(_, s)| vector(s))
            .collect()
    };
    let count = index.len() + 1;
    let loss = |w: &[f64], set: &[(Sparse, f64)]| measure(set.iter().map(|(v, y)| (v.dot(w), *y)));
    let (inner, check) = (vectors(&|p| p < CHECK), vectors(&|p| p == CHECK));
    let ridge = RIDGES
        .iter()
        .map(|&r| (loss(&newton_ridge(&inner, count, r), &check).0, r))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(RIDGES[0], |(_, r)| r);
    let w = newton_ridge(&vectors(&|p| p != TEST), count, ridge);
    let (loss, accuracy) = loss(&w, &vectors(&|p| p == TEST));
    let mean = train.iter().map(|s| s.result).sum::<f64>() / train.len() as f64;
    let mean = mean.clamp(1e-3, 1.0 - 1e-3);
    let logit = (mean / (1.0 - mean)).ln();
    let (constant, _) = measure(test.iter().map(|(_, s)| (logit, s.result)));
    Ok(Learnt {
        weights: index.into_iter().map(|(f, i)| (f.clone(), w[i])).collect(),
        intercept: w[0],
        fit: Fit {
            walks: walks.len(),
            train: train.len(),
            test: test.len(),
            features: count - 1,
            ridge,
            loss,
            constant,
            accuracy,
        },
        gdl,
    })
}

/// The fluents to weigh, each with its index in the fit (from 1; 0 is the intercept):
/// those true in some positions of `samples` but not all, the most varied first, at most
/// [`MAX_FEATURES`].
fn features<'a>(samples: &[&Sample<'a>]) -> HashMap<&'a Term, usize> {
    let mut seen: HashMap<&Term, usize> = HashMap::new();
    for s in samples {
        for f in s.fluents {
            *seen.entry(f).or_insert(0) += 1;
        }
    }
    let n = samples.len();
    let mut varied: Vec<(&Term, usize)> = seen.into_iter().filter(|&(_, c)| c < n).collect();
    // The most varied first (a fluent true in half the positions says most), ties in
    // the terms' order so that the fit does not depend on the map's.
    varied.sort_by(|a, b| {
        let spread = |c: usize| c.min(n - c);
        spread(b.1).cmp(&spread(a.1)).then(a.0.cmp(b.0))
    });
    varied
        .into_iter()
        .take(MAX_FEATURES)
        .enumerate()
        .map(|(i, (f, _))| (f, i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use rand::seq::SliceRandom;

    use super::super::tests::game;
    use super::super::{Timer, heuristic};
    use super::*;

    /// Random games: each the states it went through and its result.
    type Walks = Vec<(Vec<State>, f64)>;

    /// Random games of `gdl` from its start, seeded.
    fn walks(gdl: &Gdl, count: u32, seed: u64) -> Walks {
        let mut rng = crate::rng::seeded(Some(seed));
        let mut timer = Timer::new(None, None, 1);
        heuristic::walk(gdl, &gdl.initial_state(), count, &mut rng, &mut timer)
    }

    /// A game of eight simultaneous moves: `a` first picks x or y, which alone decides
    /// the result (x wins for `a`); then both roles light lamps at random, which say
    /// nothing of it.
    const PICK: &str = "
        (role a) (role b)
        (init (step 0))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
        (lamp 1) (lamp 2) (lamp 3) (lamp 4)
        (<= (legal a (pick x)) (true (step 0)))
        (<= (legal a (pick y)) (true (step 0)))
        (<= (legal b wait) (true (step 0)))
        (<= (legal ?r (light ?n)) (role ?r) (lamp ?n) (not (true (step 0))))
        (<= (next (picked ?c)) (does a (pick ?c)))
        (<= (next (picked ?c)) (true (picked ?c)))
        (<= (next (lit ?n)) (does ?r (light ?n)))
        (<= (next (lit ?n)) (true (lit ?n)))
        (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
        (<= terminal (true (step 7)))
        (<= (goal a 100) (true (picked x)))
        (<= (goal a 0) (not (true (picked x))))
        (<= (goal b 0) (true (picked x)))
        (<= (goal b 100) (not (true (picked x))))
    ";

    /// Where one fluent decides the result, the fit gives it the largest weight, for the
    /// first role, its alternative the largest against, every lamp and step less than
    /// either; it predicts the held-out games far better than the constant.
    #[test]
    fn the_deciding_fluent_gets_the_largest_weight() {
        let gdl = Arc::new(Gdl::parse(PICK).unwrap());
        let learnt = learn(gdl.clone(), &walks(&gdl, 200, 1)).unwrap();
        let weight = |text: &str| learnt.weight(&gdl.parse_term(text).unwrap());
        let (x, y) = (weight("(picked x)"), weight("(picked y)"));
        assert!(x > 0.0 && y < 0.0, "{learnt}");
        for (fluent, w) in &learnt.weights {
            let name = gdl.display(fluent);
            if !name.starts_with("(picked") {
                assert!(w.abs() < x.min(-y), "{name} {w}: {learnt}");
            }
        }
        assert!(learnt.fit.useful() && learnt.fit.gain() > 0.5, "{learnt}");
        assert!(learnt.fit.accuracy > 0.95, "{learnt}");
    }

    /// Checkers' random games, played once for the tests that read them.
    fn checkers() -> &'static (Arc<Gdl>, Walks) {
        static WALKS: OnceLock<(Arc<Gdl>, Walks)> = OnceLock::new();
        WALKS.get_or_init(|| {
            let gdl = game("checkers_6x6.gdl");
            let walks = walks(&gdl, 1000, 1);
            (gdl, walks)
        })
    }

    /// In checkers the fit beats the constant by the margin asked; with the same walks'
    /// results shuffled among them, so that the fluents say nothing of them, it does not
    /// (and no evaluation would be used).
    #[test]
    fn checkers_is_learnt_and_shuffled_results_are_not() {
        let (gdl, walks) = checkers();
        let learnt = learn(gdl.clone(), walks).unwrap();
        assert!(learnt.fit.useful(), "{learnt}");
        let mut rng = crate::rng::seeded(Some(5));
        let mut results: Vec<f64> = walks.iter().map(|w| w.1).collect();
        results.shuffle(&mut rng);
        let shuffled: Walks = walks
            .iter()
            .zip(results)
            .map(|(w, r)| (w.0.clone(), r))
            .collect();
        let noise = learn(gdl.clone(), &shuffled).unwrap();
        assert!(!noise.fit.useful(), "{noise}");
    }

    /// Checkers from the start with three men taken off one side: the side ahead by
    /// three men is valued above the side behind, either way round.
    #[test]
    fn checkers_three_men_up_is_valued_above_three_men_down() {
        let (gdl, walks) = checkers();
        let learnt = learn(gdl.clone(), walks).unwrap();
        let start = gdl.initial_state();
        let without = |men: [&str; 3]| {
            let gone: Vec<Term> = men.iter().map(|m| gdl.parse_term(m).unwrap()).collect();
            let facts = start
                .fluents()
                .iter()
                .filter(|f| !gone.contains(f))
                .cloned();
            learnt.value(&State::from_fluents(facts))[0]
        };
        let red_up = without(["(cell 2 6 wm)", "(cell 4 6 wm)", "(cell 6 6 wm)"]);
        let red_down = without(["(cell 1 1 rm)", "(cell 3 1 rm)", "(cell 5 1 rm)"]);
        assert!(
            red_up > 0.5 && red_down < 0.5,
            "{red_up} {red_down}: {learnt}"
        );
    }

    /// Positions in the middle of fresh checkers games (another seed than the fit's):
    /// red's value is higher on average in the games red went on to win than in those
    /// it lost.
    #[test]
    fn checkers_favours_the_side_that_goes_on_to_win() {
        let (gdl, walks) = checkers();
        let learnt = learn(gdl.clone(), walks).unwrap();
        let (mut won, mut lost) = (Vec::new(), Vec::new());
        for (states, lead) in self::walks(gdl, 60, 11) {
            let Some(middle) = states.get(states.len() / 2) else {
                continue;
            };
            let v = learnt.value(middle)[0];
            if lead > 0.0 {
                won.push(v);
            } else if lead < 0.0 {
                lost.push(v);
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!(won.len() >= 5 && lost.len() >= 5, "{won:?} {lost:?}");
        assert!(mean(&won) > mean(&lost), "{won:?} {lost:?}");
    }
}
