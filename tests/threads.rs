//! The general player's search on several threads (one tree each): playouts per second
//! at one thread and at two, measured side by side (ignored: a measurement, not a check).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ggp_player::gdl::{Engine, Gdl};
use ggp_player::mcts::Budget;
use ggp_player::mcts::forest::Forest;
use ggp_player::sexpr::Sexpr;

/// Playouts per second of the general MCTS from each classic game's start on 1 and 2
/// threads, `SECONDS` a search, alternating, `ROUNDS` rounds; medians. Run with
/// `cargo test --release --test tests threads::playouts -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn playouts_per_second_on_one_and_two_threads() {
    const SECONDS: u64 = 3;
    const ROUNDS: usize = 3;
    for game in [
        "connect_four",
        "nim",
        "pentago",
        "reversi_6x6",
        "hex",
        "checkers_6x6",
    ] {
        let path = format!("{}/gdl/{game}.gdl", env!("CARGO_MANIFEST_DIR"));
        let rules = Sexpr::parse_all(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut gdl = Gdl::from_sexprs(&rules).unwrap();
        gdl.use_engine(&rules, Engine::Auto).unwrap();
        let gdl = Arc::new(gdl);
        let mut rates = [Vec::new(), Vec::new()];
        for round in 0..ROUNDS {
            for threads in [1, 2] {
                let mut forest = Forest::new(gdl.clone(), Some(round as u64), 256, threads);
                let budget = Budget {
                    deadline: Some(Instant::now() + Duration::from_secs(SECONDS)),
                    ..Budget::default()
                };
                let (c, _) = forest.search_within(&gdl.initial_state(), 0, budget, threads);
                rates[threads - 1].push(c.playouts as f64 / c.elapsed.as_secs_f64());
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (one, two) = (median(&mut rates[0]), median(&mut rates[1]));
        println!(
            "{game}: 1 thread {one:.0} playouts/s, 2 threads {two:.0} playouts/s, ratio {:.2}",
            two / one
        );
        assert!(one > 0.0 && two > 0.0);
    }
}
