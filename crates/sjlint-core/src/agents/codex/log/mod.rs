//! Codex's session logs, the rollouts it keeps on disk
//! (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, and `archived_sessions/`): their borrowed
//! view, their checker, and their mapping into the common vocabulary.
//!
//! This module owns what is true of the rollout only (see `agents/logs/codex.md` of the format
//! notes); the `codex exec --json` stream is another format (`codex`). Every line is an
//! envelope, `{"timestamp", "type", "payload": {…}}`: a line without an object `payload` is
//! `missing-field`. A rollout opens with `session_meta` (another first kind is `missing-init`,
//! a warning: the file's head was cut); a resumed thread appends `session_meta` again with the
//! same id (fine), and a `session_meta` of another id (a review subagent, a file assembled from
//! several threads) is said as information, the file staying its first thread's. Nothing ends a
//! rollout: a log may stop anywhere, calls in flight included. Kinds and payload types the
//! schema does not list are the next version's, said as information. Tool calls pair by
//! `call_id`, `function_call` (and `local_shell_call`) with `function_call_output`,
//! `custom_tool_call` with `custom_tool_call_output`: an output whose call the file never opened
//! is `orphan-completion`, the Codex stream's rule (information after a `compacted` record,
//! whose `replacement_history` stands for what came before). Timestamps must not step back
//! within a thread's stretch of the file. Tokens are the `token_count` events' cumulative
//! totals, each advance counted once (`ledger`); a total that drops is said as information.
//! State is owned and bounded (`ledger`, [`crate::agents::Calls`], the prefixes of ids kept);
//! a record costs no allocation beyond the calls it opens. It must not print.
//!
//! Left for later: the tokens a forked thread's file replays from its parent (only a reader of
//! both files can drop them), one thread across `sessions/` and `archived_sessions/`, and the
//! CLI version in the common form (which has no field for it).

mod ledger;
mod map;
mod view;

use crate::agents::codex::Usage;
use crate::agents::{
    Agent, Calls, Cx, Emit, Progress, Sink, Want, count, expect, expect_count, id_prefix, own_type,
    parse_timestamp, require, unknown_type,
};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::messages::{self, Clock, EventType, Opening, Orphan, Pairing, SessionIds};
use crate::rules::{RuleSet, Severity};
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use ledger::{Counted, Ledger, Raw};
use std::borrow::Cow;
use view::Payload;
pub(crate) use view::Record;

/// The kinds of line (`type`) the schema lists; any other is a newer version's.
pub const KINDS: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
    "world_state",
    "inter_agent_communication_metadata",
];

/// The Responses-API items (`payload.type` of a `response_item`) the schema lists.
pub const ITEMS: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "ghost_snapshot",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
    "agent_message",
    "compaction",
];

/// The protocol events (`payload.type` of an `event_msg`) the schema lists; the multi-agent
/// `collab_*` events are listed by their prefix.
pub const EVENTS: &[&str] = &[
    "user_message",
    "agent_message",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "agent_reasoning_section_break",
    "token_count",
    "task_started",
    "task_complete",
    "turn_aborted",
    "entered_review_mode",
    "exited_review_mode",
    "context_compacted",
    "exec_command_end",
    "patch_apply_end",
    "mcp_tool_call_end",
    "web_search_end",
    "view_image_tool_call",
    "image_generation_end",
    "error",
    "stream_error",
    "undo_completed",
    "thread_name_updated",
    "thread_goal_updated",
    "thread_settings_applied",
    "item_completed",
    "guardian_assessment",
    "sub_agent_activity",
    "dynamic_tool_call_request",
    "dynamic_tool_call_response",
];

/// How the tool calls of a rollout pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`function_call`",
    closer: "`function_call_output`",
    key: "`call_id`",
    before: None,
};

/// The same for the freeform tools (`apply_patch`).
const CUSTOM: Pairing<'static> = Pairing {
    opener: "`custom_tool_call`",
    closer: "`custom_tool_call_output`",
    key: "`call_id`",
    before: None,
};

