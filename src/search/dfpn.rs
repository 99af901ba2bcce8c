//! A proof-number solver: depth-first proof-number search (df-pn) with the 1+ε
//! threshold of Pawlewicz and Lew, over any game whose positions do not repeat.
//!
//! Why df-pn and not PN²: both spend their effort where a proof is cheapest, by proof
//! and disproof numbers, which in Breakthrough (narrow forcing races beside wide quiet
//! play) beats alpha-beta's fixed order by far. PN² keeps its first-level tree in memory
//! and so runs out of it on exactly the boards worth solving; df-pn keeps nothing but a
//! transposition table, whose size is fixed up front (`--hash-mb`) and whose entries are
//! replaced by the work they stand for, so a long solve slows as it fills instead of
//! failing. The 1+ε threshold lets a child run on until its disproof number passes its
//! sibling's by a quarter, instead of by one, which cuts df-pn's switching back and forth
//! between siblings of equal standing.
//!
//! Proof numbers are kept from the side to move's view ("φ/δ"): φ is the effort to show
//! the side to move reaches its goal, δ the effort to show it does not; a position's φ
//! is its children's least δ and its δ the sum of their φ. The two sides' goals are
//! complementary: the first player (the attacker, to move at the root) wants at least
//! the target (a win, or at least a draw) and the other wants to keep it below. A value
//! is found as the alpha-beta solver does, by one or two such proofs: can the first
//! player win, and if not, can it draw. The second is skipped when no drawn end was met
//! in the first, whose disproof then rests on losses only.
//!
//! Known wins in one ([`Game::can_win_now`]) close a node without listing its moves.

use std::time::Instant;

use tracing::info;

use super::limits::Limits;
use super::solver::{Solution, max_ply};
use crate::game::{Game, MoveBuffer, Outcome};

/// A proof or disproof number that cannot be reached.
const INF: u32 = u32::MAX / 2;
/// How many nodes pass between two looks at the clock (a power of two).
const CHECK_EVERY: u64 = 4096;
/// Entries of a table bucket: a new entry replaces the one of least work.
const WAYS: usize = 4;

/// One table entry: a position's proof numbers for one target, and the nodes spent on
/// it. The bucket's index holds the key's low bits, `check` its high ones.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    check: u32,
    phi: u32,
    delta: u32,
    /// Nodes spent on the position, 0 for an empty slot.
    work: u32,
}

/// [`WAYS`] entries in one cache line: a lookup costs one memory access, and df-pn looks
/// up every child of every position it expands.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
struct Bucket([Slot; WAYS]);

/// The solver's transposition table: buckets of [`WAYS`] entries, replaced by work.
struct ProofTable {
    buckets: Vec<Bucket>,
    mask: u64,
}

impl ProofTable {
    /// A table of about `mb` MiB (a power of two of buckets, at least one).
    fn new(mb: usize) -> ProofTable {
        let bytes = mb.max(1) << 20;
        let want = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let n = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        ProofTable {
            buckets: vec![Bucket::default(); n],
            mask: n as u64 - 1,
        }
    }

    fn get(&self, key: u64) -> Option<(u32, u32)> {
        let check = (key >> 32) as u32;
        self.buckets[(key & self.mask) as usize]
            .0
            .iter()
            .find(|s| s.check == check && s.work > 0)
            .map(|s| (s.phi, s.delta))
    }

    fn put(&mut self, key: u64, phi: u32, delta: u32, work: u64) {
        let check = (key >> 32) as u32;
        let slots = &mut self.buckets[(key & self.mask) as usize].0;
        let work = u32::try_from(work).unwrap_or(u32::MAX).max(1);
        let slot = match slots.iter().position(|s| s.check == check && s.work > 0) {
            // Work adds up over the searches of one position.
            Some(i) => {
                let w = slots[i].work.saturating_add(work);
                slots[i] = Slot {
                    check,
                    phi,
                    delta,
                    work: w,
                };
                return;
            }
            None => (0..WAYS)
                .min_by_key(|&i| slots[i].work)
                .expect("a bucket has entries"),
        };
        slots[slot] = Slot {
            check,
            phi,
            delta,
            work,
        };
    }
}

/// What the attacker (the side to move at the root) sets out to prove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Win,
    AtLeastDraw,
}

