//! When a running agent is ended, and the finding that says why.
//!
//! This module owns the timers of a running agent (`--after-result`: the hang after its
//! `result`; `--idle-timeout`: a stall with no tool call running; `--tool-timeout`: a call
//! running too long; `--timeout`: the whole run), what was running when one of them fired, the
//! note on stderr and the `agent-hung-after-result` or `agent-stalled` finding. It reads the
//! session state and the pipe's activity, and asks the supervisor to end the group; it must
//! not send signals itself nor read the pipes.

use super::note;
use super::outcome::{self, Ending};
use super::session::Session;
use super::supervisor::{Supervisor, earliest};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::Position;
use sjlint_core::rules::Rule;
use sjlint_core::text::escape_untrusted;
use std::time::{Duration, Instant};

impl Supervisor<'_> {
    /// `--max-cost` on an agent whose stream reports no cost: its tokens are priced by the
    /// bundled list, by the model the stream names; when the first request that spent tokens
    /// names none the list prices, the budget cannot act, and is said so then rather than
    /// found out at the bill.
    fn say_when_cost_cannot_act(&mut self) {
        let Some(max) = self.opts.budgets.max_cost.filter(|_| !self.said_no_cost) else {
            return;
        };
        let (agent, priced) = {
            let s = self
                .session
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            (s.agent, s.priced)
        };
        let (Some(agent), Some(priced)) = (agent.filter(|a| !a.reports_cost()), priced) else {
            return;
        };
        self.said_no_cost = true;
        let name = agent.display_name();
        note(
            self.notes,
            &if priced {
                format!(
                    "--max-cost {max}: {name} reports no cost in its stream; its tokens are priced by the bundled list"
                )
            } else {
                format!(
                    "--max-cost {max} cannot act: {name} reports no cost in its stream, nor a model the price list knows; --max-tokens holds it"
                )
            },
        );
    }

    /// The timers of a running agent: ends the group when one is due, else returns the next.
    pub(super) fn watch(&mut self, now: Instant) -> Option<Instant> {
        self.say_when_cost_cannot_act();
        let opts = self.opts;
        let mut next = None;
        let mut due: Option<(Ending, Instant)> = None;
        {
            let s = self
                .session
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // Each timer: what it ends the run as, since when its condition holds, how long.
            let mut consider = |ending: Ending, since: Instant, limit: Duration| {
                // Past what an `Instant` can hold: never due.
                let Some(at) = since.checked_add(limit) else {
                    return;
                };
                if now >= at {
                    due.get_or_insert((ending, since));
                } else {
                    next = earliest(next, at);
                }
            };
            // As with `timeout`, a limit of 0 is no limit.
            let limit = |d: Option<Duration>| d.filter(|d| !d.is_zero());
            if s.over_budget.is_some() {
                consider(Ending::Budget, now, Duration::ZERO);
            }
            if let Some(t) = limit(opts.timeout) {
                consider(Ending::Timeout, self.start, t);
            }
            if s.ended
                && let Some(r) = &s.result
            {
                consider(Ending::AfterResult, r.at, opts.after_result);
            }
            if let (Some(t), Some(oldest)) = (limit(opts.tool_timeout), s.open.first()) {
                consider(Ending::ToolTimeout, oldest.since, t);
            }
            // Start-up is not idleness: until its first byte, only --first-output-timeout counts.
            let started = self.activity.started() || self.stdout_done.is_some();
            if !started && let Some(t) = limit(opts.first_output_timeout) {
                consider(Ending::FirstOutput, self.start, t);
            }
            if let Some(idle) = limit(opts.idle_timeout)
                && started
                && !s.ended
                && s.open.is_empty()
            {
                match self.activity.waiting_since().or(self.stdout_done) {
                    Some(since) => consider(Ending::Idle, since, idle),
                    // Busy writing to sjlint's own stdout: not the agent's stall. Look again.
                    None => next = earliest(next, now + idle),
                }
            }
            // Nothing tells the timers of the first byte: look again soon, so that the idle
            // limit counts from it.
            if !started && let Some(idle) = limit(opts.idle_timeout) {
                next = earliest(next, now + idle.min(Duration::from_millis(50)));
            }
            if let Some((_, since)) = due {
                self.stall = Some(stall_of(&s, now, now.saturating_duration_since(since)));
            }
        }
        if let Some((ending, _)) = due {
            self.ending = Some(ending);
            {
                let mut s = self
                    .session
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if ending == Ending::AfterResult {
                    s.cut_after_result = true;
                } else {
                    s.ended_by_stall = true;
                }
            }
            // The signal before the note: a note may wait for a stderr nobody reads.
            self.end_group(now, libc::SIGTERM);
            self.announce(ending, true);
            return None;
        }
        next
    }

    /// Says why the group is being ended (`signalled`: sjlint sends it SIGTERM; else it had
    /// ended by itself already), and keeps the finding that reports it.
    fn announce(&mut self, ending: Ending, signalled: bool) {
        let opts = self.opts;
        let stall = self.stall.take();
        let last_event = stall.as_ref().and_then(|s| s.last_event.as_ref());
        let last = last_event
            .map(|e| {
                format!(
                    "; last event: {} on line {}",
                    event_name(e.ty.as_deref(), e.subtype.as_deref()),
                    e.line
                )
            })
            .unwrap_or_default();
        let first = stall.as_ref().and_then(|s| s.running.first());
        let running = first
            .map(|c| {
                format!(
                    "; running: {} `{}` (line {}) for {}",
                    c.kind,
                    c.id,
                    c.line,
                    outcome::duration(Duration::from_millis(c.age_ms))
                )
            })
            .unwrap_or_default();
        // A stall is reported where what was running began, else at the last event.
        let stall_line = first
            .map(|c| c.line)
            .or(last_event.map(|e| e.line))
            .unwrap_or(0);
        let (rule, line, short, what, help) = match ending {
            Ending::AfterResult => {
                let line = self
                    .session
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .result
                    .as_ref()
                    .map_or(0, |r| r.line);
                let d = outcome::duration(opts.after_result);
                (
                    Rule::AgentHungAfterResult,
                    line,
                    format!("the agent did not exit {d} after its result (line {line})"),
                    format!(
                        "the agent did not exit {d} after its result (line {line}); sjlint ended it"
                    ),
                    HUNG_HELP,
                )
            }
            Ending::Budget => {
                let over = self
                    .session
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .over_budget
                    .clone();
                let Some(b) = over else {
                    return;
                };
                let short = budget_words(&b);
                (
                    Rule::AgentOverBudget,
                    b.line,
                    short.clone(),
                    format!("over budget: {short}{running}"),
                    "the agent spent more than the budget allows, as its stream reports it; raise the limit, or look at what the run did",
                )
            }
            _ => {
                let Some((short, what, help)) = stall_words(ending, opts, &running, &last) else {
                    return;
                };
                (Rule::AgentStalled, stall_line, short, what, help)
            }
        };
        let then = if signalled {
            "sending SIGTERM to its process group"
        } else {
            "the agent had exited already"
        };
        note(self.notes, &format!("{}; {then}", escape_untrusted(&short)));
        let at = Position {
            byte: 0,
            line,
            record: 0,
        };
        self.finding = Some(Diagnostic::new(rule, at, what).with_help(help));
        self.stall = stall;
    }
}