/// A kind only a rollout writes, or a protocol event in an object `payload`: the strong mark.
pub(crate) fn strong_kind(ty: Option<&str>, payload: Option<JsonType>) -> bool {
    match ty {
        Some("session_meta" | "turn_context" | "response_item") => true,
        Some("event_msg") => payload == Some(JsonType::Object),
        _ => false,
    }
}

/// How strongly a record is a Codex rollout's (see `agents::detect`): the envelope (an object
/// `payload` beside a string `timestamp` and `type`) is one mark, which any line of a rollout
/// has, whatever its kind, so that a newer kind is not taken for another agent's; a kind of its
/// own (or `event_msg` with an object `payload`) is a second. cursor-agent's payload dialect
/// wraps its records in `payload` too (one mark of cursor-agent's), but with neither a
/// `timestamp` nor these kinds. Kimi's wire logs, which Codex's stream claims by their `turn.`
/// types, have no `payload`.
pub fn evidence(s: &crate::agents::Sniff<'_>) -> u32 {
    let envelope = s.payload.json_type() == Some(JsonType::Object)
        && s.timestamp.as_str().is_some()
        && s.ty.as_str().is_some();
    crate::agents::count_marks(&[envelope, strong_kind(s.ty.as_str(), s.payload.json_type())])
}

/// The checker of one rollout.
#[derive(Default)]
pub struct Validator {
    ledger: Ledger,
    /// Calls of the function tools (and local shell calls), by `call_id`.
    calls: Calls,
    /// Calls of the freeform tools (`apply_patch`), by `call_id`.
    custom: Calls,
    /// The file's thread (`session_meta.payload.id` of its first, a bounded prefix).
    thread: String,
    /// The line of the file's first `session_meta`.
    thread_line: u64,
    /// The id of the last `session_meta` (a bounded prefix), to say each change once.
    current: String,
    /// The model of the last `turn_context` (a bounded prefix): the model of the counts after it.
    model: String,
    /// A line was read (the first is the one `missing-init` is about).
    begun: bool,
    /// The common form's `session_start` was written.
    started: bool,
    /// A `compacted` line was read: an output may be of a call the compaction replaced.
    compacted: bool,
    mixed: bool,
    /// The time of the last line with one, and its line, since the last `session_meta`.
    last_ms: Option<(u64, u64)>,
    /// When the record being read was written.
    ms: Option<u64>,
}

impl Progress for Validator {
    /// A log says nothing of how a session ended.
    fn ended(&self) -> bool {
        false
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        let mut all = self.calls.listed();
        all.extend(self.custom.listed());
        all
    }
}

impl<'a> crate::agents::View<'a> for Record<'a> {
    fn parse_into(&mut self, json: &'a str, arena: &'a Bump) -> Result<(), serde_json::Error> {
        crate::agents::parse_into(json, arena, self)
    }

    fn own_mark(&self, _agent: Agent) -> bool {
        self.marked()
    }

    fn has_duplicate_key(&self) -> bool {
        self.dup
    }

    fn ty(&self) -> Option<&str> {
        self.ty.as_str()
    }

    fn subtype(&self) -> Option<&str> {
        self.payload.ty.as_str()
    }
}

impl crate::agents::Rules for Validator {
    type Line<'a> = Record<'a>;

    fn new(_agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator::default();
        v.calls.set_max_open(max_open_calls);
        v.custom.set_max_open(max_open_calls);
        v
    }

