//! Checking one input: splitter → framing rules → classifier → validator, streaming, in order.
//!
//! This module owns the in-order flow of one input's records: the options, the totals, the
//! consumer trait, the entry points (`check`, `check_bytes`, …), the pure half of each record
//! (`examine`, which the pipeline's lanes run side by side) and the stateful half (`InOrder`:
//! the order of the findings, the rules enabled, the arena and scratch space reused from record
//! to record). Every finding goes to the caller's `emit` callback as soon as it is known. It
//! must not open files, print, or decide exit codes: that is the command line's job.
//!
//! Beside it: the framing rules, what a record's bytes are before they are an event (`framing`,
//! with the exact findings of text that is not JSON in `framing::invalid_json`); the input that
//! is not a text stream at all (`binary`); and the routing of an input to its agent (`route`):
//! records go to their agent's checker (`agents::Checker`, cursor-agent's as every other's),
//! once the first record that names an agent is read. The framing rules are the same for every
//! agent. And one input checked on several threads (`pipeline`): lanes
//! that do the pure half of records side by side, in the view of the input's agent, and this
//! module's in-order stage.

mod accounted;
mod binary;
mod framing;
#[doc(hidden)]
pub mod pipeline;
mod route;

pub use binary::BINARY_SHOWN;

use crate::agents::cursor::view::Dialect;
use crate::agents::{self, Agent};
use crate::diagnostic::Diagnostic;
use crate::input::record::{
    BOM_STRIPPED, DOCUMENT, ENDS_IN_STRING, Frame, JOIN_FAILED, Position, Record, UTF8,
};
use crate::input::split::{Item, Source, Splitter};
use crate::json::tap::{self, Kept, Top};
use crate::preamble::Preamble;
use crate::rules::{Rule, RuleSet};
use crate::vocab;
use binary::BinaryRun;
use bumpalo::Bump;
use route::{Check, Held, Route, agent_record};
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
    /// `--redact`: every record's text goes through this redactor before it is read, so that
    /// every output derived from the records (and the findings' excerpts) holds
    /// `[REDACTED:KIND]` where the input held a credential; `None` reads records as they are.
    pub redact: Option<&'static crate::redact::Redactor>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            enabled: RuleSet::defaults(),
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            dialect: None,
            agent: None,
            max_open_calls: crate::pairing::DEFAULT_MAX_OPEN_CALLS,
            redact: None,
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

/// What a record's checker read of it, for a consumer ([`Consumer::agent_record`]): its `type`
/// and what it says of how its event went, as the view the checker read them from says.
pub struct Checked<'r, 'a>(&'r agents::Line<'a>);

impl<'a> Checked<'_, 'a> {
    /// The record's `type`, when it is a string (Kimi CLI's: its `role`, but for `meta` lines).
    pub fn ty(&self) -> Option<&str> {
        self.0.ty()
    }

    /// What the record says of how its event went: Claude Code's `subtype`, cursor-agent's,
    /// the `status` of Gemini CLI's `result`, Copilot CLI's `exitCode` as `success` or `error`.
    pub fn subtype(&self) -> Option<&str> {
        self.0.subtype()
    }

    /// cursor-agent's view of the record (every dialect mapped into the canonical one), for the
    /// writer that rewrites cursor-agent's records in their canonical form; `None` for another
    /// agent's record.
    pub fn cursor_event(&self) -> Option<&agents::cursor::view::Event<'a>> {
        self.0.cursor_event()
    }
}

