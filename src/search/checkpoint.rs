//! A long solve saved to a file and resumed from it, for both solvers.
//!
//! Neither solver keeps anything between its steps but its table, so the table is the
//! whole state: a run resumed from a saved table starts again at the root and finds its
//! way back to where the work stopped through the entries, at the cost of a few lookups
//! a ply. The file also records which solver wrote it (their entries mean different
//! things), which proof was under way, the nodes and time so far, and the root it belongs
//! to. It is written beside its final name and renamed over it, so a run killed while
//! saving leaves the previous save whole. The table has no locks and a torn entry fails
//! its check ([`ProofTable`]), so it is saved while the threads go on searching.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::time::Duration;

use tracing::info;

use crate::memory;
use crate::search::prooftable::{ProofTable, Slot, WAYS};

/// A solve's file of saved state.
#[derive(Clone, Copy)]
pub struct Checkpoint<'a> {
    pub path: &'a Path,
    /// Time between two saves (the solve is also saved when it stops).
    pub every: Duration,
    /// What is solved (game, board, rules) in words: a file saved for anything else is
    /// refused, as the root's hash alone does not tell two rule variants apart.
    pub label: &'a str,
}

/// The solver that wrote a checkpoint: each reads only its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Writer {
    Dfpn,
    AlphaBeta,
}

impl Writer {
    fn magic(self) -> &'static [u8; 8] {
        match self {
            Writer::Dfpn => b"GGPDFPN1",
            Writer::AlphaBeta => b"GGPALBE1",
        }
    }

    fn option(self) -> &'static str {
        match self {
            Writer::Dfpn => "--solver dfpn",
            Writer::AlphaBeta => "--solver alphabeta",
        }
    }
}

/// What a checkpoint holds besides the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Header {
    /// What was being solved: the game, the board and the rules, in words.
    pub label: String,
    pub root: u64,
    /// The proof under way: 0 (a win) or 1 (at least a draw, the win disproved).
    pub phase: u8,
    /// A drawn end was met in the first proof.
    pub saw_draw: bool,
    pub nodes: u64,
    pub elapsed: Duration,
}

fn write_u64(out: &mut impl Write, x: u64) -> std::io::Result<()> {
    out.write_all(&x.to_le_bytes())
}

fn read_u64(input: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0; 8];
    input.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Saves `header` and `table` to `path` (through a temporary file beside it), logging
/// how long it took.
pub(super) fn save(
    path: &Path,
    writer: Writer,
    header: &Header,
    table: &ProofTable,
) -> Result<(), String> {
    let began = std::time::Instant::now();
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = Path::new(&tmp);
    let fail = |e: std::io::Error| format!("cannot save the checkpoint {}: {e}", path.display());
    let mut out = BufWriter::with_capacity(1 << 20, File::create(tmp).map_err(fail)?);
    (|| {
        out.write_all(writer.magic())?;
        write_u64(&mut out, header.label.len() as u64)?;
        out.write_all(header.label.as_bytes())?;
        write_u64(&mut out, header.root)?;
        out.write_all(&[header.phase, u8::from(header.saw_draw)])?;
        write_u64(&mut out, header.nodes)?;
        write_u64(&mut out, header.elapsed.as_millis() as u64)?;
        write_u64(&mut out, table.buckets() as u64)?;
        for b in 0..table.buckets() {
            for w in 0..WAYS {
                for word in table.slot(b, w).words() {
                    write_u64(&mut out, word)?;
                }
            }
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    })()
    .map_err(fail)?;
    std::fs::rename(tmp, path).map_err(fail)?;
    info!(
        path = %path.display(),
        nodes = header.nodes,
        save_ms = began.elapsed().as_millis() as u64,
        solver = ?writer,
        "checkpoint saved"
    );
    Ok(())
}

/// Reads a checkpoint `writer` wrote: its header and its table.
pub(super) fn load(path: &Path, writer: Writer) -> Result<(Header, ProofTable), String> {
    let fail = |why: String| format!("cannot resume from {}: {why}", path.display());
    let file = File::open(path).map_err(|e| fail(e.to_string()))?;
    let length = file.metadata().map_err(|e| fail(e.to_string()))?.len();
    // The table is as large as the file: refused before it is read if it cannot fit.
    memory::check_table(
        (length >> 20) as usize,
        &format!("resuming from {}", path.display()),
    )?;
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0; 8];
    let io = |e: std::io::Error| fail(format!("{e} (a damaged or cut-off file?)"));
    input.read_exact(&mut magic).map_err(io)?;
    if &magic != writer.magic() {
        let other = [Writer::Dfpn, Writer::AlphaBeta]
            .into_iter()
            .find(|w| w.magic() == &magic);
        return Err(fail(match other {
            Some(w) => format!("it is a checkpoint of the other solver ({})", w.option()),
            None => "not a checkpoint of a solve".into(),
        }));
    }
    let label_length = read_u64(&mut input).map_err(io)?;
    if label_length > 4096 {
        return Err(fail("its header is damaged".into()));
    }
    let mut label = vec![0; label_length as usize];
    input.read_exact(&mut label).map_err(io)?;
    let label = String::from_utf8(label).map_err(|_| fail("its header is damaged".into()))?;
    let root = read_u64(&mut input).map_err(io)?;
    let mut flags = [0; 2];
    input.read_exact(&mut flags).map_err(io)?;
    let nodes = read_u64(&mut input).map_err(io)?;
    let elapsed = Duration::from_millis(read_u64(&mut input).map_err(io)?);
    let buckets = read_u64(&mut input).map_err(io)?;
    let entry_bytes = 16 * WAYS as u64;
    let expected = buckets
        .checked_mul(entry_bytes)
        .and_then(|b| b.checked_add(8 + 8 + label_length + 8 + 2 + 8 + 8 + 8));
    if flags[0] > 1 || !buckets.is_power_of_two() || expected != Some(length) {
        return Err(fail(format!(
            "its header does not match its length of {length} bytes (a damaged or cut-off file?)"
        )));
    }
    let table = ProofTable::with_buckets(buckets as usize);
    for b in 0..buckets as usize {
        for w in 0..WAYS {
            let words = [
                read_u64(&mut input).map_err(io)?,
                read_u64(&mut input).map_err(io)?,
            ];
            table.store(b, w, Slot::from_words(words));
        }
    }
    let header = Header {
        label,
        root,
        phase: flags[0],
        saw_draw: flags[1] == 1,
        nodes,
        elapsed,
    };
    Ok((header, table))
}

