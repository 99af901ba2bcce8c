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
    let state = after(g, joints);
    (g.is_terminal(&state), g.goals(&state))
}

/// The game of `file` answered by the propositional network and by the reasoner.
fn models(file: &str) -> [Gdl; 2] {
    let g = game(file);
    assert_eq!(g.engine_name(), "propnet");
    let reasoner = g.reasoner_only();
    [g, reasoner]
}

/// Both models play `joints` to the same end, which must be `expected`.
fn ends(file: &str, joints: &[Vec<&str>], expected: (bool, Vec<Option<u32>>)) {
    for (g, model) in models(file)
        .iter()
        .zip(["propositional network", "reasoner"])
    {
        assert_eq!(play(g, joints), expected, "{file}: {model}");
    }
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

/// The state after `joints`, each checked legal; a terminal state before the last joint
/// move fails the test.
fn after(g: &Gdl, joints: &[Vec<&str>]) -> ggp_player::gdl::State {
    after_from(g, g.initial_state(), joints)
}

/// The state after `joints` from `state`, each checked legal, as [`after`].
fn after_from(
    g: &Gdl,
    mut state: ggp_player::gdl::State,
    joints: &[Vec<&str>],
) -> ggp_player::gdl::State {
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
    state
}

/// The legal moves of `role` in `state`, written out and sorted.
fn legal_text(g: &Gdl, state: &ggp_player::gdl::State, role: usize) -> Vec<String> {
    let mut out: Vec<String> = g
        .legal_moves(state, role)
        .iter()
        .map(|m| g.display(m))
        .collect();
    out.sort();
    out
}

fn holds(g: &Gdl, state: &ggp_player::gdl::State, fluent: &str) -> bool {
    state.contains(&g.parse_term(fluent).unwrap())
}

#[test]
fn reversi_turns_the_discs_a_move_flanks_and_counts_discs_at_the_end() {
    let g = game("reversi_6x6.gdl");
    let start = g.initial_state();
    // The four cells next to the centre that flank one white disc each.
    assert_eq!(
        legal_text(&g, &start, 0),
        ["(place 2 3)", "(place 3 2)", "(place 4 5)", "(place 5 4)"]
    );
    let s = after(&g, &[vec!["(place 3 2)", "noop"]]);
    assert!(holds(&g, &s, "(cell 3 3 black)") && holds(&g, &s, "(cell 4 4 white)"));
    assert_eq!(
        legal_text(&g, &s, 1),
        ["(place 2 2)", "(place 2 4)", "(place 4 2)"]
    );
    // White's diagonal reply turns (3 3) back; black can then flank (2 2) from the
    // edge, but not the white diagonal (2 2)-(4 4), which no black disc closes.
    let s = after(
        &g,
        &[vec!["(place 3 2)", "noop"], vec!["noop", "(place 2 2)"]],
    );
    assert!(holds(&g, &s, "(cell 3 3 white)") && holds(&g, &s, "(cell 2 2 white)"));
    assert_eq!(
        legal_text(&g, &s, 0),
        ["(place 1 2)", "(place 2 3)", "(place 4 5)", "(place 5 4)"]
    );
    // Black takes (3 3) back from (2 3); white's (4 2) then turns a disc in each of two
    // directions, (4 3) above it and (3 2) to its left, and nothing on its diagonal.
    let s = after(
        &g,
        &[
            vec!["(place 3 2)", "noop"],
            vec!["noop", "(place 2 2)"],
            vec!["(place 2 3)", "noop"],
            vec!["noop", "(place 4 2)"],
        ],
    );
    for (cell, colour) in [
        ("4 3", "white"),
        ("3 2", "white"),
        ("3 3", "black"),
        ("2 3", "black"),
    ] {
        assert!(holds(&g, &s, &format!("(cell {cell} {colour})")), "{cell}");
    }
    // Random games to the end, each step checked against the rules written out here:
    // the mover's legal moves, the discs a move turns, the end; and the goals follow the
    // discs counted.
    for seed in 0..3 {
        let mut rng = ggp_player::rng::seeded(Some(seed));
        let mut state = g.initial_state();
        loop {
            let board = Othello::of(&g, &state);
            let mover = usize::from(holds(&g, &state, "(control white)"));
            let moves = board.moves(mover);
            let other = board.moves(1 - mover);
            assert_eq!(g.is_terminal(&state), moves.is_empty() && other.is_empty());
            if g.is_terminal(&state) {
                break;
            }
            let expected: Vec<String> = match moves.is_empty() {
                true => vec!["noop".into()],
                false => moves
                    .iter()
                    .map(|(x, y)| format!("(place {x} {y})"))
                    .collect(),
            };
            assert_eq!(legal_text(&g, &state, mover), expected);
            let joint: Vec<_> = g
                .all_legal_moves(&state)
                .into_iter()
                .map(|ms| ms[rand::RngExt::random_range(&mut rng, 0..ms.len())].clone())
                .collect();
            let played = g.display(&joint[mover]);
            state = g.next_state(&state, &joint);
            let mut want = board;
            if let Some(&(x, y)) = moves
                .iter()
                .find(|(x, y)| played == format!("(place {x} {y})"))
            {
                want.play(mover, x, y);
            }
            assert_eq!(Othello::of(&g, &state), want, "after {played}");
        }
        let (black, white) = Othello::of(&g, &state).count();
        let expected = match black.cmp(&white) {
            std::cmp::Ordering::Greater => [100, 0],
            std::cmp::Ordering::Equal => [50, 50],
            std::cmp::Ordering::Less => [0, 100],
        };
        assert_eq!(g.goals(&state), expected.map(Some), "{black} to {white}");
        assert_eq!(g.reasoner_only().goals(&state), expected.map(Some));
    }
}

/// A 6x6 reversi board read from the GDL state (0 empty, 1 black, 2 white), with the
/// game's rules written directly, to check the GDL against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Othello([[u8; 6]; 6]);

impl Othello {
    const STEPS: [(i32, i32); 8] = [
        (1, 1),
        (1, 0),
        (1, -1),
        (0, 1),
        (0, -1),
        (-1, 1),
        (-1, 0),
        (-1, -1),
    ];

    fn of(g: &Gdl, state: &ggp_player::gdl::State) -> Othello {
        let mut cells = [[0u8; 6]; 6];
        for f in state.fluents() {
            let text = g.display(f);
            let parts: Vec<&str> = text.trim_matches(['(', ')']).split(' ').collect();
            if parts[0] != "cell" {
                continue;
            }
            let (x, y): (usize, usize) = (parts[1].parse().unwrap(), parts[2].parse().unwrap());
            cells[x - 1][y - 1] = match parts[3] {
                "black" => 1,
                "white" => 2,
                _ => 0,
            };
        }
        Othello(cells)
    }

    fn at(&self, x: i32, y: i32) -> Option<u8> {
        let inside = (1..=6).contains(&x) && (1..=6).contains(&y);
        inside.then(|| self.0[x as usize - 1][y as usize - 1])
    }

    /// The cells a disc of `side` (0 black, 1 white) at (x, y) would turn.
    fn turned(&self, side: usize, x: i32, y: i32) -> Vec<(i32, i32)> {
        let (own, theirs) = if side == 0 { (1, 2) } else { (2, 1) };
        let mut out = Vec::new();
        for (dx, dy) in Self::STEPS {
            let mut run = Vec::new();
            let (mut cx, mut cy) = (x + dx, y + dy);
            while self.at(cx, cy) == Some(theirs) {
                run.push((cx, cy));
                (cx, cy) = (cx + dx, cy + dy);
            }
            if !run.is_empty() && self.at(cx, cy) == Some(own) {
                out.extend(run);
            }
        }
        out
    }

    /// The empty cells where `side` may place, in the order the moves sort in.
    fn moves(&self, side: usize) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for x in 1..=6 {
            for y in 1..=6 {
                if self.at(x, y) == Some(0) && !self.turned(side, x, y).is_empty() {
                    out.push((x, y));
                }
            }
        }
        out
    }

    fn play(&mut self, side: usize, x: i32, y: i32) {
        let colour = side as u8 + 1;
        for (cx, cy) in self.turned(side, x, y) {
            self.0[cx as usize - 1][cy as usize - 1] = colour;
        }
        self.0[x as usize - 1][y as usize - 1] = colour;
    }

    fn count(&self) -> (usize, usize) {
        let all = self.0.iter().flatten();
        let of = |c: u8| all.clone().filter(|&&v| v == c).count();
        (of(1), of(2))
    }
}

