//! Gemini CLI's chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, a subagent's
//! `chats/<parent session>/<session>.jsonl`, and before v0.39 one pretty-printed
//! `session-*.json` document per chat): their borrowed view, their checker, and their mapping
//! into the common vocabulary.
//!
//! This module owns what is true of the chats only (see `agents/logs/gemini.md` of the format
//! notes). A JSONL chat opens with the session's metadata, then appends messages, metadata
//! updates (`$set`, whose `messages` list replaces the chat's) and rewinds (`$rewindTo`); a
//! legacy chat is one record, the metadata with its `messages` (the splitter reads such a
//! document as one record). A message is appended again each time it changes: its events in
//! the common form are written once, as its copies bring them (its text and thoughts from the
//! first copy that has them, a tool call's start when it first appears and its end when a copy
//! gives it a final status), and its tokens once, from its last copy (`ledger`). A tool call
//! and its result share one entry, so no result can lack its call. Message types the notes do
//! not list are the next version's, said as information. State is owned and bounded; it must
//! not print.
//!
//! Left for later: a subagent chat's link to its parent session (the common form's `parent`
//! names a tool call, which the subagent's file does not), and `total` checked against its
//! parts.

mod ledger;
mod view;

use crate::agents::{Agent, Cx, Progress, Raw, count};
use crate::json::JsonType;
use crate::rules::RuleSet;
use crate::vocab::{self, Kind, Tokens};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
pub(crate) use view::Record;
use view::{Part, ToolCall};

/// The message types the notes list; any other is a newer (or older) version's.
pub const TYPES: &[&str] = &["user", "info", "error", "warning", "gemini"];

/// At most this many message and call ids are remembered for what they have said.
const MAX_SAID: usize = 1 << 20;

/// What a message or call id has said in the common form.
const TEXT: u8 = 1;
const THOUGHTS: u8 = 2;
const STARTED: u8 = 4;
const ENDED: u8 = 8;

/// How strongly a record is a Gemini CLI chat's (see `agents::detect`): a metadata update or
/// rewind (keys no stream writes), the session's `projectHash`, or a `gemini` message.
pub fn evidence(s: &crate::agents::Sniff<'_>) -> u32 {
    crate::agents::count_marks(&[
        s.set.is_present() || s.rewind_to.is_present(),
        s.project_hash.is_present() && s.session_id_camel.is_present(),
        s.ty.as_str() == Some("gemini") && s.tokens.is_present(),
        s.ty.as_str() == Some("gemini") && s.tool_calls.is_present(),
    ])
}

/// The checker of one chat.
#[derive(Default)]
pub struct Validator {
    ledger: ledger::Ledger,
    /// What each message id (hashed; tool calls apart) has said in the common form.
    said: HashMap<u64, u8>,
    /// The session whose `session_start` was written last (a bounded prefix).
    session: String,
    mixed: bool,
    last_untyped: u64,
}

impl Progress for Validator {
    /// A chat says nothing of how a session ended.
    fn ended(&self) -> bool {
        false
    }
    /// A call and its result share one entry: none is left open to report.
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        Vec::new()
    }
}

impl<'a> crate::agents::View<'a> for Record<'a> {
    fn parse_into(
        &mut self,
        json: &'a str,
        arena: &'a bumpalo::Bump,
    ) -> Result<(), serde_json::Error> {
        crate::agents::parse_into(json, arena, self)
    }

    fn own_mark(&self, _agent: Agent) -> bool {
        self.marked()
    }

    fn has_duplicate_key(&self) -> bool {
        self.dup
    }

    fn ty(&self) -> Option<&str> {
        self.kind()
    }

    fn subtype(&self) -> Option<&str> {
        None
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
        if r.set.shape.is_some() {
            if r.set.messages.0.is_some() {
                self.messages(&mut cx, &r.set.messages);
            }
            return None;
        }
        if r.rewind_to.is_present() {
            // The messages after it are gone from the chat, not from the bill: nothing changes
            // here.
            return None;
        }
        if !r.ty.is_present() && r.session_id.is_present() {
            self.metadata(&mut cx, r);
            self.messages(&mut cx, &r.messages);
            return None;
        }
        let Ok(ty) = cx.known_type(
            r.shape,
            r.ty.as_str(),
            Agent::GeminiLog,
            TYPES,
            &mut self.mixed,
            &mut self.last_untyped,
        ) else {
            return None;
        };
        self.message(&mut cx, ty, r);
        None
    }

    fn on_unreadable(&mut self, _line: u64) {}

    fn finish_common(&mut self, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
        for held in self.ledger.drain() {
            sink(&usage(held));
        }
    }
}

