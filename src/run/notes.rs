//! sjlint's stderr while a run lasts: one writer thread, fed through a bounded queue.
//!
//! This module owns every byte `run` writes to its stderr once the agent is started: its own
//! notes, the agent's stderr passed on, the findings printed there. A stderr that nobody reads
//! (an orchestrator that reads it only after the exit) blocks that one thread, never the
//! supervisor: a note is dropped when the queue is full, and what is passed on waits for room
//! while the agent runs (holding the agent back, as a slow stdout does) but is dropped once the
//! run is ending and the writer has been stuck for [`STUCK`]. What was dropped is counted, and
//! the count is written as soon as stderr takes bytes again. It must not decide what is written
//! nor when the agent is ended.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Bytes queued at most for what is passed on (the agent's stderr, findings).
const QUEUED_MAX: usize = 256 << 10;
/// Room kept above [`QUEUED_MAX`] for sjlint's own notes, so that a flood of the agent's stderr
/// does not crowd them out while stderr is read, if slowly.
const NOTES_ROOM: usize = 16 << 10;
/// A write to stderr that has not returned for this long, once the run is ending, means that
/// nothing reads it: what is still to come is dropped, and the run ends without it.
pub(super) const STUCK: Duration = Duration::from_secs(1);
/// Small writes are joined into chunks of up to this many bytes.
const JOINED_MAX: usize = 16 << 10;
/// How often a waiting sender looks again whether the writer is stuck.
const RECHECK: Duration = Duration::from_millis(100);

/// The queue and its writer; see the module documentation.
pub(crate) struct Notes {
    state: Mutex<State>,
    /// Signalled when the writer took bytes from the queue or finished a write.
    room: Condvar,
    /// Signalled when bytes were queued or the run is ending.
    work: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Vec<u8>>,
    /// Bytes in `queue`.
    queued: usize,
    /// Bytes dropped so far, and how many of them were already reported.
    dropped: u64,
    reported: u64,
    /// The writer is inside a write since then.
    writing_since: Option<Instant>,
    /// The run is ending: a sender no longer waits for a stuck stderr.
    ending: bool,
    /// Nothing more will be queued: the writer ends once the queue is empty.
    closed: bool,
}

impl State {
    fn stuck(&self) -> bool {
        self.writing_since.is_some_and(|t| t.elapsed() >= STUCK)
    }

    /// Queues `bytes`, joined to the last chunk while that stays small: a printer that writes
    /// a finding in many small pieces does not fill the queue with tiny allocations.
    fn push(&mut self, bytes: &[u8]) {
        self.queued += bytes.len();
        match self.queue.back_mut() {
            Some(last) if last.len() + bytes.len() <= JOINED_MAX => last.extend_from_slice(bytes),
            _ => self.queue.push_back(bytes.to_vec()),
        }
    }
}

