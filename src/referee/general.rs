//! One match of any game, refereed by the GDL reasoner: the rules of a GDL file sent in
//! START, every role's reply checked against its legal moves at every step (any number
//! of roles, moving in turn or at once), a late, unreadable or illegal move replaced by
//! the role's first legal move and recorded as a fault, and every role's goal recorded.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tracing::{info, warn};

use super::dialect::Dialect;
use super::ggp::{Clocks, classify, exchange_all, fault, log_faults, start_all, stop_all};
use super::play_clock::PlayClock;
use super::record::{Fault, FaultKind, MatchRecord, OnMove};
use crate::gdl::{Gdl, Term};
use crate::sexpr::Sexpr;

/// Steps after which a match that has not ended is stopped and scored as it stands.
pub const MAX_STEPS: usize = 10_000;

/// What one match of a GDL game needs.
#[derive(Clone, Debug)]
pub struct GdlMatchSpec {
    pub id: String,
    /// The game's name for the record (e.g. the file's stem).
    pub game: String,
    /// The rules sent in START.
    pub rules: Vec<Sexpr>,
    /// The same rules, compiled.
    pub gdl: Arc<Gdl>,
    /// `host:port` of the player of each role, in role order.
    pub addrs: Vec<String>,
    /// Names of the players, in role order, for the record.
    pub names: Vec<String>,
    pub start_clock: u64,
    pub play_clock: u64,
    pub dialect: Dialect,
}

impl GdlMatchSpec {
    /// The line `match` prints before the match starts.
    pub fn header(&self) -> String {
        format!(
            "match {} of {}: players {}; start clock {} s, play clock {} s, {:?} dialect",
            self.id,
            self.game,
            self.names.join(" "),
            self.start_clock,
            self.play_clock,
            self.dialect
        )
    }
}

/// The record of a finished match of a GDL game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GdlRecord {
    pub id: String,
    pub game: String,
    pub roles: Vec<String>,
    /// Player names in role order.
    pub players: Vec<String>,
    pub dialect: Dialect,
    pub start_clock: u64,
    pub play_clock: u64,
    /// Joint moves in play order, each as `(move-of-role-1 move-of-role-2 …)`.
    pub moves: Vec<String>,
    pub faults: Vec<Fault>,
    /// Every role's goal at the end (0 where the rules give none).
    pub goals: Vec<u32>,
    /// Every goal value faulty rules gave each role at the end, when they gave one role
    /// several (`goals` holds the highest); `None` when each had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_values: Option<Vec<Vec<u32>>>,
    /// Whether the game reached a terminal state (else it was cut at [`MAX_STEPS`] or a
    /// role had no legal move).
    pub finished: bool,
    pub duration_ms: u64,
    /// Per step: the slowest reply of a role with a choice (several legal moves), in
    /// microseconds; 0 when no role had a choice.
    pub move_us: Vec<u64>,
}

impl GdlRecord {
    /// The record as a two-player [`MatchRecord`], for tournaments; `None` unless the
    /// game has two roles.
    pub fn two_player(&self) -> Option<MatchRecord> {
        let ([first, second], [g0, g1], [r0, r1]) = (
            self.players.as_slice(),
            self.goals.as_slice(),
            self.roles.as_slice(),
        ) else {
            return None;
        };
        let goal = |g: u32| u8::try_from(g.min(100)).unwrap_or(100);
        Some(MatchRecord {
            id: self.id.clone(),
            size: self.game.clone(),
            players: [first.clone(), second.clone()],
            cpu: [None, None],
            dialect: Some(self.dialect),
            start_clock: self.start_clock,
            play_clock: PlayClock::from_secs(self.play_clock),
            moves: self.moves.clone(),
            faults: self.faults.clone(),
            goals: [goal(*g0), goal(*g1)],
            duration_ms: self.duration_ms,
            move_us: self.move_us.clone(),
            referee_overhead_us: 0,
            roles: [r0.clone(), r1.clone()],
            worker: None,
            goal_values: self
                .goal_values
                .clone()
                .and_then(|v| <[Vec<u32>; 2]>::try_from(v).ok()),
            opening: None,
        })
    }
}

/// Plays one match to its end. Never fails: whatever the players do, the match reaches
/// a result (faults are recorded instead).
pub async fn play_gdl_match(spec: &GdlMatchSpec) -> GdlRecord {
    play_gdl_match_telling(spec, &|_, _, _| {}).await
}

