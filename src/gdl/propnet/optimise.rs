//! Shrinking a circuit: what does not depend on the state is computed once and becomes a
//! constant; constants are folded into the gates that read them (an `and` with a false
//! input is false, a one-input gate is its input, a double negation is its input);
//! identical gates are shared; gates no output needs are dropped. The gates are then
//! renumbered in evaluation order (inputs before the gates that read them), the gates of
//! each recursive cycle side by side.

use super::super::hash::FastMap;
use super::super::strata::Strata;
use super::build::{Circuit, FALSE, Gate, TRUE};

/// A circuit ready to be evaluated.
pub(super) struct Folded {
    /// Constants (0, 1), then the bases, then the inputs, then the gates in order.
    pub gates: Vec<Gate>,
    /// Ranges of gates that form a recursive cycle (evaluated to a fixpoint).
    pub cycles: Vec<(u32, u32)>,
    pub next: Vec<u32>,
    pub init: Vec<bool>,
    pub legal: Vec<u32>,
    pub goals: Vec<u32>,
    pub terminal: u32,
}

fn eval(g: &Gate, vals: &[bool]) -> bool {
    match g {
        Gate::Const(b) => *b,
        Gate::Base(_) | Gate::Input(_) => false,
        Gate::And(v) => v.iter().all(|&i| vals[i as usize]),
        Gate::Or(v) => v.iter().any(|&i| vals[i as usize]),
        Gate::Not(x) => !vals[*x as usize],
    }
}

fn is_cycle(comp: &[u32], gates: &[Gate]) -> bool {
    comp.len() > 1 || gates[comp[0] as usize].inputs().contains(&comp[0])
}

