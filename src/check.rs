//! Checking one input: splitter → framing rules → classifier → validator, streaming.
//!
//! This module owns the framing rules (what a record's bytes are before they are an event) and
//! the wiring of one input through the pipeline. Every finding goes to the caller's `emit`
//! callback as soon as it is known. It must not open files, print, or decide exit codes: that is
//! the command line's job.
//!
//! It also routes each input to its agent: records go to cursor's classifier and validator, or
//! to the checker of Claude Code, Codex or Gemini CLI (`agents`), once the first record that
//! names an agent is read (records that name none are held until then, a bounded number). The
//! framing rules are the same for every agent.

use crate::agents::{self, Agent, Vote, common};
use crate::diagnostic::Diagnostic;
use crate::event::{self, Dialect, Event, JsonType, Parsed, Shape};
use crate::input::record::{
    BOM_STRIPPED, ENDS_IN_STRING, Frame, JOIN_FAILED, MULTILINE, NO_FINAL_LF, Position, Record,
    UTF8,
};
use crate::input::split::{Source, Splitter};
use crate::preamble::{ANSI_TEXT, PLAIN_TEXT, Preamble, STDERR_HELP};
use crate::rules::{Group, Rule, RuleSet, Severity};
use crate::text::Excerpt;
use crate::validate::Validator;
use bumpalo::Bump;
use std::io::{self, Read, Write};

/// The most the arena of one record's strings keeps for the next record.
const ARENA_KEPT: usize = 1 << 20;

/// Default `--max-record-bytes`: 64 MiB.
pub const DEFAULT_MAX_RECORD_BYTES: usize = 64 << 20;

#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    pub enabled: RuleSet,
    pub max_record_bytes: usize,
    /// `--dialect`: read every record as this dialect; `None` classifies each by its shape.
    pub dialect: Option<Dialect>,
    /// `--agent`: read the input as this agent's stream; `None` recognises it from its first
    /// records (a `--dialect` means cursor).
    pub agent: Option<Agent>,
    /// `--max-open-calls`: tool calls and queries paired at once per session (see `pairing`).
    pub max_open_calls: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            enabled: RuleSet::all(),
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            dialect: None,
            agent: None,
            max_open_calls: crate::pairing::DEFAULT_MAX_OPEN_CALLS,
        }
    }
}

/// What one input held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub records: u64,
    pub bytes: u64,
    /// The agent the input was checked as, once the input ended (`None`: no agent sjlint
    /// knows, an empty input, or a run stopped early).
    pub agent: Option<Agent>,
}

/// What else reads the stream beside the validator (the canonical writer, stats, render, the
/// live status line). Each record reaches it once, after the validator has seen it.
pub trait Consumer {
    /// A record that parsed as an event. `json` is its JSON text: the record's bytes, or their
    /// repaired copy when they held raw control characters inside strings. `ev` borrows from
    /// `json`, or from a copy of it of the same length when `json` holds numbers beyond the f64
    /// range or unpaired surrogate escapes (see [`event::parse_valid`]).
    fn event(&mut self, rec: &Record<'_>, json: &str, ev: &Event<'_>) {
        let _ = (rec, json, ev);
    }

    /// A record that is no event: not JSON, not UTF-8, not an object, or too large (then
    /// `bytes` is empty, since it was never buffered).
    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        let _ = (pos, bytes);
    }

    /// The agent that wrote the input, once it is known (`None`: no agent sjlint knows).
    fn agent(&mut self, agent: Option<Agent>) {
        let _ = agent;
    }

    /// Whether [`Consumer::common`] is wanted: the events of Claude Code, Codex and Gemini CLI
    /// records are mapped into the common vocabulary only then.
    fn wants_common(&self) -> bool {
        false
    }

    /// One event of a Claude Code, Codex or Gemini CLI record, in the common vocabulary (a
    /// record may give several, or none).
    fn common(&mut self, ev: &common::Event<'_>) {
        let _ = ev;
    }

    /// A Claude Code, Codex or Gemini CLI record that its agent's checker read (after its
    /// common events, if any were wanted), with its JSON text.
    fn agent_record(&mut self, rec: &Record<'_>, json: &str) {
        let _ = (rec, json);
    }
}

/// Checking alone.
impl Consumer for () {}

/// Checks everything `reader` yields. Errors are I/O errors of the reader only; every problem
/// with the bytes themselves is a diagnostic.
pub fn check<R: Read>(
    reader: R,
    opts: &CheckOptions,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<Totals> {
    check_with(reader, opts, emit, &mut ())
}

/// [`check`], with every record also passed to `consumer`.
pub fn check_with<R: Read, C: Consumer>(
    reader: R,
    opts: &CheckOptions,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
) -> io::Result<Totals> {
    let mut totals = Totals::default();
    check_into(reader, opts, emit, consumer, &mut totals)?;
    Ok(totals)
}

/// [`check_with`], keeping `totals` up to date as it goes, so that a run stopped by an error
/// (Ctrl-C included) still knows how much it read. End-of-input findings are reported only
/// when the input is read to its end.
pub fn check_into<R: Read, C: Consumer>(
    reader: R,
    opts: &CheckOptions,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let splitter = Splitter::new(reader, opts.max_record_bytes).checking_utf8();
    check_split(splitter, opts, emit, consumer, totals)
}

/// [`check`] of an input that is in memory already, split where it lies.
pub fn check_bytes(
    bytes: &[u8],
    opts: &CheckOptions,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<Totals> {
    let mut totals = Totals::default();
    let splitter = Splitter::in_place(bytes, opts.max_record_bytes).checking_utf8();
    check_split(splitter, opts, emit, &mut (), &mut totals)?;
    Ok(totals)
}

/// [`check_into`], with the frames of `splitter` (which must have been made with
/// `opts.max_record_bytes`).
pub fn check_split<S: Source, C: Consumer>(
    mut splitter: Splitter<S>,
    opts: &CheckOptions,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut Totals,
) -> io::Result<()> {
    let mut stage = InOrder::new(opts, emit, consumer);
    loop {
        let frame = match splitter.next_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(e) => {
                totals.bytes = splitter.bytes_read();
                return Err(stage.stopped(e));
            }
        };
        if let Err(e) = stage.frame(frame, None, totals) {
            totals.bytes = splitter.bytes_read();
            return Err(e);
        }
    }
    totals.bytes = splitter.bytes_read();
    stage.finish(totals)
}

/// The finding for an input that no agent sjlint knows wrote.
#[cold]
fn unknown_agent(pos: Position, ty: &str) -> Diagnostic {
    Diagnostic::new(
        Rule::UnknownAgent,
        pos,
        format!(
            "no agent sjlint knows writes events like this one (`type` {:?}); the stream is not checked beyond its framing",
            Excerpt(ty)
        ),
    )
    .with_help("sjlint knows the streams of cursor-agent, Claude Code, Codex and Gemini CLI; `--agent` reads the input as one of them")
}

/// The `type` of a record, for [`unknown_agent`].
fn unknown_type(bytes: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct T {
        r#type: String,
    }
    serde_json::from_slice::<T>(bytes)
        .map(|t| agents::id_prefix(&t.r#type).to_owned())
        .unwrap_or_default()
}

/// The one finding for an input that is a pretty-printed JSON array.
#[cold]
fn array_diagnostic(pos: Position, records: u64) -> Diagnostic {
    Diagnostic::new(
        Rule::InvalidJson,
        pos,
        format!("the input is one pretty-printed JSON array ({records} lines), not a stream of one JSON event per line"),
    )
    .with_help("events saved as an array are not a stream; `jq -c '.[]'` turns the array into one event per line, which sjlint checks")
}

/// Where the findings of one input go: only enabled rules, and nothing after the first error of
/// the caller's sink.
struct Sink<'e, E> {
    emit: &'e mut E,
    enabled: RuleSet,
    /// The first error of the caller's sink; it stops the run after the current record.
    failed: Option<io::Error>,
}

impl<E: FnMut(Diagnostic) -> io::Result<()>> Sink<'_, E> {
    fn send(&mut self, d: Diagnostic) {
        if self.enabled.contains(d.rule)
            && self.failed.is_none()
            && let Err(e) = (self.emit)(d)
        {
            self.failed = Some(e);
        }
    }
}

/// The stateful half of checking one input: what depends on the records before (the validator,
/// runs of binary records, the totals) and the order of the findings. The one-thread loop
/// ([`check_into`]) and the in-order stage of [`crate::input::pipeline`] both feed it frame by
/// frame, in input order; the pure half of each record ([`examine`]) is done by the caller, or
/// here when the caller has not done it.
pub(crate) struct InOrder<'o, E, C> {
    opts: &'o CheckOptions,
    sink: Sink<'o, E>,
    consumer: &'o mut C,
    validator: Validator,
    /// The repaired copy of a record with raw control characters (reused).
    scratch: Vec<u8>,
    /// The copy [`event::parse_valid`] parses when the strict parse refuses valid JSON (reused).
    lenient: Vec<u8>,
    /// The findings of the current frame, held until it is known whether it belongs to a run of
    /// binary records (reused, so the steady state allocates nothing).
    pending: Vec<Diagnostic>,
    /// The unescaped strings of the current record's event (emptied for each record).
    arena: Bump,
    binary: BinaryRun,
    /// The findings before the first event, held in case the input holds no event at all.
    preamble: Preamble,
    /// Which checker the records go to.
    route: Route,
    /// The frames held while the agent is not known yet.
    held: Held,
    /// A record of another agent was reported in this cursor stream.
    mixed: bool,
}

