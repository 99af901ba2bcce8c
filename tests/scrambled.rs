//! Breakthrough recognised from the rules' structure: course-style rules (and the
//! course's own files, when they are beside the project) with every symbol renamed (as
//! ggp-base's scrambling does), both variants, every size; the engine is chosen only once
//! the reasoner agrees with it, and replies use the rules' own symbols.

use std::time::{Duration, Instant};

use ggp_player::agent::AgentConfig;
use ggp_player::games::breakthrough::gdl::{breakthrough_rules_variant, course_style_rules};
use ggp_player::games::breakthrough::ggp::{recognise, rules_terms};
use ggp_player::games::breakthrough::spec::Breakthrough;
use ggp_player::games::breakthrough::terms::Terms;
use ggp_player::games::breakthrough::verify::verify;
use ggp_player::games::breakthrough::{Board, BoardSize, Variant};
use ggp_player::gdl::Gdl;
use ggp_player::player::engine::EngineSession;
use ggp_player::player::server::ServeConfig;
use ggp_player::player::session::{MatchSession, StartError};
use ggp_player::player::start::open;
use ggp_player::sexpr::Sexpr;
use ggp_player::spec::ggp::Recognition;

use crate::common::{reference_dir, scramble};

const COURSE_FILES: [&str; 6] = ["3x5", "5x5", "6x6", "7x7", "8x8", "9x9"];

/// The course's rule files with their sizes; `None` (after the skip line) without them.
fn course_files() -> Option<Vec<(&'static str, Vec<Sexpr>)>> {
    let dir = reference_dir()?;
    let files = COURSE_FILES
        .iter()
        .map(|&size| {
            let path = dir.join(format!("gdl/breakthrough_{size}.gdl"));
            let text = std::fs::read_to_string(&path).unwrap();
            (size, Sexpr::parse_all(&text).unwrap())
        })
        .collect();
    Some(files)
}

/// Our course-style rules (the course kiosk's structure, the size-10 defect too).
fn course_style(size: BoardSize) -> Vec<Sexpr> {
    Sexpr::parse_all(&course_style_rules(size)).unwrap()
}

fn opened(rules: &[Sexpr], role: &str) -> Result<Box<dyn MatchSession>, StartError> {
    opened_with(rules, role, AgentConfig::default())
}

fn opened_with(
    rules: &[Sexpr],
    role: &str,
    agent: AgentConfig,
) -> Result<Box<dyn MatchSession>, StartError> {
    open("m", role, rules, Duration::from_secs(10), agent, None)
}

/// An engine with a 1 MiB table, for tests of what START recognises: a session writes
/// its whole table at START, and the default 256 MiB, twice for each of 162 boards,
/// took most of a 31 s test.
fn small_table() -> AgentConfig {
    AgentConfig {
        hash_mb: 1,
        ..AgentConfig::default()
    }
}

/// What START makes of the rules: `"engine"`, or `"propnet"` for the network compiled
/// from them (START here has all the time it needs to build one).
fn model(rules: &[Sexpr], role: &str) -> &'static str {
    opened(rules, role)
        .unwrap_or_else(|e| panic!("{role}: {e}"))
        .model()
}

/// The match START opens, which must be played by the engine, and the rules' terms.
fn session(rules: &[Sexpr], role: &str) -> (EngineSession<Board>, Terms) {
    let opened = opened_with(rules, role, small_table()).unwrap_or_else(|e| panic!("{role}: {e}"));
    assert_eq!(opened.model(), "engine", "{role}");
    let gdl = Gdl::from_sexprs(rules);
    let Recognition::Engine(r) = recognise("m", rules, gdl.as_ref()) else {
        panic!("{role}: played by the reasoner, not the engine");
    };
    let d = Duration::from_secs(10);
    let s = EngineSession::new::<Breakthrough>("m", role, r, d, small_table()).unwrap();
    (s, rules_terms("m", rules, gdl.as_ref()).unwrap())
}

/// Course rules for `size`, scrambled with `seed`: recognised, verified, and answered in
/// their own symbols.
fn check_scrambled_course_rules(plain: &[Sexpr], size: &str, seed: u64) {
    let (rules, names) = scramble(plain, seed);
    let name = |s: &str| names[s].clone();
    assert!(Terms::from_rules(&rules).is_err(), "no width fact any more");
    let gdl = Gdl::from_sexprs(&rules).unwrap();
    let terms = Terms::recognise(&gdl).unwrap_or_else(|e| panic!("{size}: {e}"));
    assert_eq!(terms.size, size.parse().unwrap());
    assert_eq!(terms.variant, Variant::Course);
    assert_eq!(terms.roles, [name("white"), name("black")], "{size}");
    assert_eq!(terms.move_symbol, name("move"));
    assert_eq!(terms.noop(), name("noop"));
    assert_eq!(terms.board.symbol, name("cell"));
    verify(&terms, &gdl).unwrap_or_else(|e| panic!("{size}: {e}"));

    let (s, _) = session(&rules, &name("white"));
    assert_eq!(s.seat(), 0, "{size}");
    let mv = s.position().find_move(1, 2, 1, 3).unwrap();
    assert_eq!(s.reply_text(mv), format!("({} 1 2 1 3)", name("move")));
    // The reply is one of the reasoner's legal moves.
    let legal = gdl.legal_moves(&gdl.initial_state(), 0);
    assert!(legal.contains(&gdl.parse_term(&s.reply_text(mv)).unwrap()));
    let (s, _) = session(&rules, &name("black").to_ascii_uppercase());
    assert_eq!(s.seat(), 1);
}

