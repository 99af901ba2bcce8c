//! The engine against the cross-checks of `GAMES.md` §2, a plain square-by-square
//! reading of the rules, and hand-built endings.

use std::collections::BTreeSet;

use rand::RngExt;

use super::eval::{Material, Positional, WEIGHTS};
use super::*;
use crate::game::{Evaluator, result};

fn board(text: &str, side: Side, ply: u32) -> Ataxx {
    let (black, white) = text::parse_course_board(text).expect("a valid board");
    Ataxx::new(black, white, side, ply)
}

fn listed(p: &Ataxx) -> Vec<Move> {
    let mut list = MoveList::default();
    p.generate_moves(&mut list);
    list.as_slice().to_vec()
}

fn play(p: &mut Ataxx, name: &str) {
    let m = p
        .parse_move(name)
        .unwrap_or_else(|| panic!("{name} is legal in\n{p}"));
    p.make(m);
}

fn count(p: &Ataxx, side: Side) -> u32 {
    p.pieces(side).count_ones()
}

/// The rules read square by square from `GAMES.md` §2.2, with no tables: every from-to
/// pair of the side to move and the board it leaves (black, white).
fn reference_moves(p: &Ataxx) -> BTreeSet<((usize, usize), (u64, u64))> {
    let s = p.side_to_move();
    let (own, opp) = (p.pieces(s), p.pieces(s.other()));
    let at = |b: u64, x: i32, y: i32| b >> (y * 7 + x) & 1 == 1;
    let mut out = BTreeSet::new();
    for fy in 0..7i32 {
        for fx in 0..7i32 {
            if !at(own, fx, fy) {
                continue;
            }
            for ty in 0..7i32 {
                for tx in 0..7i32 {
                    let (dx, dy) = ((tx - fx).abs(), (ty - fy).abs());
                    let clone = dx.max(dy) == 1;
                    let jump = matches!((dx, dy), (2, 0) | (0, 2) | (2, 2) | (3, 0) | (0, 3));
                    if !(clone || jump) || at(own | opp, tx, ty) {
                        continue;
                    }
                    let (mut o, mut q) = (own | 1 << (ty * 7 + tx), opp);
                    if jump {
                        o &= !(1 << (fy * 7 + fx));
                    }
                    for (nx, ny) in
                        (tx - 1..=tx + 1).flat_map(|x| (ty - 1..=ty + 1).map(move |y| (x, y)))
                    {
                        if (0..7).contains(&nx) && (0..7).contains(&ny) && at(q, nx, ny) {
                            q &= !(1 << (ny * 7 + nx));
                            o |= 1 << (ny * 7 + nx);
                        }
                    }
                    let after = if s == Side::Black { (o, q) } else { (q, o) };
                    let pair = ((fy * 7 + fx) as usize, (ty * 7 + tx) as usize);
                    out.insert((pair, after));
                }
            }
        }
    }
    out
}

/// The engine's moves as from-to pairs (a clone once per source, each read back with
/// `parse_move`) with the board each leaves.
fn engine_moves(p: &Ataxx) -> BTreeSet<((usize, usize), (u64, u64))> {
    let mut out = BTreeSet::new();
    for m in listed(p) {
        if m.is_pass() {
            continue;
        }
        let mut child = p.clone();
        child.make(m);
        let after = (child.pieces(Side::Black), child.pieces(Side::White));
        let sources = if m.is_clone() {
            p.pieces(p.side_to_move()) & board::NEIGHBOURS[m.to()]
        } else {
            1 << m.from()
        };
        for from in board::squares(sources) {
            let ((fx, fy), (tx, ty)) = (coords(from), coords(m.to()));
            assert_eq!(p.parse_move(&format!("{fx}:{fy}:{tx}:{ty}:")), Some(m));
            out.insert(((from, m.to()), after));
        }
    }
    out
}

