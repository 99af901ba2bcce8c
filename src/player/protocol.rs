//! GGP request messages: parsing the body of a controller's HTTP request.
//!
//! | message | body |
//! |---|---|
//! | start | `(START <matchid> <role> (<rule> …) <startclock> <playclock>)` |
//! | play  | `(PLAY <matchid> NIL)` on the first turn, else `(PLAY <matchid> (<move> …))` |
//! | stop  | `(STOP <matchid> (<move> …))` |
//! | abort | `(ABORT <matchid>)` |
//! | info  | `(INFO)`, or an empty body |
//! | preview | `(PREVIEW (<rule> …) <previewclock>)` |
//!
//! Keywords and `NIL` are matched in any case; every other symbol (match id, role, rules,
//! moves) is kept exactly as received, since replies must echo the spelling of the rules.

use std::time::Duration;

use crate::sexpr::{ParseError, Sexpr};

/// Largest clock value accepted, in seconds (one day).
pub const MAX_CLOCK_SECS: u64 = 24 * 60 * 60;

/// Longest excerpt of offending input quoted in an error message, in characters.
const SNIPPET_CHARS: usize = 60;

/// One request from a game controller.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// A new match. `role` is spelt as received; `rules` are the GDL sentences.
    Start {
        match_id: String,
        role: String,
        rules: Vec<Sexpr>,
        start_clock: Duration,
        play_clock: Duration,
    },
    /// `moves` is None for NIL (first turn), else the previous joint move, one term per role in role order.
    Play {
        match_id: String,
        moves: Option<Vec<Sexpr>>,
    },
    /// The match is over; `moves` is the last joint move (None for NIL).
    Stop {
        match_id: String,
        moves: Option<Vec<Sexpr>>,
    },
    /// The match was cancelled.
    Abort { match_id: String },
    /// Availability ping: `(INFO)` or an empty body.
    Info,
    /// Rules shown ahead of a match, to prepare during `preview_clock`.
    Preview {
        rules: Vec<Sexpr>,
        preview_clock: Duration,
    },
}

/// Why a request body is not a valid GGP message.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    #[error("malformed message: {0}")]
    Syntax(#[from] ParseError),
    #[error("malformed message: expected a list such as (PLAY <match id> <moves>), got an atom")]
    NotAList,
    #[error("unknown message '{0}': expected one of START, PLAY, STOP, ABORT, INFO, PREVIEW")]
    UnknownMessage(String),
    #[error("{message} takes {expected} argument(s), got {got}")]
    WrongArity {
        message: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("bad match id '{0}': expected a single token")]
    BadMatchId(String),
    #[error("bad role '{0}': expected a single token")]
    BadRole(String),
    #[error("bad rules: expected a list of GDL sentences")]
    BadRules,
    #[error("bad rules: the list of GDL sentences is empty")]
    EmptyRules,
    #[error("bad {0}: expected a non-negative number of seconds, at most {MAX_CLOCK_SECS}")]
    BadClock(String),
    #[error("bad moves '{0}': expected NIL or a list of move terms")]
    BadMoves(String),
}

