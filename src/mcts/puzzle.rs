//! Small games solved outright: a depth-first search of every line of play, with a table
//! of the positions already solved (a position reached by several lines is searched
//! once). It solves single-player games (puzzles) and two-player games where the roles
//! move in turn (at every position one role at most has a choice).
//!
//! A position's value is a reward for each role (0–1), the one its mover's best play
//! reaches. The mover prefers its higher reward, and between equal rewards the
//! opponent's lower one: in a constant-sum game that is minimax (negamax), and in a game
//! of general goals it backs up what the mover gets, as harmful to the other as it can
//! be. A puzzle's value is the only role's best reward. A position stops being searched
//! once its mover gets the best reward there is (1) and its opponent nothing. The table
//! keeps, for every solved position, the move that reaches its value and the length of
//! that line (a win as short as the search found, a loss as long), so that the player
//! answers from it.
//!
//! GDL games must end, so a line never comes back to a position on it; a faulty game
//! whose line does is not searched round the loop, and a puzzle's values are then
//! trusted only where they are the best reward there is, a two-player game's not at all.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::{Expansion, Model, Timer, mover};

/// A reward this close to 1 is the best there is (a win, in a game of two).
pub const BEST: f64 = 1.0 - 1e-9;
/// Rewards closer than this are equal.
const EQUAL: f64 = 1e-9;

/// Deepest line the search follows: deeper, the game is not solved.
pub const MAX_DEPTH: usize = 10_000;

/// Every role's reward under best play, in role order (a puzzle's second is 0).
pub type Rewards = [f64; 2];

/// What a solved position holds: its value, the plies to the end along its line, and the
/// mover's move that reaches it (none where the game is over).
#[derive(Clone, Debug)]
pub struct Solved<Mv> {
    pub rewards: Rewards,
    pub plies: u32,
    pub best: Option<Mv>,
}

/// Why a game is not solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsolved {
    /// The clock or the stop flag ended the search first; the positions solved so far
    /// are kept, and a later search goes on from them.
    OutOfTime,
    /// More positions than the table may hold.
    TooLarge,
    /// A line deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A line came back to a position on it (the game need not end), and the best
    /// reward there is was not found.
    Loops,
    /// A position where more than one role has a choice, or a game of more than two
    /// roles.
    NotInTurn,
}

/// The solved positions of one game of one role, or of two in turn.
pub struct Puzzle<M: Model> {
    table: HashMap<M::State, Solved<M::Move>>,
    /// Positions the table may hold at most.
    capacity: usize,
    /// Whether a line came back to a position on it.
    looped: bool,
    /// Whether the game has two roles.
    two: bool,
}

/// A position being searched: every role's moves, the role that chooses, its next move
/// to try, the best so far.
struct Frame<S, Mv> {
    state: S,
    legal: Vec<Vec<Mv>>,
    mover: usize,
    next: usize,
    best: Rewards,
    plies: u32,
    best_move: Option<usize>,
}

/// Whether `a` is better than `b` for `mover`: a higher reward, or an equal one and a
/// lower one for the other role.
fn better(a: &Rewards, b: &Rewards, mover: usize) -> bool {
    let other = 1 - mover;
    a[mover] > b[mover] + EQUAL || (a[mover] >= b[mover] - EQUAL && a[other] < b[other] - EQUAL)
}

/// Whether `a` and `b` are the same value.
fn equal(a: &Rewards, b: &Rewards) -> bool {
    (a[0] - b[0]).abs() <= EQUAL && (a[1] - b[1]).abs() <= EQUAL
}

/// Whether the mover's line of `plies` plies to `value` is better than one of `than`
/// plies to the same value: shorter where it wins, longer where it does not.
fn sooner(value: &Rewards, mover: usize, plies: u32, than: u32) -> bool {
    if value[mover] >= BEST {
        plies < than
    } else {
        plies > than
    }
}

/// The joint move where `role` plays `m` and every other role its first (where it waits,
/// its only) move of `legal`.
fn joint<Mv: Clone>(legal: &[Vec<Mv>], role: usize, m: &Mv) -> Vec<Mv> {
    let mut joint: Vec<Mv> = legal.iter().map(|l| l[0].clone()).collect();
    joint[role] = m.clone();
    joint
}

