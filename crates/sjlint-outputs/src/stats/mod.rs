//! `sjlint stats`: what a stream holds, counted while it is checked.
//!
//! This module owns the [`Stats`] of an input, how the statistics of several inputs add up
//! ([`Stats::merge`]) and the bound on what they keep. Beside it, `collector` owns the
//! [`Collector`] (a [`Consumer`](sjlint_core::check::Consumer) of the event stream) that counts them,
//! `durations` how spans and their summaries are written, and `table` and `wire` their two
//! printed forms (an aligned table and one JSON document, described by
//! `schemas/stats.schema.json`). Events are counted by their type in the common vocabulary and
//! tool calls by tool kind, with the agent's names of its tools beside. Memory stays bounded
//! whatever the input's length: counters, at most [`MAX_KEYS`] distinct event types (of an input
//! no agent sjlint knows) and tool names per kind (the rest are counted under `(other)`), one
//! entry per open tool call, and per kind the durations of at most 65,536 calls
//! or a histogram of them (`histogram`). Nothing is kept per record. It must not open files nor decide exit codes; `commands` does.

mod collector;
mod durations;
pub mod histogram;
mod table;
mod wire;

pub use collector::{Collector, collect, collect_judged, collect_partial};
pub use durations::duration;
pub use table::write_tables;
pub use wire::{file_json, write_json};

use sjlint_core::rules::Severity;
use sjlint_core::vocab::Outcome;

/// Most distinct event types (or type/subtype pairs) and tool kinds kept by name.
pub const MAX_KEYS: usize = 64;

/// Where names beyond [`MAX_KEYS`] are counted.
const OTHER: &str = "(other)";

/// The statistics of one input, or the sum of several.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// The agent that wrote the input (`cursor`, `claude`, `codex`, `gemini`); `mixed` in a
    /// total over inputs of several agents; `None` when no agent sjlint knows wrote it, or the
    /// input holds no event.
    pub agent: Option<Box<str>>,
    /// What the input is: `stream` (what an agent prints) or `session-log` (the transcript it
    /// keeps on disk); `mixed` in a total over both; `None` with no agent.
    pub source: Option<&'static str>,
    /// What the agent reports the runs cost, in US dollars, counted once per process (Claude
    /// Code's `total_cost_usd` adds up over the sessions of a process).
    pub cost_usd: Option<f64>,
    pub records: u64,
    pub bytes: u64,
    /// Records that are no event: not JSON, not UTF-8, not an object, too large.
    pub invalid_records: u64,
    /// `system`/`init` events, plus one when events come before the first of them.
    pub sessions: u64,
    pub results_success: u64,
    /// Results with `is_error: true` (or, without a boolean `is_error`, subtype `error`).
    pub results_error: u64,
    /// In first-seen order.
    pub events: Vec<EventCount>,
    /// Per tool kind, in first-seen order.
    pub tools: Vec<ToolStats>,
    /// Thinking phases measured: a first `thinking`/`delta` and its `thinking`/`completed`,
    /// both with `timestamp_ms`.
    pub thinking_phases: u64,
    pub thinking_ms: u64,
    pub tokens: Tokens,
    /// `duration_ms` of every result, summed.
    pub duration_ms: u64,
    /// The results that said how long their run took (Codex and Grok Build never do): a sum
    /// of none is no duration, not 0 ms.
    pub durations_reported: u64,
    pub duration_api_ms: u64,
    pub findings: Findings,
    /// The fields and event types the records carry that the agent's schema does not list
    /// (see `drift`), at most [`MAX_KEYS`], in first-seen order.
    pub unlisted: Vec<UnlistedCount>,
    /// Those beyond [`MAX_KEYS`] (or beyond what one input names), counted only.
    pub unlisted_more: u64,
    /// How the sessions ended: a count per outcome, indexed as [`Outcome::ALL`].
    pub outcomes: [u64; Outcome::ALL.len()],
    /// The sessions of one input as they ended, in order, at most [`MAX_SESSIONS`] (a total
    /// over inputs keeps none: each input has its own).
    pub ended: Vec<SessionEnd>,
    /// Those beyond [`MAX_SESSIONS`], counted only.
    pub ended_more: u64,
    /// How the last session ended, and the agent's word for it.
    pub last_end: Option<(Outcome, Option<Box<str>>)>,
    /// Tool calls refused permission, over the sessions (each session's larger count: the
    /// agent's own, or its refused calls).
    pub denied: u64,
}

