//! Reading one input line as a command (`GAMES.md` §3.2): words in any case, extra
//! arguments ignored, blank lines and `#` comments (so the harness's `#*` lines too) do
//! nothing.

use std::io::{self, BufRead, Read};

use ggp_player::games::loa::Side;

/// The longest line read as a command: a command is a few dozen bytes, so a longer line
/// means the input is not commands (a binary file, `/dev/zero`), and it ends the run
/// rather than fill the memory.
pub const MAX_LINE: usize = 4096;

/// Reads the next line of `input` into `line` (cleared first), its newline kept: `false`
/// at the end of the input, an error for a line longer than [`MAX_LINE`].
pub fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    if Read::take(&mut *input, MAX_LINE as u64 + 1).read_until(b'\n', line)? == 0 {
        return Ok(false);
    }
    if line.strip_suffix(b"\n").unwrap_or(line).len() > MAX_LINE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a line of the input is longer than {MAX_LINE} bytes: it is not commands"),
        ));
    }
    Ok(true)
}

/// What goes on a square in `set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    Empty,
    Stone(Side),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    New,
    /// A move as typed, `b1-d3` (either case); the board decides whether it is legal.
    Move(String),
    Auto(Side),
    Manual(Side),
    /// `set CR P N`: square as typed, its new content, the side to move next.
    Set {
        square: String,
        piece: Piece,
        next: Side,
    },
    Dump,
    Seed(u64),
    /// `limit N`: N moves per side.
    Limit(u32),
    Help,
    Quit,
}

/// The command on `line`; `Ok(None)` for a blank or comment line, `Err` with a message
/// for anything else that is not a command.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let word = words[0].to_ascii_lowercase();
    let arg = |i: usize, what: &str| {
        words
            .get(i)
            .copied()
            .ok_or_else(|| format!("`{word}` needs {what}"))
    };
    let command = match word.as_str() {
        "new" => Command::New,
        "auto" => Command::Auto(side(arg(1, "a player, black or white")?)?),
        "manual" => Command::Manual(side(arg(1, "a player, black or white")?)?),
        "set" => Command::Set {
            square: arg(1, "a square, a piece and the side to move")?.to_owned(),
            piece: piece(arg(2, "a piece (black, white or -) and the side to move")?)?,
            next: side(arg(3, "the side to move next, black or white")?)?,
        },
        "dump" => Command::Dump,
        "seed" => Command::Seed(seed(arg(1, "a whole number")?)?),
        "limit" => Command::Limit(limit(arg(1, "a number of moves per side")?)?),
        "help" | "?" => Command::Help,
        "quit" => Command::Quit,
        _ if is_move(&word) => Command::Move(word),
        _ => {
            return Err(format!(
                "unknown command {:?}; type help",
                shorten(words[0])
            ));
        }
    };
    Ok(Some(command))
}

/// Whether `word` has a move's form, `c1r1-c2r2` with columns a-h and rows 1-8.
fn is_move(word: &str) -> bool {
    let b = word.as_bytes();
    let square = |c: u8, r: u8| (b'a'..=b'h').contains(&c) && (b'1'..=b'8').contains(&r);
    b.len() == 5 && square(b[0], b[1]) && b[2] == b'-' && square(b[3], b[4])
}

fn side(word: &str) -> Result<Side, String> {
    match word.to_ascii_lowercase().as_str() {
        "black" | "b" => Ok(Side::Black),
        "white" | "w" => Ok(Side::White),
        _ => Err(format!(
            "{:?} is not a player: black or white",
            shorten(word)
        )),
    }
}

fn piece(word: &str) -> Result<Piece, String> {
    match word {
        "-" | "empty" | "EMPTY" | "Empty" => Ok(Piece::Empty),
        _ => side(word).map(Piece::Stone),
    }
}

/// A Java `long` as the course's seeds are; its bits become the AI's seed.
fn seed(word: &str) -> Result<u64, String> {
    word.parse::<i64>()
        .map(|n| n as u64)
        .map_err(|_| format!("seed {:?} is not a whole number", shorten(word)))
}

fn limit(word: &str) -> Result<u32, String> {
    match word.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "limit {:?}: the limit is a positive number of moves per side",
            shorten(word)
        )),
    }
}

/// At most 20 characters of what the user typed, for messages; the harness's marks
/// (`*`, `>`, `=`) replaced so that an echo is never read as a move, prompt or dump.
fn shorten(text: &str) -> String {
    text.chars()
        .take(20)
        .map(|c| if matches!(c, '*' | '>' | '=') { '_' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_up_to_the_longest_command_line() {
        let mut text = b"new\r\ndump".to_vec();
        let mut input = io::Cursor::new(text.clone());
        let mut line = Vec::new();
        assert!(read_line(&mut input, &mut line).unwrap());
        assert_eq!(line, b"new\r\n");
        assert!(read_line(&mut input, &mut line).unwrap());
        assert_eq!(line, b"dump");
        assert!(!read_line(&mut input, &mut line).unwrap());
        // A line of MAX_LINE bytes is read; one byte more is an error, newline or not.
        text = vec![b' '; MAX_LINE];
        text.push(b'\n');
        assert!(read_line(&mut io::Cursor::new(text.clone()), &mut line).unwrap());
        text.insert(0, b' ');
        let e = read_line(&mut io::Cursor::new(text), &mut line).unwrap_err();
        assert!(e.to_string().contains("longer than 4096 bytes"), "{e}");
        assert!(read_line(&mut io::BufReader::new(io::repeat(0)), &mut line).is_err());
    }

    #[test]
    fn words_are_read_in_any_case_and_extra_arguments_are_ignored() {
        assert_eq!(parse("  NEW  "), Ok(Some(Command::New)));
        assert_eq!(
            parse("Auto BLACK please"),
            Ok(Some(Command::Auto(Side::Black)))
        );
        assert_eq!(
            parse("manual white"),
            Ok(Some(Command::Manual(Side::White)))
        );
        assert_eq!(parse("B1-D3"), Ok(Some(Command::Move("b1-d3".into()))));
        assert_eq!(
            parse("set D5 b White"),
            Ok(Some(Command::Set {
                square: "D5".into(),
                piece: Piece::Stone(Side::Black),
                next: Side::White
            }))
        );
        assert_eq!(
            parse("set a1 - black"),
            Ok(Some(Command::Set {
                square: "a1".into(),
                piece: Piece::Empty,
                next: Side::Black
            }))
        );
        assert_eq!(parse("seed -1"), Ok(Some(Command::Seed(u64::MAX))));
        assert_eq!(parse("limit 5"), Ok(Some(Command::Limit(5))));
        assert_eq!(parse("?"), Ok(Some(Command::Help)));
        assert_eq!(parse("QUIT"), Ok(Some(Command::Quit)));
    }

    #[test]
    fn blank_and_comment_lines_do_nothing() {
        for line in ["", "   ", "# a comment", "  #* move/win", "#*"] {
            assert_eq!(parse(line), Ok(None), "{line:?}");
        }
    }

    #[test]
    fn malformed_commands_are_errors_without_protocol_marks() {
        for line in [
            "auto",
            "auto red",
            "set a1",
            "set a1 x black",
            "seed x",
            "limit 0",
            "limit -3",
            "b1-d9",
            "i1-a2",
            "b1d3",
            "jump",
            "***",
            "a>b",
        ] {
            let e = parse(line).expect_err(line);
            assert!(
                !e.contains('>') && !e.contains('*') && !e.contains("==="),
                "{line:?} gave {e:?}"
            );
        }
    }
}