/// Which checker the records of an input go to.
enum Route {
    /// The agent is not known yet: frames are held (see [`Held`]).
    Undecided,
    /// cursor-agent, in any of its dialects: the classifier of `event` and `validate`.
    Cursor,
    /// Claude Code, Codex or Gemini CLI.
    Agent(agents::Checker),
    /// No agent sjlint knows: reported once; records get the framing rules only.
    Unknown,
    /// The input is one pretty-printed JSON array: reported once, at the end.
    Array(Position),
}

/// How many records are held at most while the agent is not known, and how many bytes.
const HOLD_RECORDS: usize = 16;
const HOLD_BYTES: usize = 1 << 20;

/// Frames held until a record names the agent, replayed in order once it is known.
#[derive(Default)]
struct Held {
    frames: Vec<HeldFrame>,
    bytes: usize,
    records: usize,
    /// The first record whose `type` no agent writes: its position and type (bounded).
    unknown: Option<(Position, String)>,
}

enum HeldFrame {
    Record {
        bytes: Vec<u8>,
        pos: Position,
        lines: u32,
        flags: u8,
    },
    Blank {
        pos: Position,
        bom: bool,
    },
    TooLarge {
        pos: Position,
        len: u64,
        bom: bool,
    },
}

impl HeldFrame {
    fn of(frame: &Frame<'_>) -> HeldFrame {
        match *frame {
            Frame::Record(rec) => HeldFrame::Record {
                bytes: rec.bytes.to_vec(),
                pos: rec.pos,
                lines: rec.lines,
                flags: rec.flags,
            },
            Frame::Blank { pos, bom } => HeldFrame::Blank { pos, bom },
            Frame::TooLarge { pos, len, bom } => HeldFrame::TooLarge { pos, len, bom },
        }
    }

    fn frame(&self) -> Frame<'_> {
        match *self {
            HeldFrame::Record {
                ref bytes,
                pos,
                lines,
                flags,
            } => Frame::Record(Record {
                bytes,
                pos,
                lines,
                flags,
            }),
            HeldFrame::Blank { pos, bom } => Frame::Blank { pos, bom },
            HeldFrame::TooLarge { pos, len, bom } => Frame::TooLarge { pos, len, bom },
        }
    }
}

/// What [`InOrder::hold`] did with a frame.
enum Hold {
    /// Held: the agent is not known yet.
    Kept,
    /// To be checked now, after the held frames.
    CheckNow,
    /// Held, and the agent is now known: the held frames (this one last) are to be checked.
    Flush,
}

/// Whether a record's bytes are the opening bracket of a pretty-printed JSON array.
fn opens_array(bytes: &[u8]) -> bool {
    bytes.trim_ascii() == b"["
}

impl<'o, E: FnMut(Diagnostic) -> io::Result<()>, C: Consumer> InOrder<'o, E, C> {
    pub(crate) fn new(opts: &'o CheckOptions, emit: &'o mut E, consumer: &'o mut C) -> Self {
        InOrder {
            opts,
            sink: Sink {
                emit,
                enabled: opts.enabled,
                failed: None,
            },
            consumer,
            validator: Validator::new(opts.enabled).max_open_calls(opts.max_open_calls),
            scratch: Vec::new(),
            lenient: Vec::new(),
            pending: Vec::new(),
            arena: Bump::new(),
            binary: BinaryRun::default(),
            preamble: Preamble::default(),
            route: Route::Undecided,
            held: Held::default(),
            mixed: false,
        }
        .routed(opts)
    }

    /// The route `--agent` or `--dialect` forces, if any.
    fn routed(mut self, opts: &CheckOptions) -> Self {
        match (opts.agent, opts.dialect) {
            (Some(agent), _) => self.decide(Some(agent)),
            (None, Some(_)) => self.decide(Some(Agent::Cursor)),
            (None, None) => {}
        }
        self
    }

    /// The agent is known (`None`: no agent sjlint knows).
    fn decide(&mut self, agent: Option<Agent>) {
        self.route = match agent {
            None => Route::Unknown,
            Some(a) => agents::Checker::new(a).map_or(Route::Cursor, Route::Agent),
        };
        self.consumer.agent(agent);
    }

    /// Decides when no held record named an agent: no agent when some named a type no agent
    /// writes; cursor otherwise (the input holds no event at all, or only events without a
    /// type, which is how sjlint read every input before it knew other agents).
    fn decide_from_held(&mut self) {
        if let Some((pos, ty)) = self.held.unknown.take() {
            self.decide(None);
            self.pending.push(unknown_agent(pos, &ty));
        } else {
            self.decide(Some(Agent::Cursor));
        }
    }

