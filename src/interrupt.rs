//! Ctrl-C: stop reading where the run stands, so the command can report what it found so far
//! and exit 130.
//!
//! This module owns the SIGINT handler and the reader wrapper that turns an interrupt into a
//! distinct I/O error. It must not print or decide exit codes (that is `commands`).
//!
//! The handler is installed with `sigaction` and without `SA_RESTART`, so that a `read` blocked
//! on a silent standard input (a live agent that is thinking) fails with `EINTR` at once instead
//! of being restarted by the kernel; it only sets a flag. `SA_RESETHAND` puts the default action
//! back after the first delivery: a second Ctrl-C ends the process at once, which also covers a
//! signal that lands between the flag check and the start of the next `read`.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the SIGINT handler (a no-op off Unix, where Ctrl-C keeps its default action).
pub fn install() -> io::Result<()> {
    #[cfg(unix)]
    {
        extern "C" fn on_sigint(_: libc::c_int) {
            // Only an atomic store: async-signal-safe.
            INTERRUPTED.store(true, Ordering::SeqCst);
        }
        // SAFETY: `action` is fully initialised (zeroed, then its handler, mask and flags set)
        // before `sigaction` reads it; the handler only performs an atomic store, which is
        // async-signal-safe; the old action is not requested (null pointer is allowed).
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = libc::SA_RESETHAND;
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The error a reader returns once Ctrl-C was pressed (see [`is_stop`]); `Ok` before.
pub fn stop_if_interrupted() -> io::Result<()> {
    if interrupted() {
        return Err(io::Error::other(Stopped));
    }
    Ok(())
}

/// The payload of the error an [`Interruptible`] reader returns after Ctrl-C.
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Stopped {}

/// Whether `e` is the error of a reader stopped by Ctrl-C.
pub fn is_stop(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Stopped>())
}

/// A reader that ends with a `Stopped` error once Ctrl-C was pressed: before each read, and
/// when a read blocked at the time fails with `EINTR`. Its kind is not `Interrupted`, which
/// readers retry.
pub struct Interruptible<R>(pub R);

impl<R: Read> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            stop_if_interrupted()?;
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
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
}
