//! The live status line on a terminal: what a person watching an agent through `sjlint check
//! --tee` sees while the stream arrives.
//!
//! This module owns the one line at the bottom of stderr: a spinner, the elapsed time, events so
//! far, the tool calls running and for how long, findings so far, that the session is complete
//! (a known cursor-agent hang keeps the pipe open after `result`), and a byte progress bar for
//! large files. A thread redraws it ten times a second, so it moves while the input is silent.
//! Findings are printed above it through [`LiveWriter`], which erases the line first; both hold
//! one lock, so a finding and a redraw never interleave. It must not decide what is a finding
//! nor read the input: the check loop tells it what happened.
//!
//! Drawn by hand rather than with `indicatif`: the drawing is the carriage return, the erase and
//! the lock above (some thirty lines); what the line says is composed from the check loop's state
//! here either way, and `indicatif` would add its own ticker thread, a message `String` set per
//! change, and a second decision of whether stderr is a terminal, which is made once in
//! `terminal`.

use sjlint_core::agents::id_prefix;
use sjlint_core::input::record::Position;
use sjlint_core::rules::Severity;
use sjlint_core::text::Excerpt;
use sjlint_core::text::{format_bytes, thousands};
use sjlint_core::vocab::{self, Kind};
use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// Nothing is drawn before this, so quick runs on small files show nothing at all.
const QUIET_START: Duration = Duration::from_millis(300);
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// A running tool call, as the status line shows it.
struct Running {
    id: Box<str>,
    kind: Box<str>,
    since: Instant,
}

#[derive(Default)]
struct State {
    name: String,
    events: u64,
    errors: u64,
    warnings: u64,
    running: Vec<Running>,
    /// The last session ended with `result` and nothing has followed yet.
    complete: bool,
    /// Size of the current input when known (a file): a progress bar is drawn.
    total: Option<u64>,
}

struct Term {
    state: State,
    /// The line is on the screen and must be erased before anything else is written.
    drawn: bool,
    ticks: u64,
}

