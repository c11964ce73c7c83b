//! Counting a stream as it is checked: the [`Collector`].
//!
//! This module owns what each event adds to the [`Stats`]: every agent's stream is counted from
//! its events in the common vocabulary (`sjlint_core::vocab`): the event counters, sessions and
//! results, tool calls paired by id from `tool_start` to `tool_end` (their outcome and duration)
//! and counted by tool kind and name (a rejected call apart from a failed one), tokens, thinking
//! phases timed from their first delta (the `thinking` without text that ends one) and durations
//! of results. Of cursor-agent's records it reads beside them only what the common events do not
//! say: the API time of a result. Memory is bounded: one entry
//! per open tool call, at most the pipeline's `--max-open-calls`. When `sjlint run --save` kept
//! the arrival times of the records ([`Arrivals`]), calls and results the stream does not time
//! are timed by them: a call from its start's arrival to its end's, a result from the agent's
//! start (for the first session) or its session's start. It must not print anything nor keep
//! anything per record.

use super::{Findings, Stats};
use sjlint_core::agents::Agent;
use sjlint_core::arrivals::Arrivals;
use sjlint_core::check::{CheckOptions, Checked, Consumer, Totals, check_into};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::{Position, Record};
use sjlint_core::pairing;
use sjlint_core::rules::Severity;
use sjlint_core::vocab::{self, Kind};
use std::io::{self, Read};

/// A tool call started and not yet completed.
struct Open {
    /// Index into `Stats::tools`.
    tool: usize,
    /// Index into that tool's `names`.
    name: usize,
    started_ms: Option<u64>,
    /// When its start arrived, from the arrival times.
    arrived_ms: Option<u64>,
}

/// Counts a call of the tool and name in slots `tool` and `name` that never ended.
fn unfinished(stats: &mut Stats, tool: usize, name: usize) {
    let t = &mut stats.tools[tool];
    t.count += 1;
    t.unfinished += 1;
    t.names[name].count += 1;
}

/// Counts what passes by; see the module documentation for what it keeps.
pub struct Collector {
    stats: Stats,
    /// Open calls by their id, at most `--max-open-calls` of them.
    open: pairing::Table<Open>,
    /// An event has been seen (so a session has begun, with or without `system`/`init`).
    any_event: bool,
    /// A `usage` came since the last `end`: that end is a result that reported tokens.
    usage_since_end: bool,
    /// No agent sjlint knows wrote the input: its events have no common form, and are counted
    /// by their own `type` and `subtype`.
    unknown_agent: bool,
    /// When each record arrived, if `sjlint run` kept it.
    arrivals: Option<Arrivals>,
    /// From the arrival times: when the session under way began (Unix ms), and whether a
    /// session has begun before (the first is timed from the agent's start).
    session_since: Option<u64>,
    sessions_begun: bool,
    /// The cost the open session's `usage` events said (US dollars): replaced by its `end`'s
    /// cost when that says one.
    session_cost: Option<f64>,
    /// The cost of the sessions that ended.
    ended_cost: Option<f64>,
}

impl Default for Collector {
    fn default() -> Self {
        Collector {
            stats: Stats::default(),
            open: pairing::Table::new(pairing::DEFAULT_MAX_OPEN_CALLS),
            any_event: false,
            usage_since_end: false,
            unknown_agent: false,
            arrivals: None,
            session_since: None,
            sessions_begun: false,
            session_cost: None,
            ended_cost: None,
        }
    }
}

impl Collector {
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps at most `n` calls open (`--max-open-calls`); a call started past that is counted
    /// as it starts and its ending is not matched.
    pub fn max_open_calls(mut self, n: usize) -> Self {
        self.open.set_max(n);
        self
    }

    /// Times the calls and results that carry no time of their own by `arrivals`.
    pub fn arrivals(mut self, arrivals: Option<Arrivals>) -> Self {
        self.session_since = arrivals.as_ref().map(Arrivals::started_unix_ms);
        self.arrivals = arrivals;
        self
    }

    fn arrived(&self, line: u64) -> Option<u64> {
        self.arrivals.as_ref().and_then(|a| a.at(line))
    }

    /// What the run has spent so far, as the statistics count it: input and output tokens, and
    /// the cost the agent reports (US dollars).
    pub fn spent(&self) -> (u64, Option<f64>) {
        let t = &self.stats.tokens;
        (t.input + t.output, self.stats.cost_usd)
    }

    /// The tokens counted so far, each once (what the statistics report), and the cost the
    /// agent reports (US dollars).
    pub fn tokens(&self) -> (&super::Tokens, Option<f64>) {
        (&self.stats.tokens, self.stats.cost_usd)
    }

