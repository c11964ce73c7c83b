//! `--events FD|PATH`: how the run is going, as NDJSON, for dashboards.
//!
//! This module owns the events file (opened and checked before the agent starts), the one
//! writer thread that writes to it through a bounded queue; what the supervisor emits on its
//! timer (`agent`, `tool-running`, `idle`, `result-seen`) is decided in `ticks`, `started` and
//! `ending` at the start and end of the run. Every line is an object with `event`, `t_ms` (since the run started) and
//! `unix_ms`; `schemas/run-events.schema.json` describes them. Nothing here may hold the run
//! back: lines are queued without waiting (dropped and counted when the queue is full), the
//! periodic ones at most once per `--events-interval`, and a reader that closed its end (EPIPE)
//! or any failed write stops the events only. The stdout thread never writes here: it records
//! what it sees in the session, which the supervisor reads. It must not end the agent nor
//! decide the exit code.

use serde_json::{Value, json};
use sjlint_core::text::escape_untrusted;
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::FromRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Lines waiting for the writer at most; past them lines are dropped and counted.
const QUEUE: usize = 64;
/// At most this many `tool-running` lines per interval (the oldest calls first).
pub(super) const RUNNING_PER_TICK: usize = 4;
/// `idle` is said once the agent has written nothing for this long.
pub(super) const IDLE_AFTER: Duration = Duration::from_secs(1);
/// How long the end of the run waits for the events to be written.
const FINAL_WAIT: Duration = Duration::from_secs(1);

/// Where `--events` goes: a descriptor already open (`3`, as a shell's `3>file` opens it), or a
/// path, created or truncated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventsTarget {
    Fd(String),
    Path(PathBuf),
}

impl EventsTarget {
    /// A number is a descriptor, anything else a path.
    pub fn parse(arg: &OsStr) -> EventsTarget {
        match arg.to_str() {
            Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                EventsTarget::Fd(s.to_owned())
            }
            _ => EventsTarget::Path(PathBuf::from(arg)),
        }
    }

    /// Opens the target for writing, with a message that says what is wrong when it cannot be.
    pub(super) fn open(&self) -> io::Result<File> {
        match self {
            EventsTarget::Fd(n) => open_fd(n),
            EventsTarget::Path(path) => {
                let shown = || escape_untrusted(&path.display().to_string()).into_owned();
                // Not blocking on a FIFO nobody reads: that is an error now, not a hang.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(path)
                    .map_err(|e| {
                        let why = if e.raw_os_error() == Some(libc::ENXIO) {
                            "it is a FIFO that no process has open for reading".to_owned()
                        } else {
                            e.to_string()
                        };
                        io::Error::new(
                            e.kind(),
                            format!("cannot open the --events file {}: {why}", shown()),
                        )
                    })?;
                set_blocking(&file);
                Ok(file)
            }
        }
    }
}

fn usage(text: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, text)
}

/// The descriptor `n`, checked to be open for writing, and kept from the agent.
fn open_fd(n: &str) -> io::Result<File> {
    let fd: i32 = n
        .parse()
        .map_err(|_| usage(format!("--events {n}: no such file descriptor")))?;
    if fd <= 2 {
        return Err(usage(format!(
            "--events {fd}: 0, 1 and 2 are sjlint's own standard streams; give a descriptor from 3 up (as `3>events.ndjson`) or a path"
        )));
    }
    // SAFETY: F_GETFL reads the descriptor's flags; it has no memory-safety preconditions.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 {
        return Err(usage(format!(
            "--events {fd}: file descriptor {fd} is not open (open it where sjlint is started, as `3>events.ndjson`, or give a path)"
        )));
    }
    if flags & libc::O_ACCMODE == libc::O_RDONLY {
        return Err(usage(format!(
            "--events {fd}: file descriptor {fd} is open for reading only"
        )));
    }
    // The agent must not hold it: a reader waits for its end.
    // SAFETY: as above; F_SETFD only sets the descriptor's close-on-exec flag.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    // SAFETY: the descriptor is open (checked above) and nothing else in sjlint uses it: the
    // command line handed it to `--events`, which owns it from now on.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Clears `O_NONBLOCK`, set only to open a FIFO without waiting for its reader.
