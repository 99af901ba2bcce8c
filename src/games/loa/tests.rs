//! The engine against the cross-checks of `GAMES.md` §1 and §3 and hand-built endings.

use rand::RngExt;

use super::eval::Concentration;
use super::*;
use crate::game::Evaluator;
use crate::game::perft;

fn names(p: &Loa) -> Vec<String> {
    let mut list = MoveList::default();
    p.generate_moves(&mut list);
    list.as_slice().iter().map(|&m| p.move_name(m)).collect()
}

fn nus6() -> Loa {
    Loa::start(6, NoMove::Loses, None)
}

fn cs61b8() -> Loa {
    Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT))
}

fn diagram(n: usize, rows: &str, side: Side, no_move: NoMove, limit: Option<u32>) -> Loa {
    Loa::from_diagram(n, rows, side, no_move, limit).expect("a valid diagram")
}

fn play(p: &mut Loa, name: &str) {
    let m = p
        .parse_move(name)
        .unwrap_or_else(|| panic!("{name} is legal in\n{p}"));
    p.make(m);
}

#[test]
fn perft_from_the_6x6_start() {
    let mut p = nus6();
    for (depth, count) in [(1, 24), (2, 524), (3, 11_440), (4, 234_560)] {
        assert_eq!(perft(&mut p, depth), count, "depth {depth}");
    }
}

#[test]
fn perft_from_the_8x8_start() {
    let mut p = cs61b8();
    for (depth, count) in [(1, 36), (2, 1_244), (3, 44_952)] {
        assert_eq!(perft(&mut p, depth), count, "depth {depth}");
    }
}

#[test]
fn the_nus_example_d1b3_is_legal_from_the_start() {
    let p = nus6();
    assert!(names(&p).contains(&"d1-b3".to_owned()));
    assert_eq!(p.move_name(p.parse_move("D1B3").unwrap()), "d1-b3");
}

const BOARD1: &str = "
    - b b b - b b -
    - - - - - - - -
    w - - - b - - w
    w - w w - w - -
    w - b - - w - -
    w - - - b b - w
    w - - - - - - w
    - b - b b - - -";

#[test]
fn board1_has_37_black_moves_and_f3_exactly_four() {
    let p = diagram(8, BOARD1, Side::Black, NoMove::Passes, Some(60));
    let all = names(&p);
    assert_eq!(all.len(), 37, "{all:?}");
    let mut f3: Vec<&str> = all
        .iter()
        .filter(|m| m.starts_with("f3-"))
        .map(|m| m.as_str())
        .collect();
    f3.sort_unstable();
    assert_eq!(f3, ["f3-b3", "f3-d5", "f3-h1", "f3-h5"]);
    assert!(p.parse_move("f3-d5").unwrap().is_capture());
    for illegal in ["f3-d1", "f3-h3", "f3-e4", "c4-c7", "b1-b4"] {
        assert_eq!(p.parse_move(illegal), None, "{illegal}");
    }
}

#[test]
fn make_unmake_and_the_incremental_hash_along_random_games() {
    let mut rng = crate::rng::seeded(Some(12));
    for start in [nus6(), cs61b8()] {
        for _ in 0..200 {
            let mut p = start.clone();
            let mut line = Vec::new();
            let mut list = MoveList::default();
            while p.decided().is_none() {
                p.generate_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                let before = (p.pieces, p.side, p.ply, p.hash());
                for &m in list.as_slice() {
                    p.make(m);
                    assert_eq!(p.zobrist, p.zobrist_from_scratch());
                    p.unmake(m);
                    assert_eq!((p.pieces, p.side, p.ply, p.hash()), before);
                }
                let m = list.as_slice()[rng.random_range(..list.len())];
                p.make(m);
                line.push(m);
                if line.len() > 300 {
                    break;
                }
            }
            while let Some(m) = line.pop() {
                p.unmake(m);
            }
            assert_eq!((p.pieces, p.side, p.ply), (start.pieces, start.side, 0));
            assert_eq!(p.hash(), start.hash());
        }
    }
}

#[test]
fn the_hash_covers_the_ply_count_only_under_a_limit() {
    let mut limited = cs61b8();
    let mut free = Loa::start(8, NoMove::Passes, None);
    let h = (limited.hash(), free.hash());
    for name in ["b1-b3", "a2-c2", "b3-b1", "c2-a2"] {
        play(&mut limited, name);
        play(&mut free, name);
    }
    assert_ne!(limited.hash(), h.0);
    assert_eq!(free.hash(), h.1);
}

#[test]
fn the_nus_reconstructed_example_b2e5_wins() {
    let p = diagram(
        6,
        "......
         .X...O
         .O....
         .O.XX.
         .O.XO.
         ......",
        Side::Black,
        NoMove::Loses,
        None,
    );
    assert!(names(&p).contains(&"b2-d2".to_owned()));
    assert_eq!(p.parse_move("B2B6"), None);
    let mut p = p;
    play(&mut p, "B2E5");
    assert_eq!(p.decided(), Some(Outcome::Loss));
}

