//! Strongly connected components of the relation dependency graph (Tarjan's algorithm,
//! iterative so that long chains of relations cannot exhaust the stack).

/// Components of the graph `succ` (edges from a relation to the relations it depends
/// on), each listed after every component it depends on.
pub(crate) fn components(succ: &[Vec<u32>]) -> Vec<Vec<u32>> {
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
