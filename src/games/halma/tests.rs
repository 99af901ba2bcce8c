//! The engine against the cross-checks of `GAMES.md` §4.5 and hand-built positions.

use rand::RngExt;

use super::protocol::{EXAMPLES, Input};
use super::*;
use crate::game::{perft, result};

fn legal(p: &Halma) -> Vec<Move> {
    let mut list = MoveList::default();
    p.generate_moves(&mut list);
    list.as_slice().to_vec()
}

fn example(i: usize) -> Halma {
    Input::parse(EXAMPLES[i].0)
        .expect("the example reads")
        .position
}

/// A position from 16 rows of `B`, `W`, `.`.
fn board(rows: &str, side: Side) -> Halma {
    let text = format!("SINGLE\n{}\n10\n{rows}", side.word());
    Input::parse(&text).expect("a valid board").position
}

fn sq(x: usize, y: usize) -> usize {
    y * 16 + x
}

/// Every (from, to) of a play, found by following single jumps square by square (no
/// bitboards): the reference the flood fill is checked against.
fn reference_destinations(p: &Halma, from: usize) -> Vec<usize> {
    let occ = |s: usize| p.occupied().has(s) && s != from;
    let (fx, fy) = xy(from);
    let mut out = Vec::new();
    let on = |x: i32, y: i32| (0..16).contains(&x) && (0..16).contains(&y);
    for (dx, dy) in bits::DIRS {
        let (x, y) = (fx + dx, fy + dy);
        if on(x, y) && !occ(sq(x as usize, y as usize)) {
            out.push(sq(x as usize, y as usize));
        }
    }
    let mut seen = vec![from];
    let mut stack = vec![from];
    while let Some(s) = stack.pop() {
        let (x, y) = xy(s);
        for (dx, dy) in bits::DIRS {
            let (ox, oy, lx, ly) = (x + dx, y + dy, x + 2 * dx, y + 2 * dy);
            if !on(lx, ly) {
                continue;
            }
            let (over, land) = (sq(ox as usize, oy as usize), sq(lx as usize, ly as usize));
            if occ(over) && !occ(land) && !seen.contains(&land) {
                seen.push(land);
                stack.push(land);
                out.push(land);
            }
        }
    }
    out
}

/// The legal plays by the rules of `GAMES.md` §4.2 written out directly.
fn reference_legal(p: &Halma) -> Vec<(usize, usize)> {
    let side = p.side_to_move();
    let home = HOME[side.index()];
    let goal = goal(side);
    let (cx, cy) = side.home_corner();
    let mut all = Vec::new();
    for from in p.pieces(side).iter() {
        for to in reference_destinations(p, from) {
            let returns_home = !home.has(from) && home.has(to);
            let leaves_goal = goal.has(from) && !goal.has(to);
            if !returns_home && !leaves_goal {
                all.push((from, to));
            }
        }
    }
    if (p.pieces(side) & home).is_empty() {
        return all;
    }
    let out: Vec<_> = all
        .iter()
        .copied()
        .filter(|&(f, t)| home.has(f) && !home.has(t))
        .collect();
    if !out.is_empty() {
        return out;
    }
    let farther: Vec<_> = all
        .iter()
        .copied()
        .filter(|&(f, t)| {
            let ((fx, fy), (tx, ty)) = (xy(f), xy(t));
            let (dx, dy) = ((fx - cx).abs(), (fy - cy).abs());
            let (ex, ey) = ((tx - cx).abs(), (ty - cy).abs());
            home.has(f) && home.has(t) && ((ex > dx && ey >= dy) || (ey > dy && ex >= dx))
        })
        .collect();
    if !farther.is_empty() {
        return farther;
    }
    all
}

fn sorted_pairs(moves: &[Move]) -> Vec<(usize, usize)> {
    let mut v: Vec<_> = moves.iter().map(|m| (m.from(), m.to())).collect();
    v.sort_unstable();
    v
}

#[test]
fn the_camps_have_19_squares_and_mirror_each_other() {
    assert_eq!(HOME[0].count(), 19);
    assert_eq!(HOME[1].count(), 19);
    for s in HOME[0].iter() {
        assert!(HOME[1].has(255 - s));
    }
    for (x, y) in [(4, 0), (4, 1), (3, 2), (2, 3), (1, 4), (0, 4)] {
        assert!(HOME[0].has(sq(x, y)), "{x},{y}");
    }
    for (x, y) in [(5, 0), (4, 2), (3, 3), (2, 4), (0, 5)] {
        assert!(!HOME[0].has(sq(x, y)), "{x},{y}");
    }
}

