//! The general player's search on several threads (one tree each): playouts per second
//! at one thread and at two, and the iterations it takes to prove a position with and
//! without transpositions and shared proofs, measured side by side (ignored:
//! measurements, not checks).

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
        let gdl = classic(game);
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

/// A classic game's rules, on the propositional network where it can be built.
fn classic(game: &str) -> Arc<Gdl> {
    let path = format!("{}/gdl/{game}.gdl", env!("CARGO_MANIFEST_DIR"));
    let rules = Sexpr::parse_all(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut gdl = Gdl::from_sexprs(&rules).unwrap();
    gdl.use_engine(Engine::Auto, None).unwrap();
    Arc::new(gdl)
}

/// Iterations (all threads' together) until the search proves a position, for a tree and
/// a graph (transpositions) on one thread, and two trees apart or sharing their proofs;
/// medians of `SEEDS` seeds, each search at most `CAP` iterations or 10 s. Run with
/// `cargo test --release --test tests threads::proofs -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn proofs_on_one_and_two_threads_with_and_without_sharing() {
    const SEEDS: u64 = 3;
    const CAP: u64 = 3_000_000;
    // Nim (heaps 1, 3, 4 and 5, nim-sum 3: won for the first to move) and tic-tac-toe
    // from its start (a draw).
    for game in ["nim", "tictactoe"] {
        let gdl = classic(game);
        let start = match game {
            "nim" => {
                let facts = ["(size a 1)", "(size b 3)", "(size c 4)", "(size d 5)"];
                let control = ["(control first)"];
                ggp_player::gdl::State::from_fluents(
                    facts
                        .iter()
                        .chain(&control)
                        .map(|f| gdl.parse_term(f).unwrap()),
                )
            }
            _ => gdl.initial_state(),
        };
        let setups = [
            ("1 thread, tree", 1, false, false),
            ("1 thread, graph", 1, true, false),
            ("2 threads apart", 2, false, false),
            ("2 threads sharing proofs", 2, false, true),
            ("2 threads sharing, graphs", 2, true, true),
        ];
        for (name, threads, transpositions, shared) in setups {
            let mut counts = Vec::new();
            let mut proven = 0;
            for seed in 0..SEEDS {
                let mut forest = Forest::new(gdl.clone(), Some(seed), 256, threads)
                    .with_transpositions(transpositions)
                    .with_shared_proofs(shared);
                let budget = Budget {
                    iterations: Some(CAP),
                    deadline: Some(Instant::now() + Duration::from_secs(10)),
                    ..Budget::default()
                };
                let (c, _) = forest.search_within(&start, 0, budget, threads);
                proven += usize::from(c.proven.is_some());
                counts.push(c.iterations);
            }
            counts.sort_unstable();
            println!(
                "{game}: {name}: proven {proven}/{SEEDS}, median {} iterations ({counts:?})",
                counts[counts.len() / 2]
            );
        }
    }
}
