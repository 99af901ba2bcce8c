//! Iterative-deepening principal-variation search (negamax alpha-beta) over any [`Game`],
//! on one or more threads sharing a transposition table (Lazy SMP).
//!
//! - Move ordering: the table's move, then the game's hint (wins, captures), two killer
//!   moves per ply, then quiet moves by history.
//! - Principal-variation search: the first move with the full window, the rest with a
//!   null window and a re-search when one beats alpha; late quiet moves are searched one
//!   or two plies shallower first (late-move reductions).
//! - At the horizon: a side that can win at once is scored as a win, and a side facing
//!   such a threat gets one more ply, so the evaluation never guesses about a pawn one
//!   step from its goal.
//! - Proofs: every node knows whether a leaf below it was scored by the evaluation; a
//!   result with none is the game-theoretic value and is stored as proven, valid at any
//!   depth. An iteration that scored no leaf by evaluation has solved the position.
//! - Repetition (games that set [`Game::REPEATS`]): a position already on the path from
//!   the root, or played before it ([`Options::earlier`]), is scored as a draw. That value
//!   holds for this path only, so it counts as a guess: nothing above it is stored as
//!   proven.
//! - Threads: each runs its own iterative deepening on the shared table; the deepest
//!   completed iteration (the main thread's on ties) gives the move. A thread skips depths
//!   another thread has already completed, and all stop when one reaches the depth limit
//!   or proves the root.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread;
use std::time::Instant;

use tracing::{debug, info, warn};

use super::busy::Busy;
use super::limits::{Limits, MAX_DEPTH};
use super::order::Order;
use super::score::{self, INFINITY};
use super::stats::{IterationStats, SearchResult, rate};
use super::tt::{Bound, Table};
use crate::game::{Evaluator, Game, MoveBuffer, Outcome, TACTICAL_PRIORITY};

const MAX_PLY: usize = MAX_DEPTH as usize * 2 + 4;
/// How many nodes pass between two looks at the clock and the stop flags (a power of two).
const CHECK_EVERY: u64 = 2048;
/// The table size of a one-off [`search`].
const ONE_OFF_TABLE_MB: usize = 16;
/// Entries of the history table (indexed by move code).
const HISTORY: usize = 1 << 15;
const HISTORY_MAX: i32 = 4000;

// Ordering keys: table move, then wins and captures, killers, then quiet moves.
const KEY_TABLE: i32 = i32::MAX;
const KEY_CAPTURE: i32 = 200_000;
const KEY_KILLER: [i32; 2] = [150_000, 149_999];

/// Moves another thread is searching are deferred at this remaining depth or more.
const DEFER_DEPTH: u32 = 3;
/// Slots of the table of moves being searched.
const BUSY_SLOTS: usize = 1 << 14;
/// Late-move reductions: quiet moves from this index on, at this depth or more.
const LMR_MOVE: usize = 3;
const LMR_DEPTH: u32 = 3;

/// Searches `root` within `limits` on one thread with a fresh table, and returns the best
/// move found. Returns a move whenever the side to move has one, however short the time.
pub fn search<G: Game, E: Evaluator<G> + ?Sized>(
    root: &G,
    eval: &E,
    limits: &Limits,
) -> SearchResult<G::Move> {
    let table = Table::new(ONE_OFF_TABLE_MB);
    search_with(root, eval, limits, &table, &Options::default())
}

/// How a search runs, beyond its limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Threads searching together (at least one).
    pub threads: usize,
    /// Late-move reductions. Without them a fixed-depth search returns exactly the minimax
    /// value (under the horizon rules in the module's documentation); tests rely on that.
    pub reductions: bool,
    /// Hashes of the positions played before the root (games that repeat): a line back to
    /// one of them is scored as a draw, so the player does not shuffle back and forth.
    pub earlier: Vec<u64>,
    /// The root moves to choose from, by move code ([`Game::move_code`]); `None` for all.
    /// A player given the moves that keep a proven value passes them here. Codes of no
    /// legal move are ignored, and so is a list naming none.
    pub root_moves: Option<Vec<u16>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            reductions: true,
            earlier: Vec::new(),
            root_moves: None,
        }
    }
}

