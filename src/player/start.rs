//! START: who plays a new match. Each registered game is asked in turn whether it
//! recognises the rules (and its engine plays them as sent); the first that does plays
//! the match with its engine, and the reasoner plays anything else it can compile.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::{debug, info, warn};

use super::engine::EngineSession;
use super::general::GeneralSession;
use super::session::{MatchSession, StartError};
use crate::agent::AgentConfig;
use crate::games;
use crate::gdl::{Engine, Gdl, GdlError, RACE_TIME};
use crate::sexpr::Sexpr;
use crate::spec::ggp::{GgpRules, Recognition};
use crate::spec::{GameSpec, Tool};

/// A new match from a START message's contents. A propositional network not built by
/// `ready_by` (the START's deadline less its margin) is given up for the reasoner.
pub fn open(
    match_id: &str,
    role: &str,
    rules: &[Sexpr],
    play_clock: Duration,
    agent: AgentConfig,
    ready_by: Option<Instant>,
) -> Result<Box<dyn MatchSession>, StartError> {
    let compiled = Gdl::from_sexprs(rules);
    let ask = Recognise {
        match_id,
        role,
        rules,
        gdl: compiled.as_ref(),
        play_clock,
        agent,
    };
    if let Some(engine) = games::first(ask) {
        return engine;
    }
    let mut gdl = compiled?;
    let fallback = gdl
        .use_engine(agent.gdl_engine, ready_by)
        .map_err(GdlError::Propnet)?;
    // Left to choose, the player plays by whichever model is clearly faster.
    let race = ready_by
        .filter(|_| agent.gdl_engine == Engine::Auto)
        .and_then(|by| {
            gdl.keep_the_faster(RACE_TIME.min(by.saturating_duration_since(Instant::now()) / 4))
        });
    match (fallback, race) {
        (Some(why), _) => warn!(
            match_id,
            "playing by the {}",
            gdl.model_description(Some(&why))
        ),
        (None, Some(race)) if race.reasoner_wins() => info!(
            match_id,
            "playing by the {}",
            gdl.model_description(Some(&race.why_not_the_network()))
        ),
        (None, Some(race)) => info!(
            match_id,
            "playing by the {} ({race})",
            gdl.model_description(None)
        ),
        (None, None) => info!(match_id, "playing by the {}", gdl.model_description(None)),
    }
    Ok(Box::new(
        GeneralSession::new(match_id, role, gdl, play_clock, agent)?.with_rules_layout(rules),
    ))
}

/// A game's answer to START's rules: a session played by its engine, or nothing (logged)
/// when the rules are not its own or its engine does not play them as sent.
#[derive(Clone)]
struct Recognise<'a> {
    match_id: &'a str,
    role: &'a str,
    rules: &'a [Sexpr],
    gdl: Result<&'a Gdl, &'a GdlError>,
    play_clock: Duration,
    agent: AgentConfig,
}

type Opened = Result<Box<dyn MatchSession>, StartError>;

impl Tool for Recognise<'_> {
    type Output = Option<Opened>;

    fn run<S: GameSpec>(self) -> Option<Opened> {
        let match_id = self.match_id;
        match S::recognise_ggp(match_id, self.rules, self.gdl) {
            Recognition::Engine(rules) => Some(self.engine::<S>(rules)),
            Recognition::Reasoner(why) => {
                info!(match_id, game = S::NAME, "{why}: playing by the reasoner");
                None
            }
            Recognition::Other(why) => {
                debug!(match_id, game = S::NAME, "{why}");
                None
            }
        }
    }
}

impl Recognise<'_> {
    fn engine<S: GameSpec>(self, rules: Arc<dyn GgpRules<Game = S::Game>>) -> Opened {
        let session =
            EngineSession::new::<S>(self.match_id, self.role, rules, self.play_clock, self.agent)?;
        Ok(Box::new(session))
    }
}
