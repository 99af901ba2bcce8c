//! The `halma` program's work (`GAMES.md` §4.4): read `input.txt` in a directory,
//! search within the CPU budget, write `output.txt` (and `playdata.txt` in a `GAME`);
//! and the optional `calibrate` step, which writes `calibration.txt`.

use std::path::Path;
use std::time::{Duration, Instant};

use super::budget::{self, Budget, DEFAULT_NODES_PER_SECOND};
use super::eval::{Race, way_left};
use super::protocol::{EXAMPLES, Input, Mode};
use super::{Halma, Move, MoveList, playdata};
use crate::game::{Game, MoveBuffer};
use crate::input_file;
use crate::search::cpu::{CpuLimit, process_time};
use crate::search::{self, Limits, Options, Table};

pub const INPUT: &str = "input.txt";
pub const OUTPUT: &str = "output.txt";
pub const CALIBRATION: &str = "calibration.txt";

/// The sum of `dx + dy` over a full goal camp: the least way left there is.
const FULL_CAMP_WAY: i32 = 60;
/// Transposition table MiB per second of search, and the most: its pages are touched
/// (and charged as CPU time) as the search fills them.
const TABLE_MB_PER_SECOND: f64 = 32.0;
const TABLE_MB_MAX: usize = 128;
/// With the CPU clock: no new iteration once the wall clock has run this many times the
/// CPU budget left (a guard against a hung machine, not the budget itself).
const WALL_GUARD: f64 = 3.0;

/// What one run played, for the report on stderr.
#[derive(Clone, Debug)]
pub struct Played {
    pub side: &'static str,
    /// The play as written to `output.txt`.
    pub lines: String,
    /// The search's depth (0: played without a search).
    pub depth: u32,
    pub nodes: u64,
    pub budget: Option<Budget>,
    /// The input's time, in seconds.
    pub seconds: f64,
}

/// Plays the move `dir/input.txt` asks for and writes it to `dir/output.txt`. An error
/// (unreadable input, no legal play, an unwritable output) writes no `output.txt`.
pub fn play(dir: &Path) -> Result<Played, String> {
    // An answer left from an earlier run must not pass for this one's.
    let _ = std::fs::remove_file(dir.join(OUTPUT));
    let text = input_file::read_to_string(&dir.join(INPUT), input_file::PROGRAM_INPUT)?;
    let input = Input::parse(&text).map_err(|e| format!("{INPUT}: {e}"))?;
    let position = &input.position;
    let side = position.side_to_move();
    let mut legal = MoveList::default();
    position.generate_moves(&mut legal);
    if legal.is_empty() {
        return Err(format!("{INPUT}: {} has no legal play", side.word()));
    }
    let earlier = match input.mode {
        Mode::Game => playdata::read(dir, side),
        Mode::Single => Vec::new(),
    };
    let nodes_per_second = read_calibration(dir).unwrap_or(DEFAULT_NODES_PER_SECOND);
    // Without a CPU clock, count from zero and stop by the wall clock (below).
    let cpu_clock = process_time();
    let used = cpu_clock.unwrap_or_default();
    // The history holds two positions for each earlier play of this side.
    let played = (earlier.len() / 2) as u32;
    let budget = budget::budget(
        input.mode,
        input.seconds,
        way_left(position, side) - FULL_CAMP_WAY,
        played,
        used,
        nodes_per_second,
    );
    let (m, depth, nodes) = match budget {
        Some(b) if legal.len() > 1 => searched(position, b, used, cpu_clock.is_some(), &earlier),
        _ => (None, 0, 0),
    };
    let m = m
        .filter(|m| legal.as_slice().contains(m))
        .or_else(|| {
            search::greedy_moves(position, &Race, &earlier)
                .first()
                .copied()
        })
        .expect("there is a legal play");
    let lines = position.output_lines(m);
    std::fs::write(dir.join(OUTPUT), &lines).map_err(|e| format!("cannot write {OUTPUT}: {e}"))?;
    if input.mode == Mode::Game {
        let mut after = position.clone();
        after.make(m);
        let mut seen = earlier;
        seen.extend([position.hash(), after.hash()]);
        // The history only sharpens later plays: losing it is no reason to fail this one.
        let _ = playdata::write(dir, side, &seen);
    }
    Ok(Played {
        side: side.word(),
        lines,
        depth,
        nodes,
        budget,
        seconds: input.seconds,
    })
}