/// Searches `root` within `limits` as `options` say, sharing `table` (which keeps what it
/// learnt for later searches of the same game).
pub fn search_with<G: Game, E: Evaluator<G> + ?Sized>(
    root: &G,
    eval: &E,
    limits: &Limits,
    table: &Table,
    options: &Options,
) -> SearchResult<G::Move> {
    let start = Instant::now();
    let threads = options.threads.max(1);
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
        threads,
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
    let moves = allowed::<G>(list.as_slice(), options.root_moves.as_deref());
    table.new_search();
    let shared = Shared {
        table,
        limits,
        earlier: &options.earlier,
        reductions: options.reductions,
        threads,
        busy: Busy::new(if threads > 1 { BUSY_SLOTS } else { 1 }),
        done: AtomicBool::new(false),
        completed: AtomicU32::new(0),
    };
    let mut runs = thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|id| {
                let (shared, moves) = (&shared, &moves);
                thread::Builder::new()
                    .name(format!("search-helper-{id}"))
                    .spawn_scoped(scope, move || run_thread(root, moves, eval, shared, id))
            })
            .collect();
        let main = run_thread(root, &moves, eval, &shared, 0);
        shared.done.store(true, Ordering::Relaxed);
        let mut runs = vec![main];
        // A helper that could not start or panicked only costs its share of the work.
        runs.extend(
            helpers
                .into_iter()
                .filter_map(|h| h.ok().and_then(|h| h.join().ok())),
        );
        runs
    });
    result.nodes = runs.iter().map(|r| r.nodes).sum();
    result.expansions = runs.iter().map(|r| r.expansions).sum();
    // The deepest result; the main thread's (first) on ties. `max_by_key` keeps the last
    // maximum, so search in reverse.
    let best = (0..runs.len())
        .rev()
        .max_by_key(|&i| {
            (
                runs[i].best.is_some(),
                runs[i].proven.is_some(),
                runs[i].depth,
            )
        })
        .unwrap_or(0);
    let main_iterations = std::mem::take(&mut runs[0].iterations);
    let run = runs.swap_remove(best);
    match run.best {
        Some((m, sc)) => {
            result.best_move = Some(m);
            result.score = sc;
            result.pv = run.pv;
        }
        None => {
            // Not even depth 1 finished: the game's own hint is better than nothing.
            let m = best_by_hint(root, &moves).expect("the list is not empty");
            result.best_move = Some(m);
            result.pv = vec![m];
        }
    }
    extend_from_table(root, table, &mut result.pv);
    result.depth = run.depth;
    result.proven = run.proven;
    result.iterations = main_iterations;
    result.time = start.elapsed();
    info!(
        depth = result.depth,
        threads,
        nodes = result.nodes,
        expansions = result.expansions,
        time_ms = result.time.as_millis() as u64,
        nps = result.nodes_per_second(),
        hashfull = table.hashfull(),
        best = %result.best_move.map_or("-".into(), |m| root.move_name(m)),
        score = %score::describe(result.score),
        proven = ?result.proven,
        "search done"
    );
    result
}

/// A legal move found without searching: the most promising by the game's own ordering
/// hint (wins, captures first), among the moves that keep the value when the game's
/// table of solved positions holds this one ([`Game::solved`]). `None` without legal
/// moves. What a player answers when no search result comes in time.
pub fn quick_move<G: Game>(position: &G) -> Option<G::Move> {
    let mut list = G::MoveList::default();
    position.generate_moves(&mut list);
    let keeping = keeping_codes(position);
    best_by_hint(position, &allowed::<G>(list.as_slice(), keeping.as_deref()))
}

/// The codes of the moves that keep `position`'s value, when the game's table of solved
/// positions holds it ([`Game::solved`]): what a player passes as [`Options::root_moves`].
pub fn keeping_codes<G: Game>(position: &G) -> Option<Vec<u16>> {
    position.solved().map(|(value, moves)| {
        info!(?value, keeping = moves.len(), "a solved position");
        moves.into_iter().map(G::move_code).collect()
    })
}

fn best_by_hint<G: Game>(position: &G, moves: &[G::Move]) -> Option<G::Move> {
    moves
        .iter()
        .copied()
        .max_by_key(|&m| position.move_priority(m))
}

/// The legal moves `codes` names (all of them without codes, or when it names none).
fn allowed<G: Game>(legal: &[G::Move], codes: Option<&[u16]>) -> Vec<G::Move> {
    let named: Vec<G::Move> = legal
        .iter()
        .copied()
        .filter(|&m| codes.is_some_and(|c| c.contains(&G::move_code(m))))
        .collect();
    if named.is_empty() {
        if codes.is_some() {
            warn!("the root moves given name no legal move: searching them all");
        }
        return legal.to_vec();
    }
    named
}

