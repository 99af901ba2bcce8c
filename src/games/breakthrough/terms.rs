//! GDL terms ↔ the engine: what the rules a controller sends say about the board, the
//! roles and the spelling of moves, and the translation of move terms.
//!
//! The course rules (`shared/reference/gdl/`) state the board size as the facts
//! `(width W)` and `(height H)`, the roles as `(role white)` then `(role black)`, and write
//! moves `(move x1 y1 x2 y2)` and `noop`. GDL is case-insensitive, so everything is read
//! without regard to case, but controllers compare replies with their legal moves as
//! strings (ggp-base does so case-sensitively): [`Terms`] remembers the exact spelling of
//! `move` and `noop` in the rules received, and [`Terms::move_term`] writes moves with it.
//!
//! Rules whose symbols were renamed (ggp-base's "scrambled" GDL) have no `width` fact:
//! [`Terms::recognise`] (in `recognise.rs`) finds the same terms, and the roles' order,
//! the move's argument order, the board fluent and the variant, with the reasoner; the
//! terms then translate moves both ways in the rules' own symbols.

use std::fmt;

use super::geometry::{MAX_HEIGHT, MAX_WIDTH, MIN_HEIGHT, MIN_WIDTH};
use super::{Board, BoardSize, Color, Move, MoveList, SizeError, Variant};
use crate::sexpr::Sexpr;

/// Why the rules are not the Breakthrough rules this player knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error(
        "the rules have no ({0} N) fact, so the board size is unknown (this player knows Breakthrough \
         with (width W) and (height H) facts, width {MIN_WIDTH}-{MAX_WIDTH} and height {MIN_HEIGHT}-{MAX_HEIGHT}, \
         or rules the reasoner recognises as Breakthrough)"
    )]
    MissingSize(&'static str),
    #[error(
        "the rules' ({what} {value}) fact is not a whole number (expected width {MIN_WIDTH}-{MAX_WIDTH} and height {MIN_HEIGHT}-{MAX_HEIGHT})"
    )]
    SizeNotANumber { what: &'static str, value: String },
    #[error("the rules state two different {what}s: {first} and {second}")]
    ConflictingSize {
        what: &'static str,
        first: String,
        second: String,
    },
    #[error("unsupported board: {0}")]
    SizeOutOfRange(#[from] SizeError),
    #[error("the rules name {0} role(s), but Breakthrough has two: (role white) then (role black)")]
    RoleCount(usize),
    #[error(
        "the rules never mention '{0}': these are not the Breakthrough rules this player knows"
    )]
    MissingSymbol(&'static str),
    #[error("not Breakthrough as the engine plays it: {0}")]
    NotBreakthrough(String),
    #[error("{structure}; nor do the course rules' facts say: {facts}")]
    Unrecognised { structure: String, facts: String },
}

/// Why a move term is not a legal move of the side to move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("'{term}' is not a move: expected ({symbol} x1 y1 x2 y2)")]
    NotAMove { term: String, symbol: String },
    #[error("'{term}' is illegal for {side}: {reason}")]
    Illegal {
        term: String,
        side: Color,
        reason: String,
    },
}

/// The facts of the rules this player needs, with the rules' own spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terms {
    /// From `(width W)` and `(height H)`, or from the initial pawns ([`Terms::recognise`]).
    pub size: BoardSize,
    pub variant: Variant,
    /// The two roles as spelt in the rules: `[white, black]`.
    pub roles: [String; 2],
    /// The rules' role number of white and of black (joint moves follow the rules' order).
    pub role_index: [usize; 2],
    /// How the rules spell `move` (`MOVE` in Dresden's upper-cased text, `move` in ggp-base's,
    /// a random word in scrambled rules).
    pub move_symbol: String,
    /// How the rules spell `noop`.
    pub noop_symbol: String,
    /// Where x1, y1, x2 and y2 stand among the move term's four arguments.
    pub move_args: [usize; 4],
    /// The fluent that holds the pawns.
    pub board: BoardFluent,
    /// Whether the rules' rows run the other way (white starts on the top rows): the
    /// engine's row is then `height + 1 - y`.
    pub flip_rows: bool,
}