/// Searches `position` within `b` (marks on the CPU clock, `used` of it gone; by the
/// wall clock instead when the CPU clock cannot be read, which a single search thread
/// can only outlast). Returns the move, the depth and the nodes.
///
/// Both marks are read on the CPU clock, the one the course charges: on a loaded machine
/// a CPU second takes longer than a wall second, and a wall-clock mark would leave much
/// of the budget unspent. The wall clock only guards against a machine so starved that
/// the search hardly runs: no new iteration after [`WALL_GUARD`] times the budget left.
fn searched(
    position: &Halma,
    b: Budget,
    used: Duration,
    cpu_clock: bool,
    earlier: &[u64],
) -> (Option<Move>, u32, u64) {
    let now = Instant::now();
    let watch = if cpu_clock {
        CpuLimit::start_with_mark(b.soft, b.hard)
    } else {
        None
    };
    let mut limits = Limits::default();
    match &watch {
        Some(w) => {
            limits = limits.with_stop(w.flag());
            limits.soft_stop = Some(w.mark_flag());
            limits.soft_deadline = Some(now + b.hard.saturating_sub(used).mul_f64(WALL_GUARD));
        }
        None => {
            limits.soft_deadline = Some(now + b.soft.saturating_sub(used));
            limits.hard_deadline = Some(now + b.hard.saturating_sub(used));
        }
    }
    let seconds = b.hard.saturating_sub(used).as_secs_f64();
    let mb = ((seconds * TABLE_MB_PER_SECOND) as usize).clamp(1, TABLE_MB_MAX);
    let table = Table::new(mb);
    let options = Options {
        threads: 1,
        earlier: earlier.to_vec(),
        ..Options::default()
    };
    let r = search::search_with(position, &Race, &limits, &table, &options);
    (r.best_move, r.depth, r.nodes)
}

/// The nodes per CPU second `calibration.txt` in `dir` records, if it is there and sound.
fn read_calibration(dir: &Path) -> Option<f64> {
    let text =
        input_file::read_to_string(&dir.join(CALIBRATION), input_file::PROGRAM_INPUT).ok()?;
    let value = text.trim().strip_prefix("nodes_per_second")?.trim();
    value
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 1000.0)
}

/// Depth of the calibration searches: a few tenths of a second on the 2-core machine.
const CALIBRATION_DEPTH: u32 = 7;

/// Measures this machine's search speed (nodes per CPU second, from the start and the
/// handout's third example) and writes it to `dir/calibration.txt`.
pub fn calibrate(dir: &Path) -> Result<f64, String> {
    let positions = [
        Halma::start(),
        Input::parse(EXAMPLES[2].0)
            .expect("the handout's example reads")
            .position,
    ];
    let table = Table::new(64);
    let began = process_time().ok_or("this system does not report CPU time")?;
    let mut nodes = 0;
    for p in &positions {
        table.clear();
        nodes += search::search_with(
            p,
            &Race,
            &Limits::depth(CALIBRATION_DEPTH),
            &table,
            &Options::default(),
        )
        .nodes;
    }
    let spent = process_time().unwrap_or(began) - began;
    let rate = nodes as f64 / spent.as_secs_f64().max(1e-3);
    std::fs::write(
        dir.join(CALIBRATION),
        format!("nodes_per_second {rate:.0}\n"),
    )
    .map_err(|e| format!("cannot write {CALIBRATION}: {e}"))?;
    Ok(rate)
}
