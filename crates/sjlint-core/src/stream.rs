//! The library's push API: a [`Stream`] fed bytes as they arrive, calling a [`Sink`] with each
//! [`Finding`] and common [`Event`] as soon as it is known, and the owned, serialisable types it
//! hands out; [`Options`], the library's plain options; and the one-call helpers built on it
//! ([`check_bytes`], [`check`], [`to_common`], [`rules`]).
//!
//! This module owns the facade only: it drives the splitter and the checker's in-order stage
//! (`crate::check`) one frame at a time, and turns their borrowed findings and events into owned
//! values. It must not check anything itself, print, read files, install signal handlers or
//! touch any process-wide state: those are the binary's.

use crate::agents::Agent;
use crate::check::{CheckOptions, Consumer, Emit, InOrder};
use crate::config::{Overrides, Settings, rules_named};
use crate::diagnostic::{Diagnostic, UNKNOWN_BYTE};
use crate::input::split::{Item as Frame, Reading, Source, Splitter};
use crate::rules::{RULES, Rule, Severity};
use crate::vocab;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, ErrorKind, Read};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, PoisonError};

/// How a stream is read and which rules run: the command line's `--agent`, `--select`,
/// `--ignore` and `--severity`, as plain values. The default recognises the agent from the
/// first records and runs the default rules.
///
/// ```
/// # use sjlint_core as sjlint; // the `sjlint` crate re-exports this API
/// let opts = sjlint::Options::new()
///     .agent("claude")?
///     .ignore(&["unknown-event-type"])?
///     .severity("missing-result", "warning")?;
/// # Ok::<(), sjlint::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    check: CheckOptions,
    overrides: Overrides,
    /// Per rule (by discriminant), the severity set over its default.
    severity: Vec<Option<Severity>>,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// The check's own options these resolve to (for `sjlint_outputs::stats_json`).
    #[doc(hidden)]
    pub fn check_options(&self) -> &CheckOptions {
        &self.check
    }

    /// The defaults: any agent, the default rules at their default severities.
    pub fn new() -> Options {
        Options {
            check: CheckOptions::default(),
            overrides: Overrides::default(),
            severity: vec![None; RULES.len()],
        }
    }

    /// Read the input as this agent's stream (`"claude"`, `"codex"`, … as `sjlint check
    /// --agent` takes them); `"auto"` recognises it from its first records.
    ///
    /// # Errors
    ///
    /// A name that is no agent sjlint knows.
    pub fn agent(mut self, name: &str) -> Result<Options, Error> {
        if name == "auto" {
            self.check.agent = None;
            return Ok(self);
        }
        match Agent::from_name(name) {
            Some(agent) => {
                self.check.agent = Some(agent);
                Ok(self)
            }
            None => Err(Error(format!(
                "`{name}` is not an agent sjlint knows (auto, {})",
                crate::agents::REGISTRY
                    .iter()
                    .map(|e| e.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Run only these rules and groups (`--select`).
    ///
    /// # Errors
    ///
    /// A name that is neither a rule nor a group.
    pub fn select(mut self, rules: &[&str]) -> Result<Options, Error> {
        named(rules)?;
        self.overrides.select = Some(rules.iter().map(|r| (*r).to_owned()).collect());
        Ok(self.settled())
    }

    /// Leave these rules and groups out (`--ignore`).
    ///
    /// # Errors
    ///
    /// A name that is neither a rule nor a group.
    pub fn ignore(mut self, rules: &[&str]) -> Result<Options, Error> {
        named(rules)?;
        self.overrides
            .ignore
            .extend(rules.iter().map(|r| (*r).to_owned()));
        Ok(self.settled())
    }

    /// Set a rule's or group's severity: `error`, `warning`, `info` or `off` (`--severity
    /// RULE=LEVEL`).
    ///
    /// # Errors
    ///
    /// A name that is neither a rule nor a group, or a level that is none of those four.
    pub fn severity(mut self, rule: &str, level: &str) -> Result<Options, Error> {
        let (name, level) =
            crate::config::parse_severity_arg(&format!("{rule}={level}")).map_err(Error)?;
        self.overrides.severity.push((name, level));
        Ok(self.settled())
    }

    /// The longest record read, in bytes (`--max-record-bytes`; default 64 MiB).
    pub fn max_record_bytes(mut self, bytes: usize) -> Options {
        self.check.max_record_bytes = bytes.max(1);
        self
    }

    /// The rules and severities the overrides come to.
    fn settled(mut self) -> Options {
        let settings = Settings::defaults(&self.overrides);
        self.check.enabled = settings.enabled;
        self.severity = settings.severity;
        self
    }

    fn severity_of(&self, d: &Diagnostic) -> Severity {
        crate::config::graded_severity(&self.severity, d)
    }
}

fn named(rules: &[&str]) -> Result<(), Error> {
    for name in rules {
        if rules_named(name).is_none() {
            return Err(Error(crate::config::unknown_name(name)));
        }
    }
    Ok(())
}

/// A mistake in [`Options`]: an agent or a rule that does not exist, a level that is not one.
/// Its message is the command line's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Another place a finding involves ("started here: line 12").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Related {
    pub line: u64,
    pub message: String,
}

/// One finding about the input, owned. It serialises to one element of `sjlint check --format
/// json` without its `file` (the same keys, in the same order, with the same values).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// 1-based physical line on which the record starts.
    pub line: u64,
    /// 1-based character column of the offending field on that line, when known.
    pub column: Option<u32>,
    /// The column just past what the finding points at, when known.
    pub end_column: Option<u32>,
    /// 1-based index of the record (`None`: the finding is about no record, e.g. an empty
    /// stream).
    pub record: Option<u64>,
    /// 0-based byte offset in the input (`None`: no place in particular, e.g. a session's end).
    pub byte: Option<u64>,
    /// The rule's name (`sjlint rules`).
    pub rule: &'static str,
    /// The rule's group.
    pub group: &'static str,
    pub severity: Severity,
    /// What was found. Untrusted text from the input may appear in it, unescaped: escape it
    /// for the terminal or the page it goes to.
    pub message: String,
    pub related: Vec<Related>,
    pub help: Option<String>,
}

impl Finding {
    fn new(d: Diagnostic, severity: Severity) -> Finding {
        Finding {
            line: d.line,
            column: d.column,
            end_column: d.end_column(),
            record: (d.record > 0).then_some(d.record),
            byte: (d.byte != UNKNOWN_BYTE).then_some(d.byte),
            rule: d.rule.name(),
            group: d.rule.group().as_str(),
            severity,
            message: d.message,
            related: d
                .related
                .into_iter()
                .map(|r| Related {
                    line: r.line,
                    message: r.message,
                })
                .collect(),
            help: d.help,
        }
    }

    /// The finding as one JSON object (escaped as `--format json` escapes it).
    pub fn to_json(&self) -> String {
        json_string(self)
    }
}

/// One event of the common vocabulary (`docs/common-form.md`), owned: what every agent's
/// records come to. It serialises to exactly its line of `sjlint fmt --to common`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Event {
    kind: &'static str,
    line: u64,
    /// Its line of the common form, without the line end: JSON by construction.
    json: String,
}

impl Event {
    /// The event's `type`: `session_start`, `tool_start`, `tool_end`, `assistant_text`, …
    pub fn kind(&self) -> &str {
        self.kind
    }

    /// The 1-based line of the record it comes from.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The event as its `fmt --to common` line, without the line end.
    pub fn to_json(&self) -> String {
        self.json.clone()
    }

    /// The same, borrowed.
    pub fn as_json(&self) -> &str {
        &self.json
    }
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Read back only when serialised: most consumers take the text as it is.
        let raw: &RawValue = serde_json::from_str(&self.json).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

/// One thing a [`Stream`] hands out.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Finding(Finding),
    Event(Event),
}

/// Where a [`Stream`]'s findings and events go, in input order, as soon as each is known.
/// Return [`ControlFlow::Break`] to stop the stream: it then reads nothing more and hands out
/// nothing more.
pub trait Sink {
    fn finding(&mut self, finding: Finding) -> ControlFlow<()>;

    /// A common event. The default drops it (and then none is made: checking alone is faster).
    fn event(&mut self, event: Event) -> ControlFlow<()> {
        let _ = event;
        ControlFlow::Continue(())
    }

    /// Whether [`Sink::event`] is wanted. Asked once, when the stream is first fed.
    fn wants_events(&self) -> bool {
        false
    }
}

/// Collects the findings.
impl Sink for Vec<Finding> {
    fn finding(&mut self, finding: Finding) -> ControlFlow<()> {
        self.push(finding);
        ControlFlow::Continue(())
    }
}

/// Collects the findings and the events, in order.
impl Sink for Vec<Item> {
    fn finding(&mut self, finding: Finding) -> ControlFlow<()> {
        self.push(Item::Finding(finding));
        ControlFlow::Continue(())
    }

    fn event(&mut self, event: Event) -> ControlFlow<()> {
        self.push(Item::Event(event));
        ControlFlow::Continue(())
    }

    fn wants_events(&self) -> bool {
        true
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn finding(&mut self, finding: Finding) -> ControlFlow<()> {
        (**self).finding(finding)
    }

    fn event(&mut self, event: Event) -> ControlFlow<()> {
        (**self).event(event)
    }

    fn wants_events(&self) -> bool {
        (**self).wants_events()
    }
}

/// What one input held, once it is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Totals {
    /// Records read (blank lines are none).
    pub records: u64,
    pub bytes: u64,
    /// The agent the input was checked as (`"cursor"`, `"claude"`, …), once known (`None`: no
    /// agent sjlint knows, an empty input, or a stream stopped early).
    pub agent: Option<&'static str>,
}

/// What the in-order stage gives, in order, until the caller takes it.
#[derive(Default)]
struct Queue {
    items: VecDeque<Pending>,
    /// The input's agent, named on the first event.
    named: vocab::Named,
    line: Vec<u8>,
}

enum Pending {
    Finding(Diagnostic),
    Event(Event),
}

/// The stage's end of the queue: both its findings and its records go in, in the order the
/// stage gives them. Shared between the two roles the stage takes apart.
#[derive(Clone, Default)]
struct ToQueue {
    queue: Arc<Mutex<Queue>>,
    events: bool,
}

impl ToQueue {
    fn with<T>(&self, f: impl FnOnce(&mut Queue) -> T) -> T {
        f(&mut self.queue.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl ToQueue {
    /// Hands what is queued to `sink`, in order, until it breaks.
    fn drain(&self, opts: &Options, sink: &mut impl Sink) -> ControlFlow<()> {
        loop {
            let Some(next) = self.with(|q| q.items.pop_front()) else {
                return ControlFlow::Continue(());
            };
            match next {
                Pending::Finding(d) => {
                    let severity = opts.severity_of(&d);
                    sink.finding(Finding::new(d, severity))?;
                }
                Pending::Event(ev) => sink.event(ev)?,
            }
        }
    }
}

impl Emit for ToQueue {
    fn emit(&mut self, d: Diagnostic) -> io::Result<()> {
        self.with(|q| q.items.push_back(Pending::Finding(d)));
        Ok(())
    }
}

impl Consumer for ToQueue {
    fn agent(&mut self, agent: Option<Agent>) {
        self.with(|q| {
            q.named
                .set(agent.filter(|&a| a != Agent::Common).map(Agent::as_str));
        });
    }

    fn wants_common(&self) -> bool {
        self.events
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        self.with(|q| {
            q.line.clear();
            q.named.write(ev, &mut q.line);
            // The wire form is JSON by construction (UTF-8), and one line.
            let json = String::from_utf8_lossy(q.line.trim_ascii_end()).into_owned();
            q.items.push_back(Pending::Event(Event {
                kind: ev.kind.as_str(),
                line: ev.line,
                json,
            }));
        });
    }
}

/// The bytes fed and not yet taken by the splitter: its reader, which has nothing to give
/// until more is fed, and gives the end once the stream is finished.
#[derive(Default)]
struct Fed {
    bytes: Vec<u8>,
    taken: usize,
    ended: bool,
}

impl Read for Fed {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let rest = &self.bytes[self.taken..];
        if rest.is_empty() {
            self.bytes.clear();
            self.taken = 0;
            return if self.ended {
                Ok(0)
            } else {
                Err(ErrorKind::WouldBlock.into())
            };
        }
        let n = rest.len().min(out.len());
        out[..n].copy_from_slice(&rest[..n]);
        self.taken += n;
        Ok(n)
    }
}

/// The splitter and the in-order stage of one input, driven a frame at a time.
struct Core<S: Source> {
    splitter: Splitter<S>,
    stage: Option<InOrder<ToQueue, ToQueue>>,
    queue: ToQueue,
    totals: crate::check::Totals,
    opts: Options,
    /// The sink stopped the stream, or it ended.
    done: bool,
}

/// How a pump ended.
enum Pumped {
    /// The splitter needs more bytes.
    Starved,
    /// The input ended (the end-of-input findings are handed out).
    Ended,
    Stopped,
}

impl<S: Source> Core<S> {
    fn new(splitter: Splitter<S>, opts: &Options) -> Self {
        Core {
            splitter: splitter.checking_utf8(),
            stage: None,
            queue: ToQueue::default(),
            totals: crate::check::Totals::default(),
            opts: opts.clone(),
            done: false,
        }
    }

    /// Splits and checks what the splitter can give, handing each finding and event to `sink`.
    fn pump(&mut self, sink: &mut impl Sink) -> io::Result<Pumped> {
        if self.done {
            return Ok(Pumped::Stopped);
        }
        if self.stage.is_none() {
            self.queue.events = sink.wants_events();
            self.stage = Some(InOrder::new(
                &self.opts.check,
                self.queue.clone(),
                self.queue.clone(),
            ));
        }
        loop {
            let stage = self.stage.as_mut().expect("made above");
            let frame = match self.splitter.next_item() {
                Ok(Some(Frame::Frame(frame))) => frame,
                // Over-limit records are not passed on in pieces to the queue.
                Ok(Some(Frame::Piece(_))) => continue,
                Ok(None) => {
                    self.totals.bytes = self.splitter.bytes_read();
                    let stage = self.stage.take().expect("made above");
                    // The queue never fails: the stage's `finish` cannot either.
                    let _ = stage.finish(&mut self.totals);
                    self.done = true;
                    return Ok(match self.drain(sink) {
                        ControlFlow::Continue(()) => Pumped::Ended,
                        ControlFlow::Break(()) => Pumped::Stopped,
                    });
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(Pumped::Starved),
                Err(e) => {
                    self.totals.bytes = self.splitter.bytes_read();
                    let stage = self.stage.take().expect("made above");
                    let e = stage.stopped(e);
                    self.done = true;
                    let _ = self.drain(sink);
                    return Err(e);
                }
            };
            let _ = stage.frame(frame, None, &mut self.totals);
            if self.drain(sink).is_break() {
                self.done = true;
                self.stage = None;
                return Ok(Pumped::Stopped);
            }
        }
    }

    /// Hands what the stage gave to `sink`, in order, until it breaks.
    fn drain(&mut self, sink: &mut impl Sink) -> ControlFlow<()> {
        self.queue.drain(&self.opts, sink)
    }

    fn totals(&self) -> Totals {
        Totals {
            records: self.totals.records,
            bytes: self.splitter.bytes_read(),
            agent: self.totals.agent.map(Agent::as_str),
        }
    }
}

/// A stream checked as its bytes arrive: [`feed`](Stream::feed) each piece as it comes (cut
/// anywhere, even inside a record or a character), then [`finish`](Stream::finish). Every
/// finding and every common event reaches the [`Sink`] as soon as the bytes that decide it are
/// fed: a record once its line ends (a line that ends inside a JSON string waits for the next
/// line, which may continue it), end-of-input findings at the finish. It is `Send`, owns all it
/// holds, and works on the caller's thread only: it fits an async task between two reads.
///
/// ```
/// # use sjlint_core as sjlint; // the `sjlint` crate re-exports this API
/// use sjlint::{Item, Options, Stream};
///
/// let mut stream = Stream::new(&Options::new());
/// let mut items: Vec<Item> = Vec::new();
/// // A Claude Code run, arriving in two pieces cut inside a record.
/// let _ = stream.feed(br#"{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[],"cwd":"/w"}
/// {"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","te"#, &mut items);
/// let _ = stream.feed(b"xt\":\"Done.\"}]},\"session_id\":\"s1\"}\n", &mut items);
/// let totals = stream.finish(&mut items);
///
/// assert_eq!(totals.agent, Some("claude"));
/// let kinds: Vec<&str> = items
///     .iter()
///     .filter_map(|i| match i {
///         Item::Event(e) => Some(e.kind()),
///         Item::Finding(_) => None,
///     })
///     .collect();
/// // The run was cut before its result: its `end` says so (outcome `no_result`), and so does
/// // one finding.
/// assert_eq!(kinds, ["session_start", "assistant_text", "end"]);
/// assert!(items.iter().any(|i| matches!(i, Item::Finding(f) if f.rule == "missing-result")));
/// ```
pub struct Stream {
    core: Core<Reading<Fed>>,
}

impl Stream {
    pub fn new(opts: &Options) -> Stream {
        let splitter = Splitter::new(Fed::default(), opts.check.max_record_bytes);
        Stream {
            core: Core::new(splitter, opts),
        }
    }

    /// Checks `bytes`, the next piece of the input, handing `sink` what they make known.
    /// [`ControlFlow::Break`]: the sink stopped the stream (now or before), and later pieces
    /// are not read.
    pub fn feed(&mut self, bytes: &[u8], sink: &mut impl Sink) -> ControlFlow<()> {
        if self.core.done {
            return ControlFlow::Break(());
        }
        self.core
            .splitter
            .source_mut()
            .reader_mut()
            .bytes
            .extend_from_slice(bytes);
        self.pump(sink)
    }

    /// The input ended: checks what is left and hands out the end-of-input findings (a run
    /// cut short, calls never finished). Returns what the input held.
    pub fn finish(mut self, sink: &mut impl Sink) -> Totals {
        if !self.core.done {
            self.core.splitter.source_mut().reader_mut().ended = true;
            let _ = self.pump(sink);
        }
        self.core.totals()
    }

    fn pump(&mut self, sink: &mut impl Sink) -> ControlFlow<()> {
        match self.core.pump(sink) {
            // The fed reader fails with nothing but "more to come".
            Ok(Pumped::Starved | Pumped::Ended) | Err(_) => ControlFlow::Continue(()),
            Ok(Pumped::Stopped) => ControlFlow::Break(()),
        }
    }
}

/// Checks a stream held in memory (split where it lies, with no copy), handing `sink` each
/// finding and event in order. The same as feeding it to a [`Stream`] at once.
///
/// ```
/// # use sjlint_core as sjlint; // the `sjlint` crate re-exports this API
/// let run = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\n";
/// let mut findings: Vec<sjlint::Finding> = Vec::new();
/// let totals = sjlint::check_bytes(run, &sjlint::Options::new(), &mut findings);
/// assert_eq!(totals.records, 1);
/// for f in &findings {
///     println!("line {}: {}[{}] {}", f.line, f.severity, f.rule, f.message);
/// }
/// ```
pub fn check_bytes(bytes: &[u8], opts: &Options, sink: &mut impl Sink) -> Totals {
    let splitter = Splitter::in_place(bytes, opts.check.max_record_bytes);
    let mut core = Core::new(splitter, opts);
    // An input in memory cannot fail to read.
    let _ = core.pump(sink);
    core.totals()
}

/// [`check_bytes`] on `threads` threads, as the command line checks a file (`--jobs`): the
/// records are examined on worker threads and handed to `sink` on the calling thread, in order.
/// The same findings, events and totals as [`check_bytes`], which it is for fewer than two
/// threads.
pub fn check_bytes_on(
    bytes: &[u8],
    threads: usize,
    opts: &Options,
    sink: &mut impl Sink,
) -> Totals {
    if threads < 2 {
        return check_bytes(bytes, opts, sink);
    }
    let mut queue = ToQueue {
        events: sink.wants_events(),
        ..ToQueue::default()
    };
    let emitted = queue.clone();
    let mut stopped = false;
    // Each finding is queued behind the events before it, and what is queued is handed on.
    let mut emit = |d: Diagnostic| -> io::Result<()> {
        emitted.with(|q| q.items.push_back(Pending::Finding(d)));
        if emitted.drain(opts, sink).is_break() {
            stopped = true;
            return Err(io::Error::other("the sink stopped the check"));
        }
        Ok(())
    };
    let mut totals = crate::check::Totals::default();
    let settings = crate::check::pipeline::Settings::new(threads);
    let read = crate::check::pipeline::check_into(
        bytes,
        &opts.check,
        &settings,
        &mut emit,
        &mut queue,
        &mut totals,
    );
    if !stopped {
        // Reading bytes in memory cannot fail: the events after the last finding.
        debug_assert!(read.is_ok());
        let _ = queue.drain(opts, sink);
    }
    Totals {
        records: totals.records,
        bytes: totals.bytes,
        agent: totals.agent.map(Agent::as_str),
    }
}

/// Checks everything `reader` yields, handing `sink` each finding and event in order.
///
/// # Errors
///
/// An I/O error of the reader (a reader that would block is read again); every problem with
/// the bytes is a finding.
pub fn check<R: Read>(reader: R, opts: &Options, sink: &mut impl Sink) -> io::Result<Totals> {
    let splitter = Splitter::new(reader, opts.check.max_record_bytes);
    let mut core = Core::new(splitter, opts);
    loop {
        match core.pump(sink)? {
            // A reader that would block is read again.
            Pumped::Starved => {}
            Pumped::Ended | Pumped::Stopped => return Ok(core.totals()),
        }
    }
}

/// Every event of the stream in the common vocabulary: the lines `sjlint fmt --to common`
/// writes.
pub fn to_common(bytes: &[u8], opts: &Options) -> Vec<Event> {
    struct Events(Vec<Event>);
    impl Sink for Events {
        fn finding(&mut self, _: Finding) -> ControlFlow<()> {
            ControlFlow::Continue(())
        }
        fn event(&mut self, event: Event) -> ControlFlow<()> {
            self.0.push(event);
            ControlFlow::Continue(())
        }
        fn wants_events(&self) -> bool {
            true
        }
    }
    let mut events = Events(Vec::new());
    check_bytes(bytes, opts, &mut events);
    events.0
}

/// One rule of the table (`sjlint rules`).
#[derive(Clone, Copy, Debug, Serialize)]
#[non_exhaustive]
pub struct RuleRow {
    pub name: &'static str,
    pub group: &'static str,
    /// Its default severity.
    pub severity: Severity,
    /// Whether it runs only when asked for (`--select`, `--severity`).
    pub opt_in: bool,
    pub summary: &'static str,
}

/// Every rule, in the order of `sjlint rules`.
pub fn rules() -> impl Iterator<Item = RuleRow> {
    Rule::all().map(|r| {
        let info = r.info();
        RuleRow {
            name: info.name,
            group: info.group.as_str(),
            severity: info.severity,
            opt_in: r.opt_in(),
            summary: info.summary,
        }
    })
}

fn json_string(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    crate::json_out::to_writer(&mut out, value).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("JSON is UTF-8")
}

impl Serialize for Severity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