/// The ternary fluent of the pawns, such as `(cell x y white)`: its symbol as spelt in
/// the rules and the positions of its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardFluent {
    pub symbol: String,
    pub x: usize,
    pub y: usize,
    pub owner: usize,
}

/// A square in the engine's coordinates.
pub type Square = (u32, u32);

impl Terms {
    /// Reads the board size, the roles and the spelling of `move` and `noop` from the
    /// course rules' facts and symbols (for rules the reasoner cannot compile; see
    /// [`Terms::recognise`] for any spelling).
    pub fn from_rules(rules: &[Sexpr]) -> Result<Terms, RulesError> {
        let size = board_size(rules)?;
        let roles = roles(rules);
        let roles: [String; 2] = match roles.as_slice() {
            [white, black] => [white.to_string(), black.to_string()],
            other => return Err(RulesError::RoleCount(other.len())),
        };
        let move_symbol = spelling(rules, "move").ok_or(RulesError::MissingSymbol("move"))?;
        let noop_symbol = spelling(rules, "noop").ok_or(RulesError::MissingSymbol("noop"))?;
        Ok(Terms {
            size,
            variant: Variant::Course,
            roles,
            role_index: [0, 1],
            move_symbol: move_symbol.to_owned(),
            noop_symbol: noop_symbol.to_owned(),
            move_args: [0, 1, 2, 3],
            board: BoardFluent {
                symbol: spelling(rules, "cell").unwrap_or("cell").to_owned(),
                x: 0,
                y: 1,
                owner: 2,
            },
            flip_rows: false,
        })
    }

    /// The colour of the rules' role number `index`.
    pub fn color_at(&self, index: usize) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|c| self.role_index[c.index()] == index)
    }

    /// The engine's row of the rules' row `y` and back (0 off the board).
    fn row(&self, y: u32) -> u32 {
        let h = self.size.height() as u32;
        match (self.flip_rows, y) {
            (_, 0) => 0,
            (true, y) if y <= h => h + 1 - y,
            (true, _) => 0,
            (false, y) => y,
        }
    }

    /// A pawn of the board fluent `s` in the engine's coordinates: `Ok(None)` if `s` is
    /// another fluent or holds no pawn (an empty-square marker); `Err` if it is malformed.
    pub fn pawn(&self, s: &Sexpr) -> Result<Option<(Color, Square)>, String> {
        let Some([head, args @ ..]) = s.as_list() else {
            return Ok(None);
        };
        if !head.is_atom_ci(&self.board.symbol) {
            return Ok(None);
        }
        let malformed = || format!("the fluent {} is not a square with a pawn", short(s));
        if args.len() != 3 {
            return Err(malformed());
        }
        let Some(color) = args[self.board.owner]
            .as_atom()
            .and_then(|r| self.color_of(r))
        else {
            return Ok(None);
        };
        match (number(&args[self.board.x]), number(&args[self.board.y])) {
            (Some(x), Some(y)) => Ok(Some((color, (x, self.row(y))))),
            _ => Err(malformed()),
        }
    }

    /// The engine's `(x1, y1, x2, y2)` of a move term of these rules (any case), whether
    /// legal or not.
    pub fn move_coords(&self, term: &Sexpr) -> Option<(u32, u32, u32, u32)> {
        let [head, args @ ..] = term.as_list()? else {
            return None;
        };
        if args.len() != 4 || !head.is_atom_ci(&self.move_symbol) {
            return None;
        }
        let [a, b, c, d] = self.move_args.map(|i| number(&args[i]));
        Some((a?, self.row(b?), c?, self.row(d?)))
    }

    /// The colour a role plays (compared without case), if it is one of the rules' roles.
    pub fn color_of(&self, role: &str) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|c| self.roles[c.index()].eq_ignore_ascii_case(role))
    }

    /// The role name of `color`, as spelt in the rules.
    pub fn role(&self, color: Color) -> &str {
        &self.roles[color.index()]
    }

    /// Whether `term` is the `noop` move (in any case).
    pub fn is_noop(&self, term: &Sexpr) -> bool {
        term.is_atom_ci(&self.noop_symbol)
    }

    /// The `noop` move as the rules spell it.
    pub fn noop(&self) -> &str {
        &self.noop_symbol
    }

    /// Reads `(move x1 y1 x2 y2)` (any case) as a legal move of the side to move in `board`.
    pub fn parse_move(&self, board: &Board, term: &Sexpr) -> Result<Move, MoveError> {
        let (x1, y1, x2, y2) = self.move_coords(term).ok_or_else(|| MoveError::NotAMove {
            term: short(term),
            symbol: self.move_symbol.clone(),
        })?;
        board
            .find_move(x1, y1, x2, y2)
            .ok_or_else(|| MoveError::Illegal {
                term: short(term),
                side: board.side_to_move(),
                reason: why_illegal(board, (x1, y1), (x2, y2)),
            })
    }

    /// `mv` (a move of `board`'s side to move) as the term `(move x1 y1 x2 y2)`, in the
    /// rules' spelling and argument order.
    pub fn move_term(&self, board: &Board, mv: Move) -> Sexpr {
        let (x1, y1, x2, y2) = board.move_coords(mv);
        let coords = [
            x1 as u32,
            self.row(y1.into()),
            x2 as u32,
            self.row(y2.into()),
        ];
        let mut args = [0; 4];
        for (i, &at) in self.move_args.iter().enumerate() {
            args[at] = coords[i];
        }
        let mut items = vec![Sexpr::atom(self.move_symbol.clone())];
        items.extend(args.map(|c| Sexpr::atom(c.to_string())));
        Sexpr::list(items)
    }
}

