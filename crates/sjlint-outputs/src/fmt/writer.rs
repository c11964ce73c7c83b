//! The canonical writer: the [`Consumer`] of the checking pipeline that decides, record by
//! record, what `fmt` writes, and writes it.
//!
//! This module owns the state that spans records: the `--drop deltas` hold (deltas kept back
//! until it is known whether a flush repeats them), the kinds of open tool calls (so that a
//! completion that names none is written with its start's, paired exactly as the validator
//! pairs them), the session being read for `--to json`, and `--keep-invalid` (an invalid
//! record as a `raw` event; a record over `--max-record-bytes` passed through as it is, piece
//! by piece as the splitter reads it, never held whole). It must not map a record (that is
//! `canonical`'s) nor print diagnostics.

use super::canonical::canonical;
use super::json_text::{minify_into, write_str};
use super::to_json::{SessionText, json_event};
use super::{FmtOptions, FmtTotals, Target};
use sjlint_core::agents::cursor::view::{Dialect, Event};
use sjlint_core::check::{Checked, Consumer};
use sjlint_core::input::record::{Position, Record};
use sjlint_core::pairing;
use std::cell::Cell;
use std::io::{self, Write};

/// `--drop deltas`: most bytes of deltas held back while waiting for the flush that may repeat
/// them; past it they are written, and so is the flush.
const HELD_MAX: usize = 4 << 20;

/// A cursor record longer than this is written as it is minified, a piece at a time, rather
/// than minified whole into the line first: a record of raw control characters, repaired into
/// six times its size, is not copied once more (and the line's doubling does not double it).
const STREAM_MIN: usize = 64 << 10;

/// The most the reused line keeps for the next record.
const LINE_KEPT: usize = 1 << 20;

/// Longest tool kind kept for an open call, to write its completion with (real kinds are short).
const KIND_KEEP: usize = 1024;

pub(super) struct Writer<'c, 'w, W> {
    out: &'w mut W,
    opts: FmtOptions,
    /// `--dialect`, for reading a mapped record again.
    forced: Option<Dialect>,
    /// The first write error; reported by [`format`] in place of the reader's stop.
    failed: &'c Cell<Option<io::Error>>,
    stopped: &'c Cell<bool>,
    /// The line being written, reused.
    line: Vec<u8>,
    /// `--drop deltas`: the text of the deltas since the last assistant event that was not one
    /// (what the validator compares a flush with), the canonical lines of those not written yet,
    /// and whether some were written already (another event came between them and the flush).
    /// They are left out only when all of them are still held and the flush repeats them. One
    /// segment's worth at most.
    held: Vec<u8>,
    held_text: String,
    released: bool,
    /// Open tool calls: `call_id` → the kind their `started` named, so a completion that names
    /// none can be written with it.
    /// At most `--max-open-calls` of them.
    calls: pairing::Table<Option<Box<str>>>,
    /// Where the stream is in its sessions, followed exactly as the validator follows them, so
    /// that a completion is written with the kind of the start the validator pairs it with.
    pairing: Pairing,
    /// `--to json`: the session being read.
    session: Option<SessionText>,
    totals: FmtTotals,
    /// The input is another agent's stream (Claude Code, Codex, Gemini CLI): it has no cursor
    /// form, and is written in the common form instead.
    other_agent: bool,
    /// `--keep-invalid`: the pieces of a record over the limit are being written; its line
    /// ends when its frame comes.
    passing: bool,
}

impl<W: Write> Consumer for Writer<'_, '_, W> {
    fn agent(&mut self, agent: Option<sjlint_core::agents::Agent>) {
        use sjlint_core::agents::Agent;
        self.other_agent = !matches!(agent, Some(Agent::DEFAULT) | None);
        self.totals.agent = agent;
    }

    fn wants_common(&self) -> bool {
        // `--to json` writes cursor's result objects only; `lossless` writes nothing the common
        // form would lose fields of.
        self.other_agent && self.opts.to == Target::Ndjson && !self.opts.lossless
    }

