//! The engine allocates nothing per node: perft allocates nothing at all, and a
//! search allocates a fixed amount per iteration however many nodes it visits. A
//! propositional network's playout allocates a fixed amount however many steps it has.
//! The reasoner's joins hold a bounded buffer however often they find the same rows.
//! (A binary of its own: the counting allocator must not see other tests.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ggp_player::game::{self, Game};
use ggp_player::games::ataxx::Ataxx;
use ggp_player::games::breakthrough::eval::Improved;
use ggp_player::games::breakthrough::{Board, perft::perft, solved};
use ggp_player::games::halma::Halma;
use ggp_player::gdl::{Engine, Evaluator, Gdl, PlayoutLimit};
use ggp_player::rng::seeded;
use ggp_player::search::{self, Limits};

struct Counting;

thread_local! {
    /// Allocations made by this thread: the test harness's own threads allocate too,
    /// whenever they like, and must not be counted. Constant-initialised and without a
    /// destructor, so reading it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    /// Bytes this thread holds: allocated less freed (by this thread).
    static HELD: Cell<i64> = const { Cell::new(0) };
    /// The most `HELD` has been.
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter
// has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        let _ = HELD.try_with(|n| {
            n.set(n.get() + layout.size() as i64);
            let _ = PEAK.try_with(|p| p.set(p.get().max(n.get())));
        });
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = HELD.try_with(|n| n.set(n.get() - layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations `f` makes on this thread (the searches here run on the calling thread).
fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn perft_and_search_allocate_nothing_per_node() {
    let mut board = Board::new("8x8".parse().unwrap());
    let n = allocations_during(|| assert_eq!(perft(&mut board, 6), 484_684));
    assert_eq!(n, 0, "perft allocated");

    let board = Board::new("6x6".parse().unwrap());
    let mut nodes = [0u64; 2];
    let mut allocs = [0u64; 2];
    for (i, depth) in [4, 8].into_iter().enumerate() {
        allocs[i] = allocations_during(|| {
            let r = search::search(&board, &Improved, &Limits::depth(depth));
            nodes[i] = r.nodes;
        });
    }
    assert!(
        nodes[1] > 20 * nodes[0],
        "deeper search visits many more nodes: {nodes:?}"
    );
    // Four more iterations may cost a few allocations each (root bookkeeping,
    // statistics), never anything proportional to the nodes.
    assert!(
        allocs[1] - allocs[0] <= 4 * 8,
        "allocations {allocs:?} for nodes {nodes:?}"
    );
}

/// Ataxx's perft, and Halma's, whose jump chains are found by a flood fill over whole
/// boards, allocate nothing either.
#[test]
fn ataxx_and_halma_perft_allocate_nothing() {
    let mut ataxx = Ataxx::start();
    let n = allocations_during(|| assert_eq!(ataxx.perft_pairs(4), 119_520));
    assert_eq!(n, 0, "Ataxx perft allocated");
    let mut halma = Halma::start();
    let n = allocations_during(|| assert_eq!(game::perft(&mut halma, 3), 62_240));
    assert_eq!(n, 0, "Halma perft allocated");
}

/// The memory the player's table of solved openings costs: the text built into the
/// program, and the heap its parsed form keeps (read at the first lookup).
#[test]
fn the_table_of_solved_openings_is_small() {
    let board = Board::new("5x5".parse().unwrap());
    let before = HELD.with(Cell::get);
    let began = std::time::Instant::now();
    assert!(board.solved().is_some());
    let first = began.elapsed();
    let held = HELD.with(Cell::get) - before;
    let (boards, lines) = solved::boards();
    let text = solved::text_bytes();
    println!(
        "solved openings: {} boards, {lines} positions, {text} bytes of text, {held} bytes of \
         heap, read at the first lookup in {first:?}",
        boards.len()
    );
    assert!(held > 0, "the table is read at the first lookup");
    assert!(held < 1 << 20, "{held} bytes of heap");
    assert!(text < 1 << 20, "{text} bytes of text");
}

/// Pentago's random games last about 60 steps: a playout of the network, swept or
/// propagated, allocates a few buffers (the start state's bits, the goals), none per step.
#[test]
fn network_playouts_allocate_nothing_per_step() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/pentago.gdl");
    let text = std::fs::read_to_string(path).unwrap();
    let gdl = Gdl::parse_with(&text, Engine::Propnet).unwrap();
    let start = gdl.initial_state();
    let mut rng = seeded(Some(7));
    for evaluator in [Evaluator::Sweep, Evaluator::Propagate] {
        let model = gdl.with_evaluator(evaluator);
        let mut steps = 0u64;
        let mut play = |steps: &mut u64| {
            let limit = PlayoutLimit {
                max_steps: 1_000,
                stop: &mut || {
                    *steps += 1;
                    false
                },
                pick: None,
            };
            assert!(model.playout(&start, &mut rng, limit).is_some());
        };
        // The first playout fills the pools of value arrays.
        play(&mut steps);
        let playouts = 10;
        steps = 0;
        let n = allocations_during(|| (0..playouts).for_each(|_| play(&mut steps)));
        assert!(steps >= 20 * playouts, "{evaluator:?}: {steps} steps");
        assert!(
            n <= 8 * playouts,
            "{evaluator:?}: {n} allocations in {playouts} playouts of {steps} steps"
        );
    }
}

/// A join that finds the same few rows millions of times keeps only a bounded buffer of
/// them: amazonsSuicide's relaxed rules once held 2 GB of repeats.
#[test]
fn a_join_that_repeats_its_rows_holds_a_bounded_buffer() {
    // 250 distinct heads, each found 250 x 250 times: 15.6 million rows, 62 MB as found.
    let nums: String = (0..250).map(|i| format!("(num n{i}) ")).collect();
    let text = format!(
        "(role r) {nums}\n(<= (first ?x) (num ?x) (num ?y) (num ?z))\n\
         (<= (legal r (go ?x)) (first ?x))\n(<= terminal (true done))\n(<= (goal r 0) (num n0))"
    );
    let before = HELD.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let gdl = Gdl::parse_with(&text, Engine::Reasoner).unwrap();
    let peak = PEAK.with(Cell::get) - before;
    assert_eq!(gdl.legal_moves(&gdl.initial_state(), 0).len(), 250);
    assert!(peak < 32 << 20, "{} MB at the peak", peak >> 20);
}