    fn check<'a>(&mut self, mut cx: Cx<'a, '_>, r: &Record<'a>) -> Option<JsonType> {
        let (pos, bytes) = (cx.pos, cx.bytes);
        if r.shape != Some(JsonType::Object) {
            return r.shape;
        }
        let Ok(ty) = own_type(
            r.ty.as_str(),
            Agent::CodexLog,
            &mut self.mixed,
            pos,
            bytes,
            cx.emit,
        ) else {
            return None;
        };
        let first = !std::mem::replace(&mut self.begun, true);
        if first && ty != "session_meta" {
            (cx.emit)(missing_init(pos, bytes, ty));
            if let Some(sink) = cx.sink.as_deref_mut() {
                self.started = true;
                sink(&self.event(Kind::SessionStart, pos.line));
            }
        }
        let timed = require(
            r.timestamp.json_type(),
            Want::Str,
            "a rollout line",
            pos,
            bytes,
            &["timestamp"],
            cx.emit,
        );
        if !require(
            r.payload.shape,
            Want::Obj,
            "a rollout line",
            pos,
            bytes,
            &["payload"],
            cx.emit,
        ) {
            return None;
        }
        if ty == "session_meta" {
            // A thread's stretch of the file (a resume, another thread) keeps its own clock.
            self.last_ms = None;
        }
        self.ms = if timed {
            self.clock(pos, bytes, r, cx.emit)
        } else {
            None
        };
        let p = &r.payload;
        match ty {
            "session_meta" => self.session_meta(pos, bytes, p, cx.emit, &mut cx.sink),
            "turn_context" => {
                expect(
                    p.model.json_type(),
                    Want::Str,
                    false,
                    pos,
                    bytes,
                    &["payload", "model"],
                    cx.emit,
                );
                if let Some(model) = p.model.as_str() {
                    self.model.clear();
                    self.model.push_str(id_prefix(model));
                }
            }
            "compacted" => self.compacted = true,
            "response_item" => self.item(cx, p),
            "event_msg" => self.event_msg(pos, bytes, p, cx.emit, &mut cx.sink),
            _ if KINDS.contains(&ty) => {}
            _ => (cx.emit)(unknown_type(Agent::CodexLog, ty, pos, bytes)),
        }
        None
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
        self.custom.on_unreadable(line);
    }
}

impl Validator {
    /// An event of the record being read, with its time when it has one.
    fn event<'e>(&self, kind: Kind, line: u64) -> vocab::Event<'e> {
        event(kind, line, self.ms)
    }