/// A GDL number: digits only (`+1`, `1.0` or `0x1` are not), at most three of them.
pub(super) fn number(e: &Sexpr) -> Option<u32> {
    let a = e.as_atom()?;
    if a.is_empty() || a.len() > 3 || !a.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    a.parse().ok()
}

impl fmt::Display for Terms {
    /// E.g. `5x5 course, white deworming (role 1), black caprichos (role 2), moves
    /// (globalized x1 y1 x2 y2), noop andalusian, pawns (confiscate x y owner)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut args = ["x1", "y1", "x2", "y2"];
        for (i, &at) in self.move_args.iter().enumerate() {
            args[at] = ["x1", "y1", "x2", "y2"][i];
        }
        let mut cell = [""; 3];
        cell[self.board.x] = "x";
        cell[self.board.y] = "y";
        cell[self.board.owner] = "owner";
        write!(
            f,
            "{} {}, white {} (role {}), black {} (role {}), moves ({} {}), noop {}, pawns ({} {}){}",
            self.size,
            self.variant,
            self.roles[0],
            self.role_index[0] + 1,
            self.roles[1],
            self.role_index[1] + 1,
            self.move_symbol,
            args.join(" "),
            self.noop_symbol,
            self.board.symbol,
            cell.join(" "),
            if self.flip_rows {
                ", rows numbered from black's side"
            } else {
                ""
            }
        )
    }
}

/// The engine standing in for the reasoner when the referee checks these rules' moves.
/// The first legal move in GGP coordinate order (x1, y1, x2, y2), independent of the
/// engine's own move order: what Dresden plays for a side that gave no legal move.
pub fn first_legal_move(board: &Board) -> Option<Move> {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    list.iter().min_by_key(|&m| board.move_coords(m))
}

/// The board size from the rules' `(width W)` and `(height H)` facts (any case).
pub fn board_size(rules: &[Sexpr]) -> Result<BoardSize, RulesError> {
    let width = size_fact(rules, "width")?;
    let height = size_fact(rules, "height")?;
    Ok(BoardSize::new(width, height)?)
}

/// The roles of the `(role X)` facts, in the order of the rules, as spelt there.
pub fn roles(rules: &[Sexpr]) -> Vec<&str> {
    rules
        .iter()
        .filter_map(|r| match r.as_list()? {
            [head, role] if head.is_atom_ci("role") => role.as_atom(),
            _ => None,
        })
        .collect()
}

