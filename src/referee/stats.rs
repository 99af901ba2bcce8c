//! Match statistics: score, Elo difference with a 95% interval, and the sequential
//! probability ratio test (SPRT) that stops a test once it is decided.
//!
//! Elo uses the logistic model, `score = 1 / (1 + 10^(-elo/400))`; its interval
//! comes from the standard error of the per-game score (wins, draws and losses
//! counted separately), as cutechess-cli reports it. The SPRT is the generalised
//! SPRT on the same trinomial model, computed exactly: each hypothesis's likelihood is
//! that of the win/draw/loss probabilities closest to the observed ones (the maximum
//! likelihood) that have the hypothesis's expected score. The usual shortcut from the
//! mean and variance of the score agrees after many games but overstates the evidence
//! of a few lopsided ones (after 6 wins and a draw it accepted a 50 Elo gain).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The 97.5% quantile of the standard normal distribution (two-sided 95%).
const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Adds one game given the player's score (1, 0.5 or 0).
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// The other player's view.
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Mean score per game in [0, 1].
    pub fn score(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n
    }

    /// Variance of one game's score around the mean.
    fn variance(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let p = self.score();
        (self.wins as f64 * (1.0 - p).powi(2)
            + self.draws as f64 * (0.5 - p).powi(2)
            + self.losses as f64 * p.powi(2))
            / n
    }

    /// Elo difference and its 95% interval `(low, estimate, high)`; infinite where
    /// the score (or a bound) is 0 or 1.
    pub fn elo(&self) -> (f64, f64, f64) {
        let (lo, hi) = self.score_interval();
        (
            elo_of_score(lo),
            elo_of_score(self.score()),
            elo_of_score(hi),
        )
    }

    /// The 95% interval of the mean score: the normal approximation from the per-game
    /// variance; when every game had the same result that variance is 0 and says
    /// nothing, so the Wilson interval (which stays honest at 0% and 100%) is used.
    pub fn score_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        let p = self.score();
        if n == 0.0 {
            return (0.0, 1.0);
        }
        let var = self.variance();
        if var > 0.0 {
            let se = (var / n).sqrt();
            return ((p - Z95 * se).max(0.0), (p + Z95 * se).min(1.0));
        }
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
        // At a score of exactly 0 or 1 that bound is exactly 0 or 1 (not a rounding away).
        let lo = if p == 0.0 {
            0.0
        } else {
            (centre - half).max(0.0)
        };
        let hi = if p == 1.0 {
            1.0
        } else {
            (centre + half).min(1.0)
        };
        (lo, hi)
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "+{} ={} -{}", self.wins, self.draws, self.losses)
    }
}

/// The Elo difference that gives an expected score `p` (±infinity at 1 and 0).
pub fn elo_of_score(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / p - 1.0).log10()
    }
}

/// The expected score of a player `elo` points stronger.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo value for tables: `+147`, `-inf`.
pub fn format_elo(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else {
        // `+ 0.0` turns -0 into +0.
        format!("{:+.0}", elo + 0.0)
    }
}

/// SPRT of H0: elo = elo0 against H1: elo = elo1 with error rates alpha and beta.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// H1 accepted: the first player is stronger by about elo1.
    AcceptH1,
    /// H0 accepted: the first player is not stronger by elo1.
    AcceptH0,
    Continue,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::AcceptH1 => "H1 accepted",
            Verdict::AcceptH0 => "H0 accepted",
            Verdict::Continue => "undecided",
        })
    }
}

impl std::str::FromStr for Sprt {
    type Err = String;

