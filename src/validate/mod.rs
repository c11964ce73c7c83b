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

use crate::diagnostic::Diagnostic;
use crate::event::{Dialect, Event, Field};
use crate::input::record::{Position, Record};
use crate::locate;
use crate::pairing::{ShownKey, key_of};
use crate::rules::{Rule, RuleSet};
use crate::text::Excerpt;
use result::TextTracker;
use std::collections::{HashMap, HashSet};

mod result;
mod schema;

pub(crate) use result::TextHash;
pub use schema::KNOWN_TOOL_KINDS;
use schema::Required;

/// Maps keyed by ids from the stream: foldhash is several times faster than SipHash on short
/// keys and, seeded per process, keeps crafted ids from forcing collisions.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = HashSet<K, foldhash::fast::RandomState>;

/// How a session began, which decides the fields its events must have.
#[derive(Clone, Copy)]
struct Opening {
    /// With cursor's own `system`/`init` (or one wrapping it): cursor's fields are required.
    cursor_init: bool,
    /// With a `system`/`init` of any dialect, rather than with whatever event came first.
    by_init: bool,
}

impl Opening {
    fn required(self, ev: &Event<'_>) -> Required {
        Required {
            session_id: self.cursor_init,
            result_fields: self.cursor_init || (!self.by_init && ev.session_id.is_present()),
        }
    }
}

struct Session {
    id: Option<String>,
    opening: Opening,
    start_line: u64,
    result_line: Option<u64>,
    last_line: u64,
    last_timestamp: Option<(u64, u64)>,
    /// Line of the first `thinking`/`delta` of a thinking phase not yet completed.
    thinking_since: Option<u64>,
    text: TextTracker,
    /// Line of the last record of the session (or just before it began) that could not be read
    /// as an event. It may have been any event, so the findings it could cause are not made:
    /// no `unfinished-tool-call` for a call started before it, no orphan completions, no
    /// `missing-result` when it came last, no `result-text-mismatch`.
    unreadable: Option<u64>,
}

impl Session {
    fn new(line: u64, opening: Opening) -> Session {
        Session {
            id: None,
            opening,
            start_line: line,
            result_line: None,
            last_line: line,
            last_timestamp: None,
            thinking_since: None,
            text: TextTracker::default(),
            unreadable: None,
        }
    }
}

struct OpenCall {
    line: u64,
    /// The tool kind it started with.
    kind: Option<KindRef>,
    args: Option<u64>,
    /// The start of the `started` record's first line (at most [`HEAD_BYTES`]), for the
    /// snippet of `unfinished-tool-call`; a string taken from `spare_heads` and put back there.
    head: String,
    /// Where the `started` record is: the finding points there.
    start: Position,
}

/// Bytes of a `started` record kept for the snippet of an unfinished call.
const HEAD_BYTES: usize = 160;

pub struct Validator {
    enabled: RuleSet,
    session: Option<Session>,
    calls: Map<String, OpenCall>,
    /// The id of the last session, kept for the next session's.
    spare_session_id: String,
    /// The keys of calls that have completed, of queries that were answered and of announced ids
    /// that were let go, kept for the next keys of any of the three, so that a steady stream of
    /// calls and queries allocates nothing.
    spare_ids: Vec<String>,
    /// Tool kinds by name, for the open calls: a stream names a handful, a hostile one any number.
    kinds: Kinds,
    /// The `head`s of calls that have completed, kept for the next calls'.
    spare_heads: Vec<String>,
    /// `toolCallId`s announced by `interaction_query` requests that have not completed yet.
    announced: Set<String>,
    /// Open `interaction_query` requests by `id` (a number in its decimal form), with their lines.
    queries: Map<String, u64>,
    records: u64,
    /// Records that were events (every call of [`Validator::check`]).
    events: u64,
    /// A record that could not be read as an event came after the last session ended (or
    /// before the first began): it may have been the next `system`/`init`.
    unreadable_between: Option<u64>,
    /// `missing-init` for a stream whose first event is a `result`: only a finding when anything
    /// follows it, since a lone `result` is the `--output-format json` form.
    deferred_missing_init: Option<Diagnostic>,
    /// Most entries of `calls`, `queries` and `announced` together (`--max-open-calls`).
    max_open: usize,
    /// The budget was spent in this session: said once, and completions and responses that
    /// find no entry are no longer orphans for sure.
    over_budget: bool,
    /// Where the key of a long id is written (`pairing::key_of`).
    scratch: String,
}

