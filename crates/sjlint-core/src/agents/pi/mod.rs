//! Pi's stream (`pi -p --mode json`, the pi-mono coding agent): its borrowed view, its checker,
//! and its mapping into the common vocabulary.
//!
//! This module owns what is true of Pi's `AgentSessionEvent` stream only (see `agents/pi.md` of
//! the format notes). Newer versions open the stream with a session header (`type: "session"`,
//! its `id`, `version`, ISO `timestamp`, `cwd`). Each prompt is one run, `agent_start` …
//! `agent_end` (the terminal line; a stream of several prompts has several runs); inside a run
//! `turn_start`/`turn_end` bracket one model call and its tools, `message_start`/`message_end`
//! bracket each message (the prompt, the assistant's, each tool result), with `message_update`s
//! between for the assistant's (each repeating the growing message), and
//! `tool_execution_start`/`_update`/`_end` pair by `toolCallId`. The envelopes carry no time and
//! no session id. Usage and cost are per assistant message: counted once, from its
//! `message_end`. A run fails with `stopReason` `error` or `aborted` on its last assistant
//! message, with `errorMessage`; a run that fails before any message streams may leave its turn
//! and message open, and then ends with `agent_end` alone. `agent_end` with `willRetry` (or an
//! `auto_retry_start` after it) is not the end: the retry's `agent_start` goes on with the same
//! run. Session events (`queue_update`, compaction, retries) may come between runs; for a
//! supervisor, a compaction under way after a run's end (`compaction_start` … `compaction_end`)
//! means the process is not done. Forks add types: the ones this module does not know are
//! information. State is owned and bounded. It must not print. Beside it: the views of its
//! records (`view`), the shapes their fields must have (`shape`), the checks of its messages
//! (`message`) and of its tool executions (`tools`).

use super::{
    Agent, Calls, Emit, Progress, Sink, Want, expect, line_pos, parse_timestamp, require,
    unfinished,
};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::session_start;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;

pub mod log;
mod message;
mod shape;
mod tools;
pub mod view;

