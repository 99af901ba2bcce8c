//! Agents started once per request, the NUS CS3243 framework's way (`GAMES.md` §1.5,
//! §2.5): the framework starts the program with no arguments, writes one request on its
//! standard input and reads one line back, within a wall-clock limit that counts the
//! process's own start.
//!
//! A request is `identify` (answered with the agent's name) or `move`, a number, the
//! board's size and that many board lines, in which the agent's pieces have one symbol
//! and it is to move. Each game says how its lines and moves are written in a
//! [`RequestProtocol`], read by [`crate::spec::request`]; the clock and the answer are
//! here, and the referee uses the same protocol to write requests and read answers.
//!
//! The answer is due at [`RequestProtocol::answer_within`] of the process's start. The
//! search gets that less a margin; a watchdog answers with the search's fallback at the
//! deadline should the search not have, so a slow machine costs strength, never the move.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::agent::{Agent, AgentConfig, AgentKind};
use crate::game::Game;
use crate::search::{BestSoFar, Limits, Table, quick_move};
use crate::spec::request::{Request, RequestProtocol, read_request};
use crate::spec::{CourseProgram, GameSpec};

/// The largest request read: a board line of a course game is a few dozen bytes.
const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// What the search leaves between its deadline and the answer's: the search's own stop,
/// and writing the line.
const SEARCH_MARGIN: Duration = Duration::from_millis(200);

/// The largest transposition table of one request, in MiB. A smaller one is taken when
/// the search cannot fill this much in its time ([`table_mb`]).
const MAX_HASH_MB: usize = 64;

/// The agent program of game `S`: reads one request from standard input, answers on
/// standard output by `started` + the protocol's `answer_within`; an unreadable request
/// gets one line on standard error and exit status 1.
pub fn main<S: GameSpec>(started: Instant) -> ExitCode {
    let Some(CourseProgram::Request(protocol)) = S::course_program() else {
        panic!("{}'s course program is not asked once per request", S::NAME);
    };
    // The framework gives no arguments; a person asking for help must not be left
    // waiting for a request on standard input.
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {}
        [h] if h == "--help" || h == "-h" => {
            print!("{}", usage(S::NAME, protocol));
            return ExitCode::SUCCESS;
        }
        _ => {
            eprint!("{}", usage(S::NAME, protocol));
            return ExitCode::from(2);
        }
    }
    match receive(protocol, started + protocol.answer_within) {
        Ok(Request::Identify) => answer(protocol.agent_name),
        Ok(Request::Move { position, .. }) => {
            play::<S>(protocol, &position, started + protocol.answer_within)
        }
        Err(e) => {
            eprintln!("{}: {e}", S::NAME);
            ExitCode::FAILURE
        }
    }
}

/// The program's usage, for `--help` and for arguments it does not take.
fn usage<G: Game>(name: &str, protocol: &RequestProtocol<G>) -> String {
    let size = protocol.size;
    format!(
        "usage: {name}  (reads one request on standard input, answers on standard output)\n\
         \n\
         The request is `identify` (answered with the agent's name, {}), or `move`, a\n\
         number, the board's size ({size}) and {size} board lines, in which the agent's\n\
         pieces are to move (answered with one move). The answer comes within {:.1} s of\n\
         the start; an unreadable request gets one line on standard error and exit\n\
         status 1.\n",
        protocol.agent_name,
        protocol.answer_within.as_secs_f64()
    )
}