#[test]
fn white_has_40_plays_from_the_start_all_leaving_home() {
    let p = Halma::start();
    assert_eq!(p.side_to_move(), Side::White);
    let moves = legal(&p);
    assert_eq!(moves.len(), 40);
    assert!(moves.iter().all(|m| !HOME[1].has(m.to())));
    assert_eq!(sorted_pairs(&moves), {
        let mut r = reference_legal(&p);
        r.sort_unstable();
        r
    });
    // Black, by symmetry, has as many.
    let black = Halma::from_bits(HOME[0], HOME[1], Side::Black).unwrap();
    assert_eq!(legal(&black).len(), 40);
}

#[test]
fn the_handout_examples_have_17_20_and_49_plays_and_their_answers_are_legal() {
    for (i, count) in [(0, 17), (1, 20), (2, 49)] {
        let p = example(i);
        let moves = legal(&p);
        assert_eq!(moves.len(), count, "example {}", i + 1);
        let mut r = reference_legal(&p);
        r.sort_unstable();
        assert_eq!(sorted_pairs(&moves), r, "example {}", i + 1);
        let answer = p
            .parse_play(EXAMPLES[i].1)
            .unwrap_or_else(|e| panic!("example {}: {e}", i + 1));
        // The answer's chain is the one written out.
        assert_eq!(p.output_lines(answer), EXAMPLES[i].1);
        let mut after = p.clone();
        after.make(answer);
        let wins = after.decided() == Some(Outcome::Loss);
        assert_eq!(wins, i < 2, "example {}", i + 1);
        assert_eq!(p.winning_move().is_some(), i < 2, "example {}", i + 1);
        assert_eq!(p.move_priority(answer) >= TACTICAL_PRIORITY, i < 2);
    }
}

#[test]
fn example_1_wins_by_filling_the_camp_with_a_black_piece_in_it() {
    // White's goal (Black's home) is full but for 3,2; a Black piece on 4,1 would still
    // leave White the win (the unspoiling rule).
    let mut p = example(0);
    p.make(p.parse_play("E 4,3 3,2").unwrap());
    assert!(p.has_won(Side::White));
    assert_eq!(result(&p), Some(Outcome::Loss));
}

#[test]
fn chains_do_not_revisit_squares() {
    // A White piece on 5,5 with Black pieces on 6,6 and 8,8 jumps to 7,7 and on to 9,9;
    // jumping back to 5,5 would revisit its start.
    let rows = "\
................
................
................
................
................
.....W..........
......B.........
................
........B.......
................
................
................
................
................
................
................
";
    let p = board(rows, Side::White);
    let from = sq(5, 5);
    let mut to: Vec<usize> = legal(&p)
        .iter()
        .filter(|m| m.from() == from && !m.is_step())
        .map(|m| m.to())
        .collect();
    to.sort_unstable();
    assert_eq!(to, [sq(7, 7), sq(9, 9)]);
    let m = p.parse_move("J 5,5 9,9").unwrap();
    assert_eq!(p.chain(m), [sq(5, 5), sq(7, 7), sq(9, 9)]);
    assert_eq!(p.output_lines(m), "J 5,5 7,7\nJ 7,7 9,9\n");
    assert_eq!(p.move_path(p.parse_move("J 5,5 7,7").unwrap()), None);
    // Landing on the start square again is a revisit, and a jump over an empty square
    // or over two pieces is no jump.
    assert!(p.parse_play("J 5,5 7,7\nJ 7,7 5,5").is_err());
    assert!(p.parse_play("J 5,5 5,7").is_err());
    assert!(p.parse_play("J 5,5 7,7\nJ 8,8 9,9").is_err());
    assert!(p.parse_play("E 5,5 7,7").is_err());
    assert!(p.parse_play("E 5,5 6,5").is_ok());
    // The page's cells (row y, column x) of every landing of a chain along row 5.
    let row = "..WB.B..........";
    let rows = format!(
        "{}{row}\n{}",
        "................\n".repeat(5),
        "................\n".repeat(10)
    );
    let p = board(&rows, Side::White);
    let m = p.parse_move("J 2,5 6,5").unwrap();
    assert_eq!(p.move_path(m), Some(vec![[5, 2], [5, 4], [5, 6]]));
}

