//! What the supervisor writes on `--events` as time passes, and when it flushes the arrival
//! times of `--save`.
//!
//! This module owns the supervisor's look at the session once per `--events-interval` (and on
//! every change it hears of): the `agent` line once the stream shows it, `result-seen` (at most
//! once per interval), and the periodic `tool-running` (the oldest calls, a few at most) or
//! `idle` (no call running, the agent silent for [`IDLE_AFTER`] or more); and the flush of the
//! arrival times. It only queues lines (see `events`), so it never waits on their reader; it
//! must not end the agent nor read the pipes.

use super::events::{IDLE_AFTER, RUNNING_PER_TICK};
use super::supervisor::{Supervisor, earliest};
use serde_json::json;
use std::sync::PoisonError;
use std::time::{Duration, Instant};

impl Supervisor<'_> {
    /// Writes the events due at `now` and flushes the arrival times each interval; returns
    /// when to look again.
    pub(super) fn report(&mut self, now: Instant) -> Option<Instant> {
        if self.events.is_none() && self.arrivals.is_none() {
            return None;
        }
        let interval = self.opts.events_interval;
        let tick = *self.said.next_tick.get_or_insert(self.start + interval);
        let due = now >= tick;
        if due {
            self.said.next_tick = Some(now + interval);
            if let Some(w) = self.arrivals {
                w.lock().unwrap_or_else(PoisonError::into_inner).flush();
            }
        }
        let mut next = self.said.next_tick;
        let Some(events) = self.events else {
            return next;
        };
        let s = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.said.agent
            && let Some(a) = s.agent
        {
            self.said.agent = true;
            events.emit("agent", &[("agent", json!(a.as_str()))]);
        }
        if let Some(r) = &s.result
            && self.said.result_line != Some(r.line)
        {
            match self.said.result_at.map(|t| t + interval) {
                Some(at) if now < at => next = earliest(next, at),
                _ => {
                    self.said.result_line = Some(r.line);
                    self.said.result_at = Some(now);
                    events.emit(
                        "result-seen",
                        &[("line", json!(r.line)), ("is_error", json!(r.is_error))],
                    );
                }
            }
        }
        if due && self.exited.is_none() {
            if s.open.is_empty() {
                let silent = self
                    .activity
                    .waiting_since()
                    .is_some_and(|since| now.saturating_duration_since(since) >= IDLE_AFTER);
                if silent {
                    let since = s.last_at.unwrap_or(self.start);
                    events.emit(
                        "idle",
                        &[
                            ("age_ms", json!(ms(now.saturating_duration_since(since)))),
                            ("last_line", json!((s.events > 0).then_some(s.last.line))),
                        ],
                    );
                }
            } else {
                for c in s.open.iter().take(RUNNING_PER_TICK) {
                    events.emit(
                        "tool-running",
                        &[
                            ("call_id", json!(c.id)),
                            ("name", json!(c.kind)),
                            ("kind", json!(c.tool_kind)),
                            ("line", json!(c.line)),
                            ("age_ms", json!(ms(now.saturating_duration_since(c.since)))),
                        ],
                    );
                }
            }
        }
        next
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
