//! The canonical writer behind `sjlint fmt`: every event in cursor's own form, one per line.
//!
//! This module owns what `fmt` writes: which records (the `--drop` filters, `--keep-invalid`),
//! how a payload or sdk record is moved into cursor's envelope, and the `--to json` result
//! objects. It is a [`Consumer`] of the checking pipeline, so it sees exactly the records and the
//! classification `check` sees, and it moves fields the way the classifier maps them (the two
//! change together: `check` on the output must never find what `check` on the input did not).
//! It must not open files or print diagnostics (the caller does both), and it must not change
//! what a record says: no JSON tree is built, keys, key order, unknown fields and the text of
//! every value (numbers included) are copied through. Only the whitespace between tokens is
//! dropped, raw control characters are escaped (the checker's repair), and the fields a dialect
//! spells its own way are moved to cursor's places. A record that is already canonical comes out
//! byte for byte.

use crate::check::{self, CheckOptions, Consumer};
use crate::diagnostic::Diagnostic;
use crate::event::{self, Dialect, Event, Field, Parsed};
use crate::input::record::{Position, Record};
use crate::pairing;
use crate::rules::{Rule, RuleSet};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;

/// `--drop deltas`: most bytes of deltas held back while waiting for the flush that may repeat
/// them; past it they are written, and so is the flush.
const HELD_MAX: usize = 4 << 20;

/// Longest tool kind kept for an open call, to write its completion with (real kinds are short).
const KIND_KEEP: usize = 1024;
use std::io::{self, Read, Write};

/// What `fmt` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// The canonical NDJSON stream.
    #[default]
    Ndjson,
    /// For each session that has a `result`, the single object `--output-format json` writes.
    Json,
    /// The agent-neutral events of [`crate::agents::common`], for every agent.
    Common,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct FmtOptions {
    /// Write each record that is not an event as `{"type":"raw","data":"<the line>"}`.
    pub keep_invalid: bool,
    /// Leave out `thinking` events.
    pub drop_thinking: bool,
    /// Leave out the `--stream-partial-output` assistant deltas (`timestamp_ms`, no
    /// `model_call_id`) that the flush after them repeats. Deltas no flush repeats hold text
    /// found nowhere else, and are kept.
    pub drop_deltas: bool,
    pub to: Target,
}

/// What one input gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FmtTotals {
    /// Records read (events and invalid records).
    pub records: u64,
    /// Lines written.
    pub written: u64,
    /// Records that were no event (not JSON, not UTF-8, not an object, cut off, too large).
    pub invalid: u64,
    /// `--to json`: sessions that ended with no `result`, so nothing was written for them.
    pub unfinished: u64,
    /// `--to json`: results that lack their text and whose session's text was too long to keep,
    /// so it was not added to them.
    pub texts_left_out: u64,
}

/// The findings `fmt` reports: the ones that mean a record could not be written as an event.
pub fn reported_rules() -> RuleSet {
    let mut set = RuleSet::empty();
    for rule in [
        Rule::InvalidJson,
        Rule::InvalidUtf8,
        Rule::NotAnObject,
        Rule::TruncatedRecord,
        Rule::RecordTooLarge,
    ] {
        set.insert(rule);
    }
    set
}

/// Writes the canonical form of everything `reader` yields to `out`. Findings of the rules that
/// `check` enables go to `emit` (the caller enables the ones that mean a record is left out).
/// Errors are I/O errors: of the reader, of `out`, or of `emit`.
pub fn format<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    opts: &FmtOptions,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    if opts.to == Target::Common {
        return crate::agents::common::format(reader, check, out, emit);
    }
    let failed = Cell::new(None);
    let stopped = Cell::new(false);
    let mut writer = Writer {
        out,
        opts: *opts,
        forced: check.dialect,
        failed: &failed,
        stopped: &stopped,
        line: Vec::with_capacity(4096),
        held: Vec::new(),
        held_text: String::new(),
        released: false,
        calls: HashMap::new(),
        max_open: check.max_open_calls.max(1),
        scratch: String::new(),
        pairing: Pairing::Before,
        session: None,
        totals: FmtTotals::default(),
        other_agent: false,
    };
    let reader = Stoppable {
        inner: reader,
        stopped: &stopped,
    };
    let checked = check::check_with(reader, check, emit, &mut writer);
    if let Some(e) = failed.take() {
        return Err(e);
    }
    if let Err(e) = checked {
        // Stopped by a signal: what was read so far is written out before the run ends.
        if crate::interrupt::is_stop(&e) {
            writer.release_held(None);
            writer.out.flush()?;
        }
        return Err(e);
    }
    if writer.session.as_ref().is_some_and(|s| s.events > 0) {
        writer.totals.unfinished += 1;
    }
    writer.release_held(None);
    if let Some(e) = failed.take() {
        return Err(e);
    }
    writer.out.flush()?;
    Ok(writer.totals)
}

/// Ends the input early once the output has failed (a closed pipe): the checking pipeline has
/// no other way to stop, and there is no point reading on.
struct Stoppable<'c, R> {
    inner: R,
    stopped: &'c Cell<bool>,
}

