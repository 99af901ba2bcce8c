//! Meta-gaming: what kind of game the rules describe, found from the start clock's random
//! walks through it ([`super::walks`]). A single-player game, or a two-player game of
//! moves in turn, may be solved outright ([`super::puzzle`]); in
//! a game where several roles choose at once the MCTS-solver proves nothing.

use std::fmt;

use super::walks::Walks;

/// What the walks found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Survey {
    pub roles: usize,
    /// A position was met where more than one role had a choice.
    pub simultaneous: bool,
    /// Positions looked at.
    pub positions: u64,
    /// Walks played to the end (or to [`super::MAX_PLAYOUT_STEPS`]).
    pub walks: u32,
}

impl Survey {
    /// What kind of game `walks` went through.
    pub fn of(walks: &Walks) -> Survey {
        let mut found = Survey {
            roles: walks.roles,
            simultaneous: false,
            positions: 0,
            walks: walks.done.len() as u32,
        };
        for position in walks.positions() {
            found.positions += 1;
            found.simultaneous |= position.moves.iter().filter(|&&n| n > 1).count() > 1;
        }
        found
    }

    pub fn single_player(&self) -> bool {
        self.roles == 1
    }
}

impl fmt::Display for Survey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.single_player() {
            "a single-player game"
        } else if self.simultaneous {
            "a game of simultaneous moves"
        } else {
            "a game of moves in turn"
        };
        let plural = if self.roles == 1 { "" } else { "s" };
        write!(
            f,
            "{kind} ({} role{plural}; {} walks, {} positions)",
            self.roles, self.walks, self.positions
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_walks;
    use super::*;

    fn kind(file: &str) -> Survey {
        Survey::of(&random_walks(file, 5, 5))
    }

    #[test]
    fn the_survey_tells_puzzles_turns_and_simultaneous_moves_apart() {
        let lamps = kind("lamps.gdl");
        assert!(lamps.single_player() && !lamps.simultaneous, "{lamps:?}");
        assert!(
            lamps
                .to_string()
                .starts_with("a single-player game (1 role;")
        );
        let ttt = kind("tictactoe.gdl");
        assert!(!ttt.single_player() && !ttt.simultaneous, "{ttt:?}");
        assert_eq!((ttt.roles, ttt.walks), (2, 5));
        assert!(ttt.positions >= 5 * 5, "{ttt:?}");
        let rps = kind("rps_well.gdl");
        assert!(rps.simultaneous && rps.roles == 2, "{rps:?}");
        assert!(rps.to_string().starts_with("a game of simultaneous moves"));
    }
}
