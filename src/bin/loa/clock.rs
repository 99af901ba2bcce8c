//! The AI's time (`GAMES.md` §3.3, L8-8). The harness waits 10 s for a move and 60 s for
//! all the AI moves of one game (both colours when one program plays both); some graders
//! also cap the process at 10 CPU-seconds. But a script that ends with `auto white` and
//! `auto black` leaves the whole game to the AI after its input ends, and `test-loa`
//! waits only 5 s for the process to exit: a whole game of AI moves must fit well
//! inside that, start-up included, on a loaded machine. So a game's AI moves share a
//! small fixed budget, spread evenly over the AI moves the move limit (60 plies when
//! none is set) still allows.
//!
//! Repeatability (`seed N`: the same seed, the same moves) rules out stopping a search by
//! the clock, which depends on the machine and its load. So each move gets a budget of
//! nodes instead: its share of the game's planned time times a node rate every build we
//! ship exceeds, searched on one thread. The clocks only guard: a move is also cut off
//! once it has used a CPU time or a wall time derived from what the game's AI moves
//! have really used, which happens only on a machine several times slower than planned
//! (CPU) or many times overloaded (wall). Play is then still legal and in time, but no
//! longer repeatable.

use std::time::Duration;

/// CPU time planned for all the AI moves of one game: well inside the 5 s `test-loa`
/// gives a script's process to exit, at the planned node rate, with room for a machine
/// loaded two or three times over.
pub const GAME_PLAN: Duration = Duration::from_secs(2);

/// Nodes a second the plan assumes: under half of what the search does on one core of
/// the development machine in the test build (about 1.2 million a CPU-second over a
/// whole game; release builds are faster still), so that a move's budget takes well
/// under its planned share on a slower grader too.
pub const PLANNED_NODES_PER_SECOND: u64 = 500_000;

/// What the guard lets the AI moves of one game use, CPU time and wall time: with every
/// move's floor, under the 5 s a script's process has to exit.
const GUARD_CPU: Duration = Duration::from_millis(2500);
const GUARD_WALL: Duration = Duration::from_millis(2500);
/// The longest any one move may take.
const MOVE_CAP: Duration = Duration::from_secs(1);
/// A move's guard may be this many times its even share of what is left.
const GUARD_SHARES: u32 = 3;
/// The least time a move is given, so that even an exhausted budget yields a searched move.
const MOVE_FLOOR: Duration = Duration::from_millis(10);
/// The least node budget: a one- or two-ply search at any limit.
const MIN_NODES: u64 = 2_000;

/// What one AI move may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovePlan {
    /// The search's node budget: what makes the move repeatable.
    pub nodes: u64,
    /// The guards: the process's CPU time and the wall time from the move's start after
    /// which the search stops anyway.
    pub cpu: Duration,
    pub wall: Duration,
}

/// The budget of one game's AI moves.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Planned time not yet handed out; moves take an even share of it.
    planned_left: Duration,
    cpu_used: Duration,
    wall_used: Duration,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            planned_left: GAME_PLAN,
            cpu_used: Duration::ZERO,
            wall_used: Duration::ZERO,
        }
    }
}

impl Clock {
    /// The plan of the next AI move, `ai_moves_left` AI moves (this one included) being
    /// still possible before the move limit. A pure function of the moves planned so far
    /// for the node budget; the guard reads what was really used.
    pub fn plan(&mut self, ai_moves_left: u32) -> MovePlan {
        let k = ai_moves_left.max(1);
        let share = self.planned_left / k;
        self.planned_left -= share;
        let nodes = (share.as_secs_f64() * PLANNED_NODES_PER_SECOND as f64) as u64;
        let cpu = guard(GUARD_CPU.saturating_sub(self.cpu_used), k);
        let wall = guard(GUARD_WALL.saturating_sub(self.wall_used), k);
        MovePlan {
            nodes: nodes.max(MIN_NODES),
            cpu,
            wall,
        }
    }

    /// Records what a move really used.
    pub fn spent(&mut self, cpu: Duration, wall: Duration) {
        self.cpu_used += cpu;
        self.wall_used += wall;
    }
}

/// A move's guard when `left` remains for `k` moves: a few even shares, never more than
/// is left nor than [`MOVE_CAP`], never less than [`MOVE_FLOOR`].
fn guard(left: Duration, k: u32) -> Duration {
    (left * GUARD_SHARES / k)
        .min(left)
        .min(MOVE_CAP)
        .max(MOVE_FLOOR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_of_ai_moves_shares_the_plan_evenly_and_the_guard_bounds_the_total() {
        let mut clock = Clock::default();
        let plans: Vec<MovePlan> = (1..=60).rev().map(|left| clock.plan(left)).collect();
        let per_move = GAME_PLAN.as_secs_f64() / 60.0 * PLANNED_NODES_PER_SECOND as f64;
        for p in &plans {
            assert!((p.nodes as f64 - per_move).abs() <= 2.0, "{p:?}");
        }
        let planned: u64 = plans.iter().map(|p| p.nodes).sum();
        let budget = GAME_PLAN.as_secs_f64() * PLANNED_NODES_PER_SECOND as f64;
        assert!(planned as f64 <= budget + 60.0);
        // Moves that always use their whole guards still stay within them (plus the
        // floor).
        let mut clock = Clock::default();
        let (mut cpu, mut wall) = (Duration::ZERO, Duration::ZERO);
        for left in (1..=60).rev() {
            let p = clock.plan(left);
            assert!(p.cpu <= MOVE_CAP && p.wall <= MOVE_CAP);
            clock.spent(p.cpu, p.wall);
            cpu += p.cpu;
            wall += p.wall;
        }
        assert!(cpu <= GUARD_CPU + MOVE_FLOOR * 60, "{cpu:?}");
        assert!(wall <= GUARD_WALL + MOVE_FLOOR * 60, "{wall:?}");
        // A game left whole to the AI, both sides, ends with a second and more to spare
        // of the 5 s test-loa waits for the process to exit.
        assert!(wall <= Duration::from_millis(3100), "{wall:?}");
    }

    #[test]
    fn the_plan_depends_only_on_the_moves_planned_not_on_the_time_used() {
        let (mut fast, mut slow) = (Clock::default(), Clock::default());
        for left in (20..=30).rev() {
            let (a, b) = (fast.plan(left), slow.plan(left));
            assert_eq!(a.nodes, b.nodes);
            fast.spent(Duration::from_millis(10), Duration::from_millis(10));
            slow.spent(Duration::from_millis(500), Duration::from_millis(900));
        }
        let (a, b) = (fast.plan(19), slow.plan(19));
        assert!(b.cpu < a.cpu && b.wall < a.wall);
    }
}
