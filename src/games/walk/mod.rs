//! Walk: a toy game on a small directed graph, kept to exercise every corner of the
//! [`Game`] trait that Breakthrough never reaches, with values a test can work out by
//! brute force.
//!
//! One token stands on a node. Each edge belongs to white, to black or to both; the side
//! to move moves the token along one of its edges. A node may be a goal: the side whose
//! goal it is wins as soon as the token arrives there. The rest is what the other games
//! of the course family bring:
//! - positions repeat (the token can go round a cycle): [`Game::REPEATS`];
//! - a side with no edge of its own out of the node passes when the other side has one;
//!   with no edge at all the game is drawn;
//! - an optional ply limit carried by the position: the game is drawn once it is reached,
//!   and the hash covers the ply count;
//! - as many moves as the graph gives a node (the hub of [`Graph::star`] has more than
//!   256).
//!
//! Notation: `3-7` moves the token from node 3 to node 7; `pass`.

pub mod spec;

use std::fmt;
use std::sync::Arc;

use crate::game::{ArrayMoves, Evaluator, Game, MoveBuffer, Outcome};

/// The most edges one node may have.
pub const MAX_EDGES: usize = 400;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// Who may use an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    White,
    Black,
    Both,
}

impl Owner {
    fn allows(self, side: Side) -> bool {
        matches!(
            (self, side),
            (Owner::Both, _) | (Owner::White, Side::White) | (Owner::Black, Side::Black)
        )
    }
}

#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The side that wins when the token arrives here.
    pub goal: Option<Side>,
    pub edges: Vec<(u16, Owner)>,
}

/// The board: nodes and their edges. Node 0 is where the token starts.
#[derive(Clone, Debug)]
pub struct Graph {
    nodes: Vec<Node>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct GraphError(String);

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GraphError {}

impl Graph {
    /// A graph of these nodes; every edge must lead to one of them, and no node may have
    /// more than [`MAX_EDGES`] edges.
    pub fn new(nodes: Vec<Node>) -> Result<Graph, GraphError> {
        if nodes.is_empty() || nodes.len() > usize::from(u16::MAX) {
            return Err(GraphError(format!(
                "a graph has 1 to {} nodes, not {}",
                u16::MAX,
                nodes.len()
            )));
        }
        for (i, n) in nodes.iter().enumerate() {
            if n.edges.len() > MAX_EDGES {
                return Err(GraphError(format!(
                    "node {i} has {} edges; at most {MAX_EDGES}",
                    n.edges.len()
                )));
            }
            if let Some(&(to, _)) = n.edges.iter().find(|e| usize::from(e.0) >= nodes.len()) {
                return Err(GraphError(format!(
                    "node {i} has an edge to {to}, which is not a node"
                )));
            }
        }
        Ok(Graph { nodes })
    }

    /// A graph drawn at random from `seed`: `nodes` nodes (at least 2), the last two the
    /// goals of white and black, each other node with 1 to `max_degree` edges.
    pub fn random(seed: u64, nodes: u16, max_degree: u16) -> Graph {
        let n = nodes.max(2);
        let mut state = seed;
        let mut next = |bound: u64| splitmix(&mut state) % bound;
        let mut list = Vec::with_capacity(usize::from(n));
        for i in 0..n {
            let goal = match n - i {
                2 => Some(Side::White),
                1 => Some(Side::Black),
                _ => None,
            };
            let degree = if goal.is_some() {
                0
            } else {
                1 + next(u64::from(max_degree.clamp(1, MAX_EDGES as u16)))
            };
            let edges = (0..degree)
                .map(|_| {
                    let owner = [Owner::White, Owner::Black, Owner::Both][next(3) as usize];
                    (next(u64::from(n)) as u16, owner)
                })
                .collect();
            list.push(Node { goal, edges });
        }
        Graph { nodes: list }
    }

    /// A hub (node 0) with `spokes` edges, one to each rim node `1..=spokes`, usable by
    /// both sides. From a rim node the only way is back to the hub, but for the last one,
    /// whose only edge leads onto white's goal: white wins by going there, and only there.
    pub fn star(spokes: u16) -> Graph {
        let spokes = spokes.clamp(1, MAX_EDGES as u16);
        let goal = spokes + 1;
        let mut nodes = vec![Node {
            goal: None,
            edges: (1..=spokes).map(|k| (k, Owner::Both)).collect(),
        }];
        for k in 1..=spokes {
            let to = if k == spokes { goal } else { 0 };
            nodes.push(Node {
                goal: None,
                edges: vec![(to, Owner::Both)],
            });
        }
        nodes.push(Node {
            goal: Some(Side::White),
            edges: Vec::new(),
        });
        Graph { nodes }
    }
}

/// A move: along edge `edge` of node `from`, or a pass (`edge == PASS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    from: u16,
    to: u16,
    edge: u16,
}

