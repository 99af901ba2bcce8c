//! The order in which a node's moves are searched: the most promising first, and moves
//! another thread is busy in (see [`super::busy`]) put off to the end.

/// Moves the most promising remaining move (largest key from `i` on) to position `i`:
/// cut-offs make a full sort wasteful.
fn pick_next<M>(moves: &mut [M], keys: &mut [i32], i: usize) {
    let mut pick = i;
    for j in i + 1..keys.len() {
        if keys[j] > keys[pick] {
            pick = j;
        }
    }
    moves.swap(i, pick);
    keys.swap(i, pick);
}

/// The order in which a node's moves are searched: the largest ordering key first, and a
/// move another thread is searching right now put off to the end, where the table may
/// answer it by then (the first move searched is never put off). The indices put off
/// are stacked on a list shared by every node of the path, from `base` on.
pub(super) struct Order {
    next: usize,
    base: usize,
    replay: usize,
}

impl Order {
    pub(super) fn new(deferred: &[usize]) -> Order {
        Order {
            next: 0,
            base: deferred.len(),
            replay: deferred.len(),
        }
    }

    /// The index in `moves` of the next move to search, `None` when all are searched;
    /// `keys` are the moves' ordering keys, `busy` says whether another thread is in a
    /// move, and `searched` is how many moves this node has searched.
    pub(super) fn next<M: Copy>(
        &mut self,
        moves: &mut [M],
        keys: &mut [i32],
        deferred: &mut Vec<usize>,
        searched: usize,
        busy: impl Fn(M) -> bool,
    ) -> Option<usize> {
        while self.next < moves.len() {
            pick_next(moves, keys, self.next);
            self.next += 1;
            if searched > 0 && busy(moves[self.next - 1]) {
                deferred.push(self.next - 1);
            } else {
                return Some(self.next - 1);
            }
        }
        let index = deferred.get(self.replay).copied()?;
        self.replay += 1;
        Some(index)
    }

    /// Drops this node's put-off moves from the shared list.
    pub(super) fn finish(self, deferred: &mut Vec<usize>) {
        deferred.truncate(self.base);
    }
}
