//! The agent-neutral event vocabulary: what every agent's stream says, in one form.
//!
//! This module owns [`Event`] (a borrowed view each agent's checker maps its records into) and
//! its JSON form, which `sjlint fmt --to common` writes and sjlint reads back as a stream of its
//! own (`schemas/common.schema.json`). It must not know any agent's record shapes: the agent
//! modules map into it. Every event names the source line it came from.
//!
//! The vocabulary (`type`): `session_start`, `user_prompt`, `assistant_text`, `thinking`,
//! `tool_start`, `tool_end`, `usage`, `error`, `end`.

use super::{Agent, Calls, Opened, Progress, Raw, Want, expect, require, view};
use crate::check::{self, CheckOptions, Consumer};
use crate::diagnostic::Diagnostic;
use crate::event::{Field, JsonType};
use crate::fmt::FmtTotals;
use crate::input::record::{Position, Record};
use crate::rules::Rule;
use crate::text::Excerpt;
use bumpalo::Bump;
use serde::Serialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::io::{self, Read, Write};

/// The kind of a common event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A session (Claude), thread (Codex) or run (Gemini) begins.
    SessionStart,
    /// The user's prompt, or a message standing in for the user.
    UserPrompt,
    /// Text of the assistant (a whole message, or a `delta` piece of one).
    AssistantText,
    /// The model's reasoning, as far as the agent shows it.
    Thinking,
    /// A tool call begins.
    ToolStart,
    /// A tool call ends, with its status and result.
    ToolEnd,
    /// Tokens of one API message or turn (counted once).
    Usage,
    /// An error the agent reports that does not by itself end the run.
    Error,
    /// The session, turn or run ends.
    End,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::SessionStart,
        Kind::UserPrompt,
        Kind::AssistantText,
        Kind::Thinking,
        Kind::ToolStart,
        Kind::ToolEnd,
        Kind::Usage,
        Kind::Error,
        Kind::End,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SessionStart => "session_start",
            Kind::UserPrompt => "user_prompt",
            Kind::AssistantText => "assistant_text",
            Kind::Thinking => "thinking",
            Kind::ToolStart => "tool_start",
            Kind::ToolEnd => "tool_end",
            Kind::Usage => "usage",
            Kind::Error => "error",
            Kind::End => "end",
        }
    }

    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Token counts, each once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
}

/// What a tool does, across agents' tool names.
pub fn tool_kind(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    let n = n.as_str();
    if n.starts_with("mcp__") || n == "mcp_tool_call" {
        return "mcp";
    }
    match n {
        "bash" | "powershell" | "command_execution" | "run_shell_command" | "shell"
        | "bashoutput" | "killshell" | "killbash" => "shell",
        "read" | "read_file" | "read_many_files" | "notebookread" => "read",
        "write" | "write_file" => "write",
        "edit" | "multiedit" | "replace" | "file_change" | "notebookedit" | "apply_patch" => "edit",
        "glob" | "grep" | "ls" | "list_directory" | "search_file_content" | "glob_tool" => "search",
        "webfetch" | "web_fetch" => "web_fetch",
        "websearch" | "web_search" | "google_web_search" => "web_search",
        "task" | "agent" | "collab_tool_call" => "subagent",
        "todowrite" | "todo_list" | "write_todos" => "todo",
        _ => "other",
    }
}

/// One event of the common vocabulary. Fields a kind does not use stay `None`.
#[derive(Clone, Debug)]
pub struct Event<'a> {
    pub kind: Kind,
    /// The physical line of the source record.
    pub line: u64,
    /// The agent that wrote the source: on `session_start`, and on the first event of the
    /// common form.
    pub agent: Option<&'static str>,
    pub session_id: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    /// Prompt, assistant text, thinking, tool result text, error text, final result text.
    pub text: Option<Cow<'a, str>>,
    /// `assistant_text`: the text is a piece of a message whose pieces are joined.
    pub delta: bool,
    pub call_id: Option<Cow<'a, str>>,
    /// The tool's name as the agent gives it.
    pub name: Option<Cow<'a, str>>,
    /// [`tool_kind`] of the name.
    pub tool_kind: Option<&'static str>,
    /// `tool_start`: the arguments, as JSON text.
    pub args: Option<&'a RawValue>,
    /// `tool_end`, `end`: whether it went well.
    pub ok: Option<bool>,
    pub usage: Option<Tokens>,
    /// `end`: the cost of this session or turn in US dollars, when the agent reports it.
    pub cost_usd: Option<f64>,
    /// `tool_end`: how long the call took, when timestamps tell; `end`: the run's duration.
    pub duration_ms: Option<u64>,
    /// When the agent stamps its records: milliseconds since the Unix epoch.
    pub timestamp_ms: Option<u64>,
    /// The tool call of the subagent this event belongs to.
    pub parent: Option<Cow<'a, str>>,
}

