//! The moves that keep a proven value: the solver's `keeping_moves`, the search's root
//! restriction, and Breakthrough's table of solved openings that the player consults.

use std::collections::{HashMap, HashSet};

use ggp_player::agent::{Agent, AgentConfig};
use ggp_player::game::{Game, MoveBuffer, Outcome};
use ggp_player::games::breakthrough::eval::Improved;
use ggp_player::games::breakthrough::solved;
use ggp_player::games::breakthrough::spec::Breakthrough;
use ggp_player::games::breakthrough::{Board, Move, MoveList};
use ggp_player::search::{self, Limits};

use crate::search::{exhaustive_value as exhaustive, outcome_value as value_of};

fn start(size: &str, variant: &str) -> Board {
    ggp_player::spec::start::<Breakthrough>(Some(size), Some(variant)).unwrap()
}

fn legal(board: &Board) -> Vec<Move> {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    list.as_slice().to_vec()
}

fn after(board: &Board, m: Move) -> Board {
    let mut b = board.clone();
    b.make(m);
    b
}

/// The start and every position one move after it that the game goes on from.
fn openings(board: &Board) -> Vec<Board> {
    let mut all = vec![board.clone()];
    all.extend(
        legal(board)
            .into_iter()
            .map(|m| after(board, m))
            .filter(|b| ggp_player::game::result(b).is_none()),
    );
    all
}

/// The moves of `board` whose position keeps its exhaustive value, and that value.
fn keeping_by_exhaustion(board: &Board, memo: &mut HashMap<u64, i8>) -> (i8, HashSet<Move>) {
    let value = exhaustive(&mut board.clone(), memo);
    let keeping = legal(board)
        .into_iter()
        .filter(|&m| value == -1 || -exhaustive(&mut after(board, m), memo) == value)
        .collect();
    (value, keeping)
}

#[test]
fn keeping_moves_are_exactly_those_that_keep_the_exhaustive_value() {
    let mut some_move_gives_it_away = false;
    for variant in ["course", "standard"] {
        for size in ["2x5", "3x4", "4x4", "3x5", "2x6"] {
            let mut memo = HashMap::new();
            for board in openings(&start(size, variant)) {
                let (value, expected) = keeping_by_exhaustion(&board, &mut memo);
                for threads in [1, 2] {
                    let table = search::ProofTable::new(16);
                    let k = search::keeping_moves(&board, &Limits::default(), &table, threads)
                        .expect("a small board is solved");
                    assert_eq!(value_of(k.value), value, "{variant} {size}\n{board}");
                    let found: HashSet<Move> = k.moves.iter().copied().collect();
                    assert_eq!(found.len(), k.moves.len(), "no move twice");
                    assert_eq!(
                        found, expected,
                        "{variant} {size}, {threads} threads\n{board}"
                    );
                }
                some_move_gives_it_away |= expected.len() < legal(&board).len();
            }
        }
    }
    // The sets are not trivially every move.
    assert!(some_move_gives_it_away);
}

#[test]
fn keeping_moves_stop_at_the_limits() {
    let board = start("6x6", "course");
    let k = search::keeping_moves(
        &board,
        &Limits::until(std::time::Instant::now()),
        &search::ProofTable::new(4),
        1,
    );
    assert!(k.is_none());
}

#[test]
fn the_search_chooses_among_the_root_moves_it_is_given_only() {
    let board = start("6x6", "course");
    let moves = legal(&board);
    let table = search::Table::new(4);
    // Searched freely, the best move at depth 3; then each other move alone, and a pair.
    let free = search::search_with(
        &board,
        &Improved,
        &Limits::depth(3),
        &table,
        &search::Options::default(),
    );
    let best = free.best_move.unwrap();
    for &m in moves.iter().filter(|&&m| m != best) {
        for given in [vec![m], vec![m, best]] {
            let options = search::Options {
                root_moves: Some(given.iter().map(|&g| Board::move_code(g)).collect()),
                ..search::Options::default()
            };
            let table = search::Table::new(4);
            let r = search::search_with(&board, &Improved, &Limits::depth(3), &table, &options);
            let chosen = r.best_move.unwrap();
            assert!(
                given.contains(&chosen),
                "{} of {given:?}",
                board.move_name(chosen)
            );
            assert!(r.pv.first() == Some(&chosen));
        }
    }
    // Codes of no legal move leave every move to choose from.
    let options = search::Options {
        root_moves: Some(vec![u16::MAX - 1]),
        ..search::Options::default()
    };
    let r = search::search_with(&board, &Improved, &Limits::depth(3), &table, &options);
    assert!(r.best_move.is_some());
}

