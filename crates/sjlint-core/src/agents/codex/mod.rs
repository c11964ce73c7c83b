//! Codex's stream (`codex exec --json`): its borrowed view, its checker, and its mapping into
//! the common vocabulary.
//!
//! This module owns what is true of Codex's stream only (see `agents/codex.md` of the format
//! notes): a run opens with `thread.started` (a resumed thread repeats it, same id) and ends with
//! `turn.completed` or `turn.failed`; items pair `item.started`/`item.updated`/`item.completed`
//! by item id with the same item type, and some items (`agent_message`, `reasoning`, `error`, an
//! older `file_change`) exist only as `item.completed`; a top-level `error` is not terminal, and
//! an `error` item is a warning of the CLI, not a broken stream. `turn.started` is positional
//! only and may be missing from excerpts, so nothing depends on it. Unknown types are the future.
//! State is owned and bounded. It must not print.

pub mod log;

use super::{
    Agent, Calls, Emit, Opened, Progress, Raw, Sink, Want, expect, line_pos, require, unfinished,
    view,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::session_start;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::messages::{self, EventType, Id, Opening, Orphan, Pairing, Unended};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`item.started`",
    closer: "`item.completed`",
    key: "`item.id`",
    before: None,
};

view! {
    /// One line of the stream.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "thread_id" => thread_id: Field<'a>,
        "usage" => usage: Usage<'a>,
        "error" => error: ErrorObj<'a>,
        "item" => item: Item<'a>,
        "message" => message: Field<'a>,
        "item_id" => item_id: Field<'a>,
        "delta" => delta: Field<'a>,
        "id" => id: Field<'a>,
        "call_id" => call_id: Field<'a>,
        "questions" => questions: Raw<'a>,
    }
}

view! {
    /// `usage` of `turn.completed` (3, 4 or 5 fields, by version).
    pub struct Usage<'a> {
        "input_tokens" => input_tokens: Field<'a>,
        "cached_input_tokens" => cached_input_tokens: Field<'a>,
        "cache_write_input_tokens" => cache_write_input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "reasoning_output_tokens" => reasoning_output_tokens: Field<'a>,
    }
}

view! {
    /// `error` of `turn.failed`.
    pub struct ErrorObj<'a> {
        "message" => message: Field<'a>,
    }
}

view! {
    /// `item` of the `item.*` events.
    pub struct Item<'a> {
        "id" => id: Field<'a>,
        "type" => ty: Field<'a>,
        "text" => text: Raw<'a>,
        "command" => command: Raw<'a>,
        "aggregated_output" => aggregated_output: Raw<'a>,
        "exit_code" => exit_code: Field<'a>,
        "status" => status: Field<'a>,
        "message" => message: Field<'a>,
        "server" => server: Field<'a>,
        "tool" => tool: Field<'a>,
        "arguments" => arguments: Raw<'a>,
        "changes" => changes: Raw<'a>,
        "query" => query: Field<'a>,
        "action" => action: Field<'a>,
        "sender_thread_id" => sender_thread_id: Field<'a>,
        "receiver_thread_ids" => receiver_thread_ids: Field<'a>,
        "prompt" => prompt: Field<'a>,
        "agents_states" => agents_states: Field<'a>,
    }
}

/// Item types that always have an `item.started` before their `item.completed`.
const STARTED_FIRST: &[&str] = &["command_execution", "mcp_tool_call", "collab_tool_call"];

/// Item types that are tool calls (in the common vocabulary).
fn is_tool(ty: &str) -> bool {
    matches!(
        ty,
        "command_execution" | "file_change" | "mcp_tool_call" | "web_search" | "collab_tool_call"
    )
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Before,
    /// A run is open since this line.
    Open(u64),
    /// The last run ended with the terminal event on this line.
    Ended(u64),
}

/// The types that name Codex in another agent's stream.
pub const TYPE_NAMES: Types = Types {
    own: &[&["request_user_input"]],
    own_prefixes: &["thread.", "turn.", "item."],
    shared: &[],
};

/// How strongly a record is Codex's (see `agents::detect`): its `thread.`, `turn.` and `item.`
/// types (and `request_user_input`), which no other agent writes.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    super::count_marks(&[s.ty.as_str().is_some_and(super::is_codex_type)])
}

