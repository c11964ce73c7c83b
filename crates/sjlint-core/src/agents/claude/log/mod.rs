//! Claude Code's session logs (`~/.claude/projects/<project>/<session>.jsonl`, and a subagent's
//! `<session>/subagents/agent-<id>.jsonl`): their borrowed view, their checker, and their
//! mapping into the common vocabulary.
//!
//! This module owns what is true of the log only (see `agents/logs/claude.md` of the format
//! notes). A log is not the stream: no record opens or ends a session, so nothing is missing
//! when a log stops anywhere (a `tool_use` without its result is a killed process, not a
//! defect), and file order is not time order. Records chain by `parentUuid` to an earlier
//! `uuid` of the same file: a parent the file lacks is `dangling-parent`, except at a chain's
//! start (`null`), on a `compact_boundary` (which starts a new chain), and on the first record
//! after the `sessionId` changes (a resumed or forked session continues a chain kept in another
//! file). Types the schema does not list are the next version's, said as information. Each API
//! response is written once per content block with its usage repeated: it counts once
//! (`ledger`). State is owned and bounded (`chain`, `ledger`, [`crate::agents::Calls`]);
//! nothing borrows a record across records, and a record costs no allocation beyond the calls
//! it opens. It must not print.
//!
//! Left for later: a subagent file's link to its parent's tool call, one session across files
//! (a resume), and the tokens of the copies a resume replays into another file.

mod ledger;
mod view;

use super::view::{Block, Message, raw_content};
use crate::agents::chain;
use crate::agents::{Agent, Calls, Cx, Emit, Opened, Progress, Sink, id_prefix, own_type};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use crate::rules::RuleSet;
use crate::rules::Severity;
use crate::rules::messages;
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;
pub(crate) use view::Record;

/// The record types of the log its schema lists; any other is a newer version's.
pub const TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "mode",
    "permission-mode",
    "pr-link",
    "worktree-state",
    "bridge-session",
];

/// The model Claude Code names on the messages it writes itself (API errors): they spent
/// nothing.
const SYNTHETIC: &str = "<synthetic>";

/// How strongly a record is a Claude Code session log's (see `agents::detect`): the chain's
/// `parentUuid` beside `isSidechain` (two marks, so that an assistant record's API message,
/// which the stream writes too, does not outweigh them), or the log's own metadata types. Qwen
/// Code's logs chain by `parentUuid` too, but write no `isSidechain`.
pub fn evidence(s: &crate::agents::Sniff<'_>) -> u32 {
    let ty = s.ty.as_str();
    let chained = s.parent_uuid.is_present() && s.is_sidechain.is_present();
    crate::agents::count_marks(&[
        chained,
        chained,
        matches!(ty, Some("file-history-snapshot" | "queue-operation")),
        ty == Some("summary") && s.leaf_uuid.is_present(),
    ])
}

/// The checker of one session log.
#[derive(Default)]
pub struct Validator {
    chain: chain::Chain,
    ledger: ledger::Ledger,
    /// Tool calls opened by assistant records, for the name of their results in the common
    /// form (a log may end with calls open: nothing is reported of them).
    calls: Calls,
    /// The `sessionId` of the last record with a `uuid` (a bounded prefix; empty: none yet).
    session: String,
    /// `mixed-agents` was said (once per stream, by the shared helpers).
    mixed: bool,
    /// The chain filled up, and that was said.
    full_said: bool,
    /// When the record being read was written.
    ms: Option<u64>,
}

impl Progress for Validator {
    /// A log says nothing of how a session ended.
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

    fn subtype(&self) -> Option<&str> {
        self.subtype.as_str()
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
        let (pos, bytes) = (cx.pos, cx.bytes);
        if r.shape != Some(JsonType::Object) {
            return r.shape;
        }
        self.ms = r
            .timestamp
            .as_str()
            .and_then(crate::agents::parse_timestamp);
        let Ok(ty) = own_type(
            r.ty.as_str(),
            Agent::ClaudeLog,
            &mut self.mixed,
            pos,
            bytes,
            cx.emit,
        ) else {
            return None;
        };
        if !TYPES.contains(&ty) {
            (cx.emit)(crate::agents::unknown_type(
                Agent::ClaudeLog,
                ty,
                pos,
                bytes,
            ));
        }
        self.link(pos, bytes, r, cx.emit, &mut cx.sink);
        if cx.sink.is_some() && matches!(ty, "user" | "assistant") {
            self.message(cx, ty, r);
        }
        None
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }

    fn finish_common(&mut self, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
        for held in self.ledger.drain() {
            sink(&usage(held));
        }
    }
}