    /// While the agent is not known: holds `frame`, or finds the agent in it.
    fn hold(&mut self, frame: &Frame<'_>) -> Hold {
        let rec = match frame {
            Frame::Record(rec) => rec,
            _ if self.held.frames.is_empty() => return Hold::CheckNow,
            _ => {
                self.held.frames.push(HeldFrame::of(frame));
                return Hold::Kept;
            }
        };
        if self.held.records == 0 && rec.pos.record == 1 && opens_array(rec.bytes) {
            self.route = Route::Array(rec.pos);
            return Hold::CheckNow;
        }
        self.arena.reset();
        let vote = if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) {
            Vote::None
        } else {
            match known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()) {
                Some(text) => agents::vote(text, &self.arena),
                None => Vote::None,
            }
        };
        match vote {
            Vote::Strong(agent) => {
                self.decide(Some(agent));
                return Hold::CheckNow;
            }
            // A shape several agents share names the likeliest at once: a live stream's
            // findings must not wait for the records after it.
            Vote::Weak(agent) => {
                self.decide(Some(agent));
                return Hold::CheckNow;
            }
            Vote::Unknown if self.held.unknown.is_none() => {
                let ty = unknown_type(rec.bytes);
                self.held.unknown = Some((rec.pos, ty));
            }
            Vote::Unknown | Vote::None => {}
        }
        self.held.frames.push(HeldFrame::of(frame));
        self.held.records += 1;
        self.held.bytes += rec.bytes.len();
        if self.held.records >= HOLD_RECORDS || self.held.bytes >= HOLD_BYTES {
            self.decide_from_held();
            return Hold::Flush;
        }
        Hold::Kept
    }

    /// Checks the held frames, in order, with the route now known.
    fn replay(&mut self, totals: &mut Totals) -> io::Result<()> {
        let held = std::mem::take(&mut self.held);
        for f in &held.frames {
            self.routed_frame(f.frame(), None, totals, true)?;
        }
        Ok(())
    }

    /// The next frame of the input. `examined` is the pure half of a record when the caller has
    /// done it already. An error is the first error of the caller's sink: the run stops.
    pub(crate) fn frame(
        &mut self,
        frame: Frame<'_>,
        examined: Option<(&Examined<'_>, &Event<'_>)>,
        totals: &mut Totals,
    ) -> io::Result<()> {
        if let Route::Undecided = self.route {
            let hold = self.hold(&frame);
            // A finding of the decision itself (no agent known) comes first.
            for d in self.pending.drain(..) {
                self.sink.send(d);
            }
            // A held record counts as read now, so that a run stopped before the agent is known
            // still says how much it read.
            if matches!(hold, Hold::Kept | Hold::Flush) && !matches!(frame, Frame::Blank { .. }) {
                totals.records += 1;
            }
            match hold {
                Hold::Kept => return Ok(()),
                Hold::Flush => return self.replay(totals),
                Hold::CheckNow if self.held.frames.is_empty() => {}
                Hold::CheckNow => {
                    // What another thread examined was read as cursor's: read it again.
                    self.replay(totals)?;
                    return self.routed_frame(frame, None, totals, false);
                }
            }
        }
        self.routed_frame(frame, examined, totals, false)
    }

    /// `counted`: the frame was held, and counted as read then.
    fn routed_frame(
        &mut self,
        frame: Frame<'_>,
        examined: Option<(&Examined<'_>, &Event<'_>)>,
        totals: &mut Totals,
        counted: bool,
    ) -> io::Result<()> {
        let opts = self.opts;
        let count = u64::from(!counted);
        if let Route::Array(_) = self.route {
            if !matches!(frame, Frame::Blank { .. }) {
                totals.records += count;
            }
            return Ok(());
        }
        self.pending.clear();
        self.arena.reset();
        // What one large record made large is not kept.
        if self.arena.allocated_bytes() > ARENA_KEPT {
            self.arena = Bump::new();
        }
        let events = self.validator.events();
        let blank = matches!(frame, Frame::Blank { .. });
        for buf in [&mut self.scratch, &mut self.lenient] {
            if buf.capacity() > ARENA_KEPT {
                *buf = Vec::new();
            }
        }
        let pending = &mut self.pending;
        let mut hold = |d: Diagnostic| pending.push(d);
        match frame {
            Frame::Blank { pos, bom } => {
                if bom {
                    hold(bom_diagnostic(pos));
                }
                hold(Diagnostic::new(
                    Rule::BlankLine,
                    pos,
                    "blank line between records",
                ));
                self.binary.other_frame(&mut self.pending, opts.enabled);
            }
            Frame::TooLarge { pos, len, bom } => {
                totals.records += count;
                if bom {
                    hold(bom_diagnostic(pos));
                }
                if let Route::Cursor = self.route {
                    self.validator.on_record(&mut hold);
                    self.validator.on_unreadable(pos.line);
                }
                self.consumer.invalid(pos, &[]);
                hold(
                    Diagnostic::new(
                        Rule::RecordTooLarge,
                        pos,
                        format!(
                            "record of {len} bytes is larger than --max-record-bytes ({}); skipped",
                            opts.max_record_bytes
                        ),
                    )
                    .with_help("raise --max-record-bytes to check it"),
                );
                self.binary.other_frame(&mut self.pending, opts.enabled);
            }
            Frame::Record(rec) => {
                totals.records += count;
                if rec.has(BOM_STRIPPED) {
                    hold(bom_diagnostic(rec.pos));
                }
                match &mut self.route {
                    Route::Agent(checker) => agent_record(
                        &rec,
                        examined.map(|(e, _)| e),
                        opts.dialect,
                        checker,
                        &self.arena,
                        &mut self.scratch,
                        &mut self.lenient,
                        &mut hold,
                        &mut *self.consumer,
                    ),
                    route => {
                        let mut check = match route {
                            Route::Unknown => Check::Nothing,
                            _ => {
                                self.validator.on_record(&mut hold);
                                Check::Cursor(&mut self.validator, &mut self.mixed)
                            }
                        };
                        let (here, mut slot);
                        let examined = match examined {
                            Some(examined) => examined,
                            None => {
                                slot = Event::default();
                                here = examine(&rec, opts.dialect, &mut slot, &self.arena);
                                (&here, &slot)
                            }
                        };
                        record(
                            &rec,
                            examined,
                            opts.dialect,
                            &mut check,
                            &mut self.scratch,
                            &mut self.lenient,
                            &mut hold,
                            &mut *self.consumer,
                        );
                    }
                }
                if let Some(summary) = self.binary.record(&rec, &mut self.pending, opts.enabled) {
                    self.sink.send(summary);
                }
            }
        }
        if self.preamble.active()
            && (self.validator.events() > events || !self.preamble.take(&mut self.pending, blank))
        {
            let sink = &mut self.sink;
            self.preamble.end(&mut |d| sink.send(d));
        }
        for d in self.pending.drain(..) {
            self.sink.send(d);
        }
        match self.sink.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Reading stopped with `e` (an I/O error, Ctrl-C): what a run of binary records counted so
    /// far is still reported. End-of-input findings are not: the input did not end. Returns the
    /// error the run ends with.
    pub(crate) fn stopped(mut self, e: io::Error) -> io::Error {
        if !self.held.frames.is_empty() {
            self.decide_from_held();
            for d in self.pending.drain(..) {
                self.sink.send(d);
            }
            let mut totals = Totals::default();
            let _ = self.replay(&mut totals);
        }
        let sink = &mut self.sink;
        self.preamble.end(&mut |d| sink.send(d));
        if let Some(summary) = self.binary.end() {
            self.sink.send(summary);
        }
        self.sink.failed.take().unwrap_or(e)
    }

    /// The input ended: the end-of-input findings.
    pub(crate) fn finish(mut self, totals: &mut Totals) -> io::Result<()> {
        if !self.held.frames.is_empty() {
            self.decide_from_held();
            for d in self.pending.drain(..) {
                self.sink.send(d);
            }
            self.replay(totals)?;
        }
        if let Route::Array(pos) = self.route {
            self.sink.send(array_diagnostic(pos, totals.records));
            return match self.sink.failed.take() {
                Some(e) => Err(e),
                None => Ok(()),
            };
        }
        if let Some(summary) = self.binary.end() {
            self.sink.send(summary);
        }
        let sink = &mut self.sink;
        let headline = sink.enabled.contains(Rule::EmptyStream);
        self.preamble.finish(headline, &mut |d| sink.send(d));
        if totals.records == 0 {
            self.sink.send(Diagnostic::new(
                Rule::EmptyStream,
                Position {
                    byte: 0,
                    // An empty input has no line to point at.
                    line: u64::from(totals.bytes > 0),
                    record: 0,
                },
                if totals.bytes == 0 {
                    "the input is empty"
                } else {
                    "the input holds no record, only blank lines"
                },
            )
            .with_help("an agent that fails before its first event writes nothing to stdout and its error to stderr"));
        }
        totals.agent = match &self.route {
            Route::Agent(checker) => Some(checker.agent()),
            Route::Cursor => Some(Agent::Cursor),
            Route::Undecided | Route::Unknown | Route::Array(_) => None,
        };
        let sink = &mut self.sink;
        match &mut self.route {
            Route::Agent(checker) => checker.finish(&mut |d| sink.send(d)),
            Route::Unknown | Route::Array(_) => {}
            Route::Undecided | Route::Cursor => self.validator.finish(&mut |d| sink.send(d)),
        }
        match self.sink.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// How many records of a run of binary-looking records are reported one by one.
pub const BINARY_SHOWN: u64 = 3;

/// A run of consecutive records that look like binary data, so that a binary file does not
/// bury the output under one finding per line. The first [`BINARY_SHOWN`] records of a run are
/// reported as usual, the last of them with a note; from then on the framing findings of the
/// run's records (and of the blank and too-large lines among them) are counted by rule instead,
/// and one finding sums them up where the run ends: at the next record that does not look
/// binary, or at the end of the input. Nothing is dropped silently, and findings of other groups
/// are never held back.
#[derive(Default)]
struct BinaryRun {
    /// Binary-looking records in a row so far.
    records: u64,
    /// The first record whose findings were counted.
    first: Option<Position>,
    /// The physical line of the last frame whose findings were counted.
    last_line: u64,
    /// Records whose findings were counted.
    counted: u64,
    /// Counted findings by rule, in the order the rules were first met.
    counts: Vec<(Rule, u64)>,
}

impl BinaryRun {
    fn counting(&self) -> bool {
        self.records > BINARY_SHOWN
    }

    /// Takes the framing findings of `held` into the count.
    fn count(&mut self, line: u64, held: &mut Vec<Diagnostic>, enabled: RuleSet) {
        self.last_line = line;
        held.retain(|d| {
            if d.rule.group() != Group::Framing {
                return true;
            }
            if enabled.contains(d.rule) {
                match self.counts.iter_mut().find(|(r, _)| *r == d.rule) {
                    Some((_, n)) => *n += 1,
                    None => self.counts.push((d.rule, 1)),
                }
            }
            false
        });
    }

    /// A blank or too-large line: counted while the run is being counted, and never a reason to
    /// start or end a run.
    fn other_frame(&mut self, held: &mut Vec<Diagnostic>, enabled: RuleSet) {
        if self.counting()
            && let Some(line) = held.first().map(|d| d.line)
        {
            self.count(line, held, enabled);
        }
    }

    /// A record and its findings. Returns the summary of a run that this record ends.
    fn record(
        &mut self,
        rec: &Record<'_>,
        held: &mut Vec<Diagnostic>,
        enabled: RuleSet,
    ) -> Option<Diagnostic> {
        let failed = held
            .iter()
            .any(|d| d.rule.group() == Group::Framing && d.severity == Severity::Error);
        // A run starts at a record that clearly looks binary, and goes on through failed
        // records that hold any byte a text stream does not, or are too short to tell (binary
        // data cut at its LF bytes gives lines of every length).
        let odd = if failed { odd_bytes(rec.bytes) } else { 0 };
        let binary = failed
            && if self.records == 0 {
                odd >= 8 && odd * 8 >= rec.bytes.len()
            } else {
                odd > 0 || rec.bytes.len() < 16
            };
        if !binary {
            return self.end();
        }
        self.records += 1;
        if self.counting() {
            self.first.get_or_insert(rec.pos);
            self.counted += 1;
            self.count(rec.pos.line, held, enabled);
        } else if self.records == BINARY_SHOWN
            && let Some(d) = held.iter_mut().find(|d| d.rule.group() == Group::Framing)
        {
            d.help = Some(format!(
                "{} records in a row look binary: the framing findings of the next ones like them are counted and summed up in one finding where the run ends",
                BINARY_SHOWN
            ));
        }
        None
    }

    /// Ends the run; the summary finding when findings were counted.
    fn end(&mut self) -> Option<Diagnostic> {
        if self.records == 0 {
            return None;
        }
        let run = std::mem::take(self);
        let first = run.first?;
        let (rule, _) = *run
            .counts
            .iter()
            .max_by_key(|(r, n)| (r.severity() == Severity::Error, *n))?;
        let tally: Vec<String> = run
            .counts
            .iter()
            .map(|(r, n)| format!("{n} {}", r.name()))
            .collect();
        let lines = if run.last_line > first.line {
            format!("lines {}-{}", first.line, run.last_line)
        } else {
            format!("line {}", first.line)
        };
        let records = if run.counted == 1 {
            "record"
        } else {
            "records"
        };
        Some(
            Diagnostic::new(
                rule,
                first,
                format!(
                    "{} more {records} on {lines} look binary; their framing findings, not shown one by one: {}",
                    run.counted,
                    tally.join(", ")
                ),
            )
            .with_help("the input looks like binary data, not a text stream of JSON events: was a binary file, a core dump or a UTF-16 file mixed in?"),
        )
    }
}

/// How many bytes of a failed record no text stream holds: bytes that are not UTF-8, DEL, and
/// C0 controls other than TAB, LF, CR, form feed, ESC (colour codes) and RS (JSON text
/// sequences). A short record with a stray byte (a Latin-1 letter, a conformance case) never
/// starts a run of binary records.
#[cold]
fn odd_bytes(bytes: &[u8]) -> usize {
    let mut odd = 0;
    for chunk in bytes.utf8_chunks() {
        odd += chunk.invalid().len();
        odd += chunk
            .valid()
            .bytes()
            .filter(|&b| {
                (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b | 0x1e)) || b == 0x7f
            })
            .count();
    }
    odd
}

fn bom_diagnostic(pos: Position) -> Diagnostic {
    let mut d = Diagnostic::new(
        Rule::ByteOrderMark,
        pos,
        if pos.byte <= 3 {
            "UTF-8 byte-order mark at the start of the input; stripped"
        } else {
            "UTF-8 byte-order mark at the start of a line (were files concatenated?); stripped"
        },
    );
    d.byte = pos.byte.saturating_sub(3);
    d.column = Some(1);
    d
}

/// The pure half of a record: what can be known about it without the records before it, so
/// that it can be worked out on another thread. Borrows the record's bytes.
#[derive(Debug)]
pub(crate) enum Examined<'a> {
    /// Valid UTF-8 that parsed at the first attempt: the text and its shape. The event view of
    /// an object is in the slot [`examine`] was given.
    Parsed(&'a str, Shape),
    /// Anything else: a record the splitter flagged as cut off, bytes that are not UTF-8, text
    /// the strict parse refuses (not JSON, raw control characters, numbers beyond the f64
    /// range, unpaired surrogates). Rare, and redone in order by [`slow_record`], which needs
    /// scratch space that outlives the record.
    SlowPath,
}

/// The pure half of [`record`]: UTF-8 validation and the strict parse, whose event view goes
/// to `ev` (a default event) and its unescaped strings to `arena`, so that nothing is
/// allocated.
pub(crate) fn examine<'a>(
    rec: &Record<'a>,
    dialect: Option<Dialect>,
    ev: &mut Event<'a>,
    arena: &'a Bump,
) -> Examined<'a> {
    if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) {
        return Examined::SlowPath;
    }
    let Some(text) = known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()) else {
        return Examined::SlowPath;
    };
    match event::parse_into(text, dialect, ev, arena) {
        Ok(shape) => Examined::Parsed(text, shape),
        Err(_) => Examined::SlowPath,
    }
}

