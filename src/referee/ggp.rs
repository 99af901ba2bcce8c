//! What every GGP match needs, whoever checks the moves: START to all players, one
//! message to all at once, STOP to all, and faults for the replies that went wrong.

use std::time::Duration;

use tracing::warn;

use super::client::{self, ExchangeError};
use super::dialect::Dialect;
use super::record::{Fault, FaultKind};
use crate::sexpr::Sexpr;

/// Both controllers wait this long past a clock before giving up on a reply.
pub const GRACE: Duration = Duration::from_secs(1);

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
