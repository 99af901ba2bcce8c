//! A match played by a game's own engine: the rules recognised by the game
//! ([`GgpRules`]), the position, our seat, the clocks and the agent. Any registered game.
//!
//! The controller is the referee: each PLAY and STOP carries the previous joint move, and
//! the session applies it (our own move included: a controller substitutes a move when a
//! reply is late or illegal, so the message, not our reply, says what was played).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing::{error, warn};

use super::session::{
    Fallback, JointMoveError, MatchInfo, MatchSession, MatchState, Ponder, Reply, StartError,
};
use crate::agent::{Agent, AgentConfig, AgentKind};
use crate::game::{self, Game, MoveBuffer, Outcome};
use crate::search::{BestSoFar, Limits, quick_move};
use crate::sexpr::Sexpr;
use crate::spec::GameSpec;
use crate::spec::ggp::GgpRules;
use crate::web::observe::{SearchFigures, Snapshot};

/// What the player should do on a PLAY, once the joint move is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Our move: search this position.
    Ours,
    /// The opponent's move: reply `noop`.
    Theirs,
    /// The game is over in our model (a PLAY should not have come): reply `noop`.
    Over,
    /// The position is unknown: reply `noop`.
    Broken,
}

pub struct EngineSession<G: Game> {
    info: MatchInfo,
    /// 0 if we move first, 1 otherwise.
    seat: usize,
    rules: Arc<dyn GgpRules<Game = G>>,
    position: G,
    /// Shared with the search thread while it searches for this match.
    agent: Arc<Mutex<Agent<G>>>,
    /// The agent's name for the log.
    agent_name: String,
    /// Whether the agent searches (so that pondering helps it).
    searches: bool,
    /// Whether the agent keeps an MCTS tree across moves (which leaves nodes to free).
    grows_tree: bool,
    /// Hashes of the positions played (games whose positions repeat).
    earlier: Vec<u64>,
    /// The game's registered name.
    game: &'static str,
    /// Where a move search leaves its figures for [`MatchSession::take_figures`].
    figures: Arc<Mutex<Option<SearchFigures>>>,
}

impl<G: Game> EngineSession<G> {
    /// A new match of game `S` played by its engine under `rules`, where we play `role`
    /// (compared without regard to case).
    pub fn new<S: GameSpec<Game = G>>(
        match_id: &str,
        role: &str,
        rules: Arc<dyn GgpRules<Game = G>>,
        play_clock: Duration,
        agent: AgentConfig,
    ) -> Result<EngineSession<G>, StartError> {
        let index = rules
            .roles()
            .iter()
            .position(|r| r.eq_ignore_ascii_case(role));
        let seat = index.and_then(|i| rules.seats().iter().position(|&s| s == i));
        let Some(seat) = seat else {
            return Err(StartError::UnknownRole {
                role: role.to_owned(),
                roles: rules.roles().join(", "),
            });
        };
        Ok(EngineSession {
            info: MatchInfo::new(match_id, role, play_clock),
            seat,
            position: rules.start(),
            rules,
            agent: Arc::new(Mutex::new(Agent::new::<S>(agent))),
            agent_name: agent.to_string(),
            searches: agent.kind == AgentKind::Alphabeta,
            grows_tree: agent.kind == AgentKind::Mcts,
            earlier: Vec::new(),
            game: S::NAME,
            figures: Arc::default(),
        })
    }

    /// Our seat: 0 if we move first.
    pub fn seat(&self) -> usize {
        self.seat
    }

    pub fn position(&self) -> &G {
        &self.position
    }

    /// The seat to move (every move, a pass too, hands the turn over).
    fn seat_to_move(&self) -> usize {
        self.info.plies as usize % 2
    }

    /// The move of the side to move in `moves`, checked: the other role must play noop.
    fn joint_move(&self, moves: &[Sexpr]) -> Result<G::Move, JointMoveError> {
        let roles = self.rules.roles();
        if moves.len() != roles.len() {
            return Err(JointMoveError::WrongCount {
                expected: roles.len(),
                got: moves.len(),
            });
        }
        if self.is_over() {
            return Err(JointMoveError::AfterTheEnd);
        }
        let seats = self.rules.seats();
        let mover = seats[self.seat_to_move()];
        let idle = seats[1 - self.seat_to_move()];
        if !self.rules.is_noop(&moves[idle]) {
            return Err(JointMoveError::NotNoop {
                mover: roles[mover].clone(),
                idle: roles[idle].clone(),
                term: moves[idle].to_string(),
                noop: self.rules.noop().to_owned(),
            });
        }
        self.rules
            .parse_move(&self.position, &moves[mover])
            .map_err(JointMoveError::Move)
    }

    /// Whether the game is over in our model.
    pub fn is_over(&self) -> bool {
        game::result(&self.position).is_some()
    }

    pub fn turn(&self) -> Turn {
        if self.info.state != MatchState::Active {
            Turn::Broken
        } else if self.is_over() {
            Turn::Over
        } else if self.seat_to_move() == self.seat {
            Turn::Ours
        } else {
            Turn::Theirs
        }
    }

    /// The reply text of `m`, a move of the side to move, in the rules' spelling.
    pub fn reply_text(&self, m: G::Move) -> String {
        self.rules.move_term(&self.position, m).to_string()
    }

    /// Goals by seat (100 win, 50 draw, 0 loss) once the game is over in our model.
    pub fn goals(&self) -> Option<[u8; 2]> {
        if self.info.state != MatchState::Active {
            return None;
        }
        let mover = self.seat_to_move();
        let [to_move, other] = match game::result(&self.position)? {
            Outcome::Win => [100, 0],
            Outcome::Draw => [50, 50],
            Outcome::Loss => [0, 100],
        };
        let mut goals = [0; 2];
        goals[mover] = to_move;
        goals[1 - mover] = other;
        Some(goals)
    }