pub(super) fn optimise(c: Circuit) -> Result<Folded, String> {
    let mut gates = c.gates;
    let n = gates.len();
    let succ: Vec<Vec<u32>> = gates.iter().map(|g| g.inputs().to_vec()).collect();
    let strata = Strata::of(&succ);

    // Which propositions depend on the state or the moves; the others get their value.
    let mut dynamic: Vec<bool> = gates
        .iter()
        .map(|g| matches!(g, Gate::Base(_) | Gate::Input(_)))
        .collect();
    strata.spread(&succ, &mut dynamic);
    drop(succ);
    let comps = strata.comps;
    let mut vals = vec![false; n];
    for comp in &comps {
        if dynamic[comp[0] as usize] {
            continue;
        }
        if !is_cycle(comp, &gates) {
            let m = comp[0] as usize;
            vals[m] = eval(&gates[m], &vals);
            continue;
        }
        loop {
            let mut changed = false;
            for &m in comp {
                let v = eval(&gates[m as usize], &vals);
                changed |= v != vals[m as usize];
                vals[m as usize] = v;
            }
            if !changed {
                break;
            }
        }
    }

    // Folding, in evaluation order: `repl[p]` is what stands for `p` from now on.
    let mut repl: Vec<u32> = (0..n as u32).collect();
    let mut shared: FastMap<Gate, u32> = FastMap::default();
    for comp in &comps {
        if !dynamic[comp[0] as usize] {
            for &m in comp {
                repl[m as usize] = if vals[m as usize] { TRUE } else { FALSE };
            }
            continue;
        }
        if is_cycle(comp, &gates) {
            for &m in comp {
                let g = &mut gates[m as usize];
                let folded = match g {
                    Gate::And(v) => fold(v, &repl, FALSE, TRUE).map(Gate::And),
                    Gate::Or(v) => fold(v, &repl, TRUE, FALSE).map(Gate::Or),
                    _ => return Err("a negation inside a recursive cycle".into()),
                };
                *g = match folded {
                    Some(g) => g,
                    // Absorbed by a constant input: the gate is that constant.
                    None if matches!(g, Gate::And(_)) => Gate::Or(Vec::new()),
                    None => Gate::And(Vec::new()),
                };
            }
            continue;
        }
        let m = comp[0] as usize;
        let simplified = match &gates[m] {
            Gate::And(v) => simplify(fold(v, &repl, FALSE, TRUE), FALSE, TRUE, Gate::And),
            Gate::Or(v) => simplify(fold(v, &repl, TRUE, FALSE), TRUE, FALSE, Gate::Or),
            Gate::Not(x) => {
                let x = repl[*x as usize];
                match &gates[x as usize] {
                    _ if x == FALSE => Err(TRUE),
                    _ if x == TRUE => Err(FALSE),
                    Gate::Not(y) => Err(*y),
                    _ => Ok(Gate::Not(x)),
                }
            }
            _ => continue,
        };
        match simplified {
            Err(p) => repl[m] = p,
            Ok(g) => {
                if let Some(&p) = shared.get(&g) {
                    repl[m] = p;
                } else {
                    shared.insert(g.clone(), m as u32);
                    gates[m] = g;
                }
            }
        }
    }
    drop(shared);

    let init = c.init.iter().map(|&p| repl[p as usize] == TRUE).collect();
    if c.init.iter().any(|&p| dynamic[p as usize]) {
        return Err("init depends on the state".into());
    }
    let map = |v: &[u32]| -> Vec<u32> { v.iter().map(|&p| repl[p as usize]).collect() };
    let (next, legal) = (map(&c.next), map(&c.legal));
    let goals: Vec<u32> = c.goals.iter().map(|&(_, _, p)| repl[p as usize]).collect();
    let terminal = repl[c.terminal as usize];

    // What the outputs need.
    let mut live = vec![false; n];
    let mut todo: Vec<u32> = next.iter().chain(&legal).chain(&goals).copied().collect();
    todo.push(terminal);
    while let Some(p) = todo.pop() {
        if !std::mem::replace(&mut live[p as usize], true) {
            todo.extend_from_slice(gates[p as usize].inputs());
        }
    }

    // Renumbering: constants, bases, inputs, then the live gates in order.
    let (mut bases, mut inputs) = (0u32, 0u32);
    for g in &gates {
        match g {
            Gate::Base(_) => bases += 1,
            Gate::Input(_) => inputs += 1,
            _ => {}
        }
    }
    let mut new_id = vec![u32::MAX; n];
    new_id[FALSE as usize] = 0;
    new_id[TRUE as usize] = 1;
    let mut order: Vec<u32> = Vec::new();
    let mut cycles = Vec::new();
    let mut next_id = 2 + bases + inputs;
    for comp in &comps {
        for &m in comp {
            match gates[m as usize] {
                Gate::Base(i) => new_id[m as usize] = 2 + i,
                Gate::Input(i) => new_id[m as usize] = 2 + bases + i,
                _ => {}
            }
        }
        let kept: Vec<u32> = comp
            .iter()
            .copied()
            .filter(|&m| {
                live[m as usize]
                    && dynamic[m as usize]
                    && repl[m as usize] == m
                    && matches!(gates[m as usize], Gate::And(_) | Gate::Or(_) | Gate::Not(_))
            })
            .collect();
        if kept.is_empty() {
            continue;
        }
        let start = next_id;
        for &m in &kept {
            new_id[m as usize] = next_id;
            next_id += 1;
            order.push(m);
        }
        if is_cycle(comp, &gates) {
            cycles.push((start, next_id));
        }
    }
    let renumber = |p: u32| new_id[repl[p as usize] as usize];
    let mut out = Vec::with_capacity(next_id as usize);
    out.push(Gate::Const(false));
    out.push(Gate::Const(true));
    out.extend((0..bases).map(Gate::Base));
    out.extend((0..inputs).map(Gate::Input));
    for &m in &order {
        let ins = |v: &[u32]| -> Vec<u32> { v.iter().map(|&p| renumber(p)).collect() };
        out.push(match &gates[m as usize] {
            Gate::And(v) => Gate::And(ins(v)),
            Gate::Or(v) => Gate::Or(ins(v)),
            Gate::Not(x) => Gate::Not(renumber(*x)),
            g => g.clone(),
        });
    }
    let all = |v: &[u32]| -> Vec<u32> { v.iter().map(|&p| renumber(p)).collect() };
    Ok(Folded {
        gates: out,
        cycles,
        next: all(&next),
        init,
        legal: all(&legal),
        goals: all(&goals),
        terminal: renumber(terminal),
    })
}

/// The inputs of an `and` (`absorbing` = FALSE, `neutral` = TRUE) or an `or` after
/// replacement, without the neutral constant; `None` if the absorbing one is among them.
fn fold(inputs: &[u32], repl: &[u32], absorbing: u32, neutral: u32) -> Option<Vec<u32>> {
    let mut v: Vec<u32> = inputs.iter().map(|&p| repl[p as usize]).collect();
    if v.contains(&absorbing) {
        return None;
    }
    v.retain(|&p| p != neutral);
    v.sort_unstable();
    v.dedup();
    Some(v)
}

/// A folded gate, or (as `Err`) the proposition that stands for it.
fn simplify(
    folded: Option<Vec<u32>>,
    absorbing: u32,
    neutral: u32,
    gate: fn(Vec<u32>) -> Gate,
) -> Result<Gate, u32> {
    match folded {
        None => Err(absorbing),
        Some(v) if v.is_empty() => Err(neutral),
        Some(v) if v.len() == 1 => Err(v[0]),
        Some(v) => Ok(gate(v)),
    }
}
