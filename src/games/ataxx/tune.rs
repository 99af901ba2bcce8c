//! Fitting the tuned evaluation's weights to self-play results (Texel's method).
//!
//! `selfplay --game ataxx --record FILE` writes every position of its games with the
//! game's result; [`Tuned`](super::eval::Tuned) is linear in its [`super::features`], so
//! the weights that best predict those results through a logistic curve are a logistic
//! regression ([`crate::fit`]). A tenth of the games is held out to measure the fit
//! against `positional` fitted the same way (one scale). The weights are written in
//! hundredths of a piece: scaled so that the piece difference's two weights average 100,
//! the unit of the other evaluations and of the search's margins.

use super::board::FULL;
use super::eval::{Positional, WEIGHTS as POSITIONAL};
use super::features::{self, COUNT, DIVISOR};
use super::{Ataxx, PLY_LIMIT, Side};
use crate::fit::{self, LeftOut, Sparse};
use crate::game::{Evaluator, Game};

/// One recorded position and the result of its game.
#[derive(Clone, Debug)]
pub struct Sample {
    pub position: Ataxx,
    /// Black's score of the game (black moves first): 1, 0.5 or 0.
    pub black_score: f64,
    /// The opening it came from, so that held-out positions come from held-out games.
    pub game: u64,
}

impl Sample {
    /// One line of a positions file: `game black-hex white-hex side ply black-score`.
    pub fn to_line(&self) -> String {
        let side = match self.position.side_to_move() {
            Side::Black => 'b',
            Side::White => 'w',
        };
        format!(
            "{} {:x} {:x} {side} {} {}",
            self.game,
            self.position.pieces(Side::Black),
            self.position.pieces(Side::White),
            self.position.ply(),
            self.black_score
        )
    }

    pub fn from_line(line: &str) -> Result<Sample, String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [game, black, white, side, ply, score] = f[..] else {
            return Err(format!("expected 6 fields, found {}", f.len()));
        };
        let game = crate::fit::parse_game(game)?;
        let pieces = |s: &str| match u64::from_str_radix(s, 16) {
            Ok(p) if p & !FULL == 0 => Ok(p),
            _ => Err(format!("bad pieces {s:?}: not a 7x7 board in hex")),
        };
        let (black, white) = (pieces(black)?, pieces(white)?);
        if black & white != 0 {
            return Err("black and white pieces overlap".into());
        }
        let side = match side {
            "b" => Side::Black,
            "w" => Side::White,
            _ => return Err(format!("bad side {side:?}")),
        };
        let ply = match ply.parse() {
            Ok(p) if p < PLY_LIMIT => p,
            _ => return Err(format!("bad ply {ply:?}: expected 0 to {}", PLY_LIMIT - 1)),
        };
        let black_score = crate::fit::parse_score(score)?;
        Ok(Sample {
            position: Ataxx::new(black, white, side, ply),
            black_score,
            game,
        })
    }

    /// The side to move's score of the game.
    fn score(&self) -> f64 {
        match self.position.side_to_move() {
            Side::Black => self.black_score,
            Side::White => 1.0 - self.black_score,
        }
    }
}

/// The whole of `tune --game ataxx`: read the positions files, fit (without the terms
/// named in `without`), and report the fit on held-out games next to `positional`'s, with
/// the weights as Rust source.
pub fn tune_files(
    files: &[std::path::PathBuf],
    without: &[String],
) -> Result<crate::spec::Tuning, String> {
    let left_out = LeftOut::find(&features::names(), without)?;
    // A finished game needs no evaluation; none is recorded, but a file may hold one.
    let (samples, over) =
        fit::read_files(files, Sample::from_line, |s| s.position.decided().is_none())?;
    let data = format!(
        "fitting {} positions ({over} of finished games left out)",
        samples.len()
    );
    let fit = fit_samples(&samples, &left_out)?;
    let report = format!(
        "{}\none piece is {:.3} logits",
        fit.report("positional"),
        100.0 * fit.logits_per_unit
    );
    let source = fit::weights_source(
        "ggp-player tune --game ataxx",
        &fit.weights,
        &features::names(),
        files,
        &report,
    );
    Ok(crate::spec::Tuning {
        data,
        report,
        source,
    })
}

/// The outcome of a fit: weights in hundredths of a piece, measured beside `positional`.
pub type Fit = fit::Fitted<i32>;

