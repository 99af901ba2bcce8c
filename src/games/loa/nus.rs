//! The NUS CS3243 (2007) agent's request format (`GAMES.md` §1.5): six board lines of
//! `.XO`, row 1 the first line (L6-1), the agent `X` and to move; the answer is the
//! move's two squares in capitals, `D1B3`.
//!
//! `X` is read as the side to move whatever colour it started as (L6-2): the rules are
//! the same for both sides, so nothing depends on it. The turn number is not read (L6-3).

use std::time::Duration;

use super::{Loa, Move, NoMove, Side};
use crate::game::Game;
use crate::spec::request::RequestProtocol;

const N: usize = 6;

pub static PROTOCOL: RequestProtocol<Loa> = RequestProtocol {
    agent_name: concat!("ggp-player loa6 ", env!("CARGO_PKG_VERSION")),
    size: N,
    limit: Duration::from_secs(3),
    // The course's 3 s less half a second for a loaded machine (L6-8).
    answer_within: Duration::from_millis(2500),
    read_board,
    write_board,
    write_move,
    read_move,
    is_pass: Move::is_pass,
};

fn read_board(_turn: i64, rows: &[&str]) -> Result<Loa, String> {
    if rows.len() != N {
        return Err(format!(
            "{} board lines where {N} were expected",
            rows.len()
        ));
    }
    let (mut mine, mut theirs) = (0u64, 0u64);
    for (line, row) in rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != N {
            return Err(format!(
                "board line {} has {} cells, expected {N} of `.`, `X` and `O`",
                line + 1,
                cells.len()
            ));
        }
        for (col, c) in cells.into_iter().enumerate() {
            let bit = 1u64 << (line * N + col);
            match c {
                'X' | 'x' => mine |= bit,
                'O' | 'o' => theirs |= bit,
                '.' => {}
                _ => {
                    return Err(format!(
                        "board line {} has {c:?}: cells are `.`, `X` and `O`",
                        line + 1
                    ));
                }
            }
        }
    }
    if mine == 0 || theirs == 0 {
        return Err("each side needs a piece on the board".to_owned());
    }
    Ok(Loa::from_bits(
        N,
        mine,
        theirs,
        Side::Black,
        NoMove::Loses,
        None,
    ))
}

fn write_board(position: &Loa) -> Vec<String> {
    let mine = position.pieces(position.side_to_move());
    let theirs = position.pieces(position.side_to_move().other());
    (0..N)
        .map(|line| {
            (0..N)
                .map(|col| {
                    let bit = 1u64 << (line * N + col);
                    if mine & bit != 0 {
                        'X'
                    } else if theirs & bit != 0 {
                        'O'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect()
}

/// Only ever given a real move: under the NUS rules a side without a move has lost.
fn write_move(position: &Loa, m: Move) -> String {
    let name = position.square_name(m.from()) + &position.square_name(m.to());
    name.to_ascii_uppercase()
}

/// Exactly four characters, capitals as the course writes them.
fn read_move(position: &Loa, text: &str) -> Option<Move> {
    let text = text.trim();
    let capitals = text.len() == 4 && !text.bytes().any(|b| b.is_ascii_lowercase());
    capitals.then(|| position.parse_move(text)).flatten()
}
