//! Kimi CLI's stream (`kimi --print --output-format stream-json`): its borrowed view, its
//! checker, and its mapping into the common vocabulary.
//!
//! This module owns what is true of Kimi CLI's stream only (see `agents/kimi.md` of the format
//! notes). Each line is an OpenAI chat message, not a typed event: its discriminator is `role`
//! (`assistant`, `tool`; `meta` for the newer Kimi Code's last line, the only one with a
//! `type`). An assistant message's `tool_calls[].id` is answered by the `tool` message whose
//! `tool_call_id` is the same; `tool_calls[].function.arguments` is a JSON-encoded string, which
//! must parse (its parsed value is the common form's `args`). `content` is a string or an array
//! of content parts. There is no start line, no terminal line and no usage, cost or
//! timestamps: a run opens with its first line, and it has **completed** when it ends (with the
//! input, or with the `session.resume_hint` meta line newer versions write last) after an
//! assistant message that calls no tool. A stream that ends after a `tool` message or an
//! assistant message with `tool_calls` was cut short (`missing-result`); a call never answered
//! is `unfinished-tool-call`, and the run's end is then not ok. The common `end` is at the
//! resume hint, or, without one, at the last assistant message once the input ends: only the
//! resume hint ends a run while the input goes on, so a supervisor (`run --after-result`) can
//! act on nothing else. A line after a resume hint begins the next run (another `kimi --print`
//! appended). A tool's failure is read from the CLI's `<system>ERROR` mark in its result.
//! State is owned and bounded. It must not print.

