//! cursor-agent's events in the common vocabulary.
//!
//! This module owns the mapping of cursor-agent's records (in any of its dialects, as
//! `view` reads them) into [`crate::vocab::Event`]s, with the little state it needs: when
//! each open tool call started, whether the stream's session has begun, when the thinking phase
//! under way began, and (in `merge`) what `--stream-partial-output` deltas said, so that the
//! flush repeating them adds only what they did not say. Every fact a consumer shows is in the
//! events: the working directory, exit codes, lines read, rejections, how long thinking took.
//! `check` runs it after cursor's validator has seen a record, for the consumers that read common
//! events. It must not check anything (that is `validate`'s).

mod checker;
pub mod log;
mod merge;
pub mod validate;
pub mod view;

pub use checker::{Checker, Line, TYPE_NAMES, evidence};

use super::{Agent, id_prefix};
use crate::agents::cursor::view::Event as CursorEvent;
use crate::json::JsonType;
use crate::pairing::Table;
use crate::vocab::{Event, Kind, Tokens, tool_kind};
use merge::{Piece, TextMerge};
use std::borrow::Cow;

/// The mapping's state for one input.
pub struct ToCommon {
    /// The open tool calls: when each started (`timestamp_ms`) and its tool's name (a bounded
    /// prefix; a dialect's completion may omit it), by call id, at most `--max-open-calls`.
    started: Table<(Option<u64>, Box<str>)>,
    /// An event has been mapped (a stream whose first event is not `system`/`init` still has a
    /// session, as `stats` counts).
    seen: bool,
    /// The partial-output deltas since the last flush.
    text: TextMerge,
    /// A thinking phase is under way: the `timestamp_ms` of its first delta, when it had one.
    #[expect(
        clippy::option_option,
        reason = "whether a phase is under way, and the timestamp of its first delta when it had one"
    )]
    thinking: Option<Option<u64>>,
}

impl ToCommon {
    /// Keeps at most `max_open_calls` calls open; a call completed past them starts in the
    /// common form where it completes.
    pub fn new(max_open_calls: usize) -> ToCommon {
        ToCommon {
            started: Table::new(max_open_calls),
            seen: false,
            text: TextMerge::default(),
            thinking: None,
        }
    }