/// What else reads the stream beside the checker (the canonical writer, stats, render, the
/// live status line, run, report). Each record reaches it once, after its checker has seen it,
/// in the same order for every agent: its events in the common vocabulary first
/// ([`Consumer::common`], when [`Consumer::wants_common`]), then the record itself
/// ([`Consumer::agent_record`]).
pub trait Consumer {
    /// A record that is no event: not JSON, not UTF-8, not an object, or too large (then
    /// `bytes` is empty, since it was never buffered; when [`Consumer::passes_over_limit`], its
    /// bytes came before in [`Consumer::over_limit_piece`]s).
    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        let _ = (pos, bytes);
    }

    /// Whether the bytes of a record over `--max-record-bytes` are wanted, in pieces, as the
    /// splitter reads past them (see `input::split::passing`). Asked once, before the input.
    fn passes_over_limit(&self) -> bool {
        false
    }

    /// The next bytes of a record over the limit, in input order (without its BOM and line
    /// terminator). Its [`Consumer::invalid`] comes after its last piece.
    fn over_limit_piece(&mut self, bytes: &[u8]) {
        let _ = bytes;
    }

    /// The agent that wrote the input, once it is known (`None`: no agent sjlint knows).
    fn agent(&mut self, agent: Option<Agent>) {
        let _ = agent;
    }

    /// Whether [`Consumer::common`] is wanted: the records of every agent are mapped into the
    /// common vocabulary only then.
    fn wants_common(&self) -> bool {
        false
    }

    /// One event of a record in the common vocabulary (a record may give several, or none), of
    /// every agent's stream, before the record's [`Consumer::agent_record`]. Only an input that
    /// no agent sjlint knows wrote gives none.
    fn common(&mut self, ev: &vocab::Event<'_>) {
        let _ = ev;
    }

    /// Whether the fields and event types a record carries that its agent's schema does not
    /// list are wanted ([`Consumer::unlisted`]), whether or not `unknown-field` is on.
    fn wants_unlisted(&self) -> bool {
        false
    }

    /// A field or event type not in the agent's schema, the first time it is seen in the input.
    fn unlisted(&mut self, u: &crate::drift::Unlisted) {
        let _ = u;
    }

    /// A record that parsed as an object, which its agent's checker read (after its common
    /// events, if any were wanted), with its JSON text and what the checker read of it: a
    /// consumer need not parse the record again. `json` is the record's bytes, or their
    /// repaired copy when they held raw control characters inside strings. A record of an input
    /// no agent sjlint knows comes here too, unchecked, read for its `type` and `subtype`.
    fn agent_record(&mut self, rec: &Record<'_>, json: &str, read: &Checked<'_, '_>) {
        let _ = (rec, json, read);
    }

    /// A record of another agent's run inside the stream (the `mixed-agents` finding names the
    /// first): it is not checked and gives no event, and `rec.bytes` are all there is of it. A
    /// consumer that writes the stream out copies it, or says it was left out.
    fn foreign(&mut self, rec: &Record<'_>) {
        let _ = rec;
    }
}

/// Checking alone.
impl Consumer for () {}

/// A consumer lent to the check.
impl<C: Consumer + ?Sized> Consumer for &mut C {
    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        (**self).invalid(pos, bytes);
    }
    fn passes_over_limit(&self) -> bool {
        (**self).passes_over_limit()
    }
    fn over_limit_piece(&mut self, bytes: &[u8]) {
        (**self).over_limit_piece(bytes);
    }
    fn agent(&mut self, agent: Option<Agent>) {
        (**self).agent(agent);
    }
    fn wants_common(&self) -> bool {
        (**self).wants_common()
    }
    fn common(&mut self, ev: &vocab::Event<'_>) {
        (**self).common(ev);
    }
    fn wants_unlisted(&self) -> bool {
        (**self).wants_unlisted()
    }
    fn unlisted(&mut self, u: &crate::drift::Unlisted) {
        (**self).unlisted(u);
    }
    fn agent_record(&mut self, rec: &Record<'_>, json: &str, read: &Checked<'_, '_>) {
        (**self).agent_record(rec, json, read);
    }
    fn foreign(&mut self, rec: &Record<'_>) {
        (**self).foreign(rec);
    }
}

/// Where the findings of a check go: a callback (`FnMut(Diagnostic) -> io::Result<()>`), or a
/// queue of the push API's. An error stops the check after the current record.
pub(crate) trait Emit {
    fn emit(&mut self, d: Diagnostic) -> io::Result<()>;
}