impl Target {
    /// Mixed into table keys, so that the two proofs never read each other's entries.
    fn salt(self) -> u64 {
        match self {
            Target::Win => 0,
            Target::AtLeastDraw => 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// Whether the attacker's outcome `o` meets the target.
    fn met_by(self, o: Outcome) -> bool {
        match self {
            Target::Win => o == Outcome::Win,
            Target::AtLeastDraw => o != Outcome::Loss,
        }
    }
}

fn flip(o: Outcome) -> Outcome {
    match o {
        Outcome::Win => Outcome::Loss,
        Outcome::Loss => Outcome::Win,
        Outcome::Draw => Outcome::Draw,
    }
}

/// φ and δ of a position whose side to move reaches its goal, or does not.
fn settled(reached: bool) -> (u32, u32) {
    if reached { (0, INF) } else { (INF, 0) }
}

/// A child while its parent is searched.
struct Child<M> {
    mv: M,
    phi: u32,
    delta: u32,
}

struct Search<'a, G: Game> {
    game: G,
    table: &'a mut ProofTable,
    limits: &'a Limits,
    target: Target,
    nodes: u64,
    aborted: bool,
    too_deep: bool,
    /// A drawn end was met: a failed proof of a win then says nothing about a loss.
    saw_draw: bool,
    ply: usize,
}

impl<G: Game> Search<'_, G> {
    fn key(&self) -> u64 {
        self.game.hash() ^ self.target.salt()
    }

    /// The end of the game for the side to move, if the position is one, as φ and δ.
    fn terminal(&mut self) -> Option<(u32, u32)> {
        self.decided_or_won().or_else(|| {
            (!self.game.has_moves()).then(|| self.settle(self.game.outcome_without_moves()))
        })
    }

    /// [`Search::terminal`] but for the want of moves, which a caller about to list the
    /// moves tells for itself.
    fn decided_or_won(&mut self) -> Option<(u32, u32)> {
        match self.game.decided() {
            Some(o) => Some(self.settle(o)),
            None => self.game.can_win_now().then(|| settled(true)),
        }
    }

    /// φ and δ of a game that ended in `outcome` for the side to move.
    fn settle(&mut self, outcome: Outcome) -> (u32, u32) {
        let attacker = self.ply.is_multiple_of(2);
        self.saw_draw |= outcome == Outcome::Draw;
        let for_attacker = if attacker { outcome } else { flip(outcome) };
        settled(self.target.met_by(for_attacker) == attacker)
    }

    /// Searches the current position until its φ reaches `th_phi` or its δ reaches
    /// `th_delta`; returns them (as far as they got, when aborted).
    fn mid(&mut self, th_phi: u32, th_delta: u32) -> (u32, u32) {
        self.nodes += 1;
        if self.nodes & (CHECK_EVERY - 1) == 0 && self.limits.must_abort() {
            self.aborted = true;
        }
        if self.ply >= max_ply::<G>() {
            self.too_deep = true;
            self.aborted = true;
        }
        if self.aborted {
            return (1, 1);
        }
        if let Some(values) = self.decided_or_won() {
            return values;
        }
        let nodes_before = self.nodes;
        let mut list = G::MoveList::default();
        self.game.generate_moves(&mut list);
        if list.is_empty() {
            return self.settle(self.game.outcome_without_moves());
        }
        let mut children: Vec<Child<G::Move>> = Vec::with_capacity(list.len());
        for &mv in list.as_slice() {
            self.game.make(mv);
            self.ply += 1;
            let (phi, delta) = match self.table.get(self.key()) {
                Some(values) => values,
                None => self.terminal().unwrap_or((1, 1)),
            };
            self.ply -= 1;
            self.game.unmake(mv);
            children.push(Child { mv, phi, delta });
        }
        let (mut phi, mut delta);
        loop {
            // φ: the least δ of a child; δ: the sum of the children's φ.
            let (mut best, mut least, mut second) = (0, INF, INF);
            delta = 0u32;
            for (i, c) in children.iter().enumerate() {
                delta = delta.saturating_add(c.phi).min(INF);
                if c.delta < least {
                    (second, least, best) = (least, c.delta, i);
                } else if c.delta < second {
                    second = c.delta;
                }
            }
            phi = least;
            if phi >= th_phi || delta >= th_delta || self.aborted {
                break;
            }
            let child = &children[best];
            let child_th_phi = th_delta
                .saturating_sub(delta)
                .saturating_add(child.phi)
                .min(INF);
            let eased = (u64::from(second) + u64::from(second) / 4 + 1).min(u64::from(INF));
            let child_th_delta = th_phi.min(eased as u32);
            let mv = child.mv;
            self.game.make(mv);
            self.ply += 1;
            let (p, d) = self.mid(child_th_phi, child_th_delta);
            self.ply -= 1;
            self.game.unmake(mv);
            if self.aborted {
                break;
            }
            (children[best].phi, children[best].delta) = (p, d);
        }
        if !self.aborted {
            let key = self.key();
            self.table.put(key, phi, delta, self.nodes - nodes_before);
        }
        (phi, delta)
    }

