//! Fitting a linear evaluation's weights to the results of games (Texel's method), for
//! any game whose evaluation is a weighted sum of feature counts.
//!
//! Predicting a game's result from its positions through a logistic curve of the
//! evaluation makes the best weights a logistic regression, solved here by Newton's
//! method with a small ridge penalty (it keeps features that never occur at zero and the
//! solution unique). A tenth of the games ([`held_out`]) is kept aside to measure the fit
//! on games it has not seen. The games give their features and positions; this module
//! knows none of them.

use std::fmt::Write as _;
use std::path::Path;

use crate::input_file;

/// The ridge penalty per position.
const RIDGE: f64 = 1e-4;
/// Newton steps; the fit converges in well under this many.
const MAX_STEPS: usize = 30;

/// Receives feature counts.
pub trait Sink {
    fn add(&mut self, feature: usize, count: i32);
}

/// Collects dense counts, for tests that check features by hand.
#[cfg(test)]
pub struct Counts(pub Vec<i32>);

#[cfg(test)]
impl Sink for Counts {
    fn add(&mut self, feature: usize, count: i32) {
        self.0[feature] += count;
    }
}

/// Reads a record line's game number.
pub fn parse_game(field: &str) -> Result<u64, String> {
    field
        .parse()
        .map_err(|_| format!("bad game number {field:?}"))
}

/// Reads a record line's score of a game: 1, 0.5 or 0.
pub fn parse_score(field: &str) -> Result<f64, String> {
    match field.parse::<f64>() {
        Ok(score) if [0.0, 0.5, 1.0].contains(&score) => Ok(score),
        _ => Err(format!("bad score {field:?}: expected 1, 0.5 or 0")),
    }
}

/// A sparse feature vector.
#[derive(Clone, Debug, Default)]
pub struct Sparse(pub Vec<(u16, f64)>);

impl Sink for Sparse {
    fn add(&mut self, feature: usize, count: i32) {
        if count != 0 {
            self.0.push((feature as u16, f64::from(count)));
        }
    }
}

impl Sparse {
    /// The weighted sum of the counts.
    pub fn dot(&self, w: &[f64]) -> f64 {
        self.0.iter().map(|&(i, x)| w[i as usize] * x).sum()
    }

    /// Every count multiplied by `k` (a feature counted in fractions of its unit).
    pub fn scaled(mut self, k: f64) -> Sparse {
        for (_, x) in &mut self.0 {
            *x *= k;
        }
        self
    }
}

/// Whether the positions of game `game` are held out of the fit to measure it. Both
/// games of a self-play opening share its number, so none is trained on and tested on.
pub fn held_out(game: u64) -> bool {
    game % 10 == 9
}

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn log_loss(p: f64, y: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// Mean log-loss and the share of decided positions predicted right, from (logit, score).
pub fn measure(points: impl Iterator<Item = (f64, f64)>) -> (f64, f64) {
    let (mut loss, mut n, mut right, mut decided) = (0.0, 0usize, 0usize, 0usize);
    for (logit, y) in points {
        loss += log_loss(sigmoid(logit), y);
        n += 1;
        if y != 0.5 {
            decided += 1;
            if (logit > 0.0) == (y > 0.5) {
                right += 1;
            }
        }
    }
    (loss / n.max(1) as f64, right as f64 / decided.max(1) as f64)
}

/// The weights (in logits per count) of `count` features that best predict the scores
/// of `data` (feature vector, score of the side the features are seen from).
pub fn newton(data: &[(Sparse, f64)], count: usize) -> Vec<f64> {
    newton_ridge(data, count, RIDGE)
}

/// [`newton`] with a ridge penalty of `ridge` per position: a larger one where the
/// features are many for the positions (a weight per fluent of a game fitted to a few
/// hundred random games), so that rare features keep small weights.
pub fn newton_ridge(data: &[(Sparse, f64)], count: usize, ridge: f64) -> Vec<f64> {
    let n = data.len() as f64;
    let mut w = vec![0.0; count];
    for _ in 0..MAX_STEPS {
        let mut grad: Vec<f64> = w.iter().map(|&wi| 2.0 * ridge * n * wi).collect();
        let mut hess = vec![vec![0.0; count]; count];
        for (i, row) in hess.iter_mut().enumerate() {
            row[i] = 2.0 * ridge * n;
        }
        for (v, y) in data {
            let p = sigmoid(v.dot(&w));
            let curvature = p * (1.0 - p);
            for &(i, xi) in &v.0 {
                grad[i as usize] += (p - y) * xi;
                for &(j, xj) in &v.0 {
                    hess[i as usize][j as usize] += curvature * xi * xj;
                }
            }
        }
        let step = solve(hess, grad);
        let size = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        for (wi, s) in w.iter_mut().zip(step) {
            *wi -= s;
        }
        if size < 1e-7 {
            break;
        }
    }
    w
}

/// Solves `a x = b` for a symmetric positive definite `a` (Gaussian elimination with
/// partial pivoting; the ridge keeps `a` well conditioned).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (top, below) = a.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (r, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            if f != 0.0 {
                for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * p;
                }
                b[col + 1 + r] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| a[r][c] * x[c]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x
}

