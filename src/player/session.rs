//! One match as the player sees it, whatever the game: a [`MatchSession`] trait object,
//! played by a game's engine ([`super::engine`]) or by the reasoner
//! ([`super::general`]); [`super::start`] decides which at START.

use std::time::Duration;

use crate::gdl::GdlError;
use crate::search::Limits;
use crate::sexpr::Sexpr;
use crate::web::observe::{SearchFigures, Snapshot};

/// Whether the session's position follows the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchState {
    Active,
    /// A joint move could not be applied: the position is unknown from then on.
    Broken(String),
}

/// Why a START cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// Neither a game the engines recognise nor rules the reasoner can play.
    #[error("the rules cannot be played: {0}")]
    Gdl(#[from] GdlError),
    #[error("role '{role}' is not one of the rules' roles ({roles})")]
    UnknownRole {
        role: String,
        /// The roles, separated by ", ".
        roles: String,
    },
}

/// Why a joint move could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JointMoveError {
    #[error("expected a joint move of {expected} moves (one per role), got {got}")]
    WrongCount { expected: usize, got: usize },
    #[error("it was {mover}'s turn, but {idle} played '{term}' instead of {noop}")]
    NotNoop {
        mover: String,
        idle: String,
        term: String,
        noop: String,
    },
    /// The mover's term is not one of its moves (the game's own words).
    #[error("{0}")]
    Move(String),
    #[error("{role} played '{term}', which is not legal: {reason}")]
    NotLegal {
        role: String,
        term: String,
        reason: String,
    },
    #[error("a joint move arrived after the end of the game")]
    AfterTheEnd,
}

/// A search that prepares a match's next move (filling its table or tree); it keeps the
/// limits it is given.
pub type Ponder = Box<dyn FnOnce(&Limits) + Send>;

/// What to answer a PLAY with, once its joint move is applied.
pub enum Reply {
    /// Known at once: our only legal move, the random agent's move, or `noop` when the
    /// position is unknown or the game is over.
    Now(String),
    /// The opponent's turn: this (`noop`, or our only legal move); the player may ponder
    /// meanwhile.
    Wait(String),
    /// Our move, to be searched (off the async runtime) within the limits it is given;
    /// `fallback` gives the answer if no result comes in time.
    Search {
        fallback: Fallback,
        search: Box<dyn FnOnce(&Limits) -> String + Send>,
    },
}

/// What to answer when the search gives no result in time: the best move it has
/// published so far, else a legal move chosen without search.
pub struct Fallback {
    quick: String,
    published: Option<Published>,
}

/// Reads the search's best move so far: its text and the depth it was searched to (none
/// for a tree search's choice).
type Published = Box<dyn FnOnce() -> Option<(String, Option<u32>)> + Send>;

impl Fallback {
    /// Only `quick`: the search publishes nothing.
    pub fn quick(quick: String) -> Fallback {
        Fallback {
            quick,
            published: None,
        }
    }

    /// `quick`, unless `published` gives the search's best move so far (with its depth,
    /// where it has one).
    pub fn or_published(
        quick: String,
        published: impl FnOnce() -> Option<(String, Option<u32>)> + Send + 'static,
    ) -> Fallback {
        Fallback {
            quick,
            published: Some(Box::new(published)),
        }
    }

    /// The answer: the published move, or the quick one.
    pub fn answer(self) -> Answer {
        match self.published.and_then(|p| p()) {
            Some((text, depth)) => Answer::Published { text, depth },
            None => Answer::Quick(self.quick),
        }
    }
}

/// A [`Fallback`]'s answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The search's best move so far, and the depth it was searched to (none for a tree
    /// search's choice).
    Published { text: String, depth: Option<u32> },
    /// A legal move chosen without search.
    Quick(String),
}

/// What every session knows of its match, whoever plays it.
#[derive(Clone, Debug)]
pub struct MatchInfo {
    pub match_id: String,
    /// Our role, as the START message spells it.
    pub role: String,
    pub play_clock: Duration,
    pub state: MatchState,
    /// Steps played so far.
    pub plies: u32,
}

impl MatchInfo {
    pub fn new(match_id: &str, role: &str, play_clock: Duration) -> MatchInfo {
        MatchInfo {
            match_id: match_id.to_owned(),
            role: role.to_owned(),
            play_clock,
            state: MatchState::Active,
            plies: 0,
        }
    }
}

/// One match in progress, played by a game's engine or by the reasoner.
pub trait MatchSession: Send {
    fn info(&self) -> &MatchInfo;
    fn info_mut(&mut self) -> &mut MatchInfo;
    /// Our role's index among the rules' roles.
    fn our_role_index(&self) -> usize;
    /// Who plays: `engine`, or for the rules `propnet` (the propositional network) or
    /// `reasoner`.
    fn model(&self) -> &'static str;
    /// The agent that chooses our moves, as the log names it: the configured one for an
    /// engine, MCTS (or random) for a game played by its rules, which plays no other.
    fn agent(&self) -> String;
    /// Plays one joint move of a live match, checked against the rules.
    fn step(&mut self, moves: &[Sexpr]) -> Result<(), JointMoveError>;
    /// What to answer the PLAY that brought the position up to date.
    fn reply(&mut self) -> Reply;
    /// A search preparing the next move, if one would help (the game goes on and the
    /// agent searches).
    fn ponder(&mut self) -> Option<Ponder>;
    /// Work left once a move's reply has gone, if any: freeing what the move's search
    /// dropped from its tree, so that the freeing is on no move's clock.
    fn tidy(&mut self) -> Option<Ponder> {
        None
    }
    /// What to do in the start clock before answering START, if anything: work whose
    /// result the first moves need (the general player's look at the game, and its
    /// solution where one is found), run until its limits' deadline or done.
    fn prepare(&mut self) -> Option<Ponder> {
        None
    }
    /// Whether the game is solved from its start (and its moves answered from the
    /// solution where it wins).
    fn solved(&self) -> bool {
        false
    }
    /// How the rules spell the move of a role that waits.
    fn noop(&self) -> String;
    /// Every role's goal once the game is over in our model, in the rules' role order.
    fn goals(&self) -> Option<Vec<Option<u32>>>;
    /// The match as it stands, for an observer.
    fn snapshot(&self) -> Snapshot;
    /// The figures of our last move search, once (none if it left none).
    fn take_figures(&mut self) -> Option<SearchFigures> {
        None
    }

    /// Why the match no longer follows the game, if it does not.
    fn broken(&self) -> Option<String> {
        match &self.info().state {
            MatchState::Active => None,
            MatchState::Broken(why) => Some(why.clone()),
        }
    }

    /// Applies the previous joint move of a PLAY or STOP (`None` for NIL: nothing to do).
    /// On an error the session becomes [`MatchState::Broken`] and stays so, ignoring
    /// further moves; the error is returned for the log.
    fn apply(&mut self, moves: Option<&[Sexpr]>) -> Result<(), JointMoveError> {
        let Some(moves) = moves else {
            return Ok(());
        };
        if self.info().state != MatchState::Active {
            return Ok(());
        }
        match self.step(moves) {
            Ok(()) => {
                self.info_mut().plies += 1;
                Ok(())
            }
            Err(e) => {
                self.info_mut().state = MatchState::Broken(e.to_string());
                Err(e)
            }
        }
    }
}