#[test]
fn checkers_forces_a_capture_and_passes_the_turn_when_the_jump_ends() {
    let g = game("checkers_6x6.gdl");
    let start = g.initial_state();
    // Only red's front row can move: (2 2) two ways, (4 2) two ways, (6 2) one way.
    assert_eq!(legal_text(&g, &start, 0).len(), 5);
    let opening = [
        vec!["(move 2 2 3 3)", "noop"],
        vec!["noop", "(move 1 5 2 4)"],
    ];
    let s = after(&g, &opening);
    // Red's man on (3 3) must take the man on (2 4); no other move is legal.
    assert_eq!(legal_text(&g, &s, 0), ["(move 3 3 1 5)"]);
    let mut jump = opening.to_vec();
    jump.push(vec!["(move 3 3 1 5)", "noop"]);
    let s = after(&g, &jump);
    assert!(holds(&g, &s, "(cell 1 5 rm)"));
    assert!(!holds(&g, &s, "(cell 2 4 wm)") && !holds(&g, &s, "(cell 3 3 rm)"));
    // From (1 5) a red man has nothing to jump, so the turn passes to white.
    assert_eq!(legal_text(&g, &s, 0), ["noop"]);
    assert!(!legal_text(&g, &s, 1).contains(&"noop".to_owned()));
    ends("checkers_6x6.gdl", &jump, (false, vec![Some(50), Some(50)]));
}

