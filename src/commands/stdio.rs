//! The standard streams of a command: the process's own, or bytes in memory while a command
//! runs inside another program's process ([`super::run_in_process`]: the tests that compare
//! many runs of one input run them so, through the same code as the binary).
//!
//! The commands take their stdin, stdout and stderr here, never from `std::io`, so that a run in
//! process prints exactly what the binary prints. The redirection is per thread: it holds on the
//! thread the command runs on, and a handle taken there keeps its target when it is moved to
//! another thread (`--tee`'s copy, written by a reader stage). It must not decide anything
//! about what is written.

use std::cell::RefCell;
use std::io::{self, Cursor, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// Bytes written in memory, shared by the handles of one run.
type Shared = Arc<Mutex<Vec<u8>>>;

/// The streams of a command run in process.
#[derive(Clone, Default)]
struct Captured {
    stdin: Arc<[u8]>,
    stdout: Shared,
    stderr: Shared,
}

thread_local! {
    static CAPTURED: RefCell<Option<Captured>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's standard streams in memory, `stdin` being what it reads; returns
/// what `f` returned and what it wrote on stdout and stderr. The streams are the process's own
/// again afterwards, also when `f` panics.
pub(super) fn captured<T>(stdin: &[u8], f: impl FnOnce() -> T) -> (T, Vec<u8>, Vec<u8>) {
    struct Restore(Option<Captured>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CAPTURED.with(|c| *c.borrow_mut() = before);
        }
    }
    let streams = Captured {
        stdin: Arc::from(stdin),
        ..Captured::default()
    };
    let before = CAPTURED.with(|c| c.borrow_mut().replace(streams.clone()));
    let restore = Restore(before);
    let value = f();
    drop(restore);
    let take = |s: &Shared| std::mem::take(&mut *s.lock().unwrap_or_else(PoisonError::into_inner));
    (value, take(&streams.stdout), take(&streams.stderr))
}

/// Whether this thread's streams are in memory.
pub(super) fn is_captured() -> bool {
    CAPTURED.with(|c| c.borrow().is_some())
}

/// Standard input in memory, when it is: a reader of its bytes.
pub(super) fn stdin_in_memory() -> Option<Box<dyn Read + Send>> {
    CAPTURED.with(|c| {
        c.borrow()
            .as_ref()
            .map(|c| Box::new(Cursor::new(Arc::clone(&c.stdin))) as Box<dyn Read + Send>)
    })
}

/// Standard output.
pub(crate) fn stdout() -> Out {
    CAPTURED.with(|c| match c.borrow().as_ref() {
        Some(c) => Out::Memory(Arc::clone(&c.stdout)),
        None => Out::Stdout(io::stdout()),
    })
}

/// Standard error.
pub(crate) fn stderr() -> Out {
    CAPTURED.with(|c| match c.borrow().as_ref() {
        Some(c) => Out::Memory(Arc::clone(&c.stderr)),
        None => Out::Stderr(io::stderr()),
    })
}

/// A standard output or error stream.
pub(crate) enum Out {
    Stdout(io::Stdout),
    Stderr(io::Stderr),
    Memory(Shared),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Stdout(s) => s.write(buf),
            Out::Stderr(s) => s.write(buf),
            Out::Memory(m) => {
                m.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Out::Stdout(s) => s.write_all(buf),
            Out::Stderr(s) => s.write_all(buf),
            Out::Memory(_) => self.write(buf).map(drop),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Stdout(s) => s.flush(),
            Out::Stderr(s) => s.flush(),
            Out::Memory(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_taken_while_captured_writes_in_memory_from_any_thread() {
        let ((), out, err) = captured(b"in", || {
            let mut input = String::new();
            stdin_in_memory()
                .unwrap()
                .read_to_string(&mut input)
                .unwrap();
            let mut out = stdout();
            std::thread::spawn(move || out.write_all(input.as_bytes()).unwrap())
                .join()
                .unwrap();
            stderr().write_all(b"note").unwrap();
        });
        assert_eq!((&out[..], &err[..]), (&b"in"[..], &b"note"[..]));
        assert!(!is_captured());
        assert!(stdin_in_memory().is_none());
    }
}