impl Validator {
    /// An event of the record being read, with its time when it has one.
    fn event<'e>(&self, kind: Kind, line: u64) -> vocab::Event<'e> {
        let mut ev = vocab::Event::new(kind, line);
        ev.timestamp_ms = self.ms;
        ev
    }

    /// The record's place in the chain: its parent was seen before (`dangling-parent` when
    /// not), and its own `uuid` may be named later. A record with a `uuid` and a new
    /// `sessionId` starts a session (a `session_start` in the common form).
    fn link(
        &mut self,
        pos: Position,
        bytes: &[u8],
        r: &Record<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let Some(uuid) = r.uuid.as_str() else {
            return;
        };
        let new_session = match r.session_id.as_str() {
            Some(id) if id_prefix(id) != self.session => {
                let first = self.session.is_empty();
                self.session.clear();
                self.session.push_str(id_prefix(id));
                if let Some(sink) = sink.as_deref_mut() {
                    self.session_start(pos.line, r, sink);
                }
                !first
            }
            _ => false,
        };
        if let Some(parent) = r.parent_uuid.as_str()
            && !new_session
            && r.subtype.as_str() != Some("compact_boundary")
            && self.chain.parent(parent) == chain::Parent::Dangling
        {
            let d = Diagnostic::from_message(
                pos,
                messages::dangling_parent(Agent::ClaudeLog.display_name(), "parentUuid", parent),
            );
            emit(match crate::locate::value(bytes, &["parentUuid"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        if !self.chain.record(uuid) && !std::mem::replace(&mut self.full_said, true) {
            chain_full(pos, emit);
        }
    }

    fn session_start(&self, line: u64, r: &Record<'_>, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
        let mut ev = self.event(Kind::SessionStart, line);
        ev.agent = Some(Agent::ClaudeLog.as_str());
        ev.session_id = r.session_id.to_cow();
        ev.cwd = r.cwd.to_cow();
        ev.model = r.message.model.to_cow().filter(|m| m != SYNTHETIC);
        sink(&ev);
    }

    /// A user or assistant record: its message's text, thinking, tool calls and results, and
    /// (assistant) its usage, when its common events are wanted (`cx.sink`).
    fn message<'a>(&mut self, mut cx: Cx<'a, '_>, ty: &str, r: &Record<'a>) {
        let (pos, json, arena) = (cx.pos, cx.json, cx.arena);
        let msg = &r.message;
        if msg.shape != Some(JsonType::Object) {
            return;
        }
        // Context the CLI injected, not what the user typed.
        let prompt = ty == "user"
            && r.is_meta.as_bool() != Some(true)
            && r.is_compact_summary.as_bool() != Some(true);
        if ty == "assistant"
            && let Some(sink) = cx.sink.as_deref_mut()
        {
            self.count(pos, r, msg, sink);
        }
        match msg.content.shape {
            Some(JsonType::String) if prompt => {
                let Some(sink) = cx.sink else {
                    return;
                };
                let mut ev = self.event(Kind::UserPrompt, pos.line);
                ev.text = raw_content(json, arena).and_then(|raw| raw.text());
                sink(&ev);
            }
            Some(JsonType::Array) if !msg.content.more => {
                for b in &msg.content.blocks[..msg.content.len] {
                    self.block(&mut cx, ty, prompt, b);
                }
            }
            Some(JsonType::Array) => {
                let Some(content) = raw_content(json, arena).and_then(|raw| raw.get()) else {
                    return;
                };
                let mut blocks = bumpalo::collections::Vec::new_in(arena);
                crate::agents::parse_array::<Block<'a>>(content, arena, &mut blocks);
                for b in &blocks {
                    self.block(&mut cx, ty, prompt, b);
                }
            }
            _ => {}
        }
    }

    /// An assistant record's usage, once per response (see `ledger`); the CLI's own messages
    /// (`<synthetic>`) spent nothing.
    fn count(
        &mut self,
        pos: Position,
        r: &Record<'_>,
        msg: &Message<'_>,
        sink: &mut dyn FnMut(&vocab::Event<'_>),
    ) {
        if msg.usage.shape != Some(JsonType::Object) || msg.model.as_str() == Some(SYNTHETIC) {
            return;
        }
        let tokens = super::tokens(&msg.usage);
        if let Some(done) = self.ledger.copy(
            msg.id.as_str(),
            r.request_id.as_str(),
            tokens,
            pos.line,
            self.ms,
        ) {
            sink(&usage(done));
        }
    }

    /// One content block in the common form. A tool call without an id, or a result of a call
    /// this file did not open (compacted away, or in the file of a resumed session), cannot be
    /// paired: the common form would not be clean, so it is left out of it.
    fn block<'a>(&mut self, cx: &mut Cx<'a, '_>, ty: &str, prompt: bool, b: &Block<'a>) {
        let (pos, bytes, arena) = (cx.pos, cx.bytes, cx.arena);
        let Some(sink) = cx.sink.as_deref_mut() else {
            return;
        };
        let kind = match (ty, b.ty.as_str()) {
            ("user", Some("text")) if prompt => Kind::UserPrompt,
            ("assistant", Some("text")) => Kind::AssistantText,
            ("assistant", Some("thinking" | "redacted_thinking")) => Kind::Thinking,
            ("assistant", Some("tool_use")) => return self.tool_use(pos, bytes, b, sink),
            ("user", Some("tool_result")) => return self.tool_result(pos, b, arena, sink),
            _ => return,
        };
        let mut ev = self.event(kind, pos.line);
        ev.text = if kind == Kind::Thinking {
            b.thinking.text()
        } else {
            b.text.text()
        };
        sink(&ev);
    }

    fn tool_use(
        &mut self,
        pos: Position,
        bytes: &[u8],
        b: &Block<'_>,
        sink: &mut dyn FnMut(&vocab::Event<'_>),
    ) {
        let Some(id) = b.id.as_str() else {
            return;
        };
        let name = b.name.as_str().unwrap_or("?");
        // A call replayed by a resume is open already: its start is in the form once.
        if !matches!(self.calls.open(id, pos, bytes, name), Opened::Ok) {
            return;
        }
        let mut ev = self.event(Kind::ToolStart, pos.line);
        ev.call_id = Some(Cow::Borrowed(id));
        ev.name = Some(Cow::Borrowed(name));
        ev.tool_kind = Some(vocab::tool_kind(name));
        ev.args = b.input.0;
        sink(&ev);
    }

    fn tool_result<'a>(
        &mut self,
        pos: Position,
        b: &Block<'a>,
        arena: &'a Bump,
        sink: &mut dyn FnMut(&vocab::Event<'_>),
    ) {
        let Some(id) = b.tool_use_id.as_str() else {
            return;
        };
        let Some(call) = self.calls.close(id) else {
            return;
        };
        let name = self.calls.name(&call);
        let mut ev = self.event(Kind::ToolEnd, pos.line);
        ev.call_id = Some(Cow::Borrowed(id));
        ev.tool_kind = Some(vocab::tool_kind(name));
        ev.name = Some(Cow::Owned(name.to_owned()));
        ev.ok = Some(b.is_error.as_bool() != Some(true));
        ev.text = super::view::result_text(&b.content, arena);
        sink(&ev);
    }
}

/// The chain is too long to keep: said once, as information.
#[cold]
fn chain_full(pos: Position, emit: Emit<'_>) {
    let mut d = Diagnostic::from_message(
        pos,
        messages::chain_unchecked(Agent::ClaudeLog.display_name(), chain::MAX_IDS),
    );
    d.severity = Severity::Info;
    emit(d);
}

/// The `usage` event of a response whose count is final.
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
    fn a_logs_records_are_its_own_and_the_streams_are_not() {
        // An assistant record carries the API message the stream writes too: the chain outweighs it.
        assert_eq!(
            decides(
                r#"{"parentUuid":"u1","isSidechain":false,"sessionId":"s","type":"assistant","uuid":"u2","requestId":"r","message":{"id":"m","model":"claude-sonnet-4-5","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}"#
            ),
            Some(Agent::ClaudeLog)
        );
        // A system subtype only Claude Code writes, in its log.
        assert_eq!(
            decides(
                r#"{"parentUuid":"u1","isSidechain":false,"sessionId":"s","type":"system","subtype":"model_refusal_fallback","uuid":"u3"}"#
            ),
            Some(Agent::ClaudeLog)
        );
        assert_eq!(
            decides(r#"{"type":"summary","summary":"t","leafUuid":"u9"}"#),
            Some(Agent::ClaudeLog)
        );
        assert_eq!(
            decides(r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#),
            Some(Agent::ClaudeLog)
        );
        // The stream's records are not the log's.
        assert_eq!(
            decides(
                r#"{"type":"assistant","message":{"id":"m","model":"x","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#
            ),
            Some(Agent::Claude)
        );
        // Qwen Code's logs chain by `parentUuid` too, without `isSidechain`: not Claude Code's.
        let qwen = r#"{"uuid":"a","parentUuid":"b","sessionId":"s","type":"assistant","message":{"role":"model","parts":[]}}"#;
        assert_ne!(decides(qwen), Some(Agent::ClaudeLog));
    }
}