/// [`play_gdl_match`], telling `on_move` each step as it is played.
pub async fn play_gdl_match_telling(spec: &GdlMatchSpec, on_move: OnMove<'_>) -> GdlRecord {
    let started = Instant::now();
    let gdl = &spec.gdl;
    let roles = gdl.role_names();
    let mut faults = Vec::new();
    let clocks = Clocks {
        dialect: spec.dialect,
        id: &spec.id,
        start_clock: spec.start_clock,
        play_clock: spec.play_clock,
    };
    start_all(&spec.addrs, &roles, &spec.rules, clocks, &mut faults).await;

    let play_wait = clocks.play_wait();
    let mut state = gdl.initial_state();
    let mut analysis = gdl.analyse(&state);
    let mut moves = Vec::new();
    let mut move_us = Vec::new();
    let mut last_joint: Option<Vec<Sexpr>> = None;
    while !analysis.terminal
        && moves.len() < MAX_STEPS
        && analysis.legal.iter().all(|m| !m.is_empty())
    {
        let step = moves.len() as u32;
        let body = spec.dialect.play(&spec.id, last_joint.as_deref());
        let replies = exchange_all(&spec.addrs, &body, play_wait).await;
        let mut joint: Vec<Term> = Vec::with_capacity(roles.len());
        let mut slowest = Duration::ZERO;
        for (i, reply) in replies.into_iter().enumerate() {
            let legal = &analysis.legal[i];
            let chosen = match reply {
                Err(e) => {
                    faults.push(fault(step, &roles[i], classify(&e), e.to_string()));
                    None
                }
                Ok(r) => {
                    if legal.len() > 1 {
                        slowest = slowest.max(r.elapsed);
                    }
                    check_reply(gdl, legal, &r.body)
                        .map_err(|(kind, detail)| {
                            faults.push(fault(step, &roles[i], kind, detail));
                        })
                        .ok()
                }
            };
            joint.push(chosen.unwrap_or_else(|| legal[0].clone()));
        }
        move_us.push(slowest.as_micros() as u64);
        let spelt: Vec<Sexpr> = joint.iter().map(|t| gdl.term_to_sexpr(t)).collect();
        moves.push(Sexpr::list(spelt.clone()).to_string());
        on_move(step as usize, &moves[step as usize], move_us[step as usize]);
        last_joint = Some(spelt);
        state = gdl.next_state(&state, &joint);
        analysis = gdl.analyse(&state);
    }
    if let Some(joint) = &last_joint {
        stop_all(&spec.addrs, joint, clocks).await;
    }
    let values = gdl.goal_values(&state);
    let goal_values = values.iter().any(|v| v.len() > 1).then_some(values);
    if let Some(values) = &goal_values {
        warn!(
            id = %spec.id, game = %spec.game, values = ?values,
            "the rules give a role several goal values at the end; the highest is recorded"
        );
    }
    let record = GdlRecord {
        id: spec.id.clone(),
        game: spec.game.clone(),
        roles,
        players: spec.names.clone(),
        dialect: spec.dialect,
        start_clock: spec.start_clock,
        play_clock: spec.play_clock,
        moves,
        faults,
        goals: analysis.goals.iter().map(|g| g.unwrap_or(0)).collect(),
        goal_values,
        finished: analysis.terminal,
        duration_ms: started.elapsed().as_millis() as u64,
        move_us,
    };
    info!(
        id = %record.id, game = %record.game, players = %record.players.join(" "),
        goals = ?record.goals, steps = record.moves.len(), faults = record.faults.len(),
        "match over"
    );
    log_faults(&record.id, &record.faults);
    record
}

/// A reply read as one of `legal`, or why it is not.
fn check_reply(gdl: &Gdl, legal: &[Term], body: &str) -> Result<Term, (FaultKind, String)> {
    let parsed = Sexpr::parse(body).map_err(|e| (FaultKind::Garbage, format!("{body:?}: {e}")))?;
    let term = gdl
        .term_from_sexpr(&parsed)
        .map_err(|e| (FaultKind::Illegal, format!("{body:?}: {e}")))?;
    if legal.contains(&term) {
        Ok(term)
    } else {
        Err((
            FaultKind::Illegal,
            format!("{body:?} is not among the role's legal moves"),
        ))
    }
}