/// The checker of one Codex stream.
#[derive(Default)]
pub struct Validator {
    state: State,
    pub(super) calls: Calls,
    last_line: u64,
    /// The thread's usage is a running total: the last one seen, to count each turn once.
    tokens_seen: Tokens,
    /// The thread whose usage `tokens_seen` is (a bounded prefix).
    thread: String,
    mixed: bool,
    /// The turn's last `agent_message`, for the common `end` (kept only for common events).
    answer: super::Answer,
    /// The turn's last `plan` (plan mode's proposed plan): the common `end`'s text when the
    /// turn has no `agent_message`, as Codex's own final message is.
    plan: super::Answer,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        matches!(self.state, State::Ended(_))
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
        self.ty.as_str().is_some_and(super::is_codex_type)
    }

    fn has_duplicate_key(&self) -> bool {
        self.dup
    }

    fn ty(&self) -> Option<&str> {
        self.ty.as_str()
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
        let ty = match cx.own_type(
            line.shape,
            line.ty.as_str(),
            Agent::Codex,
            &mut self.mixed,
            &mut self.last_line,
        ) {
            Ok(ty) => ty,
            Err(shape) => return shape,
        };
        let (pos, bytes) = (cx.pos, cx.bytes);
        if ty == "thread.started" {
            self.thread_started(pos, bytes, line, cx.emit, &mut cx.sink);
            self.last_line = pos.line;
            return None;
        }
        let known = matches!(
            ty,
            "turn.started" | "turn.completed" | "turn.failed" | "error"
        ) || ty.starts_with("item.");
        if !known {
            match ty {
                "request_user_input" => {
                    request_user_input(pos, bytes, line, cx.arena, cx.emit, &mut cx.sink);
                }
                // What comes next is forward-compatible, said as information.
                _ => (cx.emit)(super::unknown_type(Agent::Codex, ty, pos, bytes)),
            }
            return None;
        }
        if let Some(d) = self.in_run(pos, bytes, ty) {
            (cx.emit)(d);
        }
        self.last_line = pos.line;
        match ty {
            "turn.completed" => self.turn_completed(cx, &line.usage),
            "turn.failed" => self.turn_failed(cx, &line.error),
            "error" => error(cx, line),
            "item.started" | "item.updated" | "item.completed" => self.item(cx, ty, &line.item),
            "item.plan.delta" => plan_delta(pos, bytes, line, cx.emit),
            _ => {}
        }
        None
    }

    fn finish(&mut self, emit: Emit<'_>) {
        if let State::Open(since) = self.state {
            self.unended(since, self.last_line, None, emit);
            self.state = State::Before;
        }
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

impl Validator {
    fn thread_started(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        require(
            line.thread_id.json_type(),
            Want::Str,
            "a `thread.started`",
            pos,
            bytes,
            &["thread_id"],
            emit,
        );
        if let State::Open(since) = self.state {
            // The run before never ended; this one (a resume, or a new capture) begins.
            self.unended(since, self.last_line, Some("a `thread.started`"), emit);
        }
        self.state = State::Open(pos.line);
        let thread = line
            .thread_id
            .as_str()
            .map(super::id_prefix)
            .unwrap_or_default();
        if thread != self.thread {
            self.thread.clear();
            self.thread.push_str(thread);
            self.tokens_seen = Tokens::default();
        }
        self.answer.clear();
        self.plan.clear();
        if let Some(sink) = sink {
            sink(&session_start(
                Agent::Codex,
                pos.line,
                line.thread_id.to_cow(),
                None,
                None,
            ));
        }
    }

    /// An event of a run: a run that has not begun with `thread.started` is missing its start.
    fn in_run(&mut self, pos: Position, bytes: &[u8], ty: &str) -> Option<Diagnostic> {
        if let State::Open(_) = self.state {
            return None;
        }
        self.state = State::Open(pos.line);
        Some(
            Diagnostic::from_message(
                pos,
                messages::missing_init(&Opening {
                    agent: Agent::Codex.display_name(),
                    unit: "run",
                    first: EventType::of(ty),
                    opener: "`thread.started`",
                    aside: Some("every `codex exec --json` run and every resume"),
                }),
            )
            .with_snippet(bytes),
        )
    }

    fn turn_ended(&mut self, pos: Position, emit: Emit<'_>) {
        for call in self.calls.drain() {
            emit(unfinished(
                &call,
                &Pairing {
                    before: Some("the turn ends"),
                    ..PAIRING
                },
            ));
        }
        self.state = State::Ended(pos.line);
    }

    /// `turn.completed`: the turn's `usage` (the thread's running total) and its common `usage`
    /// and `end`.
    fn turn_completed(&mut self, cx: Cx<'_, '_>, usage: &Usage<'_>) {
        let (pos, bytes, emit) = (cx.pos, cx.bytes, cx.emit);
        if require(
            usage.shape,
            Want::Obj,
            "a `turn.completed`",
            pos,
            bytes,
            &["usage"],
            emit,
        ) {
            check_usage(usage, pos, bytes, emit);
        }
        self.turn_ended(pos, emit);
        if let Some(sink) = cx.sink {
            let total = tokens(usage);
            let turn = minus(total, self.tokens_seen);
            self.tokens_seen = total;
            let mut ev = vocab::Event::new(Kind::Usage, pos.line);
            ev.usage = Some(turn);
            sink(&ev);
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(true);
            ev.session_id = self.session_id();
            ev.text = self.answer.text().or_else(|| self.plan.text());
            sink(&ev);
        }
        self.answer.clear();
        self.plan.clear();
    }

    /// `turn.failed`: its `error`, and the common `end` that says so.
    fn turn_failed(&mut self, cx: Cx<'_, '_>, error: &ErrorObj<'_>) {
        let (pos, bytes, emit) = (cx.pos, cx.bytes, cx.emit);
        if require(
            error.shape,
            Want::Obj,
            "a `turn.failed`",
            pos,
            bytes,
            &["error"],
            emit,
        ) {
            expect(
                error.message.json_type(),
                Want::Str,
                false,
                pos,
                bytes,
                &["error", "message"],
                emit,
            );
        }
        self.turn_ended(pos, emit);
        if let Some(sink) = cx.sink {
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(false);
            ev.session_id = self.session_id();
            ev.text = error.message.to_cow();
            sink(&ev);
        }
        self.answer.clear();
        self.plan.clear();
    }

    /// `item.started`, `item.updated` or `item.completed` (`ty`): its `item`, paired by id.
    fn item<'a>(&mut self, cx: Cx<'a, '_>, ty: &str, item: &'a Item<'a>) {
        let (pos, bytes, arena, emit, sink) = (cx.pos, cx.bytes, cx.arena, cx.emit, cx.sink);
        let what = match ty {
            "item.started" => "an `item.started`",
            "item.updated" => "an `item.updated`",
            _ => "an `item.completed`",
        };
        if !require(item.shape, Want::Obj, what, pos, bytes, &["item"], emit) {
            return;
        }
        let ok_id = require(
            item.id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["item", "id"],
            emit,
        );
        let ok_ty = require(
            item.ty.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["item", "type"],
            emit,
        );
        if !(ok_id && ok_ty) {
            return;
        }
        let id = item.id.as_str().unwrap_or_default();
        let item_ty = item.ty.as_str().unwrap_or_default();
        let of = Of {
            line: pos.line,
            id,
            ty: item_ty,
            item,
        };
        item_fields(pos, bytes, ty, item_ty, item, emit);
        match ty {
            "item.started" => match self.calls.open(id, pos, bytes, item_ty) {
                Opened::Ok => {
                    if is_tool(item_ty)
                        && let Some(sink) = sink
                    {
                        sink(&tool_start(of, arena));
                    }
                }
                Opened::AlreadyOpen(at) => emit(
                    Diagnostic::from_message(
                        pos,
                        messages::duplicate_call_id(PAIRING.opener, Id::Text(id), true, None),
                    )
                    .with_related(at, "started here")
                    .with_snippet(bytes),
                ),
                Opened::OverBudget(max) => {
                    if let Some(d) = super::over_budget(pos, "items", max) {
                        emit(d);
                    }
                }
            },
            "item.updated" => match self.calls.get(id) {
                None if self.calls.unreadable_seen() => {}
                None => emit(orphan(pos, bytes, id, "`item.updated`")),
                Some(c) if self.calls.name(c) != item_ty => {
                    emit(self.other_type(pos, bytes, id, item_ty, c, "is updated"));
                }
                Some(_) => {}
            },
            _ => {
                let open = self.calls.close(id);
                match &open {
                    Some(c) if self.calls.name(c) != item_ty => {
                        emit(self.other_type(pos, bytes, id, item_ty, c, "completes"));
                    }
                    Some(_) => {}
                    // Not after a record that could not be read: it may have been the start.
                    None if STARTED_FIRST.contains(&item_ty) && !self.calls.unreadable_seen() => {
                        emit(orphan(pos, bytes, id, "`item.completed`"));
                    }
                    None => {}
                }
                if let Some(sink) = sink {
                    self.completed(of, open.is_some(), arena, sink);
                    let last = match item_ty {
                        "agent_message" => Some(&mut self.answer),
                        "plan" => Some(&mut self.plan),
                        _ => None,
                    };
                    if let Some(last) = last {
                        last.clear();
                        if let Some(text) = item.text.text() {
                            last.push(&text);
                        }
                    }
                }
            }
        }
    }

    /// `tool-kind-mismatch`: item `id` goes on (`verb`) as another item type than it started.
    fn other_type(
        &self,
        pos: Position,
        bytes: &[u8],
        id: &str,
        item_ty: &str,
        started: &super::OpenCall,
        verb: &str,
    ) -> Diagnostic {
        Diagnostic::from_message(
            pos,
            messages::tool_kind_mismatch(
                id,
                Some(self.calls.name(started)),
                started.line,
                verb,
                item_ty,
            ),
        )
        .with_snippet(bytes)
    }

    /// The common events of a completed item (`was_open` when its `item.started` was seen).
    fn completed<'a>(
        &self,
        of: Of<'a>,
        was_open: bool,
        arena: &'a Bump,
        sink: &mut dyn FnMut(&vocab::Event<'_>),
    ) {
        let Of { line, id, item, .. } = of;
        let kind = match of.ty {
            // Plan mode's proposed plan is what the agent says to the user, as its message is.
            "agent_message" | "plan" => Kind::AssistantText,
            "reasoning" => Kind::Thinking,
            "error" => Kind::Error,
            t if is_tool(t) => {
                if !was_open {
                    // Completed-only tool items still start and end in the common form.
                    sink(&tool_start(of, arena));
                }
                let mut ev = vocab::Event::new(Kind::ToolEnd, line);
                ev.call_id = Some(Cow::Borrowed(id));
                ev.name = Some(tool_name(t, item));
                ev.tool_kind = Some(vocab::tool_kind(t));
                let status = item.status.as_str();
                ev.ok = Some(
                    !matches!(status, Some("failed" | "declined"))
                        && !matches!(super::count(&item.exit_code), Some(n) if n != 0)
                        && !matches!(item.exit_code, Field::Int(n) if n != 0),
                );
                ev.text = item.aggregated_output.text();
                ev.exit_code = match item.exit_code {
                    Field::Int(n) => Some(n),
                    _ => super::count(&item.exit_code).and_then(|n| i64::try_from(n).ok()),
                };
                sink(&ev);
                return;
            }
            _ => return,
        };
        let mut ev = vocab::Event::new(kind, line);
        ev.text = if kind == Kind::Error {
            item.message.to_cow()
        } else {
            item.text.text()
        };
        sink(&ev);
    }

    /// The thread's id, for the common `end` (the turn's records do not repeat it).
    fn session_id(&self) -> Option<Cow<'_, str>> {
        (!self.thread.is_empty()).then_some(Cow::Borrowed(self.thread.as_str()))
    }

    /// A run that began on `since` has no terminal event; `at` is its last line, `cut_by` the
    /// record that begins another run, when one does.
    fn unended(&mut self, since: u64, at: u64, cut_by: Option<&str>, emit: Emit<'_>) {
        // Not when the run's last record could not be read: it may have been its end.
        if !self.calls.unreadable_after(at) {
            self.missing_end(since, at, cut_by, emit);
        }
        for call in self.calls.drain() {
            emit(unfinished(&call, &PAIRING));
        }
    }

    /// `missing-result`: the run that began on `since` has no terminal event when the input
    /// ends, or when `cut_by` begins another; `at` is its last line.
    #[cold]
    fn missing_end(&self, since: u64, at: u64, cut_by: Option<&str>, emit: Emit<'_>) {
        emit(Diagnostic::from_message(
            line_pos(at),
            messages::missing_result(
                &Unended::new(
                    Agent::Codex.display_name(),
                    "run",
                    Some(since),
                    "`turn.completed` or `turn.failed`",
                )
                .cut_by(cut_by)
                .note("an interrupted, hung or killed `codex exec` stops without a terminal event"),
            ),
        ));
    }
}

