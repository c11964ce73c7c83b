//! `sjlint run -- AGENT [ARGS…]`: run an agent, forward and check its stream live, and end it
//! when it hangs after its result, stalls, or runs out of time.
//!
//! This module owns the supervisor: the threads of one run (the agent's stdout forwarded and
//! checked exactly as `check --tee` does it, its stderr forwarded, its exit awaited, sjlint's
//! signals received), the timers, and the escalation SIGTERM → SIGKILL on the agent's process
//! group. The supervising thread sleeps on a channel with a deadline (no polling loop while
//! the agent runs); only the short wait for leftover processes of an exited agent looks again
//! every few milliseconds. What it saw the agent's process do is reported as findings of the
//! `run` group (`agent-hung-after-result`, `agent-stalled`, `agent-wrote-no-events`), after the
//! stream's own, in the chosen format. It must not interpret events itself (that is
//! [`session`]) nor decide the exit code (that is [`outcome`]).

pub mod child;
pub mod outcome;
pub mod pipe;
pub mod session;

use crate::agents::common;
use crate::check::{self, CheckOptions, Consumer, Tee};
use crate::cli::RunArgs;
use crate::diagnostic::Diagnostic;
use crate::event::Event;
use crate::input::record::{Position, Record};
use crate::interrupt;
use crate::report::{self, Format, Printer};
use crate::rules::Rule;
use crate::stats::{Collector, Findings, Stats};
use crate::status::Live;
use crate::text::escape_untrusted;
use outcome::{Ending, Status, Verdict};
use pipe::{Activity, PipeReader, Stop};
use session::Session;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::os::fd::{IntoRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The exit-code table, as `sjlint run --help` prints it.
pub const EXIT_CODES_HELP: &str = "\
Exit codes (the first that applies):
  128+n  sjlint received signal n (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP) and passed it on
  141    sjlint's stdout was closed; the agent was ended
  124    a stall or timeout: --idle-timeout, --tool-timeout, --timeout
  126    the agent could not be executed; 127: not found
  3      the agent reported failure: an error result, or no result and a non-zero exit
  2      usage error; a --save, --output-file or --summary file could not be written
  1      the stream broke: error findings (warnings too with --strict)
  0      success, including an agent ended after a successful result

Durations: 500ms, 5s, 2m, 1h.";

/// How often the supervisor looks again whether the processes an exited agent left in its
/// group have gone, where it cannot reap them itself.
const LEFTOVER_POLL: Duration = Duration::from_millis(20);
/// How long after SIGKILL the group may still be seen before sjlint stops waiting for it: a
/// killed process that nobody reaps (no init reaping orphans, as in some containers) stays a
/// zombie and a member of its group for ever.
const KILL_GRACE: Duration = Duration::from_secs(1);
/// How much of the agent's stderr is kept to quote when it wrote no event.
const STDERR_KEPT: usize = 2048;

/// `500ms`, `5s`, `2m`, `1h`; a bare number is seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (e.g. 500ms, 5s, 2m)"))?;
    let secs = match unit.trim() {
        "ms" => n / 1000.0,
        "" | "s" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{s}`: unknown unit (use ms, s, m or h)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{s}` is not a usable duration"))
}

/// What the threads tell the supervisor.
enum Msg {
    /// The session's timers may have changed: a call started or ended, a result arrived.
    Changed,
    /// The agent's stdout was read to its end (or the reading stopped); `closed` when reading
    /// failed (sjlint's own stdout was closed, most often) and the agent must be ended.
    StdoutDone { closed: bool },
    /// The agent's process ended.
    Exited(std::process::ExitStatus),
    /// Another process of its group ended, or none is left that sjlint can reap.
    Reaped,
    /// sjlint received this signal.
    Signal(i32),
}

/// Where sjlint's own lines go: stderr, above the status line when there is one.
type Notes = Mutex<Box<dyn Write + Send>>;

fn note(notes: &Notes, text: &str) {
    let mut w = notes.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(w, "sjlint run: {text}");
    let _ = w.flush();
}

/// Runs the agent `args` names; see the module documentation.
pub fn run(args: &RunArgs) -> io::Result<u8> {
    let start = Instant::now();
    let (signals, wake) = pipe::pipe(true)?;
    // The handlers write to this descriptor for the rest of the process: it is never closed.
    interrupt::install_waking(wake.into_raw_fd())?;

    let save = match &args.save {
        Some(path) => Some(create(path)?),
        None => None,
    };
    let save_stderr = match (&args.save, args.save_stderr) {
        (Some(path), true) => Some(create(&stderr_path(path))?),
        _ => None,
    };
    let findings_file = match &args.output_file {
        Some(path) => Some(create(path)?),
        None => None,
    };

    let subreaper = child::become_subreaper();
    let mut agent = match child::spawn(&args.command) {
        Ok(agent) => agent,
        Err(e) => {
            let shown = args.command[0].to_string_lossy();
            writeln!(
                io::stderr(),
                "sjlint run: cannot run `{}`: {e}",
                escape_untrusted(&shown)
            )?;
            return Ok(if e.kind() == io::ErrorKind::NotFound {
                outcome::EXIT_NOT_FOUND
            } else {
                outcome::EXIT_CANNOT_EXECUTE
            });
        }
    };
    let pid = agent.id();
    let pgid = pid as i32;
    let stdout: OwnedFd = agent.stdout.take().expect("piped").into();
    let stderr: OwnedFd = agent.stderr.take().expect("piped").into();

    let live = match args.progress {
        crate::cli::ColorArg::Always => true,
        crate::cli::ColorArg::Never => false,
        crate::cli::ColorArg::Auto => io::stderr().is_terminal(),
    }
    .then(Live::start);
    let to_stderr = |live: &Option<Live>| -> Box<dyn Write + Send> {
        match live {
            Some(live) => Box::new(live.writer(io::stderr())),
            None => Box::new(io::stderr()),
        }
    };
    let notes: Notes = Mutex::new(to_stderr(&live));
    let format = Format::from(args.format);
    let (sink, is_terminal): (Box<dyn Write + Send>, bool) = match findings_file {
        Some(file) => (Box::new(BufWriter::new(file)), false),
        None => (to_stderr(&live), io::stderr().is_terminal()),
    };
    let color = format == Format::Human
        && report::use_color(args.color.as_str(), is_terminal, |k| std::env::var(k).ok());
    let printer = Printer::new(format, sink, color).strict(args.strict);
    let name = args
        .save
        .as_ref()
        .map_or_else(|| "-".to_owned(), |p| p.display().to_string());
    let opts = CheckOptions {
        enabled: args.rules(),
        max_record_bytes: args.max_record_bytes,
        dialect: args.dialect.forced(),
        agent: args.agent.forced(),
        max_open_calls: crate::pairing::DEFAULT_MAX_OPEN_CALLS,
    };

    let (tx, rx) = mpsc::channel();
    {
        let tx = tx.clone();
        // Never joined: it waits on the signal pipe for as long as the process lives.
        std::thread::Builder::new()
            .name("sjlint-signals".into())
            .spawn(move || receive_signals(signals, &tx))?;
    }
    let stop = Stop::new()?;
    let activity = Arc::new(Activity::new(start));
    let session = Mutex::new(Session::default());

    let (supervisor, checked, stderr_seen) = std::thread::scope(|scope| -> io::Result<_> {
        let checking = {
            let reader = PipeReader::new(stdout, Arc::clone(&stop), Some(Arc::clone(&activity)));
            let tx = tx.clone();
            let (session, live, opts, name) = (&session, live.as_ref(), &opts, &name);
            std::thread::Builder::new()
                .name("sjlint-stdout".into())
                .spawn_scoped(scope, move || {
                    check_stdout(reader, save, printer, opts, name, session, live, tx)
                })?
        };
        let forwarding = {
            let reader = PipeReader::new(stderr, Arc::clone(&stop), None);
            let notes = &notes;
            std::thread::Builder::new()
                .name("sjlint-stderr".into())
                .spawn_scoped(scope, move || forward_stderr(reader, notes, save_stderr))?
        };
        {
            let tx = tx.clone();
            std::thread::Builder::new()
                .name("sjlint-wait".into())
                .spawn_scoped(scope, move || {
                    // The agent and, as a subreaper, what it leaves behind, until none is left.
                    loop {
                        let msg = match child::reap(pgid, pgid) {
                            child::Reaped::Agent(status) => Msg::Exited(status),
                            child::Reaped::Other => Msg::Reaped,
                            child::Reaped::None => break,
                        };
                        if tx.send(msg).is_err() {
                            break;
                        }
                    }
                    let _ = tx.send(Msg::Reaped);
                    // The handle is not waited on: the agent was reaped above.
                    drop(agent);
                })?;
        }
        let mut sup = Supervisor {
            args,
            pgid,
            start,
            session: &session,
            activity: &activity,
            stop: &stop,
            notes: &notes,
            ending: None,
            stall: None,
            finding: None,
            exited: None,
            stdout_done: None,
            term_at: None,
            kill_at: None,
            signals_sent: Vec::new(),
            received: None,
            subreaper,
        };
        sup.supervise(&rx);
        let checked = checking.join().expect("the stdout thread does not panic");
        let stderr_seen = forwarding.join().expect("the stderr thread does not panic");
        Ok((sup, checked, stderr_seen))
    })?;
    if let Some(live) = live {
        live.finish();
    }
    finish(args, &supervisor, checked, stderr_seen, &notes, pid, start)
}

fn create(path: &std::path::Path) -> io::Result<File> {
    File::create(path).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot create {}: {e}",
                escape_untrusted(&path.display().to_string())
            ),
        )
    })
}

