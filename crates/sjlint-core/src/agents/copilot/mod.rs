//! GitHub Copilot CLI's stream (`copilot -p … --output-format json`): its borrowed view, its
//! checker, and its mapping into the common vocabulary.
//!
//! This module owns what is true of Copilot CLI's stream only (see `agents/copilot.md` of the
//! format notes). Every line but the last is a session event of the SDK's vocabulary: an
//! envelope `{type, data, id, timestamp, parentId, ephemeral?, agentId?}` with a dotted `type`
//! (`assistant.message`, `tool.execution_start`, …) and its payload in `data`. The vocabulary
//! has some 120 types and grows with every release, so only the types the notes name are
//! checked; any other is `unknown-event-type` information. The run ends with one CLI-only line,
//! `result` (`sessionId`, `exitCode`, `usage`), which has no envelope: a run is completed when
//! its `result` arrives, and a stream that ends without one was cut short (`missing-result`).
//! There is no start event: a run opens with its first record.
//!
//! Pairing: `tool.execution_start` and `tool.execution_complete` by `data.toolCallId`;
//! `assistant.turn_start` and `assistant.turn_end` by `data.turnId`; the streamed pieces
//! (`assistant.message_delta`, `assistant.reasoning_delta`) and the whole message that repeats
//! them (`assistant.message`, `assistant.reasoning`) by `messageId` / `reasoningId`. The pieces
//! are the common form's `delta` text; the whole message adds only what the pieces lacked, so
//! its text is counted once. `result.usage` has no tokens and no cost: tokens come from the
//! per-call `assistant.usage` lines when the run has any, then from the session's totals in
//! `session.shutdown` (what they have beyond the calls'), else from the output tokens of each
//! `assistant.message`, summed over the run and said at its end (what they have beyond what the
//! shutdown said). `inputTokens` holds the cache reads and writes, which are counted apart.
//! Nothing carries a cost in
//! dollars (`assistant.usage.cost` is a billing multiplier). The views of the records and the
//! checks of their fields' shapes live in `shape`, the streamed messages and their pieces in
//! `message`, the run's tokens and its `result` in `result`. State is owned and bounded. It must
//! not print.

