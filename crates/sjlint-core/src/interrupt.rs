//! Ctrl-C, SIGTERM and SIGHUP: stop reading where the run stands, so the command can report
//! what it found so far and exit 128 + the signal's number (130, 143, 129). For `run`, every
//! other signal that would end sjlint at once and orphan the agent too.
//!
//! This module owns the handlers of those signals, the record of which one arrived, and
//! the reader wrapper that turns it into a distinct I/O error. It must not print or decide exit
//! codes beyond the 128 + n convention (that is `commands` and `run`).
//!
//! The handlers are installed with `sigaction` and without `SA_RESTART`, so that a `read`
//! blocked on a silent standard input (a live agent that is thinking) fails with `EINTR` at
//! once instead of being restarted by the kernel; they only store the signal's number (and, for
//! `run`, write one byte to a wake-up pipe). For the commands that read streams, `SA_RESETHAND`
//! puts the default action back after the first delivery: a second Ctrl-C ends the process at
//! once, which also covers a signal that lands between the flag check and the start of the next
//! `read`. `run` keeps its handlers, since it must forward every signal to the agent's process
//! group: dying at once would leave the agent running.

use std::io::{self, Read};
use std::sync::atomic::{AtomicI32, Ordering};

/// The number of the first signal received; 0 before.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The write end of the pipe [`install_waking`] writes each signal's number to; -1 when none.
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// The signals that stop a run: SIGINT (Ctrl-C), SIGTERM (CI cancellation, `timeout`, `kill`),
/// SIGHUP (the terminal went away).
#[cfg(unix)]
pub const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The signals `run` passes on to the agent's process group as they are: [`SIGNALS`] and
/// SIGQUIT (Ctrl-\), as `timeout` passes them on.
#[cfg(unix)]
pub const RUN_SIGNALS: [libc::c_int; 4] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The other signals whose default action would end sjlint at once and leave the agent running,
/// reparented to init: `run` handles them as it handles SIGTERM (it ends the agent's group with
/// SIGTERM, then exits 128 + n). Not passed on as they are: an agent may give them a meaning of
/// its own (Node.js starts its inspector on SIGUSR1). The real-time signals are handled too.
/// Left out: SIGXFSZ, which `run` ignores (see [`install_waking`]), SIGPIPE, which the Rust
/// runtime ignores, and the signals of a fault in sjlint itself (SIGSEGV, SIGBUS, SIGILL,
/// SIGFPE, SIGTRAP, SIGSYS, SIGABRT), after which the process cannot go on.
#[cfg(target_os = "linux")]
pub const RUN_ENDING_SIGNALS: [libc::c_int; 9] = [
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
    libc::SIGIO,
    libc::SIGPWR,
    libc::SIGSTKFLT,
];
#[cfg(all(unix, not(target_os = "linux")))]
pub const RUN_ENDING_SIGNALS: [libc::c_int; 6] = [
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
];

#[cfg(unix)]
extern "C" fn on_signal(n: libc::c_int) {
    // Only an atomic compare-exchange, an atomic load and `write`: async-signal-safe. The first
    // signal is the one the run reports.
    let _ = SIGNAL.compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
    let fd = WAKE.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = n as u8;
        // SAFETY: `byte` is valid for one byte; the descriptor is non-blocking, so a full pipe
        // drops the byte instead of blocking the handler (the flag is set either way).
        unsafe { libc::write(fd, (&raw const byte).cast(), 1) };
    }
}

/// Installs the handlers of [`SIGNALS`] for a command that reads streams: a second delivery of
/// the same signal ends the process at once. A no-op off Unix, where Ctrl-C keeps its default
/// action.
pub fn install() -> io::Result<()> {
    #[cfg(unix)]
    {
        set_handlers(&SIGNALS, libc::SA_RESETHAND, on_signal)?;
    }
    Ok(())
}

/// Installs the handlers of [`RUN_SIGNALS`] and [`RUN_ENDING_SIGNALS`] (and the real-time
/// signals on Linux) for `run`: every delivery writes the signal's number (one byte) to `wake`,
/// the write end of a non-blocking pipe that the supervisor waits on, and the handlers stay
/// installed. SIGXFSZ (a file grown past `ulimit -f`) is ignored, so the write fails with
/// `EFBIG` and the run reports it. It is caught by a handler that does nothing rather than set
/// to `SIG_IGN`, which the agent would inherit: a handler is reset to the default at `exec`.
#[cfg(unix)]
pub fn install_waking(wake: std::os::fd::RawFd) -> io::Result<()> {
    WAKE.store(wake, Ordering::SeqCst);
    set_handlers(&RUN_SIGNALS, 0, on_signal)?;
    set_handlers(&RUN_ENDING_SIGNALS, 0, on_signal)?;
    #[cfg(target_os = "linux")]
    {
        let realtime: Vec<libc::c_int> = (libc::SIGRTMIN()..=libc::SIGRTMAX()).collect();
        set_handlers(&realtime, 0, on_signal)?;
    }
    set_handlers(&[libc::SIGXFSZ], libc::SA_RESTART, on_ignored)
}

