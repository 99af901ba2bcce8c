//! The classic games written as GDL in gdl/: known sequences of moves reach the
//! terminal state and the goals the rules of each game call for, answered by the
//! propositional network and by the reasoner alike.

use ggp_player::gdl::{Engine, Gdl};

fn game(file: &str) -> Gdl {
    let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Gdl::parse_with(&text, Engine::Propnet).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Joint moves of a two-player game in turns: `first`'s moves and `second`'s
/// alternately, the other role playing noop.
fn in_turn<'a>(first: &[&'a str], second: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    for i in 0..first.len().max(second.len()) {
        if let Some(&m) = first.get(i) {
            out.push(vec![m, "noop"]);
        }
        if let Some(&m) = second.get(i) {
            out.push(vec!["noop", m]);
        }
    }
    out
}

/// Plays `joints` (one move per role, in role order), each checked legal, and returns
/// whether the end is terminal and the goals there; a terminal state before the last
/// joint move fails the test.
fn play(g: &Gdl, joints: &[Vec<&str>]) -> (bool, Vec<Option<u32>>) {
    let mut state = g.initial_state();
    for (ply, joint) in joints.iter().enumerate() {
        assert!(!g.is_terminal(&state), "terminal before ply {ply}");
        let legal = g.all_legal_moves(&state);
        let moves: Vec<_> = joint.iter().map(|m| g.parse_term(m).unwrap()).collect();
        for (role, m) in moves.iter().enumerate() {
            assert!(
                legal[role].contains(m),
                "ply {ply}: {} is not legal",
                joint[role]
            );
        }
        state = g.next_state(&state, &moves);
    }
    (g.is_terminal(&state), g.goals(&state))
}

/// Both models play `joints` to the same end, which must be `expected`.
fn ends(file: &str, joints: &[Vec<&str>], expected: (bool, Vec<Option<u32>>)) {
    let g = game(file);
    assert_eq!(g.engine_name(), "propnet");
    assert_eq!(play(&g, joints), expected, "{file}: propositional network");
    assert_eq!(
        play(&g.reasoner_only(), joints),
        expected,
        "{file}: reasoner"
    );
}

#[test]
fn nim_is_won_by_whoever_takes_the_last_counter() {
    let moves = in_turn(
        &["(reduce a 0)", "(reduce c 3)", "(reduce d 0)"],
        &["(reduce b 0)", "(reduce c 0)"],
    );
    ends("nim.gdl", &moves, (true, vec![Some(100), Some(0)]));
    ends("nim.gdl", &moves[..4], (false, vec![Some(50), Some(50)]));
    // Taking nothing, or taking from an empty heap, is not a move.
    let g = game("nim.gdl");
    let s = g.initial_state();
    let legal = &g.all_legal_moves(&s)[0];
    assert!(!legal.contains(&g.parse_term("(reduce a 11)").unwrap()));
    assert_eq!(legal.len(), 11 + 12 + 15 + 25);
}

#[test]
fn hex_is_won_by_a_chain_between_a_players_edges() {
    // Red runs down the first column; blue's stones in the third never join its edges.
    let red_chain = in_turn(
        &[
            "(place 1 1)",
            "(place 1 2)",
            "(place 1 3)",
            "(place 1 4)",
            "(place 1 5)",
        ],
        &["(place 3 1)", "(place 3 2)", "(place 3 3)", "(place 3 4)"],
    );
    ends("hex.gdl", &red_chain, (true, vec![Some(100), Some(0)]));
    ends("hex.gdl", &red_chain[..8], (false, vec![Some(0), Some(0)]));
    // Blue joins left to right along row 3, red's stones scattered.
    let blue_row = in_turn(
        &[
            "(place 2 1)",
            "(place 4 1)",
            "(place 2 5)",
            "(place 4 5)",
            "(place 5 1)",
        ],
        &[
            "(place 1 3)",
            "(place 2 3)",
            "(place 3 3)",
            "(place 4 3)",
            "(place 5 3)",
        ],
    );
    ends("hex.gdl", &blue_row, (true, vec![Some(0), Some(100)]));
}

#[test]
fn the_race_is_won_by_the_first_runner_home_and_drawn_by_two() {
    let five = |left: &'static str, right: &'static str| vec![vec![left, right]; 5];
    let ahead = five("(step 2)", "(step 1)");
    ends("race.gdl", &ahead, (true, vec![Some(100), Some(0)]));
    let together = five("(step 2)", "(step 2)");
    ends("race.gdl", &together, (true, vec![Some(50), Some(50)]));
    ends("race.gdl", &together[..4], (false, vec![Some(0), Some(0)]));
}

#[test]
fn tictactoe_and_connect_four_end_as_their_rules_say() {
    let x = ["(mark 1 1)", "(mark 2 2)", "(mark 3 3)"];
    let o = ["(mark 1 2)", "(mark 1 3)"];
    ends(
        "tictactoe.gdl",
        &in_turn(&x, &o),
        (true, vec![Some(100), Some(0)]),
    );
    let g = game("connect_four.gdl");
    let first = &g.all_legal_moves(&g.initial_state())[0];
    assert_eq!(first.len(), 7, "one drop per column");
}
