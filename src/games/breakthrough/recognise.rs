//! Recognising Breakthrough from the structure of the rules, whatever their symbols are
//! called: ggp-base's scrambled GDL renames every symbol but the GDL keywords (numbers
//! stay), so `move`, `noop`, the roles and the board fluent cannot be found by name.
//!
//! [`Terms::recognise`] asks the reasoner instead: the role with moves in the initial
//! state is white, the other's only move is noop; the board fluent is the ternary fluent
//! that holds both roles with two numbers; the row is the coordinate that separates the
//! two sides; playing each first move shows which of the move's arguments is which; and
//! a diagonal step onto an empty square, legal or not, tells the variant. It only finds
//! the mapping: [`crate::games::breakthrough::verify::verify`] checks that the engine then
//! plays the same game.

use std::collections::BTreeSet;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::terms::{BoardFluent, RulesError, Square, Terms, number};
use super::{BoardSize, Color, Variant};
use crate::gdl::{Gdl, State, Term};
use crate::sexpr::Sexpr;

/// Random lines (and their length) played to find a position that tells the variant
/// when the initial one does not (boards 4 high, where no diagonal square is empty).
const VARIANT_LINES: usize = 8;
const VARIANT_PLIES: usize = 40;
const VARIANT_SEED: u64 = 0x0076_6172_6961_6e74;

/// The first moves played to find the order of the move's arguments.
const ORDER_PROBES: usize = 6;

fn not_breakthrough(why: impl Into<String>) -> RulesError {
    RulesError::NotBreakthrough(why.into())
}

impl Terms {
    /// Finds the roles, moves, board and variant of a Breakthrough game in `gdl`,
    /// whatever its symbols are called. `Err` says what does not fit.
    pub fn recognise(gdl: &Gdl) -> Result<Terms, RulesError> {
        let names = gdl.role_names();
        if names.len() != 2 {
            return Err(RulesError::RoleCount(names.len()));
        }
        let init = gdl.initial_state();
        let analysis = gdl.analyse(&init);
        if analysis.terminal {
            return Err(not_breakthrough("the initial state is terminal"));
        }
        let legal: Vec<Vec<Sexpr>> = analysis
            .legal
            .iter()
            .map(|ms| ms.iter().map(|m| gdl.term_to_sexpr(m)).collect())
            .collect();
        let single_atom = |ms: &[Sexpr]| match ms {
            [m] => m.as_atom().map(str::to_owned),
            _ => None,
        };
        let (white, noop) = match (single_atom(&legal[0]), single_atom(&legal[1])) {
            (None, Some(noop)) => (0, noop),
            (Some(noop), None) => (1, noop),
            _ => {
                return Err(not_breakthrough(
                    "in the initial state one role must have moves and the other only one \
                     (noop)",
                ));
            }
        };
        let role_index = [white, 1 - white];
        let first_moves = &legal[white];
        let move_symbol = move_symbol(first_moves)?;
        if move_symbol.eq_ignore_ascii_case(&noop) {
            return Err(not_breakthrough("noop and the moves share a symbol"));
        }
        let roles = role_index.map(|i| names[i].clone());
        let fluents: Vec<Sexpr> = init
            .fluents()
            .iter()
            .map(|f| gdl.term_to_sexpr(f))
            .collect();
        let (symbol, owner) = board_fluent(&fluents, &roles)?;
        let others: Vec<usize> = (0..3).filter(|&i| i != owner).collect();
        let pawns = |x: usize, y: usize| -> Vec<(usize, Square)> {
            collect_pawns(&fluents, &symbol, owner, x, y, &roles)
        };
        let raw = pawns(others[0], others[1]);
        let (x, y) = if separates(&raw, 1) || !separates(&raw, 0) {
            (others[0], others[1])
        } else {
            (others[1], others[0])
        };
        let raw = pawns(x, y);
        if !separates(&raw, 1) {
            return Err(not_breakthrough(
                "no coordinate of the board fluent separates the two sides' starting rows",
            ));
        }
        let width = raw.iter().map(|p| p.1.0).max().unwrap_or(0);
        let height = raw.iter().map(|p| p.1.1).max().unwrap_or(0);
        if raw.iter().any(|p| p.1.0 == 0 || p.1.1 == 0) {
            return Err(not_breakthrough("a coordinate is 0: they count from 1"));
        }
        let size = BoardSize::new(width, height)?;
        let top = |side: usize| raw.iter().filter(|p| p.0 == side).map(|p| p.1.1).max();
        let flip_rows = top(0) > top(1);
        let mut terms = Terms {
            size,
            variant: Variant::Course,
            roles,
            role_index,
            move_symbol,
            noop_symbol: noop,
            move_args: [0, 1, 2, 3],
            board: BoardFluent {
                symbol,
                x,
                y,
                owner,
            },
            flip_rows,
        };
        terms.move_args = move_order(gdl, &terms, &init, &analysis.legal)?;
        terms.variant = variant(gdl, &terms, init, analysis.legal);
        Ok(terms)
    }
}

