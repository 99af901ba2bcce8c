//! The course's notation of plays: `E x,y x,y` for a step, one `J x,y x,y` line per
//! jump of a chain (`GAMES.md` §4.4), written and read.

use super::bits::{Bits, N, SQUARES};
use super::{Halma, Move, MoveList, xy};
use crate::game::{Game, MoveBuffer};

/// `x,y`.
pub(super) fn square_name(sq: usize) -> String {
    let (x, y) = xy(sq);
    format!("{x},{y}")
}

/// The square written `x,y` (no spaces), if on the board.
fn parse_square(text: &str) -> Option<usize> {
    let (x, y) = text.split_once(',')?;
    let (x, y): (usize, usize) = (x.parse().ok()?, y.parse().ok()?);
    (x < N && y < N).then_some(y * N + x)
}

impl Halma {
    /// The squares of one chain of jumps that carries `m` out, start and end included;
    /// for a step, its two squares. The chain is a shortest one, so it never revisits a
    /// square. `m` must be legal.
    pub fn chain(&self, m: Move) -> Vec<usize> {
        if m.is_step() {
            return vec![m.from(), m.to()];
        }
        let start = Bits::square(m.from());
        let others = self.occupied() ^ start;
        let mut came_from = [u16::MAX; SQUARES];
        let mut queue = std::collections::VecDeque::from([m.from()]);
        came_from[m.from()] = m.from() as u16;
        while let Some(sq) = queue.pop_front() {
            if sq == m.to() {
                break;
            }
            for d in 0..8 {
                let over = Bits::square(sq).step(d) & others;
                let Some(land) = over.step(d).first() else {
                    continue;
                };
                if !others.has(land) && came_from[land] == u16::MAX {
                    came_from[land] = sq as u16;
                    queue.push_back(land);
                }
            }
        }
        assert_ne!(
            came_from[m.to()],
            u16::MAX,
            "{m:?} is not a play in\n{self}"
        );
        let mut path = vec![m.to()];
        while *path.last().expect("not empty") != m.from() {
            path.push(usize::from(came_from[*path.last().expect("not empty")]));
        }
        path.reverse();
        path
    }

    /// The play as `output.txt` holds it: one `E` line, or one `J` line per jump, each
    /// ending with a newline.
    pub fn output_lines(&self, m: Move) -> String {
        let path = self.chain(m);
        let kind = if m.is_step() { 'E' } else { 'J' };
        path.windows(2)
            .map(|w| format!("{kind} {} {}\n", square_name(w[0]), square_name(w[1])))
            .collect()
    }

    /// The legal play written `text` in the course's output format: one `E` line, or `J`
    /// lines each one jump long and starting where the last ended. Blank lines, CR and
    /// spaces around a line are ignored. An error says what is wrong.
    pub fn parse_play(&self, text: &str) -> Result<Move, String> {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let mut hops = Vec::new();
        for line in &lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [kind, from, to] = words[..] else {
                return Err(format!("{line:?} is not `E x,y x,y` or `J x,y x,y`"));
            };
            let (Some(from), Some(to)) = (parse_square(from), parse_square(to)) else {
                return Err(format!("{line:?}: a square is not x,y with x, y in 0-15"));
            };
            hops.push((kind, from, to));
        }
        let Some(&(kind, from, _)) = hops.first() else {
            return Err("no play".into());
        };
        let to = match kind {
            "E" => {
                let [(_, from, to)] = hops[..] else {
                    return Err("a step is one E line".into());
                };
                if !Move::new(from, to).is_step() || from == to {
                    return Err(format!("{:?}: not adjacent squares", lines[0]));
                }
                to
            }
            "J" => self.check_chain(&hops)?,
            _ => return Err(format!("{:?}: a play starts with E or J", lines[0])),
        };
        let m = Move::new(from, to);
        let mut list = MoveList::default();
        self.generate_moves(&mut list);
        if list.as_slice().contains(&m) {
            Ok(m)
        } else {
            Err(format!(
                "{} {} is not a legal play for {}",
                square_name(from),
                square_name(to),
                self.side_to_move().word()
            ))
        }
    }

    /// Checks that `hops` are single jumps in a row over pieces onto empty squares, the
    /// mover lifted and no square visited twice; returns where the chain ends.
    fn check_chain(&self, hops: &[(&str, usize, usize)]) -> Result<usize, String> {
        let start = hops[0].1;
        let others = self.occupied() ^ Bits::square(start);
        let mut visited = Bits::square(start);
        let mut at = start;
        for &(kind, from, to) in hops {
            let name = format!("{kind} {} {}", square_name(from), square_name(to));
            if kind != "J" {
                return Err(format!("{name}: a chain has only J lines"));
            }
            if from != at {
                return Err(format!("{name} does not start where the last jump ended"));
            }
            let ((fx, fy), (tx, ty)) = (xy(from), xy(to));
            let (dx, dy) = (tx - fx, ty - fy);
            if !matches!(dx, -2 | 0 | 2) || !matches!(dy, -2 | 0 | 2) || (dx, dy) == (0, 0) {
                return Err(format!("{name} is not one jump"));
            }
            let over = ((fy + dy / 2) * N as i32 + fx + dx / 2) as usize;
            if !others.has(over) {
                return Err(format!("{name} jumps over an empty square"));
            }
            if others.has(to) || visited.has(to) {
                return Err(format!("{name} lands on an occupied or visited square"));
            }
            visited = visited.with(to);
            at = to;
        }
        Ok(at)
    }
}