#[test]
fn checkers_lets_a_piece_that_can_jump_again_jump_on() {
    // Random games until a jump leaves its mover to move again: then only that piece
    // moves, and only by jumping on.
    let g = game("checkers_6x6.gdl");
    let mut rng = ggp_player::rng::seeded(Some(5));
    let mut seen = 0;
    for _ in 0..200 {
        let mut state = g.initial_state();
        while !g.is_terminal(&state) {
            let legal = g.all_legal_moves(&state);
            let joint: Vec<_> = legal
                .iter()
                .map(|ms| ms[rand::RngExt::random_range(&mut rng, 0..ms.len())].clone())
                .collect();
            let mover = legal
                .iter()
                .position(|ms| ms.len() > 1 || g.display(&ms[0]) != "noop");
            state = g.next_state(&state, &joint);
            let (Some(mover), false) = (mover, g.is_terminal(&state)) else {
                continue;
            };
            let again = legal_text(&g, &state, mover);
            if again == ["noop"] {
                continue;
            }
            seen += 1;
            let moved = g.display(&joint[mover]);
            let to: Vec<&str> = moved.trim_matches(['(', ')']).split(' ').collect();
            for m in &again {
                let m: Vec<&str> = m.trim_matches(['(', ')']).split(' ').collect();
                assert_eq!(m[1..3], to[3..5], "{moved} then {m:?}");
                let dx: i32 = m[3].parse::<i32>().unwrap() - m[1].parse::<i32>().unwrap();
                assert_eq!(dx.abs(), 2, "{moved} then {m:?}: a jump");
            }
        }
    }
    assert!(seen > 0, "no chain of jumps in 200 random games");
}

#[test]
fn pentago_turns_a_quarter_and_is_won_by_five_in_a_row() {
    let g = game("pentago.gdl");
    assert_eq!(legal_text(&g, &g.initial_state(), 0).len(), 36);
    let placed = after(&g, &[vec!["(place 1 1)", "noop"]]);
    assert_eq!(
        legal_text(&g, &placed, 0).len(),
        8,
        "four quarters, two ways"
    );
    // The corner (1 1) of the south-west quarter goes to (1 3) clockwise, to (3 1)
    // anticlockwise.
    for (way, to) in [("cw", "(cell 1 3 red)"), ("ccw", "(cell 3 1 red)")] {
        let turn = format!("(rotate sw {way})");
        let s = after(
            &g,
            &[vec!["(place 1 1)", "noop"], vec![turn.as_str(), "noop"]],
        );
        assert!(holds(&g, &s, to) && holds(&g, &s, "(cell 1 1 b)"), "{way}");
        assert_eq!(legal_text(&g, &s, 0), ["noop"], "blue's turn");
    }
    // Red fills row 1 while both turn the empty north-east quarter back and forth;
    // the fifth marble wins before red turns a quarter.
    let mut joints = Vec::new();
    let blue = ["(place 1 6)", "(place 2 6)", "(place 3 6)", "(place 1 5)"];
    for x in 1..=5 {
        joints.push(vec![format!("(place {x} 1)"), "noop".into()]);
        if x == 5 {
            break;
        }
        joints.push(vec!["(rotate ne cw)".into(), "noop".into()]);
        joints.push(vec!["noop".into(), blue[x - 1].into()]);
        joints.push(vec!["noop".into(), "(rotate ne ccw)".into()]);
    }
    let joints: Vec<Vec<&str>> = joints
        .iter()
        .map(|j| j.iter().map(String::as_str).collect())
        .collect();
    ends("pentago.gdl", &joints, (true, vec![Some(100), Some(0)]));
    let before = &joints[..joints.len() - 1];
    ends("pentago.gdl", before, (false, vec![Some(50), Some(50)]));
}

