//! xAI Grok Build's stream (`grok -p … --output-format streaming-json`): its borrowed view, its
//! checker, and its mapping into the common vocabulary.
//!
//! This module owns what is true of Grok Build's `streaming-json` only (see `agents/grok.md` of
//! the format notes). There is no start event: a run opens with its first record (usually
//! `available_commands`) and ends with one terminal record, `end` on completion or `error` in its
//! place on failure; the session id arrives only on `end`. `tool_call.toolCallId` is answered by
//! any number of `tool_call_update`s with the same id, and the call is finished by the first
//! whose `status` is `completed` or `failed` (`null` is progress). Per-response `usage` lines are
//! sparse, so tokens are counted once, from the run's total on `end` (or on a failing `error`).
//! A reducer's `error` whose message begins `serialize failed` stands in for one line and is not
//! terminal. State is owned and bounded. It must not print.

use super::{
    Agent, Calls, Emit, Progress, Raw, Sink, Want, expect, line_pos, require, unfinished, view,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::{Lifecycle, Words, session_start};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::Severity;
use crate::rules::messages::{self, Orphan, Pairing, Unended};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;
use std::borrow::Cow;

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_call`",
    closer: "`tool_call_update` of status `completed` or `failed`",
    key: "`toolCallId`",
    before: None,
};

view! {
    /// One line of the stream.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "data" => data: Raw<'a>,
        "tools" => tools: Raw<'a>,
        "commands" => commands: Raw<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "title" => title: Field<'a>,
        "kind" => kind: Field<'a>,
        "status" => status: Field<'a>,
        "toolName" => tool_name: Field<'a>,
        "rawInput" => raw_input: Raw<'a>,
        "rawOutput" => raw_output: Raw<'a>,
        "message" => message: Field<'a>,
        "stopReason" => stop_reason: Field<'a>,
        "sessionId" => session_id: Field<'a>,
        "requestId" => request_id: Field<'a>,
        "usage" => usage: Usage<'a>,
        "num_turns" => num_turns: Field<'a>,
        "total_cost_usd" => total_cost_usd: Field<'a>,
        "cost_is_partial" => cost_is_partial: Field<'a>,
    }
}

view! {
    /// `usage` of a `usage`, `end` or `error` line.
    pub struct Usage<'a> {
        "input_tokens" => input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "cache_read_input_tokens" => cache_read: Field<'a>,
        "cache_creation_input_tokens" => cache_write: Field<'a>,
        "reasoning_tokens" => reasoning: Field<'a>,
        "total_tokens" => total_tokens: Field<'a>,
    }
}

/// The event types of `streaming-json` (the notes' §2). Others are `unknown-event-type` info.
const TYPES: &[&str] = &[
    "available_commands",
    "thought",
    "text",
    "tool_call",
    "tool_call_update",
    "plan",
    "usage",
    "max_turns_reached",
    "auto_compact_started",
    "auto_compact_completed",
    "auto_compact_cancelled",
    "auto_compact_failed",
    "auto_continue_completed",
    "image_compressed",
    "error",
    "end",
];

/// The types that name Grok Build in another agent's stream, and the `tool_call` it shares with
/// cursor-agent (told apart by its keys).
pub const TYPE_NAMES: Types = Types {
    own: &[OWN_TYPES],
    own_prefixes: &[],
    shared: &[&["tool_call"]],
};

/// Event types no other agent writes, for detection and for the finding of a mixed stream.
/// (`thought` and `text` are not: other CLIs use or may use these names.)
pub const OWN_TYPES: &[&str] = &[
    "available_commands",
    "tool_call_update",
    "max_turns_reached",
    "auto_compact_started",
    "auto_compact_completed",
    "auto_compact_cancelled",
    "auto_compact_failed",
    "auto_continue_completed",
    "image_compressed",
];

/// How its runs open and end, for the lifecycle's findings: any record opens the first run.
const RUN: Words = Words {
    agent: Agent::Grok,
    unit: "run",
    opener: "`available_commands`",
    closer: "`end` (or `error`)",
    end: "`end` (or `error` in its place)",
    next: Some("`available_commands`"),
    reopens: true,
    needs_opener: false,
};

/// How strongly a record is Grok Build's (see `agents::detect`): its own types; a `tool_call`
/// with `toolCallId` (cursor-agent's has `call_id` and a subtype); an `end` with `stopReason`.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    super::count_marks(&[match ty {
        _ if OWN_TYPES.contains(&ty) => true,
        "tool_call" => s.tool_call_id.is_present(),
        "end" => s.stop_reason.is_present(),
        _ => false,
    }])
}

/// The checker of one Grok Build stream.
#[derive(Default)]
pub struct Validator {
    run: Lifecycle,
    pub(super) calls: Calls,
    last_line: u64,
    mixed: bool,
    /// The text since the last tool call, for the common `end` (kept only for common events).
    answer: super::Answer,
    /// The tokens the run's `usage` lines said so far, each as it came: the terminal record's
    /// total adds only what it has beyond them.
    said: Tokens,
    /// The type of the last record when it was a chunk of text or thought: a chunk continues
    /// the message in the common form only after one of its own type; the first begins it.
    last_chunk: Option<bool>,
    /// `max_turns_reached` came in the run under way: its `end` ended it for that.
    max_turns: bool,
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
        match self.ty.as_str() {
            Some("tool_call") => self.tool_call_id.is_present(),
            Some("end") => self.stop_reason.is_present(),
            Some(t) => OWN_TYPES.contains(&t),
            None => false,
        }
    }

    fn has_duplicate_key(&self) -> bool {
        self.dup
    }

    fn ty(&self) -> Option<&str> {
        self.ty.as_str()
    }

    fn subtype(&self) -> Option<&str> {
        if self.ty.as_str() == Some("result") {
            self.status.as_str().map(super::id_prefix)
        } else {
            None
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
        let ty = match cx.known_type(
            line.shape,
            line.ty.as_str(),
            Agent::Grok,
            TYPES,
            &mut self.mixed,
            &mut self.last_line,
        ) {
            Ok(ty) => ty,
            Err(shape) => return shape,
        };
        let Cx {
            pos,
            bytes,
            emit,
            mut sink,
            ..
        } = cx;
        // The run opens with its first record; `available_commands` opens the next one.
        if self
            .run
            .step(&RUN, pos, bytes, ty, ty == "available_commands", emit)
        {
            self.begin(pos, &mut sink);
        }
        self.last_line = pos.line;
        let last_chunk = self.last_chunk.take();
        match ty {
            "available_commands" => {
                for (name, f) in [("tools", &line.tools), ("commands", &line.commands)] {
                    arrays(f, "an `available_commands`", name, pos, bytes, emit);
                }
            }
            "thought" | "text" => {
                // The text is read (unescaped) only for the common form, which alone needs it.
                if ty == "text"
                    && sink.is_some()
                    && let Some(text) = line.data.text()
                {
                    self.answer.push(&text);
                }
                let is_text = ty == "text";
                self.last_chunk = Some(is_text);
                let continues = last_chunk == Some(is_text);
                Self::chunk(pos, bytes, ty, line, continues, emit, &mut sink);
            }
            "tool_call" => {
                // The text before a call is not the run's final answer.
                self.answer.clear();
                self.tool_call(pos, bytes, line, emit, &mut sink);
            }
            "tool_call_update" => self.tool_call_update(pos, bytes, line, emit, &mut sink),
            "usage" => {
                usage(&line.usage, pos, bytes, emit);
                // One turn's tokens, said as they come (what `run`'s budgets act on).
                if let (Some(sink), Some(t)) = (sink.as_deref_mut(), tokens_of(&line.usage)) {
                    self.said = self.said.plus(t);
                    usage_tokens(pos, t, sink);
                }
            }
            "error" => self.error(pos, bytes, line, emit, &mut sink),
            "end" => self.end(pos, bytes, line, emit, &mut sink),
            "max_turns_reached" => self.max_turns = true,
            _ => {}
        }
        None
    }

    fn finish(&mut self, emit: Emit<'_>) {
        if let Some(since) = self.run.open_since() {
            // Not when the last record could not be read: it may have been the `end`.
            if !self.calls.unreadable_after(self.last_line) {
                self.missing_end(since, emit);
            }
            for call in self.calls.drain() {
                emit(unfinished(&call, &PAIRING));
            }
        }
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

/// Whether a tool status finishes the call.
fn finishes(status: Option<&str>) -> bool {
    matches!(status, Some("completed" | "failed"))
}

/// The common tool kind of a Grok tool: by its name, else by its ACP `kind`.
fn tool_kind(name: &str, acp: Option<&str>) -> &'static str {
    match vocab::tool_kind(name) {
        "other" => match acp {
            Some("execute") => "shell",
            Some("read") => "read",
            Some("write") => "write",
            Some("edit" | "delete" | "move") => "edit",
            Some("search") => "search",
            Some("fetch") => "web_fetch",
            _ => "other",
        },
        kind => kind,
    }
}

impl Validator {
    fn begin(&mut self, pos: Position, sink: &mut Sink<'_, '_>) {
        self.answer.clear();
        self.max_turns = false;
        if let Some(sink) = sink {
            sink(&session_start(Agent::Grok, pos.line, None, None, None));
        }
    }

    fn chunk(
        pos: Position,
        bytes: &[u8],
        ty: &str,
        line: &Line<'_>,
        continues: bool,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = if ty == "text" {
            "a `text`"
        } else {
            "a `thought`"
        };
        require(
            line.data.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["data"],
            emit,
        );
        if let Some(sink) = sink {
            let kind = if ty == "text" {
                Kind::AssistantText
            } else {
                Kind::Thinking
            };
            let mut ev = vocab::Event::new(kind, pos.line);
            ev.text = line.data.text();
            ev.delta = continues;
            sink(&ev);
        }
    }

    fn tool_call(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_call`";
        require(
            line.tool_name.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolName"],
            emit,
        );
        expect(
            line.title.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["title"],
            emit,
        );
        for (name, f) in [("kind", &line.kind), ("status", &line.status)] {
            expect(f.json_type(), Want::Str, true, pos, bytes, &[name], emit);
        }
        if !require(
            line.tool_call_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolCallId"],
            emit,
        ) {
            return;
        }
        let id = line.tool_call_id.as_str().unwrap_or_default();
        let name = line.tool_name.as_str().unwrap_or("?");
        let done = finishes(line.status.as_str());
        self.calls
            .open(id, pos, bytes, name)
            .report(&PAIRING, id, pos, bytes, emit);
        if done {
            // Reported finished as it starts: remembered, not open.
            self.calls.close(id);
        }
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(tool_kind(name, line.kind.as_str()));
            ev.args = line.raw_input.0;
            sink(&ev);
            if done {
                let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
                ev.call_id = Some(Cow::Borrowed(id));
                ev.name = Some(Cow::Borrowed(name));
                ev.tool_kind = Some(tool_kind(name, line.kind.as_str()));
                ev.ok = Some(line.status.as_str() == Some("completed"));
                sink(&ev);
            }
        }
    }

    fn tool_call_update(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        expect(
            line.status.json_type(),
            Want::Str,
            true,
            pos,
            bytes,
            &["status"],
            emit,
        );
        if !require(
            line.tool_call_id.json_type(),
            Want::Str,
            "a `tool_call_update`",
            pos,
            bytes,
            &["toolCallId"],
            emit,
        ) {
            return;
        }
        let id = line.tool_call_id.as_str().unwrap_or_default();
        let done = finishes(line.status.as_str());
        let known = self.calls.is_open(id);
        // Not after a record that could not be read: it may have been the `tool_call`.
        if !self.calls.unreadable_seen() {
            let orphan = match self.calls.was_seen(id) {
                // A second update that finishes a finished call.
                Some(true) => done && !known,
                Some(false) => true,
                // The bounded memory forgot ids: not sure.
                None => false,
            };
            if orphan {
                self.orphan(pos, bytes, id, known, emit);
            }
        }
        if !done {
            return;
        }
        let open = self.calls.close(id);
        if let (Some(sink), Some(c)) = (sink, open) {
            let name = self.calls.name(&c).to_owned();
            let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.tool_kind = Some(tool_kind(&name, None));
            ev.name = Some(Cow::Owned(name));
            ev.ok = Some(line.status.as_str() == Some("completed"));
            ev.text = line.raw_output.text();
            sink(&ev);
        }
    }

    #[cold]
    fn orphan(&self, pos: Position, bytes: &[u8], id: &str, known: bool, emit: Emit<'_>) {
        let again = !known && self.calls.was_seen(id) == Some(true);
        let d = Diagnostic::from_message(
            pos,
            messages::orphan_completion(&Orphan::call(
                Agent::Grok.display_name(),
                "`tool_call_update`",
                id,
                again,
                &PAIRING,
            )),
        );
        emit(match crate::locate::value(bytes, &["toolCallId"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        });
    }

    fn error(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        require(
            line.message.json_type(),
            Want::Str,
            "an `error`",
            pos,
            bytes,
            &["message"],
            emit,
        );
        let message = line.message.as_str().unwrap_or_default();
        // The reducer writes this in place of a line it could not serialize, and goes on.
        if message.starts_with("serialize failed") {
            if let Some(sink) = sink {
                let mut ev = vocab::Event::new(Kind::Error, pos.line);
                ev.text = line.message.to_cow();
                sink(&ev);
            }
            return;
        }
        self.spend(pos, bytes, line, emit);
        // A failed run may leave its calls without updates.
        self.calls.drain();
        self.run.end(pos.line);
        if let Some(sink) = sink {
            self.usage_event(pos, line, sink);
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(false);
            ev.text = line.message.to_cow();
            ev.cost_usd = line.total_cost_usd.as_f64();
            sink(&ev);
        }
    }

    fn end(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "an `end`";
        for (name, f) in [
            ("stopReason", &line.stop_reason),
            ("sessionId", &line.session_id),
            ("requestId", &line.request_id),
        ] {
            require(f.json_type(), Want::Str, what, pos, bytes, &[name], emit);
        }
        self.spend(pos, bytes, line, emit);
        let stop = line.stop_reason.as_str();
        // A run the user cancelled or a cap ended may leave calls open: said, not as an error.
        let cut = matches!(
            stop,
            Some("cancelled" | "max_turn_requests" | "max_tokens" | "max_turns")
        );
        for call in self.calls.drain() {
            let mut d = unfinished(
                &call,
                &Pairing {
                    before: Some("the run's `end`"),
                    ..PAIRING
                },
            );
            if cut {
                d.severity = Severity::Warning;
            }
            emit(d);
        }
        self.run.end(pos.line);
        if let Some(sink) = sink {
            self.usage_event(pos, line, sink);
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            // Older builds spell it as the Rust variant, `EndTurn`.
            let outcome = match stop {
                _ if self.max_turns => vocab::Outcome::MaxTurns,
                Some("end_turn" | "EndTurn") => vocab::Outcome::Completed,
                Some("cancelled" | "Cancelled") => vocab::Outcome::Cancelled,
                Some("refusal" | "Refusal") => vocab::Outcome::Refused,
                Some("max_turn_requests" | "MaxTurnRequests" | "max_turns") => {
                    vocab::Outcome::MaxTurns
                }
                _ => vocab::Outcome::Failed,
            };
            ev.ok = Some(outcome == vocab::Outcome::Completed);
            ev.outcome = Some(outcome);
            ev.reason = line
                .stop_reason
                .to_cow()
                .filter(|_| !ev.ok.unwrap_or(false));
            ev.session_id = line.session_id.to_cow();
            ev.text = self.answer.text();
            ev.cost_usd = line.total_cost_usd.as_f64();
            sink(&ev);
        }
    }

    /// The spend fields an `end` or `error` may carry.
    fn spend(&self, pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
        usage(&line.usage, pos, bytes, emit);
        if expect(
            line.num_turns.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["num_turns"],
            emit,
        ) {
            super::expect_count(&line.num_turns, pos, bytes, &["num_turns"], emit);
        }
        expect(
            line.total_cost_usd.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["total_cost_usd"],
            emit,
        );
        expect(
            line.cost_is_partial.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["cost_is_partial"],
            emit,
        );
    }

    #[cold]
    fn missing_end(&self, since: u64, emit: Emit<'_>) {
        emit(Diagnostic::from_message(
            line_pos(self.last_line),
            messages::missing_result(&Unended::new(
                Agent::Grok.display_name(),
                "run",
                Some(since),
                "`end` (or `error`)",
            )),
        ));
    }
}