    /// Another agent's events: there is no cursor form of them, so they are written in the
    /// common form (`--to common`), not left out.
    fn common(&mut self, ev: &sjlint_core::vocab::Event<'_>) {
        if self.stopped.get() {
            return;
        }
        self.line.clear();
        sjlint_core::vocab::write_line(ev, &mut self.line);
        self.write_line();
    }

    /// A record, in cursor-agent's canonical form: what the writer rewrites is cursor-agent's
    /// own view of it (every other agent's records are written from their common events).
    fn agent_record(&mut self, _rec: &Record<'_>, json: &str, read: &Checked<'_, '_>) {
        let Some(ev) = read.cursor_event() else {
            return;
        };
        if self.stopped.get() {
            return;
        }
        self.totals.records += 1;
        let ty = ev.ty.as_str();
        let subtype = ev.subtype.as_str();
        let call_id = ev.call_id.as_str();
        let pairing = self.follow_session(ev);
        let started_kind = match (ty, subtype, call_id) {
            (Some("tool_call"), Some("completed"), Some(id)) if pairing => {
                self.calls.get(id).and_then(|k| k.as_deref())
            }
            _ => None,
        };
        self.line.clear();
        let delta = self.opts.drop_deltas && ty == Some("assistant") && ev.is_delta();
        let mut streamed = false;
        let written = match self.opts.to {
            Target::Ndjson if delta => {
                canonical(json, ev, self.forced, started_kind, &mut self.held);
                self.held.push(b'\n');
                // Once some were written, the flush can no longer be left out: the text is not
                // needed to compare it with.
                if !self.released {
                    self.held_text
                        .push_str(ev.message.text.as_deref().unwrap_or_default());
                }
                // A run of deltas with no flush in sight is written as it comes, past a bound.
                if self.held.len() > HELD_MAX {
                    self.release_held(None);
                    self.held_text.clear();
                }
                false
            }
            Target::Ndjson if dropped(&self.opts, ev) => false,
            Target::Ndjson if ev.dialect == Dialect::Cursor && json.len() > STREAM_MIN => {
                streamed = true;
                true
            }
            Target::Ndjson => {
                canonical(json, ev, self.forced, started_kind, &mut self.line);
                self.line.push(b'\n');
                true
            }
            Target::Json => json_event(
                &mut self.session,
                &mut self.totals,
                json,
                ev,
                self.forced,
                started_kind,
                &mut self.line,
            ),
            // Written by `agents::common::format`, which does not use this writer.
            Target::Common => false,
            #[cfg(feature = "otlp")]
            Target::Otlp => false,
        };
        match (ty, subtype, call_id) {
            _ if !pairing => {}
            // The first start stays open, kind or not, as the validator keeps it (a second
            // start of an open id is a duplicate, not a new call). Past the budget a call is not
            // kept: its completion is written as it is.
            (Some("tool_call"), Some("started"), Some(id)) if !self.calls.contains(id) => {
                // A kind longer than KIND_KEEP is not kept: a completion that names none is then
                // written as it is.
                let kind = ev
                    .tool_call
                    .kind
                    .as_deref()
                    .filter(|k| k.len() <= KIND_KEEP);
                self.calls.insert(id, kind.map(Into::into));
            }
            (Some("tool_call"), Some("completed"), Some(id)) => {
                self.calls.take(id);
            }
            (Some("result"), ..) => {
                self.calls.clear();
                self.pairing = Pairing::Ended;
            }
            _ => {}
        }
        if written {
            self.release_held(Some(ev));
            if streamed {
                self.write_minified(json);
            } else {
                self.write_line();
            }
        }
    }

    /// `--keep-invalid` keeps a record over the limit too, as it came in: it was never read
    /// whole, so it cannot be wrapped as a `raw` event (that would need all of its text).
    fn passes_over_limit(&self) -> bool {
        self.opts.keep_invalid && self.opts.to == Target::Ndjson
    }