/// Fits the weights on all games but every tenth, and measures on those. The piece
/// difference is the unit the weights are written in, so it cannot be left out.
pub fn fit_samples(samples: &[Sample], left_out: &LeftOut) -> Result<Fit, String> {
    let material = features::opening("material");
    if left_out.contains(material) || left_out.contains(material + 1) {
        return Err(
            "the piece difference (material) is the unit of the weights: \
                    it cannot be left out"
                .into(),
        );
    }
    let positional = Positional(POSITIONAL);
    let f = fit::fit_held_out(
        samples,
        COUNT,
        left_out,
        |s| s.game,
        |s| {
            let mut v = Sparse::default();
            features::extract(&s.position, &mut v);
            (v.scaled(1.0 / f64::from(DIVISOR)), s.score())
        },
        |s| f64::from(positional.evaluate(&s.position)),
    )?;
    let logits_per_piece = (f.weights[material] + f.weights[material + 1]) / 2.0;
    if logits_per_piece <= 0.0 {
        return Err(format!(
            "the fit values a piece at {logits_per_piece:.4} logits: the games say nothing \
             about material, so there is nothing to scale the weights by"
        ));
    }
    Ok(f.in_units(logits_per_piece / 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveBuffer;
    use crate::games::ataxx::MoveList;
    use rand::seq::IndexedRandom;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn lines_round_trip_and_bad_lines_are_refused() {
        let mut p = Ataxx::start();
        let mut list = MoveList::default();
        p.generate_moves(&mut list);
        p.make(list.as_slice()[3]);
        let s = Sample {
            position: p.clone(),
            black_score: 0.5,
            game: 42,
        };
        let line = s.to_line();
        let back = Sample::from_line(&line).unwrap();
        assert_eq!(back.position.hash(), p.hash());
        assert_eq!(back.position.side_to_move(), Side::White);
        assert_eq!(
            (back.black_score, back.game, back.position.ply()),
            (0.5, 42, 1)
        );
        for bad in [
            "",
            "1 1 40 b 0",
            "1 1 40 x 0 1",
            "1 1 1 b 0 1",
            "1 2000000000000 40 b 0 1",
            "1 1 40 b 200 1",
            "1 1 40 b 0 0.3",
            "z 1 40 b 0 1",
        ] {
            assert!(Sample::from_line(bad).is_err(), "{bad:?} accepted");
        }
    }

    /// Random positions whose results follow a known rule: with `k` positive the side
    /// with more pieces tends to win, with `k` negative to lose.
    fn samples(k: f64) -> Vec<Sample> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let mut list = MoveList::default();
        let mut out = Vec::new();
        for game in 0..400u64 {
            let mut p = Ataxx::start();
            for _ in 0..rng.random_range(4..60) {
                p.generate_moves(&mut list);
                match list.as_slice().choose(&mut rng) {
                    Some(&m) => p.make(m),
                    None => break,
                }
            }
            if p.decided().is_some() {
                continue;
            }
            let diff = f64::from(p.pieces(Side::Black).count_ones())
                - f64::from(p.pieces(Side::White).count_ones());
            let black_wins = rng.random_bool(fit::sigmoid(k * diff));
            out.push(Sample {
                position: p,
                black_score: if black_wins { 1.0 } else { 0.0 },
                game,
            });
        }
        out
    }

    /// Results that follow the piece count are fitted to it: the piece difference is
    /// the positive unit the other weights are scaled to, and the fit predicts better
    /// than chance. Results that go against the count leave nothing to scale by, and
    /// too few games nothing to test on: both are refused.
    #[test]
    fn fit_learns_that_material_wins() {
        let none = LeftOut::default();
        let f = fit_samples(&samples(0.5), &none).unwrap();
        let m = features::opening("material");
        assert!(f.weights[m] > 0 && f.weights[m + 1] > 0, "{:?}", f.weights);
        assert!((f.weights[m] + f.weights[m + 1] - 200).abs() <= 1);
        assert!(f.test_accuracy > 0.7, "accuracy {}", f.test_accuracy);
        assert!(f.test_loss < 0.62, "loss {}", f.test_loss);
        let err = fit_samples(&samples(-0.5), &none).err().unwrap();
        assert!(err.contains("nothing to scale"), "{err}");
        let err = fit_samples(&samples(0.5)[..5], &none).err().unwrap();
        assert!(err.contains("too few games"), "{err}");
    }

    /// A fit without `threat` writes its two weights as 0 and says so, still values
    /// material; the piece difference itself cannot be left out.
    #[test]
    fn a_fit_without_threat_has_zero_threat_weights() {
        let samples = samples(0.5);
        let names = features::names();
        let threat = features::opening("threat");
        let with = fit_samples(&samples, &LeftOut::default()).unwrap();
        assert!(
            with.weights[threat] != 0 || with.weights[threat + 1] != 0,
            "{:?}",
            with.weights
        );
        let without = LeftOut::find(&names, &["threat".to_string()]).unwrap();
        assert_eq!(without.features, [threat, threat + 1]);
        let f = fit_samples(&samples, &without).unwrap();
        assert_eq!(f.weights[threat..threat + 2], [0, 0], "{:?}", f.weights);
        let m = features::opening("material");
        assert!((f.weights[m] + f.weights[m + 1] - 200).abs() <= 1);
        assert!(f.test_accuracy > 0.7, "accuracy {}", f.test_accuracy);
        assert!(
            f.report("positional")
                .contains("fitted without threat: weights 0 for threat (opening), threat (ending)"),
            "{}",
            f.report("positional")
        );
        let material = LeftOut::find(&names, &["material".to_string()]).unwrap();
        let err = fit_samples(&samples, &material).err().unwrap();
        assert!(err.contains("cannot be left out"), "{err}");
    }
}
