//! Pi's session files, the sessions it keeps on disk
//! (`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`): their borrowed view, their
//! checker, and their mapping into the common vocabulary.
//!
//! This module owns what is true of the session file only (see `agents/logs/pi.md` of the
//! format notes); the `--mode json` stream is another format (`super`). The first line is the
//! header (`type: "session"`, its `id`, `version`, `timestamp`, `cwd`); a file that opens with
//! another line lost its head (`missing-init`, a warning). Every later line is an entry; from
//! version 2 on each has an `id` and a `parentId` (`null` for the first), and the entries form
//! a tree: a `parentId` naming no line before it is `dangling-parent` (a parent naming the
//! header resolves: the header is a line of the file). Version 1 files (a header without
//! `version`) are a plain list, with no ids to check. Entry types the schema does not list come
//! from extensions and newer versions: information. Nothing ends a session file: it may stop
//! anywhere, calls in flight included. An assistant message's `toolCall` blocks pair with the
//! `toolResult` messages by `toolCallId`: a result of a call the file never opened is
//! `orphan-completion`. Timestamps may step back (the version 1 header is written after the
//! first entries). Tokens: every assistant message is one API response, written once, and each
//! counts, abandoned branches included (they were billed): `input`, `output`, `cacheRead`,
//! `cacheWrite` as they are, missing ones as 0; cost the sum of `cost.total`. State is owned
//! and bounded (`agents::chain`, `agents::Calls`). It must not print.
//!
//! Left for later: a second header (two files joined) and repeated entry ids are not reported,
//! and a fork's `parentSession` has no field of the common form to go to.

mod view;

use super::shape;
use super::view::{Message, content_text, message_of};
use super::{Role, view::Usage};
use crate::agents::chain::{self, Link};
use crate::agents::{
    Agent, Calls, Cx, Emit, Opened, Progress, Want, count, parse_timestamp, require, unknown_type,
};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::messages::{self, EventType, Opening, Orphan, Pairing};
use crate::rules::{RuleSet, Severity};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;
use std::borrow::Cow;
use view::Call;
pub(crate) use view::Record;

/// The line types of a session file the schema lists (`session` is the header); any other is
/// an extension's or a newer version's.
pub const TYPES: &[&str] = &[
    "session",
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

/// How the tool calls of a session file pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`toolCall` block",
    closer: "`toolResult` message",
    key: "`toolCallId`",
    before: None,
};

/// How the entries chain, for the findings of the chain.
const LINK: Link = Link {
    agent: Agent::PiLog,
    id: "id",
    parent: "parentId",
    note: "Pi writes each entry after the one it answers, and a fork in a new file whose header names the original in `parentSession`",
};

/// How strongly a line is a Pi session file's (see `agents::detect`): one mark for an entry
/// with its place in the tree or a version 1 `message` entry (Gemini CLI's stream scores its
/// own `message` records alike, and a file of Factory droid's writes such entries too: the
/// header, or an entry of another type, decides), and one for the header, which Pi's stream
/// writes too when it has a `version` (the lines after it decide), and which only the file's
/// version 1 writes without one, with its `modelId`.
pub fn evidence(s: &crate::agents::Sniff<'_>) -> u32 {
    let ty = s.ty.as_str();
    crate::agents::count_marks(&[entry(
        ty,
        s.parent_id.is_present(),
        s.message.shape == Some(JsonType::Object),
    ) || header(ty, &s.version, s.model_id.is_present())])
}

/// A session file's header: `session` with a numeric `version`, or version 1's, with none and
/// its `modelId`.
pub(super) fn header(ty: Option<&str>, version: &Field<'_>, model_id: bool) -> bool {
    ty == Some("session")
        && (version.json_type() == Some(JsonType::Number) || (!version.is_present() && model_id))
}

/// An entry only a session file writes: a type of its own with a `parentId`, or a `message`
/// holding its message.
pub(super) fn entry(ty: Option<&str>, parent: bool, message: bool) -> bool {
    match ty {
        Some("message") => parent || message,
        Some(ty) => parent && ty != "session" && TYPES.contains(&ty),
        None => false,
    }
}

