//! Reading the agent's pipes without being held hostage by them.
//!
//! This module owns [`PipeReader`], a reader over one of the agent's output pipes that waits
//! with poll(2) on the pipe and on a [`Stop`] pipe at once, and [`Stop`] itself. Once the
//! supervisor has ended the agent's process group it calls [`Stop::drain`]: the readers then
//! take what is already in their pipe and report the end of input as soon as nothing more is
//! waiting, instead of waiting for an end of file that a grandchild holding the pipe open would
//! put off for ever. It must not decide when to stop (that is the supervisor) nor interpret the
//! bytes.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// A new pipe, both ends close-on-exec (the agent must not inherit them), the write end
/// non-blocking when asked (a signal handler writes to it and must never block).
pub fn pipe(nonblocking_write: bool) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is valid for two ints; pipe2 fills both on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    if nonblocking_write {
        // SAFETY: fcntl on a descriptor we own; no memory is passed.
        unsafe {
            let flags = libc::fcntl(w.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(w.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
    Ok((r, w))
}

/// Tells the readers to stop waiting: one byte written to a pipe and never read, so that its
/// read end stays readable and every later poll sees it at once.
pub struct Stop {
    read: OwnedFd,
    write: OwnedFd,
    stopped: AtomicBool,
}

impl Stop {
    pub fn new() -> io::Result<Arc<Stop>> {
        let (read, write) = pipe(true)?;
        Ok(Arc::new(Stop {
            read,
            write,
            stopped: AtomicBool::new(false),
        }))
    }

    /// From now on the readers take what is waiting in their pipe and then end.
    pub fn drain(&self) {
        if !self.stopped.swap(true, Ordering::SeqCst) {
            let byte = 1u8;
            // SAFETY: `byte` is valid for one byte; a full pipe (impossible: one byte) or any
            // error leaves the flag set, which the readers also check.
            unsafe { libc::write(self.write.as_raw_fd(), (&raw const byte).cast(), 1) };
        }
    }
}

/// What the stdout reader tells the supervisor about its waiting, so that time spent blocked
/// on sjlint's own slow stdout never counts as the agent being idle.
pub struct Activity {
    start: Instant,
    /// Milliseconds after `start` of the last byte read, or of the start of the current wait.
    last_ms: AtomicU64,
    /// The reader is waiting for the agent (not writing to sjlint's stdout, not checking).
    waiting: AtomicBool,
    /// A byte has been read: the agent's start-up is over.
    started: AtomicBool,
}

impl Activity {
    pub fn new(start: Instant) -> Activity {
        Activity {
            start,
            last_ms: AtomicU64::new(0),
            waiting: AtomicBool::new(false),
            started: AtomicBool::new(false),
        }
    }

    fn mark(&self, waiting: bool) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last_ms.store(ms, Ordering::SeqCst);
        self.waiting.store(waiting, Ordering::SeqCst);
    }

    /// Milliseconds after the start when the last read returned (while its bytes are being
    /// forwarded and checked: when the records they complete arrived).
    pub fn last_read_ms(&self) -> u64 {
        self.last_ms.load(Ordering::SeqCst)
    }

    /// Whether the agent has written its first byte.
    pub fn started(&self) -> bool {
        self.started.load(Ordering::SeqCst)
    }

    /// Since when the reader has been waiting for the agent with nothing read, if it is.
    pub fn waiting_since(&self) -> Option<Instant> {
        self.waiting.load(Ordering::SeqCst).then(|| {
            self.start + std::time::Duration::from_millis(self.last_ms.load(Ordering::SeqCst))
        })
    }
}

/// Whether every process that could write to the pipe whose read end is `fd` has closed it
/// (poll(2) reports a hang-up), whatever is still waiting in it to be read.
pub fn writers_gone(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd for the duration of the call; a timeout of 0 never waits.
    let rc = unsafe { libc::poll(&raw mut p, 1, 0) };
    rc > 0 && p.revents & libc::POLLHUP != 0
}

/// One of the agent's output pipes, read as described in the module documentation.
pub struct PipeReader {
    fd: OwnedFd,
    stop: Arc<Stop>,
    activity: Option<Arc<Activity>>,
}

impl PipeReader {
    pub fn new(fd: OwnedFd, stop: Arc<Stop>, activity: Option<Arc<Activity>>) -> PipeReader {
        PipeReader { fd, stop, activity }
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some(a) = &self.activity {
            a.mark(true);
        }
        let (ready, stopped) = wait(self.fd.as_raw_fd(), self.stop.read.as_raw_fd())?;
        if !ready && stopped {
            return Ok(0);
        }
        let n = loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes during the call.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            match usize::try_from(n) {
                Ok(n) => break n,
                Err(_) => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        };
        if let Some(a) = &self.activity {
            if n > 0 {
                a.started.store(true, Ordering::SeqCst);
            }
            a.mark(false);
        }
        Ok(n)
    }
}

/// Waits until `fd` can be read (bytes or its end) or `stop` is readable. Returns whether `fd`
/// is ready and whether the readers were stopped; bytes already waiting win over a stop.
fn wait(fd: RawFd, stop: RawFd) -> io::Result<(bool, bool)> {
    let mut fds = [
        libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: stop,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: `fds` is two valid pollfds for the duration of the call.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        let ready = fds[0].revents != 0;
        let stopped = fds[1].revents != 0;
        if ready || stopped {
            return Ok((ready, stopped));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_pipe_is_hung_up_once_its_last_writer_closes_it() {
        let (r, w) = pipe(false).unwrap();
        let mut writer = std::fs::File::from(w);
        writer.write_all(b"waiting").unwrap();
        assert!(!writers_gone(r.as_raw_fd()));
        drop(writer);
        // Bytes still waiting do not hide the hang-up.
        assert!(writers_gone(r.as_raw_fd()));
    }

    #[test]
    fn a_stop_ends_a_read_that_waits_on_an_open_pipe_after_what_is_waiting() {
        let (r, w) = pipe(false).unwrap();
        let stop = Stop::new().unwrap();
        let mut writer = std::fs::File::from(w);
        writer.write_all(b"abc").unwrap();
        let mut reader = PipeReader::new(r, Arc::clone(&stop), None);
        let mut buf = [0u8; 16];
        assert_eq!(reader.read(&mut buf).unwrap(), 3);
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stop.drain();
        });
        // The write end stays open: only the stop ends this read.
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
        stopper.join().unwrap();
        writer.write_all(b"late").unwrap();
        // Bytes that are waiting are still taken after the stop.
        assert_eq!(reader.read(&mut buf).unwrap(), 4);
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
    }
}
