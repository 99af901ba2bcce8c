use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use super::*;

pub(super) fn game(file: &str) -> Arc<Gdl> {
    let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    Arc::new(Gdl::parse(&text).unwrap())
}

/// The nim-sum of the heaps in `state`, and the index of the role in control.
pub(crate) fn nim_sum(gdl: &Gdl, state: &State) -> (u32, usize) {
    let mut sum = 0;
    let mut control = 0;
    for fluent in state.fluents() {
        let text = gdl.display(fluent);
        let words: Vec<&str> = text.trim_matches(['(', ')']).split(' ').collect();
        match words[..] {
            ["size", _, n] => sum ^= n.parse::<u32>().unwrap(),
            ["control", "second"] => control = 1,
            _ => {}
        }
    }
    (sum, control)
}

/// `count` random walks of the game in `file` from its start, drawn from `seed`, with no
/// clock.
pub(super) fn random_walks(file: &str, count: u32, seed: u64) -> walks::Walks {
    let gdl = game(file);
    let mut rng = crate::rng::seeded(Some(seed));
    let mut timer = Timer::new(None, None, 1);
    walks::Walks::play(&gdl, &gdl.initial_state(), count, &mut rng, &mut timer)
}

/// The state after playing `moves` (one text per role and step).
pub(super) fn after(gdl: &Gdl, moves: &[&[&str]]) -> State {
    let mut state = gdl.initial_state();
    for joint in moves {
        let terms: Vec<Term> = joint.iter().map(|m| gdl.parse_term(m).unwrap()).collect();
        for (role, t) in terms.iter().enumerate() {
            assert!(gdl.legal_moves(&state, role).contains(t), "{joint:?}");
        }
        state = gdl.next_state(&state, &terms);
    }
    state
}

impl Mcts {
    /// Nodes under (and including) the node of `state`, found anywhere in the tree.
    fn subtree_size(&self, state: &State) -> usize {
        let Some(top) = self.nodes.iter().position(|n| n.state == *state) else {
            return 0;
        };
        let mut stack = vec![top];
        let mut count = 0;
        while let Some(n) = stack.pop() {
            count += 1;
            stack.extend(self.nodes[n].children.values().copied());
        }
        count
    }
}

fn best(tree: &mut Mcts, state: &State, role: usize, ms: u64) -> Choice {
    let stop = AtomicBool::new(false);
    tree.search(
        state,
        role,
        Instant::now() + Duration::from_millis(ms),
        &stop,
    )
}

#[test]
fn tic_tac_toe_takes_a_win_and_blocks_a_loss() {
    let gdl = game("tictactoe.gdl");
    let mut tree = Mcts::new(gdl.clone(), Some(1), 64);
    // x has 1 1 and 1 2; o has 2 2 and 3 3: x wins with 1 3.
    let win = after(
        &gdl,
        &[
            &["(mark 1 1)", "noop"],
            &["noop", "(mark 2 2)"],
            &["(mark 1 2)", "noop"],
            &["noop", "(mark 3 3)"],
        ],
    );
    let c = best(&mut tree, &win, 0, 300);
    assert_eq!(gdl.display(&c.best.clone().unwrap()), "(mark 1 3)");
    assert!(c.value > 0.9, "{c:?}");
    // o to move after x's 1 1 and 1 2 (o has 2 2): o must block at 1 3.
    let block = after(
        &gdl,
        &[
            &["(mark 1 1)", "noop"],
            &["noop", "(mark 2 2)"],
            &["(mark 1 2)", "noop"],
        ],
    );
    let c = best(&mut tree, &block, 1, 500);
    assert_eq!(gdl.display(&c.best.clone().unwrap()), "(mark 1 3)", "{c:?}");
    // Blocking draws: the solver proves it, and so stops early.
    assert_eq!(c.proven, Some(0.5), "{c:?}");
    // The best line starts with that move, then x's reply: the mover's move only (both
    // roles' when the mover has a single square left), each a mark on a new square.
    let line: Vec<Vec<String>> = c
        .line
        .iter()
        .map(|step| step.iter().map(|m| gdl.display(m)).collect())
        .collect();
    assert_eq!(line[0], ["(mark 1 3)"], "{line:?}");
    assert!(line.len() >= 2 && line.len() <= LINE_STEPS, "{line:?}");
    let mut marks: Vec<&String> = line
        .iter()
        .filter_map(|step| step.iter().find(|m| m.starts_with("(mark ")))
        .collect();
    assert!(
        line.iter()
            .all(|step| step.len() == 1 || step.iter().any(|m| m == "noop")),
        "{line:?}"
    );
    marks.sort();
    marks.dedup();
    assert_eq!(marks.len(), line.len(), "{line:?}");
}

#[test]
fn the_tree_is_kept_for_a_position_it_reached() {
    let gdl = game("tictactoe.gdl");
    let mut tree = Mcts::new(gdl.clone(), Some(2), 64);
    let start = gdl.initial_state();
    let first = best(&mut tree, &start, 0, 100);
    assert!(first.nodes > 10, "{first:?}");
    let later = after(&gdl, &[&["(mark 2 2)", "noop"], &["noop", "(mark 1 1)"]]);
    let before = tree.nodes.len();
    let expected = tree.subtree_size(&later);
    tree.set_root(&later);
    let root = &tree.nodes[tree.root];
    assert_eq!(root.state, later);
    assert!(root.visits > 0, "the subtree was not kept");
    assert!(tree.nodes.len() < before, "the rest was not dropped");
    assert_eq!(tree.nodes.len(), expected);
    assert!(
        well_formed(&tree),
        "a child index is wrong or a node is orphaned"
    );
    let again = best(&mut tree, &later, 1, 50);
    assert!(again.best.is_some());
    // A position the tree never reached: a fresh tree.
    let far = after(
        &gdl,
        &[
            &["(mark 3 3)", "noop"],
            &["noop", "(mark 1 1)"],
            &["(mark 3 1)", "noop"],
        ],
    );
    tree.set_root(&far);
    assert_eq!(tree.nodes.len(), 1);
}

#[test]
fn simultaneous_moves_learn_that_rock_is_dominated() {
    let gdl = game("rps_well.gdl");
    let mut tree = Mcts::new(gdl.clone(), Some(3), 64);
    let start = gdl.initial_state();
    for role in 0..2 {
        let c = best(&mut tree, &start, role, 300);
        let mv = gdl.display(&c.best.clone().unwrap());
        assert_ne!(mv, "(play rock)", "{c:?}");
        let stats = tree.nodes[tree.root].stats_of(role);
        let rock = tree.nodes[tree.root].legal[role]
            .iter()
            .position(|m| gdl.display(m) == "(play rock)")
            .unwrap();
        let most = stats.iter().map(|s| s.visits).max().unwrap();
        assert!(
            stats[rock].visits < most,
            "rock is visited as much as the best move"
        );
    }
}

