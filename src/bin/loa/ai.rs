//! The program's AI: the generic alpha-beta search with the `structure` evaluation, on
//! one thread with a node budget from [`Clock`], so that its moves depend only on the
//! position, the game so far and the seed. The clock's guards stop it early only on a
//! machine far slower or busier than planned: the wall time by the search's own
//! deadline, the process's CPU time by [`CpuLimit`]'s watch on a second thread.
//!
//! The seed matters through a small noise added to the evaluation: a hash of the
//! position and the seed, a few points where the evaluation's terms are worth tens to
//! hundreds. It breaks ties and varies play from seed to seed, and the same seed gives
//! the same noise, hence the same moves. Without a `seed` command the seed comes from the
//! operating system, so games vary as the course's program's do.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::clock::Clock;
use ggp_player::game::{Evaluator, Game};
use ggp_player::games::loa::eval::Structure;
use ggp_player::games::loa::{Loa, Move};
use ggp_player::games::side::splitmix;
use ggp_player::search::cpu::{CpuLimit, process_time};
use ggp_player::search::{self, Limits, Options, Table, quick_move};

/// The transposition table: a game's moves search a few hundred thousand nodes at most,
/// and a small table keeps the process light (some graders cap memory).
const HASH_MB: usize = 16;

/// Noise values are below this (a move of mobility is worth 24, see `eval.rs`).
const NOISE: u64 = 8;

/// The `structure` evaluation plus the seed's noise.
struct Seeded {
    seed: u64,
}

impl Evaluator<Loa> for Seeded {
    fn evaluate(&self, p: &Loa) -> i32 {
        Structure.evaluate(p) + noise(p.hash() ^ self.seed) as i32
    }
}

/// A value below [`NOISE`] that any change of `key` stirs up.
fn noise(key: u64) -> u64 {
    splitmix(key) % NOISE
}

/// What [`Ai::choose`] decided.
pub struct Choice {
    pub mv: Move,
    /// A guard stopped the search before its node budget ran out, so the same seed may
    /// choose differently in another run.
    pub cut_short: bool,
}

pub struct Ai {
    seed: u64,
    table: Table,
    clock: Clock,
}

impl Ai {
    pub fn new(seed: u64) -> Ai {
        Ai {
            seed,
            table: Table::new(HASH_MB),
            clock: Clock::default(),
        }
    }

    /// Seeds the AI and forgets what earlier searches learnt, so that play from here on
    /// depends only on the seed and the moves to come.
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.table.clear();
    }

    /// A new game: the whole budget again, and an empty table.
    pub fn new_game(&mut self) {
        self.clock = Clock::default();
        self.table.clear();
    }

    /// A legal move for the side to move of `position`, which must have one;
    /// `ai_moves_left` counts this program's moves still possible in the game.
    pub fn choose(&mut self, position: &Loa, ai_moves_left: u32) -> Choice {
        let plan = self.clock.plan(ai_moves_left);
        let (wall, cpu) = (Instant::now(), process_time());
        let mut limits = Limits::until(wall + plan.wall).with_max_nodes(plan.nodes);
        let cpu_limit = cpu.and_then(|used| CpuLimit::start(used + plan.cpu));
        if let Some(cpu_limit) = &cpu_limit {
            limits = limits.with_stop(cpu_limit.flag());
        }
        let evaluation = Seeded { seed: self.seed };
        let found = search::search_with(
            position,
            &evaluation,
            &limits,
            &self.table,
            &Options::default(),
        );
        let cpu_stopped = cpu_limit
            .as_ref()
            .is_some_and(|limit| limit.flag().load(Ordering::Relaxed));
        drop(cpu_limit);
        let wall_used = wall.elapsed();
        let cut_short = found.nodes < plan.nodes && (cpu_stopped || wall_used >= plan.wall);
        // Without a CPU clock, wall time is an upper bound of one thread's CPU time.
        let cpu_used = cpu
            .zip(process_time())
            .map_or(wall_used, |(before, after)| after.saturating_sub(before));
        self.clock.spent(cpu_used, wall_used);
        let mv = found
            .best_move
            .or_else(|| quick_move(position))
            .expect("the AI is asked only when its side has a move");
        Choice { mv, cut_short }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ggp_player::game::MoveBuffer;
    use ggp_player::games::loa::{DEFAULT_LIMIT, MoveList, NoMove};

    #[test]
    fn the_same_seed_plays_the_same_moves_and_they_are_legal() {
        // The moves up to the first one a guard cut short (none on a machine as fast
        // as planned).
        let play = |seed: u64| {
            let mut ai = Ai::new(seed);
            let mut board = Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT));
            let mut moves = Vec::new();
            for left in (55..=60).rev() {
                let choice = ai.choose(&board, left);
                let mut legal = MoveList::default();
                board.generate_moves(&mut legal);
                assert!(legal.as_slice().contains(&choice.mv));
                if choice.cut_short {
                    break;
                }
                moves.push(board.move_name(choice.mv));
                board.make(choice.mv);
            }
            moves
        };
        let (one, two) = (play(7), play(7));
        let agreed = one.len().min(two.len());
        assert_eq!(one[..agreed], two[..agreed]);
    }

    #[test]
    fn noise_stays_below_its_bound_and_depends_on_the_seed() {
        let keys: Vec<u64> = (0..200).map(noise).collect();
        assert!(keys.iter().all(|&n| n < NOISE));
        let other: Vec<u64> = (0..200).map(|k| noise(k ^ 12345)).collect();
        assert_ne!(keys, other);
    }
}
