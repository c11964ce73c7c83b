//! OpenCode's stream (`opencode run --format json`): its borrowed view, its checker, and its
//! mapping into the common vocabulary.
//!
//! This module owns what is true of OpenCode's stream only (see `agents/opencode.md` of the
//! format notes). Every line is `{type, timestamp, sessionID, …}` with `timestamp` in epoch
//! milliseconds (a number, not ISO-8601) and `sessionID` the run's root session. There is no
//! start event: a run opens with its first record and is a sequence of steps, each a
//! `step_start`, the parts that finished (`text`, `reasoning` behind `--thinking`, `tool_use`)
//! and one `step_finish`. A tool call is one `tool_use` written once it has ended (`completed`
//! or `error`): nothing pairs, but its `callID` is once a run. There is no terminal record
//! either: a run ends with a `step_finish` of reason `stop` and then the end of the input (or a
//! `done`, which one generation writes), or with an `error`. Usage is per step. The parts are
//! passed through from the server or synthesised, so only the keys the notes agree on are
//! required. State is owned and bounded. It must not print. Beside it: the checks of its steps
//! and of the ends of its runs (`steps`) and of its tool calls (`tools`).

use super::{Agent, Calls, Emit, Progress, Raw, Sink, Want, line_pos, require, view};
use crate::agents::Cx;
use crate::agents::Types;
use crate::agents::lifecycle::session_start;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::messages::{self, AfterEnd, EventType, SessionIds, Unended};
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;

mod steps;
mod tools;

view! {
    /// One line of the stream.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "sessionID" => session_id: Field<'a>,
        "part" => part: Part<'a>,
        "error" => error: ErrorObj<'a>,
        "reason" => reason: Field<'a>,
        "rejected" => rejected: Raw<'a>,
    }
}

view! {
    /// `part` of `step_start`, `text`, `reasoning`, `tool_use` and `step_finish`.
    pub struct Part<'a> {
        "id" => id: Field<'a>,
        "messageID" => message_id: Field<'a>,
        "type" => ty: Field<'a>,
        "text" => text: Raw<'a>,
        "callID" => call_id: Field<'a>,
        "tool" => tool: Field<'a>,
        "state" => state: ToolState<'a>,
        "reason" => reason: Field<'a>,
        "cost" => cost: Field<'a>,
        "tokens" => tokens: PartTokens<'a>,
    }
}

view! {
    /// `part.state` of a `tool_use`.
    pub struct ToolState<'a> {
        "status" => status: Field<'a>,
        "input" => input: Raw<'a>,
        "output" => output: Raw<'a>,
        "error" => error: Raw<'a>,
        "title" => title: Field<'a>,
        "time" => time: Time<'a>,
    }
}

view! {
    /// `time` of a tool state: epoch milliseconds.
    pub struct Time<'a> {
        "start" => start: Field<'a>,
        "end" => end: Field<'a>,
    }
}

view! {
    /// `part.tokens` of a `step_finish`: this step's, not the run's.
    pub struct PartTokens<'a> {
        "input" => input: Field<'a>,
        "output" => output: Field<'a>,
        "reasoning" => reasoning: Field<'a>,
        "total" => total: Field<'a>,
        "cache" => cache: Cache<'a>,
    }
}

view! {
    /// `part.tokens.cache`.
    pub struct Cache<'a> {
        "read" => read: Field<'a>,
        "write" => write: Field<'a>,
    }
}

view! {
    /// `error` of an `error` line: the server's `{name, data: {message}}`, or the newer
    /// `{type, message}`.
    pub struct ErrorObj<'a> {
        "name" => name: Field<'a>,
        "type" => ty: Field<'a>,
        "message" => message: Field<'a>,
        "data" => data: ErrorData<'a>,
    }
}

view! {
    /// `error.data`.
    pub struct ErrorData<'a> {
        "message" => message: Field<'a>,
    }
}

/// The event types of `run --format json` (the notes' §2). Others are `unknown-event-type` info.
pub const TYPES: &[&str] = &[
    "step_start",
    "text",
    "reasoning",
    "tool_use",
    "step_finish",
    "error",
    "done",
];

/// Event types no other agent writes, for the finding of a mixed stream.
pub const OWN_TYPES: &[&str] = &["step_start", "step_finish"];

/// The types that name OpenCode in another agent's stream, and the `tool_use` it shares with
/// Gemini CLI (told apart by its keys).
pub const TYPE_NAMES: Types = Types {
    own: &[OWN_TYPES],
    own_prefixes: &[],
    shared: &[&["tool_use"]],
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Before,
    /// A run began on this line.
    Open(u64),
    /// The run that began on `since` had its last step finish with reason `stop` on `at`: it
    /// ends there unless more of it follows.
    Stopped { since: u64, at: u64 },
    /// The run ended on this line (`done` or `error`); `failed` when by an `error`.
    Ended { at: u64, failed: bool },
    /// Events came after the run that ended on this line without a new one (reported once).
    Stray(u64),
}

