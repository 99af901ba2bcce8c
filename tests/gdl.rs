//! The GDL reasoner against the bitboard engine, the course's rules against ours, the
//! course's size-10 defect, and the generated rule files. The course's own files are read
//! when they are beside the project (`../shared/reference/`); every other test uses the
//! course-style rules our generator writes, which those files check when present.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ggp_player::games::breakthrough::gdl::{
    breakthrough_rules, breakthrough_rules_variant, course_style_rules, file_name,
};
use ggp_player::games::breakthrough::{Board, BoardSize, Color, MoveList, Variant};
use ggp_player::gdl::{Gdl, State, Term};
use ggp_player::sexpr::Sexpr;
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::{course_template, reference_dir};

/// The course's rule files that exist, with their board sizes.
const COURSE_FILES: [(u32, u32); 6] = [(3, 5), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9)];

fn size(w: u32, h: u32) -> BoardSize {
    BoardSize::new(w, h).unwrap()
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The course's rule files with their sizes; `None` (after the skip line) without them.
fn course_files() -> Option<Vec<(u32, u32, String)>> {
    let dir = reference_dir()?;
    let files = COURSE_FILES
        .iter()
        .map(|&(w, h)| {
            (
                w,
                h,
                read(dir.join(format!("gdl/breakthrough_{w}x{h}.gdl"))),
            )
        })
        .collect();
    Some(files)
}

/// The course kiosk's rules for a board size: the template plus the size facts.
fn kiosk(template: &str, size: BoardSize) -> String {
    format!(
        "{template}\n(width {}) (height {})\n",
        size.width(),
        size.height()
    )
}

fn compile(text: &str, what: &str) -> Gdl {
    Gdl::parse(text).unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn number(s: &Sexpr) -> u32 {
    s.as_atom()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("not a number: {s}"))
}

/// `(move x1 y1 x2 y2)` → coordinates; `noop` → `None`.
fn move_coords(g: &Gdl, t: &Term) -> Option<(u32, u32, u32, u32)> {
    let s = g.term_to_sexpr(t);
    if s.is_atom_ci("noop") {
        return None;
    }
    assert!(s.head_is("move"), "unexpected move {s}");
    let a = s.args().unwrap();
    assert_eq!(a.len(), 4, "{s}");
    Some((number(&a[0]), number(&a[1]), number(&a[2]), number(&a[3])))
}

/// What the reasoner's state says about the board: pawns, side to move, size fluents.
struct Seen {
    pawns: [u128; 2],
    control: Vec<Color>,
    /// `(x, y)` of every cell fluent, whether or not it is on the engine's board.
    cells: Vec<(u32, u32, Color)>,
}

fn color(s: &Sexpr) -> Color {
    if s.is_atom_ci("white") {
        Color::White
    } else if s.is_atom_ci("black") {
        Color::Black
    } else {
        panic!("not a role: {s}")
    }
}

fn seen(g: &Gdl, state: &State, size: BoardSize) -> Seen {
    let geo = Board::new(size).geometry().to_owned();
    let mut out = Seen {
        pawns: [0; 2],
        control: Vec::new(),
        cells: Vec::new(),
    };
    for f in state.fluents() {
        let s = g.term_to_sexpr(f);
        let args = s.args().unwrap_or_default();
        if s.head_is("cell") {
            let (x, y, c) = (number(&args[0]), number(&args[1]), color(&args[2]));
            out.cells.push((x, y, c));
            if let Some(sq) = geo.square(x, y) {
                out.pawns[c.index()] |= 1 << sq;
            }
        } else if s.head_is("control") {
            out.control.push(color(&args[0]));
        } else if s.head_is("width") {
            assert_eq!(number(&args[0]), size.width() as u32);
        } else if s.head_is("height") {
            assert_eq!(number(&args[0]), size.height() as u32);
        } else {
            panic!("unexpected fluent {s}");
        }
    }
    out
}

fn engine_moves(board: &Board) -> BTreeSet<(u32, u32, u32, u32)> {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    list.iter()
        .map(|m| {
            let (a, b, c, d) = board.move_coords(m);
            (a as u32, b as u32, c as u32, d as u32)
        })
        .collect()
}

/// Plays `games` random games with the engine choosing moves, checking after every move
/// that the reasoner agrees with the engine on everything. Returns the number of plies.
fn agree_with_engine(g: &Gdl, board0: Board, games: usize, seed: u64) -> usize {
    let size = board0.size();
    let roles: Vec<String> = g
        .roles()
        .iter()
        .map(|r| g.display(r).to_lowercase())
        .collect();
    assert_eq!(roles, ["white", "black"], "{size}");
    let noop = g.parse_term("noop").unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut plies = 0;
    for game in 0..games {
        let mut board = board0.clone();
        let mut state = g.initial_state();
        for ply in 0.. {
            let at = || {
                format!(
                    "{size} {}, game {game}, ply {ply}:\n{board}",
                    board.variant()
                )
            };
            let s = seen(g, &state, size);
            assert_eq!(
                s.pawns[0],
                board.pawns(Color::White),
                "white pawns, {}",
                at()
            );
            assert_eq!(
                s.pawns[1],
                board.pawns(Color::Black),
                "black pawns, {}",
                at()
            );
            assert_eq!(
                s.cells.len() as u32,
                board.pawns(Color::White).count_ones() + board.pawns(Color::Black).count_ones(),
                "cells off the board, {}",
                at()
            );
            assert_eq!(s.control, vec![board.side_to_move()], "{}", at());

            let a = g.analyse(&state);
            let side = board.side_to_move().index();
            let ours: BTreeSet<_> = a.legal[side]
                .iter()
                .map(|m| {
                    move_coords(g, m)
                        .unwrap_or_else(|| panic!("noop for the side to move, {}", at()))
                })
                .collect();
            assert_eq!(ours, engine_moves(&board), "legal moves, {}", at());
            assert_eq!(a.legal[1 - side], vec![noop.clone()], "{}", at());
            let goals = board.goals();
            assert_eq!(a.terminal, goals.is_some(), "terminal, {}", at());
            if ply == 0 || goals.is_some() {
                // The separate queries give the same answers as the combined one.
                assert_eq!(g.is_terminal(&state), a.terminal);
                assert_eq!(g.legal_moves(&state, side), a.legal[side]);
                assert_eq!(g.all_legal_moves(&state), a.legal);
                assert_eq!(g.goals(&state), a.goals);
            }
            if let Some(goals) = goals {
                let expected: Vec<Option<u32>> = goals.iter().map(|&v| Some(v as u32)).collect();
                assert_eq!(a.goals, expected, "goals, {}", at());
                break;
            }
            // Not over: nobody has won yet, so both score 50.
            assert_eq!(a.goals, vec![Some(50), Some(50)], "{}", at());

            let mut list = MoveList::default();
            board.generate_moves(&mut list);
            let moves: Vec<_> = list.iter().collect();
            let m = *moves.choose(&mut rng).unwrap();
            let (x1, y1, x2, y2) = board.move_coords(m);
            let term = g
                .parse_term(&format!("(move {x1} {y1} {x2} {y2})"))
                .unwrap();
            assert!(a.legal[side].contains(&term));
            let mut joint = vec![noop.clone(), noop.clone()];
            joint[side] = term;
            state = g.next_state(&state, &joint);
            board.make(m);
            plies += 1;
        }
    }
    plies
}

#[test]
fn course_files_agree_with_the_engine() {
    let Some(files) = course_files() else {
        return;
    };
    for (w, h, text) in &files {
        let (w, h) = (*w, *h);
        let g = compile(text, &format!("course {w}x{h}"));
        agree_with_engine(
            &g,
            Board::new(size(w, h)),
            30,
            1000 + w as u64 * 10 + h as u64,
        );
    }
    let (_, _, text) = files.iter().find(|f| (f.0, f.1) == (5, 5)).unwrap();
    let course = compile(&text.to_uppercase(), "upper-case course 5x5");
    agree_with_engine(&course, Board::new(size(5, 5)), 5, 5);
}

#[test]
fn course_style_rules_agree_with_the_engine_below_size_10() {
    for (w, h) in COURSE_FILES {
        let g = compile(
            &course_style_rules(size(w, h)),
            &format!("course-style {w}x{h}"),
        );
        agree_with_engine(
            &g,
            Board::new(size(w, h)),
            30,
            1000 + w as u64 * 10 + h as u64,
        );
    }
    for (w, h) in [(2, 4), (4, 9), (9, 4), (3, 7)] {
        let g = compile(
            &course_style_rules(size(w, h)),
            &format!("course-style {w}x{h}"),
        );
        agree_with_engine(
            &g,
            Board::new(size(w, h)),
            15,
            2000 + w as u64 * 10 + h as u64,
        );
    }
}

#[test]
fn our_rules_agree_with_the_engine_on_every_size() {
    for size in BoardSize::all() {
        let g = compile(&breakthrough_rules(size), &format!("ours {size}"));
        let area = size.width() as usize * size.height() as usize;
        let games = if area <= 30 { 40 } else { 20 };
        agree_with_engine(&g, Board::new(size), games, 3000 + area as u64);
    }
}

#[test]
fn our_standard_rules_agree_with_the_engine_on_every_size() {
    for size in BoardSize::all() {
        let text = breakthrough_rules_variant(size, Variant::Standard);
        let g = compile(&text, &format!("standard {size}"));
        let board = Board::with_variant(size, Variant::Standard);
        let area = size.width() as usize * size.height() as usize;
        agree_with_engine(&g, board, 6, 7000 + area as u64);
    }
}

#[test]
fn dresden_upper_case_rules_play_the_same() {
    let text = breakthrough_rules(size(5, 6)).to_uppercase();
    let g = compile(&text, "upper-case 5x6");
    assert_eq!(g.display(&g.roles()[0]), "WHITE");
    let moves = g.legal_moves(&g.initial_state(), 0);
    assert_eq!(g.display(&moves[0]), "(MOVE 1 2 1 3)");
    agree_with_engine(&g, Board::new(size(5, 6)), 5, 4);
    let course = compile(
        &course_style_rules(size(5, 5)).to_uppercase(),
        "upper-case course-style 5x5",
    );
    agree_with_engine(&course, Board::new(size(5, 5)), 5, 5);
}

fn shown(g: &Gdl, terms: &[Term]) -> Vec<String> {
    let mut v: Vec<String> = terms.iter().map(|t| g.display(t)).collect();
    v.sort();
    v
}

/// Plays random games with both rule sets side by side (moves chosen from `a`'s legal
/// moves); they must agree on every state, legal move, terminal test and goal.
fn lockstep(a: &Gdl, b: &Gdl, games: usize, seed: u64, what: &str) {
    assert_eq!(shown(a, a.roles()), shown(b, b.roles()), "{what}: roles");
    let roles: Vec<String> = a.roles().iter().map(|r| a.display(r)).collect();
    let roles_b: Vec<String> = b.roles().iter().map(|r| b.display(r)).collect();
    assert_eq!(roles, roles_b, "{what}: role order");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for game in 0..games {
        let (mut sa, mut sb) = (a.initial_state(), b.initial_state());
        for ply in 0.. {
            let at = format!("{what}, game {game}, ply {ply}");
            assert_eq!(
                shown(a, sa.fluents()),
                shown(b, sb.fluents()),
                "{at}: state"
            );
            let (xa, xb) = (a.analyse(&sa), b.analyse(&sb));
            assert_eq!(xa.terminal, xb.terminal, "{at}: terminal");
            assert_eq!(xa.goals, xb.goals, "{at}: goals");
            for r in 0..roles.len() {
                assert_eq!(
                    shown(a, &xa.legal[r]),
                    shown(b, &xb.legal[r]),
                    "{at}: legal"
                );
            }
            if xa.terminal {
                break;
            }
            let joint: Vec<Term> = xa
                .legal
                .iter()
                .map(|ms| ms.choose(&mut rng).unwrap().clone())
                .collect();
            let joint_b: Vec<Term> = joint
                .iter()
                .map(|m| b.parse_term(&a.display(m)).unwrap())
                .collect();
            sa = a.next_state(&sa, &joint);
            sb = b.next_state(&sb, &joint_b);
        }
    }
}

#[test]
fn course_files_and_ours_agree() {
    let Some(files) = course_files() else {
        return;
    };
    for (w, h, text) in &files {
        let (w, h) = (*w, *h);
        let course = compile(text, "course");
        let ours = compile(&breakthrough_rules(size(w, h)), "ours");
        lockstep(
            &course,
            &ours,
            30,
            w as u64 * 100 + h as u64,
            &format!("{w}x{h} file"),
        );
    }
}

#[test]
fn course_style_rules_and_ours_agree_below_size_10() {
    for w in 2..=9 {
        for h in 4..=9 {
            let course = compile(&course_style_rules(size(w, h)), "course-style");
            let ours = compile(&breakthrough_rules(size(w, h)), "ours");
            lockstep(
                &course,
                &ours,
                10,
                w as u64 * 10 + h as u64,
                &format!("{w}x{h} course-style"),
            );
        }
    }
}

/// Our course-style rules state the course kiosk's game on every size, the size-10
/// defect included: the same states, legal moves, terminal tests and goals along random
/// games, in lower case and upper-cased as Dresden sends them.
#[test]
fn course_template_and_course_style_rules_agree_on_every_size() {
    let Some(template) = course_template() else {
        return;
    };
    for sz in BoardSize::all() {
        let (w, h) = (sz.width() as u64, sz.height() as u64);
        let course = compile(&kiosk(&template, sz), "kiosk");
        let style = compile(&course_style_rules(sz), "course-style");
        lockstep(
            &course,
            &style,
            10,
            500 + w * 10 + h,
            &format!("{sz} kiosk"),
        );
    }
    for sz in [size(5, 5), size(10, 10)] {
        let course = compile(&kiosk(&template, sz).to_uppercase(), "upper-case kiosk");
        let style = compile(
            &course_style_rules(sz).to_uppercase(),
            "upper-case course-style",
        );
        lockstep(&course, &style, 5, 600, &format!("{sz} upper-case kiosk"));
    }
    size_10_defect(&|sz| kiosk(&template, sz), "kiosk");
}

/// Random games under the given rules; calls `check` on every state with the ply number.
fn random_games(
    g: &Gdl,
    games: usize,
    seed: u64,
    mut check: impl FnMut(&State, usize, &[Vec<Term>]),
) -> Vec<Vec<Option<u32>>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut results = Vec::new();
    for _ in 0..games {
        let mut s = g.initial_state();
        for ply in 0.. {
            let a = g.analyse(&s);
            check(&s, ply, &a.legal);
            if a.terminal {
                results.push(a.goals);
                break;
            }
            let joint: Vec<Term> = a
                .legal
                .iter()
                .map(|ms| ms.choose(&mut rng).unwrap().clone())
                .collect();
            s = g.next_state(&s, &joint);
        }
    }
    results
}