use super::{
    Agent, Calls, Emit, Opened, Progress, Sink, Want, expect, line_pos, parse_timestamp, require,
    unfinished,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::{Lifecycle, Words, session_start};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;

pub mod log;
mod message;
mod result;
mod shape;

use message::{Pieces, Stream};
use result::RunTokens;

use crate::rules::messages::{self, Id, Orphan, Pairing, Unended};
pub use shape::{Data, Line, RunUsage};
use shape::{array, kind_of, object_shape, shapes, strings, text};

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool.execution_start`",
    closer: "`tool.execution_complete`",
    key: "`data.toolCallId`",
    before: None,
};

/// The session event types the notes name (their §3), each checked, with the words a finding
/// names it by; any other type is `unknown-event-type` information. `result` is the CLI's own
/// terminal line.
const KNOWN: &[(&str, &str)] = &[
    (
        "session.mcp_server_status_changed",
        "a `session.mcp_server_status_changed`",
    ),
    (
        "session.mcp_servers_loaded",
        "a `session.mcp_servers_loaded`",
    ),
    ("session.tools_updated", "a `session.tools_updated`"),
    ("session.skills_loaded", "a `session.skills_loaded`"),
    (
        "session.custom_agents_updated",
        "a `session.custom_agents_updated`",
    ),
    (
        "session.background_tasks_changed",
        "a `session.background_tasks_changed`",
    ),
    ("session.extensions_loaded", "a `session.extensions_loaded`"),
    ("session.info", "a `session.info`"),
    ("session.warning", "a `session.warning`"),
    ("session.error", "a `session.error`"),
    ("session.task_complete", "a `session.task_complete`"),
    ("session.shutdown", "a `session.shutdown`"),
    ("session.idle", "a `session.idle`"),
    ("user.message", "an `user.message`"),
    ("assistant.turn_start", "an `assistant.turn_start`"),
    (
        "assistant.reasoning_delta",
        "an `assistant.reasoning_delta`",
    ),
    ("assistant.reasoning", "an `assistant.reasoning`"),
    ("assistant.message_start", "an `assistant.message_start`"),
    ("assistant.message_delta", "an `assistant.message_delta`"),
    ("assistant.message", "an `assistant.message`"),
    ("assistant.usage", "an `assistant.usage`"),
    ("assistant.turn_end", "an `assistant.turn_end`"),
    ("assistant.idle", "an `assistant.idle`"),
    ("tool.execution_start", "a `tool.execution_start`"),
    (
        "tool.execution_partial_result",
        "a `tool.execution_partial_result`",
    ),
    ("tool.execution_progress", "a `tool.execution_progress`"),
    ("tool.execution_complete", "a `tool.execution_complete`"),
    ("subagent.started", "a `subagent.started`"),
    ("subagent.completed", "a `subagent.completed`"),
    ("subagent.failed", "a `subagent.failed`"),
    ("abort", "an `abort`"),
    ("result", "a `result`"),
];

/// Event types no other agent writes, for the finding of a mixed stream: the dotted names of
/// the assistant's and tools' events (not `session.*`, which another CLI may use for a line of
/// its own, nor `result` and `abort`).
pub const OWN_TYPES: &[&str] = &[
    "user.message",
    "assistant.turn_start",
    "assistant.reasoning_delta",
    "assistant.reasoning",
    "assistant.message_start",
    "assistant.message_delta",
    "assistant.message",
    "assistant.usage",
    "assistant.turn_end",
    "tool.execution_start",
    "tool.execution_complete",
];

/// The types that name Copilot CLI in another agent's stream.
pub const TYPE_NAMES: Types = Types {
    own: &[OWN_TYPES],
    own_prefixes: &[],
    shared: &[],
};

/// How strongly a record is Copilot CLI's (see `agents::detect`): a dotted type (or `abort`)
/// in the SDK's envelope, `data` an object beside the `parentId` key (null or not), which no
/// other agent writes; or a `result` with `exitCode` and the camel-case `sessionId` (Claude
/// Code's and cursor-agent's have `session_id`).
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    super::count_marks(&[marked(
        ty,
        s.data.json_type(),
        s.parent_id.is_present(),
        s.exit_code.json_type(),
        s.session_id_camel.is_present(),
    )])
}

/// Copilot CLI's mark (see [`evidence`]), from the types of `data` and `exitCode` and whether
/// `parentId` and `sessionId` are there.
pub(super) fn marked(
    ty: &str,
    data: Option<JsonType>,
    parent_id: bool,
    exit_code: Option<JsonType>,
    session_id: bool,
) -> bool {
    if ty == "result" {
        return exit_code == Some(JsonType::Number) && session_id;
    }
    data == Some(JsonType::Object) && parent_id && (ty.contains('.') || ty == "abort")
}

/// How its runs open and end, for the lifecycle's findings: a run opens with its first record,
/// and a `session.*` event, the prompt or the first event of a session within a run goes on
/// with it.
const RUN: Words = Words {
    agent: Agent::Copilot,
    unit: "run",
    opener: "its `session.*` events or its prompt",
    closer: "`result`",
    end: "`result`",
    next: Some("its `session.*` events or its prompt"),
    reopens: false,
    needs_opener: false,
};

/// At most this many streamed messages (pieces without their whole message yet) and open
/// turns are kept; beyond it the oldest are forgotten and their checks stay quiet.
const MAX_PENDING: usize = 64;

/// The checker of one Copilot CLI stream.
#[derive(Default)]
pub struct Validator {
    run: Lifecycle,
    pub(super) calls: Calls,
    last_line: u64,
    mixed: bool,
    /// Streamed messages and reasonings whose whole message has not come yet (bounded).
    pieces: Vec<Pieces>,
    /// Open turns: `turnId` (bounded prefix) and the line of its `assistant.turn_start`.
    turns: Vec<(String, u64)>,
    /// Turn ids were forgotten (past [`MAX_PENDING`]) or unreadable: an unknown `turn_end` is
    /// not sure.
    turns_forgotten: bool,
    /// The run's tokens so far, for its one common `usage`.
    tokens: RunTokens,
    /// Open calls of an MCP server (bounded id prefixes): their completions are `mcp` too.
    mcp_calls: Vec<String>,
    /// The run was aborted (`abort`): its open calls are said as warnings.
    aborted: bool,
    /// That abort was for credit (`autopilot_credit_limit`), not the user's.
    abort_for_credit: bool,
    /// The message of the run's last `session.error` (bounded), for the `end` of a failed run.
    last_error: String,
    /// The assistant's last message since the last tool call, for the common `end` (kept only
    /// for common events).
    answer: super::Answer,
    /// The strings of closed pieces and turns, for the next ones' ids (bounded): a steady stream
    /// allocates nothing.
    spare: Vec<String>,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        self.run.ended()
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        self.calls.listed()
    }
}

impl<'a> super::View<'a> for Line<'a> {
    fn parse_into(&mut self, json: &'a str, arena: &'a Bump) -> Result<(), serde_json::Error> {
        super::parse_into(json, arena, self)
    }

    fn own_mark(&self, _agent: Agent) -> bool {
        self.ty.as_str().is_some_and(|t| {
            marked(
                t,
                self.data.shape,
                self.parent_id.0.is_some(),
                self.exit_code.json_type(),
                self.session_id.is_present(),
            )
        })
    }

    fn has_duplicate_key(&self) -> bool {
        self.dup
    }

    fn ty(&self) -> Option<&str> {
        self.ty.as_str()
    }

    fn subtype(&self) -> Option<&str> {
        // Copilot CLI's `result` says how the run went by its `exitCode`.
        if self.ty.as_str() != Some("result") {
            return None;
        }
        match self.exit_code {
            Field::UInt(0) | Field::Int(0) => Some("success"),
            Field::UInt(_) | Field::Int(_) => Some("error"),
            _ => None,
        }
    }
}

impl super::Rules for Validator {
    type Line<'a> = Line<'a>;

    fn new(_agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator::default();
        v.calls.set_max_open(max_open_calls);
        v
    }

    /// Checks one record read into `line` already (from its text `json`, the record's own
    /// `bytes`): `Some(t)` when it is valid JSON but not an object.
    fn check<'a>(&mut self, mut cx: Cx<'a, '_>, line: &Line<'a>) -> Option<JsonType> {
        let ty = match cx.own_type(
            line.shape,
            line.ty.as_str(),
            Agent::Copilot,
            &mut self.mixed,
            &mut self.last_line,
        ) {
            Ok(ty) => ty,
            Err(shape) => return shape,
        };
        let (pos, bytes) = (cx.pos, cx.bytes);
        let Some(&(_, what)) = KNOWN.iter().find(|(t, _)| *t == ty) else {
            // About 120 types and more each release: forward-compatible, said as information.
            (cx.emit)(super::unknown_type(Agent::Copilot, ty, pos, bytes));
            return None;
        };
        let ms = if ty == "result" {
            timestamp(pos, bytes, line, "a `result`", cx.emit)
        } else {
            envelope(pos, bytes, line, cx.emit)
        };
        // After a run's `result`, a `session.*` event, the prompt (`user.message`) or the first
        // event of a session (`parentId` null) begins the next run (another invocation
        // appended); the first record begins the first.
        let starts = ty.starts_with("session.")
            || ty == "user.message"
            || line.parent_id.json_type() == Some(JsonType::Null);
        if self.run.step(&RUN, pos, bytes, ty, starts, cx.emit) {
            self.begin(pos, ms, &mut cx.sink);
        }
        self.last_line = pos.line;
        if ty == "result" {
            self.result(cx, line, ms);
            return None;
        }
        let data = &line.data;
        if data.shape != Some(JsonType::Object) {
            return None;
        }
        strings(ty, data, what, true, (pos, bytes), cx.emit);
        shapes(ty, data, what, pos, bytes, cx.emit);
        self.payload(ty, what, data, cx, ms);
        None
    }

    /// The input ended: the tokens of a run cut short, which has no `result` to say them on.
    fn finish_common(&mut self, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
        if self.run.open_since().is_some()
            && let Some(t) = self.tokens.take()
        {
            let mut ev = vocab::Event::new(Kind::Usage, self.last_line);
            ev.usage = Some(t);
            sink(&ev);
        }
    }

    fn finish(&mut self, emit: Emit<'_>) {
        let Some(since) = self.run.open_since() else {
            return;
        };
        // Not when the last record could not be read: it may have been the `result`.
        if !self.calls.unreadable_after(self.last_line) {
            emit(Diagnostic::from_message(
                line_pos(self.last_line),
                messages::missing_result(&Unended::new(
                    Agent::Copilot.display_name(),
                    "run",
                    Some(since),
                    "`result`",
                )
                .note("`copilot -p … --output-format json` writes it with the run's `sessionId` and `exitCode`; a killed, crashed or cut-off run has none")),
            ));
        }
        for call in self.calls.drain() {
            emit(unfinished(&call, &PAIRING));
        }
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

/// Where a finding about `path` points: the value's span when it can be found.
pub(super) fn at(d: Diagnostic, bytes: &[u8], path: &[&str]) -> Diagnostic {
    match crate::locate::value(bytes, path) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

impl Validator {
    /// A string holding `id`, from the spare ones when there is one.
    fn key(&mut self, id: &str) -> String {
        let mut k = self.spare.pop().unwrap_or_default();
        k.clear();
        k.push_str(id);
        k
    }

    /// Keeps the string of a closed piece or turn for the next one's id.
    fn recycle(&mut self, k: String) {
        if self.spare.len() < 2 * MAX_PENDING {
            self.spare.push(k);
        }
    }

    /// What a session event's payload says, by its type. `ms` is the record's time.
    fn payload<'a>(&mut self, ty: &str, what: &str, d: &Data<'a>, cx: Cx<'a, '_>, ms: Option<u64>) {
        let (pos, bytes, arena, emit, mut sink) = (cx.pos, cx.bytes, cx.arena, cx.emit, cx.sink);
        match ty {
            "session.error" => {
                self.last_error.clear();
                if let Some(m) = d.message.as_str() {
                    self.last_error.push_str(super::id_prefix(m));
                }
                if let Some(sink) = sink {
                    let mut ev = vocab::Event::new(Kind::Error, pos.line);
                    ev.text = d.message.to_cow();
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
            }
            "user.message" => {
                text(
                    &d.content,
                    true,
                    what,
                    pos,
                    bytes,
                    &["data", "content"],
                    emit,
                );
                array(
                    &d.attachments,
                    false,
                    what,
                    pos,
                    bytes,
                    &["data", "attachments"],
                    emit,
                );
                if let Some(sink) = sink {
                    let mut ev = vocab::Event::new(Kind::UserPrompt, pos.line);
                    ev.text = d.content.text();
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
            }
            "assistant.turn_start" => self.turn_start(pos, d),
            "assistant.turn_end" => self.turn_end(pos, bytes, d, emit),
            "assistant.reasoning_delta" | "assistant.message_delta" => {
                text(
                    &d.delta_content,
                    true,
                    what,
                    pos,
                    bytes,
                    &["data", "deltaContent"],
                    emit,
                );
                self.piece(pos, ty, d, ms, &mut sink);
            }
            "assistant.reasoning" => {
                text(
                    &d.content,
                    true,
                    what,
                    pos,
                    bytes,
                    &["data", "content"],
                    emit,
                );
                self.whole(pos, Stream::Reasoning, d, ms, &mut sink);
            }
            "assistant.message" => {
                self.message(pos, bytes, d, arena, emit);
                self.whole(pos, Stream::Message, d, ms, &mut sink);
            }
            "assistant.usage" => self.usage(pos, bytes, d, emit, &mut sink),
            "session.shutdown" => {
                // The session's totals: what they have beyond the calls' `usage` said.
                if let Some(t) = shape::shutdown_tokens(d, arena)
                    && let Some(rest) = self.tokens.add(t)
                    && let Some(sink) = sink
                {
                    let mut ev = vocab::Event::new(Kind::Usage, pos.line);
                    ev.usage = Some(rest);
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
            }
            "tool.execution_start" => self.tool_start(pos, bytes, d, ms, emit, &mut sink),
            "tool.execution_complete" => self.tool_complete(pos, bytes, d, ms, emit, &mut sink),
            "abort" => {
                self.aborted = true;
                self.abort_for_credit = d.reason.as_str() == Some("autopilot_credit_limit");
                if let Some(sink) = sink {
                    let mut ev = vocab::Event::new(Kind::Error, pos.line);
                    ev.text = Some(Cow::Owned(format!(
                        "aborted ({})",
                        d.reason.as_str().unwrap_or("no reason")
                    )));
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
            }
            _ => {}
        }
    }

    /// The envelope of every session event: `data`, `id`, `timestamp` and `parentId` (a string,
    /// null for a session's first event), `ephemeral` and `agentId` when present. The time of
    /// the event, when its timestamp reads.
    fn begin(&mut self, pos: Position, ms: Option<u64>, sink: &mut Sink<'_, '_>) {
        while let Some(p) = self.pieces.pop() {
            self.recycle(p.id);
        }
        while let Some((t, _)) = self.turns.pop() {
            self.recycle(t);
        }
        self.turns_forgotten = false;
        self.tokens = RunTokens::default();
        self.aborted = false;
        self.last_error.clear();
        self.answer.clear();
        if let Some(sink) = sink {
            sink(&session_start(Agent::Copilot, pos.line, None, None, ms));
        }
    }

    fn turn_start(&mut self, pos: Position, d: &Data<'_>) {
        let Some(id) = d.turn_id.as_str() else {
            // A turn without a readable id: its end cannot be paired.
            self.turns_forgotten = true;
            return;
        };
        let id = super::id_prefix(id);
        if let Some(t) = self.turns.iter_mut().find(|(t, _)| t == id) {
            t.1 = pos.line;
            return;
        }
        if self.turns.len() >= MAX_PENDING {
            let (old, _) = self.turns.remove(0);
            self.recycle(old);
            self.turns_forgotten = true;
        }
        let k = self.key(id);
        self.turns.push((k, pos.line));
    }

    /// `assistant.turn_end` closes the turn of its `turnId`.
    fn turn_end(&mut self, pos: Position, bytes: &[u8], d: &Data<'_>, emit: Emit<'_>) {
        let Some(id) = d.turn_id.as_str() else {
            return;
        };
        let key = super::id_prefix(id);
        if let Some(i) = self.turns.iter().position(|(t, _)| t == key) {
            let (old, _) = self.turns.remove(i);
            self.recycle(old);
            return;
        }
        // Not after a record that could not be read: it may have been the `turn_start`.
        if self.turns_forgotten || self.calls.unreadable_seen() {
            return;
        }
        let d = Diagnostic::from_message(
            pos,
            messages::orphan_completion(&Orphan {
                agent: Agent::Copilot.display_name(),
                record: "`assistant.turn_end`",
                id: Some(Id::Text(id)),
                again: false,
                opener: "`assistant.turn_start`",
                closer: "`assistant.turn_end`",
                key: Some("`data.turnId`"),
                note: None,
            }),
        );
        emit(at(d, bytes, &["data", "turnId"]));
    }

    fn tool_start(
        &mut self,
        pos: Position,
        bytes: &[u8],
        d: &Data<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        // The text before a call is not the run's final answer.
        self.answer.clear();
        let Some(id) = d.tool_call_id.as_str() else {
            return;
        };
        // A call without its tool's name (said already) is still paired.
        let name = d.tool_name.as_str().unwrap_or("?");
        match self.calls.open_at(id, pos, bytes, name, ms) {
            Opened::Ok => {}
            Opened::AlreadyOpen(line) => {
                let d = Diagnostic::from_message(
                    pos,
                    messages::duplicate_call_id(PAIRING.opener, Id::Text(id), true, None),
                )
                .with_related(line, "opened here");
                emit(at(d, bytes, &["data", "toolCallId"]));
            }
            Opened::OverBudget(max) => {
                if let Some(d) = super::over_budget(pos, "tool calls", max) {
                    emit(d);
                }
            }
        }
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            let mcp = d.mcp_server_name.is_present();
            ev.tool_kind = Some(kind_of(name, mcp));
            if mcp {
                // Its completion names no server: it takes the start's kind.
                if self.mcp_calls.len() == MAX_PENDING {
                    self.mcp_calls.remove(0);
                }
                self.mcp_calls.push(super::id_prefix(id).to_owned());
            }
            ev.args = d.arguments.0;
            ev.parent = d.parent_tool_call_id.to_cow();
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    fn tool_complete(
        &mut self,
        pos: Position,
        bytes: &[u8],
        d: &Data<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool.execution_complete`";
        let ok = require(
            d.success.json_type(),
            Want::Bool,
            what,
            pos,
            bytes,
            &["data", "success"],
            emit,
        )
        .then(|| d.success.as_bool())
        .flatten();
        if object_shape(d.result.shape, pos, bytes, &["data", "result"], emit) {
            text(
                &d.result.content,
                false,
                what,
                pos,
                bytes,
                &["data", "result", "content"],
                emit,
            );
        }
        if object_shape(d.error.shape, pos, bytes, &["data", "error"], emit) {
            text(
                &d.error.message,
                true,
                "the `error` of a `tool.execution_complete`",
                pos,
                bytes,
                &["data", "error", "message"],
                emit,
            );
        }
        let Some(id) = d.tool_call_id.as_str() else {
            return;
        };
        let open = self.calls.close(id);
        if open.is_none() && !self.calls.unreadable_seen() {
            let again = self.calls.was_seen(id);
            if again.is_some() {
                let d = Diagnostic::from_message(
                    pos,
                    messages::orphan_completion(&Orphan::call(
                        Agent::Copilot.display_name(),
                        "`tool.execution_complete`",
                        id,
                        again == Some(true),
                        &PAIRING,
                    )),
                );
                emit(at(d, bytes, &["data", "toolCallId"]));
            }
        }
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            if let Some(c) = &open {
                let name = self.calls.name(c).to_owned();
                let mcp = match self
                    .mcp_calls
                    .iter()
                    .position(|m| m == super::id_prefix(id))
                {
                    Some(i) => {
                        self.mcp_calls.remove(i);
                        true
                    }
                    None => false,
                };
                ev.tool_kind = Some(kind_of(&name, mcp));
                ev.name = Some(Cow::Owned(name));
                ev.duration_ms = match (c.start_ms, ms) {
                    (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                    _ => None,
                };
            }
            // A command that ran and exited non-zero is a call that did not go well, though
            // Copilot CLI says `success` of it (the tool ran).
            if ev.tool_kind == Some("shell") {
                ev.exit_code = exit_code(bytes);
            }
            ev.ok = Some(ok != Some(false) && ev.exit_code.is_none_or(|c| c == 0));
            ev.text = if ok == Some(false) {
                d.error.message.text().or_else(|| d.result.content.text())
            } else {
                d.result.content.text()
            };
            ev.parent = d.parent_tool_call_id.to_cow();
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }
}