/// The scale `k` that best fits `sigmoid(k * e)` to the scores (one-dimensional Newton):
/// how an evaluation that was not fitted is compared with one that was.
pub fn fit_scale(points: &[(f64, f64)]) -> f64 {
    let mut k = 0.0;
    for _ in 0..MAX_STEPS {
        let (mut g, mut h) = (0.0, 1e-9);
        for &(e, y) in points {
            let p = sigmoid(k * e);
            g += (p - y) * e;
            h += p * (1.0 - p) * e * e;
        }
        k -= g / h;
    }
    k
}

/// The features a fit leaves out (`tune --without TERM`), to measure an evaluation
/// without a term with the other weights fitted to its absence, not merely that term's
/// weights zeroed after a fit that had it.
#[derive(Clone, Debug, Default)]
pub struct LeftOut {
    /// The terms as asked for.
    pub terms: Vec<String>,
    /// The features they name, in index order, and their names.
    pub features: Vec<usize>,
    pub names: Vec<String>,
}

impl LeftOut {
    /// The features of `names` (a game's feature names, in index order) that `terms`
    /// name: a term names every feature whose name holds its words as whole words in
    /// order (brackets aside), so `threat` names `threat (opening)` and `threat
    /// (ending)`, and `us hanging` names `us hanging d1` but not `them hanging d1`. A
    /// term that names no feature is an error that lists the features.
    pub fn find(names: &[String], terms: &[String]) -> Result<LeftOut, String> {
        let words = |s: &str| -> Vec<String> {
            s.split_whitespace()
                .map(|w| w.trim_matches(|c| c == '(' || c == ')').to_lowercase())
                .filter(|w| !w.is_empty())
                .collect()
        };
        let mut features = Vec::new();
        for term in terms {
            let want = words(term);
            let named: Vec<usize> = (0..names.len())
                .filter(|&i| {
                    !want.is_empty()
                        && words(&names[i])
                            .windows(want.len())
                            .any(|w| w == want.as_slice())
                })
                .collect();
            if named.is_empty() {
                return Err(format!(
                    "--without {term:?} names no feature; the features are: {}",
                    names.join(", ")
                ));
            }
            features.extend(named);
        }
        features.sort_unstable();
        features.dedup();
        Ok(LeftOut {
            terms: terms.to_vec(),
            names: features.iter().map(|&i| names[i].clone()).collect(),
            features,
        })
    }

    /// Whether feature `i` is left out.
    pub fn contains(&self, i: usize) -> bool {
        self.features.binary_search(&i).is_ok()
    }

