//! What the supervisor knows of the session: whether its terminal `result` has arrived, which
//! tool calls are running and since when, and the last event.
//!
//! This module is the one place where `run` reads the meaning of events, for every agent the
//! checker recognises: every stream comes as the agent-neutral events its agent's mapping gives
//! each record ([`Session::observe_common`]: `end`, `tool_start`, `tool_end`), so that result
//! detection and call pairing follow that agent's own rules. Beside them, the record's own type
//! names the last event, after them, for every agent ([`Session::observe_record`], which also
//! knows the records that may follow a result). A new
//! agent needs its mapping into the common vocabulary only. It must not signal processes nor
//! decide exit codes.

use sjlint_core::agents::id_prefix;
use sjlint_core::vocab::{self, Kind};
use std::time::Instant;

/// At most this many running calls are remembered (the oldest are forgotten first): a stream
/// with thousands of calls that never complete keeps memory flat.
const MAX_OPEN: usize = 64;

/// The session's terminal result.
#[derive(Clone, Debug)]
pub struct ResultSeen {
    pub subtype: Option<String>,
    pub is_error: bool,
    /// The physical line it starts on.
    pub line: u64,
    pub at: Instant,
}

/// A tool call started and not completed.
#[derive(Clone, Debug)]
pub struct OpenCall {
    pub id: String,
    /// The tool as the agent names it (else its common kind, else `tool`).
    pub kind: String,
    /// Its kind in the common vocabulary (`shell`, `read`, …), when known.
    pub tool_kind: Option<&'static str>,
    pub line: u64,
    pub since: Instant,
}

/// The last event read.
#[derive(Clone, Debug, Default)]
pub struct LastEvent {
    pub ty: Option<String>,
    pub subtype: Option<String>,
    pub line: u64,
}

#[derive(Default, Debug)]
pub struct Session {
    /// The last terminal result read.
    pub result: Option<ResultSeen>,
    /// The last event read was a terminal result: the agent has nothing left to say.
    pub ended: bool,
    /// Running calls, oldest first.
    pub open: Vec<OpenCall>,
    pub last: LastEvent,
    /// When the last record was read.
    pub last_at: Option<Instant>,
    pub events: u64,
    /// The agent the stream shows, once it is known.
    pub agent: Option<sjlint_core::agents::Agent>,
    /// sjlint ended the agent's group because it did not exit after its result: whatever that
    /// cut short of the stream (a record half written) is sjlint's doing, not the stream's.
    pub cut_after_result: bool,
    /// sjlint ended the agent's group for a stall or a timeout: what the stream then lacks (its
    /// result, the calls it left running, a record cut short) follows from that one cause.
    pub ended_by_stall: bool,
    /// `--max-cost`, `--max-tokens`, `--max-tool-calls`.
    pub budgets: Budgets,
    /// `--to common`: stdout carries the common events instead of the agent's bytes.
    pub to_common: bool,
    /// Tool calls started so far.
    pub calls_started: u64,
    /// The first budget the run went past, and where.
    pub over_budget: Option<OverBudget>,
    /// `--max-cost` on an agent that reports no cost: whether the price list priced the first
    /// request that spent tokens (by the model the stream names); `None` before it.
    pub priced: Option<bool>,
}

/// The limits a run is held to as the stream reports what it spends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budgets {
    pub max_cost: Option<f64>,
    pub max_tokens: Option<u64>,
    pub max_tool_calls: Option<u64>,
}

impl Budgets {
    pub fn any(&self) -> bool {
        self.max_cost.is_some() || self.max_tokens.is_some() || self.max_tool_calls.is_some()
    }
}

/// A budget the run went past: which (`cost`, `tokens`, `tool_calls`), its limit, what was
/// spent, and the line that passed it.
#[derive(Clone, Debug, PartialEq)]
pub struct OverBudget {
    pub kind: &'static str,
    pub limit: f64,
    pub spent: f64,
    pub line: u64,
}