impl Supervisor<'_> {
    /// Once the stream is read: a budget the stream went past ends the run as over budget
    /// whatever the timing, also when the agent exited before the timers could end it (a
    /// runaway that wrote its last record and exited at once is still over budget). The
    /// verdict is a function of the stream, not of scheduling.
    pub(super) fn settle_budget(&mut self) {
        // An agent that exited before the timers looked is said of now.
        self.say_when_cost_cannot_act();
        if !matches!(self.ending, None | Some(Ending::Exited)) {
            return;
        }
        let over = self
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .over_budget
            .is_some();
        if over {
            self.ending = Some(Ending::Budget);
            self.announce(Ending::Budget, false);
        }
    }

    /// Once the stream is read: when the agent exited by itself after its session's end, but
    /// processes it left in its group held its stdout open, a reader waiting for the end of
    /// the stream would have waited for them without sjlint. Reported as the hang after the
    /// result that it is.
    pub(super) fn report_leftovers(&mut self) {
        if !self.left_holding_stdout {
            return;
        }
        let line = {
            let s = self
                .session
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match &s.result {
                Some(r) if s.ended => r.line,
                _ => return,
            }
        };
        let at = Position {
            byte: 0,
            line,
            record: 0,
        };
        self.finding.get_or_insert_with(|| {
            Diagnostic::new(
                Rule::AgentHungAfterResult,
                at,
                format!(
                    "the agent exited after its result (line {line}), but processes it started held its stdout open; sjlint ended them"
                ),
            )
            .with_help(HUNG_HELP)
        });
    }
}