/// Whether `run` passes signal `n` on to the agent's group as it is (else it sends SIGTERM).
#[cfg(unix)]
pub fn passed_on(n: i32) -> bool {
    RUN_SIGNALS.contains(&n)
}

#[cfg(unix)]
extern "C" fn on_ignored(_: libc::c_int) {}

#[cfg(unix)]
fn set_handlers(
    signals: &[libc::c_int],
    flags: libc::c_int,
    handler: extern "C" fn(libc::c_int),
) -> io::Result<()> {
    for &signal in signals {
        // SAFETY: `action` is fully initialised (zeroed, then its handler, mask and flags set)
        // before `sigaction` reads it; the handler is async-signal-safe (see `on_signal`); the
        // old action is not requested (a null pointer is allowed).
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as libc::sighandler_t;
            libc::sigemptyset(&raw mut action.sa_mask);
            action.sa_flags = flags;
            libc::sigaction(signal, &raw const action, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether Ctrl-C was pressed, or SIGTERM or SIGHUP received.
pub fn interrupted() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}

/// The number of the first signal received, if any.
pub fn signal() -> Option<i32> {
    Some(SIGNAL.load(Ordering::SeqCst)).filter(|&n| n != 0)
}

/// The exit code of a run stopped by signal `n`: 128 + n, as shells report it.
pub fn exit_code_for(n: i32) -> u8 {
    u8::try_from(128 + n.clamp(1, 127)).unwrap_or(u8::MAX)
}

/// The exit code of a run stopped by the signal received (130 when none was recorded).
pub fn exit_code() -> u8 {
    exit_code_for(signal().unwrap_or(2))
}

/// The conventional name of signal `n` (`SIGTERM`), or `signal n`.
pub fn signal_name(n: i32) -> String {
    #[cfg(target_os = "linux")]
    if (libc::SIGRTMIN()..=libc::SIGRTMAX()).contains(&n) {
        return format!("SIGRTMIN+{}", n - libc::SIGRTMIN());
    }
    let name = match n {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGIO => "SIGIO",
        #[cfg(target_os = "linux")]
        libc::SIGPWR => "SIGPWR",
        #[cfg(target_os = "linux")]
        libc::SIGSTKFLT => "SIGSTKFLT",
        _ => return format!("signal {n}"),
    };
    name.to_owned()
}

/// What a command says when a signal stopped it: `interrupted` for Ctrl-C, `stopped by
/// SIGTERM` otherwise.
pub fn describe() -> String {
    match signal() {
        None | Some(2) => "interrupted".to_owned(),
        Some(n) => format!("stopped by {}", signal_name(n)),
    }
}

/// The error a reader returns once a signal was received (see [`is_stop`]); `Ok` before.
pub fn stop_if_interrupted() -> io::Result<()> {
    if interrupted() {
        return Err(io::Error::other(Stopped));
    }
    Ok(())
}

/// The payload of the error an [`Interruptible`] reader returns after a signal.
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Stopped {}

/// Whether `e` is the error of a reader stopped by a signal.
pub fn is_stop(e: &io::Error) -> bool {
    e.get_ref().is_some_and(
        <dyn std::error::Error + std::marker::Send + std::marker::Sync + 'static>::is::<Stopped>,
    )
}

/// A reader that ends with a `Stopped` error once a signal was received: before each read,
/// and when a read blocked at the time fails with `EINTR`. Its kind is not `Interrupted`, which
/// readers retry.
pub struct Interruptible<R>(pub R);

impl<R: Read> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            stop_if_interrupted()?;
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_recognised_and_is_not_an_interrupted_read() {
        let e = io::Error::other(Stopped);
        assert!(is_stop(&e));
        assert_ne!(e.kind(), io::ErrorKind::Interrupted);
        assert!(!is_stop(&io::Error::other("something else")));
        assert!(!is_stop(&io::ErrorKind::Interrupted.into()));
    }

    #[test]
    fn exit_codes_and_names_follow_the_shell() {
        assert_eq!(exit_code_for(2), 130);
        assert_eq!(exit_code_for(15), 143);
        assert_eq!(exit_code_for(1), 129);
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(10), "SIGUSR1");
        assert_eq!(signal_name(99), "signal 99");
    }
}