impl Validator {
    pub fn new(enabled: RuleSet) -> Validator {
        Validator {
            enabled,
            session: None,
            calls: Map::default(),
            spare_session_id: String::new(),
            spare_ids: Vec::new(),
            kinds: Kinds::default(),
            spare_heads: Vec::new(),
            announced: Set::default(),
            queries: Map::default(),
            records: 0,
            events: 0,
            unreadable_between: None,
            deferred_missing_init: None,
            max_open: crate::pairing::DEFAULT_MAX_OPEN_CALLS,
            over_budget: false,
            scratch: String::new(),
        }
    }

    /// How many records were events so far.
    pub fn events(&self) -> u64 {
        self.events
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
        self.max_open = n.max(1);
        self
    }

    /// Entries of pairing state held now.
    fn open_entries(&self) -> usize {
        self.calls.len() + self.queries.len() + self.announced.len()
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
        rec: &Record<'_>,
        bytes: &[u8],
        ev: &Event<'_>,
        emit: &mut impl FnMut(Diagnostic),
    ) {
        self.events += 1;
        let mut ctx = Ctx {
            enabled: self.enabled,
            pos: rec.pos,
            bytes,
            emit,
        };
        let ty = ev.ty.as_str();
        let subtype = ev.subtype.as_str();
        let is_init = ty == Some("system") && subtype == Some("init");
        let opening = match &self.session {
            Some(s) if !is_init => s.opening,
            _ => Opening {
                cursor_init: is_init && (ev.init_keys || ev.dialect == Dialect::Cursor),
                by_init: is_init,
            },
        };
        schema::check(&mut ctx, ev, opening.required(ev));
        let line = rec.pos.line;
        // A `raw` event stands for a line its writer could not parse (seed 002, and `sjlint fmt
        // --keep-invalid`): not an event of the run, so outside the session lifecycle.
        if ty == Some("raw") {
            // It stands for a record that could not be read: what its absence would cause is
            // not reported, as for the record itself (`fmt --keep-invalid` keeps both alike).
            if ev
                .data
                .as_str()
                .is_some_and(|d| d.trim_start().starts_with('{'))
            {
                self.on_unreadable(line);
            }
            return;
        }
        // A transport record before the session's init (a retry of the first connection) does
        // not open the session.
        if matches!(ty, Some("connection" | "retry")) && self.session.is_none() {
            return;
        }

        // Which session does this event belong to?
        match &mut self.session {
            None => {
                self.open_session(line, opening);
                if !is_init
                    && self
                        .session
                        .as_ref()
                        .is_some_and(|s| s.unreadable.is_none())
                {
                    let d = Diagnostic::new(
                        Rule::MissingInit,
                        rec.pos,
                        format!(
                            "the stream starts with {} instead of `system`/`init`",
                            describe(ev)
                        ),
                    )
                    .with_snippet(bytes)
                    .with_help("a cursor-agent stream begins with a `system`/`init` event; was the start of the stream cut off?");
                    if ty == Some("result") && self.records <= 1 {
                        if self.enabled.contains(Rule::MissingInit) {
                            self.deferred_missing_init = Some(d);
                        }
                    } else {
                        ctx.emit(d);
                    }
                }
            }
            Some(s) if s.result_line.is_some() => {
                // After an unreadable record, which may have been the next init.
                if is_init || self.unreadable_between.is_some() {
                    self.open_session(line, opening);
                } else {
                    let result_line = s.result_line.unwrap_or_default();
                    s.last_line = line;
                    ctx.emit(
                        Diagnostic::new(
                            Rule::EventAfterResult,
                            rec.pos,
                            format!(
                                "{} after the session's `result`; nothing follows `result` but a new `system`/`init`",
                                describe(ev)
                            ),
                        )
                        .with_snippet(bytes)
                        .with_related(result_line, "the session's result"),
                    );
                    return;
                }
            }
            // After an unreadable record, which may have been the session's result.
            Some(s) if is_init && s.unreadable.is_some_and(|u| u > s.last_line) => {
                self.close_session(&mut ctx);
                self.open_session(line, opening);
            }
            Some(s) if is_init => {
                let new_id = ev.session_id.as_str();
                let other_run = matches!((&s.id, new_id), (Some(a), Some(b)) if **a != *b);
                let start = s.start_line;
                let mut d = Diagnostic::new(
                    Rule::DuplicateInit,
                    rec.pos,
                    "a second `system`/`init` inside a session that has no `result` yet",
                )
                .with_snippet(bytes)
                .with_related(start, "the session started here");
                if other_run {
                    d = d.with_help(
                        "it names another session_id: the previous run ended without a `result` (killed or crashed?) and a new one was appended",
                    );
                }
                ctx.emit(d);
                if other_run {
                    self.close_session(&mut ctx);
                    self.open_session(line, opening);
                }
            }
            Some(_) => {}
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        session.last_line = line;

        if let Some(id) = ev.session_id.as_str() {
            match &session.id {
                None => {
                    let mut kept = std::mem::take(&mut self.spare_session_id);
                    kept.clear();
                    kept.push_str(id);
                    session.id = Some(kept);
                }
                Some(expected) if **expected != *id => {
                    let d = Diagnostic::new(
                        Rule::SessionIdMismatch,
                        rec.pos,
                        format!(
                            "session_id {:?} differs from the session's {:?}",
                            Excerpt(id),
                            Excerpt(expected)
                        ),
                    )
                    .with_related(session.start_line, "the session started here");
                    ctx.emit_at(d, &["session_id"], true);
                }
                Some(_) => {}
            }
        }

        if let Some(ts) = ev.timestamp_ms.as_millis() {
            if let Some((prev, prev_line)) = session.last_timestamp
                && ts < prev
            {
                let d = Diagnostic::new(
                    Rule::TimestampRegression,
                    rec.pos,
                    format!(
                        "timestamp_ms {ts} is {} ms earlier than the previous event's {prev}",
                        prev - ts
                    ),
                )
                .with_related(prev_line, "the previous timestamp");
                ctx.emit_at(d, &["timestamp_ms"], true);
            }
            session.last_timestamp = Some((ts, line));
        }

        match (ty, subtype) {
            (Some("thinking"), Some("delta")) => {
                session.thinking_since.get_or_insert(line);
            }
            (Some("thinking"), _) => session.thinking_since = None,
            _ => {
                // Not when a record that could not be read came since: it may have been the
                // phase's `thinking`/`completed`.
                if let Some(since) = session
                    .thinking_since
                    .take()
                    .filter(|since| session.unreadable.is_none_or(|u| u < *since))
                {
                    ctx.emit(
                        Diagnostic::new(
                            Rule::ThinkingNotCompleted,
                            rec.pos,
                            format!(
                                "{} ends a thinking phase that has no `thinking`/`completed`",
                                describe(ev)
                            ),
                        )
                        .with_snippet(bytes)
                        .with_related(since, "the thinking phase began here"),
                    );
                }
            }
        }

        match (ty, subtype) {
            (Some("assistant"), _) => result::track_assistant_text(&mut session.text, ev),
            (Some("tool_call"), Some("started")) => self.started(&mut ctx, ev),
            (Some("tool_call"), Some("completed")) => self.completed(&mut ctx, ev),
            (Some("interaction_query"), Some("request")) => {
                let mut digits = IdDigits::default();
                if let Some(id) = digits.key(&ev.query.id) {
                    let full = self.open_entries() >= self.max_open;
                    let id = key_of(id, &mut self.scratch);
                    // A repeated id keeps its key and takes the later line, as `insert` would.
                    match self.queries.get_mut(id) {
                        Some(open) => *open = line,
                        None if full => {
                            over_budget(&mut ctx, &mut self.over_budget, self.max_open);
                        }
                        None => {
                            let key = spare_key(&mut self.spare_ids, id);
                            self.queries.insert(key, line);
                        }
                    }
                }
                if let Some(call) = ev.query.tool_call_id.as_deref() {
                    let full = self.open_entries() >= self.max_open;
                    let call = key_of(call, &mut self.scratch);
                    if self.announced.contains(call) {
                    } else if full {
                        over_budget(&mut ctx, &mut self.over_budget, self.max_open);
                    } else {
                        let key = spare_key(&mut self.spare_ids, call);
                        self.announced.insert(key);
                    }
                }
            }
            (Some("interaction_query"), Some("response")) => {
                let mut digits = IdDigits::default();
                if let Some(id) = digits.key(&ev.response.id) {
                    match self.queries.remove_entry(key_of(id, &mut self.scratch)) {
                        Some((key, _)) => self.spare_ids.push(key),
                        None if session.unreadable.is_some() => {}
                        // Past the budget, the request may be one that was not kept.
                        None if self.over_budget => {}
                        None => {
                            let d = Diagnostic::new(
                                Rule::OrphanQueryResponse,
                                rec.pos,
                                format!(
                                    "a response to interaction query {:?}, which was never requested",
                                    Excerpt(id)
                                ),
                            );
                            ctx.emit_at(d, &["response", "id"], true);
                        }
                    }
                }
            }
            (Some("result"), _) => {
                session.result_line = Some(line);
                result::result_text_mismatch(&mut ctx, session, ev);
                self.close_session(&mut ctx);
            }
            _ => {}
        }
    }

    fn started(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>) {
        let Some(id) = ev.call_id.as_str() else {
            return;
        };
        let key = key_of(id, &mut self.scratch);
        if let Some(open) = self.calls.get(key) {
            let d = Diagnostic::new(
                Rule::DuplicateCallId,
                ctx.pos,
                format!(
                    "tool call {:?} is started again while it is still open",
                    Excerpt(id)
                ),
            )
            .with_related(open.line, "first started here");
            ctx.emit_at(d, &["call_id"], false);
            return;
        }
        if !self.announced.is_empty()
            && let Some(key) = self.announced.take(key)
        {
            self.spare_ids.push(key);
        }
        if self.open_entries() >= self.max_open {
            over_budget(ctx, &mut self.over_budget, self.max_open);
            return;
        }
        let kind = ev.tool_call.kind.as_deref().map(|k| self.kinds.intern(k));
        let key = spare_key(&mut self.spare_ids, key_of(id, &mut self.scratch));
        self.calls.insert(
            key,
            OpenCall {
                line: ctx.pos.line,
                kind,
                args: ev.tool_call.args.map(|a| hash(a.get().as_bytes())),
                head: head(&mut self.spare_heads, ctx.bytes),
                start: ctx.pos,
            },
        );
    }

    /// A new session begins at `line` (the one before, if any, has ended).
    fn open_session(&mut self, line: u64, opening: Opening) {
        if let Some(id) = self.session.take().and_then(|s| s.id) {
            self.spare_session_id = id;
        }
        let mut session = Session::new(line, opening);
        session.unreadable = self.unreadable_between.take();
        self.session = Some(session);
    }

    fn completed(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>) {
        let Some(id) = ev.call_id.as_str() else {
            return;
        };
        let kind = ev.tool_call.kind.as_deref();
        let key = key_of(id, &mut self.scratch);
        let open = self.calls.remove_entry(key).map(|(key, mut open)| {
            self.spare_ids.push(key);
            self.spare_heads.push(std::mem::take(&mut open.head));
            open
        });
        let started = open.as_ref().and_then(|o| o.kind);
        let done = kind.map(|k| (k, self.kinds.find(k)));
        // An unknown kind is said once per call, on its `started`; a completion says it only when
        // it names a kind its start did not.
        if let Some((kind, found)) = done
            && started != Some(found)
        {
            schema::unknown_tool_kind(ctx, kind);
        }
        let Some(open) = open else {
            if let Some(key) = self.announced.take(key_of(id, &mut self.scratch)) {
                self.spare_ids.push(key);
            } else if self.over_budget
                || self
                    .session
                    .as_ref()
                    .is_some_and(|s| s.unreadable.is_some())
            {
                // Its `started` may have been a record that could not be read, or one past the
                // budget that was not kept.
            } else {
                let d = Diagnostic::new(
                    Rule::OrphanCompletion,
                    ctx.pos,
                    format!("tool call {:?} completes but was never started", Excerpt(id)),
                )
                .with_help("pairing is by call_id: a `completed` needs an open `started` (or an `interaction_query` request whose args.toolCallId names it)");
                ctx.emit_at(d, &["call_id"], false);
            }
            return;
        };
        if let (Some(started), Some((done, found))) = (open.kind, done)
            && started != found
        {
            let started = match self.kinds.name(started) {
                Some(name) => format!("`{}`", Excerpt(name)),
                None => "another kind".to_string(),
            };
            let d = Diagnostic::new(
                Rule::ToolKindMismatch,
                ctx.pos,
                format!(
                    "tool call {:?} started as {started} but completes as `{}`",
                    Excerpt(id),
                    Excerpt(done)
                ),
            )
            .with_related(open.line, "started here");
            ctx.emit_at(d, &["tool_call", done], false);
            return;
        }
        if let (Some(started), Some(args)) = (open.args, ev.tool_call.args)
            && started != hash(args.get().as_bytes())
        {
            let d = Diagnostic::new(
                Rule::ToolArgsMismatch,
                ctx.pos,
                format!(
                    "tool call {:?} completes with other `args` than it started with",
                    Excerpt(id)
                ),
            )
            .with_related(open.line, "started here");
            let path = kind.map(|k| ["tool_call", k, "args"]);
            match path {
                Some(p) => ctx.emit_at(d, &p, false),
                None => ctx.emit(d),
            }
        }
    }

    /// Ends the current session: open calls are unfinished and open queries unanswered.
    fn close_session(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>) {
        // A call or query open when a record could not be read may have ended in it.
        let unreadable = self
            .session
            .as_ref()
            .and_then(|s| s.unreadable)
            .unwrap_or(0);
        let mut open: Vec<(u64, String, String, Position)> = self
            .calls
            .drain()
            .map(|(id, c)| (c.line, id, c.head, c.start))
            .collect();
        open.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        for (line, id, head, start) in open {
            if line >= unreadable {
                let d = Diagnostic::new(
                    Rule::UnfinishedToolCall,
                    start,
                    format!(
                        "tool call {:?} is started but never completed",
                        ShownKey(&id)
                    ),
                )
                .with_help("a call ends with a `completed` of the same call_id before its session's `result`; was the agent stopped while the tool ran, or the event lost?");
                // The started record, its call id marked when it lies within what was kept.
                let bytes = head.as_bytes();
                ctx.emit(match locate::in_any_dialect(bytes, &["call_id"], true) {
                    Some(span) => d.at(bytes, span),
                    None => d.with_snippet(bytes),
                });
            }
            self.spare_ids.push(id);
            self.spare_heads.push(head);
        }
        let mut queries: Vec<(u64, String)> =
            self.queries.drain().map(|(id, line)| (line, id)).collect();
        queries.sort();
        for (line, id) in queries {
            if line < unreadable {
                self.spare_ids.push(id);
                continue;
            }
            ctx.emit(Diagnostic::new(
                Rule::UnansweredQuery,
                line_pos(line),
                format!(
                    "interaction query {:?} has no response by the end of its session",
                    ShownKey(&id)
                ),
            ));
            self.spare_ids.push(id);
        }
        // Ids announced for calls that then started and completed stay until here.
        self.spare_ids.extend(self.announced.drain());
        self.over_budget = false;
    }

    /// End of input: the findings that wait for it.
    pub fn finish(&mut self, emit: &mut impl FnMut(Diagnostic)) {
        self.deferred_missing_init = None;
        let mut ctx = Ctx {
            enabled: self.enabled,
            pos: Position::default(),
            bytes: &[],
            emit,
        };
        let Some(s) = &self.session else {
            return;
        };
        if s.result_line.is_some() {
            return;
        }
        let (last, start) = (s.last_line, s.start_line);
        // The last record could not be read: it may have been the result.
        let cut = s.unreadable.is_some_and(|u| u > last);
        self.close_session(&mut ctx);
        if cut {
            return;
        }
        ctx.emit(
            Diagnostic::new(
                Rule::MissingResult,
                line_pos(last),
                "the input ends but the session has no `result`",
            )
            .with_related(start, "the session started here")
            .with_help("the agent may have crashed, been killed, or the capture was cut short"),
        );
    }
}

/// Most tool kinds [`Kinds`] keeps by name, and most bytes of their names.
const MAX_KINDS: usize = 256;
const MAX_KIND_BYTES: usize = 64 << 10;

/// A tool kind, as [`Kinds`] knows it: by its place in the table, or, once the table is full, by
/// a hash keyed at random for this process (so no input can make two kinds equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KindRef {
    Named(u32),
    Hashed(u64),
}

