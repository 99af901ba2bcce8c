//! The `solve` command's work on any game: the position after the given moves, the
//! solver asked for, its checkpoints (Ctrl-C stops and saves), the progress line, the
//! value and a line that keeps it, and with `--openings` the walk of the positions near
//! it ([`crate::search::openings`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::game::{self, Game, MoveBuffer, Outcome};
use crate::memory;
use crate::search::{self, openings::Openings};
use crate::spec::{self, GameSpec};

/// The solvers on offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SolverKind {
    Alphabeta,
    Dfpn,
}

/// What to solve and how.
pub struct SolveJob<'a> {
    /// The game's name, for the checkpoint's label.
    pub game: &'a str,
    pub size: &'a str,
    pub variant: Option<&'a str>,
    /// Moves from the start, in the game's notation, to the position solved.
    pub after: &'a [String],
    /// Seconds before giving up.
    pub time: f64,
    pub hash_mb: usize,
    pub solver: SolverKind,
    pub threads: usize,
    pub checkpoint: Option<&'a Path>,
    /// Seconds between two saves of the checkpoint.
    pub checkpoint_every: f64,
    /// Plies of positions whose keeping moves are listed after the value.
    pub openings: Option<u32>,
    /// Nodes (of all threads together) before giving up, besides the time.
    pub max_nodes: Option<u64>,
    /// Print the answer as one JSON line ([`JobReport`]), "unknown" included, instead of
    /// the two lines for people: the form a program that hands out solves reads.
    pub json: bool,
    /// Positions whose value (or bounds on it) is proven already, one [`ChildReport`] a
    /// line: the solve takes them as proven wherever it meets them.
    pub known: Option<&'a Path>,
}

/// The answer of `solve --json`, one line a program reads back: the value of the
/// position after `after` for the side to move there (`to_move`), or "unknown" if the
/// budget ran out first, with the work spent either way and the moves that lead on from
/// the position (none once the game is over), so that a caller can split it into its
/// children without asking again.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JobReport {
    pub board: String,
    pub variant: String,
    pub after: Vec<String>,
    /// The side to move at the position, whose value `value` is.
    pub to_move: String,
    /// "win", "draw", "loss" (for `to_move`) or "unknown".
    pub value: String,
    pub nodes: u64,
    pub seconds: f64,
    /// A line that keeps the value; empty when unknown.
    pub line: Vec<String>,
    /// The legal moves at the position, in the game's notation.
    pub moves: Vec<String>,
    /// The positions `moves` lead to, in the same order.
    pub children: Vec<ChildReport>,
    /// The position's own key (as a child's `key`).
    #[serde(default)]
    pub key: String,
    /// Positions below this one that the solve proved something about, once each (by
    /// key), those whose proofs cost a share of its nodes: what a rerun of the position,
    /// or a solve that meets one of them, need not prove again.
    #[serde(default)]
    pub proven: Vec<ChildReport>,
}

/// A position one move on from a job's: its key, so that a caller sees which positions
/// are one though reached by different moves (a position and its mirror image share a
/// key and a value), and what the job's solve proved about its value for the side to
/// move there before it stopped (alpha-beta only; the bounds left out are the trivial
/// ones), so that a caller splitting the job's position does not prove it again.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChildReport {
    /// The key, 16 hexadecimal digits.
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<Outcome>,
}

