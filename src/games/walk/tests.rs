//! The generic search on a game with repetitions, passes, a ply limit and hundreds of
//! moves, checked against values worked out here by brute force (no table, no pruning).

use std::sync::Arc;

use super::*;
use crate::search::{self, Limits, Options, ProofTable, Table};

fn value_of(o: Outcome) -> i32 {
    match o {
        Outcome::Win => 1,
        Outcome::Loss => -1,
        Outcome::Draw => 0,
    }
}

fn moves(w: &Walk) -> Vec<Move> {
    let mut list = MoveList::default();
    w.generate_moves(&mut list);
    list.as_slice().to_vec()
}

/// Plain negamax over the whole game; a position already on the path is a draw.
fn brute(w: &mut Walk, path: &mut Vec<(u16, Side, u32)>) -> i32 {
    if let Some(o) = w.decided() {
        return value_of(o);
    }
    // With a limit the ply count is part of the position; without, it is not.
    let key = (w.node(), w.side_to_move(), w.limit.map_or(0, |_| w.ply()));
    if path.contains(&key) {
        return 0;
    }
    let list = moves(w);
    if list.is_empty() {
        return value_of(w.outcome_without_moves());
    }
    path.push(key);
    let mut best = -2;
    for m in list {
        w.make(m);
        best = best.max(-brute(w, path));
        w.unmake(m);
    }
    path.pop();
    best
}

fn solved(w: &Walk, table: &ProofTable) -> i32 {
    let s = search::solve(w, &Limits::default(), table, 1);
    assert!(!s.too_deep);
    value_of(s.value.expect("no time limit"))
}

#[test]
fn the_solver_scores_repetitions_as_draws_from_this_path_only() {
    let mut draws_by_repetition = 0;
    for seed in 0..300 {
        let graph = Arc::new(Graph::random(seed, 8, 3));
        let root = Walk::new(graph, None);
        // One table for every solve of the graph: a value that held only on one path
        // must not have been stored for the next solve to find.
        let table = ProofTable::new(1);
        for node in 0..8 {
            for side in [Side::White, Side::Black] {
                let mut w = root.at(node, side, 0);
                let expected = brute(&mut w, &mut Vec::new());
                assert_eq!(
                    solved(&w, &table),
                    expected,
                    "seed {seed}, node {node}, {side:?} to move"
                );
                draws_by_repetition += usize::from(expected == 0 && !moves(&w).is_empty());
            }
        }
    }
    // The graphs do exercise repetition.
    assert!(draws_by_repetition > 100, "{draws_by_repetition}");
}

#[test]
fn a_ply_limit_ends_the_game_and_the_values_follow_it() {
    let mut changed = 0;
    for seed in 0..200 {
        let graph = Arc::new(Graph::random(seed, 7, 3));
        for limit in [1, 2, 3, 5, 8] {
            let mut w = Walk::new(graph.clone(), Some(limit));
            let expected = brute(&mut w, &mut Vec::new());
            let table = ProofTable::new(1);
            assert_eq!(solved(&w, &table), expected, "seed {seed}, limit {limit}");
            // The alpha-beta search to the limit proves the same value.
            let options = Options {
                reductions: false,
                ..Options::default()
            };
            let r = search::search_with(
                &w,
                &Mobility,
                &Limits::depth(limit + 2),
                &Table::new(1),
                &options,
            );
            if !moves(&w).is_empty() {
                let proven = r.proven.map(value_of);
                assert_eq!(proven, Some(expected), "seed {seed}, limit {limit}");
            }
            let unlimited = brute(&mut Walk::new(graph.clone(), None), &mut Vec::new());
            changed += usize::from(unlimited != expected);
        }
    }
    assert!(
        changed > 50,
        "the limit should matter in many games: {changed}"
    );
}

#[test]
fn the_side_without_a_move_passes() {
    // White has no edge out of node 0, black has one, onto its goal.
    let graph = Graph::new(vec![
        Node {
            goal: None,
            edges: vec![(1, Owner::Black)],
        },
        Node {
            goal: Some(Side::Black),
            edges: vec![],
        },
    ])
    .unwrap();
    let w = Walk::new(Arc::new(graph), None);
    let list = moves(&w);
    assert_eq!(list.len(), 1);
    assert!(list[0].is_pass());
    assert_eq!(w.move_name(list[0]), "pass");
    assert_eq!(perft(&mut w.clone(), 2), 1);
    assert_eq!(solved(&w, &ProofTable::new(1)), -1);
    let r = search::search(&w, &Mobility, &Limits::depth(4));
    assert_eq!(r.best_move, Some(list[0]));
    assert_eq!(r.proven, Some(Outcome::Loss));
    // Neither side can move: the game is over, drawn.
    let stuck = w.at(1, Side::White, 0);
    let graph = Graph::new(vec![Node::default()]).unwrap();
    let alone = Walk::new(Arc::new(graph), None);
    assert!(moves(&alone).is_empty());
    assert_eq!(solved(&alone, &ProofTable::new(1)), 0);
    assert_eq!(stuck.decided(), Some(Outcome::Loss));
}

fn perft(w: &mut Walk, depth: u32) -> u64 {
    if depth == 0 || w.decided().is_some() {
        return u64::from(depth == 0);
    }
    let mut n = 0;
    for m in moves(w) {
        w.make(m);
        n += perft(w, depth - 1);
        w.unmake(m);
    }
    n
}

