//! MCTS over native games, through the `Game` adapter: it finds a lone winning move among
//! many, its playouts end in games that repeat, and (ignored, a measurement) its speed
//! against the same search over the GDL reasoner.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ggp_player::agent::{Agent, AgentConfig, AgentKind};
use ggp_player::game::Game;
use ggp_player::games::breakthrough::gdl::breakthrough_rules;
use ggp_player::games::breakthrough::spec::Breakthrough;
use ggp_player::games::breakthrough::{Board, BoardSize};
use ggp_player::games::walk::spec::WalkSpec;
use ggp_player::games::walk::{Graph, Node, Owner, Walk};
use ggp_player::gdl::Gdl;
use ggp_player::mcts::native::{Native, Turn};
use ggp_player::mcts::{Budget, Mcts};
use ggp_player::referee::native::{self, Contestant};
use ggp_player::search::Limits;
use ggp_player::spec::start;

fn iterations(n: u64) -> Budget<'static> {
    Budget {
        iterations: Some(n),
        ..Budget::default()
    }
}

#[test]
fn finds_the_one_winning_spoke_of_the_star() {
    // White wins by 0-300 (black must then step onto white's goal); every other spoke
    // leads back to the hub, where random play wins only some of the time.
    let star = start::<WalkSpec>(Some("star300"), None).unwrap();
    let mut tree = Mcts::new(Native::<Walk>::default(), Some(1), 16);
    let c = tree.search_within(&Turn::new(star.clone()), 0, iterations(3_000));
    let best = c.best.flatten().expect("a move");
    assert_eq!(star.move_name(best), "0-300", "{c:?}");
    // The win is proven (black's only reply loses), which ends the search early.
    assert_eq!(c.proven, Some(1.0), "{c:?}");
    assert!(c.iterations < 3_000, "{c:?}");
    // Black (role 1) only waits at the root.
    let black = tree.search_within(&Turn::new(star), 1, iterations(1));
    assert_eq!(black.best, Some(None));
}

#[test]
fn playouts_end_in_a_walk_that_never_ends() {
    // Two nodes joined both ways and no goal: the free variant (no ply limit) goes round
    // for ever, so every playout ends at the cap, a draw.
    let node = |to| Node {
        goal: None,
        edges: vec![(to, Owner::Both)],
    };
    let graph = Graph::new(vec![node(1), node(0)]).unwrap();
    let walk = Walk::new(Arc::new(graph), None);
    let mut tree = Mcts::new(Native::<Walk>::default(), Some(2), 16);
    let c = tree.search_within(&Turn::new(walk), 0, iterations(50));
    assert_eq!((c.iterations, c.playouts), (50, 50), "{c:?}");
    assert_eq!(c.value, 0.5, "{c:?}");
    // And the registered free variant, whose random graph has goals.
    let free = start::<WalkSpec>(Some("40"), Some("free")).unwrap();
    let mut tree = Mcts::new(Native::<Walk>::default(), Some(3), 16);
    let c = tree.search_within(&Turn::new(free), 0, iterations(2_000));
    assert_eq!(c.iterations, 2_000, "{c:?}");
    assert!(c.best.flatten().is_some(), "{c:?}");
}

#[test]
fn a_search_with_no_time_left_still_names_a_legal_move() {
    let board = Board::new(BoardSize::new(8, 8).unwrap());
    let mut tree = Mcts::new(Native::<Board>::default(), None, 16);
    let past = Budget {
        deadline: Some(Instant::now()),
        ..Budget::default()
    };
    let c = tree.search_within(&Turn::new(board.clone()), 0, past);
    assert_eq!(c.iterations, 0);
    let mv = c.best.flatten().expect("a move without any iteration");
    assert!(board.parse_move(&board.move_name(mv)).is_some());
}

/// Playouts per second of MCTS from Breakthrough 8x8's start, by the native engine and by
/// the GDL reasoner on the same rules, `SECONDS` each. Run with
/// `cargo test --release --test tests mcts::playout_speed -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn playout_speed_native_against_reasoner() {
    const SECONDS: u64 = 5;
    let size = BoardSize::new(8, 8).unwrap();
    let until = || Budget {
        deadline: Some(Instant::now() + Duration::from_secs(SECONDS)),
        ..Budget::default()
    };
    let mut native = Mcts::new(Native::<Board>::default(), Some(1), 256);
    let n = native.search_within(&Turn::new(Board::new(size)), 0, until());
    let gdl = Arc::new(Gdl::parse(&breakthrough_rules(size)).unwrap());
    let mut reasoner = Mcts::new(gdl.clone(), Some(1), 256);
    let r = reasoner.search_within(&gdl.initial_state(), 0, until());
    let rate = |playouts: u64, t: Duration| playouts as f64 / t.as_secs_f64();
    let (nr, rr) = (rate(n.playouts, n.elapsed), rate(r.playouts, r.elapsed));
    println!(
        "breakthrough 8x8, {SECONDS} s from the start: native {nr:.0} playouts/s \
         ({} playouts, {} nodes); reasoner {rr:.0} playouts/s ({} playouts, {} nodes); \
         ratio {:.0}",
        n.playouts,
        n.nodes,
        r.playouts,
        r.nodes,
        nr / rr
    );
    assert!(n.playouts > 0 && r.playouts > 0);
}

#[test]
fn mcts_beats_random_at_breakthrough_with_both_colours() {
    let board = start::<Breakthrough>(Some("6x6"), None).unwrap();
    let config = |kind, seed| AgentConfig {
        kind,
        seed: Some(seed),
        iterations: Some(ITERATIONS),
        ..AgentConfig::default()
    };
    const ITERATIONS: u64 = 1_000;
    let clock = Duration::from_secs(10);
    let mut score = 0.0;
    for game in 0..20 {
        let player = |kind| {
            let agent = Contestant::Agent(config(kind, game));
            native::mover::<Breakthrough>(&agent, clock).unwrap()
        };
        let (mut mcts, mut random) = (player(AgentKind::Mcts), player(AgentKind::Random));
        let r = if game % 2 == 0 {
            native::play(&board, &[], [&mut *mcts, &mut *random], clock, 200)
        } else {
            native::play(&board, &[], [&mut *random, &mut *mcts], clock, 200)
        };
        assert_eq!(r.fault, None, "game {game}");
        score += r.scores[game as usize % 2];
    }
    println!("mcts ({ITERATIONS} iterations a move) against random, 6x6: {score}/20");
    assert!(score >= 17.0, "{score}/20");
}

#[test]
fn mcts_names_a_legal_move_with_no_time_left() {
    let config = AgentConfig {
        kind: AgentKind::Mcts,
        seed: Some(5),
        ..AgentConfig::default()
    };
    let past = Limits::until(Instant::now());
    let star = start::<WalkSpec>(Some("star300"), None).unwrap();
    let mut agent = Agent::new::<WalkSpec>(config);
    let mv = agent.choose(&star, &past, &[]).unwrap().mv;
    assert!(star.parse_move(&star.move_name(mv)).is_some());
    let board = start::<Breakthrough>(Some("8x8"), None).unwrap();
    let mut agent = Agent::new::<Breakthrough>(config);
    let mv = agent.choose(&board, &past, &[]).unwrap().mv;
    assert!(board.parse_move(&board.move_name(mv)).is_some());
}