/// The value for white of every board `docs/results/solved.jsonl` (the table of solved
/// boards' records) holds as solved, with the line the solve printed where it was kept.
fn solved_records() -> HashMap<(String, String), (Outcome, Vec<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/results/solved.jsonl");
    let mut all = HashMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let value = match r["value"].as_str() {
            Some("win for white") => Outcome::Win,
            Some("draw") => Outcome::Draw,
            Some("win for black") => Outcome::Loss,
            _ => continue,
        };
        let moves = |key: &str| -> Vec<String> {
            r[key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| m.as_str().unwrap().to_owned())
                .collect()
        };
        let mut line = moves("line");
        if line.is_empty() {
            line = moves("line_start");
        }
        let key = (
            r["size"].as_str().unwrap().to_owned(),
            r["variant"].as_str().unwrap().to_owned(),
        );
        let known = all.entry(key).or_insert((value, Vec::new()));
        assert_eq!(known.0, value, "{r}: two records disagree");
        if !line.is_empty() {
            known.1 = line;
        }
    }
    all
}

#[test]
fn the_table_of_solved_openings_holds_what_the_solver_proves() {
    let (boards, lines) = solved::boards();
    let positions: usize = boards.iter().map(|b| b.positions).sum();
    assert_eq!(positions, lines, "every line of the table is read");
    assert!(
        boards.len() >= 40,
        "the table covers the solved boards: {}",
        boards.len()
    );
    let records = solved_records();
    let mut checked = 0;
    let mut from_lines = 0;
    for b in &boards {
        let (w, h, variant) = (b.width, b.height, b.variant);
        let size = format!("{w}x{h}");
        let root = start(&size, variant.name());
        // The start's value agrees with the table of solved boards, solved apart.
        let (white, line) = records
            .get(&(size.clone(), variant.name().to_owned()))
            .unwrap_or_else(|| panic!("{size} {variant}: tabled but not in the solved records"));
        if b.line_only {
            // One position, where the record's line is proven to keep the value: the
            // start when white does not lose, after the line's first move when black wins.
            assert_eq!(b.positions, 1, "{size} {variant}");
            let first = root.parse_move(&line[0]).unwrap();
            let (at, value, kept) = match white {
                Outcome::Loss => (after(&root, first), Outcome::Win, &line[1]),
                _ => (root.clone(), *white, &line[0]),
            };
            assert_eq!(
                at.solved(),
                Some((value, vec![at.parse_move(kept).unwrap()]))
            );
            let elsewhere = openings(&root).into_iter().filter(|o| *o != at);
            assert!(elsewhere.into_iter().all(|o| o.solved().is_none()));
            from_lines += 1;
            continue;
        }
        assert_eq!(root.solved().map(|s| s.0), Some(*white), "{size} {variant}");
        let mut memo = HashMap::new();
        for board in openings(&root) {
            // Every opening of a tabled board is there, with legal moves that keep its
            // value: all of them when it is lost, some of them otherwise.
            let (value, keeping) = board
                .solved()
                .unwrap_or_else(|| panic!("{size} {variant}: not tabled\n{board}"));
            let moves = legal(&board);
            assert!(keeping.iter().all(|m| moves.contains(m)));
            match value {
                Outcome::Loss => assert_eq!(keeping.len(), moves.len()),
                _ => assert!(!keeping.is_empty(), "{size} {variant}\n{board}"),
            }
            // On boards the solver settles at once, the table is what it proves; on the
            // smallest, what exhaustive search finds.
            if w * h <= 20 {
                let table = search::ProofTable::new(16);
                let k = search::keeping_moves(&board, &Limits::default(), &table, 1).unwrap();
                assert_eq!(k.value, value, "{size} {variant}\n{board}");
                assert_eq!(k.moves, keeping, "{size} {variant}\n{board}");
                checked += 1;
            }
            if w * h <= 12 {
                let (exhaustive, expected) = keeping_by_exhaustion(&board, &mut memo);
                assert_eq!(value_of(value), exhaustive);
                assert_eq!(keeping.iter().copied().collect::<HashSet<_>>(), expected);
            }
        }
        // Two moves in, the table says nothing.
        let twice = openings(&root)
            .into_iter()
            .skip(1)
            .flat_map(|b| legal(&b).into_iter().map(move |m| after(&b, m)))
            .find(|b| ggp_player::game::result(b).is_none());
        if let Some(b) = twice {
            assert!(b.solved().is_none(), "{size} {variant}\n{b}");
        }
    }
    assert!(checked > 100, "{checked} positions solved again");
    assert!(
        from_lines >= 3,
        "{from_lines} boards tabled from a proof's line"
    );
    // The published opening of standard 5x5 (Little Golem, 2006: black wins in 26 plies
    // after 1. a2-a3 b4xa3): the capture keeps black's win.
    let mut board = start("5x5", "standard");
    board.make(board.parse_move("(move 1 2 1 3)").unwrap());
    let (value, keeping) = board.solved().unwrap();
    assert_eq!(value, Outcome::Win);
    assert!(keeping.contains(&board.parse_move("(move 2 4 1 3)").unwrap()));
    // A board the table does not cover.
    assert!(start("10x10", "course").solved().is_none());
}

