//! The spans of a stream: one trace per session, built from its common events.
//!
//! This module owns how the common vocabulary (`sjlint_core::vocab`) becomes OpenTelemetry spans,
//! following OpenTelemetry's `gen_ai` semantic conventions: an `invoke_agent` span per session (its root), a
//! `chat` span per model turn, an `execute_tool` span per tool call, the calls and turns of a
//! subagent under the call that started it; their ids (`ids`), times, attributes and status.
//! Tokens and cost are counted by the statistics' own [`Collector`], once per session. Memory is
//! bounded: what it keeps is the open session, one entry per open call (at most
//! `max_open_calls`), one per open turn, and at most [`CONTENT_BYTES`] of text each. It must not
//! know any agent's records, and it must not write or send anything: finished spans are handed
//! over by [`Builder::drain`].

use super::ids;
use crate::stats::Collector;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::span::{Event as SpanEvent, SpanKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{Span, Status};
use sjlint_core::check::Consumer;
use sjlint_core::pairing::{self, Opened, Table};
use sjlint_core::vocab::{Event, Kind};

/// Where every span starts and ends when no time is known for the stream (neither in its
/// records nor from the lookup): 2024-01-01T00:00:00Z, in milliseconds. The root says so in
/// `sjlint.time.source` = `none`.
pub const NO_TIME_BASE_MS: u64 = 1_704_067_200_000;

/// The most text of a prompt, a turn, a call's arguments or its result kept for a span's
/// attributes (with `--otlp-content`); longer text is cut there, at a character boundary.
pub const CONTENT_BYTES: usize = 16 * 1024;

/// The most span events (the agent's errors) kept on one span; the rest are counted as dropped.
const MAX_SPAN_EVENTS: usize = 32;

/// What goes into the spans.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Prompts, texts, tool arguments and results as attributes (`--otlp-content`); without it,
    /// no span holds any of them.
    pub content: bool,
}

/// A tool call started and not yet ended.
struct Call {
    span: Span,
    /// `subagent`: the events of the call's subagent nest under it.
    kind: &'static str,
}

/// A model turn under way: from the model's first output to the first tool result, prompt or
/// end after it.
struct Turn {
    span: Span,
    text: String,
}

/// The session under way: its root span and what it gathers until it ends.
struct Session {
    trace_id: [u8; 16],
    root: Span,
    /// Spans made in the session so far: part of each span id.
    seq: u64,
    model: Option<String>,
    session_id: Option<String>,
    prompt: Option<String>,
    /// Tokens and cost, counted as `sjlint stats` counts them.
    usage: Collector,
}

/// Builds spans from common events; see the module documentation.
pub struct Builder<F: FnMut(u64) -> Option<u64>> {
    opts: Options,
    /// The arrival time of a source line (milliseconds since the Unix epoch), for records that
    /// carry no time of their own.
    arrival: F,
    /// Mixed into every trace id: empty for a transcript (the same file gives the same ids),
    /// the run's own for `run` (two runs of one session id are two traces).
    salt: Vec<u8>,
    agent: Option<&'static str>,
    session: Option<Session>,
    sessions: u64,
    /// Calls under way, by their id, at most `max_open_calls` of them.
    calls: Table<Call>,
    /// Turns under way, by the id of the call whose subagent makes them ("" for the main
    /// agent): one more than the calls.
    turns: Table<Turn>,
    /// The latest time known, carried to events that have none.
    last_ms: Option<u64>,
    timed_by_record: bool,
    timed_by_arrival: bool,
    done: Vec<Span>,
}

impl<F: FnMut(u64) -> Option<u64>> Builder<F> {
    /// A builder whose events without a time of their own take `arrival(line)`.
    pub fn new(opts: Options, arrival: F) -> Self {
        Builder {
            opts,
            arrival,
            salt: Vec::new(),
            agent: None,
            session: None,
            sessions: 0,
            calls: Table::new(pairing::DEFAULT_MAX_OPEN_CALLS),
            turns: Table::new(pairing::DEFAULT_MAX_OPEN_CALLS + 1),
            last_ms: None,
            timed_by_record: false,
            timed_by_arrival: false,
            done: Vec::new(),
        }
    }