const PASS: u16 = u16::MAX - 1;

impl Move {
    pub fn is_pass(self) -> bool {
        self.edge == PASS
    }
}

/// A position of Walk.
#[derive(Clone, Debug)]
pub struct Walk {
    graph: Arc<Graph>,
    node: u16,
    side: Side,
    ply: u32,
    limit: Option<u32>,
}

impl Walk {
    /// The token on node 0, white to move, drawn after `limit` plies if given.
    pub fn new(graph: Arc<Graph>, limit: Option<u32>) -> Walk {
        Walk {
            graph,
            node: 0,
            side: Side::White,
            ply: 0,
            limit,
        }
    }

    /// The same game with the token on `node` and `side` to move after `ply` plies.
    pub fn at(&self, node: u16, side: Side, ply: u32) -> Walk {
        Walk {
            node,
            side,
            ply,
            ..self.clone()
        }
    }

    pub fn node(&self) -> u16 {
        self.node
    }

    pub fn side_to_move(&self) -> Side {
        self.side
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    fn edges(&self) -> &[(u16, Owner)] {
        &self.graph.nodes[usize::from(self.node)].edges
    }

    fn can_move(&self, side: Side) -> bool {
        self.edges().iter().any(|&(_, o)| o.allows(side))
    }
}

pub type MoveList = ArrayMoves<Move, MAX_EDGES>;

impl fmt::Display for Walk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::White => "white",
            Side::Black => "black",
        };
        write!(
            f,
            "token on node {}\n{side} to move (ply {})",
            self.node, self.ply
        )
    }
}

impl Game for Walk {
    type Move = Move;
    type MoveList = MoveList;
    const MAX_MOVES: usize = MAX_EDGES;
    const REPEATS: bool = true;

    fn generate_moves(&self, list: &mut MoveList) {
        list.clear();
        for (i, &(to, owner)) in self.edges().iter().enumerate() {
            if owner.allows(self.side) {
                list.push(Move {
                    from: self.node,
                    to,
                    edge: i as u16,
                });
            }
        }
        if list.is_empty() && self.can_move(self.side.other()) {
            list.push(Move {
                from: self.node,
                to: self.node,
                edge: PASS,
            });
        }
    }

    fn make(&mut self, m: Move) {
        self.node = m.to;
        self.side = self.side.other();
        self.ply += 1;
    }

    fn unmake(&mut self, m: Move) {
        self.node = m.from;
        self.side = self.side.other();
        self.ply -= 1;
    }

    fn decided(&self) -> Option<Outcome> {
        if let Some(winner) = self.graph.nodes[usize::from(self.node)].goal {
            return Some(if winner == self.side {
                Outcome::Win
            } else {
                Outcome::Loss
            });
        }
        self.limit
            .is_some_and(|l| self.ply >= l)
            .then_some(Outcome::Draw)
    }

    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Draw
    }

    fn hash(&self) -> u64 {
        let mut h = u64::from(self.node) << 1 | u64::from(self.side == Side::Black);
        if self.limit.is_some() {
            h |= u64::from(self.ply) << 20;
        }
        let mut state = h;
        splitmix(&mut state)
    }

    fn move_priority(&self, m: Move) -> i32 {
        // Goals first: an arrival on one's own goal wins.
        let goal = self.graph.nodes[usize::from(m.to)].goal;
        i32::from(goal == Some(self.side)) * 1000
    }

    fn move_name(&self, m: Move) -> String {
        if m.is_pass() {
            "pass".to_owned()
        } else {
            format!("{}-{}", m.from, m.to)
        }
    }

    fn move_code(m: Move) -> u16 {
        m.edge
    }
}

/// An evaluation for Walk: edges of one's own out of the token's node, less the
/// opponent's.
pub struct Mobility;

impl Evaluator<Walk> for Mobility {
    fn evaluate(&self, w: &Walk) -> i32 {
        let count = |side| w.edges().iter().filter(|e| e.1.allows(side)).count() as i32;
        count(w.side) - count(w.side.other())
    }
}

/// A 64-bit mix of a counter (splitmix64): the next pseudo-random word of `state`.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