#[test]
fn the_player_keeps_every_tabled_value_where_a_plain_search_gives_some_away() {
    let mut given_away = 0;
    let boards = [
        ("3x5", "course"),
        ("5x5", "course"),
        ("6x5", "course"),
        ("4x5", "standard"),
        ("5x5", "standard"),
    ];
    for (size, variant) in boards {
        for board in openings(&start(size, variant)) {
            let (value, keeping) = board.solved().expect("tabled");
            let mut agent = Agent::new::<Breakthrough>(AgentConfig {
                eval: Some("improved"),
                hash_mb: 4,
                ..AgentConfig::default()
            });
            let choice = agent.choose(&board, &Limits::depth(4), &[]).unwrap();
            assert!(
                keeping.contains(&choice.mv),
                "{size} {variant}: {} gives away a {value:?}\n{board}",
                board.move_name(choice.mv)
            );
            // The same search without the table.
            let plain = search::search_with(
                &board,
                &Improved,
                &Limits::depth(4),
                &search::Table::new(4),
                &search::Options::default(),
            );
            given_away += usize::from(!keeping.contains(&plain.best_move.unwrap()));
        }
    }
    // Without the table, the same search gives some values away (10 of the 38 openings
    // of these boards when this was written).
    assert!(given_away > 0, "a shallow search alone gives no value away");
}

#[test]
fn the_move_sent_without_a_search_result_keeps_every_tabled_value() {
    let mut hint_gives_away = 0;
    for b in solved::boards().0 {
        let root = start(&format!("{}x{}", b.width, b.height), b.variant.name());
        for board in openings(&root) {
            let Some((_, keeping)) = board.solved() else {
                assert!(b.line_only, "not tabled\n{board}");
                continue;
            };
            assert!(keeping.contains(&search::quick_move(&board).unwrap()));
            // What the game's ordering hint alone would send.
            let hinted = legal(&board)
                .into_iter()
                .max_by_key(|&m| board.move_priority(m))
                .unwrap();
            hint_gives_away += usize::from(!keeping.contains(&hinted));
        }
    }
    assert!(hint_gives_away > 0, "the hint alone gives no value away");
}

#[test]
fn the_player_plays_the_proven_move_of_a_board_tabled_from_its_line() {
    let mut seen = 0;
    for b in solved::boards().0.into_iter().filter(|b| b.line_only) {
        let root = start(&format!("{}x{}", b.width, b.height), b.variant.name());
        for board in openings(&root) {
            let Some((value, keeping)) = board.solved() else {
                continue;
            };
            let mut agent = Agent::new::<Breakthrough>(AgentConfig {
                hash_mb: 4,
                ..AgentConfig::default()
            });
            let choice = agent.choose(&board, &Limits::depth(3), &[]).unwrap();
            assert_eq!(vec![choice.mv], keeping, "{value:?}\n{board}");
            seen += 1;
        }
    }
    assert!(seen >= 3, "{seen} positions tabled from a line");
}
