//! A course program as a player: started afresh for every move, the request on its
//! standard input in the game's own protocol ([`crate::spec::request`]), one line back within
//! the course's limit, the process's start included, as the NUS framework ran students'
//! agents. So a student's agent can play ours, and ours each other, through the very
//! protocol the course used.

use std::io::{Read, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::mover::{Fault, Mover, forced_pass};
use super::shell;
use crate::game::Game;
use crate::spec::request::{self, RequestProtocol};

/// The most of a program's output read: an answer is one short line.
const MAX_ANSWER_BYTES: u64 = 4096;

/// A program run through the shell (`sh -c`), so that `java -jar agent.jar` works.
pub struct Program<G: Game> {
    command: String,
    protocol: &'static RequestProtocol<G>,
}

impl<G: Game> Program<G> {
    pub fn new(command: &str, protocol: &'static RequestProtocol<G>) -> Program<G> {
        Program {
            command: command.to_owned(),
            protocol,
        }
    }

    fn spawn(&self) -> std::io::Result<Child> {
        shell::command(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    }
}

impl<G: Game> Mover<G> for Program<G> {
    /// The course's limit, whatever the match's play clock.
    fn clock(&self, _play_clock: Duration) -> Duration {
        self.protocol.limit
    }

    fn next_move(&mut self, position: &G, ply: usize, _earlier: &[u64]) -> Result<G::Move, Fault> {
        if let Some(pass) = forced_pass(position, self.protocol.is_pass) {
            return Ok(pass);
        }
        let began = Instant::now();
        // Counted in turns from 1, as the course's framework did on its first request.
        let request = request::write_request(self.protocol, (ply / 2 + 1) as i64, position);
        let mut child = self
            .spawn()
            .map_err(|e| Fault::NoAnswer(format!("`{}` did not start: {e}", self.command)))?;
        // A program that exits without reading its input is judged by its answer.
        let _ = child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(request.as_bytes());
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = String::new();
            let mut err = String::new();
            if let Some(s) = stdout {
                let _ = s.take(MAX_ANSWER_BYTES).read_to_string(&mut out);
            }
            if let Some(s) = stderr {
                let _ = s.take(MAX_ANSWER_BYTES).read_to_string(&mut err);
            }
            let _ = tx.send((out, err));
        });
        let wait = self.protocol.limit.saturating_sub(began.elapsed());
        let answer = rx.recv_timeout(wait);
        // Killed at the limit as the course's framework did, with all it started.
        shell::end_group(&mut child, Duration::ZERO);
        let (out, err) = answer.map_err(|_| Fault::Late {
            ms: began.elapsed().as_millis() as u64,
        })?;
        let line = out.lines().next().unwrap_or("").trim();
        (self.protocol.read_move)(position, line).ok_or_else(|| match err.lines().next() {
            Some(e) if line.is_empty() => Fault::NoAnswer(format!("stderr: {e}")),
            _ if line.is_empty() => Fault::NoAnswer("nothing on stdout".to_owned()),
            _ => Fault::Illegal(format!("{line:?}")),
        })
    }
}