/// The value of the ground fact `(what N)`; every such fact must agree.
fn size_fact(rules: &[Sexpr], what: &'static str) -> Result<u32, RulesError> {
    let mut found: Option<&str> = None;
    for rule in rules {
        let Some([head, value]) = rule.as_list() else {
            continue;
        };
        if !head.is_atom_ci(what) {
            continue;
        }
        let text = value.as_atom().ok_or_else(|| RulesError::SizeNotANumber {
            what,
            value: short(value),
        })?;
        match found {
            None => found = Some(text),
            Some(first) if first == text => {}
            Some(first) => {
                return Err(RulesError::ConflictingSize {
                    what,
                    first: first.to_owned(),
                    second: short(value),
                });
            }
        }
    }
    let text = found.ok_or(RulesError::MissingSize(what))?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RulesError::SizeNotANumber {
            what,
            value: short(&Sexpr::atom(text)),
        });
    }
    // All digits: too many of them is simply out of range.
    Ok(text.parse().unwrap_or(u32::MAX))
}

/// The first atom of `rules` equal to `word` without regard to case, as spelt there.
fn spelling<'a>(rules: &'a [Sexpr], word: &str) -> Option<&'a str> {
    // Depth-first, left to right, with an explicit stack.
    let mut stack: Vec<&Sexpr> = rules.iter().rev().collect();
    while let Some(e) = stack.pop() {
        match e {
            Sexpr::Atom(a) if a.eq_ignore_ascii_case(word) => return Some(a),
            Sexpr::Atom(_) => {}
            Sexpr::List(items) => stack.extend(items.iter().rev()),
        }
    }
    None
}

/// Why no legal move of the side to move leads from `from` to `to`.
fn why_illegal(board: &Board, from: (u32, u32), to: (u32, u32)) -> String {
    let side = board.side_to_move();
    let size = board.size();
    let geo = board.geometry();
    if board.winner().is_some() {
        return "the game is already over".to_owned();
    }
    let Some(origin) = geo.square(from.0, from.1) else {
        return format!(
            "({} {}) is not a square of the {size} board",
            from.0, from.1
        );
    };
    if geo.square(to.0, to.1).is_none() {
        return format!("({} {}) is not a square of the {size} board", to.0, to.1);
    }
    let bit = 1u128 << origin;
    if board.pawns(side) & bit == 0 {
        let what = if board.pawns(side.other()) & bit != 0 {
            format!("a {} pawn", side.other())
        } else {
            "nothing".to_owned()
        };
        return format!(
            "there is {what} on ({} {}), not a {side} pawn",
            from.0, from.1
        );
    }
    let rule = match board.variant() {
        Variant::Course => {
            "one step forward onto an empty square, or diagonally forward onto an enemy pawn"
        }
        Variant::Standard => {
            "one step forward onto an empty square, or diagonally forward onto an empty \
             square or an enemy pawn"
        }
    };
    format!(
        "the {side} pawn on ({} {}) cannot go to ({} {}) ({rule})",
        from.0, from.1, to.0, to.1
    )
}