impl<R: Read> Read for Stoppable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stopped.get() {
            return Err(io::Error::other("the output was closed"));
        }
        self.inner.read(buf)
    }
}

struct Writer<'c, 'w, W> {
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
    /// Keyed by `pairing::key_of` the id; at most `max_open` of them.
    calls: HashMap<Box<str>, Option<Box<str>>>,
    max_open: usize,
    scratch: String,
    /// Where the stream is in its sessions, followed exactly as the validator follows them, so
    /// that a completion is written with the kind of the start the validator pairs it with.
    pairing: Pairing,
    /// `--to json`: the session being read.
    session: Option<SessionText>,
    totals: FmtTotals,
    /// The input is another agent's stream (Claude Code, Codex, Gemini CLI): it has no cursor
    /// form, and is written in the common form instead.
    other_agent: bool,
}

impl<W: Write> Consumer for Writer<'_, '_, W> {
    fn agent(&mut self, agent: Option<crate::agents::Agent>) {
        use crate::agents::Agent;
        self.other_agent = !matches!(agent, Some(Agent::Cursor) | None);
    }

    fn wants_common(&self) -> bool {
        // `--to json` writes cursor's result objects only.
        self.other_agent && self.opts.to == Target::Ndjson
    }

    /// Another agent's events: there is no cursor form of them, so they are written in the
    /// common form (`--to common`), not left out.
    fn common(&mut self, ev: &crate::agents::common::Event<'_>) {
        if self.stopped.get() {
            return;
        }
        self.line.clear();
        crate::agents::common::write_line(ev, &mut self.line);
        self.write_line();
    }

