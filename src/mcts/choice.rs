//! Which playouts suit a game, found by trying both: a few quick games from the start,
//! a small MCTS with MAST playouts against the same search with uniformly random ones,
//! each side in every seat in turn, a fixed number of iterations a move. MAST wins
//! games where a move keeps its worth from one position to the next (reversi,
//! Breakthrough, pentago) and loses where it does not (connect four, where a column means
//! something else at every height); the quick games tell the two kinds apart. Random
//! playouts are chosen only when they scored more over enough games: MAST stays where
//! the trial has too few games, or is even.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::{Budget, Expansion, MAX_PLAYOUT_STEPS, Mcts, Model, Playouts};

/// Memory of each quick game's trees: they are small, and dropped after the game.
const TRIAL_TREE_BYTES: usize = 8 << 20;

/// How much the trial may play.
#[derive(Clone, Copy, Debug)]
pub struct Trial {
    /// Iterations a move in the quick games.
    pub iterations: u64,
    /// Pairs of games at most (each side in each seat of a pair).
    pub pairs: u32,
    /// Whole pairs needed before random playouts may be chosen: fewer games are too
    /// noisy a judge to leave MAST for.
    pub least_pairs: u32,
}

/// What the trial found, and the playouts it chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// [`Playouts::Mast`] or [`Playouts::Random`].
    pub playouts: Playouts,
    /// Quick games played to the end.
    pub games: u32,
    /// Iterations a move in them.
    pub iterations: u64,
    /// The mean reward (0–1) of the seats MAST played, and of those random playouts did.
    pub mast: f64,
    pub random: f64,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let chosen = match self.playouts {
            Playouts::Random => "random",
            _ => "MAST",
        };
        if self.games == 0 {
            return write!(f, "{chosen} (no time for a trial)");
        }
        // Random playouts that scored more and were not chosen had too few games.
        let few = if self.random > self.mast && self.playouts != Playouts::Random {
            "; too few games to leave MAST"
        } else {
            ""
        };
        write!(
            f,
            "{chosen} (in {} quick games at {} iterations a move, MAST's seats scored {:.0}%, \
             random playouts' {:.0}%{few})",
            self.games,
            self.iterations,
            self.mast * 100.0,
            self.random * 100.0
        )
    }
}

/// The quick games' result between two kinds of playouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duel {
    /// Games counted (whole pairs).
    pub games: u32,
    /// Per side, the mean reward (0–1) of the seats it played.
    pub means: [f64; 2],
}

/// Chooses between MAST and random playouts by the quick games of [`duel`] between
/// them.
pub fn choose<M: Model + Clone>(
    model: &M,
    root: &M::State,
    trial: Trial,
    seed: Option<u64>,
    deadline: Instant,
    stop: &AtomicBool,
) -> Verdict {
    let sides = [Side::from(Playouts::Mast), Side::from(Playouts::Random)];
    let duel = duel(model, root, sides, trial, seed, deadline, stop);
    let [mast, random] = duel.means;
    Verdict {
        playouts: if random > mast && duel.games >= 2 * trial.least_pairs {
            Playouts::Random
        } else {
            Playouts::Mast
        },
        games: duel.games,
        iterations: trial.iterations,
        mast,
        random,
    }
}

/// One side of the quick games: its trees' playouts, and whether their selection reads
/// all-moves statistics ([`super::Mcts::with_rave`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub playouts: Playouts,
    pub rave: bool,
}

impl From<Playouts> for Side {
    fn from(playouts: Playouts) -> Side {
        Side {
            playouts,
            rave: false,
        }
    }
}

/// Plays up to `trial.pairs` pairs of quick games of `model` from `root` (fewer if
/// `deadline` passes or `stop` is raised: a game under way then does not count) between
/// the trees of two `sides`. Tree `k` of game `g` draws its random numbers from
/// `seed + 2g + k`.
pub fn duel<M: Model + Clone>(
    model: &M,
    root: &M::State,
    sides: [Side; 2],
    trial: Trial,
    seed: Option<u64>,
    deadline: Instant,
    stop: &AtomicBool,
) -> Duel {
    // Per side: rewards summed over the seats it played, and seats.
    let mut sums = [0.0; 2];
    let mut seats = [0u32; 2];
    // Games begun (they number the seeds), and games counted (whole pairs).
    let (mut games, mut counted) = (0u32, 0u32);
    'pairs: for _ in 0..trial.pairs {
        let mut pair = ([0.0; 2], [0u32; 2]);
        for first in 0..2 {
            let g = u64::from(games);
            let seed = seed.map(|s| s.wrapping_add(2 * g));
            let end = Game {
                model,
                sides,
                iterations: trial.iterations,
                deadline,
                stop,
            };
            let Some(rewards) = end.play(root, first, seed) else {
                break 'pairs;
            };
            for (role, reward) in rewards.iter().enumerate() {
                let side = side(role, first);
                pair.0[side] += reward;
                pair.1[side] += 1;
            }
            games += 1;
        }
        // Only whole pairs count, so that each side had each seat as often.
        for side in 0..2 {
            sums[side] += pair.0[side];
            seats[side] += pair.1[side];
        }
        counted += 2;
    }
    let mean = |side: usize| match seats[side] {
        0 => 0.0,
        n => sums[side] / f64::from(n),
    };
    Duel {
        games: counted,
        means: [mean(0), mean(1)],
    }
}