#[test]
fn a_move_that_connects_both_sides_wins_for_the_mover() {
    // a1 takes c1, white's stray: white {g8, h8} and black {c1, d2} are both one group.
    let mut p = diagram(
        8,
        "------ww
         --------
         --------
         --------
         --------
         --------
         ---b----
         b-w-----",
        Side::Black,
        NoMove::Passes,
        Some(60),
    );
    assert_eq!(p.decided(), None);
    play(&mut p, "a1-c1");
    assert!(p.connected(Side::Black) && p.connected(Side::White));
    assert_eq!(p.decided(), Some(Outcome::Loss), "white to move has lost");
}

#[test]
fn a_move_that_connects_only_the_opponent_loses() {
    let mut p = diagram(
        8,
        "------ww
         --------
         --------
         -----b--
         --------
         --------
         --------
         b-w-----",
        Side::Black,
        NoMove::Passes,
        Some(60),
    );
    assert_eq!(p.decided(), None);
    play(&mut p, "a1-c1");
    assert!(!p.connected(Side::Black) && p.connected(Side::White));
    assert_eq!(p.decided(), Some(Outcome::Win), "white to move has won");
}

#[test]
fn a_side_of_one_piece_is_connected() {
    // a1 takes c1, white's second-last piece; white's last one is a group of one.
    let mut p = diagram(
        6,
        "b.w...
         ......
         ......
         ....b.
         ......
         .....w",
        Side::Black,
        NoMove::Loses,
        None,
    );
    play(&mut p, "a1-c1");
    assert_eq!(p.decided(), Some(Outcome::Win), "white to move has won");
}

/// Black on two corners, each walled in by white pieces it may not pass.
fn walled_in(n: usize, no_move: NoMove, limit: Option<u32>) -> Loa {
    let bit = |c: usize, r: usize| 1u64 << (r * n + c);
    let black = bit(0, 0) | bit(n - 1, n - 1);
    let white = bit(1, 0)
        | bit(0, 1)
        | bit(1, 1)
        | bit(n - 2, n - 1)
        | bit(n - 1, n - 2)
        | bit(n - 2, n - 2);
    Loa::from_bits(n, black, white, Side::Black, no_move, limit)
}

#[test]
fn on_8x8_a_side_without_moves_passes() {
    let mut p = walled_in(8, NoMove::Passes, Some(60));
    assert_eq!(p.decided(), None);
    let mut list = MoveList::default();
    p.generate_moves(&mut list);
    assert_eq!(list.as_slice(), [Move::PASS]);
    assert_eq!(p.move_name(Move::PASS), "pass");
    assert_eq!(p.parse_move("pass"), Some(Move::PASS));
    let before = p.hash();
    p.make(Move::PASS);
    assert_eq!((p.side_to_move(), p.ply()), (Side::White, 1));
    assert_ne!(p.hash(), before);
    assert!(!names(&p).is_empty() && !names(&p).contains(&"pass".to_owned()));
    p.unmake(Move::PASS);
    assert_eq!(
        (p.side_to_move(), p.ply(), p.hash()),
        (Side::Black, 0, before)
    );
}

#[test]
fn on_6x6_a_side_without_moves_loses() {
    let p = walled_in(6, NoMove::Loses, None);
    assert_eq!(p.decided(), None);
    assert!(names(&p).is_empty());
    assert_eq!(crate::game::result(&p), Some(Outcome::Loss));
}

#[test]
fn the_game_is_a_tie_after_60_plies_but_a_win_on_the_last_ply_counts() {
    // Black a1, b3; white a8, h1: a1-a3 joins black, b3-c3 does not.
    let rows = "w-------
                --------
                --------
                --------
                --------
                -b------
                --------
                b------w";
    let mut p = diagram(8, rows, Side::Black, NoMove::Passes, Some(DEFAULT_LIMIT));
    p.set_ply(59);
    let mut tie = p.clone();
    play(&mut tie, "b3-c3");
    assert_eq!(tie.decided(), Some(Outcome::Draw));
    let mut win = p.clone();
    play(&mut win, "a1-a3");
    assert_eq!(win.decided(), Some(Outcome::Loss), "black won on ply 60");
    // One ply earlier the same quiet move leaves the game going.
    p.set_ply(58);
    play(&mut p, "b3-c3");
    assert_eq!(p.decided(), None);

    // `limit 5` is 10 plies: ten quiet plies from the start end in a tie.
    let mut p = cs61b8();
    p.set_limit(Some(10));
    for name in [
        "b1-b3", "a2-c2", "b3-b1", "c2-a2", "b1-b3", "a2-c2", "b3-b1", "c2-a2", "b1-b3",
    ] {
        play(&mut p, name);
        assert_eq!(p.decided(), None);
    }
    play(&mut p, "a2-c2");
    assert_eq!(p.decided(), Some(Outcome::Draw));
}

#[test]
fn the_concentration_evaluation_prefers_gathered_pieces() {
    let p = diagram(
        6,
        "XX....
         XX...O
         ......
         ......
         O.....
         .....O",
        Side::Black,
        NoMove::Loses,
        None,
    );
    assert!(Concentration.evaluate(&p) > 0);
    assert_eq!(Concentration.evaluate(&nus6()), 0);
}