#[test]
fn pentago_is_drawn_when_one_turn_makes_five_for_both() {
    // Red to turn a quarter. Rows 4 and 6 hold red (2 4) (3 4) and blue (2 6) (3 6) in
    // the north-west quarter; the north-east quarter holds red down its right column
    // and blue down its left. Turning it clockwise lays red's column along row 4 and
    // blue's along row 6: five in a row for both at once.
    let g = game("pentago.gdl");
    let red = ["2 4", "3 4", "6 4", "6 5", "6 6"];
    let blue = ["2 6", "3 6", "4 4", "4 5", "4 6"];
    let mut fluents = vec!["(control red)".to_owned(), "(phase rotate)".to_owned()];
    for x in 1..=6 {
        for y in 1..=6 {
            let cell = format!("{x} {y}");
            let colour = match () {
                _ if red.contains(&cell.as_str()) => "red",
                _ if blue.contains(&cell.as_str()) => "blue",
                _ => "b",
            };
            fluents.push(format!("(cell {cell} {colour})"));
        }
    }
    let state =
        ggp_player::gdl::State::from_fluents(fluents.iter().map(|f| g.parse_term(f).unwrap()));
    for model in [g.clone(), g.reasoner_only()] {
        assert!(!model.is_terminal(&state));
        let turn = ["(rotate ne cw)", "noop"].map(|m| model.parse_term(m).unwrap());
        let end = model.next_state(&state, &turn);
        assert!(model.is_terminal(&end));
        assert_eq!(model.goals(&end), [Some(50), Some(50)]);
        // Turning it the other way makes no row of five.
        let other = ["(rotate ne ccw)", "noop"].map(|m| model.parse_term(m).unwrap());
        assert!(!model.is_terminal(&model.next_state(&state, &other)));
    }
}

/// The state of `fluents`, written out.
fn state_of(g: &Gdl, fluents: &[&str]) -> ggp_player::gdl::State {
    ggp_player::gdl::State::from_fluents(fluents.iter().map(|f| g.parse_term(f).unwrap()))
}

#[test]
fn checkers_jumps_on_and_a_crowning_ends_the_turn() {
    let g = game("checkers_6x6.gdl");
    let turn = |s: &ggp_player::gdl::State, m: &str| {
        let joint = [m, "noop"].map(|t| g.parse_term(t).unwrap());
        g.next_state(s, &joint)
    };
    // Red's man on (1 1) takes (2 2), lands on (3 3), and must take (4 4) next.
    let s = state_of(
        &g,
        &[
            "(cell 1 1 rm)",
            "(cell 2 2 wm)",
            "(cell 4 4 wm)",
            "(cell 6 6 wm)",
            "(control red)",
            "(step 0)",
        ],
    );
    assert_eq!(legal_text(&g, &s, 0), ["(move 1 1 3 3)"]);
    let s = turn(&s, "(move 1 1 3 3)");
    assert_eq!(legal_text(&g, &s, 0), ["(move 3 3 5 5)"]);
    assert_eq!(legal_text(&g, &s, 1), ["noop"]);
    let s = turn(&s, "(move 3 3 5 5)");
    assert!(holds(&g, &s, "(cell 5 5 rm)") && !holds(&g, &s, "(cell 4 4 wm)"));
    // From (5 5) there is nothing more to take, so white moves: its man on (6 6) must
    // take red's back, landing on the emptied (4 4).
    assert_eq!(legal_text(&g, &s, 0), ["noop"]);
    assert_eq!(legal_text(&g, &s, 1), ["(move 6 6 4 4)"]);
    // A man that jumps onto the far row is crowned and stops, though as a king it could
    // take (5 5) backwards from there.
    let s = state_of(
        &g,
        &[
            "(cell 2 4 rm)",
            "(cell 3 5 wm)",
            "(cell 5 5 wm)",
            "(control red)",
            "(step 0)",
        ],
    );
    assert_eq!(legal_text(&g, &s, 0), ["(move 2 4 4 6)"]);
    let s = turn(&s, "(move 2 4 4 6)");
    assert!(holds(&g, &s, "(cell 4 6 rk)"));
    assert_eq!(legal_text(&g, &s, 0), ["noop"]);
    assert_eq!(legal_text(&g, &s, 1), ["(move 5 5 4 4)", "(move 5 5 6 4)"]);
}

