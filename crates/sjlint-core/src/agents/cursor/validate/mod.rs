//! The validator: schema, lifecycle, pairing and result rules over the stream of events.
//!
//! It owns the small state those rules need (the current session, open tool calls, open
//! interaction queries, announced call ids, running hashes of the assistant text), all of it owned
//! (`Box<str>` keys) so nothing borrows the splitter's buffer across records. It reads only the
//! canonical [`Event`] view, so every dialect that maps into that view gets every rule. It must
//! not print: each finding goes to the `emit` callback the moment it is known, and end-of-input
//! findings come from [`Validator::finish`].
//!
//! The one thing it asks of the dialect is which fields are required. Cursor writes `session_id`
//! on every event and `is_error` and `result` on every result; seed 004's client writes
//! `session_id` only on `system`/`init` and `result` and may leave out `is_error`, and seed 002's
//! wrapper writes no session id and no result text at all. So a session is held to cursor's
//! required fields only when it opens with a cursor-shaped `system`/`init`; the other sessions
//! require what every dialect writes, except that a `result` naming its session in a stream with
//! no init (the `--output-format json` form) still needs `is_error` and `result`. None of it
//! depends on which other event comes first, so leaving events out (`fmt --drop`) changes
//! nothing.
//!
//! This file holds the state and routes each event to the rules; the rules live in one module
//! per group of the rule table, one function per rule named after the condition it checks:
//! `schema` (one event on its own), `lifecycle` (sessions: init, result, ids, time,
//! thinking), `tool_calls` (pairing calls and queries) and `result` (the result's text). The
//! running hashes of the assistant text the session keeps are in `assistant_text`.

mod assistant_text;
mod lifecycle;
mod result;
mod schema;
mod tool_calls;

pub use assistant_text::TextHash;
pub(crate) use result::did_nothing_finding;
pub use schema::KNOWN_TOOL_KINDS;

use crate::agents::cursor::view::Event;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::locate;
use crate::rules::messages::EventType;
use crate::rules::{Rule, RuleSet};
use lifecycle::{Opening, Session};
use std::collections::{HashMap, HashSet};
use tool_calls::Pairing;

/// Maps keyed by ids from the stream: foldhash is several times faster than `SipHash` on short
/// keys and, seeded per process, keeps crafted ids from forcing collisions.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = HashSet<K, foldhash::fast::RandomState>;

pub struct Validator {
    enabled: RuleSet,
    session: Option<Session>,
    /// What is open in the session: tool calls, interaction queries, announced call ids.
    pairing: Pairing,
    /// The id of the last session, kept for the next session's.
    spare_session_id: String,
    records: u64,
    /// Records that were events (every call of [`Validator::check`]).
    events: u64,
    /// The dialect of the last event.
    last_dialect: crate::agents::cursor::view::Dialect,
    /// A record that could not be read as an event came after the last session ended (or
    /// before the first began): it may have been the next `system`/`init`.
    unreadable_between: Option<u64>,
    /// `missing-init` for a stream whose first event is a `result`: only a finding when anything
    /// follows it, since a lone `result` is the `--output-format json` form.
    deferred_missing_init: Option<Diagnostic>,
    /// An event with a string `type` was seen. Until one is, `missing-init` waits in
    /// `untyped_missing_init`: when no event of the stream has a type, the stream is no event
    /// stream at all, and `missing-type` is its one finding, not `missing-init` and
    /// `missing-result` besides.
    typed: bool,
    /// `missing-init` for a stream whose first event has no type, while no event has one.
    untyped_missing_init: Option<Diagnostic>,
}

impl Validator {
    pub fn new(enabled: RuleSet) -> Validator {
        Validator {
            enabled,
            session: None,
            pairing: Pairing::new(),
            spare_session_id: String::new(),
            records: 0,
            events: 0,
            last_dialect: crate::agents::cursor::view::Dialect::Cursor,
            unreadable_between: None,
            deferred_missing_init: None,
            typed: false,
            untyped_missing_init: None,
        }
    }

    /// How many records were events so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The dialect of the last event checked.
    pub fn last_dialect(&self) -> crate::agents::cursor::view::Dialect {
        self.last_dialect
    }

    /// A record that may have been an event could not be read (too large, cut off, not JSON):
    /// the findings it would cause as a missing event are not made (see [`Session`]).
    pub fn on_unreadable(&mut self, line: u64) {
        match &mut self.session {
            Some(s) if s.result_line.is_none() => s.unreadable = Some(line),
            _ => self.unreadable_between = Some(line),
        }
    }

    /// Keeps at most `n` tool calls and queries open per session (at least one).
    pub fn max_open_calls(mut self, n: usize) -> Validator {
        self.pairing.max_open = n.max(1);
        self
    }

    /// Called for every record, parsed or not, before `check` (when it parses).
    pub fn on_record(&mut self, emit: &mut impl FnMut(Diagnostic)) {
        self.records += 1;
        if self.records > 1
            && let Some(d) = self.deferred_missing_init.take()
        {
            emit(d);
        }
    }

