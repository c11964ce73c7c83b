//! cursor-agent's transcripts, the conversations it keeps on disk
//! (`~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl`, a delegated run's
//! `subagents/<child>.jsonl` beneath): their borrowed view, their checker, and their mapping
//! into the common vocabulary.
//!
//! This module owns what is true of the transcript only (see `agents/logs/cursor.md` of the
//! format notes); the `--output-format stream-json` stream is another, richer format (`super`).
//! Every line is a message, `{"role", "message": {"content": [blocks]}}`, named by its `role`
//! (`user`, `assistant`), or, since 2026.06, a role-less `{"type": "turn_ended"}` that closes a
//! turn. A line with neither is `missing-type`; roles, types and block types the notes do not
//! list are the next version's, said as information. A message without an object `message`, or
//! whose `content` is neither blocks nor text, is reported. Nothing else can be checked: the
//! transcript keeps no ids, no times, no tool results, no model and no tokens, so nothing
//! pairs, chains or counts (its `usage` is unknown, not zero: the common form has no `usage`
//! event). Nothing ends a transcript: it may stop anywhere. A subagent's file is a transcript
//! of its own; nothing in it names its parent's conversation or the call that spawned it (only
//! the folder does), and the common form has no field for a parent conversation, so it is read
//! alone. State is the little the common form needs. It must not print.
//!
//! Left for later: the legacy `*.txt` transcripts (not JSON), and the conversation id, which
//! only the file's name holds.

mod view;

use crate::agents::{Agent, Cx, Progress, Want, missing, require, unknown_type, wrong_type};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use crate::rules::RuleSet;
use crate::rules::messages;
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;
use view::Block;
pub(crate) use view::Record;

/// The roles of a transcript's messages.
pub const ROLES: &[&str] = &["user", "assistant"];

/// The types of its role-less lines.
pub const TYPES: &[&str] = &["turn_ended"];

/// The types of a message's content blocks.
pub const BLOCKS: &[&str] = &["text", "thinking", "tool_use"];

/// How strongly a line is a cursor-agent transcript's (see `agents::detect`): a `role` beside a
/// `message` object and no `type` is two marks (Kimi CLI's mark, a `role` without a `type`,
/// holds for it too), the line that closes a turn one.
pub fn evidence(s: &crate::agents::Sniff<'_>) -> u32 {
    let message = s.message.shape == Some(JsonType::Object);
    let role = s.role.as_str().is_some();
    let ty = s.ty.as_str();
    crate::agents::count_marks(&[marked(role, ty, message), role && ty.is_none() && message])
}

/// A transcript's mark: a message line (`role`, `message`, no `type`) or a `turn_ended`.
pub(super) fn marked(role: bool, ty: Option<&str>, message: bool) -> bool {
    match ty {
        None => role && message,
        Some(ty) => !role && ty == "turn_ended",
    }
}

/// The checker of one transcript.
#[derive(Default)]
pub struct Validator {
    /// The common form's `session_start` was written.
    started: bool,
}

impl Progress for Validator {
    /// A transcript says nothing of how a conversation ended.
    fn ended(&self) -> bool {
        false
    }
    /// Its tool calls have no ids and no results: none is known to be open.
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        Vec::new()
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

    /// A message line's `role`, else its `type`: what `stats` and `run` count it as.
    fn ty(&self) -> Option<&str> {
        self.role.as_str().or(self.ty.as_str())
    }
}

impl crate::agents::Rules for Validator {
    type Line<'a> = Record<'a>;

    fn new(_agent: Agent, _max_open_calls: usize, _enabled: RuleSet) -> Self {
        Validator::default()
    }

    fn check<'a>(&mut self, mut cx: Cx<'a, '_>, r: &Record<'a>) -> Option<JsonType> {
        if r.shape != Some(JsonType::Object) {
            return r.shape;
        }
        let (pos, bytes) = (cx.pos, cx.bytes);
        let Some(role) = r.role.as_str() else {
            match r.ty.as_str() {
                Some(ty) if !TYPES.contains(&ty) => {
                    (cx.emit)(unknown_type(Agent::CursorLog, ty, pos, bytes));
                }
                Some(_) => {}
                None => (cx.emit)(no_role(pos, bytes, r)),
            }
            return None;
        };
        if !ROLES.contains(&role) {
            (cx.emit)(unknown(pos, bytes, "role", role, &["role"]));
            return None;
        }
        if !self.started
            && let Some(sink) = cx.sink.as_deref_mut()
        {
            self.started = true;
            let mut ev = vocab::Event::new(Kind::SessionStart, pos.line);
            ev.agent = Some(Agent::CursorLog.as_str());
            sink(&ev);
        }
        self.message(&mut cx, role, r);
        None
    }

    fn on_unreadable(&mut self, _line: u64) {}
}

