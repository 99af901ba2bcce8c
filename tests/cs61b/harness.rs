//! The CS61B course's `test-loa` harness redone in Rust (`GAMES.md` §3.3), to drive the
//! built `loa` program as the course did.
//!
//! A script's first `#*` line is the program's command line (its first word `loa` means
//! the built program; [`run_one`] can wrap it in a shell's `ulimit -St`). Its other lines
//! are written to the program's standard input as the script goes, except the
//! directives: `#*move` (wait for an AI move and pass it to the other program, if any),
//! `#*move/win[+]` (wait for AI moves up to a result), `#*win+` (wait 5 s for a result),
//! `#*remote move/win[+]` (two programs: feed the other's moves in, wait for our replies,
//! until both report the same result) and `#*time M G` (seconds a move and a game; 10
//! and 60 until set). A `+` writes the result to the output.
//!
//! The output is what the harness keeps: every line from a `===` line to the next,
//! after deleting each line's text up to its last `>` and the blanks after it (prompts),
//! and the result lines asked for. A run fails when the program exits with a non-zero
//! status, prints `Exception in thread` on stderr or more than 3000 lines on either
//! stream, sends something malformed where a move or result is awaited, or is waited
//! for longer than the clocks allow.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const MAX_LINES: usize = 3000;
const SHORT_WAIT: Duration = Duration::from_secs(5);
const MOVE_LIMIT: Duration = Duration::from_secs(10);
const GAME_LIMIT: Duration = Duration::from_secs(60);

/// A script: the command line and the lines after it.
#[derive(Clone, Debug)]
pub struct Script {
    pub command: Vec<String>,
    pub lines: Vec<String>,
}

impl Script {
    /// Reads a script: comment and blank lines may come before the `#*` command line.
    pub fn parse(text: &str) -> Script {
        let mut lines = text.lines();
        let command = loop {
            let line = lines
                .next()
                .expect("a script starts with a `#*` command line");
            let t = line.trim();
            if let Some(c) = t.strip_prefix("#*") {
                break c.split_whitespace().map(str::to_owned).collect();
            }
            assert!(t.is_empty() || t.starts_with('#'), "before `#*`: {line:?}");
        };
        Script {
            command,
            lines: lines.map(str::to_owned).collect(),
        }
    }

    pub fn load(path: &Path) -> Script {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Script::parse(&text)
    }
}

/// How a program's run went.
#[derive(Debug, Default)]
pub struct Run {
    /// Dumps and requested results, as `test-loa` writes them to `X.out`.
    pub output: String,
    pub stderr: String,
    /// Every AI move and result line awaited, in order.
    pub messages: Vec<String>,
    /// Wall time of each `#*move/win` and `#*remote move/win`.
    pub game_times: Vec<Duration>,
    /// Why the run failed, if it did.
    pub failure: Option<String>,
}

/// A line from the program that a directive awaits: an AI move or a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Move(String),
    Win(String),
}

/// Reads `* e1-e3` or a result line (`test-loa`'s patterns); `None` if malformed.
pub fn message(line: &str) -> Option<Message> {
    let body = line.trim_start().strip_prefix('*')?.trim();
    let words: Vec<&str> = body.split_whitespace().collect();
    match words.as_slice() {
        ["Black" | "White", "wins."] | ["Tie", "game."] => Some(Message::Win(words.join(" "))),
        _ => {
            let b = body.as_bytes();
            let square = |c: u8, r: u8| {
                (b'a'..=b'h').contains(&c.to_ascii_lowercase()) && (b'1'..=b'8').contains(&r)
            };
            (b.len() >= 5 && square(b[0], b[1]) && b[2] == b'-' && square(b[3], b[4]))
                .then(|| Message::Move(body[..5].to_owned()))
        }
    }
}

/// What flows from the program's output reader to its controller.
enum Event {
    Line(String),
    Ended,
}