/// The record's text, when the splitter has found its bytes to be UTF-8 already.
fn known_text<'a>(rec: &Record<'a>) -> Option<&'a str> {
    if !rec.has(UTF8) {
        return None;
    }
    debug_assert!(std::str::from_utf8(rec.bytes).is_ok(), "{rec:?}");
    // SAFETY: the flag is set by the splitter only (a `Record` reaches this module from a
    // `Splitter`, directly or copied into a pipeline batch with its flags), and only on bytes it
    // has validated as UTF-8 (`Splitter::check_utf8`).
    Some(unsafe { std::str::from_utf8_unchecked(rec.bytes) })
}

/// Where a record that parsed goes: cursor's validator (with the flag that a record of another
/// agent was reported), an agent's checker, or nowhere (no agent sjlint knows).
enum Check<'c> {
    Cursor(&'c mut Validator, &'c mut bool),
    Agent(&'c mut agents::Checker, &'c Bump),
    /// Not checked (no agent sjlint knows); the consumer still gets the event.
    Nothing,
}

/// One record through the framing rules, the classifier and the validator, given its pure
/// half.
#[allow(clippy::too_many_arguments)]
fn record(
    rec: &Record<'_>,
    (examined, ev): (&Examined<'_>, &Event<'_>),
    dialect: Option<Dialect>,
    check: &mut Check<'_>,
    scratch: &mut Vec<u8>,
    lenient: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let (text, view) = match *examined {
        Examined::Parsed(text, Shape::Object) => (text, View::Event(ev)),
        Examined::Parsed(text, Shape::Other(t)) => (text, View::NotAnObject(t)),
        Examined::SlowPath => {
            return slow_record(rec, dialect, check, scratch, lenient, emit, consumer);
        }
    };
    classified(rec, rec.bytes, text, view, check, emit, consumer)
}