#[test]
fn three_roles_each_get_a_legal_move() {
    let gdl = game("lowest_unique.gdl");
    let mut tree = Mcts::new(gdl.clone(), Some(4), 64);
    let start = gdl.initial_state();
    for role in 0..3 {
        let c = best(&mut tree, &start, role, 100);
        let mv = c.best.clone().unwrap();
        assert!(gdl.legal_moves(&start, role).contains(&mv));
    }
    // Terminal: nothing to choose.
    let end = after(&gdl, &[&["(pick 1)", "(pick 1)", "(pick 2)"]]);
    assert!(gdl.is_terminal(&end));
    assert_eq!(gdl.goals(&end), vec![Some(0), Some(0), Some(100)]);
    assert!(best(&mut tree, &end, 0, 20).best.is_none());
}

#[test]
fn a_search_stops_at_its_deadline_and_when_stopped() {
    // The course's 10x10 game (long playouts), in our course-style rules.
    let size = "10x10".parse().unwrap();
    let rules = crate::games::breakthrough::gdl::course_style_rules(size);
    let gdl = Arc::new(Gdl::parse(&rules).unwrap());
    let mut tree = Mcts::new(gdl.clone(), Some(5), 64);
    let start = Instant::now();
    let c = best(&mut tree, &gdl.initial_state(), 0, 150);
    let took = start.elapsed();
    // Without its deadline the search would never end; the slack past it only has to
    // hold on a loaded machine (how close it stops is measured, not asserted).
    assert!(took < Duration::from_millis(150 + 5000), "{took:?}");
    let legal = gdl.legal_moves(&gdl.initial_state(), 0);
    assert!(c.best.as_ref().is_some_and(|m| legal.contains(m)), "{c:?}");
    println!("course 10x10, 150 ms: {c:?}");
    let stop = AtomicBool::new(true);
    let far = Instant::now() + Duration::from_secs(60);
    let start = Instant::now();
    let c = tree.search(&gdl.initial_state(), 1, far, &stop);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(c.iterations, 0);
}

/// A nim position: the heaps' sizes (a, b, c, d) and the role to move.
pub(crate) fn nim(gdl: &Gdl, heaps: [u32; 4], control: &str) -> State {
    let mut facts: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .zip(heaps)
        .map(|(h, n)| format!("(size {h} {n})"))
        .collect();
    facts.push(format!("(control {control})"));
    State::from_fluents(facts.iter().map(|f| gdl.parse_term(f).unwrap()))
}

pub(super) fn within(iterations: u64) -> Budget<'static> {
    Budget {
        iterations: Some(iterations),
        ..Budget::default()
    }
}

#[test]
fn the_solver_proves_won_and_lost_nim_positions_and_stops() {
    for transpositions in [false, true] {
        solve_nim(transpositions);
    }
}

/// Nim positions whose winner the nim-sum tells, proven by a tree with or without
/// transpositions.
fn solve_nim(transpositions: bool) {
    let gdl = game("nim.gdl");
    let mut tree = Mcts::new(gdl.clone(), Some(6), 64).with_transpositions(transpositions);
    // Heaps 1 and 3 (nim-sum 2): first wins by taking 3 down to 1, and only so.
    let won = nim(&gdl, [1, 3, 0, 0], "first");
    let c = tree.search_within(&won, 0, within(100_000));
    assert_eq!(c.proven, Some(1.0), "{c:?}");
    assert_eq!(gdl.display(&c.best.clone().unwrap()), "(reduce b 1)");
    assert!(
        c.iterations < 100_000,
        "a proven root stops the search: {c:?}"
    );
    // The same position searched again: proven already, no iteration.
    let again = tree.search_within(&won, 0, within(100_000));
    assert_eq!((again.proven, again.iterations), (Some(1.0), 0));
    // Heaps 2 and 2 (nim-sum 0): second wins whatever first does.
    let lost = nim(&gdl, [2, 2, 0, 0], "first");
    let c = tree.search_within(&lost, 0, within(100_000));
    assert_eq!(c.proven, Some(0.0), "{c:?}");
    let c = tree.search_within(&lost, 1, within(100_000));
    assert_eq!(c.proven, Some(1.0), "{c:?}");
    assert!(c.best.is_some_and(|m| gdl.display(&m) == "noop"));
}

/// The tic-tac-toe position after x and o, in turn, mark `squares`.
pub(super) fn marks(gdl: &Gdl, squares: &[&str]) -> State {
    let marks: Vec<String> = squares.iter().map(|s| format!("(mark {s})")).collect();
    let steps: Vec<[&str; 2]> = marks
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if i % 2 == 0 {
                [m.as_str(), "noop"]
            } else {
                ["noop", m.as_str()]
            }
        })
        .collect();
    let steps: Vec<&[&str]> = steps.iter().map(|s| s.as_slice()).collect();
    after(gdl, &steps)
}

#[test]
fn the_solver_proves_a_tic_tac_toe_draw_and_a_win() {
    for transpositions in [false, true] {
        solve_tic_tac_toe(transpositions);
    }
}

fn solve_tic_tac_toe(transpositions: bool) {
    let gdl = game("tictactoe.gdl");
    let mut tree = Mcts::new(gdl.clone(), Some(7), 64).with_transpositions(transpositions);
    // x 1 1, o 2 2, x 3 3, o 1 3: x must block at 3 1, which threatens both 2 1 and
    // 3 2: a win.
    let win = marks(&gdl, &["1 1", "2 2", "3 3", "1 3"]);
    let c = tree.search_within(&win, 0, within(200_000));
    assert_eq!(c.proven, Some(1.0), "{c:?}");
    assert_eq!(gdl.display(&c.best.clone().unwrap()), "(mark 3 1)");
    // x 2 2, o 1 1: a draw with best play from both sides.
    let draw = marks(&gdl, &["2 2", "1 1"]);
    let c = tree.search_within(&draw, 0, within(2_000_000));
    assert_eq!(c.proven, Some(0.5), "{c:?}");
}

#[test]
fn the_native_solver_proves_a_breakthrough_win() {
    use crate::games::breakthrough::{Board, Color};
    use native::{Native, Turn};
    // White's pawn on b4 reaches the goal row at once.
    let board = Board::from_diagram(
        &"B.B.B .W... ..... ..B.. WWW.W".replace(' ', "\n"),
        Color::White,
    )
    .unwrap();
    let mut tree = Mcts::new(Native::default(), Some(8), 16);
    let c = tree.search_within(&Turn::new(board.clone()), 0, within(1_000_000));
    assert_eq!(c.proven, Some(1.0), "{c:?}");
    let mut after = board;
    after.make(c.best.flatten().unwrap());
    assert_eq!(
        crate::game::result(&after),
        Some(crate::game::Outcome::Loss)
    );
}