impl Request {
    /// Parses a request body. An empty (whitespace/comment-only) body is [`Request::Info`].
    pub fn parse(body: &str) -> Result<Request, ProtocolError> {
        let message = match Sexpr::parse(body) {
            Ok(message) => message,
            Err(ParseError::Empty) => return Ok(Request::Info),
            Err(e) => return Err(e.into()),
        };
        let items = match &message {
            Sexpr::List(items) => items.as_slice(),
            // A bare `INFO` atom is harmless to understand.
            Sexpr::Atom(a) if a.eq_ignore_ascii_case("info") => return Ok(Request::Info),
            Sexpr::Atom(_) => return Err(ProtocolError::NotAList),
        };
        let Some((keyword, args)) = items.split_first() else {
            return Err(ProtocolError::UnknownMessage("()".to_owned()));
        };
        let Some(keyword) = keyword.as_atom() else {
            return Err(ProtocolError::UnknownMessage(snippet(keyword)));
        };
        let kw = |name: &str| keyword.eq_ignore_ascii_case(name);
        if kw("start") {
            let [id, role, rules, start, play] = arity::<5>("START", args)?;
            Ok(Request::Start {
                match_id: match_id(id)?,
                role: role_name(role)?,
                rules: rules_list(rules)?,
                start_clock: clock(start, "start clock")?,
                play_clock: clock(play, "play clock")?,
            })
        } else if kw("play") {
            let [id, moves] = arity::<2>("PLAY", args)?;
            Ok(Request::Play {
                match_id: match_id(id)?,
                moves: joint_move(moves)?,
            })
        } else if kw("stop") {
            let [id, moves] = arity::<2>("STOP", args)?;
            Ok(Request::Stop {
                match_id: match_id(id)?,
                moves: joint_move(moves)?,
            })
        } else if kw("abort") {
            let [id] = arity::<1>("ABORT", args)?;
            Ok(Request::Abort {
                match_id: match_id(id)?,
            })
        } else if kw("info") {
            let [] = arity::<0>("INFO", args)?;
            Ok(Request::Info)
        } else if kw("preview") {
            let [rules, preview] = arity::<2>("PREVIEW", args)?;
            Ok(Request::Preview {
                rules: rules_list(rules)?,
                preview_clock: clock(preview, "preview clock")?,
            })
        } else {
            Err(ProtocolError::UnknownMessage(truncate(keyword)))
        }
    }

    /// The match the request is about (START, PLAY, STOP, ABORT), if any.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Request::Start { match_id, .. }
            | Request::Play { match_id, .. }
            | Request::Stop { match_id, .. }
            | Request::Abort { match_id } => Some(match_id),
            Request::Info | Request::Preview { .. } => None,
        }
    }

    /// The message kind in lower case, for logs: "start", "play", "stop", "abort", "info",
    /// "preview".
    pub fn kind(&self) -> &'static str {
        match self {
            Request::Start { .. } => "start",
            Request::Play { .. } => "play",
            Request::Stop { .. } => "stop",
            Request::Abort { .. } => "abort",
            Request::Info => "info",
            Request::Preview { .. } => "preview",
        }
    }
}

/// The arguments as an array of exactly `N`, or [`ProtocolError::WrongArity`].
fn arity<'a, const N: usize>(
    message: &'static str,
    args: &'a [Sexpr],
) -> Result<&'a [Sexpr; N], ProtocolError> {
    args.try_into().map_err(|_| ProtocolError::WrongArity {
        message,
        expected: N,
        got: args.len(),
    })
}

fn match_id(e: &Sexpr) -> Result<String, ProtocolError> {
    e.as_atom()
        .map(str::to_owned)
        .ok_or_else(|| ProtocolError::BadMatchId(snippet(e)))
}

fn role_name(e: &Sexpr) -> Result<String, ProtocolError> {
    e.as_atom()
        .map(str::to_owned)
        .ok_or_else(|| ProtocolError::BadRole(snippet(e)))
}

fn rules_list(e: &Sexpr) -> Result<Vec<Sexpr>, ProtocolError> {
    match e.as_list() {
        None => Err(ProtocolError::BadRules),
        Some([]) => Err(ProtocolError::EmptyRules),
        Some(rules) => Ok(rules.to_vec()),
    }
}