fn stderr_path(save: &std::path::Path) -> PathBuf {
    let mut p = save.as_os_str().to_owned();
    p.push(".stderr");
    PathBuf::from(p)
}

fn receive_signals(signals: OwnedFd, tx: &Sender<Msg>) {
    let mut file = File::from(signals);
    let mut byte = [0u8; 1];
    loop {
        match file.read(&mut byte) {
            Ok(1) => {
                if tx.send(Msg::Signal(i32::from(byte[0]))).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            _ => return,
        }
    }
}

/// What the stdout thread found.
struct Checked {
    read: io::Result<()>,
    totals: check::Totals,
    stats: Stats,
    findings: Findings,
    printer: Printer<Box<dyn Write + Send>>,
    /// Writing the transcript failed (the forwarding went on).
    save_error: Option<io::Error>,
    /// The file name findings are reported under.
    name: String,
    /// `empty-stream` of a stream with no record: `agent-wrote-no-events` says more, so it is
    /// reported only when that rule is not enabled.
    empty: Option<Diagnostic>,
}

/// The agent's stdout to sjlint's stdout (and the transcript), byte for byte as it arrives;
/// on the way it is checked exactly as `check --tee` checks standard input.
#[allow(clippy::too_many_arguments)]
fn check_stdout(
    reader: PipeReader,
    save: Option<File>,
    mut printer: Printer<Box<dyn Write + Send>>,
    opts: &CheckOptions,
    name: &str,
    session: &Mutex<Session>,
    live: Option<&Live>,
    tx: Sender<Msg>,
) -> Checked {
    let mut forward = Forward {
        out: io::stdout(),
        save,
        save_error: None,
    };
    let mut observer = Observer {
        session,
        tx: tx.clone(),
        stats: Collector::new(),
        live,
        changed: false,
    };
    let mut findings = Findings::default();
    let mut totals = check::Totals::default();
    let mut empty = None;
    let _ = printer.begin_file(name);
    let read = {
        let mut emit = |d: Diagnostic| -> io::Result<()> {
            if d.rule == Rule::EmptyStream && d.record == 0 {
                empty = Some(d);
                return Ok(());
            }
            findings.count(d.severity);
            if let Some(live) = live {
                live.finding(d.severity);
            }
            printer.diagnostic(name, &d)?;
            printer.flush()
        };
        check::check_into(
            Tee::new(reader, &mut forward),
            opts,
            &mut emit,
            &mut observer,
            &mut totals,
        )
    };
    // sjlint's stdout failed (closed, most often) or the agent's pipe could not be read:
    // nothing reads the agent's output any more, so it must be ended rather than left blocked.
    let closed = read.is_err();
    let _ = tx.send(Msg::StdoutDone { closed });
    let stats = observer
        .stats
        .finish(totals.records, totals.bytes, findings);
    Checked {
        read,
        totals,
        stats,
        findings,
        printer,
        save_error: forward.save_error,
        name: name.to_owned(),
        empty,
    }
}

/// sjlint's stdout and the transcript.
struct Forward {
    out: io::Stdout,
    save: Option<File>,
    save_error: Option<io::Error>,
}

impl Write for Forward {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write_all(buf)?;
        if let Some(file) = &mut self.save
            && let Err(e) = file.write_all(buf)
        {
            self.save = None;
            self.save_error = Some(e);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What reads the stream beside the validator in a run: the statistics of the summary, the
/// status line, and the session state the timers follow.
struct Observer<'a> {
    session: &'a Mutex<Session>,
    tx: Sender<Msg>,
    stats: Collector,
    live: Option<&'a Live>,
    /// A common event of the record being read changed the timers.
    changed: bool,
}

impl Observer<'_> {
    fn session(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Consumer for Observer<'_> {
    fn event(&mut self, rec: &Record<'_>, json: &str, ev: &Event<'_>) {
        self.stats.event(rec, json, ev);
        if let Some(mut live) = self.live {
            live.event(rec, json, ev);
        }
        let changed = self.session().observe(ev, rec.pos.line, Instant::now());
        if changed {
            let _ = self.tx.send(Msg::Changed);
        }
    }

    fn agent(&mut self, agent: Option<crate::agents::Agent>) {
        self.stats.agent(agent);
        if let Some(mut live) = self.live {
            live.agent(agent);
        }
    }

    /// Claude Code, Codex and Gemini CLI streams are followed through their common events.
    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &common::Event<'_>) {
        self.stats.common(ev);
        if let Some(mut live) = self.live {
            live.common(ev);
        }
        let changed = self.session().observe_common(ev, Instant::now());
        self.changed |= changed;
    }

    fn agent_record(&mut self, rec: &Record<'_>, json: &str) {
        // The record's own type names the last event, as the agent wrote it.
        let parsed = crate::event::parse(json);
        let goes_on = match &parsed {
            Ok(crate::event::Parsed::Event(ev)) => {
                // Gemini CLI's `result` says how it went in `status`, not `subtype`.
                let status = match (ev.ty.as_str(), ev.subtype.as_str()) {
                    (Some("result"), None) => result_status(json),
                    _ => None,
                };
                let subtype = ev.subtype.as_str().or(status.as_deref());
                self.session()
                    .observe_record(rec.pos.line, ev.ty.as_str(), subtype)
            }
            _ => self.session().observe_record(rec.pos.line, None, None),
        };
        if std::mem::take(&mut self.changed) | goes_on {
            let _ = self.tx.send(Msg::Changed);
        }
    }

    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        self.stats.invalid(pos, bytes);
        if let Some(mut live) = self.live {
            live.invalid(pos, bytes);
        }
        if self.session().observe_invalid(pos.line) {
            let _ = self.tx.send(Msg::Changed);
        }
    }
}