/// The head of the first mover's moves: all `(m a b c d)` with the same `m`.
fn move_symbol(moves: &[Sexpr]) -> Result<String, RulesError> {
    let mut symbol: Option<&str> = None;
    for m in moves {
        let head = match m.as_list() {
            Some([head, _, _, _, _]) => head.as_atom(),
            _ => None,
        };
        let Some(head) = head else {
            return Err(not_breakthrough(format!(
                "the first move {m} is not a move with four coordinates"
            )));
        };
        match symbol {
            None => symbol = Some(head),
            Some(s) if s.eq_ignore_ascii_case(head) => {}
            Some(s) => {
                return Err(not_breakthrough(format!(
                    "the first moves have two symbols, {s} and {head}"
                )));
            }
        }
    }
    symbol
        .map(str::to_owned)
        .ok_or_else(|| not_breakthrough("the first player has no move"))
}

/// The ternary fluent holding both roles with numbers elsewhere, and the owner's place.
fn board_fluent(fluents: &[Sexpr], roles: &[String; 2]) -> Result<(String, usize), RulesError> {
    let heads: BTreeSet<String> = fluents
        .iter()
        .filter_map(|f| match f.as_list()? {
            [head, _, _, _] => head.as_atom().map(str::to_owned),
            _ => None,
        })
        .collect();
    for head in heads {
        for owner in 0..3 {
            let others: Vec<usize> = (0..3).filter(|&i| i != owner).collect();
            let pawns = collect_pawns(fluents, &head, owner, others[0], others[1], roles);
            let both = (0..2).all(|side| pawns.iter().any(|p| p.0 == side));
            let holds = fluents.iter().filter(|f| f.head_is(&head)).count();
            let blanks = fluents
                .iter()
                .filter(|f| f.head_is(&head))
                .filter(|f| {
                    let args = f.args().unwrap_or_default();
                    args.len() == 3 && !roles.iter().any(|r| args[owner].is_atom_ci(r))
                })
                .count();
            // Every fluent of the kind is a pawn with numeric coordinates or a blank.
            if both && pawns.len() + blanks == holds {
                return Ok((head, owner));
            }
        }
    }
    Err(not_breakthrough(
        "no fluent of three arguments holds both roles' pawns on numbered squares",
    ))
}

/// `(side, (a, b))` of every fluent `(head …)` whose `owner` argument is a role and whose
/// `a` and `b` arguments are numbers.
fn collect_pawns(
    fluents: &[Sexpr],
    head: &str,
    owner: usize,
    a: usize,
    b: usize,
    roles: &[String; 2],
) -> Vec<(usize, Square)> {
    fluents
        .iter()
        .filter_map(|f| {
            let [h, args @ ..] = f.as_list()? else {
                return None;
            };
            if args.len() != 3 || !h.is_atom_ci(head) {
                return None;
            }
            let side = roles.iter().position(|r| args[owner].is_atom_ci(r))?;
            Some((side, (number(&args[a])?, number(&args[b])?)))
        })
        .collect()
}

/// Whether coordinate `c` (0 or 1) of the two sides' pawns takes disjoint values.
fn separates(pawns: &[(usize, Square)], c: usize) -> bool {
    let values = |side: usize| -> BTreeSet<u32> {
        pawns
            .iter()
            .filter(|p| p.0 == side)
            .map(|p| if c == 0 { p.1.0 } else { p.1.1 })
            .collect()
    };
    let (w, b) = (values(0), values(1));
    !w.is_empty() && !b.is_empty() && w.is_disjoint(&b)
}