/// Most sessions one input's statistics list one by one.
pub const MAX_SESSIONS: usize = 1000;

/// How one session ended.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionEnd {
    pub session_id: Option<Box<str>>,
    /// The line of its `end` (or of its last event, when it has none).
    pub line: u64,
    pub outcome: Outcome,
    /// The agent's own word for it.
    pub reason: Option<Box<str>>,
}

/// A field or event type not in the agent's schema, and the inputs that carry it.
#[derive(Clone, Debug, PartialEq)]
pub struct UnlistedCount {
    pub what: sjlint_core::drift::Unlisted,
    pub files: u64,
}

/// Calls of a tool by one of its names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NameCount {
    pub name: Box<str>,
    pub count: u64,
    /// Of those, the calls refused permission (a completion whose result is `rejected`).
    pub rejected: u64,
}

/// Events of one type and subtype.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventCount {
    pub ty: Box<str>,
    pub subtype: Option<Box<str>>,
    pub count: u64,
}

/// Tool calls of one kind of the common vocabulary (`sjlint_core::vocab::tool_kind`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolStats {
    pub kind: Box<str>,
    /// The tools of this kind by the names the agent gives them (`Bash`, `shellToolCall`,
    /// `command_execution`), each with its calls; at most [`MAX_KEYS`], the rest under
    /// `(other)`.
    pub names: Vec<NameCount>,
    /// Completions, plus calls started and never completed.
    pub count: u64,
    /// Completions whose result is `rejected`.
    pub rejected: u64,
    /// Completions whose result is neither `success` nor `rejected`, or a shell `success` with a
    /// non-zero `exitCode`.
    pub failed: u64,
    /// Started and not completed before the session's `result` or the end of input.
    pub unfinished: u64,
    /// `started` → `completed` in milliseconds, for the calls where both have `timestamp_ms`
    /// (bounded: see [`histogram`]).
    pub durations: histogram::Durations,
    /// Calls made by subagents (Claude Code lines with a `parent_tool_use_id`).
    pub subagent: u64,
}

/// Token counts summed over the results that carry `usage`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Results with a `usage` object.
    pub results: u64,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// The part of `output` spent reasoning, where the agent says (already in `output`).
    pub reasoning: u64,
}

/// Findings of the validator, by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
}

impl Findings {
    pub fn count(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }
}

