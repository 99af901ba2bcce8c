//! Checking the bitboard engine against the rules a controller sent: when they differ
//! (the course rules on boards 10 wide or 10 tall: `shared/RULES.md`, "The size-10
//! defect"), the player leaves the match to the GDL reasoner.
//!
//! [`verify`] compares the engine with the reasoner on the initial position and along a
//! few short random lines.

use std::collections::BTreeSet;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::games::breakthrough::terms::Terms;
use crate::games::breakthrough::{Board, Color, MoveList};
use crate::gdl::{Analysis, Gdl, State, Term};

/// Random lines played by [`verify`] after the initial position.
pub const VERIFY_LINES: usize = 3;
/// Plies of each line.
pub const VERIFY_PLIES: usize = 12;
/// Seed of the lines: the check is the same for the same rules.
const VERIFY_SEED: u64 = 0x6770_5f76_6572_6966;

type Coords = (u32, u32, u32, u32);
/// A move of the side to move: its coordinates, its term, and the other role's noop.
type LineMove = (Coords, Term, Term);

/// Whether the engine, in `terms`' variant and read through `terms`' mapping (role order,
/// board fluent, rows, the move's argument order), plays the game `gdl` describes, as far
/// as a check at START can tell: the same roles, the same initial pawns, and the same
/// legal moves (the other role having only noop), terminal states and goals along
/// [`VERIFY_LINES`] random lines of [`VERIFY_PLIES`] plies. `Err` says what differs first.
pub fn verify(terms: &Terms, gdl: &Gdl) -> Result<(), String> {
    let names = gdl.role_names();
    let same_roles = names.len() == 2
        && [Color::White, Color::Black]
            .iter()
            .all(|c| names[terms.role_index[c.index()]].eq_ignore_ascii_case(terms.role(*c)));
    if !same_roles {
        return Err(format!(
            "the reasoner's roles are ({}), the engine's white {} and black {}",
            names.join(" "),
            terms.roles[0],
            terms.roles[1]
        ));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(VERIFY_SEED);
    for line in 0..VERIFY_LINES {
        let mut board = Board::with_variant(terms.size, terms.variant);
        let mut state = gdl.initial_state();
        for ply in 0..=VERIFY_PLIES {
            let at = if ply == 0 {
                "at the start".to_owned()
            } else {
                format!("after {ply} plies of random line {}", line + 1)
            };
            let moves = compare(terms, gdl, &board, &state).map_err(|e| format!("{e} {at}"))?;
            let Some(moves) = moves else {
                break; // The game is over in both.
            };
            if ply == VERIFY_PLIES {
                break;
            }
            let (coords, term, noop) = &moves[rng.random_range(0..moves.len())];
            let mv = board
                .find_move(coords.0, coords.1, coords.2, coords.3)
                .expect("compared with the engine's moves");
            let mut joint = vec![noop.clone(); 2];
            joint[terms.role_index[board.side_to_move().index()]] = term.clone();
            board.make(mv);
            state = gdl.next_state(&state, &joint);
        }
    }
    Ok(())
}

/// Compares one position. `Ok(None)`: over in both (with the same goals); `Ok(Some(moves))`:
/// the side to move's moves, each as coordinates, the reasoner's term and the other
/// role's noop term.
fn compare(
    terms: &Terms,
    gdl: &Gdl,
    board: &Board,
    state: &State,
) -> Result<Option<Vec<LineMove>>, String> {
    // Pawns.
    let geo = board.geometry();
    let mut pawns = [0u128; 2];
    for f in state.fluents() {
        let s = gdl.term_to_sexpr(f);
        let Some((color, (x, y))) = terms.pawn(&s)? else {
            continue;
        };
        let Some(square) = geo.square(x, y) else {
            return Err(format!(
                "the fluent {s} is not a square of the engine's board"
            ));
        };
        pawns[color.index()] |= 1 << square;
    }
    for color in [Color::White, Color::Black] {
        let ours = board.pawns(color);
        let theirs = pawns[color.index()];
        if ours != theirs {
            return Err(format!(
                "{}'s pawns differ (the engine has {}, the rules {})",
                terms.role(color),
                ours.count_ones(),
                theirs.count_ones()
            ));
        }
    }

    let Analysis {
        terminal,
        legal,
        goals,
    } = gdl.analyse(state);
    if let Some(engine_goals) = board.goals() {
        let goals: Vec<Option<u32>> = goals;
        // In the rules' role order.
        let mut expected: Vec<Option<u32>> = vec![None; 2];
        for c in [Color::White, Color::Black] {
            expected[terms.role_index[c.index()]] = Some(engine_goals[c.index()].into());
        }
        if !terminal {
            return Err("the engine's game is over, the rules' is not".to_owned());
        }
        if goals != expected {
            return Err(format!(
                "the goals differ (the engine's {expected:?}, the rules' {goals:?})"
            ));
        }
        return Ok(None);
    }
    if terminal {
        return Err("the rules' game is over, the engine's is not".to_owned());
    }
    let mover = board.side_to_move();
    let idle = mover.other();
    let idle_moves = &legal[terms.role_index[idle.index()]];
    let noop = match idle_moves.as_slice() {
        [m] if gdl.term_to_sexpr(m).is_atom_ci(terms.noop()) => m.clone(),
        _ => {
            return Err(format!(
                "{}, not to move, has the moves ({}) rather than {}",
                terms.role(idle),
                shown(gdl, idle_moves),
                terms.noop()
            ));
        }
    };
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    let engine: BTreeSet<Coords> = list
        .iter()
        .map(|m| {
            let (a, b, c, d) = board.move_coords(m);
            (a.into(), b.into(), c.into(), d.into())
        })
        .collect();
    let mut moves = Vec::new();
    let mut rules = BTreeSet::new();
    for m in &legal[terms.role_index[mover.index()]] {
        let Some(coords) = terms.move_coords(&gdl.term_to_sexpr(m)) else {
            return Err(format!(
                "{}'s legal move {} is not ({} x1 y1 x2 y2)",
                terms.role(mover),
                gdl.display(m),
                terms.move_symbol
            ));
        };
        rules.insert(coords);
        moves.push((coords, m.clone(), noop.clone()));
    }
    if rules != engine {
        let only = |a: &BTreeSet<Coords>, b: &BTreeSet<Coords>| -> String {
            let d: Vec<String> = a
                .difference(b)
                .take(3)
                .map(|(a, b, c, d)| format!("({a} {b} {c} {d})"))
                .collect();
            if d.is_empty() {
                "none".to_owned()
            } else {
                d.join(" ")
            }
        };
        return Err(format!(
            "{}'s legal moves differ ({} for the engine, {} for the rules; only the engine's: {}; only the rules': {})",
            terms.role(mover),
            engine.len(),
            rules.len(),
            only(&engine, &rules),
            only(&rules, &engine)
        ));
    }
    Ok(Some(moves))
}

fn shown(gdl: &Gdl, moves: &[Term]) -> String {
    let v: Vec<String> = moves.iter().take(4).map(|m| gdl.display(m)).collect();
    v.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sexpr::Sexpr;
    use std::time::Instant;

    /// The course rules for a board, in our course-style form (the size-10 defect too).
    fn course(w: u32, h: u32) -> Vec<Sexpr> {
        let size = format!("{w}x{h}").parse().unwrap();
        Sexpr::parse_all(&crate::games::breakthrough::gdl::course_style_rules(size)).unwrap()
    }

    fn check(rules: &[Sexpr]) -> (Result<(), String>, std::time::Duration) {
        let start = Instant::now();
        let terms = Terms::from_rules(rules).unwrap();
        let gdl = Gdl::from_sexprs(rules).unwrap();
        let r = verify(&terms, &gdl);
        (r, start.elapsed())
    }

    #[test]
    fn verification_rejects_the_course_rules_on_size_10_and_accepts_the_others() {
        for (w, h) in [(10, 10), (10, 6), (6, 10)] {
            let (r, t) = check(&course(w, h));
            let why = r.expect_err("the size-10 defect must be detected");
            println!("course {w}x{h}: rejected in {t:?}: {why}");
            assert!(why.contains("differ"), "{why}");
        }
        for (w, h) in [(5, 5), (8, 8), (3, 5), (9, 9)] {
            let (r, t) = check(&course(w, h));
            r.unwrap_or_else(|e| panic!("course {w}x{h}: {e}"));
            println!("course {w}x{h}: verified in {t:?}");
        }
        for (w, h) in [(10, 10), (8, 8)] {
            let size = format!("{w}x{h}").parse().unwrap();
            let ours = crate::games::breakthrough::gdl::breakthrough_rules(size);
            let (r, t) = check(&Sexpr::parse_all(&ours).unwrap());
            r.unwrap_or_else(|e| panic!("ours {w}x{h}: {e}"));
            println!("ours {w}x{h}: verified in {t:?}");
        }
    }

    #[test]
    fn upper_case_rules_verify() {
        let size = "5x5".parse().unwrap();
        let text = crate::games::breakthrough::gdl::course_style_rules(size).to_ascii_uppercase();
        let (r, _) = check(&Sexpr::parse_all(&text).unwrap());
        r.unwrap();
    }
}
