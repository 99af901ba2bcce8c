//! Iterative-deepening negamax alpha-beta over any [`Game`].
//!
//! Move ordering: the previous iteration's principal variation first, then the
//! game's own hint (wins, captures), with two killer moves per ply between
//! captures and quiet moves. A leaf is scored by the evaluation only when the
//! game is not over there; an iteration that scored no leaf by evaluation has
//! solved the position.

use std::time::Instant;

use tracing::info;

use super::limits::{Limits, MAX_DEPTH};
use super::score::{self, INFINITY};
use super::stats::{IterationStats, SearchResult, rate};
use crate::game::{Evaluator, Game, MAX_BRANCHING, MoveBuffer, Outcome};

const MAX_PLY: usize = MAX_DEPTH as usize + 2;
/// How many nodes pass between two looks at the clock and the stop flag (a power of two).
const CHECK_EVERY: u64 = 2048;
const KILLER_KEYS: [i32; 2] = [90, 89];

/// Searches `root` within `limits` and returns the best move found.
///
/// Returns a move whenever the side to move has one, however short the time.
pub fn search<G: Game, E: Evaluator<G> + ?Sized>(
    root: &G,
    eval: &E,
    limits: &Limits,
) -> SearchResult<G::Move> {
    let start = Instant::now();
    let mut s = Searcher {
        game: root.clone(),
        eval,
        limits,
        nodes: 1,
        expansions: 0,
        aborted: false,
        horizon: false,
        follow_pv: false,
        prev_pv: Vec::new(),
        killers: vec![[None; 2]; MAX_PLY],
        pv: vec![G::Move::default(); MAX_PLY * MAX_PLY],
        pv_len: vec![0; MAX_PLY],
    };
    let mut result = SearchResult {
        best_move: None,
        score: 0,
        depth: 0,
        pv: Vec::new(),
        proven: None,
        nodes: 0,
        expansions: 0,
        time: start.elapsed(),
        iterations: Vec::new(),
    };

    if let Some(o) = root.decided() {
        result.score = score::outcome(o, 0);
        result.proven = Some(o);
        return result;
    }
    let mut list = G::MoveList::default();
    root.generate_moves(&mut list);
    if list.is_empty() {
        let o = root.outcome_without_moves();
        result.score = score::outcome(o, 0);
        result.proven = Some(o);
        return result;
    }
    // Root moves with the score of the last iteration that searched them, best first.
    let mut root_moves: Vec<(G::Move, i32)> = list
        .as_slice()
        .iter()
        .map(|&m| (m, root.move_priority(m)))
        .collect();
    root_moves.sort_by_key(|&(_, k)| std::cmp::Reverse(k));
    result.best_move = Some(root_moves[0].0);
    result.pv = vec![root_moves[0].0];

    let max_depth = limits.max_depth.clamp(1, MAX_DEPTH);
    for depth in 1..=max_depth {
        if depth > 1 && !limits.may_start_iteration() {
            break;
        }
        let iter_start = Instant::now();
        let nodes_before = s.nodes;
        let expansions_before = s.expansions;
        let outcome = s.root_iteration(depth, &mut root_moves);
        let stats = IterationStats {
            depth,
            nodes: s.nodes - nodes_before,
            expansions: s.expansions - expansions_before,
            time: iter_start.elapsed(),
            complete: !s.aborted,
            best_move: outcome
                .map(|(m, _)| root.move_name(m))
                .unwrap_or_else(|| "-".into()),
            score: outcome.map_or(result.score, |(_, sc)| sc),
        };
        info!(
            depth,
            nodes = stats.nodes,
            expansions = stats.expansions,
            time_ms = stats.time.as_millis() as u64,
            nps = rate(stats.nodes, stats.time),
            best = %stats.best_move,
            score = %score::describe(stats.score),
            complete = stats.complete,
            "iteration"
        );
        result.iterations.push(stats);
        if let Some((m, sc)) = outcome {
            result.best_move = Some(m);
            result.score = sc;
            result.depth = depth;
            result.pv = s.pv[..s.pv_len[0]].to_vec();
            s.prev_pv = result.pv.clone();
        }
        if s.aborted {
            break;
        }
        // Solved: a forced win or loss, or no leaf left to guess about.
        if score::is_decisive(result.score) || !s.horizon {
            result.proven = Some(score::decisive_outcome(result.score).unwrap_or(Outcome::Draw));
            break;
        }
    }
    result.nodes = s.nodes;
    result.expansions = s.expansions;
    result.time = start.elapsed();
    info!(
        depth = result.depth,
        nodes = result.nodes,
        expansions = result.expansions,
        time_ms = result.time.as_millis() as u64,
        nps = result.nodes_per_second(),
        best = %result.best_move.map_or("-".into(), |m| root.move_name(m)),
        score = %score::describe(result.score),
        proven = ?result.proven,
        "search done"
    );
    result
}