/// Chinese checkers answered by the propositional network and by the reasoner.
fn chinese_checkers() -> [Gdl; 2] {
    models("chinese_checkers.gdl")
}

/// A Chinese checkers state: `red`'s and `blue`'s pegs (holes as "x y"), the player to
/// move and the step counter.
fn pegs(g: &Gdl, red: &[&str], blue: &[&str], control: &str, step: u32) -> ggp_player::gdl::State {
    let mut fluents = vec![format!("(control {control})"), format!("(step {step})")];
    for (colour, holes) in [("red", red), ("blue", blue)] {
        fluents.extend(holes.iter().map(|h| format!("(cell {h} {colour})")));
    }
    let fluents: Vec<&str> = fluents.iter().map(String::as_str).collect();
    state_of(g, &fluents)
}

#[test]
fn chinese_checkers_opens_with_a_step_or_a_jump_two_ways_for_each_red_peg() {
    // Red's pegs fill the bottom triangle: (7 1), and (6 2) and (8 2) on the row above.
    // (7 1)'s only neighbours are those two pegs, and the holes beyond them, (5 3) and
    // (9 3), are empty: two jumps. (6 2) has (8 2) and (7 1) as neighbours on its row and
    // below, with no hole beyond either, and (4 2), (5 1) are off the board: it steps up
    // to (5 3) or (7 3). (8 2) likewise steps to (7 3) or (9 3). Six moves; blue waits.
    for g in chinese_checkers() {
        let start = g.initial_state();
        assert_eq!(
            legal_text(&g, &start, 0),
            [
                "(move 6 2 5 3)",
                "(move 6 2 7 3)",
                "(move 7 1 5 3)",
                "(move 7 1 9 3)",
                "(move 8 2 7 3)",
                "(move 8 2 9 3)",
            ]
        );
        assert_eq!(legal_text(&g, &start, 1), ["noop"]);
    }
}

#[test]
fn chinese_checkers_steps_to_an_empty_neighbour_and_jumps_one_peg_to_the_hole_beyond() {
    // Red's pegs on (1 3), the left corner of row 3, and (3 3) beside it; blue's on (2 4)
    // above them both and on (5 3). (1 3) has no empty neighbour; it cannot jump (3 3),
    // blue's (5 3) filling the hole beyond, but jumps blue's (2 4) to (3 5). (3 3) steps to
    // (4 4) (row 2 has no (2 2) or (4 2)) and jumps (5 3) to (7 3); beyond (2 4) and
    // (1 3) there is no hole.
    for g in chinese_checkers() {
        let s = pegs(&g, &["1 3", "3 3"], &["2 4", "5 3"], "red", 10);
        assert_eq!(
            legal_text(&g, &s, 0),
            ["(move 1 3 3 5)", "(move 3 3 4 4)", "(move 3 3 7 3)"]
        );
        let stepped = after_from(&g, s.clone(), &[vec!["(move 3 3 4 4)", "noop"]]);
        assert_eq!(
            stepped,
            pegs(&g, &["1 3", "4 4"], &["2 4", "5 3"], "blue", 11)
        );
        // The jump moves the peg only: the jumped peg stays.
        let jumped = after_from(&g, s, &[vec!["(move 3 3 7 3)", "noop"]]);
        assert_eq!(
            jumped,
            pegs(&g, &["1 3", "7 3"], &["2 4", "5 3"], "blue", 11)
        );
        // Blue's (2 4) steps to (4 4), (3 5) or the emptied (3 3); its (5 3) steps to
        // (3 3), (4 4), (6 2) or (6 4) and jumps red's new (7 3) to (9 3).
        assert_eq!(
            legal_text(&g, &jumped, 1),
            [
                "(move 2 4 3 3)",
                "(move 2 4 3 5)",
                "(move 2 4 4 4)",
                "(move 5 3 3 3)",
                "(move 5 3 4 4)",
                "(move 5 3 6 2)",
                "(move 5 3 6 4)",
                "(move 5 3 9 3)",
            ]
        );
        assert_eq!(legal_text(&g, &jumped, 0), ["noop"]);
    }
}

