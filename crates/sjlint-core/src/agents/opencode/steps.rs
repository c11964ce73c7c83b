//! OpenCode's steps and the ends of its runs: `step_start` and `step_finish` (its reason, cost
//! and tokens, and the stop that ends a run), and the `error` and `done` lines.

use super::{Line, PartTokens, State, Validator};
use crate::agents::{Agent, Emit, Sink, Want, count, expect, expect_count, require, wrong_type};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::messages::{self, Orphan, Reopened};
use crate::vocab::{self, Kind, Tokens};
use std::borrow::Cow;

impl Validator {
    pub(super) fn step_start(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
    ) {
        self.part(pos, bytes, "a `step_start`", line, emit);
        if let Some(at) = self.step.replace(pos.line) {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::duplicate_init(
                        &Reopened::new(
                            Agent::OpenCode.display_name(),
                            "step",
                            "`step_start`",
                            at,
                            "`step_finish`",
                        )
                        .note(
                            "a step left open means the stream lost a line or the run was cut off",
                        ),
                    ),
                )
                .with_related(at, "that step began here")
                .with_snippet(bytes),
            );
        }
    }

    pub(super) fn step_finish(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `step_finish`";
        match self.step.take() {
            Some(_) => {}
            // Not after a record that could not be read: it may have been the `step_start`.
            None if self.calls.unreadable_seen() => {}
            None => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::orphan_completion(&Orphan::unpaired(
                            Agent::OpenCode.display_name(),
                            "`step_finish`",
                            "`step_start`",
                            "`step_finish`",
                        )),
                    )
                    .with_snippet(bytes),
                );
            }
        }
        if !self.part(pos, bytes, what, line, emit) {
            return;
        }
        let p = &line.part;
        require(
            p.reason.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["part", "reason"],
            emit,
        );
        expect(
            p.cost.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["part", "cost"],
            emit,
        );
        let t = &p.tokens;
        tokens(t, pos, bytes, emit);
        if let Some(cost) = p.cost.as_f64() {
            self.cost = Some(self.cost.unwrap_or(0.0) + cost);
        }
        let reason = p.reason.as_str();
        // `tool-calls`: the run goes on with the next step.
        if reason != Some("tool-calls") {
            self.last_finish = Some((pos.line, reason == Some("stop")));
        }
        if let Some(r) = reason
            && !matches!(r, "stop" | "tool-calls")
        {
            other_reason(r, pos, bytes, emit);
        }
        let mut stopped = false;
        if reason == Some("stop")
            && let State::Open(since) = self.state
        {
            self.state = State::Stopped {
                since,
                at: pos.line,
            };
            stopped = true;
        }
        if let Some(sink) = sink.as_deref_mut()
            && t.shape == Some(JsonType::Object)
        {
            let n = |f: &Field<'_>| count(f).unwrap_or(0);
            let mut ev = vocab::Event::new(Kind::Usage, pos.line);
            // OpenCode's `output` leaves out the reasoning (its `total` adds both): the common
            // form's output is everything the model wrote, reasoning a part of it.
            let reasoning = n(&t.reasoning);
            ev.usage = Some(Tokens {
                input: n(&t.input),
                output: n(&t.output).saturating_add(reasoning),
                cache_read: n(&t.cache.read),
                cache_write: n(&t.cache.write),
                reasoning,
            });
            // This step's part of the run's cost, known now (the `end` says the sum).
            ev.cost_usd = p.cost.as_f64();
            ev.timestamp_ms = self.finish_ms;
            sink(&ev);
        }
        if stopped {
            self.end_stopped(pos.line, None, sink);
        }
    }

    pub(super) fn error(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let e = &line.error;
        if require(
            e.shape,
            Want::Obj,
            "an `error`",
            pos,
            bytes,
            &["error"],
            emit,
        ) {
            // Both shapes: `{name, data: {message}}` and `{type, message}`.
            for (path, f) in [
                (&["error", "name"][..], &e.name),
                (&["error", "type"][..], &e.ty),
                (&["error", "message"][..], &e.message),
            ] {
                expect(f.json_type(), Want::Str, false, pos, bytes, path, emit);
            }
            if expect(
                e.data.shape,
                Want::Obj,
                false,
                pos,
                bytes,
                &["error", "data"],
                emit,
            ) {
                expect(
                    e.data.message.json_type(),
                    Want::Str,
                    false,
                    pos,
                    bytes,
                    &["error", "data", "message"],
                    emit,
                );
            }
        }
        let was_ended = matches!(self.state, State::Ended { failed: true, .. });
        // A failed run may leave its step without `step_finish`.
        self.step = None;
        if !matches!(self.state, State::Stray(_)) {
            self.state = State::Ended {
                at: pos.line,
                failed: true,
            };
        }
        if let Some(sink) = sink {
            let text = e
                .data
                .message
                .to_cow()
                .or_else(|| e.message.to_cow())
                .or_else(|| e.name.to_cow())
                .or_else(|| e.ty.to_cow());
            let mut ev = vocab::Event::new(Kind::Error, pos.line);
            ev.text.clone_from(&text);
            ev.timestamp_ms = ms;
            sink(&ev);
            if !was_ended {
                let mut ev = vocab::Event::new(Kind::End, pos.line);
                ev.ok = Some(false);
                ev.reason = e.name.to_cow().or_else(|| e.ty.to_cow());
                if ev.reason.as_deref() == Some("MessageAbortedError") {
                    ev.outcome = Some(vocab::Outcome::Cancelled);
                }
                ev.session_id = (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
                ev.text = text;
                ev.cost_usd = self.cost;
                ev.timestamp_ms = ms;
                sink(&ev);
            }
        }
    }

    pub(super) fn done(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        expect(
            line.reason.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["reason"],
            emit,
        );
        match line.rejected.json_type() {
            None | Some(JsonType::Array) => {}
            Some(t) => emit(wrong_type(pos, bytes, &["rejected"], t, &[Want::Arr])),
        }
        match self.state {
            // After an `error`, which ended the run already.
            State::Ended { failed: true, .. } | State::Stray(_) => {}
            _ => {
                let ok = self.last_finish.is_none_or(|(_, stop)| stop);
                self.state = State::Ended {
                    at: pos.line,
                    failed: false,
                };
                self.step = None;
                if let Some(sink) = sink
                    && !std::mem::replace(&mut self.end_said, true)
                {
                    let mut ev = vocab::Event::new(Kind::End, pos.line);
                    ev.ok = Some(ok);
                    ev.session_id =
                        (!self.session.is_empty()).then_some(Cow::Borrowed(&*self.session));
                    ev.text = self.answer.text();
                    ev.cost_usd = self.cost;
                    ev.timestamp_ms = ms;
                    sink(&ev);
                }
            }
        }
    }
}

