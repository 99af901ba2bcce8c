//! Evaluating a circuit by propagating changes: every gate keeps its value, and when a
//! base or input proposition flips, only the gates it reaches are looked at again.
//!
//! From one step of a playout to the next only a few fluents change (a heap in nim, a
//! marble and a quadrant in pentago), so sweeping every gate again ([`Net::run`]) mostly
//! recomputes what did not change. Here each gate also keeps a *score*, so that a flipped
//! input updates it in constant time, and the gate holds exactly when its score is above
//! zero: an `or` counts its true inputs, an `and` its true inputs less all but one (so it
//! reaches one when all hold), a `not` its false input. One rule for every kind keeps the
//! update free of a branch on the gate's kind, the hottest spot of a playout.
//!
//! A recursive cycle (a block of gates that read one another, see [`Net::fixpoint`]) has
//! no such local rule: its least fixpoint may need every member again. When one of its
//! outside inputs flips, the whole block is swept again from false, and its members that
//! changed are propagated from there. Blocks waiting for that are swept lowest first,
//! after everything below them has settled, so each is swept at most once per
//! [`Propagator::settle`].
//!
//! The values, scores and work lists live in a [`Live`] that is reused from one playout
//! to the next: no step allocates.

use super::eval::{Cone, Kind, Net};

/// `cycle_of` of a gate outside every recursive cycle.
const NO_CYCLE: u32 = u32::MAX;

/// In an entry of `outs`: the reader belongs to a recursive cycle (and is swept instead).
/// Gate numbers stay far below it: grounding gives up past
/// [`super::ground::MAX_GROUND_LITERALS`] literals.
const IN_CYCLE: u32 = 1 << 31;

/// What propagation needs of a circuit besides its gates: who reads each gate.
pub(super) struct Propagator {
    /// The gates that read gate `g` are `outs[out_start[g]..out_start[g + 1]]`, each as
    /// the reader times 2, plus 1 if it is a `not` (whose score falls as its input rises),
    /// plus [`IN_CYCLE`] if it belongs to a recursive cycle.
    out_start: Vec<u32>,
    outs: Vec<u32>,
    /// Per gate: the index of the recursive cycle it belongs to, or [`NO_CYCLE`].
    cycle_of: Vec<u32>,
    /// Every gate of the circuit, to start from scratch.
    whole: Cone,
}

/// The evaluation of a circuit for one state and set of moves, kept up to date.
pub(super) struct Live {
    /// Every gate's value; the caller reads them, and flips bases and inputs by
    /// [`Propagator::set`].
    pub vals: Vec<bool>,
    /// Per gate outside the cycles (which are swept instead): its score, above zero
    /// exactly when the gate holds. Signed, because a flip and its undo may be counted in
    /// either order.
    score: Vec<i32>,
    /// Gates whose value changed and whose readers were not yet told: the gate times 2,
    /// plus 1 if it became true.
    stack: Vec<u32>,
    /// Per cycle: whether it waits to be swept again; and the list of those that do.
    dirty: Vec<bool>,
    waiting: Vec<u32>,
    /// The values of a cycle's members before it is swept again.
    before: Vec<bool>,
}

impl Propagator {
    pub fn new(net: &Net) -> Propagator {
        let n = net.len();
        let mut cycle_of = vec![NO_CYCLE; n];
        for (c, &(a, b)) in net.cycles.iter().enumerate() {
            cycle_of[a as usize..b as usize].fill(c as u32);
        }
        let mut readers = vec![0u32; n + 1];
        for g in 0..n {
            net.inputs_of(g)
                .iter()
                .for_each(|&i| readers[i as usize + 1] += 1);
        }
        for g in 0..n {
            readers[g + 1] += readers[g];
        }
        let mut fill = readers.clone();
        let mut outs = vec![0u32; readers[n] as usize];
        for (g, &c) in cycle_of.iter().enumerate() {
            let mut entry = (g as u32) << 1 | (net.kind[g] == Kind::Not) as u32;
            if c != NO_CYCLE {
                entry |= IN_CYCLE;
            }
            for &i in net.inputs_of(g) {
                outs[fill[i as usize] as usize] = entry;
                fill[i as usize] += 1;
            }
        }
        Propagator {
            out_start: readers,
            outs,
            cycle_of,
            whole: net.cone(&vec![true; n]),
        }
    }