#[test]
fn chinese_checkers_passes_when_the_mover_has_no_move() {
    // Red's one peg at the bottom corner, its neighbours and the holes beyond them blue.
    for g in chinese_checkers() {
        let s = pegs(&g, &["7 1"], &["6 2", "8 2", "5 3", "9 3"], "red", 0);
        assert_eq!(legal_text(&g, &s, 0), ["noop"]);
        let s = after_from(&g, s, &[vec!["noop", "noop"]]);
        assert!(legal_text(&g, &s, 1).contains(&"(move 5 3 4 4)".to_owned()));
    }
}

/// A race near its end: red has (6 8) and (7 9) home, blue (6 2). Red steps (11 5) to
/// (10 6), blue steps (7 3) home to (8 2), and red jumps blue's (9 7) to (8 8), its last
/// hole home.
const RACE_RED: [&str; 3] = ["6 8", "7 9", "11 5"];
const RACE_BLUE: [&str; 3] = ["9 7", "6 2", "7 3"];

fn race() -> [Vec<&'static str>; 3] {
    [
        vec!["(move 11 5 10 6)", "noop"],
        vec!["noop", "(move 7 3 8 2)"],
        vec!["(move 10 6 8 8)", "noop"],
    ]
}

#[test]
fn chinese_checkers_ends_when_a_player_has_every_peg_home() {
    let race = race();
    for g in chinese_checkers() {
        let s = pegs(&g, &RACE_RED, &RACE_BLUE, "red", 20);
        assert_eq!(g.goals(&s), [Some(67), Some(33)]);
        let before = after_from(&g, s.clone(), &race[..2]);
        assert!(!g.is_terminal(&before));
        assert_eq!(g.goals(&before), [Some(67), Some(67)]);
        let end = after_from(&g, s, &race);
        assert!(g.is_terminal(&end));
        assert_eq!(g.goals(&end), [Some(100), Some(67)]);
    }
}

#[test]
fn chinese_checkers_ends_after_sixty_plies_and_scores_the_pegs_home() {
    // Both players step a peg out and back, 15 times each way: 60 plies, nobody home.
    let mut shuffle = Vec::new();
    for _ in 0..15 {
        shuffle.extend(in_turn(
            &["(move 6 2 5 3)", "(move 5 3 6 2)"],
            &["(move 6 8 5 7)", "(move 5 7 6 8)"],
        ));
    }
    assert_eq!(shuffle.len(), 60);
    ends(
        "chinese_checkers.gdl",
        &shuffle,
        (true, vec![Some(0), Some(0)]),
    );
    ends(
        "chinese_checkers.gdl",
        &shuffle[..59],
        (false, vec![Some(0), Some(0)]),
    );
    // At the limit the pegs home score as they stand: two each after the same two plies
    // that leave the race of the test above unfinished at ply 20.
    for g in chinese_checkers() {
        let s = pegs(&g, &RACE_RED, &RACE_BLUE, "red", 58);
        let end = after_from(&g, s, &race()[..2]);
        assert!(g.is_terminal(&end));
        assert_eq!(g.goals(&end), [Some(67), Some(67)]);
    }
}

#[test]
fn chinese_checkers_counts_each_players_pegs_in_its_target_triangle() {
    let red_home = ["6 8", "8 8", "7 9"];
    let blue_home = ["6 2", "8 2", "7 1"];
    let score = [0, 33, 67, 100];
    for g in chinese_checkers() {
        // Every subset of red's target holes holding red pegs, red's others on row 5;
        // blue's pegs on its own target's holes of the other indices, its others on row
        // 7: red counts the subset's size, blue the rest of three.
        for subset in 0..8usize {
            let (mut red, mut blue) = (Vec::new(), Vec::new());
            for i in 0..3 {
                if subset >> i & 1 == 1 {
                    red.push(red_home[i]);
                    blue.push(["1 7", "3 7", "5 7"][i]);
                } else {
                    red.push(["3 5", "5 5", "7 5"][i]);
                    blue.push(blue_home[i]);
                }
            }
            let home = subset.count_ones() as usize;
            let s = pegs(&g, &red, &blue, "red", 0);
            let expected = [Some(score[home]), Some(score[3 - home])];
            assert_eq!(g.goals(&s), expected, "red on {red:?}, blue on {blue:?}");
            assert_eq!(g.is_terminal(&s), home == 0 || home == 3, "{red:?}");
        }
        // Pegs in the other's target count for nothing: the start with the sides swapped.
        let swapped = pegs(&g, &blue_home, &red_home, "red", 0);
        assert_eq!(g.goals(&swapped), [Some(0), Some(0)]);
        assert!(!g.is_terminal(&swapped));
    }
}
