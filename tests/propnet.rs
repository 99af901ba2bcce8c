//! The propositional network against the reasoner: both answer every query of random
//! games on every GDL file the project has (its own Breakthrough rules at several sizes,
//! the classic games, the course's files when they are beside the project), plain and
//! scrambled, and must agree on the legal moves, next states, goals and terminality.

use std::path::PathBuf;

use ggp_player::gdl::{Engine, Evaluator, Gdl, GdlError, PlayoutLimit, State, Term};
use ggp_player::rng::{Rng, seeded};
use ggp_player::sexpr::Sexpr;

use crate::common::{reference_dir, scramble};

/// Random games compared per file: enough for CI in debug; `gdl compare` (with
/// `--scramble SEED` for scrambled rules) runs the 10,000 of docs/measurements.md.
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
    gdl.use_engine(Engine::Propnet, None)
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
fn the_network_agrees_with_the_reasoner_on_the_course_files_plain_and_scrambled() {
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
        let (rules, _) = scramble(&rules_of(path), 200 + i as u64);
        agree(&rules, &format!("{} scrambled", path.display()), i as u64);
    }
}

/// Playouts from the states of a random game of `path`, evaluated by sweeping and by
/// propagating, with the same random numbers: they must end alike. Each propagating
/// playout starts from the evaluation the previous one left, so loading a state by its
/// differences is checked too; every other playout picks moves by their keys.
fn playouts_agree(path: &PathBuf, seed: u64) {
    let (sweep, propagate) = evaluations(path);
    let mut rng = seeded(Some(seed));
    let mut state = sweep.initial_state();
    for step in 0..12 {
        let ends = [&sweep, &propagate].map(|model| {
            let mut rng = seeded(Some(seed * 100 + step));
            let mut pick =
                |_: usize, keys: &[u32], _: &mut _| keys.iter().sum::<u32>() as usize % keys.len();
            let limit = PlayoutLimit {
                max_steps: 200,
                stop: &mut || false,
                pick: if step % 2 == 1 { Some(&mut pick) } else { None },
            };
            model.playout(&state, &mut rng, limit)
        });
        assert_eq!(ends[0], ends[1], "{path:?} from step {step}");
        let Some(joint) = random_joint(&sweep, &state, &mut rng) else {
            break;
        };
        state = sweep.next_state(&state, &joint);
    }
}

/// The game of `path` with its network swept, and propagated.
fn evaluations(path: &PathBuf) -> (Gdl, Gdl) {
    let gdl = with_propnet(&rules_of(path), &path.display().to_string());
    (
        gdl.with_evaluator(Evaluator::Sweep),
        gdl.with_evaluator(Evaluator::Propagate),
    )
}

/// A random joint move in `state`; `None` where the game is over.
fn random_joint(gdl: &Gdl, state: &State, rng: &mut Rng) -> Option<Vec<Term>> {
    let legal = gdl.all_legal_moves(state);
    if gdl.is_terminal(state) || legal.iter().any(Vec::is_empty) {
        return None;
    }
    Some(
        legal
            .iter()
            .map(|ms| ms[rand::RngExt::random_range(rng, 0..ms.len())].clone())
            .collect(),
    )
}

#[test]
fn playouts_evaluated_by_propagation_end_as_swept_ones_on_every_project_file() {
    for (i, path) in project_files().iter().enumerate() {
        playouts_agree(path, i as u64);
    }
}

/// The states of a random game of `path` and the joint moves played from them, queried
/// in a shuffled order, by sweeping and by propagating: the answers must be the same.
/// A propagated query starts from where the last one left its evaluation, so jumping
/// between the game's states checks loading a state by its differences, as a tree
/// search does when it expands a node far from the last playout's end.
fn queries_agree(path: &PathBuf, seed: u64) {
    let (sweep, propagate) = evaluations(path);
    let mut rng = seeded(Some(seed));
    let mut steps = Vec::new();
    let mut state = sweep.initial_state();
    for _ in 0..30 {
        let Some(joint) = random_joint(&sweep, &state, &mut rng) else {
            break;
        };
        let next = sweep.next_state(&state, &joint);
        steps.push((state, joint));
        state = next;
    }
    steps.push((state, Vec::new()));
    let mut order: Vec<usize> = (0..steps.len()).chain(0..steps.len()).collect();
    rand::seq::SliceRandom::shuffle(order.as_mut_slice(), &mut rng);
    for i in order {
        let (state, joint) = &steps[i];
        let what = format!("{path:?}, step {i}");
        assert_eq!(propagate.analyse(state), sweep.analyse(state), "{what}");
        if !joint.is_empty() {
            let next = propagate.next_state(state, joint);
            assert_eq!(next, sweep.next_state(state, joint), "{what}");
        }
    }
}