/// Random games from the start, calling `check` on every position reached.
fn random_games(games: usize, seed: u64, mut check: impl FnMut(&mut Ataxx)) {
    let mut rng = crate::rng::seeded(Some(seed));
    for _ in 0..games {
        let mut p = Ataxx::start();
        let mut line = Vec::new();
        while result(&p).is_none() {
            check(&mut p);
            let moves = listed(&p);
            let m = moves[rng.random_range(..moves.len())];
            p.make(m);
            line.push(m);
        }
        check(&mut p);
        while let Some(m) = line.pop() {
            p.unmake(m);
        }
        assert_eq!(p.hash(), Ataxx::start().hash());
    }
}

#[test]
fn perft_from_the_start_counts_from_to_pairs() {
    let mut p = Ataxx::start();
    let counts = [16, 252, 5_552, 119_520, 3_270_396, 88_659_316];
    for (depth, count) in (1..).zip(counts) {
        assert_eq!(p.perft_pairs(depth), count, "depth {depth}");
    }
    assert_eq!(reference::perft_pairs(&mut p, 4), 119_520);
}

/// Positions for the cross-checks: every position of random games from the start, and
/// boards filled at random (any density, either side to move, any ply up to the limit),
/// which reach passes, wipe-outs and the turn limit far more often than play does.
fn random_positions(count: usize, seed: u64) -> Vec<Ataxx> {
    let mut rng = crate::rng::seeded(Some(seed));
    let mut out = Vec::with_capacity(count);
    while out.len() < count / 2 {
        random_games(1, rng.random(), |p| out.push(p.clone()));
    }
    out.truncate(count / 2);
    while out.len() < count {
        // Mostly crowded boards, often lopsided: a side with few pieces is walled in and
        // must pass.
        let empty_share = rng.random_range(0.0f64..1.0).powi(3);
        let black_share = rng.random_range(0.0..1.0);
        let (mut black, mut white) = (0, 0);
        for sq in 0..SQUARES {
            if rng.random_bool(empty_share) {
                continue;
            }
            if rng.random_bool(black_share) {
                black |= 1 << sq;
            } else {
                white |= 1 << sq;
            }
        }
        let side = if rng.random_bool(0.5) {
            Side::Black
        } else {
            Side::White
        };
        out.push(Ataxx::new(
            black,
            white,
            side,
            rng.random_range(0..=PLY_LIMIT),
        ));
    }
    out
}

/// The whole-board generator against the one it replaced and against the rules read
/// square by square, on 10,000 positions: the same moves in the same order, the same
/// pairs counted without listing, the same boards after each move, and every hash made,
/// unmade and recomputed alike; and the evaluation's whole-board best gain against the
/// square-by-square one.
#[test]
fn the_generator_matches_the_one_it_replaced_on_random_positions() {
    let positions = random_positions(10_000, 35);
    let (mut moves, mut passes, mut over) = (0, 0, 0);
    for (i, p) in positions.into_iter().enumerate() {
        let mut p = p;
        let old = reference::listed(&p);
        assert_eq!(listed(&p), old, "\n{p}");
        let (own, opp) = p.own_and_opposing();
        assert_eq!(movegen::reach(own), reference::reach(own), "\n{p}");
        let counts = board::neighbour_counts(opp);
        for sq in 0..SQUARES {
            let count = (0..4).map(|k| (counts[k] >> sq & 1) << k).sum::<u64>();
            assert_eq!(count, u64::from((board::NEIGHBOURS[sq] & opp).count_ones()));
        }
        assert_eq!(
            super::movegen::best_gain(own, opp, p.empty()),
            reference::best_gain(own, opp, p.empty()),
            "\n{p}"
        );
        let stuck = !reference::can_move(own, p.empty()) && !reference::can_move(opp, p.empty());
        assert_eq!(p.has_moves(), !stuck, "\n{p}");
        assert_eq!(
            p.pairs_to_move(),
            reference::perft_pairs(&mut p, 1),
            "\n{p}"
        );
        if p.decided().is_some() {
            over += 1;
            assert!(old.is_empty());
            continue;
        }
        assert_eq!(engine_moves(&p), reference_moves(&p), "\n{p}");
        let before = (p.pieces, p.side, p.ply, p.hash());
        for &m in &old {
            p.make(m);
            assert_eq!(
                p.zobrist,
                p.zobrist_from_scratch(),
                "{}\n{p}",
                p.move_name(m)
            );
            p.unmake(m);
            assert_eq!((p.pieces, p.side, p.ply, p.hash()), before);
        }
        if i % 10 == 0 {
            assert_eq!(p.perft_pairs(3), reference::perft_pairs(&mut p, 3), "\n{p}");
        }
        moves += old.len();
        passes += usize::from(old == [Move::PASS]);
    }
    // The positions cover what they are meant to.
    assert!(
        moves > 200_000 && passes > 20 && over > 1000,
        "{moves} {passes} {over}"
    );
}