impl<'a> Event<'a> {
    pub fn new(kind: Kind, line: u64) -> Event<'a> {
        Event {
            kind,
            line,
            agent: None,
            session_id: None,
            model: None,
            text: None,
            delta: false,
            call_id: None,
            name: None,
            tool_kind: None,
            args: None,
            ok: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            timestamp_ms: None,
            parent: None,
        }
    }
}

/// The tool kinds [`tool_kind`] gives, for reading them back as `&'static str` (and in this
/// order in the legends of `sjlint report`), "other" last.
pub const TOOL_KINDS: &[&str] = &[
    "shell",
    "read",
    "write",
    "edit",
    "search",
    "web_fetch",
    "web_search",
    "subagent",
    "todo",
    "mcp",
    "other",
];

/// The JSON form of one event (`schemas/common.schema.json`): `type` and `line` first, then the
/// fields the event has.
#[derive(Serialize)]
struct Wire<'e> {
    #[serde(rename = "type")]
    ty: &'static str,
    line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'e RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'e str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    delta: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<WireTokens>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp_ms: Option<u64>,
}

#[derive(Serialize)]
struct WireTokens {
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    reasoning_tokens: u64,
}

/// Appends `ev` as one JSON line to `out`, escaped by [`crate::json_out`].
pub fn write_line(ev: &Event<'_>, out: &mut Vec<u8>) {
    let wire = Wire {
        ty: ev.kind.as_str(),
        line: ev.line,
        agent: ev.agent,
        session_id: ev.session_id.as_deref(),
        model: ev.model.as_deref(),
        parent: ev.parent.as_deref(),
        call_id: ev.call_id.as_deref(),
        name: ev.name.as_deref(),
        tool_kind: ev.tool_kind,
        args: ev.args,
        ok: ev.ok,
        text: ev.text.as_deref(),
        delta: ev.delta,
        usage: ev.usage.map(|u| WireTokens {
            input_tokens: u.input,
            output_tokens: u.output,
            cache_read_tokens: u.cache_read,
            cache_write_tokens: u.cache_write,
            reasoning_tokens: u.reasoning,
        }),
        cost_usd: ev.cost_usd.filter(|c| c.is_finite()),
        duration_ms: ev.duration_ms,
        timestamp_ms: ev.timestamp_ms,
    };
    crate::json_out::to_writer(&mut *out, &wire).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

view! {
    /// One record of the common form, read back.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "line" => line: Field<'a>,
        "agent" => agent: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "model" => model: Field<'a>,
        "parent" => parent: Field<'a>,
        "call_id" => call_id: Field<'a>,
        "name" => name: Field<'a>,
        "tool_kind" => tool_kind: Field<'a>,
        "args" => args: Raw<'a>,
        "ok" => ok: Field<'a>,
        "text" => text: Field<'a>,
        "delta" => delta: Field<'a>,
        "usage" => usage: WireUsage<'a>,
        "cost_usd" => cost_usd: Field<'a>,
        "duration_ms" => duration_ms: Field<'a>,
        "timestamp_ms" => timestamp_ms: Field<'a>,
    }
}

view! {
    /// `usage` of a common `usage` event.
    pub struct WireUsage<'a> {
        "input_tokens" => input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "cache_read_tokens" => cache_read_tokens: Field<'a>,
        "cache_write_tokens" => cache_write_tokens: Field<'a>,
        "reasoning_tokens" => reasoning_tokens: Field<'a>,
    }
}

/// The checker of a stream in the common form: each event's type and fields, and that every
/// `tool_start` is ended once. What the source broke was reported on the source.
#[derive(Default)]
pub struct Validator {
    pub(super) calls: Calls,
    ended: bool,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        self.ended
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        self.calls.listed()
    }
}

