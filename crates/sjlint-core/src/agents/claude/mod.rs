//! Claude Code's stream (`claude -p --output-format stream-json --verbose`): its borrowed view,
//! its checker, and its mapping into the common vocabulary.
//!
//! This module owns what is true of Claude Code's stream only (see `agents/claude.md` of the
//! format notes): sessions open with `system`/`init` (hooks may come first) and end with
//! `result`, and one process may hold several init/result pairs (a lone `result` is what
//! `--output-format json` writes, and valid); `is_error` of a result is the
//! truth, not `subtype`; tool calls are `tool_use` blocks of assistant lines answered by
//! `tool_result` blocks of user lines with the same id; lines of a subagent name its tool call in
//! `parent_tool_use_id`; a session's tokens are its `result.usage` (one API message spans
//! several assistant lines that repeat its `usage`, counted once per `message.id` for a session
//! that ends without one). Unknown types and subtypes are the future, not
//! errors. State is owned and bounded ([`super::Calls`]); nothing borrows a record across
//! records. It must not print.
//!
//! Qwen Code and Amp write this shape too, and this checker reads them, given their
//! [`Profile`]; the rules that differ are the profile's and nothing else (see
//! `agents/qwen.md` and `agents/amp.md` of the format notes): Qwen Code's result subtypes and
//! `error{type?, message}` object, and its control lines; Amp's turns after a `result` (with
//! `--stream-json-input` a user line opens the next, with no init), and its usage counted per
//! assistant line (its messages have no `id`, its results no `usage`). [`family`] tells the
//! three apart.

