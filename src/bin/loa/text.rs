//! The lines the course's harness reads (`GAMES.md` §3.2, output contract): prompts, AI
//! moves, results and dumps. Nothing else the program prints may contain `*`, `>` or
//! `===`, so these are the only places that write them.

use ggp_player::games::loa::{Loa, Side};

/// `black` or `white`, as the dump and the commands write a side.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Black => "black",
        Side::White => "white",
    }
}

/// The prompt before a command is read: the side to move's initial while a game is on,
/// `-` once it is over.
pub fn prompt(playing: bool, to_move: Side) -> &'static str {
    match (playing, to_move) {
        (false, _) => "-> ",
        (true, Side::Black) => "b> ",
        (true, Side::White) => "w> ",
    }
}

/// An AI's move, e.g. `* e1-e3`.
pub fn ai_move(name: &str) -> String {
    format!("* {name}")
}

/// The result line; `None` is a tie.
pub fn result(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::Black) => "* Black wins.",
        Some(Side::White) => "* White wins.",
        None => "* Tie game.",
    }
}

/// The board between `===` lines, rank 8 first, then the side to move (printed even
/// after the game has ended).
pub fn dump(board: &Loa) -> String {
    let n = board.size();
    let (black, white) = (board.pieces(Side::Black), board.pieces(Side::White));
    let mut text = String::from("===\n");
    for row in (0..n).rev() {
        text.push_str("   ");
        for col in 0..n {
            let bit = 1u64 << (row * n + col);
            text.push_str(if black & bit != 0 {
                " b"
            } else if white & bit != 0 {
                " w"
            } else {
                " -"
            });
        }
        text.push('\n');
    }
    text.push_str("Next move: ");
    text.push_str(side_name(board.side_to_move()));
    text.push_str("\n===\n");
    text
}

pub const HELP: &str = "\
Commands (words in any case; one per line):
  new               start a new game: black to move, the move limit back to 30 each
  c1r1-c2r2         move a piece, e.g. b1-d3 (columns a-h, rows 1-8 from the bottom)
  auto P            let the program play P (black or white); white plays itself at first
  manual P          let P's moves be typed in
  set CR P N        put P (black, white or -) on square CR, then N (black or white) moves
  dump              print the board
  seed N            seed the program's play: the same seed, the same moves
  limit N           end the game in a tie after N moves by each side (default 30)
  help, ?           print this summary
  quit              leave (as does the end of the input)
Blank lines and lines starting with # are ignored.
";

#[cfg(test)]
mod tests {
    use super::*;
    use ggp_player::games::loa::{DEFAULT_LIMIT, NoMove};

    #[test]
    fn the_start_is_dumped_as_the_course_prints_it() {
        let start = Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT));
        let expected = "===
    - b b b b b b -
    w - - - - - - w
    w - - - - - - w
    w - - - - - - w
    w - - - - - - w
    w - - - - - - w
    w - - - - - - w
    - b b b b b b -
Next move: black
===
";
        assert_eq!(dump(&start), expected);
    }

    #[test]
    fn only_the_protocol_lines_carry_its_marks() {
        assert!(!HELP.contains('>') && !HELP.contains('*') && !HELP.contains("==="));
        assert!(prompt(true, Side::White).trim_end().ends_with('>'));
        assert_eq!(result(None), "* Tie game.");
        assert_eq!(ai_move("e1-e3"), "* e1-e3");
    }
}
