//! The CPU time of one child process, its threads and the children it waited for, as
//! the kernel counted it: what a course that judges agents on CPU time charges.
//!
//! `getrusage(RUSAGE_CHILDREN)` would mix every child of this process, and a tournament
//! runs several games at once; so the child is reaped with `wait4`, which reports the
//! usage of that one child. Until it exits it is only watched (`waitid` with `WNOWAIT`),
//! so that its process group can still be killed at the deadline without the risk of
//! signalling a process that took over its id. While it runs, its CPU time so far is
//! read from `/proc` (the child, its threads and every descendant still running), so
//! that it is stopped once it has used its CPU allowance, however busy the machine is.

use std::io;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};
use wait4::Wait4;

/// The longest nap between two looks at the child: the most a move's wall time is
/// overstated by.
const MAX_NAP: Duration = Duration::from_millis(4);

/// How often the running child's CPU time is read: the most it can overrun its CPU
/// allowance by, per thread.
const CPU_LOOK_EVERY: Duration = Duration::from_millis(50);

/// Why a watched child was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It ended by itself.
    Exited,
    /// Its CPU time passed its allowance.
    CpuLimit,
    /// It ran past the wall-clock bound (a program that waits rather than thinks).
    WallLimit,
}

/// How a watched child ended.
#[derive(Clone, Copy, Debug)]
pub struct Finished {
    /// User and system time of the child and its reaped descendants.
    pub cpu: Duration,
    pub stopped: Stopped,
    pub status: ExitStatus,
}

/// What a watched child may use before its group is killed.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// CPU time, counted over the child, its threads and its descendants.
    pub cpu: Duration,
    /// Wall time since the move began.
    pub wall: Duration,
}

/// Waits for `child`, which must lead a process group of its own (started by
/// [`super::shell::command`]), until it exits or passes one of `limits` (counted from
/// `began`), when its group is killed. Whatever the group still runs once the child has
/// ended is killed too, so nothing an agent started outlives its move. Returns the
/// child's CPU time.
pub fn wait_charged(child: &mut Child, began: Instant, limits: Limits) -> io::Result<Finished> {
    let pid = Pid::from_child(child);
    let mut nap = Duration::from_micros(250);
    let mut stopped = Stopped::Exited;
    let mut looked = Instant::now();
    loop {
        let watch = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(pid), watch) {
            Ok(Some(_)) => break,
            Ok(None) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let left = limits.wall.saturating_sub(began.elapsed());
        if left.is_zero() {
            stopped = Stopped::WallLimit;
            break;
        }
        if looked.elapsed() >= CPU_LOOK_EVERY {
            looked = Instant::now();
            if running_cpu(child.id()) > limits.cpu {
                stopped = Stopped::CpuLimit;
                break;
            }
        }
        std::thread::sleep(nap.min(left));
        nap = (nap * 2).min(MAX_NAP);
    }
    // Not reaped yet, so the id is still the child's.
    let _ = kill_process_group(pid, Signal::KILL);
    let used = child.wait4()?;
    Ok(Finished {
        cpu: used.rusage.utime + used.rusage.stime,
        stopped,
        status: used.status,
    })
}

/// The CPU time so far of process `pid`: its threads, the children it has reaped, and
/// its descendants still running, from `/proc`. What cannot be read (a process that has
/// just ended, a kernel without `/proc/PID/task/TID/children`) counts as nothing, so
/// the figure errs low and the final count from `wait4` has the last word.
fn running_cpu(pid: u32) -> Duration {
    let ticks = rustix::param::clock_ticks_per_second().max(1);
    let mut total = 0u64;
    let mut todo = vec![pid];
    while let Some(pid) = todo.pop() {
        total += std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat_ticks(&stat))
            .unwrap_or(0);
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            if let Ok(children) = std::fs::read_to_string(task.path().join("children")) {
                todo.extend(
                    children
                        .split_whitespace()
                        .filter_map(|c| c.parse::<u32>().ok()),
                );
            }
        }
    }
    Duration::from_secs(total / ticks)
        + Duration::from_nanos((total % ticks) * 1_000_000_000 / ticks)
}

/// User, system and reaped children's time from a `/proc/PID/stat` line, in clock
/// ticks: fields 14 to 17, counted after the command name, which is in parentheses and
/// may itself hold spaces or parentheses.
fn stat_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Field 3 (the state) is the first after the name, so fields 14–17 are at 11–14.
    after_name
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|f| f.parse::<u64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    fn start(script: &str) -> Child {
        Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap()
    }

    fn limits(cpu_ms: u64, wall_ms: u64) -> Limits {
        Limits {
            cpu: Duration::from_millis(cpu_ms),
            wall: Duration::from_millis(wall_ms),
        }
    }

    fn roomy() -> Limits {
        limits(60_000, 60_000)
    }

    #[test]
    fn counts_the_childs_cpu_not_its_sleep() {
        // Busy for a while in a grandchild (a second shell the first waits for).
        let began = Instant::now();
        let mut busy = start("sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'");
        let f = wait_charged(&mut busy, began, roomy()).unwrap();
        assert!(f.stopped == Stopped::Exited && f.status.success());
        assert!(f.cpu > Duration::from_millis(20), "{f:?}");
        assert!(
            f.cpu <= began.elapsed() + Duration::from_millis(50),
            "{f:?}"
        );

        let began = Instant::now();
        let mut asleep = start("sleep 0.3");
        let f = wait_charged(&mut asleep, began, roomy()).unwrap();
        assert!(f.cpu < Duration::from_millis(100), "{f:?}");
        assert!(began.elapsed() >= Duration::from_millis(300));
    }

    #[test]
    fn a_busy_descendant_is_stopped_at_the_cpu_limit_and_a_sleeper_at_the_wall() {
        // The loop runs in a grandchild, so only the walk over descendants sees it.
        let began = Instant::now();
        let mut busy = start("sh -c 'while :; do :; done'; true");
        let f = wait_charged(&mut busy, began, limits(300, 60_000)).unwrap();
        assert_eq!(f.stopped, Stopped::CpuLimit, "{f:?}");
        assert!(!f.status.success(), "{f:?}");
        assert!(began.elapsed() < Duration::from_secs(30), "{f:?}");

        let began = Instant::now();
        let mut forever = start("sleep 30");
        let f = wait_charged(&mut forever, began, limits(10, 200)).unwrap();
        assert_eq!(f.stopped, Stopped::WallLimit, "{f:?}");
        assert!(!f.status.success(), "{f:?}");
        assert!(began.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn reads_the_times_after_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194304 100 0 0 0 \
                    7 3 20 10 20 0 1 0 12345 1000 100";
        assert_eq!(stat_ticks(stat), Some(40));
        assert_eq!(stat_ticks("no name here"), None);
    }
}