impl SolveJob<'_> {
    /// Solves with game `S`, giving `print` each line of the answer: the value, the line
    /// that keeps it, then the openings as JSON lines. The error says why nothing or not
    /// all was solved.
    pub fn run<S: GameSpec>(&self, print: &mut dyn FnMut(String)) -> Result<(), String> {
        let size = self.size;
        let mut root = spec::start::<S>(Some(size), self.variant)?;
        for (i, name) in self.after.iter().enumerate() {
            if game::result(&root).is_some() {
                return Err(format!("--after: the game is over before {name:?}"));
            }
            let Some(m) = root.parse_move(name) else {
                return Err(format!(
                    "--after: {name:?} is not a legal move {}",
                    match i {
                        0 => "at the start".to_owned(),
                        _ => format!("after {}", self.after[..i].join(" ")),
                    }
                ));
            };
            root.make(m);
        }
        let mut limits = search::Limits::until(Instant::now() + Duration::from_secs_f64(self.time));
        if let Some(nodes) = self.max_nodes {
            limits = limits.with_max_nodes(nodes);
        }
        let mut interrupted = None;
        if self.checkpoint.is_some() && self.openings.is_some() {
            return Err(
                "--openings cannot be saved to a --checkpoint: give one or the other".into(),
            );
        }
        if self.openings.is_some() && self.solver != SolverKind::Alphabeta {
            return Err("--openings is for --solver alphabeta".into());
        }
        if self.known.is_some()
            && (self.solver != SolverKind::Alphabeta || self.checkpoint.is_some())
        {
            return Err("--known is for --solver alphabeta without --checkpoint".into());
        }
        let known = self.known.map(read_known).transpose()?;
        let mut label = format!(
            "{} {size} {}",
            self.game,
            self.variant.unwrap_or("(default rules)")
        );
        if !self.after.is_empty() {
            label += &format!(" after {}", self.after.join(" "));
        }
        let checkpoint = self.checkpoint.map(|path| search::Checkpoint {
            path,
            every: Duration::from_secs_f64(self.checkpoint_every),
            label: &label,
        });
        // A resumed solve takes its table's size from its file (checked as it is read).
        let resuming = checkpoint.as_ref().is_some_and(|c| c.path.exists());
        if !resuming {
            memory::check_table(self.hash_mb, "--hash-mb")?;
        }
        let bar = SolveProgress::new();
        if let Some(c) = &checkpoint {
            if resuming {
                bar.bar
                    .suspend(|| eprintln!("resuming from {}", c.path.display()));
            } else {
                // Found out now, not at the first save, minutes or hours in.
                std::fs::write(c.path, b"")
                    .and_then(|()| std::fs::remove_file(c.path))
                    .map_err(|e| {
                        format!("cannot write the checkpoint {}: {e}", c.path.display())
                    })?;
            }
            // Ctrl-C stops the solve, which then saves where it is.
            let flag = stop_on_ctrl_c();
            interrupted = Some(flag.clone());
            limits = limits.with_stop(flag);
        }
        // The alpha-beta table stays here for --openings; a resumable solve keeps its own.
        let mut table = None;
        let report = |p: &search::Progress| bar.report(p);
        let reporting = search::Reporting {
            report: &report,
            every: bar.every,
        };
        let threads = self.threads;
        let s = match (self.solver, &checkpoint) {
            (SolverKind::Dfpn, _) => {
                let options = search::DfpnOptions {
                    threads,
                    checkpoint,
                    progress: Some(&report),
                    progress_every: bar.every,
                    ..search::DfpnOptions::new(self.hash_mb)
                };
                search::solve_dfpn(&root, &limits, &options)
            }
            (SolverKind::Alphabeta, Some(c)) => {
                search::solve_resumable(&root, &limits, self.hash_mb, threads, Some(reporting), c)
            }
            (SolverKind::Alphabeta, None) => {
                let table = table.insert(search::ProofTable::new(self.hash_mb));
                for (&key, &(least, most)) in known.iter().flatten() {
                    search::add_known(table, key, least, most);
                }
                Ok(search::solve_reporting(
                    &root,
                    &limits,
                    table,
                    threads,
                    Some(reporting),
                ))
            }
        };
        bar.bar.finish_and_clear();
        let s = s?;
        if s.too_deep {
            return Err(format!(
                "{size} was not solved: a line ran longer than {} plies ({} nodes)",
                search::max_ply::<S::Game>(),
                s.nodes
            ));
        }
        // Moves alternate (a pass is a move), so the side to move follows from the count.
        let mover = S::SIDES[self.after.len() % 2];
        if self.json {
            let variant = self.variant.unwrap_or(S::VARIANTS[0]).to_ascii_lowercase();
            let (moves, children) = moves_and_children(&root, table.as_ref());
            let proven = table.as_ref().map_or_else(Vec::new, |t| {
                proven_positions(&root, t, s.nodes, &s.stopped)
            });
            let report = JobReport {
                board: size.to_owned(),
                variant,
                after: self.after.to_vec(),
                to_move: mover.to_owned(),
                value: s.value.map_or("unknown", outcome_word).to_owned(),
                nodes: s.nodes,
                seconds: s.time.as_secs_f64(),
                line: move_names(&root, &s.line),
                moves,
                children,
                key: key_name(&root),
                proven,
            };
            print(serde_json::to_string(&report).map_err(|e| e.to_string())?);
            if s.value.is_none() {
                return Ok(());
            }
        }
        let Some(value) = s.value else {
            let saved = match self.checkpoint {
                Some(path) => format!("; saved to {}: the same command resumes it", path.display()),
                None => "; try a longer --time or a larger --hash-mb".to_owned(),
            };
            if interrupted.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
                return Err(format!(
                    "{size} was interrupted after {:.1} s ({} nodes){saved}",
                    s.time.as_secs_f64(),
                    s.nodes
                ));
            }
            return Err(format!(
                "{size} was not solved within {} s ({} nodes){saved}",
                self.time, s.nodes
            ));
        };
        if !self.json {
            let position = match self.after.len() {
                0 => String::new(),
                _ => format!(" after {}", self.after.join(" ")),
            };
            print(format!(
                "{size}{position}: {} for {mover} ({} nodes in {:.3} s)",
                outcome_word(value),
                s.nodes,
                s.time.as_secs_f64()
            ));
            let line = move_names(&root, &s.line);
            print(format!(
                "line ({} plies): {}",
                line.len(),
                if line.is_empty() {
                    "-".to_owned()
                } else {
                    line.join(" ")
                }
            ));
        }
        if let (Some(plies), Some(table)) = (self.openings, &table) {
            let variant = self.variant.unwrap_or(S::VARIANTS[0]).to_ascii_lowercase();
            let mut book = Openings {
                board: size,
                variant: &variant,
                limits: &limits,
                table,
                threads,
                after: self.after.to_vec(),
            };
            book.walk(&root, plies, &mut |line| {
                print(serde_json::to_string(&line).map_err(|e| e.to_string())?);
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// A flag raised by the first Ctrl-C (which then no longer ends the process at once).
fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let raised = flag.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(tokio::signal::ctrl_c()).ok()?;
        eprintln!("interrupted: stopping and saving");
        raised.store(true, Ordering::Relaxed);
        Some(())
    });
    flag
}

