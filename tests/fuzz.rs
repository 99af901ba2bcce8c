//! The protocol fuzzer: a live `ggp-player serve` process (the built binary, on a free
//! loopback port) gets a long seeded stream of valid matches mixed with bad input —
//! truncated and reordered messages, unknown ids, duplicate STARTs, huge numbers and
//! clocks, non-UTF-8, oversized and random bodies, slow senders, clients that vanish —
//! while its resident memory is sampled. Afterwards every valid match must have been
//! played to its end with legal moves within the play clock, every bad message must have
//! had the reply it deserves, and the server must still answer.
//!
//! `fuzz_protocol_briefly` runs in `cargo test`; `fuzz_protocol` is the long run
//! (`scripts/fuzz-protocol.sh`, figures in docs/measurements.md).

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ggp_player::games::breakthrough::{Board, BoardSize, Color};
use ggp_player::player::handler;
use ggp_player::player::server::MAX_BODY_BYTES;
use ggp_player::sexpr::Sexpr;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::controller::{
    Dialect, READ_TIMEOUT, Reply, course_rules, is_over, joint_move, moves_message,
    parse_move_reply, plain_list, random_move, read_reply, start_message, try_send_raw,
};

/// Matches the server plays at once (its `--max-matches`).
const MAX_MATCHES: usize = 8;
/// The server frees a match quiet for its clocks plus its grace, and looks every second;
/// the fuzzer counts two seconds more.
const IDLE_GRACE: Duration = Duration::from_secs(handler::IDLE_GRACE.as_secs() + 2);

/// One run of the fuzzer.
struct Plan {
    binary: PathBuf,
    /// Messages to send (valid and bad together); the matches in progress are finished.
    messages: usize,
    seed: u64,
    /// Nothing new is begun after this.
    time_limit: Duration,
    /// Valid matches at once.
    lanes: usize,
    sizes: Vec<BoardSize>,
    /// Start and play clocks of the valid matches, seconds.
    start_clocks: Vec<u64>,
    play_clocks: Vec<u64>,
    /// More `serve` arguments (e.g. `--margin-ms`, `--no-ponder`).
    serve_args: Vec<String>,
    /// Leave some bad matches abandoned (no STOP or ABORT) and wait until the server has
    /// freed them before the last memory sample.
    abandon: bool,
    /// Pause between the bytes of a slow sender's body.
    trickle: Duration,
}

#[derive(Debug, Default)]
struct Report {
    /// Messages sent, by kind.
    messages: BTreeMap<&'static str, usize>,
    faults: Vec<String>,
    matches_started: usize,
    matches_completed: usize,
    our_moves: usize,
    slowest_move: Duration,
    /// Replies (valid or junk matches) the server made without a search result.
    quick_moves: usize,
    /// Resident memory (VmRSS), KiB: before the first message, the most, the last.
    rss_start: u64,
    rss_peak: u64,
    rss_final: u64,
    took: Duration,
}

