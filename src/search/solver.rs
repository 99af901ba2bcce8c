//! A solver: the game-theoretic value (win, draw or loss) of a position, by alpha-beta
//! over the three outcomes only, to the end of the game.
//!
//! Without distances to the end, far more positions share a value than in the playing
//! search, where a win in 5 and a win in 7 differ: every transposition is a hit, and a
//! cut-off needs only *a* win, not the fastest. That makes proofs much cheaper; the
//! playing search then finds the fastest win or slowest loss within the proven value.
//! The solver's table must not be shared with the playing search: its win and loss
//! entries carry no distance.
//!
//! In a game whose positions repeat ([`Game::REPEATS`]), a position already on the path
//! counts as a draw (play could go round forever). That value depends on the path, so no
//! result that rests on it is stored. Lines longer than [`max_ply`] plies stop the solve
//! (reported as [`Solution::too_deep`]) rather than overflow the stack.

use std::time::Instant;

use tracing::info;

use super::alphabeta::pick_next;
use super::limits::Limits;
use super::score::{self, WIN};
use super::tt::{Bound, Entry, Table};
use crate::game::{Game, MoveBuffer, Outcome};

/// How many nodes pass between two looks at the clock (a power of two).
const CHECK_EVERY: u64 = 4096;
/// Stack the solver's recursion may take (the main thread has 8 MiB).
const STACK_BYTES: usize = 4 << 20;
/// A frame's own size besides its move list, generously.
const FRAME_BYTES: usize = 512;

/// The longest line the solver follows in `G`: at most 1000 plies, fewer when its move
/// lists are large.
pub fn max_ply<G: Game>() -> usize {
    (STACK_BYTES / (std::mem::size_of::<G::MoveList>() + FRAME_BYTES)).min(1000)
}

/// What a solve found.
#[derive(Clone, Debug)]
pub struct Solution<M> {
    /// The value for the side to move, `None` when the limits stopped the solver first.
    pub value: Option<Outcome>,
    /// The solver stopped because a line ran longer than [`max_ply`] plies.
    pub too_deep: bool,
    /// A line that keeps the value (each side playing a move that achieves it).
    pub line: Vec<M>,
    pub nodes: u64,
    pub time: std::time::Duration,
}

/// Solves `root` within `limits` (its depth is ignored: the solver goes to the end),
/// storing what it proves in `table` (a table of its own; see the module documentation).
pub fn solve<G: Game>(root: &G, limits: &Limits, table: &Table) -> Solution<G::Move> {
    let start = Instant::now();
    let mut s = Solver {
        game: root.clone(),
        table,
        limits,
        nodes: 0,
        aborted: false,
        too_deep: false,
        keys: Vec::new(),
        path: Vec::new(),
    };
    table.new_search();
    // Two null-window tests around the draw: can the side to move win? Can it avoid losing?
    let value = match s.test(0, 1) {
        None => None,
        Some(v) if v >= 1 => Some(Outcome::Win),
        Some(_) => match s.test(-1, 0) {
            None => None,
            Some(v) if v <= -1 => Some(Outcome::Loss),
            Some(_) => Some(Outcome::Draw),
        },
    };
    let line = value.map_or_else(Vec::new, |_| principal_line(root, table));
    let solution = Solution {
        value,
        too_deep: s.too_deep,
        line,
        nodes: s.nodes,
        time: start.elapsed(),
    };
    info!(
        value = ?solution.value,
        nodes = solution.nodes,
        time_ms = solution.time.as_millis() as u64,
        "solve done"
    );
    solution
}

struct Solver<'a, G> {
    game: G,
    table: &'a Table,
    limits: &'a Limits,
    nodes: u64,
    aborted: bool,
    too_deep: bool,
    /// Ordering keys of the moves of every node on the path, stacked.
    keys: Vec<i32>,
    /// Hashes of the positions on the path (games that repeat only).
    path: Vec<u64>,
}

