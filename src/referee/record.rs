//! The record of a finished two-player match: one line of a tournament's results file,
//! whether the match was refereed over GGP or played between in-process agents.

use serde::{Deserialize, Serialize};

use super::dialect::Dialect;
use super::play_clock::PlayClock;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// START was not answered `ready` in time.
    NotReady,
    /// No reply within the play clock plus the grace second.
    Late,
    /// The player could not be reached or the connection broke.
    Unreachable,
    /// The reply was not a move term.
    Garbage,
    /// A move term that is not legal for the player in this position.
    Illegal,
    /// The player not to move answered something other than `noop`.
    NotNoop,
    /// An in-process agent gave no move at all, or a course program no answer.
    NoMove,
    /// A course program used up its CPU time for the whole game.
    OutOfTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Plies played before the faulty reply (0 for START).
    pub ply: u32,
    pub role: String,
    pub kind: FaultKind,
    pub detail: String,
}

/// The record of a finished match, one line of the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    pub id: String,
    /// The condition: the board size as the game writes it, or the rules file's name.
    pub size: String,
    /// The player of the first role (the side that moves first).
    pub white: String,
    /// The player of the second role.
    pub black: String,
    /// The controller imitated; absent for a match between in-process agents, which
    /// exchanges no messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// Seconds given after START (0 in-process, where there is no START).
    pub start_clock: u64,
    /// Seconds per move.
    pub play_clock: PlayClock,
    /// Moves in play order, as the rules write them (`(move x1 y1 x2 y2)`), or in the
    /// game's notation in-process.
    pub moves: Vec<String>,
    pub faults: Vec<Fault>,
    /// Goal values `[white, black]`: 100/0, 0/100 or 50/50.
    pub goals: [u8; 2],
    /// Wall time of the whole match.
    pub duration_ms: u64,
    /// Time the player to move took for each move, in microseconds.
    pub move_us: Vec<u64>,
    /// Median time per ply spent by the referee itself (not waiting for players).
    pub referee_overhead_us: u64,
    /// The rules' roles, white's first (older records lack them: `white`, `black`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// The machine that played the match, when a cluster of them did (`cluster/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
}

impl MatchRecord {
    /// White's score: 1, 0.5 or 0.
    pub fn white_score(&self) -> f64 {
        self.goals[0] as f64 / 100.0
    }

    /// The score (1, 0.5 or 0) of the player called `name`, if it played this match.
    pub fn score_of(&self, name: &str) -> Option<f64> {
        if self.white == name {
            Some(self.white_score())
        } else if self.black == name {
            Some(1.0 - self.white_score())
        } else {
            None
        }
    }

    /// The score of `a` if this was a game between `a` and `b`.
    pub fn score_between(&self, a: &str, b: &str) -> Option<f64> {
        let pair = (self.white == a && self.black == b) || (self.white == b && self.black == a);
        if pair { self.score_of(a) } else { None }
    }

    /// How many faults the player called `name` committed in this match.
    pub fn faults_of(&self, name: &str) -> usize {
        let first = self.role_names()[0];
        self.faults
            .iter()
            .filter(|f| {
                let white = f.role.eq_ignore_ascii_case(first);
                if white {
                    self.white == name
                } else {
                    self.black == name
                }
            })
            .count()
    }

    /// The two roles' names (`white` and `black` in records older than the field).
    pub fn role_names(&self) -> [&str; 2] {
        match self.roles.as_slice() {
            [first, second, ..] => [first, second],
            _ => ["white", "black"],
        }
    }

    /// `white wins`, `black wins` or `draw`, with the rules' names for the roles.
    pub fn verdict(&self) -> String {
        let [first, second] = self.role_names();
        match self.goals {
            [100, 0] => format!("{first} wins"),
            [0, 100] => format!("{second} wins"),
            _ => "draw".to_owned(),
        }
    }
}