/// A record of a Claude Code, Codex or Gemini CLI stream: its agent's checker reads it, and
/// cursor's classifier only when the record is not plain valid JSON (the slow path).
#[allow(clippy::too_many_arguments)]
fn agent_record(
    rec: &Record<'_>,
    examined: Option<&Examined<'_>>,
    dialect: Option<Dialect>,
    checker: &mut agents::Checker,
    arena: &Bump,
    scratch: &mut Vec<u8>,
    lenient: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let text = match examined {
        Some(Examined::Parsed(text, _)) => Some(*text),
        Some(Examined::SlowPath) => None,
        None if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) => None,
        None => known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()),
    };
    if let Some(text) = text
        && agent_event(rec, rec.bytes, text, checker, arena, emit, consumer)
    {
        return;
    }
    let mut check = Check::Agent(checker, arena);
    slow_record(rec, dialect, &mut check, scratch, lenient, emit, consumer)
}

/// An agent's record whose text is `json`; false when it does not parse.
fn agent_event(
    rec: &Record<'_>,
    bytes: &[u8],
    json: &str,
    checker: &mut agents::Checker,
    arena: &Bump,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) -> bool {
    let parsed = if consumer.wants_common() {
        let mut sink = |ev: &common::Event<'_>| consumer.common(ev);
        checker.record(rec.pos, bytes, json, arena, emit, Some(&mut sink))
    } else {
        checker.record(rec.pos, bytes, json, arena, emit, None)
    };
    match parsed {
        Ok(None) => {
            consumer.agent_record(rec, json);
            true
        }
        Ok(Some(t)) => {
            consumer.invalid(rec.pos, bytes);
            emit(not_an_object(rec, bytes, t));
            true
        }
        Err(_) => false,
    }
}

#[cold]
fn not_an_object(rec: &Record<'_>, bytes: &[u8], t: JsonType) -> Diagnostic {
    Diagnostic::new(
        Rule::NotAnObject,
        rec.pos,
        format!("the record is {}, not a JSON object", t.as_str()),
    )
    .with_help("every record of the stream is one event object")
    .with_snippet(bytes)
}

/// What a record that parsed is: its event view, or the type of a value that is not an
/// object.
enum View<'e, 'a> {
    Event(&'e Event<'a>),
    NotAnObject(JsonType),
}

impl<'e, 'a> From<&'e Parsed<'a>> for View<'e, 'a> {
    fn from(parsed: &'e Parsed<'a>) -> Self {
        match parsed {
            Parsed::Event(ev) => View::Event(ev),
            &Parsed::NotAnObject(t) => View::NotAnObject(t),
        }
    }
}