use super::{Agent, Calls, Emit, Progress, Raw, Sink, Want, expect, line_pos, require};
use super::{unfinished, view};
use crate::agents::Cx;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::messages::{self, AfterEnd, EventType, Found, Orphan, Pairing, Unended};
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_calls[]` entry",
    closer: "`tool` message",
    key: "`tool_call_id`",
    before: None,
};

view! {
    /// One line of the stream: an OpenAI chat message, or a `meta` line.
    pub struct Line<'a> {
        "role" => role: Field<'a>,
        "type" => ty: Field<'a>,
        "content" => content: Raw<'a>,
        "tool_calls" => tool_calls: Raw<'a>,
        "tool_call_id" => tool_call_id: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "command" => command: Field<'a>,
    }
}

view! {
    /// One element of `tool_calls`.
    pub struct ToolCall<'a> {
        "type" => ty: Field<'a>,
        "id" => id: Field<'a>,
        "function" => function: Function<'a>,
    }
}

view! {
    /// `function` of a tool call: the tool's name and its arguments, JSON in a string.
    pub struct Function<'a> {
        "name" => name: Field<'a>,
        "arguments" => arguments: Field<'a>,
    }
}

view! {
    /// One part of an array `content`: `{"type":"text","text":…}`, or a thinking part.
    pub struct Part<'a> {
        "type" => ty: Field<'a>,
        "text" => text: Field<'a>,
        "think" => think: Field<'a>,
    }
}

/// A line as the pipeline's lanes read it: its view, and its `tool_calls` read already, each
/// call's `arguments` parsed, so that the checker, which works in order, reads no JSON of its own
/// (an assistant message's calls are most of a Kimi CLI stream's bytes).
#[derive(Debug, Default)]
pub struct Record<'a> {
    pub line: Line<'a>,
    /// The elements of `tool_calls` when it is an array.
    pub calls: &'a [ToolCall<'a>],
    /// What each call's `function.arguments` held, beside `calls`.
    pub args: &'a [Args<'a>],
}

/// A call's `function.arguments`, read.
#[derive(Clone, Copy, Debug, Default)]
pub enum Args<'a> {
    /// Not a string (the call's shape says what is wrong).
    #[default]
    Unread,
    /// JSON; `None` for an empty string.
    Json(Option<&'a RawValue>),
    /// A string that is not JSON (read again, in order, for the message).
    Bad,
}

impl<'a> super::View<'a> for Record<'a> {
    /// Reads `text` into `self`, a default record, as [`super::parse_into`] reads a view, then
    /// its calls into `arena`.
    fn parse_into(&mut self, text: &'a str, arena: &'a Bump) -> Result<(), serde_json::Error> {
        super::parse_into(text, arena, &mut self.line)?;
        if self.line.tool_calls.json_type() == Some(JsonType::Array) {
            let raw = self.line.tool_calls.get().unwrap_or("[]");
            let mut list = bumpalo::collections::Vec::new_in(arena);
            super::parse_array::<ToolCall<'a>>(raw, arena, &mut list);
            let calls: &'a [ToolCall<'a>] = list.into_bump_slice();
            self.args = arena.alloc_slice_fill_iter(calls.iter().map(|call| {
                match call.function.arguments.as_str() {
                    Some(text) => arguments(text).map_or(Args::Bad, Args::Json),
                    None => Args::Unread,
                }
            }));
            self.calls = calls;
        }
        Ok(())
    }

    fn own_mark(&self, _agent: Agent) -> bool {
        marked(&self.line.role, &self.line.ty)
    }

    fn has_duplicate_key(&self) -> bool {
        self.line.dup
    }

    /// Its records' discriminator is `role`; only `meta` lines have a `type`.
    fn ty(&self) -> Option<&str> {
        self.line.ty.as_str().or_else(|| self.line.role.as_str())
    }
}

/// The roles of the chat messages Kimi CLI prints (`user` and `system` are OpenAI's, not
/// documented as printed). Others are `unknown-event-type` information.
pub const ROLES: &[&str] = &["assistant", "tool", "user", "system", "meta"];

/// The `type`s of `meta` lines.
const META_TYPES: &[&str] = &["session.resume_hint"];

/// How strongly a record is Kimi CLI's (see `agents::detect`): a string `role` on a record
/// without `type` (every other agent's records have one), or the `meta` role.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    super::count_marks(&[marked(&s.role, &s.ty)])
}

/// Kimi CLI's mark: a string `role`, and no `type` unless the role is `meta`.
pub(super) fn marked(role: &Field<'_>, ty: &Field<'_>) -> bool {
    match role.as_str() {
        Some("meta") => true,
        Some(_) => !ty.is_present(),
        None => false,
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Before,
    /// A run began on this line.
    Open(u64),
    /// The run ended with the resume hint on this line.
    Ended(u64),
}

/// The last chat message of the run, which says whether it has completed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Last {
    #[default]
    Nothing,
    /// An assistant message on this line; `calls` when it called tools.
    Assistant { line: u64, calls: bool },
    /// A tool result on this line.
    Tool(u64),
    /// A user or system message.
    Other,
}

/// The checker of one Kimi CLI stream.
#[derive(Default)]
pub struct Validator {
    state: State,
    last: Last,
    pub(super) calls: Calls,
    last_line: u64,
    /// The last assistant message's text, for the common `end` (kept only for common events).
    answer: super::Answer,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        matches!(self.state, State::Ended(_))
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        self.calls.listed()
    }
}

impl super::Rules for Validator {
    type Line<'a> = Record<'a>;

    fn new(_agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator::default();
        v.calls.set_max_open(max_open_calls);
        v
    }

    /// Checks one record read into `record` already (from its text `json`, the record's own
    /// `bytes`): `Some(t)` when it is valid JSON but not an object.
    fn check<'a>(&mut self, cx: Cx<'a, '_>, record: &Record<'a>) -> Option<JsonType> {
        let Cx {
            pos,
            bytes,
            arena,
            emit,
            mut sink,
            ..
        } = cx;
        let line = &record.line;
        if line.shape != Some(JsonType::Object) {
            return line.shape;
        }
        self.last_line = pos.line;
        let Some(role) = line.role.as_str() else {
            no_role(pos, bytes, line, emit);
            return None;
        };
        if !ROLES.contains(&role) {
            // Forward-compatible, said as information.
            emit(unknown_role(role, pos, bytes));
            return None;
        }
        if role == "meta" {
            self.meta(pos, bytes, line, emit, &mut sink);
            return None;
        }
        if !matches!(self.state, State::Open(_)) {
            self.begin(pos, &mut sink);
        }
        match role {
            "assistant" => self.assistant(pos, bytes, record, arena, emit, &mut sink),
            "tool" => self.tool(pos, bytes, line, arena, emit, &mut sink),
            _ => {
                content(pos, bytes, line, false, emit);
                self.last = Last::Other;
                if role == "user"
                    && let Some(sink) = &mut sink
                {
                    let mut ev = vocab::Event::new(Kind::UserPrompt, pos.line);
                    ev.text = text_of(&line.content, arena);
                    sink(&ev);
                }
            }
        }
        None
    }

    /// The input ended: the `end` of a run that completed, at its last assistant message (no
    /// line of Kimi CLI's says so itself).
    fn finish_common(&mut self, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
        if !matches!(self.state, State::Open(_)) || !self.completed() {
            return;
        }
        let Last::Assistant { line, .. } = self.last else {
            return;
        };
        let mut ev = vocab::Event::new(Kind::End, line);
        ev.ok = Some(self.calls.is_empty());
        ev.text = self.answer.text();
        sink(&ev);
    }

    fn finish(&mut self, emit: Emit<'_>) {
        let State::Open(since) = self.state else {
            return;
        };
        // Not when the last record could not be read: it may have been the answer.
        if !self.completed() && !self.calls.unreadable_after(self.last_line) {
            let why = match self.last {
                Last::Tool(_) => "its last line is a `tool` result the model never answered",
                Last::Assistant { calls: true, .. } => {
                    "its last assistant message calls tools that never answer"
                }
                _ => "it has no assistant message",
            };
            let unended = Unended::new(
                Agent::Kimi.display_name(),
                "run",
                Some(since),
                "final answer (an assistant message that calls no tool, every call answered)",
            )
            .why(why)
            .note("it writes no terminal line (newer versions add a `session.resume_hint` line); a stream cut after a tool call or its result was killed or lost its last lines");
            emit(Diagnostic::from_message(
                line_pos(self.last_line),
                messages::missing_result(&unended),
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

impl Validator {
    /// A run opens with its first chat message (after the resume hint of the run before: a
    /// second `kimi --print` appended).
    fn begin(&mut self, pos: Position, sink: &mut Sink<'_, '_>) {
        self.state = State::Open(pos.line);
        self.last = Last::Nothing;
        self.answer.clear();
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::SessionStart, pos.line);
            ev.agent = Some(Agent::Kimi.as_str());
            sink(&ev);
        }
    }

    /// Whether the run has completed so far: its last message is the assistant's, calling no
    /// tool (a call left unanswered before it is a finding of its own).
    fn completed(&self) -> bool {
        matches!(self.last, Last::Assistant { calls: false, .. })
    }

    fn assistant<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        record: &Record<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let line = &record.line;
        let with_calls = line
            .tool_calls
            .json_type()
            .is_some_and(|t| t != JsonType::Null);
        content(pos, bytes, line, with_calls, emit);
        let mut calls = false;
        if let Some(sink) = sink {
            self.answer.clear();
            let (text, thinking) = parts_of(&line.content, arena);
            if let Some(t) = thinking {
                let mut ev = vocab::Event::new(Kind::Thinking, pos.line);
                ev.text = Some(t);
                sink(&ev);
            }
            if let Some(t) = text.filter(|t| !t.is_empty()) {
                self.answer.push(&t);
                let mut ev = vocab::Event::new(Kind::AssistantText, pos.line);
                ev.text = Some(t);
                sink(&ev);
            }
        }
        match line.tool_calls.json_type() {
            None | Some(JsonType::Null) => {}
            Some(JsonType::Array) => {
                for (i, (call, args)) in record.calls.iter().zip(record.args).enumerate() {
                    calls |= self.tool_call(pos, bytes, i, (call, *args), emit, sink);
                }
            }
            Some(t) => emit(super::wrong_type(
                pos,
                bytes,
                &["tool_calls"],
                t,
                &[Want::Arr],
            )),
        }
        self.last = Last::Assistant {
            line: pos.line,
            calls,
        };
    }

    /// One element of `tool_calls`; whether it opened a call.
    fn tool_call(
        &mut self,
        pos: Position,
        bytes: &[u8],
        i: usize,
        (call, read): (&ToolCall<'_>, Args<'_>),
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) -> bool {
        let at = |field: &str| format!("tool_calls[{i}].{field}");
        if call.shape != Some(JsonType::Object) {
            let t = call.shape.unwrap_or(JsonType::Null);
            emit(element_type(
                pos,
                bytes,
                &format!("tool_calls[{i}]"),
                t,
                Want::Obj,
            ));
            return false;
        }
        let mut ok = true;
        for (name, f, required) in [("id", &call.id, true), ("type", &call.ty, false)] {
            match f.json_type() {
                None if required => {
                    emit(super::missing(pos, bytes, "a tool call", &at(name)));
                    ok = false;
                }
                None | Some(JsonType::String) => {}
                Some(t) => {
                    emit(element_type(pos, bytes, &at(name), t, Want::Str));
                    ok = false;
                }
            }
        }
        let function = &call.function;
        let mut args: Option<&RawValue> = None;
        match function.shape {
            None => {
                emit(super::missing(pos, bytes, "a tool call", &at("function")));
                ok = false;
            }
            Some(JsonType::Object) => {
                for (name, f) in [("name", &function.name), ("arguments", &function.arguments)] {
                    let path = || at(&format!("function.{name}"));
                    match f.json_type() {
                        None => {
                            emit(super::missing(pos, bytes, "a tool call", &path()));
                            ok = false;
                        }
                        Some(JsonType::String) => {}
                        Some(t) => {
                            emit(element_type(pos, bytes, &path(), t, Want::JsonText));
                            ok = false;
                        }
                    }
                }
                match read {
                    Args::Json(raw) => args = raw,
                    Args::Bad => {
                        let text = function.arguments.as_str().unwrap_or_default();
                        if let Err(e) = arguments(text) {
                            emit(bad_arguments(pos, bytes, i, &e));
                        }
                    }
                    Args::Unread => {}
                }
            }
            Some(t) => {
                emit(element_type(pos, bytes, &at("function"), t, Want::Obj));
                ok = false;
            }
        }
        let Some(id) = call.id.as_str() else {
            return false;
        };
        let name = function.name.as_str().unwrap_or("?");
        let opened = self
            .calls
            .open(id, pos, bytes, name)
            .report(&PAIRING, id, pos, bytes, emit);
        if let Some(sink) = sink
            && ok
        {
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(vocab::tool_kind(name));
            ev.args = args;
            sink(&ev);
        }
        opened
    }

    fn tool<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        content(pos, bytes, line, false, emit);
        self.last = Last::Tool(pos.line);
        if !require(
            line.tool_call_id.json_type(),
            Want::Str,
            "a `tool` message",
            pos,
            bytes,
            &["tool_call_id"],
            emit,
        ) {
            return;
        }
        let id = line.tool_call_id.as_str().unwrap_or_default();
        let open = self.calls.close(id);
        // Not after a record that could not be read: it may have been the call.
        if open.is_none() && !self.calls.unreadable_seen() {
            let again = self.calls.was_seen(id) == Some(true);
            let d = Diagnostic::from_message(
                pos,
                messages::orphan_completion(&Orphan::call(
                    Agent::Kimi.display_name(),
                    "`tool` message",
                    id,
                    again,
                    &PAIRING,
                )),
            );
            emit(match crate::locate::value(bytes, &["tool_call_id"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            if let Some(c) = &open {
                let name = self.calls.name(c);
                ev.name = Some(Cow::Owned(name.to_owned()));
                ev.tool_kind = Some(vocab::tool_kind(name));
            }
            ev.text = text_of(&line.content, arena);
            // Kimi CLI marks a tool's failure in the result it gives the model (not confirmed
            // in a capture): the only sign of how the call went.
            ev.ok = Some(
                !ev.text
                    .as_deref()
                    .is_some_and(|t| t.trim_start().starts_with("<system>ERROR")),
            );
            sink(&ev);
        }
    }

    /// A `meta` line: the resume hint ends the run; other types are information.
    fn meta(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        if !require(
            line.ty.json_type(),
            Want::Str,
            "a `meta` line",
            pos,
            bytes,
            &["type"],
            emit,
        ) {
            return;
        }
        let ty = line.ty.as_str().unwrap_or_default();
        if !META_TYPES.contains(&ty) {
            emit(super::unknown_type(Agent::Kimi, ty, pos, bytes));
            return;
        }
        let what = "a `session.resume_hint`";
        require(
            line.session_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["session_id"],
            emit,
        );
        expect(
            line.command.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["command"],
            emit,
        );
        expect(
            line.content.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["content"],
            emit,
        );
        match self.state {
            State::Ended(at) => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::event_after_result(&AfterEnd {
                            agent: Agent::Kimi.display_name(),
                            unit: "run",
                            record: EventType::of("session.resume_hint"),
                            end: "`session.resume_hint`",
                            ended: at,
                            next: None,
                        }),
                    )
                    .with_snippet(bytes),
                );
                return;
            }
            State::Before => self.begin(pos, sink),
            State::Open(_) => {}
        }
        let completed = self.completed() && self.calls.is_empty();
        // The CLI runs the tools itself and writes their results before it ends a run: a call
        // still open here never got one.
        for call in self.calls.drain() {
            emit(unfinished(
                &call,
                &Pairing {
                    before: Some("the run's resume hint"),
                    ..PAIRING
                },
            ));
        }
        self.state = State::Ended(pos.line);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(completed);
            ev.session_id = line.session_id.to_cow();
            ev.text = self.answer.text();
            sink(&ev);
        }
    }
}

/// `arguments` read as the JSON it holds: `None` for an empty string (a call without
/// arguments), an error when it is not JSON.
fn arguments(text: &str) -> Result<Option<&RawValue>, serde_json::Error> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str::<&RawValue>(text).map(Some)
}

/// `content`: a string or an array of parts (`null` too when the message calls tools).
fn content(pos: Position, bytes: &[u8], line: &Line<'_>, null_ok: bool, emit: Emit<'_>) {
    match line.content.json_type() {
        None if null_ok => {}
        None => emit(super::missing(pos, bytes, "a chat message", "content")),
        Some(JsonType::String | JsonType::Array) => {}
        Some(JsonType::Null) if null_ok => {}
        Some(t) => emit(super::wrong_type(
            pos,
            bytes,
            &["content"],
            t,
            &[Want::Str, Want::Parts],
        )),
    }
}

/// The text of a `content`: the string, or the `text` of its text parts, joined.
fn text_of<'a>(content: &Raw<'a>, arena: &'a Bump) -> Option<Cow<'a, str>> {
    parts_of(content, arena).0
}

/// The text and the thinking of a `content`.
fn parts_of<'a>(
    content: &Raw<'a>,
    arena: &'a Bump,
) -> (Option<Cow<'a, str>>, Option<Cow<'a, str>>) {
    match content.json_type() {
        Some(JsonType::String) => (content.text(), None),
        Some(JsonType::Array) => {
            let mut parts = bumpalo::collections::Vec::new_in(arena);
            super::parse_array::<Part<'a>>(content.get().unwrap_or("[]"), arena, &mut parts);
            let mut text: Option<String> = None;
            let mut think: Option<String> = None;
            for p in &parts {
                let (slot, piece) = match p.ty.as_str() {
                    Some("think") => (&mut think, p.think.as_str().or(p.text.as_str())),
                    _ => (&mut text, p.text.as_str()),
                };
                if let Some(piece) = piece {
                    let s = slot.get_or_insert_with(String::new);
                    if s.len() < super::MAX_ANSWER_BYTES {
                        s.push_str(piece);
                    }
                }
            }
            (text.map(Cow::Owned), think.map(Cow::Owned))
        }
        _ => (None, None),
    }
}

/// A record with no string `role`: Kimi CLI's lines are chat messages, and `role` is what
/// each one is, as `type` is for the other agents.
#[cold]
fn no_role(pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
    let d = Diagnostic::from_message(
        pos,
        messages::missing_type(
            Agent::Kimi.display_name(),
            "role",
            line.role.json_type(),
            Some("every line is a chat message: assistant, tool, meta"),
        ),
    );
    emit(match crate::locate::value(bytes, &["role"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    });
}

#[cold]
fn unknown_role(role: &str, pos: Position, bytes: &[u8]) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::unknown_event_type(Agent::Kimi.display_name(), "role", role),
    );
    match crate::locate::value(bytes, &["role"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `wrong-field-type` for a field of an element of `tool_calls`, which has no key path.
#[cold]
fn element_type(
    pos: Position,
    bytes: &[u8],
    path: &str,
    found: JsonType,
    want: Want,
) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::wrong_field_type(&[path], Found::Type(found), &[want]),
    );
    match crate::locate::value(bytes, &["tool_calls"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `arguments` that are not JSON: the call's arguments cannot be read.
#[cold]
fn bad_arguments(pos: Position, bytes: &[u8], i: usize, e: &serde_json::Error) -> Diagnostic {
    let path = format!("tool_calls[{i}].function.arguments");
    let error = e.to_string();
    let d = Diagnostic::from_message(
        pos,
        messages::malformed_tool_call(
            messages::Malformed::NotJson {
                path: &path,
                error: &error,
            },
            Some(
                "`arguments` is the call's arguments as a JSON-encoded string (OpenAI's form); a string that does not parse means the model's call was cut or mangled",
            ),
        ),
    );
    match crate::locate::value(bytes, &["tool_calls"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}
