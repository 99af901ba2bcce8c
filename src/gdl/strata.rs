//! Dependency graphs and their strata: strongly connected components (Tarjan's
//! algorithm, iterative so that long chains of relations cannot exhaust the stack), the
//! relations of rules and what each rule reads, a negation inside its own recursion, and
//! what depends on the state. The reasoner's stratification, the splitting of relations
//! negated inside their own recursion, and the network's constant folding all read them.

use super::hash::FastMap;
use super::rules::{Literal, Rule};
use super::term::SymId;

/// The components of a dependency graph, each listed after every one it depends on,
/// and the component of each node.
pub(crate) struct Strata {
    pub comps: Vec<Vec<u32>>,
    pub comp_of: Vec<usize>,
}

impl Strata {
    /// The strata of the graph `succ` (edges from a node to those it depends on).
    pub fn of(succ: &[Vec<u32>]) -> Strata {
        let comps = components(succ);
        let mut comp_of = vec![0usize; succ.len()];
        for (c, members) in comps.iter().enumerate() {
            members.iter().for_each(|&m| comp_of[m as usize] = c);
        }
        Strata { comps, comp_of }
    }

    /// Marks every node of `succ` (the graph these strata are of) that depends, directly
    /// or through others, on a node already marked.
    pub fn spread(&self, succ: &[Vec<u32>], marked: &mut [bool]) {
        for comp in &self.comps {
            let hit = comp.iter().any(|&m| {
                marked[m as usize] || succ[m as usize].iter().any(|&s| marked[s as usize])
            });
            if hit {
                comp.iter().for_each(|&m| marked[m as usize] = true);
            }
        }
    }
}

/// The relations of some rules, numbered by name and arity, and what each rule reads.
#[derive(Default)]
pub(crate) struct Dependencies {
    pub ids: FastMap<(SymId, usize), u32>,
    /// Each relation's name and arity.
    pub rels: Vec<(SymId, usize)>,
    /// Per rule: its head's relation.
    pub heads: Vec<u32>,
    /// Per rule: the relations of its body's atoms, each with whether it is read
    /// positively.
    pub bodies: Vec<Vec<(u32, bool)>>,
}

impl Dependencies {
    /// The number of relation `pred` of `arity` arguments (a new one if unseen).
    pub fn relation(&mut self, pred: SymId, arity: usize) -> u32 {
        let rels = &mut self.rels;
        *self.ids.entry((pred, arity)).or_insert_with(|| {
            rels.push((pred, arity));
            (rels.len() - 1) as u32
        })
    }

    /// Numbers the relations of `rules` and records what each reads.
    pub fn add_rules(&mut self, rules: &[Rule]) {
        for r in rules {
            let head = self.relation(r.head.pred, r.head.args.len());
            let mut body = Vec::new();
            for lit in &r.body {
                match lit {
                    Literal::Pos(a) => body.push((self.relation(a.pred, a.args.len()), true)),
                    Literal::Neg(a) => body.push((self.relation(a.pred, a.args.len()), false)),
                    Literal::Distinct(..) | Literal::Same(..) => {}
                }
            }
            self.heads.push(head);
            self.bodies.push(body);
        }
    }

    /// The dependency graph: from each relation to the relations its rules read.
    pub fn graph(&self) -> Vec<Vec<u32>> {
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); self.rels.len()];
        for (h, body) in self.heads.iter().zip(&self.bodies) {
            succ[*h as usize].extend(body.iter().map(|&(b, _)| b));
        }
        for edges in &mut succ {
            edges.sort_unstable();
            edges.dedup();
        }
        succ
    }

    /// Each rule that negates a relation of its own head's stratum (which would then
    /// depend on its own negation), with that relation: in the order of the rules, and
    /// of their bodies.
    pub fn negated_within<'a>(
        &'a self,
        strata: &'a Strata,
    ) -> impl Iterator<Item = (usize, u32)> + 'a {
        self.heads
            .iter()
            .zip(&self.bodies)
            .enumerate()
            .flat_map(move |(i, (&h, body))| {
                let own = strata.comp_of[h as usize];
                body.iter()
                    .filter(move |&&(b, positive)| !positive && strata.comp_of[b as usize] == own)
                    .map(move |&(b, _)| (i, b))
            })
    }
}

/// Components of the graph `succ` (edges from a relation to the relations it depends
/// on), each listed after every component it depends on.
fn components(succ: &[Vec<u32>]) -> Vec<Vec<u32>> {
    const UNSEEN: u32 = u32::MAX;
    let n = succ.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0u32;
    // (node, position of the next edge to follow)
    let mut calls: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        macro_rules! visit {
            ($v:expr) => {{
                let v: u32 = $v;
                index[v as usize] = next;
                low[v as usize] = next;
                next += 1;
                stack.push(v);
                on_stack[v as usize] = true;
                calls.push((v, 0));
            }};
        }
        visit!(root);
        while let Some(&mut (v, ref mut edge)) = calls.last_mut() {
            let vi = v as usize;
            if let Some(&w) = succ[vi].get(*edge) {
                *edge += 1;
                let wi = w as usize;
                if index[wi] == UNSEEN {
                    visit!(w);
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.reverse();
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_come_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3, 4 alone, 2 -> 2
        let succ = vec![vec![1, 3], vec![2], vec![1, 2], vec![], vec![]];
        let comps = components(&succ);
        let pos = |x: u32| comps.iter().position(|c| c.contains(&x)).unwrap();
        assert_eq!(comps.len(), 4);
        assert_eq!(pos(1), pos(2));
        assert!(pos(1) < pos(0) && pos(3) < pos(0));
        let mut all: Vec<u32> = comps.concat();
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn marks_spread_to_what_depends_on_them() {
        // 0 -> 1 -> 2 -> 1, 3 -> 4; 2 marked: 1 (its cycle) and 0 follow, 3 and 4 do not.
        let succ = vec![vec![1], vec![2], vec![1], vec![4], vec![]];
        let strata = Strata::of(&succ);
        let mut marked = vec![false, false, true, false, false];
        strata.spread(&succ, &mut marked);
        assert_eq!(marked, [true, true, true, false, false]);
        assert_eq!(strata.comp_of[1], strata.comp_of[2]);
        assert_ne!(strata.comp_of[0], strata.comp_of[1]);
    }

    #[test]
    fn a_negation_inside_its_own_recursion_is_found() {
        use crate::gdl::rules::parse_rules;
        use crate::gdl::term::Symbols;
        use crate::sexpr::Sexpr;
        let text =
            "(<= (p ?x) (q ?x)) (<= (q ?x) (r ?x) (not (p ?x))) (<= (s ?x) (r ?x) (not (p ?x)))";
        let mut symbols = Symbols::default();
        let rules = parse_rules(&Sexpr::parse_all(text).unwrap(), &mut symbols).unwrap();
        let mut deps = Dependencies::default();
        deps.add_rules(&rules);
        let strata = Strata::of(&deps.graph());
        let found: Vec<(usize, &str)> = deps
            .negated_within(&strata)
            .map(|(i, b)| (i, symbols.name(deps.rels[b as usize].0)))
            .collect();
        // The second rule negates p inside p's recursion; the third is outside it.
        assert_eq!(found, [(1, "p")]);
    }

    #[test]
    fn long_chains_do_not_recurse() {
        let n = 200_000;
        let succ: Vec<Vec<u32>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let comps = components(&succ);
        assert_eq!(comps.len(), n as usize);
        assert_eq!(comps[0], vec![n - 1]);
    }
}