impl Validator {
    pub fn record<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        json: &'a str,
        arena: &'a Bump,
        emit: &mut dyn FnMut(Diagnostic),
        sink: Option<&mut dyn FnMut(&Event<'_>)>,
    ) -> Result<Option<JsonType>, serde_json::Error> {
        let mut l = Line::default();
        super::parse_into(json, arena, &mut l)?;
        if l.shape != Some(JsonType::Object) {
            return Ok(l.shape);
        }
        let Some(kind) = l.ty.as_str().and_then(Kind::from_name) else {
            if !l.ty.is_present() {
                emit(
                    Diagnostic::new(Rule::MissingType, pos, "a record without a string `type`")
                        .with_snippet(bytes),
                );
            }
            return Ok(None);
        };
        let what = "a common event";
        require(
            l.line.json_type(),
            Want::Num,
            what,
            pos,
            bytes,
            &["line"],
            emit,
        );
        for (name, f) in [("ok", &l.ok), ("delta", &l.delta)] {
            expect(f.json_type(), Want::Bool, false, pos, bytes, &[name], emit);
        }
        for (name, f) in [
            ("cost_usd", &l.cost_usd),
            ("duration_ms", &l.duration_ms),
            ("timestamp_ms", &l.timestamp_ms),
        ] {
            expect(f.json_type(), Want::Num, false, pos, bytes, &[name], emit);
        }
        for (name, f) in [
            ("text", &l.text),
            ("call_id", &l.call_id),
            ("name", &l.name),
            ("session_id", &l.session_id),
        ] {
            expect(f.json_type(), Want::Str, false, pos, bytes, &[name], emit);
        }
        expect(
            l.usage.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["usage"],
            emit,
        );
        match kind {
            Kind::ToolStart | Kind::ToolEnd
                if require(
                    l.call_id.json_type(),
                    Want::Str,
                    "a tool event",
                    pos,
                    bytes,
                    &["call_id"],
                    emit,
                ) =>
            {
                self.pair(pos, bytes, kind, &l, emit);
            }
            Kind::SessionStart => self.ended = false,
            Kind::End => {
                self.ended = true;
                // A failed run may abandon its calls; a run that went well ends them.
                let open = self.calls.drain();
                if l.ok.as_bool() != Some(false) {
                    for call in open {
                        emit(super::unfinished(
                            &call,
                            "a `tool_start` is ended by a `tool_end` with its `call_id` before the `end`",
                        ));
                    }
                }
            }
            _ => {}
        }
        if let Some(sink) = sink {
            sink(&self.event(kind, &l));
        }
        Ok(None)
    }

    fn pair(
        &mut self,
        pos: Position,
        bytes: &[u8],
        kind: Kind,
        l: &Line<'_>,
        emit: &mut dyn FnMut(Diagnostic),
    ) {
        let id = l.call_id.as_str().unwrap_or_default();
        if kind == Kind::ToolStart {
            if let Opened::AlreadyOpen(at) =
                self.calls
                    .open(id, pos, bytes, l.name.as_str().unwrap_or("?"))
            {
                emit(
                    Diagnostic::new(
                        Rule::DuplicateCallId,
                        pos,
                        format!("`tool_start` {:?} is already open", Excerpt(id)),
                    )
                    .with_related(at, "opened here")
                    .with_snippet(bytes),
                );
            }
        } else if self.calls.close(id).is_none() && !self.calls.unreadable_seen() {
            emit(
                Diagnostic::new(
                    Rule::OrphanCompletion,
                    pos,
                    format!("`tool_end` {:?} has no open `tool_start`", Excerpt(id)),
                )
                .with_snippet(bytes),
            );
        }
    }

