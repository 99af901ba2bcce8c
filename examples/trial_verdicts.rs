//! The playouts' trial ([`ggp_player::mcts::choice`]) from a game's initial state, with
//! no clock, for the measurements document: how often it chooses right, what it costs
//! at a given size, and how other kinds of playouts fare in the same quick games.
//!
//! `trial_verdicts FILE ITERATIONS PAIRS SEEDS [A B]`: the trial at `ITERATIONS` a move
//! and `PAIRS` pairs of quick games (every one of them counted), once for each seed 0,
//! 1000, 2000, … (`SEEDS` of them); each verdict and its wall time. Given two sides `A`
//! and `B`, each a kind of playouts as `serve --playouts` names them, with `+rave` for a
//! selection that reads all-moves statistics (`serve --rave true`), the same quick games
//! between them, and each side's score.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::ValueEnum;
use ggp_player::gdl::{Engine, Gdl};
use ggp_player::mcts::Playouts;
use ggp_player::mcts::choice::{Side, Trial, choose, duel};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (file, iterations, pairs, seeds, sides) = match args.as_slice() {
        [f, i, p, s] => (f, i, p, s, None),
        [f, i, p, s, a, b] => (f, i, p, s, Some([side(a)?, side(b)?])),
        _ => bail!("usage: trial_verdicts FILE ITERATIONS PAIRS SEEDS [A B]"),
    };
    let trial = Trial {
        iterations: iterations.parse().context("ITERATIONS")?,
        pairs: pairs.parse().context("PAIRS")?,
        least_pairs: 1,
    };
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    let gdl =
        Gdl::parse_with(&text, Engine::Propnet).with_context(|| format!("the rules of {file}"))?;
    let gdl = Arc::new(gdl);
    let root = gdl.initial_state();
    let stop = AtomicBool::new(false);
    for k in 0..seeds.parse::<u64>().context("SEEDS")? {
        let started = Instant::now();
        let far = started + Duration::from_secs(24 * 3600);
        let seed = Some(1000 * k);
        let line = match sides {
            None => choose(&gdl, &root, trial, seed, far, &stop).to_string(),
            Some(sides) => {
                let d = duel(&gdl, &root, sides, trial, seed, far, &stop);
                format!(
                    "{} {:.0}%, {} {:.0}% in {} quick games",
                    args[4],
                    d.means[0] * 100.0,
                    args[5],
                    d.means[1] * 100.0,
                    d.games
                )
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        println!("{file} seed {}: {line} in {seconds:.2} s", 1000 * k);
    }
    Ok(())
}

/// A side from its name: playouts, then `+rave` if its selection uses GRAVE.
fn side(name: &str) -> anyhow::Result<Side> {
    let (playouts, rave) = match name.strip_suffix("+rave") {
        Some(playouts) => (playouts, true),
        None => (name, false),
    };
    let playouts = Playouts::from_str(playouts, true)
        .map_err(|e| anyhow::anyhow!("playouts {playouts:?}: {e}"))?;
    Ok(Side { playouts, rave })
}