    /// `v` without the left-out features' counts: their weights then get no gradient
    /// but the ridge's, and stay at 0.
    fn strip(&self, mut v: Sparse) -> Sparse {
        if !self.features.is_empty() {
            v.0.retain(|&(i, _)| !self.contains(usize::from(i)));
        }
        v
    }
}

/// A fit's weights (in `logits_per_unit` each) and how it and a baseline evaluation
/// predict the held-out games: mean log-loss (nats), and the share of decided positions
/// whose winner the sign names.
pub struct Fitted<W = f64> {
    pub weights: Vec<W>,
    /// What the fit left out; those weights are 0.
    pub left_out: LeftOut,
    pub logits_per_unit: f64,
    pub train_positions: usize,
    pub test_positions: usize,
    pub test_loss: f64,
    pub test_accuracy: f64,
    pub baseline_test_loss: f64,
    pub baseline_test_accuracy: f64,
}

impl Fitted<f64> {
    /// The weights rounded to whole units of `logits_per_unit` logits, as a game's
    /// evaluation stores them.
    pub fn in_units(self, logits_per_unit: f64) -> Fitted<i32> {
        Fitted {
            weights: self
                .weights
                .iter()
                .map(|x| (x / logits_per_unit).round() as i32)
                .collect(),
            logits_per_unit,
            left_out: self.left_out,
            train_positions: self.train_positions,
            test_positions: self.test_positions,
            test_loss: self.test_loss,
            test_accuracy: self.test_accuracy,
            baseline_test_loss: self.baseline_test_loss,
            baseline_test_accuracy: self.baseline_test_accuracy,
        }
    }
}

impl<W> Fitted<W> {
    /// What `tune` prints and writes above the weights: the held-out scores of the fit
    /// and of the evaluation named `baseline`, aligned, and what the fit left out.
    pub fn report(&self, baseline: &str) -> String {
        let width = baseline.len() + 1;
        let without = if self.left_out.terms.is_empty() {
            String::new()
        } else {
            format!(
                "\nfitted without {}: weights 0 for {}",
                self.left_out.terms.join(", "),
                self.left_out.names.join(", ")
            )
        };
        format!(
            "Fitted on {} positions; {} positions of held-out games:\n\
             {:width$} log-loss {:.4}, winner predicted {:.1}%\n\
             {:width$} log-loss {:.4}, winner predicted {:.1}%{without}",
            self.train_positions,
            self.test_positions,
            "tuned:",
            self.test_loss,
            100.0 * self.test_accuracy,
            format!("{baseline}:"),
            self.baseline_test_loss,
            100.0 * self.baseline_test_accuracy
        )
    }
}

/// Fits `count` weights to the samples of all games but every tenth ([`held_out`]) and
/// measures them on the rest, beside a `baseline` evaluation scaled to fit as well as it
/// can. `game` numbers a sample's game; `features` gives its counts and the score of the
/// side they are seen from; `baseline` its evaluation from the same side. The features
/// in `left_out` are fitted as if they were not there, and their weights are 0.
pub fn fit_held_out<T>(
    samples: &[T],
    count: usize,
    left_out: &LeftOut,
    game: impl Fn(&T) -> u64,
    features: impl Fn(&T) -> (Sparse, f64),
    baseline: impl Fn(&T) -> f64,
) -> Result<Fitted, String> {
    let (test, train): (Vec<&T>, Vec<&T>) = samples.iter().partition(|s| held_out(game(s)));
    if train.is_empty() || test.is_empty() {
        return Err(format!(
            "too few games to fit: {} positions to train on, {} to test",
            train.len(),
            test.len()
        ));
    }
    let vectors = |set: &[&T]| -> Vec<(Sparse, f64)> {
        set.iter()
            .map(|s| {
                let (v, y) = features(s);
                (left_out.strip(v), y)
            })
            .collect()
    };
    let (train_v, test_v) = (vectors(&train), vectors(&test));
    let weights = newton(&train_v, count);
    let (test_loss, test_accuracy) = measure(test_v.iter().map(|(v, y)| (v.dot(&weights), *y)));
    let base = |set: &[&T], v: &[(Sparse, f64)]| -> Vec<(f64, f64)> {
        set.iter()
            .zip(v)
            .map(|(s, (_, y))| (baseline(s), *y))
            .collect()
    };
    let k = fit_scale(&base(&train, &train_v));
    let (baseline_test_loss, baseline_test_accuracy) =
        measure(base(&test, &test_v).into_iter().map(|(e, y)| (k * e, y)));
    Ok(Fitted {
        weights,
        logits_per_unit: 1.0,
        left_out: left_out.clone(),
        train_positions: train.len(),
        test_positions: test.len(),
        test_loss,
        test_accuracy,
        baseline_test_loss,
        baseline_test_accuracy,
    })
}

