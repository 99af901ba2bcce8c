//! The Breakthrough rules: perft against the reference values (`tests/data/perft.txt`),
//! hand-worked positions, and make/unmake invariants on every board size.

use ggp_player::games::breakthrough::{Board, BoardSize, Color, MoveList, Variant, perft::perft};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::reference_dir;

/// The perft values the tests check, `tests/data/perft.txt`: `(variant, size, counts)`.
fn perft_table() -> Vec<(Variant, BoardSize, Vec<u64>)> {
    include_str!("data/perft.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let mut words = line.split_whitespace();
            let variant = match words.next() {
                Some("course") => Variant::Course,
                Some("standard") => Variant::Standard,
                other => panic!("perft.txt: unknown variant {other:?}"),
            };
            let size = words.next().unwrap().parse().unwrap();
            let counts = words.map(|w| w.parse().unwrap()).collect();
            (variant, size, counts)
        })
        .collect()
}

/// The course rules' rows of the table.
fn reference_perft() -> Vec<(BoardSize, Vec<u64>)> {
    perft_table()
        .into_iter()
        .filter(|(v, _, _)| *v == Variant::Course)
        .map(|(_, size, counts)| (size, counts))
        .collect()
}

#[test]
fn perft_matches_every_reference_value() {
    let rows = reference_perft();
    assert_eq!(rows.len(), 3, "expected the 3x5, 5x5 and 8x8 rows");
    let mut checked = 0;
    for (size, values) in rows {
        let mut board = Board::new(size);
        for (i, &expected) in values.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(perft(&mut board, depth), expected, "perft({size}, {depth})");
            checked += 1;
        }
        assert_eq!(
            board,
            Board::new(size),
            "perft must leave the board unchanged"
        );
    }
    assert_eq!(checked, 10 + 9 + 9);
}

/// The table in `tests/data/perft.txt` says what the course's `perft.md` says, read
/// from its rows `| 3×5 | 3 | 10 | … |` and its standard line `8×8: 22, 484, …`.
#[test]
fn perft_data_matches_the_course_table() {
    let Some(dir) = reference_dir() else {
        return;
    };
    let path = dir.join("perft.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            continue;
        }
        let Ok(size) = cells[1].replace('×', "x").parse::<BoardSize>() else {
            continue;
        };
        let values: Vec<u64> = cells[2..]
            .iter()
            .filter(|c| !c.is_empty())
            .map(|c| c.parse().unwrap())
            .collect();
        rows.push((size, values));
    }
    assert_eq!(rows, reference_perft());
    let after = &text[text
        .find("standard rules")
        .expect("the standard rules' values")..];
    let list = &after[after.find("8×8:").expect("an 8×8 list") + "8×8:".len()..];
    let list = &list[..list.find('(').expect("the depths in parentheses")];
    let standard: Vec<u64> = list
        .split(',')
        .map(|v| v.split_whitespace().collect::<String>().parse().unwrap())
        .collect();
    assert_eq!(standard, reference_standard_perft());
}

fn moves_of(board: &Board) -> Vec<(u8, u8, u8, u8)> {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    let mut v: Vec<_> = list.iter().map(|m| board.move_coords(m)).collect();
    v.sort();
    v
}

/// The standard variant's 8x8 values.
fn reference_standard_perft() -> Vec<u64> {
    let size = BoardSize::new(8, 8).unwrap();
    perft_table()
        .into_iter()
        .find(|(v, s, _)| *v == Variant::Standard && *s == size)
        .map(|(_, _, counts)| counts)
        .expect("the standard 8x8 row")
}

