//! The start clock's random walks, played once and read by every analysis that needs
//! them: the survey of what kind of game it is ([`super::meta`]) and the detection of
//! informative goal values ([`super::cutoff`]). Each walk records, at every position on
//! its way, how many moves each role had and every role's goal value there, and the
//! rewards at its end.

use super::{Expansion, MAX_PLAYOUT_STEPS, Model, Timer};
use crate::rng::Rng;

/// A position a walk passed through, the game not over there.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    /// Per role: its legal moves.
    pub moves: Vec<usize>,
    /// Per role: its goal value (0–1), `None` where it has none.
    pub goals: Vec<Option<f64>>,
}

/// One uniformly random game.
#[derive(Clone, Debug, PartialEq)]
pub struct Walk {
    /// Its positions before the end, in order: its length is their number.
    pub positions: Vec<Position>,
    /// Every role's reward at its end (or, after [`MAX_PLAYOUT_STEPS`], its goal value
    /// where it stopped, a missing one as 0).
    pub result: Vec<f64>,
}

/// The walks of one game from one position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Walks {
    /// The walks played to their end.
    pub done: Vec<Walk>,
    /// The positions of the walk the clock interrupted, if it did.
    pub cut: Vec<Position>,
    /// The roles, as the positions' moves or the rewards count them.
    pub roles: usize,
}

impl Walks {
    /// Plays `count` uniformly random games of `model` from `root` (fewer if `timer`
    /// runs out first, but at least the root's position is looked at).
    pub fn play<M: Model>(
        model: &M,
        root: &M::State,
        count: u32,
        rng: &mut Rng,
        timer: &mut Timer,
    ) -> Walks {
        let mut walks = Walks::default();
        for _ in 0..count.max(1) {
            let mut state = root.clone();
            let mut positions = Vec::new();
            let mut result = None;
            for _ in 0..MAX_PLAYOUT_STEPS {
                let (legal, goals) = match model.expand_with_goals(&state) {
                    (Expansion::Over(rewards), _) => {
                        result = Some(rewards);
                        break;
                    }
                    (Expansion::Moves(legal), goals) => (legal, goals),
                };
                positions.push(Position {
                    moves: legal.iter().map(Vec::len).collect(),
                    goals,
                });
                walks.roles = walks.roles.max(legal.len());
                if timer.expired() {
                    walks.cut = positions;
                    return walks;
                }
                let joint = super::random_joint(&legal, rng);
                state = model.next(&state, &joint);
            }
            let result = result.unwrap_or_else(|| match model.expand_with_goals(&state) {
                (Expansion::Over(rewards), _) => rewards,
                (Expansion::Moves(_), goals) => goals.iter().map(|g| g.unwrap_or(0.0)).collect(),
            });
            walks.roles = walks.roles.max(result.len());
            walks.done.push(Walk { positions, result });
        }
        walks
    }

    /// Every position looked at, the interrupted walk's too.
    pub fn positions(&self) -> impl Iterator<Item = &Position> {
        self.done.iter().flat_map(|w| &w.positions).chain(&self.cut)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cutoff::{Detection, WALKS};
    use super::super::meta::Survey;
    use super::super::tests::{Counting, game};
    use super::*;

    /// The walks play one step a position they look at, whoever reads them: the survey
    /// and the cut-off's detection read the same walks.
    #[test]
    fn one_set_of_walks_serves_the_survey_and_the_detection() {
        let model = Counting::new(game("reversi_6x6.gdl"));
        let root = model.gdl.initial_state();
        let mut rng = crate::rng::seeded(Some(3));
        let mut timer = Timer::new(None, None, 1);
        let walks = Walks::play(&model, &root, WALKS, &mut rng, &mut timer);
        let (survey, detection) = (Survey::of(&walks), Detection::of(&walks));
        assert_eq!((survey.walks, detection.walks), (WALKS, WALKS));
        assert_eq!(model.steps(), survey.positions, "{survey}");
        assert!(walks.cut.is_empty() && survey.roles == 2, "{survey}");
        // Every walk ends in a result, each of its positions with both roles' goals.
        for walk in &walks.done {
            assert_eq!(walk.result.len(), 2);
            assert!(
                walk.positions
                    .iter()
                    .all(|p| p.goals.iter().all(Option::is_some))
            );
        }
    }

    /// A clock that has run out still looks at the root's position, and keeps it as the
    /// interrupted walk's, which the detection does not read.
    #[test]
    fn out_of_time_the_root_is_still_looked_at() {
        let gdl = game("tictactoe.gdl");
        let stop = std::sync::atomic::AtomicBool::new(true);
        let mut timer = Timer::new(None, Some(&stop), 1);
        let mut rng = crate::rng::seeded(Some(1));
        let walks = Walks::play(&gdl, &gdl.initial_state(), WALKS, &mut rng, &mut timer);
        assert!(walks.done.is_empty(), "{walks:?}");
        assert_eq!(walks.cut.len(), 1);
        assert_eq!(walks.cut[0].moves, vec![9, 1]);
        let survey = Survey::of(&walks);
        assert_eq!((survey.roles, survey.positions, survey.walks), (2, 1, 0));
        assert_eq!(Detection::of(&walks).walks, 0);
    }
}