/// The tool kinds seen, each once, found by hash. Bounded: past [`MAX_KINDS`] names or
/// [`MAX_KIND_BYTES`] of them, new kinds are kept as keyed hashes only, which still tell two kinds
/// apart but no longer name the one a call started with.
#[derive(Default)]
struct Kinds {
    index: Map<Box<str>, u32>,
    names: Vec<Box<str>>,
    bytes: usize,
    keyed: foldhash::quality::RandomState,
}

impl Kinds {
    /// `kind`, added by name while the table has room.
    fn intern(&mut self, kind: &str) -> KindRef {
        let found = self.find(kind);
        if let KindRef::Hashed(_) = found
            && self.names.len() < MAX_KINDS
            && self.bytes + kind.len() <= MAX_KIND_BYTES
        {
            let i = self.names.len() as u32;
            self.names.push(kind.into());
            self.index.insert(kind.into(), i);
            self.bytes += kind.len();
            return KindRef::Named(i);
        }
        found
    }

    /// `kind` as [`Kinds::intern`] gave it, without adding it.
    fn find(&self, kind: &str) -> KindRef {
        match self.index.get(kind) {
            Some(&i) => KindRef::Named(i),
            None => KindRef::Hashed(std::hash::BuildHasher::hash_one(&self.keyed, kind)),
        }
    }

