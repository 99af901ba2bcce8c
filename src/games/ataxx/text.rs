//! The course's text forms: the board of a `move` request (seven lines of `d:` cells, `1`
//! the side to move, `2` the other) and the `fx:fy:tx:ty:` move.

use super::board::{N, SQUARES, square};
use super::{Ataxx, Side};

/// The squares of a move written `fx:fy:tx:ty:` (the last colon optional, blanks around
/// fields ignored), if all four are on the board.
pub fn parse_move_squares(text: &str) -> Option<(usize, usize)> {
    let fields: Vec<&str> = text.trim().trim_end_matches(':').split(':').collect();
    let [fx, fy, tx, ty] = fields.as_slice() else {
        return None;
    };
    let coord = |f: &str| f.trim().parse::<usize>().ok().filter(|&v| v < N);
    Some((
        square(coord(fx)?, coord(fy)?),
        square(coord(tx)?, coord(ty)?),
    ))
}

/// The cells of a board in the course's format, `0` empty, `1` or `2` a piece: the text is
/// split on `:` and on line breaks, and empty fields, blanks and CR are ignored, so
/// lines run together or padded read alike. Returns the squares of `1` and of `2`.
pub fn parse_course_board(text: &str) -> Result<(u64, u64), String> {
    let cells: Vec<&str> = text
        .split([':', '\n'])
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .collect();
    if cells.len() != SQUARES {
        return Err(format!(
            "a 7x7 board has {SQUARES} cells, this one {}",
            cells.len()
        ));
    }
    let (mut ones, mut twos) = (0u64, 0u64);
    for (i, cell) in cells.iter().enumerate() {
        match *cell {
            "0" => {}
            "1" => ones |= 1 << i,
            "2" => twos |= 1 << i,
            other => {
                return Err(format!(
                    "cell {}:{} is {other:?}, not 0, 1 or 2",
                    i % N,
                    i / N
                ));
            }
        }
    }
    Ok((ones, twos))
}

impl Ataxx {
    /// The position of a course `move` request: `1` (the agent) is to move, after `ply`
    /// plies. Which colour `1` started as is unknown and does not matter to the
    /// rules, so `1` plays black here.
    pub fn from_course_board(text: &str, ply: u32) -> Result<Ataxx, String> {
        let (ones, twos) = parse_course_board(text)?;
        Ok(Ataxx::new(ones, twos, Side::Black, ply))
    }

    /// The board in the course's format, seven lines of `d:` cells, with `view`'s pieces
    /// written `1` and the other side's `2`.
    pub fn course_board(&self, view: Side) -> String {
        let (ones, twos) = (self.pieces(view), self.pieces(view.other()));
        let mut text = String::with_capacity(N * (2 * N + 1));
        for y in 0..N {
            for x in 0..N {
                let bit = 1u64 << square(x, y);
                text.push(if ones & bit != 0 {
                    '1'
                } else if twos & bit != 0 {
                    '2'
                } else {
                    '0'
                });
                text.push(':');
            }
            text.push('\n');
        }
        text
    }
}
