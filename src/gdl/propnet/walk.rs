//! Playouts and queries evaluated by propagation: a step asserts the chosen moves, reads the
//! `next` propositions, then retracts the moves and flips only the fluents that changed.

use super::propagate::Live;
use super::{Analysis, FIRST_BASE, PlayoutEnd, PlayoutLimit, Propnet};
use crate::rng::Rng;

/// A propagating evaluation and the buffers of a playout, pooled between playouts.
pub(super) struct Walk {
    live: Live,
    /// Whether `live` is up to date (with no move asserted), so that a new state can be
    /// loaded by flipping only the fluents that differ.
    settled: bool,
    keys: Vec<u32>,
    chosen: Vec<u32>,
    /// The fluents that change at this step.
    flips: Vec<u32>,
}

impl Propnet {
    fn take_walk(&self) -> Walk {
        let pooled = self.walks.lock().ok().and_then(|mut p| p.pop());
        pooled.unwrap_or_else(|| Walk {
            live: self.propagator.live(&self.net),
            settled: false,
            keys: Vec::new(),
            chosen: Vec::new(),
            flips: Vec::new(),
        })
    }

    fn give_back(&self, walk: Walk) {
        if let Ok(mut pool) = self.walks.lock()
            && pool.len() < 16
        {
            pool.push(walk);
        }
    }

    /// Puts the state `bits`, with no move played, in the walk's evaluation.
    fn load_walk(&self, bits: &[u64], walk: &mut Walk) {
        let p = &self.propagator;
        let live = &mut walk.live;
        if !walk.settled {
            self.load(bits, &mut live.vals);
            p.reset(&self.net, live);
            walk.settled = true;
            return;
        }
        // A walk retracts its moves before each step ends, so none is asserted here.
        for i in 0..self.fluents.len() {
            p.set(
                live,
                (FIRST_BASE + i) as u32,
                bits[i / 64] >> (i % 64) & 1 == 1,
            );
        }
        p.settle(&self.net, live);
    }

    /// Runs `f` on a pooled walk brought to the state `bits`, then pools it again.
    fn with_walk<T>(&self, bits: &[u64], f: impl FnOnce(&mut Walk) -> T) -> T {
        let mut walk = self.take_walk();
        self.load_walk(bits, &mut walk);
        let out = f(&mut walk);
        self.give_back(walk);
        out
    }

    /// [`Propnet::playout`] by propagation from the state `bits`.
    pub(super) fn playout_propagating(
        &self,
        bits: &[u64],
        rng: &mut Rng,
        limit: &mut PlayoutLimit,
    ) -> Option<PlayoutEnd> {
        self.with_walk(bits, |walk| self.walk(walk, rng, limit))
    }

    /// [`Propnet::analyse`] by propagation.
    pub(super) fn analyse_propagating(&self, bits: &[u64]) -> Analysis {
        self.with_walk(bits, |walk| self.analysis_in(&walk.live.vals))
    }

    /// [`Propnet::next_state`] by propagation: the successor of `bits` under the moves
    /// `inputs`, into `out`. The evaluation is left at the successor with no move
    /// played, where a tree search asks next: the new node's analysis and its playout.
    pub(super) fn next_propagating(&self, bits: &[u64], inputs: &[u32], out: &mut [u64]) {
        self.with_walk(bits, |walk| {
            let (p, live) = (&self.propagator, &mut walk.live);
            inputs.iter().for_each(|&i| p.set(live, i, true));
            p.settle(&self.net, live);
            self.store_next(&live.vals, out);
            inputs.iter().for_each(|&i| p.set(live, i, false));
            self.load_walk(out, walk);
        });
    }

    fn walk(&self, walk: &mut Walk, rng: &mut Rng, limit: &mut PlayoutLimit) -> Option<PlayoutEnd> {
        let (p, net) = (&self.propagator, &self.net);
        let Walk {
            live,
            keys,
            chosen,
            flips,
            ..
        } = walk;
        for _ in 0..limit.max_steps {
            if (limit.stop)() {
                return None;
            }
            if live.vals[self.terminal as usize]
                || !self.pick_moves(&live.vals, rng, limit, keys, chosen)
            {
                return Some(self.ended(&live.vals, true));
            }
            chosen.iter().for_each(|&i| p.set(live, i, true));
            p.settle(net, live);
            flips.clear();
            for (i, &next) in self.next.iter().enumerate() {
                if live.vals[next as usize] != live.vals[FIRST_BASE + i] {
                    flips.push((FIRST_BASE + i) as u32);
                }
            }
            chosen.iter().for_each(|&i| p.set(live, i, false));
            for &f in flips.iter() {
                let now = !live.vals[f as usize];
                p.set(live, f, now);
            }
            p.settle(net, live);
        }
        Some(self.ended(&live.vals, false))
    }
}
