//! One GGP match of a two-role game, refereed as the real controllers do: START to both
//! players, PLAY with the previous joint move until the game ends, STOP with the last
//! one. Every reply is checked; a late, unreadable or illegal move is replaced by the
//! first legal move (as Dresden does) and recorded as a fault.
//!
//! Who checks the replies is the game's business: its engine when it reads its own rules'
//! move terms ([`GgpRules`], microseconds a move), the GDL reasoner otherwise
//! ([`super::general`]), which referees any rules at all.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::info;

use super::dialect::Dialect;
use super::general::{GdlMatchSpec, play_gdl_match_telling};
use super::ggp::{Clocks, classify, exchange_all, fault, log_faults, start_all, stop_all};
use super::play_clock::PlayClock;
use super::record::{FaultKind, MatchRecord, OnMove};
use crate::game::{self, Game, Outcome};
use crate::gdl::{self, Gdl};
use crate::sexpr::Sexpr;
use crate::spec::ggp::GgpRules;
use crate::spec::{self, GameSpec};

/// Who plays one match of a two-role game, and under which clocks.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub id: String,
    /// `host:port` of the first role's player (white's) and of the second's.
    pub addrs: [String; 2],
    /// Names of the players, for the record.
    pub names: [String; 2],
    pub start_clock: u64,
    pub play_clock: u64,
    pub dialect: Dialect,
}

impl MatchSpec {
    /// The line `match` prints before the match of `game` starts.
    pub fn header(&self, game: &GgpGame) -> String {
        let roles = game.roles();
        format!(
            "match {} on {}: {} {}, {} {}; start clock {} s, play clock {} s, {:?} dialect",
            self.id,
            game.condition,
            roles[0],
            self.names[0],
            roles[1],
            self.names[1],
            self.start_clock,
            self.play_clock,
            self.dialect
        )
    }
}

/// A game as the GGP referee plays it under one condition: the rules sent in START and
/// what checks the replies.
#[derive(Clone)]
pub struct GgpGame {
    /// What the records call it: the board size, or the rules file's name.
    pub condition: String,
    /// The rules sent in START.
    pub rules: Vec<Sexpr>,
    judge: Judge,
}

#[derive(Clone)]
enum Judge {
    /// The game's engine, reading the rules' move terms.
    Engine(Arc<dyn EngineJudge>),
    /// The GDL reasoner.
    Reasoner(Arc<Gdl>),
}

impl GgpGame {
    /// Game `S` on a board of `size` under `variant` (the game's first if `None`), with
    /// the rules the game sends; its engine checks the moves if it reads those rules.
    pub fn of<S: GameSpec>(size: &str, variant: Option<&str>) -> Result<GgpGame, String> {
        let variant = variant.unwrap_or(S::VARIANTS[0]);
        let Some(rules) = S::ggp_rules(size, variant) else {
            return Err(format!(
                "{} has no GGP rules: play it between in-process agents, e.g. --white agent:alphabeta --black agent:random",
                S::NAME
            ));
        };
        let start = spec::start::<S>(Some(size), Some(variant))?;
        let rules = rules?;
        let judge = match S::ggp_notation(&rules) {
            Some(notation) => Judge::Engine(Arc::new(Engine { start, notation })),
            None => Judge::Reasoner(Arc::new(compile(&rules)?)),
        };
        Ok(GgpGame {
            condition: size.to_owned(),
            rules,
            judge,
        })
    }

    /// The game of a GDL (KIF) file, refereed by the reasoner and named after the file.
    pub fn from_file(path: &Path) -> Result<GgpGame, String> {
        let text = crate::input_file::read_to_string(path, crate::input_file::RULES)?;
        let invalid = |e: String| format!("{} is not valid GDL: {e}", path.display());
        let rules = Sexpr::parse_all(&text).map_err(|e| invalid(e.to_string()))?;
        let gdl = compile(&rules).map_err(invalid)?;
        let name = path
            .file_stem()
            .map_or("game".into(), |s| s.to_string_lossy().into_owned());
        Ok(GgpGame {
            condition: name,
            rules,
            judge: Judge::Reasoner(Arc::new(gdl)),
        })
    }

