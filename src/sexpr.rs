//! KIF / S-expression reading and printing.
//!
//! GDL is written in KIF: parenthesised lists of symbols. This module reads that text into
//! a [`Sexpr`] tree and prints it back in a canonical form.
//!
//! - `(` and `)` are tokens, `;` starts a comment that runs to the end of the line, ASCII
//!   whitespace separates tokens, and every other run of characters is an atom
//!   (`?x`, `<=`, `kiosk.breakthrough_5x5-1708182551111`, `1`, ...).
//! - Symbols are kept **exactly** as received. GDL is case-insensitive, so compare with
//!   [`Sexpr::is_atom_ci`], [`Sexpr::eq_ci`] and [`Sexpr::head_is`], but echo the original
//!   spelling back to the controller (ggp-base compares replies case-sensitively).
//! - The reader is meant for untrusted network input: it runs in linear time, never
//!   recurses, never panics, and refuses nesting deeper than [`MAX_DEPTH`] (so that the
//!   trees it builds can be dropped, compared and printed without exhausting the stack).

use std::fmt::{self, Write as _};
use std::str::FromStr;

/// Deepest list nesting the reader accepts. Real GDL rarely goes beyond 6 levels.
pub const MAX_DEPTH: usize = 1000;

/// An S-expression: an atom (symbol, variable or number, spelt as received) or a list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sexpr {
    Atom(String),
    List(Vec<Sexpr>),
}

/// Why a text could not be read as S-expression(s). Offsets are byte offsets into the text.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The text holds no expression at all (only whitespace and comments).
    #[error("empty input: expected an S-expression")]
    Empty,
    /// A `(` was never closed; `offset` is that of the outermost unclosed `(`.
    #[error("unbalanced parentheses: the '(' at byte {offset} is never closed")]
    UnbalancedOpen { offset: usize },
    /// A `)` that closes nothing.
    #[error("unbalanced parentheses: unexpected ')' at byte {offset}")]
    UnexpectedClose { offset: usize },
    /// [`Sexpr::parse`] found more text after the one expression it expects.
    #[error("unexpected input at byte {offset} after the end of the expression")]
    TrailingInput { offset: usize },
    /// Lists nested deeper than `limit` levels.
    #[error("expression nested deeper than {limit} levels")]
    TooDeep { limit: usize },
}

impl Sexpr {
    /// Reads exactly one expression; whitespace and comments around it are allowed.
    pub fn parse(text: &str) -> Result<Sexpr, ParseError> {
        let mut reader = Reader::new(text);
        let expr = reader.next_expr()?.ok_or(ParseError::Empty)?;
        match reader.skip_trivia() {
            Some(offset) => Err(ParseError::TrailingInput { offset }),
            None => Ok(expr),
        }
    }

    /// Reads zero or more top-level expressions (e.g. a whole GDL file).
    pub fn parse_all(text: &str) -> Result<Vec<Sexpr>, ParseError> {
        let mut reader = Reader::new(text);
        let mut out = Vec::new();
        while let Some(expr) = reader.next_expr()? {
            out.push(expr);
        }
        Ok(out)
    }

    /// An atom spelt `s`. No check is made that `s` is a valid token: an atom containing
    /// whitespace, `(`, `)` or `;` prints as text that reads back differently.
    pub fn atom(s: impl Into<String>) -> Sexpr {
        Sexpr::Atom(s.into())
    }

    /// A list of `items`.
    pub fn list(items: Vec<Sexpr>) -> Sexpr {
        Sexpr::List(items)
    }

    /// The atom's text, or `None` for a list.
    pub fn as_atom(&self) -> Option<&str> {
        match self {
            Sexpr::Atom(s) => Some(s),
            Sexpr::List(_) => None,
        }
    }

    /// The list's items, or `None` for an atom.
    pub fn as_list(&self) -> Option<&[Sexpr]> {
        match self {
            Sexpr::Atom(_) => None,
            Sexpr::List(items) => Some(items),
        }
    }

    /// True for an atom.
    pub fn is_atom(&self) -> bool {
        matches!(self, Sexpr::Atom(_))
    }

    /// True for a list (including the empty list).
    pub fn is_list(&self) -> bool {
        matches!(self, Sexpr::List(_))
    }