impl<F: FnMut(Diagnostic) -> io::Result<()>> Emit for F {
    fn emit(&mut self, d: Diagnostic) -> io::Result<()> {
        self(d)
    }
}

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
    let splitter = Splitter::new(reader, opts.max_record_bytes)
        .checking_utf8()
        .passing_over_limit(consumer.passes_over_limit());
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
        let frame = match splitter.next_item() {
            Ok(Some(Item::Frame(frame))) => frame,
            Ok(Some(Item::Piece(bytes))) => match stage.over_limit_piece(bytes, totals) {
                Ok(()) => continue,
                Err(e) => {
                    totals.bytes = splitter.bytes_read();
                    return Err(e);
                }
            },
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

/// Where the findings of one input go: only enabled rules, and nothing after the first error of
/// the caller's sink.
struct Sink<E> {
    emit: E,
    enabled: RuleSet,
    /// The first error of the caller's sink; it stops the run after the current record.
    failed: Option<io::Error>,
}

impl<E: Emit> Sink<E> {
    fn send(&mut self, d: Diagnostic) {
        if self.enabled.contains(d.rule)
            && self.failed.is_none()
            && let Err(e) = self.emit.emit(d)
        {
            self.failed = Some(e);
        }
    }
}

/// The stateful half of checking one input: what depends on the records before (the validator,
/// runs of binary records, the totals) and the order of the findings. The one-thread loop
/// ([`check_into`]) and the in-order stage of [`crate::check::pipeline`] both feed it frame by
/// frame, in input order; the pure half of each record ([`examine`]) is done by the caller, or
/// here when the caller has not done it.
pub(crate) struct InOrder<E, C> {
    opts: CheckOptions,
    sink: Sink<E>,
    /// The caller's consumer, whose common events pass through the stream's account first.
    consumer: accounted::Accounted<C>,
    /// The repaired copy of a record with raw control characters (reused).
    scratch: Vec<u8>,
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
    /// Whether the records have turned to another agent's (reported once).
    mixed: crate::agents::Mixed,
    /// What was named of the fields not in the agent's schema, when the rule or the consumer
    /// asks for them.
    drift: Option<crate::drift::Drift>,
    /// The top-level keys of the current record, when it was read here (not by a lane) and
    /// drift is wanted: noted by the reader of its view (emptied for each record).
    keys: Kept,
    /// `--redact`: a piece of a record over the limit, redacted (reused).
    redacted: Vec<u8>,
}

impl<E: Emit, C: Consumer> InOrder<E, C> {
    /// The stage of one input checked with `opts`: findings go to `emit` and records to
    /// `consumer` (either owned, or borrowed as `&mut`).
    pub(crate) fn new(opts: &CheckOptions, emit: E, consumer: C) -> Self {
        let drift = wants_drift(opts, &consumer).then(crate::drift::Drift::default);
        InOrder {
            opts: *opts,
            sink: Sink {
                emit,
                enabled: opts.enabled,
                failed: None,
            },
            consumer: accounted::Accounted::new(consumer),
            scratch: Vec::new(),
            pending: Vec::new(),
            arena: Bump::new(),
            binary: BinaryRun::default(),
            preamble: Preamble::default(),
            route: Route::Undecided,
            held: Held::default(),
            mixed: crate::agents::Mixed::default(),
            drift,
            keys: Kept::default(),
            redacted: Vec::new(),
        }
        .routed()
    }

    /// The next frame of the input. `examined` is the pure half of a record when the caller has
    /// done it already, on text redacted already when `--redact` is on (see
    /// [`redacted`]); a record not examined is redacted here, the one place records read on
    /// this thread pass before they are read. An error is the first error of the caller's sink:
    /// the run stops.
    pub(crate) fn frame(
        &mut self,
        frame: Frame<'_>,
        examined: Option<&Examined<'_>>,
        totals: &mut Totals,
    ) -> io::Result<()> {
        if let (Some(redactor), Frame::Record(rec), None) = (self.opts.redact, &frame, examined)
            && let std::borrow::Cow::Owned(text) = redactor.redact_record(rec.bytes)
        {
            return self.frame_as_read(Frame::Record(redacted(rec, &text)), None, totals);
        }
        self.frame_as_read(frame, examined, totals)
    }

    /// [`InOrder::frame`], its record redacted if it is to be.
    fn frame_as_read(
        &mut self,
        frame: Frame<'_>,
        examined: Option<&Examined<'_>>,
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
            if matches!(hold, route::Hold::Kept | route::Hold::Flush)
                && !matches!(frame, Frame::Blank { .. })
            {
                totals.records += 1;
            }
            match hold {
                route::Hold::Kept => return Ok(()),
                route::Hold::Flush => return self.replay(totals),
                route::Hold::CheckNow if self.held.is_empty() => {}
                route::Hold::CheckNow => {
                    // What another thread examined was read before the agent was known: read it again.
                    self.replay(totals)?;
                    return self.routed_frame(frame, None, totals, false);
                }
            }
        }
        self.routed_frame(frame, examined, totals, false)
    }

    /// The agent the records are checked as, once it is known (`None`: not yet, or no agent
    /// sjlint knows): what the pipeline's lanes read records as.
    pub(crate) fn agent(&self) -> Option<Agent> {
        match &self.route {
            Route::Agent(checker) => Some(checker.agent()),
            Route::Undecided | Route::Unknown | Route::Array(_) => None,
        }
    }

    /// The next bytes of a record over the limit, for a consumer that passes them on: the
    /// frames held before them go first, so the agent is decided from those (a passed record
    /// cannot wait in memory).
    fn over_limit_piece(&mut self, bytes: &[u8], totals: &mut Totals) -> io::Result<()> {
        if let Route::Undecided = self.route
            && !self.held.is_empty()
        {
            self.decide_from_held();
            for d in self.pending.drain(..) {
                self.sink.send(d);
            }
            self.replay(totals)?;
        }
        if !matches!(self.route, Route::Array(_)) {
            // A piece is redacted on its own: a credential cut in two by the pieces' edge is not
            // found (records over `--max-record-bytes` are not read as JSON at all).
            match self.opts.redact.map(|r| r.redact_record(bytes)) {
                Some(std::borrow::Cow::Owned(text)) => {
                    self.redacted = text;
                    self.consumer.over_limit_piece(&self.redacted);
                }
                _ => self.consumer.over_limit_piece(bytes),
            }
        }
        Ok(())
    }

    /// `counted`: the frame was held, and counted as read then.
    fn routed_frame(
        &mut self,
        frame: Frame<'_>,
        examined: Option<&Examined<'_>>,
        totals: &mut Totals,
        counted: bool,
    ) -> io::Result<()> {
        let opts = self.opts;
        let count = u64::from(!counted);
        if let Route::Array(whole) = &mut self.route {
            let lines = match frame {
                Frame::Record(rec) => {
                    whole.line(rec.bytes);
                    // A document read as one record counts its lines, as when each was one.
                    if rec.has(DOCUMENT) {
                        u64::from(rec.lines)
                    } else {
                        1
                    }
                }
                _ => 1,
            };
            if !matches!(frame, Frame::Blank { .. }) {
                totals.records += count * lines;
            }
            return Ok(());
        }
        self.pending.clear();
        self.arena.reset();
        // What one large record made large is not kept.
        if self.arena.allocated_bytes() > ARENA_KEPT {
            self.arena = Bump::new();
        }
        let blank = matches!(frame, Frame::Blank { .. });
        if self.scratch.capacity() > ARENA_KEPT {
            self.scratch = Vec::new();
        }
        let pending = &mut self.pending;
        let mut hold = |d: Diagnostic| pending.push(d);
        match frame {
            Frame::Blank { pos, bom } => {
                if bom {
                    hold(framing::byte_order_mark(pos));
                }
                hold(framing::blank_line(pos));
                self.binary.other_frame(&mut self.pending, opts.enabled);
            }
            Frame::TooLarge { pos, len, bom } => {
                totals.records += count;
                if bom {
                    hold(framing::byte_order_mark(pos));
                }
                if let Route::Agent(checker) = &mut self.route {
                    checker.on_record(&mut hold);
                    checker.on_unreadable(pos.line);
                }
                self.consumer.invalid(pos, &[]);
                let passed = self.consumer.passes_over_limit();
                hold(framing::record_too_large(
                    pos,
                    len,
                    opts.max_record_bytes,
                    passed,
                ));
                self.binary.other_frame(&mut self.pending, opts.enabled);
            }
            Frame::Record(rec) => {
                totals.records += count;
                self.record_frame(rec, examined);
            }
        }
        // An event, like any record that is not plain text, ends the wait (`take` says so).
        if self.preamble.active() && !self.preamble.take(&mut self.pending, blank) {
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

    /// A record through its route (its agent's checker, or the framing rules alone), then into
    /// the run of binary records it may be part of.
    fn record_frame(&mut self, rec: Record<'_>, examined: Option<&Examined<'_>>) {
        let opts = self.opts;
        let pending = &mut self.pending;
        let mut hold = |d: Diagnostic| pending.push(d);
        if rec.has(BOM_STRIPPED) {
            hold(framing::byte_order_mark(rec.pos));
        }
        self.keys.clear();
        match &mut self.route {
            Route::Agent(checker) => {
                checker.on_record(&mut hold);
                agent_record(
                    &rec,
                    examined,
                    checker,
                    route::AgentSide {
                        arena: &self.arena,
                        mixed: &mut self.mixed,
                        dialect: opts.dialect,
                        keys: self.drift.is_some().then_some(&mut self.keys),
                    },
                    &mut self.scratch,
                    &mut hold,
                    &mut self.consumer,
                );
            }
            _ => {
                let mut check = Check::Nothing(&self.arena);
                framing::slow_record(
                    &rec,
                    &mut check,
                    &mut self.scratch,
                    &mut hold,
                    &mut self.consumer,
                );
            }
        }
        if self.drift.is_some() {
            self.unlisted(&rec, examined);
        }
        if let Some(summary) = self.binary.record(&rec, &mut self.pending, opts.enabled) {
            self.sink.send(summary);
        }
    }

    /// The fields and event type of `rec` that its agent's schema does not list (once each an
    /// input), for the rule and the consumer. Records of another agent's run are not compared.
    /// The record's keys are those the reader of its view noted: in a lane (`examined`), or
    /// here.
    #[cold]
    fn unlisted(&mut self, rec: &Record<'_>, examined: Option<&Examined<'_>>) {
        let agent = match &self.route {
            Route::Agent(checker) if checker.schema_describes_last() => checker.agent(),
            _ => return,
        };
        let (Some(drift), true) = (&mut self.drift, self.mixed.settled()) else {
            return;
        };
        // The splitter has most often validated the record's UTF-8 already.
        let Some(json) = known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok())
        else {
            return;
        };
        let top = match examined {
            Some(Examined::Agent(text, _, _, top)) if std::ptr::eq(*text, json) => *top,
            _ => self.keys.top(json),
        };
        let rule = self.opts.enabled.contains(Rule::UnknownField);
        let wants = self.consumer.wants_unlisted();
        let (pending, consumer) = (&mut self.pending, &mut self.consumer);
        drift.record(agent, json, top, &mut |u| {
            if wants {
                consumer.unlisted(u);
            }
            if rule {
                pending.push(crate::drift::finding(agent, rec.pos, u));
            }
        });
    }

    /// Reading stopped with `e` (an I/O error, Ctrl-C): what a run of binary records counted so
    /// far is still reported. End-of-input findings are not: the input did not end. Returns the
    /// error the run ends with.
    pub(crate) fn stopped(mut self, e: io::Error) -> io::Error {
        if !self.held.is_empty() {
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
        if !self.held.is_empty() {
            self.decide_from_held();
            for d in self.pending.drain(..) {
                self.sink.send(d);
            }
            self.replay(totals)?;
        }
        if let Route::Array(whole) = self.route {
            self.sink
                .send(route::array_diagnostic(whole, totals.records));
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
            self.sink.send(framing::empty_stream(totals.bytes));
        }
        totals.agent = match &self.route {
            Route::Agent(checker) => Some(checker.agent()),
            Route::Undecided | Route::Unknown | Route::Array(_) => None,
        };
        if let Route::Agent(checker) = &mut self.route
            && self.consumer.wants_common()
        {
            let consumer = &mut self.consumer;
            checker.finish_common(&mut |ev| consumer.common(ev));
        }
        let open = match &self.route {
            Route::Agent(checker) => !checker.progress().ended(),
            Route::Undecided | Route::Unknown | Route::Array(_) => false,
        };
        self.consumer.input_ended(open);
        let sink = &mut self.sink;
        match &mut self.route {
            Route::Agent(checker) => checker.finish(&mut |d| sink.send(d)),
            Route::Undecided | Route::Unknown | Route::Array(_) => {}
        }
        match self.sink.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// `rec` with its text redacted (`text`): no longer known to be UTF-8 (it is, since only ASCII
/// between characters was replaced, but it is validated again rather than trusted).
pub(crate) fn redacted<'t>(rec: &Record<'_>, text: &'t [u8]) -> Record<'t> {
    Record {
        bytes: text,
        flags: rec.flags & !UTF8,
        ..*rec
    }
}

/// The pure half of a record: what can be known about it without the records before it, so
/// that it can be worked out on another thread. Borrows the record's bytes.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "filled in place in the slot of its record, reused batch after batch: a box would allocate per record"
)]
pub(crate) enum Examined<'a> {
    /// Valid UTF-8 that parsed as the record of an agent: the text, the agent's view (which
    /// knows the value's shape), when the view has none of its agent's own marks, the record
    /// read for what [`agents::Mixed`] needs (a lane's work, not the in-order stage's: most
    /// records of some agents carry no mark of their own), and, when drift is wanted, the
    /// record's top-level keys as the reader of its view noted them.
    Agent(&'a str, agents::Line<'a>, agents::Sniffed<'a>, Top<'a>),
    /// Anything else: a record the splitter flagged as cut off, bytes that are not UTF-8, text
    /// the strict parse refuses (not JSON, raw control characters). Rare, and redone in order by
    /// [`framing::slow_record`], which needs scratch space that outlives the record.
    SlowPath,
}

/// The pure half of a record: UTF-8 validation and the strict parse into `slot` (which is
/// [`Examined::SlowPath`], and is filled in place, so that the view is never moved), as
/// `agent`'s record (as [`Agent::DEFAULT`]'s while the agent is not known; `dialect` is
/// `--dialect`), noting its top-level keys when `keys` (drift is wanted, [`wants_drift`]). The
/// view's unescaped strings and the keys go to `arena`, so that nothing is allocated.
pub(crate) fn examine<'a>(
    rec: &Record<'a>,
    dialect: Option<Dialect>,
    agent: Option<Agent>,
    keys: bool,
    slot: &mut Examined<'a>,
    arena: &'a Bump,
) {
    if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) {
        return;
    }
    let Some(text) = known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()) else {
        return;
    };
    let agent = agent.unwrap_or(Agent::DEFAULT);
    *slot = Examined::Agent(
        text,
        agents::Line::empty(agent, dialect),
        agents::Sniffed::Unread,
        Top::Unread,
    );
    let Examined::Agent(_, line, sniffed, top) = slot else {
        unreachable!("just set")
    };
    let parsed = if keys {
        let parse = || line.parse_into(text, arena);
        tap::noting(text, parse, |noted| *top = noted.copied_into(arena))
    } else {
        line.parse_into(text, arena)
    };
    if parsed.is_ok() && !line.own_mark() {
        *sniffed = agents::Sniffed::read(text, arena);
    }
    if parsed.is_err() {
        *slot = Examined::SlowPath;
    }
}

