//! Fitting the tuned evaluation's weights to game results (Texel's method).
//!
//! `selfplay --record FILE` writes every position of its games with the game's result.
//! Since [`Tuned`](crate::games::breakthrough::eval::Tuned) is linear in its
//! [`super::features`], the weights that best predict those results
//! through a logistic curve are a logistic regression ([`crate::fit`]). A tenth of the
//! games is held out to check the fit on games it has not seen, against the `improved`
//! evaluation fitted the same way.

use std::path::Path;

use crate::fit::{self, LeftOut, Sparse};
use crate::game::Evaluator;
use crate::games::breakthrough::eval::Improved;
use crate::games::breakthrough::features::{self, COUNT};
use crate::games::breakthrough::{Board, BoardSize, Color, Geometry};

/// Evaluation units per logit: how the fitted weights are scaled into the search's
/// integer scores (a pawn's weight then comes out between about 100 and 200).
pub const SCALE: f64 = 200.0;

/// One recorded position and the result of its game.
#[derive(Clone, Debug)]
pub struct Sample {
    pub board: Board,
    /// White's score of the game: 1, 0.5 or 0.
    pub white_score: f64,
    /// The game (or opening) it came from, so that held-out positions come from
    /// held-out games.
    pub game: u64,
}

impl Sample {
    /// One line of a positions file: `game size side white-hex black-hex white-score`.
    pub fn to_line(&self) -> String {
        let side = match self.board.side_to_move() {
            Color::White => 'w',
            Color::Black => 'b',
        };
        format!(
            "{} {} {side} {:x} {:x} {}",
            self.game,
            self.board.size(),
            self.board.pawns(Color::White),
            self.board.pawns(Color::Black),
            self.white_score
        )
    }

    pub fn from_line(line: &str) -> Result<Sample, String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [game, size, side, white, black, score] = f[..] else {
            return Err(format!("expected 6 fields, found {}", f.len()));
        };
        let game = crate::fit::parse_game(game)?;
        let size: BoardSize = size.parse().map_err(|e| format!("{e}"))?;
        let side = match side {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err(format!("bad side {side:?}")),
        };
        let geo = Geometry::new(size);
        let pawns = |s: &str| match u128::from_str_radix(s, 16) {
            Ok(p) if p & !geo.all == 0 => Ok(p),
            _ => Err(format!("bad pawns {s:?} for {size}")),
        };
        let pawns = [pawns(white)?, pawns(black)?];
        if pawns[0] & pawns[1] != 0 {
            return Err("white and black pawns overlap".to_string());
        }
        let white_score = crate::fit::parse_score(score)?;
        Ok(Sample {
            board: Board::from_parts(geo, pawns, side),
            white_score,
            game,
        })
    }

    /// The side to move's score of the game.
    fn score(&self) -> f64 {
        match self.board.side_to_move() {
            Color::White => self.white_score,
            Color::Black => 1.0 - self.white_score,
        }
    }

    /// Positions a static evaluation should not judge: a win in one or a threat of one
    /// (the search settles those exactly), and finished games.
    fn is_tactical(&self) -> bool {
        self.board.result().is_some() || self.board.can_win_now() || self.board.threatened()
    }
}

