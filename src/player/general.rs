//! A match of any game, followed and played by the GDL reasoner: the fallback for rules
//! that are not Breakthrough, or that the bitboard engine does not model (the course
//! rules on size-10 boards).
//!
//! Every role moves at every step, as GDL has it: when we have a single legal move
//! (`noop` while the other side moves) it is the reply, at once; otherwise a Monte-Carlo
//! tree search ([`crate::mcts`]) chooses, or a uniformly random move for the random agent.
//! The reply is always one of our legal moves in the rules' spelling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use tracing::debug;

use super::session::{JointMoveError, MatchState, StartError};
use crate::agent::{AgentConfig, AgentKind};
use crate::gdl::{Analysis, Gdl, State, Term};
use crate::mcts::Mcts;
use crate::sexpr::Sexpr;

/// One match played by the reasoner.
pub struct GeneralSession {
    pub match_id: String,
    /// Our role, as the START message spells it.
    pub role: String,
    /// Our role's index among the rules' roles.
    pub us: usize,
    gdl: Arc<Gdl>,
    position: State,
    /// Terminal, legal moves and goals of `position`.
    analysis: Analysis,
    pub play_clock: Duration,
    pub state: MatchState,
    /// Steps played so far.
    pub plies: u32,
    /// When the last message about this match arrived.
    pub last_seen: Instant,
    /// The search tree, kept between turns; `None` for the random agent.
    tree: Option<Arc<Mutex<Mcts>>>,
    /// The random agent's generator.
    rng: crate::rng::Rng,
    /// Stops the search running in the background (see
    /// [`GeneralSession::background_search`]).
    background: Option<Arc<AtomicBool>>,
}

/// What to answer a PLAY with.
pub enum Reply {
    /// Known at once: our only legal move, the random agent's move, or `noop` when the
    /// position is unknown or the game is over.
    Now(String),
    /// Choose by searching (off the async runtime).
    Search(Search),
}

/// A search for our move, or one started at START; runs on a blocking thread.
pub struct Search {
    gdl: Arc<Gdl>,
    tree: Arc<Mutex<Mcts>>,
    position: State,
    us: usize,
    legal: Vec<Term>,
    stop: Arc<AtomicBool>,
}

impl GeneralSession {
    /// A new match of `gdl`, where we play `role` (compared without regard to case).
    pub fn new(
        match_id: &str,
        role: &str,
        gdl: Gdl,
        play_clock: Duration,
        agent: AgentConfig,
    ) -> Result<GeneralSession, StartError> {
        let us = gdl
            .role_index(role)
            .ok_or_else(|| StartError::UnknownRole {
                role: role.to_owned(),
                roles: roles_text(&gdl),
            })?;
        let gdl = Arc::new(gdl);
        let position = gdl.initial_state();
        let analysis = gdl.analyse(&position);
        let tree = (agent.kind != AgentKind::Random)
            .then(|| Arc::new(Mutex::new(Mcts::new(gdl.clone(), agent.seed))));
        Ok(GeneralSession {
            match_id: match_id.to_owned(),
            role: role.to_owned(),
            us,
            gdl,
            position,
            analysis,
            play_clock,
            state: MatchState::Active,
            plies: 0,
            last_seen: Instant::now(),
            tree,
            rng: crate::rng::seeded(agent.seed),
            background: None,
        })
    }

    /// The rules' roles, for the log.
    pub fn roles(&self) -> String {
        roles_text(&self.gdl)
    }

    pub fn is_over(&self) -> bool {
        self.analysis.terminal
    }

    /// Applies the previous joint move of a PLAY or STOP (`None` for NIL). Each term must
    /// be a legal move of its role. On an error the session becomes
    /// [`MatchState::Broken`] and ignores further moves.
    pub fn apply(&mut self, moves: Option<&[Sexpr]>) -> Result<(), JointMoveError> {
        let Some(moves) = moves else {
            return Ok(());
        };
        if self.state != MatchState::Active {
            return Ok(());
        }
        match self.joint(moves) {
            Ok(joint) => {
                self.position = self.gdl.next_state(&self.position, &joint);
                self.analysis = self.gdl.analyse(&self.position);
                self.plies += 1;
                Ok(())
            }
            Err(e) => {
                self.state = MatchState::Broken(e.to_string());
                Err(e)
            }
        }
    }