/// The string `status` of a result record (Gemini CLI's `success` or `error`), bounded.
#[cold]
fn result_status(json: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Status<'a> {
        #[serde(borrow)]
        status: Option<std::borrow::Cow<'a, str>>,
    }
    let s: Status<'_> = serde_json::from_str(json).ok()?;
    Some(crate::agents::id_prefix(&s.status?).to_owned())
}

/// What the agent wrote on stderr.
struct StderrSeen {
    bytes: u64,
    head: Vec<u8>,
    save_error: Option<io::Error>,
}

/// The agent's stderr to sjlint's stderr (above the status line) and to `PATH.stderr`; the
/// first [`STDERR_KEPT`] bytes are kept to quote.
fn forward_stderr(mut reader: PipeReader, notes: &Notes, mut save: Option<File>) -> StderrSeen {
    let mut seen = StderrSeen {
        bytes: 0,
        head: Vec::new(),
        save_error: None,
    };
    let mut buf = vec![0u8; 16 << 10];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        seen.bytes += n as u64;
        let room = STDERR_KEPT.saturating_sub(seen.head.len());
        seen.head.extend_from_slice(&chunk[..room.min(n)]);
        {
            let mut w = notes.lock().unwrap_or_else(|e| e.into_inner());
            let _ = w.write_all(chunk);
            let _ = w.flush();
        }
        if let Some(file) = &mut save
            && let Err(e) = file.write_all(chunk)
        {
            save = None;
            seen.save_error = Some(e);
        }
    }
    seen
}