/// The checker of one session file.
#[derive(Default)]
pub struct Validator {
    chain: chain::Chain,
    calls: Calls,
    /// A line was read (the header is the first).
    begun: bool,
    /// The header's `version`: entries of version 2 on carry their place in the tree.
    version: u64,
    /// The common form's `session_start` was written.
    started: bool,
    /// `mixed-agents` was said (once per file, by the shared helpers).
    mixed: bool,
    /// The line of the last record without a type.
    last_line: u64,
    /// The chain filled up, and that was said.
    full_said: bool,
    /// When the line being read was written.
    ms: Option<u64>,
}

impl Progress for Validator {
    /// A session file says nothing of how a session ended.
    fn ended(&self) -> bool {
        false
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        self.calls.listed()
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

    fn ty(&self) -> Option<&str> {
        self.ty.as_str()
    }
}

impl crate::agents::Rules for Validator {
    type Line<'a> = Record<'a>;

    fn new(_agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator::default();
        v.calls.set_max_open(max_open_calls);
        v
    }

    fn check<'a>(&mut self, mut cx: Cx<'a, '_>, r: &Record<'a>) -> Option<JsonType> {
        let ty = match cx.own_type(
            r.shape,
            r.ty.as_str(),
            Agent::PiLog,
            &mut self.mixed,
            &mut self.last_line,
        ) {
            Ok(ty) => ty,
            Err(shape) => return shape,
        };
        let (pos, bytes) = (cx.pos, cx.bytes);
        self.ms = r.timestamp.as_str().and_then(parse_timestamp);
        let first = !std::mem::replace(&mut self.begun, true);
        if ty == "session" {
            if first {
                self.header(&mut cx, r);
            }
            return None;
        }
        if first {
            (cx.emit)(missing_init(pos, bytes, ty));
        }
        if !TYPES.contains(&ty) {
            (cx.emit)(unknown_type(Agent::PiLog, ty, pos, bytes));
        }
        self.link(pos, bytes, r, cx.emit);
        if ty == "message" {
            self.message(cx, r);
        }
        None
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

impl Validator {
    /// An event of the line being read, with its time when it has one.
    fn event<'e>(&self, kind: Kind, line: u64) -> vocab::Event<'e> {
        let mut ev = vocab::Event::new(kind, line);
        ev.timestamp_ms = self.ms;
        ev
    }

    /// The header: the file's version, its id (which an entry may name as its parent), and the
    /// common form's `session_start`.
    fn header(&mut self, cx: &mut Cx<'_, '_>, r: &Record<'_>) {
        self.version = count(&r.version).unwrap_or(1);
        if let Some(id) = r.id.as_str() {
            self.remember(cx.pos, id, cx.emit);
        }
        if let Some(sink) = cx.sink.as_deref_mut() {
            self.started = true;
            let mut ev = self.event(Kind::SessionStart, cx.pos.line);
            ev.agent = Some(Agent::PiLog.as_str());
            ev.session_id = r.id.to_cow();
            ev.cwd = r.cwd.to_cow();
            ev.model = r.model_id.to_cow();
            sink(&ev);
        }
    }

    /// An entry's place in the tree (version 2 on): its `id`, which later entries may name, and
    /// its `parentId`, `null` or an entry before it.
    fn link(&mut self, pos: Position, bytes: &[u8], r: &Record<'_>, emit: Emit<'_>) {
        if self.version < 2 {
            return;
        }
        let what = "an entry";
        if require(r.id.json_type(), Want::Str, what, pos, bytes, &["id"], emit) {
            let parent = r.parent_id.json_type();
            if (parent == Some(JsonType::Null)
                || require(parent, Want::Str, what, pos, bytes, &["parentId"], emit))
                && let Some(p) = r.parent_id.as_str()
                && self.chain.parent(p) == chain::Parent::Dangling
            {
                emit(LINK.dangling(pos, bytes, p));
            }
        }
        if let Some(id) = r.id.as_str() {
            self.remember(pos, id, emit);
        }
    }

    fn remember(&mut self, pos: Position, id: &str, emit: Emit<'_>) {
        if !self.chain.record(id) && !std::mem::replace(&mut self.full_said, true) {
            emit(LINK.full(pos));
        }
    }

    /// A `message` entry: its message's fields, its tool calls and results, and (assistant) its
    /// usage; its common events when they are wanted (`cx.sink`).
    fn message<'a>(&mut self, mut cx: Cx<'a, '_>, r: &Record<'a>) {
        let (pos, bytes, arena) = (cx.pos, cx.bytes, cx.arena);
        let what = "a `message` entry";
        let shape = r.message.json_type();
        if !require(shape, Want::Obj, what, pos, bytes, &["message"], cx.emit) {
            return;
        }
        let m = message_of(&r.message, arena);
        // A stored message is final, yet the file's writers leave out what the stream requires
        // of a message's end (a hand-written file has no `stopReason`): the fields are checked
        // for their types, not their presence.
        shape::message(pos, bytes, &m, false, cx.emit);
        if !self.started
            && let Some(sink) = cx.sink.as_deref_mut()
        {
            self.started = true;
            let mut ev = self.event(Kind::SessionStart, pos.line);
            ev.agent = Some(Agent::PiLog.as_str());
            sink(&ev);
        }
        match Role::of(m.role.as_str()) {
            Role::Assistant => self.assistant(&mut cx, &m),
            Role::ToolResult => self.result(&mut cx, &m),
            Role::User => {
                if let Some(sink) = cx.sink.as_deref_mut() {
                    let mut ev = self.event(Kind::UserPrompt, pos.line);
                    ev.text = content_text(&m.content, arena, false);
                    sink(&ev);
                }
            }
            Role::Other => {}
        }
    }

    /// An assistant message: its usage, its thinking and text, and the calls it opens, in the
    /// order of its blocks' kinds.
    fn assistant<'a>(&mut self, cx: &mut Cx<'a, '_>, m: &Message<'a>) {
        let (pos, bytes, arena) = (cx.pos, cx.bytes, cx.arena);
        shape::usage(pos, bytes, &m.usage, cx.emit);
        if let Some(sink) = cx.sink.as_deref_mut() {
            for (kind, thinking) in [(Kind::Thinking, true), (Kind::AssistantText, false)] {
                if let Some(text) = content_text(&m.content, arena, thinking) {
                    let mut ev = self.event(kind, pos.line);
                    ev.text = Some(text);
                    sink(&ev);
                }
            }
        }
        let mut calls = bumpalo::collections::Vec::new_in(arena);
        if let Some(raw) = m.content.get()
            && m.content.json_type() == Some(JsonType::Array)
        {
            crate::agents::parse_array::<Call<'a>>(raw, arena, &mut calls);
        }
        for c in calls.iter().filter(|c| c.ty.as_str() == Some("toolCall")) {
            if let Some(id) = c.id.as_str() {
                let name = c.name.as_str().unwrap_or("?");
                if matches!(self.calls.open(id, pos, bytes, name), Opened::Ok)
                    && let Some(sink) = cx.sink.as_deref_mut()
                {
                    let mut ev = self.event(Kind::ToolStart, pos.line);
                    ev.call_id = Some(Cow::Borrowed(id));
                    ev.name = Some(Cow::Borrowed(name));
                    ev.tool_kind = Some(vocab::tool_kind(name));
                    ev.args = c.arguments.0;
                    sink(&ev);
                }
            }
        }
        let Some(sink) = cx.sink.as_deref_mut() else {
            return;
        };
        if m.usage.shape == Some(JsonType::Object) {
            let mut ev = self.event(Kind::Usage, pos.line);
            ev.usage = Some(tokens(&m.usage));
            ev.cost_usd = m.usage.cost.total.as_f64();
            sink(&ev);
        }
    }