struct Shared {
    output: Mutex<String>,
    failure: Mutex<Option<String>>,
}

impl Shared {
    fn fail(&self, why: String) {
        self.failure.lock().unwrap().get_or_insert(why);
    }
    fn failed(&self) -> bool {
        self.failure.lock().unwrap().is_some()
    }
}

/// One program under the harness.
struct Prog {
    child: Child,
    stdin: Option<ChildStdin>,
    shared: Arc<Shared>,
    events: Receiver<Event>,
    stderr: thread::JoinHandle<String>,
    output_reader: thread::JoinHandle<()>,
    move_limit: Duration,
    game_limit: Duration,
    remaining: Duration,
    messages: Vec<String>,
    game_times: Vec<Duration>,
}

/// Stops a waiting controller: the run has failed or the other program has ended.
struct Stop;

/// The command to start: `loa` is the built program; a CPU limit wraps it in `sh`.
fn command(words: &[String], cpu_limit: Option<u32>) -> Command {
    let program = match words[0].as_str() {
        "loa" => env!("CARGO_BIN_EXE_loa").to_owned(),
        other => other.to_owned(),
    };
    match cpu_limit {
        None => {
            let mut c = Command::new(program);
            c.args(&words[1..]);
            c
        }
        Some(seconds) => {
            // `times` reports the CPU the program used (its second line) on stderr.
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!(
                    "ulimit -St {seconds}; \"$0\" \"$@\"; status=$?; times >&2; exit $status"
                ))
                .arg(program)
                .args(&words[1..]);
            c
        }
    }
}