    /// True if this is an atom equal to `s` ignoring ASCII case.
    pub fn is_atom_ci(&self, s: &str) -> bool {
        self.as_atom().is_some_and(|a| a.eq_ignore_ascii_case(s))
    }

    /// Structural equality ignoring the ASCII case of atoms.
    pub fn eq_ci(&self, other: &Sexpr) -> bool {
        // Explicit work list: no recursion, whatever the depth.
        let mut pending = vec![(self, other)];
        while let Some((a, b)) = pending.pop() {
            match (a, b) {
                (Sexpr::Atom(x), Sexpr::Atom(y)) => {
                    if !x.eq_ignore_ascii_case(y) {
                        return false;
                    }
                }
                (Sexpr::List(xs), Sexpr::List(ys)) => {
                    if xs.len() != ys.len() {
                        return false;
                    }
                    pending.extend(xs.iter().zip(ys));
                }
                _ => return false,
            }
        }
        true
    }

    /// The first element of a non-empty list, or `None`.
    pub fn head(&self) -> Option<&Sexpr> {
        self.as_list().and_then(<[Sexpr]>::first)
    }

    /// The elements after the first of a non-empty list, or `None`.
    pub fn args(&self) -> Option<&[Sexpr]> {
        self.as_list()
            .and_then(|items| items.split_first())
            .map(|(_, rest)| rest)
    }

    /// True if this is a list whose first element is an atom equal to `s` ignoring ASCII case.
    pub fn head_is(&self, s: &str) -> bool {
        self.head().is_some_and(|h| h.is_atom_ci(s))
    }

    /// A copy with every atom converted to ASCII lower case.
    pub fn to_ascii_lowercase(&self) -> Sexpr {
        match self {
            Sexpr::Atom(a) => Sexpr::Atom(a.to_ascii_lowercase()),
            Sexpr::List(items) => {
                Sexpr::List(items.iter().map(Sexpr::to_ascii_lowercase).collect())
            }
        }
    }
}

impl FromStr for Sexpr {
    type Err = ParseError;

    /// Same as [`Sexpr::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Sexpr::parse(s)
    }
}

impl fmt::Display for Sexpr {
    /// Canonical form: atoms as spelt, lists as `(a b (c d))` with single spaces and no
    /// padding inside the parentheses; `()` for the empty list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items = match self {
            Sexpr::Atom(a) => return f.write_str(a),
            Sexpr::List(items) => items,
        };
        f.write_char('(')?;
        // Explicit stack of (remaining items, at start of list): no recursion.
        let mut stack = vec![(items.iter(), true)];
        while let Some((iter, at_start)) = stack.last_mut() {
            let Some(item) = iter.next() else {
                f.write_char(')')?;
                stack.pop();
                continue;
            };
            if !*at_start {
                f.write_char(' ')?;
            }
            *at_start = false;
            match item {
                Sexpr::Atom(a) => f.write_str(a)?,
                Sexpr::List(sub) => {
                    f.write_char('(')?;
                    stack.push((sub.iter(), true));
                }
            }
        }
        Ok(())
    }
}

/// A lexical token; offsets are byte offsets into the text.
enum Token<'a> {
    Open(usize),
    Close(usize),
    Atom(&'a str),
}

/// Whitespace that separates tokens (ASCII only, including vertical tab).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// Bytes that end an atom. All delimiters are ASCII, so splitting the text at them always
/// falls on a UTF-8 character boundary.
fn is_delimiter(b: u8) -> bool {
    matches!(b, b'(' | b')' | b';') || is_space(b)
}