/// The term's text, shortened for an error message.
fn short(e: &Sexpr) -> String {
    const MAX_CHARS: usize = 60;
    let text = e.to_string();
    match text.char_indices().nth(MAX_CHARS) {
        None => text,
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The course kiosk's rules without the size facts, in our course-style form.
    fn template() -> String {
        crate::games::breakthrough::gdl::course_style_template()
    }

    fn rules(text: &str) -> Vec<Sexpr> {
        Sexpr::parse_all(text).unwrap()
    }

    fn course_rules(w: u32, h: u32) -> Vec<Sexpr> {
        rules(&format!("(width {w}) (height {h}) {}", template()))
    }

    fn sx(text: &str) -> Sexpr {
        Sexpr::parse(text).unwrap()
    }

    #[test]
    fn reads_the_course_rules_in_both_cases() {
        let t = Terms::from_rules(&course_rules(5, 6)).unwrap();
        assert_eq!(t.size, BoardSize::new(5, 6).unwrap());
        assert_eq!(t.roles, ["white".to_owned(), "black".to_owned()]);
        assert_eq!((t.move_symbol.as_str(), t.noop()), ("move", "noop"));
        assert_eq!(t.color_of("white"), Some(Color::White));
        assert_eq!(t.color_of("BLACK"), Some(Color::Black));
        assert_eq!(t.color_of("red"), None);

        let upper = format!("(WIDTH 3) (HEIGHT 5) {}", template().to_ascii_uppercase());
        let t = Terms::from_rules(&rules(&upper)).unwrap();
        assert_eq!(t.size, BoardSize::new(3, 5).unwrap());
        assert_eq!(t.roles, ["WHITE".to_owned(), "BLACK".to_owned()]);
        assert_eq!((t.move_symbol.as_str(), t.noop()), ("MOVE", "NOOP"));
        assert_eq!(t.role(Color::Black), "BLACK");
        assert!(t.is_noop(&sx("noop")) && t.is_noop(&sx("NOOP")));
        assert!(!t.is_noop(&sx("(noop)")));
    }

    #[test]
    fn reads_every_course_gdl_file() {
        let Some(reference) = crate::testing::reference_dir() else {
            return;
        };
        let mut seen = 0;
        for entry in std::fs::read_dir(reference.join("gdl")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(size) = name
                .strip_prefix("breakthrough_")
                .and_then(|s| s.strip_suffix(".gdl"))
            else {
                continue;
            };
            let text = std::fs::read_to_string(&path).unwrap();
            let t = Terms::from_rules(&rules(&text)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.size, size.parse().unwrap(), "{name}");
            assert_eq!(t.color_of("white"), Some(Color::White), "{name}");
            seen += 1;
        }
        assert!(seen >= 6, "only {seen} GDL files");
    }

    #[test]
    fn size_errors_are_clear() {
        let err = |text: &str| {
            let text = format!("{text} {}", template());
            Terms::from_rules(&rules(&text)).unwrap_err()
        };
        let e = err("(height 5)");
        assert_eq!(e, RulesError::MissingSize("width"));
        assert!(
            e.to_string().contains("2-10") && e.to_string().contains("4-10"),
            "{e}"
        );
        assert_eq!(err("(width 5)"), RulesError::MissingSize("height"));
        for (facts, w, h) in [
            ("(width 11) (height 5)", 11, 5),
            ("(width 1) (height 5)", 1, 5),
            ("(width 5) (height 3)", 5, 3),
            ("(WIDTH 5) (HEIGHT 11)", 5, 11),
            ("(width 0) (height 0)", 0, 0),
        ] {
            let e = err(facts);
            assert_eq!(
                e,
                RulesError::SizeOutOfRange(SizeError::OutOfRange {
                    width: w,
                    height: h
                }),
                "{facts}"
            );
            let msg = e.to_string();
            assert!(msg.contains("2-10") && msg.contains("4-10"), "{msg}");
        }
        assert!(matches!(
            err("(width 99999999999999) (height 5)"),
            RulesError::SizeOutOfRange(_)
        ));
        for bad in [
            "(width five) (height 5)",
            "(width -5) (height 5)",
            "(width (5)) (height 5)",
        ] {
            let e = err(bad);
            assert!(
                matches!(e, RulesError::SizeNotANumber { what: "width", .. }),
                "{bad}: {e:?}"
            );
            assert!(e.to_string().contains("2-10"), "{e}");
        }
        assert!(matches!(
            err("(width 5) (height 5) (height 6)"),
            RulesError::ConflictingSize { what: "height", .. }
        ));
        // The same fact twice is harmless.
        let text = format!("(width 4) (width 4) (height 5) {}", template());
        assert!(Terms::from_rules(&rules(&text)).is_ok());
        // A rule with a variable is not a fact.
        let text = format!("(<= (width ?w) (foo ?w)) {}", template());
        assert_eq!(
            Terms::from_rules(&rules(&text)).unwrap_err(),
            RulesError::MissingSize("width")
        );
    }

    #[test]
    fn role_and_symbol_errors() {
        let r = rules("(width 3) (height 5) (role white) (legal white (move 1 1 1 2)) noop");
        assert_eq!(Terms::from_rules(&r).unwrap_err(), RulesError::RoleCount(1));
        let r = rules("(width 3) (height 5) (role a) (role b) (legal a noop)");
        assert_eq!(
            Terms::from_rules(&r).unwrap_err(),
            RulesError::MissingSymbol("move")
        );
        let r = rules("(width 3) (height 5) (role a) (role b) (legal a (Move 1 1 1 2))");
        assert_eq!(
            Terms::from_rules(&r).unwrap_err(),
            RulesError::MissingSymbol("noop")
        );
        let r = rules("(width 3) (height 5) (role a) (role b) (legal a (Move 1 1 1 2)) (x NoOp)");
        let t = Terms::from_rules(&r).unwrap();
        assert_eq!((t.move_symbol.as_str(), t.noop()), ("Move", "NoOp"));
    }

    #[test]
    fn the_scrambled_transcript_has_no_size_facts() {
        let Some(reference) = crate::testing::reference_dir() else {
            return;
        };
        let path = reference.join("wire/ggpbase_scrambled_5x5/01.http");
        let raw = std::fs::read_to_string(path).unwrap();
        let start = raw.find("( START").unwrap();
        let end = raw[start..].find("\n").map_or(raw.len(), |e| start + e);
        let message = sx(&raw[start..end]);
        let rules = message.as_list().unwrap()[3].as_list().unwrap();
        assert_eq!(
            Terms::from_rules(rules).unwrap_err(),
            RulesError::MissingSize("width")
        );
    }

    #[test]
    fn moves_round_trip_with_the_rules_spelling() {
        for (text, symbol) in [("move", "move"), ("MOVE", "MOVE")] {
            let r = rules(&format!(
                "(width 5) (height 5) (role w) (role b) ({text} 1) noop"
            ));
            let t = Terms::from_rules(&r).unwrap();
            assert_eq!(t.move_symbol, symbol);
            let mut board = Board::new(t.size);
            for term in ["(move 2 2 2 3)", "(MOVE 3 4 3 3)", "( Move 2 3 1 4 )"] {
                let mv = t
                    .parse_move(&board, &sx(term))
                    .unwrap_or_else(|e| panic!("{e}"));
                let back = t.move_term(&board, mv);
                assert!(back.eq_ci(&sx(term)), "{back} vs {term}");
                assert_eq!(back.head().unwrap().as_atom(), Some(symbol));
                board.make(mv);
            }
            assert_eq!(
                t.move_term(
                    &Board::new(t.size),
                    Board::new(t.size).find_move(1, 2, 1, 3).unwrap()
                )
                .to_string(),
                format!("({symbol} 1 2 1 3)")
            );
        }
    }

    #[test]
    fn illegal_and_malformed_moves_say_why() {
        let t = Terms::from_rules(&course_rules(5, 5)).unwrap();
        let board = Board::new(t.size);
        let illegal = |term: &str| match t.parse_move(&board, &sx(term)) {
            Err(MoveError::Illegal { side, reason, .. }) => {
                assert_eq!(side, Color::White);
                reason
            }
            other => panic!("{term}: {other:?}"),
        };
        assert!(illegal("(move 2 4 2 3)").contains("a black pawn"));
        assert!(illegal("(move 2 3 2 4)").contains("nothing"));
        assert!(illegal("(move 2 1 2 2)").contains("cannot go to"));
        assert!(illegal("(move 2 2 3 3)").contains("cannot go to"));
        assert!(illegal("(move 6 2 6 3)").contains("not a square"));
        assert!(illegal("(move 1 2 0 3)").contains("not a square"));
        for bad in [
            "noop",
            "(move 1 2 1)",
            "(move 1 2 1 3 4)",
            "(jump 1 2 1 3)",
            "(move a 2 1 3)",
            "(move -1 2 1 3)",
            "(move 1.0 2 1 3)",
            "(move 1 2 1 99999999999999999999)",
            "((move) 1 2 1 3)",
            "()",
        ] {
            let e = t.parse_move(&board, &sx(bad)).unwrap_err();
            assert!(matches!(e, MoveError::NotAMove { .. }), "{bad}: {e:?}");
            assert!(e.to_string().contains("(move x1 y1 x2 y2)"), "{e}");
        }
        let mut over = Board::from_diagram("W..\n...\n...\n..B\n", Color::Black).unwrap();
        let e = t.parse_move(&over, &sx("(move 3 1 3 2)")).unwrap_err();
        assert!(e.to_string().contains("over"), "{e}");
        over = Board::from_diagram("..B\nW..\n...\n...\n", Color::Black).unwrap();
        let e = t.parse_move(&over, &sx("(move 3 1 3 2)")).unwrap_err();
        assert!(e.to_string().contains("not a black pawn"), "{e}");
    }
}