/// The places of x1, y1, x2, y2 among a move's arguments: playing the first moves shows
/// which square each empties and fills. The course's order when it fits.
fn move_order(
    gdl: &Gdl,
    terms: &Terms,
    init: &State,
    legal: &[Vec<Term>],
) -> Result<[usize; 4], RulesError> {
    let white = terms.role_index[0];
    let noop = &legal[1 - white][0];
    let before = squares(gdl, terms, init, Color::White)?;
    let mut candidates: Vec<[usize; 4]> = permutations();
    for m in legal[white].iter().take(ORDER_PROBES) {
        let mut joint = vec![noop.clone(); 2];
        joint[white] = m.clone();
        let after = squares(gdl, terms, &gdl.next_state(init, &joint), Color::White)?;
        let from: Vec<&Square> = before.difference(&after).collect();
        let to: Vec<&Square> = after.difference(&before).collect();
        let (&[from], &[to]) = (from.as_slice(), to.as_slice()) else {
            return Err(not_breakthrough(format!(
                "the first move {} does not move one pawn",
                gdl.display(m)
            )));
        };
        let s = gdl.term_to_sexpr(m);
        let args: Vec<Option<u32>> = s.args().unwrap_or_default().iter().map(number).collect();
        // The rules' coordinates of the two squares (rows as the rules number them).
        let want = [
            Some(from.0),
            Some(rules_row(terms, from.1)),
            Some(to.0),
            Some(rules_row(terms, to.1)),
        ];
        candidates.retain(|p| (0..4).all(|i| args.get(p[i]).copied().flatten() == want[i]));
    }
    let course = [0, 1, 2, 3];
    if candidates.contains(&course) {
        return Ok(course);
    }
    candidates.first().copied().ok_or_else(|| {
        not_breakthrough("the first moves' arguments are not the squares a pawn leaves and enters")
    })
}

fn rules_row(terms: &Terms, y: u32) -> u32 {
    if terms.flip_rows {
        terms.size.height() as u32 + 1 - y
    } else {
        y
    }
}