impl Validator {
    /// The session's metadata: a `session_start` when it names another session than the last.
    fn metadata(&mut self, cx: &mut Cx<'_, '_>, r: &Record<'_>) {
        let Some(id) = r.session_id.as_str() else {
            return;
        };
        if crate::agents::id_prefix(id) == self.session {
            return;
        }
        self.session.clear();
        self.session.push_str(crate::agents::id_prefix(id));
        let Some(sink) = cx.sink.as_deref_mut() else {
            return;
        };
        let mut ev = vocab::Event::new(Kind::SessionStart, cx.pos.line);
        ev.timestamp_ms = r
            .start_time
            .as_str()
            .and_then(crate::agents::parse_timestamp);
        ev.agent = Some(Agent::GeminiLog.as_str());
        ev.session_id = r.session_id.to_cow();
        sink(&ev);
    }

    /// A `messages` list (a legacy chat's, or a checkpoint's): each message as a copy.
    fn messages<'a>(&mut self, cx: &mut Cx<'a, '_>, list: &Raw<'a>) {
        let Some(raw) = list.get() else {
            return;
        };
        let mut all = bumpalo::collections::Vec::new_in(cx.arena);
        crate::agents::parse_array::<Record<'a>>(raw, cx.arena, &mut all);
        for m in &all {
            if m.shape != Some(JsonType::Object) {
                continue;
            }
            match m.ty.as_str() {
                Some(ty) if TYPES.contains(&ty) => self.message(cx, ty, m),
                Some(ty) => (cx.emit)(crate::agents::unknown_type(
                    Agent::GeminiLog,
                    ty,
                    cx.pos,
                    cx.bytes,
                )),
                None => {}
            }
        }
    }

    /// One copy of a message: what it brings that its earlier copies did not.
    fn message<'a>(&mut self, cx: &mut Cx<'a, '_>, ty: &str, m: &Record<'a>) {
        let ms = m
            .timestamp
            .as_str()
            .and_then(crate::agents::parse_timestamp);
        let id = m.id.as_str();
        if ty == "gemini" && m.tokens.shape == Some(JsonType::Object) {
            let tokens = tokens(&m.tokens);
            if let Some(done) = self.ledger.copy(id, tokens, cx.pos.line, ms)
                && let Some(sink) = cx.sink.as_deref_mut()
            {
                sink(&usage(done));
            }
        }
        if cx.sink.is_none() {
            return;
        }
        let key = hash(id, cx.pos.line, 0);
        let kind = match ty {
            "user" => Kind::UserPrompt,
            "gemini" => Kind::AssistantText,
            _ => return,
        };
        if self.first(key, TEXT, content_present(&m.content)) {
            self.content(cx, kind, m, ms);
        }
        if ty != "gemini" {
            return;
        }
        if self.first(key, THOUGHTS, list_present(&m.thoughts)) {
            self.thoughts(cx, m, ms);
        }
        if let Some(raw) = m.tool_calls.get() {
            let mut calls = bumpalo::collections::Vec::new_in(cx.arena);
            crate::agents::parse_array::<ToolCall<'a>>(raw, cx.arena, &mut calls);
            for call in &calls {
                self.tool_call(cx, call, ms);
            }
        }
    }

    /// Whether `what` of `key` is said now: it is `there`, and was not said before.
    fn first(&mut self, key: u64, what: u8, there: bool) -> bool {
        if !there {
            return false;
        }
        if self.said.len() >= MAX_SAID && !self.said.contains_key(&key) {
            return true;
        }
        let bits = self.said.entry(key).or_default();
        let new = *bits & what == 0;
        *bits |= what;
        new
    }

    fn content<'a>(&mut self, cx: &mut Cx<'a, '_>, kind: Kind, m: &Record<'a>, ms: Option<u64>) {
        let Some(sink) = cx.sink.as_deref_mut() else {
            return;
        };
        let mut say = |text: Option<Cow<'a, str>>| {
            let mut ev = vocab::Event::new(kind, cx.pos.line);
            ev.timestamp_ms = ms;
            ev.text = text;
            sink(&ev);
        };
        match m.content.get().map(str::trim_start) {
            Some(s) if s.starts_with('"') => say(m.content.text()),
            Some(s) if s.starts_with('[') => {
                let mut parts = bumpalo::collections::Vec::new_in(cx.arena);
                crate::agents::parse_array::<Part<'a>>(s, cx.arena, &mut parts);
                for p in parts.iter().filter(|p| p.text.0.is_some()) {
                    say(p.text.text());
                }
            }
            _ => {}
        }
    }

    fn thoughts<'a>(&mut self, cx: &mut Cx<'a, '_>, m: &Record<'a>, ms: Option<u64>) {
        let (Some(sink), Some(raw)) = (cx.sink.as_deref_mut(), m.thoughts.get()) else {
            return;
        };
        let mut parts = bumpalo::collections::Vec::new_in(cx.arena);
        crate::agents::parse_array::<Part<'a>>(raw, cx.arena, &mut parts);
        for p in &parts {
            let mut ev = vocab::Event::new(Kind::Thinking, cx.pos.line);
            ev.timestamp_ms = ms;
            ev.text = p.description.text().or_else(|| p.subject.text());
            sink(&ev);
        }
    }

    /// A call's start when its id first appears; its end when a copy first gives it a final
    /// status. A call without an id cannot be paired, and is left out.
    fn tool_call<'a>(&mut self, cx: &mut Cx<'a, '_>, call: &ToolCall<'a>, ms: Option<u64>) {
        let Some(id) = call.id.as_str() else {
            return;
        };
        let key = hash(Some(id), 0, 1);
        let name = call.name.as_str().unwrap_or("?");
        let status = call.status.as_str();
        let done = matches!(status, Some("success" | "error" | "cancelled"));
        let start = self.first(key, STARTED, true);
        let end = self.first(key, ENDED, done);
        let Some(sink) = cx.sink.as_deref_mut() else {
            return;
        };
        let mut ev = vocab::Event::new(Kind::ToolStart, cx.pos.line);
        ev.timestamp_ms = ms;
        ev.call_id = Some(Cow::Owned(id.to_owned()));
        ev.name = Some(Cow::Owned(name.to_owned()));
        ev.tool_kind = Some(vocab::tool_kind(name));
        if start {
            ev.args = call.args.0;
            sink(&ev);
        }
        if end {
            ev.kind = Kind::ToolEnd;
            ev.args = None;
            ev.ok = Some(status == Some("success"));
            ev.text = call.result_display.text();
            sink(&ev);
        }
    }
}

