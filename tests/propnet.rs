//! The propositional network against the reasoner: both answer every query of random
//! games on every GDL file the project has (its own Breakthrough rules at several sizes,
//! the classic games, the course's files when they are beside the project), plain and
//! scrambled, and must agree on the legal moves, next states, goals and terminality.

use std::path::PathBuf;

use ggp_player::gdl::{Engine, Gdl, GdlError};
use ggp_player::rng::seeded;
use ggp_player::sexpr::Sexpr;

use crate::common::{reference_dir, scramble};

/// Random games compared per file: enough for CI in debug; `gdl compare` runs more.
const GAMES: usize = 4;

fn project_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("gdl")
        .join(name)
}

/// The project's GDL files but Breakthrough's, and Breakthrough at a few sizes.
fn project_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(project_file(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name.ends_with(".gdl") || name.ends_with(".kif")) && !name.starts_with("breakthrough")
        })
        .collect();
    files.sort();
    for size in ["2x4", "3x5", "6x6", "8x8", "10x10"] {
        files.push(project_file(&format!("breakthrough_{size}.gdl")));
    }
    files
}

fn with_propnet(rules: &[Sexpr], what: &str) -> Gdl {
    let mut gdl = Gdl::from_sexprs(rules).unwrap_or_else(|e| panic!("{what}: {e}"));
    gdl.use_engine(rules, Engine::Propnet)
        .unwrap_or_else(|e| panic!("{what}: no network: {e}"));
    assert_eq!(gdl.engine_name(), "propnet");
    gdl
}

fn agree(rules: &[Sexpr], what: &str, seed: u64) {
    let gdl = with_propnet(rules, what);
    let done = gdl
        .compare_with_reasoner(GAMES, &mut seeded(Some(seed)))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(done.states > GAMES, "{what}: {done:?}");
}

fn rules_of(path: &PathBuf) -> Vec<Sexpr> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    Sexpr::parse_all(&text).unwrap()
}

#[test]
fn the_network_agrees_with_the_reasoner_on_every_project_file() {
    for (i, path) in project_files().iter().enumerate() {
        agree(&rules_of(path), &path.display().to_string(), i as u64);
    }
}

#[test]
fn the_network_agrees_with_the_reasoner_on_scrambled_rules() {
    for (i, path) in project_files().iter().enumerate() {
        let (rules, _) = scramble(&rules_of(path), 100 + i as u64);
        agree(&rules, &format!("{} scrambled", path.display()), i as u64);
    }
}

#[test]
fn the_network_agrees_with_the_reasoner_on_the_course_files() {
    let Some(dir) = reference_dir() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("gdl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gdl"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for (i, path) in files.iter().enumerate() {
        agree(&rules_of(path), &path.display().to_string(), i as u64);
    }
}

#[test]
fn rules_that_cannot_be_grounded_are_played_by_the_reasoner() {
    // A counter that grows a term at every step: no finite network holds every state.
    let endless = "(role r) (init (step 0)) (<= (next (step (s ?x))) (true (step ?x)))
        (legal r tick) (<= terminal (true (step (s (s 0))))) (goal r 100)";
    let err = Gdl::parse_with(endless, Engine::Propnet).unwrap_err();
    assert!(matches!(err, GdlError::Propnet(_)), "{err}");
    let rules = Sexpr::parse_all(endless).unwrap();
    let mut gdl = Gdl::from_sexprs(&rules).unwrap();
    let why = gdl.use_engine(&rules, Engine::Auto).unwrap();
    assert!(
        why.as_deref()
            .is_some_and(|w| w.contains("cannot be grounded")),
        "{why:?}"
    );
    assert_eq!(gdl.engine_name(), "reasoner");
    let tick = [gdl.parse_term("tick").unwrap()];
    let mut state = gdl.initial_state();
    for _ in 0..2 {
        assert!(!gdl.is_terminal(&state));
        state = gdl.next_state(&state, &tick);
    }
    assert!(gdl.is_terminal(&state));
    assert_eq!(gdl.goals(&state), vec![Some(100)]);
}