/// One item of a record: its record's line, its id and type (both strings, checked), and its
/// fields.
#[derive(Clone, Copy)]
struct Of<'a> {
    line: u64,
    id: &'a str,
    ty: &'a str,
    item: &'a Item<'a>,
}

/// The name of the tool of an item of type `t`: an MCP call's tool, else the item type.
fn tool_name<'a>(t: &'a str, item: &'a Item<'a>) -> Cow<'a, str> {
    match (t, item.tool.as_str()) {
        ("mcp_tool_call", Some(tool)) => Cow::Borrowed(tool),
        _ => Cow::Borrowed(t),
    }
}

/// The `tool_start` of a tool item: its arguments are the item's own (`arguments` of an MCP
/// call, `changes` of a file change), else an object of what the item runs (`command`) or
/// looks up (`query`), written in `arena`.
fn tool_start<'a>(of: Of<'a>, arena: &'a Bump) -> vocab::Event<'a> {
    let Of {
        line,
        id,
        ty: t,
        item,
    } = of;
    let mut ev = vocab::Event::new(Kind::ToolStart, line);
    ev.call_id = Some(Cow::Borrowed(id));
    ev.tool_kind = Some(vocab::tool_kind(t));
    ev.name = Some(tool_name(t, item));
    ev.args = item.arguments.0.or(item.changes.0).or_else(|| {
        let (key, value) = match (item.command.get(), item.query.as_str()) {
            (Some(raw), _) => ("command", raw.to_owned()),
            (None, Some(q)) => ("query", serde_json::to_string(q).ok()?),
            (None, None) => return None,
        };
        let text = arena.alloc_str(&format!("{{\"{key}\":{value}}}"));
        serde_json::from_str::<&RawValue>(text).ok()
    });
    ev
}