    fn name(&self, kind: KindRef) -> Option<&str> {
        match kind {
            KindRef::Named(i) => Some(&self.names[i as usize]),
            KindRef::Hashed(_) => None,
        }
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

/// How an event is named in messages: `tool_call`/`completed`, `assistant`, an event with no type.
fn describe(ev: &Event<'_>) -> String {
    let article = |t: &str| {
        // By sound: "a `user`", "an `assistant`", "an `interaction_query`".
        if t.starts_with(['a', 'e', 'i', 'o']) {
            "an"
        } else {
            "a"
        }
    };
    match (ev.ty.as_str(), ev.subtype.as_str()) {
        (Some(t), Some(s)) => format!("{} `{}`/`{}` event", article(t), Excerpt(t), Excerpt(s)),
        (Some(t), None) => format!("{} `{}` event", article(t), Excerpt(t)),
        (None, _) => "an event with no type".to_owned(),
    }
}

/// The start of `record`'s first line, at most [`HEAD_BYTES`] and whole characters, in a
/// string taken from `spare` (a new one only when `spare` is empty).
fn head(spare: &mut Vec<String>, record: &[u8]) -> String {
    let line = memchr::memchr(b'\n', record).map_or(record, |i| &record[..i]);
    let cut = &line[..line.len().min(HEAD_BYTES)];
    let text = match std::str::from_utf8(cut) {
        Ok(t) => t,
        // Cut inside a character: the whole ones before it.
        Err(e) => std::str::from_utf8(&cut[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut kept = spare.pop().unwrap_or_default();
    kept.clear();
    kept.push_str(text);
    kept
}

/// The session has more calls and queries open than `max` (`--max-open-calls`): said once per
/// session, at the record where it happens.
#[cold]
fn over_budget(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, said: &mut bool, max: usize) {
    if std::mem::replace(said, true) {
        return;
    }
    let d = Diagnostic::new(
        Rule::TooManyOpenCalls,
        ctx.pos,
        format!(
            "more than {max} tool calls and interaction queries are open at once; the ones opened from here on in this session are not paired"
        ),
    )
    .with_help("runs keep a handful open at once: were completions lost, or is the stream generated? --max-open-calls pairs more, at about 300 bytes each");
    ctx.emit(d);
}

/// An owned copy of `id` in a string taken from `spare` (a new one only when `spare` is empty),
/// to be put back there when its entry goes.
fn spare_key(spare: &mut Vec<String>, id: &str) -> String {
    let mut key = spare.pop().unwrap_or_default();
    key.clear();
    key.push_str(id);
    key
}

/// Room for the decimal form of any `u64` or `i64`: at most 20 bytes, sign included.
#[derive(Default)]
struct IdDigits([u8; 20]);

impl IdDigits {
    /// An id as a map key: strings as they are, numbers in their decimal form (written here, so
    /// that looking a number up allocates nothing).
    fn key<'s>(&'s mut self, f: &'s Field<'_>) -> Option<&'s str> {
        let (negative, mut n) = match *f {
            Field::Str(ref s) => return Some(s),
            Field::UInt(n) => (false, n),
            Field::Int(n) => (n < 0, n.unsigned_abs()),
            _ => return None,
        };
        let mut at = self.0.len();
        loop {
            at -= 1;
            self.0[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        if negative {
            at -= 1;
            self.0[at] = b'-';
        }
        // Only ASCII digits and a sign were written.
        std::str::from_utf8(&self.0[at..]).ok()
    }
}

/// A fingerprint of a call's `args` text, to tell whether the completion repeats the start's.
/// Nothing is composed from it, so a fast fixed-seed hash serves better than [`TextHash`].
fn hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x5eed).hash_one(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_ids_are_keyed_by_their_decimal_form() {
        for n in [0, 7, 10, 99, 1_000_000, u64::MAX] {
            let f = Field::UInt(n);
            assert_eq!(IdDigits::default().key(&f), Some(&*n.to_string()));
        }
        for n in [0, -1, -10, 42, i64::MIN, i64::MAX] {
            let f = Field::Int(n);
            assert_eq!(IdDigits::default().key(&f), Some(&*n.to_string()));
        }
        let f = Field::Str("q_7c1e".into());
        assert_eq!(IdDigits::default().key(&f), Some("q_7c1e"));
        assert_eq!(IdDigits::default().key(&Field::Float(1.5)), None);
        assert_eq!(IdDigits::default().key(&Field::Absent), None);
    }
}