/// The progress of a long solve: a line redrawn every second on a terminal, else one
/// printed every minute (a log).
struct SolveProgress {
    bar: indicatif::ProgressBar,
    every: Duration,
    terminal: bool,
}

impl SolveProgress {
    fn new() -> SolveProgress {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        let bar = indicatif::ProgressBar::new_spinner();
        if terminal {
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        SolveProgress {
            bar,
            every: Duration::from_secs(if terminal { 1 } else { 60 }),
            terminal,
        }
    }

    fn report(&self, p: &search::Progress) {
        if self.terminal {
            self.bar.set_message(p.to_string());
        } else {
            eprintln!("{p}");
        }
    }
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Draw => "draw",
    }
}

/// The principal line in the game's notation.
fn move_names<G: Game>(root: &G, pv: &[G::Move]) -> Vec<String> {
    let mut b = root.clone();
    let mut words = Vec::new();
    for &m in pv {
        words.push(b.move_name(m));
        b.make(m);
    }
    words
}

/// The legal moves at `position` in the game's notation (none once the game is over),
/// and the positions they lead to, in the same order, with what `table` (or the game)
/// proves about each.
fn moves_and_children<G: Game>(
    position: &G,
    table: Option<&search::ProofTable>,
) -> (Vec<String>, Vec<ChildReport>) {
    let list = legal_moves(position);
    let mut child = position.clone();
    list.as_slice()
        .iter()
        .map(|&m| {
            let name = position.move_name(m);
            child.make(m);
            let bounds = search::proven_bounds(&child, table);
            let report = ChildReport::new(key_name(&child), bounds);
            child.unmake(m);
            (name, report)
        })
        .unzip()
}

/// A position's key as reports name it: 16 hexadecimal digits.
fn key_name<G: Game>(position: &G) -> String {
    key_hex(search::position_key(position))
}

fn key_hex(key: u64) -> String {
    format!("{key:016x}")
}

impl ChildReport {
    fn new(key: String, bounds: Option<(Outcome, Outcome)>) -> ChildReport {
        ChildReport {
            key,
            at_least: bounds.map(|b| b.0).filter(|&o| o != Outcome::Loss),
            at_most: bounds.map(|b| b.1).filter(|&o| o != Outcome::Win),
        }
    }
}

/// What `table` proves about positions below `position` whose proofs cost at least
/// 1/[`PROVEN_SHARE`] of the solve's `nodes` (and at least [`PROVEN_LEAST`] nodes).
fn proven_positions<G: Game>(
    position: &G,
    table: &search::ProofTable,
    nodes: u64,
    stopped: &[u16],
) -> Vec<ChildReport> {
    let min_work = (nodes / PROVEN_SHARE).max(PROVEN_LEAST);
    search::proven_below(position, table, min_work, stopped)
        .into_iter()
        .map(|(key, least, most)| ChildReport::new(key_hex(key), Some((least, most))))
        .collect()
}

/// A job reports the positions it proved something about whose proofs cost at least
/// this share of its nodes: the most expensive part of what a rerun would redo, in a
/// report of at most a few hundred positions per ply.
const PROVEN_SHARE: u64 = 256;
/// ... and at least this many nodes, below which a position costs less to prove again
/// than to read.
const PROVEN_LEAST: u64 = 64;