    /// Mixes `salt` into every trace id (a run's own start, so that two runs differ).
    pub fn salt(mut self, salt: &[u8]) -> Self {
        self.salt = salt.to_vec();
        self
    }

    /// Keeps at most `n` tool calls open; a call started past that is a span of no length.
    pub fn max_open_calls(mut self, n: usize) -> Self {
        self.calls.set_max(n);
        self.turns.set_max(n.max(1).saturating_add(1));
        self
    }

    /// The agent that wrote the stream (`claude`, `codex`, …), once it is known.
    pub fn agent(&mut self, agent: Option<&'static str>) {
        self.agent = agent;
    }

    /// The agent named so far.
    pub fn agent_name(&self) -> Option<&'static str> {
        self.agent
    }

    /// The spans finished since the last call, in the order they ended.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Span> {
        self.done.drain(..)
    }

    /// Ends what is still open at the end of the stream: its calls (unfinished, an error), its
    /// turns, and its session (which did not say it ended).
    pub fn finish(&mut self) {
        if self.session.is_some() {
            let at = self.last_ms.unwrap_or(NO_TIME_BASE_MS);
            self.end_session(at, None, None, false);
        }
    }

    /// The time of an event: its own, else its line's arrival, else the latest known.
    fn time(&mut self, ev: &Event<'_>) -> u64 {
        let own = ev.timestamp_ms.filter(|&t| t > 0);
        let t = if let Some(t) = own {
            self.timed_by_record = true;
            Some(t)
        } else if let Some(t) = (self.arrival)(ev.line) {
            self.timed_by_arrival = true;
            Some(t)
        } else {
            None
        };
        match t {
            // Never before the latest time: a span does not end before it starts.
            Some(t) => {
                if self.last_ms.is_none() {
                    self.first_time(t);
                }
                let t = self.last_ms.map_or(t, |last| t.max(last));
                self.last_ms = Some(t);
                t
            }
            None => self.last_ms.unwrap_or(NO_TIME_BASE_MS),
        }
    }

    /// The first time the stream tells: the spans begun before it, at [`NO_TIME_BASE_MS`],
    /// begin then instead (a session whose first records carry no time does not seem to begin
    /// decades before its calls).
    fn first_time(&mut self, t: u64) {
        let base = nanos(NO_TIME_BASE_MS);
        let open = self
            .session
            .iter_mut()
            .map(|s| &mut s.root)
            .chain(self.turns.values_mut().map(|t| &mut t.span))
            .chain(self.calls.values_mut().map(|c| &mut c.span));
        for span in open {
            if span.start_time_unix_nano == base {
                span.start_time_unix_nano = nanos(t);
                span.end_time_unix_nano = nanos(t);
            }
        }
    }

    /// One common event of the stream.
    pub fn event(&mut self, ev: &Event<'_>) {
        if ev.agent.is_some() {
            self.agent = ev.agent;
        }
        let at = self.time(ev);
        if ev.kind == Kind::SessionStart && self.session.is_some() {
            self.end_session(at, None, None, false);
        }
        if self.session.is_none() {
            self.start_session(ev, at);
        }
        if let Some(s) = &mut self.session {
            s.usage.common(ev);
            if s.model.is_none()
                && let Some(m) = &ev.model
            {
                s.model = Some(bounded(m).to_owned());
            }
            if s.session_id.is_none()
                && let Some(id) = &ev.session_id
            {
                s.session_id = Some(bounded(id).to_owned());
            }
        }
        // The subagent the event is of: the id of the call that started it, "" for the main agent.
        let ctx = ev.parent.as_deref().unwrap_or("");
        match ev.kind {
            Kind::SessionStart | Kind::Usage => {}
            Kind::UserPrompt => {
                self.end_turn(ctx, at);
                if self.opts.content
                    && ev.parent.is_none()
                    && let (Some(s), Some(text)) = (&mut self.session, &ev.text)
                    && s.prompt.is_none()
                {
                    s.prompt = Some(cut(text).to_owned());
                }
            }
            Kind::AssistantText | Kind::Thinking => {
                let content = self.opts.content && ev.kind == Kind::AssistantText;
                let turn = self.turn(ctx, ev, at);
                if content && let (Some(turn), Some(text)) = (turn, &ev.text) {
                    push_bounded(&mut turn.text, text);
                }
            }
            Kind::ToolStart => {
                self.turn(ctx, ev, at);
                self.start_call(ev, ctx, at);
            }
            Kind::ToolEnd => {
                self.end_turn(ctx, at);
                self.end_call(ev, at);
            }
            Kind::Error => {
                let content = self.opts.content;
                if let Some(s) = &mut self.session {
                    let mut attributes = vec![kv_int("sjlint.line", ev.line)];
                    if content && let Some(text) = &ev.text {
                        attributes.push(kv_str("exception.message", cut(text)));
                    }
                    add_event(&mut s.root, "error", at, attributes);
                }
            }
            // The end of the input says the session is unfinished, as it ends it.
            Kind::End if ev.outcome == Some(sjlint_core::vocab::Outcome::NoResult) => {}
            Kind::End => {
                let id = ev.session_id.as_deref().map(bounded);
                let text = ev.text.as_deref().filter(|_| self.opts.content).map(cut);
                let text = text.map(str::to_owned);
                let outcome = ev
                    .outcome
                    .unwrap_or(sjlint_core::vocab::Outcome::of_ok(ev.ok));
                self.end_session(at, ev.ok, id, true);
                if let Some(root) = self.done.last_mut() {
                    root.attributes
                        .push(kv_str("sjlint.outcome", outcome.as_str()));
                    if let Some(text) = text {
                        root.attributes.push(kv_str("output.value", &text));
                    }
                }
            }
        }
    }

    fn start_session(&mut self, ev: &Event<'_>, at: u64) {
        self.sessions += 1;
        let agent = self.agent.unwrap_or("unknown");
        let ordinal = self.sessions.to_string();
        // Sessions that say no id (before their end) are told apart by their place in the
        // stream.
        let key = ev.session_id.as_deref().map_or_else(
            || format!("{agent}\u{0}#{ordinal}"),
            |id| bounded(id).to_owned(),
        );
        let trace_id = ids::trace_id(&[&self.salt, key.as_bytes()]);
        let span_id = ids::span_id(&trace_id, &[b"invoke_agent", ordinal.as_bytes()]);
        let mut root = span(
            trace_id,
            span_id,
            None,
            format!("invoke_agent {agent}"),
            SpanKind::Internal,
            at,
        );
        root.attributes.extend([
            kv_str("gen_ai.operation.name", "invoke_agent"),
            kv_str("gen_ai.agent.name", agent),
            kv_str("openinference.span.kind", "AGENT"),
            kv_int("sjlint.line", ev.line),
        ]);
        self.session = Some(Session {
            trace_id,
            root,
            seq: 0,
            model: None,
            session_id: None,
            prompt: None,
            usage: Collector::new(),
        });
    }

    /// Ends the session: its turns and calls first (a call still open never finished), then its
    /// root, with what the session gathered.
    fn end_session(&mut self, at: u64, ok: Option<bool>, id: Option<&str>, said_end: bool) {
        let turns: Vec<Turn> = self.turns.drain().collect();
        for turn in turns {
            self.finish_turn(turn, at);
        }
        // Inner calls first, so that a subagent's calls end before the call that started it.
        let mut open: Vec<Call> = self.calls.drain().collect();
        open.sort_by_key(|c| std::cmp::Reverse(c.span.start_time_unix_nano));
        for mut call in open {
            unfinished(&mut call.span, at);
            self.done.push(call.span);
        }
        let Some(mut s) = self.session.take() else {
            return;
        };
        if s.session_id.is_none() {
            s.session_id = id.map(str::to_owned);
        }
        let agent = self.agent.unwrap_or("unknown");
        let root = &mut s.root;
        root.end_time_unix_nano = nanos(at);
        let attrs = &mut root.attributes;
        attrs.push(kv_str(
            "gen_ai.provider.name",
            provider(agent, s.model.as_deref()),
        ));
        if let Some(m) = &s.model {
            attrs.push(kv_str("gen_ai.request.model", m));
        }
        if let Some(id) = &s.session_id {
            attrs.push(kv_str("gen_ai.conversation.id", id));
        }
        let (tokens, cost) = s.usage.tokens();
        attrs.extend([
            kv_int("gen_ai.usage.input_tokens", tokens.input),
            kv_int("gen_ai.usage.output_tokens", tokens.output),
            kv_int("gen_ai.usage.cache_read.input_tokens", tokens.cache_read),
            kv_int(
                "gen_ai.usage.cache_creation.input_tokens",
                tokens.cache_write,
            ),
            // Part of the output tokens, as the conventions count it: not added to them.
            kv_int("gen_ai.usage.reasoning.output_tokens", tokens.reasoning),
            kv_int("llm.token_count.prompt", tokens.input),
            kv_int("llm.token_count.completion", tokens.output),
        ]);
        if let Some(c) = cost {
            attrs.push(kv_f64("sjlint.cost_usd", c));
        }
        attrs.push(kv_str(
            "sjlint.time.source",
            match (self.timed_by_record, self.timed_by_arrival) {
                (true, true) => "record+arrival",
                (true, false) => "record",
                (false, true) => "arrival",
                (false, false) => "none",
            },
        ));
        if !said_end {
            attrs.push(kv_bool("sjlint.session.unfinished", true));
        }
        if let Some(p) = s.prompt.take() {
            attrs.push(kv_str("input.value", &p));
        }
        root.status = Some(match ok {
            Some(false) => error_status("the agent reported failure"),
            _ => Status::default(),
        });
        self.done.push(s.root);
    }

    /// The next span id of the session, from `what` and the session's count of spans.
    fn next_id(&mut self, what: &str, call_id: &str) -> ([u8; 16], [u8; 8]) {
        let Some(s) = &mut self.session else {
            return ([1; 16], [1; 8]);
        };
        s.seq += 1;
        let seq = s.seq.to_string();
        let id = ids::span_id(
            &s.trace_id,
            &[what.as_bytes(), call_id.as_bytes(), seq.as_bytes()],
        );
        (s.trace_id, id)
    }

    /// The span the spans of `ctx` nest under: the call that started the subagent, when it is
    /// open, else the session's root.
    fn parent_of(&self, ctx: &str) -> Option<Vec<u8>> {
        if !ctx.is_empty()
            && let Some(call) = self.calls.get(ctx)
        {
            return Some(call.span.span_id.clone());
        }
        self.session.as_ref().map(|s| s.root.span_id.clone())
    }

    /// The turn under way in `ctx`, begun now if none is.
    fn turn(&mut self, ctx: &str, ev: &Event<'_>, at: u64) -> Option<&mut Turn> {
        if !self.turns.contains(ctx) {
            if self.turns.len() >= self.turns.max() {
                return None;
            }
            let parent = self.parent_of(ctx);
            let (trace, id) = self.next_id("chat", bounded(ctx));
            let model = self.session.as_ref().and_then(|s| s.model.clone());
            let agent = self.agent.unwrap_or("unknown");
            let name = match &model {
                Some(m) => format!("chat {m}"),
                None => "chat".to_owned(),
            };
            let mut s = span(trace, id, parent, name, SpanKind::Client, at);
            s.attributes.extend([
                kv_str("gen_ai.operation.name", "chat"),
                kv_str("gen_ai.provider.name", provider(agent, model.as_deref())),
                kv_str("openinference.span.kind", "LLM"),
                kv_int("sjlint.line", ev.line),
            ]);
            if let Some(m) = &model {
                s.attributes.push(kv_str("gen_ai.request.model", m));
                s.attributes.push(kv_str("llm.model_name", m));
            }
            self.turns.insert(
                ctx,
                Turn {
                    span: s,
                    text: String::new(),
                },
            );
        }
        self.turns.get_mut(ctx)
    }

    fn end_turn(&mut self, ctx: &str, at: u64) {
        if let Some(turn) = self.turns.take(ctx) {
            self.finish_turn(turn, at);
        }
    }

    fn finish_turn(&mut self, mut turn: Turn, at: u64) {
        turn.span.end_time_unix_nano = nanos(at);
        if !turn.text.is_empty() {
            turn.span
                .attributes
                .push(kv_str("output.value", &turn.text));
        }
        turn.span.status = Some(Status::default());
        self.done.push(turn.span);
    }

    fn start_call(&mut self, ev: &Event<'_>, ctx: &str, at: u64) {
        let name = ev.name.as_deref().map_or("(none)", bounded);
        let kind = ev
            .tool_kind
            .unwrap_or_else(|| sjlint_core::vocab::tool_kind(name));
        let call_id = ev.call_id.as_deref().map(sjlint_core::agents::id_prefix);
        let parent = self.parent_of(ctx);
        let (trace, id) = self.next_id("execute_tool", call_id.unwrap_or(""));
        let mut s = span(
            trace,
            id,
            parent,
            format!("execute_tool {name}"),
            SpanKind::Internal,
            at,
        );
        s.attributes.extend([
            kv_str("gen_ai.operation.name", "execute_tool"),
            kv_str("gen_ai.tool.name", name),
            kv_str(
                "gen_ai.tool.type",
                if kind == "mcp" {
                    "extension"
                } else {
                    "function"
                },
            ),
            kv_str("sjlint.tool.kind", kind),
            kv_str("openinference.span.kind", "TOOL"),
            kv_str("tool.name", name),
            kv_int("sjlint.line", ev.line),
        ]);
        if let Some(id) = call_id {
            s.attributes.push(kv_str("gen_ai.tool.call.id", id));
        }
        if !ctx.is_empty() {
            s.attributes
                .push(kv_str("sjlint.parent.call_id", bounded(ctx)));
        }
        if self.opts.content
            && let Some(args) = ev.args
        {
            let args = cut(args.get());
            s.attributes
                .push(kv_str("gen_ai.tool.call.arguments", args));
            s.attributes.push(kv_str("input.value", args));
        }
        let call = Call { span: s, kind };
        let opened = match ev.call_id.as_deref() {
            Some(id) => self.calls.insert(id, call),
            None => Opened::Full(call),
        };
        match opened {
            Opened::Kept => {}
            // A second start for an open id leaves the first one unfinished.
            Opened::Replaced(mut earlier) => {
                unfinished(&mut earlier.span, at);
                self.done.push(earlier.span);
            }
            // Its end could not be matched (past the budget, or without an id): a span of no
            // length.
            Opened::Full(call) => {
                let mut span = call.span;
                span.end_time_unix_nano = nanos(at);
                span.attributes.push(kv_bool("sjlint.tool.unpaired", true));
                span.status = Some(Status::default());
                self.done.push(span);
            }
        }
    }

    fn end_call(&mut self, ev: &Event<'_>, at: u64) {
        let Some(id) = ev.call_id.as_deref() else {
            return;
        };
        if !self.calls.contains(id) {
            // An end whose start was never seen: a span of no length (or, past the limit of
            // open calls, an unpaired one, already made).
            let ctx = ev.parent.as_deref().unwrap_or("");
            let start = Event {
                kind: Kind::ToolStart,
                ..ev.clone()
            };
            self.start_call(&start, ctx, at);
        }
        let Some(Call { mut span, kind }) = self.calls.take(id) else {
            return;
        };
        if kind == "subagent" {
            self.end_turn(id, at);
        }
        span.end_time_unix_nano = nanos(at);
        if let Some(code) = ev.exit_code {
            span.attributes.push(kv_i64("process.exit.code", code));
        }
        if ev.rejected {
            span.attributes.push(kv_bool("sjlint.tool.rejected", true));
        }
        if self.opts.content
            && let Some(text) = &ev.text
        {
            let text = cut(text);
            span.attributes
                .push(kv_str("gen_ai.tool.call.result", text));
            span.attributes.push(kv_str("output.value", text));
        }
        span.status = Some(if ev.rejected {
            span.attributes.push(kv_str("error.type", "rejected"));
            error_status("the call was rejected")
        } else if ev.ok == Some(false) {
            span.attributes.push(kv_str("error.type", "tool_error"));
            error_status("the call failed")
        } else {
            Status::default()
        });
        self.done.push(span);
    }
}

