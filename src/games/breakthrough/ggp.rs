//! Breakthrough over GGP: rules recognised by their structure ([`Terms::recognise`]), or
//! read from the course rules' size facts, then checked against the reasoner
//! ([`verify`]) before the engine may play them.

use std::sync::Arc;
use std::time::Instant;

use tracing::{info, warn};

use super::terms::{RulesError, Terms};
use super::verify::verify;
use super::{Board, Move};
use crate::gdl::{Gdl, GdlError};
use crate::sexpr::Sexpr;
use crate::spec::ggp::{GgpRules, Recognition};

/// Breakthrough rules the engine plays, in their own spelling.
pub struct BreakthroughRules {
    terms: Terms,
    roles: Vec<String>,
}

impl BreakthroughRules {
    pub fn new(terms: Terms) -> BreakthroughRules {
        // `terms.roles` is in the engine's order (white, black); the rules may list black
        // first.
        let mut roles = terms.roles.to_vec();
        for (colour, &index) in terms.role_index.iter().enumerate() {
            roles[index] = terms.roles[colour].clone();
        }
        BreakthroughRules { roles, terms }
    }
}

impl GgpRules for BreakthroughRules {
    type Game = Board;

    fn start(&self) -> Board {
        Board::with_variant(self.terms.size, self.terms.variant)
    }

    fn roles(&self) -> &[String] {
        &self.roles
    }

    fn seats(&self) -> [usize; 2] {
        self.terms.role_index
    }

    fn noop(&self) -> &str {
        self.terms.noop()
    }

    fn is_noop(&self, term: &Sexpr) -> bool {
        self.terms.is_noop(term)
    }

    fn parse_move(&self, position: &Board, term: &Sexpr) -> Result<Move, String> {
        self.terms
            .parse_move(position, term)
            .map_err(|e| e.to_string())
    }

    fn move_term(&self, position: &Board, m: Move) -> Sexpr {
        self.terms.move_term(position, m)
    }

    fn substitute(&self, position: &Board) -> Option<Move> {
        super::terms::first_legal_move(position)
    }
}

/// What START's rules are to the Breakthrough engine: played by it once the reasoner
/// agrees with it on them (or cannot compile them), by the reasoner if they differ (the
/// course's size-10 defect), someone else's if they are not Breakthrough.
pub fn recognise(
    match_id: &str,
    rules: &[Sexpr],
    gdl: Result<&Gdl, &GdlError>,
) -> Recognition<Board> {
    let started = Instant::now();
    let terms = match rules_terms(match_id, rules, gdl) {
        Ok(terms) => terms,
        Err(why) => {
            return Recognition::Other(format!("not the Breakthrough the engine plays ({why})"));
        }
    };
    let engine = |terms| Recognition::Engine(Arc::new(BreakthroughRules::new(terms)));
    let gdl = match gdl {
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
    let verified = verify(&terms, gdl);
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
                verify_ms, "rules differ from the engine's model ({why})"
            );
            Recognition::Reasoner(format!("rules differ from the engine's model ({why})"))
        }
    }
}