    /// The statistics, with calls still open counted as unfinished. `records` and `bytes` come
    /// from the pipeline's totals and `findings` from its diagnostics.
    pub fn finish(mut self, records: u64, bytes: u64, findings: Findings) -> Stats {
        self.close_open_calls();
        // An input with no event was written by no agent that can be told: not cursor-agent,
        // which is only the reading of records that name none.
        if !self.any_event {
            self.stats.agent = None;
        }
        self.stats.records = records;
        self.stats.bytes = bytes;
        self.stats.findings = findings;
        self.stats
    }

    fn close_open_calls(&mut self) {
        for open in self.open.drain() {
            unfinished(&mut self.stats, open.tool, open.name);
        }
    }

    /// The slots of a call's tool: its kind and its name.
    fn slots(&mut self, ev: &vocab::Event<'_>) -> (usize, usize) {
        let name = ev.name.as_deref().unwrap_or("(none)");
        let kind = ev.tool_kind.unwrap_or_else(|| vocab::tool_kind(name));
        let tool = self.stats.tool_slot(kind);
        (tool, self.stats.name_slot(tool, name))
    }

    fn tool_start(&mut self, ev: &vocab::Event<'_>) {
        let (tool, name) = self.slots(ev);
        if ev.parent.is_some() {
            self.stats.tools[tool].subagent += 1;
        }
        let open = Open {
            tool,
            name,
            started_ms: ev.timestamp_ms,
            arrived_ms: self.arrived(ev.line),
        };
        match ev.call_id.as_deref().map(|id| self.open.insert(id, open)) {
            Some(pairing::Opened::Kept) => {}
            // A second start for an open id leaves the first one unfinished.
            Some(pairing::Opened::Replaced(earlier)) => {
                unfinished(&mut self.stats, earlier.tool, earlier.name);
            }
            // Past the budget it is counted when it ends, and not at all if it never does.
            Some(pairing::Opened::Full(_)) => {}
            // Without an id it can never end.
            None => unfinished(&mut self.stats, tool, name),
        }
    }

    fn tool_end(&mut self, ev: &vocab::Event<'_>) {
        let arrived = self.arrived(ev.line);
        let open = ev.call_id.as_deref().and_then(|id| self.open.take(id));
        let (tool, name) = match &open {
            Some(o) => (o.tool, o.name),
            None => self.slots(ev),
        };
        let t = &mut self.stats.tools[tool];
        t.count += 1;
        t.names[name].count += 1;
        if ev.rejected {
            t.rejected += 1;
            t.names[name].rejected += 1;
        } else if ev.ok == Some(false) {
            t.failed += 1;
        }
        let span = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) if b >= a => Some(b - a),
            _ => None,
        };
        let took = ev
            .duration_ms
            .or_else(|| span(open.as_ref().and_then(|o| o.started_ms), ev.timestamp_ms))
            .or_else(|| span(open.as_ref().and_then(|o| o.arrived_ms), arrived));
        if let Some(ms) = took {
            t.durations.push(ms);
        }
    }
}

impl Collector {
    /// How the session that `ev` ends ended: counted, and listed (bounded).
    fn session_ended(&mut self, ev: &vocab::Event<'_>) {
        let outcome = ev.outcome.unwrap_or(vocab::Outcome::of_ok(ev.ok));
        let s = &mut self.stats;
        s.outcomes[outcome as usize] += 1;
        let reason = ev
            .reason
            .as_deref()
            .map(sjlint_core::agents::id_prefix)
            .map(Into::into);
        s.last_end = Some((outcome, reason));
        s.denied += ev.denied.unwrap_or(0);
        if s.ended.len() < super::MAX_SESSIONS {
            s.ended.push(super::SessionEnd {
                session_id: ev
                    .session_id
                    .as_deref()
                    .map(sjlint_core::agents::id_prefix)
                    .map(Into::into),
                line: ev.line,
                outcome,
                reason: ev
                    .reason
                    .as_deref()
                    .map(sjlint_core::agents::id_prefix)
                    .map(Into::into),
            });
        } else {
            s.ended_more += 1;
        }
    }

    /// A record of an input no agent sjlint knows wrote: counted by its own names.
    fn unknown_record(&mut self, ty: Option<&str>, subtype: Option<&str>) {
        *self.stats.event_slot(ty.unwrap_or("(no type)"), subtype) += 1;
        if !self.any_event {
            self.stats.sessions += 1;
        }
        self.any_event = true;
    }
}

impl Consumer for Collector {
    fn wants_unlisted(&self) -> bool {
        true
    }

    fn unlisted(&mut self, u: &sjlint_core::drift::Unlisted) {
        self.stats.add_unlisted(u, 1);
    }