impl Notes {
    /// Starts the writer thread, which owns `sink` (sjlint's stderr, above the status line).
    pub(super) fn start(sink: Box<dyn Write + Send>) -> io::Result<Arc<Notes>> {
        let notes = Arc::new(Notes {
            state: Mutex::new(State::default()),
            room: Condvar::new(),
            work: Condvar::new(),
        });
        let writer = Arc::clone(&notes);
        // Not joined: a stderr nobody reads may hold it in a write until the process exits.
        std::thread::Builder::new()
            .name("sjlint-stderr-writer".into())
            .spawn(move || writer.write_loop(sink))?;
        Ok(notes)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues `sjlint run: TEXT`, or drops it when the queue is full: never waits.
    pub(super) fn note(&self, text: &str) {
        let line = format!("sjlint run: {text}\n");
        let mut s = self.lock();
        if s.queued + line.len() > QUEUED_MAX + NOTES_ROOM {
            s.dropped += line.len() as u64;
            return;
        }
        s.push(line.as_bytes());
        drop(s);
        self.work.notify_one();
    }

    /// Queues `bytes` to pass on, waiting for room while the run goes on; drops them once the
    /// run is ending and stderr is stuck.
    pub(super) fn pass_on(&self, bytes: &[u8]) {
        let mut s = self.lock();
        while s.queued > 0 && s.queued + bytes.len() > QUEUED_MAX {
            if s.ending && s.stuck() {
                s.dropped += bytes.len() as u64;
                return;
            }
            s = self
                .room
                .wait_timeout(s, RECHECK)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        s.push(bytes);
        drop(s);
        self.work.notify_one();
    }

    /// Bytes dropped so far.
    pub(super) fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// The run is ending: from now on, a stuck stderr is given up on.
    pub(super) fn ending(&self) {
        self.lock().ending = true;
        self.room.notify_all();
    }

    /// Nothing more is queued: waits until stderr took everything (and the count of what was
    /// dropped), or until it has been stuck for [`STUCK`] and for as long again since this call.
    pub(super) fn finish(&self) {
        let grace = Instant::now() + STUCK;
        let mut s = self.lock();
        s.ending = true;
        s.closed = true;
        self.work.notify_all();
        while !(s.queue.is_empty() && s.writing_since.is_none() && s.dropped == s.reported) {
            if s.stuck() && Instant::now() >= grace {
                return;
            }
            s = self
                .room
                .wait_timeout(s, RECHECK)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }

    /// A writer that passes on what is written to it (for the printers of findings).
    pub(super) fn writer(self: &Arc<Self>) -> Box<dyn Write + Send> {
        Box::new(PassOn(Arc::clone(self)))
    }

    fn write_loop(&self, mut sink: Box<dyn Write + Send>) {
        loop {
            let chunk = {
                let mut s = self.lock();
                let chunk = loop {
                    if let Some(chunk) = s.queue.pop_front() {
                        s.queued -= chunk.len();
                        break chunk;
                    }
                    if s.dropped > s.reported {
                        let n = s.dropped - s.reported;
                        s.reported = s.dropped;
                        break format!(
                            "sjlint run: {n} bytes meant for stderr were dropped while nothing read it\n"
                        )
                        .into_bytes();
                    }
                    if s.closed {
                        return;
                    }
                    s = self
                        .work
                        .wait(s)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                };
                // Set with the pop, so that `finish` never sees an empty queue and no write
                // while a chunk is on its way.
                s.writing_since = Some(Instant::now());
                chunk
            };
            self.room.notify_all();
            let _ = sink.write_all(&chunk);
            let _ = sink.flush();
            self.lock().writing_since = None;
            self.room.notify_all();
        }
    }
}

/// What the printers of findings write to: passed on through the queue. Never fails.
struct PassOn(Arc<Notes>);

impl Write for PassOn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.pass_on(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink whose writes block until the test lets them through.
    struct Gate(Arc<(Mutex<bool>, Condvar)>, Arc<Mutex<Vec<u8>>>);

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let (open, cv) = &*self.0;
            let mut g = open.lock().unwrap();
            while !*g {
                g = cv.wait(g).unwrap();
            }
            self.1.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_stderr_drops_notes_without_waiting_and_reports_the_count_once_it_drains() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let out = Arc::new(Mutex::new(Vec::new()));
        let notes = Notes::start(Box::new(Gate(Arc::clone(&gate), Arc::clone(&out)))).unwrap();
        let chunk = vec![b'x'; 64 << 10];
        for _ in 0..4 {
            notes.pass_on(&chunk);
        }
        let start = Instant::now();
        for _ in 0..10_000 {
            notes.note("something happened");
        }
        assert!(start.elapsed() < Duration::from_secs(5), "notes waited");
        notes.ending();
        std::thread::sleep(STUCK);
        // Passed on once the run is ending and stderr is stuck: dropped, not waited on.
        notes.pass_on(&chunk);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        notes.finish();
        let out = String::from_utf8_lossy(&out.lock().unwrap()).into_owned();
        assert!(
            out.contains("bytes meant for stderr were dropped"),
            "{}",
            out.len()
        );
        assert!(out.contains("sjlint run: something happened\n"));
    }
}