/// Reads the positions files at `paths` (written by `selfplay --record`), one sample a
/// line by `parse`, keeping those `keep` accepts; also returns the number left out.
pub fn read_files<T>(
    paths: &[impl AsRef<Path>],
    parse: impl Fn(&str) -> Result<T, String>,
    keep: impl Fn(&T) -> bool,
) -> Result<(Vec<T>, usize), String> {
    let mut samples = Vec::new();
    let mut left_out = 0;
    for path in paths {
        let path = path.as_ref();
        input_file::for_each_line(
            path,
            input_file::RECORDS,
            input_file::MAX_RECORD_LINE,
            |number, line| {
                if line.trim().is_empty() {
                    return Ok(());
                }
                let sample =
                    parse(line).map_err(|e| format!("{} line {number}: {e}", path.display()))?;
                if keep(&sample) {
                    samples.push(sample);
                } else {
                    left_out += 1;
                }
                Ok(())
            },
        )?;
    }
    Ok((samples, left_out))
}

/// Fitted `weights` as a Rust source file (a game's `weights.rs`), one line per feature
/// named by `names`, headed by the `command` that wrote it, the positions `files` it
/// read and its `report`.
pub fn weights_source(
    command: &str,
    weights: &[i32],
    names: &[String],
    files: &[impl AsRef<Path>],
    report: &str,
) -> String {
    let files: Vec<String> = files
        .iter()
        .map(|p| p.as_ref().display().to_string())
        .collect();
    let provenance = format!("From: {}\n{report}", files.join(" "));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "//! The tuned evaluation's weights, written by `{command}`."
    );
    let _ = writeln!(s, "//!");
    for line in provenance.lines() {
        let _ = writeln!(s, "//! {line}");
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "use super::features::COUNT;");
    let _ = writeln!(s);
    let _ = writeln!(s, "#[rustfmt::skip]");
    let _ = writeln!(s, "pub const WEIGHTS: [i32; COUNT] = [");
    for (w, name) in weights.iter().zip(names) {
        let _ = writeln!(s, "    {w}, // {name}");
    }
    let _ = writeln!(s, "];");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_recovers_a_known_system() {
        let a = vec![
            vec![4.0, 1.0, 0.5],
            vec![1.0, 3.0, 0.2],
            vec![0.5, 0.2, 2.0],
        ];
        let x = [1.0, -2.0, 0.5];
        let b: Vec<f64> = a
            .iter()
            .map(|r| r.iter().zip(x).map(|(p, q)| p * q).sum())
            .collect();
        let got = solve(a, b);
        for (g, w) in got.iter().zip(x) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// A term names the features holding its words whole and in order; one naming
    /// nothing is refused with the list of features.
    #[test]
    fn left_out_terms_name_features_by_whole_words() {
        let features = names(&[
            "threat (opening)",
            "threat (ending)",
            "us hanging d1",
            "them hanging d1",
            "us pawn d1",
        ]);
        let find = |terms: &[&str]| LeftOut::find(&features, &names(terms));
        assert_eq!(find(&["threat"]).unwrap().features, [0, 1]);
        assert_eq!(find(&["hanging"]).unwrap().features, [2, 3]);
        assert_eq!(find(&["us hanging"]).unwrap().features, [2]);
        assert_eq!(find(&["Threat (ending)"]).unwrap().features, [1]);
        assert_eq!(find(&["us", "hanging"]).unwrap().features, [2, 3, 4]);
        for bad in ["thr", "hanging us", "", "d2"] {
            let err = find(&[bad]).unwrap_err();
            assert!(
                err.contains("names no feature") && err.contains("us pawn d1"),
                "{err}"
            );
        }
    }

    /// A fit without a feature is the fit of the other features alone: the same
    /// weights as on data that never had the column, and 0 for it, although the
    /// results depend on it (a fit with it gives it its weight).
    #[test]
    fn a_fit_without_a_feature_is_the_fit_of_the_rest() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        let truth = [0.6, -0.5, 0.3];
        // Feature 1 is correlated with feature 0, so leaving it out moves the others.
        let data: Vec<(u64, [i32; 3], f64)> = (0..6_000)
            .map(|game| {
                let a = rng.random_range(-3..=3);
                let x = [a, a + rng.random_range(-1..=1), rng.random_range(-3..=3)];
                let logit: f64 = x.iter().zip(truth).map(|(&c, w)| f64::from(c) * w).sum();
                (
                    game,
                    x,
                    f64::from(u8::from(rng.random_bool(sigmoid(logit)))),
                )
            })
            .collect();
        let fit = |columns: &[usize], left_out: &LeftOut| {
            fit_held_out(
                &data,
                columns.len(),
                left_out,
                |s| s.0,
                |s| {
                    let mut v = Sparse::default();
                    for (i, &c) in columns.iter().enumerate() {
                        v.add(i, s.1[c]);
                    }
                    (v, s.2)
                },
                |s| f64::from(s.1[0]),
            )
            .unwrap()
        };
        let all = fit(&[0, 1, 2], &LeftOut::default());
        assert!(all.weights[1] < -0.3, "{:?}", all.weights);
        let left_out = LeftOut::find(&names(&["a", "b", "c"]), &names(&["b"])).unwrap();
        let without = fit(&[0, 1, 2], &left_out);
        let rest = fit(&[0, 2], &LeftOut::default());
        assert_eq!(without.weights[1], 0.0);
        for (got, want) in [without.weights[0], without.weights[2]]
            .iter()
            .zip(&rest.weights)
        {
            assert!(
                (got - want).abs() < 1e-9,
                "{:?} {:?}",
                without.weights,
                rest.weights
            );
        }
        assert!((without.test_loss - rest.test_loss).abs() < 1e-12);
        assert!(without.test_loss > all.test_loss);
        assert!(
            without
                .report("a")
                .contains("fitted without b: weights 0 for b")
        );
        assert!(!all.report("a").contains("without"));
    }

    /// Results drawn from a known logistic rule are fitted back to that rule.
    #[test]
    fn newton_recovers_the_weights_that_made_the_results() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let truth = [0.7, -0.4, 0.0];
        let data: Vec<(Sparse, f64)> = (0..20_000)
            .map(|_| {
                let mut v = Sparse::default();
                for i in 0..3 {
                    v.add(i, rng.random_range(-3..=3));
                }
                let y = f64::from(u8::from(rng.random_bool(sigmoid(v.dot(&truth)))));
                (v, y)
            })
            .collect();
        let w = newton(&data, 3);
        for (got, want) in w.iter().zip(truth) {
            assert!((got - want).abs() < 0.05, "{w:?}");
        }
        let (loss, accuracy) = measure(data.iter().map(|(v, y)| (v.dot(&w), *y)));
        assert!(loss < 0.6 && accuracy > 0.7, "{loss} {accuracy}");
    }
}
