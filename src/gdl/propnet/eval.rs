//! Evaluating a circuit: flat arrays of gate kinds and inputs, swept in order.
//!
//! The gates are numbered so that every gate comes after its inputs, but for the gates
//! of a recursive cycle, which sit side by side and are swept again from false until
//! nothing changes (their least fixpoint, as the reasoner computes it). A swept query
//! covers only the gates its outputs need (its *cone*), in precomputed blocks; a sweep reads
//! and writes one array of values and allocates nothing.

use super::build::Gate;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Leaf,
    And,
    Or,
    Not,
}

/// A run of gates swept together: in order, or to a fixpoint if `cycle`.
#[derive(Clone, Copy, Debug)]
struct Block {
    start: u32,
    end: u32,
    cycle: bool,
}

/// The gates of some outputs, in evaluation order.
#[derive(Clone, Debug, Default)]
pub(super) struct Cone {
    blocks: Vec<Block>,
}

pub(super) struct Net {
    pub kind: Vec<Kind>,
    /// The inputs of gate `g` are `inputs[start[g]..start[g + 1]]`.
    start: Vec<u32>,
    inputs: Vec<u32>,
    /// Gate ranges of the recursive cycles, in gate order.
    pub cycles: Vec<(u32, u32)>,
}

impl Net {
    pub fn new(gates: &[Gate], cycles: Vec<(u32, u32)>) -> Net {
        let mut kind = Vec::with_capacity(gates.len());
        let mut start = Vec::with_capacity(gates.len() + 1);
        let mut inputs = Vec::new();
        for g in gates {
            start.push(inputs.len() as u32);
            kind.push(match g {
                Gate::And(_) => Kind::And,
                Gate::Or(_) => Kind::Or,
                Gate::Not(_) => Kind::Not,
                _ => Kind::Leaf,
            });
            inputs.extend_from_slice(g.inputs());
        }
        start.push(inputs.len() as u32);
        Net {
            kind,
            start,
            inputs,
            cycles,
        }
    }

    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Gates (not counting constants, bases and inputs) and their input edges.
    pub fn size(&self) -> (usize, usize) {
        let gates = self.kind.iter().filter(|&&k| k != Kind::Leaf).count();
        (gates, self.inputs.len())
    }

    /// Which gates the propositions `outputs` need.
    pub fn needs(&self, outputs: &[u32]) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut todo = outputs.to_vec();
        while let Some(p) = todo.pop() {
            if !std::mem::replace(&mut seen[p as usize], true) {
                let (a, b) = (self.start[p as usize], self.start[p as usize + 1]);
                todo.extend_from_slice(&self.inputs[a as usize..b as usize]);
            }
        }
        seen
    }

    /// The blocks that sweep the gates marked in `wanted`.
    pub fn cone(&self, wanted: &[bool]) -> Cone {
        let mut blocks: Vec<Block> = Vec::new();
        let mut cycles = self.cycles.iter().peekable();
        let mut g = 0u32;
        while (g as usize) < self.len() {
            if let Some(&&(a, b)) = cycles.peek()
                && a == g
            {
                cycles.next();
                if wanted[g as usize] {
                    blocks.push(Block {
                        start: a,
                        end: b,
                        cycle: true,
                    });
                }
                g = b;
                continue;
            }
            if wanted[g as usize] && self.kind[g as usize] != Kind::Leaf {
                match blocks.last_mut() {
                    Some(last) if !last.cycle && last.end == g => last.end = g + 1,
                    _ => blocks.push(Block {
                        start: g,
                        end: g + 1,
                        cycle: false,
                    }),
                }
            }
            g += 1;
        }
        Cone { blocks }
    }

    /// The gates whose values gate `g` reads.
    #[inline]
    pub fn inputs_of(&self, g: usize) -> &[u32] {
        &self.inputs[self.start[g] as usize..self.start[g + 1] as usize]
    }

    #[inline]
    fn value(&self, g: usize, vals: &[bool]) -> bool {
        let ins = self.inputs_of(g);
        match self.kind[g] {
            Kind::And => ins.iter().all(|&i| vals[i as usize]),
            Kind::Or => ins.iter().any(|&i| vals[i as usize]),
            Kind::Not => !vals[ins[0] as usize],
            Kind::Leaf => vals[g],
        }
    }

    /// Sweeps `cone` over `vals`, whose constants, bases and inputs are already set.
    pub fn run(&self, cone: &Cone, vals: &mut [bool]) {
        for b in &cone.blocks {
            let range = b.start as usize..b.end as usize;
            if !b.cycle {
                for g in range {
                    vals[g] = self.value(g, vals);
                }
                continue;
            }
            self.fixpoint(range, vals);
        }
    }

    /// The least fixpoint of the recursive cycle of gates `range`: swept from false
    /// until nothing changes.
    pub fn fixpoint(&self, range: std::ops::Range<usize>, vals: &mut [bool]) {
        vals[range.clone()].fill(false);
        loop {
            let mut changed = false;
            for g in range.clone() {
                let v = self.value(g, vals);
                changed |= v != vals[g];
                vals[g] = v;
            }
            if !changed {
                break;
            }
        }
    }
}
