//! The agent's process: started in a process group of its own, signalled as a group.
//!
//! This module owns starting the agent (its own process group, stdout and stderr piped to
//! sjlint, standard input passed on), reaping it and what it leaves behind, and the few calls
//! that act on its group. It must not decide when to signal (that is the supervisor) nor read
//! the pipes.
//!
//! On Linux sjlint makes itself a child subreaper before it starts the agent: the processes the
//! agent leaves behind when it dies become sjlint's children instead of init's, so sjlint reaps
//! them as they die. Otherwise a killed leftover stays a zombie until an init that may reap
//! slowly, or never (a container without one), gets to it, and the group would look alive.

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// Starts `argv` in a new process group whose id is its pid. Standard input is passed on,
/// unless it is a terminal: a process outside the terminal's foreground group that reads it is
/// stopped by SIGTTIN, so the agent then gets an empty input (a headless agent waiting for a
/// keypress would hang anyway).
pub fn spawn(argv: &[OsString]) -> io::Result<Child> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no agent command given"))?;
    let stdin = if io::stdin().is_terminal() {
        Stdio::null()
    } else {
        Stdio::inherit()
    };
    Command::new(program)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
}

/// Asks that orphaned descendants be re-parented to this process (Linux; elsewhere a no-op).
/// Returns whether they will be.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag and touches no memory.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// What [`reap`] saw.
pub enum Reaped {
    /// The agent itself ended.
    Agent(std::process::ExitStatus),
    /// Another process of the group ended.
    Other,
    /// No child of sjlint is left in the group.
    None,
}

/// Waits for the next process of group `pgid` that is sjlint's child to end, and reaps it.
pub fn reap(pgid: i32, agent: i32) -> Reaped {
    use std::os::unix::process::ExitStatusExt;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `status` is valid for one int during the call.
        let pid = unsafe { libc::waitpid(-pgid, &raw mut status, 0) };
        if pid == agent {
            return Reaped::Agent(std::process::ExitStatus::from_raw(status));
        }
        if pid > 0 {
            return Reaped::Other;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Reaped::None;
        }
    }
}

/// Sends `signal` to every process of group `pgid`. False when the group has no process left.
pub fn signal_group(pgid: i32, signal: i32) -> bool {
    // SAFETY: killpg has no memory-safety preconditions.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// Whether group `pgid` still has a process (a zombie not yet reaped counts).
pub fn group_alive(pgid: i32) -> bool {
    signal_group(pgid, 0) || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}