    /// A tool's result: it closes the call an assistant message opened.
    fn result<'a>(&mut self, cx: &mut Cx<'a, '_>, m: &Message<'a>) {
        let (pos, bytes) = (cx.pos, cx.bytes);
        let Some(id) = m.tool_call_id.as_str() else {
            return;
        };
        let Some(call) = self.calls.close(id) else {
            let again = self.calls.was_seen(id);
            if again.is_some() && !self.calls.unreadable_seen() {
                (cx.emit)(orphan(pos, bytes, id, again == Some(true)));
            }
            return;
        };
        let Some(sink) = cx.sink.as_deref_mut() else {
            return;
        };
        let name = self.calls.name(&call);
        let mut ev = self.event(Kind::ToolEnd, pos.line);
        ev.call_id = Some(Cow::Borrowed(id));
        ev.tool_kind = Some(vocab::tool_kind(name));
        ev.name = Some(Cow::Owned(name.to_owned()));
        ev.ok = Some(m.is_error.as_bool() != Some(true));
        ev.text = content_text(&m.content, cx.arena, false);
        sink(&ev);
    }
}

/// The tokens of one assistant message, in sjlint's meaning (the notes' mapping is Pi's own:
/// `input` excludes the cache, `output` includes reasoning); a count missing is 0.
fn tokens(u: &Usage<'_>) -> Tokens {
    let n = |f: &Field<'_>| count(f).unwrap_or(0);
    Tokens {
        input: n(&u.input),
        output: n(&u.output),
        cache_read: n(&u.cache_read),
        cache_write: n(&u.cache_write),
        reasoning: n(&u.reasoning),
    }
}