    /// A record of an input no agent sjlint knows wrote (every agent's records are counted from
    /// their common events, which come before).
    fn agent_record(&mut self, _rec: &Record<'_>, _json: &str, read: &Checked<'_, '_>) {
        if self.unknown_agent {
            self.unknown_record(read.ty(), read.subtype());
        }
    }

    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.stats.invalid_records += 1;
    }

    fn agent(&mut self, agent: Option<Agent>) {
        self.stats.agent = agent.map(|a| a.as_str().into());
        self.stats.source = agent.map(|a| a.source().as_str());
        self.unknown_agent = agent.is_none();
    }

    fn wants_common(&self) -> bool {
        true
    }

    /// Every agent's stream is counted from its common events, so that a stream and its
    /// `fmt --to common` form count the same, and the events and tools of every agent are
    /// named alike.
    fn common(&mut self, ev: &vocab::Event<'_>) {
        // The `end` the end of the input gives a session left open is no event of the stream.
        if ev.kind != Kind::End || ev.outcome != Some(vocab::Outcome::NoResult) {
            *self.stats.event_slot(ev.kind.as_str(), None) += 1;
        }
        self.any_event = true;
        // The common form names the agent that wrote its source.
        if let Some(a) = ev.agent {
            self.stats.agent = Some(a.into());
        }
        match ev.kind {
            Kind::SessionStart => {
                self.stats.sessions += 1;
                // The first session is timed from the agent's start, as agents time theirs.
                if std::mem::replace(&mut self.sessions_begun, true) {
                    self.session_since = self.arrived(ev.line).or(self.session_since);
                }
            }
            Kind::ToolStart => self.tool_start(ev),
            Kind::ToolEnd => self.tool_end(ev),
            Kind::Usage => {
                // A message's cost counts as it comes; the session's `end` says the sum.
                if let Some(c) = ev.cost_usd.filter(|c| c.is_finite()) {
                    let session = *self
                        .session_cost
                        .insert(self.session_cost.unwrap_or(0.0) + c);
                    self.stats.cost_usd = Some(self.ended_cost.unwrap_or(0.0) + session);
                }
                if let Some(u) = ev.usage {
                    let t = &mut self.stats.tokens;
                    self.usage_since_end = true;
                    t.input += u.input;
                    t.output += u.output;
                    t.cache_read += u.cache_read;
                    t.cache_write += u.cache_write;
                    t.reasoning += u.reasoning;
                }
            }
            // The input ended with the session open: no record of the agent's ended it, so
            // there is no result to count nor time; what it said it spent stays counted.
            Kind::End if ev.outcome == Some(vocab::Outcome::NoResult) => {
                self.session_ended(ev);
                self.close_open_calls();
            }
            Kind::End => {
                self.session_ended(ev);
                self.stats.duration_api_ms += ev.duration_api_ms.unwrap_or(0);
                if std::mem::take(&mut self.usage_since_end) {
                    self.stats.tokens.results += 1;
                }
                if ev.ok == Some(false) {
                    self.stats.results_error += 1;
                } else {
                    self.stats.results_success += 1;
                }
                let arrived = self.arrived(ev.line);
                let timed = ev.duration_ms.or(match (self.session_since, arrived) {
                    (Some(a), Some(b)) if b >= a => Some(b - a),
                    _ => None,
                });
                if let Some(ms) = timed {
                    self.stats.duration_ms += ms;
                    self.stats.durations_reported += 1;
                }
                // A next session without a start of its own begins here.
                self.sessions_begun = true;
                if arrived.is_some() {
                    self.session_since = arrived;
                }
                // The session's cost, in place of its messages' counted so far.
                let session = self.session_cost.take();
                if let Some(c) = ev.cost_usd.or(session) {
                    let ended = *self.ended_cost.insert(self.ended_cost.unwrap_or(0.0) + c);
                    self.stats.cost_usd = Some(ended);
                }
                // The session is over: what is still open will never complete.
                self.close_open_calls();
            }
            // The end of a phase of thinking, timed (cursor-agent's `thinking`/`completed`).
            Kind::Thinking if ev.text.is_none() => {
                if let Some(ms) = ev.duration_ms {
                    self.stats.thinking_phases += 1;
                    self.stats.thinking_ms += ms;
                }
            }
            Kind::UserPrompt | Kind::AssistantText | Kind::Thinking | Kind::Error => {}
        }
    }
}

/// The statistics of the stream `reader` holds, with the validator's findings counted.
pub fn collect<R: Read>(reader: R, opts: &CheckOptions) -> io::Result<Stats> {
    let (stats, read) = collect_partial(reader, opts, None);
    read.map(|()| stats)
}

/// The statistics of what `reader` held up to its end or up to the error that stopped it
/// (Ctrl-C), and how the reading ended; `arrivals` time what the stream does not.
pub fn collect_partial<R: Read>(
    reader: R,
    opts: &CheckOptions,
    arrivals: Option<Arrivals>,
) -> (Stats, io::Result<()>) {
    collect_judged(reader, opts, arrivals, &mut |d| Some(d.severity))
}

