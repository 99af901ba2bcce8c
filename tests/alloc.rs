//! The engine allocates nothing per node: perft allocates nothing at all, and a
//! search allocates a fixed amount per iteration however many nodes it visits.
//! (A binary of its own: the counting allocator must not see other tests.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use ggp_player::games::breakthrough::eval::Improved;
use ggp_player::games::breakthrough::{Board, perft::perft};
use ggp_player::search::{self, Limits};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the counter
// has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    ALLOCATIONS.load(Ordering::Relaxed) - before
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