    /// Maps one event of a cursor-agent stream (read from `line`, whose JSON text is `json`)
    /// into `sink`.
    pub fn map(
        &mut self,
        line: u64,
        json: &str,
        ev: &CursorEvent<'_>,
        sink: &mut dyn FnMut(&Event<'_>),
    ) {
        let init = ev.ty.as_str() == Some("system") && ev.subtype.as_str() == Some("init");
        if ev.ty.as_str() != Some("thinking") {
            self.thinking = None;
        }
        if !self.seen && !init {
            let mut e = Event::new(Kind::SessionStart, line);
            e.agent = Some(Agent::Cursor.as_str());
            e.session_id = ev.session_id.to_cow();
            sink(&e);
        }
        self.seen = true;
        match (ev.ty.as_str(), ev.subtype.as_str()) {
            (Some("system"), Some("init")) => {
                let mut e = Event::new(Kind::SessionStart, line);
                e.agent = Some(Agent::Cursor.as_str());
                e.session_id = ev.session_id.to_cow();
                e.model = ev.model.to_cow();
                let cwd = init_cwd(json);
                e.cwd = cwd.as_deref().map(Cow::Borrowed);
                sink(&e);
            }
            (Some("user"), _) => {
                let mut e = Event::new(Kind::UserPrompt, line);
                e.text.clone_from(&ev.message.text);
                sink(&e);
            }
            (Some("assistant"), _) => self.assistant(line, ev, sink),
            (Some("thinking"), Some("delta")) => {
                let ts = ev.timestamp_ms.as_millis();
                self.thinking.get_or_insert(ts);
                let mut e = Event::new(Kind::Thinking, line);
                e.text = ev.text.to_cow();
                e.delta = true;
                e.timestamp_ms = ts;
                sink(&e);
            }
            (Some("thinking"), Some("completed")) => self.thinking_completed(line, ev, sink),
            (Some("tool_call"), Some("started")) => self.tool_started(line, ev, sink),
            (Some("tool_call"), Some("completed")) => self.tool_completed(line, ev, sink),
            (Some("result"), _) => self.result(line, ev, sink),
            _ => {}
        }
    }

    /// An assistant message: each piece of text once, as a flush that repeats the deltas
    /// before it adds only what they did not say (usually nothing).
    fn assistant(&mut self, line: u64, ev: &CursorEvent<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        let Some(text) = ev.message.text.as_deref() else {
            return;
        };
        let (said, continues) = self.text.push(text, Piece::of(ev));
        if said.is_empty() {
            return;
        }
        let mut e = Event::new(Kind::AssistantText, line);
        e.text = Some(Cow::Borrowed(said));
        e.delta = continues;
        e.timestamp_ms = ev.timestamp_ms.as_millis();
        sink(&e);
    }

    /// The end of a phase of thinking: a thinking event without text, with how long the phase
    /// took.
    fn thinking_completed(
        &mut self,
        line: u64,
        ev: &CursorEvent<'_>,
        sink: &mut dyn FnMut(&Event<'_>),
    ) {
        let Some(since) = self.thinking.take() else {
            return;
        };
        let mut e = Event::new(Kind::Thinking, line);
        e.timestamp_ms = ev.timestamp_ms.as_millis();
        e.duration_ms = match (since, e.timestamp_ms) {
            (Some(a), Some(b)) if b >= a => Some(b - a),
            _ => None,
        };
        sink(&e);
    }

    /// A tool call's start, and the call kept open (within `--max-open-calls`) until it
    /// completes.
    fn tool_started(&mut self, line: u64, ev: &CursorEvent<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        let id = ev.call_id.to_cow();
        let ts = ev.timestamp_ms.as_millis();
        let name = ev.tool_call.kind.as_deref().unwrap_or("(none)");
        let mut e = Event::new(Kind::ToolStart, line);
        e.name = Some(Cow::Borrowed(name));
        e.tool_kind = Some(tool_kind(name));
        e.timestamp_ms = ts;
        e.args = ev.tool_call.args;
        if let Some(id) = &id
            && self.started.len() < self.started.max()
        {
            self.started.insert(id, (ts, id_prefix(name).into()));
        }
        e.call_id = id;
        sink(&e);
    }

    /// A tool call's completion: how it went and how long it took, after its start when none
    /// was seen.
    fn tool_completed(
        &mut self,
        line: u64,
        ev: &CursorEvent<'_>,
        sink: &mut dyn FnMut(&Event<'_>),
    ) {
        let id = ev.call_id.to_cow();
        let ts = ev.timestamp_ms.as_millis();
        let known = id.as_deref().and_then(|i| self.started.take(i));
        let name = match (&ev.tool_call.kind, &known) {
            (Some(k), _) => k.as_ref(),
            (None, Some((_, started))) => started.as_ref(),
            (None, None) => "(none)",
        };
        let mut e = Event::new(Kind::ToolEnd, line);
        e.name = Some(Cow::Borrowed(name));
        e.tool_kind = Some(tool_kind(name));
        e.timestamp_ms = ts;
        if known.is_none() {
            // A call announced by an `interaction_query` completes without a start: it starts
            // here in the common form.
            let mut s = Event::new(Kind::ToolStart, line);
            s.name.clone_from(&e.name);
            s.tool_kind = e.tool_kind;
            s.call_id.clone_from(&id);
            s.args = ev.tool_call.args;
            sink(&s);
        }
        let start = known.as_ref().and_then(|(ts, _)| *ts);
        e.duration_ms = match (start, ts) {
            (Some(a), Some(b)) if b >= a => Some(b - a),
            _ => None,
        };
        let outcome = ev.tool_call.outcome.as_deref();
        e.ok = outcome.map(|o| o == "success" && ev.tool_call.exit_code.is_none_or(|c| c == 0));
        e.rejected = outcome == Some("rejected");
        e.exit_code = ev.tool_call.exit_code;
        e.lines = ev.tool_call.total_lines;
        e.text = ev.tool_call.output.and_then(output_text);
        e.call_id = id;
        sink(&e);
    }

    /// The session's result: its tokens (when it says them), then its end; what was open or
    /// partly said is forgotten.
    fn result(&mut self, line: u64, ev: &CursorEvent<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        let u = &ev.usage;
        if u.shape == Some(JsonType::Object) {
            let mut e = Event::new(Kind::Usage, line);
            e.usage = Some(Tokens {
                input: u.input_tokens.unwrap_or(0),
                output: u.output_tokens.unwrap_or(0),
                cache_read: u.cache_read_tokens.unwrap_or(0),
                cache_write: u.cache_write_tokens.unwrap_or(0),
                reasoning: 0,
            });
            sink(&e);
        }
        let mut e = Event::new(Kind::End, line);
        let error = match ev.is_error.as_bool() {
            Some(e) => e,
            None => ev.subtype.as_str() == Some("error"),
        };
        e.ok = Some(!error);
        e.text = ev.result.to_cow();
        e.duration_ms = ev.duration_ms.as_millis();
        e.duration_api_ms = ev.duration_api_ms.as_millis();
        e.session_id = ev.session_id.to_cow();
        self.started.clear();
        self.text = TextMerge::default();
        sink(&e);
    }
}

/// The working directory a `system`/`init` names (the event view does not keep it).
#[cold]
fn init_cwd(json: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Init {
        cwd: Option<String>,
    }
    serde_json::from_str::<Init>(json).ok()?.cwd
}

/// The text of a tool's output, from the JSON text of the string the view kept.
fn output_text(raw: &serde_json::value::RawValue) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<&str>(raw.get()) {
        Ok(s) => Some(Cow::Borrowed(s)),
        // With escapes, the string is decoded into a copy.
        Err(_) => serde_json::from_str::<String>(raw.get())
            .ok()
            .map(Cow::Owned),
    }
}