impl Validator {
    /// A message line: its `message` and content, and their common events when wanted.
    fn message<'a>(&mut self, cx: &mut Cx<'a, '_>, role: &str, r: &Record<'a>) {
        let (pos, bytes, arena) = (cx.pos, cx.bytes, cx.arena);
        let what = "a transcript message";
        if !require(
            r.message.shape,
            Want::Obj,
            what,
            pos,
            bytes,
            &["message"],
            cx.emit,
        ) {
            return;
        }
        let content = &r.message.content;
        match content.json_type() {
            None => (cx.emit)(missing(pos, bytes, what, "message.content")),
            Some(JsonType::String) => {
                if let Some(sink) = cx.sink.as_deref_mut() {
                    say(sink, role, pos.line, "text", content.text());
                }
            }
            Some(JsonType::Array) => {
                let raw = content.get().unwrap_or("[]");
                let mut blocks = bumpalo::collections::Vec::new_in(arena);
                crate::agents::parse_array::<Block<'a>>(raw, arena, &mut blocks);
                for b in &blocks {
                    block(cx, role, b);
                }
            }
            Some(t) => (cx.emit)(wrong_type(
                pos,
                bytes,
                &["message", "content"],
                t,
                &[Want::Arr, Want::Str],
            )),
        }
    }
}

/// One content block: a type the notes do not list is information; a text or thinking block
/// is a common event. A `tool_use` block has no id to pair a result by (the transcript keeps
/// none), and the common form pairs every `tool_start` by its id: it is left out of the form.
fn block(cx: &mut Cx<'_, '_>, role: &str, b: &Block<'_>) {
    let (pos, bytes) = (cx.pos, cx.bytes);
    match b.ty.as_str() {
        Some(ty) if BLOCKS.contains(&ty) => {
            let Some(sink) = cx.sink.as_deref_mut() else {
                return;
            };
            let text = match ty {
                "text" => b.text.text(),
                "thinking" => b.thinking.text().or_else(|| b.text.text()),
                _ => return,
            };
            say(sink, role, pos.line, ty, text);
        }
        Some(ty) => (cx.emit)(unknown(
            pos,
            bytes,
            "content block type",
            ty,
            &["message", "content"],
        )),
        None => {}
    }
}

/// The common event of a message's text (`kind` `text` or `thinking`): the user's prompt
/// without the `<user_query>` wrapping cursor-agent stores it in, the assistant's text or
/// thinking.
fn say(
    sink: &mut dyn FnMut(&vocab::Event<'_>),
    role: &str,
    line: u64,
    kind: &str,
    text: Option<Cow<'_, str>>,
) {
    let kind = match (role, kind) {
        ("user", "text") => Kind::UserPrompt,
        ("assistant", "text") => Kind::AssistantText,
        ("assistant", "thinking") => Kind::Thinking,
        _ => return,
    };
    let mut ev = vocab::Event::new(kind, line);
    ev.text = match text {
        Some(t) if kind == Kind::UserPrompt => Some(unwrap_query(t)),
        t => t,
    };
    sink(&ev);
}

/// The prompt inside `<user_query>…</user_query>`, when the whole text is so wrapped.
fn unwrap_query(text: Cow<'_, str>) -> Cow<'_, str> {
    let inner = text
        .trim()
        .strip_prefix("<user_query>")
        .and_then(|t| t.strip_suffix("</user_query>"))
        .map(|t| t.trim().to_owned());
    match inner {
        Some(t) => Cow::Owned(t),
        None => text,
    }
}

/// `unknown-event-type`, information: a role or block type of a newer version.
#[cold]
fn unknown(pos: Position, bytes: &[u8], field: &str, value: &str, path: &[&str]) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::unknown_event_type(Agent::CursorLog.display_name(), field, value),
    );
    match crate::locate::value(bytes, path) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// `missing-type`: a line with neither a string `role` nor a `type`.
#[cold]
fn no_role(pos: Position, bytes: &[u8], r: &Record<'_>) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::missing_type(
            Agent::CursorLog.display_name(),
            "role",
            r.role.json_type(),
            Some("every line is a message, or a role-less `turn_ended`"),
        ),
    );
    match crate::locate::value(bytes, &["role"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

#[cfg(test)]
mod tests {
    use crate::agents::{Agent, Reading, read};

    fn decides(text: &str) -> Option<Agent> {
        match read(text, &bumpalo::Bump::new()) {
            Reading::Scored(e) => e.decisive(),
            _ => None,
        }
    }

    #[test]
    fn a_transcripts_lines_are_its_own_and_kimis_and_the_streams_are_not() {
        assert_eq!(
            decides(r#"{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}"#),
            Some(Agent::CursorLog)
        );
        assert_eq!(
            decides(r#"{"type":"turn_ended","status":"success"}"#),
            Some(Agent::CursorLog)
        );
        // Kimi CLI's chat messages carry their content at the top.
        assert_eq!(
            decides(r#"{"role":"assistant","content":"hi"}"#),
            Some(Agent::Kimi)
        );
        // cursor-agent's stream names its events by type.
        assert_ne!(
            decides(
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s","timestamp_ms":1}"#
            ),
            Some(Agent::CursorLog)
        );
    }
}
