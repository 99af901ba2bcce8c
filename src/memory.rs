//! Whether a table of the size asked for fits in the memory the machine has free.
//!
//! Tables are written in full when made (so that no page fault falls inside a search),
//! so a table larger than the free memory either aborts the program when it is
//! allocated ("memory allocation of … bytes failed") or, where the kernel lets the
//! allocation through, leaves the process to its out-of-memory killer while the pages
//! are filled. Checked first, a size that cannot fit is a clear error that says what is
//! free.

/// MiB of memory available to a new process now (Linux's `MemAvailable`: free memory
/// and what the kernel can reclaim), `None` where the system does not say.
pub fn available_mib() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_available_mib(&text)
}

/// `MemAvailable` of a `/proc/meminfo` text, in MiB.
fn parse_available_mib(meminfo: &str) -> Option<usize> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: usize = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib / 1024)
}

/// `Ok` when a table of `mb` MiB fits in the memory available now (or when that is not
/// known); otherwise why not, naming `what` asked for it (an option, say).
pub fn check_table(mb: usize, what: &str) -> Result<(), String> {
    check_against(mb, available_mib(), what)
}

fn check_against(mb: usize, available: Option<usize>, what: &str) -> Result<(), String> {
    match available {
        Some(free) if mb > free => Err(format!(
            "{what} asks for a table of {mb} MiB, but only {free} MiB of memory is \
             available: give a smaller size or free some memory"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str = "MemTotal:       24622596 kB\n\
                           MemFree:          812344 kB\n\
                           MemAvailable:    6291456 kB\n\
                           Buffers:            1024 kB\n";

    #[test]
    fn the_available_memory_is_read_from_meminfo() {
        assert_eq!(parse_available_mib(MEMINFO), Some(6144));
        assert_eq!(parse_available_mib("MemTotal: 1000 kB\n"), None);
        assert_eq!(parse_available_mib("MemAvailable: lots\n"), None);
    }

    #[test]
    fn a_table_larger_than_the_available_memory_is_refused() {
        assert_eq!(check_against(6144, Some(6144), "--hash-mb"), Ok(()));
        let why = check_against(6145, Some(6144), "--hash-mb").unwrap_err();
        assert!(
            why.contains("--hash-mb asks for a table of 6145 MiB"),
            "{why}"
        );
        assert!(why.contains("only 6144 MiB"), "{why}");
        // Where the system does not say, the table is tried.
        assert_eq!(check_against(1 << 20, None, "--hash-mb"), Ok(()));
    }

    #[test]
    fn this_machine_reports_its_memory_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available_mib().is_some_and(|mb| mb > 0));
        }
    }
}