/// A span begun at `at_ms`.
fn span(
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent: Option<Vec<u8>>,
    name: String,
    kind: SpanKind,
    at_ms: u64,
) -> Span {
    Span {
        trace_id: trace_id.to_vec(),
        span_id: span_id.to_vec(),
        parent_span_id: parent.unwrap_or_default(),
        name,
        kind: kind as i32,
        start_time_unix_nano: nanos(at_ms),
        end_time_unix_nano: nanos(at_ms),
        ..Span::default()
    }
}

/// A call that never ended: it ends at `at_ms` as an error.
fn unfinished(span: &mut Span, at_ms: u64) {
    span.end_time_unix_nano = nanos(at_ms);
    span.attributes
        .push(kv_bool("sjlint.tool.unfinished", true));
    span.attributes.push(kv_str("error.type", "unfinished"));
    span.status = Some(error_status("the call never ended"));
}

fn add_event(span: &mut Span, name: &str, at_ms: u64, attributes: Vec<KeyValue>) {
    if span.events.len() >= MAX_SPAN_EVENTS {
        span.dropped_events_count += 1;
        return;
    }
    span.events.push(SpanEvent {
        time_unix_nano: nanos(at_ms),
        name: name.to_owned(),
        attributes,
        dropped_attributes_count: 0,
    });
}

