//! The two models side by side: random games played with the propositional network
//! and the reasoner answering every query of the same states, which must agree on the
//! legal moves, the next states, the goals and terminality (`gdl compare`, and the
//! differential tests).

use rand::RngExt;

use super::{Gdl, State, Term};
use crate::rng::Rng;

/// Most joint moves of one compared game (a game whose rules never end is cut there).
pub const MAX_COMPARED_STEPS: usize = 1_000;

/// One legal move of each role, chosen at random (every role has one).
pub(super) fn random_joint(legal: &[Vec<Term>], rng: &mut Rng) -> Vec<Term> {
    legal
        .iter()
        .map(|ms| ms[rng.random_range(0..ms.len())].clone())
        .collect()
}

/// What a comparison covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compared {
    pub games: usize,
    /// States whose answers were compared.
    pub states: usize,
    /// Games that reached a terminal state (the others were cut or stuck).
    pub terminal: usize,
}

impl Gdl {
    /// Plays `games` random games, each query answered by this `Gdl`'s model and by the
    /// reasoner alone; the first disagreement, described, is an error.
    pub fn compare_with_reasoner(&self, games: usize, rng: &mut Rng) -> Result<Compared, String> {
        let reasoner = self.reasoner_only();
        let mut out = Compared {
            games,
            ..Compared::default()
        };
        for game in 0..games {
            let mut state = self.initial_state();
            for ply in 0..MAX_COMPARED_STEPS {
                let at = |what: &str, state: &State| {
                    let fluents: Vec<String> =
                        state.fluents().iter().map(|f| self.display(f)).collect();
                    format!(
                        "game {game}, ply {ply}: the models differ on {what} in the state {}",
                        fluents.join(" ")
                    )
                };
                out.states += 1;
                let (a, b) = (self.analyse(&state), reasoner.analyse(&state));
                if a.terminal != b.terminal {
                    return Err(at("terminality", &state));
                }
                if a.goals != b.goals {
                    return Err(at("the goals", &state));
                }
                if a.legal != b.legal {
                    return Err(at("the legal moves", &state));
                }
                if a.terminal {
                    out.terminal += 1;
                    break;
                }
                if a.legal.iter().any(Vec::is_empty) {
                    break;
                }
                let joint = random_joint(&a.legal, rng);
                let next = self.next_state(&state, &joint);
                if next != reasoner.next_state(&state, &joint) {
                    return Err(at("the next state", &state));
                }
                state = next;
            }
        }
        Ok(out)
    }
}
