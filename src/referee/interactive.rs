//! A course program that plays a whole game in one process as a referee's player,
//! driven the way CS61B's harness drives two of them ([`crate::spec::interactive`]): started at
//! its first move with the lines that give it its side, fed each of the other side's
//! moves, timed from the line that asks for a move to the line that gives it, per move
//! and over the game, as the harness timed it. A program that crashes, ends, prints too
//! much or names an illegal move loses.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::mover::{Fault, Mover, forced_pass};
use super::shell;
use crate::game::Game;
use crate::spec::interactive::InteractiveProtocol;

/// The longest output line kept: a move line is a few bytes, a board dump a few dozen.
const MAX_LINE_BYTES: u64 = 4096;

/// How long a program that was told to quit may take to exit before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// A program run through the shell (`sh -c`), so that `java -ea loa.Main` works.
pub struct Interactive<G: Game> {
    command: String,
    protocol: &'static InteractiveProtocol<G>,
    running: Option<Running>,
    /// Lines not yet written: the other side's moves since this program last moved.
    pending: Vec<String>,
    /// What this program's moves have taken so far.
    used: Duration,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Output>,
    /// The first standard-error line with the protocol's crash text, if one came.
    crash: Arc<Mutex<Option<String>>>,
    /// The standard-error reader, which ends when the program's standard error closes.
    errors: JoinHandle<()>,
}

/// What the output reader passes on.
enum Output {
    Move(String),
    TooMuch,
}

impl<G: Game> Interactive<G> {
    pub fn new(command: &str, protocol: &'static InteractiveProtocol<G>) -> Interactive<G> {
        Interactive {
            command: command.to_owned(),
            protocol,
            running: None,
            pending: Vec::new(),
            used: Duration::ZERO,
        }
    }

    /// Starts the program to play the side numbered `side`.
    fn start(&mut self, side: usize) -> Result<(), Fault> {
        let mut child = shell::command(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Fault::NoAnswer(format!("`{}` did not start: {e}", self.command)))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        let (move_text, max_lines) = (self.protocol.move_text, self.protocol.max_lines);
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            let mut line = Vec::new();
            for _ in 0..max_lines {
                line.clear();
                match (&mut out).take(MAX_LINE_BYTES).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if let Some(text) = move_text(&String::from_utf8_lossy(&line))
                    && tx.send(Output::Move(text)).is_err()
                {
                    return;
                }
            }
            let _ = tx.send(Output::TooMuch);
        });
        let crash = Arc::new(Mutex::new(None));
        let (seen, crash_text) = (crash.clone(), self.protocol.crash_text);
        let errors = std::thread::spawn(move || {
            for line in BufReader::new(stderr).split(b'\n') {
                let Ok(line) = line else { return };
                let line = String::from_utf8_lossy(&line);
                if line.contains(crash_text) {
                    seen.lock()
                        .unwrap()
                        .get_or_insert_with(|| line.into_owned());
                }
            }
        });
        let setup = (self.protocol.setup)(side).iter().map(|s| s.to_string());
        self.pending.splice(0..0, setup);
        self.running = Some(Running {
            child,
            stdin,
            lines,
            crash,
            errors,
        });
        Ok(())
    }

    /// What is left of this program's time for one move.
    fn allowed(&self) -> Duration {
        self.protocol
            .move_limit
            .min(self.protocol.game_limit.saturating_sub(self.used))
    }
}

impl<G: Game> Mover<G> for Interactive<G> {
    /// The harness's limits, whatever the match's play clock.
    fn clock(&self, _play_clock: Duration) -> Duration {
        self.allowed()
    }

    fn next_move(&mut self, position: &G, ply: usize, _earlier: &[u64]) -> Result<G::Move, Fault> {
        if let Some(pass) = forced_pass(position, self.protocol.is_pass) {
            return Ok(pass);
        }
        let began = Instant::now();
        let allowed = self.allowed();
        if self.running.is_none() {
            self.start(ply % 2)?;
        }
        let running = self.running.as_mut().expect("started above");
        let mut text = self.pending.join("\n");
        text.push('\n');
        self.pending.clear();
        // A program that has ended is judged by what it printed before.
        let _ = running
            .stdin
            .write_all(text.as_bytes())
            .and_then(|()| running.stdin.flush());
        let answer = running
            .lines
            .recv_timeout(allowed.saturating_sub(began.elapsed()));
        self.used += began.elapsed();
        if let Err(RecvTimeoutError::Disconnected) = answer {
            // The program has ended: let its last words on standard error be read.
            let waited = Instant::now();
            while !running.errors.is_finished() && waited.elapsed() < QUIT_GRACE {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        if let Some(line) = running.crash.lock().unwrap().clone() {
            return Err(Fault::Illegal(format!("crashed: {line}")));
        }
        match answer {
            Ok(Output::Move(text)) => position
                .parse_move(&text)
                .ok_or_else(|| Fault::Illegal(format!("{text:?}"))),
            Ok(Output::TooMuch) => Err(Fault::Illegal(format!(
                "printed more than {} lines",
                self.protocol.max_lines
            ))),
            Err(RecvTimeoutError::Disconnected) => {
                Err(Fault::Illegal("ended without a move".to_owned()))
            }
            Err(RecvTimeoutError::Timeout) => Err(Fault::Late {
                ms: began.elapsed().as_millis() as u64,
            }),
        }
    }

    fn observe(&mut self, position: &G, mv: G::Move) {
        if let Some(line) = (self.protocol.write_move)(position, mv) {
            self.pending.push(line);
        }
    }
}

impl<G: Game> Drop for Interactive<G> {
    /// Tells the program to quit, then kills its process group: at once if it has quit
    /// (whatever it started goes too), after `QUIT_GRACE` if not.
    fn drop(&mut self) {
        let Some(mut running) = self.running.take() else {
            return;
        };
        let _ = writeln!(running.stdin, "{}", self.protocol.quit);
        drop(running.stdin);
        shell::end_group(&mut running.child, QUIT_GRACE);
    }
}