/// Outcome values: the table keeps them as ±WIN at the stored position (no distance).
fn to_score(v: i32) -> i32 {
    v * WIN
}

fn from_score(s: i32) -> i32 {
    s.signum() * i32::from(score::is_decisive(s))
}

impl<G: Game> Solver<'_, G> {
    fn test(&mut self, alpha: i32, beta: i32) -> Option<i32> {
        let (v, _) = self.node(alpha, beta);
        (!self.aborted).then_some(v)
    }

    /// The value (−1, 0 or 1) within `(alpha, beta)`, fail-soft, and whether it rests on a
    /// repetition of the path (and so holds for this path only).
    fn node(&mut self, alpha: i32, beta: i32) -> (i32, bool) {
        self.nodes += 1;
        if self.nodes & (CHECK_EVERY - 1) == 0 && self.limits.must_abort() {
            self.aborted = true;
        }
        if self.aborted {
            return (0, false);
        }
        if let Some(o) = self.game.decided() {
            return (value_of(o), false);
        }
        if self.path.len() >= max_ply::<G>() {
            self.too_deep = true;
            self.aborted = true;
            return (0, false);
        }
        let hash = self.game.hash();
        if G::REPEATS && self.path.contains(&hash) {
            return (0, true);
        }
        self.path.push(hash);
        let result = self.expand(hash, alpha, beta);
        self.path.pop();
        result
    }

    fn expand(&mut self, hash: u64, mut alpha: i32, beta: i32) -> (i32, bool) {
        if self.game.can_win_now() {
            return (1, false);
        }
        let mut table_move = None;
        if let Some(e) = self.table.probe(hash, 0) {
            table_move = e.move_code;
            // Only proven entries hold values; they are stored valid at any depth.
            let v = from_score(e.score);
            if e.proven && (Entry { score: v, ..e }).cuts(0, alpha, beta) {
                return (v, false);
            }
        }
        let mut list = G::MoveList::default();
        self.game.generate_moves(&mut list);
        if list.is_empty() {
            return (value_of(self.game.outcome_without_moves()), false);
        }
        let moves = list.as_mut_slice();
        let n = moves.len();
        let base = self.keys.len();
        for &m in moves.iter() {
            let key = if Some(G::move_code(m)) == table_move {
                i32::MAX
            } else {
                self.game.move_priority(m)
            };
            self.keys.push(key);
        }
        let alpha_in = alpha;
        let mut best = -2;
        let mut best_move = None;
        // An upper bound (or exact value) rests on every move; a cut-off only on its move.
        let mut dependent = false;
        for i in 0..n {
            pick_next(moves, &mut self.keys[base..base + n], i);
            let m = moves[i];
            self.game.make(m);
            let (v, d) = self.node(-beta, -alpha);
            let v = -v;
            self.game.unmake(m);
            if self.aborted {
                break;
            }
            dependent |= d;
            if v > best {
                best = v;
                best_move = Some(m);
                alpha = alpha.max(v);
                if v >= beta {
                    dependent = d;
                    break;
                }
            }
        }
        self.keys.truncate(base);
        if self.aborted {
            return (0, false);
        }
        if dependent {
            // Valid from this path only: keep it out of the table.
            return (best, true);
        }
        let bound = Bound::of(best, alpha_in, beta);
        self.table.store(
            hash,
            0,
            0,
            to_score(best),
            bound,
            true,
            best_move.map(G::move_code),
        );
        (best, false)
    }
}

fn value_of(o: Outcome) -> i32 {
    match o {
        Outcome::Win => 1,
        Outcome::Loss => -1,
        Outcome::Draw => 0,
    }
}

/// The table's moves from `root` on, while they are legal and the game goes on.
fn principal_line<G: Game>(root: &G, table: &Table) -> Vec<G::Move> {
    let mut line = Vec::new();
    super::alphabeta::extend_from_table(root, table, &mut line);
    line
}
