//! The tokens and the end of a Copilot CLI run: the per-call tokens of `assistant.usage`, the
//! run's tokens from its one place (the calls', the session's totals, or its messages'), and
//! the run's `result` that ends it.

use super::shape::{RunUsage, count_field, run_usage};
use super::{Data, Line, PAIRING, Validator};
use crate::agents::{
    Cx, Emit, Sink, Want, count, expect, parse_into, require, unfinished, wrong_type,
};
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::Severity;
use crate::rules::messages::Pairing;
use crate::vocab::{self, Kind, Tokens};
use std::borrow::Cow;

/// The tokens of a run: its `assistant.usage` lines, each said as a `usage` event as it comes
/// (what `run`'s budgets act on); at its `session.shutdown`, what the session's totals have
/// beyond what those said; at its end, when it had no `assistant.usage`, what the output tokens
/// of its messages have beyond what was said.
#[derive(Default)]
pub(super) struct RunTokens {
    /// An `assistant.usage` line was read: its tokens were said already.
    calls: bool,
    pub(super) message_output: Option<u64>,
    /// What the run's `usage` events said so far.
    said: Tokens,
}

impl RunTokens {
    /// What `t` adds beyond what was said, now said too.
    pub(super) fn add(&mut self, t: Tokens) -> Option<Tokens> {
        let rest = t.beyond(self.said);
        self.said = self.said.plus(rest);
        (!rest.is_zero()).then_some(rest)
    }

    /// What is still to be said at the run's end.
    pub(super) fn take(&mut self) -> Option<Tokens> {
        let mut t = std::mem::take(self);
        if t.calls {
            return None;
        }
        let output = t.message_output?;
        t.add(Tokens {
            output,
            ..Tokens::default()
        })
    }
}

impl Validator {
    /// `assistant.usage`: one API call's tokens, a `usage` event of their own.
    pub(super) fn usage(
        &mut self,
        pos: Position,
        bytes: &[u8],
        d: &Data<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "an `assistant.usage`";
        let mut t = Tokens::default();
        for (name, f, slot) in [
            ("inputTokens", &d.input_tokens, &mut t.input),
            ("outputTokens", &d.output_tokens, &mut t.output),
            ("cacheReadTokens", &d.cache_read_tokens, &mut t.cache_read),
            (
                "cacheWriteTokens",
                &d.cache_write_tokens,
                &mut t.cache_write,
            ),
            ("reasoningTokens", &d.reasoning_tokens, &mut t.reasoning),
        ] {
            if count_field(f, false, what, pos, bytes, &["data", name], emit) {
                *slot = count(f).unwrap_or(0);
            }
        }
        for (name, f) in [("cost", &d.cost), ("duration", &d.duration)] {
            expect(
                f.json_type(),
                Want::Num,
                false,
                pos,
                bytes,
                &["data", name],
                emit,
            );
        }
        // `inputTokens` holds the `cacheReadTokens` and `cacheWriteTokens`, which are counted
        // apart (a session's totals show it: its `tokenDetails` input is `inputTokens` less both).
        t.input = t
            .input
            .saturating_sub(t.cache_read)
            .saturating_sub(t.cache_write);
        self.tokens.calls = true;
        self.tokens.said = self.tokens.said.plus(t);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::Usage, pos.line);
            ev.usage = Some(t);
            sink(&ev);
        }
    }

    /// The run's `result`: `sessionId`, `exitCode` (0 when it went well) and `usage`, which has
    /// premium requests, durations and code changes but no tokens. It ends the run: the calls
    /// still open never completed, and streamed messages never got their whole. `ms` is the
    /// record's time.
    pub(super) fn result<'a>(&mut self, cx: Cx<'a, '_>, line: &Line<'a>, ms: Option<u64>) {
        let (pos, bytes, arena, emit, sink) = (cx.pos, cx.bytes, cx.arena, cx.emit, cx.sink);
        let what = "a `result`";
        require(
            line.session_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["sessionId"],
            emit,
        );
        let exit = if require(
            line.exit_code.json_type(),
            Want::Num,
            what,
            pos,
            bytes,
            &["exitCode"],
            emit,
        ) {
            match line.exit_code {
                Field::UInt(n) => Some(i64::try_from(n).unwrap_or(i64::MAX)),
                Field::Int(n) => Some(n),
                _ => {
                    emit(wrong_type(
                        pos,
                        bytes,
                        &["exitCode"],
                        JsonType::Number,
                        &[Want::Int],
                    ));
                    None
                }
            }
        } else {
            None
        };
        let mut u = RunUsage::default();
        if require(
            line.usage.json_type(),
            Want::Obj,
            what,
            pos,
            bytes,
            &["usage"],
            emit,
        ) && let Some(raw) = line.usage.get()
            && parse_into(raw, arena, &mut u).is_ok()
        {
            run_usage(&u, pos, bytes, emit);
        }
        if self.run.stray() {
            return;
        }
        let ok = exit.is_none_or(|c| c == 0);
        // A run that was aborted or failed may leave calls open: said, not as an error.
        let cut = self.aborted || !ok;
        for call in self.calls.drain() {
            let mut d = unfinished(
                &call,
                &Pairing {
                    before: Some("the run's `result`"),
                    ..PAIRING
                },
            );
            if cut {
                d.severity = Severity::Warning;
            }
            emit(d);
        }
        self.unfinished_pieces(pos, emit);
        self.run.end(pos.line);
        if let Some(sink) = sink {
            if let Some(t) = self.tokens.take() {
                let mut ev = vocab::Event::new(Kind::Usage, pos.line);
                ev.usage = Some(t);
                sink(&ev);
            }
            let mut ev = vocab::Event::new(Kind::End, pos.line);
            ev.ok = Some(ok && !self.aborted);
            ev.outcome = Some(match (self.aborted, self.abort_for_credit) {
                (true, true) => vocab::Outcome::Budget,
                (true, false) => vocab::Outcome::Cancelled,
                (false, _) => vocab::Outcome::of_ok(Some(ok)),
            });
            ev.session_id = line.session_id.to_cow();
            ev.text = if ok || self.last_error.is_empty() {
                self.answer.text()
            } else {
                Some(Cow::Borrowed(self.last_error.as_str()))
            };
            ev.duration_ms = count(&u.session_duration_ms);
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RunTokens;
    use crate::vocab::Tokens;

    #[test]
    fn the_run_has_tokens_from_one_place() {
        let mut t = RunTokens {
            message_output: Some(70),
            ..RunTokens::default()
        };
        assert_eq!(t.take().map(|t| (t.input, t.output)), Some((0, 70)));
        assert!(t.take().is_none());
        // The calls' tokens were said as they came: the messages' are not said again.
        let mut t = RunTokens {
            calls: true,
            message_output: Some(70),
            ..RunTokens::default()
        };
        assert!(t.take().is_none());
        // A session's totals add what they have beyond what was said; the messages' output,
        // said by them, is not said again.
        let mut t = RunTokens {
            message_output: Some(25),
            ..RunTokens::default()
        };
        let total = Tokens {
            input: 3,
            output: 25,
            cache_write: 25_806,
            ..Tokens::default()
        };
        assert_eq!(t.add(total), Some(total));
        assert_eq!(t.add(total), None);
        assert!(t.take().is_none());
    }
}