use crate::rules::messages::{
    self, AfterEnd, EventType, Opening, Orphan, Pairing, Reopened, Unended,
};
use shape::{array, compaction_end, message};
pub use view::Line;
use view::{Head, Message, message_of};

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_execution_start`",
    closer: "`tool_execution_end`",
    key: "`toolCallId`",
    before: None,
};

/// The event types of `--mode json` Pi is known to write: `AgentEvent`, the session header and
/// `AgentSessionEvent`'s own (older versions name compaction `auto_compaction_*`). Others are
/// `unknown-event-type` information: forks add theirs.
pub const TYPES: &[&str] = &[
    "session",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "queue_update",
    "compaction_start",
    "compaction_end",
    "auto_compaction_start",
    "auto_compaction_end",
    "auto_retry_start",
    "auto_retry_end",
    "session_info_changed",
    "thinking_level_changed",
    "model_changed",
];

/// Event types no other agent writes: a mark of Pi's, for detection and for the finding of a
/// mixed stream. (`session` is not one alone: the header marks with its numeric `version`.)
pub const OWN_TYPES: &[&str] = &[
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "compaction_start",
    "compaction_end",
    "auto_compaction_start",
    "auto_compaction_end",
    "auto_retry_start",
    "auto_retry_end",
];

/// The types that name Pi in another agent's stream.
pub const TYPE_NAMES: Types = Types {
    own: &[OWN_TYPES],
    own_prefixes: &[],
    shared: &[],
};

/// The events that belong inside a run (`agent_start` … `agent_end`).
const RUN_TYPES: &[&str] = &[
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
];

/// The `stopReason`s of pi-ai's `StopReason`.
const STOP_REASONS: &[&str] = &["stop", "length", "toolUse", "error", "aborted"];

/// How strongly a record is Pi's (see `agents::detect`): one of its own types, or the session
/// header (`type: "session"` with a numeric `version`).
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    super::count_marks(&[marked(ty, &s.version)])
}

/// Pi's mark: one of its own types, or its session header.
pub(super) fn marked(ty: &str, version: &Field<'_>) -> bool {
    OWN_TYPES.contains(&ty) || (ty == "session" && version.json_type() == Some(JsonType::Number))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Before,
    /// A run began on this line.
    Open(u64),
    /// The run that began on `since` had an `agent_end` on `at` that announced a retry: its
    /// next `agent_start` goes on with it.
    Retrying { since: u64, at: u64 },
    /// The run ended on this line.
    Ended(u64),
    /// Events of a run came after the run that ended on this line without a new one (reported
    /// once).
    Stray(u64),
}

/// Whose message a `message_start` opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
    ToolResult,
    Other,
}

impl Role {
    fn of(role: Option<&str>) -> Role {
        match role {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("toolResult") => Role::ToolResult,
            _ => Role::Other,
        }
    }
}

/// The checker of one Pi stream.
#[derive(Default)]
pub struct Validator {
    state: State,
    pub(super) calls: Calls,
    last_line: u64,
    mixed: bool,
    /// A `missing-init` was said for this stream's run without `agent_start`.
    said_no_start: bool,
    /// The line of the session header no run has followed yet: a stream that ends there is a
    /// run that never started.
    header_only: Option<u64>,
    /// The turn under way: the line of its `turn_start`.
    turn: Option<u64>,
    /// The message under way: the line of its `message_start`, and whose it is.
    message: Option<(u64, Role)>,
    /// The message under way had text (thinking) deltas: its `message_end` does not repeat
    /// them in the common form.
    text_deltas: bool,
    thinking_deltas: bool,
    /// The last record was a delta of this kind and content block: a delta continues the text
    /// in the common form only after one of its own block; the first begins it.
    last_piece: Option<(Kind, Option<u64>)>,
    /// The piece the record being read is, if it is one.
    this_piece: Option<(Kind, Option<u64>)>,
    /// The session id of the header (a bounded prefix).
    session: String,
    /// The header said the common `session_start` of the run that comes next.
    started: bool,
    /// The run's cost so far: the sum of its assistant messages'.
    cost: Option<f64>,
    /// The last assistant message of the run: its `stopReason` went well (`stop`), and its
    /// `errorMessage` (bounded).
    last_ok: Option<bool>,
    last_error: String,
    /// The text of the run's last assistant message, for the common `end` (kept only for
    /// common events).
    answer: super::Answer,
    /// A compaction is under way (after a run's end Pi may summarise the session before it
    /// exits): the process is not done.
    compacting: bool,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        matches!(self.state, State::Ended(_) | State::Stray(_)) && !self.compacting
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
        self.ty.as_str().is_some_and(|t| marked(t, &self.version))
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
        let ty = match cx.known_type(
            line.shape,
            line.ty.as_str(),
            Agent::Pi,
            TYPES,
            &mut self.mixed,
            &mut self.last_line,
        ) {
            Ok(ty) => ty,
            Err(shape) => return shape,
        };
        let Cx {
            pos,
            bytes,
            arena,
            emit,
            mut sink,
            ..
        } = cx;
        if RUN_TYPES.contains(&ty) {
            self.inside_run(pos, bytes, ty, &mut sink, emit);
        }
        self.last_line = pos.line;
        self.last_piece = self.this_piece.take();
        match ty {
            "session" => self.header(pos, bytes, line, emit, &mut sink),
            "agent_start" => self.agent_start(pos, bytes, &mut sink, emit),
            "agent_end" => self.agent_end(pos, bytes, line, arena, emit, &mut sink),
            "turn_start" => self.turn_start(pos, bytes, emit),
            "turn_end" => self.turn_end(pos, bytes, line, arena, emit),
            "message_start" => self.message_start(pos, bytes, line, arena, emit),
            "message_update" => self.message_update(pos, bytes, line, emit, &mut sink),
            "message_end" => self.message_end(pos, bytes, line, arena, emit, &mut sink),
            "tool_execution_start" => self.tool_start(pos, bytes, line, emit, &mut sink),
            "tool_execution_update" => self.tool_update(pos, bytes, line, emit),
            "tool_execution_end" => self.tool_end(pos, bytes, line, arena, emit, &mut sink),
            "auto_retry_start" => self.retry_start(pos, bytes, line, emit),
            "auto_retry_end" => self.retry_end(pos, bytes, line, emit, &mut sink),
            "compaction_start" | "auto_compaction_start" => {
                self.compacting = true;
                expect(
                    line.reason.json_type(),
                    Want::Str,
                    false,
                    pos,
                    bytes,
                    &["reason"],
                    emit,
                );
            }
            "compaction_end" | "auto_compaction_end" => {
                self.compacting = false;
                compaction_end(pos, bytes, line, emit);
            }
            "queue_update" => {
                for (name, f) in [("steering", &line.steering), ("followUp", &line.follow_up)] {
                    array(f, false, "a `queue_update`", name, pos, bytes, emit);
                }
            }
            _ => {}
        }
        None
    }

    fn finish(&mut self, emit: Emit<'_>) {
        if let (State::Before, Some(at)) = (self.state, self.header_only) {
            if !self.calls.unreadable_after(self.last_line) {
                emit(Diagnostic::from_message(
                    line_pos(self.last_line),
                    messages::missing_result(&Unended::new(
                        Agent::Pi.display_name(),
                        "session",
                        Some(at),
                        "run (`agent_start` … `agent_end`)",
                    )
                    .note("a process that stopped after its session header never ran (it failed to start, or was killed)")),
                ));
            }
            return;
        }
        let (since, note) = match self.state {
            State::Open(since) => (since, None),
            State::Retrying { since, at } => (
                since,
                Some(format!(
                    "the `agent_end` of line {at} announced a retry, whose `agent_start` never came: the run was cut off while it waited"
                )),
            ),
            _ => return,
        };
        // Not when the last record could not be read: it may have been the `agent_end`.
        if !self.calls.unreadable_after(self.last_line) {
            emit(Diagnostic::from_message(
                line_pos(self.last_line),
                messages::missing_result(
                    &Unended::new(Agent::Pi.display_name(), "run", Some(since), "`agent_end`")
                        .note(note.as_deref()),
                ),
            ));
        }
        for call in self.calls.drain() {
            emit(unfinished(&call, &PAIRING));
        }
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

impl Validator {
    /// An event that belongs inside a run: before any `agent_start` it is `missing-init` (once;
    /// the run is taken to have begun), after `agent_end` it is `event-after-result` (once).
    fn inside_run(
        &mut self,
        pos: Position,
        bytes: &[u8],
        ty: &str,
        sink: &mut Sink<'_, '_>,
        emit: Emit<'_>,
    ) {
        match self.state {
            State::Open(_) | State::Retrying { .. } | State::Stray(_) => {}
            State::Before => {
                if !std::mem::replace(&mut self.said_no_start, true)
                    // Not after a record that could not be read: it may have been the start.
                    && !self.calls.unreadable_seen()
                {
                    emit(
                        Diagnostic::from_message(
                            pos,
                            messages::missing_init(&Opening {
                                agent: Agent::Pi.display_name(),
                                unit: "run",
                                first: EventType::of(ty),
                                opener: "`agent_start`",
                                aside: Some("a run is one prompt"),
                            }),
                        )
                        .with_snippet(bytes),
                    );
                }
                self.begin(pos, sink);
            }
            State::Ended(at) => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::event_after_result(&AfterEnd {
                            agent: Agent::Pi.display_name(),
                            unit: "run",
                            record: EventType::of(ty),
                            end: "`agent_end`",
                            ended: at,
                            next: Some("`agent_start` (the next prompt)"),
                        }),
                    )
                    .with_snippet(bytes),
                );
                self.state = State::Stray(at);
            }
        }
    }

    /// A run begins: the common `session_start`, unless the header just said it.
    fn begin(&mut self, pos: Position, sink: &mut Sink<'_, '_>) {
        self.state = State::Open(pos.line);
        self.header_only = None;
        self.reset_run();
        if !std::mem::take(&mut self.started) {
            self.session_start(pos, None, sink);
        }
    }

    fn session_start(&self, pos: Position, ms: Option<u64>, sink: &mut Sink<'_, '_>) {
        if let Some(sink) = sink {
            let id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
            sink(&session_start(Agent::Pi, pos.line, id, None, ms));
        }
    }

    fn reset_run(&mut self) {
        self.turn = None;
        self.message = None;
        self.cost = None;
        self.last_ok = None;
        self.last_error.clear();
        self.answer.clear();
    }

    /// The session header: the first line of a `pi` process's stream, and the common
    /// `session_start` of its first run (a stream of the header alone is a session that never
    /// ran).
    fn header(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a session header";
        require(
            line.id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["id"],
            emit,
        );
        for (name, f, want) in [
            ("version", &line.version, Want::Num),
            ("timestamp", &line.timestamp, Want::Str),
            ("cwd", &line.cwd, Want::Str),
            ("parentSession", &line.parent_session, Want::Str),
        ] {
            expect(f.json_type(), want, false, pos, bytes, &[name], emit);
        }
        if let State::Open(since) | State::Retrying { since, .. } = self.state {
            let reopened =
                Reopened::new(Agent::Pi.display_name(), "run", "session header", since, "`agent_end`")
                    .note("a session header opens the stream of one `pi` process: the run before it was cut off (were two captures concatenated?)");
            emit(
                Diagnostic::from_message(pos, messages::duplicate_init(&reopened))
                    .with_related(since, "that run began here")
                    .with_snippet(bytes),
            );
            self.calls.drain();
            self.state = State::Before;
        }
        self.session.clear();
        if let Some(id) = line.id.as_str() {
            self.session.push_str(super::id_prefix(id));
        }
        let ms = line.timestamp.as_str().and_then(parse_timestamp);
        self.session_start(pos, ms, sink);
        self.started = true;
        self.header_only = Some(pos.line);
    }

    fn agent_start(
        &mut self,
        pos: Position,
        bytes: &[u8],
        sink: &mut Sink<'_, '_>,
        emit: Emit<'_>,
    ) {
        match self.state {
            State::Open(at) => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::duplicate_init(
                            &Reopened::new(
                                Agent::Pi.display_name(),
                                "run",
                                "`agent_start`",
                                at,
                                "`agent_end`",
                            )
                            .note("the run before was cut off"),
                        ),
                    )
                    .with_related(at, "the run began here")
                    .with_snippet(bytes),
                );
                self.calls.drain();
                self.begin(pos, sink);
            }
            // The retry goes on with the run its `agent_end` announced it for.
            State::Retrying { since, .. } => {
                self.state = State::Open(since);
                self.turn = None;
                self.message = None;
            }
            State::Before | State::Ended(_) | State::Stray(_) => self.begin(pos, sink),
        }
    }

    /// The run's outcome: its last assistant message's (from `agent_end.messages`, else from
    /// the last `message_end`): whether it stopped well, and its error.
    fn outcome<'a>(
        &self,
        line: &Line<'a>,
        arena: &'a Bump,
    ) -> (vocab::Outcome, Option<Cow<'a, str>>) {
        if let Some(raw) = line.messages.get() {
            let mut all = bumpalo::collections::Vec::new_in(arena);
            super::parse_array::<Head<'a>>(raw, arena, &mut all);
            if let Some(last) = all
                .iter()
                .rev()
                .find(|m| m.role.as_str() == Some("assistant"))
            {
                let stop = last.stop_reason.as_str();
                let error = last.error_message.to_cow().or_else(|| {
                    stop.filter(|s| *s != "stop")
                        .map(|s| Cow::Owned(format!("Request {s}")))
                });
                let outcome = match stop {
                    Some("stop") => vocab::Outcome::Completed,
                    Some("aborted") => vocab::Outcome::Cancelled,
                    _ => vocab::Outcome::Failed,
                };
                return (outcome, error);
            }
        }
        let error = (!self.last_error.is_empty()).then(|| Cow::Owned(self.last_error.clone()));
        (vocab::Outcome::of_ok(self.last_ok), error)
    }

    /// `orphan-completion`: an `agent_end` that went well with no run open.
    #[cold]
    fn stray_end(&mut self, pos: Position, bytes: &[u8], emit: Emit<'_>) {
        if !self.calls.unreadable_seen() {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::orphan_completion(&Orphan::unpaired(
                        Agent::Pi.display_name(),
                        "`agent_end`",
                        "`agent_start`",
                        "`agent_end`",
                    )),
                )
                .with_snippet(bytes),
            );
        }
        self.state = State::Ended(pos.line);
    }

    /// `missing-result`: the turn or message still open when a run that went well ends.
    #[cold]
    fn left_open(&self, pos: Position, bytes: &[u8], emit: Emit<'_>) {
        let left = [
            self.turn.map(|at| (at, "turn", "`turn_end`")),
            self.message.map(|(at, _)| (at, "message", "`message_end`")),
        ];
        for (at, unit, closes) in left.into_iter().flatten() {
            let unended = Unended::new(Agent::Pi.display_name(), unit, Some(at), closes)
                .cut_by("`agent_end`")
                .note("in a run that went well every `turn_start` has its `turn_end` and every `message_start` its `message_end` before `agent_end`");
            emit(
                Diagnostic::from_message(pos, messages::missing_result(&unended))
                    .with_related(at, "opened here")
                    .with_snippet(bytes),
            );
        }
    }

    fn agent_end<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        array(
            &line.messages,
            true,
            "an `agent_end`",
            "messages",
            pos,
            bytes,
            emit,
        );
        expect(
            line.will_retry.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["willRetry"],
            emit,
        );
        let (outcome, error) = self.outcome(line, arena);
        let ok = outcome == vocab::Outcome::Completed;
        let since = match self.state {
            State::Open(since) | State::Retrying { since, .. } => since,
            // The end of the stray events said already.
            State::Stray(at) => {
                self.calls.drain();
                self.state = State::Ended(at);
                return;
            }
            // A run that fails before its loop starts writes `agent_end` alone.
            _ if !ok => {
                self.begin(pos, sink);
                pos.line
            }
            _ => {
                self.stray_end(pos, bytes, emit);
                return;
            }
        };
        if line.will_retry.as_bool() == Some(true) {
            // Not the end: the run goes on with the retry's `agent_start`.
            self.calls.drain();
            self.turn = None;
            self.message = None;
            self.state = State::Retrying {
                since,
                at: pos.line,
            };
            if let Some(sink) = sink {
                let mut ev = vocab::Event::new(Kind::Error, pos.line);
                ev.text = error;
                sink(&ev);
            }
            return;
        }
        let open = self.calls.drain();
        if ok {
            for call in open {
                emit(unfinished(
                    &call,
                    &Pairing {
                        before: Some("the run's `agent_end`"),
                        ..PAIRING
                    },
                ));
            }
            self.left_open(pos, bytes, emit);
        }
        self.turn = None;
        self.message = None;
        self.state = State::Ended(pos.line);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(ok);
            ev.outcome = Some(outcome);
            ev.session_id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
            ev.text = if ok { self.answer.text() } else { error };
            ev.cost_usd = self.cost;
            sink(&ev);
        }
    }

    fn turn_start(&mut self, pos: Position, bytes: &[u8], emit: Emit<'_>) {
        if let Some(at) = self.turn.replace(pos.line) {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::duplicate_init(
                        &Reopened::new(
                            Agent::Pi.display_name(),
                            "turn",
                            "`turn_start`",
                            at,
                            "`turn_end`",
                        )
                        .note("a turn is one model call and its tools"),
                    ),
                )
                .with_related(at, "that turn began here")
                .with_snippet(bytes),
            );
        }
    }

    fn turn_end<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
    ) {
        let m = message_of(&line.message, arena);
        let what = "a `turn_end`";
        if require(
            line.message.json_type(),
            Want::Obj,
            what,
            pos,
            bytes,
            &["message"],
            emit,
        ) {
            message(pos, bytes, &m, false, emit);
        }
        array(
            &line.tool_results,
            true,
            what,
            "toolResults",
            pos,
            bytes,
            emit,
        );
        if self.turn.take().is_none() && !self.calls.unreadable_seen() {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::orphan_completion(&Orphan::unpaired(
                        Agent::Pi.display_name(),
                        "`turn_end`",
                        "`turn_start`",
                        "`turn_end`",
                    )),
                )
                .with_snippet(bytes),
            );
        }
        // A turn's tools end before its `turn_end`, unless its message failed.
        let failed = matches!(m.stop_reason.as_str(), Some("error" | "aborted"));
        for call in self.calls.drain() {
            if !failed {
                emit(unfinished(
                    &call,
                    &Pairing {
                        before: Some("its turn's `turn_end`"),
                        ..PAIRING
                    },
                ));
            }
        }
    }

    fn retry_start(&mut self, pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
        for (name, f) in [
            ("attempt", &line.attempt),
            ("maxAttempts", &line.max_attempts),
            ("delayMs", &line.delay_ms),
        ] {
            if expect(f.json_type(), Want::Num, false, pos, bytes, &[name], emit) {
                super::expect_count(f, pos, bytes, &[name], emit);
            }
        }
        expect(
            line.error_message.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["errorMessage"],
            emit,
        );
        // Versions without `willRetry` announce the retry after the `agent_end`.
        if let State::Ended(at) = self.state {
            self.state = State::Retrying { since: at, at };
        }
    }

    fn retry_end(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        expect(
            line.success.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["success"],
            emit,
        );
        expect(
            line.attempt.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["attempt"],
            emit,
        );
        expect(
            line.final_error.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["finalError"],
            emit,
        );
        // The retries gave up before another run began: the run failed here.
        if line.success.as_bool() == Some(false)
            && let State::Retrying { .. } = self.state
        {
            self.state = State::Ended(pos.line);
            if let Some(sink) = sink {
                let mut ev = vocab::Event::new(Kind::End, pos.line);
                ev.ok = Some(false);
                ev.session_id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
                ev.text = line.final_error.to_cow();
                ev.cost_usd = self.cost;
                sink(&ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `lines` to a checker and says whether its run has ended after each.
    fn ended_after(lines: &[&str]) -> Vec<bool> {
        let mut v = Validator::default();
        let mut out = Vec::new();
        for (i, text) in lines.iter().enumerate() {
            let arena = Bump::new();
            let line: Line<'_> = super::super::parse(text, &arena).unwrap();
            let pos = Position {
                line: i as u64 + 1,
                ..Position::default()
            };
            let cx = Cx {
                pos,
                bytes: text.as_bytes(),
                json: text,
                arena: &arena,
                emit: &mut |_| {},
                sink: None,
            };
            super::super::Rules::check(&mut v, cx, &line);
            out.push(v.ended());
        }
        out
    }

    #[test]
    fn a_run_is_over_once_its_compaction_and_retries_are() {
        let end = r#"{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"stop"}]}"#;
        let retry = r#"{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"error","errorMessage":"529"}],"willRetry":true}"#;
        assert_eq!(
            ended_after(&[
                r#"{"type":"agent_start"}"#,
                end,
                r#"{"type":"compaction_start","reason":"threshold"}"#,
                r#"{"type":"compaction_end","reason":"threshold","aborted":false,"willRetry":false}"#,
            ]),
            [false, true, false, true]
        );
        assert_eq!(
            ended_after(&[
                r#"{"type":"agent_start"}"#,
                retry,
                r#"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"529"}"#,
                r#"{"type":"agent_start"}"#,
                end,
            ]),
            [false, false, false, false, true]
        );
    }
}