/// Whether every child index is valid and every node but the root is one node's child.
fn well_formed<M: Model>(tree: &Mcts<M>) -> bool {
    let mut children: Vec<usize> = tree
        .nodes
        .iter()
        .flat_map(|n| n.children.values().copied())
        .collect();
    children.sort_unstable();
    let others: Vec<usize> = (0..tree.nodes.len()).filter(|&i| i != tree.root).collect();
    children == others
}

#[test]
fn the_tree_stays_within_its_memory_and_recycles_its_least_visited_nodes() {
    let gdl = game("connect_four.gdl");
    let start = gdl.initial_state();
    let bound = 64 << 10;
    let mut tree = Mcts::with_memory(gdl.clone(), Some(9), bound);
    let c = tree.search_within(&start, 0, within(1_000));
    let (memory, bytes) = tree.memory();
    assert_eq!(memory, bound);
    assert!(bytes <= bound, "{bytes} bytes in a tree of {bound}");
    assert!(tree.recycled() > 0, "the tree never filled: {c:?}");
    assert!(well_formed(&tree));
    // The counted bytes are the sum of the nodes' own.
    assert_eq!(bytes, tree.nodes.iter().map(|n| n.bytes).sum::<usize>());
    // Recycling keeps the root's statistics and its most visited children.
    let root = &tree.nodes[tree.root];
    assert_eq!(root.visits, 1_000);
    let most = most_visited(root.stats_of(0)).unwrap();
    assert!(
        root.child_after(0, most).is_some(),
        "the most visited move's node was recycled"
    );
    // An unbounded tree of the same search holds more than the bound.
    let mut free = Mcts::with_memory(gdl.clone(), Some(9), 1 << 30);
    free.search_within(&start, 0, within(1_000));
    assert!(free.memory().1 > bound, "the bound was never reached");
    assert_eq!(free.recycled(), 0);
}

#[test]
fn a_full_tree_is_not_recycled_when_the_deadline_is_nearer_than_recycling_might_take() {
    let gdl = game("connect_four.gdl");
    let start = gdl.initial_state();
    let bound = 64 << 10;
    let mut tree = Mcts::with_memory(gdl.clone(), Some(9), bound);
    tree.search_within(&start, 0, within(1_000));
    // Over a smaller bound, the tree is recycled at its next expansion, unless recycling
    // might take longer than the time left (here it is taken to cost 10 s a node).
    tree.set_memory(bound / 2);
    tree.recycle_per_node = Duration::from_secs(10);
    let (recycled, nodes) = (tree.recycled(), tree.nodes.len());
    let near = Budget {
        deadline: Some(Instant::now() + Duration::from_secs(60)),
        ..within(50)
    };
    let c = tree.search_within(&start, 0, near);
    assert_eq!(c.iterations, 50, "the search went on");
    assert_eq!(tree.recycled(), recycled, "recycled before the deadline");
    assert_eq!(tree.nodes.len(), nodes, "the paused tree grew");
    assert!(tree.memory().1 > bound / 2);
    // Without a deadline (the next search of the same position), it is recycled.
    tree.search_within(&start, 0, within(50));
    assert!(tree.recycled() > recycled, "never recycled");
    assert!(tree.memory().1 <= bound / 2);
    assert!(well_formed(&tree));
}

#[test]
fn a_tree_given_more_memory_grows_past_its_old_bound_and_one_given_less_recycles() {
    let gdl = game("connect_four.gdl");
    let start = gdl.initial_state();
    let bound = 64 << 10;
    let mut tree = Mcts::with_memory(gdl.clone(), Some(9), bound);
    tree.search_within(&start, 0, within(1_000));
    let recycled = tree.recycled();
    assert!(recycled > 0, "the tree never filled");
    tree.set_memory(4 * bound);
    tree.search_within(&start, 0, within(1_000));
    let (memory, bytes) = tree.memory();
    assert_eq!(memory, 4 * bound);
    assert!(
        bytes > bound,
        "the tree stayed within its old bound: {bytes} bytes"
    );
    assert!(
        bytes <= 4 * bound,
        "{bytes} bytes in a tree of {}",
        4 * bound
    );
    tree.set_memory(bound);
    tree.search_within(&start, 0, within(100));
    assert!(
        tree.memory().1 <= bound,
        "the tree kept more than its new bound"
    );
    assert!(tree.recycled() > recycled, "nothing was recycled");
    assert!(well_formed(&tree));
}

/// One player, ten steps, four moves at each; each `up` scores 10 points. The tree
/// cannot reach the end within a few thousand iterations, so what the root learns of
/// `up` comes from the playouts.
const UPS: &str = "
    (role player)
    (init (step 0)) (init (ups 0))
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
    (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10)
    (legal player up) (legal player down) (legal player left) (legal player right)
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= (next (ups ?n)) (true (ups ?m)) (does player up) (succ ?m ?n))
    (<= (next (ups ?n)) (true (ups ?n)) (not (does player up)))
    (<= terminal (true (step 10)))
    (<= (goal player ?v) (true (ups ?n)) (points ?n ?v))
    (points 0 0) (points 1 10) (points 2 20) (points 3 30) (points 4 40) (points 5 50)
    (points 6 60) (points 7 70) (points 8 80) (points 9 90) (points 10 100)
";

/// The mean reward of every iteration through the root after `iterations` of them.
fn root_mean<M: Model>(tree: &Mcts<M>) -> f64 {
    let stats = tree.nodes[tree.root].stats_of(0);
    let (visits, sum) = stats
        .iter()
        .fold((0, 0.0), |(v, s), st| (v + st.visits, s + st.sum));
    sum / visits as f64
}

#[test]
fn mast_playouts_learn_the_move_that_is_good_everywhere() {
    for engine in [crate::gdl::Engine::Reasoner, crate::gdl::Engine::Propnet] {
        let gdl = Arc::new(Gdl::parse_with(UPS, engine).unwrap());
        let start = gdl.initial_state();
        let mean = |playouts| {
            let mut tree = Mcts::new(gdl.clone(), Some(3), 64).with_playouts(playouts);
            let c = tree.search_within(&start, 0, within(2_000));
            assert_eq!(
                gdl.display(&c.best.unwrap()),
                "up",
                "{engine:?} {playouts:?}"
            );
            (root_mean(&tree), tree)
        };
        let (random, _) = mean(Playouts::Random);
        let (mast, tree) = mean(Playouts::Mast);
        // Random playouts play `up` a quarter of the time, MAST's about 70% (the tree
        // alone favours `up` in its first few steps).
        assert!(mast > random + 0.1, "{engine:?}: {mast} {random}");
        let key = |m: &str| gdl.move_key(0, &gdl.parse_term(m).unwrap());
        let mast = tree.mast().unwrap();
        let (up, down) = (mast.mean(0, key("up")), mast.mean(0, key("down")));
        // An iteration that played `down` has one `up` fewer: 0.1 less, about.
        let (up, down) = (up.unwrap(), down.unwrap());
        assert!(up > down + 0.05, "{engine:?}: {up} {down}");
    }
}