struct Shared {
    term: Mutex<Term>,
    /// Bytes read of the current input (updated by the reader without taking the lock).
    bytes: AtomicU64,
    stop: Mutex<bool>,
    wake: Condvar,
    start: Instant,
    /// Terminal width in columns, read at start.
    width: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Term> {
        // A panic while holding the lock leaves only a stale line: keep going.
        self.term
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The status line; erased when finished or dropped.
pub struct Live {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Live {
    pub fn start() -> Live {
        let width = terminal_size::terminal_size_of(io::stderr())
            .map(|(w, _)| w.0 as usize)
            .or_else(|| std::env::var("COLUMNS").ok()?.parse().ok())
            .unwrap_or(80)
            .max(20);
        let shared = Arc::new(Shared {
            term: Mutex::new(Term {
                state: State::default(),
                drawn: false,
                ticks: 0,
            }),
            bytes: AtomicU64::new(0),
            stop: Mutex::new(false),
            wake: Condvar::new(),
            start: Instant::now(),
            width,
        });
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("sjlint-status".into())
            .spawn(move || redraw_loop(&for_thread))
            .ok();
        Live { shared, thread }
    }

    /// A new input begins: `total` is its size when known.
    pub fn input(&self, name: &str, total: Option<u64>) {
        let mut t = self.shared.lock();
        t.state.name.clear();
        t.state.name.push_str(name);
        t.state.total = total;
        t.state.running.clear();
        t.state.complete = false;
        self.shared.bytes.store(0, Ordering::Relaxed);
    }

    /// A writer for findings that keeps them above the status line.
    pub fn writer<W: Write>(&self, inner: W) -> LiveWriter<W> {
        LiveWriter {
            shared: Arc::clone(&self.shared),
            inner,
        }
    }

    /// Counts `n` more bytes read, for the progress bar.
    pub fn read(&self, n: u64) {
        self.shared.bytes.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts the bytes `reader` yields for the progress bar.
    pub fn counting<R: io::Read>(&self, reader: R) -> Counting<R> {
        Counting {
            shared: Arc::clone(&self.shared),
            inner: reader,
        }
    }

    pub fn finding(&self, severity: Severity) {
        let mut t = self.shared.lock();
        match severity {
            Severity::Error => t.state.errors += 1,
            Severity::Warning => t.state.warnings += 1,
            Severity::Info => {}
        }
    }

    /// Erases the line and stops redrawing.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        *self
            .shared
            .stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let mut t = self.shared.lock();
        if t.drawn {
            let _ = io::stderr().write_all(b"\r\x1b[K");
            t.drawn = false;
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the check loop tells the status line about each record.
/// The status line follows every agent's stream through its events in the common vocabulary:
/// events counted, calls running from `tool_start` to `tool_end`, the session complete at `end`.
impl sjlint_core::check::Consumer for &Live {
    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        let mut t = self.shared.lock();
        let s = &mut t.state;
        s.events += 1;
        s.complete = false;
        match ev.kind {
            Kind::ToolStart => {
                if let Some(id) = ev.call_id.as_deref() {
                    let id = id_prefix(id);
                    if s.running.len() == 64 {
                        s.running.remove(0);
                    }
                    let name = ev.name.as_deref().or(ev.tool_kind).unwrap_or("tool");
                    s.running.push(Running {
                        id: id.into(),
                        kind: Excerpt(name).to_string().into(),
                        since: Instant::now(),
                    });
                }
            }
            Kind::ToolEnd => {
                if let Some(id) = ev.call_id.as_deref() {
                    let id = id_prefix(id);
                    s.running.retain(|r| &*r.id != id);
                }
            }
            Kind::End => {
                s.running.clear();
                s.complete = ev.outcome != Some(sjlint_core::vocab::Outcome::NoResult);
            }
            _ => {}
        }
    }

    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.shared.lock().state.events += 1;
    }
}

fn redraw_loop(shared: &Shared) {
    let mut stopped = shared
        .stop
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        let (guard, _) = shared
            .wake
            .wait_timeout(stopped, TICK)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        stopped = guard;
        if *stopped {
            return;
        }
        if shared.start.elapsed() < QUIET_START {
            continue;
        }
        let mut t = shared.lock();
        t.ticks += 1;
        let line = compose(
            &t.state,
            shared.start.elapsed(),
            shared.bytes.load(Ordering::Relaxed),
            t.ticks,
            shared.width,
        );
        let mut err = io::stderr().lock();
        if err.write_all(format!("\r{line}\x1b[K").as_bytes()).is_ok() {
            let _ = err.flush();
            t.drawn = true;
        }
    }
}

/// The status line's text, cut to `width` columns.
fn compose(s: &State, elapsed: Duration, bytes: u64, tick: u64, width: usize) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(total) = s.total.filter(|t| *t > 0) {
        let done = bytes.min(total);
        let frac = done as f64 / total as f64;
        let bar = 20;
        let filled = (frac * bar as f64).round() as usize;
        parts.push(format!(
            "[{}{}] {:>3}% {} / {}",
            "#".repeat(filled),
            "-".repeat(bar - filled),
            (frac * 100.0).floor() as u64,
            format_bytes(done),
            format_bytes(total)
        ));
    } else {
        let mark = if s.complete {
            '✓'
        } else {
            SPINNER[(tick % SPINNER.len() as u64) as usize]
        };
        parts.push(format!("{mark} {}", secs(elapsed)));
    }
    // What matters most comes first, so that a narrow terminal cuts the rest: a session that
    // is complete while the stream stays open is the known hang.
    if s.complete {
        parts.push("session complete, waiting for the stream to close".to_owned());
    }
    parts.push(if s.events == 1 {
        "1 event".to_owned()
    } else {
        format!("{} events", thousands(s.events))
    });
    match (s.errors, s.warnings) {
        (0, 0) => parts.push("no problems".to_owned()),
        (e, w) => parts.push(format!(
            "{} error{}, {} warning{}",
            thousands(e),
            if e == 1 { "" } else { "s" },
            thousands(w),
            if w == 1 { "" } else { "s" }
        )),
    }
    if let Some(oldest) = s.running.first().filter(|_| !s.complete) {
        let mut running = format!(
            "running {} {}",
            sjlint_core::text::escape_untrusted(&oldest.kind),
            secs(oldest.since.elapsed())
        );
        if s.running.len() > 1 {
            running.push_str(&format!(" (+{} more)", s.running.len() - 1));
        }
        parts.push(running);
    }
    if !s.name.is_empty() && s.name != "-" {
        parts.push(sjlint_core::text::escape_untrusted(&s.name).into_owned());
    }
    let line = parts.join(" · ");
    // One column is left free: a line that fills the terminal exactly wraps on some terminals.
    line.chars().take(width.saturating_sub(1)).collect()
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1}s")
    } else {
        format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    }
}