/// The saved state to resume `checkpoint` from, if its file is there: refused when
/// another solver wrote it or it belongs to another solve (`label`, `root`).
pub(super) fn resume(
    checkpoint: &Checkpoint,
    writer: Writer,
    root: u64,
) -> Result<Option<(Header, ProofTable)>, String> {
    let path = checkpoint.path;
    if !path.exists() {
        return Ok(None);
    }
    let (header, table) = load(path, writer)?;
    if header.label != checkpoint.label || header.root != root {
        return Err(format!(
            "{} is the checkpoint of another solve ({}), not of {}",
            path.display(),
            header.label,
            checkpoint.label
        ));
    }
    info!(
        path = %path.display(),
        nodes = header.nodes,
        seconds = header.elapsed.as_secs(),
        proof = if header.phase == 0 { "win" } else { "draw" },
        solver = ?writer,
        "the solve resumes from its checkpoint"
    );
    Ok(Some((header, table)))
}

/// Bytes of the checkpoint of `table` with `header`.
#[cfg(test)]
fn bytes_for(header: &Header, table: &ProofTable) -> u64 {
    table.buckets() as u64 * 16 * WAYS as u64 + 50 + header.label.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("solve-ckpt-{}-{name}", std::process::id()))
    }

    #[test]
    fn a_saved_table_reads_back_entry_for_entry() {
        let table = ProofTable::with_buckets(8);
        for i in 0..20u64 {
            table.put(
                i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                i << 32 | (40 - i),
                i + 1,
            );
        }
        let header = Header {
            label: "breakthrough 5x5 standard".into(),
            root: 42,
            phase: 1,
            saw_draw: true,
            nodes: 123_456,
            elapsed: Duration::from_millis(7_890),
        };
        let path = scratch("round-trip");
        save(&path, Writer::Dfpn, &header, &table).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            bytes_for(&header, &table)
        );
        let (read, copy) = load(&path, Writer::Dfpn).unwrap();
        assert_eq!(read, header);
        for b in 0..8 {
            for w in 0..WAYS {
                assert_eq!(copy.slot(b, w), table.slot(b, w));
            }
        }
        // The other solver's, cut short, or not a checkpoint at all: a clear refusal.
        let why = load(&path, Writer::AlphaBeta).err().unwrap();
        assert!(why.contains("other solver (--solver dfpn)"), "{why}");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let why = load(&path, Writer::Dfpn).err().unwrap();
        assert!(why.contains("damaged or cut-off"), "{why}");
        std::fs::write(&path, b"hello").unwrap();
        assert!(load(&path, Writer::Dfpn).is_err());
        std::fs::write(&path, b"something else entirely, long enough").unwrap();
        let why = load(&path, Writer::Dfpn).err().unwrap();
        assert!(why.contains("not a checkpoint"), "{why}");
        std::fs::remove_file(&path).unwrap();
    }
}