#[test]
fn standard_variant_perft_matches_the_reference_to_depth_5() {
    let values = reference_standard_perft();
    assert!(values.len() >= 5, "{values:?}");
    assert_eq!(&values[..5], &[22, 484, 11132, 256036, 6182818]);
    let size = BoardSize::new(8, 8).unwrap();
    let mut board = Board::with_variant(size, Variant::Standard);
    for (i, &expected) in values.iter().take(5).enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(
            perft(&mut board, depth),
            expected,
            "standard perft(8x8, {depth})"
        );
    }
    assert_eq!(board, Board::with_variant(size, Variant::Standard));
    assert_eq!(board.variant(), Variant::Standard);
    assert_eq!(Board::new(size).variant(), Variant::Course);
}

#[test]
fn standard_variant_steps_diagonally_onto_empty_squares_too() {
    // The course test position below: the standard variant adds the diagonal (2,2)->(3,3).
    let course = Board::from_diagram(
        "....
         ..B.
         BB..
         .W..
         ....",
        Color::White,
    )
    .unwrap();
    let board = course.clone().into_variant(Variant::Standard);
    assert_eq!(moves_of(&board), vec![(2, 2, 1, 3), (2, 2, 3, 3)]);
    let capture = board.find_move(2, 2, 1, 3).unwrap();
    let quiet = board.find_move(2, 2, 3, 3).unwrap();
    assert!(capture.is_capture() && !quiet.is_capture());
    assert_eq!(course.find_move(2, 2, 3, 3), None);
    // Black: (1,3) down to (1,2), capture (2,2); (2,3) onto the empty (1,2) and (3,2);
    // (3,4) down to (3,3) and diagonally to (4,3) and (2,3)? (2,3) is black's own.
    let black = Board::from_parts(
        *board.geometry(),
        [board.pawns(Color::White), board.pawns(Color::Black)],
        Color::Black,
    );
    assert_eq!(
        moves_of(&black),
        vec![
            (1, 3, 1, 2),
            (1, 3, 2, 2),
            (2, 3, 1, 2),
            (2, 3, 3, 2),
            (3, 4, 3, 3),
            (3, 4, 4, 3)
        ]
    );
    assert_eq!(black.count_moves(), 6);
    // A quiet diagonal move is made and taken back like any other, and can win.
    let mut b = board.clone();
    b.make(quiet);
    assert_eq!(b.pawns(Color::Black), board.pawns(Color::Black));
    b.unmake(quiet);
    assert_eq!(b, board);
    let near = Board::from_diagram(
        ".B..
         W...
         ....
         ....
         ..B.",
        Color::White,
    )
    .unwrap()
    .into_variant(Variant::Standard);
    let win = near.find_move(1, 4, 2, 5).unwrap();
    assert!(win.is_capture() && near.is_winning_move(win));
    // Squares held by its own side are never targets: the row-2 pawns cannot move.
    let crowded = Board::from_diagram(
        "...
         WWW
         WWW
         ...",
        Color::White,
    )
    .unwrap()
    .into_variant(Variant::Standard);
    assert_eq!(
        moves_of(&crowded),
        vec![
            (1, 3, 1, 4),
            (1, 3, 2, 4),
            (2, 3, 1, 4),
            (2, 3, 2, 4),
            (2, 3, 3, 4),
            (3, 3, 2, 4),
            (3, 3, 3, 4)
        ]
    );
    let edge = Board::from_diagram(
        "...
         ...
         W..
         ...",
        Color::White,
    )
    .unwrap()
    .into_variant(Variant::Standard);
    assert_eq!(moves_of(&edge), vec![(1, 2, 1, 3), (1, 2, 2, 3)]);
    assert!(edge.has_moves());
}

