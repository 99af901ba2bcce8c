//! The circuit of a grounding: one proposition per ground atom, an `or` of the atom's
//! rule instances, each an `and` of its literals (a negative literal is a `not`; one
//! whose atom can never hold is left out). Identical `and` and `not` gates are shared as
//! they are made.

use super::super::hash::FastMap;
use super::super::rules::Literal;
use super::super::term::TermId;
use super::ground::Grounding;

/// The constant propositions: every circuit starts with them.
pub(super) const FALSE: u32 = 0;
pub(super) const TRUE: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Gate {
    Const(bool),
    /// The fluent with this index holds in the current state.
    Base(u32),
    /// The move with this index is played.
    Input(u32),
    And(Vec<u32>),
    Or(Vec<u32>),
    Not(u32),
}

impl Gate {
    pub fn inputs(&self) -> &[u32] {
        match self {
            Gate::And(v) | Gate::Or(v) => v,
            Gate::Not(x) => std::slice::from_ref(x),
            _ => &[],
        }
    }
}

/// A circuit and the propositions a player asks about.
pub(super) struct Circuit {
    pub gates: Vec<Gate>,
    /// Per fluent: the proposition `next(f)` and whether `init(f)` holds.
    pub next: Vec<u32>,
    pub init: Vec<u32>,
    /// Per (role, move) pair, by input index: the proposition `legal(role, move)`.
    pub legal: Vec<u32>,
    /// (role, value, proposition `goal(role, value)`).
    pub goals: Vec<(TermId, TermId, u32)>,
    pub terminal: u32,
}

struct Builder {
    gates: Vec<Gate>,
    /// Atom → its proposition.
    atoms: FastMap<TermId, u32>,
    ands: FastMap<Vec<u32>, u32>,
    nots: FastMap<u32, u32>,
}

impl Builder {
    fn add(&mut self, g: Gate) -> u32 {
        self.gates.push(g);
        (self.gates.len() - 1) as u32
    }

    fn and(&mut self, mut inputs: Vec<u32>) -> u32 {
        inputs.sort_unstable();
        inputs.dedup();
        match inputs.len() {
            0 => TRUE,
            1 => inputs[0],
            _ => {
                if let Some(&g) = self.ands.get(&inputs) {
                    return g;
                }
                let g = self.add(Gate::And(inputs.clone()));
                self.ands.insert(inputs, g);
                g
            }
        }
    }

    fn not(&mut self, x: u32) -> u32 {
        if let Some(&g) = self.nots.get(&x) {
            return g;
        }
        let g = self.add(Gate::Not(x));
        self.nots.insert(x, g);
        g
    }
}

pub(super) fn build(mut g: Grounding) -> Circuit {
    let mut b = Builder {
        gates: vec![Gate::Const(false), Gate::Const(true)],
        atoms: FastMap::default(),
        ands: FastMap::default(),
        nots: FastMap::default(),
    };
    let n = g.names;
    let fluents = std::mem::take(&mut g.fluents);
    for (i, &f) in fluents.iter().enumerate() {
        let atom = g.atom(n.truth, &[f]);
        let p = b.add(Gate::Base(i as u32));
        b.atoms.insert(atom, p);
    }
    let moves = std::mem::take(&mut g.moves);
    for (i, &(r, m)) in moves.iter().enumerate() {
        let atom = g.atom(n.does, &[r, m]);
        let p = b.add(Gate::Input(i as u32));
        b.atoms.insert(atom, p);
    }

    // Every head first, so that a negative literal knows whether its atom can hold.
    let rules = std::mem::take(&mut g.rules);
    let mut heads: Vec<Vec<u32>> = Vec::with_capacity(rules.len());
    for (i, rule) in rules.iter().enumerate() {
        let vars = rule.vars as usize;
        let mut props = Vec::with_capacity(g.instances[i]);
        for k in 0..g.instances[i] {
            let binding = g.bindings[i][k * vars..(k + 1) * vars].to_vec();
            let atom = g.atom_of(&rule.head, &binding);
            let p = match b.atoms.get(&atom) {
                Some(&p) => p,
                None => {
                    let p = b.add(Gate::Or(Vec::new()));
                    b.atoms.insert(atom, p);
                    p
                }
            };
            props.push(p);
        }
        heads.push(props);
    }
    for (i, rule) in rules.iter().enumerate() {
        let vars = rule.vars as usize;
        for (k, &head) in heads[i].iter().enumerate() {
            let binding = g.bindings[i][k * vars..(k + 1) * vars].to_vec();
            let mut inputs = Vec::with_capacity(rule.body.len());
            for lit in &rule.body {
                match lit {
                    Literal::Pos(a) => {
                        let atom = g.atom_of(a, &binding);
                        // The relaxed join found the atom, so it has a proposition.
                        inputs.push(b.atoms.get(&atom).copied().unwrap_or(FALSE));
                    }
                    Literal::Neg(a) => {
                        let atom = g.atom_of(a, &binding);
                        if let Some(&p) = b.atoms.get(&atom) {
                            let not = b.not(p);
                            inputs.push(not);
                        }
                    }
                    // The relaxed join checked them already.
                    Literal::Distinct(..) | Literal::Same(..) => {}
                }
            }
            let body = b.and(inputs);
            if let Gate::Or(v) = &mut b.gates[head as usize] {
                v.push(body);
            }
        }
    }

    let prop = |g: &mut Grounding, pred, args: &[TermId]| {
        let atom = g.atom(pred, args);
        b.atoms.get(&atom).copied().unwrap_or(FALSE)
    };
    let next = fluents
        .iter()
        .map(|&f| prop(&mut g, n.next, &[f]))
        .collect();
    let init = fluents
        .iter()
        .map(|&f| prop(&mut g, n.init, &[f]))
        .collect();
    let legal = moves
        .iter()
        .map(|&(r, m)| prop(&mut g, n.legal, &[r, m]))
        .collect();
    let goals = std::mem::take(&mut g.goals)
        .into_iter()
        .map(|(r, v)| (r, v, prop(&mut g, n.goal, &[r, v])))
        .collect();
    let terminal = prop(&mut g, n.terminal, &[]);
    Circuit {
        gates: b.gates,
        next,
        init,
        legal,
        goals,
        terminal,
    }
}