    fn event<'a>(&self, kind: Kind, l: &Line<'a>) -> Event<'a> {
        let mut ev = Event::new(kind, super::count(&l.line).unwrap_or(0));
        ev.agent = l
            .agent
            .as_str()
            .and_then(Agent::from_name)
            .map(Agent::as_str);
        ev.session_id = l.session_id.to_cow();
        ev.model = l.model.to_cow();
        ev.parent = l.parent.to_cow();
        ev.call_id = l.call_id.to_cow();
        ev.name = l.name.to_cow();
        ev.tool_kind = l.tool_kind.as_str().map(|k| {
            TOOL_KINDS
                .iter()
                .copied()
                .find(|t| *t == k)
                .unwrap_or("other")
        });
        ev.args = l.args.0;
        ev.ok = l.ok.as_bool();
        ev.text = l.text.to_cow();
        ev.delta = l.delta.as_bool() == Some(true);
        if l.usage.shape == Some(JsonType::Object) {
            let n = |f: &Field<'_>| super::count(f).unwrap_or(0);
            let u = &l.usage;
            ev.usage = Some(Tokens {
                input: n(&u.input_tokens),
                output: n(&u.output_tokens),
                cache_read: n(&u.cache_read_tokens),
                cache_write: n(&u.cache_write_tokens),
                reasoning: n(&u.reasoning_tokens),
            });
        }
        ev.cost_usd = l.cost_usd.as_f64();
        ev.duration_ms = super::count(&l.duration_ms);
        ev.timestamp_ms = super::count(&l.timestamp_ms);
        ev
    }

    pub fn finish(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        for call in self.calls.drain() {
            emit(super::unfinished(
                &call,
                "a `tool_start` is ended by a `tool_end` with its `call_id`",
            ));
        }
    }
}

/// Writes every agent's stream as common events (`sjlint fmt --to common`); see [`format`].
struct Writer<'o, W: Write> {
    out: &'o mut W,
    line: Vec<u8>,
    totals: FmtTotals,
    failed: Option<io::Error>,
    /// cursor's open tool calls: when each started (`timestamp_ms`), by call id.
    started: std::collections::HashMap<Box<str>, Option<u64>>,
    /// The agent of the input, named on the first event written (then `None`).
    agent: Option<&'static str>,
    /// A cursor event has been written (a stream whose first event is not `system`/`init` still
    /// has a session, as `stats` counts).
    cursor_seen: bool,
}

impl<W: Write> Writer<'_, W> {
    fn write(&mut self, ev: &Event<'_>) {
        if self.failed.is_some() {
            return;
        }
        self.line.clear();
        match self.agent.take() {
            Some(agent) if ev.agent.is_none() => {
                let mut named = ev.clone();
                named.agent = Some(agent);
                write_line(&named, &mut self.line);
            }
            _ => write_line(ev, &mut self.line),
        }
        match self.out.write_all(&self.line) {
            Ok(()) => self.totals.written += 1,
            Err(e) => self.failed = Some(e),
        }
    }

    /// cursor's events, mapped like the other agents'.
    #[expect(
        clippy::too_many_lines,
        reason = "one match over cursor's event types, each mapped to the common form"
    )]
    fn cursor(&mut self, rec: &Record<'_>, ev: &crate::event::Event<'_>) {
        let line = rec.pos.line;
        let out = |kind| Event::new(kind, line);
        let init = ev.ty.as_str() == Some("system") && ev.subtype.as_str() == Some("init");
        if !self.cursor_seen && !init {
            let mut e = out(Kind::SessionStart);
            e.agent = Some(Agent::Cursor.as_str());
            e.session_id = ev.session_id.to_cow();
            self.write(&e);
        }
        self.cursor_seen = true;
        match (ev.ty.as_str(), ev.subtype.as_str()) {
            (Some("system"), Some("init")) => {
                let mut e = out(Kind::SessionStart);
                e.agent = Some(Agent::Cursor.as_str());
                e.session_id = ev.session_id.to_cow();
                self.write(&e);
            }
            (Some("user"), _) => {
                let mut e = out(Kind::UserPrompt);
                e.text.clone_from(&ev.message.text);
                self.write(&e);
            }
            (Some("assistant"), _) => {
                let mut e = out(Kind::AssistantText);
                e.text.clone_from(&ev.message.text);
                e.delta = ev.timestamp_ms.is_present() && !ev.model_call_id.is_present();
                e.timestamp_ms = ev.timestamp_ms.as_millis();
                self.write(&e);
            }
            (Some("thinking"), Some("delta")) => {
                let mut e = out(Kind::Thinking);
                e.text = ev.text.to_cow();
                e.delta = true;
                e.timestamp_ms = ev.timestamp_ms.as_millis();
                self.write(&e);
            }
            (Some("tool_call"), Some(sub @ ("started" | "completed"))) => {
                let name = ev.tool_call.kind.as_deref().unwrap_or("(none)");
                let id = ev.call_id.to_cow();
                let ts = ev.timestamp_ms.as_millis();
                let mut e = out(if sub == "started" {
                    Kind::ToolStart
                } else {
                    Kind::ToolEnd
                });
                e.name = Some(Cow::Borrowed(name));
                e.tool_kind = Some(tool_kind(name.strip_suffix("ToolCall").unwrap_or(name)));
                e.timestamp_ms = ts;
                if sub == "started" {
                    e.args = ev.tool_call.args;
                    if let Some(id) = &id
                        && self.started.len() < super::MAX_OPEN_CALLS
                    {
                        self.started.insert(super::id_prefix(id).into(), ts);
                    }
                } else {
                    let known = id
                        .as_deref()
                        .and_then(|i| self.started.remove(super::id_prefix(i)));
                    if known.is_none() {
                        // A call announced by an `interaction_query` completes without a start:
                        // it starts here in the common form.
                        let mut s = out(Kind::ToolStart);
                        s.name.clone_from(&e.name);
                        s.tool_kind = e.tool_kind;
                        s.call_id.clone_from(&id);
                        s.args = ev.tool_call.args;
                        self.write(&s);
                    }
                    let start = known.flatten();
                    e.duration_ms = match (start, ts) {
                        (Some(a), Some(b)) if b >= a => Some(b - a),
                        _ => None,
                    };
                    let outcome = ev.tool_call.outcome.as_deref();
                    e.ok = outcome
                        .map(|o| o == "success" && ev.tool_call.exit_code.is_none_or(|c| c == 0));
                }
                e.call_id = id;
                self.write(&e);
            }
            (Some("result"), _) => {
                let u = &ev.usage;
                if u.shape == Some(JsonType::Object) {
                    let mut e = out(Kind::Usage);
                    e.usage = Some(Tokens {
                        input: u.input_tokens.unwrap_or(0),
                        output: u.output_tokens.unwrap_or(0),
                        cache_read: u.cache_read_tokens.unwrap_or(0),
                        cache_write: u.cache_write_tokens.unwrap_or(0),
                        reasoning: 0,
                    });
                    self.write(&e);
                }
                let mut e = out(Kind::End);
                let error = match ev.is_error.as_bool() {
                    Some(e) => e,
                    None => ev.subtype.as_str() == Some("error"),
                };
                e.ok = Some(!error);
                e.text = ev.result.to_cow();
                e.duration_ms = ev.duration_ms.as_millis();
                e.session_id = ev.session_id.to_cow();
                self.started.clear();
                self.write(&e);
            }
            _ => {}
        }
    }
}

