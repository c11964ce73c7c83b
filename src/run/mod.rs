//! `sjlint run -- AGENT [ARGS…]`: run an agent, forward and check its stream live, and end it
//! when it hangs after its result, stalls, or runs out of time.
//!
//! This module owns one run from start to end: the files it writes opened first, the agent
//! started, the threads of the run set going and joined (the agent's stdout forwarded and
//! checked exactly as `check --tee` does it, in `stdout`; its stderr forwarded, in `stderr`; its
//! exit awaited; sjlint's signals received), then what is reported after it: the findings of
//! the `run` group (`agent-hung-after-result`, `agent-stalled`, `agent-wrote-no-events`) after
//! the stream's own, in the chosen format, the closing line, `--summary` and `--report`. Every
//! finding is judged as `check` judges standard input's (configuration file, severities, `--level`,
//! collapsed repeats), in `judge`. All it writes to stderr once the agent is started goes
//! through one writer thread (`notes`), so that a stderr nobody reads never holds the
//! supervisor. The supervising
//! thread (`supervisor`, with its timers in `timers`) sleeps on a channel with a deadline (no
//! polling loop while the agent runs; with `--events` or `--save` it also wakes once per
//! `--events-interval` to write the status events, in `events`, and flush the arrival times); only the short wait for leftover processes of an exited
//! agent looks again every few milliseconds. It must not interpret events itself (that is
//! [`session`]) nor decide the exit code (that is [`outcome`]). It takes its options as
//! [`RunOptions`], plain values `cli` resolves from the command line, and names no clap type.

pub mod child;
mod events;
pub mod export;
mod finish;
mod judge;
mod notes;
pub mod outcome;
mod outputs;
pub mod pipe;
pub mod session;
mod stderr;
mod stdout;
mod supervisor;
mod ticks;
mod timers;
mod tracing;

