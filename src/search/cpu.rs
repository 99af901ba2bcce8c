//! CPU-time limits, for programs charged the CPU time they use (all threads) rather
//! than the wall clock.
//!
//! A search looks only at its stop flag and at wall-clock instants; a watcher thread
//! turns a CPU limit into the flag. It sleeps most of the time, waking more often as
//! the limit nears, so it costs a few microseconds of CPU per wake-up.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// The CPU time this process has used so far, all threads, program start included;
/// `None` where the system cannot tell.
pub fn process_time() -> Option<Duration> {
    cpu_time::ProcessTime::try_now()
        .ok()
        .map(|t| t.as_duration())
}

/// The longest and the shortest sleep of the watcher between two looks.
const MAX_NAP: Duration = Duration::from_millis(5);
const MIN_NAP: Duration = Duration::from_micros(200);

/// Raises a stop flag once the process has used `limit` of CPU time, and optionally a
/// mark flag at an earlier amount (one watcher for both); stops watching when dropped.
pub struct CpuLimit {
    stop: Arc<AtomicBool>,
    mark: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

impl CpuLimit {
    /// Starts watching; `None` where the process's CPU time cannot be read (the caller
    /// then needs a wall-clock limit instead).
    pub fn start(limit: Duration) -> Option<CpuLimit> {
        CpuLimit::start_with_mark(limit, limit)
    }

    /// [`CpuLimit::start`], also raising [`CpuLimit::mark_flag`] once the process has used
    /// `mark` (e.g. when a search should start no new iteration).
    pub fn start_with_mark(mark: Duration, limit: Duration) -> Option<CpuLimit> {
        process_time()?;
        let stop = Arc::new(AtomicBool::new(false));
        let marked = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let (flag, mark_flag, done) = (stop.clone(), marked.clone(), finished.clone());
        let mark = mark.min(limit);
        let watcher = thread::Builder::new()
            .name("cpu-limit".into())
            .spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let used = process_time().unwrap_or(limit);
                    if used >= mark {
                        mark_flag.store(true, Ordering::Relaxed);
                    }
                    if used >= limit {
                        flag.store(true, Ordering::Relaxed);
                        return;
                    }
                    // A quarter of what is left to the next flag: it goes up at most that late.
                    let next = if used < mark { mark } else { limit };
                    thread::park_timeout(((next - used) / 4).clamp(MIN_NAP, MAX_NAP));
                }
            })
            .ok()?;
        Some(CpuLimit {
            stop,
            mark: marked,
            finished,
            watcher: Some(watcher),
        })
    }

    /// The flag that goes up at the limit (for [`super::Limits::with_stop`]).
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The flag that goes up at the mark (for [`super::Limits::soft_stop`]).
    pub fn mark_flag(&self) -> Arc<AtomicBool> {
        self.mark.clone()
    }
}

impl Drop for CpuLimit {
    fn drop(&mut self) {
        self.finished.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            w.thread().unpark();
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn the_flag_rises_once_the_process_has_used_the_limit() {
        let used = process_time().expect("Linux reports CPU time");
        let limit = CpuLimit::start(used + Duration::from_millis(30)).unwrap();
        let flag = limit.flag();
        assert!(!flag.load(Ordering::Relaxed));
        // Burn CPU until the flag rises; the process has used at least the limit then.
        let began = Instant::now();
        let mut x = 0u64;
        while !flag.load(Ordering::Relaxed) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            assert!(began.elapsed() < Duration::from_secs(60), "{x}");
        }
        assert!(process_time().unwrap() >= used + Duration::from_millis(30));
    }
}
