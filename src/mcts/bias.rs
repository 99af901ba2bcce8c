//! Progressive bias: the tree's selection adds to a move's value a term that says what
//! an evaluation thinks of the position the move leads to, weighted by `W` and fading
//! with the move's visits, `W · (H(child) − ½) / (visits + 1)` (`serve
//! --progressive-bias W`). `H` is taken once, when the child is made ([`Mcts::evaluate`]).
//! The playouts still run to the end, so the evaluation guides the search early in a
//! node's life and never decides a result.

use super::{Evaluator, Mcts, Model};

impl<M: Model> Mcts<M> {
    /// The selection biased by `evaluate` with weight `weight` (`None`, or a weight of 0,
    /// for none). Nodes made before keep no evaluation and get no bias.
    pub fn set_bias(&mut self, bias: Option<(f64, Evaluator<M::State>)>) {
        self.bias = bias.filter(|(w, _)| *w > 0.0);
    }

    /// What the bias's evaluation makes of `state` (empty without a bias).
    pub(super) fn evaluate(&self, state: &M::State) -> Vec<f64> {
        match &self.bias {
            Some((_, evaluate)) => evaluate(state),
            None => Vec::new(),
        }
    }

    /// Per move of `role` at `node`, the bias term of the move's child: 0 where `role`
    /// does not move alone here, the child is not in the tree or has no evaluation.
    pub(super) fn biases(&self, node: usize, role: usize) -> Vec<f64> {
        let n = &self.nodes[node];
        let Some((weight, _)) = &self.bias else {
            return Vec::new();
        };
        if n.mover != Some(role) {
            return Vec::new();
        }
        (0..n.legal[role].len())
            .map(|i| {
                let Some(child) = n.child_after(role, i) else {
                    return 0.0;
                };
                let Some(value) = self.nodes[child].value.get(role) else {
                    return 0.0;
                };
                let visits = n.stats_of(role)[i].visits;
                weight * (value - 0.5) / f64::from(visits + 1)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::game;
    use super::super::{Budget, Stat};
    use super::*;
    use crate::gdl::State;

    /// Tic-tac-toe after nine iterations from the start (every first mark's child made,
    /// each visited once), then x's statistics set by hand: the centre's mean 0.45, the
    /// corner (1 1)'s 0.5, the others 0.4, each move with `visits`. The evaluation
    /// gives x 0.9 where x holds the centre, else ½. Which first mark does the selection
    /// take?
    fn first_mark(weight: Option<f64>, visits: u32) -> String {
        let gdl = game("tictactoe.gdl");
        let centre = gdl.parse_term("(cell 2 2 x)").unwrap();
        let evaluate: Evaluator<State> = Arc::new(move |state: &State| {
            let x = if state.contains(&centre) { 0.9 } else { 0.5 };
            vec![x, 1.0 - x]
        });
        let mut tree = Mcts::new(gdl.clone(), Some(1), 16);
        tree.set_bias(Some((1.0, evaluate)));
        let budget = Budget {
            iterations: Some(9),
            ..Default::default()
        };
        tree.search_within(&gdl.initial_state(), 0, budget);
        tree.set_bias(weight.map(|w| (w, tree.bias.clone().unwrap().1)));
        let root = tree.root;
        let names: Vec<String> = tree.nodes[root].legal[0]
            .iter()
            .map(|m| gdl.display(m))
            .collect();
        assert_eq!(tree.nodes[root].children.len(), 9);
        for (i, name) in names.iter().enumerate() {
            let mean = match name.as_str() {
                "(mark 2 2)" => 0.45,
                "(mark 1 1)" => 0.5,
                _ => 0.4,
            };
            tree.nodes[root].stats_of_mut(0)[i] = Stat {
                visits,
                sum: mean * f64::from(visits),
            };
        }
        tree.nodes[root].visits = 9 * visits;
        let pick = tree.select(root, None)[0] as usize;
        names[pick].clone()
    }

    /// At one visit each the bias (1 × 0.4 / 2) outweighs the corner's better mean, and
    /// the selection takes the centre the evaluation prefers; without the bias it takes
    /// the corner. At a thousand visits each the bias has faded (0.4 / 1001) and the
    /// corner's mean decides.
    #[test]
    fn the_bias_steers_towards_the_preferred_child_and_fades_with_visits() {
        assert_eq!(first_mark(Some(1.0), 1), "(mark 2 2)");
        assert_eq!(first_mark(None, 1), "(mark 1 1)");
        assert_eq!(first_mark(Some(0.0), 1), "(mark 1 1)");
        assert_eq!(first_mark(Some(1.0), 1000), "(mark 1 1)");
    }
}
