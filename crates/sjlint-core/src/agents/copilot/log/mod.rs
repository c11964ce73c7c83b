//! GitHub Copilot CLI's session logs (`~/.copilot/session-state/<id>/events.jsonl` since 1.0.x,
//! a flat `session-state/<id>.jsonl` in 0.0.4xx): their checker and their mapping into the
//! common vocabulary.
//!
//! This module owns what is true of the log only (see `agents/logs/copilot.md` of the format
//! notes). The log holds the session events the stream prints, in the same envelope (read with
//! the stream's own view, [`Line`]), less the transient ones (deltas) and without the stream's
//! CLI-only `result`: nothing is missing when a log stops anywhere (a tool started and never
//! completed is a killed process, not a defect). It adds types of its own: `session.start`
//! opens the file, `session.resume` goes on with it after a resume, `session.shutdown` closes a
//! run that exited cleanly. Types the notes do not name are the next version's, said as
//! information.
//!
//! Records chain by `parentId` to the record written just before them (`links`). Tools pair by
//! `toolCallId`: a completion of a call that neither started nor was requested by an
//! `assistant.message` is `orphan-completion` (0.0.4xx logs may lack the start of a requested
//! call); a call that starts before the message that requests it is said as information (the
//! notes show the order, from observed streams only). Ids an edited sample replaced by a
//! bracketed placeholder (`[trimmed for fixture]`) name nothing and are not checked.
//!
//! Tokens: only `session.shutdown` carries them, the session's totals (`shape::shutdown_tokens`:
//! `tokenDetails`, net of the cache, else the models' `usage` less their cache reads and
//! writes). A log without a shutdown (running, killed) has no input or cache counts, and none
//! are claimed. A resumed file may hold one shutdown a run; whether a later one repeats the
//! earlier runs is not known, so each counts as its own run's. State is owned and bounded. It
//! must not print.

mod links;

use super::shape::{ToolRequest, kind_of, object_shape, shapes, strings, text};
use super::{Data, KNOWN, Line, PAIRING, at, envelope, exit_code};
use crate::agents::{
    Agent, Calls, Cx, Opened, Progress, Sink, Want, id_prefix, over_budget, require,
};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use crate::rules::messages::{self, Id, Orphan};
use crate::rules::{RuleSet, Severity};
use crate::vocab::{self, Kind};
use std::borrow::Cow;
use std::collections::HashSet;

/// The types only the log writes (the notes' §2), with the words a finding names them by; the
/// stream's types (less its `result`) are the log's too.
pub const LOG_TYPES: &[(&str, &str)] = &[
    ("session.start", "a `session.start`"),
    ("session.resume", "a `session.resume`"),
    ("session.model_change", "a `session.model_change`"),
    ("session.truncation", "a `session.truncation`"),
    ("session.usage_checkpoint", "a `session.usage_checkpoint`"),
    (
        "session.auto_mode_resolved",
        "a `session.auto_mode_resolved`",
    ),
    ("system.message", "a `system.message`"),
    ("hook.start", "a `hook.start`"),
    ("hook.end", "a `hook.end`"),
];

/// At most this many requested tool calls are remembered until they start or complete.
const MAX_REQUESTED: usize = 4096;

/// The words of a type the log is known to write; `None` for any other.
fn known(ty: &str) -> Option<&'static str> {
    LOG_TYPES
        .iter()
        .chain(KNOWN.iter().filter(|(t, _)| *t != "result"))
        .find(|(t, _)| *t == ty)
        .map(|&(_, what)| what)
}

/// How strongly a record is a Copilot CLI session log's (see `agents::detect`): the envelope
/// the stream writes too (one mark, so that the log's other records weigh as much for it as
/// for the stream, and a tie of the two is the stream's), and a second on the types that open
/// and resume a log, which the stream does not print.
pub fn evidence(s: &crate::agents::Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return 0;
    };
    let envelope = ty != "result" && super::evidence(s) > 0;
    crate::agents::count_marks(&[
        envelope,
        envelope && matches!(ty, "session.start" | "session.resume"),
    ])
}

/// An id an edited file replaced by a placeholder (`[trimmed for fixture]`): it names nothing.
fn redacted(id: &str) -> bool {
    id.starts_with('[') && id.ends_with(']')
}

/// The checker of one session log.
#[derive(Default)]
pub struct Validator {
    links: links::Links,
    /// Tool calls started, for the pairing and for the name of their completion.
    calls: Calls,
    /// The `toolCallId`s (hashed) requested by an `assistant.message` and not started yet.
    requested: HashSet<u64>,
    /// `mixed-agents` was said (once per stream, by the shared helpers).
    mixed: bool,
    last_line: u64,
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

impl crate::agents::Rules for Validator {
    type Line<'a> = Line<'a>;

    fn new(_agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator::default();
        v.calls.set_max_open(max_open_calls);
        v
    }