/// Reads standard input line by line until it holds a whole request, or it ends, or
/// `deadline` passes. A framework may keep the pipe open while it waits for the answer,
/// so the request is answered as soon as it is complete, not at the end of the input
/// (lines after a whole request are never read).
fn receive<G: Game>(
    protocol: &RequestProtocol<G>,
    deadline: Instant,
) -> Result<Request<G>, String> {
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        // One byte past the bound, so that an overlong request is told apart.
        let input = std::io::stdin().lock().take(MAX_REQUEST_BYTES as u64 + 1);
        for line in input.lines() {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut input = String::new();
    loop {
        let wait = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(wait) {
            Ok(Ok(line)) => {
                if input.len() + line.len() > MAX_REQUEST_BYTES {
                    return Err(format!(
                        "the request is longer than {MAX_REQUEST_BYTES} bytes"
                    ));
                }
                input.push_str(&line);
                input.push('\n');
                if let Ok(request) = read_request(protocol, &input) {
                    return Ok(request);
                }
            }
            Ok(Err(e)) => return Err(format!("cannot read the request: {e}")),
            // The input ended: what it holds is all there is.
            Err(RecvTimeoutError::Disconnected) => return read_request(protocol, &input),
            Err(RecvTimeoutError::Timeout) => {
                let why = read_request(protocol, &input).err().unwrap_or_default();
                return Err(format!("no whole request by the deadline ({why})"));
            }
        }
    }
}

/// The table for `threads` threads that store at most `stores_per_second` entries each in
/// a CPU-second, searching for `budget` of wall time: no larger than they can fill (each
/// touched page of it is a page fault in the search and a page freed at the exit), within
/// 1 MiB and [`MAX_HASH_MB`]. The table rounds it down to a power of two.
fn table_mb(stores_per_second: u64, threads: usize, budget: Duration) -> usize {
    Table::megabytes_filled(stores_per_second, threads, budget).clamp(1, MAX_HASH_MB)
}

fn answer(line: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{line}").and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// Searches `position` until shortly before `deadline` and answers; should the search
/// overrun, a watchdog answers at the deadline with the best move the search has
/// published (the quick move only if it has published none) and ends the process.
fn play<S: GameSpec>(
    protocol: &RequestProtocol<S::Game>,
    position: &S::Game,
    deadline: Instant,
) -> ExitCode {
    let fallback = quick_move(position).expect("a position that is not over has a move");
    let answered = Arc::new(Mutex::new(false));
    let best = Arc::new(BestSoFar::default());
    {
        let answered = Arc::clone(&answered);
        let best = Arc::clone(&best);
        let position = position.clone();
        let write_move = protocol.write_move;
        std::thread::spawn(move || {
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
            let mut done = answered.lock().unwrap_or_else(|e| e.into_inner());
            if !*done {
                *done = true;
                let line = match best.get(&position) {
                    Some((mv, Some(depth))) => {
                        eprintln!(
                            "{}: the search overran: answering the best move it published (depth {depth})",
                            S::NAME
                        );
                        write_move(&position, mv)
                    }
                    Some((mv, None)) => {
                        eprintln!(
                            "{}: the search overran: answering the move its tree search had chosen so far",
                            S::NAME
                        );
                        write_move(&position, mv)
                    }
                    None => {
                        eprintln!(
                            "{}: the search overran before its first iteration: answering a quick legal move",
                            S::NAME
                        );
                        write_move(&position, fallback)
                    }
                };
                let _ = answer(&line);
                std::process::exit(0);
            }
        });
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let search_deadline = deadline.checked_sub(SEARCH_MARGIN).unwrap_or(deadline);
    let budget = search_deadline.saturating_duration_since(Instant::now());
    let mut agent = Agent::for_one_move::<S>(AgentConfig {
        kind: AgentKind::Alphabeta,
        threads,
        hash_mb: table_mb(S::STORES_PER_SECOND, threads, budget),
        ..AgentConfig::default()
    });
    let limits = Limits::until(search_deadline).with_best(best);
    let mv = agent
        .choose(position, &limits, &[])
        .map_or(fallback, |c| c.mv);
    let mut done = answered.lock().unwrap_or_else(|e| e.into_inner());
    if *done {
        return ExitCode::SUCCESS;
    }
    *done = true;
    let answered = answer(&(protocol.write_move)(position, mv));
    // The framework times the process's exit too: leave at once, without tearing down
    // the agent's table (unmapping it page by page costs wall time on a loaded machine).
    std::process::exit(if answered == ExitCode::SUCCESS { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_what_the_search_can_store_in_its_time() {
        // 400,000 stores a CPU-second, two threads, 2.1 s: 1.68 M entries, 25 MiB.
        assert_eq!(table_mb(400_000, 2, Duration::from_millis(2100)), 25);
        // One thread for half the time: a quarter.
        assert_eq!(table_mb(400_000, 1, Duration::from_millis(1050)), 6);
        // No time left still gets a table; a long search gets no more than the bound.
        assert_eq!(table_mb(400_000, 2, Duration::ZERO), 1);
        assert_eq!(table_mb(650_000, 2, Duration::from_secs(60)), MAX_HASH_MB);
    }
}