impl Stats {
    /// Adds `other` into `self` (for the total over several files).
    pub fn merge(&mut self, other: &Stats) {
        // An input with no event names no agent, and does not make a total mixed.
        self.agent = match (self.agent.take(), &other.agent) {
            (a, _) if other.events.is_empty() => a,
            (None, b) if self.events.is_empty() => b.clone(),
            (Some(a), Some(b)) if a == *b => Some(a),
            _ => Some("mixed".into()),
        };
        self.source = match (self.source, other.source) {
            (a, _) if other.events.is_empty() => a,
            (None, b) if self.events.is_empty() => b,
            (Some(a), Some(b)) if a == b => Some(a),
            _ => Some("mixed"),
        };
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.records += other.records;
        self.bytes += other.bytes;
        self.invalid_records += other.invalid_records;
        self.sessions += other.sessions;
        self.results_success += other.results_success;
        self.results_error += other.results_error;
        for e in &other.events {
            *self.event_slot(&e.ty, e.subtype.as_deref()) += e.count;
        }
        for t in &other.tools {
            let i = self.tool_slot(&t.kind);
            let mine = &mut self.tools[i];
            mine.count += t.count;
            mine.rejected += t.rejected;
            mine.failed += t.failed;
            mine.unfinished += t.unfinished;
            mine.subagent += t.subagent;
            mine.durations.merge(&t.durations);
            for n in &t.names {
                let j = self.name_slot(i, &n.name);
                self.tools[i].names[j].count += n.count;
                self.tools[i].names[j].rejected += n.rejected;
            }
        }
        self.thinking_phases += other.thinking_phases;
        self.thinking_ms += other.thinking_ms;
        let (a, b) = (&mut self.tokens, &other.tokens);
        a.results += b.results;
        a.input += b.input;
        a.output += b.output;
        a.cache_read += b.cache_read;
        a.cache_write += b.cache_write;
        a.reasoning += b.reasoning;
        self.duration_ms += other.duration_ms;
        self.durations_reported += other.durations_reported;
        self.duration_api_ms += other.duration_api_ms;
        self.findings.errors += other.findings.errors;
        self.findings.warnings += other.findings.warnings;
        self.findings.infos += other.findings.infos;
        for u in &other.unlisted {
            self.add_unlisted(&u.what, u.files);
        }
        self.unlisted_more += other.unlisted_more;
        for (a, b) in self.outcomes.iter_mut().zip(other.outcomes) {
            *a += b;
        }
        self.denied += other.denied;
        if other.last_end.is_some() {
            self.last_end.clone_from(&other.last_end);
        }
    }

    /// Counts `files` inputs carrying `what`, which their agent's schema does not list.
    pub fn add_unlisted(&mut self, what: &sjlint_core::drift::Unlisted, files: u64) {
        if let Some(u) = self.unlisted.iter_mut().find(|u| u.what == *what) {
            u.files += files;
        } else if self.unlisted.len() < MAX_KEYS {
            self.unlisted.push(UnlistedCount {
                what: what.clone(),
                files,
            });
        } else {
            self.unlisted_more += files;
        }
    }

    /// The counter of `ty`/`subtype`, created on first sight; past [`MAX_KEYS`] names, the
    /// `(other)` counter.
    fn event_slot(&mut self, ty: &str, subtype: Option<&str>) -> &mut u64 {
        let named = |e: &EventCount, ty: &str, subtype: Option<&str>| {
            &*e.ty == ty && e.subtype.as_deref() == subtype
        };
        let (ty, subtype) = match self.events.iter().position(|e| named(e, ty, subtype)) {
            Some(i) => return &mut self.events[i].count,
            None if self.events.len() < MAX_KEYS => (ty, subtype),
            None => (OTHER, None),
        };
        let i = match self.events.iter().position(|e| named(e, ty, subtype)) {
            Some(i) => i,
            None => {
                self.events.push(EventCount {
                    ty: ty.into(),
                    subtype: subtype.map(Into::into),
                    count: 0,
                });
                self.events.len() - 1
            }
        };
        &mut self.events[i].count
    }

    /// The index of `kind` in `tools`, created on first sight; past [`MAX_KEYS`] kinds, the
    /// index of `(other)`.
    fn tool_slot(&mut self, kind: &str) -> usize {
        let kind = match self.tools.iter().position(|t| &*t.kind == kind) {
            Some(i) => return i,
            None if self.tools.len() < MAX_KEYS => kind,
            None => OTHER,
        };
        if let Some(i) = self.tools.iter().position(|t| &*t.kind == kind) {
            return i;
        }
        self.tools.push(ToolStats {
            kind: kind.into(),
            ..ToolStats::default()
        });
        self.tools.len() - 1
    }
}