/// A clock in seconds: a non-negative integer or decimal (`10`, `2.5`), at most one day.
fn clock(e: &Sexpr, what: &str) -> Result<Duration, ProtocolError> {
    let bad = || ProtocolError::BadClock(format!("{what} '{}'", snippet(e)));
    let text = e.as_atom().ok_or_else(bad)?;
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.len() + frac.len() == 0 || !digits_only(int) || !digits_only(frac) {
        return Err(bad());
    }
    // Only digits and at most one '.' remain, so this is an ordinary finite number.
    let secs: f64 = text.parse().map_err(|_| bad())?;
    if !(0.0..=MAX_CLOCK_SECS as f64).contains(&secs) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// `NIL` (or `()`) → None; a list of terms → Some(terms).
fn joint_move(e: &Sexpr) -> Result<Option<Vec<Sexpr>>, ProtocolError> {
    match e {
        Sexpr::Atom(a) if a.eq_ignore_ascii_case("nil") => Ok(None),
        Sexpr::Atom(_) => Err(ProtocolError::BadMoves(snippet(e))),
        // In KIF, as in Lisp, `()` is another spelling of NIL.
        Sexpr::List(moves) if moves.is_empty() => Ok(None),
        Sexpr::List(moves) => {
            // A move is an atom (`noop`) or a non-empty list (`(move 1 2 1 3)`).
            if moves
                .iter()
                .any(|m| m.as_list().is_some_and(<[Sexpr]>::is_empty))
            {
                return Err(ProtocolError::BadMoves(snippet(e)));
            }
            Ok(Some(moves.clone()))
        }
    }
}

/// The expression's text, shortened for an error message.
fn snippet(e: &Sexpr) -> String {
    match e {
        Sexpr::Atom(a) => truncate(a),
        // Print at most a little more than needed: a list can be a whole rule set.
        Sexpr::List(_) => truncate(&e.to_string()),
    }
}

fn truncate(s: &str) -> String {
    match s.char_indices().nth(SNIPPET_CHARS) {
        None => s.to_owned(),
        Some((cut, _)) => format!("{}…", &s[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::dialect::Dialect;
    use std::path::{Path, PathBuf};

    /// The body of a raw request file: the Content-Length bytes after the header block.
    fn body_of_http(raw: &[u8], name: &str) -> String {
        // The controllers end header lines with a bare LF; the files end with a CRLF CRLF
        // *after* the body. So the header block ends at whichever terminator comes first.
        let find = |pat: &[u8]| raw.windows(pat.len()).position(|w| w == pat);
        let (header_end, body_start) = match (find(b"\r\n\r\n"), find(b"\n\n")) {
            (Some(crlf), Some(lf)) if lf < crlf => (lf, lf + 2),
            (Some(crlf), _) => (crlf, crlf + 4),
            (None, Some(lf)) => (lf, lf + 2),
            (None, None) => panic!("{name}: no end of headers"),
        };
        let headers = String::from_utf8_lossy(&raw[..header_end]);
        let length: usize = headers
            .lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.trim()
                    .eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().expect("numeric Content-Length"))
            })
            .unwrap_or_else(|| panic!("{name}: no Content-Length"));
        let body = raw
            .get(body_start..body_start + length)
            .unwrap_or_else(|| panic!("{name}: body shorter than Content-Length"));
        String::from_utf8_lossy(body).into_owned()
    }

    /// Every transcript directory in `wire`, with its request bodies in the order sent.
    fn transcripts(wire: &Path) -> Vec<(String, Vec<(String, String)>)> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(wire)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", wire.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        dirs.iter()
            .map(|dir| {
                let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                    .unwrap()
                    .map(|entry| entry.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|x| x == "http"))
                    .collect();
                files.sort();
                let bodies = files
                    .iter()
                    .map(|f| {
                        let name = display_name(f);
                        let raw = std::fs::read(f).unwrap();
                        let body = body_of_http(&raw, &name);
                        (name, body)
                    })
                    .collect();
                (display_name(dir), bodies)
            })
            .collect()
    }

    fn display_name(p: &Path) -> String {
        let parts: Vec<_> = p.iter().rev().take(2).collect();
        format!(
            "{}/{}",
            parts[1].to_string_lossy(),
            parts[0].to_string_lossy()
        )
    }

    fn sx(text: &str) -> Sexpr {
        Sexpr::parse(text).unwrap()
    }

    #[test]
    fn wire_transcripts_parse() {
        let Some(reference) = crate::testing::reference_dir() else {
            return;
        };
        let all = transcripts(&reference.join("wire"));
        assert!(all.len() >= 3, "expected the three reference transcripts");
        for (dir, bodies) in &all {
            check_match_messages(dir, bodies);
        }
    }

    /// A 3x5 match of course-style rules as each controller writes it (`Dialect`), white
    /// playing the engine's first legal move each turn: the bodies the transcripts hold.
    fn written_match(dialect: Dialect) -> Vec<(String, String)> {
        let size = "3x5".parse().unwrap();
        let rules =
            Sexpr::parse_all(&crate::games::breakthrough::gdl::course_style_rules(size)).unwrap();
        let id = "kiosk.breakthrough_3x5-1";
        let mut bodies = vec![
            dialect.start(id, "white", &rules, 10, 2),
            dialect.play(id, None),
        ];
        // The reasoner's first legal moves (the side to wait has only its noop).
        let gdl = crate::gdl::Gdl::from_sexprs(&rules).unwrap();
        let mut state = gdl.initial_state();
        for ply in 0..8 {
            let chosen: Vec<_> = (0..2)
                .map(|r| gdl.legal_moves(&state, r)[0].clone())
                .collect();
            let joint: Vec<Sexpr> = chosen.iter().map(|t| sx(&gdl.display(t))).collect();
            state = gdl.next_state(&state, &chosen);
            bodies.push(if ply == 7 {
                dialect.stop(id, &joint)
            } else {
                dialect.play(id, Some(&joint))
            });
        }
        bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| (format!("{:02}.http", i + 1), body))
            .collect()
    }

    #[test]
    fn controller_messages_parse_like_the_transcripts() {
        for (dir, dialect) in [
            ("dresden_3x5", Dialect::Dresden),
            ("ggpbase_3x5", Dialect::GgpBase),
        ] {
            check_match_messages(dir, &written_match(dialect));
        }
    }

    /// The requests of one match, as sent by the controller `dir` names: START with the
    /// rules as spelt, PLAY NIL, joint moves of one move and one noop, STOP.
    fn check_match_messages(dir: &str, bodies: &[(String, String)]) {
        assert!(bodies.len() >= 3, "{dir}: too few requests");
        let requests: Vec<Request> = bodies
            .iter()
            .map(|(name, body)| {
                Request::parse(body).unwrap_or_else(|e| panic!("{name}: {e}\n{body}"))
            })
            .collect();

        let Request::Start {
            match_id,
            role,
            rules,
            start_clock,
            play_clock,
        } = &requests[0]
        else {
            panic!("{dir}: first request is not START: {:?}", requests[0]);
        };
        let (expected_role, expected_fact) = if dir.contains("dresden") {
            ("WHITE", "(WIDTH 3)")
        } else if dir.contains("scrambled") {
            ("deworming", "(role deworming)")
        } else {
            ("white", "(width 3)")
        };
        assert_eq!(role, expected_role, "{dir}");
        assert_eq!(*start_clock, Duration::from_secs(10), "{dir}");
        assert_eq!(*play_clock, Duration::from_secs(2), "{dir}");
        assert!(rules.len() > 10, "{dir}: {} rules", rules.len());
        // Exact spelling as received, and case-insensitively for `(width 3)`.
        assert!(rules.contains(&sx(expected_fact)), "{dir}: {expected_fact}");
        if !dir.contains("scrambled") {
            assert!(rules.iter().any(|r| r.eq_ci(&sx("(width 3)"))), "{dir}");
        }
        assert!(rules.iter().any(|r| r.head_is("<=")), "{dir}");
        assert_eq!(requests[0].kind(), "start");

        let last = requests.len() - 1;
        for (i, request) in requests.iter().enumerate().skip(1) {
            let name = &bodies[i].0;
            assert_eq!(request.match_id(), Some(match_id.as_str()), "{name}");
            let moves = match request {
                Request::Play { moves, .. } if i < last => moves,
                Request::Stop { moves, .. } if i == last => moves,
                other => panic!("{name}: unexpected {other:?}"),
            };
            if i == 1 {
                assert_eq!(moves, &None, "{name}: first PLAY must be NIL");
                continue;
            }
            let moves = moves.as_ref().unwrap_or_else(|| panic!("{name}: no moves"));
            assert_eq!(moves.len(), 2, "{name}");
            // Breakthrough alternates: one role moves `(move x1 y1 x2 y2)`, the other
            // plays its noop atom.
            let atoms = moves.iter().filter(|m| m.is_atom()).count();
            assert_eq!(atoms, 1, "{name}");
            let mv = moves.iter().find(|m| m.is_list()).unwrap();
            assert_eq!(mv.as_list().map(<[Sexpr]>::len), Some(5), "{name}");
        }
        assert_eq!(requests[last].kind(), "stop", "{dir}");
    }

    #[test]
    fn start_keeps_spelling() {
        let r =
            Request::parse("(start Match.1-x_2 WHITE ((ROLE WHITE) (role black)) 10 3)").unwrap();
        assert_eq!(
            r,
            Request::Start {
                match_id: "Match.1-x_2".into(),
                role: "WHITE".into(),
                rules: vec![sx("(ROLE WHITE)"), sx("(role black)")],
                start_clock: Duration::from_secs(10),
                play_clock: Duration::from_secs(3),
            }
        );
        assert_eq!(r.match_id(), Some("Match.1-x_2"));
        assert_eq!(r.kind(), "start");
    }

    #[test]
    fn play_and_stop() {
        let dresden = Request::parse("(PLAY TestMatch_1 ((MOVE 4 2 4 3) NOOP))").unwrap();
        assert_eq!(
            dresden,
            Request::Play {
                match_id: "TestMatch_1".into(),
                moves: Some(vec![sx("(MOVE 4 2 4 3)"), sx("NOOP")]),
            }
        );
        let spaced = Request::parse("( PLAY m1 (( move 1 2 1 3 ) noop ) )").unwrap();
        assert_eq!(
            spaced,
            Request::Play {
                match_id: "m1".into(),
                moves: Some(vec![sx("(move 1 2 1 3)"), sx("noop")]),
            }
        );
        let scrambled = Request::parse("(STOP m (andalusian ( globalized 4 2 3 1 ) ) )").unwrap();
        assert_eq!(
            scrambled,
            Request::Stop {
                match_id: "m".into(),
                moves: Some(vec![sx("andalusian"), sx("(globalized 4 2 3 1)")]),
            }
        );
        for nil in ["NIL", "nil", "Nil", "()"] {
            let r = Request::parse(&format!("(play m {nil})")).unwrap();
            assert_eq!(
                r,
                Request::Play {
                    match_id: "m".into(),
                    moves: None
                }
            );
            let r = Request::parse(&format!("(Stop m {nil})")).unwrap();
            assert_eq!(r.kind(), "stop");
        }
    }

    #[test]
    fn abort_info_preview() {
        assert_eq!(
            Request::parse("( ABORT kiosk.breakthrough_5x5-1708182551111 )"),
            Ok(Request::Abort {
                match_id: "kiosk.breakthrough_5x5-1708182551111".into()
            })
        );
        for body in ["", "   \r\n", "(INFO)", "( info )", "INFO", "; ping\n"] {
            let r = Request::parse(body);
            assert_eq!(r, Ok(Request::Info), "{body:?}");
        }
        assert_eq!(Request::Info.match_id(), None);
        assert_eq!(Request::Info.kind(), "info");
        let preview = Request::parse("(PREVIEW ((role white) (role black)) 2.5)").unwrap();
        assert_eq!(
            preview,
            Request::Preview {
                rules: vec![sx("(role white)"), sx("(role black)")],
                preview_clock: Duration::from_millis(2500),
            }
        );
        assert_eq!(preview.kind(), "preview");
        assert_eq!(preview.match_id(), None);
    }

    #[test]
    fn clocks() {
        let start = |c: &str| {
            Request::parse(&format!("(START m r ((role r)) {c} 1)")).map(|r| match r {
                Request::Start { start_clock, .. } => start_clock,
                _ => unreachable!(),
            })
        };
        assert_eq!(start("0"), Ok(Duration::ZERO));
        assert_eq!(start("10"), Ok(Duration::from_secs(10)));
        assert_eq!(start("007"), Ok(Duration::from_secs(7)));
        assert_eq!(start("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(start("3."), Ok(Duration::from_secs(3)));
        assert_eq!(start(".5"), Ok(Duration::from_millis(500)));
        assert_eq!(start("86400"), Ok(Duration::from_secs(86400)));
        for bad in [
            "-1", "-0.5", "+1", "NaN", "nan", "inf", "Infinity", "1e3", "ten", ".", "1.2.3",
            "86401", "1e400", "(10)", "0x10", "١٠",
        ] {
            match start(bad) {
                Err(ProtocolError::BadClock(msg)) => {
                    assert!(msg.contains("start clock"), "{bad}: {msg}")
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        let huge = "9".repeat(400);
        assert!(matches!(start(&huge), Err(ProtocolError::BadClock(_))));
        let e = Request::parse("(START m r ((role r)) 10 -2)").unwrap_err();
        assert!(e.to_string().contains("play clock '-2'"), "{e}");
        assert!(matches!(
            Request::parse("(PREVIEW ((role r)) x)"),
            Err(ProtocolError::BadClock(_))
        ));
    }

    /// A request body and a check of the error it must produce.
    type MalformedCase = (&'static str, fn(&ProtocolError) -> bool);

    #[test]
    fn malformed() {
        use ProtocolError as E;
        let cases: &[MalformedCase] = &[
            ("garbage", |e| matches!(e, E::NotAList)),
            ("GET / HTTP/1.1", |e| {
                matches!(e, E::Syntax(ParseError::TrailingInput { .. }))
            }),
            ("(PLAY m NIL", |e| {
                matches!(e, E::Syntax(ParseError::UnbalancedOpen { .. }))
            }),
            ("(PLAY m NIL))", |e| {
                matches!(e, E::Syntax(ParseError::TrailingInput { .. }))
            }),
            (")PLAY m NIL(", |e| {
                matches!(e, E::Syntax(ParseError::UnexpectedClose { .. }))
            }),
            ("(FOO x)", |e| *e == E::UnknownMessage("FOO".into())),
            ("()", |e| matches!(e, E::UnknownMessage(_))),
            ("((PLAY) m NIL)", |e| matches!(e, E::UnknownMessage(_))),
            ("(PLAY m)", |e| {
                *e == E::WrongArity {
                    message: "PLAY",
                    expected: 2,
                    got: 1,
                }
            }),
            ("(PLAY m NIL extra)", |e| {
                matches!(e, E::WrongArity { got: 3, .. })
            }),
            ("(START m r ((role r)) 10)", |e| {
                matches!(
                    e,
                    E::WrongArity {
                        message: "START",
                        expected: 5,
                        got: 4
                    }
                )
            }),
            ("(STOP)", |e| {
                matches!(
                    e,
                    E::WrongArity {
                        message: "STOP",
                        ..
                    }
                )
            }),
            ("(ABORT)", |e| {
                matches!(
                    e,
                    E::WrongArity {
                        message: "ABORT",
                        ..
                    }
                )
            }),
            ("(ABORT a b)", |e| {
                matches!(
                    e,
                    E::WrongArity {
                        message: "ABORT",
                        ..
                    }
                )
            }),
            ("(INFO x)", |e| {
                matches!(
                    e,
                    E::WrongArity {
                        message: "INFO",
                        ..
                    }
                )
            }),
            ("(PREVIEW ((role r)))", |e| {
                matches!(
                    e,
                    E::WrongArity {
                        message: "PREVIEW",
                        ..
                    }
                )
            }),
            ("(START m r ((role r)) -10 2)", |e| {
                matches!(e, E::BadClock(_))
            }),
            ("(PLAY (m) NIL)", |e| *e == E::BadMatchId("(m)".into())),
            ("(ABORT ())", |e| matches!(e, E::BadMatchId(_))),
            ("(START (m) r ((role r)) 10 2)", |e| {
                matches!(e, E::BadMatchId(_))
            }),
            ("(START m (r) ((role r)) 10 2)", |e| {
                *e == E::BadRole("(r)".into())
            }),
            ("(START m r rules 10 2)", |e| *e == E::BadRules),
            ("(START m r NIL 10 2)", |e| *e == E::BadRules),
            ("(START m r () 10 2)", |e| *e == E::EmptyRules),
            ("(PREVIEW rules 10)", |e| *e == E::BadRules),
            ("(PLAY m noop)", |e| *e == E::BadMoves("noop".into())),
            ("(PLAY m (() noop))", |e| matches!(e, E::BadMoves(_))),
            ("(STOP m move)", |e| matches!(e, E::BadMoves(_))),
        ];
        for (body, expected) in cases {
            match Request::parse(body) {
                Err(e) => {
                    assert!(expected(&e), "{body:?}: unexpected error {e:?}");
                    assert!(!e.to_string().is_empty());
                }
                Ok(r) => panic!("{body:?}: parsed as {r:?}"),
            }
        }
    }

    #[test]
    fn error_messages_are_readable_and_short() {
        let e = Request::parse("(FOO x)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown message 'FOO': expected one of START, PLAY, STOP, ABORT, INFO, PREVIEW"
        );
        let e = Request::parse("(PLAY m)").unwrap_err();
        assert_eq!(e.to_string(), "PLAY takes 2 argument(s), got 1");
        let e = Request::parse("(PLAY m").unwrap_err();
        assert!(
            e.to_string().starts_with("malformed message: unbalanced"),
            "{e}"
        );
        // A huge offending term is quoted only in part.
        let body = format!("(PLAY ({}) NIL)", "x ".repeat(100_000));
        let e = Request::parse(&body).unwrap_err();
        assert!(matches!(e, ProtocolError::BadMatchId(_)));
        assert!(e.to_string().chars().count() < 200, "{e}");
        let body = format!("({} m)", "é".repeat(1000));
        let e = Request::parse(&body).unwrap_err();
        assert!(e.to_string().chars().count() < 200, "{e}");
    }

    #[test]
    fn hostile_bodies_never_panic() {
        const MIB: usize = 1 << 20;
        assert_eq!(
            Request::parse(&"(".repeat(MIB)),
            Err(ProtocolError::Syntax(ParseError::TooDeep {
                limit: crate::sexpr::MAX_DEPTH
            }))
        );
        assert!(Request::parse(&")".repeat(MIB)).is_err());
        let lossy = String::from_utf8_lossy(&[0xff, 0xfe, b'(', 0x80, b')']).into_owned();
        assert!(Request::parse(&lossy).is_err());
        // Deterministic pseudo-random bodies built from message fragments.
        let pieces = [
            "(",
            ")",
            " ",
            "START",
            "play",
            "STOP",
            "ABORT",
            "INFO",
            "PREVIEW",
            "NIL",
            "m",
            "-1",
            "2.5",
            "10",
            "(role r)",
            "noop",
            ";",
            "\n",
            "x",
            "(move 1 2 1 3)",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..5000 {
            let mut body = String::new();
            for _ in 0..(state % 12) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                body.push_str(pieces[(state % pieces.len() as u64) as usize]);
                body.push(' ');
            }
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            if let Ok(r) = Request::parse(&body) {
                // Whatever parses is a consistent request.
                assert!(!r.kind().is_empty());
            }
        }
    }
}