/// A `content` with something to say: a string that is not empty, or a list.
fn content_present(c: &Raw<'_>) -> bool {
    match c.get().map(str::trim) {
        Some(s) => s.starts_with('[') || (s.starts_with('"') && s != "\"\""),
        None => false,
    }
}

/// A list with at least one entry.
fn list_present(c: &Raw<'_>) -> bool {
    c.get()
        .map(str::trim)
        .is_some_and(|s| s.starts_with('[') && s[1..].trim_start() != "]")
}

fn hash(id: Option<&str>, line: u64, space: u8) -> u64 {
    let mut h = DefaultHasher::new();
    space.hash(&mut h);
    match id {
        Some(id) => id.hash(&mut h),
        None => line.hash(&mut h),
    }
    h.finish()
}

/// A message's tokens in sjlint's meaning (the notes' §4): the prompt less what was read from
/// the cache, plus the tool-use prompt; the output with the thoughts, which are billed as
/// output.
fn tokens(t: &view::Tokens<'_>) -> Tokens {
    let n = |f| count(f).unwrap_or(0);
    let cached = n(&t.cached);
    let thoughts = n(&t.thoughts);
    Tokens {
        input: n(&t.input)
            .saturating_sub(cached)
            .saturating_add(n(&t.tool)),
        output: n(&t.output).saturating_add(thoughts),
        cache_read: cached,
        cache_write: 0,
        reasoning: thoughts,
    }
}

/// The `usage` event of a message whose copy is final.
fn usage<'e>(held: ledger::Held) -> vocab::Event<'e> {
    let mut ev = vocab::Event::new(Kind::Usage, held.line);
    ev.timestamp_ms = held.ms;
    ev.usage = Some(held.tokens);
    ev
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
    fn a_chats_records_are_its_own() {
        assert_eq!(
            decides(
                r#"{"sessionId":"s","projectHash":"p","startTime":"2026-05-01T10:00:00.000Z","lastUpdated":"2026-05-01T10:00:00.000Z","kind":"main"}"#
            ),
            Some(Agent::GeminiLog)
        );
        assert_eq!(
            decides(r#"{"$set":{"lastUpdated":"2026-05-01T10:00:00.000Z"}}"#),
            Some(Agent::GeminiLog)
        );
        assert_eq!(decides(r#"{"$rewindTo":"m1"}"#), Some(Agent::GeminiLog));
        // The stream's records are not the chat's.
        assert_eq!(
            decides(
                r#"{"type":"init","timestamp":"2026-05-01T10:00:00.000Z","session_id":"s","model":"gemini-2.5-pro"}"#
            ),
            Some(Agent::Gemini)
        );
    }
}