/// How strongly a record is OpenCode's (see `agents::detect`): one of its types together with
/// the camel-case `sessionID` and a numeric `timestamp` (Gemini CLI's `tool_use` has an ISO
/// string and `session_id`; Grok Build's `text` neither).
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    super::count_marks(&[marked(ty, &s.session_id, &s.timestamp)])
}

/// OpenCode's mark: its type, `sessionID` and a number for `timestamp`.
pub(super) fn marked(ty: &str, session_id: &Field<'_>, timestamp: &Field<'_>) -> bool {
    TYPES.contains(&ty)
        && session_id.is_present()
        && timestamp.json_type() == Some(JsonType::Number)
}

/// The checker of one OpenCode stream.
#[derive(Default)]
pub struct Validator {
    state: State,
    pub(super) calls: Calls,
    last_line: u64,
    mixed: bool,
    /// The step under way: the line of its `step_start`.
    step: Option<u64>,
    /// The reason of the last `step_finish` of the run, when it was the run's last record, and
    /// its line (for a run whose last step stopped otherwise than with `stop`).
    last_finish: Option<(u64, bool)>,
    /// The time of the last `step_finish` (its `timestamp`): the time of the `end` a stopping
    /// step gives, which has no record of its own.
    finish_ms: Option<u64>,
    /// The run's session id (a bounded prefix).
    session: String,
    /// The run's cost so far (the sum of its steps'), for the common `end`.
    cost: Option<f64>,
    /// The id of the last `text` part, to join the pieces of a streamed one (bounded prefix).
    text_id: String,
    /// The text since the last tool call, for the common `end` (kept only for common events).
    answer: super::Answer,
    /// The run's common `end` was given (at its stopping `step_finish`, or its `done`).
    end_said: bool,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        matches!(
            self.state,
            State::Stopped { .. } | State::Ended { .. } | State::Stray(_)
        )
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
        self.ty
            .as_str()
            .is_some_and(|t| marked(t, &self.session_id, &self.timestamp))
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
            Agent::OpenCode,
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
            emit,
            mut sink,
            ..
        } = cx;
        let what = "an OpenCode event";
        let ms = if require(
            line.timestamp.json_type(),
            Want::Num,
            what,
            pos,
            bytes,
            &["timestamp"],
            emit,
        ) {
            line.timestamp.as_millis()
        } else {
            None
        };
        require(
            line.session_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["sessionID"],
            emit,
        );
        if self.lifecycle(pos, bytes, ty, line, emit, &mut sink) {
            self.begin(pos, line, ms, &mut sink);
        }
        self.last_line = pos.line;
        match ty {
            "step_start" => self.step_start(pos, bytes, line, emit),
            "text" | "reasoning" => {
                if self.text(pos, bytes, ty, line, emit) {
                    self.text_event(pos, ty, line, ms, &mut sink);
                }
            }
            "tool_use" => self.tool_use(pos, bytes, line, ms, emit, &mut sink),
            "step_finish" => {
                self.finish_ms = ms;
                self.step_finish(pos, bytes, line, emit, &mut sink);
            }
            "error" => self.error(pos, bytes, line, ms, emit, &mut sink),
            _ => self.done(pos, bytes, line, ms, emit, &mut sink),
        }
        if ty != "step_finish" {
            self.last_finish = None;
        }
        None
    }

    /// The input ended: the `end` of a run whose last step stopped, which has no record of its
    /// own (or one whose last step finished for another reason, which did not go well).
    fn finish_common(&mut self, sink: &mut dyn FnMut(&vocab::Event<'_>)) {
        let mut sink: Sink<'_, '_> = Some(sink);
        match (self.state, self.last_finish) {
            (State::Stopped { at, .. }, _) => self.end_stopped(at, None, &mut sink),
            (State::Open(_), Some((at, false))) => self.end_stopped(at, Some(false), &mut sink),
            _ => {}
        }
    }

    fn finish(&mut self, emit: Emit<'_>) {
        let State::Open(since) = self.state else {
            return;
        };
        // The last step finished for another reason than `stop` (said where it did).
        if matches!(self.last_finish, Some((_, false))) {
            return;
        }
        // Not when the last record could not be read: it may have been the `step_finish`.
        if self.calls.unreadable_after(self.last_line) {
            return;
        }
        let d = Diagnostic::from_message(
            line_pos(self.last_line),
            messages::missing_result(&Unended::new(
                Agent::OpenCode.display_name(),
                "run",
                Some(since),
                "`step_finish` of reason `stop` (or `error`)",
            )
            .note("a stream cut after `step_start` or a `tool-calls` step was killed or lost its last lines")),
        );
        emit(d);
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

impl Validator {
    /// A run opens with its first record. After its last step stopped, a `step_start` begins the
    /// next run (another `opencode run`, perhaps `--continue`d in the same session); any other
    /// record goes on with the run. After a `done` or an `error`, only a `step_start` begins a
    /// run (a `done` or another `error` after an `error` belongs to it). Whether the record
    /// begins a run, which the caller then begins ([`Validator::begin`]).
    fn lifecycle(
        &mut self,
        pos: Position,
        bytes: &[u8],
        ty: &str,
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) -> bool {
        match self.state {
            State::Before => return true,
            State::Open(_) => self.same_session(pos, bytes, line, emit),
            State::Stopped { since, at } => {
                if ty == "step_start" {
                    self.end_stopped(at, None, sink);
                    return true;
                } else if !matches!(ty, "done" | "error") {
                    // The run went on after a step that stopped: its end is still to come.
                    self.state = State::Open(since);
                    self.end_said = false;
                    self.same_session(pos, bytes, line, emit);
                }
            }
            State::Ended { .. } | State::Stray(_) if ty == "step_start" => return true,
            State::Ended { failed: true, .. } if matches!(ty, "done" | "error") => {}
            State::Stray(_) => {}
            State::Ended { at, .. } => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::event_after_result(&AfterEnd {
                            agent: Agent::OpenCode.display_name(),
                            unit: "run",
                            record: EventType::of(ty),
                            end: "`done` (or an `error`)",
                            ended: at,
                            next: Some("`step_start`"),
                        }),
                    )
                    .with_snippet(bytes),
                );
                self.state = State::Stray(at);
            }
        }
        false
    }

    fn begin(&mut self, pos: Position, line: &Line<'_>, ms: Option<u64>, sink: &mut Sink<'_, '_>) {
        self.state = State::Open(pos.line);
        self.step = None;
        self.cost = None;
        self.end_said = false;
        // A `callID` is once a run.
        self.calls.forget_seen();
        self.answer.clear();
        self.text_id.clear();
        self.session.clear();
        if let Some(id) = line.session_id.as_str() {
            self.session.push_str(super::id_prefix(id));
        }
        if let Some(sink) = sink {
            sink(&session_start(
                Agent::OpenCode,
                pos.line,
                line.session_id.to_cow(),
                None,
                ms,
            ));
        }
    }

    /// `sessionID` is the run's root session on every line.
    fn same_session(&self, pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
        let Some(id) = line.session_id.as_str() else {
            return;
        };
        if self.session.is_empty() || super::id_prefix(id) == self.session {
            return;
        }
        let d = Diagnostic::from_message(
            pos,
            messages::session_id_mismatch(&SessionIds {
                agent: Agent::OpenCode.display_name(),
                unit: "run",
                field: "`sessionID`",
                id,
                expected: &self.session,
                began: None,
                each: true,
                note: Some(
                    "the id of its root session (a subagent's parts are not written); a new run begins with `step_start` after the last step stopped",
                ),
            }),
        );
        emit(match crate::locate::value(bytes, &["sessionID"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        });
    }

    /// The common `end` of a run whose last step stopped (or finished otherwise, `ok` false),
    /// at the line of that `step_finish`.
    /// The run's common `end`, once: at the `step_finish` that stopped it, as soon as it is
    /// read (a supervisor learns there that the run is over), or at the end of the input.
    fn end_stopped(&mut self, at: u64, ok: Option<bool>, sink: &mut Sink<'_, '_>) {
        if std::mem::replace(&mut self.end_said, true) {
            return;
        }
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::End, at);
            ev.ok = Some(ok.unwrap_or(true));
            ev.session_id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
            ev.text = self.answer.text();
            ev.cost_usd = self.cost;
            ev.timestamp_ms = self.finish_ms;
            sink(&ev);
        }
    }

    fn part(
        &self,
        pos: Position,
        bytes: &[u8],
        what: &str,
        line: &Line<'_>,
        emit: Emit<'_>,
    ) -> bool {
        require(
            line.part.shape,
            Want::Obj,
            what,
            pos,
            bytes,
            &["part"],
            emit,
        )
    }

    /// The fields of a `text` or `reasoning` (`ty`): whether its `part` is an object, which its
    /// common event ([`Validator::text_event`]) is made of.
    fn text(&self, pos: Position, bytes: &[u8], ty: &str, line: &Line<'_>, emit: Emit<'_>) -> bool {
        let what = if ty == "text" {
            "a `text`"
        } else {
            "a `reasoning`"
        };
        if !self.part(pos, bytes, what, line, emit) {
            return false;
        }
        require(
            line.part.text.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["part", "text"],
            emit,
        );
        true
    }

    /// A `text` or `reasoning` (`ty`) in the common form, and the run's answer so far.
    fn text_event(
        &mut self,
        pos: Position,
        ty: &str,
        line: &Line<'_>,
        ms: Option<u64>,
        sink: &mut Sink<'_, '_>,
    ) {
        let Some(sink) = sink else {
            return;
        };
        // The text is read (unescaped) only for the common form, which alone needs it.
        let text = line.part.text.text();
        if ty == "text"
            && let Some(text) = &text
        {
            // Pieces of one streamed part share its id: they are one message.
            let id = line.part.id.as_str().map(super::id_prefix);
            if id.is_none() || id != Some(self.text_id.as_str()) {
                self.answer.clear();
                self.text_id.clear();
                self.text_id.push_str(id.unwrap_or_default());
            }
            self.answer.push(text);
        }
        let kind = if ty == "text" {
            Kind::AssistantText
        } else {
            Kind::Thinking
        };
        let mut ev = vocab::Event::new(kind, pos.line);
        ev.text = text;
        ev.timestamp_ms = ms;
        sink(&ev);
    }
}