#[test]
fn queries_evaluated_by_propagation_answer_as_swept_ones_on_every_project_file() {
    for (i, path) in project_files().iter().enumerate() {
        queries_agree(path, 50 + i as u64);
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
    let why = gdl.use_engine(Engine::Auto, None).unwrap();
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

/// The number of gates in the description of `gdl`'s network.
fn gates(gdl: &Gdl) -> usize {
    let text = gdl.model_description(None);
    let before = text.split(" gates").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_body_in_independent_parts_is_built_as_an_and_of_ors() {
    // Nim's "every other heap keeps its size" rule pairs every heap size with every
    // move; one gate per pair made 6,401 gates. Built as (size held) and (some move on
    // another heap), the network is a few hundred.
    let nim = with_propnet(&rules_of(&project_file("nim.gdl")), "nim");
    assert!(gates(&nim) < 1_000, "{}", nim.model_description(None));
    // The same shape in a toy: h(x) holds when some a(x, y) and some b(x, z) hold.
    let mut text = String::from("(role r) (init (on 0)) (legal r (set 0)) (legal r (set 1))");
    text.push_str("(<= (next (on ?v)) (does r (set ?v)))");
    for y in 0..12 {
        text.push_str(&format!("(init (a 0 {y})) (init (b 0 {y})) (a_val {y})"));
        text.push_str(&format!(
            "(<= (next (a 0 {y})) (true (a 0 {y})) (true (on 0)))"
        ));
        text.push_str(&format!(
            "(<= (next (b 0 {y})) (true (b 0 {y})) (true (on 1)))"
        ));
    }
    text.push_str("(<= (h ?x) (true (a ?x ?y)) (true (b ?x ?z)))");
    text.push_str("(<= terminal (not (h 0))) (goal r 100)");
    let rules = Sexpr::parse_all(&text).unwrap();
    let toy = with_propnet(&rules, "toy");
    // Unfactored, h(0) alone would be an `or` of 144 `and`s.
    assert!(gates(&toy) < 100, "{}", toy.model_description(None));
    agree(&rules, "toy", 1);
}

#[test]
fn a_goal_read_through_its_own_negation_is_accepted_where_no_atom_needs_itself() {
    // A draw written as "neither a win nor a loss": `goal` is negated inside its own
    // definition, which stratification over relation names forbids, but no ground goal
    // depends on its own negation. Each player picks a number; the higher one wins.
    let text = "(role left) (role right) (init (round 0))
        (choice 1) (choice 2) (choice 3) (bigger 2 1) (bigger 3 2) (bigger 3 1)
        (<= (legal ?r (pick ?n)) (role ?r) (choice ?n))
        (<= (next (picked ?r ?n)) (does ?r (pick ?n)))
        (<= (next (round 1)) (true (round 0)))
        (<= terminal (true (round 1)))
        (<= (beats ?r) (true (picked ?r ?n)) (true (picked ?s ?m)) (bigger ?n ?m))
        (<= (goal ?r 100) (beats ?r))
        (<= (goal ?r 0) (role ?r) (role ?s) (distinct ?r ?s) (beats ?s))
        (<= (goal ?r 50) (role ?r) (not (goal ?r 100)) (not (goal ?r 0)))";
    let rules = Sexpr::parse_all(text).unwrap();
    for gdl in [
        with_propnet(&rules, "pick"),
        Gdl::from_sexprs(&rules).unwrap(),
    ] {
        let start = gdl.initial_state();
        assert_eq!(gdl.goals(&start), [Some(50), Some(50)]);
        for (left, right, goals) in [(3, 1, [100, 0]), (2, 2, [50, 50]), (1, 2, [0, 100])] {
            let joint = [left, right].map(|n| gdl.parse_term(&format!("(pick {n})")).unwrap());
            let end = gdl.next_state(&start, &joint);
            assert!(gdl.is_terminal(&end));
            assert_eq!(gdl.goals(&end), goals.map(Some), "{left} against {right}");
        }
    }
    agree(&rules, "pick", 3);
    // Where ground atoms do need their own negation, the rules are still refused, and
    // the error names the relation as written.
    let looping = "(role a) (<= (p 1) (not (p 2))) (<= (p 2) (not (p 1))) (legal a go)";
    match Gdl::parse(looping) {
        Err(GdlError::Unstratified { relation, .. }) => assert_eq!(relation, "p"),
        other => panic!("{other:?}"),
    }
}