    /// Proves or disproves the target from the root; `None` when stopped first.
    fn prove(&mut self) -> Option<bool> {
        let (phi, delta) = self.mid(INF - 1, INF - 1);
        if self.aborted {
            return None;
        }
        debug_assert!(
            phi == 0 || delta == 0,
            "the root is settled: ({phi}, {delta})"
        );
        Some(phi == 0)
    }

    /// A line from the root that keeps the proven `value`, as far as the table still
    /// holds it: the side that reaches its goal moves into a position where the other
    /// fails, the other into any position it still loses. A draw rests on both proofs:
    /// the first player keeps at least the draw, the second keeps it from a win.
    fn line(&mut self, value: Outcome) -> Vec<G::Move> {
        let last = self.target;
        let mut line = Vec::new();
        let mut list = G::MoveList::default();
        loop {
            if value == Outcome::Draw {
                self.target = if self.ply.is_multiple_of(2) {
                    Target::AtLeastDraw
                } else {
                    Target::Win
                };
            }
            if self.terminal().is_some() || line.len() >= max_ply::<G>() {
                break;
            }
            let Some((phi, _)) = self.table.get(self.key()) else {
                break;
            };
            self.game.generate_moves(&mut list);
            let mut pick = None;
            for &mv in list.as_slice() {
                self.game.make(mv);
                self.ply += 1;
                let values = self.table.get(self.key()).or_else(|| self.terminal());
                self.ply -= 1;
                self.game.unmake(mv);
                match values {
                    Some((_, 0)) if phi == 0 => pick = Some(mv),
                    Some((0, _)) if phi != 0 => pick = Some(mv),
                    _ => continue,
                }
                break;
            }
            let Some(mv) = pick else { break };
            self.game.make(mv);
            self.ply += 1;
            line.push(mv);
        }
        self.target = last;
        line
    }
}

/// Solves `root` by df-pn within `limits` (its depth is ignored) with a table of
/// `hash_mb` MiB; `Err` for a game whose positions may repeat, which df-pn's table
/// cannot tell apart by path.
pub fn solve_dfpn<G: Game>(
    root: &G,
    limits: &Limits,
    hash_mb: usize,
) -> Result<Solution<G::Move>, String> {
    if G::REPEATS {
        return Err("the proof-number solver needs a game whose positions never repeat".into());
    }
    let start = Instant::now();
    let mut table = ProofTable::new(hash_mb);
    let mut search = Search {
        game: root.clone(),
        table: &mut table,
        limits,
        target: Target::Win,
        nodes: 0,
        aborted: false,
        too_deep: false,
        saw_draw: false,
        ply: 0,
    };
    let value = match search.prove() {
        None => None,
        Some(true) => Some(Outcome::Win),
        Some(false) if !search.saw_draw => Some(Outcome::Loss),
        Some(false) => {
            search.target = Target::AtLeastDraw;
            match search.prove() {
                None => None,
                Some(true) => Some(Outcome::Draw),
                Some(false) => Some(Outcome::Loss),
            }
        }
    };
    let line = value.map_or_else(Vec::new, |v| search.line(v));
    let solution = Solution {
        value,
        too_deep: search.too_deep,
        line,
        nodes: search.nodes,
        time: start.elapsed(),
    };
    info!(
        value = ?solution.value,
        nodes = solution.nodes,
        time_ms = solution.time.as_millis() as u64,
        "df-pn solve done"
    );
    Ok(solution)
}
