//! Reading the files a user names (rules, positions, proven positions, records) with a
//! bound on their size, so that a wrong path (`/dev/zero`, a disk image) gets a one-line
//! error instead of filling the memory.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// A kind of input file and the most bytes read of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// What the file is, as the error names it.
    pub what: &'static str,
    /// The most bytes a file of this kind may have.
    pub cap: u64,
}

/// GDL rules: the largest known games are a few hundred KB.
pub const RULES: Kind = Kind {
    what: "rules",
    cap: 16 << 20,
};
/// A position (`perft --position`), or positions proven by other solves (`solve
/// --known`): the known ones of a whole opening table are a few MB.
pub const POSITIONS: Kind = Kind {
    what: "positions",
    cap: 16 << 20,
};
/// Positions recorded by `selfplay --record` for `tune`: a few dozen bytes a position
/// (36 on 8x8 Breakthrough, about 80 positions a game), so that a tuning round of ten
/// thousand games is some 30 MB; files of many rounds appended stay far below this.
pub const RECORDS: Kind = Kind {
    what: "records",
    cap: 4 << 30,
};
/// A tournament's results (`tournament --results`): a match record with its moves is a
/// few KB, and a long tournament some hundred thousand matches.
pub const RESULTS: Kind = Kind {
    what: "results",
    cap: 4 << 30,
};
/// What a course program reads in its directory: `halma`'s `input.txt` (a few hundred
/// bytes) and its own notes beside it (a few KB).
pub const PROGRAM_INPUT: Kind = Kind {
    what: "program input",
    cap: 1 << 20,
};
/// The longest line of a records or results file: a recorded position is a few hundred
/// bytes, a match record a few KB.
pub const MAX_RECORD_LINE: u64 = 1 << 20;

/// `cap` as a person writes it (`16 MiB`).
fn size(cap: u64) -> String {
    match cap {
        c if c >= 1 << 30 && c % (1 << 30) == 0 => format!("{} GiB", c >> 30),
        c if c >= 1 << 20 && c % (1 << 20) == 0 => format!("{} MiB", c >> 20),
        c => format!("{c} bytes"),
    }
}

fn cannot_read(path: &Path, e: std::io::Error) -> String {
    format!("cannot read {}: {e}", path.display())
}

fn open(path: &Path) -> Result<File, String> {
    File::open(path).map_err(|e| cannot_read(path, e))
}

fn too_long(path: &Path, kind: Kind) -> String {
    format!(
        "{} is longer than {}, the most read of a {} file",
        path.display(),
        size(kind.cap),
        kind.what
    )
}

/// The text of the file at `path`, refused when it is longer than `kind` allows or is
/// not UTF-8; the error names the file.
pub fn read_to_string(path: &Path, kind: Kind) -> Result<String, String> {
    let mut text = String::new();
    open(path)?
        // One byte past the cap, so that an overlong file is told apart.
        .take(kind.cap + 1)
        .read_to_string(&mut text)
        .map_err(|e| cannot_read(path, e))?;
    if text.len() as u64 > kind.cap {
        return Err(too_long(path, kind));
    }
    Ok(text)
}

/// Calls `each` with every line of the file at `path` and its number (from 1), without
/// holding more than one line; refused when the file is longer than `kind` allows or a
/// line longer than `max_line` bytes. The errors name the file.
pub fn for_each_line(
    path: &Path,
    kind: Kind,
    max_line: u64,
    mut each: impl FnMut(usize, &str) -> Result<(), String>,
) -> Result<(), String> {
    let mut input = BufReader::new(open(path)?.take(kind.cap + 1));
    let mut line = Vec::new();
    let mut read = 0;
    for number in 1.. {
        line.clear();
        let n = (&mut input)
            .take(max_line + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| cannot_read(path, e))?;
        if n == 0 {
            break;
        }
        read += n as u64;
        if read > kind.cap {
            return Err(too_long(path, kind));
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if text.len() as u64 > max_line {
            return Err(format!(
                "{} line {number} is longer than {}, the most read of a line of a {} file",
                path.display(),
                size(max_line),
                kind.what
            ));
        }
        let text = std::str::from_utf8(text).map_err(|_| {
            format!(
                "{} line {number}: stream did not contain valid UTF-8",
                path.display()
            )
        })?;
        each(number, text.strip_suffix('\r').unwrap_or(text))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, contents: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("input-file-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    const SMALL: Kind = Kind {
        what: "test",
        cap: 10,
    };

    #[test]
    fn a_file_up_to_its_cap_is_read_and_a_longer_one_refused() {
        let at_cap = file("at-cap", b"0123456789");
        assert_eq!(read_to_string(&at_cap, SMALL).unwrap(), "0123456789");
        let over = file("over", b"0123456789a");
        let e = read_to_string(&over, SMALL).unwrap_err();
        assert!(
            e.contains("longer than 10 bytes") && e.contains("over"),
            "{e}"
        );
        let e = read_to_string(Path::new("/dev/zero"), RULES).unwrap_err();
        assert_eq!(
            e,
            "/dev/zero is longer than 16 MiB, the most read of a rules file"
        );
    }

    #[test]
    fn lines_are_bounded_one_by_one_and_in_all() {
        let lines = file("lines", b"ab\r\ncd\n\nef");
        let mut seen = Vec::new();
        for_each_line(&lines, SMALL, 4, |n, l| {
            seen.push(format!("{n}:{l}"));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["1:ab", "2:cd", "3:", "4:ef"]);
        let e = for_each_line(Path::new("/dev/zero"), RECORDS, 100, |_, _| Ok(())).unwrap_err();
        assert!(e.contains("line 1 is longer than 100 bytes"), "{e}");
        let long = file("long", b"abc\nabc\nabc\n");
        let e = for_each_line(&long, SMALL, 4, |_, _| Ok(())).unwrap_err();
        assert!(e.contains("longer than 10 bytes"), "{e}");
        let e = read_to_string(Path::new("/"), RULES).unwrap_err();
        assert!(e.starts_with("cannot read /: "), "{e}");
    }
}