/// The help of `agent-hung-after-result`.
const HUNG_HELP: &str = "headless agent CLIs often keep running after their result (a child holding the pipe, a background task); the result stands, and a run ended after a successful result is a success";

fn event_name(ty: Option<&str>, subtype: Option<&str>) -> String {
    match (ty, subtype) {
        (Some(t), Some(s)) => format!("{t}/{s}"),
        (Some(t), None) => t.to_owned(),
        (None, _) => "(not an event)".to_owned(),
    }
}

/// What was running at `now`, when the condition that ends the run had held for `lasted`.
fn stall_of(s: &Session, now: Instant, lasted: Duration) -> outcome::Stall {
    outcome::Stall {
        after_ms: lasted.as_millis() as u64,
        running: s
            .open
            .iter()
            .map(|c| outcome::Running {
                id: c.id.clone(),
                kind: c.kind.clone(),
                line: c.line,
                age_ms: now.saturating_duration_since(c.since).as_millis() as u64,
            })
            .collect(),
        last_event: (s.events > 0).then(|| outcome::LastEvent {
            ty: s.last.ty.clone(),
            subtype: s.last.subtype.clone(),
            line: s.last.line,
        }),
    }
}

/// What a stall's note and finding say: the short note, the finding's message and its help;
/// `None` for an ending that is no stall.
fn stall_words(
    ending: Ending,
    opts: &super::RunOptions,
    running: &str,
    last: &str,
) -> Option<(String, String, &'static str)> {
    match ending {
        Ending::FirstOutput => {
            let d = outcome::duration(opts.first_output_timeout.unwrap_or_default());
            Some((
                format!("no output for {d} after the agent started"),
                format!("stalled: no output for {d} after the agent started"),
                "the agent wrote nothing within --first-output-timeout of its start; raise it for agents that start slowly (a loaded machine, a cold cache)",
            ))
        }
        Ending::Idle => {
            let d = outcome::duration(opts.idle_timeout.unwrap_or_default());
            Some((
                format!("no output for {d} while no tool call was running"),
                format!("stalled: no output for {d} while no tool call was running{last}"),
                "the agent wrote nothing for --idle-timeout while no tool call ran; raise it if the model thinks silently for longer",
            ))
        }
        Ending::ToolTimeout => {
            let d = outcome::duration(opts.tool_timeout.unwrap_or_default());
            Some((
                format!("a tool call ran longer than --tool-timeout {d}"),
                format!("stalled: a tool call ran longer than --tool-timeout {d}{running}{last}"),
                "the tool call got no result within --tool-timeout; raise it for long builds or tests",
            ))
        }
        Ending::Timeout => {
            let d = outcome::duration(opts.timeout.unwrap_or_default());
            Some((
                format!("the run reached --timeout {d}"),
                format!("the run reached --timeout {d}{running}{last}"),
                "the whole run took longer than --timeout",
            ))
        }
        _ => None,
    }
}

/// What the note and the finding of a passed budget say: which, its limit, what was spent.
fn budget_words(b: &super::session::OverBudget) -> String {
    let (flag, what, limit, spent) = match b.kind {
        "cost" => (
            "--max-cost",
            "cost",
            format!("${:.4}", b.limit),
            format!("${:.4}", b.spent),
        ),
        "tokens" => (
            "--max-tokens",
            "tokens (input and output)",
            format!("{}", b.limit),
            format!("{}", b.spent),
        ),
        _ => (
            "--max-tool-calls",
            "tool calls",
            format!("{}", b.limit),
            format!("{}", b.spent),
        ),
    };
    format!(
        "the run went past {flag} {limit}: {what} {spent} by line {}",
        b.line
    )
}