/// The fields of the newer items, by item type: a collaboration call's (`collab_tool_call`:
/// spawning, messaging, waiting for and closing other agents), a web search's, a plan's, and a
/// warning's (`error`). Older items were checked by their use before; their fields stay so.
fn item_fields(
    pos: Position,
    bytes: &[u8],
    ty: &str,
    item_ty: &str,
    item: &Item<'_>,
    emit: Emit<'_>,
) {
    let what = match ty {
        "item.started" => "an `item.started` item",
        "item.updated" => "an `item.updated` item",
        _ => "an `item.completed` item",
    };
    let fields: &[(&str, Option<JsonType>, Want, bool, bool)] = match item_ty {
        "collab_tool_call" => &[
            ("tool", item.tool.json_type(), Want::Str, true, false),
            (
                "sender_thread_id",
                item.sender_thread_id.json_type(),
                Want::Str,
                false,
                false,
            ),
            (
                "receiver_thread_ids",
                item.receiver_thread_ids.json_type(),
                Want::Arr,
                false,
                false,
            ),
            ("prompt", item.prompt.json_type(), Want::Str, false, true),
            (
                "agents_states",
                item.agents_states.json_type(),
                Want::Obj,
                false,
                false,
            ),
            ("status", item.status.json_type(), Want::Str, false, false),
        ],
        "web_search" => &[
            ("query", item.query.json_type(), Want::Str, true, false),
            ("action", item.action.json_type(), Want::Obj, false, false),
        ],
        "plan" => &[("text", item.text.json_type(), Want::Str, true, false)],
        "error" => &[("message", item.message.json_type(), Want::Str, true, false)],
        _ => return,
    };
    for &(name, t, want, required, nullable) in fields {
        let path = ["item", name];
        if required {
            require(t, want, what, pos, bytes, &path, emit);
        } else {
            expect(t, want, nullable, pos, bytes, &path, emit);
        }
    }
}