impl Report {
    fn print(&self, plan: &Plan) {
        let total: usize = self.messages.values().sum();
        println!(
            "seed {}, {total} messages in {:.1} s; valid matches {} started, {} completed, \
             {} moves of ours (slowest {} ms); quick moves without a search result {}; \
             faults {}",
            plan.seed,
            self.took.as_secs_f64(),
            self.matches_started,
            self.matches_completed,
            self.our_moves,
            self.slowest_move.as_millis(),
            self.quick_moves,
            self.faults.len()
        );
        for (kind, n) in &self.messages {
            println!("  {kind:<22} {n}");
        }
        let mib = |k: u64| k as f64 / 1024.0;
        println!(
            "resident memory MiB: start {:.1}, peak {:.1}, final {:.1}",
            mib(self.rss_start),
            mib(self.rss_peak),
            mib(self.rss_final)
        );
        for fault in self.faults.iter().take(20) {
            println!("FAULT {fault}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// The server process.

struct Served {
    child: Child,
    addr: SocketAddr,
    /// Log lines that tell of a panic.
    panics: Arc<Mutex<Vec<String>>>,
    /// Moves the server answered without a search result (its quick legal move).
    quick_moves: Arc<AtomicUsize>,
}

impl Served {
    fn start(plan: &Plan) -> Served {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(&plan.binary)
            .args(["serve", "--port", &port.to_string(), "--threads", "1"])
            .args(["--max-matches", &MAX_MATCHES.to_string()])
            .args(&plan.serve_args)
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", plan.binary.display()));
        let panics = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let quick_moves = Arc::new(AtomicUsize::new(0));
        let (seen, quick) = (Arc::clone(&panics), Arc::clone(&quick_moves));
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("panicked") {
                    seen.lock().unwrap().push(line);
                } else if line.contains("no search result") {
                    quick.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let started = Instant::now();
        while try_send_raw(addr, &Dialect::GgpBase.request("( INFO )")).is_err() {
            assert!(started.elapsed().as_secs() < 20, "the player did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Served {
            child,
            addr,
            panics,
            quick_moves,
        }
    }

    /// Resident memory in KiB (`VmRSS`), if the process is there.
    fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------
// Sending, and what came back.

struct Fuzzer<'a> {
    plan: &'a Plan,
    addr: SocketAddr,
    began: Instant,
    sent: AtomicUsize,
    report: Mutex<Report>,
}

impl Fuzzer<'_> {
    /// Whether to begin something new.
    fn more(&self) -> bool {
        self.sent.load(Ordering::Relaxed) < self.plan.messages
            && self.began.elapsed() < self.plan.time_limit
    }

    fn count(&self, kind: &'static str) {
        self.sent.fetch_add(1, Ordering::Relaxed);
        *self
            .report
            .lock()
            .unwrap()
            .messages
            .entry(kind)
            .or_default() += 1;
    }

    fn fault(&self, what: String) {
        self.report.lock().unwrap().faults.push(what);
    }

    fn connect(&self) -> Result<TcpStream, String> {
        let stream = TcpStream::connect(self.addr).map_err(|e| format!("cannot connect: {e}"))?;
        stream
            .set_read_timeout(Some(READ_TIMEOUT))
            .map_err(|e| e.to_string())?;
        Ok(stream)
    }

    /// A whole request; the reply read to EOF.
    fn send(&self, kind: &'static str, bytes: &[u8]) -> Result<Reply, String> {
        self.count(kind);
        try_send_raw(self.addr, bytes)
    }

    /// A request whose reply must satisfy `ok`; a fault otherwise.
    fn expect(&self, kind: &'static str, bytes: &[u8], ok: impl Fn(&Reply) -> bool) {
        match self.send(kind, bytes) {
            Ok(reply) if ok(&reply) => {}
            Ok(reply) => self.fault(format!(
                "{kind}: {:?} got {} {:?}",
                snippet(bytes),
                reply.status,
                reply.body
            )),
            Err(e) => self.fault(format!("{kind}: {:?}: {e}", snippet(bytes))),
        }
    }

    /// `bytes`, then the client's end of the connection is shut: the reply still comes.
    fn send_and_shut(&self, kind: &'static str, bytes: &[u8]) -> Result<Vec<u8>, String> {
        self.count(kind);
        let mut stream = self.connect()?;
        let _ = stream.write_all(bytes);
        let _ = stream.shutdown(Shutdown::Write);
        let mut raw = Vec::new();
        stream
            .read_to_end(&mut raw)
            .map_err(|e| format!("no EOF: {e}"))?;
        Ok(raw)
    }

    /// `bytes`, then the client goes away, reading at most `read` bytes of the reply.
    fn send_and_vanish(&self, kind: &'static str, bytes: &[u8], read: usize) {
        self.count(kind);
        if let Ok(mut stream) = self.connect() {
            let _ = stream.write_all(bytes);
            let mut buf = vec![0; read];
            let _ = stream.read_exact(&mut buf);
        }
    }

    /// `head` at once, then `body` byte by byte; the reply read to EOF.
    fn trickle(&self, kind: &'static str, head: &str, body: &[u8]) -> Result<Reply, String> {
        self.count(kind);
        let start = Instant::now();
        let mut stream = self.connect()?;
        stream
            .write_all(head.as_bytes())
            .map_err(|e| e.to_string())?;
        for b in body {
            std::thread::sleep(self.plan.trickle);
            stream.write_all(&[*b]).map_err(|e| e.to_string())?;
        }
        read_reply(stream, start)
    }

    fn info_ok(&self, kind: &'static str) {
        self.expect(kind, &Dialect::GgpBase.request("( INFO )"), |r| {
            r.status == 200 && r.body.contains("available")
        });
    }
}

/// The start of a request, for a fault's description.
/// A request for a fault's description: its body's start (or its start, without one).
fn snippet(bytes: &[u8]) -> String {
    let body = [&b"\n\n"[..], b"\r\n\r\n"]
        .iter()
        .filter_map(|end| {
            bytes
                .windows(end.len())
                .position(|w| w == *end)
                .map(|at| at + end.len())
        })
        .min()
        .map_or(bytes, |at| &bytes[at..]);
    let text = String::from_utf8_lossy(&body[..body.len().min(120)]);
    text.replace('\n', " ")
}

fn status_in(allowed: &'static [u16]) -> impl Fn(&Reply) -> bool {
    move |r| allowed.contains(&r.status)
}

fn any_dialect(rng: &mut Xoshiro256PlusPlus) -> Dialect {
    if rng.random_bool(0.5) {
        Dialect::Dresden
    } else {
        Dialect::GgpBase
    }
}

fn any_color(rng: &mut Xoshiro256PlusPlus) -> Color {
    if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    }
}

// ---------------------------------------------------------------------------------------
// Valid matches, each played to its end against a random mover.

fn valid_lane(f: &Fuzzer, lane: usize) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(f.plan.seed.wrapping_mul(31) + lane as u64);
    let mut n = 0;
    while f.more() {
        let size = *f.plan.sizes.choose(&mut rng).unwrap();
        let play_clock = *f.plan.play_clocks.choose(&mut rng).unwrap();
        let id = format!("valid.{lane}.{n}-{size}");
        f.report.lock().unwrap().matches_started += 1;
        match valid_match(f, &mut rng, &id, size, play_clock) {
            Ok(()) => f.report.lock().unwrap().matches_completed += 1,
            Err(e) => {
                f.fault(format!("match {id}: {e}"));
                // Freed at once, so that it does not hold a place.
                let _ = f.send(
                    "valid ABORT",
                    &Dialect::GgpBase.request(&format!("(ABORT {id})")),
                );
            }
        }
        n += 1;
    }
}

fn valid_match(
    f: &Fuzzer,
    rng: &mut Xoshiro256PlusPlus,
    id: &str,
    size: BoardSize,
    play_clock: u64,
) -> Result<(), String> {
    let dialect = any_dialect(rng);
    let ours = any_color(rng);
    let start_clock = *f.plan.start_clocks.choose(rng).unwrap();
    let start = start_message(
        dialect,
        id,
        ours,
        &course_rules(size),
        start_clock,
        &play_clock.to_string(),
    );
    let reply = f.send("valid START", &dialect.request(&start))?;
    if reply.status != 200 || reply.body != "ready" {
        return Err(format!("START: {} {:?}", reply.status, reply.body));
    }
    if reply.elapsed >= Duration::from_secs(start_clock) {
        return Err(format!("START answered after {:?}", reply.elapsed));
    }
    let clock = Duration::from_secs(play_clock);
    let mut board = Board::new(size);
    let mut joint: Option<Vec<Sexpr>> = None;
    for ply in 0..1000 {
        let play = moves_message(dialect, "PLAY", id, joint.as_deref());
        if rng.random_bool(0.2) {
            stray(f, rng, dialect, &play);
        }
        let reply = f.send("valid PLAY", &dialect.request(&play))?;
        if reply.status != 200 {
            return Err(format!("ply {ply}: {} {:?}", reply.status, reply.body));
        }
        if reply.elapsed >= clock {
            return Err(format!(
                "ply {ply}: {:?} after {:?}",
                reply.body, reply.elapsed
            ));
        }
        let mv = if board.side_to_move() == ours {
            let mut report = f.report.lock().unwrap();
            report.our_moves += 1;
            report.slowest_move = report.slowest_move.max(reply.elapsed);
            drop(report);
            parse_move_reply(&reply.body, &board, dialect).map_err(|e| format!("ply {ply}: {e}"))?
        } else if reply.body == dialect.noop() {
            random_move(&board, rng)
        } else {
            return Err(format!(
                "ply {ply}: {:?} on the opponent's turn",
                reply.body
            ));
        };
        let this_joint = joint_move(dialect, &board, mv);
        board.make(mv);
        if is_over(&board) {
            let stop = moves_message(dialect, "STOP", id, Some(&this_joint));
            let reply = f.send("valid STOP", &dialect.request(&stop))?;
            if reply.status != 200 || reply.body != "done" {
                return Err(format!("STOP: {} {:?}", reply.status, reply.body));
            }
            return Ok(());
        }
        joint = Some(this_joint);
    }
    Err("no end after 1000 plies".into())
}

/// A broken copy of a valid match's next PLAY that must leave the match as it is: cut
/// short, with a non-UTF-8 keyword, or abandoned half sent.
fn stray(f: &Fuzzer, rng: &mut Xoshiro256PlusPlus, dialect: Dialect, play: &str) {
    let body = play.as_bytes();
    let cut = rng.random_range(1..body.len());
    match rng.random_range(0..4) {
        0 => f.expect(
            "truncated",
            &dialect.request(&play[..cut]),
            status_in(&[400]),
        ),
        1 => {
            let mut bytes = dialect.head(body.len()).into_bytes();
            bytes.extend_from_slice(&body[..cut]);
            check_cut_body(f, &bytes);
        }
        2 => {
            let mut broken = body.to_vec();
            let at = broken.iter().position(|b| b.is_ascii_alphabetic()).unwrap() + 1;
            broken.insert(at, 0xff);
            let mut bytes = dialect.head(broken.len()).into_bytes();
            bytes.extend_from_slice(&broken);
            f.expect("non-UTF-8", &bytes, status_in(&[400]));
        }
        _ => {
            let mut bytes = dialect.head(body.len()).into_bytes();
            bytes.extend_from_slice(&body[..cut]);
            f.send_and_vanish("vanish mid-request", &bytes, 0);
        }
    }
}

/// A body shorter than its Content-Length, then the client's end shut: an error reply.
fn check_cut_body(f: &Fuzzer, bytes: &[u8]) {
    match f.send_and_shut("cut body", bytes) {
        Ok(raw) if raw.starts_with(b"HTTP/1.0 400") || raw.starts_with(b"HTTP/1.1 400") => {}
        Ok(raw) => f.fault(format!(
            "cut body {:?}: got {:?}",
            snippet(bytes),
            snippet(&raw)
        )),
        Err(e) => f.fault(format!("cut body {:?}: {e}", snippet(bytes))),
    }
}

// ---------------------------------------------------------------------------------------
// Bad input.

/// Matches the bad input started: each is ABORTed when room is needed and at the end,
/// except abandoned ones, which the server frees by itself once they are quiet for
/// longer than their clocks allow.
struct Junk {
    live: VecDeque<JunkMatch>,
    next: usize,
    /// Live junk matches at most, so that valid matches always find room.
    room: usize,
}

struct JunkMatch {
    id: String,
    /// If it was abandoned: when the server has surely freed it.
    abandoned: Option<Instant>,
    /// Its play clock is short enough to send it a PLAY (not a day-long one).
    playable: bool,
}

impl Junk {
    fn fresh_id(&mut self, rng: &mut Xoshiro256PlusPlus) -> String {
        self.next += 1;
        let tail: String = (0..rng.random_range(0..6))
            .map(|_| *b"aZ9.-_".choose(rng).unwrap() as char)
            .collect();
        format!("junk{}{tail}", self.next)
    }

    /// A new id of the plain form (`junk` and a number), for a START meant to be refused.
    fn next_id(&mut self) -> String {
        self.next += 1;
        format!("junk{}", self.next)
    }

    /// A live match's id, if any (neither abandoned nor on a day-long clock).
    fn any(&self, rng: &mut Xoshiro256PlusPlus) -> Option<String> {
        let kept: Vec<&String> = self
            .live
            .iter()
            .filter(|m| m.abandoned.is_none() && m.playable)
            .map(|m| &m.id)
            .collect();
        kept.choose(rng).map(|id| (*id).clone())
    }

    /// Frees the oldest matches until one more fits.
    fn make_room(&mut self, f: &Fuzzer) {
        while self.live.len() >= self.room {
            let old = self.live.pop_front().unwrap();
            self.abort(f, &old.id, old.abandoned);
        }
    }

    fn abort(&self, f: &Fuzzer, id: &str, abandoned: Option<Instant>) {
        let bytes = Dialect::GgpBase.request(&format!("( ABORT {id} )"));
        match abandoned {
            // Perhaps freed already.
            Some(_) => f.expect("ABORT", &bytes, status_in(&[200, 404])),
            None => f.expect("ABORT", &bytes, |r| r.status == 200 && r.body == "done"),
        }
    }

    /// STARTs a junk match (room made first); whether it got `ready`.
    fn start(
        &mut self,
        f: &Fuzzer,
        rng: &mut Xoshiro256PlusPlus,
        kind: &'static str,
        id: &str,
        clocks: (&str, &str),
    ) -> bool {
        if !self.live.iter().any(|m| m.id == id) {
            self.make_room(f);
        }
        let dialect = any_dialect(rng);
        let size = ["3x5", "4x4", "5x5", "6x4"].choose(rng).unwrap();
        let rules = plain_list(&course_rules(size.parse().unwrap()));
        let role = any_color(rng).role_name();
        let body = match dialect {
            Dialect::Dresden => format!(
                "(START {id} {} {} {} {})",
                role.to_ascii_uppercase(),
                rules.to_ascii_uppercase(),
                clocks.0,
                clocks.1
            ),
            Dialect::GgpBase => format!("( START {id} {role} {rules} {} {} )", clocks.0, clocks.1),
        };
        let before = f.report.lock().unwrap().faults.len();
        f.expect(kind, &dialect.request(&body), |r| {
            r.status == 200 && r.body == "ready"
        });
        let playable = clocks.1.len() < 3;
        match self.live.iter_mut().find(|m| m.id == id) {
            Some(m) => m.playable = playable,
            None => self.live.push_back(JunkMatch {
                id: id.to_owned(),
                abandoned: None,
                playable,
            }),
        }
        f.report.lock().unwrap().faults.len() == before
    }
}

/// Bad input until the plan's count or time runs out; then the junk matches are freed
/// (abandoned ones by the server); returns when the last abandoned one is surely freed.
fn chaos_lane(f: &Fuzzer) -> Instant {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(f.plan.seed);
    let mut junk = Junk {
        live: VecDeque::new(),
        next: 0,
        room: MAX_MATCHES - f.plan.lanes - 1,
    };
    while f.more() {
        bad_message(f, &mut rng, &mut junk);
    }
    let mut freed_by = Instant::now();
    for m in std::mem::take(&mut junk.live) {
        match m.abandoned {
            Some(at) if f.plan.abandon => freed_by = freed_by.max(at),
            _ => junk.abort(f, &m.id, m.abandoned),
        }
    }
    freed_by
}

fn bad_message(f: &Fuzzer, rng: &mut Xoshiro256PlusPlus, junk: &mut Junk) {
    let d = any_dialect(rng);
    match rng.random_range(0..15) {
        0 => {
            let (body, want) = *[
                ("(INFO)", "available"),
                ("", "available"),
                ("info", "available"),
                ("(PREVIEW ((role white) (role black)) 10)", "ready"),
            ]
            .choose(rng)
            .unwrap();
            f.expect("INFO/PREVIEW", &d.request(body), |r| {
                r.status == 200 && r.body.contains(want)
            });
        }
        1 => {
            let message = some_message(rng, junk, d);
            let cut = rng.random_range(1..message.len());
            let cut = (1..=cut)
                .rev()
                .find(|&c| message.is_char_boundary(c))
                .unwrap();
            f.expect("truncated", &d.request(&message[..cut]), status_in(&[400]));
        }
        2 => {
            let message = some_message(rng, junk, d);
            let mut bytes = d.head(message.len()).into_bytes();
            bytes.extend_from_slice(&message.as_bytes()[..rng.random_range(0..message.len())]);
            check_cut_body(f, &bytes);
        }
        3 => reordered(f, rng, junk, d),
        4 => {
            let id = odd_id(rng);
            let body = match rng.random_range(0..3) {
                0 => format!("(PLAY {id} NIL)"),
                1 => format!("(STOP {id} ((move 1 2 1 3) noop))"),
                _ => format!("(ABORT {id})"),
            };
            f.expect("unknown id", &d.request(&body), status_in(&[404]));
        }
        5 => {
            let id = junk.fresh_id(rng);
            for _ in 0..rng.random_range(2..4) {
                junk.start(f, rng, "duplicate START", &id, ("2", "1"));
            }
        }
        6 => huge_numbers(f, rng, junk, d),
        7 => {
            let body = if rng.random_bool(0.3) {
                (0..rng.random_range(1..200))
                    .map(|_| rng.random_range(0x80..=0xffu8))
                    .collect()
            } else {
                let mut b = format!("(PLAY {} NIL)", junk.fresh_id(rng)).into_bytes();
                let at = rng.random_range(0..=b.len());
                b.insert(at, *[0xff, 0xc3, 0x80, 0xfe].choose(rng).unwrap());
                b
            };
            let mut bytes = d.head(body.len()).into_bytes();
            bytes.extend_from_slice(&body);
            f.expect("non-UTF-8", &bytes, status_in(&[400, 404]));
        }
        8 => {
            let length = MAX_BODY_BYTES + rng.random_range(1..100_000);
            let filler = *[b' ', b'(', b'x', 0xff].choose(rng).unwrap();
            let mut bytes = if rng.random_bool(0.7) {
                d.head(length).into_bytes()
            } else {
                b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec()
            };
            let chunked = bytes.starts_with(b"POST / HTTP/1.1");
            let mut left = length;
            while left > 0 {
                let n = left.min(1 << 16);
                if chunked {
                    bytes.extend_from_slice(format!("{n:x}\r\n").as_bytes());
                }
                bytes.extend(std::iter::repeat_n(filler, n));
                if chunked {
                    bytes.extend_from_slice(b"\r\n");
                }
                left -= n;
            }
            if chunked {
                bytes.extend_from_slice(b"0\r\n\r\n");
            }
            f.expect("oversized", &bytes, status_in(&[413]));
        }
        9 => {
            let random: Vec<u8> = (0..rng.random_range(1..400))
                .map(|_| rng.random())
                .collect();
            if rng.random_bool(0.5) {
                // A random body: any clear answer, never a server error.
                let mut bytes = d.head(random.len()).into_bytes();
                bytes.extend_from_slice(&random);
                f.expect("random bytes", &bytes, |r| (200..500).contains(&r.status));
            } else {
                // Not HTTP at all: refused (400) or closed.
                match f.send_and_shut("random bytes", &random) {
                    Ok(raw) if raw.is_empty() || raw.starts_with(b"HTTP/1.1 400") => {}
                    Ok(raw) => f.fault(format!("random request: got {:?}", snippet(&raw))),
                    Err(e) => f.fault(format!("random request {:?}: {e}", snippet(&random))),
                }
            }
        }
        10 => {
            let (body, want): (String, &str) = match (rng.random_range(0..3), junk.any(rng)) {
                (0, _) => ("( INFO )".into(), "available"),
                (1, Some(id)) => (format!("(PLAY {id} NIL)"), ""),
                _ => (format!("(ABORT {})", junk.fresh_id(rng)), "unknown match"),
            };
            match f.trickle("slow sender", &d.head(body.len()), body.as_bytes()) {
                Ok(r) if r.body.contains(want) && matches!(r.status, 200 | 404) => {}
                Ok(r) => f.fault(format!("slow {body}: got {} {:?}", r.status, r.body)),
                Err(e) => f.fault(format!("slow {body}: {e}")),
            }
        }
        11 => {
            let message = d.request(&some_message(rng, junk, d));
            let cut = rng.random_range(1..message.len() - 1);
            f.send_and_vanish("vanish mid-request", &message[..cut], 0);
        }
        12 => {
            let body = match junk.any(rng) {
                Some(id) if rng.random_bool(0.6) => format!("(PLAY {id} NIL)"),
                _ => "(INFO)".to_owned(),
            };
            f.send_and_vanish(
                "vanish mid-reply",
                &d.request(&body),
                rng.random_range(0..2),
            );
        }
        13 => wrong_terms(f, rng, junk, d),
        _ => {
            // Abandoned: STARTed, maybe played once, then never heard of again.
            let id = junk.fresh_id(rng);
            let (start, play) = (rng.random_range(1..=3u64), rng.random_range(1..=2u64));
            if junk.start(
                f,
                rng,
                "abandoned",
                &id,
                (&start.to_string(), &play.to_string()),
            ) {
                if rng.random_bool(0.5) {
                    f.expect("abandoned", &d.request(&format!("(PLAY {id} NIL)")), |r| {
                        r.status == 200
                    });
                }
                let freed = Instant::now() + Duration::from_secs(start + play) + IDLE_GRACE;
                if let Some(m) = junk.live.iter_mut().find(|m| m.id == id) {
                    m.abandoned = Some(freed);
                }
            }
        }
    }
}

/// A START of match `id` that must be refused (`ok`); if it is played after all, that is a
/// fault, and the match is ABORTed later like the other junk.
fn refused_start(
    f: &Fuzzer,
    junk: &mut Junk,
    kind: &'static str,
    id: &str,
    bytes: &[u8],
    ok: impl Fn(&Reply) -> bool,
) {
    match f.send(kind, bytes) {
        Ok(reply) if ok(&reply) => {}
        Ok(reply) => {
            f.fault(format!(
                "{kind}: {:?} got {} {:?}",
                snippet(bytes),
                reply.status,
                reply.body
            ));
            if reply.status == 200 {
                junk.live.push_back(JunkMatch {
                    id: id.to_owned(),
                    abandoned: None,
                    playable: false,
                });
            }
        }
        Err(e) => f.fault(format!("{kind}: {:?}: {e}", snippet(bytes))),
    }
}

/// A well-formed message about a junk match or a fresh id: START, PLAY or STOP.
fn some_message(rng: &mut Xoshiro256PlusPlus, junk: &mut Junk, d: Dialect) -> String {
    let id = junk.any(rng).unwrap_or_else(|| junk.fresh_id(rng));
    match rng.random_range(0..3) {
        0 => start_message(
            d,
            &id,
            any_color(rng),
            &course_rules("5x5".parse().unwrap()),
            10,
            "1",
        ),
        1 => format!("(PLAY {id} NIL)"),
        _ => format!("(STOP {id} ((move 1 2 1 3) noop))"),
    }
}

/// Match ids that are valid tokens but name no match.
fn odd_id(rng: &mut Xoshiro256PlusPlus) -> String {
    let chars: Vec<char> = "abcXYZ019.-_éß名🙂".chars().collect();
    let len = if rng.random_bool(0.05) {
        rng.random_range(1000..20_000)
    } else {
        rng.random_range(1..40)
    };
    let tail: String = (0..len).map(|_| *chars.choose(rng).unwrap()).collect();
    format!("never{tail}")
}

/// Messages in an order no controller sends.
fn reordered(f: &Fuzzer, rng: &mut Xoshiro256PlusPlus, junk: &mut Junk, d: Dialect) {
    let id = junk.fresh_id(rng);
    let unknown = status_in(&[404]);
    match rng.random_range(0..3) {
        0 => f.expect(
            "reordered",
            &d.request(&format!("(PLAY {id} NIL)")),
            unknown,
        ),
        1 => f.expect(
            "reordered",
            &d.request(&format!("(STOP {id} ((move 1 2 1 3) noop))")),
            unknown,
        ),
        _ => {
            // START, STOP, then PLAY and ABORT of the stopped match.
            if junk.start(f, rng, "reordered", &id, ("2", "1")) {
                f.expect("reordered", &d.request(&format!("(STOP {id} NIL)")), |r| {
                    r.status == 200 && r.body == "done"
                });
                junk.live.retain(|m| m.id != id);
                f.expect(
                    "reordered",
                    &d.request(&format!("(PLAY {id} NIL)")),
                    status_in(&[404]),
                );
                f.expect(
                    "reordered",
                    &d.request(&format!("(ABORT {id})")),
                    status_in(&[404]),
                );
            }
        }
    }
}

/// Numbers no controller sends: in clocks, in moves, in Content-Length.
fn huge_numbers(f: &Fuzzer, rng: &mut Xoshiro256PlusPlus, junk: &mut Junk, d: Dialect) {
    let huge = [
        "1000000000000000000000000000000",
        "-1",
        "-1000000000000000000000000000000",
        "86401",
        "1.5e3",
        "1e3",
        "18446744073709551616",
        "NaN",
    ];
    match rng.random_range(0..5) {
        0 => {
            let bad = *huge.choose(rng).unwrap();
            let clocks = if rng.random_bool(0.5) {
                (bad, "1")
            } else {
                ("10", bad)
            };
            let rules = plain_list(&course_rules("4x4".parse().unwrap()));
            let id = junk.next_id();
            let body = format!("(START {id} white {rules} {} {})", clocks.0, clocks.1);
            refused_start(f, junk, "huge numbers", &id, &d.request(&body), |r| {
                r.status == 400 && r.body.contains("clock")
            });
        }
        1 => {
            // A day-long clock is allowed: the match is played (and ABORTed later).
            let id = junk.fresh_id(rng);
            junk.start(f, rng, "huge numbers", &id, ("86400", "86400"));
        }
        2 => match junk.any(rng) {
            Some(id) => {
                let n = *huge.choose(rng).unwrap();
                let body = format!("(PLAY {id} ((move {n} 1 1 2) (move 1 {n} 2 {n})))");
                f.expect("huge numbers", &d.request(&body), status_in(&[200]));
            }
            None => f.info_ok("huge numbers"),
        },
        3 => {
            let bytes = b"POST / HTTP/1.0\r\nContent-Length: 99999999999999999999999\r\n\r\n(INFO)";
            f.expect("huge numbers", bytes, status_in(&[400, 413]));
        }
        _ => {
            let bytes = format!(
                "POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n(INFO)",
                1u64 << 40
            );
            f.expect("huge numbers", bytes.as_bytes(), status_in(&[413]));
        }
    }
}

/// Well-formed terms in the wrong places.
fn wrong_terms(f: &Fuzzer, rng: &mut Xoshiro256PlusPlus, junk: &mut Junk, d: Dialect) {
    let live = junk.any(rng);
    match (rng.random_range(0..4), live) {
        (0, Some(id)) => {
            let joint = *[
                "(noop)",
                "(noop noop noop)",
                "(a b)",
                "((move) (move))",
                "()",
            ]
            .choose(rng)
            .unwrap();
            let body = format!("(PLAY {id} {joint})");
            f.expect("wrong terms", &d.request(&body), status_in(&[200, 400]));
        }
        (1, Some(id)) => {
            let depth = rng.random_range(900..1100);
            let body = format!(
                "(PLAY {id} ({}x{} noop))",
                "(".repeat(depth),
                ")".repeat(depth)
            );
            f.expect("wrong terms", &d.request(&body), status_in(&[200, 400]));
        }
        (kind, _) => {
            // A role the rules lack, or rules no reasoner can play.
            let rules = match kind {
                2 => plain_list(&course_rules("4x4".parse().unwrap())),
                _ => (*[
                    "((foo 1) (bar))",
                    "((role white) (<= (legal white ?m) (true (cell 1))))",
                    "((<= (p ?x) (q ?y)))",
                ]
                .choose(rng)
                .unwrap())
                .to_owned(),
            };
            let role = if kind == 2 { "red" } else { "white" };
            let id = junk.next_id();
            let body = format!("(START {id} {role} {rules} 10 1)");
            refused_start(
                f,
                junk,
                "wrong terms",
                &id,
                &d.request(&body),
                status_in(&[422]),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// A whole run.

fn run(plan: &Plan) -> Report {
    let mut served = Served::start(plan);
    let rss_start = served.rss_kib().unwrap_or(0);
    let sampling = AtomicBool::new(true);
    let peak = AtomicUsize::new(rss_start as usize);
    let fuzzer = Fuzzer {
        plan,
        addr: served.addr,
        began: Instant::now(),
        sent: AtomicUsize::new(0),
        report: Mutex::new(Report::default()),
    };
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while sampling.load(Ordering::Relaxed) {
                if let Some(kib) = served.rss_kib() {
                    peak.fetch_max(kib as usize, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let lanes: Vec<_> = (0..plan.lanes)
            .map(|lane| {
                let fuzzer = &fuzzer;
                scope.spawn(move || valid_lane(fuzzer, lane))
            })
            .collect();
        let freed_by = chaos_lane(&fuzzer);
        for lane in lanes {
            lane.join().unwrap();
        }
        // The abandoned matches are freed by the server; then the last sample.
        let wait = freed_by.saturating_duration_since(Instant::now());
        if !wait.is_zero() {
            println!(
                "waiting {} s for the abandoned matches to be freed",
                wait.as_secs()
            );
            std::thread::sleep(wait);
        }
        std::thread::sleep(Duration::from_secs(1));
        fuzzer.info_ok("INFO/PREVIEW");
        sampling.store(false, Ordering::Relaxed);
    });
    let mut report = fuzzer.report.into_inner().unwrap();
    report.took = fuzzer.began.elapsed();
    report.rss_start = rss_start;
    report.rss_final = served.rss_kib().unwrap_or(0);
    report.rss_peak = (peak.load(Ordering::Relaxed) as u64).max(report.rss_final);
    report.quick_moves = served.quick_moves.load(Ordering::Relaxed);
    if let Ok(Some(status)) = served.child.try_wait() {
        report.faults.push(format!("the server exited: {status}"));
    }
    for line in served.panics.lock().unwrap().iter() {
        report.faults.push(format!("server log: {line}"));
    }
    report
}

fn parse_list<T: std::str::FromStr>(text: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    text.split(',').map(|s| s.trim().parse().unwrap()).collect()
}

/// A short seeded run in `cargo test`: a few hundred messages, small boards, searches of
/// 200 ms at a 2 s clock (the rest is slack for a loaded machine, as in `server::`).
#[test]
fn fuzz_protocol_briefly() {
    let plan = Plan {
        binary: env!("CARGO_BIN_EXE_ggp-player").into(),
        messages: 300,
        seed: 16,
        time_limit: Duration::from_secs(8),
        lanes: 1,
        sizes: parse_list("3x5,4x5,5x5"),
        start_clocks: vec![10],
        play_clocks: vec![2],
        serve_args: ["--margin-ms", "1800", "--no-ponder", "--hash-mb", "64"]
            .map(String::from)
            .to_vec(),
        abandon: false,
        trickle: Duration::from_millis(2),
    };
    let report = run(&plan);
    report.print(&plan);
    assert!(report.faults.is_empty(), "{:#?}", report.faults);
    assert!(report.matches_completed > 0, "{report:?}");
    assert_eq!(report.matches_completed, report.matches_started);
    // The stream was mixed: bad input of most kinds got through.
    assert!(report.messages.len() >= 12, "{:?}", report.messages);
}

/// The long run (see `scripts/fuzz-protocol.sh`): `GGP_FUZZ_MESSAGES` (default 3000),
/// `GGP_FUZZ_SEED` (1), `GGP_FUZZ_SECONDS` (time limit, 900), `GGP_FUZZ_BINARY` (default
/// the test build's `ggp-player`), `GGP_FUZZ_LANES` (valid matches at once, 2),
/// `GGP_FUZZ_SIZES`, `GGP_FUZZ_CLOCKS` (play clocks, s: `1,2`), `GGP_FUZZ_SERVE_ARGS`
/// (more `serve` arguments, space-separated).
#[test]
#[ignore = "long: see scripts/fuzz-protocol.sh"]
fn fuzz_protocol() {
    let env = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let plan = Plan {
        binary: env("GGP_FUZZ_BINARY", env!("CARGO_BIN_EXE_ggp-player")).into(),
        messages: env("GGP_FUZZ_MESSAGES", "3000").parse().unwrap(),
        seed: env("GGP_FUZZ_SEED", "1").parse().unwrap(),
        time_limit: Duration::from_secs(env("GGP_FUZZ_SECONDS", "900").parse().unwrap()),
        lanes: env("GGP_FUZZ_LANES", "2").parse().unwrap(),
        sizes: parse_list(&env("GGP_FUZZ_SIZES", "3x5,5x5,6x6,4x6,7x5,8x8")),
        start_clocks: vec![1, 2],
        play_clocks: parse_list(&env("GGP_FUZZ_CLOCKS", "1,2")),
        serve_args: env("GGP_FUZZ_SERVE_ARGS", "")
            .split_whitespace()
            .map(String::from)
            .collect(),
        abandon: true,
        trickle: Duration::from_millis(10),
    };
    assert!(
        plan.lanes + 2 <= MAX_MATCHES,
        "at most {} lanes",
        MAX_MATCHES - 2
    );
    let report = run(&plan);
    report.print(&plan);
    assert!(report.faults.is_empty(), "{} faults", report.faults.len());
    assert_eq!(report.matches_completed, report.matches_started);
}
