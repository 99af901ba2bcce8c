//! One match as the player sees it: the rules' terms, the position, our colour, the clocks,
//! the agent, and whether the position can still be trusted. [`open`] decides at START
//! whether the engine plays the match (a [`Session`]) or the reasoner does (a
//! [`GeneralSession`]).
//!
//! The controller is the referee: each PLAY and STOP carries the previous joint move, and
//! the session applies it (our own move included: a controller substitutes a move when a
//! reply is late or illegal, so the message, not our reply, says what was played).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::{info, warn};

use super::general::GeneralSession;
use crate::agent::{Agent, AgentConfig};
use crate::game::Game;
use crate::games::breakthrough::spec::Breakthrough;
use crate::games::breakthrough::terms::{MoveError, RulesError, Terms};
use crate::games::breakthrough::verify;
use crate::games::breakthrough::{Board, Color, Move, MoveList};
use crate::gdl::{Gdl, GdlError};
use crate::sexpr::Sexpr;

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
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// Neither Breakthrough nor rules the reasoner can play.
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
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("{role} played '{term}', which is not legal: {reason}")]
    NotLegal {
        role: String,
        term: String,
        reason: String,
    },
    #[error("a joint move arrived after the end of the game")]
    AfterTheEnd,
}

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

pub struct Session {
    pub match_id: String,
    /// Our role, as the START message spells it.
    pub role: String,
    pub color: Color,
    pub terms: Arc<Terms>,
    pub board: Board,
    pub start_clock: Duration,
    pub play_clock: Duration,
    pub state: MatchState,
    /// Shared with the search thread while it searches for this match.
    pub agent: Arc<Mutex<Agent<Board>>>,
    /// Plies played so far.
    pub plies: u32,
    /// When the last message about this match arrived.
    pub last_seen: Instant,
}

impl Session {
    /// A new match played by the engine from a START message's contents (see [`open`]
    /// for the choice between engine and reasoner).
    pub fn new(
        match_id: &str,
        role: &str,
        rules: &[Sexpr],
        start_clock: Duration,
        play_clock: Duration,
        agent: AgentConfig,
    ) -> Result<Session, StartError> {
        let gdl = Gdl::from_sexprs(rules);
        let terms = rules_terms(match_id, rules, &gdl)?;
        Session::with_terms(match_id, role, terms, start_clock, play_clock, agent)
    }

    /// A new match played by the engine with rules already read into `terms`.
    fn with_terms(
        match_id: &str,
        role: &str,
        terms: Terms,
        start_clock: Duration,
        play_clock: Duration,
        agent: AgentConfig,
    ) -> Result<Session, StartError> {
        let color = terms
            .color_of(role)
            .ok_or_else(|| StartError::UnknownRole {
                role: role.to_owned(),
                roles: terms.roles.join(", "),
            })?;
        Ok(Session {
            match_id: match_id.to_owned(),
            role: role.to_owned(),
            color,
            board: Board::with_variant(terms.size, terms.variant),
            terms: Arc::new(terms),
            start_clock,
            play_clock,
            state: MatchState::Active,
            agent: Arc::new(Mutex::new(Agent::new::<Breakthrough>(agent))),
            plies: 0,
            last_seen: Instant::now(),
        })
    }

    /// Applies the previous joint move of a PLAY or STOP (`None` for NIL: nothing to do).
    ///
    /// On an error the session becomes [`MatchState::Broken`] and stays so; the error is
    /// returned for the log. A broken session ignores further moves.
    pub fn apply(&mut self, moves: Option<&[Sexpr]>) -> Result<(), JointMoveError> {
        let Some(moves) = moves else {
            return Ok(());
        };
        if self.state != MatchState::Active {
            return Ok(());
        }
        match self.joint_move(moves).map(|mv| self.board.make(mv)) {
            Ok(()) => {
                self.plies += 1;
                Ok(())
            }
            Err(e) => {
                self.state = MatchState::Broken(e.to_string());
                Err(e)
            }
        }
    }