/// `part.tokens` of a `step_finish`: counts.
fn tokens(t: &PartTokens<'_>, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    if expect(
        t.shape,
        Want::Obj,
        false,
        pos,
        bytes,
        &["part", "tokens"],
        emit,
    ) {
        for (name, f) in [
            ("input", &t.input),
            ("output", &t.output),
            ("reasoning", &t.reasoning),
            ("total", &t.total),
        ] {
            let path = ["part", "tokens", name];
            if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
                expect_count(f, pos, bytes, &path, emit);
            }
        }
        if expect(
            t.cache.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["part", "tokens", "cache"],
            emit,
        ) {
            for (name, f) in [("read", &t.cache.read), ("write", &t.cache.write)] {
                let path = ["part", "tokens", "cache", name];
                if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
                    expect_count(f, pos, bytes, &path, emit);
                }
            }
        }
    }
}

/// A `step_finish` reason other than `stop` and `tool-calls`.
#[cold]
fn other_reason(r: &str, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    // The AI SDK's other reasons (`length`, `content-filter`, `error`, …) are not seen
    // in OpenCode's streams yet: said as information; if the step is the run's last,
    // the run ended there, not as a finished answer.
    let d = Diagnostic::from_message(
        pos,
        messages::unknown_subtype(&messages::Subtype {
            agent: Agent::OpenCode.display_name(),
            record: "`step_finish`",
            field: "reason",
            value: r,
            known: &["stop", "tool-calls"],
            note: Some(
                "a last step that ends otherwise than with `stop` ends the run without a finished answer (a length limit, a content filter or a provider error)",
            ),
        }),
    );
    emit(match crate::locate::value(bytes, &["part", "reason"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    });
}