fn set_blocking(file: &File) {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL and F_SETFL on a descriptor we own; no memory is passed.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags != -1 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
}

/// The events of one run: lines go to a writer thread through a bounded queue.
pub(super) struct Events {
    shared: Arc<Shared>,
    start: Instant,
    start_unix_ms: u64,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Vec<u8>>,
    /// A line is being written.
    busy: bool,
    /// No more lines are written: the reader is gone, a write failed, or the run is over.
    stopped: bool,
    dropped: u64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Events {
    /// Starts the writer thread on `file`; times are counted from `start`, the Unix time of
    /// which is `start_unix_ms`.
    pub(super) fn start(file: File, start: Instant, start_unix_ms: u64) -> io::Result<Events> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let writer = Arc::clone(&shared);
        // Never joined: a write that blocks for ever must not keep the run from ending.
        std::thread::Builder::new()
            .name("sjlint-events".into())
            .spawn(move || write_loop(&writer, file))?;
        Ok(Events {
            shared,
            start,
            start_unix_ms,
        })
    }

    /// Queues the line of `event` with `fields`, in their order, without waiting.
    pub(super) fn emit(&self, event: &str, fields: &[(&str, Value)]) {
        self.queue(event, fields, false);
    }

    fn queue(&self, event: &str, fields: &[(&str, Value)], last: bool) {
        let t_ms = self.start.elapsed().as_millis() as u64;
        let mut line = json!({
            "event": event,
            "t_ms": t_ms,
            "unix_ms": self.start_unix_ms.saturating_add(t_ms),
        })
        .to_string();
        line.pop();
        for (k, v) in fields {
            line.push(',');
            line.push_str(&Value::from(*k).to_string());
            line.push(':');
            line.push_str(&v.to_string());
        }
        line.push_str("}\n");
        let mut st = self.shared.lock();
        if st.stopped {
            return;
        }
        if st.queue.len() >= QUEUE && !last {
            st.dropped += 1;
            return;
        }
        st.queue.push_back(line.into_bytes());
        self.shared.wake.notify_all();
    }

    /// The last line, `ending`, with the number of lines dropped before it; then waits a little
    /// for what is queued to be written, and stops the writing.
    pub(super) fn end(&self, fields: &[(&str, Value)]) {
        let dropped = self.shared.lock().dropped;
        let mut fields = fields.to_vec();
        fields.push(("dropped", json!(dropped)));
        self.queue("ending", &fields, true);
        let deadline = Instant::now() + FINAL_WAIT;
        let mut st = self.shared.lock();
        while !st.stopped && (st.busy || !st.queue.is_empty()) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            st = self
                .shared
                .wake
                .wait_timeout(st, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        st.stopped = true;
        st.queue.clear();
        self.shared.wake.notify_all();
    }
}

fn write_loop(shared: &Shared, mut file: File) {
    let mut st = shared.lock();
    loop {
        while st.queue.is_empty() && !st.stopped {
            st = shared.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        let Some(line) = st.queue.pop_front().filter(|_| !st.stopped) else {
            return;
        };
        st.busy = true;
        drop(st);
        let written = file.write_all(&line);
        st = shared.lock();
        st.busy = false;
        if written.is_err() {
            // EPIPE (the reader is gone) or any other failure: the events stop, the run goes on.
            st.stopped = true;
            st.queue.clear();
        }
        shared.wake.notify_all();
    }
}

/// What the supervisor has said on the events so far.
#[derive(Default)]
pub(super) struct Said {
    /// When the periodic lines are next due.
    pub(super) next_tick: Option<Instant>,
    pub(super) agent: bool,
    /// The line of the last `result-seen`, and when it was written.
    pub(super) result_line: Option<u64>,
    pub(super) result_at: Option<Instant>,
}