/// [`collect_partial`], with each finding counted at the severity `judge` gives it, or not at
/// all when it gives none (`stats` judges them by the input's settings, as `check` does).
pub fn collect_judged<R: Read>(
    reader: R,
    opts: &CheckOptions,
    arrivals: Option<Arrivals>,
    judge: &mut dyn FnMut(&Diagnostic) -> Option<Severity>,
) -> (Stats, io::Result<()>) {
    let mut collector = Collector::new()
        .max_open_calls(opts.max_open_calls)
        .arrivals(arrivals);
    let mut findings = Findings::default();
    let mut totals = Totals::default();
    let read = check_into(
        reader,
        opts,
        &mut |d| {
            if let Some(severity) = judge(&d) {
                findings.count(severity);
            }
            Ok(())
        },
        &mut collector,
        &mut totals,
    );
    let stats = collector.finish(totals.records, totals.bytes, findings);
    (stats, read)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The statistics of `input`, with every rule.
    pub(in crate::stats) fn stats_of(input: &str) -> Stats {
        collect(input.as_bytes(), &CheckOptions::default()).unwrap()
    }

    pub(in crate::stats) const INIT: &str =
        r#"{"type":"system","subtype":"init","session_id":"s"}"#;

    #[test]
    fn tool_calls_pair_by_id_and_time_from_started_to_completed() {
        let input = [
            INIT,
            r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"shellToolCall":{"args":{"command":"sleep 6"}}},"session_id":"s","timestamp_ms":1000}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"b","tool_call":{"shellToolCall":{"args":{"command":"false"}}},"session_id":"s","timestamp_ms":1100}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"b","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":1}}}},"session_id":"s","timestamp_ms":1900}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"a","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0}}}},"session_id":"s","timestamp_ms":7000}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"x"}}},"session_id":"s","timestamp_ms":7100}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"result":{"rejected":{"reason":""}}}},"session_id":"s","timestamp_ms":7200}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"d","tool_call":{"readToolCall":{"args":{"path":"y"}}},"session_id":"s","timestamp_ms":7300}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"","duration_ms":8000,"session_id":"s","usage":{"inputTokens":10,"outputTokens":2}}"#,
        ]
        .join("\n");
        let s = stats_of(&input);
        assert_eq!(s.sessions, 1);
        assert_eq!(s.results_success, 1);
        assert_eq!(s.duration_ms, 8000);
        assert_eq!(s.tokens.results, 1);
        assert_eq!((s.tokens.input, s.tokens.output), (10, 2));
        let shell = s.tools.iter().find(|t| &*t.kind == "shell").unwrap();
        assert_eq!((shell.count, shell.failed, shell.rejected), (2, 1, 0));
        assert_eq!(shell.durations, vec![800, 6000]);
        assert_eq!(&*shell.names[0].name, "shellToolCall");
        let read = s.tools.iter().find(|t| &*t.kind == "read").unwrap();
        assert_eq!((read.count, read.rejected, read.unfinished), (2, 1, 1));
        assert_eq!(read.durations, vec![100]);
        assert_eq!(s.findings.errors, 1, "the unfinished call");
    }

    #[test]
    fn thinking_is_timed_from_the_first_delta_to_completed() {
        let input = [
            INIT,
            r#"{"type":"thinking","subtype":"delta","text":"a","session_id":"s","timestamp_ms":100}"#,
            r#"{"type":"thinking","subtype":"delta","text":"b","session_id":"s","timestamp_ms":150}"#,
            r#"{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":400}"#,
            r#"{"type":"thinking","subtype":"delta","text":"c","session_id":"s","timestamp_ms":500}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"session_id":"s"}"#,
            r#"{"type":"thinking","subtype":"delta","text":"d","session_id":"s","timestamp_ms":1000}"#,
            r#"{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":1050}"#,
        ]
        .join("\n");
        let s = stats_of(&input);
        assert_eq!(
            s.thinking_phases, 2,
            "the phase an assistant event ended is not timed"
        );
        assert_eq!(s.thinking_ms, 300 + 50);
    }

    #[test]
    fn sessions_counted_by_init_or_a_first_event() {
        let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s"}"#;
        assert_eq!(stats_of(result).sessions, 1);
        assert_eq!(
            stats_of(&[INIT, result, INIT, result].join("\n")).sessions,
            2
        );
        let s = stats_of("not json\n{\"type\":\"user\"}\n");
        assert_eq!((s.sessions, s.invalid_records, s.records), (1, 1, 2));
        assert_eq!(stats_of("").sessions, 0);
    }
}
