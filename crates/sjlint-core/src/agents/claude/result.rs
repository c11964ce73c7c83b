//! A Claude Code session's end: its `result` line read and checked (Qwen Code's too), and the
//! common `end` event it gives, with its outcome.

use super::{
    Bump, Diagnostic, Emit, JsonType, Kind, Line, Position, Profile, QWEN_RESULT_SUBTYPES, Sink,
    State, Validator, Want, blank, check_usage, expect, id_prefix, require, result_fields,
    set_bounded, tokens, vocab,
};
use crate::rules::messages;

impl Validator {
    pub(super) fn result<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `result` line";
        require(
            line.subtype.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["subtype"],
            emit,
        );
        require(
            line.is_error.json_type(),
            Want::Bool,
            what,
            pos,
            bytes,
            &["is_error"],
            emit,
        );
        expect(
            line.result.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["result"],
            emit,
        );
        expect(
            line.total_cost_usd.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["total_cost_usd"],
            emit,
        );
        expect(
            line.num_turns.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["num_turns"],
            emit,
        );
        expect(
            line.duration_ms.json_type(),
            Want::Num,
            false,
            pos,
            bytes,
            &["duration_ms"],
            emit,
        );
        if expect(
            line.usage.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["usage"],
            emit,
        ) {
            check_usage(&line.usage, pos, bytes, &["usage"], emit);
        }
        result_fields(pos, bytes, line, arena, emit);
        if self.profile == Profile::Qwen {
            self.qwen_result(pos, bytes, line, emit);
        }
        self.conversation(pos, bytes, "result", line, emit);
        if !std::mem::take(&mut self.did_something)
            && line.is_error.as_bool() != Some(true)
            && line.subtype.as_str().is_none_or(|s| s == "success")
            && blank(&line.result)
            && !self.calls.unreadable_seen()
        {
            let d = crate::agents::cursor::validate::did_nothing_finding(pos);
            emit(match crate::locate::value(bytes, &["result"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        self.close_calls(emit);
        self.state = State::Ended(pos.line);
        let reported = (line.usage.shape == Some(JsonType::Object)).then(|| tokens(&line.usage));
        let rest = self.spent.result(reported);
        if let Some(sink) = sink {
            if let Some(usage) = rest {
                let mut ev = self.event(Kind::Usage, pos.line);
                ev.usage = Some(usage);
                sink(&ev);
            }
            let ev = self.end_event(pos, line);
            sink(&ev);
        }
    }

    /// The common `end` of a `result`.
    pub(super) fn end_event<'l>(&mut self, pos: Position, line: &Line<'l>) -> vocab::Event<'l> {
        let mut ev = self.event(Kind::End, pos.line);
        // Claude Code 2.1 writes `subtype: "success"`, `is_error: false` for a turn that
        // died, and says how it ended in `terminal_reason`: `completed` is the healthy one.
        let terminal = line.terminal_reason.as_str();
        let is_error = line.is_error.as_bool() == Some(true);
        let outcome = vocab::Outcome::of_claude(
            line.subtype.as_str(),
            terminal,
            line.stop_reason.as_str(),
            is_error,
        );
        ev.ok = Some(!is_error && outcome.is_success());
        ev.outcome = Some(outcome);
        ev.reason = match (terminal, line.subtype.as_str()) {
            (Some(r), _) if r != "completed" => line.terminal_reason.to_cow(),
            (_, Some(st)) if st != "success" => line.subtype.to_cow(),
            _ => line.error.ty.to_cow(),
        };
        ev.denied = line
            .permission_denials
            .get()
            .and_then(|raw| serde_json::from_str::<Vec<serde::de::IgnoredAny>>(raw).ok())
            .map(|v| v.len() as u64)
            .filter(|&n| n > 0);
        ev.text = line.result.text().or_else(|| {
            (self.profile == Profile::Qwen)
                .then(|| line.error.message.to_cow())
                .flatten()
        });
        ev.duration_ms = crate::agents::count(&line.duration_ms);
        ev.session_id = line.session_id.to_cow();
        // `total_cost_usd` adds up over the sessions of one process (same session id).
        if let Some(cost) = line.total_cost_usd.as_f64() {
            let sid = line.session_id.as_str().map(id_prefix).unwrap_or_default();
            let same = sid == self.cost_session && cost >= self.cost_seen;
            ev.cost_usd = Some(if same { cost - self.cost_seen } else { cost });
            self.cost_seen = cost;
            set_bounded(&mut self.cost_session, sid);
        }
        ev
    }

    /// What Qwen Code's result has of its own: its subtypes, and `error{type?, message}` on an
    /// error result (Claude Code's has `errors`, strings).
    pub(super) fn qwen_result(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
    ) {
        if let Some(st) = line.subtype.as_str()
            && !QWEN_RESULT_SUBTYPES.contains(&st)
        {
            let d = Diagnostic::from_message(
                pos,
                messages::unknown_subtype(&messages::Subtype {
                    agent: self.agent().display_name(),
                    record: "a `result`",
                    field: "subtype",
                    value: st,
                    known: QWEN_RESULT_SUBTYPES,
                    note: Some("`is_error` still says whether the run failed"),
                }),
            );
            emit(match crate::locate::value(bytes, &["subtype"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
        }
        if expect(
            line.error.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["error"],
            emit,
        ) && line.error.shape == Some(JsonType::Object)
        {
            require(
                line.error.message.json_type(),
                Want::Str,
                "a result's `error`",
                pos,
                bytes,
                &["error", "message"],
                emit,
            );
            expect(
                line.error.ty.json_type(),
                Want::Str,
                false,
                pos,
                bytes,
                &["error", "type"],
                emit,
            );
        }
    }
}