#[test]
fn course_style_rules_lose_coordinate_1_on_size_10() {
    size_10_defect(&course_style_rules, "course-style");
}

/// The course's size-10 defect in `rules` (the course kiosk's or ours in its style).
fn size_10_defect(rules: &dyn Fn(BoardSize) -> String, what: &str) {
    // 10x10: neither column 1 nor row 1 exists (shared/RULES.md).
    let sz = size(10, 10);
    let g = compile(&rules(sz), &format!("{what} 10x10"));
    let init = seen(&g, &g.initial_state(), sz);
    let mut expected: Vec<(u32, u32, Color)> = Vec::new();
    for x in 2..=10 {
        for (y, c) in [
            (1, Color::White),
            (2, Color::White),
            (9, Color::Black),
            (10, Color::Black),
        ] {
            expected.push((x, y, c));
        }
    }
    let mut cells = init.cells.clone();
    cells.sort_by_key(|&(x, y, c)| (x, y, c.index()));
    expected.sort_by_key(|&(x, y, c)| (x, y, c.index()));
    assert_eq!(
        cells, expected,
        "no pawn in column 1; white's row-1 pawns are still there"
    );
    let first = shown(&g, &g.legal_moves(&g.initial_state(), 0));
    let want: Vec<String> = (2..=10).map(|x| format!("(move {x} 2 {x} 3)")).collect();
    let mut want = want;
    want.sort();
    assert_eq!(first, want);

    let mut black_moves = 0;
    let results = random_games(&g, 40, 10, |s, ply, legal| {
        let cells = seen(&g, s, sz).cells;
        assert!(cells.iter().all(|&(x, _, _)| x != 1), "a pawn in column 1");
        if ply >= 1 {
            assert!(
                cells.iter().all(|&(_, y, _)| y != 1),
                "row 1 is not a cell: its pawns vanish"
            );
        }
        for m in legal.iter().flatten() {
            if let Some((x1, _, x2, y2)) = move_coords(&g, m) {
                assert!(
                    x1 != 1 && x2 != 1 && y2 != 1,
                    "a move touching coordinate 1"
                );
                black_moves += 1;
            }
        }
    });
    assert!(black_moves > 0);
    assert!(
        results.iter().all(|r| r[1] != Some(100)),
        "black can never win"
    );
    assert!(results.iter().any(|r| r[0] == Some(100)), "white does win");
    assert_eq!(results.len(), 40);

    // Only 10 wide: column 1 is missing, row 1 is fine.
    let sz = size(10, 6);
    let g = compile(&rules(sz), &format!("{what} 10x6"));
    let results = random_games(&g, 20, 11, |s, _, _| {
        let cells = seen(&g, s, sz).cells;
        assert!(cells.iter().all(|&(x, _, _)| x != 1), "a pawn in column 1");
    });
    assert!(
        results.iter().any(|r| r[1] == Some(100)),
        "black can win on 10x6"
    );
    assert_eq!(seen(&g, &g.initial_state(), sz).cells.len(), 4 * 9);

    // Only 10 tall: all columns, but white's row-1 pawns vanish and black never wins.
    let sz = size(6, 10);
    let g = compile(&rules(sz), &format!("{what} 6x10"));
    assert_eq!(seen(&g, &g.initial_state(), sz).cells.len(), 4 * 6);
    let results = random_games(&g, 20, 12, |s, ply, _| {
        if ply >= 1 {
            assert!(seen(&g, s, sz).cells.iter().all(|&(_, y, _)| y != 1));
        }
    });
    assert!(
        results.iter().all(|r| r[1] != Some(100)),
        "black can never win"
    );
}