/// One player picks four of twelve cells, one a step; the goal counts the three good
/// cells among them (two: 50, three: 100). A good cell is as good at any step: what
/// GRAVE's all-moves statistics see.
const PICKS: &str = "
    (role player)
    (init (step 0))
    (cell 1) (cell 2) (cell 3) (cell 4) (cell 5) (cell 6)
    (cell 7) (cell 8) (cell 9) (cell 10) (cell 11) (cell 12)
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
    (<= (legal player (pick ?c)) (cell ?c) (not (true (picked ?c))))
    (<= (next (picked ?c)) (does player (pick ?c)))
    (<= (next (picked ?c)) (true (picked ?c)))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= terminal (true (step 4)))
    (<= (has ?c) (true (picked ?c)))
    (<= two (has 1) (has 2)) (<= two (has 1) (has 3)) (<= two (has 2) (has 3))
    (<= (goal player 100) (has 1) (has 2) (has 3))
    (<= (goal player 50) two (not (has 1)))
    (<= (goal player 50) two (not (has 2)))
    (<= (goal player 50) two (not (has 3)))
    (<= (goal player 0) (not two))
";

#[test]
fn grave_learns_from_the_moves_played_below_and_finds_the_best_line_sooner() {
    for engine in [crate::gdl::Engine::Reasoner, crate::gdl::Engine::Propnet] {
        let gdl = Arc::new(Gdl::parse_with(PICKS, engine).unwrap());
        let start = gdl.initial_state();
        let good: Vec<u32> = (1..=3)
            .map(|c| gdl.move_key(0, &gdl.parse_term(&format!("(pick {c})")).unwrap()))
            .collect();
        let grown = |rave: bool, seed: u64| {
            let mut tree = Mcts::new(gdl.clone(), Some(seed), 64)
                .with_playouts(Playouts::Random)
                .with_rave(rave);
            assert_eq!(tree.playouts(), Playouts::Random);
            assert!(
                tree.mast().is_none(),
                "random playouts keep no MAST statistics"
            );
            let c = tree.search_within(&start, 0, within(100_000));
            // The search stops once it has proven the three good cells.
            assert_eq!(c.proven, Some(1.0), "{engine:?} {rave} {seed}");
            (tree, c.iterations)
        };
        // Below the root, GRAVE tries first the cells good elsewhere: it finds the line
        // in fewer iterations (measured: 61–91 against 145–200 for seeds 0–9).
        let (mut plain_total, mut grave_total) = (0, 0);
        for seed in 0..4 {
            let ((plain, plain_n), (grave, grave_n)) = (grown(false, seed), grown(true, seed));
            assert!(
                grave_n < plain_n,
                "{engine:?} seed {seed}: {grave_n} {plain_n}"
            );
            (plain_total, grave_total) = (plain_total + plain_n, grave_total + grave_n);
            assert!(plain.nodes.iter().all(|n| n.amaf.is_none()));
            // The root's all-moves statistics count every iteration since it kept them
            // that picked the cell at any step: at least those that picked it at the root.
            // The good cells score more there than the others.
            let root = &grave.nodes[grave.root];
            let amaf = root.amaf.as_deref().expect("the root was visited enough");
            let stats = root.stats_of(0);
            let (mut good_sum, mut bad_sum) = (0.0, 0.0);
            for (i, m) in root.legal[0].iter().enumerate() {
                let key = gdl.move_key(0, m);
                let a = amaf.get(&u64::from(key)).copied().unwrap_or_default();
                let own = stats[i].visits;
                assert!(
                    a.visits + REFERENCE_SLACK >= own,
                    "{m:?}: {} {own}",
                    a.visits
                );
                assert!(u64::from(a.visits) <= grave_n);
                match good.contains(&key) {
                    true => good_sum += a.mean() / 3.0,
                    false => bad_sum += a.mean() / 9.0,
                }
            }
            assert!(
                good_sum > bad_sum + 0.1,
                "{engine:?} seed {seed}: {good_sum} {bad_sum}"
            );
        }
        assert!(
            2 * grave_total < plain_total,
            "{engine:?}: {grave_total} {plain_total}"
        );
    }
}

/// The iterations through a position before it keeps all-moves statistics.
const REFERENCE_SLACK: u32 = super::rave::REFERENCE_VISITS;

/// One player, ten rounds: it picks one of four colours, then says one; each round
/// whose colour is said back scores 10 points. Said alone, every colour scores as well
/// as another, so MAST cannot learn which to say; after the pick, the pair can.
const ECHO: &str = "
    (role player)
    (init (step 0)) (init (hits 0))
    (colour a) (colour b) (colour c) (colour d)
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
    (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13)
    (succ 13 14) (succ 14 15) (succ 15 16) (succ 16 17) (succ 17 18) (succ 18 19)
    (succ 19 20)
    (even 0) (even 2) (even 4) (even 6) (even 8) (even 10) (even 12) (even 14) (even 16)
    (even 18)
    (<= (legal player (pick ?c)) (true (step ?n)) (even ?n) (colour ?c))
    (<= (legal player (say ?c)) (true (step ?n)) (not (even ?n)) (colour ?c))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= (next (last ?c)) (does player (pick ?c)))
    (<= (next (hits ?n)) (true (hits ?m)) (true (last ?c)) (does player (say ?c))
        (succ ?m ?n))
    (<= (next (hits ?n)) (true (hits ?n)) (true (last ?c)) (does player (say ?d))
        (distinct ?c ?d))
    (<= (next (hits ?n)) (true (hits ?n)) (does player (pick ?c)))
    (<= terminal (true (step 20)))
    (<= (goal player ?v) (true (hits ?n)) (points ?n ?v))
    (points 0 0) (points 1 10) (points 2 20) (points 3 30) (points 4 40) (points 5 50)
    (points 6 60) (points 7 70) (points 8 80) (points 9 90) (points 10 100)
";

#[test]
fn nst_playouts_learn_the_reply_that_depends_on_the_move_before() {
    let gdl = Arc::new(Gdl::parse_with(ECHO, crate::gdl::Engine::Propnet).unwrap());
    let start = gdl.initial_state();
    let mean = |playouts| {
        let mut tree = Mcts::new(gdl.clone(), Some(5), 64).with_playouts(playouts);
        tree.search_within(&start, 0, within(4_000));
        assert_eq!(tree.playouts(), playouts);
        root_mean(&tree)
    };
    let (mast, nst) = (mean(Playouts::Mast), mean(Playouts::Nst));
    // A random say echoes the pick a quarter of the time; NST's, once the pairs have
    // weight, about 70% of the time (greedy 60%, and random a quarter of the rest). Over
    // the whole search, with the pairs learnt as it goes: NST 0.64, MAST 0.50.
    assert!(nst > mast + 0.1, "NST {nst}, MAST {mast}");
}