    fn check<'a>(&mut self, mut cx: Cx<'a, '_>, line: &Line<'a>) -> Option<JsonType> {
        let ty = match cx.own_type(
            line.shape,
            line.ty.as_str(),
            Agent::CopilotLog,
            &mut self.mixed,
            &mut self.last_line,
        ) {
            Ok(ty) => ty,
            Err(shape) => return shape,
        };
        let (pos, bytes) = (cx.pos, cx.bytes);
        self.last_line = pos.line;
        let what = known(ty);
        if what.is_none() {
            (cx.emit)(crate::agents::unknown_type(
                Agent::CopilotLog,
                ty,
                pos,
                bytes,
            ));
        }
        self.ms = envelope(pos, bytes, line, cx.emit);
        self.links.link(pos, bytes, ty, line, cx.emit);
        let (Some(what), Some(JsonType::Object)) = (what, line.data.shape) else {
            return None;
        };
        let d = &line.data;
        strings(ty, d, what, false, (pos, bytes), cx.emit);
        shapes(ty, d, what, pos, bytes, cx.emit);
        self.payload(ty, d, cx);
        None
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

impl Validator {
    /// An event of the record being read, with its time.
    fn event<'e>(&self, kind: Kind, line: u64) -> vocab::Event<'e> {
        let mut ev = vocab::Event::new(kind, line);
        ev.timestamp_ms = self.ms;
        ev
    }

    fn payload<'a>(&mut self, ty: &str, d: &Data<'a>, mut cx: Cx<'a, '_>) {
        let line = cx.pos.line;
        match ty {
            "session.start" => {
                if let Some(sink) = cx.sink {
                    let mut ev = self.event(Kind::SessionStart, line);
                    ev.agent = Some(Agent::CopilotLog.as_str());
                    ev.session_id = d.session_id.to_cow();
                    ev.cwd = d.context.cwd.to_cow();
                    ev.model = d.selected_model.to_cow();
                    sink(&ev);
                }
            }
            "user.message" => self.said(Kind::UserPrompt, d, &mut cx.sink, line),
            "assistant.message" => {
                self.requests(&mut cx, d);
                self.said(Kind::AssistantText, d, &mut cx.sink, line);
            }
            "assistant.reasoning" => self.said(Kind::Thinking, d, &mut cx.sink, line),
            "session.error" => {
                if let Some(sink) = cx.sink {
                    let mut ev = self.event(Kind::Error, line);
                    ev.text = d.message.to_cow();
                    sink(&ev);
                }
            }
            "session.shutdown" => {
                if let Some(sink) = cx.sink
                    && let Some(t) = super::shape::shutdown_tokens(d, cx.arena)
                {
                    let mut ev = self.event(Kind::Usage, line);
                    ev.usage = Some(t);
                    sink(&ev);
                }
            }
            "tool.execution_start" => self.tool_start(cx, d),
            "tool.execution_complete" => self.tool_complete(cx, d),
            _ => {}
        }
    }

    /// What the user, the assistant or its reasoning said, whole (the log keeps no pieces).
    fn said(&self, kind: Kind, d: &Data<'_>, sink: &mut Sink<'_, '_>, line: u64) {
        let Some(sink) = sink.as_deref_mut() else {
            return;
        };
        let Some(text) = d.content.text().filter(|t| !t.is_empty()) else {
            return;
        };
        let mut ev = self.event(kind, line);
        ev.text = Some(text);
        ev.parent = d.parent_tool_call_id.to_cow();
        sink(&ev);
    }

    /// The calls an `assistant.message` requests: remembered until they start or complete; a
    /// call started already is said as information.
    fn requests<'a>(&mut self, cx: &mut Cx<'a, '_>, d: &Data<'a>) {
        super::shape::tool_requests((cx.pos, cx.bytes), d, false, cx.arena, cx.emit);
        let Some(raw) = d.tool_requests.get() else {
            return;
        };
        let mut reqs = bumpalo::collections::Vec::new_in(cx.arena);
        crate::agents::parse_array::<ToolRequest<'a>>(raw, cx.arena, &mut reqs);
        for r in &reqs {
            let Some(id) = r.tool_call_id.as_str().filter(|id| !redacted(id)) else {
                continue;
            };
            if self.calls.is_open(id) {
                (cx.emit)(started_early(cx.pos, cx.bytes, id));
            } else if self.requested.len() < MAX_REQUESTED {
                self.requested
                    .insert(crate::agents::chain::hash(id_prefix(id)));
            }
        }
    }