#[test]
fn scrambled_course_style_rules_are_recognised_verified_and_answered_in_their_symbols() {
    for (i, size) in COURSE_FILES.iter().enumerate() {
        let plain = course_style(size.parse().unwrap());
        check_scrambled_course_rules(&plain, size, 100 + i as u64);
    }
}

#[test]
fn scrambled_course_files_are_recognised_verified_and_answered_in_their_symbols() {
    let Some(files) = course_files() else {
        return;
    };
    for (i, (size, plain)) in files.iter().enumerate() {
        check_scrambled_course_rules(plain, size, 100 + i as u64);
    }
}

#[test]
fn our_rules_of_both_variants_are_recognised_scrambled_on_every_size() {
    for (i, size) in BoardSize::all().enumerate() {
        for variant in [Variant::Course, Variant::Standard] {
            let text = breakthrough_rules_variant(size, variant);
            let (rules, names) = scramble(&Sexpr::parse_all(&text).unwrap(), i as u64);
            let (s, terms) = session(&rules, &names["black"]);
            let what = format!("{size} {variant}");
            assert_eq!((terms.size, terms.variant), (size, variant), "{what}");
            assert_eq!(*s.position(), Board::with_variant(size, variant), "{what}");
            assert_eq!(terms.move_symbol, names["move"], "{what}");
        }
    }
}

#[test]
fn the_course_size_10_defect_goes_to_the_fallback_even_scrambled() {
    for size in ["10x10", "10x6", "6x10"] {
        let size: BoardSize = size.parse().unwrap();
        let plain = course_style(size);
        assert_eq!(model(&plain, "white"), "propnet", "{size}");
        let (rules, names) = scramble(&plain, 9);
        let gdl = Gdl::from_sexprs(&rules).unwrap();
        if let Ok(terms) = Terms::recognise(&gdl) {
            let e = verify(&terms, &gdl).unwrap_err();
            assert!(!e.is_empty(), "{size}");
        }
        // Scrambled and unrecognised or unverified: played by the rules as sent.
        assert_eq!(model(&rules, &names["white"]), "propnet", "{size}");
    }
}

#[test]
fn role_order_and_argument_order_are_found_from_play() {
    // Black listed first, moves written (move y1 x1 y2 x2), the fluent (cell owner x y).
    let size: BoardSize = "4x6".parse().unwrap();
    let text = breakthrough_rules_variant(size, Variant::Standard)
        .replace("(role white)\n(role black)", "(role black)\n(role white)")
        .replace("(move ?x ?y1 ?x ?y2)", "(move ?y1 ?x ?y2 ?x)")
        .replace("(move ?x1 ?y1 ?x2 ?y2)", "(move ?y1 ?x1 ?y2 ?x2)")
        .replace("(move ?x ?y ?x2 ?y2)", "(move ?y ?x ?y2 ?x2)")
        .replace("(move ?x1 ?y1 ?x ?y)", "(move ?y1 ?x1 ?y ?x)")
        .replace("(cell ?x ?y ?side)", "(cell ?side ?x ?y)")
        .replace("(cell ?x1 ?y1 ?side)", "(cell ?side ?x1 ?y1)")
        .replace("(cell ?x2 ?y2 ?side)", "(cell ?side ?x2 ?y2)")
        .replace("(cell ?x2 ?y2 ?other)", "(cell ?other ?x2 ?y2)")
        .replace("(cell ?x ?y1 ?side)", "(cell ?side ?x ?y1)");
    let (rules, names) = scramble(&Sexpr::parse_all(&text).unwrap(), 5);
    let gdl = Gdl::from_sexprs(&rules).unwrap();
    let terms = Terms::recognise(&gdl).unwrap();
    assert_eq!(terms.role_index, [1, 0]);
    assert_eq!(terms.move_args, [1, 0, 3, 2]);
    assert_eq!((terms.board.owner, terms.board.x, terms.board.y), (0, 1, 2));
    let shown = terms.to_string();
    assert!(
        shown.contains(" y1 x1 y2 x2)") && shown.contains(" owner x y)"),
        "{shown}"
    );
    assert!(
        shown.contains("(role 2)") && shown.contains("standard"),
        "{shown}"
    );
    assert_eq!((terms.size, terms.variant), (size, Variant::Standard));
    verify(&terms, &gdl).unwrap();
    let (mut s, _) = session(&rules, &names["white"]);
    // The standard variant's diagonal step from (1, 2) to the empty (2, 3).
    let mv = s.position().find_move(1, 2, 2, 3).unwrap();
    let reply = s.reply_text(mv);
    assert_eq!(reply, format!("({} 2 1 3 2)", names["move"]));
    // The joint move comes in the rules' order: black's noop first.
    let joint = [
        Sexpr::atom(names["noop"].clone()),
        Sexpr::parse(&reply).unwrap(),
    ];
    s.apply(Some(&joint)).unwrap();
    assert_eq!(
        s.position().side_to_move(),
        ggp_player::games::breakthrough::Color::Black
    );
}

