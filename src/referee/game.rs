//! One match, refereed as the real controllers do: START to both players, PLAY with
//! the previous joint move until the game ends, STOP with the last one. Every reply
//! is checked against the engine; a late, unreadable or illegal move is replaced by
//! the first legal move (as Dresden does) and recorded as a fault.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tracing::{info, warn};

use super::client::{self, ExchangeError};
use super::dialect::Dialect;
use crate::games::breakthrough::terms::Terms;
use crate::games::breakthrough::{Board, BoardSize, Color, Move, MoveList};
use crate::sexpr::Sexpr;

/// Both controllers wait this long past a clock before giving up on a reply.
pub const GRACE: Duration = Duration::from_secs(1);

/// What one match needs.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub id: String,
    pub size: BoardSize,
    /// The rules sent in START (the project's own GDL for `size`).
    pub rules: Vec<Sexpr>,
    /// `host:port` of the white and the black player.
    pub addrs: [String; 2],
    /// Names of the players, for the record.
    pub names: [String; 2],
    pub start_clock: u64,
    pub play_clock: u64,
    pub dialect: Dialect,
}

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
    pub size: String,
    pub white: String,
    pub black: String,
    pub dialect: Dialect,
    pub start_clock: u64,
    pub play_clock: u64,
    /// Moves in play order, as `(move x1 y1 x2 y2)`.
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
        let first = self.roles.first().map_or("white", String::as_str);
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
}

/// Plays one match to its end. Never fails: whatever the players do, the match
/// reaches a result (faults are recorded instead).
pub async fn play_match(spec: &MatchSpec) -> MatchRecord {
    let match_start = Instant::now();
    let terms =
        Terms::from_rules(&spec.rules).expect("the referee sends Breakthrough rules it can read");
    let mut board = Board::new(spec.size);
    let mut faults = Vec::new();
    let mut moves = Vec::new();
    let mut move_us = Vec::new();
    let mut overheads = Vec::new();
    let role_names = [Color::White, Color::Black].map(|c| terms.role(c).to_string());

    let clocks = Clocks {
        dialect: spec.dialect,
        id: &spec.id,
        start_clock: spec.start_clock,
        play_clock: spec.play_clock,
    };
    start_all(&spec.addrs, &role_names, &spec.rules, clocks, &mut faults).await;

    let play_wait = clocks.play_wait();
    let mut last_joint: Option<Vec<Sexpr>> = None;
    loop {
        let ply = moves.len() as u32;
        let ply_start = Instant::now();
        let body = spec.dialect.play(&spec.id, last_joint.as_deref());
        let replies = exchange_all(&spec.addrs, &body, play_wait).await;
        let mover = board.side_to_move().index();
        let mut chosen: Option<Move> = None;
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
                            Ok(term) => match terms.parse_move(&board, &term) {
                                Ok(m) => chosen = Some(m),
                                Err(e) => {
                                    faults.push(fault(ply, role, FaultKind::Illegal, e.to_string()))
                                }
                            },
                        }
                    } else if !parsed.is_ok_and(|t| terms.is_noop(&t)) {
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
        let mv = chosen.unwrap_or_else(|| first_legal_move(&board));
        let term = terms.move_term(&board, mv);
        moves.push(term.to_string());
        board.make(mv);
        let noop = Sexpr::atom(terms.noop());
        last_joint = Some(if mover == 0 {
            vec![term, noop]
        } else {
            vec![noop, term]
        });
        overheads.push(
            ply_start
                .elapsed()
                .saturating_sub(slowest)
                .max(overhead_start.elapsed()),
        );
        if board.goals().is_some() {
            break;
        }
    }

    let goals = board.goals().expect("the loop ends when the game does");
    stop_all(
        &spec.addrs,
        last_joint.as_deref().unwrap_or_default(),
        clocks,
    )
    .await;
    overheads.sort();
    let record = MatchRecord {
        id: spec.id.clone(),
        size: spec.size.to_string(),
        white: spec.names[0].clone(),
        black: spec.names[1].clone(),
        dialect: spec.dialect,
        start_clock: spec.start_clock,
        play_clock: spec.play_clock,
        moves,
        faults,
        goals,
        duration_ms: match_start.elapsed().as_millis() as u64,
        move_us,
        referee_overhead_us: overheads
            .get(overheads.len() / 2)
            .map_or(0, |d| d.as_micros() as u64),
        roles: role_names.to_vec(),
    };
    info!(
        id = %record.id, white = %record.white, black = %record.black,
        result = %format!("{} {}", goals[0], goals[1]), moves = record.moves.len(),
        faults = record.faults.len(), "match over"
    );
    log_faults(&record.id, &record.faults);
    record
}

