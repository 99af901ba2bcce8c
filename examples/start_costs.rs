//! What the general player spends at START, for the measurements document:
//!
//! - `start_costs meta RUNS FILE...`: the meta-gaming of a multi-player game at START
//!   (the start clock's random walks and what is read from them), timed `RUNS` times
//!   per file; the median wall and CPU times.
//! - `start_costs keys RUNS ITERATIONS FILE...`: an MCTS search of `ITERATIONS`
//!   iterations from the start, transpositions off, one thread, timed `RUNS` times per
//!   file; the median CPU time and playouts per CPU second.
//!
//! Both are seeded, so that two builds play the same walks and the same searches.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use ggp_player::gdl::Gdl;
use ggp_player::mcts::cutoff::CutoffSetting;
use ggp_player::mcts::{Budget, Mcts, Playouts};
use ggp_player::player::meta::{Meta, Until};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [mode, runs, files @ ..] if mode == "meta" => {
            for file in files {
                meta(file, runs.parse()?)?;
            }
        }
        [mode, runs, iterations, files @ ..] if mode == "keys" => {
            for file in files {
                keys(file, runs.parse()?, iterations.parse()?)?;
            }
        }
        _ => anyhow::bail!("usage: start_costs meta RUNS FILE... | keys RUNS ITERATIONS FILE..."),
    }
    Ok(())
}

fn load(file: &str) -> anyhow::Result<Arc<Gdl>> {
    Ok(Arc::new(Gdl::parse(&std::fs::read_to_string(file)?)?))
}

fn meta(file: &str, runs: usize) -> anyhow::Result<()> {
    let gdl = load(file)?;
    let root = gdl.initial_state();
    let stop = AtomicBool::new(false);
    let (mut wall, mut cpu, mut cut) = (Vec::new(), Vec::new(), None);
    for _ in 0..runs {
        let mut meta = Meta::new(
            gdl.clone(),
            1 << 20,
            CutoffSetting::Auto,
            Playouts::Mast,
            Some(1),
        );
        let far = Instant::now() + Duration::from_secs(3600);
        let (started, cpu_started) = (Instant::now(), ThreadTime::now());
        meta.prepare(
            &root,
            Until {
                all: far,
                trial: far,
            },
            &stop,
            "measure",
        );
        cpu.push(cpu_started.elapsed().as_secs_f64() * 1e3);
        wall.push(started.elapsed().as_secs_f64() * 1e3);
        cut = meta.cutoff();
    }
    println!(
        "{file}: meta-gaming at START, median of {runs}: {:.1} ms wall, {:.1} ms CPU (cut: {:?})",
        median(&mut wall),
        median(&mut cpu),
        cut,
    );
    Ok(())
}

fn keys(file: &str, runs: usize, iterations: u64) -> anyhow::Result<()> {
    let gdl = load(file)?;
    let root = gdl.initial_state();
    let (mut cpu, mut rate) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let mut tree = Mcts::new(gdl.clone(), Some(1), 256).with_transpositions(false);
        let budget = Budget {
            iterations: Some(iterations),
            ..Budget::default()
        };
        let started = ThreadTime::now();
        let choice = tree.search_within(&root, 0, budget);
        let seconds = started.elapsed().as_secs_f64();
        cpu.push(seconds * 1e3);
        rate.push(choice.playouts as f64 / seconds);
    }
    println!(
        "{file}: {iterations} iterations, transpositions off, median of {runs}: {:.1} ms CPU, {:.0} playouts per CPU second",
        median(&mut cpu),
        median(&mut rate),
    );
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
