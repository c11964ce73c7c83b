//! OpenCode's tool calls: a `tool_use`, written once when its call has ended, its `part.state`
//! (`completed` or `error`), and its `callID`, which is once a run.

use super::{Line, ToolState, Validator};
use crate::agents::{Emit, Opened, Sink, Want, expect, expect_count, over_budget, require};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::messages::{self, Id};
use crate::vocab::{self, Kind};
use std::borrow::Cow;

impl Validator {
    pub(super) fn tool_use(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_use`";
        // The text before a call is not the run's final answer.
        self.answer.clear();
        self.text_id.clear();
        if !self.part(pos, bytes, what, line, emit) {
            return;
        }
        let p = &line.part;
        require(
            p.tool.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["part", "tool"],
            emit,
        );
        let state = &p.state;
        let mut status = None;
        if require(
            state.shape,
            Want::Obj,
            what,
            pos,
            bytes,
            &["part", "state"],
            emit,
        ) {
            status = self.tool_state(pos, bytes, state, emit);
        }
        // OpenCode 2.0 names the call by the part's own `id`, and writes no `callID`.
        let id = match (p.call_id.is_present(), p.id.as_str()) {
            (false, Some(id)) => id,
            _ => {
                if !require(
                    p.call_id.json_type(),
                    Want::Str,
                    what,
                    pos,
                    bytes,
                    &["part", "callID"],
                    emit,
                ) {
                    return;
                }
                p.call_id.as_str().unwrap_or_default()
            }
        };
        let name = p.tool.as_str().unwrap_or("?");
        if self.calls.was_seen(id) == Some(true) {
            let d = Diagnostic::from_message(
                pos,
                messages::duplicate_call_id(
                    "`tool_use`",
                    Id::Text(id),
                    false,
                    Some(
                        "OpenCode writes each tool call once, when it has ended; a second `tool_use` with its `callID` repeats or overwrites it",
                    ),
                ),
            );
            emit(match crate::locate::value(bytes, &["part", "callID"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        } else {
            // Written once it has ended: remembered, not open.
            let start = state.time.start.as_millis();
            if let Opened::OverBudget(max) = self.calls.open_at(id, pos, bytes, name, start)
                && let Some(d) = over_budget(pos, "tool calls", max)
            {
                emit(d);
            }
            self.calls.close(id);
        }
        if let Some(sink) = sink {
            let kind = vocab::tool_kind(name);
            let start = state.time.start.as_millis();
            let end = state.time.end.as_millis();
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(kind);
            ev.args = state.input.0;
            ev.timestamp_ms = start.or(ms);
            sink(&ev);
            let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(kind);
            ev.ok = Some(status != Some(false));
            ev.text = state.output.text().or_else(|| state.error.text());
            ev.timestamp_ms = end.or(ms);
            ev.duration_ms = match (start, end) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                _ => None,
            };
            sink(&ev);
        }
    }

    /// `part.state` of a `tool_use`: `Some(true)` when `completed`, `Some(false)` when `error`.
    fn tool_state(
        &self,
        pos: Position,
        bytes: &[u8],
        state: &ToolState<'_>,
        emit: Emit<'_>,
    ) -> Option<bool> {
        let what = "a `tool_use`";
        require(
            state.input.json_type(),
            Want::Obj,
            what,
            pos,
            bytes,
            &["part", "state", "input"],
            emit,
        );
        if expect(
            state.time.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["part", "state", "time"],
            emit,
        ) {
            for (name, f) in [("start", &state.time.start), ("end", &state.time.end)] {
                let path = ["part", "state", "time", name];
                if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
                    expect_count(f, pos, bytes, &path, emit);
                }
            }
        }
        if !require(
            state.status.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["part", "state", "status"],
            emit,
        ) {
            return None;
        }
        let (ok, field, f) = match state.status.as_str() {
            Some("completed") => (true, "output", &state.output),
            Some("error") => (false, "error", &state.error),
            other => {
                let status = other.unwrap_or_default();
                let d = Diagnostic::from_message(
                    pos,
                    messages::malformed_tool_call(
                        messages::Malformed::Status {
                            record: "a `tool_use`",
                            field: "state.status",
                            value: status,
                            want: "`completed` or `error`",
                        },
                        Some(
                            "`opencode run --format json` writes a tool call only once it has ended; `pending` and `running` stay inside the server",
                        ),
                    ),
                );
                emit(
                    match crate::locate::value(bytes, &["part", "state", "status"]) {
                        Some(span) => d.at(bytes, span),
                        None => d.with_snippet(bytes),
                    },
                );
                return None;
            }
        };
        let what = if ok {
            "a completed `tool_use`"
        } else {
            "a failed `tool_use`"
        };
        require(
            f.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["part", "state", field],
            emit,
        );
        Some(ok)
    }
}