/// Whether no two nodes of `tree` hold the same position.
fn positions_unique(tree: &Mcts) -> bool {
    let mut states: Vec<&State> = tree.nodes.iter().map(|n| &n.state).collect();
    states.sort_unstable();
    states.windows(2).all(|w| w[0] != w[1])
}

#[test]
fn a_position_reached_by_two_orders_of_moves_is_one_node() {
    let gdl = game("tictactoe.gdl");
    let start = gdl.initial_state();
    let search = |transpositions| {
        let mut tree = Mcts::new(gdl.clone(), Some(11), 64).with_transpositions(transpositions);
        tree.search_within(&start, 0, within(3_000));
        tree
    };
    let (tree, graph) = (search(false), search(true));
    assert!(!positions_unique(&tree), "a tree repeats positions");
    assert!(positions_unique(&graph));
    // x 1 1, o 2 2, x 3 3 and x 3 3, o 2 2, x 1 1: one node, a child of both parents.
    let one = marks(&gdl, &["1 1", "2 2", "3 3"]);
    let other = marks(&gdl, &["3 3", "2 2", "1 1"]);
    assert_eq!(one, other);
    let node = graph.nodes.iter().position(|n| n.state == one).unwrap();
    let parents = graph
        .nodes
        .iter()
        .filter(|n| n.children.values().any(|&c| c == node))
        .count();
    assert!(parents >= 2, "{parents} parents");
    assert!(graph.nodes.len() < tree.nodes.len());
}