pub use events::EventsTarget;
use finish::{Ended, ended, exit_status, finish};
use judge::Judge;
use pipe::{Activity, PipeReader, Stop};
pub use session::Budgets;
use session::Session;
use sjlint_core::agents::Agent;
use sjlint_core::agents::cursor::view::Dialect;
use sjlint_core::check::CheckOptions;
use sjlint_core::config::{Configs, Overrides, Settings};
use sjlint_core::interrupt;
use sjlint_core::rules::Severity;
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::report::{Format, Printer};
use sjlint_outputs::status::Live;
use sjlint_outputs::terminal::{ColorChoice, ProgressChoice, Stream, Terminal};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{IntoRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stderr::forward_stderr;
use stdout::check_stdout;
use supervisor::Supervisor;

/// The exit-code table, as `sjlint run --help` prints it.
pub const EXIT_CODES_HELP: &str = "\
Exit codes (the first that applies):
  128+n  signal n received and passed on (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT);
         any other signal that would end sjlint (138 SIGUSR1, 142 SIGALRM, …) ends the agent's
         group with SIGTERM; SIGXFSZ is ignored (the write it stops is reported)
  141    sjlint's stdout was closed; the agent was ended
  124    a stall or timeout: --idle-timeout, --tool-timeout, --timeout
  126    the agent could not be executed; 127: not found
  3      the agent reported failure: an error result, or no result and a non-zero exit
  2      usage error, a bad configuration file; a --save, --output-file or --summary file
         could not be written (a transcript cut short by a full disk or `ulimit -f` too), or
         sjlint's stdout failed otherwise than closed (a full disk); the agent was ended
  1      the stream broke: error findings (warnings too with --strict)
  0      success, including an agent ended after a successful result

Durations: 500ms, 5s, 2m (or 2min), 1h, 1d, and sums of them: 1m30s, 1h2m. A bare number is
seconds, fractions are read (1.5s); at most 100 years (longer is a usage error, exit 2), and a
duration that rounds to zero (0.0000000001ms) is a usage error too. As with `timeout`, 0 turns
--idle-timeout, --tool-timeout and --timeout off; --after-result 0 ends the agent as soon as its
result arrives.";

/// What to run and how: `sjlint run`'s options, resolved (durations and sizes parsed, choices
/// made plain); `cli` makes them from its arguments.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The agent's command line: the program, then its arguments.
    pub command: Vec<OsString>,
    /// After the session's `result`, how long the agent gets to exit by itself (`--after-result`).
    pub after_result: Duration,
    /// After SIGTERM, how long the group gets before SIGKILL (`--kill-after`).
    pub kill_after: Duration,
    /// No byte for this long while no tool call runs ends the run, counted from the agent's
    /// first byte (`--idle-timeout`; zero or none: no limit).
    pub idle_timeout: Option<Duration>,
    /// No byte for this long after the agent started ends the run: its start-up
    /// (`--first-output-timeout`; zero or none: no limit).
    pub first_output_timeout: Option<Duration>,
    /// `--to common`: stdout carries the stream's events in the common form, live, instead of
    /// the agent's bytes (`--save` still writes the bytes).
    pub to_common: bool,
    /// `--otlp-endpoint`, `--otlp-protocol`, `--otlp-header`: where the run's spans go, over
    /// the standard `OTEL_EXPORTER_OTLP_*` variables.
    pub otlp: crate::run::export::Flags,
    /// `--otlp-content`: prompts, texts and tool contents in the spans.
    pub otlp_content: bool,
    /// What the run may spend, as its stream reports it (`--max-cost`, `--max-tokens`,
    /// `--max-tool-calls`): past one, the run is ended.
    pub budgets: session::Budgets,
    /// One tool call running this long ends the run (`--tool-timeout`; zero or none: no limit).
    pub tool_timeout: Option<Duration>,
    /// The run lasting this long in all ends it (`--timeout`; zero or none: no limit).
    pub timeout: Option<Duration>,
    /// `--summary`: where the JSON summary of the run goes.
    pub summary: Option<PathBuf>,
    /// `--report`: where the HTML page of the run goes.
    pub report: Option<PathBuf>,
    /// `--events`: where the run's status events go, as NDJSON.
    pub events: Option<EventsTarget>,
    /// `--events-interval`: how often the periodic events are written (at most), and the
    /// arrival times of `--save` flushed (at least).
    pub events_interval: Duration,
    /// `--save`: where the agent's stdout is saved (with its arrival times beside it, see
    /// [`sjlint_core::arrivals`]); `save_stderr`, its stderr too.
    pub save: Option<PathBuf>,
    pub save_stderr: bool,
    /// `--output-file`: where the findings go instead of stderr.
    pub output_file: Option<PathBuf>,
    /// `--format`, when one was chosen.
    pub format: Option<Format>,
    /// The rules and severities the command line sets over the configuration file.
    pub overrides: Overrides,
    /// `--config`: the configuration file to read instead of the one found; `isolated`: none.
    pub config: Option<PathBuf>,
    pub isolated: bool,
    /// The lowest severity reported (`--level`).
    pub floor: Severity,
    pub no_collapse: bool,
    pub strict: bool,
    pub quiet: bool,
    pub max_open_calls: usize,
    pub max_record_bytes: usize,
    /// `--redact`: every record redacted before it is read, and the transcript (`--save`) and
    /// stdout written redacted, line by line.
    pub redact: Option<&'static sjlint_core::redact::Redactor>,
    /// The agent and dialect the stream is read as, when forced.
    pub agent: Option<Agent>,
    pub dialect: Option<Dialect>,
    pub color: ColorChoice,
    pub progress: ProgressChoice,
}

impl RunOptions {
    /// The settings in force: the configuration file found from the current directory (or
    /// `config`, or none when `isolated`), with the command line over it, as `check` reads
    /// standard input.
    fn settings(&self) -> Result<Arc<Settings>, String> {
        Configs::new(
            self.overrides.clone(),
            self.config.as_deref(),
            self.isolated,
        )?
        .for_path(None)
    }
}