    fn tool_start<'a>(&mut self, cx: Cx<'a, '_>, d: &Data<'a>) {
        let (pos, bytes) = (cx.pos, cx.bytes);
        let Some(id) = d.tool_call_id.as_str() else {
            return;
        };
        self.requested
            .remove(&crate::agents::chain::hash(id_prefix(id)));
        let name = d.tool_name.as_str().unwrap_or("?");
        match self.calls.open_at(id, pos, bytes, name, self.ms) {
            Opened::Ok => {}
            // A placeholder stands for several ids.
            Opened::AlreadyOpen(_) if redacted(id) => {}
            Opened::AlreadyOpen(at_line) => {
                let diag = Diagnostic::from_message(
                    pos,
                    messages::duplicate_call_id(PAIRING.opener, Id::Text(id), true, None),
                )
                .with_related(at_line, "opened here");
                (cx.emit)(at(diag, bytes, &["data", "toolCallId"]));
            }
            Opened::OverBudget(max) => {
                if let Some(diag) = over_budget(pos, "tool calls", max) {
                    (cx.emit)(diag);
                }
            }
        }
        if let Some(sink) = cx.sink {
            let mut ev = self.event(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(kind_of(name, d.mcp_server_name.is_present()));
            ev.args = d.arguments.0;
            ev.parent = d.parent_tool_call_id.to_cow();
            sink(&ev);
        }
    }

    fn tool_complete<'a>(&mut self, cx: Cx<'a, '_>, d: &Data<'a>) {
        let (pos, bytes, emit) = (cx.pos, cx.bytes, cx.emit);
        let what = "a `tool.execution_complete`";
        let ok = require(
            d.success.json_type(),
            Want::Bool,
            what,
            pos,
            bytes,
            &["data", "success"],
            emit,
        )
        .then(|| d.success.as_bool())
        .flatten();
        if object_shape(d.result.shape, pos, bytes, &["data", "result"], emit) {
            let path = ["data", "result", "content"];
            text(&d.result.content, false, what, pos, bytes, &path, emit);
        }
        let Some(id) = d.tool_call_id.as_str() else {
            return;
        };
        let open = self.calls.close(id);
        let requested = self
            .requested
            .remove(&crate::agents::chain::hash(id_prefix(id)));
        if open.is_none()
            && !requested
            && !redacted(id)
            && !self.calls.unreadable_seen()
            && let Some(again) = self.calls.was_seen(id)
        {
            let diag = Diagnostic::from_message(
                pos,
                messages::orphan_completion(&Orphan::call(
                    Agent::CopilotLog.display_name(),
                    "`tool.execution_complete`",
                    id,
                    again,
                    &PAIRING,
                )),
            );
            emit(at(diag, bytes, &["data", "toolCallId"]));
        }
        // A completion whose start the log lacks cannot be paired in the common form: left out.
        let (Some(sink), Some(c)) = (cx.sink, open) else {
            return;
        };
        let mut ev = self.event(Kind::ToolEnd, pos.line);
        ev.call_id = Some(Cow::Borrowed(id));
        ev.duration_ms = c.start_ms.zip(self.ms).map(|(a, b)| b.saturating_sub(a));
        let name = self.calls.name(&c).to_owned();
        ev.tool_kind = Some(kind_of(&name, false));
        ev.name = Some(Cow::Owned(name));
        if ev.tool_kind == Some("shell") {
            ev.exit_code = exit_code(bytes);
        }
        ev.ok = Some(ok != Some(false) && ev.exit_code.is_none_or(|c| c == 0));
        ev.text = if ok == Some(false) {
            d.error.message.text().or_else(|| d.result.content.text())
        } else {
            d.result.content.text()
        };
        ev.parent = d.parent_tool_call_id.to_cow();
        sink(&ev);
    }
}

/// A call that starts before the `assistant.message` requesting it: information, since the
/// order is observed on streams only.
#[cold]
fn started_early(pos: Position, bytes: &[u8], id: &str) -> Diagnostic {
    let mut d = Diagnostic::from_message(
        pos,
        messages::requested_after_start(Agent::CopilotLog.display_name(), id),
    );
    d.severity = Severity::Info;
    at(d, bytes, &["data", "toolRequests"])
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
    fn a_logs_opening_is_its_own_and_the_shared_envelope_the_streams() {
        assert_eq!(
            decides(
                r#"{"type":"session.start","data":{"sessionId":"s","version":1},"id":"e1","timestamp":"2026-03-02T10:00:00.000Z","parentId":null}"#
            ),
            Some(Agent::CopilotLog)
        );
        assert_eq!(
            decides(
                r#"{"type":"session.resume","data":{"eventCount":3},"id":"e4","timestamp":"2026-03-02T10:00:00.000Z","parentId":"e3"}"#
            ),
            Some(Agent::CopilotLog)
        );
        // The envelope both write: a tie, which is the stream's.
        assert_eq!(
            decides(
                r#"{"type":"assistant.message","data":{"messageId":"m","content":"hi"},"id":"e2","timestamp":"2026-03-02T10:00:00.000Z","parentId":"e1"}"#
            ),
            Some(Agent::Copilot)
        );
        assert_eq!(
            decides(
                r#"{"type":"result","timestamp":"2026-03-02T10:00:00.000Z","sessionId":"s","exitCode":0,"usage":{}}"#
            ),
            Some(Agent::Copilot)
        );
    }

    #[test]
    fn a_placeholder_names_nothing() {
        assert!(super::redacted("[trimmed for fixture]"));
        assert!(!super::redacted("e-0001"));
        assert!(!super::redacted("[e"));
    }
}