#[test]
fn three_hundred_moves_are_searched_in_full() {
    let spokes = 300;
    let w = Walk::new(Arc::new(Graph::star(spokes)), None);
    let list = moves(&w);
    assert_eq!(list.len(), 300);
    assert_eq!(perft(&mut w.clone(), 1), 300);
    // Black's only move from each rim node; the last rim node's leads to white's goal.
    assert_eq!(perft(&mut w.clone(), 2), 300);
    assert_eq!(perft(&mut w.clone(), 3), 299 * 300);
    // The only winning move is the last one generated.
    let winning = w.parse_move("0-300").unwrap();
    assert_eq!(list.last(), Some(&winning));
    for threads in [1, 2] {
        let options = Options {
            threads,
            ..Options::default()
        };
        let r = search::search_with(&w, &Mobility, &Limits::depth(6), &Table::new(1), &options);
        assert_eq!(r.best_move, Some(winning), "{threads} threads");
        assert_eq!(r.proven, Some(Outcome::Win));
        assert_eq!(search::score::describe(r.score), "win in 2");
    }
    assert_eq!(solved(&w, &ProofTable::new(1)), 1);
}

#[test]
fn a_move_list_refuses_more_moves_than_its_bound() {
    let too_many = Node {
        goal: None,
        edges: vec![(0, Owner::Both); MAX_EDGES + 1],
    };
    let e = Graph::new(vec![too_many]).unwrap_err();
    assert!(e.to_string().contains("at most 400"), "{e}");
    let overflow = std::panic::catch_unwind(|| {
        let mut list = ArrayMoves::<Move, 2>::default();
        for _ in 0..3 {
            list.push(Move::default());
        }
    });
    let message = overflow.unwrap_err();
    let text = message.downcast_ref::<String>().unwrap();
    assert_eq!(text, "more than 2 legal moves in one position");
}

#[test]
fn moves_are_written_and_read_in_the_game_notation() {
    let w = Walk::new(Arc::new(Graph::star(5)), None);
    for m in moves(&w) {
        assert_eq!(w.parse_move(&w.move_name(m)), Some(m));
    }
    assert_eq!(w.parse_move("  0-3 "), moves(&w).get(2).copied());
    assert_eq!(w.parse_move("0-9"), None, "no such edge");
    assert_eq!(w.parse_move("pass"), None, "white can move");
    assert_eq!(w.parse_move(""), None);
}

/// Node 0, white to move: to node 1 (worth +3 to white by mobility) or to node 2 (+1).
fn fork() -> Walk {
    let graph = Graph::new(vec![
        Node {
            goal: None,
            edges: vec![(1, Owner::White), (2, Owner::White)],
        },
        Node {
            goal: None,
            edges: vec![
                (0, Owner::White),
                (0, Owner::White),
                (0, Owner::White),
                (0, Owner::Both),
            ],
        },
        Node {
            goal: None,
            edges: vec![(0, Owner::White), (0, Owner::Both)],
        },
    ])
    .unwrap();
    Walk::new(Arc::new(graph), None)
}

#[test]
fn positions_played_before_the_root_count_as_repetitions() {
    let w = fork();
    let to = |node: u16| w.parse_move(&format!("0-{node}")).unwrap();
    let search = |earlier: Vec<u64>| {
        let options = Options {
            earlier,
            ..Options::default()
        };
        search::search_with(&w, &Mobility, &Limits::depth(1), &Table::new(1), &options)
    };
    let fresh = search(Vec::new());
    assert_eq!((fresh.best_move, fresh.score), (Some(to(1)), 3));
    // Node 1 with black to move was played before: going there again is a draw (0).
    let mut seen = w.clone();
    seen.make(to(1));
    let again = search(vec![seen.hash()]);
    assert_eq!((again.best_move, again.score), (Some(to(2)), 1));
    assert_eq!(again.proven, None);
}

#[test]
fn shuffling_round_a_cycle_is_a_draw_that_is_never_proven() {
    // White can only go round 0 -> 1 -> 0; black could step onto white's goal but won't.
    let graph = Graph::new(vec![
        Node {
            goal: None,
            edges: vec![(1, Owner::White)],
        },
        Node {
            goal: None,
            edges: vec![(0, Owner::Black), (2, Owner::Black)],
        },
        Node {
            goal: Some(Side::White),
            edges: vec![],
        },
    ])
    .unwrap();
    let w = Walk::new(Arc::new(graph), None);
    let table = Table::new(1);
    let r = search::search_with(
        &w,
        &Mobility,
        &Limits::depth(30),
        &table,
        &Options::default(),
    );
    assert_eq!(r.score, search::score::DRAW);
    assert_eq!(
        r.proven, None,
        "a draw by repetition holds for this path only"
    );
    assert_eq!(r.depth, 30, "the search went on deepening");
    for code in 0..2 {
        // Nothing was stored as proven for any position of the cycle.
        for side in [Side::White, Side::Black] {
            let p = w.at(code, side, 0);
            if let Some(e) = table.probe(p.hash(), 0) {
                assert!(!e.proven, "node {code} {side:?}");
            }
        }
    }
    assert_eq!(solved(&w, &ProofTable::new(1)), 0);
}