/// Writes findings above the status line: erases it first, under the same lock as redraws.
pub struct LiveWriter<W> {
    shared: Arc<Shared>,
    inner: W,
}

impl<W: Write> Write for LiveWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut t = self.shared.lock();
        if t.drawn {
            io::stderr().write_all(b"\r\x1b[K")?;
            t.drawn = false;
        }
        self.inner.write_all(buf)?;
        // Flushed under the lock, so the finding is on the screen before the next redraw.
        self.inner.flush()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that counts what it reads for the progress bar.
pub struct Counting<R> {
    shared: Arc<Shared>,
    inner: R,
}

impl<R: io::Read> io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.shared.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> State {
        State {
            name: "run.ndjson".into(),
            events: 1234,
            ..State::default()
        }
    }

    #[test]
    fn the_line_names_the_running_call_and_findings() {
        let mut s = state();
        s.errors = 2;
        s.warnings = 1;
        s.running.push(Running {
            id: "c1".into(),
            kind: "shellToolCall".into(),
            since: Instant::now(),
        });
        let line = compose(&s, Duration::from_millis(12_300), 0, 0, 200);
        assert!(
            line.starts_with(
                "⠋ 12.3s · 1,234 events · 2 errors, 1 warning · running shellToolCall 0.0s"
            ),
            "{line}"
        );
        assert!(line.ends_with("run.ndjson"), "{line}");
    }

    #[test]
    fn the_hang_hint_comes_first_and_one_event_is_singular() {
        let mut s = state();
        s.complete = true;
        s.events = 1;
        let line = compose(&s, Duration::from_secs(75), 0, 3, 80);
        assert!(
            line.starts_with(
                "✓ 1m15s · session complete, waiting for the stream to close · 1 event ·"
            ),
            "{line}"
        );
    }

    #[test]
    fn a_complete_session_says_so() {
        let mut s = state();
        s.complete = true;
        let line = compose(&s, Duration::from_secs(75), 0, 3, 200);
        assert!(line.starts_with("✓ 1m15s"), "{line}");
        assert!(line.contains("session complete"), "{line}");
        assert!(line.contains("no problems"), "{line}");
    }

    #[test]
    fn files_get_a_progress_bar_and_the_line_fits_the_terminal() {
        let mut s = state();
        s.total = Some(2_000_000_000);
        let line = compose(&s, Duration::from_secs(1), 500_000_000, 0, 200);
        assert!(
            line.starts_with("[#####---------------]  25% 500.0 MB / 2.0 GB"),
            "{line}"
        );
        let narrow = compose(&s, Duration::from_secs(1), 0, 0, 30);
        assert_eq!(narrow.chars().count(), 29);
    }

    #[test]
    fn untrusted_names_are_escaped() {
        let mut s = state();
        s.name = "evil\u{1b}[2J.ndjson".into();
        let line = compose(&s, Duration::ZERO, 0, 0, 500);
        assert!(!line.contains('\u{1b}'), "{line}");
    }
}