/// `tools` and `commands` of `available_commands` are arrays of strings.
fn arrays(f: &Raw<'_>, what: &str, name: &str, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    match f.json_type() {
        None => emit(super::missing(pos, bytes, what, name)),
        Some(JsonType::Array) => {}
        Some(t) => emit(super::wrong_type(pos, bytes, &[name], t, &[Want::Arr])),
    }
}

/// A `usage` object, per response or the run's total: counts.
fn usage(u: &Usage<'_>, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    if !expect(u.shape, Want::Obj, false, pos, bytes, &["usage"], emit) {
        return;
    }
    for (name, f) in [
        ("input_tokens", &u.input_tokens),
        ("output_tokens", &u.output_tokens),
        ("cache_read_input_tokens", &u.cache_read),
        ("cache_creation_input_tokens", &u.cache_write),
        ("reasoning_tokens", &u.reasoning),
        ("total_tokens", &u.total_tokens),
    ] {
        let path = ["usage", name];
        if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
            super::expect_count(f, pos, bytes, &path, emit);
        }
    }
}

/// The tokens of a `usage` object, when it is one.
fn tokens_of(u: &Usage<'_>) -> Option<Tokens> {
    if u.shape != Some(JsonType::Object) {
        return None;
    }
    let n = |f: &Field<'_>| super::count(f).unwrap_or(0);
    Some(Tokens {
        input: n(&u.input_tokens),
        output: n(&u.output_tokens),
        cache_read: n(&u.cache_read),
        cache_write: n(&u.cache_write),
        reasoning: n(&u.reasoning),
    })
}

fn usage_tokens(pos: Position, t: Tokens, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
    let mut ev = vocab::Event::new(Kind::Usage, pos.line);
    ev.usage = Some(t);
    sink(&ev);
}

impl Validator {
    /// The run's total from the spend fields of its terminal record: what it has beyond the
    /// turns' `usage` lines said already.
    fn usage_event(
        &mut self,
        pos: Position,
        line: &Line<'_>,
        sink: &mut dyn FnMut(&vocab::Event<'_>),
    ) {
        let said = std::mem::take(&mut self.said);
        if let Some(t) = tokens_of(&line.usage).map(|t| t.beyond(said))
            && !t.is_zero()
        {
            usage_tokens(pos, t, sink);
        }
    }
}