struct Searcher<'a, G: Game, E: ?Sized> {
    game: G,
    eval: &'a E,
    limits: &'a Limits,
    nodes: u64,
    expansions: u64,
    aborted: bool,
    /// Some leaf of this iteration was scored by the evaluation.
    horizon: bool,
    /// The node being searched lies on the previous iteration's principal variation.
    follow_pv: bool,
    prev_pv: Vec<G::Move>,
    killers: Vec<[Option<G::Move>; 2]>,
    /// Triangular principal-variation table: row `ply` starts at `ply * MAX_PLY`.
    pv: Vec<G::Move>,
    pv_len: Vec<usize>,
}

impl<G: Game, E: Evaluator<G> + ?Sized> Searcher<'_, G, E> {
    /// One iteration at the root. Returns the best move and its score, from a complete
    /// iteration or from an aborted one whose first (previously best) move was searched.
    fn root_iteration(
        &mut self,
        depth: u32,
        root_moves: &mut [(G::Move, i32)],
    ) -> Option<(G::Move, i32)> {
        self.horizon = false;
        self.follow_pv = true;
        let mut alpha = -INFINITY;
        let mut best: Option<(G::Move, i32)> = None;
        for (i, entry) in root_moves.iter_mut().enumerate() {
            let m = entry.0;
            self.follow_pv = i == 0 && self.prev_pv.first() == Some(&m);
            self.game.make(m);
            self.nodes += 1;
            let sc = -self.negamax(depth - 1, 1, -INFINITY, -alpha);
            self.game.unmake(m);
            if self.aborted {
                break;
            }
            entry.1 = sc;
            if sc > alpha {
                alpha = sc;
                best = Some((m, sc));
                self.update_pv(0, m);
            }
        }
        // Best first for the next iteration; moves that failed low keep their bound.
        root_moves.sort_by_key(|&(_, k)| std::cmp::Reverse(k));
        if let Some((m, _)) = best
            && let Some(pos) = root_moves.iter().position(|&(x, _)| x == m)
        {
            root_moves[..=pos].rotate_right(1);
        }
        best
    }

    fn update_pv(&mut self, ply: usize, m: G::Move) {
        let row = ply * MAX_PLY;
        let child = (ply + 1) * MAX_PLY;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[row + ply] = m;
        for p in ply + 1..child_len {
            self.pv[row + p] = self.pv[child + p];
        }
        self.pv_len[ply] = child_len;
    }

    fn negamax(&mut self, depth: u32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv_len[ply] = ply;
        if self.nodes & (CHECK_EVERY - 1) == 0 && self.limits.must_abort() {
            self.aborted = true;
            return 0;
        }
        if let Some(o) = self.game.decided() {
            return score::outcome(o, ply);
        }
        if depth == 0 {
            if !self.game.has_moves() {
                return score::outcome(self.game.outcome_without_moves(), ply);
            }
            self.horizon = true;
            return self.eval.evaluate(&self.game);
        }
        let mut list = G::MoveList::default();
        self.game.generate_moves(&mut list);
        self.expansions += 1;
        if list.is_empty() {
            return score::outcome(self.game.outcome_without_moves(), ply);
        }
        let moves = list.as_mut_slice();
        let n = moves.len();
        debug_assert!(n <= MAX_BRANCHING);
        let pv_move = if self.follow_pv {
            self.prev_pv.get(ply).copied()
        } else {
            None
        };
        let killers = self.killers[ply];
        let mut keys = [0i32; MAX_BRANCHING];
        let mut on_pv = false;
        for (key, &m) in keys.iter_mut().zip(moves.iter()) {
            *key = if Some(m) == pv_move {
                on_pv = true;
                i32::MAX
            } else {
                let p = self.game.move_priority(m);
                match killers.iter().position(|&k| k == Some(m)) {
                    Some(slot) if p < KILLER_KEYS[1] => KILLER_KEYS[slot],
                    _ => p,
                }
            };
        }

        let mut best = -INFINITY;
        for i in 0..n {
            // Pick the most promising remaining move (cut-offs make a full sort wasteful).
            let mut pick = i;
            for j in i + 1..n {
                if keys[j] > keys[pick] {
                    pick = j;
                }
            }
            moves.swap(i, pick);
            keys.swap(i, pick);
            let m = moves[i];

            self.follow_pv = on_pv && i == 0;
            self.game.make(m);
            self.nodes += 1;
            let sc = -self.negamax(depth - 1, ply + 1, -beta, -alpha);
            self.game.unmake(m);
            if self.aborted {
                return 0;
            }
            if sc > best {
                best = sc;
                if sc > alpha {
                    alpha = sc;
                    self.update_pv(ply, m);
                    if sc >= beta {
                        if self.killers[ply][0] != Some(m) {
                            self.killers[ply] = [Some(m), self.killers[ply][0]];
                        }
                        break;
                    }
                }
            }
        }
        best
    }
}