/// A top-level `error`: not terminal (the run goes on), a common `error`.
fn error(cx: Cx<'_, '_>, line: &Line<'_>) {
    require(
        line.message.json_type(),
        Want::Str,
        "an `error`",
        cx.pos,
        cx.bytes,
        &["message"],
        cx.emit,
    );
    if let Some(sink) = cx.sink {
        let mut ev = vocab::Event::new(Kind::Error, cx.pos.line);
        ev.text = line.message.to_cow();
        sink(&ev);
    }
}

/// `item.plan.delta`: a piece of a plan item's text as it streams. The common form has the
/// plan once, from its `item.completed`.
fn plan_delta(pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
    let what = "an `item.plan.delta`";
    require(
        line.item_id.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["item_id"],
        emit,
    );
    require(
        line.delta.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["delta"],
        emit,
    );
}

/// `request_user_input`: the model calls its tool of that name to ask the user questions. In
/// the common form it is a tool call that starts and ends on this record (kind `other`, its
/// `questions` in `args`): the stream does not carry the answers, so its end has no `ok`.
fn request_user_input<'a>(
    pos: Position,
    bytes: &[u8],
    line: &Line<'a>,
    arena: &'a Bump,
    emit: Emit<'_>,
    sink: &mut Sink<'_, '_>,
) {
    let what = "a `request_user_input`";
    let called = require(
        line.call_id.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["call_id"],
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
    require(
        line.questions.json_type(),
        Want::Arr,
        what,
        pos,
        bytes,
        &["questions"],
        emit,
    );
    let (Some(sink), true) = (sink, called) else {
        return;
    };
    let name = "request_user_input";
    let call_id = line.call_id.to_cow();
    let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
    ev.call_id.clone_from(&call_id);
    ev.name = Some(Cow::Borrowed(name));
    ev.tool_kind = Some(vocab::tool_kind(name));
    ev.args = line.questions.get().and_then(|q| {
        let text = arena.alloc_str(&format!("{{\"questions\":{q}}}"));
        serde_json::from_str::<&RawValue>(text).ok()
    });
    sink(&ev);
    let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
    ev.call_id = call_id;
    ev.name = Some(Cow::Borrowed(name));
    ev.tool_kind = Some(vocab::tool_kind(name));
    sink(&ev);
}

/// `orphan-completion`: `record` (`item.updated`, `item.completed`) names the item `id`, which
/// no `item.started` opened.
#[cold]
fn orphan(pos: Position, bytes: &[u8], id: &str, record: &str) -> Diagnostic {
    let d = Diagnostic::from_message(
        pos,
        messages::orphan_completion(&Orphan {
            note: Some("commands, MCP calls and agent calls first write `item.started`"),
            ..Orphan::call(Agent::Codex.display_name(), record, id, false, &PAIRING)
        }),
    );
    match crate::locate::value(bytes, &["item", "id"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

fn check_usage(u: &Usage<'_>, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    for (name, f) in [
        ("input_tokens", &u.input_tokens),
        ("cached_input_tokens", &u.cached_input_tokens),
        ("cache_write_input_tokens", &u.cache_write_input_tokens),
        ("output_tokens", &u.output_tokens),
        ("reasoning_output_tokens", &u.reasoning_output_tokens),
    ] {
        let path = ["usage", name];
        if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
            super::expect_count(f, pos, bytes, &path, emit);
        }
    }
}

/// The thread's running total, in the common form's meaning: Codex's `input_tokens` is the
/// whole input (its total is input and output), so it holds the `cached_input_tokens` read from
/// a cache and the `cache_write_input_tokens` written to one, which the common form counts apart.
fn tokens(u: &Usage<'_>) -> Tokens {
    let n = |f: &Field<'_>| super::count(f).unwrap_or(0);
    Tokens {
        input: n(&u.input_tokens)
            .saturating_sub(n(&u.cached_input_tokens))
            .saturating_sub(n(&u.cache_write_input_tokens)),
        output: n(&u.output_tokens),
        cache_read: n(&u.cached_input_tokens),
        cache_write: n(&u.cache_write_input_tokens),
        reasoning: n(&u.reasoning_output_tokens),
    }
}

/// `total` less what an earlier total of the same thread counted (a resumed thread's usage
/// goes on from the last run's); a smaller total is a new thread, counted whole.
fn minus(total: Tokens, seen: Tokens) -> Tokens {
    if total.input < seen.input || total.output < seen.output {
        return total;
    }
    Tokens {
        input: total.input - seen.input,
        output: total.output - seen.output,
        cache_read: total.cache_read.saturating_sub(seen.cache_read),
        cache_write: total.cache_write.saturating_sub(seen.cache_write),
        reasoning: total.reasoning.saturating_sub(seen.reasoning),
    }
}