    /// The move of the side to move in `moves`, checked: the other role must play noop.
    fn joint_move(&self, moves: &[Sexpr]) -> Result<Move, JointMoveError> {
        if moves.len() != 2 {
            return Err(JointMoveError::WrongCount {
                expected: 2,
                got: moves.len(),
            });
        }
        let [white, black] = self.terms.role_index.map(|i| &moves[i]);
        if self.is_over() {
            return Err(JointMoveError::AfterTheEnd);
        }
        let mover = self.board.side_to_move();
        let (mover_term, idle_term) = match mover {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        if !self.terms.is_noop(idle_term) {
            return Err(JointMoveError::NotNoop {
                mover: self.terms.role(mover).to_owned(),
                idle: self.terms.role(mover.other()).to_owned(),
                term: idle_term.to_string(),
                noop: self.terms.noop().to_owned(),
            });
        }
        Ok(self.terms.parse_move(&self.board, mover_term)?)
    }

    /// Whether a search of `board` means anything: the game goes on and the position is
    /// known.
    pub fn ponderable(&self) -> bool {
        self.state == MatchState::Active && !self.is_over()
    }

    /// Whether the game is over in our model (a goal row reached, or no legal move).
    pub fn is_over(&self) -> bool {
        self.board.winner().is_some() || !self.board.has_moves()
    }

    pub fn turn(&self) -> Turn {
        if self.state != MatchState::Active {
            Turn::Broken
        } else if self.is_over() {
            Turn::Over
        } else if self.is_our_turn() {
            Turn::Ours
        } else {
            Turn::Theirs
        }
    }

    fn is_our_turn(&self) -> bool {
        self.board.side_to_move() == self.color
    }

    /// The reply text of `mv`, a move of the side to move, in the rules' spelling.
    pub fn reply_text(&self, mv: Move) -> String {
        self.terms.move_term(&self.board, mv).to_string()
    }

    /// Goals `[white, black]` once the game is over in our model.
    pub fn goals(&self) -> Option<[u8; 2]> {
        match self.state {
            MatchState::Active => self.board.goals(),
            MatchState::Broken(_) => None,
        }
    }
}

/// A match just started: played by the engine or by the reasoner.
pub enum Opened {
    Engine(Session),
    General(GeneralSession),
}

/// A new match from a START message's contents: the engine plays Breakthrough rules the
/// reasoner confirms it models ([`verify::verify`]) — or that the reasoner cannot
/// compile —, the reasoner plays anything else it can compile: other Breakthrough rules
/// (the course's size-10 defect) and other games.
pub fn open(
    match_id: &str,
    role: &str,
    rules: &[Sexpr],
    start_clock: Duration,
    play_clock: Duration,
    agent: AgentConfig,
) -> Result<Opened, StartError> {
    let started = Instant::now();
    let compiled = Gdl::from_sexprs(rules);
    let general =
        |gdl: Gdl| GeneralSession::new(match_id, role, gdl, play_clock, agent).map(Opened::General);
    let engine = |terms: Terms| {
        Session::with_terms(match_id, role, terms, start_clock, play_clock, agent)
            .map(Opened::Engine)
    };
    let terms = match rules_terms(match_id, rules, &compiled) {
        Ok(terms) => terms,
        Err(not_breakthrough) => {
            let gdl = compiled?;
            info!(
                match_id,
                "not the Breakthrough the engine plays ({not_breakthrough}): playing by the reasoner"
            );
            return general(gdl);
        }
    };
    let gdl = match compiled {
        Ok(gdl) => gdl,
        Err(e) => {
            warn!(
                match_id,
                error = %e,
                "the reasoner cannot compile the rules: playing with the bitboard engine unverified"
            );
            return engine(terms);
        }
    };
    let verified = verify::verify(&terms, &gdl);
    let verify_ms = started.elapsed().as_secs_f64() * 1e3;
    match verified {
        Ok(()) => {
            info!(
                match_id,
                verify_ms,
                variant = %terms.variant,
                "the engine agrees with the reasoner on the rules: playing with the bitboard engine"
            );
            engine(terms)
        }
        Err(why) => {
            info!(
                match_id,
                verify_ms, "rules differ from the engine's model ({why}): playing by the reasoner"
            );
            general(gdl)
        }
    }
}

/// The terms of the rules: recognised by the reasoner whatever the symbols are called,
/// else read from the course rules' `(width W)`/`(height H)` facts and symbols (for the
/// reasoner fallback, or when the reasoner cannot compile the rules).
fn rules_terms(
    match_id: &str,
    rules: &[Sexpr],
    gdl: &Result<Gdl, GdlError>,
) -> Result<Terms, RulesError> {
    let Ok(gdl) = gdl else {
        return Terms::from_rules(rules);
    };
    let started = Instant::now();
    let recognised = Terms::recognise(gdl);
    let ms = started.elapsed().as_secs_f64() * 1e3;
    match recognised {
        Ok(terms) => {
            info!(match_id, recognise_ms = ms, terms = %terms, "rules recognised as Breakthrough");
            Ok(terms)
        }
        Err(why) => {
            info!(match_id, recognise_ms = ms, reason = %why, "rules not recognised as Breakthrough");
            Terms::from_rules(rules).map_err(|facts| RulesError::Unrecognised {
                structure: why.to_string(),
                facts: facts.to_string(),
            })
        }
    }
}

/// A legal move found without searching: a winning move, else the most promising by
/// the game's own ordering hint (captures, advanced squares). `None` without legal moves.
pub fn quick_move(board: &Board) -> Option<Move> {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    list.iter().max_by_key(|&m| board.move_priority(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The course rules for a board (in our course-style form), upper-cased as Dresden
    /// sends them if `upper`.
    fn course_rules(w: u32, h: u32, upper: bool) -> Vec<Sexpr> {
        let template = crate::games::breakthrough::gdl::course_style_template();
        let mut text = format!("(width {w}) (height {h}) {template}");
        if upper {
            text = text.to_ascii_uppercase();
        }
        Sexpr::parse_all(&text).unwrap()
    }

    fn session(role: &str, w: u32, h: u32, upper: bool) -> Session {
        let clock = Duration::from_secs(1);
        let rules = course_rules(w, h, upper);
        Session::new("m", role, &rules, clock, clock, AgentConfig::default()).unwrap()
    }

    fn moves(text: &str) -> Vec<Sexpr> {
        Sexpr::parse(text).unwrap().as_list().unwrap().to_vec()
    }

    #[test]
    fn follows_a_match() {
        let mut s = session("black", 3, 5, false);
        assert_eq!(s.color, Color::Black);
        s.apply(None).unwrap();
        assert_eq!(s.turn(), Turn::Theirs);
        s.apply(Some(&moves("((move 2 2 2 3) noop)"))).unwrap();
        assert_eq!(s.turn(), Turn::Ours);
        let mv = quick_move(&s.board).unwrap();
        assert!(s.reply_text(mv).starts_with("(move "));
        s.apply(Some(&moves("(NOOP (MOVE 1 4 2 3))"))).unwrap();
        assert_eq!(s.plies, 2);
        assert_eq!(s.turn(), Turn::Theirs);
        assert_eq!(s.goals(), None);
        assert_eq!(s.state, MatchState::Active);
    }

    #[test]
    fn upper_case_rules_give_upper_case_replies() {
        let s = session("WHITE", 5, 5, true);
        assert_eq!(s.color, Color::White);
        assert_eq!(s.turn(), Turn::Ours);
        let mv = s.board.find_move(1, 2, 1, 3).unwrap();
        assert_eq!(s.reply_text(mv), "(MOVE 1 2 1 3)");
    }

    #[test]
    fn bad_joint_moves_break_the_session() {
        for bad in [
            "((move 2 2 2 3))",
            "((move 2 2 2 3) noop noop)",
            "(noop (move 2 4 2 3))",
            "((move 2 2 2 3) (move 2 4 2 3))",
            "((move 2 2 2 4) noop)",
            "((move 2 2) noop)",
        ] {
            let mut s = session("white", 3, 5, false);
            let e = s.apply(Some(&moves(bad))).unwrap_err();
            assert!(!e.to_string().is_empty());
            assert!(matches!(s.state, MatchState::Broken(_)), "{bad}");
            assert_eq!(s.turn(), Turn::Broken);
            // Broken stays broken, quietly.
            s.apply(Some(&moves("((move 2 2 2 3) noop)"))).unwrap();
            assert_eq!(s.turn(), Turn::Broken);
            assert_eq!(s.goals(), None);
        }
    }

    fn open_course(role: &str, w: u32, h: u32, upper: bool) -> Opened {
        let rules = course_rules(w, h, upper);
        let d = Duration::from_secs(1);
        open("m", role, &rules, d, d, AgentConfig::default()).unwrap()
    }

    #[test]
    fn verified_rules_play_with_the_engine_and_the_size_10_defect_with_the_reasoner() {
        let engine = |o: &Opened| matches!(o, Opened::Engine(_));
        assert!(engine(&open_course("white", 8, 8, false)));
        assert!(engine(&open_course("BLACK", 5, 5, true)));
        assert!(!engine(&open_course("white", 10, 10, false)));
        assert!(!engine(&open_course("black", 6, 10, false)));
        let ours = crate::games::breakthrough::gdl::breakthrough_rules("10x10".parse().unwrap());
        let rules = Sexpr::parse_all(&ours).unwrap();
        let d = Duration::from_secs(1);
        let o = open("m", "black", &rules, d, d, AgentConfig::default()).unwrap();
        assert!(engine(&o));
    }

    #[test]
    fn the_course_10x10_rules_are_followed_by_the_reasoner() {
        let Opened::General(mut s) = open_course("black", 10, 10, false) else {
            panic!("the size-10 defect must be played by the reasoner");
        };
        assert_eq!(s.us, 1);
        // Column 1 and row 1 do not exist in the course's 10x10 rules.
        let Opened::General(mut bad) = open_course("black", 10, 10, false) else {
            unreachable!()
        };
        let e = bad
            .apply(Some(&moves("((move 1 2 1 3) noop)")))
            .unwrap_err();
        assert!(matches!(e, JointMoveError::NotLegal { .. }), "{e}");
        s.apply(Some(&moves("((move 2 2 2 3) noop)"))).unwrap();
        let super::super::general::Reply::Search(search) = s.reply() else {
            panic!("black has moves");
        };
        let reply = search.run("m", Instant::now() + Duration::from_millis(200));
        assert!(reply.starts_with("(move "), "{reply}");
        assert!(!reply.starts_with("(move 1 "), "{reply}");
        s.apply(Some(&[Sexpr::atom("noop"), Sexpr::parse(&reply).unwrap()]))
            .unwrap();
        assert_eq!(s.plies, 2);
        assert_eq!(s.goals(), None);
    }

    #[test]
    fn rules_that_cannot_be_played_are_refused_clearly() {
        let d = Duration::from_secs(1);
        let try_open = |text: &str, role: &str| {
            let rules = Sexpr::parse_all(text).unwrap();
            open("m", role, &rules, d, d, AgentConfig::default())
                .err()
                .expect("refused")
                .to_string()
        };
        let e = try_open("(init (x 1)) (<= terminal (true (x 1)))", "white");
        assert!(e.contains("role"), "{e}");
        let e = try_open("(role a) (<= (legal ?r go) (role ?s))", "a");
        assert!(e.contains("unsafe"), "{e}");
        let e = try_open("(role a) (role b) (init (x 1))", "c");
        assert_eq!(e, "role 'c' is not one of the rules' roles (a, b)");
    }

    #[test]
    fn unknown_role_is_refused() {
        let rules = course_rules(3, 5, false);
        let d = Duration::from_secs(1);
        let e = Session::new("m", "red", &rules, d, d, AgentConfig::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("'red'"), "{e}");
    }

    #[test]
    fn a_finished_game_reports_goals() {
        let mut s = session("white", 2, 4, false);
        // 2x4: black starts on rows 3 and 4; white captures its way to row 4.
        for (i, m) in [
            "((move 1 2 2 3) noop)",
            "(noop (move 1 3 1 2))",
            "((move 2 3 1 4) noop)",
        ]
        .iter()
        .enumerate()
        {
            s.apply(Some(&moves(m)))
                .unwrap_or_else(|e| panic!("{i}: {e}"));
        }
        assert_eq!(s.turn(), Turn::Over);
        assert_eq!(s.goals(), Some([100, 0]));
        let e = s.apply(Some(&moves("(noop (move 1 2 1 1))"))).unwrap_err();
        assert_eq!(e, JointMoveError::AfterTheEnd);
    }
}