    /// `elo0,elo1,alpha,beta`, e.g. `0,50,0.05,0.05`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let usage = || format!("{s:?}: expected elo0,elo1,alpha,beta, e.g. 0,50,0.05,0.05");
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| usage())?;
        let [elo0, elo1, alpha, beta] = v[..] else {
            return Err(usage());
        };
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!("{s:?}: elo0 must be below elo1"));
        }
        if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
            return Err(format!("{s:?}: alpha and beta must lie between 0 and 0.5"));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl Sprt {
    /// The decision bounds `(lower, upper)` of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 over H0 after the games in `wdl`.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        // An outcome never seen counts as a tiny fraction of a game, so that every
        // hypothesis keeps a likelihood above zero (as fishtest does).
        let counts = [wdl.losses, wdl.draws, wdl.wins].map(|c| match c {
            0 => UNSEEN,
            c => f64::from(c),
        });
        let log_likelihood = |score: f64| -> f64 {
            let p = closest_with_score(&counts, score);
            counts.iter().zip(p).map(|(n, p)| n * p.ln()).sum()
        };
        log_likelihood(score_of_elo(self.elo1)) - log_likelihood(score_of_elo(self.elo0))
    }

    pub fn verdict(&self, wdl: &Wdl) -> Verdict {
        let (lower, upper) = self.bounds();
        let llr = self.llr(wdl);
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// The count given to an outcome that never happened, in games.
const UNSEEN: f64 = 1e-3;
/// A game's score for a loss, a draw and a win.
const OUTCOME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// The loss/draw/win probabilities of greatest likelihood for `counts` among those whose
/// expected score is `score` (in (0, 1)). By Lagrange, `p_i = f_i / (1 + λ (a_i - score))`
/// with `f` the observed frequencies and `a` the outcome scores, where λ makes the
/// expected score right; that condition falls strictly in λ, so bisection finds it.
fn closest_with_score(counts: &[f64; 3], score: f64) -> [f64; 3] {
    let n: f64 = counts.iter().sum();
    let freq = counts.map(|c| c / n);
    let x = OUTCOME_SCORES.map(|a| a - score);
    let excess = |lambda: f64| -> f64 {
        freq.iter()
            .zip(x)
            .map(|(f, x)| f * x / (1.0 + lambda * x))
            .sum()
    };
    // Every `1 + λ x_i` must stay positive: λ lies in (-1 / (1 - score), 1 / score).
    let (mut lo, mut hi) = (-1.0 / (1.0 - score), 1.0 / score);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if excess(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    [0, 1, 2].map(|i| freq[i] / (1.0 + lambda * x[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn elo_and_interval_match_hand_computed_values() {
        // 60 wins, 20 draws, 20 losses: score 0.7; per-game variance 0.16; se 0.04.
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!(close(wdl.score(), 0.7));
        let (lo, mid, hi) = wdl.elo();
        assert!(close(mid, 147.190_714_117_837_76), "{mid}");
        assert!(close(lo, 86.225_014_743_583_4), "{lo}");
        assert!(close(hi, 218.251_778_263_859_25), "{hi}");
        assert!(close(elo_of_score(0.5), 0.0));
        assert!(close(score_of_elo(elo_of_score(0.3)), 0.3));
        // All wins: the Wilson lower bound n / (n + z^2), 20 / 23.84 = 0.83887.
        let all = Wdl {
            wins: 20,
            draws: 0,
            losses: 0,
        };
        assert!(close(all.score_interval().0, 0.838_874_841_947_180_6));
        let (lo, mid, hi) = all.elo();
        assert!(close(lo, 286.613_525_449_483_46), "{lo}");
        assert_eq!((mid, hi), (f64::INFINITY, f64::INFINITY));
        // All losses mirror it; two draws say little: Wilson gives [0.0945, 0.9055].
        let (lo, _, hi) = Wdl {
            wins: 0,
            draws: 0,
            losses: 20,
        }
        .elo();
        assert!(
            lo == f64::NEG_INFINITY && close(hi, -286.613_525_449_483_46),
            "{hi}"
        );
        for n in [2, 6, 80] {
            let (lo, _, _) = Wdl {
                wins: 0,
                draws: 0,
                losses: n,
            }
            .elo();
            let (_, _, hi) = Wdl {
                wins: n,
                draws: 0,
                losses: 0,
            }
            .elo();
            assert_eq!((lo, hi), (f64::NEG_INFINITY, f64::INFINITY), "{n} games");
        }
        let (lo, hi) = Wdl {
            wins: 0,
            draws: 2,
            losses: 0,
        }
        .score_interval();
        assert!(close(lo, 0.094_531_205_734_230_74) && close(hi, 0.905_468_794_265_769_3));
        assert_eq!(format_elo(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_elo(147.19), "+147");
        assert_eq!(format_elo(elo_of_score(0.5)), "+0");
    }

    #[test]
    fn sprt_matches_hand_computed_values() {
        let sprt: Sprt = "0,10,0.05,0.05".parse().unwrap();
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944_438_979_166_440_3));
        assert!(close(upper, 2.944_438_979_166_440_3));
        // Reference values from a brute-force search for the constrained maximum
        // likelihood (a grid of 200 000 draw probabilities for each hypothesis).
        // 110 wins, 80 draws, 90 losses: LLR 0.64387 (the mean-and-variance shortcut
        // gives 0.64803).
        let wdl = Wdl {
            wins: 110,
            draws: 80,
            losses: 90,
        };
        let llr = sprt.llr(&wdl);
        assert!((llr - 0.643_871_9).abs() < 1e-5, "{llr}");
        assert_eq!(sprt.verdict(&wdl), Verdict::Continue);
        // Six wins and a draw are not yet evidence of 50 Elo: LLR 0.93493 (the shortcut
        // said 6.4 and accepted H1).
        let sprt50: Sprt = "0,50,0.05,0.05".parse().unwrap();
        let few = Wdl {
            wins: 6,
            draws: 1,
            losses: 0,
        };
        let llr = sprt50.llr(&few);
        assert!((llr - 0.934_931_5).abs() < 1e-5, "{llr}");
        assert_eq!(sprt50.verdict(&few), Verdict::Continue);
        // 37 wins, 14 draws, 16 losses against 0-50: LLR 2.96608, just past the bound.
        let llr = sprt50.llr(&Wdl {
            wins: 37,
            draws: 14,
            losses: 16,
        });
        assert!((llr - 2.966_080_2).abs() < 1e-5, "{llr}");
        assert_eq!(
            sprt.verdict(&Wdl {
                wins: 300,
                draws: 50,
                losses: 100
            }),
            Verdict::AcceptH1
        );
        assert_eq!(
            sprt.verdict(&Wdl {
                wins: 100,
                draws: 50,
                losses: 300
            }),
            Verdict::AcceptH0
        );
        assert!("1,0,0.05,0.05".parse::<Sprt>().is_err());
        assert!("0,10,0.7,0.05".parse::<Sprt>().is_err());
        assert!("0,10".parse::<Sprt>().is_err());
    }

    #[test]
    fn wdl_counts_scores() {
        let mut w = Wdl::default();
        for s in [1.0, 0.5, 0.0, 1.0] {
            w.add(s);
        }
        assert_eq!(
            w,
            Wdl {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        assert_eq!(w.flipped().score(), 1.0 - w.score());
        assert_eq!(w.to_string(), "+2 =1 -1");
    }
}
