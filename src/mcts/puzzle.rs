//! Single-player games solved outright: a depth-first search of every line of play, with
//! a table of the positions already solved (a position reached by several lines is
//! searched once). A position's value is the best reward reachable from it; the search
//! stops at once when it finds the best reward there is (1). The table keeps, for every
//! solved position, the move that reaches its value, so that the player answers from it.
//!
//! GDL games must end, so a line never comes back to a position on it; a faulty game
//! whose line does is not searched round the loop, and its values are then trusted only
//! where they are the best reward there is.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::{Expansion, Model, Timer};

/// A reward this close to 1 is the best there is.
const BEST: f64 = 1.0 - 1e-9;

/// Deepest line the search follows: deeper, the game is not solved.
pub const MAX_DEPTH: usize = 10_000;

/// What a solved position holds: its value, and the move that reaches it (none where the
/// game is over).
#[derive(Clone, Debug)]
pub struct Solved<Mv> {
    pub value: f64,
    pub best: Option<Mv>,
}

/// Why a puzzle is not solved.
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
    /// Not a single-player game: a position where more than one role moves.
    NotSinglePlayer,
}

/// The solved positions of one single-player game.
pub struct Puzzle<M: Model> {
    table: HashMap<M::State, Solved<M::Move>>,
    /// Positions the table may hold at most.
    capacity: usize,
    /// Whether a line came back to a position on it.
    looped: bool,
}

/// A position being searched: its moves, the next to try, the best so far.
struct Frame<S, Mv> {
    state: S,
    moves: Vec<Mv>,
    next: usize,
    best: f64,
    best_move: Option<usize>,
}

impl<M: Model> Puzzle<M>
where
    M::State: Hash + Eq,
{
    /// A table of at most `bytes` bytes, counting `per_position` bytes for a position.
    pub fn new(bytes: usize, per_position: usize) -> Puzzle<M> {
        Puzzle {
            table: HashMap::new(),
            capacity: bytes / per_position.max(1),
            looped: false,
        }
    }

    /// Positions solved so far.
    pub fn positions(&self) -> usize {
        self.table.len()
    }

    /// The solution at `state`, if it is solved and its value can be trusted.
    pub fn answer(&self, state: &M::State) -> Option<&Solved<M::Move>> {
        self.table
            .get(state)
            .filter(|s| !self.looped || s.value >= BEST)
    }

    /// Solves `root` for the only role there is; its value (0–1), or why not. Reads
    /// `timer` at every position it expands.
    pub fn solve(
        &mut self,
        model: &M,
        root: &M::State,
        timer: &mut Timer,
    ) -> Result<f64, Unsolved> {
        if let Some(s) = self.answer(root) {
            return Ok(s.value);
        }
        let mut path: HashSet<M::State> = HashSet::new();
        let mut stack: Vec<Frame<M::State, M::Move>> = Vec::new();
        // The value of the position just solved, for its parent on the stack.
        let mut solved = match self.open(model, root.clone(), &mut stack, &mut path)? {
            Some(v) => return Ok(v),
            None => None,
        };
        while let Some(top) = stack.last_mut() {
            if let Some(value) = solved.take()
                && (value > top.best || top.best_move.is_none())
            {
                top.best = value;
                top.best_move = Some(top.next - 1);
            }
            if top.best >= BEST || top.next == top.moves.len() {
                let Some(done) = stack.pop() else { break };
                path.remove(&done.state);
                self.store(
                    done.state,
                    done.best,
                    done.best_move.map(|i| done.moves[i].clone()),
                )?;
                solved = Some(done.best);
                continue;
            }
            if timer.expired() {
                return Err(Unsolved::OutOfTime);
            }
            let mv = top.moves[top.next].clone();
            top.next += 1;
            let child = model.next(&top.state, std::slice::from_ref(&mv));
            if path.contains(&child) {
                self.looped = true;
                continue;
            }
            if let Some(s) = self.table.get(&child) {
                solved = Some(s.value);
                continue;
            }
            if stack.len() >= MAX_DEPTH {
                return Err(Unsolved::TooDeep);
            }
            solved = self.open(model, child, &mut stack, &mut path)?;
        }
        match self.answer(root) {
            Some(s) => Ok(s.value),
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
    ) -> Result<Option<f64>, Unsolved> {
        match model.expand(&state) {
            Expansion::Over(rewards) => {
                let value = rewards.first().copied().unwrap_or(0.0);
                self.store(state, value, None)?;
                Ok(Some(value))
            }
            Expansion::Moves(mut legal) => {
                if legal.len() != 1 {
                    return Err(Unsolved::NotSinglePlayer);
                }
                path.insert(state.clone());
                stack.push(Frame {
                    state,
                    moves: legal.pop().unwrap_or_default(),
                    next: 0,
                    best: 0.0,
                    best_move: None,
                });
                Ok(None)
            }
        }
    }

    fn store(
        &mut self,
        state: M::State,
        value: f64,
        best: Option<M::Move>,
    ) -> Result<(), Unsolved> {
        if self.table.len() >= self.capacity {
            return Err(Unsolved::TooLarge);
        }
        self.table.insert(state, Solved { value, best });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::super::tests::game;
    use super::*;
    use crate::gdl::Gdl;

    fn puzzle(bytes: usize) -> Puzzle<Arc<Gdl>> {
        Puzzle::new(bytes, 100)
    }

    #[test]
    fn lamps_is_solved_and_its_solution_lights_them_all() {
        let gdl = game("lamps.gdl");
        let mut p = puzzle(1 << 20);
        let start = gdl.initial_state();
        let mut timer = Timer::new(None, None, 1);
        assert_eq!(p.solve(&gdl, &start, &mut timer), Ok(1.0));
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
    fn a_puzzle_too_large_or_out_of_time_or_for_two_is_not_solved() {
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
        assert_eq!(p.solve(&gdl, &start, &mut timer), Ok(1.0));
        let ttt = game("tictactoe.gdl");
        assert_eq!(
            puzzle(1 << 20).solve(&ttt, &ttt.initial_state(), &mut timer),
            Err(Unsolved::NotSinglePlayer)
        );
    }
}