/// The legal moves at `position`, none once the game is over.
fn legal_moves<G: Game>(position: &G) -> G::MoveList {
    let mut list = G::MoveList::default();
    if game::result(position).is_none() {
        position.generate_moves(&mut list);
    }
    list
}

/// The positions of a `--known` file and what is proven of each (merged when a key comes
/// twice), for the side to move there.
fn read_known(path: &Path) -> Result<HashMap<u64, (Outcome, Outcome)>, String> {
    let text = crate::input_file::read_to_string(path, crate::input_file::POSITIONS)
        .map_err(|e| format!("--known: {e}"))?;
    let rank = |o: Outcome| match o {
        Outcome::Loss => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    };
    let mut known: HashMap<u64, (Outcome, Outcome)> = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        let bad = |why: String| format!("--known {}:{}: {why}", path.display(), number + 1);
        if line.trim().is_empty() {
            continue;
        }
        let entry: ChildReport = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let key = u64::from_str_radix(&entry.key, 16)
            .ok()
            .filter(|_| entry.key.len() == 16)
            .ok_or_else(|| {
                bad(format!(
                    "{:?} is not a key of 16 hexadecimal digits",
                    entry.key
                ))
            })?;
        let (mut least, mut most) = (
            entry.at_least.unwrap_or(Outcome::Loss),
            entry.at_most.unwrap_or(Outcome::Win),
        );
        if let Some(&(l, m)) = known.get(&key) {
            least = if rank(l) > rank(least) { l } else { least };
            most = if rank(m) < rank(most) { m } else { most };
        }
        if rank(least) > rank(most) {
            return Err(bad(format!(
                "the position {} cannot be at least {least:?} and at most {most:?}",
                entry.key
            )));
        }
        known.insert(key, (least, most));
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::breakthrough::spec::Breakthrough;

    fn job<'a>(size: &'a str, after: &'a [String]) -> SolveJob<'a> {
        SolveJob {
            game: "breakthrough",
            size,
            variant: Some("course"),
            after,
            time: 60.0,
            hash_mb: 16,
            solver: SolverKind::Alphabeta,
            threads: 1,
            checkpoint: None,
            checkpoint_every: 600.0,
            openings: None,
            max_nodes: None,
            json: false,
            known: None,
        }
    }

    fn lines(job: &SolveJob) -> Result<Vec<String>, String> {
        let mut lines = Vec::new();
        job.run::<Breakthrough>(&mut |l| lines.push(l))?;
        Ok(lines)
    }

    #[test]
    fn the_value_line_names_the_side_to_move_after_the_moves_given() {
        let start = lines(&job("3x5", &[])).unwrap();
        assert!(start[0].starts_with("3x5: "), "{start:?}");
        assert!(start[0].contains(" for white ("), "{start:?}");
        // The line's first move, played, leaves black to move and the value reversed.
        let first = start[1].split(": ").nth(1).unwrap();
        let first = first[..=first.find(')').unwrap()].to_owned();
        let after = lines(&job("3x5", std::slice::from_ref(&first))).unwrap();
        assert!(
            after[0].starts_with(&format!("3x5 after {first}: ")),
            "{after:?}"
        );
        assert!(after[0].contains(" for black ("), "{after:?}");
        let word = |line: &str| {
            line.split(": ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_owned()
        };
        let reversed = match word(&start[0]).as_str() {
            "win" => "loss",
            "loss" => "win",
            _ => "draw",
        };
        assert_eq!(word(&after[0]), reversed);
    }

    #[test]
    fn openings_print_one_json_line_per_position() {
        let mut with_openings = job("3x5", &[]);
        with_openings.openings = Some(1);
        let out = lines(&with_openings).unwrap();
        let openings: Vec<search::SolvedOpening> = out[2..]
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(openings[0].after.is_empty());
        assert!(openings[1..].iter().all(|o| o.after.len() == 1));
    }

    #[test]
    fn bad_requests_are_refused_before_solving() {
        let moves = ["(move 9 9 9 9)".to_owned()];
        assert_eq!(
            lines(&job("3x5", &moves)).unwrap_err(),
            "--after: \"(move 9 9 9 9)\" is not a legal move at the start"
        );
        let mut both = job("3x5", &[]);
        both.openings = Some(1);
        both.checkpoint = Some(Path::new("unused"));
        assert_eq!(
            lines(&both).unwrap_err(),
            "--openings cannot be saved to a --checkpoint: give one or the other"
        );
        let mut dfpn = job("3x5", &[]);
        dfpn.openings = Some(0);
        dfpn.solver = SolverKind::Dfpn;
        assert_eq!(
            lines(&dfpn).unwrap_err(),
            "--openings is for --solver alphabeta"
        );
    }
}