    /// `moves` read as the rules' terms, each checked against its role's legal moves.
    fn joint(&self, moves: &[Sexpr]) -> Result<Vec<Term>, JointMoveError> {
        let roles = self.gdl.roles();
        if moves.len() != roles.len() {
            return Err(JointMoveError::WrongCount {
                expected: roles.len(),
                got: moves.len(),
            });
        }
        if self.analysis.terminal {
            return Err(JointMoveError::AfterTheEnd);
        }
        let mut joint = Vec::with_capacity(roles.len());
        for (i, m) in moves.iter().enumerate() {
            let not_legal = |reason: String| JointMoveError::NotLegal {
                role: self.gdl.display(&roles[i]),
                term: m.to_string(),
                reason,
            };
            let term = self
                .gdl
                .term_from_sexpr(m)
                .map_err(|e| not_legal(e.to_string()))?;
            if !self.analysis.legal[i].contains(&term) {
                return Err(not_legal(
                    "not among its legal moves in the rules".to_owned(),
                ));
            }
            joint.push(term);
        }
        Ok(joint)
    }

    /// What to answer the PLAY that brought the position up to date. Stops the
    /// background search.
    pub fn reply(&mut self) -> Reply {
        self.stop_background();
        let ours = match (&self.state, self.analysis.terminal) {
            (MatchState::Active, false) => &self.analysis.legal[self.us],
            _ => return Reply::Now("noop".to_owned()),
        };
        let text = |m: &Term| self.gdl.display(m);
        match (ours.as_slice(), &self.tree) {
            ([], _) => Reply::Now("noop".to_owned()),
            ([only], _) => Reply::Now(text(only)),
            (moves, None) => Reply::Now(
                moves
                    .choose(&mut self.rng)
                    .map_or_else(|| "noop".to_owned(), text),
            ),
            (_, Some(tree)) => Reply::Search(self.search(tree.clone())),
        }
    }

    /// A search of the current position to run in the background while no reply is due,
    /// so that a PLAY finds a grown tree: the handler starts it at START, for the start
    /// clock. Stopped by the next PLAY, or when the match is dropped. `None` for the
    /// random agent, or when the game is over or the match broken.
    pub fn background_search(&mut self) -> Option<Search> {
        if self.state != MatchState::Active || self.analysis.terminal {
            return None;
        }
        self.stop_background();
        let search = self.search(self.tree.clone()?);
        self.background = Some(search.stop_flag());
        Some(search)
    }

