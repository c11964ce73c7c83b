//! cursor-agent's events in the common vocabulary.
//!
//! This module owns the mapping of cursor-agent's records (in any of its dialects, as
//! `crate::event` reads them) into [`crate::vocab::Event`]s, with the little state it needs: when
//! each open tool call started, and whether the stream's session has begun. `check` runs it
//! after cursor's validator has seen a record, for the consumers that read common events. It
//! must not check anything (that is `crate::validate`'s).

use super::{Agent, id_prefix};
use crate::event::{Event as CursorEvent, JsonType};
use crate::vocab::{Event, Kind, Tokens, tool_kind};
use std::borrow::Cow;
use std::collections::HashMap;

/// The mapping's state for one input.
pub struct ToCommon {
    /// The most open calls kept (`--max-open-calls`).
    max_open: usize,
    /// The open tool calls: when each started (`timestamp_ms`), by call id (a bounded prefix).
    started: HashMap<Box<str>, Option<u64>>,
    /// An event has been mapped (a stream whose first event is not `system`/`init` still has a
    /// session, as `stats` counts).
    seen: bool,
}

impl ToCommon {
    /// Keeps at most `max_open_calls` calls open; a call completed past them starts in the
    /// common form where it completes.
    pub fn new(max_open_calls: usize) -> ToCommon {
        ToCommon {
            max_open: max_open_calls,
            started: HashMap::new(),
            seen: false,
        }
    }

    /// Maps one event of a cursor-agent stream (read from `line`) into `sink`.
    #[expect(
        clippy::too_many_lines,
        reason = "one match over cursor's event types, each mapped to the common form"
    )]
    pub fn map(&mut self, line: u64, ev: &CursorEvent<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        let out = |kind| Event::new(kind, line);
        let init = ev.ty.as_str() == Some("system") && ev.subtype.as_str() == Some("init");
        if !self.seen && !init {
            let mut e = out(Kind::SessionStart);
            e.agent = Some(Agent::Cursor.as_str());
            e.session_id = ev.session_id.to_cow();
            sink(&e);
        }
        self.seen = true;
        match (ev.ty.as_str(), ev.subtype.as_str()) {
            (Some("system"), Some("init")) => {
                let mut e = out(Kind::SessionStart);
                e.agent = Some(Agent::Cursor.as_str());
                e.session_id = ev.session_id.to_cow();
                e.model = ev.model.to_cow();
                sink(&e);
            }
            (Some("user"), _) => {
                let mut e = out(Kind::UserPrompt);
                e.text.clone_from(&ev.message.text);
                sink(&e);
            }
            (Some("assistant"), _) => {
                let mut e = out(Kind::AssistantText);
                e.text.clone_from(&ev.message.text);
                e.delta = ev.is_delta();
                e.timestamp_ms = ev.timestamp_ms.as_millis();
                sink(&e);
            }
            (Some("thinking"), Some("delta")) => {
                let mut e = out(Kind::Thinking);
                e.text = ev.text.to_cow();
                e.delta = true;
                e.timestamp_ms = ev.timestamp_ms.as_millis();
                sink(&e);
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
                e.tool_kind = Some(tool_kind(name));
                e.timestamp_ms = ts;
                if sub == "started" {
                    e.args = ev.tool_call.args;
                    if let Some(id) = &id
                        && self.started.len() < self.max_open
                    {
                        self.started.insert(id_prefix(id).into(), ts);
                    }
                } else {
                    let known = id
                        .as_deref()
                        .and_then(|i| self.started.remove(id_prefix(i)));
                    if known.is_none() {
                        // A call announced by an `interaction_query` completes without a start:
                        // it starts here in the common form.
                        let mut s = out(Kind::ToolStart);
                        s.name.clone_from(&e.name);
                        s.tool_kind = e.tool_kind;
                        s.call_id.clone_from(&id);
                        s.args = ev.tool_call.args;
                        sink(&s);
                    }
                    let start = known.flatten();
                    e.duration_ms = match (start, ts) {
                        (Some(a), Some(b)) if b >= a => Some(b - a),
                        _ => None,
                    };
                    let outcome = ev.tool_call.outcome.as_deref();
                    e.ok = outcome
                        .map(|o| o == "success" && ev.tool_call.exit_code.is_none_or(|c| c == 0));
                    e.text = ev.tool_call.output.and_then(output_text);
                }
                e.call_id = id;
                sink(&e);
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
                    sink(&e);
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
                sink(&e);
            }
            _ => {}
        }
    }
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