#[test]
fn the_course_examples_from_the_start() {
    let p = Ataxx::start();
    for legal in ["0:0:1:0:", "0:0:3:0:", "0:0:2:2:"] {
        assert!(p.parse_move(legal).is_some(), "{legal}");
    }
    for illegal in ["0:0:1:2:", "0:0:3:3:", "6:0:5:0:", "0:0:0:0:", "0:0:7:0:"] {
        assert_eq!(p.parse_move(illegal), None, "{illegal}");
    }
    // Clones from different sources to one square are one listed move: 16 pairs, 16 moves
    // here since no square is next to two pieces.
    assert_eq!(listed(&p).len(), 16);
}

#[test]
fn the_reconstructed_example_converts_four() {
    let mut p = board(
        "1:1:0:2:2:2:2:
         1:1:0:2:2:2:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:2:0:
         2:0:0:0:0:0:0:
         2:2:0:0:1:1:1:
         2:2:2:0:1:1:1:",
        Side::Black,
        0,
    );
    assert_eq!((count(&p, Side::Black), count(&p, Side::White)), (10, 14));
    let m = p.parse_move("4:5:4:2:").expect("legal");
    assert!(!m.is_clone());
    p.make(m);
    assert_eq!((count(&p, Side::Black), count(&p, Side::White)), (14, 10));
    assert_eq!(
        p.course_board(Side::Black),
        "1:1:0:2:2:2:2:\n1:1:0:1:1:1:0:\n0:0:0:0:1:0:0:\n0:0:0:0:0:1:0:\n\
         2:0:0:0:0:0:0:\n2:2:0:0:0:1:1:\n2:2:2:0:1:1:1:\n"
    );
}

#[test]
fn moves_match_a_plain_reading_of_the_rules_along_random_games() {
    let mut positions = 0;
    random_games(40, 7, |p| {
        if p.decided().is_some() {
            assert!(listed(p).is_empty());
            return;
        }
        assert_eq!(engine_moves(p), reference_moves(p), "\n{p}");
        let pairs: u64 = listed(p).iter().map(|&m| p.pairs(m)).sum();
        let expected = reference_moves(p).len() as u64;
        let passes = u64::from(listed(p) == [Move::PASS]);
        assert_eq!(pairs, expected + passes);
        positions += 1;
    });
    assert!(positions > 1000);
}

#[test]
fn make_unmake_and_the_incremental_hash_along_random_games() {
    random_games(100, 12, |p| {
        let before = (p.pieces, p.side, p.ply, p.hash());
        assert_eq!(p.zobrist, p.zobrist_from_scratch());
        for m in listed(p) {
            p.make(m);
            assert_eq!(p.zobrist, p.zobrist_from_scratch(), "{}", p.move_name(m));
            assert_eq!(p.hash(), p.zobrist_from_scratch() ^ board::ply_key(p.ply));
            p.unmake(m);
            assert_eq!((p.pieces, p.side, p.ply, p.hash()), before);
        }
    });
}

#[test]
fn the_hash_covers_the_ply_count() {
    // Jumps there and back: the same board and side to move four plies later.
    let mut p = Ataxx::start();
    let h = p.hash();
    for name in ["0:0:2:0:", "6:0:4:0:", "2:0:0:0:", "4:0:6:0:"] {
        play(&mut p, name);
    }
    assert_eq!(p.zobrist, Ataxx::start().zobrist);
    assert_ne!(p.hash(), h);
}