    /// A search of the current position in `tree` for our move, with its own stop flag.
    fn search(&self, tree: Arc<Mutex<Mcts>>) -> Search {
        Search {
            gdl: self.gdl.clone(),
            tree,
            position: self.position.clone(),
            us: self.us,
            legal: self
                .analysis
                .legal
                .get(self.us)
                .cloned()
                .unwrap_or_default(),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    fn stop_background(&mut self) {
        if let Some(stop) = self.background.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// Every role's goal once the game is over in our model, in role order.
    pub fn goals(&self) -> Option<Vec<Option<u32>>> {
        (self.state == MatchState::Active && self.analysis.terminal)
            .then(|| self.analysis.goals.clone())
    }
}

impl Drop for GeneralSession {
    fn drop(&mut self) {
        self.stop_background();
    }
}

impl Search {
    /// Our first legal move, as reply text: the answer when the search cannot give one.
    pub fn fallback(&self) -> String {
        self.legal
            .first()
            .map_or_else(|| "noop".to_owned(), |m| self.gdl.display(m))
    }

    /// The flag that stops this search.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Searches until `deadline` (or the stop flag) and returns our move as reply text:
    /// the most visited legal move, else the first legal move.
    pub fn run(self, match_id: &str, deadline: Instant) -> String {
        let mut tree = self.tree.lock().unwrap_or_else(|e| e.into_inner());
        let choice = tree.search(&self.position, self.us, deadline, &self.stop);
        debug!(
            match_id,
            iterations = choice.iterations,
            playouts = choice.playouts,
            nodes = choice.nodes,
            visits = choice.visits,
            value = choice.value,
            ms = choice.elapsed.as_millis() as u64,
            "reasoner search"
        );
        match choice.best.filter(|m| self.legal.contains(m)) {
            Some(m) => self.gdl.display(&m),
            None => self.fallback(),
        }
    }
}

fn roles_text(gdl: &Gdl) -> String {
    gdl.role_names().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(file: &str, role: &str, agent: AgentConfig) -> GeneralSession {
        let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
        let gdl = Gdl::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let d = Duration::from_secs(1);
        GeneralSession::new("m", role, gdl, d, agent).unwrap()
    }

    fn moves(text: &str) -> Vec<Sexpr> {
        Sexpr::parse(text).unwrap().as_list().unwrap().to_vec()
    }

    fn now(r: Reply) -> String {
        match r {
            Reply::Now(text) => text,
            Reply::Search(_) => panic!("expected an immediate reply"),
        }
    }

    #[test]
    fn follows_tic_tac_toe_and_replies_noop_at_once_when_not_to_move() {
        let mut s = session("tictactoe.gdl", "OPLAYER", AgentConfig::default());
        assert_eq!(s.us, 1);
        assert_eq!(now(s.reply()), "noop");
        s.apply(Some(&moves("((MARK 2 2) NOOP)"))).unwrap();
        let Reply::Search(search) = s.reply() else {
            panic!("o has eight moves");
        };
        let reply = search.run("m", Instant::now() + Duration::from_millis(100));
        assert!(reply.starts_with("(mark "), "{reply}");
        s.apply(Some(&[Sexpr::atom("noop"), Sexpr::parse(&reply).unwrap()]))
            .unwrap();
        assert_eq!(s.plies, 2);
        assert_eq!(s.goals(), None);
    }

    #[test]
    fn refuses_illegal_joint_moves_and_unknown_roles() {
        for bad in [
            "((mark 2 2))",
            "((mark 2 2) noop noop)",
            "((mark 2 2) (mark 1 1))",
            "((mark 4 4) noop)",
            "((jump 1 1) noop)",
        ] {
            let mut s = session("tictactoe.gdl", "xplayer", AgentConfig::default());
            assert!(s.apply(Some(&moves(bad))).is_err(), "{bad}");
            assert!(matches!(s.state, MatchState::Broken(_)));
            assert_eq!(now(s.reply()), "noop");
        }
        let path = format!("{}/gdl/tictactoe.gdl", env!("CARGO_MANIFEST_DIR"));
        let gdl = Gdl::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let d = Duration::from_secs(1);
        let e = GeneralSession::new("m", "white", gdl, d, AgentConfig::default())
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "role 'white' is not one of the rules' roles (xplayer, oplayer)"
        );
    }

    #[test]
    fn the_random_agent_replies_at_once_with_legal_moves() {
        let random = AgentConfig {
            kind: AgentKind::Random,
            seed: Some(7),
            ..AgentConfig::default()
        };
        let mut s = session("lowest_unique.gdl", "blue", random);
        assert!(s.background_search().is_none());
        let mv = now(s.reply());
        assert!(
            ["(pick 1)", "(pick 2)", "(pick 3)"].contains(&mv.as_str()),
            "{mv}"
        );
        s.apply(Some(&moves("((pick 1) (pick 1) (pick 3))")))
            .unwrap();
        assert!(s.is_over());
        assert_eq!(s.goals(), Some(vec![Some(0), Some(0), Some(100)]));
    }

    #[test]
    fn the_first_play_stops_the_background_search() {
        let mut s = session("rps_well.gdl", "right", AgentConfig::default());
        let background = s.background_search().unwrap();
        let stop = background.stop_flag();
        let far = Instant::now() + Duration::from_secs(60);
        let worker = std::thread::spawn(move || background.run("m", far));
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        let Reply::Search(search) = s.reply() else {
            panic!("four throws");
        };
        assert!(stop.load(Ordering::Relaxed));
        worker.join().unwrap();
        let mv = search.run("m", Instant::now() + Duration::from_millis(50));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(mv.starts_with("(play "), "{mv}");
    }
}