fn error_status(message: &str) -> Status {
    Status {
        message: message.to_owned(),
        code: StatusCode::Error as i32,
    }
}

fn nanos(ms: u64) -> u64 {
    ms.saturating_mul(1_000_000)
}

/// The provider (`gen_ai.provider.name`) of an agent, or of its model for the agents that
/// run several vendors' models; `_OTHER` when neither tells.
pub fn provider(agent: &str, model: Option<&str>) -> &'static str {
    match agent {
        "claude" => return "anthropic",
        "codex" => return "openai",
        "gemini" => return "gcp.gemini",
        "grok" => return "x_ai",
        _ => {}
    }
    let m = model.unwrap_or("").to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or("");
    if m.starts_with("claude") || m.contains("sonnet") || m.contains("opus") {
        "anthropic"
    } else if m.starts_with("gpt")
        || m.starts_with("o1")
        || m.starts_with("o3")
        || m.starts_with("o4")
    {
        "openai"
    } else if m.starts_with("gemini") {
        "gcp.gemini"
    } else if m.starts_with("grok") {
        "x_ai"
    } else {
        "_OTHER"
    }
}

/// An id or a name of the stream, cut to a bounded prefix.
fn bounded(s: &str) -> &str {
    sjlint_core::agents::id_prefix(s)
}

/// `text` cut to [`CONTENT_BYTES`] at a character boundary.
fn cut(text: &str) -> &str {
    if text.len() <= CONTENT_BYTES {
        return text;
    }
    let mut end = CONTENT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn push_bounded(into: &mut String, text: &str) {
    let room = CONTENT_BYTES.saturating_sub(into.len());
    if room == 0 {
        return;
    }
    let mut end = room.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    into.push_str(&text[..end]);
}

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

fn kv_str(key: &str, value: &str) -> KeyValue {
    kv(key, any_value::Value::StringValue(value.to_owned()))
}

fn kv_int(key: &str, value: u64) -> KeyValue {
    kv_i64(key, i64::try_from(value).unwrap_or(i64::MAX))
}

fn kv_i64(key: &str, value: i64) -> KeyValue {
    kv(key, any_value::Value::IntValue(value))
}

fn kv_f64(key: &str, value: f64) -> KeyValue {
    kv(key, any_value::Value::DoubleValue(value))
}

fn kv_bool(key: &str, value: bool) -> KeyValue {
    kv(key, any_value::Value::BoolValue(value))
}