use super::{
    Agent, Calls, Emit, Opened, Progress, Sink, Want, expect, id_prefix, line_pos, missing,
    own_type, require, unfinished,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use crate::rules::RuleSet;
use crate::rules::Severity;
use crate::rules::messages::{
    self, AfterEnd, EventType, Found, Id, Opening, Orphan, Pairing, SessionIds, Unended,
};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;
pub use family::Profile;
use fields::{assistant_fields, check_usage, result_fields};
use std::borrow::Cow;
pub(crate) use view::Line;
use view::{Block, Usage, nth_value, raw_content, result_text};

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_use`",
    closer: "`tool_result`",
    key: "`tool_use_id`",
    before: None,
};

pub mod family;
mod fields;
pub mod log;
mod notices;
mod result;
mod spent;
mod view;

/// Event types only Claude Code writes (Qwen Code's source has none of them; Amp documents none).
pub const OWN_TYPES: &[&str] = &[
    "rate_limit_event",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
    "prompt_suggestion",
    "conversation_reset",
    "command_lifecycle",
];

/// Event types the family writes (see [`family`]): Claude Code and Qwen Code write
/// `stream_event` with partial messages.
pub const FAMILY_TYPES: &[&str] = &["stream_event"];

/// The types that name Claude Code in another agent's stream: its own, its family's (Qwen Code
/// and Amp write them too, and say so), and `system`, `assistant` and `user`, which
/// cursor-agent and droid share.
pub const TYPE_NAMES: Types = Types {
    own: &[OWN_TYPES, FAMILY_TYPES, &["system", "assistant", "user"]],
    own_prefixes: &[],
    shared: &[],
};

/// Types Qwen Code writes besides the family's, with `--input-format stream-json`.
const QWEN_CONTROL_TYPES: &[&str] = &[
    "control_request",
    "control_response",
    "control_cancel_request",
];

/// Qwen Code's `result` subtypes.
const QWEN_RESULT_SUBTYPES: &[&str] = &[
    "success",
    "error_max_turns",
    "error_during_execution",
    "error_max_structured_output_retries",
];

/// `system` subtypes only Claude Code writes. Not `compact_boundary`: Qwen Code's system lines
/// carry the same `compact_metadata{trigger, pre_tokens}`, very likely under the same subtype.
/// Not `task_notification`, which cursor-agent writes too, nor `informational` and
/// `notification`, names too plain to tell a writer by.
const OWN_SUBTYPES: &[&str] = &[
    "hook_started",
    "hook_progress",
    "hook_response",
    "status",
    "api_retry",
    "task_started",
    "task_progress",
    "task_updated",
    "background_tasks_changed",
    "thinking_tokens",
    "session_state_changed",
    "permission_denied",
    "local_command_output",
    "files_persisted",
    "model_refusal_fallback",
    "model_refusal_no_fallback",
    "mirror_error",
    "plugin_install",
    "control_request_progress",
    "worker_shutting_down",
    "memory_recall",
    "vcs_state_changed",
    "code_change_published",
    "commands_changed",
    "elicitation_complete",
];

/// How strongly a record is Claude Code's (see `agents::detect` and [`family`]): its own types,
/// `system` subtypes, `claude_code_version` and `total_cost_usd`, over the marks of the family.
/// `uuid`, `tools`, `mcp_servers`, `apiKeySource` and the other keys of an init are not marks:
/// cursor-agent's init may carry them too.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    family::claude(s)
}

/// Where the stream stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// No session yet.
    #[default]
    Before,
    /// A session is open since this line.
    Open(u64),
    /// The last session ended with the `result` on this line.
    Ended(u64),
    /// Lines came after the `result` of this line without a new session (reported once).
    Stray(u64),
}

/// The checker of one stream of the family: Claude Code's, Qwen Code's or Amp's ([`Profile`]).
#[derive(Default)]
pub struct Validator {
    /// Whose stream it is: the rules that differ, and the name findings use.
    profile: Profile,
    state: State,
    /// The session id of the open session (a bounded prefix; empty: not known).
    session_id: String,
    /// The differing session id last reported (bounded prefix): the lines after it that repeat
    /// it are the same fact, not reported again.
    mismatched_id: String,
    pub(super) calls: Calls,
    last_line: u64,
    /// What the open session's messages have spent, reported as it comes (see [`spent`]).
    spent: spent::Spent,
    /// `total_cost_usd` is cumulative over a process: the last one seen, and its session.
    cost_seen: f64,
    cost_session: String,
    mixed: bool,
    /// `missing-init` for a stream whose first line is a `result`: a finding only when another
    /// line follows, since a lone `result` is what `--output-format json` writes.
    deferred_init: Option<Diagnostic>,
    /// The session under way started a tool call or wrote assistant text (for `did-nothing`).
    did_something: bool,
    /// When the line being read was written (its `timestamp`, newer versions), for its events.
    ms: Option<u64>,
    /// The assistant line being read is an API error message: its text is the error's.
    api_error: bool,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        matches!(self.state, State::Ended(_) | State::Stray(_))
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        self.calls.listed()
    }
}

impl<'a> super::View<'a> for Line<'a> {
    fn parse_into(&mut self, json: &'a str, arena: &'a Bump) -> Result<(), serde_json::Error> {
        super::parse_into(json, arena, self)
    }

    fn own_mark(&self, agent: Agent) -> bool {
        family::own_mark(self, Profile::of(agent))
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

    fn new(agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator {
            profile: Profile::of(agent),
            ..Validator::default()
        };
        v.calls.set_max_open(max_open_calls);
        v
    }

    /// Checks one record read into `line` already (from its text `json`, the record's own
    /// `bytes`): `Some(t)` when it is valid JSON but not an object.
    fn check<'a>(&mut self, mut cx: Cx<'a, '_>, line: &Line<'a>) -> Option<JsonType> {
        let (pos, bytes, json, arena) = (cx.pos, cx.bytes, cx.json, cx.arena);
        if line.shape != Some(JsonType::Object) {
            return line.shape;
        }
        self.last_line = pos.line;
        // Claude Code stamps its message lines since 2.1.211 (ISO 8601): their tool calls are timed.
        self.ms = line.timestamp.as_str().and_then(super::parse_timestamp);
        if self.deferred_init.is_some() {
            self.emit_deferred_init(cx.emit);
        }
        let agent = self.agent();
        let Ok(ty) = own_type(
            line.ty.as_str(),
            agent,
            &mut self.mixed,
            pos,
            bytes,
            cx.emit,
        ) else {
            return None;
        };
        expect(
            line.session_id.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["session_id"],
            cx.emit,
        );
        expect(
            line.uuid.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["uuid"],
            cx.emit,
        );
        expect(
            line.parent_tool_use_id.json_type(),
            Want::Str,
            true,
            pos,
            bytes,
            &["parent_tool_use_id"],
            cx.emit,
        );
        match ty {
            "system" => self.system(pos, bytes, json, line, cx.emit, &mut cx.sink),
            "assistant" | "user" => {
                self.conversation(pos, bytes, ty, line, cx.emit);
                self.api_error = ty == "assistant"
                    && assistant_fields(pos, bytes, json, line, arena, cx.emit, &mut cx.sink);
                self.message(cx, ty, line);
                self.api_error = false;
            }
            "result" => self.result(pos, bytes, line, arena, cx.emit, &mut cx.sink),
            "stream_event" => {
                require(
                    line.event.shape,
                    Want::Obj,
                    "a `stream_event`",
                    pos,
                    bytes,
                    &["event"],
                    cx.emit,
                );
                self.conversation(pos, bytes, ty, line, cx.emit);
            }
            "conversation_reset" if self.profile == Profile::Claude => {
                self.session_id.clear();
                self.mismatched_id.clear();
            }
            "command_lifecycle" if self.profile == Profile::Claude => {
                notices::command_lifecycle(pos, bytes, json, cx.emit);
            }
            // Documented, with nothing to check that a consumer relies on.
            "rate_limit_event" | "tool_progress" | "tool_use_summary" | "auth_status"
            | "prompt_suggestion"
                if self.profile == Profile::Claude => {}
            // Qwen Code's control protocol, on the same channel as its messages.
            t if self.profile == Profile::Qwen && QWEN_CONTROL_TYPES.contains(&t) => {}
            // Whatever comes next: forward-compatible, said as information.
            _ => (cx.emit)(super::unknown_type(agent, ty, pos, bytes)),
        }
        None
    }

    fn finish(&mut self, emit: Emit<'_>) {
        // Not when the last record could not be read: it may have been the result.
        if let State::Open(since) = self.state
            && !self.calls.unreadable_after(self.last_line)
        {
            emit(Diagnostic::from_message(
                line_pos(self.last_line),
                messages::missing_result(&Unended::new(
                    self.agent().display_name(),
                    "session",
                    Some(since),
                    "`result`",
                )),
            ));
        }
        self.close_calls(emit);
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

impl Validator {
    /// An event of the line being read, with its time when the line has one.
    fn event<'e>(&self, kind: Kind, line: u64) -> vocab::Event<'e> {
        let mut ev = vocab::Event::new(kind, line);
        ev.timestamp_ms = self.ms;
        ev
    }

    fn agent(&self) -> Agent {
        self.profile.agent()
    }

    fn system(
        &mut self,
        pos: Position,
        bytes: &[u8],
        json: &str,
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        if !require(
            line.subtype.json_type(),
            Want::Str,
            "a `system` line",
            pos,
            bytes,
            &["subtype"],
            emit,
        ) {
            return;
        }
        match line.subtype.as_str() {
            Some("init") => {}
            Some(st) if notices::knows(st) => {
                notices::system(st, pos, bytes, json, emit, sink);
                return;
            }
            _ => return,
        }
        // A `session_id` of another type was reported with the fields every line has.
        if line.session_id.json_type().is_none() {
            emit(missing(pos, bytes, "a `system`/`init` line", "session_id"));
        }
        // An init inside an open session starts the next turn of the same process (a turn woken
        // by a background task gets one): not an error.
        if !matches!(self.state, State::Open(_)) {
            self.state = State::Open(pos.line);
            self.session_id.clear();
            self.mismatched_id.clear();
            self.spent.reset();
        }
        if let Some(id) = line.session_id.as_str() {
            set_bounded(&mut self.session_id, id);
        }
        if let Some(sink) = sink {
            let mut ev = self.event(Kind::SessionStart, pos.line);
            ev.agent = Some(self.agent().as_str());
            ev.session_id = line.session_id.to_cow();
            ev.model = line.model.to_cow();
            ev.cwd = line.cwd.to_cow();
            sink(&ev);
        }
    }

    /// A line of the conversation: it belongs in an open session with its id.
    fn conversation(
        &mut self,
        pos: Position,
        bytes: &[u8],
        ty: &str,
        line: &Line<'_>,
        emit: Emit<'_>,
    ) {
        match self.state {
            State::Open(_) | State::Stray(_) => {}
            // After a record that could not be read, which may have been the init.
            State::Before if self.calls.unreadable_seen() => self.state = State::Open(pos.line),
            State::Before => {
                let d = Diagnostic::from_message(
                    pos,
                    messages::missing_init(&Opening {
                        agent: self.agent().display_name(),
                        unit: "session",
                        first: EventType::of(ty),
                        opener: "`system`/`init`",
                        aside: match self.profile {
                            Profile::Claude => Some("hooks may come before it"),
                            Profile::Qwen => Some("and every turn"),
                            Profile::Amp => None,
                        },
                    }),
                )
                .with_snippet(bytes);
                if ty == "result" && pos.record == 1 {
                    self.deferred_init = Some(d);
                } else {
                    emit(d);
                }
                self.state = State::Open(pos.line);
            }
            // With `--stream-json-input`, Amp answers each message of its input with a turn of
            // its own and a `result`, without a new init: the next user line opens it.
            State::Ended(_) if self.profile == Profile::Amp && ty == "user" => {
                self.state = State::Open(pos.line);
            }
            State::Ended(at) => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::event_after_result(&AfterEnd {
                            agent: self.agent().display_name(),
                            unit: "session",
                            record: EventType::of(ty),
                            end: "`result`",
                            ended: at,
                            next: Some("`system`/`init`"),
                        }),
                    )
                    .with_snippet(bytes),
                );
                self.state = State::Stray(at);
            }
        }
        if let Some(id) = line.session_id.as_str() {
            if self.session_id.is_empty() {
                set_bounded(&mut self.session_id, id);
            } else if id_prefix(id) != self.session_id && id_prefix(id) != self.mismatched_id {
                set_bounded(&mut self.mismatched_id, id);
                let d = Diagnostic::from_message(
                    pos,
                    messages::session_id_mismatch(&SessionIds {
                        agent: self.agent().display_name(),
                        unit: "session",
                        field: "`session_id`",
                        id,
                        expected: &self.session_id,
                        began: None,
                        each: false,
                        note: Some(
                            "only a `conversation_reset` gives the records after it a new one",
                        ),
                    }),
                );
                emit(match crate::locate::value(bytes, &["session_id"]) {
                    Some(span) => d.at(bytes, span),
                    None => d,
                });
            }
        }
    }

    /// A `user` or `assistant` line (`ty`): its `message`, its usage and its content blocks.
    fn message<'a>(&mut self, mut cx: Cx<'a, '_>, ty: &str, line: &Line<'a>) {
        let (pos, bytes, json, arena) = (cx.pos, cx.bytes, cx.json, cx.arena);
        let what = if ty == "user" {
            "a `user` line"
        } else {
            "an `assistant` line"
        };
        if !require(
            line.message.shape,
            Want::Obj,
            what,
            pos,
            bytes,
            &["message"],
            cx.emit,
        ) {
            return;
        }
        let msg = &line.message;
        if msg.shape == Some(JsonType::Object) {
            check_usage(&msg.usage, pos, bytes, &["message", "usage"], cx.emit);
        }
        let parent = line.parent_tool_use_id.as_str();
        if let Some(parent) = parent
            && self.calls.was_seen(parent) == Some(false)
        {
            let d = Diagnostic::from_message(pos, messages::unknown_parent_tool_use(parent));
            (cx.emit)(match crate::locate::value(bytes, &["parent_tool_use_id"]) {
                Some(span) => d.at(bytes, span),
                None => d,
            });
        }
        if ty == "assistant"
            && let Some(sink) = cx.sink.as_deref_mut()
        {
            self.count_usage(pos, msg, parent.is_none(), sink);
        }
        match msg.content.shape {
            Some(JsonType::Array) => {}
            Some(JsonType::String) => {
                if let Some(sink) = cx.sink {
                    let mut ev = self.event(self.text_kind(ty), pos.line);
                    ev.text = raw_content(json, arena).and_then(|raw| raw.text());
                    ev.parent = parent.map(Cow::Borrowed);
                    sink(&ev);
                }
                return;
            }
            Some(t) => {
                (cx.emit)(super::wrong_type(
                    pos,
                    bytes,
                    &["message", "content"],
                    t,
                    &[Want::Arr, Want::Str],
                ));
                return;
            }
            None => {
                (cx.emit)(super::missing(pos, bytes, what, "message.content"));
                return;
            }
        }
        if !msg.content.more {
            for (i, b) in msg.content.blocks[..msg.content.len].iter().enumerate() {
                self.block(&mut cx, ty, i, b, parent);
            }
            return;
        }
        let Some(content) = raw_content(json, arena).and_then(|raw| raw.get()) else {
            return;
        };
        let mut blocks = bumpalo::collections::Vec::new_in(arena);
        super::parse_array::<Block<'a>>(content, arena, &mut blocks);
        for (i, b) in blocks.iter().enumerate() {
            self.block(&mut cx, ty, i, b, parent);
        }
    }

    /// What the text of a line of type `ty` is in the common form: a user's prompt, the
    /// assistant's text, or the error of an API error message.
    fn text_kind(&self, ty: &str) -> Kind {
        match ty {
            "user" => Kind::UserPrompt,
            _ if self.api_error => Kind::Error,
            _ => Kind::AssistantText,
        }
    }

    /// An assistant line's usage: what it adds to its message's (once per `message.id`), as
    /// a `usage` event. Claude Code's and Qwen Code's lines without an `id` are not counted (the
    /// result's total has them); Amp's messages have none, and each of its lines counts.
    fn count_usage(
        &mut self,
        pos: Position,
        msg: &view::Message<'_>,
        main: bool,
        sink: &mut dyn FnMut(&vocab::Event<'_>),
    ) {
        if msg.usage.shape != Some(JsonType::Object) {
            return;
        }
        let id = msg.id.as_str().map(id_prefix);
        if id.is_none() && self.profile != Profile::Amp {
            return;
        }
        if let Some(added) = self.spent.message(id, tokens(&msg.usage), main) {
            let mut ev = self.event(Kind::Usage, pos.line);
            ev.usage = Some(added);
            ev.model = msg.model.as_str().map(Cow::Borrowed);
            sink(&ev);
        }
    }

    /// The `i`th content block of a `ty` line; `parent` is the subagent's call it is part of.
    fn block<'a>(
        &mut self,
        cx: &mut Cx<'a, '_>,
        ty: &str,
        i: usize,
        b: &Block<'a>,
        parent: Option<&str>,
    ) {
        let pos = cx.pos;
        match (ty, b.ty.as_str()) {
            ("assistant", Some("tool_use")) => self.tool_use(cx, b, parent),
            ("user", Some("tool_result")) => self.tool_result(cx, i, b, parent),
            (_, Some("text")) => {
                if ty == "assistant" && !blank(&b.text) {
                    self.did_something = true;
                }
                if let Some(sink) = &mut cx.sink {
                    let mut ev = self.event(self.text_kind(ty), pos.line);
                    ev.text = b.text.text();
                    ev.parent = parent.map(Cow::Borrowed);
                    sink(&ev);
                }
            }
            ("assistant", Some("thinking" | "redacted_thinking")) => {
                if let Some(sink) = &mut cx.sink {
                    let mut ev = self.event(Kind::Thinking, pos.line);
                    ev.text = b.thinking.text();
                    ev.parent = parent.map(Cow::Borrowed);
                    sink(&ev);
                }
            }
            _ => {}
        }
    }

    /// A `tool_use` block: a tool call opens.
    fn tool_use(&mut self, cx: &mut Cx<'_, '_>, b: &Block<'_>, parent: Option<&str>) {
        let (pos, bytes) = (cx.pos, cx.bytes);
        let what = "a `tool_use` block";
        if !require(
            b.id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["message", "content", "id"],
            cx.emit,
        ) {
            return;
        }
        require(
            b.name.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["message", "content", "name"],
            cx.emit,
        );
        let id = b.id.as_str().unwrap_or_default();
        let name = b.name.as_str().unwrap_or("?");
        self.did_something = true;
        match self.calls.open(id, pos, bytes, name) {
            Opened::Ok => {}
            Opened::AlreadyOpen(at) => (cx.emit)(
                Diagnostic::from_message(
                    pos,
                    messages::duplicate_call_id(PAIRING.opener, Id::Text(id), true, None),
                )
                .with_related(at, "opened here")
                .with_snippet(bytes),
            ),
            Opened::OverBudget(max) => {
                if let Some(d) = super::over_budget(pos, "tool calls", max) {
                    (cx.emit)(d);
                }
            }
        }
        if let Some(sink) = &mut cx.sink {
            let mut ev = self.event(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(vocab::tool_kind(name));
            ev.args = b.input.0;
            ev.parent = parent.map(Cow::Borrowed);
            sink(&ev);
        }
    }

    /// A `tool_result` block, the `i`th of its line: the tool call it answers closes.
    fn tool_result<'a>(
        &mut self,
        cx: &mut Cx<'a, '_>,
        i: usize,
        b: &Block<'a>,
        parent: Option<&str>,
    ) {
        let (pos, bytes, arena) = (cx.pos, cx.bytes, cx.arena);
        let what = "a `tool_result` block";
        if !require(
            b.tool_use_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["message", "content", "tool_use_id"],
            cx.emit,
        ) {
            return;
        }
        expect(
            b.is_error.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["message", "content", "is_error"],
            cx.emit,
        );
        let id = b.tool_use_id.as_str().unwrap_or_default();
        let open = self.calls.close(id);
        // Not after a record that could not be read: it may have been the `tool_use`.
        if open.is_none() && !self.calls.unreadable_seen() {
            let again = self.calls.was_seen(id) == Some(true);
            let d = Diagnostic::from_message(
                pos,
                messages::orphan_completion(&Orphan {
                    note: Some(
                        "a `tool_result` answers the `tool_use` of an earlier assistant line, once",
                    ),
                    ..Orphan::call(
                        self.agent().display_name(),
                        "`tool_result`",
                        id,
                        again,
                        &PAIRING,
                    )
                }),
            );
            (cx.emit)(match nth_value(bytes, i, "tool_use_id") {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        if let Some(sink) = &mut cx.sink {
            let mut ev = self.event(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            if let Some(c) = &open {
                let name = self.calls.name(c);
                ev.tool_kind = Some(vocab::tool_kind(name));
                ev.name = Some(Cow::Owned(name.to_owned()));
            }
            ev.ok = Some(b.is_error.as_bool() != Some(true));
            ev.text = result_text(&b.content, arena);
            ev.rejected =
                ev.ok == Some(false) && ev.text.as_deref().is_some_and(permission_refused);
            ev.parent = parent.map(Cow::Borrowed);
            sink(&ev);
        }
    }

    /// The session ended: every open tool call is unfinished.
    fn close_calls(&mut self, emit: Emit<'_>) {
        if self.calls.is_empty() {
            return;
        }
        for call in self.calls.drain() {
            emit(unfinished(
                &call,
                &Pairing {
                    before: Some("the session's `result`"),
                    ..PAIRING
                },
            ));
        }
    }

    /// A line follows the lone `result` that began the stream: its missing init is a finding.
    #[cold]
    fn emit_deferred_init(&mut self, emit: Emit<'_>) {
        if let Some(d) = self.deferred_init.take() {
            emit(d);
        }
    }
}

fn tokens(u: &Usage<'_>) -> Tokens {
    Tokens {
        input: super::count(&u.input_tokens).unwrap_or(0),
        output: super::count(&u.output_tokens).unwrap_or(0),
        cache_read: super::count(&u.cache_read).unwrap_or(0),
        cache_write: super::count(&u.cache_write).unwrap_or(0),
        // A part of `output_tokens`, not beside them.
        reasoning: super::count(&u.details.thinking_tokens).unwrap_or(0),
    }
}

fn set_bounded(to: &mut String, id: &str) {
    to.clear();
    to.push_str(id_prefix(id));
}

/// The text of an error `tool_result` that says the call was refused permission, not run:
/// Claude Code's "Claude requested permissions to use Bash, but you haven't granted it yet."
/// (headless runs without the permission), and the refusal a user or a permission rule gives
/// ("The user doesn't want to proceed with this tool use. The tool use was rejected …").
fn permission_refused(text: &str) -> bool {
    const SAYINGS: [&str; 3] = [
        "requested permissions to use",
        "haven't granted it yet",
        "tool use was rejected",
    ];
    let head = &text.as_bytes()[..text.len().min(400)];
    SAYINGS
        .iter()
        .any(|s| memchr::memmem::find(head, s.as_bytes()).is_some())
}

/// A JSON string of white space only.
fn blank(text: &super::Raw<'_>) -> bool {
    text.get().is_some_and(|raw| {
        raw.trim()
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .is_some_and(|inner| inner.trim().is_empty())
    })
}