    /// The line's time, and `timestamp-regression` when it is earlier than the line before
    /// it in the same thread's stretch of the file. A time that is not RFC 3339 (an edited
    /// file's placeholder) is no time: nothing is said of it.
    fn clock(
        &mut self,
        pos: Position,
        bytes: &[u8],
        r: &Record<'_>,
        emit: Emit<'_>,
    ) -> Option<u64> {
        let ms = parse_timestamp(r.timestamp.as_str()?)?;
        if let Some((prev, prev_line)) = self.last_ms
            && ms < prev
        {
            let d = Diagnostic::from_message(
                pos,
                messages::timestamp_regression(&Clock {
                    field: "`timestamp`",
                    millis: false,
                    ms,
                    prev,
                    prev_line,
                }),
            );
            emit(match crate::locate::value(bytes, &["timestamp"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        self.last_ms = Some((ms, pos.line));
        Some(ms)
    }

    /// `session_meta`: the first names the file's thread (its `session_start`); the same id
    /// again is a resume; another id is said as information.
    fn session_meta(
        &mut self,
        pos: Position,
        bytes: &[u8],
        p: &Payload<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `session_meta`";
        require(
            p.id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["payload", "id"],
            emit,
        );
        for (key, f) in [("cwd", &p.cwd), ("cli_version", &p.cli_version)] {
            expect(
                f.json_type(),
                Want::Str,
                false,
                pos,
                bytes,
                &["payload", key],
                emit,
            );
        }
        let Some(id) = p.id.as_str().map(id_prefix) else {
            return;
        };
        if self.thread.is_empty() && self.thread_line == 0 {
            self.thread.push_str(id);
            self.thread_line = pos.line;
            self.current.push_str(id);
            if let Some(sink) = sink.as_deref_mut()
                && !std::mem::replace(&mut self.started, true)
            {
                let mut ev = self.event(Kind::SessionStart, pos.line);
                ev.session_id = Some(Cow::Borrowed(id));
                ev.cwd = p.cwd.to_cow();
                ev.model = p.model.to_cow();
                sink(&ev);
            }
            return;
        }
        if id != self.current {
            if id != self.thread {
                emit(self.other_thread(pos, bytes, id));
            }
            self.current.clear();
            self.current.push_str(id);
        }
    }

    /// `session-id-mismatch`, as information: a `session_meta` of another thread than the file's.
    #[cold]
    fn other_thread(&self, pos: Position, bytes: &[u8], id: &str) -> Diagnostic {
        let mut d = Diagnostic::from_message(
            pos,
            messages::session_id_mismatch(&SessionIds {
                agent: Agent::CodexLog.display_name(),
                unit: "log",
                field: "`session_meta` `payload.id`",
                id,
                expected: &self.thread,
                began: Some(self.thread_line),
                each: false,
                note: Some(
                    "a resumed thread appends `session_meta` again with its own id; another id is a review or subagent thread, or a file assembled from several, and the log is read as its first thread's",
                ),
            }),
        );
        d.severity = Severity::Info;
        match crate::locate::value(bytes, &["payload", "id"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        }
    }

    /// A `response_item`: the items that open and close tool calls are checked and paired, the
    /// assistant's messages, reasoning and tool calls mapped (see `map`).
    fn item<'a>(&mut self, mut cx: Cx<'a, '_>, p: &Payload<'a>) {
        let (pos, bytes, arena) = (cx.pos, cx.bytes, cx.arena);
        let Some(ty) = payload_type(p, "a `response_item`", pos, bytes, cx.emit) else {
            return;
        };
        match ty {
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                self.call(cx, ty, p);
            }
            "function_call_output" | "custom_tool_call_output" => {
                self.output(cx, ty, p);
            }
            "message" | "reasoning" => {
                if let Some(sink) = cx.sink.as_deref_mut() {
                    map::said(
                        self.event(Kind::AssistantText, pos.line),
                        ty,
                        p,
                        arena,
                        sink,
                    );
                }
            }
            _ if ITEMS.contains(&ty) => {}
            _ => (cx.emit)(unknown_payload_type(pos, bytes, ty)),
        }
    }

    /// An item that opens a tool call: `function_call`, `custom_tool_call`, and a
    /// `local_shell_call` with a `call_id` (older ones have none: nothing pairs them).
    fn call<'a>(&mut self, mut cx: Cx<'a, '_>, ty: &str, p: &Payload<'a>) {
        let (pos, bytes, arena, emit) = (cx.pos, cx.bytes, cx.arena, &mut *cx.emit);
        let what = match ty {
            "function_call" => "a `function_call`",
            "custom_tool_call" => "a `custom_tool_call`",
            _ => "a `local_shell_call`",
        };
        let local = ty == "local_shell_call";
        if local {
            expect(
                p.call_id.json_type(),
                Want::Str,
                true,
                pos,
                bytes,
                &["payload", "call_id"],
                emit,
            );
        } else {
            require(
                p.call_id.json_type(),
                Want::Str,
                what,
                pos,
                bytes,
                &["payload", "call_id"],
                emit,
            );
            require(
                p.name.json_type(),
                Want::Str,
                what,
                pos,
                bytes,
                &["payload", "name"],
                emit,
            );
        }
        let (table, pairing) = if ty == "custom_tool_call" {
            (&mut self.custom, &CUSTOM)
        } else {
            let field = if local { "action" } else { "arguments" };
            let t = if local {
                p.action.json_type()
            } else {
                p.arguments.json_type()
            };
            let want = if local { Want::Obj } else { Want::Str };
            expect(t, want, true, pos, bytes, &["payload", field], emit);
            (&mut self.calls, &PAIRING)
        };
        let Some(id) = p.call_id.as_str() else {
            return;
        };
        let name = if local {
            "local_shell"
        } else {
            p.name.as_str().unwrap_or("?")
        };
        let ms = self.ms;
        if !table
            .open_at(id, pos, bytes, name, ms)
            .report(pairing, id, pos, bytes, emit)
        {
            return;
        }
        if let Some(sink) = cx.sink.as_deref_mut() {
            let ev = event(Kind::ToolStart, pos.line, ms);
            map::tool_start(ev, id, name, ty, p, arena, sink);
        }
    }

    /// An item that closes a tool call: its call must have been opened in this file.
    fn output<'a>(&mut self, mut cx: Cx<'a, '_>, ty: &str, p: &Payload<'a>) {
        let (pos, bytes, arena, emit) = (cx.pos, cx.bytes, cx.arena, &mut *cx.emit);
        let custom = ty == "custom_tool_call_output";
        let what = if custom {
            "a `custom_tool_call_output`"
        } else {
            "a `function_call_output`"
        };
        if !require(
            p.call_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["payload", "call_id"],
            emit,
        ) {
            return;
        }
        let id = p.call_id.as_str().unwrap_or_default();
        let (table, pairing) = if custom {
            (&mut self.custom, &CUSTOM)
        } else {
            (&mut self.calls, &PAIRING)
        };
        let Some(call) = table.close(id) else {
            // Not after a line that could not be read: it may have been the call.
            if !table.unreadable_seen() {
                let again = table.was_seen(id) == Some(true);
                emit(orphan(pos, bytes, id, again, pairing, self.compacted));
            }
            return;
        };
        let name = table.name(&call);
        if let Some(sink) = cx.sink.as_deref_mut() {
            let mut ev = event(Kind::ToolEnd, pos.line, self.ms);
            ev.duration_ms = match (call.start_ms, self.ms) {
                (Some(a), Some(b)) => b.checked_sub(a),
                _ => None,
            };
            map::tool_end(ev, id, name, p, arena, sink);
        }
    }

    /// An `event_msg`: the typed prompt, and the token counts.
    fn event_msg(
        &mut self,
        pos: Position,
        bytes: &[u8],
        p: &Payload<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let Some(ty) = payload_type(p, "an `event_msg`", pos, bytes, emit) else {
            return;
        };
        match ty {
            "token_count" => self.token_count(pos, bytes, p, emit, sink),
            "user_message" => {
                expect(
                    p.message.json_type(),
                    Want::Str,
                    false,
                    pos,
                    bytes,
                    &["payload", "message"],
                    emit,
                );
                // The prompt as typed. The `response_item` user messages hold it too, beside the
                // context the CLI injects (`<environment_context>`, `<user_instructions>`): the
                // prompt is taken from here, once.
                if let Some(sink) = sink.as_deref_mut() {
                    let mut ev = self.event(Kind::UserPrompt, pos.line);
                    ev.text = p.message.text();
                    sink(&ev);
                }
            }
            // The assistant's messages and reasoning are taken from their `response_item`s,
            // which these repeat: each once.
            _ if EVENTS.contains(&ty) || ty.starts_with("collab_") => {}
            _ => emit(unknown_payload_type(pos, bytes, ty)),
        }
    }

    /// `token_count`: counted when its cumulative total advanced (see `ledger`); `info: null`
    /// (before the first request) counts nothing.
    fn token_count(
        &mut self,
        pos: Position,
        bytes: &[u8],
        p: &Payload<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let info = &p.info;
        if !expect(
            info.shape,
            Want::Obj,
            true,
            pos,
            bytes,
            &["payload", "info"],
            emit,
        ) || info.shape != Some(JsonType::Object)
        {
            return;
        }
        let what = "a `token_count` `info`";
        let mut whole = true;
        for (key, u) in [
            ("total_token_usage", &info.total),
            ("last_token_usage", &info.last),
        ] {
            whole &= require(
                u.shape,
                Want::Obj,
                what,
                pos,
                bytes,
                &["payload", "info", key],
                emit,
            ) && counts(u, pos, bytes, key, emit);
        }
        if !whole {
            return;
        }
        let (total, last) = (raw(&info.total), raw(&info.last));
        let step = match self.ledger.count(total, last) {
            Counted::Repeat => return,
            Counted::Advanced(step) => step,
            Counted::Dropped { from, counted } => {
                emit(total_dropped(pos, bytes, from, total));
                counted
            }
        };
        if let Some(sink) = sink.as_deref_mut() {
            let mut ev = self.event(Kind::Usage, pos.line);
            ev.usage = Some(step.tokens());
            ev.model = (!self.model.is_empty()).then_some(Cow::Borrowed(self.model.as_str()));
            sink(&ev);
        }
    }
}

/// An event of the record on `line`, written at `ms` when it says.
fn event<'e>(kind: Kind, line: u64, ms: Option<u64>) -> vocab::Event<'e> {
    let mut ev = vocab::Event::new(kind, line);
    ev.timestamp_ms = ms;
    if kind == Kind::SessionStart {
        ev.agent = Some(Agent::CodexLog.as_str());
    }
    ev
}

/// The five counts of a usage object are counts (numbers, whole, not negative).
fn counts(u: &Usage<'_>, pos: Position, bytes: &[u8], key: &str, emit: Emit<'_>) -> bool {
    let mut ok = true;
    for (name, f) in [
        ("input_tokens", &u.input_tokens),
        ("cached_input_tokens", &u.cached_input_tokens),
        ("cache_write_input_tokens", &u.cache_write_input_tokens),
        ("output_tokens", &u.output_tokens),
        ("reasoning_output_tokens", &u.reasoning_output_tokens),
    ] {
        let path = ["payload", "info", key, name];
        if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
            expect_count(f, pos, bytes, &path, emit);
        } else {
            ok = false;
        }
    }
    ok
}