impl Session {
    /// Holds what the stream has spent (`tokens` in and out, `cost` in US dollars, as `stats`
    /// counts them) to the budgets, after the events of line `line`: the first one passed is
    /// kept. Returns whether one was passed just now.
    pub fn spend(&mut self, tokens: u64, cost: Option<f64>, line: u64) -> bool {
        if self.over_budget.is_some() {
            return false;
        }
        let b = self.budgets;
        #[expect(
            clippy::cast_precision_loss,
            reason = "counts far below 2^53, said as numbers in the summary"
        )]
        let over = if let Some(max) = b.max_tool_calls
            && self.calls_started > max
        {
            Some(("tool_calls", max as f64, self.calls_started as f64))
        } else if let Some(max) = b.max_tokens
            && tokens > max
        {
            Some(("tokens", max as f64, tokens as f64))
        } else if let (Some(max), Some(c)) = (b.max_cost, cost)
            && c > max
        {
            Some(("cost", max, c))
        } else {
            None
        };
        self.over_budget = over.map(|(kind, limit, spent)| OverBudget {
            kind,
            limit,
            spent,
            line,
        });
        self.over_budget.is_some()
    }
}

impl Session {
    /// Takes one common event of a record into account, before the record itself
    /// ([`Session::observe_record`]). Returns whether the timers may have changed.
    pub fn observe_common(&mut self, ev: &vocab::Event<'_>, now: Instant) -> bool {
        match ev.kind {
            // The end of the input said a session was left open: no result came.
            Kind::End if ev.outcome == Some(vocab::Outcome::NoResult) => false,
            Kind::End => {
                // The record that ended the session names the result when it comes, after this.
                self.result = Some(ResultSeen {
                    subtype: None,
                    is_error: ev.ok == Some(false),
                    line: ev.line,
                    at: now,
                });
                self.ended = true;
                self.open.clear();
                true
            }
            Kind::ToolStart => {
                self.calls_started += 1;
                let Some(id) = ev.call_id.as_deref() else {
                    return false;
                };
                let kind = ev.name.as_deref().or(ev.tool_kind).unwrap_or("tool");
                let tool_kind = ev
                    .tool_kind
                    .or_else(|| ev.name.as_deref().map(vocab::tool_kind));
                self.open_call(id, kind, tool_kind, ev.line, now);
                true
            }
            Kind::ToolEnd => {
                let Some(id) = ev.call_id.as_deref() else {
                    return false;
                };
                let id = id_prefix(id);
                let before = self.open.len();
                self.open.retain(|c| c.id != id);
                before != self.open.len()
            }
            _ => false,
        }
    }

    /// Takes a Claude Code, Codex or Gemini CLI record of type `ty` (and `subtype`) on line
    /// `line` into account, after its common events. A record after the one that ended the
    /// session means the session goes on (Claude Code starts a new one for background tasks,
    /// after task notifications), unless it is one of the records that may come between any two
    /// lines ([`between_any_lines`]): those say nothing of the agent's work, and an agent that
    /// writes one after its result and hangs must still be ended.
    pub fn observe_record(&mut self, line: u64, ty: Option<&str>, subtype: Option<&str>) -> bool {
        self.events += 1;
        self.last_at = Some(Instant::now());
        set(&mut self.last.ty, ty);
        set(&mut self.last.subtype, subtype);
        self.last.line = line;
        match &mut self.result {
            // The record that ended the session names the result: Claude Code's subtype
            // (`success`, `error_max_turns`…), else Codex's type (`turn.completed`,
            // `turn.failed`).
            Some(r) if self.ended && r.line == line => {
                if r.subtype.is_none() {
                    r.subtype = subtype.or(ty.filter(|t| *t != "result")).map(str::to_owned);
                }
                false
            }
            Some(_) if self.ended && !between_any_lines(ty, subtype) => {
                self.ended = false;
                true
            }
            _ => false,
        }
    }

    fn open_call(
        &mut self,
        id: &str,
        kind: &str,
        tool_kind: Option<&'static str>,
        line: u64,
        now: Instant,
    ) {
        if self.open.len() == MAX_OPEN {
            self.open.remove(0);
        }
        // Ids and names are the stream's: kept as bounded prefixes.
        let (id, kind) = (id_prefix(id), id_prefix(kind));
        self.open.retain(|c| c.id != id);
        self.open.push(OpenCall {
            id: id.to_owned(),
            kind: kind.to_owned(),
            tool_kind,
            line,
            since: now,
        });
    }

    /// A record that is no event still counts as the agent speaking: the session goes on.
    pub fn observe_invalid(&mut self, line: u64) -> bool {
        self.events += 1;
        self.last_at = Some(Instant::now());
        self.last = LastEvent {
            ty: None,
            subtype: None,
            line,
        };
        std::mem::take(&mut self.ended)
    }
}

