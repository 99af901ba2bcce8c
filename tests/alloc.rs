//! The engine allocates nothing per node: perft allocates nothing at all, and a
//! search allocates a fixed amount per iteration however many nodes it visits.
//! (A binary of its own: the counting allocator must not see other tests.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ggp_player::games::breakthrough::eval::Improved;
use ggp_player::games::breakthrough::{Board, perft::perft};
use ggp_player::search::{self, Limits};

struct Counting;

thread_local! {
    /// Allocations made by this thread: the test harness's own threads allocate too,
    /// whenever they like, and must not be counted. Constant-initialised and without a
    /// destructor, so reading it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter
// has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
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