/// What the threads tell the supervisor.
enum Msg {
    /// The session's timers may have changed: a call started or ended, a result arrived.
    Changed,
    /// The agent's stdout was read to its end (or the reading stopped); `closed` when reading
    /// failed (sjlint's own stdout was closed, most often) and the agent must be ended; `full`
    /// when sjlint's stdout failed otherwise than closed (a full disk).
    StdoutDone { closed: bool, full: bool },
    /// The agent's process ended.
    Exited(std::process::ExitStatus),
    /// Another process of its group ended, or none is left that sjlint can reap.
    Reaped,
    /// sjlint received this signal.
    Signal(i32),
}

use notes::Notes;
use outputs::{check_outputs, create, open_transcript, stderr_path, write_report};

/// One of sjlint's own lines, to stderr (above the status line when there is one); dropped
/// rather than waited for when nothing reads stderr.
fn note(notes: &Notes, text: &str) {
    notes.note(text);
}

/// Runs the agent `opts.command` names; see the module documentation.
pub fn run(opts: &RunOptions) -> io::Result<u8> {
    let Prepared {
        start,
        start_unix_ms,
        settings,
        signals,
        opened:
            Opened {
                save,
                arrivals,
                save_stderr,
                findings_file,
            },
        events,
        otlp,
    } = prepare(opts)?;

    let subreaper = child::become_subreaper();
    let Started {
        agent,
        pid,
        stdout,
        stderr,
        stdout_probe,
    } = match start_agent(opts, events.as_ref())? {
        Ok(started) => started,
        Err(code) => return Ok(code),
    };
    let pgid = pid as i32;

    let (live, notes, judging) = report_to(opts, findings_file, settings)?;

    let (tx, rx) = mpsc::channel();
    let signalled = tx.clone();
    // Never joined: it waits on the signal pipe for as long as the process lives.
    std::thread::Builder::new()
        .name("sjlint-signals".into())
        .spawn(move || receive_signals(signals, &signalled))?;
    let stop = Stop::new()?;
    let activity = Arc::new(Activity::new(start));
    let session = Mutex::new(Session {
        budgets: opts.budgets,
        to_common: opts.to_common,
        ..Session::default()
    });

    let (mut supervisor, checked, stderr_seen) = std::thread::scope(|scope| -> io::Result<_> {
        let checking = {
            let reader = PipeReader::new(stdout, Arc::clone(&stop), Some(Arc::clone(&activity)));
            let tx = tx.clone();
            let (session, live) = (&session, live.as_ref());
            let clock = stdout::Clock {
                activity: &activity,
                start_unix_ms,
            };
            let beside = beside(opts, clock, arrivals.as_ref(), otlp);
            std::thread::Builder::new()
                .name("sjlint-stdout".into())
                .spawn_scoped(scope, move || {
                    check_stdout(reader, save, judging, session, live, tx, beside)
                })?
        };
        let forwarding = {
            let reader = PipeReader::new(stderr, Arc::clone(&stop), None);
            let notes = &notes;
            std::thread::Builder::new()
                .name("sjlint-stderr".into())
                .spawn_scoped(scope, move || forward_stderr(reader, notes, save_stderr))?
        };
        let reaped = tx.clone();
        std::thread::Builder::new()
            .name("sjlint-wait".into())
            .spawn_scoped(scope, move || reap_all(pgid, agent, &reaped))?;
        let around = supervisor::Around {
            session: &session,
            activity: &activity,
            stop: &stop,
            notes: &notes,
            events: events.as_ref(),
            arrivals: arrivals.as_ref(),
        };
        let mut sup = Supervisor::new(opts, (pgid, start), around, subreaper, stdout_probe);
        sup.supervise(&rx);
        // The group is gone: the threads joined below no longer wait for a stuck stderr.
        notes.ending();
        let checked = checking.join().expect("the stdout thread does not panic");
        let stderr_seen = forwarding.join().expect("the stderr thread does not panic");
        Ok((sup, checked, stderr_seen))
    })?;
    if let Some(live) = live {
        live.finish();
    }
    supervisor.settle_budget();
    supervisor.report_leftovers();
    supervisor.place_interrupt();
    let ended_run = Ended {
        sup: &supervisor,
        stderr_seen,
    };
    conclude(
        opts,
        ended_run,
        checked,
        arrivals.as_ref(),
        &notes,
        (pid, start),
    )
}

