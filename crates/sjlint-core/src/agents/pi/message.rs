//! Pi's messages: `message_start`, `message_update` (the assistant's deltas) and `message_end`
//! (the whole message, its usage and cost, and the run's last outcome so far), and the finding
//! of an update or end with no message open.

use super::shape::message;
use super::view::{Line, content_text, message_of};
use super::{Role, Validator};
use crate::agents::{Agent, Emit, Sink, Want, count, expect, id_prefix, require};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::messages::{self, Orphan, Reopened};
use crate::vocab::{self, Kind, Tokens};
use bumpalo::Bump;

/// At most this many bytes of a failed run's `errorMessage` are kept for the common `end`.
const MAX_ERROR_BYTES: usize = 4096;

impl Validator {
    pub(super) fn message_start<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
    ) {
        let m = message_of(&line.message, arena);
        if require(
            line.message.json_type(),
            Want::Obj,
            "a `message_start`",
            pos,
            bytes,
            &["message"],
            emit,
        ) {
            message(pos, bytes, &m, false, emit);
        }
        let role = Role::of(m.role.as_str());
        if let Some((at, _)) = self.message.replace((pos.line, role)) {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::duplicate_init(&Reopened::new(
                        Agent::Pi.display_name(),
                        "message",
                        "`message_start`",
                        at,
                        "`message_end`",
                    )),
                )
                .with_related(at, "that message began here")
                .with_snippet(bytes),
            );
        }
        self.text_deltas = false;
        self.thinking_deltas = false;
    }

    /// A `message_update` or `message_end` with no message open: said, and the message taken
    /// to be open (its other events are not said again).
    fn no_message(&mut self, pos: Position, bytes: &[u8], ty: &str, emit: Emit<'_>) {
        if self.message.is_some() {
            return;
        }
        self.message = Some((pos.line, Role::Assistant));
        if !self.calls.unreadable_seen() {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::orphan_completion(
                        &Orphan::unpaired(
                            Agent::Pi.display_name(),
                            &format!("`{ty}`"),
                            "`message_start`",
                            "`message_end`",
                        )
                        .note("its updates come between the two"),
                    ),
                )
                .with_snippet(bytes),
            );
        }
    }

    pub(super) fn message_update(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `message_update`";
        // The growing message: its fields are checked on `message_end`. Pi since July 2026
        // writes the delta alone, with no `message`.
        expect(
            line.message.json_type(),
            Want::Obj,
            false,
            pos,
            bytes,
            &["message"],
            emit,
        );
        self.no_message(pos, bytes, "message_update", emit);
        let e = &line.event;
        if !require(
            e.shape,
            Want::Obj,
            what,
            pos,
            bytes,
            &["assistantMessageEvent"],
            emit,
        ) {
            return;
        }
        if !require(
            e.ty.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["assistantMessageEvent", "type"],
            emit,
        ) {
            return;
        }
        expect(
            e.content_index.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["assistantMessageEvent", "contentIndex"],
            emit,
        );
        let ty = e.ty.as_str().unwrap_or_default();
        let kind = match ty {
            "text_delta" => Some(Kind::AssistantText),
            "thinking_delta" => Some(Kind::Thinking),
            "toolcall_delta" => None,
            _ => return,
        };
        if !require(
            e.delta.json_type(),
            Want::Str,
            "a delta of a `message_update`",
            pos,
            bytes,
            &["assistantMessageEvent", "delta"],
            emit,
        ) {
            return;
        }
        let Some(kind) = kind else {
            return;
        };
        if kind == Kind::AssistantText {
            self.text_deltas = true;
        } else {
            self.thinking_deltas = true;
        }
        let piece = (kind, count(&e.content_index));
        self.this_piece = Some(piece);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(kind, pos.line);
            ev.text = e.delta.to_cow();
            ev.delta = self.last_piece == Some(piece);
            sink(&ev);
        }
    }

    pub(super) fn message_end<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        self.no_message(pos, bytes, "message_end", emit);
        self.message = None;
        if !require(
            line.message.json_type(),
            Want::Obj,
            "a `message_end`",
            pos,
            bytes,
            &["message"],
            emit,
        ) {
            return;
        }
        let m = &message_of(&line.message, arena);
        message(pos, bytes, m, true, emit);
        let role = Role::of(m.role.as_str());
        if role == Role::Assistant {
            let stop = m.stop_reason.as_str();
            self.last_ok = Some(stop == Some("stop"));
            self.last_error.clear();
            if let Some(e) = m.error_message.as_str() {
                let mut end = e.len().min(MAX_ERROR_BYTES);
                while !e.is_char_boundary(end) {
                    end -= 1;
                }
                self.last_error.push_str(&e[..end]);
            } else if let Some(s) = stop.filter(|s| *s != "stop" && *s != "toolUse") {
                self.last_error.push_str("Request ");
                self.last_error.push_str(id_prefix(s));
            }
            if let Some(cost) = m.usage.cost.total.as_f64() {
                self.cost = Some(self.cost.unwrap_or(0.0) + cost);
            }
        }
        let Some(sink) = sink else {
            return;
        };
        let ms = m.timestamp.as_millis();
        match role {
            Role::User => {
                let mut ev = vocab::Event::new(Kind::UserPrompt, pos.line);
                ev.text = content_text(&m.content, arena, false);
                ev.timestamp_ms = ms;
                sink(&ev);
            }
            Role::Assistant => {
                let text = content_text(&m.content, arena, false);
                self.answer.clear();
                if let Some(t) = &text {
                    self.answer.push(t);
                }
                // The deltas said the message already; else it is said whole, once.
                if !self.thinking_deltas
                    && let Some(t) = content_text(&m.content, arena, true)
                {
                    let mut ev = vocab::Event::new(Kind::Thinking, pos.line);
                    ev.text = Some(t);
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
                if !self.text_deltas && text.is_some() {
                    let mut ev = vocab::Event::new(Kind::AssistantText, pos.line);
                    ev.text = text;
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
                let u = &m.usage;
                if u.shape == Some(JsonType::Object) {
                    let n = |f: &Field<'_>| count(f).unwrap_or(0);
                    let mut ev = vocab::Event::new(Kind::Usage, pos.line);
                    ev.usage = Some(Tokens {
                        input: n(&u.input),
                        output: n(&u.output),
                        cache_read: n(&u.cache_read),
                        cache_write: n(&u.cache_write),
                        // Newer pi-ai versions say it, as part of `output`.
                        reasoning: n(&u.reasoning),
                    });
                    // This message's part of the run's cost, known now (the `end` says the sum).
                    ev.cost_usd = u.cost.total.as_f64();
                    sink(&ev);
                }
            }
            // A tool's result is said by its `tool_execution_end`.
            Role::ToolResult | Role::Other => {}
        }
        self.text_deltas = false;
        self.thinking_deltas = false;
    }
}