impl<M: Model> Puzzle<M>
where
    M::State: Hash + Eq,
{
    /// A table of at most `bytes` bytes, counting `per_position` bytes for a position,
    /// for a game of `roles` roles.
    pub fn new(bytes: usize, per_position: usize, roles: usize) -> Puzzle<M> {
        Puzzle {
            table: HashMap::new(),
            capacity: bytes / per_position.max(1),
            looped: false,
            two: roles == 2,
        }
    }

    /// A table of at most `bytes` bytes for the game of `model` from `root`, a game of
    /// `roles` roles: a position counts as its state (as large as the root's), its
    /// solution and the map's overhead.
    pub fn for_game(model: &M, root: &M::State, bytes: usize, roles: usize) -> Puzzle<M> {
        let per_position =
            std::mem::size_of::<(M::State, Solved<M::Move>)>() + model.heap_bytes(root) + 32;
        Puzzle::new(bytes, per_position, roles)
    }

    /// Positions solved so far.
    pub fn positions(&self) -> usize {
        self.table.len()
    }

    /// The solution at `state`, if it is solved and its value can be trusted.
    pub fn answer(&self, state: &M::State) -> Option<&Solved<M::Move>> {
        self.table
            .get(state)
            .filter(|s| !self.looped || (!self.two && s.rewards[0] >= BEST))
    }

    /// The moves of role `role` at the solved `state` that keep its value there for
    /// `role`, each with the plies of its line; the solution's own move first. Empty
    /// where `state` is not solved or `role` does not choose there.
    pub fn keeping(&self, model: &M, state: &M::State, role: usize) -> Vec<(M::Move, u32)> {
        let Some(solved) = self.answer(state) else {
            return Vec::new();
        };
        let Expansion::Moves(legal) = model.expand(state) else {
            return Vec::new();
        };
        let Some(ours) = legal.get(role) else {
            return Vec::new();
        };
        let mut keeping = Vec::new();
        for m in ours {
            let child = model.next(state, &joint(&legal, role, m));
            if let Some(s) = self.answer(&child)
                && (s.rewards[role] - solved.rewards[role]).abs() <= EQUAL
            {
                keeping.push((m.clone(), s.plies + 1));
            }
        }
        if let Some(best) = &solved.best
            && let Some(at) = keeping
                .iter()
                .position(|(m, _)| model.move_key(role, m) == model.move_key(role, best))
        {
            keeping.swap(0, at);
        }
        keeping
    }

    /// Solves every position the mover at `state` can move to, so that
    /// [`Puzzle::keeping`] knows all its moves: the search stops at the first best move
    /// it finds, which need not be the shortest win.
    pub fn solve_moves(
        &mut self,
        model: &M,
        state: &M::State,
        timer: &mut Timer,
    ) -> Result<(), Unsolved> {
        let Expansion::Moves(legal) = model.expand(state) else {
            return Ok(());
        };
        let mover = mover(&legal).unwrap_or(0);
        for m in &legal[mover] {
            self.solve(model, &model.next(state, &joint(&legal, mover, m)), timer)?;
        }
        Ok(())
    }

    /// Solves `root`: every role's reward under best play, or why not. Reads `timer` at
    /// every position it expands.
    pub fn solve(
        &mut self,
        model: &M,
        root: &M::State,
        timer: &mut Timer,
    ) -> Result<Rewards, Unsolved> {
        if let Some(s) = self.answer(root) {
            return Ok(s.rewards);
        }
        let mut path: HashSet<M::State> = HashSet::new();
        let mut stack: Vec<Frame<M::State, M::Move>> = Vec::new();
        // The value and plies of the position just solved, for its parent on the stack.
        let mut solved = match self.open(model, root.clone(), &mut stack, &mut path)? {
            Some((v, _)) => return Ok(v),
            None => None,
        };
        while let Some(top) = stack.last_mut() {
            if let Some((value, plies)) = solved.take() {
                let plies = plies + 1;
                let take = top.best_move.is_none()
                    || better(&value, &top.best, top.mover)
                    || (equal(&value, &top.best) && sooner(&value, top.mover, plies, top.plies));
                if take {
                    top.best = value;
                    top.plies = plies;
                    top.best_move = Some(top.next - 1);
                }
            }
            let won = top.best[top.mover] >= BEST && top.best[1 - top.mover] <= EQUAL;
            if won || top.next == top.legal[top.mover].len() {
                let Some(done) = stack.pop() else { break };
                path.remove(&done.state);
                let best = done.best_move.map(|i| done.legal[done.mover][i].clone());
                self.store(done.state, done.best, done.plies, best)?;
                solved = Some((done.best, done.plies));
                continue;
            }
            if timer.expired() {
                return Err(Unsolved::OutOfTime);
            }
            let joint = joint(&top.legal, top.mover, &top.legal[top.mover][top.next]);
            top.next += 1;
            let child = model.next(&top.state, &joint);
            if path.contains(&child) {
                self.looped = true;
                continue;
            }
            if let Some(s) = self.table.get(&child) {
                solved = Some((s.rewards, s.plies));
                continue;
            }
            if stack.len() >= MAX_DEPTH {
                return Err(Unsolved::TooDeep);
            }
            solved = self.open(model, child, &mut stack, &mut path)?;
        }
        match self.answer(root) {
            Some(s) => Ok(s.rewards),
            None => Err(Unsolved::Loops),
        }
    }

    /// Expands `state`: its value if the game is over there (stored), else a new frame
    /// on the stack.
    fn open(
        &mut self,
        model: &M,
        state: M::State,
        stack: &mut Vec<Frame<M::State, M::Move>>,
        path: &mut HashSet<M::State>,
    ) -> Result<Option<(Rewards, u32)>, Unsolved> {
        match model.expand(&state) {
            Expansion::Over(rewards) => {
                let value = [
                    rewards.first().copied().unwrap_or(0.0),
                    rewards.get(1).copied().unwrap_or(0.0),
                ];
                self.store(state, value, 0, None)?;
                Ok(Some((value, 0)))
            }
            Expansion::Moves(legal) => {
                let Some(mover) = mover(&legal).filter(|_| legal.len() <= 2) else {
                    return Err(Unsolved::NotInTurn);
                };
                path.insert(state.clone());
                stack.push(Frame {
                    state,
                    legal,
                    mover,
                    next: 0,
                    best: [0.0; 2],
                    plies: 0,
                    best_move: None,
                });
                Ok(None)
            }
        }
    }

    fn store(
        &mut self,
        state: M::State,
        rewards: Rewards,
        plies: u32,
        best: Option<M::Move>,
    ) -> Result<(), Unsolved> {
        if self.table.len() >= self.capacity {
            return Err(Unsolved::TooLarge);
        }
        self.table.insert(
            state,
            Solved {
                rewards,
                plies,
                best,
            },
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::super::tests::{game, nim, nim_sum};
    use super::*;
    use crate::gdl::Gdl;

    fn puzzle(bytes: usize) -> Puzzle<Arc<Gdl>> {
        Puzzle::new(bytes, 100, 1)
    }

    fn duel(bytes: usize) -> Puzzle<Arc<Gdl>> {
        Puzzle::new(bytes, 100, 2)
    }

    #[test]
    fn lamps_is_solved_and_its_solution_lights_them_all() {
        let gdl = game("lamps.gdl");
        let mut p = puzzle(1 << 20);
        let start = gdl.initial_state();
        let mut timer = Timer::new(None, None, 1);
        assert_eq!(p.solve(&gdl, &start, &mut timer), Ok([1.0, 0.0]));
        // 8 lamp states by 7 steps at most, the unlit ones at step 6 among them.
        assert!(
            p.positions() > 6 && p.positions() <= 56,
            "{}",
            p.positions()
        );
        let mut state = start;
        let mut presses = Vec::new();
        while let Some(mv) = p.answer(&state).and_then(|s| s.best.clone()) {
            presses.push(gdl.display(&mv));
            state = gdl.next_state(&state, &[mv]);
        }
        // It takes all six presses (a, b, a, c, b, a is one way).
        assert_eq!(presses.len(), 6, "{presses:?}");
        assert!(gdl.is_terminal(&state));
        assert_eq!(gdl.goals(&state), [Some(100)]);
    }

    #[test]
    fn a_puzzle_too_large_or_out_of_time_or_of_simultaneous_moves_is_not_solved() {
        let gdl = game("lamps.gdl");
        let start = gdl.initial_state();
        let mut timer = Timer::new(None, None, 1);
        assert_eq!(
            puzzle(10 * 100).solve(&gdl, &start, &mut timer),
            Err(Unsolved::TooLarge)
        );
        // Out of time: what is solved stays, and the next search goes on from it.
        let stop = AtomicBool::new(true);
        let mut p = puzzle(1 << 20);
        let mut stopped = Timer::new(None, Some(&stop), 1);
        assert_eq!(
            p.solve(&gdl, &start, &mut stopped),
            Err(Unsolved::OutOfTime)
        );
        assert!(p.answer(&start).is_none());
        assert_eq!(p.solve(&gdl, &start, &mut timer), Ok([1.0, 0.0]));
        let rps = game("rps_well.gdl");
        assert_eq!(
            duel(1 << 20).solve(&rps, &rps.initial_state(), &mut timer),
            Err(Unsolved::NotInTurn)
        );
    }

    #[test]
    fn tic_tac_toe_is_a_draw_and_every_move_kept_from_the_start_keeps_it() {
        let ttt = game("tictactoe.gdl");
        let mut p = duel(64 << 20);
        let start = ttt.initial_state();
        let mut timer = Timer::new(None, None, 1);
        assert_eq!(p.solve(&ttt, &start, &mut timer), Ok([0.5, 0.5]));
        // 5,478 positions can be reached; the search needs no more.
        assert!(p.positions() <= 5_478, "{}", p.positions());
        // Every first move keeps the draw; o loses after x's corner if it answers on an
        // edge next to it.
        assert_eq!(p.keeping(&ttt, &start, 0).len(), 9);
        let corner = ttt.next_state(&start, &moves(&ttt, "((mark 1 1) noop)"));
        let keeping: Vec<String> = p
            .keeping(&ttt, &corner, 1)
            .iter()
            .map(|(m, _)| ttt.display(m))
            .collect();
        assert!(keeping.contains(&"(mark 2 2)".to_owned()), "{keeping:?}");
        assert!(!keeping.contains(&"(mark 1 2)".to_owned()), "{keeping:?}");
        let edge = ttt.next_state(&corner, &moves(&ttt, "(noop (mark 1 2))"));
        let won = p.answer(&edge).expect("solved on the way");
        assert_eq!(won.rewards, [1.0, 0.0]);
    }

    fn moves(gdl: &Gdl, joint: &str) -> Vec<crate::gdl::Term> {
        let joint = crate::sexpr::Sexpr::parse(joint).unwrap();
        let joint = joint.as_list().unwrap();
        joint
            .iter()
            .map(|m| gdl.term_from_sexpr(m).unwrap())
            .collect()
    }

    #[test]
    fn nim_is_won_by_the_player_to_move_where_the_heaps_nim_sum_is_not_zero() {
        let mut timer = Timer::new(None, None, 1);
        let gdl = game("nim.gdl");
        for sizes in [
            [1, 2, 3, 0],
            [3, 4, 5, 0],
            [2, 2, 0, 0],
            [1, 4, 6, 0],
            [2, 5, 7, 0],
            [7, 0, 0, 0],
            [1, 1, 1, 1],
            [1, 3, 5, 6],
        ] {
            let start = nim(&gdl, sizes, "first");
            let mut p = duel(64 << 20);
            let first_wins = sizes.iter().fold(0, |x, s| x ^ s) != 0;
            let value = if first_wins { [1.0, 0.0] } else { [0.0, 1.0] };
            assert_eq!(p.solve(&gdl, &start, &mut timer), Ok(value), "{sizes:?}");
            // Every position solved on the way, the ends among them, is won by the role
            // in control just where the nim-sum is not zero.
            for (state, solved) in &p.table {
                let (sum, control) = nim_sum(&gdl, state);
                let won = if sum != 0 { 1.0 } else { 0.0 };
                assert_eq!(solved.rewards[control], won, "{sizes:?}: {sum} {control}");
            }
            // A win's moves leave heaps of nim-sum zero; from a loss every move loses.
            let keeping = p.keeping(&gdl, &start, 0);
            let all = match gdl.expand(&start) {
                Expansion::Moves(legal) => legal[0].len(),
                Expansion::Over(_) => 0,
            };
            if first_wins {
                assert!(!keeping.is_empty() && keeping.len() < all, "{sizes:?}");
                for (m, _) in &keeping {
                    let after = gdl.next_state(&start, &[m.clone(), noop(&gdl)]);
                    assert_eq!(nim_sum(&gdl, &after), (0, 1), "{sizes:?}");
                }
            } else {
                assert_eq!(keeping.len(), all, "{sizes:?}: every move loses");
            }
        }
    }

    fn noop(gdl: &Gdl) -> crate::gdl::Term {
        gdl.term_from_sexpr(&crate::sexpr::Sexpr::atom("noop"))
            .unwrap()
    }

    /// Positions and seconds to solve each two-player game of `gdl/` from its start, in
    /// 128 MiB and 60 s at most (the start clock of the champion's matches): run with
    /// `--ignored --nocapture`.
    #[test]
    #[ignore]
    fn solving_the_two_player_games() {
        for file in [
            "tictactoe.gdl",
            "nim.gdl",
            "race.gdl",
            "connect_four.gdl",
            "hex.gdl",
            "pentago.gdl",
            "checkers_6x6.gdl",
            "reversi_6x6.gdl",
            "chinese_checkers.gdl",
            "breakthrough_5x5.gdl",
        ] {
            let gdl = game(file);
            if gdl.roles().len() != 2 {
                continue;
            }
            let start = gdl.initial_state();
            let mut p = Puzzle::for_game(&gdl, &start, 128 << 20, 2);
            let began = std::time::Instant::now();
            let deadline = began + std::time::Duration::from_secs(60);
            let mut timer = Timer::new(Some(deadline), None, 1);
            let solved = p.solve(&gdl, &start, &mut timer);
            println!(
                "{file}: {solved:?}, {} positions, {:.2} s",
                p.positions(),
                began.elapsed().as_secs_f64()
            );
            match file {
                "tictactoe.gdl" => assert_eq!(solved, Ok([0.5, 0.5])),
                // Heaps of 11, 12, 15 and 25: their nim-sum is 17.
                "nim.gdl" => assert_eq!(solved, Ok([1.0, 0.0])),
                _ => {}
            }
        }
    }
}