#[test]
fn diagonal_moves_only_capture_and_straight_moves_need_an_empty_square() {
    // 4x5. White pawn at (2,2); black at (1,3) and (2,3); (3,3) empty.
    let board = Board::from_diagram(
        "....
         ..B.
         BB..
         .W..
         ....",
        Color::White,
    )
    .unwrap();
    // Blocked straight ahead, no diagonal onto the empty (3,3): only the capture.
    assert_eq!(moves_of(&board), vec![(2, 2, 1, 3)]);
    // Black: (1,3) down to (1,2) or capture (2,2); (2,3) blocked? (2,2) is white: capture
    // diagonals (1,2) empty and (3,2) empty are not moves; (3,4) forward to (3,3).
    let mut black = board.clone();
    black = Board::from_parts(
        *black.geometry(),
        [black.pawns(Color::White), black.pawns(Color::Black)],
        Color::Black,
    );
    assert_eq!(
        moves_of(&black),
        vec![(1, 3, 1, 2), (1, 3, 2, 2), (3, 4, 3, 3)]
    );
}

#[test]
fn captures_at_both_edges_of_the_board() {
    let board = Board::from_diagram(
        "...
         B.B
         .W.
         ...",
        Color::White,
    )
    .unwrap();
    assert_eq!(
        moves_of(&board),
        vec![(2, 2, 1, 3), (2, 2, 2, 3), (2, 2, 3, 3)]
    );
    // Pawns on the edges do not wrap around to the other side.
    let edge = Board::from_diagram(
        "...
         ..B
         W..
         ...",
        Color::White,
    )
    .unwrap();
    assert_eq!(moves_of(&edge), vec![(1, 2, 1, 3)]);
    let edge_black = Board::from_diagram(
        "...
         B..
         ..W
         ...",
        Color::Black,
    )
    .unwrap();
    assert_eq!(moves_of(&edge_black), vec![(1, 3, 1, 2)]);
}

#[test]
fn side_without_legal_moves_draws() {
    // White's only pawn is blocked head-on; no captures: white to move has no move.
    let board = Board::from_diagram(
        "...
         .B.
         .W.
         ...",
        Color::White,
    )
    .unwrap();
    assert!(moves_of(&board).is_empty());
    assert_eq!(board.result(), Some(None));
    assert_eq!(board.goals(), Some([50, 50]));
    // Black to move in the same position is blocked as well.
    let black = Board::from_parts(
        *board.geometry(),
        [board.pawns(Color::White), board.pawns(Color::Black)],
        Color::Black,
    );
    assert_eq!(black.goals(), Some([50, 50]));
    // Losing every pawn is a draw too, not a loss.
    let empty_side = Board::from_diagram(
        "...
         .B.
         ...
         ...",
        Color::White,
    )
    .unwrap();
    assert_eq!(empty_side.goals(), Some([50, 50]));
    // ...but only when that side is to move.
    let black_to_move = Board::from_parts(
        *empty_side.geometry(),
        [0, empty_side.pawns(Color::Black)],
        Color::Black,
    );
    assert_eq!(black_to_move.goals(), None);
}

#[test]
fn reaching_the_far_row_wins_for_either_side() {
    let mut board = Board::from_diagram(
        "....
         ..W.
         ....
         .B..
         ....",
        Color::White,
    )
    .unwrap();
    let m = board.find_move(3, 4, 3, 5).expect("white steps onto row 5");
    assert!(board.is_winning_move(m));
    board.make(m);
    assert_eq!(board.winner(), Some(Color::White));
    assert_eq!(board.goals(), Some([100, 0]));
    board.unmake(m);
    assert_eq!(board.goals(), None);

    let mut board = Board::from_parts(
        *board.geometry(),
        [board.pawns(Color::White), board.pawns(Color::Black)],
        Color::Black,
    );
    let m = board.find_move(2, 2, 2, 1).expect("black steps onto row 1");
    board.make(m);
    assert_eq!(board.goals(), Some([0, 100]));
    // A capture onto the goal row wins as well.
    let mut capture = Board::from_diagram(
        "....
         ....
         ....
         ..B.
         .W..",
        Color::Black,
    )
    .unwrap();
    let m = capture.find_move(3, 2, 2, 1).expect("capture onto row 1");
    assert!(m.is_capture());
    capture.make(m);
    assert_eq!(capture.pawns(Color::White), 0);
    assert_eq!(capture.goals(), Some([0, 100]));
}