/// Continues a principal variation cut short by table hits with the table's best moves,
/// as long as they are legal and the game goes on (for logs and solved lines).
pub(super) fn extend_from_table<G: Game>(root: &G, table: &Table, pv: &mut Vec<G::Move>) {
    extend_by(root, pv, |game| {
        table.probe(game.hash(), 0).and_then(|e| e.move_code)
    });
}

/// Continues `pv` from `root` with the moves `best` names for each position (move codes),
/// as long as they are legal and the game goes on.
pub(super) fn extend_by<G: Game>(
    root: &G,
    pv: &mut Vec<G::Move>,
    best: impl Fn(&G) -> Option<u16>,
) {
    let mut game = root.clone();
    for &m in pv.iter() {
        game.make(m);
    }
    let mut list = G::MoveList::default();
    while pv.len() < MAX_DEPTH as usize && game.decided().is_none() {
        let Some(code) = best(&game) else {
            break;
        };
        game.generate_moves(&mut list);
        let Some(&m) = list.as_slice().iter().find(|&&m| G::move_code(m) == code) else {
            break;
        };
        game.make(m);
        pv.push(m);
    }
}

/// What the threads of one search share.
struct Shared<'a> {
    table: &'a Table,
    limits: &'a Limits,
    earlier: &'a [u64],
    reductions: bool,
    threads: usize,
    /// Moves being searched by some thread.
    busy: Busy,
    /// Raised when the search is over: every thread stops.
    done: AtomicBool,
    /// The deepest iteration any thread has completed.
    completed: AtomicU32,
}

/// What one thread found.
struct Run<M> {
    best: Option<(M, i32)>,
    depth: u32,
    pv: Vec<M>,
    proven: Option<Outcome>,
    nodes: u64,
    expansions: u64,
    iterations: Vec<IterationStats>,
}

