//! Factory droid's stream (`droid exec -o stream-json`): its borrowed view, its checker, and its
//! mapping into the common vocabulary.
//!
//! This module owns what is true of droid's stream only (see `agents/droid.md` of the format
//! notes). Only its first line looks like Claude Code's (`system`/`init` with `session_id`,
//! `model`, `cwd` and `tools`); the rest is a flat event set of droid's own: `message` (`role`
//! and a flat `text`, no content blocks), `reasoning`, `tool_call` (`id`, `toolName`,
//! `parameters`) answered by the `tool_result` with the same `id`, and one terminal record per
//! run, `completion` (`finalText`, `numTurns`, `durationMs`, the run's `usage`) or `error`. Keys
//! mix camel case (`finalText`, `isError`, `messageId`) and snake case (`session_id`, the usage
//! buckets); timestamps are epoch milliseconds, in order. Usage is the run's total, on `completion` only,
//! and no cost is written. The `error` record's shape and a `completion` after an `error` are
//! not confirmed: both are accepted. State is owned and bounded. It must not print.

use super::{
    Agent, Calls, Emit, Progress, Raw, Sink, Want, expect, line_pos, require, unfinished, view,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::session_start;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::messages::{
    self, AfterEnd, Clock, EventType, Opening, Pairing, Reopened, SessionIds, Unended,
};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;
use std::borrow::Cow;

mod calls;

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_call`",
    closer: "`tool_result`",
    key: "`id`",
    before: None,
};

view! {
    /// One line of the stream.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "subtype" => subtype: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "model" => model: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "tools" => tools: Raw<'a>,
        "role" => role: Field<'a>,
        "id" => id: Field<'a>,
        "text" => text: Raw<'a>,
        "timestamp" => timestamp: Field<'a>,
        "messageId" => message_id: Field<'a>,
        "toolId" => tool_id: Field<'a>,
        "toolName" => tool_name: Field<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "parameters" => parameters: Raw<'a>,
        "isError" => is_error: Field<'a>,
        "value" => value: Raw<'a>,
        "finalText" => final_text: Raw<'a>,
        "numTurns" => num_turns: Field<'a>,
        "durationMs" => duration_ms: Field<'a>,
        "usage" => usage: Usage<'a>,
        "source" => source: Field<'a>,
        "message" => message: Field<'a>,
    }
}

view! {
    /// `usage` of a `completion`: the run's total.
    pub struct Usage<'a> {
        "input_tokens" => input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "cache_read_input_tokens" => cache_read: Field<'a>,
        "cache_creation_input_tokens" => cache_write: Field<'a>,
        "thinking_tokens" => thinking: Field<'a>,
    }
}

/// The event types of `-o stream-json`. Others are `unknown-event-type` information.
pub const TYPES: &[&str] = &[
    "system",
    "message",
    "reasoning",
    "tool_call",
    "tool_result",
    "completion",
    "error",
];

/// Event types no other agent writes, for the finding of a mixed stream.
pub const OWN_TYPES: &[&str] = &["completion"];

/// The types that name droid in another agent's stream, and those it shares with Claude Code,
/// Gemini CLI and cursor-agent (told apart by their keys).
pub const TYPE_NAMES: Types = Types {
    own: &[OWN_TYPES],
    own_prefixes: &[],
    shared: &[&["system", "message", "tool_call", "tool_result"]],
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Before,
    /// A run began on this line.
    Open(u64),
    /// The run ended on this line; `failed` when by an `error`.
    Ended { at: u64, failed: bool },
    /// Events came after the run that ended on this line without a new `init` (reported once).
    Stray(u64),
}

/// How strongly a record is droid's (see `agents::detect`). Its `system`/`init` is no mark:
/// Claude Code's and cursor-agent's have the same keys. The marks are the records only droid
/// writes: a `message` or `reasoning` with a flat `text` (Gemini CLI's `message` has `content`,
/// OpenCode's `reasoning` a `part`), a `tool_call` with `messageId` or `toolId`, or with
/// `toolName` and no `toolCallId` (Grok Build's has one), a `tool_result` with `isError`,
/// `messageId` or `toolId` (Gemini CLI's has `tool_id`), a `completion`, and `finalText`.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    super::count_marks(&[marked(
        ty,
        &Keys {
            text: s.text.is_present(),
            ids: s.message_id.is_present() || s.tool_id.is_present(),
            bare_tool_name: s.tool_name.is_present() && !s.tool_call_id.is_present(),
            is_error: s.is_error.is_present(),
            final_text: s.final_text.is_present(),
        },
    )])
}

/// Which of droid's distinguishing keys a record has, for its mark.
pub(super) struct Keys {
    /// A top-level `text`.
    pub text: bool,
    /// `messageId` or `toolId`.
    pub ids: bool,
    /// `toolName` without Grok Build's `toolCallId`.
    pub bare_tool_name: bool,
    pub is_error: bool,
    pub final_text: bool,
}

/// droid's mark on a record of type `ty` with the keys said.
pub(super) fn marked(ty: &str, k: &Keys) -> bool {
    match ty {
        "message" | "reasoning" => k.text,
        "tool_call" => k.ids || k.bare_tool_name,
        "tool_result" => k.ids || k.is_error,
        "completion" => true,
        _ => k.final_text,
    }
}

/// The checker of one droid stream.
#[derive(Default)]
pub struct Validator {
    state: State,
    pub(super) calls: Calls,
    last_line: u64,
    mixed: bool,
    /// The run's session id (a bounded prefix; empty: not known).
    session: String,
    /// The last `timestamp`, as milliseconds, and its line.
    last_ms: Option<(u64, u64)>,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        matches!(self.state, State::Ended { .. } | State::Stray(_))
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
                &Keys {
                    text: self.text.0.is_some(),
                    ids: self.message_id.is_present() || self.tool_id.is_present(),
                    bare_tool_name: self.tool_name.is_present() && !self.tool_call_id.is_present(),
                    is_error: self.is_error.is_present(),
                    final_text: self.final_text.0.is_some(),
                },
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
        self.subtype.as_str()
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
            Agent::Droid,
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
        let ms = if expect(
            line.timestamp.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["timestamp"],
            emit,
        ) {
            self.in_order(pos, bytes, line.timestamp.as_millis(), emit)
        } else {
            None
        };
        let init = ty == "system" && line.subtype.as_str() == Some("init");
        if ty != "error" {
            let what = match ty {
                "system" => "a `system`",
                "message" => "a `message`",
                "reasoning" => "a `reasoning`",
                "tool_call" => "a `tool_call`",
                "tool_result" => "a `tool_result`",
                _ => "a `completion`",
            };
            require(
                line.session_id.json_type(),
                Want::Str,
                what,
                pos,
                bytes,
                &["session_id"],
                emit,
            );
        }
        if init {
            self.init(pos, bytes, line, ms, emit, &mut sink);
        } else {
            if !self.lifecycle(pos, bytes, ty, emit) {
                // A `completion` after the `error` that ended its run.
                self.spend(pos, bytes, line, emit);
                self.last_line = pos.line;
                return None;
            }
            self.same_session(pos, bytes, line, emit);
        }
        self.last_line = pos.line;
        match ty {
            "system" if !init => system(pos, bytes, line, emit),
            "message" => message(pos, bytes, line, ms, emit, &mut sink),
            "reasoning" => reasoning(pos, bytes, line, ms, emit, &mut sink),
            "tool_call" => self.tool_call(pos, bytes, line, ms, emit, &mut sink),
            "tool_result" => self.tool_result(pos, bytes, line, ms, emit, &mut sink),
            "completion" => self.completion(pos, bytes, line, ms, emit, &mut sink),
            "error" => self.error(pos, bytes, line, ms, emit, &mut sink),
            _ => {}
        }
        None
    }

    fn finish(&mut self, emit: Emit<'_>) {
        let State::Open(since) = self.state else {
            return;
        };
        // Not when the last record could not be read: it may have been the `completion`.
        if !self.calls.unreadable_after(self.last_line) {
            emit(Diagnostic::from_message(
                line_pos(self.last_line),
                messages::missing_result(&Unended::new(
                    Agent::Droid.display_name(),
                    "run",
                    Some(since),
                    "`completion` (or `error`)",
                )),
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
    /// `timestamp` (epoch milliseconds) is not earlier than the previous line's: a warning, as
    /// for the other agents that stamp their lines.
    fn in_order(
        &mut self,
        pos: Position,
        bytes: &[u8],
        ms: Option<u64>,
        emit: Emit<'_>,
    ) -> Option<u64> {
        let ms = ms?;
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
                None => d.with_snippet(bytes),
            });
        }
        self.last_ms = Some((ms, pos.line));
        Some(ms)
    }

    /// `system`/`init` opens a run; inside a run that has not ended it is a finding.
    fn init(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `system`/`init`";
        require(
            line.model.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["model"],
            emit,
        );
        expect(
            line.cwd.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["cwd"],
            emit,
        );
        match line.tools.json_type() {
            None | Some(JsonType::Array) => {}
            Some(t) => emit(super::wrong_type(pos, bytes, &["tools"], t, &[Want::Arr])),
        }
        if let State::Open(at) = self.state {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::duplicate_init(&Reopened::new(
                        Agent::Droid.display_name(),
                        "run",
                        "`system`/`init`",
                        at,
                        "`completion` (or `error`)",
                    )),
                )
                .with_related(at, "the run began here")
                .with_snippet(bytes),
            );
            for call in self.calls.drain() {
                emit(unfinished(
                    &call,
                    &Pairing {
                        before: Some("the run ends"),
                        ..PAIRING
                    },
                ));
            }
        }
        self.state = State::Open(pos.line);
        self.session.clear();
        if let Some(id) = line.session_id.as_str() {
            self.session.push_str(super::id_prefix(id));
        }
        if let Some(sink) = sink {
            sink(&session_start(
                Agent::Droid,
                pos.line,
                line.session_id.to_cow(),
                line.model.to_cow(),
                ms,
            ));
        }
    }

    /// Where a record other than the init stands in the run: `false` for a `completion` after
    /// the `error` that ended its run (the notes do not say whether droid writes one), which is
    /// not checked as the end of another run.
    fn lifecycle(&mut self, pos: Position, bytes: &[u8], ty: &str, emit: Emit<'_>) -> bool {
        match self.state {
            State::Open(_) | State::Stray(_) => {}
            // A run that fails before it starts (no login, a bad flag) may have no init.
            State::Before if ty == "error" => {}
            State::Before if self.calls.unreadable_seen() => self.state = State::Open(pos.line),
            State::Before => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::missing_init(&Opening {
                            agent: Agent::Droid.display_name(),
                            unit: "run",
                            first: EventType::of(ty),
                            opener: "`system`/`init`",
                            aside: None,
                        }),
                    )
                    .with_snippet(bytes),
                );
                self.state = State::Open(pos.line);
            }
            State::Ended { failed: true, .. } if ty == "completion" => return false,
            State::Ended { at, .. } => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::event_after_result(&AfterEnd {
                            agent: Agent::Droid.display_name(),
                            unit: "run",
                            record: EventType::of(ty),
                            end: "`completion` (or `error`)",
                            ended: at,
                            next: Some("`system`/`init`"),
                        }),
                    )
                    .with_snippet(bytes),
                );
                self.state = State::Stray(at);
            }
        }
        true
    }

    /// `session_id` is the run's on every line.
    fn same_session(&self, pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
        let Some(id) = line.session_id.as_str() else {
            return;
        };
        if self.session.is_empty() || super::id_prefix(id) == self.session {
            return;
        }
        let d = Diagnostic::from_message(
            pos,
            messages::session_id_mismatch(&SessionIds {
                agent: Agent::Droid.display_name(),
                unit: "run",
                field: "`session_id`",
                id,
                expected: &self.session,
                began: None,
                each: true,
                note: Some("the one its `system`/`init` names"),
            }),
        );
        emit(match crate::locate::value(bytes, &["session_id"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        });
    }

    fn completion(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        require(
            line.final_text.json_type(),
            Want::Str,
            "a `completion`",
            pos,
            bytes,
            &["finalText"],
            emit,
        );
        self.spend(pos, bytes, line, emit);
        let failed = line.is_error.as_bool() == Some(true);
        for call in self.calls.drain() {
            // A run that failed may leave its calls without results.
            if !failed {
                emit(unfinished(
                    &call,
                    &Pairing {
                        before: Some("the run's `completion`"),
                        ..PAIRING
                    },
                ));
            }
        }
        if !matches!(self.state, State::Stray(_)) {
            self.state = State::Ended {
                at: pos.line,
                failed,
            };
        }
        if let Some(sink) = sink {
            usage_event(pos, &line.usage, sink);
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(!failed);
            ev.session_id = line
                .session_id
                .to_cow()
                .or_else(|| (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session)));
            ev.text = line.final_text.text();
            ev.duration_ms = super::count(&line.duration_ms);
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    /// The spend fields of a `completion`: counts, and `isError` (seen once, not confirmed).
    fn spend(&self, pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
        for (name, f) in [
            ("numTurns", &line.num_turns),
            ("durationMs", &line.duration_ms),
        ] {
            if expect(f.json_type(), Want::Num, false, pos, bytes, &[name], emit) {
                super::expect_count(f, pos, bytes, &[name], emit);
            }
        }
        expect(
            line.is_error.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["isError"],
            emit,
        );
        let u = &line.usage;
        if expect(u.shape, Want::Obj, false, pos, bytes, &["usage"], emit) {
            for (name, f) in [
                ("input_tokens", &u.input_tokens),
                ("output_tokens", &u.output_tokens),
                ("cache_read_input_tokens", &u.cache_read),
                ("cache_creation_input_tokens", &u.cache_write),
                ("thinking_tokens", &u.thinking),
            ] {
                let path = ["usage", name];
                if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
                    super::expect_count(f, pos, bytes, &path, emit);
                }
            }
        }
    }

    /// An `error` ends the run, failed; its shape is not confirmed, so its fields are only
    /// checked for their types.
    fn error(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        for (name, f) in [
            ("source", &line.source),
            ("message", &line.message),
            ("session_id", &line.session_id),
        ] {
            expect(f.json_type(), Want::Str, false, pos, bytes, &[name], emit);
        }
        // A failed run may leave its calls without results.
        self.calls.drain();
        let was_failed = matches!(self.state, State::Ended { failed: true, .. });
        if !matches!(self.state, State::Stray(_)) {
            self.state = State::Ended {
                at: pos.line,
                failed: true,
            };
        }
        if let Some(sink) = sink {
            let text = line.message.to_cow().or_else(|| line.text.text());
            if was_failed {
                let mut ev = vocab::Event::new(Kind::Error, pos.line);
                ev.text = text;
                ev.timestamp_ms = ms;
                sink(&ev);
                return;
            }
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(false);
            ev.session_id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
            ev.text = text;
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }
}

/// A `system` record other than the init: not known to droid's stream, said as information.
fn system(pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
    if !require(
        line.subtype.json_type(),
        Want::Str,
        "a `system`",
        pos,
        bytes,
        &["subtype"],
        emit,
    ) {
        return;
    }
    let st = line.subtype.as_str().unwrap_or_default();
    let d = Diagnostic::from_message(
        pos,
        messages::unknown_subtype(&messages::Subtype {
            agent: Agent::Droid.display_name(),
            record: "`system`",
            field: "subtype",
            value: st,
            known: &["init"],
            note: None,
        }),
    );
    emit(match crate::locate::value(bytes, &["subtype"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    });
}

fn message(
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
        line.text.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["text"],
        emit,
    );
    expect(
        line.id.json_type(),
        Want::Str,
        false,
        pos,
        bytes,
        &["id"],
        emit,
    );
    let role = line.role.as_str();
    if let Some(r) = role
        && !matches!(r, "user" | "assistant")
    {
        let d = Diagnostic::from_message(
            pos,
            messages::unknown_subtype(&messages::Subtype {
                agent: Agent::Droid.display_name(),
                record: "a `message`",
                field: "role",
                value: r,
                known: &["user", "assistant"],
                note: None,
            }),
        );
        emit(match crate::locate::value(bytes, &["role"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        });
    }
    if let Some(sink) = sink {
        let kind = if role == Some("assistant") {
            Kind::AssistantText
        } else {
            Kind::UserPrompt
        };
        let mut ev = vocab::Event::new(kind, pos.line);
        ev.text = line.text.text();
        ev.timestamp_ms = ms;
        sink(&ev);
    }
}

fn reasoning(
    pos: Position,
    bytes: &[u8],
    line: &Line<'_>,
    ms: Option<u64>,
    emit: Emit<'_>,
    sink: &mut Sink<'_, '_>,
) {
    require(
        line.text.json_type(),
        Want::Str,
        "a `reasoning`",
        pos,
        bytes,
        &["text"],
        emit,
    );
    expect(
        line.id.json_type(),
        Want::Str,
        false,
        pos,
        bytes,
        &["id"],
        emit,
    );
    if let Some(sink) = sink {
        let mut ev = vocab::Event::new(Kind::Thinking, pos.line);
        ev.text = line.text.text();
        ev.timestamp_ms = ms;
        sink(&ev);
    }
}

/// The run's total tokens, once, from its `completion`.
fn usage_event(pos: Position, u: &Usage<'_>, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
    if u.shape != Some(JsonType::Object) {
        return;
    }
    let n = |f: &Field<'_>| super::count(f).unwrap_or(0);
    let mut ev = vocab::Event::new(Kind::Usage, pos.line);
    ev.usage = Some(Tokens {
        input: n(&u.input_tokens),
        output: n(&u.output_tokens),
        cache_read: n(&u.cache_read),
        cache_write: n(&u.cache_write),
        reasoning: n(&u.thinking),
    });
    sink(&ev);
}