#[test]
fn our_rules_have_no_size_10_defect() {
    for (w, h) in [(10, 10), (10, 4), (2, 10)] {
        let sz = size(w, h);
        let g = compile(&breakthrough_rules(sz), "ours");
        let init = seen(&g, &g.initial_state(), sz);
        assert_eq!(init.cells.len(), 4 * w as usize);
        assert!(init.cells.contains(&(1, 1, Color::White)));
        assert!(init.cells.contains(&(1, h, Color::Black)));
        agree_with_engine(&g, Board::new(sz), 10, 20 + w as u64 + h as u64);
    }
    // Black does win on 10x10 under our rules.
    let g = compile(&breakthrough_rules(size(10, 10)), "ours");
    let results = random_games(&g, 30, 13, |_, _, _| {});
    assert!(results.iter().any(|r| r[1] == Some(100)));
}

#[test]
fn generated_files_are_up_to_date() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gdl");
    let update = std::env::var_os("UPDATE_GDL").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for size in BoardSize::all() {
        let path = dir.join(file_name(size));
        let text = breakthrough_rules(size);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(file_name(size));
        }
    }
    assert!(
        stale.is_empty(),
        "gdl/ is out of date ({} of 63 files differ or are missing, e.g. {}); regenerate with\n    \
         UPDATE_GDL=1 cargo test --test tests gdl::generated_files_are_up_to_date",
        stale.len(),
        stale[..stale.len().min(3)].join(", ")
    );
}