/// Streaming reader over a text: tokens, then expressions built on an explicit stack.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Self {
        Reader { text, pos: 0 }
    }

    /// Skips whitespace and comments; returns the offset of the next token, if any.
    fn skip_trivia(&mut self) -> Option<usize> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if is_space(b) {
                self.pos += 1;
            } else if b == b';' {
                let rest = &bytes[self.pos..];
                self.pos += rest
                    .iter()
                    .position(|&c| c == b'\n' || c == b'\r')
                    .unwrap_or(rest.len());
            } else {
                return Some(self.pos);
            }
        }
        None
    }

    fn next_token(&mut self) -> Option<Token<'a>> {
        let start = self.skip_trivia()?;
        let bytes = self.text.as_bytes();
        match bytes[start] {
            b'(' => {
                self.pos += 1;
                Some(Token::Open(start))
            }
            b')' => {
                self.pos += 1;
                Some(Token::Close(start))
            }
            _ => {
                let rest = &bytes[start..];
                let len = rest
                    .iter()
                    .position(|&c| is_delimiter(c))
                    .unwrap_or(rest.len());
                self.pos = start + len;
                Some(Token::Atom(&self.text[start..self.pos]))
            }
        }
    }

    /// Reads the next top-level expression, or `None` at the end of the text.
    fn next_expr(&mut self) -> Result<Option<Sexpr>, ParseError> {
        // Lists being built: (offset of their '(', items so far).
        let mut open: Vec<(usize, Vec<Sexpr>)> = Vec::new();
        loop {
            let done = match self.next_token() {
                None => {
                    return match open.first() {
                        None => Ok(None),
                        Some(&(offset, _)) => Err(ParseError::UnbalancedOpen { offset }),
                    };
                }
                Some(Token::Open(offset)) => {
                    if open.len() >= MAX_DEPTH {
                        return Err(ParseError::TooDeep { limit: MAX_DEPTH });
                    }
                    open.push((offset, Vec::new()));
                    continue;
                }
                Some(Token::Close(offset)) => match open.pop() {
                    None => return Err(ParseError::UnexpectedClose { offset }),
                    Some((_, items)) => Sexpr::List(items),
                },
                Some(Token::Atom(a)) => Sexpr::Atom(a.to_owned()),
            };
            match open.last_mut() {
                Some((_, items)) => items.push(done),
                None => return Ok(Some(done)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Sexpr {
        Sexpr::atom(s)
    }

    fn l(items: Vec<Sexpr>) -> Sexpr {
        Sexpr::list(items)
    }

    #[test]
    fn atoms() {
        for s in [
            "x",
            "?x",
            "<=",
            "1",
            "100",
            "kiosk.breakthrough_5x5-1708182551111",
            "distinctCell",
            "NIL",
        ] {
            assert_eq!(Sexpr::parse(s), Ok(a(s)));
            assert_eq!(Sexpr::parse(&format!("  \n\t{s} \r\n")), Ok(a(s)));
        }
        assert_eq!(a("x").as_atom(), Some("x"));
        assert_eq!(a("x").as_list(), None);
        assert!(a("x").is_atom() && !a("x").is_list());
        // Non-ASCII text stays inside atoms.
        assert_eq!(
            Sexpr::parse("(é ü\u{fffd})"),
            Ok(l(vec![a("é"), a("ü\u{fffd}")]))
        );
    }

    #[test]
    fn nesting() {
        let e = Sexpr::parse("(<= (legal ?p (move ?x ?y1 ?x ?y2)) (true (control ?p)))").unwrap();
        let expected = l(vec![
            a("<="),
            l(vec![
                a("legal"),
                a("?p"),
                l(vec![a("move"), a("?x"), a("?y1"), a("?x"), a("?y2")]),
            ]),
            l(vec![a("true"), l(vec![a("control"), a("?p")])]),
        ]);
        assert_eq!(e, expected);
        assert!(e.head_is("<="));
        assert_eq!(e.args().map(<[Sexpr]>::len), Some(2));
        assert_eq!(Sexpr::parse("()"), Ok(l(vec![])));
        assert_eq!(Sexpr::parse("(())"), Ok(l(vec![l(vec![])])));
        assert_eq!(
            Sexpr::parse("(a(b)c)"),
            Ok(l(vec![a("a"), l(vec![a("b")]), a("c")]))
        );
        assert_eq!(l(vec![]).head(), None);
        assert_eq!(l(vec![]).args(), None);
        assert!(!l(vec![]).head_is("x"));
        assert!(!a("x").head_is("x"));
    }

    #[test]
    fn comments() {
        let text = "; a comment (with parens\n(role white) ; trailing ) comment\r\n;last";
        assert_eq!(Sexpr::parse(text), Ok(l(vec![a("role"), a("white")])));
        assert_eq!(Sexpr::parse("(a;)\nb)"), Ok(l(vec![a("a"), a("b")])));
        assert_eq!(Sexpr::parse("x;y"), Ok(a("x")));
        assert_eq!(Sexpr::parse_all("; only a comment"), Ok(vec![]));
        assert_eq!(Sexpr::parse("; only a comment"), Err(ParseError::Empty));
    }

    #[test]
    fn ggp_base_spacing() {
        let e = Sexpr::parse("( PLAY m (( move 1 2 1 3 ) noop ) )").unwrap();
        let expected = l(vec![
            a("PLAY"),
            a("m"),
            l(vec![
                l(vec![a("move"), a("1"), a("2"), a("1"), a("3")]),
                a("noop"),
            ]),
        ]);
        assert_eq!(e, expected);
        assert_eq!(e.to_string(), "(PLAY m ((move 1 2 1 3) noop))");
    }

    #[test]
    fn case_is_preserved_and_compared_insensitively() {
        let upper = Sexpr::parse("(MOVE 4 2 4 3)").unwrap();
        let lower = Sexpr::parse("(move 4 2 4 3)").unwrap();
        assert_eq!(upper.to_string(), "(MOVE 4 2 4 3)");
        assert_eq!(lower.to_string(), "(move 4 2 4 3)");
        assert_ne!(upper, lower);
        assert!(upper.eq_ci(&lower));
        assert!(upper.head_is("move") && lower.head_is("MOVE"));
        assert!(a("NoOp").is_atom_ci("noop"));
        assert!(!a("noop").is_atom_ci("noo"));
        assert!(!l(vec![a("noop")]).is_atom_ci("noop"));
        assert!(!upper.eq_ci(&Sexpr::parse("(move 4 2 4 4)").unwrap()));
        assert!(!upper.eq_ci(&Sexpr::parse("(move 4 2 4)").unwrap()));
        assert!(!a("x").eq_ci(&l(vec![a("x")])));
        assert!(l(vec![]).eq_ci(&l(vec![])));
        assert_eq!(upper.to_ascii_lowercase(), lower);
    }

    #[test]
    fn display() {
        assert_eq!(a("x").to_string(), "x");
        assert_eq!(l(vec![]).to_string(), "()");
        assert_eq!(l(vec![l(vec![]), l(vec![])]).to_string(), "(() ())");
        assert_eq!(
            Sexpr::parse(" (  a   b\n(c\td ) ( ) )")
                .unwrap()
                .to_string(),
            "(a b (c d) ())"
        );
    }

    #[test]
    fn display_round_trip() {
        let texts = [
            "x",
            "()",
            "(a b (c d))",
            "( START m1 white (( role white ) ( <= terminal ( true ( x ) ) )) 10 2 )",
            "((((((deep))))) (x) ())",
        ];
        for t in texts {
            let e = Sexpr::parse(t).unwrap();
            assert_eq!(Sexpr::parse(&e.to_string()), Ok(e.clone()), "{t}");
            assert_eq!(e.to_string().parse::<Sexpr>(), Ok(e));
        }
    }

    #[test]
    fn parse_all_reads_files() {
        let gdl = "; Breakthrough\n(role white)\n(role black)\n\n(<= terminal (wins ?p))\nterminal";
        let all = Sexpr::parse_all(gdl).unwrap();
        assert_eq!(all.len(), 4);
        assert!(all[0].head_is("ROLE"));
        assert_eq!(all[3], a("terminal"));
        assert_eq!(Sexpr::parse_all(""), Ok(vec![]));
        assert_eq!(Sexpr::parse_all(" \n\t "), Ok(vec![]));
        assert_eq!(
            Sexpr::parse_all("(a) (b"),
            Err(ParseError::UnbalancedOpen { offset: 4 })
        );
        assert_eq!(
            Sexpr::parse_all("(a) b)"),
            Err(ParseError::UnexpectedClose { offset: 5 })
        );
    }

    #[test]
    fn unbalanced() {
        assert_eq!(
            Sexpr::parse("(a (b c)"),
            Err(ParseError::UnbalancedOpen { offset: 0 })
        );
        assert_eq!(
            Sexpr::parse("  ((a)"),
            Err(ParseError::UnbalancedOpen { offset: 2 })
        );
        assert_eq!(
            Sexpr::parse("(a ; b)"),
            Err(ParseError::UnbalancedOpen { offset: 0 })
        );
        assert_eq!(
            Sexpr::parse(")"),
            Err(ParseError::UnexpectedClose { offset: 0 })
        );
        assert_eq!(
            Sexpr::parse("  ) (a)"),
            Err(ParseError::UnexpectedClose { offset: 2 })
        );
        // One expression read fine, then a stray ')' follows it.
        assert_eq!(
            Sexpr::parse("(a b))"),
            Err(ParseError::TrailingInput { offset: 5 })
        );
    }

    #[test]
    fn trailing_input() {
        assert_eq!(
            Sexpr::parse("(a) (b)"),
            Err(ParseError::TrailingInput { offset: 4 })
        );
        assert_eq!(
            Sexpr::parse("a b"),
            Err(ParseError::TrailingInput { offset: 2 })
        );
        assert_eq!(Sexpr::parse("(a) ; fine\n"), Ok(l(vec![a("a")])));
    }

    #[test]
    fn empty() {
        for t in ["", " ", "\r\n\r\n", "; c", ";\n;\n"] {
            assert_eq!(Sexpr::parse(t), Err(ParseError::Empty), "{t:?}");
            assert_eq!(Sexpr::parse_all(t), Ok(vec![]), "{t:?}");
        }
    }

    #[test]
    fn depth_limit() {
        let ok = format!("{}x{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        let e = Sexpr::parse(&ok).unwrap();
        assert_eq!(e.to_string(), ok);
        assert!(e.eq_ci(&e.clone()));
        let too_deep = format!(
            "{}x{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert_eq!(
            Sexpr::parse(&too_deep),
            Err(ParseError::TooDeep { limit: MAX_DEPTH })
        );
    }

    #[test]
    fn hostile_input() {
        const MIB: usize = 1 << 20;
        assert_eq!(
            Sexpr::parse(&"(".repeat(MIB)),
            Err(ParseError::TooDeep { limit: MAX_DEPTH })
        );
        assert_eq!(
            Sexpr::parse_all(&"(a ".repeat(MIB / 3)),
            Err(ParseError::TooDeep { limit: MAX_DEPTH })
        );
        assert_eq!(
            Sexpr::parse(&")".repeat(MIB)),
            Err(ParseError::UnexpectedClose { offset: 0 })
        );
        assert_eq!(
            Sexpr::parse_all(&"()".repeat(MIB / 2)).map(|v| v.len()),
            Ok(MIB / 2)
        );
        assert_eq!(Sexpr::parse(&"; ".repeat(MIB / 2)), Err(ParseError::Empty));
        let wide = format!("({})", "x ".repeat(MIB / 2));
        assert_eq!(
            Sexpr::parse(&wide).map(|e| e.as_list().map(<[Sexpr]>::len)),
            Ok(Some(MIB / 2))
        );
        let long_atom = "y".repeat(MIB);
        assert_eq!(Sexpr::parse(&long_atom), Ok(a(&long_atom)));
    }

    #[test]
    fn random_input_never_panics_and_round_trips() {
        // Small deterministic xorshift generator: no external crates needed.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet: Vec<char> = "(((())) ;\n\tab?Z1<=\r\u{e9}\u{0}".chars().collect();
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            if let Ok(e) = Sexpr::parse(&text) {
                assert_eq!(Sexpr::parse(&e.to_string()), Ok(e), "{text:?}");
            }
            if let Ok(all) = Sexpr::parse_all(&text) {
                let joined: Vec<String> = all.iter().map(ToString::to_string).collect();
                assert_eq!(Sexpr::parse_all(&joined.join(" ")), Ok(all), "{text:?}");
            }
        }
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            ParseError::UnexpectedClose { offset: 3 }.to_string(),
            "unbalanced parentheses: unexpected ')' at byte 3"
        );
        assert!(
            ParseError::TooDeep { limit: 7 }
                .to_string()
                .contains("deeper than 7")
        );
    }
}
