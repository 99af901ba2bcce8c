//! The course's `input.txt` (`GAMES.md` §4.4): the mode, the colour to move, the time
//! left and the board.

use std::fmt;

use super::bits::{Bits, N};
use super::{Halma, Side};

/// How the time in the input is meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The time is for this one play.
    Single,
    /// The time is what is left for the rest of the game.
    Game,
}

/// A read `input.txt`.
#[derive(Clone, Debug)]
pub struct Input {
    pub mode: Mode,
    /// Seconds of CPU time.
    pub seconds: f64,
    /// The position, with the input's colour to move.
    pub position: Halma,
}

impl Input {
    /// Reads the input's text. Blank lines, CR and spaces around a line are skipped (H-9).
    pub fn parse(text: &str) -> Result<Input, String> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let mut next = |what: &str| {
            lines
                .next()
                .ok_or_else(|| format!("the input ends before {what}"))
        };
        let mode = match next("the mode")? {
            "SINGLE" => Mode::Single,
            "GAME" => Mode::Game,
            other => return Err(format!("mode {other:?} is not SINGLE or GAME")),
        };
        let side = match next("the colour")? {
            "BLACK" => Side::Black,
            "WHITE" => Side::White,
            other => return Err(format!("colour {other:?} is not BLACK or WHITE")),
        };
        let time = next("the time")?;
        let seconds: f64 = time
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| format!("time {time:?} is not a number of seconds"))?;
        let (mut black, mut white) = (Bits::EMPTY, Bits::EMPTY);
        for y in 0..N {
            let row = next(&format!("board row {y}"))?;
            let length = row.chars().count();
            if length != N {
                return Err(format!(
                    "board row {y} {row:?} has {length} characters, not 16"
                ));
            }
            for (x, c) in row.chars().enumerate() {
                match c {
                    'B' => black = black.with(y * N + x),
                    'W' => white = white.with(y * N + x),
                    '.' => {}
                    _ => return Err(format!("board row {y} {row:?}: {c:?} is not B, W or .")),
                }
            }
        }
        if let Some(extra) = lines.next() {
            return Err(format!("unexpected line {extra:?} after the board"));
        }
        let position = Halma::from_bits(black, white, side)?;
        Ok(Input {
            mode,
            seconds,
            position,
        })
    }
}

impl fmt::Display for Input {
    /// The input as the course writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.mode {
            Mode::Single => "SINGLE",
            Mode::Game => "GAME",
        };
        let board = self.position.to_string();
        let rows: Vec<&str> = board.lines().take(N).collect();
        writeln!(
            f,
            "{mode}\n{}\n{}",
            self.position.side_to_move().word(),
            self.seconds
        )?;
        for row in rows {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

/// The handout's three examples (`GAMES.md` §4.6) as complete inputs, with the answer
/// the handout gives to each.
pub const EXAMPLES: [(&str, &str); 3] = [
    (
        "SINGLE\nWHITE\n100.0\n\
         WWWWW...........\nWWWWW...........\nWWW.............\nWWW.W...........\n\
         WW..............\n................\n................\n................\n\
         ................\n................\n................\n..........B...BB\n\
         .............BBB\n.............BBB\n...........BBBBB\n...........BBBBB\n",
        "E 4,3 3,2\n",
    ),
    (
        "SINGLE\nWHITE\n6.6\n\
         WWWWW...........\nWW.WW...........\nWWWW............\nWWW.W...........\n\
         WW..............\n................\n................\n................\n\
         ................\n................\n................\n............B.BB\n\
         ...........B.BBB\n.............B.B\n...........BBBBB\n...........BBBBB\n",
        "J 4,3 2,1\n",
    ),
    (
        "SINGLE\nBLACK\n23.33\n\
         WWWWW...........\nW.W.W...........\nWWW.............\nWW...W..........\n\
         WW....W.........\n................\n.......W........\n................\n\
         ................\n.........BW.....\n...........B....\n..............BB\n\
         ............BBBB\n............B.BB\n.............BBB\n...........BBBBB\n",
        "J 9,9 11,9\nJ 11,9 11,11\nJ 11,11 13,13\n",
    ),
];