/// After the agent and every thread of the run ended: the arrival times and the last spans
/// sent, then what the run reports, and `--events`' end.
fn conclude(
    opts: &RunOptions,
    ended_run: Ended<'_, '_>,
    mut checked: stdout::Checked,
    arrivals: Option<&Mutex<sjlint_core::arrivals::Writer>>,
    notes: &Notes,
    (pid, start): (u32, Instant),
) -> io::Result<u8> {
    let supervisor = ended_run.sup;
    if let Some(w) = arrivals {
        flush_arrivals(w, opts, notes);
    }
    // The last spans are sent now that the agent is done (a few seconds at most); a failed
    // export is one note, and leaves the exit code alone.
    if let Some(exporter) = checked.exporter.take() {
        send_last_spans(exporter, notes);
    }
    let events = supervisor.events;
    let code = finish(opts, ended_run, checked, notes, pid, start);
    if let Some(events) = events {
        emit_end(events, supervisor, code.as_ref().ok().copied());
    }
    // What is still queued is written, unless nothing reads stderr.
    notes.finish();
    code
}

/// What is made ready before the agent starts.
struct Prepared {
    start: Instant,
    start_unix_ms: u64,
    settings: Arc<Settings>,
    /// The read end of the pipe the signal handlers write to.
    signals: OwnedFd,
    opened: Opened,
    events: Option<events::Events>,
    otlp: Option<export::Settings>,
}

/// Everything checked and opened before the agent starts, in the order it must be: the
/// `--events` descriptor, the configuration, the signal handlers, the outputs, the export's
/// settings.
fn prepare(opts: &RunOptions) -> io::Result<Prepared> {
    let start = Instant::now();
    let start_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    // First of all: a descriptor named by number must be checked before sjlint opens any of
    // its own, which could take its number.
    let events_file = match &opts.events {
        Some(target) => Some(target.open()?),
        None => None,
    };
    // A configuration file that cannot be read is a usage error, before anything is started.
    let settings = opts
        .settings()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let (signals, wake) = pipe::pipe(true)?;
    // The handlers write to this descriptor for the rest of the process: it is never closed.
    interrupt::install_waking(wake.into_raw_fd())?;

    let opened = open_outputs(opts, start_unix_ms)?;
    let events = match events_file {
        Some(file) => Some(events::Events::start(file, start, start_unix_ms)?),
        None => None,
    };
    // The export settings are read before the agent starts: a note about them comes first.
    let otlp = crate::run::export::settings(
        &opts.otlp,
        |name| std::env::var(name).ok(),
        |w| {
            let _ = writeln!(io::stderr(), "sjlint run: {w}");
        },
    );
    Ok(Prepared {
        start,
        start_unix_ms,
        settings,
        signals,
        opened,
        events,
        otlp,
    })
}

/// The `started` line of `--events`.
fn emit_started(events: &events::Events, pid: u32, opts: &RunOptions) {
    events.emit(
        "started",
        &[
            ("pid", serde_json::json!(pid)),
            (
                "argv0",
                serde_json::json!(opts.command[0].to_string_lossy()),
            ),
            ("agent", serde_json::json!(opts.agent.map(Agent::as_str))),
        ],
    );
}

/// The last line of `--events`; `code` is sjlint's exit code (`None`: an error ended the run).
fn emit_end(events: &events::Events, supervisor: &Supervisor<'_>, code: Option<u8>) {
    let status = exit_status(supervisor);
    events.end(&[
        ("reason", serde_json::json!(ended(supervisor).as_str())),
        (
            "exit_code",
            serde_json::json!(code.unwrap_or(outcome::EXIT_USAGE)),
        ),
        ("agent_exit_code", serde_json::json!(status.code)),
        (
            "agent_signal",
            serde_json::json!(status.signal.map(interrupt::signal_name)),
        ),
    ]);
}