/// The terms of the rules: recognised by the reasoner whatever the symbols are called,
/// else read from the course rules' `(width W)`/`(height H)` facts and symbols (when the
/// reasoner cannot compile the rules, or recognition fails).
pub fn rules_terms(
    match_id: &str,
    rules: &[Sexpr],
    gdl: Result<&Gdl, &GdlError>,
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

#[cfg(test)]
mod tests {
    //! Breakthrough over GGP through the player's generic sessions.
    use std::time::{Duration, Instant};

    use super::*;
    use crate::agent::AgentConfig;
    use crate::games::breakthrough::spec::Breakthrough;
    use crate::player::engine::{EngineSession, Turn};
    use crate::player::session::{JointMoveError, MatchSession, MatchState, Reply};
    use crate::player::start::open;
    use crate::search::{Limits, quick_move};

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

    /// The engine's session of the course rules, which must be recognised and verified.
    fn session(role: &str, w: u32, h: u32, upper: bool) -> EngineSession<Board> {
        let rules = course_rules(w, h, upper);
        let gdl = Gdl::from_sexprs(&rules);
        let Recognition::Engine(r) = recognise("m", &rules, gdl.as_ref()) else {
            panic!("{w}x{h}: not played by the engine");
        };
        let clock = Duration::from_secs(1);
        EngineSession::new::<Breakthrough>("m", role, r, clock, AgentConfig::default()).unwrap()
    }

    fn moves(text: &str) -> Vec<Sexpr> {
        Sexpr::parse(text).unwrap().as_list().unwrap().to_vec()
    }

    #[test]
    fn follows_a_match() {
        let mut s = session("black", 3, 5, false);
        assert_eq!(s.seat(), 1);
        assert_eq!(s.agent(), "alphabeta(default)");
        s.apply(None).unwrap();
        assert_eq!(s.turn(), Turn::Theirs);
        s.apply(Some(&moves("((move 2 2 2 3) noop)"))).unwrap();
        assert_eq!(s.turn(), Turn::Ours);
        let mv = quick_move(s.position()).unwrap();
        assert!(s.reply_text(mv).starts_with("(move "));
        s.apply(Some(&moves("(NOOP (MOVE 1 4 2 3))"))).unwrap();
        assert_eq!(s.info().plies, 2);
        assert_eq!(s.turn(), Turn::Theirs);
        assert_eq!(s.goals(), None);
        assert_eq!(s.info().state, MatchState::Active);
    }

    #[test]
    fn upper_case_rules_give_upper_case_replies() {
        let s = session("WHITE", 5, 5, true);
        assert_eq!(s.seat(), 0);
        assert_eq!(s.turn(), Turn::Ours);
        let mv = s.position().find_move(1, 2, 1, 3).unwrap();
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
            assert!(matches!(s.info().state, MatchState::Broken(_)), "{bad}");
            assert_eq!(s.turn(), Turn::Broken);
            // Broken stays broken, quietly.
            s.apply(Some(&moves("((move 2 2 2 3) noop)"))).unwrap();
            assert_eq!(s.turn(), Turn::Broken);
            assert_eq!(s.goals(), None);
            assert!(matches!(s.reply(), Reply::Now(noop) if noop == "noop"));
        }
    }

    fn open_course(role: &str, w: u32, h: u32, upper: bool) -> Box<dyn MatchSession> {
        let rules = course_rules(w, h, upper);
        open(
            "m",
            role,
            &rules,
            Duration::from_secs(1),
            AgentConfig::default(),
            None,
        )
        .unwrap()
    }

    #[test]
    fn verified_rules_play_with_the_engine_and_the_size_10_defect_by_the_rules() {
        assert_eq!(open_course("white", 8, 8, false).model(), "engine");
        assert_eq!(open_course("BLACK", 5, 5, true).model(), "engine");
        // Given all the time it needs, START compiles these rules to a network.
        assert_eq!(open_course("white", 10, 10, false).model(), "propnet");
        assert_eq!(open_course("black", 6, 10, false).model(), "propnet");
        let ours = crate::games::breakthrough::gdl::breakthrough_rules("10x10".parse().unwrap());
        let rules = Sexpr::parse_all(&ours).unwrap();
        let o = open(
            "m",
            "black",
            &rules,
            Duration::from_secs(1),
            AgentConfig::default(),
            None,
        );
        assert_eq!(o.unwrap().model(), "engine");
    }

    #[test]
    fn the_course_10x10_rules_are_followed_as_sent() {
        let mut s = open_course("black", 10, 10, false);
        assert_eq!((s.model(), s.our_role_index()), ("propnet", 1));
        // Column 1 and row 1 do not exist in the course's 10x10 rules.
        let mut bad = open_course("black", 10, 10, false);
        let e = bad
            .apply(Some(&moves("((move 1 2 1 3) noop)")))
            .unwrap_err();
        assert!(matches!(e, JointMoveError::NotLegal { .. }), "{e}");
        s.apply(Some(&moves("((move 2 2 2 3) noop)"))).unwrap();
        let Reply::Search { search, .. } = s.reply() else {
            panic!("black has moves");
        };
        let reply = search(&Limits::until(Instant::now() + Duration::from_millis(200)));
        assert!(reply.starts_with("(move "), "{reply}");
        assert!(!reply.starts_with("(move 1 "), "{reply}");
        s.apply(Some(&[Sexpr::atom("noop"), Sexpr::parse(&reply).unwrap()]))
            .unwrap();
        assert_eq!(s.info().plies, 2);
        assert_eq!(s.goals(), None);
    }

    #[test]
    fn rules_that_cannot_be_played_are_refused_clearly() {
        let try_open = |text: &str, role: &str| {
            let rules = Sexpr::parse_all(text).unwrap();
            open(
                "m",
                role,
                &rules,
                Duration::from_secs(1),
                AgentConfig::default(),
                None,
            )
            .err()
            .expect("refused")
            .to_string()
        };
        let e = try_open("(init (x 1)) (<= terminal (true (x 1)))", "white");
        assert!(e.contains("role"), "{e}");
        let e = try_open(
            "(role a) (<= (legal a go) (role a) (not (true (x ?y))))",
            "a",
        );
        assert!(e.contains("unsafe"), "{e}");
        let e = try_open("(role a) (role b) (init (x 1))", "c");
        assert_eq!(e, "role 'c' is not one of the rules' roles (a, b)");
    }

    #[test]
    fn unknown_role_is_refused() {
        let rules = course_rules(3, 5, false);
        let e = open(
            "m",
            "red",
            &rules,
            Duration::from_secs(1),
            AgentConfig::default(),
            None,
        )
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
        assert_eq!(MatchSession::goals(&s), Some(vec![Some(100), Some(0)]));
        let e = s.apply(Some(&moves("(noop (move 1 2 1 1))"))).unwrap_err();
        assert_eq!(e, JointMoveError::AfterTheEnd);
    }
}