#[test]
fn the_lifted_piece_cannot_be_jumped_over() {
    // White on 5,5 and Black on 6,5: after jumping to 7,5 the piece could only come
    // back over 6,5 to its own, now empty, start; and Black on 4,5 beyond its start
    // cannot be reached through it.
    let rows = "\
................
................
................
................
................
....BWB.........
................
................
................
................
................
................
................
................
................
................
";
    let p = board(rows, Side::White);
    let jumps: Vec<String> = legal(&p)
        .into_iter()
        .filter(|m| !m.is_step())
        .map(|m| p.move_name(m))
        .collect();
    assert_eq!(jumps.len(), 2, "{jumps:?}");
    assert!(jumps.contains(&"J 5,5 7,5".to_owned()), "{jumps:?}");
    assert!(jumps.contains(&"J 5,5 3,5".to_owned()), "{jumps:?}");
}

#[test]
fn forced_evacuation_prefers_leaving_then_moving_farther_then_anything() {
    // White's home is the bottom-right camp. Four White pieces in it with room to step
    // out: only plays leaving home are allowed.
    let rows = "\
................
................
................
................
................
.......B........
................
................
................
................
................
................
..............WW
..............WW
................
................
";
    let p = board(rows, Side::White);
    let moves = legal(&p);
    assert!(!moves.is_empty());
    assert!(
        moves
            .iter()
            .all(|m| HOME[1].has(m.from()) && !HOME[1].has(m.to()))
    );
    assert!(
        p.parse_move("E 14,12 14,11").is_none(),
        "a step within home"
    );
    let mut r = reference_legal(&p);
    r.sort_unstable();
    assert_eq!(sorted_pairs(&moves), r);

    // A lone White piece on 14,14 cannot leave home in one play: only the steps farther
    // from the corner 15,15 on one axis and not nearer on the other remain.
    let mut rows: Vec<String> = vec![".".repeat(16); 16];
    rows[5].replace_range(7..8, "B");
    rows[14].replace_range(14..15, "W");
    let p = board(&(rows.join("\n") + "\n"), Side::White);
    let mut names: Vec<String> = legal(&p).iter().map(|&m| p.move_name(m)).collect();
    names.sort_unstable();
    assert_eq!(names, ["E 14,14 13,13", "E 14,14 13,14", "E 14,14 14,13"]);

    // Boxed into the corner with no play at all, the home piece leaves the choice to
    // the others: every play of the piece on 7,7.
    let rows = "\
................
................
................
................
................
................
................
.......W........
................
................
................
................
................
.............B.B
.............BBB
.............BBW
";
    let p = board(rows, Side::White);
    let moves = legal(&p);
    assert_eq!(moves.len(), 8);
    assert!(moves.iter().all(|m| m.from() == sq(7, 7)));
}

#[test]
fn no_return_home_and_no_leaving_the_goal() {
    // A White piece just outside its home may not step back in; a White piece in its
    // goal (top-left) may not leave it.
    let rows = "\
W...............
................
................
................
................
................
................
................
................
................
.............W..
................
................
................
................
B...............
";
    let p = board(rows, Side::White);
    for m in legal(&p) {
        assert!(!HOME[1].has(m.to()), "{}", p.move_name(m));
        if m.from() == 0 {
            assert!(HOME[0].has(m.to()), "{}", p.move_name(m));
        }
    }
    assert!(p.parse_move("E 13,10 14,11").is_none());
    assert!(p.parse_move("E 13,10 13,11").is_some());
    assert!(p.parse_move("E 0,0 1,1").is_some());
    assert!(p.parse_move("E 0,0 0,1").is_some());
}

#[test]
fn generation_matches_the_reference_along_random_games() {
    let mut rng = crate::rng::seeded(Some(14));
    for _ in 0..20 {
        let mut p = Halma::start();
        for _ in 0..200 {
            let moves = legal(&p);
            let mut r = reference_legal(&p);
            r.sort_unstable();
            assert_eq!(sorted_pairs(&moves), r, "\n{p}");
            assert_eq!(p.has_moves(), !moves.is_empty());
            if moves.is_empty() || p.decided().is_some() {
                break;
            }
            p.make(moves[rng.random_range(..moves.len())]);
        }
    }
}