/// The timers and the escalation; see the module documentation.
struct Supervisor<'a> {
    args: &'a RunArgs,
    pgid: i32,
    start: Instant,
    session: &'a Mutex<Session>,
    activity: &'a Activity,
    stop: &'a Stop,
    notes: &'a Notes,
    /// Why the run ended, once it is known (the first reason wins).
    ending: Option<Ending>,
    stall: Option<outcome::Stall>,
    /// The finding of an ending sjlint decided (after the result, a stall, a timeout).
    finding: Option<Diagnostic>,
    exited: Option<std::process::ExitStatus>,
    /// When the agent's stdout was read to its end.
    stdout_done: Option<Instant>,
    /// When the group was first sent a signal to end it.
    term_at: Option<Instant>,
    /// When SIGKILL was sent to the group.
    kill_at: Option<Instant>,
    signals_sent: Vec<i32>,
    received: Option<i32>,
    /// Leftovers are sjlint's children, and each one's end wakes the supervisor: no polling.
    subreaper: bool,
}

impl Supervisor<'_> {
    fn supervise(&mut self, rx: &mpsc::Receiver<Msg>) {
        loop {
            let now = Instant::now();
            let next = self.step(now);
            if self.exited.is_some() && self.stdout_done.is_some() && self.group_gone(now) {
                return;
            }
            let msg = match next {
                Some(at) => match rx.recv_timeout(at.saturating_duration_since(now)) {
                    Ok(msg) => msg,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => match rx.recv() {
                    Ok(msg) => msg,
                    Err(_) => return,
                },
            };
            self.on(msg, Instant::now());
        }
    }

    fn on(&mut self, msg: Msg, now: Instant) {
        match msg {
            Msg::Changed | Msg::Reaped => {}
            Msg::StdoutDone { closed } => {
                self.stdout_done = Some(now);
                if closed && self.exited.is_none() {
                    self.ending.get_or_insert(Ending::OutputClosed);
                    self.end_group(now, libc::SIGTERM);
                }
            }
            Msg::Exited(status) => self.exited = Some(status),
            Msg::Signal(n) => {
                if self.received.is_none() {
                    self.received = Some(n);
                    self.ending.get_or_insert(Ending::Interrupted(n));
                    note(
                        self.notes,
                        &format!(
                            "received {}; passing it on to the agent's process group",
                            interrupt::signal_name(n)
                        ),
                    );
                    self.end_group(now, n);
                } else if self.kill_at.is_none() {
                    // A second signal: no more waiting.
                    self.kill();
                }
            }
        }
    }

    fn group_alive(&self) -> bool {
        child::group_alive(self.pgid)
    }

    /// No process of the group is left, or none that anything can still end.
    fn group_gone(&self, now: Instant) -> bool {
        !self.group_alive() || self.kill_at.is_some_and(|t| now >= t + KILL_GRACE)
    }

    fn send(&mut self, signal: i32) {
        if child::signal_group(self.pgid, signal) {
            self.signals_sent.push(signal);
        }
    }

    /// Starts ending the group with `signal` (SIGTERM, or the one sjlint received).
    fn end_group(&mut self, now: Instant, signal: i32) {
        self.send(signal);
        self.term_at.get_or_insert(now);
    }

    fn kill(&mut self) {
        self.send(libc::SIGKILL);
        self.kill_at = Some(Instant::now());
    }

    /// Does what is due at `now` and returns when to look again (`None`: only when a message
    /// arrives).
    fn step(&mut self, now: Instant) -> Option<Instant> {
        let mut next = None;
        if self.term_at.is_none() && self.exited.is_none() {
            next = self.watch(now);
        }
        if self.exited.is_some() && self.term_at.is_none() && self.group_alive() {
            note(
                self.notes,
                "the agent exited and left processes in its group; sending them SIGTERM",
            );
            self.end_group(now, libc::SIGTERM);
        }
        if let Some(t) = self.term_at {
            let alive = !self.group_gone(now);
            if alive && self.kill_at.is_none() {
                let due = t + self.args.kill_after;
                if now >= due {
                    note(
                        self.notes,
                        &format!(
                            "the agent's process group was still running {} after it was told to end; sending SIGKILL",
                            outcome::duration(self.args.kill_after)
                        ),
                    );
                    self.kill();
                } else {
                    next = earliest(next, due);
                }
            }
            if alive && self.exited.is_some() && !self.subreaper {
                next = earliest(next, now + LEFTOVER_POLL);
            }
        }
        if self.exited.is_some() && self.group_gone(now) {
            // Nothing of the group can write any more: take what is in the pipes, then stop,
            // even if a process outside the group still holds them open.
            self.stop.drain();
        }
        next
    }

    /// The timers of a running agent: ends the group when one is due, else returns the next.
    fn watch(&mut self, now: Instant) -> Option<Instant> {
        let args = self.args;
        let mut next = None;
        let mut due: Option<(Ending, Instant)> = None;
        {
            let s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            // Each timer: what it ends the run as, since when its condition holds, how long.
            let mut consider = |ending: Ending, since: Instant, limit: Duration| {
                let at = since + limit;
                if now >= at {
                    due.get_or_insert((ending, since));
                } else {
                    next = earliest(next, at);
                }
            };
            if let Some(t) = args.timeout {
                consider(Ending::Timeout, self.start, t);
            }
            if s.ended
                && let Some(r) = &s.result
            {
                consider(Ending::AfterResult, r.at, args.after_result);
            }
            if let (Some(t), Some(oldest)) = (args.tool_timeout, s.open.first()) {
                consider(Ending::ToolTimeout, oldest.since, t);
            }
            if let Some(idle) = args.idle_timeout
                && !s.ended
                && s.open.is_empty()
            {
                match self.activity.waiting_since().or(self.stdout_done) {
                    Some(since) => consider(Ending::Idle, since, idle),
                    // Busy writing to sjlint's own stdout: not the agent's stall. Look again.
                    None => next = earliest(next, now + idle),
                }
            }
            if let Some((_, since)) = due {
                self.stall = Some(stall_of(&s, now, now.saturating_duration_since(since)));
            }
        }
        if let Some((ending, _)) = due {
            self.ending = Some(ending);
            self.announce(ending);
            self.end_group(now, libc::SIGTERM);
            return None;
        }
        next
    }

    /// Says why the group is being ended, and keeps the finding that reports it.
    fn announce(&mut self, ending: Ending) {
        let args = self.args;
        let stall = self.stall.take();
        let last_event = stall.as_ref().and_then(|s| s.last_event.as_ref());
        let last = last_event
            .map(|e| {
                format!(
                    "; last event: {} on line {}",
                    event_name(e.ty.as_deref(), e.subtype.as_deref()),
                    e.line
                )
            })
            .unwrap_or_default();
        let first = stall.as_ref().and_then(|s| s.running.first());
        let running = first
            .map(|c| {
                format!(
                    "; running: {} `{}` (line {}) for {}",
                    c.kind,
                    c.id,
                    c.line,
                    outcome::duration(Duration::from_millis(c.age_ms))
                )
            })
            .unwrap_or_default();
        // A stall is reported where what was running began, else at the last event.
        let stall_line = first
            .map(|c| c.line)
            .or(last_event.map(|e| e.line))
            .unwrap_or(0);
        let (rule, line, short, what, help) = match ending {
            Ending::AfterResult => {
                let line = self
                    .session
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .result
                    .as_ref()
                    .map_or(0, |r| r.line);
                let d = outcome::duration(args.after_result);
                (
                    Rule::AgentHungAfterResult,
                    line,
                    format!("the agent did not exit {d} after its result (line {line})"),
                    format!(
                        "the agent did not exit {d} after its result (line {line}); sjlint ended it"
                    ),
                    "headless agent CLIs often keep running after their result (a child holding the pipe, a background task); the result stands, and a run ended after a successful result is a success",
                )
            }
            Ending::Idle => {
                let d = outcome::duration(args.idle_timeout.unwrap_or_default());
                (
                    Rule::AgentStalled,
                    stall_line,
                    format!("no output for {d} while no tool call was running"),
                    format!("stalled: no output for {d} while no tool call was running{last}"),
                    "the agent wrote nothing for --idle-timeout while no tool call ran; raise it if the model thinks silently for longer",
                )
            }
            Ending::ToolTimeout => {
                let d = outcome::duration(args.tool_timeout.unwrap_or_default());
                (
                    Rule::AgentStalled,
                    stall_line,
                    format!("a tool call ran longer than --tool-timeout {d}"),
                    format!(
                        "stalled: a tool call ran longer than --tool-timeout {d}{running}{last}"
                    ),
                    "the tool call got no result within --tool-timeout; raise it for long builds or tests",
                )
            }
            Ending::Timeout => {
                let d = outcome::duration(args.timeout.unwrap_or_default());
                (
                    Rule::AgentStalled,
                    stall_line,
                    format!("the run reached --timeout {d}"),
                    format!("the run reached --timeout {d}{running}{last}"),
                    "the whole run took longer than --timeout",
                )
            }
            Ending::Exited | Ending::Interrupted(_) | Ending::OutputClosed => return,
        };
        note(
            self.notes,
            &format!(
                "{}; sending SIGTERM to its process group",
                escape_untrusted(&short)
            ),
        );
        let at = Position {
            byte: 0,
            line,
            record: 0,
        };
        self.finding = Some(Diagnostic::new(rule, at, what).with_help(help));
        self.stall = stall;
    }
}