    /// Our move, searched within `limits`: the agent's if it is legal, else (with an error
    /// logged) the quick move. A move search (`record`) leaves its figures in `figures`,
    /// and publishes its best move so far in `best`.
    fn search(
        &self,
        record: bool,
        best: Option<Arc<BestSoFar>>,
    ) -> impl FnOnce(&Limits) -> String + Send + 'static {
        let figures = record.then(|| self.figures.clone());
        let position = self.position.clone();
        let agent = self.agent.clone();
        let rules = self.rules.clone();
        let earlier = self.earlier.clone();
        let match_id = self.info.match_id.clone();
        move |limits| {
            let published;
            let limits = match best {
                Some(best) => {
                    published = limits.clone().with_best(best);
                    &published
                }
                None => limits,
            };
            let choice = {
                let mut agent = agent.lock().unwrap_or_else(|e| e.into_inner());
                agent.choose(&position, limits, &earlier)
            };
            if let (Some(slot), Some(found)) = (
                &figures,
                choice
                    .as_ref()
                    .and_then(|c| SearchFigures::of_choice(&position, c)),
            ) {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(found);
            }
            let mut legal = G::MoveList::default();
            position.generate_moves(&mut legal);
            let mv = match choice {
                Some(c) if legal.as_slice().contains(&c.mv) => Some(c.mv),
                Some(c) => {
                    error!(match_id, mv = ?c.mv, "the agent chose an illegal move: playing a quick legal move");
                    quick_move(&position)
                }
                None => {
                    error!(
                        match_id,
                        "the agent found no move: playing a quick legal move"
                    );
                    quick_move(&position)
                }
            };
            match mv {
                Some(m) => rules.move_term(&position, m).to_string(),
                // Unreachable: a search is only asked for when a legal move exists.
                None => rules.noop().to_owned(),
            }
        }
    }
}

impl<G: Game> MatchSession for EngineSession<G> {
    fn info(&self) -> &MatchInfo {
        &self.info
    }

    fn info_mut(&mut self) -> &mut MatchInfo {
        &mut self.info
    }

    fn model(&self) -> &'static str {
        "engine"
    }

    fn agent(&self) -> String {
        self.agent_name.clone()
    }

    fn step(&mut self, moves: &[Sexpr]) -> Result<(), JointMoveError> {
        let mv = self.joint_move(moves)?;
        if G::REPEATS {
            self.earlier.push(self.position.hash());
        }
        self.position.make(mv);
        Ok(())
    }

    fn reply(&mut self) -> Reply {
        let noop = self.rules.noop().to_owned();
        match self.turn() {
            Turn::Ours => {
                let quick =
                    quick_move(&self.position).map_or_else(|| noop.clone(), |m| self.reply_text(m));
                let best = Arc::new(BestSoFar::default());
                let (position, rules) = (self.position.clone(), self.rules.clone());
                let published = Arc::clone(&best);
                let fallback = Fallback::or_published(quick, move || {
                    let (m, depth) = published.get(&position)?;
                    Some((rules.move_term(&position, m).to_string(), depth))
                });
                Reply::Search {
                    fallback,
                    search: Box::new(self.search(true, Some(best))),
                }
            }
            Turn::Theirs => Reply::Wait(noop),
            Turn::Over => {
                warn!(
                    match_id = self.info.match_id,
                    "PLAY after the end of the game in our model: replying noop"
                );
                Reply::Now(noop)
            }
            Turn::Broken => {
                if let MatchState::Broken(why) = &self.info.state {
                    warn!(match_id = self.info.match_id, broken_by = %why, "PLAY in a broken match: replying noop");
                }
                Reply::Now(noop)
            }
        }
    }

    fn ponder(&mut self) -> Option<Ponder> {
        if !self.searches || self.info.state != MatchState::Active || self.is_over() {
            return None;
        }
        let search = self.search(false, None);
        Some(Box::new(move |limits| drop(search(limits))))
    }

    fn tidy(&mut self) -> Option<Ponder> {
        if !self.grows_tree {
            return None;
        }
        let agent = Arc::clone(&self.agent);
        Some(Box::new(move |limits| {
            let mut agent = agent.lock().unwrap_or_else(|e| e.into_inner());
            agent.free_dropped(limits.stop.as_deref());
        }))
    }

    fn noop(&self) -> String {
        self.rules.noop().to_owned()
    }

    fn goals(&self) -> Option<Vec<Option<u32>>> {
        let by_seat = self.goals()?;
        let mut by_role = vec![None; self.rules.roles().len()];
        for (seat, &role) in self.rules.seats().iter().enumerate() {
            by_role[role] = Some(u32::from(by_seat[seat]));
        }
        Some(by_role)
    }

    fn our_role_index(&self) -> usize {
        self.rules.seats()[self.seat]
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            game: self.game,
            roles: self.rules.roles().to_vec(),
            us: self.our_role_index(),
            board: self.position.to_string(),
            plies: self.info.plies,
            goals: MatchSession::goals(self),
            broken: self.broken(),
            to_move: MatchSession::goals(self)
                .is_none()
                .then(|| self.rules.seats()[self.seat_to_move()])
                .into_iter()
                .collect(),
            grid_axes: Vec::new(),
        }
    }

    fn take_figures(&mut self) -> Option<SearchFigures> {
        self.figures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}