    fn event(&mut self, _rec: &Record<'_>, json: &str, ev: &Event<'_>) {
        if self.stopped.get() {
            return;
        }
        self.totals.records += 1;
        let ty = ev.ty.as_str();
        let subtype = ev.subtype.as_str();
        let call_id = ev.call_id.as_str();
        let pairing = self.follow_session(ev);
        let started_kind = match (ty, subtype, call_id) {
            (Some("tool_call"), Some("completed"), Some(id)) if pairing => self
                .calls
                .get(pairing::key_of(id, &mut self.scratch))
                .and_then(|k| k.as_deref()),
            _ => None,
        };
        self.line.clear();
        let delta = self.opts.drop_deltas && ty == Some("assistant") && is_delta(ev);
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
        };
        match (ty, subtype, call_id) {
            _ if !pairing => {}
            // Past the budget a call is not kept: its completion is written as it is.
            (Some("tool_call"), Some("started"), Some(_)) if self.calls.len() >= self.max_open => {}
            (Some("tool_call"), Some("started"), Some(id)) => {
                // The first start stays open, kind or not, as the validator keeps it (a second
                // start of an open id is a duplicate, not a new call). A kind longer than
                // KIND_KEEP is not kept: a completion that names none is then written as it is.
                let kind = ev
                    .tool_call
                    .kind
                    .as_deref()
                    .filter(|k| k.len() <= KIND_KEEP);
                self.calls
                    .entry(pairing::key_of(id, &mut self.scratch).into())
                    .or_insert_with(|| kind.map(Into::into));
            }
            (Some("tool_call"), Some("completed"), Some(id)) => {
                self.calls.remove(pairing::key_of(id, &mut self.scratch));
            }
            (Some("result"), ..) => {
                self.calls.clear();
                self.pairing = Pairing::Ended;
            }
            _ => {}
        }
        if written {
            self.release_held(Some(ev));
            self.write_line();
        }
    }

    fn invalid(&mut self, _pos: Position, bytes: &[u8]) {
        if self.stopped.get() {
            return;
        }
        self.totals.records += 1;
        self.totals.invalid += 1;
        // A record too large to buffer has no bytes left to keep.
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
    fn release_held(&mut self, next: Option<&Event<'_>>) {
        // The validator follows assistant events that have a text only.
        let assistant =
            next.is_some_and(|ev| ev.ty.as_str() == Some("assistant") && ev.message.text.is_some());
        let repeated = next.is_some_and(|ev| {
            assistant
                && !self.released
                && !ev.timestamp_ms.is_present()
                && !ev.model_call_id.is_present()
                && ev.message.text.as_deref() == Some(&*self.held_text)
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
                    self.totals.written += memchr::memchr_iter(b'\n', &self.held).count() as u64
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
        match self.out.write_all(&self.line) {
            Ok(()) => self.totals.written += 1,
            Err(e) => {
                self.failed.set(Some(e));
                self.stopped.set(true);
            }
        }
    }
}

fn dropped(opts: &FmtOptions, ev: &Event<'_>) -> bool {
    opts.drop_thinking && ev.ty.as_str() == Some("thinking")
}

/// `--to json`: follows the session's text; at its `result`, puts the result object in `line`
/// and returns true.
#[allow(clippy::too_many_arguments)]
fn json_event(
    session: &mut Option<SessionText>,
    totals: &mut FmtTotals,
    json: &str,
    ev: &Event<'_>,
    forced: Option<Dialect>,
    started_kind: Option<&str>,
    line: &mut Vec<u8>,
) -> bool {
    let (ty, subtype) = (ev.ty.as_str(), ev.subtype.as_str());
    if ty == Some("raw") {
        return false;
    }
    // An init opens a session unless it repeats the init of the one still open (the validator's
    // `duplicate-init`): then that session goes on. One naming another session means the open
    // one was cut off.
    if ty == Some("system")
        && subtype == Some("init")
        && let Some(open) = session.as_ref()
        && matches!((&open.id, ev.session_id.as_str()), (Some(a), Some(b)) if **a != *b)
    {
        totals.unfinished += 1;
        *session = None;
    }
    let current = session.get_or_insert_with(SessionText::default);
    current.events += 1;
    if current.id.is_none()
        && let Some(id) = ev.session_id.as_str()
    {
        current.id = Some(id.into());
    }
    match ty {
        Some("assistant") => {
            if let Some(text) = ev.message.text.as_deref() {
                let flush = !ev.timestamp_ms.is_present() && !ev.model_call_id.is_present();
                current.push(text, is_delta(ev), flush);
            }
            false
        }
        Some("result") => {
            let ended = session.take().unwrap_or_default();
            let mut canon = Vec::with_capacity(json.len());
            canonical(json, ev, forced, started_kind, &mut canon);
            let canon = std::str::from_utf8(&canon).expect("the canonical form is UTF-8");
            if ended.too_long && !ev.result.is_present() {
                totals.texts_left_out += 1;
            }
            json_result(canon, ev, &ended, line);
            line.push(b'\n');
            true
        }
        _ => false,
    }
}

/// A `--stream-partial-output` delta: an assistant event with `timestamp_ms` but no
/// `model_call_id` (the validator's reading too).
fn is_delta(ev: &Event<'_>) -> bool {
    ev.timestamp_ms.is_present() && !ev.model_call_id.is_present()
}

/// The assistant text of one session, joined as `result.result` joins it: every segment, with
/// partial-output deltas and the flush that repeats them counted once.
#[derive(Default)]
struct SessionText {
    events: u64,
    id: Option<Box<str>>,
    text: String,
    /// Deltas since the last segment that was not one.
    pending: String,
    /// The text grew past [`TEXT_MAX`]: it is no longer kept, nor added to the result.
    too_long: bool,
}

/// `--to json`: most bytes of a session's assistant text kept, to give a `result` that lacks
/// its text the session's text. A longer text would make a result record longer than sjlint
/// reads by default.
const TEXT_MAX: usize = 64 << 20;

impl SessionText {
    fn push(&mut self, text: &str, delta: bool, flush: bool) {
        if self.too_long {
            return;
        }
        if self.text.len() + self.pending.len() + text.len() > TEXT_MAX {
            self.too_long = true;
            self.text = String::new();
            self.pending = String::new();
            return;
        }
        if delta {
            self.pending.push_str(text);
            return;
        }
        if !(flush && !self.pending.is_empty() && self.pending == text) {
            self.text.push_str(&self.pending);
        }
        self.text.push_str(text);
        self.pending.clear();
    }

    fn joined(&self) -> String {
        let mut text = self.text.clone();
        text.push_str(&self.pending);
        text
    }
}

/// The `--output-format json` object for a session: its canonical `result` event, with what
/// that form always carries added when the stream's result lacks it: the result text (the
/// session's assistant text joined), `session_id` and `is_error`.
fn json_result(canon: &str, ev: &Event<'_>, session: &SessionText, out: &mut Vec<u8>) {
    let Some(top) = entries(canon) else {
        out.extend_from_slice(canon.as_bytes());
        return;
    };
    let has = |name: &str| top.iter().any(|(k, _)| k == name);
    let mut o = Obj::open(out);
    for (k, v) in &top {
        o.raw(k, v);
    }
    if !has("result") && !session.too_long {
        o.key("result");
        write_str(&session.joined(), o.out);
    }
    if !has("session_id")
        && let Some(id) = &session.id
    {
        o.key("session_id");
        write_str(id, o.out);
    }
    if !has("is_error")
        && let Some(flag) = error_flag(ev)
    {
        o.key("is_error");
        o.out.extend_from_slice(flag.as_bytes());
    }
    o.close();
}

/// `is_error` as the subtype says it.
fn error_flag(ev: &Event<'_>) -> Option<&'static str> {
    match ev.subtype.as_str() {
        Some("success") => Some("false"),
        Some("error") => Some("true"),
        _ => None,
    }
}

/// Appends the canonical form of one event. `started_kind`: the kind of the call a completion
/// completes, when known.
/// `forced`: the dialect every record is read as (`--dialect`), or `None` for each by its shape.
fn canonical(
    json: &str,
    ev: &Event<'_>,
    forced: Option<Dialect>,
    started_kind: Option<&str>,
    out: &mut Vec<u8>,
) {
    if ev.dialect == Dialect::Cursor {
        minify(json, out);
        return;
    }
    let mut once = Vec::new();
    map_dialect(json, ev, started_kind, &mut once);
    // A record can mix dialects (an sdk event name inside a payload wrapper): what one mapping
    // leaves, the next one maps (read as the same `--dialect`), until the record reads as cursor
    // or stops changing. Each round removes one dialect's shapes, so a few rounds suffice; this
    // keeps `fmt` idempotent.
    let mut scratch = Vec::new();
    for _ in 0..3 {
        let Ok(text) = std::str::from_utf8(&once) else {
            break;
        };
        let Ok(Parsed::Event(next)) = event::parse(text, forced, Some(&mut scratch)) else {
            break;
        };
        if next.dialect == Dialect::Cursor {
            break;
        }
        let mut again = Vec::new();
        map_dialect(text, &next, started_kind, &mut again);
        if again == once {
            break;
        }
        once = again;
    }
    out.extend_from_slice(&once);
}

/// One round of [`canonical`]: the record's own dialect mapped into the cursor form.
fn map_dialect(json: &str, ev: &Event<'_>, started_kind: Option<&str>, out: &mut Vec<u8>) {
    let Some(top) = entries(json) else {
        minify(json, out);
        return;
    };
    match ev.dialect {
        Dialect::Payload => payload(&top, ev, started_kind, out),
        Dialect::Sdk => sdk(&top, ev, started_kind, out),
        Dialect::Cursor => unreachable!("cursor records are copied above"),
    }
}

/// The keys and raw values of one JSON object, in order, repeated keys included.
type Entries<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

/// The entries of `json` when it is an object.
fn entries(json: &str) -> Option<Entries<'_>> {
    if !json.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<EntriesDe<'_>>(json)
        .ok()
        .map(|e| e.0)
}

struct EntriesDe<'a>(Entries<'a>);

impl<'de> Deserialize<'de> for EntriesDe<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EntriesDe<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(12));
                while let Some(key) = map.next_key::<KeyDe<'de>>()? {
                    out.push((key.0, map.next_value::<&'de RawValue>()?));
                }
                Ok(EntriesDe(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A key, borrowed when it has no escapes.
struct KeyDe<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for KeyDe<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyDe<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(KeyDe(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(KeyDe(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

fn is_object(v: &RawValue) -> bool {
    v.get().starts_with('{')
}

fn is_string(v: &RawValue) -> bool {
    v.get().starts_with('"')
}

/// Writes an object's entries one by one.
struct Obj<'o> {
    out: &'o mut Vec<u8>,
    empty: bool,
}

impl<'o> Obj<'o> {
    fn open(out: &'o mut Vec<u8>) -> Self {
        out.push(b'{');
        Obj { out, empty: true }
    }

    /// Writes `"key":`; the value follows.
    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        write_str(key, self.out);
        self.out.push(b':');
    }

    fn raw(&mut self, key: &str, v: &RawValue) {
        self.key(key);
        minify(v.get(), self.out);
    }

    /// Writes `"key":` and the given JSON text.
    fn lit(&mut self, key: &str, json: &str) {
        self.key(key);
        self.out.extend_from_slice(json.as_bytes());
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

/// `[{"type":"text","text":<text>}]`: a text where cursor writes `message.content`.
fn text_content(text: &RawValue, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"[{"type":"text","text":"#);
    minify(text.get(), out);
    out.extend_from_slice(b"}]");
}

/// `message` with `role` (from the event type, when missing) and its content as an array.
fn message(v: &RawValue, role: Option<&str>, out: &mut Vec<u8>) {
    let Some(m) = entries(v.get()) else {
        minify(v.get(), out);
        return;
    };
    let mut o = Obj::open(out);
    if let Some(role) = role
        && !m.iter().any(|(k, _)| k == "role")
    {
        o.key("role");
        write_str(role, o.out);
    }
    for (k, v) in &m {
        if k == "content" && is_string(v) {
            o.key(k);
            text_content(v, o.out);
        } else {
            o.raw(k, v);
        }
    }
    o.close();
}

fn role_of(ty: Option<&str>) -> Option<&str> {
    ty.filter(|t| matches!(*t, "user" | "assistant"))
}

/// Payload dialect (seed 002): the wrapper's keys move to the top level, where a key that is
/// already there keeps the wrapper's copy in the wrapper (unless the two are equal); then the
/// same moves as `event::map_payload`.
fn payload(top: &Entries<'_>, ev: &Event<'_>, started_kind: Option<&str>, out: &mut Vec<u8>) {
    let ty = ev.ty.as_str();
    // Every `payload` object is a wrapper (the classifier reads them all).
    let wrappers: Vec<(usize, Entries<'_>)> = top
        .iter()
        .enumerate()
        .filter(|(_, (k, v))| k == "payload" && is_object(v))
        .filter_map(|(i, (_, v))| entries(v.get()).map(|e| (i, e)))
        .collect();
    let wrapper = |i: usize| wrappers.iter().find(|(w, _)| *w == i).map(|(_, e)| e);
    let outer = |name: &str| {
        top.iter()
            .enumerate()
            .find(|(i, (k, _))| wrapper(*i).is_none() && k == name)
            .map(|(_, (_, v))| *v)
    };
    let has = |name: &str| {
        outer(name).is_some()
            || wrappers
                .iter()
                .any(|(_, e)| e.iter().any(|(k, _)| k == name))
    };
    let ctx = PayloadCtx {
        ty,
        ev,
        started_kind,
        has_message: has("message"),
        has_text: has("text"),
        has_tool_call: has("tool_call"),
        has_call_id: has("call_id"),
    };
    let mut o = Obj::open(out);
    let mut subtype_written = outer("subtype").is_some();
    for (i, (k, v)) in top.iter().enumerate() {
        if let Some(inner) = wrapper(i) {
            let mut kept = Vec::new();
            for (ik, iv) in inner {
                let stays = match &**ik {
                    // The event's own type and subtype are the top-level ones.
                    "type" | "subtype" | "payload" => true,
                    name => outer(name).is_some_and(|ov| !same_json(ov, iv)),
                };
                if stays {
                    kept.push((ik, *iv));
                } else if outer(ik).is_none() {
                    payload_field(&mut o, &ctx, ik, iv);
                }
            }
            if !kept.is_empty() {
                o.key("payload");
                let mut w = Obj::open(o.out);
                for (k, v) in kept {
                    w.raw(k, v);
                }
                w.close();
            }
            continue;
        }
        payload_field(&mut o, &ctx, k, v);
        // Seed 002's `thinking` names no subtype: a whole thought, `completed` canonically.
        if k == "type" && ty == Some("thinking") && !subtype_written {
            o.lit("subtype", r#""completed""#);
            subtype_written = true;
        }
    }
    o.close();
}

struct PayloadCtx<'e> {
    ty: Option<&'e str>,
    ev: &'e Event<'e>,
    started_kind: Option<&'e str>,
    has_message: bool,
    has_text: bool,
    has_tool_call: bool,
    has_call_id: bool,
}

fn payload_field(o: &mut Obj<'_>, c: &PayloadCtx<'_>, k: &str, v: &RawValue) {
    match k {
        "prompt" if c.ty == Some("user") && !c.has_message && is_string(v) => {
            o.key("message");
            o.out.extend_from_slice(br#"{"role":"user","content":"#);
            text_content(v, o.out);
            o.out.push(b'}');
        }
        "content" if c.ty == Some("thinking") && !c.has_text => o.raw("text", v),
        "message" if is_object(v) => {
            o.key("message");
            message(v, role_of(c.ty), o.out);
        }
        "toolCall" if !c.has_tool_call => payload_tool_call(o, c, v),
        _ => o.raw(k, v),
    }
}

/// `toolCall{id, <kind>{…}, result}` → `call_id` and `tool_call{<kind>{args, result}}`.
fn payload_tool_call(o: &mut Obj<'_>, c: &PayloadCtx<'_>, v: &RawValue) {
    let Some(tc) = entries(v.get()) else {
        o.raw("tool_call", v);
        return;
    };
    // Where `id` repeats, the classifier reads its last value; so does the mapping.
    let id = if c.has_call_id {
        None
    } else {
        tc.iter().rposition(|(k, _)| k == "id")
    };
    if let Some(i) = id {
        o.raw("call_id", tc[i].1);
    }
    let subtype = c.ev.subtype.as_str();
    let names_kind = tc.iter().any(|(k, _)| event::is_kind_key(k));
    // A completion that names no kind is written with its start's.
    let fill = match subtype {
        Some("completed") if !names_kind => c.started_kind,
        _ => None,
    };
    o.key("tool_call");
    let mut w = Obj::open(o.out);
    let mut body_written = false;
    for (j, (k, v)) in tc.iter().enumerate() {
        if Some(j) == id {
            continue;
        }
        if let Some(kind) = fill
            && matches!(&**k, "args" | "result")
        {
            if !body_written {
                body_written = true;
                w.key(kind);
                let mut b = Obj::open(w.out);
                for (k, v) in tc.iter().filter(|(k, _)| matches!(&**k, "args" | "result")) {
                    b.raw(k, v);
                }
                b.close();
            }
            continue;
        }
        if subtype == Some("started") && event::is_kind_key(k) && is_object(v) {
            w.key(k);
            kind_body(v, w.out);
        } else {
            w.raw(k, v);
        }
    }
    w.close();
}

/// A started kind whose fields are its arguments (`writeFileToolCall{path, contents}`) gets them
/// under `args`; `name` stays beside them. A body with `args` (or `arguments`, or a `result`) is
/// kept as it is.
fn kind_body(v: &RawValue, out: &mut Vec<u8>) {
    let body = entries(v.get()).unwrap_or_default();
    let flat = !body
        .iter()
        .any(|(k, _)| matches!(&**k, "args" | "arguments" | "result"))
        && body.iter().any(|(k, _)| k != "name");
    if !flat {
        minify(v.get(), out);
        return;
    }
    let mut o = Obj::open(out);
    let mut args_written = false;
    for (k, v) in &body {
        if k == "name" {
            o.raw(k, v);
        } else if !args_written {
            args_written = true;
            o.key("args");
            let mut a = Obj::open(o.out);
            for (k, v) in body.iter().filter(|(k, _)| k != "name") {
                a.raw(k, v);
            }
            a.close();
        }
    }
    o.close();
}

/// Whether two raw JSON values are the same text once the whitespace between tokens is gone.
fn same_json(a: &RawValue, b: &RawValue) -> bool {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    minify(a.get(), &mut x);
    minify(b.get(), &mut y);
    x == y
}

/// Sdk dialect (seed 004, cloud SDK): the same moves as `event::map_sdk`.
fn sdk(top: &Entries<'_>, ev: &Event<'_>, started_kind: Option<&str>, out: &mut Vec<u8>) {
    let ty = ev.ty.as_str();
    let has = |name: &str| top.iter().any(|(k, _)| k == name);
    // Where a key repeats, the classifier reads its last value; so does the mapping.
    let last_error = top.iter().rposition(|(k, _)| k == "error");
    let is_tool_type = |v: &RawValue| {
        matches!(
            v.get(),
            r#""tool-call-started""# | r#""tool-call-completed""#
        )
    };
    let tool_event = top
        .iter()
        .rev()
        .find(|(k, _)| k == "type")
        .is_some_and(|(_, v)| is_tool_type(v));
    let tool = ty == Some("tool_call");
    let build_tool = tool && !has("tool_call");
    let alias = if tool && !has("call_id") {
        top.iter()
            .position(|(k, _)| matches!(&**k, "tool_call_id" | "callId"))
    } else {
        None
    };
    let absorbed = |k: &str, v: &RawValue| {
        build_tool
            && (matches!(k, "tool_name" | "parameters" | "result")
                || (k == "toolCall" && is_object(v)))
    };
    let mut o = Obj::open(out);
    let mut tool_written = false;
    let mut type_written = false;
    for (i, (k, v)) in top.iter().enumerate() {
        match &**k {
            "type" if tool_event && is_tool_type(v) => {
                o.lit("type", r#""tool_call""#);
                if !type_written {
                    type_written = true;
                    o.key("subtype");
                    write_str(ev.subtype.as_str().unwrap_or_default(), o.out);
                }
            }
            // The mapped subtype replaces any the record had.
            "subtype" if tool_event => {}
            _ if Some(i) == alias => o.raw("call_id", v),
            k if absorbed(k, v) => {
                if !tool_written {
                    tool_written = true;
                    o.key("tool_call");
                    sdk_tool_call(top, ev, started_kind, o.out);
                }
            }
            "text" if ty == Some("assistant") && !has("message") => {
                o.key("message");
                o.out
                    .extend_from_slice(br#"{"role":"assistant","content":"#);
                text_content(v, o.out);
                o.out.push(b'}');
            }
            "error" if ty == Some("result") && !has("result") && Some(i) == last_error => {
                o.raw("result", v)
            }
            _ => o.raw(k, v),
        }
    }
    if ty == Some("result")
        && !has("is_error")
        && let Some(flag) = error_flag(ev)
    {
        o.lit("is_error", flag);
    }
    o.close();
}

/// `tool_call` of an sdk event: `{<kind>:{name, args, result}, …the rest of toolCall}`, or the
/// same fields directly in it when no kind is known.
fn sdk_tool_call(top: &Entries<'_>, ev: &Event<'_>, started_kind: Option<&str>, out: &mut Vec<u8>) {
    let last = |name: &str| top.iter().rev().find(|(k, _)| k == name).map(|(_, v)| *v);
    let camel = last("toolCall")
        .filter(|v| is_object(v))
        .and_then(|v| entries(v.get()))
        .unwrap_or_default();
    let in_camel = |name: &str| camel.iter().rev().find(|(k, _)| k == name).map(|(_, v)| *v);
    let name = last("tool_name").or_else(|| in_camel("type"));
    // As the classifier reads it: a `tool_name` that is not a string names no kind.
    let named = match last("tool_name") {
        Some(v) => string_value(v),
        None => in_camel("type").and_then(string_value),
    };
    let kind: Option<Cow<'_, str>> =
        named.as_deref().and_then(event::sdk_tool_kind).or_else(|| {
            (ev.subtype.as_str() == Some("completed"))
                .then_some(started_kind)
                .flatten()
                .map(Cow::Borrowed)
        });
    let args = last("parameters").or_else(|| in_camel("args"));
    let result = last("result").or_else(|| in_camel("result"));
    let mut o = Obj::open(out);
    {
        let write_fields = |b: &mut Obj<'_>| {
            if let Some(v) = name {
                b.raw("name", v);
            }
            if let Some(v) = args {
                b.raw("args", v);
            }
            if let Some(v) = result {
                b.raw("result", v);
            }
        };
        match &kind {
            Some(kind) => {
                o.key(kind);
                let mut b = Obj::open(o.out);
                write_fields(&mut b);
                b.close();
            }
            None => write_fields(&mut o),
        }
    }
    for (k, v) in &camel {
        if !matches!(&**k, "type" | "args" | "result") {
            o.raw(k, v);
        }
    }
    o.close();
}

/// The text of a JSON string value.
fn string_value(v: &RawValue) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<Field<'_>>(v.get()) {
        Ok(Field::Str(s)) => Some(s),
        _ => None,
    }
}

/// Appends `json` without the whitespace between its tokens (strings are copied as they are).
fn minify(json: &str, out: &mut Vec<u8>) {
    let b = json.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i);
                out.extend_from_slice(&b[i..end]);
                i = end;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                // Copy the run up to the next string or whitespace at once.
                let run = b[i..]
                    .iter()
                    .position(|&c| matches!(c, b'"' | b' ' | b'\t' | b'\n' | b'\r'))
                    .unwrap_or(b.len() - i);
                out.extend_from_slice(&b[i..i + run]);
                i += run;
            }
        }
    }
}

/// `b[i]` opens a string; the index after its closing quote.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(k) = memchr::memchr2(b'"', b'\\', &b[j..]) {
        j += k;
        if b[j] == b'\\' {
            j += 2;
        } else {
            return j + 1;
        }
    }
    b.len()
}

/// Appends `s` as a JSON string: quotes, backslashes and control characters escaped, everything
/// else as UTF-8.
fn write_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => {
                out.extend_from_slice(&b[start..i]);
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 15) as usize]);
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&b[start..i]);
        out.extend_from_slice(esc);
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8], opts: FmtOptions) -> (String, FmtTotals) {
        let mut out = Vec::new();
        let check = CheckOptions {
            enabled: reported_rules(),
            ..Default::default()
        };
        let totals = format(input, &check, &opts, &mut out, &mut |_| Ok(())).unwrap();
        (String::from_utf8(out).unwrap(), totals)
    }

    fn fmt(input: &str) -> String {
        run(input.as_bytes(), FmtOptions::default()).0
    }

    #[test]
    fn a_record_mixing_dialects_is_mapped_until_it_reads_as_cursor() {
        // Found by fuzzing: an sdk event name inside a payload wrapper came out of one `fmt` as
        // an sdk record, which the next `fmt` mapped again.
        let once = fmt("{\"type\":\"tool-call-completed\",\"payload\": {\"content\": \"A,\"}}\n");
        assert_eq!(
            once,
            "{\"type\":\"tool_call\",\"subtype\":\"completed\",\"content\":\"A,\"}\n"
        );
        assert_eq!(fmt(&once), once);
    }

    #[test]
    fn a_mixed_record_is_checked_as_fmt_writes_it() {
        // Found by fuzzing: the input read as an unknown payload event, fmt's output as a tool
        // call; both now read as the tool call.
        let input = "{\"type\":\"tool-call-started\",\"payload\":{\"toolCall\":{\"i\":{}}}}\n";
        let rules = |bytes: &[u8]| {
            let mut found = Vec::new();
            crate::check::check(bytes, &CheckOptions::default(), &mut |d| {
                found.push(d.rule);
                Ok(())
            })
            .unwrap();
            found
        };
        let out = fmt(input);
        assert!(
            out.starts_with("{\"type\":\"tool_call\",\"subtype\":\"started\""),
            "{out}"
        );
        assert_eq!(rules(out.as_bytes()), rules(input.as_bytes()));
    }

    #[test]
    fn minify_keeps_strings_and_number_text() {
        let mut out = Vec::new();
        minify(
            "{ \"a b\" : [ 1.50E+3 , -0 , \"x \\\" y\" ] ,\r\n\t\"c\":{} }",
            &mut out,
        );
        assert_eq!(out, br#"{"a b":[1.50E+3,-0,"x \" y"],"c":{}}"#);
    }

    #[test]
    fn write_str_escapes_only_what_json_requires() {
        let mut out = Vec::new();
        write_str("a\"b\\c\nd\u{1}é→", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a\\\"b\\\\c\\nd\\u0001é→\""
        );
    }

    #[test]
    fn canonical_records_are_copied_byte_for_byte() {
        let line = r#"{"type":"tool_call","subtype":"started","call_id":"c\nfc","tool_call":{"zToolCall":{"args":{"n":1.0e2,"big":123456789012345678901234567890}}},"extra":[null,true],"session_id":"s","timestamp_ms":17708234340410}"#;
        assert_eq!(fmt(&format!("{line}\n")), format!("{line}\n"));
        // A final record without LF gets one; CRLF, BOM and blank lines go.
        assert_eq!(
            fmt(&format!("\u{feff}{line}\r\n\n{line}")),
            format!("{line}\n{line}\n")
        );
    }

    #[test]
    fn raw_control_characters_are_escaped() {
        let input = "{\"type\":\"user\",\"call_id\":\"a\nb\",\"t\":\"x\ty\"}\n";
        assert_eq!(
            fmt(input),
            "{\"type\":\"user\",\"call_id\":\"a\\nb\",\"t\":\"x\\ty\"}\n"
        );
    }

    #[test]
    fn payload_keys_move_out_of_the_wrapper() {
        assert_eq!(
            fmt(
                r#"{"type": "result", "subtype": "success", "exitCode": 0, "payload": {"exitCode": 0, "is_error": false}}"#
            ),
            "{\"type\":\"result\",\"subtype\":\"success\",\"exitCode\":0,\"is_error\":false}\n"
        );
        // A wrapper key that repeats a top-level one with another value stays in the wrapper.
        assert_eq!(
            fmt(
                r#"{"type":"result","subtype":"error","exitCode":1,"payload":{"exitCode":2,"type":"x","is_error":true}}"#
            ),
            "{\"type\":\"result\",\"subtype\":\"error\",\"exitCode\":1,\"is_error\":true,\"payload\":{\"exitCode\":2,\"type\":\"x\"}}\n"
        );
        assert_eq!(
            fmt(r#"{"type":"assistant","payload":{"message":{"content":"hi","id":7}}}"#),
            "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"id\":7}}\n"
        );
        assert_eq!(
            fmt(r#"{"type":"thinking","payload":{"content":"hmm"}}"#),
            "{\"type\":\"thinking\",\"subtype\":\"completed\",\"text\":\"hmm\"}\n"
        );
    }

    #[test]
    fn a_completion_without_kind_takes_its_starts() {
        let input = r#"{"type":"tool_call","subtype":"started","payload":{"toolCall":{"id":"t1","shellToolCall":{"name":"shell","args":{"command":"ls"}}}}}
{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"t1","result":{"exitCode":0}}}}
{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"t9","result":{"exitCode":0}}}}
"#;
        let out = fmt(input);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            r#"{"type":"tool_call","subtype":"completed","call_id":"t1","tool_call":{"shellToolCall":{"result":{"exitCode":0}}}}"#
        );
        // No start, no kind: the result stays directly in `tool_call`.
        assert_eq!(
            lines[2],
            r#"{"type":"tool_call","subtype":"completed","call_id":"t9","tool_call":{"result":{"exitCode":0}}}"#
        );
    }

    #[test]
    fn sdk_events_take_cursors_envelope() {
        let input = r#"{"type":"tool-call-started","tool_name":"Foo","tool_call_id":"c1","parameters":{"x":1}}
{"type":"tool-call-completed","tool_call_id":"c1","result":{"success":true},"duration_ms":3}
{"type":"assistant","text":"The ","timestamp_ms":1705123456790}
{"type":"result","subtype":"error","error":"Request timed out","session_id":"s"}
"#;
        let out = fmt(input);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"tool_call","subtype":"started","tool_call":{"fooToolCall":{"name":"Foo","args":{"x":1}}},"call_id":"c1"}"#,
                r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"fooToolCall":{"result":{"success":true}}},"duration_ms":3}"#,
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"The "}]},"timestamp_ms":1705123456790}"#,
                r#"{"type":"result","subtype":"error","result":"Request timed out","session_id":"s","is_error":true}"#,
            ]
        );
    }

    #[test]
    fn invalid_records_are_left_out_or_kept_as_raw() {
        let input = b"{\"type\":\"user\"}\nnot json \x1b[31m\n[1]\n{\"a\":\"\xff\"}\n";
        let (out, totals) = run(input, FmtOptions::default());
        assert_eq!(out, "{\"type\":\"user\"}\n");
        assert_eq!(totals.invalid, 3);
        let keep = FmtOptions {
            keep_invalid: true,
            ..Default::default()
        };
        let (out, _) = run(input, keep);
        assert_eq!(
            out,
            "{\"type\":\"user\"}\n{\"type\":\"raw\",\"data\":\"not json \\u001b[31m\"}\n{\"type\":\"raw\",\"data\":\"[1]\"}\n{\"type\":\"raw\",\"data\":\"{\\\"a\\\":\\\"\u{fffd}\\\"}\"}\n"
        );
    }

    #[test]
    fn drop_filters_thinking_and_deltas() {
        let input = r#"{"type":"thinking","subtype":"delta","text":"a","session_id":"s","timestamp_ms":1}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"He"}]},"session_id":"s","timestamp_ms":2}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"He"}]},"session_id":"s"}
{"type":"assistant","text":"x","timestamp_ms":3}
"#;
        let opts = FmtOptions {
            drop_thinking: true,
            drop_deltas: true,
            ..Default::default()
        };
        let (out, _) = run(input.as_bytes(), opts);
        let lines: Vec<&str> = out.lines().collect();
        // The delta its flush repeats goes; the last one, repeated by nothing, stays.
        assert_eq!(
            lines,
            [
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"He"}]},"session_id":"s"}"#,
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"timestamp_ms":3}"#,
            ]
        );
    }

    #[test]
    fn to_json_writes_one_result_per_session() {
        let input = r#"{"type":"system","subtype":"init","session_id":"a"}
{"type":"assistant","text":"Hel","timestamp_ms":1}
{"type":"assistant","text":"lo","timestamp_ms":2}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]}}
{"type":"result","subtype":"success","duration_ms":5}
{"type": "system", "subtype": "init", "payload": {}}
{"type": "assistant", "payload": {"message": {"content": "Hi"}}}
{"type": "result", "subtype": "success", "payload": {"is_error": false}}
{"type":"system","subtype":"init","session_id":"c"}
"#;
        let opts = FmtOptions {
            to: Target::Json,
            ..Default::default()
        };
        let (out, totals) = run(input.as_bytes(), opts);
        assert_eq!(
            out,
            "{\"type\":\"result\",\"subtype\":\"success\",\"duration_ms\":5,\"result\":\"Hello\",\"session_id\":\"a\",\"is_error\":false}\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Hi\"}\n"
        );
        assert_eq!(totals.unfinished, 1);
    }

    #[test]
    fn a_closed_output_stops_the_run() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let input = "{\"type\":\"user\"}\n".repeat(100_000);
        let err = format(
            input.as_bytes(),
            &CheckOptions::default(),
            &FmtOptions::default(),
            &mut Closed,
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