/// `missing-init`, as a warning: the file's first line is not its header.
#[cold]
fn missing_init(pos: Position, bytes: &[u8], ty: &str) -> Diagnostic {
    let mut d = Diagnostic::from_message(
        pos,
        messages::missing_init(&Opening {
            agent: Agent::PiLog.display_name(),
            unit: "session file",
            first: EventType::of(ty),
            opener: "`session` header",
            aside: Some("the first line of every session file"),
        }),
    )
    .with_snippet(bytes);
    d.severity = Severity::Warning;
    d
}

/// `orphan-completion`: a tool result whose call the file never opened (or closed already).
#[cold]
fn orphan(pos: Position, bytes: &[u8], id: &str, again: bool) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::orphan_completion(&Orphan {
            note: Some(
                "a session file records each assistant message before the results of its calls",
            ),
            ..Orphan::call(
                Agent::PiLog.display_name(),
                PAIRING.closer,
                id,
                again,
                &PAIRING,
            )
        }),
    );
    match crate::locate::value(bytes, &["message", "toolCallId"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

#[cfg(test)]
mod tests {
    use crate::agents::{Agent, Evidence, Reading, read};

    fn evidence(lines: &[&str]) -> Evidence {
        let mut all = Evidence::default();
        for l in lines {
            if let Reading::Scored(e) = read(l, &bumpalo::Bump::new()) {
                all.add(&e);
            }
        }
        all
    }

    const HEADER: &str =
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00Z","cwd":"/w"}"#;

    #[test]
    fn the_header_waits_for_the_lines_after_it() {
        // Pi's stream writes the same header: alone, it decides nothing.
        assert_eq!(evidence(&[HEADER]).decisive(), None);
        let entry = r#"{"type":"model_change","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:00Z","provider":"p","modelId":"m"}"#;
        assert_eq!(evidence(&[HEADER, entry]).decisive(), Some(Agent::PiLog));
        let message = r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-03-02T10:00:01Z","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(evidence(&[HEADER, message]).decisive(), Some(Agent::PiLog));
        assert_eq!(
            evidence(&[HEADER, r#"{"type":"agent_start"}"#]).decisive(),
            Some(Agent::Pi)
        );
        // A version 1 header is the file's alone.
        let v1 = r#"{"type":"session","id":"s","timestamp":"2026-03-02T10:00:00Z","cwd":"/w","provider":"p","modelId":"m"}"#;
        assert_eq!(evidence(&[v1]).decisive(), Some(Agent::PiLog));
    }
}