/// A usage object in Codex's own meaning (absent counts are 0).
fn raw(u: &Usage<'_>) -> Raw {
    let n = |f: &Field<'_>| count(f).unwrap_or(0);
    Raw {
        input: n(&u.input_tokens),
        cached: n(&u.cached_input_tokens),
        cache_write: n(&u.cache_write_input_tokens),
        output: n(&u.output_tokens),
        reasoning: n(&u.reasoning_output_tokens),
    }
}

/// The `payload.type` of an item or event, which it must have.
fn payload_type<'p>(
    p: &'p Payload<'_>,
    what: &str,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) -> Option<&'p str> {
    require(
        p.ty.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["payload", "type"],
        emit,
    );
    p.ty.as_str()
}

/// `unknown-event-type` for a `payload.type` the schema does not list: information.
#[cold]
fn unknown_payload_type(pos: Position, bytes: &[u8], ty: &str) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::unknown_event_type(Agent::CodexLog.display_name(), "`payload.type`", ty),
    );
    match crate::locate::value(bytes, &["payload", "type"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `missing-init`, as a warning: the rollout's first line is not its `session_meta`.
#[cold]
fn missing_init(pos: Position, bytes: &[u8], ty: &str) -> Diagnostic {
    let mut d = Diagnostic::from_message(
        pos,
        messages::missing_init(&Opening {
            agent: Agent::CodexLog.display_name(),
            unit: "log",
            first: EventType::of(ty),
            opener: "`session_meta`",
            aside: Some("the first line of every rollout, written again by each resume"),
        }),
    )
    .with_snippet(bytes);
    d.severity = Severity::Warning;
    d
}

/// `orphan-completion`: an output names a call this file never opened (or closed already).
/// After a `compacted` line, information: the compaction's `replacement_history` stands for
/// the history before it, which may have held the call.
#[cold]
fn orphan(
    pos: Position,
    bytes: &[u8],
    id: &str,
    again: bool,
    pairing: &Pairing<'_>,
    compacted: bool,
) -> Diagnostic {
    let note = if compacted {
        "this output comes after a `compacted` line, whose `replacement_history` replaced what came before: its call may have been there"
    } else {
        "a rollout records each call before its output, in the same file"
    };
    let record = pairing.closer;
    let mut d = Diagnostic::from_message(
        pos,
        messages::orphan_completion(&Orphan {
            note: Some(note),
            ..Orphan::call(Agent::CodexLog.display_name(), record, id, again, pairing)
        }),
    );
    if compacted && !again {
        d.severity = Severity::Info;
    }
    match crate::locate::value(bytes, &["payload", "call_id"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `token-total-drop`: a `token_count`'s cumulative total is below the one before it.
#[cold]
fn total_dropped(pos: Position, bytes: &[u8], from: Raw, to: Raw) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::token_total_drop(
            Agent::CodexLog.display_name(),
            from.input.saturating_add(from.output),
            to.input.saturating_add(to.output),
        ),
    );
    match crate::locate::value(bytes, &["payload", "info", "total_token_usage"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}