fn earliest(a: Option<Instant>, b: Instant) -> Option<Instant> {
    Some(a.map_or(b, |a| a.min(b)))
}

fn event_name(ty: Option<&str>, subtype: Option<&str>) -> String {
    match (ty, subtype) {
        (Some(t), Some(s)) => format!("{t}/{s}"),
        (Some(t), None) => t.to_owned(),
        (None, _) => "(not an event)".to_owned(),
    }
}

/// What was running at `now`, when the condition that ends the run had held for `lasted`.
fn stall_of(s: &Session, now: Instant, lasted: Duration) -> outcome::Stall {
    outcome::Stall {
        after_ms: lasted.as_millis() as u64,
        running: s
            .open
            .iter()
            .map(|c| outcome::Running {
                id: c.id.clone(),
                kind: c.kind.clone(),
                line: c.line,
                age_ms: now.saturating_duration_since(c.since).as_millis() as u64,
            })
            .collect(),
        last_event: (s.events > 0).then(|| outcome::LastEvent {
            ty: s.last.ty.clone(),
            subtype: s.last.subtype.clone(),
            line: s.last.line,
        }),
    }
}

/// After the run: the findings' summary, the closing line, `--summary`, the exit code.
fn finish(
    args: &RunArgs,
    sup: &Supervisor<'_>,
    mut checked: Checked,
    stderr_seen: StderrSeen,
    notes: &Notes,
    pid: u32,
    start: Instant,
) -> io::Result<u8> {
    let status = sup.exited.map_or(Status::default(), |s| Status {
        code: s.code(),
        signal: s.signal(),
    });
    let ending = match sup.ending {
        // Ended by a signal sjlint sent only because the agent's leftovers lingered.
        None | Some(Ending::Exited) => Ending::Exited,
        Some(e) => e,
    };
    if let Err(e) = &checked.read
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        note(notes, &format!("cannot read the agent's stdout: {e}"));
    }
    for e in [&checked.save_error, &stderr_seen.save_error]
        .into_iter()
        .flatten()
    {
        note(notes, &format!("cannot write the transcript: {e}"));
    }
    // What sjlint saw the agent's process do, after the stream's findings. The exit code
    // follows its table: an agent ended after a successful result is a success, --strict too.
    let enabled = args.rules();
    let mut found: Vec<Diagnostic> = sup.finding.iter().cloned().collect();
    if checked.totals.records == 0 {
        if enabled.contains(Rule::AgentWroteNoEvents) {
            found.push(no_events(status, &stderr_seen, checked.totals.bytes));
        } else {
            found.extend(checked.empty.take());
        }
    }
    let mut verdict_findings = checked.findings;
    for d in found.iter().filter(|d| enabled.contains(d.rule)) {
        checked.findings.count(d.severity);
        if d.rule != Rule::AgentHungAfterResult {
            verdict_findings.count(d.severity);
        }
        checked.printer.diagnostic(&checked.name, d)?;
    }
    checked.printer.file_agent(checked.totals.agent);
    checked
        .printer
        .end_file(&checked.name, checked.totals.records, checked.totals.bytes)?;
    if !args.quiet {
        let f = checked.findings;
        let mut s = report::Summary {
            errors: f.errors,
            warnings: f.warnings,
            infos: f.infos,
            files: 1,
            records: checked.totals.records,
            bytes: checked.totals.bytes,
            ..report::Summary::default()
        };
        s.add_agent(checked.totals.agent);
        checked.printer.summary(&s)?;
    }
    checked.printer.finish()?;

    let result = sup
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .result
        .clone();
    let verdict = Verdict {
        ending,
        status,
        result_error: result.as_ref().map(|r| r.is_error),
        findings: verdict_findings,
        strict: args.strict,
    };
    let code = verdict.exit_code();
    let summary = outcome::RunSummary {
        command: args
            .command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        ended: ending.as_str(),
        exit_code: code,
        duration_ms: start.elapsed().as_millis() as u64,
        agent: outcome::Agent {
            pid,
            exit_code: status.code,
            signal: status.signal.map(interrupt::signal_name),
        },
        signal_received: sup.received.map(interrupt::signal_name),
        signals_sent: sup
            .signals_sent
            .iter()
            .map(|&n| interrupt::signal_name(n))
            .collect(),
        result: result.map(|r| outcome::ResultSummary {
            subtype: r.subtype,
            is_error: r.is_error,
            line: r.line,
        }),
        stall: sup.stall.clone(),
        records: checked.totals.records,
        bytes: checked.totals.bytes,
        invalid_records: checked.stats.invalid_records,
        tool_calls: outcome::ToolCalls::of(&checked.stats),
        tokens: outcome::Tokens::of(&checked.stats),
        findings: checked.findings.into(),
        stderr_bytes: stderr_seen.bytes,
        saved: args.save.as_ref().map(|p| p.display().to_string()),
    };
    note(
        notes,
        outcome::closing_line(&summary, status).trim_start_matches("sjlint run: "),
    );
    if let Some(path) = &args.summary {
        let written = create(path).and_then(|f| {
            let mut w = BufWriter::new(f);
            serde_json::to_writer_pretty(&mut w, &summary)?;
            w.write_all(b"\n")?;
            w.flush()
        });
        if let Err(e) = written {
            note(notes, &format!("cannot write the summary: {e}"));
            return Ok(outcome::EXIT_USAGE.max(code));
        }
    }
    Ok(code)
}