/// Whether a check with `opts` feeding `consumer` compares records with their agent's schema
/// (the `unknown-field` rule, or a consumer that wants what is not listed): only then are the
/// records' top-level keys noted as their views are read.
pub(crate) fn wants_drift(opts: &CheckOptions, consumer: &impl Consumer) -> bool {
    opts.enabled.contains(Rule::UnknownField) || consumer.wants_unlisted()
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

    /// What a consumer is told, in order: `common LINE` and `record LINE`.
    #[derive(Default)]
    struct Order(Vec<(bool, u64)>);

    impl Consumer for Order {
        fn wants_common(&self) -> bool {
            true
        }
        fn common(&mut self, ev: &vocab::Event<'_>) {
            self.0.push((false, ev.line));
        }
        fn agent_record(&mut self, rec: &Record<'_>, _json: &str, _read: &Checked<'_, '_>) {
            self.0.push((true, rec.pos.line));
        }
    }

    /// Every agent's record comes after its common events, cursor-agent's as Claude Code's: no
    /// common event of a line is told after that line's record.
    #[test]
    fn every_agents_record_follows_its_common_events() {
        for (fixture, agent) in [
            ("render/fix-the-cart.ndjson", Agent::Cursor),
            ("agents/claude/tool-run.ndjson", Agent::Claude),
            ("agents/codex/tool-run.ndjson", Agent::Codex),
        ] {
            let path = format!("{}/../../testdata/{fixture}", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(&path).expect("fixture");
            let mut order = Order::default();
            let totals = check_with(
                &bytes[..],
                &CheckOptions::default(),
                &mut |_| Ok(()),
                &mut order,
            )
            .expect("read");
            assert_eq!(totals.agent, Some(agent), "{fixture}");
            let records: Vec<u64> = order.0.iter().filter(|e| e.0).map(|e| e.1).collect();
            assert!(records.len() > 3, "{fixture}: {records:?}");
            for (i, &(record, line)) in order.0.iter().enumerate() {
                if record {
                    assert!(
                        !order.0[i + 1..].contains(&(false, line)),
                        "{fixture}: a common event of line {line} after its record"
                    );
                }
            }
            // Records with common events were seen, so the order above was put to the test.
            let firsts: Vec<u64> = order.0.iter().filter(|e| !e.0).map(|e| e.1).collect();
            assert!(firsts.iter().any(|l| records.contains(l)), "{fixture}");
        }
    }
}
