//! The circuit of a grounding: one proposition per ground atom, an `or` of the atom's
//! rule instances, each an `and` of its literals (a negative literal is a `not`; one
//! whose atom can never hold is left out). Identical `and`, `or` and `not` gates are
//! shared as they are made.
//!
//! A rule whose body, once the head is bound, falls into independent parts is built
//! factored (see [`Split`]): `h(x) :- a(x, y), b(x, z)` becomes `h(x) = (∨_y a(x, y)) ∧
//! (∨_z b(x, z))` rather than one `and` per (y, z) pair. Without it, a rule such as Nim's
//! "every other heap keeps its size whatever move is played" grows a gate for every
//! heap size times every move.

use super::super::hash::FastMap;
use super::super::rules::{Literal, Rule};
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
    ors: FastMap<Vec<u32>, u32>,
    nots: FastMap<u32, u32>,
}

impl Builder {
    fn add(&mut self, g: Gate) -> u32 {
        self.gates.push(g);
        (self.gates.len() - 1) as u32
    }

    fn and(&mut self, inputs: Vec<u32>) -> u32 {
        self.shared(inputs, true)
    }

    fn or(&mut self, inputs: Vec<u32>) -> u32 {
        self.shared(inputs, false)
    }

    /// The `and` (or the `or`) of `inputs`, made once.
    fn shared(&mut self, mut inputs: Vec<u32>, and: bool) -> u32 {
        inputs.sort_unstable();
        inputs.dedup();
        match inputs.len() {
            0 if and => TRUE,
            0 => FALSE,
            1 => inputs[0],
            _ => {
                let made = if and { &self.ands } else { &self.ors };
                if let Some(&g) = made.get(&inputs) {
                    return g;
                }
                let gate = if and {
                    Gate::And(inputs.clone())
                } else {
                    Gate::Or(inputs.clone())
                };
                let g = self.add(gate);
                let made = if and { &mut self.ands } else { &mut self.ors };
                made.insert(inputs, g);
                g
            }
        }
    }

    /// The proposition of `lit` under `binding`; `None` for a literal that always holds.
    fn literal(&mut self, g: &mut Grounding, lit: &Literal, binding: &[TermId]) -> Option<u32> {
        match lit {
            Literal::Pos(a) => {
                let atom = g.atom_of(a, binding);
                // The relaxed join found the atom, so it has a proposition.
                Some(self.atoms.get(&atom).copied().unwrap_or(FALSE))
            }
            Literal::Neg(a) => {
                let atom = g.atom_of(a, binding);
                let p = self.atoms.get(&atom).copied()?;
                Some(self.not(p))
            }
            // The relaxed join checked them already.
            Literal::Distinct(..) | Literal::Same(..) => None,
        }
    }

    /// The `and` of the literals `which` of `rule` under `binding`.
    fn body(&mut self, g: &mut Grounding, rule: &Rule, which: &[usize], binding: &[TermId]) -> u32 {
        let inputs = which
            .iter()
            .filter_map(|&l| self.literal(g, &rule.body[l], binding))
            .collect();
        self.and(inputs)
    }

    fn push_body(&mut self, head: u32, body: u32) {
        if let Gate::Or(v) = &mut self.gates[head as usize] {
            v.push(body);
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
        ors: FastMap::default(),
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
        let bindings = std::mem::take(&mut g.bindings[i]);
        let instances = |k: usize| &bindings[k * vars..(k + 1) * vars];
        let split = Split::of(rule);
        if !split.pays() {
            let all: Vec<usize> = (0..rule.body.len()).collect();
            for (&head, binding) in heads[i].iter().zip((0..g.instances[i]).map(instances)) {
                let body = b.body(&mut g, rule, &all, binding);
                b.push_body(head, body);
            }
            continue;
        }
        // Per head instance: its filters' `and`, and per part the `and`s of its
        // instances (each part's instances made once, whatever the other parts bind).
        let mut of_head: FastMap<u32, (u32, Vec<Vec<u32>>)> = FastMap::default();
        let mut made: FastMap<(usize, Vec<TermId>), u32> = FastMap::default();
        let mut order = Vec::new();
        for (&head, binding) in heads[i].iter().zip((0..g.instances[i]).map(instances)) {
            let (_, parts) = of_head.entry(head).or_insert_with(|| {
                order.push(head);
                let filter = b.body(&mut g, rule, &split.filters, binding);
                (filter, vec![Vec::new(); split.parts.len()])
            });
            for (j, (lits, part_vars)) in split.parts.iter().enumerate() {
                let key = (j, part_vars.iter().map(|&v| binding[v as usize]).collect());
                let gate = match made.get(&key) {
                    Some(&gate) => gate,
                    None => {
                        let gate = b.body(&mut g, rule, lits, binding);
                        made.insert(key, gate);
                        gate
                    }
                };
                parts[j].push(gate);
            }
        }
        for head in order {
            let Some((filter, parts)) = of_head.remove(&head) else {
                continue;
            };
            let mut inputs = vec![filter];
            inputs.extend(parts.into_iter().map(|p| b.or(p)));
            let body = b.and(inputs);
            b.push_body(head, body);
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

/// How a rule's body falls apart once its head's variables are bound: the literals that
/// read no other variable (`filters`), and parts joined by the variables only the body
/// has, each with the variables it reads. Two parts share no body-only variable, so the
/// instances of one head are every combination of its parts' instances, and the head is
/// the `and` of the filters and of one `or` per part.
struct Split {
    filters: Vec<usize>,
    parts: Vec<(Vec<usize>, Vec<u32>)>,
}

impl Split {
    fn of(rule: &Rule) -> Split {
        let mut head = Vec::new();
        rule.head.collect_vars(&mut head);
        let vars_of: Vec<Vec<u32>> = rule
            .body
            .iter()
            .map(|l| {
                let mut v = Vec::new();
                l.collect_vars(&mut v);
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        // Each literal's part, by union of the literals that share a body-only variable.
        let mut part: Vec<usize> = (0..rule.body.len()).collect();
        let find = |part: &[usize], mut l: usize| {
            while part[l] != l {
                l = part[l];
            }
            l
        };
        let mut first_with: FastMap<u32, usize> = FastMap::default();
        for (l, vars) in vars_of.iter().enumerate() {
            for v in vars.iter().filter(|v| !head.contains(v)) {
                let other = *first_with.entry(*v).or_insert(l);
                let (a, b) = (find(&part, l), find(&part, other));
                part[a] = b;
            }
        }
        let mut filters = Vec::new();
        let mut parts: Vec<(usize, Vec<usize>, Vec<u32>)> = Vec::new();
        for (l, vars) in vars_of.iter().enumerate() {
            if vars.iter().all(|v| head.contains(v)) {
                filters.push(l);
                continue;
            }
            let root = find(&part, l);
            let at = match parts.iter().position(|(r, _, _)| *r == root) {
                Some(at) => at,
                None => {
                    parts.push((root, Vec::new(), Vec::new()));
                    parts.len() - 1
                }
            };
            parts[at].1.push(l);
            parts[at].2.extend_from_slice(vars);
        }
        let parts = parts
            .into_iter()
            .map(|(_, lits, mut vars)| {
                vars.sort_unstable();
                vars.dedup();
                (lits, vars)
            })
            .collect();
        Split { filters, parts }
    }

    /// Whether building factored saves anything: a body that is one part is not split.
    fn pays(&self) -> bool {
        self.parts.len() > 1 || (self.parts.len() == 1 && !self.filters.is_empty())
    }
}
