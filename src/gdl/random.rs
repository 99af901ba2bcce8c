//! One game of uniformly random joint moves to its end: the quickest check that a game's
//! rules can be played at all (`gdl check` prints it).

use rand::seq::IndexedRandom;

use super::Gdl;

/// How a random game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomGame {
    /// Joint moves played.
    pub steps: usize,
    /// Whether it reached a terminal state (else it was stopped after the most steps
    /// asked for).
    pub terminal: bool,
    /// Each role's goal at the end: `None` where the rules give no single number.
    pub goals: Vec<Option<u32>>,
}

impl Gdl {
    /// Plays random joint moves from the initial state until a terminal state or
    /// `max_steps`; an error if a role has no legal move before the end.
    pub fn random_game(
        &self,
        rng: &mut impl rand::Rng,
        max_steps: usize,
    ) -> Result<RandomGame, String> {
        let roles = self.role_names();
        let mut state = self.initial_state();
        let mut steps = 0;
        while !self.is_terminal(&state) && steps < max_steps {
            let mut joint = Vec::with_capacity(roles.len());
            for (role, moves) in roles.iter().zip(self.all_legal_moves(&state)) {
                let m = moves
                    .choose(rng)
                    .ok_or_else(|| format!("{role} has no legal move in a non-terminal state"))?;
                joint.push(m.clone());
            }
            state = self.next_state(&state, &joint);
            steps += 1;
        }
        Ok(RandomGame {
            steps,
            terminal: self.is_terminal(&state),
            goals: self.goals(&state),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_random_game_of_tictactoe_ends_with_goals_for_both() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/tictactoe.gdl"))
                .unwrap();
        let gdl = Gdl::parse(&text).unwrap();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let game = gdl.random_game(&mut rng, 100).unwrap();
        assert!(game.terminal && (5..=9).contains(&game.steps), "{game:?}");
        let goals: Vec<u32> = game.goals.iter().map(|g| g.unwrap()).collect();
        assert!(
            [[100, 0], [0, 100], [50, 50]]
                .iter()
                .any(|g| g[..] == goals[..])
        );
        // Cut short: not terminal.
        assert!(!gdl.random_game(&mut rng, 2).unwrap().terminal);
    }
}