impl Prog {
    fn start(words: &[String], cpu_limit: Option<u32>) -> Prog {
        let mut child = command(words, cpu_limit)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {words:?}: {e}"));
        let shared = Arc::new(Shared {
            output: Mutex::new(String::new()),
            failure: Mutex::new(None),
        });
        let (tx, events) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        let output_reader = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || read_output(BufReader::new(stdout), &shared, &tx))
        };
        let stderr = child.stderr.take().unwrap();
        let stderr = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || read_errors(BufReader::new(stderr), &shared))
        };
        Prog {
            stdin: child.stdin.take(),
            child,
            shared,
            events,
            stderr,
            output_reader,
            move_limit: MOVE_LIMIT,
            game_limit: GAME_LIMIT,
            remaining: GAME_LIMIT,
            messages: Vec::new(),
            game_times: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        if let Some(stdin) = &mut self.stdin {
            // A program that has exited is noticed by the reader.
            let _ = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        }
    }

    fn fail(&self, why: impl Into<String>) -> Stop {
        self.shared.fail(why.into());
        Stop
    }

    /// The next move or result line, within the move limit and what is left of the
    /// game's; forwarded to `other` if there is one.
    fn our_message(&mut self, other: Option<&Sender<Message>>) -> Result<Message, Stop> {
        let wait = self.move_limit.min(self.remaining);
        let started = Instant::now();
        let event = self.events.recv_timeout(wait);
        self.remaining = self.remaining.saturating_sub(started.elapsed());
        let line = match event {
            Ok(Event::Line(line)) => line,
            Ok(Event::Ended) | Err(RecvTimeoutError::Disconnected) => {
                return Err(self.fail("the program's output ended while a move was awaited"));
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(self.fail(format!("time limit exceeded waiting for a move ({wait:?})")));
            }
        };
        let m =
            message(&line).ok_or_else(|| self.fail(format!("malformed move or win: {line:?}")))?;
        self.messages.push(line.trim().to_owned());
        if let Some(other) = other {
            let _ = other.send(m.clone());
        }
        Ok(m)
    }

    fn remote_message(&mut self, remote: &Receiver<Message>) -> Result<Message, Stop> {
        let wait = self.move_limit.min(self.remaining);
        let started = Instant::now();
        let m = remote.recv_timeout(wait);
        self.remaining = self.remaining.saturating_sub(started.elapsed());
        match m {
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Disconnected) => Err(self.fail("the remote game ended")),
            Err(RecvTimeoutError::Timeout) => {
                Err(self.fail("time limit exceeded waiting for the opponent"))
            }
        }
    }

    fn record(&self, result: &str) {
        let mut out = self.shared.output.lock().unwrap();
        out.push_str(result);
        out.push('\n');
    }

    /// `#*move/win[+]`: AI moves until a result.
    fn local_game(&mut self, print: bool, other: Option<&Sender<Message>>) -> Result<(), Stop> {
        self.remaining = self.game_limit;
        let started = Instant::now();
        loop {
            if let Message::Win(result) = self.our_message(other)? {
                self.game_times.push(started.elapsed());
                if print {
                    self.record(&format!("* {result}"));
                }
                self.remaining = self.move_limit;
                return Ok(());
            }
        }
    }

    /// `#*remote move/win[+]`: the other's moves in, ours out, until both report the
    /// same result.
    fn remote_game(
        &mut self,
        print: bool,
        other: Option<&Sender<Message>>,
        remote: Option<&Receiver<Message>>,
    ) -> Result<(), Stop> {
        let (Some(other), Some(remote)) = (other, remote) else {
            return Err(self.fail("remote directive without an opponent"));
        };
        self.remaining = self.game_limit;
        let started = Instant::now();
        let mut result: Option<String> = None;
        loop {
            for from_remote in [true, false] {
                let m = if from_remote {
                    self.remote_message(remote)?
                } else {
                    self.our_message(Some(other))?
                };
                match (m, &result) {
                    (Message::Win(w), Some(r)) => {
                        if &w != r {
                            return Err(self.fail(format!("conflicting results: {r} and {w}")));
                        }
                        self.game_times.push(started.elapsed());
                        if print {
                            self.record(&format!("* {w}"));
                        }
                        return Ok(());
                    }
                    (Message::Win(w), None) => result = Some(w),
                    (Message::Move(_), Some(_)) => {
                        return Err(self.fail("a move after a result"));
                    }
                    (Message::Move(mv), None) => {
                        if from_remote {
                            self.send(&mv);
                        }
                    }
                }
            }
        }
    }

    /// Runs the script's lines; returns the run once the program has exited.
    fn control(
        mut self,
        lines: &[String],
        other: Option<Sender<Message>>,
        remote: Option<Receiver<Message>>,
    ) -> Run {
        let ran = self.run_lines(lines, other.as_ref(), remote.as_ref());
        drop(other);
        self.stop(ran.is_err())
    }

    fn run_lines(
        &mut self,
        lines: &[String],
        other: Option<&Sender<Message>>,
        remote: Option<&Receiver<Message>>,
    ) -> Result<(), Stop> {
        for line in lines {
            let Some(directive) = line.trim().strip_prefix("#*") else {
                self.send(line);
                continue;
            };
            let words: Vec<&str> = directive.split_whitespace().collect();
            match words.as_slice() {
                ["move"] => {
                    self.remaining = self.game_limit;
                    if let Message::Win(w) = self.our_message(other)? {
                        return Err(self.fail(format!("unexpected result {w}")));
                    }
                }
                ["move/win"] => self.local_game(false, other)?,
                ["move/win+"] => self.local_game(true, other)?,
                ["remote", "move/win"] => self.remote_game(false, other, remote)?,
                ["remote", "move/win+"] => self.remote_game(true, other, remote)?,
                ["win+"] => {
                    self.remaining = SHORT_WAIT;
                    match self.our_message(other)? {
                        Message::Win(w) => self.record(&format!("* {w}")),
                        Message::Move(m) => {
                            return Err(self.fail(format!("expected a result, got {m}")));
                        }
                    }
                }
                ["time", m, g] => {
                    let secs = |s: &str| Duration::from_secs_f64(s.parse().expect("seconds"));
                    self.move_limit = secs(m);
                    self.game_limit = secs(g);
                }
                _ => return Err(self.fail(format!("invalid directive {line:?}"))),
            }
            if self.shared.failed() {
                return Err(Stop);
            }
        }
        Ok(())
    }

    /// Closes the input and waits up to 5 s for the program to exit (then kills it).
    fn stop(mut self, failed: bool) -> Run {
        drop(self.stdin.take());
        if failed {
            let _ = self.child.kill();
        }
        let deadline = Instant::now() + SHORT_WAIT;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                _ => {
                    let _ = self.child.kill();
                    break self.child.wait().ok();
                }
            }
        };
        self.output_reader.join().unwrap();
        let stderr = self.stderr.join().unwrap();
        if !status.is_some_and(|s| s.success()) {
            self.shared
                .fail(format!("process did not exit normally: {status:?}"));
        }
        let output = std::mem::take(&mut *self.shared.output.lock().unwrap());
        Run {
            output,
            stderr,
            messages: self.messages,
            game_times: self.game_times,
            failure: self.shared.failure.lock().unwrap().take(),
        }
    }
}