/// Two players in turn either move a token to the other of two cells or end the game;
/// the first wins if it ends on cell 1. Nothing counts the steps: positions repeat.
const FLIP: &str = "
    (role first) (role second)
    (init (cell 0)) (init (control first))
    (other 0 1) (other 1 0) (other first second) (other second first)
    (<= (legal ?r flip) (true (control ?r)))
    (<= (legal ?r end) (true (control ?r)))
    (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
    (<= (next (cell ?n)) (true (cell ?m)) (does ?r flip) (other ?m ?n))
    (<= (next (cell ?m)) (true (cell ?m)) (does ?r end))
    (<= (next ended) (does ?r end))
    (<= (next (control ?s)) (true (control ?r)) (other ?r ?s))
    (<= terminal (true ended))
    (<= (goal first 100) (true (cell 1)))
    (<= (goal first 0) (true (cell 0)))
    (<= (goal second 100) (true (cell 0)))
    (<= (goal second 0) (true (cell 1)))
";

#[test]
fn a_repeated_position_ends_the_way_down_and_proves_nothing_false() {
    let gdl = Arc::new(Gdl::parse(FLIP).unwrap());
    let start = gdl.initial_state();
    let mut graph = Mcts::new(gdl.clone(), Some(12), 16).with_transpositions(true);
    let c = graph.search_within(&start, 0, within(2_000));
    assert_eq!(c.iterations, 2_000);
    // Two positions in play and two ended ones, each once: no more nodes however many
    // the iterations.
    assert!(positions_unique(&graph));
    assert_eq!(graph.nodes.len(), 4);
    // Neither side can force a win from the start (whoever ends it loses; flipping for
    // ever never ends), so the start is not proven, though ending at once is lost.
    assert_eq!(c.proven, None, "{c:?}");
    assert_eq!(gdl.display(&c.best.unwrap()), "flip");
    // Without transpositions the same line of flips is new nodes at every depth.
    let mut tree = Mcts::new(gdl.clone(), Some(12), 16);
    tree.search_within(&start, 0, within(2_000));
    assert!(tree.nodes.len() > 20, "{} nodes", tree.nodes.len());
}

/// Whether every child index of `tree` is valid, every node reachable from the root,
/// and the table holds every position's node.
fn well_formed_graph<M: Model>(tree: &Mcts<M>) -> bool {
    let mut seen = vec![false; tree.nodes.len()];
    let mut stack = vec![tree.root];
    while let Some(n) = stack.pop() {
        if !std::mem::replace(&mut seen[n], true) {
            stack.extend(tree.nodes[n].children.values().copied());
        }
    }
    let table = tree.table.as_ref().unwrap();
    seen.iter().all(|&s| s)
        && table.len() == tree.nodes.len()
        && table.iter().all(|(&k, &n)| tree.nodes[n].key == k)
}

#[test]
fn a_graph_stays_within_its_memory_and_recycles() {
    let gdl = game("connect_four.gdl");
    let start = gdl.initial_state();
    let bound = 64 << 10;
    let mut tree = Mcts::with_memory(gdl.clone(), Some(9), bound).with_transpositions(true);
    tree.search_within(&start, 0, within(1_500));
    let (_, bytes) = tree.memory();
    assert!(bytes <= bound, "{bytes} bytes in a tree of {bound}");
    assert!(tree.recycled() > 0);
    assert!(well_formed_graph(&tree));
    assert_eq!(bytes, tree.nodes.iter().map(|n| n.bytes).sum::<usize>());
    assert_eq!(tree.nodes[tree.root].visits, 1_500);
    // The next move's position is found in the graph and the search goes on from it.
    let best = tree.search_within(&start, 0, within(1)).best.unwrap();
    let noop = gdl.parse_term("noop").unwrap();
    let next = gdl.next_state(&start, &[best, noop]);
    tree.search_within(&next, 1, within(500));
    assert!(well_formed_graph(&tree));
    assert!(tree.nodes[tree.root].state == next && tree.nodes[tree.root].visits > 500);
}

#[test]
fn a_proof_found_by_one_tree_is_seen_by_another_that_shares_them() {
    let gdl = game("nim.gdl");
    let shared = Arc::new(SharedProofs::default());
    // The first tree proves heaps 1 and 3, first to move, won for first.
    let won = nim(&gdl, [1, 3, 0, 0], "first");
    let mut prover = Mcts::new(gdl.clone(), Some(6), 16).with_shared_proofs(shared.clone());
    assert_eq!(
        prover.search_within(&won, 0, within(100_000)).proven,
        Some(1.0)
    );
    // The second searches the position before it (heaps 1, 3 and 1, second to move), a
    // few iterations, with and without the shared table.
    let before = nim(&gdl, [1, 3, 1, 0], "second");
    let proven_in = |tree: &Mcts| {
        let node = tree.nodes.iter().find(|n| n.state == won)?;
        node.proven.clone()
    };
    let mut alone = Mcts::new(gdl.clone(), Some(13), 16);
    alone.search_within(&before, 1, within(12));
    assert_eq!(proven_in(&alone), None);
    let mut sharing = Mcts::new(gdl.clone(), Some(13), 16).with_shared_proofs(shared);
    sharing.search_within(&before, 1, within(12));
    assert_eq!(proven_in(&sharing), Some(vec![1.0, 0.0]));
}

/// Every role's reward under best play from `state`, by a full minimax of a game where
/// one role chooses at a time (the one with more than one move, else role 0): the exact
/// values a proof must match.
pub(super) fn exact<M: Model>(
    model: &M,
    state: &M::State,
    memo: &mut HashMap<u64, Vec<f64>>,
) -> Vec<f64> {
    let key = model.key(state);
    if let Some(v) = memo.get(&key) {
        return v.clone();
    }
    let value = match model.expand(state) {
        Expansion::Over(rewards) => rewards,
        Expansion::Moves(legal) => {
            let mover = (0..legal.len()).find(|&r| legal[r].len() > 1).unwrap_or(0);
            (0..legal[mover].len())
                .map(|m| {
                    let joint: Vec<M::Move> = (0..legal.len())
                        .map(|r| legal[r][if r == mover { m } else { 0 }].clone())
                        .collect();
                    exact(model, &model.next(state, &joint), memo)
                })
                .max_by(|a, b| a[mover].total_cmp(&b[mover]))
                .unwrap()
        }
    };
    memo.insert(key, value.clone());
    value
}

/// Checks a search's `choice` for `role` at `state` against the exact values: a proven
/// root has the exact value and its move keeps it.
pub(super) fn check_choice(
    gdl: &Arc<Gdl>,
    state: &State,
    role: usize,
    choice: &Choice,
    memo: &mut HashMap<u64, Vec<f64>>,
    context: &str,
) {
    let Some(proven) = choice.proven else { return };
    let truth = exact(gdl, state, memo);
    assert_eq!(proven, truth[role], "{context}: a wrong proof of the root");
    let legal = gdl.analyse(state).legal;
    let ours = choice.best.clone().expect("a proven root has a move");
    if legal[role].len() < 2 {
        // The other role chooses here (a ponder): our move is the only one.
        return;
    }
    // Every other role plays its first move: in tic-tac-toe it is the only one.
    let joint: Vec<Term> = (0..legal.len())
        .map(|r| {
            if r == role {
                ours.clone()
            } else {
                legal[r][0].clone()
            }
        })
        .collect();
    let after = exact(gdl, &gdl.next_state(state, &joint), memo);
    assert_eq!(
        after[role],
        proven,
        "{context}: the root is proven at {proven} but its move {} gives {}",
        gdl.display(&ours),
        after[role]
    );
}

/// Every proof a tree holds, of a node and of a node's moves, against the exact values.
pub(super) fn check_tree(tree: &Mcts, memo: &mut HashMap<u64, Vec<f64>>, context: &str) {
    for n in &tree.nodes {
        if let Some(p) = &n.proven {
            assert_eq!(*p, exact(&tree.model, &n.state, memo), "{context}: a node");
        }
        for (m, k) in n.known.iter().enumerate() {
            let Some(k) = k else { continue };
            let mover = n.mover.unwrap();
            let joint: Vec<Term> = (0..n.legal.len())
                .map(|r| n.legal[r][if r == mover { m } else { 0 }].clone())
                .collect();
            let next = tree.model.next(&n.state, &joint);
            assert_eq!(*k, exact(&tree.model, &next, memo), "{context}: a move");
        }
    }
}

#[test]
fn trees_sharing_proofs_claim_only_exact_values_and_moves_that_keep_them() {
    let gdl = game("tictactoe.gdl");
    let mut memo = HashMap::new();
    // Without the fix of a root proven by the other tree (`Mcts::own_root_proof`), 45
    // of 80 such games met a proven root whose move threw its result away.
    for seed in 0..8 {
        for transpositions in [false, true] {
            // Two trees share a table and search each position of a game in turn, as
            // the threads of a forest do, but one after the other: reproducible.
            let shared = Arc::new(SharedProofs::default());
            let mut trees: Vec<Mcts> = (0..2)
                .map(|t| {
                    Mcts::new(gdl.clone(), Some(seed * 2 + t), 16)
                        .with_transpositions(transpositions)
                        .with_shared_proofs(shared.clone())
                })
                .collect();
            random_game(&gdl, seed, |state, ply| {
                let role = ply % 2;
                for (t, tree) in trees.iter_mut().enumerate() {
                    let context = format!("seed {seed}, ply {ply}, tree {t}, {transpositions}");
                    let choice = tree.search_within(state, role, within(150));
                    check_choice(&gdl, state, role, &choice, &mut memo, &context);
                    check_tree(tree, &mut memo, &context);
                }
            });
        }
    }
}

/// Plays a game of random moves from the start (a random game reaches positions a good
/// one would not), calling `visit` with every position before the end and its ply.
fn random_game(gdl: &Arc<Gdl>, seed: u64, visit: impl FnMut(&State, usize)) {
    random_game_from(gdl, gdl.initial_state(), seed, visit);
}

/// [`random_game`] from `state`.
pub(super) fn random_game_from(
    gdl: &Arc<Gdl>,
    mut state: State,
    seed: u64,
    mut visit: impl FnMut(&State, usize),
) {
    let mut rng = crate::rng::seeded(Some(seed));
    for ply in 0.. {
        let analysis = gdl.analyse(&state);
        if analysis.terminal {
            break;
        }
        visit(&state, ply);
        state = gdl.next_state(&state, &random_joint(&analysis.legal, &mut rng));
    }
}

#[test]
fn a_forest_sharing_proofs_answers_a_proven_root_with_a_move_that_keeps_it() {
    use forest::Forest;
    let gdl = game("tictactoe.gdl");
    let mut memo = HashMap::new();
    for seed in 0..8 {
        // Role 0's player as a server runs it: two threads, transpositions, and a search
        // of every position, the opponent's too (a ponder), on the trees kept between.
        let mut forest = Forest::new(gdl.clone(), Some(seed), 16, 2)
            .with_transpositions(true)
            .with_shared_proofs(true);
        random_game(&gdl, seed, |state, ply| {
            let (choice, _) = forest.search_within(state, 0, within(300), 2);
            let context = format!("forest, seed {seed}, ply {ply}");
            check_choice(&gdl, state, 0, &choice, &mut memo, &context);
        });
    }
}

/// The reasoner, counting the states it hashes ([`Model::key`]) and the steps it plays
/// ([`Model::next`]; its playouts are not counted).
#[derive(Clone)]
pub(super) struct Counting {
    pub gdl: Arc<Gdl>,
    keys: Arc<std::sync::atomic::AtomicU64>,
    steps: Arc<std::sync::atomic::AtomicU64>,
}

impl Counting {
    pub fn new(gdl: Arc<Gdl>) -> Counting {
        Counting {
            gdl,
            keys: Arc::default(),
            steps: Arc::default(),
        }
    }

    pub fn keys(&self) -> u64 {
        self.keys.load(Ordering::Relaxed)
    }

    pub fn steps(&self) -> u64 {
        self.steps.load(Ordering::Relaxed)
    }
}

impl Model for Counting {
    type State = State;
    type Move = Term;
    const CLOCK_EVERY: u32 = 1;

    fn expand(&self, state: &State) -> Expansion<Term> {
        self.gdl.expand(state)
    }

    fn expand_with_goals(&self, state: &State) -> (Expansion<Term>, Vec<Option<f64>>) {
        self.gdl.expand_with_goals(state)
    }

    fn next(&self, state: &State, joint: &[Term]) -> State {
        self.steps.fetch_add(1, Ordering::Relaxed);
        Model::next(&self.gdl, state, joint)
    }

    fn playout(
        &self,
        state: State,
        rng: &mut Rng,
        timer: &mut Timer,
        mast: Option<&mut Mast>,
    ) -> Option<Vec<f64>> {
        self.gdl.playout(state, rng, timer, mast)
    }

    fn move_key(&self, role: usize, m: &Term) -> u32 {
        Model::move_key(&self.gdl, role, m)
    }

    fn same(&self, a: &State, b: &State) -> bool {
        self.gdl.same(a, b)
    }

    fn key(&self, state: &State) -> u64 {
        self.keys.fetch_add(1, Ordering::Relaxed);
        self.gdl.key(state)
    }
}

/// A search hashes its states only where something reads the hashes: the transposition
/// table, or the proofs shared with other trees.
#[test]
fn states_are_hashed_only_for_transpositions_or_shared_proofs() {
    let gdl = game("tictactoe.gdl");
    let start = gdl.initial_state();
    for (transpositions, shared) in [(false, false), (true, false), (false, true)] {
        let model = Counting::new(gdl.clone());
        let mut tree = Mcts::new(model.clone(), Some(1), 16).with_transpositions(transpositions);
        if shared {
            tree = tree.with_shared_proofs(Arc::new(SharedProofs::default()));
        }
        let choice = tree.search_within(&start, 0, within(200));
        assert!(
            choice.nodes > 100 && model.steps() > 100,
            "{transpositions} {shared}"
        );
        let hashed = model.keys() > 0;
        assert_eq!(
            hashed,
            transpositions || shared,
            "{transpositions} {shared}"
        );
    }
}

#[test]
fn a_root_proven_by_another_tree_answers_its_proven_move_whatever_the_others_means() {
    let gdl = game("tictactoe.gdl");
    let noop = gdl.parse_term("noop").unwrap();
    let mut memo = HashMap::new();
    // x 3 2, o 2 2, x 3 1: o must block at 3 3, a draw; every other move loses.
    let state = marks(&gdl, &["3 2", "2 2", "3 1"]);
    let block = gdl.parse_term("(mark 3 3)").unwrap();
    let after_block = gdl.next_state(&state, &[noop.clone(), block.clone()]);
    let mut checked = 0;
    for seed in 0..20 {
        for transpositions in [false, true] {
            // Another tree proved the block a draw: the table has it.
            let shared = Arc::new(SharedProofs::default());
            shared.put(gdl.key(&after_block), &[0.5, 0.5]);
            let mut tree = Mcts::new(gdl.clone(), Some(seed), 16)
                .with_transpositions(transpositions)
                .with_shared_proofs(shared.clone());
            // One iteration for each of o's six moves: the block is proven from the
            // table, the others are rated by a playout each.
            tree.search_within(&state, 1, within(6));
            let root = &tree.nodes[tree.root];
            let i = root.legal[1].iter().position(|m| *m == block).unwrap();
            assert_eq!(root.known[i], Some(vec![0.5, 0.5]), "seed {seed}");
            // Only where a losing move's playout scored better than the draw.
            if !root.stats_of(1).iter().any(|s| s.mean() > 0.5) {
                continue;
            }
            // Then the other tree proves the root, a draw, and this tree reads it as
            // it would on entering the root's node below another position.
            shared.put(gdl.key(&state), &[0.5, 0.5]);
            tree.import_proof(tree.root);
            assert_eq!(exact(&gdl, &state, &mut memo), [0.5, 0.5]);
            let choice = tree.search_within(&state, 1, within(1_000));
            assert_eq!((choice.proven, choice.iterations), (Some(0.5), 0));
            // Without the rule that a proven root answers its proven move, the losing
            // move whose playout scored 1 was the answer.
            assert_eq!(
                choice.best.as_ref().map(|m| gdl.display(m)),
                Some("(mark 3 3)".to_owned()),
                "seed {seed}, transpositions {transpositions}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no seed rated a losing move above the draw");
}

/// A node whose roles have `lens` legal moves each (moves without content).
fn bare_node(lens: &[usize]) -> Node<(), ()> {
    Node {
        state: (),
        key: 0,
        terminal: false,
        legal: lens.iter().map(|&n| vec![(); n]).collect(),
        visits: 0,
        sums: Vec::new(),
        stats: vec![Stat::default(); lens.iter().sum()],
        value: Vec::new(),
        children: FastMap::default(),
        mover: None,
        proven: None,
        known: Vec::new(),
        amaf: None,
        bytes: 0,
    }
}

#[test]
fn every_joint_move_has_its_own_number_and_a_role_its_own_statistics() {
    let mut node = bare_node(&[3, 1, 4]);
    let mut numbers = std::collections::HashSet::new();
    for a in 0..3 {
        for c in 0..4 {
            let key = node.joint_key(&[a, 0, c]).unwrap();
            assert!(key < 12, "{key}");
            assert!(numbers.insert(key), "{a} 0 {c} shares {key}");
        }
    }
    assert_eq!(numbers.len(), 12);
    // Each role's statistics are its own slice of the node's vector.
    node.stats_of_mut(2)[3].visits = 7;
    node.stats_of_mut(0)[2].visits = 5;
    let visits = |role| -> Vec<u32> { node.stats_of(role).iter().map(|s| s.visits).collect() };
    assert_eq!(visits(0), [0, 0, 5]);
    assert_eq!(visits(1), [0]);
    assert_eq!(visits(2), [0, 0, 0, 7]);
    assert!(node.stats_of(3).is_empty());
    // A lone mover's move finds the child its joint move numbers.
    let mut turn = bare_node(&[1, 5]);
    turn.children.insert(turn.joint_key(&[0, 3]).unwrap(), 9);
    assert_eq!(turn.child_after(1, 3), Some(9));
    assert_eq!(turn.child(&[0, 3]), Some(9));
    assert_eq!(turn.child_after(1, 2), None);
}

#[test]
fn joint_moves_too_many_to_number_have_no_number() {
    // 2^80 joint moves: the last ones are past 64 bits, the first ones are not.
    let node = bare_node(&[1 << 20; 4]);
    let last = [(1 << 20) - 1; 4];
    assert_eq!(node.joint_key(&last), None);
    assert_eq!(node.child(&last), None);
    assert_eq!(node.joint_key(&[1, 0, 0, 1]), Some(1 + (1 << 60)));
    // 2^64 - 1 at most still is.
    let node = bare_node(&[1 << 16; 4]);
    assert_eq!(node.joint_key(&[65_535; 4]), Some(u64::MAX));
}

/// A tic-tac-toe state that takes `SLOW_DROP` to free, and counts its freeing.
#[derive(Clone)]
struct SlowToDrop(State, Arc<AtomicUsize>);

const SLOW_DROP: Duration = Duration::from_micros(200);

impl Drop for SlowToDrop {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::Relaxed);
        std::thread::sleep(SLOW_DROP);
    }
}

/// The reasoner over states slow to free; the count of states freed.
struct SlowDropping(Arc<Gdl>, Arc<AtomicUsize>);

impl SlowDropping {
    fn state(&self, state: State) -> SlowToDrop {
        SlowToDrop(state, Arc::clone(&self.1))
    }
}

impl Model for SlowDropping {
    type State = SlowToDrop;
    type Move = Term;
    const CLOCK_EVERY: u32 = 1;

    fn expand(&self, state: &SlowToDrop) -> Expansion<Term> {
        self.0.expand(&state.0)
    }

    fn next(&self, state: &SlowToDrop, joint: &[Term]) -> SlowToDrop {
        self.state(Model::next(&self.0, &state.0, joint))
    }

    fn playout(
        &self,
        state: SlowToDrop,
        rng: &mut Rng,
        timer: &mut Timer,
        mast: Option<&mut Mast>,
    ) -> Option<Vec<f64>> {
        self.0.playout(state.0.clone(), rng, timer, mast)
    }

    fn move_key(&self, role: usize, m: &Term) -> u32 {
        Model::move_key(&self.0, role, m)
    }

    fn same(&self, a: &SlowToDrop, b: &SlowToDrop) -> bool {
        a.0 == b.0
    }

    fn key(&self, state: &SlowToDrop) -> u64 {
        self.0.key(&state.0)
    }
}

/// A tic-tac-toe tree of states slow to free, grown by 300 iterations from the start;
/// the count of states freed.
fn slow_dropping_tree() -> (Mcts<SlowDropping>, Arc<AtomicUsize>) {
    let gdl = game("tictactoe.gdl");
    let freed = Arc::new(AtomicUsize::new(0));
    let model = SlowDropping(Arc::clone(&gdl), Arc::clone(&freed));
    let start = model.state(gdl.initial_state());
    let mut tree = Mcts::new(model, Some(1), 16);
    let budget = Budget {
        iterations: Some(300),
        ..Budget::default()
    };
    tree.search_within(&start, 0, budget);
    assert!(tree.nodes.len() > 100, "{} nodes", tree.nodes.len());
    (tree, freed)
}

/// What a recycling is timed at (which decides whether the next one fits before a
/// deadline) includes freeing the nodes it drops.
#[test]
fn a_recycling_is_timed_with_freeing_what_it_drops() {
    let (mut tree, _) = slow_dropping_tree();
    let before = tree.nodes.len();
    // Full: the next expansion needs room.
    tree.set_memory(tree.bytes);
    tree.make_room(&Timer::new(None, None, 1));
    let dropped = before - tree.nodes.len();
    assert!(dropped > 50, "{dropped} of {before} dropped");
    let timed = tree.recycle_per_node.as_secs_f64() * before as f64;
    let freeing = SLOW_DROP.as_secs_f64() * dropped as f64;
    assert!(timed >= freeing * 0.99, "{timed} s for {dropped} nodes");
}

/// The state after the first legal move of each role, in `tree`'s model.
fn after_first_moves(tree: &Mcts<SlowDropping>) -> SlowToDrop {
    let root = &tree.nodes[tree.root];
    let joint: Vec<Term> = root.legal.iter().map(|m| m[0].clone()).collect();
    Model::next(&tree.model, &root.state, &joint)
}

/// A tree of [`slow_dropping_tree`] whose root moved by the first legal moves (no
/// search after); the count of states freed, how many the move freed, and the nodes
/// before the move.
fn slow_dropping_tree_moved() -> (Mcts<SlowDropping>, Arc<AtomicUsize>, usize, usize) {
    let (mut tree, freed) = slow_dropping_tree();
    let before = tree.nodes.len();
    let next = after_first_moves(&tree);
    let no_search = Budget {
        iterations: Some(0),
        ..Budget::default()
    };
    let freed_before = freed.load(Ordering::Relaxed);
    tree.search_within(&next, 1, no_search);
    let by_move = freed.load(Ordering::Relaxed) - freed_before;
    (tree, freed, by_move, before)
}

/// A move of the root frees nothing on the clock: what it drops is freed when asked,
/// and counts against the memory bound until then.
#[test]
fn what_a_move_of_the_root_drops_is_freed_when_asked() {
    let (mut tree, freed, by_move, before) = slow_dropping_tree_moved();
    let kept = tree.nodes.len();
    assert!(kept < before, "{kept} of {before} kept");
    assert_eq!(by_move, 0);
    assert_eq!(tree.held(), before - kept);
    assert!(tree.dropped.bytes > 0);
    let freed_before = freed.load(Ordering::Relaxed);
    // A stop flag already raised frees nothing.
    let raised = AtomicBool::new(true);
    assert_eq!(tree.free_dropped(Some(&raised)), 0);
    assert_eq!(tree.held(), before - kept);
    assert_eq!(tree.free_dropped(None), before - kept);
    assert_eq!(freed.load(Ordering::Relaxed), freed_before + before - kept);
    assert_eq!((tree.held(), tree.dropped.bytes), (0, 0));
    assert_eq!(tree.free_dropped(None), 0);
}

/// The nodes held for freeing are freed first when the tree needs their room.
#[test]
fn held_nodes_are_freed_when_the_tree_needs_their_room() {
    let (mut tree, freed, _, before) = slow_dropping_tree_moved();
    let kept = tree.nodes.len();
    // Room for the live tree and one expansion, not for the held nodes too.
    tree.set_memory(tree.bytes + tree.largest);
    let freed_before = freed.load(Ordering::Relaxed);
    tree.make_room(&Timer::new(None, None, 1));
    assert_eq!(tree.nodes.len(), kept, "nothing recycled");
    assert_eq!(freed.load(Ordering::Relaxed), freed_before + before - kept);
    assert_eq!(tree.held(), 0);
}