/// START to `ready` is recognition plus verification plus the session: time it on every
/// size, course and scrambled, with the table a match gets from `serve`'s defaults (its
/// share of `--hash-mb` among `--max-matches`), which the session writes at START. A
/// sanity bound only; docs/measurements.md reports release numbers.
#[test]
fn start_with_recognition_and_verification_is_quick_on_every_size() {
    let served = AgentConfig {
        hash_mb: ServeConfig::default().match_hash_mb(),
        ..AgentConfig::default()
    };
    let mut times = Vec::new();
    for (i, size) in BoardSize::all().enumerate() {
        let course = breakthrough_rules_variant(size, Variant::Course);
        let course = Sexpr::parse_all(&course).unwrap();
        let (scrambled, names) = scramble(&course, i as u64);
        for (rules, role) in [(&course, "white"), (&scrambled, names["white"].as_str())] {
            let started = Instant::now();
            opened_with(rules, role, served).unwrap();
            let took = started.elapsed();
            assert!(took < Duration::from_secs(5), "{size}: {took:?}");
            times.push((took, size));
        }
    }
    times.sort_by_key(|t| t.0);
    let median = times[times.len() / 2].0;
    let slowest: Vec<String> = times
        .iter()
        .rev()
        .take(4)
        .map(|(t, size)| format!("{t:?} ({size})"))
        .collect();
    println!(
        "START (recognise + verify + session), {} starts: median {median:?}, slowest {}",
        times.len(),
        slowest.join(", ")
    );
}

#[test]
fn a_first_player_starting_on_the_top_rows_is_mapped_upside_down() {
    // Our rules with the sides' names swapped but white still moving first: white, the
    // second role, starts on the top rows and moves down.
    let size: BoardSize = "5x6".parse().unwrap();
    let text = breakthrough_rules_variant(size, Variant::Course)
        .replace("white", "WHITE_")
        .replace("black", "white")
        .replace("WHITE_", "black")
        .replace("(init (control black))", "(init (control white))");
    let rules = Sexpr::parse_all(&text).unwrap();
    let gdl = Gdl::from_sexprs(&rules).unwrap();
    let terms = Terms::recognise(&gdl).unwrap();
    assert_eq!(terms.roles, ["white".to_owned(), "black".to_owned()]);
    assert_eq!((terms.role_index, terms.flip_rows), ([1, 0], true));
    verify(&terms, &gdl).unwrap();
    let (s, _) = session(&rules, "white");
    assert_eq!(s.seat(), 0);
    // The engine's (1, 2) -> (1, 3) is the rules' (1, 5) -> (1, 4).
    let mv = s.position().find_move(1, 2, 1, 3).unwrap();
    assert_eq!(s.reply_text(mv), "(move 1 5 1 4)");
    let legal = gdl.legal_moves(&gdl.initial_state(), 1);
    assert!(legal.contains(&gdl.parse_term(&s.reply_text(mv)).unwrap()));
}

/// Our rules with one sentence dropped at a time, scrambled: recognition and the check
/// never panic, and whatever START makes of them is never the engine playing a game
/// the reasoner disagrees with.
#[test]
fn broken_rules_never_panic_and_never_trust_the_engine_wrongly() {
    let text = breakthrough_rules_variant("4x5".parse().unwrap(), Variant::Standard);
    let full = Sexpr::parse_all(&text).unwrap();
    let mut outcomes = std::collections::BTreeMap::new();
    for drop in 0..full.len() {
        let mut rules = full.clone();
        rules.remove(drop);
        let (rules, names) = scramble(&rules, drop as u64);
        let Ok(gdl) = Gdl::from_sexprs(&rules) else {
            *outcomes.entry("not compiled").or_insert(0) += 1;
            continue;
        };
        let outcome = match Terms::recognise(&gdl) {
            Err(e) => {
                assert!(!e.to_string().is_empty());
                "not recognised"
            }
            Ok(terms) => match verify(&terms, &gdl) {
                Err(_) => "not verified",
                Ok(()) => "verified",
            },
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
        if let Some(role) = names.get("white")
            && let Ok(s) = opened_with(&rules, role, small_table())
            && s.model() == "engine"
        {
            assert_eq!(outcome, "verified", "dropped {}", full[drop]);
        }
    }
    println!("{outcomes:?}");
    assert!(outcomes.get("not recognised").is_some_and(|&n| n > 0));
    assert!(outcomes.get("not verified").is_some_and(|&n| n > 0));
}