#[test]
fn a_full_board_ends_the_game_and_the_larger_side_wins() {
    // One square left; black fills it by a clone and converts four: 29 against 20.
    let mut p = board(
        "1:1:1:1:1:1:1:
         1:1:1:1:1:1:1:
         1:1:1:1:1:1:1:
         2:2:2:2:2:2:2:
         2:2:2:2:2:2:2:
         2:2:2:2:2:2:2:
         2:2:2:0:1:1:1:",
        Side::Black,
        50,
    );
    assert_eq!(p.decided(), None);
    assert_eq!(
        listed(&p).len(),
        3,
        "a clone and the jumps from 5:6 and 6:6"
    );
    let win = p.winning_move().expect("filling the board wins");
    assert!(win.is_clone());
    p.make(win);
    assert_eq!(p.empty(), 0);
    assert_eq!((count(&p, Side::Black), count(&p, Side::White)), (29, 20));
    assert_eq!(p.decided(), Some(Outcome::Loss), "white to move has lost");
}

#[test]
fn a_side_without_pieces_has_lost() {
    let mut p = board(
        "0:0:0:0:0:0:0:
         0:1:0:0:0:0:0:
         0:0:0:2:2:0:0:
         0:0:0:0:2:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:",
        Side::Black,
        10,
    );
    assert_eq!(p.decided(), None);
    assert!(p.can_win_now());
    let m = p.winning_move().expect("3:3 converts all three");
    assert_eq!(p.move_name(m), "1:1:3:3:");
    p.make(m);
    assert_eq!(p.pieces(Side::White), 0);
    assert_eq!(p.decided(), Some(Outcome::Loss));
    // Seen from white before black's move: a wipe-out threat.
    let mut q = board(
        "0:0:0:0:0:0:0:
         0:1:0:0:0:0:0:
         0:0:0:2:2:0:0:
         0:0:0:0:2:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:",
        Side::White,
        10,
    );
    assert!(q.threatened());
    play(&mut q, "3:2:3:0:");
    assert!(!q.can_win_now());
}

#[test]
fn the_turn_limit_ends_the_game_with_a_draw_on_equal_counts() {
    let rows = "1:0:0:0:0:0:2:
                0:0:0:0:0:0:0:
                0:0:0:0:0:0:0:
                0:0:0:0:0:0:0:
                0:0:0:0:0:0:0:
                0:0:0:0:0:0:0:
                2:0:0:0:0:0:1:";
    // White moves last, at ply 199: a jump keeps 2-2, a clone wins 3-2.
    let p = board(rows, Side::White, PLY_LIMIT - 1);
    assert_eq!(p.decided(), None);
    let mut jump = p.clone();
    play(&mut jump, "6:0:4:0:");
    assert_eq!(jump.ply(), PLY_LIMIT);
    assert_eq!(jump.decided(), Some(Outcome::Draw));
    let mut clone = p.clone();
    play(&mut clone, "6:0:5:0:");
    assert_eq!(
        clone.decided(),
        Some(Outcome::Loss),
        "black to move has lost"
    );
    assert!(p.winning_move().is_some_and(|m| m.is_clone()));
    // One ply earlier the same moves leave the game going.
    let mut early = board(rows, Side::White, PLY_LIMIT - 2);
    assert_eq!(early.winning_move(), None);
    play(&mut early, "6:0:5:0:");
    assert_eq!(early.decided(), None);
}

#[test]
fn a_side_without_a_move_passes_while_the_other_can_move() {
    // White's only piece is walled in by black pieces three deep: no clone or jump
    // square is empty. Black can still move, so white passes.
    let mut p = board(
        "2:1:1:1:0:0:0:
         1:1:1:1:0:0:0:
         1:1:1:1:0:0:0:
         1:1:1:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:",
        Side::White,
        30,
    );
    assert_eq!(p.decided(), None);
    assert!(p.has_moves());
    assert_eq!(listed(&p), [Move::PASS]);
    assert_eq!(p.move_name(Move::PASS), "pass");
    assert_eq!(p.parse_move("pass"), Some(Move::PASS));
    assert_eq!(p.pairs(Move::PASS), 1);
    let before = p.hash();
    p.make(Move::PASS);
    assert_eq!((p.side_to_move(), p.ply()), (Side::Black, 31));
    assert_ne!(p.hash(), before);
    assert!(!listed(&p).contains(&Move::PASS));
    p.unmake(Move::PASS);
    assert_eq!(
        (p.side_to_move(), p.ply(), p.hash()),
        (Side::White, 30, before)
    );
    // Black cannot pass: it has moves.
    assert_eq!(
        board(&p.course_board(Side::Black), Side::Black, 30).parse_move("pass"),
        None
    );
}