/// How many lines of the agent's stderr the `agent-wrote-no-events` finding quotes.
const STDERR_QUOTED: usize = 5;

/// The finding of a run in which the agent wrote no record: what it printed on stderr instead
/// (its first lines, each cut short; reporters escape them).
fn no_events(status: Status, seen: &StderrSeen, bytes: u64) -> Diagnostic {
    let how = match (status.code, status.signal) {
        (None, None) => String::new(),
        _ => format!("; it {}", outcome::describe_status(status)),
    };
    let blank = if bytes > 0 { " (only blank lines)" } else { "" };
    let text = String::from_utf8_lossy(&seen.head);
    let mut lines = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(STDERR_QUOTED)
        .map(|l| format!("{:?}", crate::text::Excerpt(l)));
    let pos = Position {
        byte: 0,
        line: 0,
        record: 0,
    };
    let Some(first) = lines.next() else {
        return Diagnostic::new(
            Rule::AgentWroteNoEvents,
            pos,
            format!("the agent wrote no events{blank} and nothing on stderr{how}"),
        )
        .with_help("check the agent's command line: a stream-json agent writes at least one event before it ends");
    };
    let more: Vec<String> = lines.collect();
    let help = if more.is_empty() {
        String::from(
            "an agent that stops before its first event (a trust prompt, an authentication error, a bad flag) says why on stderr",
        )
    } else {
        format!(
            "on stderr it went on: {}; the whole of it is above (and in PATH.stderr with --save-stderr)",
            more.join(", ")
        )
    };
    Diagnostic::new(
        Rule::AgentWroteNoEvents,
        pos,
        format!("the agent wrote no events{blank}{how}; on stderr it said {first}"),
    )
    .with_help(help)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("s").is_err());
    }
}
