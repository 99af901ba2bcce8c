//! Property tests of everything a controller's bytes reach: the message parser, the
//! S-expression reader, the GDL compiler and START's choice of who plays (every game's
//! recogniser, then the reasoner). On arbitrary bytes and on well-formed but wrong terms,
//! each returns a value or a short, one-line error; never a panic.

use std::time::Duration;

use ggp_player::agent::{AgentConfig, AgentKind};
use ggp_player::gdl::Gdl;
use ggp_player::player::protocol::Request;
use ggp_player::player::start;
use ggp_player::sexpr::Sexpr;
use proptest::prelude::*;

/// A readable error: something, on one line, not a wall of text.
fn clear(message: &str) -> bool {
    !message.trim().is_empty() && !message.contains('\n') && message.chars().count() < 400
}

/// Text made of the pieces messages and rules are made of, so that the parsers get past
/// their first character: keywords, numbers (huge and negative too), variables, comments,
/// brackets, odd characters.
fn soup() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "(",
        ")",
        " ",
        "\n",
        "; c\n",
        "START",
        "play",
        "STOP",
        "ABORT",
        "INFO",
        "PREVIEW",
        "nil",
        "m1",
        "white",
        "10",
        "2.5",
        "-1",
        "99999999999999999999999",
        "1e400",
        "?x",
        "<=",
        "\"",
        "\u{0}",
        "é",
    ];
    let piece = prop_oneof![
        prop::sample::select(PIECES).prop_map(str::to_owned),
        "[a-z0-9]{1,4}",
    ];
    prop::collection::vec(piece, 0..120).prop_map(|p| p.concat())
}

/// A GDL-looking term: keywords, constants, numbers and variables, nested a few levels.
fn term() -> impl Strategy<Value = Sexpr> {
    const ATOMS: &[&str] = &[
        "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not",
        "or", "base", "input", "<=", "cell", "control", "white", "black", "noop", "1", "2", "100",
        "?x", "?y",
    ];
    let atom = prop::sample::select(ATOMS).prop_map(Sexpr::atom);
    atom.prop_recursive(4, 40, 5, |inner| {
        prop::collection::vec(inner, 0..5).prop_map(Sexpr::List)
    })
}

/// A message of the right shape with odd parts: ids, roles, clocks (negative, huge,
/// fractional, not numbers) and moves of any shape.
fn message() -> impl Strategy<Value = String> {
    let id = "[a-zA-Z0-9._-]{0,12}|\\(\\)|\\?x";
    let clock = "-?[0-9]{0,25}(\\.[0-9]{0,5})?|nil|\\(1\\)";
    let moves = prop_oneof![
        Just("nil".to_owned()),
        prop::collection::vec(term(), 0..4).prop_map(|t| Sexpr::List(t).to_string()),
        term().prop_map(|t| t.to_string()),
    ];
    (0..6u8, id, "[a-z]{0,6}", clock, clock, moves, rules()).prop_map(
        |(kind, id, role, c1, c2, moves, rules)| {
            let rules = Sexpr::List(rules);
            match kind {
                0 => format!("(START {id} {role} {rules} {c1} {c2})"),
                1 => format!("(PLAY {id} {moves})"),
                2 => format!("(STOP {id} {moves})"),
                3 => format!("(ABORT {id} {moves})"),
                4 => format!("(PREVIEW {rules} {c1})"),
                _ => format!("(INFO {id})"),
            }
        },
    )
}

/// Rules that start well (two roles, an initial state, a rule) and then go wrong.
fn rules() -> impl Strategy<Value = Vec<Sexpr>> {
    let good = Sexpr::parse_all(
        "(role white) (role black) (init (cell 1 1 white)) (init (control white)) \
         (<= (legal white noop) (true (control black))) (<= terminal (true (cell ?x 1 black)))",
    )
    .expect("well-formed");
    (
        prop::sample::subsequence(good.clone(), 0..=good.len()),
        prop::collection::vec(term(), 0..8),
    )
        .prop_map(|(mut rules, wrong)| {
            rules.extend(wrong);
            rules
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_get_a_message_or_a_clear_error(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = Request::parse(&text) {
            prop_assert!(clear(&e.to_string()), "{e}");
        }
        if let Err(e) = Sexpr::parse_all(&text) {
            prop_assert!(clear(&e.to_string()), "{e}");
        }
    }

    #[test]
    fn message_like_text_gets_a_message_or_a_clear_error(text in soup()) {
        if let Err(e) = Request::parse(&text) {
            prop_assert!(clear(&e.to_string()), "{e}");
        }
    }

    #[test]
    fn messages_with_odd_parts_parse_or_get_a_clear_error(text in message()) {
        if let Err(e) = Request::parse(&text) {
            prop_assert!(clear(&e.to_string()), "{e}");
        }
    }

    #[test]
    fn what_the_reader_reads_it_writes_back_the_same(text in soup()) {
        match Sexpr::parse_all(&text) {
            Ok(terms) => {
                for t in terms {
                    prop_assert_eq!(Sexpr::parse(&t.to_string()), Ok(t));
                }
            }
            Err(e) => prop_assert!(clear(&e.to_string()), "{e}"),
        }
    }

    #[test]
    fn wrong_rules_compile_or_get_a_clear_error(rules in rules()) {
        match Gdl::from_sexprs(&rules) {
            Ok(gdl) => {
                // Rules it accepts can be played from their initial state.
                let state = gdl.initial_state();
                let analysis = gdl.analyse(&state);
                prop_assert_eq!(analysis.legal.len(), gdl.roles().len());
            }
            Err(e) => prop_assert!(clear(&e.to_string()), "{e}"),
        }
    }

    #[test]
    fn a_start_with_wrong_rules_opens_a_match_or_says_why(rules in rules(), role in "white|black|red") {
        let agent = AgentConfig { kind: AgentKind::Random, seed: Some(1), ..AgentConfig::default() };
        if let Err(e) = start::open("m", &role, &rules, Duration::from_secs(1), agent, None) {
            prop_assert!(clear(&e.to_string()), "{e}");
        }
    }
}