    fn over_limit_piece(&mut self, bytes: &[u8]) {
        if self.stopped.get() {
            return;
        }
        if !self.passing {
            // Deltas held before it come first.
            self.release_held(None);
            self.passing = true;
        }
        self.write_bytes(bytes);
    }

    /// Another agent's record inside a cursor-agent stream is copied as it is: it has no
    /// canonical form here, and leaving it out would lose it. In any other output it is counted
    /// as left out, which the caller reports.
    fn foreign(&mut self, rec: &Record<'_>) {
        if self.stopped.get() {
            return;
        }
        self.totals.records += 1;
        if self.opts.to != Target::Ndjson || self.other_agent {
            self.totals.left_out_foreign(rec.pos.line);
            return;
        }
        self.release_held(None);
        self.line.clear();
        self.line.extend_from_slice(rec.bytes);
        self.line.push(b'\n');
        self.write_line();
    }

    fn invalid(&mut self, _pos: Position, bytes: &[u8]) {
        if self.stopped.get() {
            return;
        }
        self.totals.records += 1;
        self.totals.invalid += 1;
        // The frame of a record over the limit, whose pieces were written as they came.
        if self.passing {
            self.passing = false;
            self.write_bytes(b"\n");
            self.totals.written += 1;
            return;
        }
        if self.opts.to == Target::Ndjson && self.opts.keep_invalid && !bytes.is_empty() {
            self.release_held(None);
            self.line.clear();
            self.line.extend_from_slice(br#"{"type":"raw","data":"#);
            write_str(&String::from_utf8_lossy(bytes), &mut self.line);
            self.line.extend_from_slice(b"}\n");
            self.write_line();
        }
    }
}

/// The validator's view of sessions, as far as pairing tool calls needs it.
enum Pairing {
    /// No event yet.
    Before,
    /// In a session, with the first `session_id` it named.
    Open(Option<Box<str>>),
    /// After a `result`: until the next `system`/`init`, events belong to no session and the
    /// validator pairs nothing.
    Ended,
}

impl<'c, 'w, W: Write> Writer<'c, 'w, W> {
    /// A writer to `out`; `failed` takes its first write error, and `stopped` says the output
    /// is gone (both are shared with the reader, which stops reading then).
    pub(super) fn new(
        out: &'w mut W,
        opts: FmtOptions,
        check: &sjlint_core::check::CheckOptions,
        failed: &'c Cell<Option<io::Error>>,
        stopped: &'c Cell<bool>,
    ) -> Self {
        Writer {
            out,
            opts,
            forced: check.dialect,
            failed,
            stopped,
            line: Vec::with_capacity(4096),
            held: Vec::new(),
            held_text: String::new(),
            released: false,
            calls: pairing::Table::new(check.max_open_calls),
            pairing: Pairing::Before,
            session: None,
            totals: FmtTotals::default(),
            other_agent: false,
            passing: false,
        }
    }

    /// The input ended: a session still open is unfinished (`--to json`), and the deltas
    /// held are written.
    pub(super) fn end_of_input(&mut self) {
        if self.session.as_ref().is_some_and(|s| s.events > 0) {
            self.totals.unfinished += 1;
        }
        self.release_held(None);
    }

    /// The run was stopped (a signal): the deltas held are written, and a record over the
    /// limit cut off midway gets its line end, so that the output stays one record per line.
    pub(super) fn interrupted(&mut self) {
        self.release_held(None);
        if std::mem::take(&mut self.passing) && !self.stopped.get() {
            self.write_bytes(b"\n");
        }
    }