fn permutations() -> Vec<[usize; 4]> {
    let mut out = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let p = [a, b, c, d];
                    if (0..4).all(|i| p.contains(&i)) {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

/// The engine squares of `color`'s pawns in `state`.
fn squares(
    gdl: &Gdl,
    terms: &Terms,
    state: &State,
    color: Color,
) -> Result<BTreeSet<Square>, RulesError> {
    let mut out = BTreeSet::new();
    for f in state.fluents() {
        match terms.pawn(&gdl.term_to_sexpr(f)) {
            Ok(Some((c, sq))) if c == color => {
                out.insert(sq);
            }
            Ok(_) => {}
            Err(e) => return Err(not_breakthrough(e)),
        }
    }
    Ok(out)
}

/// Standard if a diagonal step onto an empty square is legal in the first position that
/// offers one, the course's rules if it is not (or if no line reaches such a position:
/// then the two do not differ as far as can be seen).
fn variant(gdl: &Gdl, terms: &Terms, init: State, legal: Vec<Vec<Term>>) -> Variant {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(VARIANT_SEED);
    for _ in 0..VARIANT_LINES {
        let mut state = init.clone();
        let mut legal = legal.clone();
        for ply in 0..VARIANT_PLIES {
            let mover = if ply % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            if let Some(found) = diagonal_test(gdl, terms, &state, &legal, mover) {
                return found;
            }
            let (mi, ii) = (
                terms.role_index[mover.index()],
                terms.role_index[mover.other().index()],
            );
            let (Some(idle), false) = (legal[ii].first(), legal[mi].is_empty()) else {
                break;
            };
            let mut joint = vec![idle.clone(); 2];
            joint[mi] = legal[mi][rng.random_range(0..legal[mi].len())].clone();
            state = gdl.next_state(&state, &joint);
            let a = gdl.analyse(&state);
            if a.terminal {
                break;
            }
            legal = a.legal;
        }
    }
    Variant::Course
}

/// `Some(variant)` if `mover` has a pawn with an empty square diagonally ahead in `state`.
fn diagonal_test(
    gdl: &Gdl,
    terms: &Terms,
    state: &State,
    legal: &[Vec<Term>],
    mover: Color,
) -> Option<Variant> {
    let ours = squares(gdl, terms, state, mover).ok()?;
    let theirs = squares(gdl, terms, state, mover.other()).ok()?;
    let (w, h) = (terms.size.width() as u32, terms.size.height() as u32);
    let ahead = |y: u32| match mover {
        Color::White => y + 1,
        Color::Black => y.saturating_sub(1),
    };
    let moves: BTreeSet<(u32, u32, u32, u32)> = legal[terms.role_index[mover.index()]]
        .iter()
        .filter_map(|m| terms.move_coords(&gdl.term_to_sexpr(m)))
        .collect();
    for &(x, y) in &ours {
        let y2 = ahead(y);
        for x2 in [x.wrapping_sub(1), x + 1] {
            let on_board = (1..=w).contains(&x2) && (1..=h).contains(&y2);
            let empty = !ours.contains(&(x2, y2)) && !theirs.contains(&(x2, y2));
            if on_board && empty {
                return Some(if moves.contains(&(x, y, x2, y2)) {
                    Variant::Standard
                } else {
                    Variant::Course
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of the START message in a captured request.
    fn start_rules(request: &str) -> Vec<Sexpr> {
        let start = request.find("( START").unwrap();
        let end = request[start..]
            .find('\n')
            .map_or(request.len(), |e| start + e);
        let message = Sexpr::parse(&request[start..end]).unwrap();
        message.as_list().unwrap()[3].as_list().unwrap().to_vec()
    }

    /// Course rules (`text`) are recognised as their facts say, in both cases.
    fn recognised_like_the_facts_say(text: &str, what: &str) {
        let rules = Sexpr::parse_all(text).unwrap();
        let t = Terms::recognise(&Gdl::from_sexprs(&rules).unwrap()).unwrap();
        assert_eq!(t, Terms::from_rules(&rules).unwrap(), "{what}");
        let upper = Sexpr::parse_all(&text.to_ascii_uppercase()).unwrap();
        let t = Terms::recognise(&Gdl::from_sexprs(&upper).unwrap()).unwrap();
        assert_eq!((t.move_symbol.as_str(), t.noop()), ("MOVE", "NOOP"));
        assert_eq!(
            (t.role(Color::White), t.board.symbol.as_str()),
            ("WHITE", "CELL")
        );
    }

    #[test]
    fn recognises_course_style_rules_like_the_facts_say() {
        for size in ["3x5", "5x5", "8x8"] {
            let text = crate::games::breakthrough::gdl::course_style_rules(size.parse().unwrap());
            recognised_like_the_facts_say(&text, size);
        }
    }

    #[test]
    fn recognises_the_course_files_like_the_facts_say() {
        let Some(reference) = crate::testing::reference_dir() else {
            return;
        };
        for size in ["3x5", "5x5", "8x8"] {
            let path = reference.join(format!("gdl/breakthrough_{size}.gdl"));
            let text = std::fs::read_to_string(path).unwrap();
            recognised_like_the_facts_say(&text, size);
        }
    }

    #[test]
    fn recognises_the_scrambled_transcript() {
        let Some(reference) = crate::testing::reference_dir() else {
            return;
        };
        let path = reference.join("wire/ggpbase_scrambled_5x5/01.http");
        let raw = std::fs::read_to_string(path).unwrap();
        let rules = start_rules(&raw);
        assert!(Terms::from_rules(&rules).is_err());
        let t = Terms::recognise(&Gdl::from_sexprs(&rules).unwrap()).unwrap();
        assert_eq!(t.size, BoardSize::new(5, 5).unwrap());
        assert_eq!(t.variant, Variant::Course);
        assert_eq!(t.roles, ["deworming".to_owned(), "caprichos".to_owned()]);
        assert_eq!(t.role_index, [0, 1]);
        assert_eq!(t.move_symbol, "globalized");
        assert_eq!(t.noop(), "andalusian");
        assert_eq!(t.board.symbol, "confiscate");
        assert_eq!((t.move_args, t.flip_rows), ([0, 1, 2, 3], false));
        assert_eq!(
            t.to_string(),
            "5x5 course, white deworming (role 1), black caprichos (role 2), moves \
             (globalized x1 y1 x2 y2), noop andalusian, pawns (confiscate x y owner)"
        );
    }

    #[test]
    fn finds_the_variant_of_our_rules_on_every_height() {
        for size in ["5x4", "2x4", "3x5", "8x8"] {
            let size: BoardSize = size.parse().unwrap();
            for variant in [Variant::Course, Variant::Standard] {
                let text =
                    crate::games::breakthrough::gdl::breakthrough_rules_variant(size, variant);
                let t = Terms::recognise(&Gdl::parse(&text).unwrap()).unwrap();
                assert_eq!((t.size, t.variant), (size, variant));
            }
        }
    }

    #[test]
    fn other_games_are_not_breakthrough_and_say_why() {
        let cases = [
            ("(role a)", "role"),
            (
                "(role a) (role b) (init (c 1)) (<= (legal a x) (true (c 1))) (<= (legal b y) (true (c 1)))",
                "noop",
            ),
            (
                "(role a) (role b) (init (c 1)) (<= (legal a (m 1)) (true (c 1))) (<= (legal b y) (true (c 1)))",
                "four coordinates",
            ),
            (
                "(role a) (role b) (init (c 1)) (<= (legal a (m 1 1 1 2)) (true (c 1))) (<= (legal b y) (true (c 1)))",
                "three arguments",
            ),
        ];
        for (text, needle) in cases {
            let e = Terms::recognise(&Gdl::parse(text).unwrap()).unwrap_err();
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
    }
}