#[test]
fn make_unmake_and_the_incremental_hash_along_random_games() {
    let mut rng = crate::rng::seeded(Some(15));
    for _ in 0..20 {
        let start = Halma::start();
        let mut p = start.clone();
        let mut line = Vec::new();
        while p.decided().is_none() && line.len() < 300 {
            let moves = legal(&p);
            if moves.is_empty() {
                break;
            }
            let before = p.clone();
            for &m in &moves {
                p.make(m);
                assert_eq!(p.hash(), p.zobrist_from_scratch());
                // Every listed play has a chain that the course's notation reads back.
                let mut parent = p.clone();
                parent.unmake(m);
                assert_eq!(parent.parse_play(&parent.output_lines(m)), Ok(m));
                p.unmake(m);
                assert_eq!(p, before);
            }
            let m = moves[rng.random_range(..moves.len())];
            p.make(m);
            line.push(m);
        }
        while let Some(m) = line.pop() {
            p.unmake(m);
        }
        assert_eq!(p, start);
    }
}

#[test]
fn perft_from_the_start() {
    let mut p = Halma::start();
    assert_eq!(perft(&mut p, 1), 40);
    assert_eq!(perft(&mut p, 2), 1600);
}

#[test]
fn move_codes_are_distinct_and_below_the_limit() {
    let p = example(2);
    let codes: std::collections::HashSet<u16> =
        legal(&p).iter().map(|&m| Halma::move_code(m)).collect();
    assert_eq!(codes.len(), 49);
    assert!(codes.iter().all(|&c| c < u16::MAX));
}

#[test]
fn the_race_pulls_the_last_piece_towards_the_last_hole() {
    use super::eval::{Distance, Race};
    use crate::game::Evaluator;
    // White's goal is full but for 4,1. Its last piece on 3,5 or on 6,2 is as far from
    // the corner either way (x + y = 8), but three king steps nearer the hole on 6,2.
    let hole = bits::Bits::square(sq(4, 1));
    let white_with = |x, y| {
        let white = (HOME[0] ^ hole).with(sq(x, y));
        Halma::from_bits(HOME[1], white, Side::White).unwrap()
    };
    let (far, near) = (white_with(3, 5), white_with(6, 2));
    assert_eq!(Distance.evaluate(&far), Distance.evaluate(&near));
    assert!(Race.evaluate(&near) > Race.evaluate(&far));
    // Every step forward is worth more than standing still, to both evaluations.
    let ahead = white_with(5, 2);
    assert!(Distance.evaluate(&ahead) > Distance.evaluate(&near));
    assert!(Race.evaluate(&ahead) > Race.evaluate(&near));
}

#[test]
fn greedy_with_distance_plays_the_play_that_advances_most() {
    use crate::agent::{Agent, AgentConfig, AgentKind};
    use crate::search::Limits;
    // White to move towards (0,0): the piece on 10,10 can jump 9,9 and 7,7 to 6,6 (eight
    // squares of dx + dy); every other play gains two at most.
    let mut rows = vec![['.'; 16]; 16];
    for (x, y, c) in [
        (10, 10, 'W'),
        (7, 7, 'W'),
        (12, 5, 'W'),
        (3, 12, 'W'),
        (9, 9, 'B'),
        (1, 14, 'B'),
        (3, 14, 'B'),
    ] {
        rows[y][x] = c;
    }
    let rows: Vec<String> = rows.iter().map(|r| r.iter().collect()).collect();
    let p = board(&rows.join("\n"), Side::White);
    let gain = |m: Move| {
        let ((fx, fy), (tx, ty)) = (xy(m.from()), xy(m.to()));
        fx + fy - tx - ty
    };
    let most = legal(&p).into_iter().map(gain).max().unwrap();
    assert_eq!(most, 8);
    for seed in 0..5 {
        let mut greedy = Agent::new::<spec::HalmaSpec>(AgentConfig {
            kind: AgentKind::Greedy,
            eval: Some("distance"),
            seed: Some(seed),
            ..AgentConfig::default()
        });
        let m = greedy.choose(&p, &Limits::default(), &[]).unwrap().mv;
        assert_eq!((m.from(), m.to()), (sq(10, 10), sq(6, 6)), "seed {seed}");
    }
    // From the start too, whatever the seed, greedy's play is one of the most advancing.
    let start = Halma::start();
    let best = legal(&start).into_iter().map(gain).max().unwrap();
    for seed in 0..10 {
        let mut greedy = Agent::new::<spec::HalmaSpec>(AgentConfig {
            kind: AgentKind::Greedy,
            eval: Some("distance"),
            seed: Some(seed),
            ..AgentConfig::default()
        });
        let m = greedy.choose(&start, &Limits::default(), &[]).unwrap().mv;
        assert_eq!(gain(m), best, "seed {seed}");
    }
}