/// A record whose pure half found it [`Examined::SlowPath`]: every check again, with the repairs
/// and the lenient parse that need scratch space.
#[cold]
fn slow_record(
    rec: &Record<'_>,
    dialect: Option<Dialect>,
    check: &mut Check<'_>,
    scratch: &mut Vec<u8>,
    lenient: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let bytes = rec.bytes;
    if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) {
        unreadable(check, rec);
        consumer.invalid(rec.pos, bytes);
        let open = string_opening(bytes);
        let d = if rec.has(ENDS_IN_STRING) {
            Diagnostic::new(
                Rule::TruncatedRecord,
                rec.pos,
                "the input ends inside a string that opens here; the record was cut off",
            )
        } else {
            Diagnostic::new(
                Rule::InvalidJson,
                rec.pos,
                "a string opened on this line is never closed, and the next line does not continue it",
            )
            .with_help("the record was cut off mid-string; the following lines are checked as records of their own")
        };
        emit(d.at(bytes, open..open + 1));
        return;
    }
    // SIMD validation first; std's decoder only runs to locate the error (cold).
    let valid = simdutf8::basic::from_utf8(bytes)
        .map_err(|_| std::str::from_utf8(bytes).expect_err("both validators reject it"));
    let text = match valid {
        Ok(text) => text,
        Err(e) => {
            unreadable(check, rec);
            consumer.invalid(rec.pos, bytes);
            emit(utf8_diagnostic(rec, e));
            return;
        }
    };
    match event::parse_valid(text, dialect, lenient) {
        Ok(parsed) => classified(rec, bytes, text, (&parsed).into(), check, emit, consumer),
        Err(e) if is_control_char_error(&e) => {
            let first = repair(bytes, scratch);
            let what = control_name(bytes[first]);
            let spans = if rec.has(MULTILINE) {
                format!("; the record spans {} physical lines", rec.lines)
            } else {
                String::new()
            };
            // Escaping keeps UTF-8 valid, so this fails only when `bytes` changed while they were
            // copied (a mapped file truncated meanwhile, `input::mapped`): the error stands.
            let Ok(repaired) = std::str::from_utf8(scratch) else {
                unreadable(check, rec);
                consumer.invalid(rec.pos, bytes);
                emit(json_diagnostic(rec, bytes, &e));
                return;
            };
            match event::parse_valid(repaired, dialect, lenient) {
                Ok(parsed) => {
                    emit(
                        Diagnostic::new(
                            Rule::RawControlCharacter,
                            rec.pos,
                            format!("raw {what} inside a string{spans}; repaired as an escape"),
                        )
                        .with_help("JSON strings must escape control characters; a reader that splits on newlines breaks this record apart")
                        .at(bytes, first..first + 1),
                    );
                    // Fields are located in the original bytes, so columns and snippets name the
                    // physical line the user sees.
                    let view = (&parsed).into();
                    classified(rec, bytes, repaired, view, check, emit, consumer);
                }
                Err(e) => {
                    unreadable(check, rec);
                    consumer.invalid(rec.pos, bytes);
                    emit(json_diagnostic(rec, scratch, &e))
                }
            }
        }
        Err(e) => {
            unreadable(check, rec);
            consumer.invalid(rec.pos, bytes);
            emit(json_diagnostic(rec, bytes, &e))
        }
    }
}

/// A record that may have been an event (it opens an object) could not be read: what its
/// absence would cause is not reported as well.
#[cold]
fn unreadable(check: &mut Check<'_>, rec: &Record<'_>) {
    if let Check::Cursor(validator, _) = check
        && rec.bytes.trim_ascii_start().first() == Some(&b'{')
    {
        validator.on_unreadable(rec.pos.line);
    }
}

/// `bytes` are the record's own bytes (for columns and snippets), `json` the text parsed.
fn classified(
    rec: &Record<'_>,
    bytes: &[u8],
    json: &str,
    view: View<'_, '_>,
    check: &mut Check<'_>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    match view {
        View::Event(ev) => match check {
            Check::Cursor(validator, mixed) => {
                if let Some(other) = foreign_to_cursor(ev) {
                    if !**mixed {
                        **mixed = true;
                        let ty = ev.ty.as_str().unwrap_or_default();
                        emit(agents::mixed(rec.pos, Agent::Cursor, other, ty));
                    }
                    return;
                }
                validator.check(rec, bytes, ev, emit);
                consumer.event(rec, json, ev);
            }
            Check::Agent(checker, arena) => {
                if !agent_event(rec, bytes, json, checker, arena, emit, consumer) {
                    // Valid JSON that cursor's classifier reads (numbers beyond the f64 range,
                    // unpaired surrogates) but the agent's view does not.
                    consumer.invalid(rec.pos, bytes);
                    emit(
                        Diagnostic::new(
                            Rule::InvalidJson,
                            rec.pos,
                            "the record holds JSON this agent's events never hold",
                        )
                        .with_snippet(bytes),
                    );
                }
            }
            // No agent sjlint knows: nothing is checked, and `stats` and `render` still see
            // what the records are.
            Check::Nothing => consumer.event(rec, json, ev),
        },
        View::NotAnObject(t) => {
            consumer.invalid(rec.pos, bytes);
            emit(not_an_object(rec, bytes, t))
        }
    }
}

/// The agent a record of a cursor stream belongs to when its type is another agent's only.
/// Cursor's own types are let through first, so a cursor record costs one comparison or two.
#[inline]
fn foreign_to_cursor(ev: &Event<'_>) -> Option<Agent> {
    match ev.ty.as_str()? {
        "tool_call" | "assistant" | "thinking" | "user" | "system" | "result"
        | "interaction_query" => None,
        ty => agents::foreign(ty, Agent::Cursor),
    }
}

fn is_control_char_error(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("control character")
}

/// Where a byte stands relative to JSON strings, as [`repair`] reads the record.
#[derive(Default)]
struct Strings {
    in_string: bool,
    escaped: bool,
}

impl Strings {
    /// Advances over `b`; true when `b` is a raw control byte inside a string, which `repair`
    /// escapes.
    fn raw_control(&mut self, b: u8) -> bool {
        if self.in_string && b < 0x20 {
            // A backslash right before a raw control byte pairs with the backslash of the
            // inserted escape, so the repaired value keeps a literal backslash: still one
            // record, and the warning says it was repaired.
            self.escaped = false;
            return true;
        }
        if self.escaped {
            self.escaped = false;
        } else if self.in_string && b == b'\\' {
            self.escaped = true;
        } else if b == b'"' {
            self.in_string = !self.in_string;
        }
        false
    }
}

/// Copies `bytes` into `out` with every raw control byte inside a string escaped; returns the
/// offset of the first one.
fn repair(bytes: &[u8], out: &mut Vec<u8>) -> usize {
    out.clear();
    // The exact size first: an escape takes up to 6 bytes, and letting the copy grow by
    // doubling would hold up to twice what it needs.
    let mut strings = Strings::default();
    let extra: usize = bytes
        .iter()
        .map(|&b| match (strings.raw_control(b), b) {
            (false, _) => 0,
            (true, b'\n' | b'\r' | b'\t') => 1,
            (true, _) => 5,
        })
        .sum();
    out.reserve_exact(bytes.len() + extra);
    let mut first = None;
    let mut strings = Strings::default();
    for (i, &b) in bytes.iter().enumerate() {
        if strings.raw_control(b) {
            first.get_or_insert(i);
            match b {
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => {
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[(b >> 4) as usize]);
                    out.push(HEX[(b & 15) as usize]);
                }
            }
        } else {
            out.push(b);
        }
    }
    first.unwrap_or(0)
}