/// The whole of `tune`: read the positions files, fit (without the features named in
/// `without`), and report the fit on held-out games next to `improved`'s, with the
/// weights as Rust source naming the files.
pub fn tune_files(
    files: &[std::path::PathBuf],
    without: &[String],
) -> Result<crate::spec::Tuning, String> {
    let left_out = LeftOut::find(&features::names(), without)?;
    let (samples, tactical) = read_files(files)?;
    let data = format!(
        "fitting {} positions ({tactical} tactical ones left out)",
        samples.len()
    );
    let fit = fit(&samples, &left_out)?;
    let report = fit.report("improved");
    let source = fit::weights_source(
        "ggp-player tune",
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

/// Reads the positions files at `paths` (from `selfplay --record`), all into one list;
/// also returns the number of lines skipped as tactical.
pub fn read_files(paths: &[impl AsRef<Path>]) -> Result<(Vec<Sample>, usize), String> {
    fit::read_files(paths, Sample::from_line, |s| !s.is_tactical())
}

/// The outcome of a fit: weights in evaluation units ([`SCALE`] per logit), measured
/// beside `improved`.
pub type Fit = fit::Fitted<i32>;

/// Fits the weights on all games but every tenth, and measures on those.
pub fn fit(samples: &[Sample], left_out: &LeftOut) -> Result<Fit, String> {
    let f = fit::fit_held_out(
        samples,
        COUNT,
        left_out,
        |s| s.game,
        |s| {
            let mut v = Sparse::default();
            features::extract(&s.board, &mut v);
            (v, s.score())
        },
        |s| f64::from(Improved.evaluate(&s.board)),
    )?;
    Ok(f.in_units(1.0 / SCALE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_lines_are_refused() {
        let mut board = Board::new("6x7".parse().unwrap());
        let mut list = crate::games::breakthrough::MoveList::default();
        board.generate_moves(&mut list);
        board.make(list.iter().nth(3).unwrap());
        let s = Sample {
            board,
            white_score: 0.5,
            game: 42,
        };
        let back = Sample::from_line(&s.to_line()).unwrap();
        assert_eq!(back.board.hash(), s.board.hash());
        assert_eq!(back.board.size(), s.board.size());
        assert_eq!((back.white_score, back.game), (0.5, 42));
        for bad in [
            "",
            "1 8x8 w ff 0",
            "1 8x8 x ff ff00 1",
            "1 11x8 w ff ff00 1",
            "1 4x4 w 1ffff 0 1",
            "1 4x4 w f f 1",
            "1 4x4 w f f0 0.3",
            "z 4x4 w f f0 1",
        ] {
            assert!(Sample::from_line(bad).is_err(), "{bad:?} accepted");
        }
    }

    /// Games whose results follow a known rule are fitted to that rule: here the side
    /// with more pawns wins (with some noise), so the fitted pawn weights must favour
    /// our pawns and penalise theirs, and the fit must predict better than chance.
    #[test]
    fn fit_learns_that_material_wins() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let size: BoardSize = "6x6".parse().unwrap();
        let geo = Geometry::new(size);
        let mut samples = Vec::new();
        for game in 0..3000u64 {
            // Random pawns on the rows away from the goals, so that nothing is tactical.
            let mut pawns = [0u128; 2];
            for (c, rows) in [(0usize, 1..=3u8), (1, 4..=6)] {
                for y in rows {
                    for x in 1..=6 {
                        if rng.random_bool(0.5) {
                            pawns[c] |= 1 << geo.square(x, u32::from(y)).unwrap();
                        }
                    }
                }
            }
            let diff = pawns[0].count_ones() as f64 - pawns[1].count_ones() as f64;
            let white_wins = rng.random_bool(fit::sigmoid(0.8 * diff));
            let side = if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            samples.push(Sample {
                board: Board::from_parts(geo, pawns, side),
                white_score: if white_wins { 1.0 } else { 0.0 },
                game,
            });
        }
        let samples: Vec<Sample> = samples.into_iter().filter(|s| !s.is_tactical()).collect();
        let f = fit(&samples, &LeftOut::default()).unwrap();
        let names = features::names();
        let w = |name: &str| f.weights[names.iter().position(|n| n == name).unwrap()];
        // Rows 1-3 for white on 6x6 are distances 5, 4 and 3 (and the same for black).
        for d in ["d3", "d4", "d5"] {
            assert!(
                w(&format!("us pawn {d}")) > 50,
                "us pawn {d}: {}",
                w(&format!("us pawn {d}"))
            );
            assert!(w(&format!("them pawn {d}")) < -50);
        }
        assert!(f.test_accuracy > 0.7, "accuracy {}", f.test_accuracy);
        assert!(f.test_loss < 0.6, "loss {}", f.test_loss);
    }
}