/// Where a run writes besides stdout: the status line (on a terminal), the one writer of
/// stderr, and how findings are reported.
fn report_to(
    opts: &RunOptions,
    findings_file: Option<File>,
    settings: Arc<Settings>,
) -> io::Result<(Option<Live>, Arc<Notes>, stdout::Judging)> {
    let terminal = Terminal::detect();
    let live = terminal.status_line(opts.progress).then(Live::start);
    let to_stderr: Box<dyn Write + Send> = match &live {
        Some(live) => Box::new(live.writer(io::stderr())),
        None => Box::new(io::stderr()),
    };
    // Everything written to stderr from now on goes through one writer thread, so that a
    // stderr nobody reads blocks that thread only.
    let notes = Notes::start(to_stderr)?;
    let reporting = reporting(opts, terminal, &notes, findings_file, settings);
    Ok((live, notes, reporting))
}

/// The printers, the judge and the check's options of a run.
fn reporting(
    opts: &RunOptions,
    terminal: Terminal,
    notes: &Arc<Notes>,
    findings_file: Option<File>,
    settings: Arc<Settings>,
) -> stdout::Judging {
    let format = opts.format.unwrap_or(Format::Human);
    let (sink, stream): (Box<dyn Write + Send>, Stream) = match findings_file {
        Some(file) => (Box::new(BufWriter::new(file)), Stream::File),
        None => (notes.writer(), Stream::Stderr),
    };
    let color = format == Format::Human && terminal.color(opts.color, stream);
    let printer = Printer::new(format, sink, color).strict(opts.strict);
    // Under GitHub Actions, findings also become annotations unless a format was chosen, as
    // with `check`.
    let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let annotations = (opts.format.is_none() && github_actions)
        .then(|| Printer::new(Format::Github, notes.writer(), false));
    let name = opts
        .save
        .as_ref()
        .map_or_else(|| "-".to_owned(), |p| p.display().to_string());
    let judge = Judge::new(
        settings,
        &name,
        opts.floor,
        format == Format::Human && !opts.no_collapse,
    );
    let check = CheckOptions {
        enabled: judge.enabled(),
        max_record_bytes: opts.max_record_bytes,
        dialect: opts.dialect,
        agent: opts.agent,
        max_open_calls: opts.max_open_calls,
        redact: opts.redact,
    };
    stdout::Judging {
        printers: (printer, annotations),
        judge,
        check,
        name,
    }
}

/// Waits for the agent and, as a subreaper, for what it leaves behind, until none is left,
/// telling the supervisor of each.
fn reap_all(pgid: i32, agent: std::process::Child, tx: &Sender<Msg>) {
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
}

/// Sends the spans still queued; a failed export is one note.
fn send_last_spans(exporter: export::Exporter, notes: &Notes) {
    let url = exporter.url().to_owned();
    if let Some(warning) = exporter.finish().warning(&url) {
        note(notes, &warning);
    }
}

/// The files a run writes besides stdout, opened before the agent starts.
struct Opened {
    /// The transcript (`--save`).
    save: Option<File>,
    /// The arrival times beside a transcript that is a regular file.
    arrivals: Option<Mutex<sjlint_core::arrivals::Writer>>,
    save_stderr: Option<File>,
    findings_file: Option<File>,
}