impl<W: Write> Consumer for Writer<'_, W> {
    fn event(&mut self, rec: &Record<'_>, _json: &str, ev: &crate::event::Event<'_>) {
        self.totals.records += 1;
        self.cursor(rec, ev);
    }

    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.totals.records += 1;
        self.totals.invalid += 1;
    }

    fn agent(&mut self, agent: Option<Agent>) {
        self.agent = agent.filter(|&a| a != Agent::Common).map(Agent::as_str);
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &Event<'_>) {
        self.write(ev);
    }
}

/// `sjlint fmt --to common`: every event of `reader` (of any agent) in the common form on
/// `out`. Findings of the rules `check` enables go to `emit`.
pub fn format<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    let mut writer = Writer {
        out,
        line: Vec::with_capacity(4096),
        totals: FmtTotals::default(),
        failed: None,
        started: std::collections::HashMap::new(),
        agent: None,
        cursor_seen: false,
    };
    let totals = check::check_with(reader, check, emit, &mut writer);
    if let Some(e) = writer.failed.take() {
        return Err(e);
    }
    let totals = totals?;
    writer.out.flush()?;
    let mut t = writer.totals;
    // Records of Claude Code, Codex and Gemini CLI reach the writer as common events.
    t.records = totals.records;
    Ok(t)
}

/// How strongly a record is of sjlint's common form (see `agents::detect`): a type of its
/// vocabulary with a numeric `line`. It outweighs the marks a record keeps of the agent it was
/// converted from (cursor-agent's `timestamp_ms`, its `thinking` type; `usage`, `error` and
/// `end` are other agents' types too), so it counts as four marks.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let own = s.line.json_type() == Some(JsonType::Number)
        && s.ty.as_str().and_then(Kind::from_name).is_some();
    if own { 4 * super::MARK } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(tool_kind("Bash"), "shell");
        assert_eq!(tool_kind("mcp__github__list"), "mcp");
        assert_eq!(tool_kind("run_shell_command"), "shell");
        assert_eq!(tool_kind("whatever"), "other");
    }
}