/// The offset in the record's own `bytes` of `at`, an offset in their [`repair`]ed copy.
fn unrepaired_offset(bytes: &[u8], at: usize) -> usize {
    let mut strings = Strings::default();
    let mut repaired = 0;
    for (i, &b) in bytes.iter().enumerate() {
        repaired += match (strings.raw_control(b), b) {
            (false, _) => 1,
            (true, b'\n' | b'\r' | b'\t') => 2,
            (true, _) => 6,
        };
        if repaired > at {
            return i;
        }
    }
    bytes.len()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn control_name(b: u8) -> String {
    match b {
        b'\n' => "newline (U+000A)".to_owned(),
        b'\r' => "carriage return (U+000D)".to_owned(),
        b'\t' => "tab (U+0009)".to_owned(),
        0x1b => "escape character (U+001B)".to_owned(),
        _ => format!("control character U+{:04X}", b),
    }
}

/// The offset of the quote that opens the string still open at the end of `bytes`.
fn string_opening(bytes: &[u8]) -> usize {
    open_string(bytes).unwrap_or(0)
}

/// The offset of the quote that opens a string still open at the end of `bytes`, if any.
fn open_string(bytes: &[u8]) -> Option<usize> {
    let mut open = None;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if in_string && b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            in_string = !in_string;
            open = in_string.then_some(i);
        }
    }
    open
}

#[cold]
fn utf8_diagnostic(rec: &Record<'_>, e: std::str::Utf8Error) -> Diagnostic {
    let at = e.valid_up_to();
    let len = e.error_len().unwrap_or(rec.bytes.len() - at).max(1);
    let bad = &rec.bytes[at..(at + len).min(rec.bytes.len())];
    let hex: Vec<String> = bad.iter().map(|b| format!("0x{b:02X}")).collect();
    let what = if e.error_len().is_none() {
        "a UTF-8 sequence cut off at the end of the record"
    } else {
        "bytes that are not UTF-8"
    };
    Diagnostic::new(
        Rule::InvalidUtf8,
        rec.pos,
        format!("{what}: {} at byte {} of the record", hex.join(" "), at),
    )
    .with_help("the stream must be UTF-8; was a Latin-1 or binary file mixed in?")
    .at(rec.bytes, at..at + bad.len())
}

/// `invalid-json` (or `truncated-record` when the final record stops early) with what is wrong
/// and where, plus a hint for the usual causes.
///
/// `parsed` is the text serde_json was given: the record's bytes, or their repaired copy, in
/// which case the position is mapped back to the record's own bytes.
#[cold]
fn json_diagnostic(rec: &Record<'_>, parsed: &[u8], e: &serde_json::Error) -> Diagnostic {
    let msg = e.to_string();
    let msg = msg.rfind(" at line ").map_or(&msg[..], |i| &msg[..i]);
    // serde_json counts lines and byte columns from 1 within the text it was given.
    let mut offset = 0usize;
    for _ in 1..e.line() {
        match memchr::memchr(b'\n', &parsed[offset..]) {
            Some(i) => offset += i + 1,
            None => break,
        }
    }
    let offset = (offset + e.column().saturating_sub(1)).min(parsed.len());
    let bytes = rec.bytes;
    let offset = if parsed.len() == bytes.len() {
        offset
    } else {
        unrepaired_offset(bytes, offset)
    };
    if e.is_eof() && rec.has(NO_FINAL_LF) {
        return Diagnostic::new(
            Rule::TruncatedRecord,
            rec.pos,
            "the input ends in the middle of this record",
        )
        .with_help("the producer was killed or the capture was cut off")
        .at(bytes, offset..offset);
    }
    let first = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    let start = first.unwrap_or(0);
    let trimmed = &bytes[start..];
    let mut span = offset..offset + 1;
    let (message, help): (String, Option<&str>) = if let Some(nul) =
        memchr::memchr(0, bytes).filter(|&nul| bytes.get(offset) == Some(&0) || Some(nul) == first)
    {
        span = nul..nul + 1;
        // UTF-16 text of mostly ASCII characters: one NUL in every pair of bytes.
        let pairs = bytes.chunks_exact(2);
        let half_nul = pairs.len() > 0
            && pairs.clone().filter(|p| (p[0] == 0) != (p[1] == 0)).count() * 5 >= pairs.len() * 4;
        (
            format!("NUL byte (0x00) at byte {nul} of the record"),
            Some(if half_nul {
                "every other byte is NUL: this looks like UTF-16 text, and sjlint reads UTF-8"
            } else {
                "NUL bytes come from binary data, or from a file that was preallocated or padded when its writer crashed"
            }),
        )
    } else if bytes.contains(&0x1b) && !matches!(trimmed.first(), Some(b'{' | b'[')) {
        span = start..start + 1;
        (
            ANSI_TEXT.to_owned(),
            Some("stderr seems to be merged into stdout (2>&1); keep the agent's stderr apart"),
        )
    } else if trimmed.first() == Some(&0x1e) {
        span = start..start + 1;
        (
            "the record starts with an RS (0x1E) byte".to_owned(),
            Some(
                "this looks like RFC 7464 JSON text sequences; sjlint reads newline-delimited JSON",
            ),
        )
    } else if let Some(word) = non_finite_at(bytes, offset) {
        span = word.clone();
        (
            format!(
                "`{}` is not a JSON value: NaN and Infinity are not JSON numbers",
                String::from_utf8_lossy(&bytes[word])
            ),
            Some("write non-finite numbers as null or as strings"),
        )
    } else if looks_like_text(trimmed) {
        // The whole first character, so the snippet never cuts a UTF-8 sequence.
        let len = match trimmed.first() {
            Some(&b) if b >= 0xF0 => 4,
            Some(&b) if b >= 0xE0 => 3,
            Some(&b) if b >= 0xC0 => 2,
            _ => 1,
        };
        span = start..(start + len).min(bytes.len());
        (PLAIN_TEXT.to_owned(), Some(STDERR_HELP))
    } else if msg.starts_with("trailing characters") {
        let rest = &bytes[offset..];
        let gap = bytes[..offset]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r'))
            .map_or(&bytes[..offset], |i| &bytes[i + 1..offset]);
        if gap.contains(&b'\r') && matches!(rest.first(), Some(b'{' | b'[')) {
            (
                format!(
                    "{} JSON values on one line, separated by bare CR (0x0D) bytes: the stream uses CR line endings",
                    1 + bare_cr_separators(bytes)
                ),
                Some(
                    "sjlint ends records at LF (or CRLF); convert the line endings first, e.g. with `tr '\\r' '\\n'`",
                ),
            )
        } else if rest.starts_with(&[0xEF, 0xBB, 0xBF]) {
            span = offset..offset + 3;
            (
                "a UTF-8 byte-order mark after the JSON value".to_owned(),
                Some(
                    "were two files concatenated, the first without a final newline? The second file's BOM ended up inside this line",
                ),
            )
        } else if matches!(rest.first(), Some(b'{' | b'[')) {
            (
                "two JSON values on one line".to_owned(),
                Some("each event must end with a newline; two writers may be interleaving"),
            )
        } else {
            (
                format!("trailing data after the JSON value{}", found(bytes, offset)),
                None,
            )
        }
    } else if msg.starts_with("recursion limit exceeded") {
        (
            "nesting is deeper than 128 levels".to_owned(),
            Some("no event of the stream nests this deep; the record is probably corrupt"),
        )
    } else if let Some(open) = open_string(bytes).filter(|_| e.is_eof()) {
        span = open..open + 1;
        (
            "a string opened here is never closed".to_owned(),
            Some(
                "the record was cut off mid-string; the lines after it are checked as records of their own",
            ),
        )
    } else if e.is_eof() {
        (format!("the record ends early: {msg}"), None)
    } else {
        (format!("{msg}{}", found(bytes, offset)), None)
    };
    let mut d = Diagnostic::new(Rule::InvalidJson, rec.pos, message).at(bytes, span);
    if let Some(help) = help {
        d = d.with_help(help);
    }
    d
}