/// The stdout reader: strips prompts, collects dumps, queues `*` lines.
fn read_output(stdout: impl BufRead, shared: &Shared, events: &Sender<Event>) {
    let mut dumping = false;
    for (count, line) in stdout.split(b'\n').enumerate() {
        let Ok(line) = line else { break };
        if count >= MAX_LINES {
            shared.fail("too much output".into());
            break;
        }
        let line = String::from_utf8_lossy(&line).into_owned();
        let line = strip_prompt(&line);
        if dumping {
            push_line(shared, line);
            dumping = !line.starts_with("===");
        } else if line.trim_start().starts_with('*') {
            let _ = events.send(Event::Line(line.to_owned()));
        } else if line.starts_with("===") {
            push_line(shared, line);
            dumping = true;
        }
    }
    let _ = events.send(Event::Ended);
}

fn push_line(shared: &Shared, line: &str) {
    let mut out = shared.output.lock().unwrap();
    out.push_str(line);
    out.push('\n');
}

/// Deletes everything up to the last `>` and the blanks after it (`^.*> *`).
pub fn strip_prompt(line: &str) -> &str {
    match line.rfind('>') {
        Some(i) => line[i + 1..].trim_start_matches(' '),
        None => line,
    }
}

fn read_errors(stderr: impl BufRead, shared: &Shared) -> String {
    let mut all = String::new();
    for (count, line) in stderr.split(b'\n').enumerate() {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        if count >= MAX_LINES {
            shared.fail("too much error output".into());
            break;
        }
        if line.contains("Exception in thread") {
            shared.fail(format!("terminated with {line}"));
        }
        all.push_str(&line);
        all.push('\n');
    }
    all
}

/// Runs one script against one program (under a CPU limit in seconds if given).
pub fn run_one(script: &Script, cpu_limit: Option<u32>) -> Run {
    Prog::start(&script.command, cpu_limit).control(&script.lines, None, None)
}

/// Runs two scripts against two programs playing each other.
pub fn run_two(first: &Script, second: &Script) -> (Run, Run) {
    let (to_second, from_first) = mpsc::channel();
    let (to_first, from_second) = mpsc::channel();
    let p1 = Prog::start(&first.command, None);
    let p2 = Prog::start(&second.command, None);
    let (l1, l2) = (first.lines.clone(), second.lines.clone());
    let h1 = thread::spawn(move || p1.control(&l1, Some(to_second), Some(from_second)));
    let h2 = thread::spawn(move || p2.control(&l2, Some(to_first), Some(from_first)));
    (h1.join().unwrap(), h2.join().unwrap())
}

/// `tester.py`'s comparison: `#` to the end of a line removed, trailing blanks and blank
/// lines dropped.
pub fn normalise(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim_end().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}