/// The exit code a shell call's completion reports, wherever its record puts it: the
/// `exitCode` of a `terminal` content or of its shell execution's telemetry. The sources
/// disagree on the place ([D] lines only), so the first integer `exitCode` of the record counts.
fn exit_code(bytes: &[u8]) -> Option<i64> {
    const KEY: &[u8] = b"\"exitCode\":";
    let at = memchr::memmem::find(bytes, KEY)? + KEY.len();
    let rest = &bytes[at..];
    let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    let len = rest
        .iter()
        .enumerate()
        .take_while(|&(i, b)| b.is_ascii_digit() || (i == 0 && *b == b'-'))
        .count();
    std::str::from_utf8(&rest[..len]).ok()?.parse().ok()
}

/// The envelope every session event has (`data`, `id`, `parentId`, `ephemeral?`, `agentId?`,
/// `timestamp`), the stream's and the session log's alike; when it was written.
pub(super) fn envelope(
    pos: Position,
    bytes: &[u8],
    line: &Line<'_>,
    emit: Emit<'_>,
) -> Option<u64> {
    let what = "a Copilot CLI event";
    require(
        line.data.shape,
        Want::Obj,
        what,
        pos,
        bytes,
        &["data"],
        emit,
    );
    require(
        line.id.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["id"],
        emit,
    );
    if line.parent_id.0.is_some() {
        expect(
            line.parent_id.json_type(),
            Want::Str,
            true,
            pos,
            bytes,
            &["parentId"],
            emit,
        );
    } else {
        emit(super::missing(pos, bytes, what, "parentId"));
    }
    expect(
        line.ephemeral.json_type(),
        Want::Bool,
        false,
        pos,
        bytes,
        &["ephemeral"],
        emit,
    );
    expect(
        line.agent_id.json_type(),
        Want::Str,
        false,
        pos,
        bytes,
        &["agentId"],
        emit,
    );
    timestamp(pos, bytes, line, what, emit)
}

/// `timestamp`: an ISO-8601 string (two or three fractional digits both seen).
/// The record's `timestamp`, which it must have; when it was written, when it reads as one.
pub(super) fn timestamp(
    pos: Position,
    bytes: &[u8],
    line: &Line<'_>,
    what: &str,
    emit: Emit<'_>,
) -> Option<u64> {
    if !require(
        line.timestamp.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["timestamp"],
        emit,
    ) {
        return None;
    }
    parse_timestamp(line.timestamp.as_str()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_type_is_named_by_its_words() {
        for (ty, what) in KNOWN {
            assert!(what.ends_with(&format!("`{ty}`")), "{ty}");
        }
        for ty in OWN_TYPES {
            assert!(KNOWN.iter().any(|(t, _)| t == ty), "{ty}");
        }
    }
}