/// `, found byte 0x0C` or `, found U+00A0` when the byte at `offset` is one a reader cannot see
/// in a snippet: a control character or a non-ASCII character.
fn found(bytes: &[u8], offset: usize) -> String {
    match bytes.get(offset) {
        Some(&b) if b < 0x20 || b == 0x7f => format!(", found byte 0x{b:02X}"),
        Some(&b) if b >= 0x80 => String::from_utf8_lossy(&bytes[offset..])
            .chars()
            .next()
            .map_or_else(String::new, |c| format!(", found U+{:04X}", u32::from(c))),
        _ => String::new(),
    }
}

/// The span of `NaN`, `-Infinity`, `inf`, … around `offset`, where serde_json stopped.
fn non_finite_at(bytes: &[u8], offset: usize) -> Option<std::ops::Range<usize>> {
    let offset = offset.min(bytes.len());
    let mut start = offset
        - bytes[..offset]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
    let end = offset
        + bytes[offset..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
    let word = &bytes[start..end];
    let non_finite = [
        &b"NaN"[..],
        b"nan",
        b"Infinity",
        b"infinity",
        b"inf",
        b"Inf",
    ];
    if !non_finite.contains(&word) {
        return None;
    }
    if start > 0 && matches!(bytes[start - 1], b'-' | b'+') {
        start -= 1;
    }
    Some(start..end)
}

/// Whether the record starts like words rather than like a JSON value: a word that is not a
/// JSON literal (`npm ERR!`, `Error:`), a literal followed by more words (`null pointer`), or
/// a character no JSON text starts with.
fn looks_like_text(trimmed: &[u8]) -> bool {
    match trimmed.first() {
        None | Some(b'{' | b'"' | b']' | b'}' | b',' | b':') => false,
        Some(b'[') => looks_like_log_tag(trimmed),
        Some(b'-') => trimmed
            .get(1)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'-')),
        Some(b'0'..=b'9') => looks_like_counted_text(trimmed),
        Some(b) if b.is_ascii_alphabetic() => {
            let len = trimmed
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if !matches!(&trimmed[..len], b"true" | b"false" | b"null") {
                return true;
            }
            let rest = trimmed[len..].trim_ascii_start();
            rest.first().is_some_and(u8::is_ascii_alphabetic)
        }
        Some(_) => true,
    }
}

/// A log line's leading tag: `[warn] …`, `[2026-01-28T10:00:00Z] INFO …`. A tag holds a letter
/// or a colon and no JSON punctuation, is not itself a JSON value, and is followed by a blank
/// and more text (so `[0x10]` or `[True]` stay broken JSON).
fn looks_like_log_tag(trimmed: &[u8]) -> bool {
    let Some(close) = memchr::memchr(b']', trimmed) else {
        return false;
    };
    let tag = trimmed[1..close].trim_ascii();
    let after = &trimmed[close + 1..];
    tag.iter().any(|b| b.is_ascii_alphabetic() || *b == b':')
        && !tag
            .iter()
            .any(|b| matches!(b, b'"' | b'{' | b'}' | b'[' | b','))
        && serde_json::from_slice::<serde::de::IgnoredAny>(tag).is_err()
        && matches!(after.first(), Some(b' ' | b'\t' | b':'))
        && !after[1..].trim_ascii().is_empty()
}

/// A line that starts with a number but is text: `123 errors`, `12ms`, a date or a time
/// (`2026-01-28 10:00:00 INFO`, `10:00:01 …`).
fn looks_like_counted_text(trimmed: &[u8]) -> bool {
    let digits = trimmed.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &trimmed[digits..];
    match rest.first() {
        Some(b'-' | b':' | b'/') => rest.get(1).is_some_and(u8::is_ascii_digit),
        Some(b' ' | b'\t') => rest
            .trim_ascii_start()
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b >= 0x80),
        Some(b) => b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'),
        None => false,
    }
}

/// How many bare CR bytes outside strings are followed (after blanks) by `{` or `[`: the
/// record boundaries of a stream written with CR line endings.
fn bare_cr_separators(bytes: &[u8]) -> usize {
    let mut strings = Strings::default();
    let mut n = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !strings.raw_control(b)
            && !strings.in_string
            && b == b'\r'
            && bytes.get(i + 1) != Some(&b'\r')
        {
            let next = bytes[i + 1..]
                .iter()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\r'));
            if matches!(next, Some(b'{' | b'[')) {
                n += 1;
            }
        }
    }
    n
}

/// A reader that copies every chunk it reads to `out` and flushes it at once, for `--tee`:
/// the consumer downstream gets the input byte for byte as it arrives.
pub struct Tee<R, W> {
    inner: R,
    out: W,
}

impl<R, W> Tee<R, W> {
    pub fn new(inner: R, out: W) -> Self {
        Tee { inner, out }
    }
}

impl<R: Read, W: Write> Read for Tee<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.out.write_all(&buf[..n])?;
        self.out.flush()?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(input: &[u8]) -> Vec<(Rule, u64)> {
        let mut out = Vec::new();
        check(input, &CheckOptions::default(), &mut |d| {
            out.push((d.rule, d.line));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn repair_escapes_only_inside_strings() {
        let mut out = Vec::new();
        let first = repair(b"{\"a\":\"x\ny\t\x1b\",\n\"b\":1}", &mut out);
        assert_eq!(first, 7);
        assert_eq!(out, b"{\"a\":\"x\\ny\\t\\u001b\",\n\"b\":1}");
    }

    #[test]
    fn framing_findings() {
        assert_eq!(findings(b""), vec![(Rule::EmptyStream, 0)]);
        assert_eq!(
            findings(b"\n \n"),
            vec![
                (Rule::BlankLine, 1),
                (Rule::BlankLine, 2),
                (Rule::EmptyStream, 1)
            ]
        );
        let f = findings(b"[1]\n\"x\"\n{\"a\":1} {\"b\":2}\n");
        assert!(f.contains(&(Rule::NotAnObject, 1)));
        assert!(f.contains(&(Rule::NotAnObject, 2)));
        assert!(f.contains(&(Rule::InvalidJson, 3)));
        let f = findings(
            b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n{\"type\":",
        );
        assert!(f.contains(&(Rule::TruncatedRecord, 2)), "{f:?}");
        let f = findings(b"{\"a\":\"caf\xe9\"}\n");
        assert_eq!(f[0], (Rule::InvalidUtf8, 1));
    }

    #[test]
    fn raw_newline_in_call_id_is_repaired_and_paired() {
        let input = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\
{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"call_a\nfc_b\",\"tool_call\":{\"lsToolCall\":{\"args\":{}}},\"session_id\":\"s\"}\n\
{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"call_a\\nfc_b\",\"tool_call\":{\"lsToolCall\":{\"args\":{},\"result\":{\"success\":{}}}},\"session_id\":\"s\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n";
        assert_eq!(findings(input), vec![(Rule::RawControlCharacter, 2)]);
    }
}