/// The sum of every file's statistics.
impl Stats {
    /// The index of `name` among the names of `self.tools[tool]`, created on first sight; past
    /// [`MAX_KEYS`] names, the index of `(other)`.
    fn name_slot(&mut self, tool: usize, name: &str) -> usize {
        let names = &mut self.tools[tool].names;
        let name = match names.iter().position(|n| &*n.name == name) {
            Some(j) => return j,
            None if names.len() < MAX_KEYS => name,
            None => OTHER,
        };
        if let Some(j) = names.iter().position(|n| &*n.name == name) {
            return j;
        }
        names.push(NameCount {
            name: name.into(),
            count: 0,
            rejected: 0,
        });
        names.len() - 1
    }
}

impl ToolStats {
    /// The names, most used first (then by name).
    pub fn sorted_names(&self) -> Vec<&NameCount> {
        let mut names: Vec<_> = self.names.iter().filter(|n| n.count > 0).collect();
        names.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        names
    }
}

fn total(files: &[(String, Stats)]) -> Stats {
    let mut total = Stats::default();
    for (_, s) in files {
        total.merge(s);
    }
    total
}

/// Events sorted by type, then subtype (none first).
fn sorted_events(s: &Stats) -> Vec<&EventCount> {
    let mut events: Vec<_> = s.events.iter().collect();
    events.sort_by(|a, b| (&a.ty, &a.subtype).cmp(&(&b.ty, &b.subtype)));
    events
}

fn sorted_tools(s: &Stats) -> Vec<&ToolStats> {
    let mut tools: Vec<_> = s.tools.iter().filter(|t| t.count > 0).collect();
    tools.sort_by(|a, b| a.kind.cmp(&b.kind));
    tools
}

/// The statistics of one stream as a JSON object: one element of `sjlint stats --format
/// json`'s `files`, named `file`.
pub fn stats_json(bytes: &[u8], file: &str, opts: &sjlint_core::Options) -> String {
    // An input in memory cannot fail to read.
    let (stats, _) = collect_partial(bytes, opts.check_options(), None);
    file_json(file, &stats)
}

#[cfg(test)]
mod tests {
    use super::collector::tests::{INIT, stats_of};
    use super::*;

    #[test]
    fn tool_names_beyond_the_cap_are_counted_as_other() {
        let input: String = std::iter::once(INIT.to_owned())
            .chain((0..MAX_KEYS + 10).map(|i| {
                format!(
                    r#"{{"type":"tool_call","subtype":"completed","call_id":"c{i}","tool_call":{{"t{i}ToolCall":{{"result":{{"success":{{}}}}}}}},"session_id":"s"}}"#
                )
            }))
            .collect::<Vec<_>>()
            .join("\n");
        let s = stats_of(&input);
        assert_eq!(s.tools.len(), 1, "every unknown tool is of kind other");
        let other = &s.tools[0];
        assert_eq!(&*other.kind, "other");
        assert_eq!(other.names.len(), MAX_KEYS + 1);
        let beyond = other.names.iter().find(|n| &*n.name == OTHER).unwrap();
        assert_eq!(beyond.count, 10);
        assert_eq!(other.count, (MAX_KEYS + 10) as u64);
    }

    #[test]
    fn merge_adds_everything() {
        let a = stats_of(&[INIT, r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"lsToolCall":{}},"session_id":"s","timestamp_ms":1}"#, r#"{"type":"tool_call","subtype":"completed","call_id":"a","tool_call":{"lsToolCall":{"result":{"success":{}}}},"session_id":"s","timestamp_ms":5}"#].join("\n"));
        let mut total = Stats::default();
        total.merge(&a);
        total.merge(&a);
        assert_eq!(total.records, 2 * a.records);
        assert_eq!(total.sessions, 2);
        assert_eq!(total.tools.len(), 1);
        assert_eq!(total.tools[0].durations, vec![4, 4]);
        assert_eq!(total.findings.errors, 2 * a.findings.errors);
        assert_eq!(&*total.tools[0].kind, "search");
        assert_eq!(total.tools[0].names[0].count, 2);
        let start = total
            .events
            .iter()
            .find(|e| &*e.ty == "session_start")
            .unwrap();
        assert_eq!(start.count, 2);
    }
}
