//! The CPU time of one child process, its threads and the children it waited for, as
//! the kernel counted it: what a course that judges agents on CPU time charges.
//!
//! `getrusage(RUSAGE_CHILDREN)` would mix every child of this process, and a tournament
//! runs several games at once; so the child is reaped with `wait4`, which reports the
//! usage of that one child. Until it exits it is only watched (`waitid` with `WNOWAIT`),
//! so that its process group can still be killed at the deadline without the risk of
//! signalling a process that took over its id.

use std::io;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};
use wait4::Wait4;

/// The longest nap between two looks at the child: the most a move's wall time is
/// overstated by.
const MAX_NAP: Duration = Duration::from_millis(4);

/// How a watched child ended.
#[derive(Clone, Copy, Debug)]
pub struct Finished {
    /// User and system time of the child and its reaped descendants.
    pub cpu: Duration,
    /// Killed at the wall-clock limit.
    pub killed: bool,
    pub status: ExitStatus,
}

/// Waits for `child`, which must lead a process group of its own (started by
/// [`super::shell::command`]), until it exits or `limit` has passed since `began`, when its
/// group is killed. Whatever the group still runs once the child has ended is killed
/// too, so nothing an agent started outlives its move. Returns the child's CPU time.
pub fn wait_charged(child: &mut Child, began: Instant, limit: Duration) -> io::Result<Finished> {
    let pid = Pid::from_child(child);
    let mut nap = Duration::from_micros(250);
    let mut killed = false;
    loop {
        let watch = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(pid), watch) {
            Ok(Some(_)) => break,
            Ok(None) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let left = limit.saturating_sub(began.elapsed());
        if left.is_zero() {
            killed = true;
            break;
        }
        std::thread::sleep(nap.min(left));
        nap = (nap * 2).min(MAX_NAP);
    }
    // Not reaped yet, so the id is still the child's.
    let _ = kill_process_group(pid, Signal::KILL);
    let used = child.wait4()?;
    Ok(Finished {
        cpu: used.rusage.utime + used.rusage.stime,
        killed,
        status: used.status,
    })
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

    #[test]
    fn counts_the_childs_cpu_not_its_sleep_and_kills_at_the_limit() {
        // Busy for a while in a grandchild (a second shell the first waits for).
        let began = Instant::now();
        let mut busy = start("sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'");
        let f = wait_charged(&mut busy, began, Duration::from_secs(60)).unwrap();
        assert!(!f.killed && f.status.success());
        assert!(f.cpu > Duration::from_millis(20), "{f:?}");
        assert!(
            f.cpu <= began.elapsed() + Duration::from_millis(50),
            "{f:?}"
        );

        let began = Instant::now();
        let mut asleep = start("sleep 0.3");
        let f = wait_charged(&mut asleep, began, Duration::from_secs(60)).unwrap();
        assert!(f.cpu < Duration::from_millis(100), "{f:?}");
        assert!(began.elapsed() >= Duration::from_millis(300));

        let began = Instant::now();
        let mut forever = start("sleep 30");
        let f = wait_charged(&mut forever, began, Duration::from_millis(200)).unwrap();
        assert!(f.killed && !f.status.success(), "{f:?}");
        assert!(began.elapsed() < Duration::from_secs(10));
    }
}