#[test]
fn a_clone_from_any_source_is_the_one_listed_move() {
    let p = board(
        "1:0:1:0:0:0:2:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         0:0:0:0:0:0:0:
         2:0:0:0:0:0:0:",
        Side::Black,
        0,
    );
    let left = p.parse_move("0:0:1:0:").expect("legal");
    let right = p.parse_move("2:0:1:0:").expect("legal");
    assert_eq!(left, right);
    assert_eq!(p.pairs(left), 2);
    assert_eq!(
        listed(&p).iter().filter(|m| m.to() == square(1, 0)).count(),
        1
    );
    // The jump 2:0:0:0: is blocked (occupied); 0:0:2:0: too.
    assert_eq!(p.parse_move("0:0:2:0:"), None);
    assert_ne!(p.parse_move("2:0:4:0:"), None);
    for text in [" 0:0:1:0", "0:0:1:0: ", "0 : 0 : 1 : 0 :"] {
        assert_eq!(p.parse_move(text), Some(left), "{text:?}");
    }
}

#[test]
fn the_course_board_reads_lines_run_together_padded_or_with_cr() {
    let start = Ataxx::start().course_board(Side::Black);
    assert_eq!(start.lines().next(), Some("1:0:0:0:0:0:2:"));
    let messy = start
        .replace('\n', " \r\n")
        .replace("0:0:0:0:0:0:0:", "0:0:0::0:0:0:0");
    let joined = start.replace('\n', "");
    for text in [messy.as_str(), joined.as_str()] {
        let p = Ataxx::from_course_board(text, 0).expect("readable");
        assert_eq!(p.hash(), Ataxx::start().hash(), "{text:?}");
    }
    assert!(Ataxx::from_course_board("1:0:2:", 0).is_err());
    let bad = start.replacen('0', "3", 1);
    assert!(
        Ataxx::from_course_board(&bad, 0)
            .unwrap_err()
            .contains("\"3\"")
    );
}

#[test]
fn the_course_board_shows_the_side_to_move_as_one() {
    let p = board(&Ataxx::start().course_board(Side::Black), Side::White, 1);
    let text = p.course_board(Side::White);
    assert_eq!(text.lines().next(), Some("2:0:0:0:0:0:1:"));
    let q = Ataxx::from_course_board(&text, 1).expect("readable");
    assert_eq!(q.own_and_opposing(), p.own_and_opposing());
}

#[test]
fn the_evaluations_agree_on_material_and_see_a_waiting_conversion() {
    let p = Ataxx::start();
    assert_eq!(Material.evaluate(&p), 0);
    // The start is symmetric: either side to move sees the same, its move to come.
    let white = board(&p.course_board(Side::Black), Side::White, 0);
    assert_eq!(
        Positional(WEIGHTS).evaluate(&p),
        Positional(WEIGHTS).evaluate(&white)
    );
    assert!(Positional(WEIGHTS).evaluate(&p) > 0);
    // Black to move converts three at 3:3 (a jump from 1:1 or 1:5); material alone calls it even.
    let rows = "0:0:0:0:0:0:0:
                0:1:0:0:0:0:0:
                0:0:0:2:2:0:0:
                0:0:0:0:2:0:0:
                0:0:0:0:0:0:0:
                0:1:0:0:0:0:0:
                0:0:0:0:0:0:2:";
    let black = board(rows, Side::Black, 10);
    let white = board(rows, Side::White, 10);
    assert_eq!(Material.evaluate(&black), -200);
    assert!(Positional(WEIGHTS).evaluate(&black) > Material.evaluate(&black));
    assert!(Positional(WEIGHTS).evaluate(&black) > -Positional(WEIGHTS).evaluate(&white));
    // On the last ply only the count matters.
    let last = board(rows, Side::Black, PLY_LIMIT - 1);
    assert_eq!(Positional(WEIGHTS).evaluate(&last), -200);
}
