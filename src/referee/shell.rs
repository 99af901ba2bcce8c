//! Course programs as the referee starts them: through the shell (`sh -c`), so that
//! `java -jar agent.jar` works, and each in a process group of its own, so that what the
//! shell starts ends with it.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};

/// `sh -c line`, leading a process group of its own.
pub fn command(line: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(line).process_group(0);
    command
}

/// Ends a program started by [`command`]: waits up to `grace` for it to exit, then kills
/// its process group (whatever it started goes too) and reaps it.
pub fn end_group(child: &mut Child, grace: Duration) {
    let pid = Pid::from_child(child);
    let asked = Instant::now();
    while asked.elapsed() < grace {
        let watch = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        if let Ok(Some(_)) = waitid(WaitId::Pid(pid), watch) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Not reaped yet, so the group's id is still the program's.
    let _ = kill_process_group(pid, Signal::KILL);
    let _ = child.wait();
}