/// Checks the outputs and opens them: every one is checked before the agent starts (none names
/// another, and each can be created).
fn open_outputs(opts: &RunOptions, start_unix_ms: u64) -> io::Result<Opened> {
    check_outputs(opts)?;
    let (save, transcript) = match open_transcript(opts)? {
        Some((file, path)) => (Some(file), Some(path)),
        None => (None, None),
    };
    // Beside a transcript that is a file only: `--save /dev/full` or a FIFO has no "beside".
    let regular = save
        .as_ref()
        .is_some_and(|f| f.metadata().is_ok_and(|m| m.is_file()));
    let arrivals = match transcript.as_deref().filter(|_| regular) {
        Some(path) => Some(Mutex::new(
            sjlint_core::arrivals::Writer::create(path, start_unix_ms).map_err(|e| {
                let shown = sjlint_core::arrivals::sidecar_path(path)
                    .display()
                    .to_string();
                io::Error::new(
                    e.kind(),
                    format!("cannot create {}: {e}", escape_untrusted(&shown)),
                )
            })?,
        )),
        None => None,
    };
    let save_stderr = match (&opts.save, opts.save_stderr) {
        (Some(path), true) => Some(create(&stderr_path(path))?),
        _ => None,
    };
    let findings_file = match &opts.output_file {
        Some(path) => Some(create(path)?),
        None => None,
    };
    Ok(Opened {
        save,
        arrivals,
        save_stderr,
        findings_file,
    })
}

/// What the stdout thread keeps besides the findings and the statistics: the arrival times,
/// the spans and the page, each when asked for.
fn beside<'a>(
    opts: &RunOptions,
    clock: stdout::Clock<'a>,
    arrivals: Option<&'a Mutex<sjlint_core::arrivals::Writer>>,
    otlp: Option<export::Settings>,
) -> stdout::Beside<'a> {
    stdout::Beside {
        clock,
        arrivals,
        tracing: otlp.map(|settings| {
            tracing::Tracing::start(settings, opts.otlp_content, opts.max_open_calls)
        }),
        page: opts.report.is_some(),
    }
}

/// The agent, started, and its two pipes.
struct Started {
    agent: std::process::Child,
    pid: u32,
    stdout: OwnedFd,
    stderr: OwnedFd,
    /// The supervisor's own look at the stdout pipe: whether anything still holds it open.
    stdout_probe: OwnedFd,
}

/// Starts the agent and says so on `--events`; `Ok(Err(code))` when it cannot be (said on
/// stderr).
fn start_agent(
    opts: &RunOptions,
    events: Option<&events::Events>,
) -> io::Result<Result<Started, u8>> {
    let mut agent = match spawn(opts)? {
        Ok(agent) => agent,
        Err(code) => return Ok(Err(code)),
    };
    let pid = agent.id();
    if let Some(events) = events {
        emit_started(events, pid, opts);
    }
    let stdout: OwnedFd = agent.stdout.take().expect("piped").into();
    let stderr: OwnedFd = agent.stderr.take().expect("piped").into();
    let stdout_probe = stdout.try_clone()?;
    Ok(Ok(Started {
        agent,
        pid,
        stdout,
        stderr,
        stdout_probe,
    }))
}

/// Starts the agent; `Ok(Err(code))` when it cannot be (not found, or not executable), said on
/// stderr.
fn spawn(opts: &RunOptions) -> io::Result<Result<std::process::Child, u8>> {
    Ok(match child::spawn(&opts.command) {
        Ok(agent) => Ok(agent),
        Err(e) => {
            let shown = opts.command[0].to_string_lossy();
            writeln!(
                io::stderr(),
                "sjlint run: cannot run `{}`: {e}",
                escape_untrusted(&shown)
            )?;
            Err(if e.kind() == io::ErrorKind::NotFound {
                outcome::EXIT_NOT_FOUND
            } else {
                outcome::EXIT_CANNOT_EXECUTE
            })
        }
    })
}

/// Writes the last arrival times; a failure to is a note (the times are incomplete).
fn flush_arrivals(w: &Mutex<sjlint_core::arrivals::Writer>, opts: &RunOptions, notes: &Notes) {
    let mut w = w.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    w.flush();
    if let (Some(e), Some(path)) = (w.take_error(), &opts.save) {
        let shown = sjlint_core::arrivals::sidecar_path(path)
            .display()
            .to_string();
        note(
            notes,
            &format!(
                "cannot write the arrival times {}: {e}; they are incomplete",
                escape_untrusted(&shown)
            ),
        );
    }
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