fn run_thread<G: Game, E: Evaluator<G> + ?Sized>(
    root: &G,
    moves: &[G::Move],
    eval: &E,
    shared: &Shared<'_>,
    id: usize,
) -> Run<G::Move> {
    let mut s = Searcher {
        game: root.clone(),
        eval,
        shared,
        nodes: 1,
        expansions: 0,
        aborted: false,
        horizon: false,
        root_depth: 0,
        killers: vec![[None; 2]; MAX_PLY],
        history: vec![0; HISTORY],
        pv: vec![G::Move::default(); MAX_PLY * MAX_PLY],
        pv_len: vec![0; MAX_PLY],
        keys: Vec::with_capacity(G::MAX_MOVES * 8),
        deferred: Vec::new(),
        path: Vec::new(),
    };
    if G::REPEATS {
        s.path.extend_from_slice(shared.earlier);
        s.path.push(root.hash());
    }
    let mut run = Run {
        best: None,
        depth: 0,
        pv: Vec::new(),
        proven: None,
        nodes: 0,
        expansions: 0,
        iterations: Vec::new(),
    };
    // Root moves with the score of the last iteration that searched them, best first.
    let mut root_moves: Vec<(G::Move, i32)> =
        moves.iter().map(|&m| (m, root.move_priority(m))).collect();
    root_moves.sort_by_key(|&(_, k)| std::cmp::Reverse(k));
    // Helpers vary their root order a little so that threads part ways early.
    if id > 0 && root_moves.len() > 2 {
        let n = root_moves.len();
        root_moves[1..].rotate_left(id % (n - 1));
    }

    let limits = shared.limits;
    let max_depth = limits.max_depth.clamp(1, MAX_DEPTH);
    let mut depth = 1 + (id as u32 & 1);
    while depth <= max_depth {
        let spent = limits.nodes_spent(s.nodes);
        if shared.done.load(Ordering::Relaxed)
            || (depth > 1 && (spent || !limits.may_start_iteration()))
        {
            break;
        }
        // Helpers leave depths another thread has completed; the main thread searches
        // every depth so that its own move ordering stays sound.
        if id > 0 {
            depth = depth.max(shared.completed.load(Ordering::Relaxed) + 1);
            if depth > max_depth {
                break;
            }
        }
        let iter_start = Instant::now();
        let nodes_before = s.nodes;
        let expansions_before = s.expansions;
        let outcome = s.root_iteration(depth, &mut root_moves);
        let complete = !s.aborted;
        if let Some((m, sc)) = outcome {
            run.best = Some((m, sc));
            run.depth = depth;
            run.pv = s.pv[..s.pv_len[0]].to_vec();
            if let Some(best) = &limits.best {
                best.publish::<G>(m, depth);
            }
        }
        if id == 0 {
            let stats = IterationStats {
                depth,
                nodes: s.nodes - nodes_before,
                expansions: s.expansions - expansions_before,
                time: iter_start.elapsed(),
                complete,
                best_move: outcome
                    .map(|(m, _)| root.move_name(m))
                    .unwrap_or_else(|| "-".into()),
                score: outcome.map_or(run.best.map_or(0, |b| b.1), |(_, sc)| sc),
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
            run.iterations.push(stats);
        } else {
            debug!(thread = id, depth, complete, "helper iteration");
        }
        if !complete {
            break;
        }
        if id == 0 {
            stall_for_tests(depth);
        }
        shared.completed.fetch_max(depth, Ordering::Relaxed);
        let sc = run.best.map_or(0, |b| b.1);
        // Solved: a forced win or loss, or no leaf left to guess about.
        if score::is_decisive(sc) || !s.horizon {
            let outcome = score::decisive_outcome(sc).unwrap_or(Outcome::Draw);
            run.proven = Some(outcome);
            if outcome == Outcome::Draw
                && let Some(m) = s.most_hopeful_draw(depth, &root_moves)
            {
                run.best = Some((m, score::DRAW));
                run.pv = vec![m];
                if let Some(best) = &limits.best {
                    best.publish::<G>(m, depth);
                }
            }
            shared.done.store(true, Ordering::Relaxed);
            break;
        }
        if depth == max_depth {
            shared.done.store(true, Ordering::Relaxed);
        }
        depth += 1;
    }
    run.nodes = s.nodes;
    run.expansions = s.expansions;
    run
}

/// Test hook: with `GGP_PLAYER_TEST_STALL_DEPTH=N` in the environment, the main thread
/// stops responding for 30 s after it completes iteration N, ignoring its deadlines, as
/// a search starved of CPU would. Tests use it to check that whoever waits for the search
/// answers with the move that iteration published (never a blind move).
fn stall_for_tests(depth: u32) {
    static STALL: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    let stall = STALL.get_or_init(|| {
        std::env::var("GGP_PLAYER_TEST_STALL_DEPTH")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if *stall == Some(depth) {
        warn!(
            depth,
            "GGP_PLAYER_TEST_STALL_DEPTH: the search stalls for 30 s"
        );
        thread::sleep(std::time::Duration::from_secs(30));
    }
}

struct Searcher<'a, G: Game, E: ?Sized> {
    game: G,
    eval: &'a E,
    shared: &'a Shared<'a>,
    nodes: u64,
    expansions: u64,
    aborted: bool,
    /// Some leaf below the current node was scored by the evaluation (or by an unproven
    /// table entry).
    horizon: bool,
    /// The depth of the running iteration (bounds horizon extensions).
    root_depth: u32,
    killers: Vec<[Option<G::Move>; 2]>,
    /// Quiet moves that caused cut-offs, by move code, weighted by depth².
    history: Vec<i32>,
    /// Triangular principal-variation table: row `ply` starts at `ply * MAX_PLY`.
    pv: Vec<G::Move>,
    pv_len: Vec<usize>,
    /// Ordering keys of the moves of every node on the path, each node's above its
    /// parent's: no bound on the number of moves, and no allocation once grown.
    keys: Vec<i32>,
    /// Indices of the moves each node on the path put off (see `node`), stacked likewise.
    deferred: Vec<usize>,
    /// Hashes of the positions from the game's first (as far as known) to the current one
    /// (games that repeat only).
    path: Vec<u64>,
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
        self.aborted = false;
        self.root_depth = depth;
        self.pv_len[0] = 0;
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut best: Option<(G::Move, i32)> = None;
        for (i, entry) in root_moves.iter_mut().enumerate() {
            let m = entry.0;
            // Root moves are never reduced.
            let sc = self.search_move(m, i, false, depth, 0, alpha, beta);
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
        if let Some((m, sc)) = best
            && !self.aborted
        {
            let proven = !self.horizon;
            let hash = self.game.hash();
            self.shared.table.store(
                hash,
                0,
                depth,
                sc,
                Bound::Exact,
                proven,
                Some(G::move_code(m)),
            );
        }
        best
    }

    /// At a root proven to be a draw, the drawing move that leaves the opponent the most
    /// room to go wrong. Every root move is searched again with a window around the draw
    /// (cheap: the table holds the proof); for each one that keeps the draw, every reply
    /// is searched too, as deep as the proof went, to count the replies after which we
    /// stand better than a draw. The move with the largest share of such replies is
    /// chosen (what a random mover falls into most often), the evaluation breaking ties.
    /// A perfect opponent draws anyway; a fallible one should not be handed a dead
    /// blockade. `None` if the search is stopped first.
    fn most_hopeful_draw(&mut self, depth: u32, root_moves: &[(G::Move, i32)]) -> Option<G::Move> {
        // (move, losing replies, replies, evaluation)
        let mut best: Option<(G::Move, u64, u64, i32)> = None;
        for &(m, _) in root_moves {
            self.game.make(m);
            self.horizon = false;
            let sc = -self.negamax(depth - 1, 1, -1, 1);
            // Only a proven draw counts (an unproven 0 may hide a loss).
            let keeps_draw = sc == score::DRAW && !self.horizon;
            let (mut traps, mut replies) = (0u64, 0u64);
            if keeps_draw && depth >= 2 {
                let mut list = G::MoveList::default();
                self.game.generate_moves(&mut list);
                for &r in list.as_slice() {
                    self.game.make(r);
                    let ours = self.negamax(depth - 2, 2, -1, 1);
                    self.game.unmake(r);
                    replies += 1;
                    traps += u64::from(ours > score::DRAW);
                    if self.aborted {
                        break;
                    }
                }
            }
            let hope = if keeps_draw {
                -self.eval.evaluate(&self.game)
            } else {
                0
            };
            self.game.unmake(m);
            if self.aborted {
                return None;
            }
            let better = |&(_, t, n, h): &(G::Move, u64, u64, i32)| {
                // traps / replies against t / n, compared without division.
                let (mine, theirs) = (traps * n.max(1), t * replies.max(1));
                mine > theirs || (mine == theirs && hope > h)
            };
            if keeps_draw && best.as_ref().is_none_or(better) {
                best = Some((m, traps, replies, hope));
            }
        }
        best.map(|(m, ..)| m)
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

    /// The score of move `m`, the `index`-th searched at this node: the first with the full
    /// window, the others with a null window (reduced first when late and quiet) and a
    /// re-search when they beat alpha.
    #[allow(clippy::too_many_arguments)]
    fn search_move(
        &mut self,
        m: G::Move,
        index: usize,
        quiet: bool,
        depth: u32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.game.make(m);
        self.nodes += 1;
        let mut sc;
        if index == 0 {
            sc = -self.negamax(depth - 1, ply + 1, -beta, -alpha);
        } else {
            let reduction =
                if self.shared.reductions && quiet && index >= LMR_MOVE && depth >= LMR_DEPTH {
                    1 + u32::from(index >= 2 * LMR_MOVE && depth > LMR_DEPTH + 1)
                } else {
                    0
                };
            sc = -self.negamax(depth - 1 - reduction, ply + 1, -alpha - 1, -alpha);
            if sc > alpha && reduction > 0 && !self.aborted {
                sc = -self.negamax(depth - 1, ply + 1, -alpha - 1, -alpha);
            }
            if sc > alpha && sc < beta && !self.aborted {
                sc = -self.negamax(depth - 1, ply + 1, -beta, -alpha);
            }
        }
        self.game.unmake(m);
        sc
    }

    fn must_stop(&self) -> bool {
        self.shared.done.load(Ordering::Relaxed)
            || self.shared.limits.must_abort()
            || self.shared.limits.nodes_spent(self.nodes)
    }

    /// The value of the current position searched `depth` plies deep, within `(alpha, beta)`
    /// (fail-soft), `ply` plies from the root. Keeps `self.horizon` up to date for the caller.
    fn negamax(&mut self, depth: u32, ply: usize, alpha: i32, beta: i32) -> i32 {
        let outer_horizon = self.horizon;
        self.horizon = false;
        let sc = self.node(depth, ply, alpha, beta);
        self.horizon |= outer_horizon;
        sc
    }

    fn node(&mut self, depth: u32, ply: usize, alpha: i32, beta: i32) -> i32 {
        if !G::REPEATS {
            return self.expand(depth, ply, alpha, beta);
        }
        let hash = self.game.hash();
        if self.path.contains(&hash) {
            self.pv_len[ply] = ply;
            // A draw for this path only: not a proof.
            self.horizon = true;
            return score::DRAW;
        }
        self.path.push(hash);
        let sc = self.expand(depth, ply, alpha, beta);
        self.path.pop();
        sc
    }

    fn expand(&mut self, mut depth: u32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv_len[ply] = ply;
        if self.nodes & (CHECK_EVERY - 1) == 0 && self.must_stop() {
            self.aborted = true;
            return 0;
        }
        if let Some(o) = self.game.decided() {
            return score::outcome(o, ply);
        }
        if ply >= MAX_PLY - 2 {
            self.horizon = true;
            return self.eval.evaluate(&self.game);
        }
        let pv_node = beta - alpha > 1;
        if self.game.can_win_now() {
            if pv_node && let Some(m) = self.game.winning_move() {
                self.pv[ply * MAX_PLY + ply] = m;
                self.pv_len[ply] = ply + 1;
            }
            return score::outcome(Outcome::Win, ply + 1);
        }
        if depth == 0 {
            // A pawn one step from its goal is not left to the evaluation: look one
            // ply further (only within the iteration's own depth, so this ends).
            if self.game.threatened() && (ply as u32) < 2 * self.root_depth {
                depth = 1;
            } else {
                if !self.game.has_moves() {
                    return score::outcome(self.game.outcome_without_moves(), ply);
                }
                // Leaves skip the table: a probe costs more than the evaluation.
                self.horizon = true;
                return self.eval.evaluate(&self.game);
            }
        }
        let alpha_in = alpha;
        let hash = self.game.hash();
        let table = self.shared.table;
        let mut table_move = None;
        if let Some(e) = table.probe(hash, ply) {
            table_move = e.move_code;
            if e.cuts(depth, alpha, beta) && (!pv_node || e.proven) {
                if !e.proven {
                    self.horizon = true;
                }
                return e.score;
            }
        }
        let mut list = G::MoveList::default();
        self.game.generate_moves(&mut list);
        self.expansions += 1;
        if list.is_empty() {
            return score::outcome(self.game.outcome_without_moves(), ply);
        }
        let moves = list.as_mut_slice();
        let n = moves.len();
        let killers = self.killers[ply];
        let base = self.keys.len();
        for &m in moves.iter() {
            let code = G::move_code(m);
            let key = if Some(code) == table_move {
                KEY_TABLE
            } else {
                let p = self.game.move_priority(m);
                if p >= TACTICAL_PRIORITY {
                    KEY_CAPTURE + p
                } else if let Some(slot) = killers.iter().position(|&k| k == Some(m)) {
                    KEY_KILLER[slot]
                } else {
                    self.history[code as usize % HISTORY] * 16 + p
                }
            };
            self.keys.push(key);
        }

        let mut best = -INFINITY;
        let mut best_move = None;
        // With several threads, a move another thread is searching right now is put off
        // to the end (it may be answered from the table by then); the first move never is.
        let defer = self.shared.threads > 1 && depth >= DEFER_DEPTH;
        let mut searched = 0;
        let mut order = Order::new(&self.deferred);
        while let Some(index) = order.next(
            moves,
            &mut self.keys[base..base + n],
            &mut self.deferred,
            searched,
            |m| defer && self.shared.busy.is_busy(hash, G::move_code(m)),
        ) {
            let m = moves[index];
            let quiet = self.keys[base + index] < KEY_KILLER[1];
            let busy = defer.then(|| self.shared.busy.enter(hash, G::move_code(m)));
            let sc = self.search_move(m, searched, quiet, depth, ply, alpha, beta);
            if let Some(slot) = busy {
                self.shared.busy.leave(slot);
            }
            searched += 1;
            if self.aborted {
                break;
            }
            if sc > best {
                best = sc;
                best_move = Some(m);
                if sc > alpha {
                    alpha = sc;
                    self.update_pv(ply, m);
                    if sc >= beta {
                        if quiet {
                            if self.killers[ply][0] != Some(m) {
                                self.killers[ply] = [Some(m), self.killers[ply][0]];
                            }
                            let h = &mut self.history[G::move_code(m) as usize % HISTORY];
                            *h = (*h + (depth * depth) as i32).min(HISTORY_MAX);
                        }
                        break;
                    }
                }
            }
        }
        self.keys.truncate(base);
        order.finish(&mut self.deferred);
        if self.aborted {
            return 0;
        }
        let bound = Bound::of(best, alpha_in, beta);
        table.store(
            hash,
            ply,
            depth,
            best,
            bound,
            !self.horizon,
            best_move.map(G::move_code),
        );
        best
    }
}