/// What the messages of one match need besides the players.
#[derive(Clone, Copy)]
pub(super) struct Clocks<'a> {
    pub dialect: Dialect,
    pub id: &'a str,
    pub start_clock: u64,
    pub play_clock: u64,
}

impl Clocks<'_> {
    /// How long a player may take to answer a PLAY or STOP: the play clock and [`GRACE`].
    pub fn play_wait(&self) -> Duration {
        Duration::from_secs(self.play_clock) + GRACE
    }
}

/// Sends `body` to every player at once; their replies in the same order.
pub(super) async fn exchange_all(
    addrs: &[String],
    body: &str,
    wait: Duration,
) -> Vec<Result<client::Reply, ExchangeError>> {
    let handles: Vec<_> = addrs
        .iter()
        .map(|addr| {
            let (addr, body) = (addr.clone(), body.to_owned());
            tokio::spawn(async move { client::exchange(&addr, &body, wait).await })
        })
        .collect();
    let mut replies = Vec::with_capacity(handles.len());
    for handle in handles {
        replies.push(
            handle
                .await
                .unwrap_or_else(|e| Err(ExchangeError::Io(e.to_string()))),
        );
    }
    replies
}

/// START to every player at once (player `i` plays `roles[i]`); a fault for each
/// player not `ready` in time.
pub(super) async fn start_all(
    addrs: &[String],
    roles: &[String],
    rules: &[Sexpr],
    clocks: Clocks<'_>,
    faults: &mut Vec<Fault>,
) {
    let wait = Duration::from_secs(clocks.start_clock) + GRACE;
    let handles: Vec<_> = addrs
        .iter()
        .zip(roles)
        .map(|(addr, role)| {
            let body = clocks.dialect.start(
                clocks.id,
                role,
                rules,
                clocks.start_clock,
                clocks.play_clock,
            );
            let addr = addr.clone();
            tokio::spawn(async move { client::exchange(&addr, &body, wait).await })
        })
        .collect();
    for (handle, role) in handles.into_iter().zip(roles) {
        let reply = handle
            .await
            .unwrap_or_else(|e| Err(ExchangeError::Io(e.to_string())));
        match reply {
            Ok(r) if r.body.eq_ignore_ascii_case("ready") => {}
            Ok(r) => faults.push(fault(
                0,
                role,
                FaultKind::NotReady,
                format!("replied {:?}", r.body),
            )),
            Err(e) => faults.push(fault(0, role, classify(&e), e.to_string())),
        }
    }
}

/// STOP with the last joint move to every player; like the controllers, the referee
/// does not care what it is answered.
pub(super) async fn stop_all(addrs: &[String], last_joint: &[Sexpr], clocks: Clocks<'_>) {
    let stop = clocks.dialect.stop(clocks.id, last_joint);
    let _ = exchange_all(addrs, &stop, clocks.play_wait()).await;
}

/// One warning per fault of a finished match.
pub(super) fn log_faults(id: &str, faults: &[Fault]) {
    for f in faults {
        warn!(id, ply = f.ply, role = %f.role, kind = ?f.kind, detail = %f.detail, "fault");
    }
}

pub(super) fn fault(ply: u32, role: &str, kind: FaultKind, detail: String) -> Fault {
    Fault {
        ply,
        role: role.to_string(),
        kind,
        detail,
    }
}

pub(super) fn classify(e: &ExchangeError) -> FaultKind {
    match e {
        ExchangeError::Timeout(_) => FaultKind::Late,
        ExchangeError::Malformed(_) => FaultKind::Garbage,
        ExchangeError::Connect { .. } | ExchangeError::Io(_) => FaultKind::Unreachable,
    }
}

/// The substitute for a missing or illegal move: the first legal move in GGP
/// coordinate order, independent of the engine's internal move order.
pub fn first_legal_move(board: &Board) -> Move {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    list.iter()
        .min_by_key(|&m| board.move_coords(m))
        .expect("a live game has a legal move")
}