    /// Checks one event. `bytes` are the bytes it was parsed from (used only to point at fields).
    pub fn check(
        &mut self,
        pos: Position,
        bytes: &[u8],
        ev: &Event<'_>,
        emit: &mut impl FnMut(Diagnostic),
    ) {
        self.events += 1;
        self.last_dialect = ev.dialect;
        let mut ctx = Ctx {
            enabled: self.enabled,
            pos,
            bytes,
            emit,
        };
        let (ty, subtype) = (ev.ty.as_str(), ev.subtype.as_str());
        if !self.typed && ty.is_some() {
            self.typed = true;
            if let Some(d) = self.untyped_missing_init.take() {
                ctx.emit(d);
            }
        }
        let is_init = ty == Some("system") && subtype == Some("init");
        let opening = match &self.session {
            Some(s) if !is_init => s.opening,
            _ => Opening::of(ev, is_init),
        };
        schema::check(&mut ctx, ev, opening.required(ev));
        let line = pos.line;
        if self.outside_sessions(ty, ev, line) {
            return;
        }
        if !self.enter_session(&mut ctx, ev, is_init, opening) {
            return;
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        session.last_line = line;
        lifecycle::session_id_mismatch(&mut ctx, session, ev, &mut self.spare_session_id);
        lifecycle::timestamp_regression(&mut ctx, session, ev);
        lifecycle::thinking_not_completed(&mut ctx, session, ev, (ty, subtype));
        let unreadable = session.unreadable.is_some();
        match (ty, subtype) {
            (Some("assistant"), _) => result::track_assistant_text(&mut session.text, ev),
            (Some("tool_call"), Some("started")) => {
                session.calls += 1;
                self.pairing.started(&mut ctx, ev);
            }
            (Some("tool_call"), Some("completed")) => {
                self.pairing.completed(&mut ctx, ev, unreadable);
            }
            (Some("interaction_query"), Some("request")) => {
                self.pairing.query_requested(&mut ctx, ev);
            }
            (Some("interaction_query"), Some("response")) => {
                self.pairing.orphan_query_response(&mut ctx, ev, unreadable);
            }
            (Some("result"), _) => {
                session.result_line = Some(line);
                result::result_text_mismatch(&mut ctx, session, ev);
                result::did_nothing(&mut ctx, session, ev);
                self.close_session(&mut ctx);
            }
            _ => {}
        }
    }

    /// Whether `ev` (of type `ty`) stands outside the session lifecycle: a `raw` event stands for a line its
    /// writer could not parse (seed 002, and `sjlint fmt --keep-invalid`), not an event of the
    /// run; when that line was a record, what its absence would cause is not reported, as for
    /// the record itself (`fmt --keep-invalid` keeps both alike). A transport record before the
    /// session's init (a retry of the first connection) does not open the session.
    fn outside_sessions(&mut self, ty: Option<&str>, ev: &Event<'_>, line: u64) -> bool {
        match ty {
            Some("raw") => {
                if ev
                    .data
                    .as_str()
                    .is_some_and(|d| d.trim_start().starts_with('{'))
                {
                    self.on_unreadable(line);
                }
                true
            }
            Some("connection" | "retry") => self.session.is_none(),
            _ => false,
        }
    }

    /// A session has begun and its `result` has not come.
    pub fn session_open(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| s.result_line.is_none())
    }

    /// End of input: the findings that wait for it.
    pub fn finish(&mut self, emit: &mut impl FnMut(Diagnostic)) {
        self.deferred_missing_init = None;
        if !self.typed && self.session.is_some() {
            // No event had a type: each has its `missing-type`, and that is the stream's fault.
            self.untyped_missing_init = None;
            return;
        }
        let mut ctx = Ctx {
            enabled: self.enabled,
            pos: Position::default(),
            bytes: &[],
            emit,
        };
        self.missing_result(&mut ctx);
    }
}

/// What each check needs to report: the enabled set, where the record is, its bytes.
struct Ctx<'b, 'e, F> {
    enabled: RuleSet,
    pos: Position,
    bytes: &'b [u8],
    emit: &'e mut F,
}

impl<F: FnMut(Diagnostic)> Ctx<'_, '_, F> {
    /// Whether findings of `rule` are reported. Rules that healthy runs trip (a new tool kind or
    /// event type, on every record of it) ask first, so that ignoring them costs no message per
    /// record; the rest are built and dropped by `emit`.
    fn wants(&self, rule: Rule) -> bool {
        self.enabled.contains(rule)
    }

    fn emit(&mut self, d: Diagnostic) {
        if self.enabled.contains(d.rule) {
            (self.emit)(d);
        }
    }

    /// Emits `d` pointing at the key (or, with `value`, the value) at `path` in the record.
    fn emit_at(&mut self, d: Diagnostic, path: &[&str], value: bool) {
        if !self.enabled.contains(d.rule) {
            return;
        }
        let span = locate::in_any_dialect(self.bytes, path, value);
        let d = match span {
            Some(span) => d.at(self.bytes, span),
            None => d.with_snippet(self.bytes),
        };
        (self.emit)(d);
    }
}

/// A session's end, known by its line alone.
fn line_pos(line: u64) -> Position {
    Position {
        byte: crate::diagnostic::UNKNOWN_BYTE,
        line,
        record: 0,
    }
}

/// An event's type and subtype, as the messages of findings name it.
fn event_type<'e>(ev: &'e Event<'_>) -> EventType<'e> {
    EventType {
        ty: ev.ty.as_str(),
        subtype: ev.subtype.as_str(),
    }
}