    pub(super) fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub(super) fn totals(&self) -> FmtTotals {
        self.totals
    }
}

impl<W: Write> Writer<'_, '_, W> {
    /// Moves through sessions as the validator does; true when the event takes part in pairing.
    fn follow_session(&mut self, ev: &Event<'_>) -> bool {
        let ty = ev.ty.as_str();
        if ty == Some("raw") {
            return false;
        }
        let init = ty == Some("system") && ev.subtype.as_str() == Some("init");
        let id = ev.session_id.as_str();
        match &mut self.pairing {
            Pairing::Before => self.pairing = Pairing::Open(None),
            Pairing::Ended if init => self.pairing = Pairing::Open(None),
            Pairing::Ended => return false,
            // A second init naming another session: the previous run was cut off.
            Pairing::Open(Some(open)) if init && id.is_some_and(|id| id != &**open) => {
                self.calls.clear();
                self.pairing = Pairing::Open(None);
            }
            Pairing::Open(_) => {}
        }
        if let Pairing::Open(open @ None) = &mut self.pairing {
            *open = id.map(Into::into);
        }
        true
    }

    /// Before `next` is written (or at the end): the held deltas are left out when `next` is
    /// the flush that repeats them, and written otherwise.
    pub(super) fn release_held(&mut self, next: Option<&Event<'_>>) {
        // The validator follows assistant events that have a text only.
        let assistant =
            next.is_some_and(|ev| ev.ty.as_str() == Some("assistant") && ev.message.text.is_some());
        // Known by what it repeats, whatever fields it carries (newer builds stamp the flush
        // before a tool call with `model_call_id` and `timestamp_ms`).
        let repeated = next.is_some_and(|ev| {
            assistant && !self.released && ev.message.text.as_deref() == Some(&*self.held_text)
        });
        // A non-delta assistant event ends the run of deltas; any other event only interrupts it.
        if assistant {
            self.held_text.clear();
            self.released = false;
        } else if !self.held.is_empty() {
            self.released = true;
        }
        if self.held.is_empty() {
            return;
        }
        if !repeated && !self.stopped.get() {
            match self.out.write_all(&self.held) {
                Ok(()) => {
                    self.totals.written += memchr::memchr_iter(b'\n', &self.held).count() as u64;
                }
                Err(e) => {
                    self.failed.set(Some(e));
                    self.stopped.set(true);
                }
            }
        }
        self.held.clear();
    }

    fn write_line(&mut self) {
        let mut line = std::mem::take(&mut self.line);
        if self.write_bytes(&line) {
            self.totals.written += 1;
        }
        // What one long record made long is not kept.
        if line.capacity() > LINE_KEPT {
            line = Vec::with_capacity(4096);
        }
        self.line = line;
    }

    /// Writes the canonical form of a long cursor record as it is minified: pieces gathered
    /// in the line up to [`STREAM_MIN`], a longer piece (a long string) at once.
    fn write_minified(&mut self, json: &str) {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let out = &mut *self.out;
        let mut result = Ok(());
        minify_into(json, &mut |piece| {
            if result.is_err() {
                return;
            }
            if line.len() + piece.len() > STREAM_MIN {
                result = out.write_all(&line);
                line.clear();
            }
            if piece.len() > STREAM_MIN {
                if result.is_ok() {
                    result = out.write_all(piece);
                }
            } else {
                line.extend_from_slice(piece);
            }
        });
        line.push(b'\n');
        if let Err(e) = result.and_then(|()| out.write_all(&line)) {
            self.failed.set(Some(e));
            self.stopped.set(true);
        } else {
            self.totals.written += 1;
        }
        line.clear();
        self.line = line;
    }

    /// Writes `bytes`; false (and the run stops) when the output fails.
    fn write_bytes(&mut self, bytes: &[u8]) -> bool {
        match self.out.write_all(bytes) {
            Ok(()) => true,
            Err(e) => {
                self.failed.set(Some(e));
                self.stopped.set(true);
                false
            }
        }
    }
}

fn dropped(opts: &FmtOptions, ev: &Event<'_>) -> bool {
    opts.drop_thinking && ev.ty.as_str() == Some("thinking")
}