#[test]
fn start_position_has_one_straight_move_per_column_on_every_size() {
    for size in BoardSize::all() {
        let board = Board::new(size);
        let moves = moves_of(&board);
        let expected: Vec<_> = (1..=size.width()).map(|x| (x, 2, x, 3)).collect();
        if size.height() == 4 {
            // Rows 2 and 3 touch: white can only capture diagonally.
            assert!(moves.iter().all(|&(x1, _, x2, _)| x1 != x2), "{size}");
            assert_eq!(moves.len(), 2 * (size.width() as usize - 1), "{size}");
        } else {
            assert_eq!(moves, expected, "{size}");
        }
    }
}

#[test]
fn make_unmake_and_incremental_hash_on_random_games_of_every_size() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for size in BoardSize::all() {
        for game in 0..20 {
            let variant = if game % 2 == 0 {
                Variant::Course
            } else {
                Variant::Standard
            };
            let mut board = Board::with_variant(size, variant);
            let mut history = Vec::new();
            while board.winner().is_none() {
                let mut list = MoveList::default();
                board.generate_moves(&mut list);
                let moves: Vec<_> = list.iter().collect();
                let Some(&m) = moves.choose(&mut rng) else {
                    break;
                };
                history.push((board.clone(), m));
                board.make(m);
                let fresh = Board::from_parts(
                    *board.geometry(),
                    [board.pawns(Color::White), board.pawns(Color::Black)],
                    board.side_to_move(),
                );
                assert_eq!(board.hash(), fresh.hash(), "incremental hash on {size}");
                assert_eq!(board.pawns(Color::White) & board.pawns(Color::Black), 0);
            }
            assert!(board.goals().is_some(), "a game ends with goals");
            while let Some((before, m)) = history.pop() {
                board.unmake(m);
                assert_eq!(board, before, "unmake restores the position on {size}");
            }
        }
    }
}

/// The solvers key a position and its mirror image alike (`Game::mirror_hash`): that
/// is sound only if the mirror hash is the mirror image's hash and the mirror image's
/// moves are the moves' mirror images, on every size and under both rules.
#[test]
fn mirror_images_hash_and_move_as_the_game_says_on_random_games_of_every_size() {
    use ggp_player::game::Game;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let codes = |board: &Board| {
        let mut list = MoveList::default();
        board.generate_moves(&mut list);
        let mut codes: Vec<u16> = list.iter().map(|m| m.code()).collect();
        codes.sort_unstable();
        codes
    };
    let mut asymmetric = 0;
    for size in BoardSize::all() {
        for variant in [Variant::Course, Variant::Standard] {
            let mut board = Board::with_variant(size, variant);
            loop {
                let mirror = board.mirrored();
                assert_eq!(board.mirror_hash(), Some(mirror.hash()), "{size}\n{board}");
                assert_eq!(mirror.mirrored(), board, "mirroring twice on {size}");
                let mut mirrored_codes: Vec<u16> = {
                    let mut list = MoveList::default();
                    board.generate_moves(&mut list);
                    list.iter().map(|m| board.mirror_code(m.code())).collect()
                };
                mirrored_codes.sort_unstable();
                assert_eq!(mirrored_codes, codes(&mirror), "{size}\n{board}");
                if mirror != board {
                    asymmetric += 1;
                    assert_ne!(board.hash(), mirror.hash(), "{size}\n{board}");
                }
                if board.winner().is_some() {
                    break;
                }
                let mut list = MoveList::default();
                board.generate_moves(&mut list);
                let moves: Vec<_> = list.iter().collect();
                let Some(&m) = moves.choose(&mut rng) else {
                    break;
                };
                board.make(m);
            }
        }
    }
    assert!(
        asymmetric > 1000,
        "only {asymmetric} asymmetric positions met"
    );
}