    /// The roles, in the rules' order.
    pub fn roles(&self) -> Vec<String> {
        match &self.judge {
            Judge::Engine(engine) => engine.roles().to_vec(),
            Judge::Reasoner(gdl) => gdl.role_names(),
        }
    }

    /// The reasoner, when it is what checks this game's moves.
    pub fn reasoner(&self) -> Option<&Arc<Gdl>> {
        match &self.judge {
            Judge::Engine(_) => None,
            Judge::Reasoner(gdl) => Some(gdl),
        }
    }

    /// Plays one match to its end; the game must have two roles. Never fails: whatever
    /// the players do, the match reaches a result (faults are recorded instead).
    pub async fn play(&self, spec: &MatchSpec) -> MatchRecord {
        self.play_telling(spec, &|_, _, _| {}).await
    }

    /// [`GgpGame::play`], telling `on_move` each move as it is made.
    pub async fn play_telling(&self, spec: &MatchSpec, on_move: OnMove<'_>) -> MatchRecord {
        match &self.judge {
            Judge::Engine(engine) => engine.play(self, spec, on_move).await,
            Judge::Reasoner(gdl) => {
                let gdl_spec = GdlMatchSpec {
                    id: spec.id.clone(),
                    game: self.condition.clone(),
                    rules: self.rules.clone(),
                    gdl: gdl.clone(),
                    addrs: spec.addrs.to_vec(),
                    names: spec.names.to_vec(),
                    start_clock: spec.start_clock,
                    play_clock: spec.play_clock,
                    dialect: spec.dialect,
                };
                play_gdl_match_telling(&gdl_spec, on_move)
                    .await
                    .two_player()
                    .expect("a game of two roles gives a two-player record")
            }
        }
    }
}

/// The rules as the referee checks them: by the propositional network where it can be
/// built, else by the reasoner (the log says why).
fn compile(rules: &[Sexpr]) -> Result<Gdl, String> {
    let mut gdl = Gdl::from_sexprs(rules).map_err(|e| e.to_string())?;
    if let Ok(Some(why)) = gdl.use_engine(gdl::Engine::Auto, None) {
        tracing::warn!("no propositional network ({why}): the reasoner checks the moves");
    }
    Ok(gdl)
}

type Played<'a> = Pin<Box<dyn Future<Output = MatchRecord> + Send + 'a>>;

/// An [`Engine`] with its game's type out of sight, so that any game's fits one
/// [`GgpGame`].
trait EngineJudge: Send + Sync {
    fn roles(&self) -> &[String];
    fn play<'a>(
        &'a self,
        game: &'a GgpGame,
        spec: &'a MatchSpec,
        on_move: OnMove<'a>,
    ) -> Played<'a>;
}

/// A game's start position and its engine's reading of the rules' terms.
struct Engine<G: Game> {
    start: G,
    notation: Arc<dyn GgpRules<Game = G>>,
}

impl<G: Game> EngineJudge for Engine<G> {
    fn roles(&self) -> &[String] {
        self.notation.roles()
    }

    fn play<'a>(
        &'a self,
        game: &'a GgpGame,
        spec: &'a MatchSpec,
        on_move: OnMove<'a>,
    ) -> Played<'a> {
        Box::pin(play_with_engine(self, game, spec, on_move))
    }
}