    /// A fresh evaluation, to be started by [`Propagator::reset`].
    pub fn live(&self, net: &Net) -> Live {
        let mut vals = vec![false; net.len()];
        vals[1] = true;
        Live {
            vals,
            score: vec![0; net.len()],
            stack: Vec::new(),
            dirty: vec![false; net.cycles.len()],
            waiting: Vec::new(),
            before: Vec::new(),
        }
    }

    /// Computes every gate from the bases and inputs already in `live.vals`.
    pub fn reset(&self, net: &Net, live: &mut Live) {
        net.run(&self.whole, &mut live.vals);
        for (g, score) in live.score.iter_mut().enumerate() {
            let ins = net.inputs_of(g);
            let held = ins.iter().filter(|&&i| live.vals[i as usize]).count() as i32;
            *score = match net.kind[g] {
                Kind::Or => held,
                Kind::And => held + 1 - ins.len() as i32,
                Kind::Not => 1 - held,
                Kind::Leaf => 0,
            };
        }
        live.stack.clear();
        live.waiting.clear();
        live.dirty.fill(false);
    }

    /// Gives base or input proposition `leaf` the value `v`; the gates it reaches are
    /// updated by the next [`Propagator::settle`].
    #[inline]
    pub fn set(&self, live: &mut Live, leaf: u32, v: bool) {
        if live.vals[leaf as usize] != v {
            live.vals[leaf as usize] = v;
            live.stack.push(leaf << 1 | v as u32);
        }
    }

    /// Brings every gate up to date with the bases and inputs set since the last call.
    pub fn settle(&self, net: &Net, live: &mut Live) {
        loop {
            while let Some(event) = live.stack.pop() {
                self.tell_readers(live, event >> 1, event & 1 == 1);
            }
            // The lowest cycle waiting: everything it reads has settled.
            let Some((at, &c)) = live.waiting.iter().enumerate().min_by_key(|&(_, c)| *c) else {
                return;
            };
            live.waiting.swap_remove(at);
            live.dirty[c as usize] = false;
            self.sweep_cycle(net, live, c as usize);
        }
    }

    /// Gate `g` became `v`: updates the gates that read it, and queues those that change.
    #[inline]
    fn tell_readers(&self, live: &mut Live, g: u32, v: bool) {
        let delta = if v { 1 } else { -1 };
        let readers = self.out_start[g as usize] as usize..self.out_start[g as usize + 1] as usize;
        for &entry in &self.outs[readers] {
            if entry & IN_CYCLE != 0 {
                self.touch_cycle(live, g, entry);
                continue;
            }
            let Live {
                vals, score, stack, ..
            } = &mut *live;
            let o = (entry >> 1) as usize;
            score[o] += if entry & 1 == 1 { -delta } else { delta };
            let now = score[o] > 0;
            if now != vals[o] {
                vals[o] = now;
                stack.push((o as u32) << 1 | now as u32);
            }
        }
    }

    /// Gate `g` changed and the reader `entry` belongs to a cycle: unless `g` is in the
    /// same cycle (which its sweep already covers), the cycle waits to be swept again.
    #[cold]
    fn touch_cycle(&self, live: &mut Live, g: u32, entry: u32) {
        let c = self.cycle_of[((entry & !IN_CYCLE) >> 1) as usize];
        if c != self.cycle_of[g as usize] && !live.dirty[c as usize] {
            live.dirty[c as usize] = true;
            live.waiting.push(c);
        }
    }