/// Claude Code's `rate_limit_event` and `system`/`thinking_tokens`, which it writes between any
/// two lines, and OpenCode's `done`, which one generation writes after the step that stopped its
/// run: after a result they do not mean that the session goes on.
fn between_any_lines(ty: Option<&str>, subtype: Option<&str>) -> bool {
    matches!(
        (ty, subtype),
        (Some("rate_limit_event" | "done"), _) | (Some("system"), Some("thinking_tokens"))
    )
}

fn set(slot: &mut Option<String>, value: Option<&str>) {
    match value {
        Some(v) => {
            let s = slot.get_or_insert_with(String::new);
            s.clear();
            s.push_str(v);
        }
        None => *slot = None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::agents::cursor::ToCommon;
    use sjlint_core::agents::cursor::view::{Parsed, parse};

    /// A cursor-agent record on line `n`, as `run` reads it: its common events (with a fresh
    /// mapping of its own, which is enough for these records), then the record.
    fn observe(s: &mut Session, line: &str, n: u64) -> bool {
        let Parsed::Event(ev) = parse(line, None, None).unwrap() else {
            panic!("not an event: {line}")
        };
        let mut changed = false;
        let mut map = ToCommon::new(16);
        map.map(n, line, &ev, &mut |e| {
            changed |= s.observe_common(e, Instant::now());
        });
        changed |= s.observe_record(n, ev.ty.as_str(), ev.subtype.as_str());
        changed
    }

    #[test]
    fn calls_open_and_close_and_a_result_ends_the_session() {
        let mut s = Session::default();
        observe(
            &mut s,
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            1,
        );
        assert!(observe(
            &mut s,
            r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{}}},"session_id":"s"}"#,
            2
        ));
        assert_eq!(s.open.len(), 1);
        assert_eq!(s.open[0].kind, "shellToolCall");
        assert!(observe(
            &mut s,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"args":{}}},"session_id":"s"}"#,
            3
        ));
        assert!(s.open.is_empty());
        assert!(!s.ended);
        assert!(observe(
            &mut s,
            r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
            4
        ));
        assert!(s.ended);
        let r = s.result.as_ref().unwrap();
        assert!(!r.is_error);
        assert_eq!(r.line, 4);
        assert_eq!(r.subtype.as_deref(), Some("success"));
        // Anything after the result means the session goes on.
        assert!(observe(
            &mut s,
            r#"{"type":"assistant","session_id":"s"}"#,
            5
        ));
        assert!(!s.ended);
        assert_eq!(s.last.ty.as_deref(), Some("assistant"));
    }

    #[test]
    fn common_events_open_and_close_calls_and_end_the_session() {
        let now = Instant::now();
        let mut s = Session::default();
        let mut start = vocab::Event::new(Kind::ToolStart, 2);
        start.call_id = Some("item_1".into());
        start.name = Some("command_execution".into());
        assert!(s.observe_common(&start, now));
        assert!(!s.observe_record(2, Some("item.started"), None));
        assert_eq!(s.open[0].kind, "command_execution");
        let mut end = vocab::Event::new(Kind::ToolEnd, 3);
        end.call_id = Some("item_1".into());
        assert!(s.observe_common(&end, now));
        assert!(s.open.is_empty());
        let mut done = vocab::Event::new(Kind::End, 4);
        done.ok = Some(false);
        assert!(s.observe_common(&done, now));
        assert!(!s.observe_record(4, Some("turn.failed"), None));
        assert!(s.ended);
        let r = s.result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.subtype.as_deref(), Some("turn.failed"));
        // A rate limit notice, which may come between any two lines, is no sign of more work.
        assert!(!s.observe_record(5, Some("rate_limit_event"), None));
        assert!(s.ended);
        assert_eq!(s.last.ty.as_deref(), Some("rate_limit_event"));
        // Any other later record means the process goes on.
        assert!(s.observe_record(6, Some("system"), Some("task_notification")));
        assert!(!s.ended);
        assert_eq!(s.last.subtype.as_deref(), Some("task_notification"));
    }

    #[test]
    fn an_error_result_is_a_failure() {
        let mut s = Session::default();
        observe(
            &mut s,
            r#"{"type":"result","subtype":"error","session_id":"s"}"#,
            1,
        );
        assert!(s.result.unwrap().is_error);
    }
}