/// The match, every reply checked by the engine.
async fn play_with_engine<G: Game>(
    engine: &Engine<G>,
    game: &GgpGame,
    spec: &MatchSpec,
    on_move: OnMove<'_>,
) -> MatchRecord {
    let match_start = Instant::now();
    let notation = &*engine.notation;
    let mut position = engine.start.clone();
    let mut faults = Vec::new();
    let mut moves = Vec::new();
    let mut move_us = Vec::new();
    let mut overheads = Vec::new();
    let role_names = notation.roles();
    let noop = Sexpr::atom(notation.noop());

    let clocks = Clocks {
        dialect: spec.dialect,
        id: &spec.id,
        start_clock: spec.start_clock,
        play_clock: spec.play_clock,
    };
    start_all(&spec.addrs, role_names, &game.rules, clocks, &mut faults).await;

    let play_wait = clocks.play_wait();
    let mut last_joint: Option<Vec<Sexpr>> = None;
    let goals = loop {
        let ply = moves.len() as u32;
        let ply_start = Instant::now();
        let body = spec.dialect.play(&spec.id, last_joint.as_deref());
        let replies = exchange_all(&spec.addrs, &body, play_wait).await;
        // The roles take turns, the first role first.
        let mover = ply as usize % 2;
        let mut chosen: Option<G::Move> = None;
        let mut slowest = Duration::ZERO;
        for (i, reply) in replies.into_iter().enumerate() {
            let role = &role_names[i];
            match reply {
                Err(e) => {
                    slowest = play_wait;
                    faults.push(fault(ply, role, classify(&e), e.to_string()));
                    if i == mover {
                        move_us.push(play_wait.as_micros() as u64);
                    }
                }
                Ok(r) => {
                    slowest = slowest.max(r.elapsed);
                    let parsed = Sexpr::parse(&r.body);
                    if i == mover {
                        move_us.push(r.elapsed.as_micros() as u64);
                        match parsed {
                            Err(e) => faults.push(fault(
                                ply,
                                role,
                                FaultKind::Garbage,
                                format!("{:?}: {e}", r.body),
                            )),
                            Ok(term) => match notation.parse_move(&position, &term) {
                                Ok(m) => chosen = Some(m),
                                Err(e) => faults.push(fault(ply, role, FaultKind::Illegal, e)),
                            },
                        }
                    } else if !parsed.is_ok_and(|t| notation.is_noop(&t)) {
                        faults.push(fault(
                            ply,
                            role,
                            FaultKind::NotNoop,
                            format!("replied {:?}", r.body),
                        ));
                    }
                }
            }
        }
        let overhead_start = Instant::now();
        let mv = chosen
            .or_else(|| notation.substitute(&position))
            .expect("a live game has a legal move");
        let term = notation.move_term(&position, mv);
        moves.push(term.to_string());
        let took = move_us.last().copied().unwrap_or_default();
        on_move(ply as usize, &moves[ply as usize], took);
        position.make(mv);
        last_joint = Some(if mover == 0 {
            vec![term, noop.clone()]
        } else {
            vec![noop.clone(), term]
        });
        overheads.push(
            ply_start
                .elapsed()
                .saturating_sub(slowest)
                .max(overhead_start.elapsed()),
        );
        if let Some(outcome) = game::result(&position) {
            break goals_of(outcome, 1 - mover);
        }
    };

    stop_all(
        &spec.addrs,
        last_joint.as_deref().unwrap_or_default(),
        clocks,
    )
    .await;
    overheads.sort();
    let record = MatchRecord {
        id: spec.id.clone(),
        size: game.condition.clone(),
        players: spec.names.clone(),
        cpu: [None, None],
        dialect: Some(spec.dialect),
        start_clock: spec.start_clock,
        play_clock: PlayClock::from_secs(spec.play_clock),
        moves,
        faults,
        goals,
        duration_ms: match_start.elapsed().as_millis() as u64,
        move_us,
        referee_overhead_us: overheads
            .get(overheads.len() / 2)
            .map_or(0, |d| d.as_micros() as u64),
        roles: [role_names[0].clone(), role_names[1].clone()],
        worker: None,
        goal_values: None,
        opening: None,
    };
    info!(
        id = %record.id, first = %record.players[0], second = %record.players[1],
        result = %format!("{} {}", goals[0], goals[1]), moves = record.moves.len(),
        faults = record.faults.len(), "match over"
    );
    log_faults(&record.id, &record.faults);
    record
}

/// The goals `[first role, second role]` of a game over with `outcome` for the role
/// `to_move`: 100 a win, 50 a draw, 0 a loss.
fn goals_of(outcome: Outcome, to_move: usize) -> [u8; 2] {
    let own = match outcome {
        Outcome::Win => 100,
        Outcome::Draw => 50,
        Outcome::Loss => 0,
    };
    let mut goals = [100 - own; 2];
    goals[to_move] = own;
    goals
}