    /// Sweeps cycle `c` again from false, and queues its members that changed.
    fn sweep_cycle(&self, net: &Net, live: &mut Live, c: usize) {
        let (a, b) = net.cycles[c];
        let range = a as usize..b as usize;
        live.before.clear();
        live.before.extend_from_slice(&live.vals[range.clone()]);
        net.fixpoint(range.clone(), &mut live.vals);
        for (g, &old) in range.zip(&live.before) {
            let now = live.vals[g];
            if now != old {
                live.stack.push((g as u32) << 1 | now as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::RngExt;

    use super::super::super::{Engine, Gdl};
    use super::*;
    use crate::rng::seeded;

    /// Doors between rooms are fluents and a move toggles one; the rooms reached from
    /// `a` are a recursive relation over them, and the lit rooms a second one over the
    /// first, read through a negation too: two cycles, one feeding the other.
    const ROOMS: &str = "
        (role walker)
        (room a) (room b) (room c) (room d) (room e)
        (init (open a b)) (init (lamp c))
        (<= (reach a) (room a))
        (<= (reach ?y) (reach ?x) (true (open ?x ?y)))
        (<= (reach ?y) (reach ?x) (true (open ?y ?x)))
        (<= (lit ?x) (reach ?x) (true (lamp ?x)))
        (<= (lit ?y) (lit ?x) (true (open ?x ?y)))
        (<= (legal walker (toggle ?x ?y)) (room ?x) (room ?y) (distinct ?x ?y))
        (<= (legal walker (lamp ?x)) (room ?x) (not (reach ?x)))
        (<= (next (open ?x ?y)) (true (open ?x ?y)) (not (does walker (toggle ?x ?y))))
        (<= (next (open ?x ?y)) (does walker (toggle ?x ?y)) (not (true (open ?x ?y))))
        (<= (next (lamp ?x)) (true (lamp ?x)))
        (<= (next (lamp ?x)) (does walker (lamp ?x)))
        (<= terminal (lit e))
        (<= (goal walker 100) (lit e))
        (<= (goal walker 0) (not (lit e)))
    ";

    /// Flips random bases and inputs (some twice, undoing the flip) and checks after
    /// each batch that propagation left every gate as a sweep from scratch computes it.
    fn agrees_after_random_flips(text: &str, seed: u64, batches: usize) -> usize {
        let gdl = Gdl::parse_with(text, Engine::Propnet).unwrap();
        let net = &gdl.propnet.as_ref().unwrap().net;
        let p = Propagator::new(net);
        let leaves: Vec<u32> = (0..net.len() as u32)
            .filter(|&g| g > 1 && net.kind[g as usize] == Kind::Leaf)
            .collect();
        let mut rng = seeded(Some(seed));
        let mut live = p.live(net);
        p.reset(net, &mut live);
        let mut swept = live.vals.clone();
        for _ in 0..batches {
            for _ in 0..rng.random_range(1..6) {
                let leaf = leaves[rng.random_range(0..leaves.len())];
                let now = !live.vals[leaf as usize];
                p.set(&mut live, leaf, now);
                if rng.random_range(0..4) == 0 {
                    p.set(&mut live, leaf, !now);
                }
            }
            p.settle(net, &mut live);
            swept.copy_from_slice(&live.vals);
            net.run(&p.whole, &mut swept);
            assert_eq!(live.vals, swept, "{text}");
        }
        net.cycles.len()
    }

    #[test]
    fn propagation_agrees_with_a_sweep_on_every_gate_through_recursive_cycles() {
        let cycles = agrees_after_random_flips(ROOMS, 1, 400);
        assert!(cycles >= 2, "the rooms' network has {cycles} cycles");
    }

    #[test]
    fn propagation_agrees_with_a_sweep_on_every_gate_of_the_classic_games() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gdl");
        for (i, name) in [
            "nim.gdl",
            "pentago.gdl",
            "hex.gdl",
            "checkers_6x6.gdl",
            "chinese_checkers.gdl",
        ]
        .iter()
        .enumerate()
        {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            agrees_after_random_flips(&text, i as u64, 50);
        }
    }
}
