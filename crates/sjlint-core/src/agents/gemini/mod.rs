//! Gemini CLI's stream (`gemini -p … --output-format stream-json`): its borrowed view, its
//! checker, and its mapping into the common vocabulary.
//!
//! This module owns what is true of Gemini CLI's stream only (see `agents/gemini.md` of the
//! format notes): six event types, each with an ISO-8601 `timestamp`; a run opens with `init`
//! and ends with one `result`; `tool_use.tool_id` is answered by `tool_result.tool_id` (ids are
//! opaque); assistant messages are always `delta` pieces; `error` events are never terminal; a
//! `result` with `status:"error"` is a failed run, not a broken stream (and an aborted batch may
//! leave tool calls without results then). State is owned and bounded. It must not print.

pub mod log;

use super::{
    Agent, Calls, Emit, Progress, Raw, Sink, Want, expect, line_pos, parse_timestamp, require,
    unfinished, view,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::{Lifecycle, Words, session_start};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::messages::{self, Clock, Orphan, Pairing, Unended};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;
use std::borrow::Cow;

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_use`",
    closer: "`tool_result`",
    key: "`tool_id`",
    before: None,
};

view! {
    /// One line of the stream.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "model" => model: Field<'a>,
        "role" => role: Field<'a>,
        "content" => content: Raw<'a>,
        "delta" => delta: Field<'a>,
        "tool_name" => tool_name: Field<'a>,
        "tool_id" => tool_id: Field<'a>,
        "parameters" => parameters: Raw<'a>,
        "status" => status: Field<'a>,
        "output" => output: Raw<'a>,
        "error" => error: ErrorObj<'a>,
        "severity" => severity: Field<'a>,
        "message" => message: Field<'a>,
        "stats" => stats: Stats<'a>,
    }
}

view! {
    /// `error` of a failed `tool_result` or `result`.
    pub struct ErrorObj<'a> {
        "type" => ty: Field<'a>,
        "message" => message: Field<'a>,
    }
}

view! {
    /// `stats` of a `result`.
    pub struct Stats<'a> {
        "total_tokens" => total_tokens: Field<'a>,
        "input_tokens" => input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "cached" => cached: Field<'a>,
        "duration_ms" => duration_ms: Field<'a>,
        "tool_calls" => tool_calls: Field<'a>,
    }
}

/// How its runs open and end, for the lifecycle's findings.
const RUN: Words = Words {
    agent: Agent::Gemini,
    unit: "run",
    opener: "`init`",
    closer: "`result`",
    end: "`result`",
    next: Some("`init`"),
    reopens: true,
    needs_opener: true,
};

/// How strongly a record is Gemini CLI's (see `agents::detect`): the ISO-8601 `timestamp`
/// string it stamps on `init`, `message`, `tool_use` and `tool_result` (other CLIs that reuse
/// these names, opencode's `tool_use`, do not); a `result` with `status` and no `subtype`; an
/// `error` with `severity`.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    super::count_marks(&[match ty {
        "init" | "message" | "tool_use" | "tool_result" => s.timestamp.as_str().is_some(),
        "result" => s.status.is_present() && !s.subtype.is_present(),
        "error" => s.severity.is_present(),
        _ => false,
    }])
}

/// The checker of one Gemini CLI stream.
#[derive(Default)]
pub struct Validator {
    run: Lifecycle,
    pub(super) calls: Calls,
    last_line: u64,
    /// The last timestamp, as milliseconds, and its line.
    last_ms: Option<(u64, u64)>,
    mixed: bool,
    /// The run's session id (a bounded prefix) and its last assistant message, for the common
    /// `end` (kept only for common events).
    session: String,
    answer: super::Answer,
    /// The record before this one was a piece of the assistant's text: a piece continues the
    /// message in the common form only then, and the first piece begins it.
    text_continues: bool,
    /// This record is a piece of the assistant's text.
    text_open: bool,
}

/// The types that name Gemini CLI in another agent's stream: the names it used first (OpenCode
/// and droid share some, told apart by their keys).
pub const TYPE_NAMES: Types = Types {
    own: &[&["init", "message", "tool_use", "tool_result"]],
    own_prefixes: &[],
    shared: &[],
};

/// The types Gemini CLI writes.
const TYPES: &[&str] = &[
    "init",
    "message",
    "tool_use",
    "tool_result",
    "error",
    "result",
];

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
            Some("init" | "message" | "tool_use" | "tool_result") => {
                self.timestamp.as_str().is_some()
            }
            _ => false,
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
            Agent::Gemini,
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
        let ms = self.timestamp(pos, bytes, line, emit);
        self.run.step(&RUN, pos, bytes, ty, ty == "init", emit);
        self.last_line = pos.line;
        self.text_continues = std::mem::take(&mut self.text_open);
        match ty {
            "init" => {
                let what = "an `init`";
                require(
                    line.session_id.json_type(),
                    Want::Str,
                    what,
                    pos,
                    bytes,
                    &["session_id"],
                    emit,
                );
                require(
                    line.model.json_type(),
                    Want::Str,
                    what,
                    pos,
                    bytes,
                    &["model"],
                    emit,
                );
                self.answer.clear();
                self.session.clear();
                if let Some(sink) = &mut sink {
                    if let Some(id) = line.session_id.as_str() {
                        self.session.push_str(super::id_prefix(id));
                    }
                    sink(&session_start(
                        Agent::Gemini,
                        pos.line,
                        line.session_id.to_cow(),
                        line.model.to_cow(),
                        ms,
                    ));
                }
            }
            "message" => self.message(pos, bytes, line, ms, emit, &mut sink),
            "tool_use" => self.tool_use(pos, bytes, line, ms, emit, &mut sink),
            "tool_result" => self.tool_result(pos, bytes, line, ms, emit, &mut sink),
            "error" => {
                let what = "an `error`";
                require(
                    line.severity.json_type(),
                    Want::Str,
                    what,
                    pos,
                    bytes,
                    &["severity"],
                    emit,
                );
                require(
                    line.message.json_type(),
                    Want::Str,
                    what,
                    pos,
                    bytes,
                    &["message"],
                    emit,
                );
                if let Some(sink) = &mut sink {
                    let mut ev = vocab::Event::new(Kind::Error, pos.line);
                    ev.text = line.message.to_cow();
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
            }
            _ => self.result(pos, bytes, line, ms, emit, &mut sink),
        }
        None
    }

    fn finish(&mut self, emit: Emit<'_>) {
        if let Some(since) = self.run.open_since() {
            // Not when the last record could not be read: it may have been the result.
            if !self.calls.unreadable_after(self.last_line) {
                self.missing_result(since, emit);
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

impl Validator {
    fn timestamp(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
    ) -> Option<u64> {
        if !require(
            line.timestamp.json_type(),
            Want::Str,
            "a Gemini CLI event",
            pos,
            bytes,
            &["timestamp"],
            emit,
        ) {
            return None;
        }
        let ms = parse_timestamp(line.timestamp.as_str()?)?;
        if let Some((prev, at)) = self.last_ms
            && ms < prev
        {
            let d = Diagnostic::from_message(
                pos,
                messages::timestamp_regression(&Clock {
                    field: "`timestamp`",
                    millis: false,
                    ms,
                    prev,
                    prev_line: at,
                }),
            );
            emit(match crate::locate::value(bytes, &["timestamp"]) {
                Some(span) => d.at(bytes, span),
                None => d,
            });
        }
        self.last_ms = Some((ms, pos.line));
        Some(ms)
    }

    fn message(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `message`";
        require(
            line.role.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["role"],
            emit,
        );
        require(
            line.content.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["content"],
            emit,
        );
        expect(
            line.delta.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["delta"],
            emit,
        );
        let assistant = line.role.as_str() == Some("assistant");
        if assistant && line.delta.as_bool() != Some(true) {
            let d = Diagnostic::from_message(
                pos,
                messages::assistant_not_delta(Agent::Gemini.display_name()),
            );
            emit(match crate::locate::key(bytes, &["delta"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        if sink.is_some() {
            // A message that is not a piece of the one under way begins another.
            if !(assistant && line.delta.as_bool() == Some(true)) {
                self.answer.clear();
            }
            if assistant && let Some(text) = line.content.text() {
                self.answer.push(&text);
            }
        }
        if let Some(sink) = sink {
            let kind = if assistant {
                Kind::AssistantText
            } else {
                Kind::UserPrompt
            };
            let mut ev = vocab::Event::new(kind, pos.line);
            ev.text = line.content.text();
            let piece = assistant && line.delta.as_bool() == Some(true);
            ev.delta = piece && self.text_continues;
            self.text_open = piece;
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    fn tool_use(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_use`";
        // The assistant's text before a call is not its final answer.
        if sink.is_some() {
            self.answer.clear();
        }
        require(
            line.tool_name.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["tool_name"],
            emit,
        );
        expect(
            line.parameters.json_type(),
            Want::Obj,
            false,
            pos,
            bytes,
            &["parameters"],
            emit,
        );
        if !require(
            line.tool_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["tool_id"],
            emit,
        ) {
            return;
        }
        let id = line.tool_id.as_str().unwrap_or_default();
        let name = line.tool_name.as_str().unwrap_or("?");
        self.calls
            .open_at(id, pos, bytes, name, ms)
            .report(&PAIRING, id, pos, bytes, emit);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(vocab::tool_kind(name));
            ev.args = line.parameters.0;
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    fn tool_result(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_result`";
        require(
            line.status.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["status"],
            emit,
        );
        expect(
            line.output.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["output"],
            emit,
        );
        expect(
            line.error.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["error"],
            emit,
        );
        if !require(
            line.tool_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["tool_id"],
            emit,
        ) {
            return;
        }
        let id = line.tool_id.as_str().unwrap_or_default();
        let open = self.calls.close(id);
        let started = open.and_then(|c| c.start_ms);
        // Not after a record that could not be read: it may have been the `tool_use`.
        if open.is_none() && !self.calls.unreadable_seen() {
            let again = self.calls.was_seen(id) == Some(true);
            let d = Diagnostic::from_message(
                pos,
                messages::orphan_completion(&Orphan::call(
                    Agent::Gemini.display_name(),
                    "`tool_result`",
                    id,
                    again,
                    &PAIRING,
                )),
            );
            emit(match crate::locate::value(bytes, &["tool_id"]) {
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
            ev.ok = Some(line.status.as_str() != Some("error"));
            ev.text = line.output.text().or_else(|| line.error.message.to_cow());
            ev.timestamp_ms = ms;
            ev.duration_ms = match (started, ms) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                _ => None,
            };
            sink(&ev);
        }
    }

    fn result(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `result`";
        require(
            line.status.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["status"],
            emit,
        );
        expect(
            line.error.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["error"],
            emit,
        );
        if expect(
            line.stats.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["stats"],
            emit,
        ) {
            let s = &line.stats;
            for (name, f) in [
                ("total_tokens", &s.total_tokens),
                ("input_tokens", &s.input_tokens),
                ("output_tokens", &s.output_tokens),
                ("cached", &s.cached),
                ("duration_ms", &s.duration_ms),
                ("tool_calls", &s.tool_calls),
            ] {
                let path = ["stats", name];
                let number = expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit);
                if number && (name.ends_with("tokens") || name == "cached") {
                    super::expect_count(f, pos, bytes, &path, emit);
                }
            }
        }
        let failed = line.status.as_str() == Some("error");
        let open = self.calls.drain();
        if !failed {
            for call in open {
                emit(unfinished(
                    &call,
                    &Pairing {
                        before: Some("the run's `result`"),
                        ..PAIRING
                    },
                ));
            }
        }
        self.run.end(pos.line);
        if let Some(sink) = sink {
            let s = &line.stats;
            if s.shape == Some(JsonType::Object) {
                let n = |f: &Field<'_>| super::count(f).unwrap_or(0);
                let mut ev = vocab::Event::new(Kind::Usage, pos.line);
                ev.usage = Some(Tokens {
                    // `input_tokens` holds the `cached` ones, which are counted apart.
                    input: n(&s.input_tokens).saturating_sub(n(&s.cached)),
                    output: n(&s.output_tokens),
                    cache_read: n(&s.cached),
                    cache_write: 0,
                    reasoning: 0,
                });
                sink(&ev);
            }
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(!failed);
            if failed {
                ev.reason = line.error.ty.to_cow();
                ev.outcome = Some(match line.error.ty.as_str() {
                    Some("FatalTurnLimitedError") => vocab::Outcome::MaxTurns,
                    Some("FatalCancellationError") => vocab::Outcome::Cancelled,
                    _ => vocab::Outcome::Failed,
                });
            }
            ev.session_id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
            ev.text = if failed {
                line.error.message.to_cow()
            } else {
                self.answer.text()
            };
            ev.duration_ms = super::count(&s.duration_ms);
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    #[cold]
    fn missing_result(&self, since: u64, emit: Emit<'_>) {
        emit(Diagnostic::from_message(
            line_pos(self.last_line),
            messages::missing_result(&Unended::new(
                Agent::Gemini.display_name(),
                "run",
                Some(since),
                "`result`",
            )),
        ));
    }
}
