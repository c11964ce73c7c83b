//! Where the output goes, and what a failed write means for the run.
//!
//! A failed write travels back through the same `io::Result` paths as a failed read (the
//! findings are written while the input is read), so [`Sink`] marks every error of its writer:
//! [`is_write_error`] tells it apart, and the run says "cannot write the output", not "cannot
//! read" the input. The error keeps its kind, so a closed pipe is still `BrokenPipe`.
//!
//! A closed stdout (`sjlint fmt … | head -1`) ends the run quietly, with the exit code the
//! findings so far call for: [`note_exit`] records that code as the run goes, and
//! [`exit_so_far`] gives it back. `check`, whose exit code is its verdict, writes its findings
//! (and `--tee`'s copy of the stream) through [`Outlasting`] instead: the check goes on to the end of its inputs with nothing
//! written, so that the exit code does not depend on how much output a format had written before
//! its reader went away. This module must not print nor decide what a finding is.

use std::error::Error;
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU8, Ordering};

/// A writer whose errors are marked as write errors.
pub struct Sink<W>(pub W);

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(marked)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(marked)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(marked)
    }
}

/// A writer that outlasts its reader: once a write fails with `BrokenPipe`, it takes every
/// later write and drops it.
pub struct Outlasting<W> {
    inner: W,
    /// The reader went away; nothing is written any more.
    gone: bool,
}

impl<W> Outlasting<W> {
    pub fn new(inner: W) -> Self {
        Outlasting { inner, gone: false }
    }

    #[cold]
    fn closed<T>(&mut self, e: io::Error, ok: T) -> io::Result<T> {
        if e.kind() == io::ErrorKind::BrokenPipe {
            self.gone = true;
            Ok(ok)
        } else {
            Err(e)
        }
    }
}

impl<W: Write> Write for Outlasting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.gone {
            return Ok(buf.len());
        }
        self.inner.write(buf).or_else(|e| self.closed(e, buf.len()))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.gone {
            return Ok(());
        }
        self.inner.write_all(buf).or_else(|e| self.closed(e, ()))
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.gone {
            return Ok(());
        }
        self.inner.flush().or_else(|e| self.closed(e, ()))
    }
}

/// The payload of a marked error: the writer's own error.
#[derive(Debug)]
struct WriteFailed(io::Error);

impl fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Error for WriteFailed {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.0)
    }
}

/// `e`, marked as an error of the output (once).
pub fn marked(e: io::Error) -> io::Error {
    if is_write_error(&e) {
        return e;
    }
    io::Error::new(e.kind(), WriteFailed(e))
}

/// Whether `e` came from writing the output (a [`Sink`]) rather than from reading an input.
pub fn is_write_error(e: &io::Error) -> bool {
    e.get_ref().is_some_and(<dyn std::error::Error + std::marker::Send + std::marker::Sync + 'static>::is::<WriteFailed>)
}

/// The exit code the run calls for so far; see [`note_exit`].
static EXIT_SO_FAR: AtomicU8 = AtomicU8::new(0);

/// Records that the run calls for at least exit code `code` (1: findings, 2: an input could not
/// be read), whatever happens to the output later.
pub fn note_exit(code: u8) {
    EXIT_SO_FAR.fetch_max(code, Ordering::Relaxed);
}

/// The highest code [`note_exit`] was given: what a run cut short by a closed stdout exits with.
pub fn exit_so_far() -> u8 {
    EXIT_SO_FAR.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::StorageFull))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
    }

    #[test]
    fn an_outlasting_writer_drops_what_follows_a_closed_pipe_and_passes_other_errors() {
        let mut w = Outlasting::new(Closed);
        w.write_all(b"x").unwrap();
        assert!(w.gone);
        w.write_all(b"y").unwrap();
        w.flush().unwrap();
        let e = Outlasting::new(Full).write_all(b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    }

    #[test]
    fn write_errors_are_marked_and_keep_their_kind() {
        let e = Sink(Full).write_all(b"x").unwrap_err();
        assert!(is_write_error(&e));
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert!(is_write_error(&marked(e)));
        let read = io::Error::from(io::ErrorKind::StorageFull);
        assert!(!is_write_error(&read));
        let buffered = io::BufWriter::new(Sink(Full));
        let mut buffered = buffered;
        buffered.write_all(b"x").unwrap();
        assert!(is_write_error(&buffered.flush().unwrap_err()));
    }
}
