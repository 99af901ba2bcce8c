//! MCTS-solver: exact values found by the search. A terminal node is proven (its goals).
//! Where one role chooses (the mover), a node is proven as soon as one of its moves leads
//! to a proven position with the best reward there is for the mover (1), or once every
//! move does (the mover then takes the best of them). Proofs back up along the path of
//! the iteration that made them; where several roles choose at once nothing is proven.

use super::{Joint, Mcts, Model, most_visited};

/// A reward this close to 1 is the best there is.
const BEST: f64 = 1.0 - 1e-9;

impl<M: Model> Mcts<M> {
    /// The proven rewards after the mover's move in `joint` at `node`, if known.
    pub(super) fn known_after(&self, node: usize, joint: &[u32]) -> Option<Vec<f64>> {
        let n = &self.nodes[node];
        let m = *joint.get(n.mover?)? as usize;
        n.known.get(m)?.clone()
    }

    /// Backs up the proof of the iteration's last node along `path` (each node with the
    /// joint move taken there), as far as it proves each parent.
    pub(super) fn back_up_proofs(&mut self, path: &[(usize, Joint)]) {
        let mut below: Option<Vec<f64>> = None;
        for (node, joint) in path.iter().rev() {
            if joint.is_empty() {
                below = self.nodes[*node].proven.clone();
                continue;
            }
            let value = match below.take() {
                Some(v) => v,
                None => match self.nodes[*node].child(joint) {
                    Some(c) => match &self.nodes[c].proven {
                        Some(v) => v.clone(),
                        None => return,
                    },
                    None => match self.known_after(*node, joint) {
                        Some(v) => v,
                        None => return,
                    },
                },
            };
            if !self.learn(*node, joint, value) {
                return;
            }
            below = self.nodes[*node].proven.clone();
        }
    }

    /// Records that the mover's move in `joint` at `node` leads to `value`; whether that
    /// proves `node`.
    fn learn(&mut self, node: usize, joint: &[u32], value: Vec<f64>) -> bool {
        let before = self.node_bytes(&self.nodes[node]);
        let n = &mut self.nodes[node];
        let Some(mover) = n.mover else { return false };
        if n.proven.is_some() {
            return false;
        }
        if n.known.is_empty() {
            n.known = vec![None; n.legal[mover].len()];
        }
        let m = joint[mover] as usize;
        let own = value.get(mover).copied().unwrap_or(0.0);
        n.known[m] = Some(value);
        if own >= BEST {
            n.proven = n.known[m].clone();
        } else if n.known.iter().all(Option::is_some) {
            n.proven = n
                .known
                .iter()
                .flatten()
                .max_by(|a, b| a[mover].total_cmp(&b[mover]))
                .cloned();
        }
        let proved = n.proven.is_some();
        let added = self.node_bytes(&self.nodes[node]) - before;
        self.nodes[node].bytes += added;
        self.bytes += added;
        if proved {
            self.export_proof(node);
        }
        proved
    }

    /// The move of `role` at the root to play: a proven move unless an unproven one has a
    /// better mean (a proven win always wins), else the most visited. At a proven root
    /// the proven move that keeps the root's value, whatever the others' means: there no
    /// move can do better, and an unproven one may do worse. (Where the root's proof came
    /// from another tree, its own proven moves may not all be known yet.)
    pub(super) fn best_move(&self, role: usize) -> Option<usize> {
        let root = &self.nodes[self.root];
        let stats = root.stats_of(role);
        let open = || {
            let unknown: Vec<usize> = (0..stats.len())
                .filter(|&i| root.known.get(i).is_none_or(Option::is_none))
                .collect();
            let i = most_visited(&unknown.iter().map(|&i| stats[i]).collect::<Vec<_>>())?;
            Some(unknown[i])
        };
        if root.mover != Some(role) || root.known.is_empty() {
            return most_visited(stats);
        }
        let proven = (0..stats.len())
            .filter_map(|i| Some((i, root.known[i].as_ref()?[role])))
            .max_by(|a, b| {
                (a.1, stats[a.0].visits)
                    .partial_cmp(&(b.1, stats[b.0].visits))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        match (proven, open()) {
            (Some((i, _)), _) if root.proven.is_some() => Some(i),
            (Some((_, v)), Some(j)) if v < stats[j].mean() => Some(j),
            (Some((i, _)), _) => Some(i),
            (None, j) => j,
        }
    }
}