/// Which side plays role `role` in a game whose role 0 side `first` plays: the sides
/// take the roles in turn.
fn side(role: usize, first: usize) -> usize {
    (role + first) % 2
}

/// One quick game's limits.
struct Game<'a, M> {
    model: &'a M,
    /// Side 0's trees and side 1's.
    sides: [Side; 2],
    iterations: u64,
    deadline: Instant,
    stop: &'a AtomicBool,
}

impl<M: Model + Clone> Game<'_, M> {
    /// Every role's reward at the end of a game from `root` where side `first` plays role
    /// 0; `None` if time ran out first. A game that has not ended after
    /// [`MAX_PLAYOUT_STEPS`] counts as a draw.
    fn play(&self, root: &M::State, first: usize, seed: Option<u64>) -> Option<Vec<f64>> {
        let tree = |k: u64, side: Side| {
            Mcts::with_memory(
                self.model.clone(),
                seed.map(|s| s.wrapping_add(k)),
                TRIAL_TREE_BYTES,
            )
            .with_playouts(side.playouts)
            .with_rave(side.rave)
        };
        let mut trees = [tree(0, self.sides[0]), tree(1, self.sides[1])];
        let budget = Budget {
            deadline: Some(self.deadline),
            stop: Some(self.stop),
            iterations: Some(self.iterations),
        };
        let mut state = root.clone();
        for _ in 0..MAX_PLAYOUT_STEPS {
            let legal = match self.model.expand(&state) {
                Expansion::Over(rewards) => return Some(rewards),
                Expansion::Moves(legal) => legal,
            };
            let mut joint = Vec::with_capacity(legal.len());
            for (role, moves) in legal.iter().enumerate() {
                let m = match moves.as_slice() {
                    [only] => only.clone(),
                    _ => {
                        trees[side(role, first)]
                            .search_within(&state, role, budget)
                            .best?
                    }
                };
                joint.push(m);
            }
            if self.stop.load(Ordering::Relaxed) || Instant::now() >= self.deadline {
                return None;
            }
            state = self.model.next(&state, &joint);
        }
        Some(vec![0.5; legal_roles(self.model, root)])
    }
}

/// Roles of the game, as the root's legal moves (or rewards) count them.
fn legal_roles<M: Model>(model: &M, root: &M::State) -> usize {
    match model.expand(root) {
        Expansion::Over(rewards) => rewards.len(),
        Expansion::Moves(legal) => legal.len(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::gdl::{Engine, Gdl};

    /// The rules of `file`, played by their propositional network.
    fn game(file: &str) -> Arc<Gdl> {
        let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        Arc::new(Gdl::parse_with(&text, Engine::Propnet).unwrap())
    }

    /// Two pairs of games at 50 iterations a move, random chosen after `least_pairs`.
    fn small(least_pairs: u32) -> Trial {
        Trial {
            iterations: 50,
            pairs: 2,
            least_pairs,
        }
    }

    fn verdict(file: &str, trial: Trial) -> Verdict {
        let gdl = game(file);
        let far = Instant::now() + Duration::from_secs(3600);
        let stop = AtomicBool::new(false);
        choose(&gdl, &gdl.initial_state(), trial, Some(1), far, &stop)
    }

    #[test]
    fn connect_four_gets_random_playouts_and_pentago_mast() {
        let trial = small(2);
        let c4 = verdict("connect_four.gdl", trial);
        assert_eq!((c4.playouts, c4.games), (Playouts::Random, 4), "{c4}");
        assert!(c4.random > c4.mast, "{c4}");
        assert!(
            c4.to_string()
                .starts_with("random (in 4 quick games at 50 iterations")
        );
        let pentago = verdict("pentago.gdl", trial);
        assert_eq!(
            (pentago.playouts, pentago.games),
            (Playouts::Mast, 4),
            "{pentago}"
        );
        assert!(pentago.mast > pentago.random, "{pentago}");
    }

    /// The same games as connect four's verdict above, but fewer than the trial asks for
    /// before it leaves MAST.
    #[test]
    fn random_playouts_that_scored_more_in_too_few_games_leave_mast() {
        let trial = small(3);
        let c4 = verdict("connect_four.gdl", trial);
        assert!(c4.random > c4.mast, "{c4}");
        assert_eq!((c4.playouts, c4.games), (Playouts::Mast, 4), "{c4}");
        assert!(
            c4.to_string().ends_with("; too few games to leave MAST)"),
            "{c4}"
        );
    }

    #[test]
    fn without_time_for_a_pair_of_games_mast_stays() {
        let gdl = game("connect_four.gdl");
        let stop = AtomicBool::new(true);
        let trial = small(2);
        let far = Instant::now() + Duration::from_secs(3600);
        let v = choose(&gdl, &gdl.initial_state(), trial, Some(1), far, &stop);
        assert_eq!((v.playouts, v.games), (Playouts::Mast, 0), "{v}");
        assert_eq!(v.to_string(), "MAST (no time for a trial)");
    }
}
