//! `sjlint stats`: what a stream holds, counted while it is checked.
//!
//! This module owns the [`Collector`] (a [`Consumer`] of the event stream), the [`Stats`] it
//! produces, and their two printed forms (an aligned table and one JSON document, described by
//! `schemas/stats.schema.json`). Memory stays bounded whatever the input's length: counters, at
//! most [`MAX_KEYS`] distinct event types and tool kinds (the rest are counted under
//! `(other)`), one entry per open tool call, and per kind the durations of at most 65,536 calls
//! or a histogram of them (`durations`). Nothing is kept per record. It must not open files nor decide exit codes; `commands` does.

use crate::agents::Agent;
use crate::agents::common::{self, Kind};
use crate::check::{CheckOptions, Consumer, Totals, check_into};
use crate::durations::Durations;
use crate::event::{Event, Field};
use crate::input::record::{Position, Record};
use crate::pairing;
use crate::rules::Severity;
use crate::text::Excerpt;
use crate::text::{escape_untrusted, format_bytes, thousands};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// Most distinct event types (or type/subtype pairs) and tool kinds kept by name.
pub const MAX_KEYS: usize = 64;

/// Where names beyond [`MAX_KEYS`] are counted.
const OTHER: &str = "(other)";

/// The statistics of one input, or the sum of several.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// The agent that wrote the input (`cursor`, `claude`, `codex`, `gemini`); `mixed` in a
    /// total over inputs of several agents; `None` when no agent sjlint knows wrote it.
    pub agent: Option<Box<str>>,
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
    pub duration_api_ms: u64,
    pub findings: Findings,
}

/// Events of one type and subtype.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventCount {
    pub ty: Box<str>,
    pub subtype: Option<Box<str>>,
    pub count: u64,
}

/// Tool calls of one kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolStats {
    pub kind: Box<str>,
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
    /// (bounded: see [`crate::durations`]).
    pub durations: Durations,
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
        self.agent = match (self.agent.take(), &other.agent) {
            (None, b) if self.records == 0 => b.clone(),
            (Some(a), Some(b)) if a == *b => Some(a),
            _ => Some("mixed".into()),
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
        }
        self.thinking_phases += other.thinking_phases;
        self.thinking_ms += other.thinking_ms;
        let (a, b) = (&mut self.tokens, &other.tokens);
        a.results += b.results;
        a.input += b.input;
        a.output += b.output;
        a.cache_read += b.cache_read;
        a.cache_write += b.cache_write;
        self.duration_ms += other.duration_ms;
        self.duration_api_ms += other.duration_api_ms;
        self.findings.errors += other.findings.errors;
        self.findings.warnings += other.findings.warnings;
        self.findings.infos += other.findings.infos;
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

/// A tool call started and not yet completed.
struct Open {
    /// Index into `Stats::tools`.
    tool: usize,
    started_ms: Option<u64>,
}

/// The most tool calls kept open at once by the common-form counting; beyond, calls are counted
/// as they start and their endings are not matched.
const MAX_OPEN: usize = crate::agents::MAX_OPEN_CALLS;

/// Counts what passes by; see the module documentation for what it keeps.
pub struct Collector {
    stats: Stats,
    /// Open calls by `pairing::key_of` their id, at most `max_open` of them.
    open: HashMap<Box<str>, Open>,
    max_open: usize,
    scratch: String,
    /// An event has been seen (so a session has begun, with or without `system`/`init`).
    any_event: bool,
    /// `timestamp_ms` of the first delta of the thinking phase under way.
    thinking_since: Option<u64>,
}

impl Default for Collector {
    fn default() -> Self {
        Collector {
            stats: Stats::default(),
            open: HashMap::new(),
            max_open: pairing::DEFAULT_MAX_OPEN_CALLS,
            scratch: String::new(),
            any_event: false,
            thinking_since: None,
        }
    }
}

impl Collector {
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps at most `n` calls open (`--max-open-calls`); a call started past that is counted
    /// when it completes, and not at all if it never does.
    pub fn max_open_calls(mut self, n: usize) -> Self {
        self.max_open = n.max(1);
        self
    }

    /// The statistics, with calls still open counted as unfinished. `records` and `bytes` come
    /// from the pipeline's totals and `findings` from its diagnostics.
    pub fn finish(mut self, records: u64, bytes: u64, findings: Findings) -> Stats {
        self.close_open_calls();
        self.stats.records = records;
        self.stats.bytes = bytes;
        self.stats.findings = findings;
        self.stats
    }

    fn close_open_calls(&mut self) {
        for (_, open) in self.open.drain() {
            let tool = &mut self.stats.tools[open.tool];
            tool.count += 1;
            tool.unfinished += 1;
        }
    }

    fn started(&mut self, ev: &Event<'_>) {
        let tool = self.stats.tool_slot(kind_name(ev));
        let open = Open {
            tool,
            started_ms: ev.timestamp_ms.as_millis(),
        };
        match ev.call_id.as_str() {
            Some(_) if self.open.len() >= self.max_open => {}
            Some(id) => {
                let key = pairing::key_of(id, &mut self.scratch);
                // A second `started` for an open id leaves the first one unfinished.
                if let Some(earlier) = self.open.insert(key.into(), open) {
                    let t = &mut self.stats.tools[earlier.tool];
                    t.count += 1;
                    t.unfinished += 1;
                }
            }
            // Without an id it can never complete.
            None => {
                let t = &mut self.stats.tools[tool];
                t.count += 1;
                t.unfinished += 1;
            }
        }
    }

    fn completed(&mut self, ev: &Event<'_>) {
        let open = ev
            .call_id
            .as_str()
            .and_then(|id| self.open.remove(pairing::key_of(id, &mut self.scratch)));
        let tool = match (&ev.tool_call.kind, &open) {
            (Some(kind), _) => self.stats.tool_slot(kind),
            (None, Some(open)) => open.tool,
            (None, None) => self.stats.tool_slot(kind_name(ev)),
        };
        let t = &mut self.stats.tools[tool];
        t.count += 1;
        match ev.tool_call.outcome.as_deref() {
            Some("rejected") => t.rejected += 1,
            Some("success") if ev.tool_call.exit_code.is_some_and(|c| c != 0) => t.failed += 1,
            Some("success") => {}
            Some(_) => t.failed += 1,
            None => {}
        }
        let started = open.and_then(|o| o.started_ms);
        if let (Some(start), Some(end)) = (started, ev.timestamp_ms.as_millis())
            && end >= start
        {
            t.durations.push(end - start);
        }
    }

    fn result(&mut self, ev: &Event<'_>) {
        let error = match ev.is_error.as_bool() {
            Some(e) => e,
            None => ev.subtype.as_str() == Some("error"),
        };
        if error {
            self.stats.results_error += 1;
        } else {
            self.stats.results_success += 1;
        }
        self.stats.duration_ms += ev.duration_ms.as_millis().unwrap_or(0);
        self.stats.duration_api_ms += ev.duration_api_ms.as_millis().unwrap_or(0);
        let u = &ev.usage;
        if u.shape == Some(crate::event::JsonType::Object) {
            let t = &mut self.stats.tokens;
            t.results += 1;
            t.input += u.input_tokens.unwrap_or(0);
            t.output += u.output_tokens.unwrap_or(0);
            t.cache_read += u.cache_read_tokens.unwrap_or(0);
            t.cache_write += u.cache_write_tokens.unwrap_or(0);
        }
        // The session is over: what is still open will never complete.
        self.close_open_calls();
    }
}

/// The tool kind of a tool call event, or `(none)` when it names none.
fn kind_name<'e>(ev: &'e Event<'_>) -> &'e str {
    ev.tool_call.kind.as_deref().unwrap_or("(none)")
}

impl Consumer for Collector {
    fn event(&mut self, _rec: &Record<'_>, _json: &str, ev: &Event<'_>) {
        let ty = match &ev.ty {
            Field::Str(t) => &**t,
            _ => "(no type)",
        };
        let subtype = ev.subtype.as_str();
        *self.stats.event_slot(ty, subtype) += 1;

        let init = ty == "system" && subtype == Some("init");
        if init || !self.any_event {
            self.stats.sessions += 1;
        }
        self.any_event = true;

        match (ty, subtype) {
            ("thinking", Some("delta")) => {
                if self.thinking_since.is_none() {
                    self.thinking_since = ev.timestamp_ms.as_millis();
                }
            }
            ("thinking", Some("completed")) => {
                if let (Some(start), Some(end)) =
                    (self.thinking_since.take(), ev.timestamp_ms.as_millis())
                    && end >= start
                {
                    self.stats.thinking_phases += 1;
                    self.stats.thinking_ms += end - start;
                }
            }
            _ => {
                // A phase that another event ends without `completed` is not measured.
                self.thinking_since = None;
                match (ty, subtype) {
                    ("tool_call", Some("started")) => self.started(ev),
                    ("tool_call", Some("completed")) => self.completed(ev),
                    ("result", _) => self.result(ev),
                    _ => {}
                }
            }
        }
    }

    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.stats.invalid_records += 1;
    }

    fn agent(&mut self, agent: Option<Agent>) {
        self.stats.agent = agent.map(|a| a.as_str().into());
    }

    fn wants_common(&self) -> bool {
        true
    }

    /// Claude Code, Codex and Gemini CLI streams are counted from their common events, so that
    /// a stream and its `fmt --to common` form count the same.
    fn common(&mut self, ev: &common::Event<'_>) {
        *self.stats.event_slot(ev.kind.as_str(), None) += 1;
        self.any_event = true;
        // The common form names the agent that wrote its source.
        if let Some(a) = ev.agent {
            self.stats.agent = Some(a.into());
        }
        match ev.kind {
            Kind::SessionStart => {
                self.stats.sessions += 1;
            }
            Kind::ToolStart => {
                let name = ev.name.as_deref().unwrap_or("(none)");
                let tool = self.stats.tool_slot(name);
                if ev.parent.is_some() {
                    self.stats.tools[tool].subagent += 1;
                }
                let open = Open {
                    tool,
                    started_ms: ev.timestamp_ms,
                };
                match ev.call_id.as_deref() {
                    Some(id) if self.open.len() < MAX_OPEN => {
                        let id = crate::agents::id_prefix(id);
                        if let Some(earlier) = self.open.insert(id.into(), open) {
                            let t = &mut self.stats.tools[earlier.tool];
                            t.count += 1;
                            t.unfinished += 1;
                        }
                    }
                    _ => self.stats.tools[tool].count += 1,
                }
            }
            Kind::ToolEnd => {
                let open = ev
                    .call_id
                    .as_deref()
                    .and_then(|id| self.open.remove(crate::agents::id_prefix(id)));
                let tool = match &open {
                    Some(o) => o.tool,
                    None => self.stats.tool_slot(ev.name.as_deref().unwrap_or("(none)")),
                };
                let t = &mut self.stats.tools[tool];
                t.count += 1;
                if ev.ok == Some(false) {
                    t.failed += 1;
                }
                let took =
                    ev.duration_ms
                        .or(match (open.and_then(|o| o.started_ms), ev.timestamp_ms) {
                            (Some(a), Some(b)) if b >= a => Some(b - a),
                            _ => None,
                        });
                if let Some(ms) = took {
                    t.durations.push(ms);
                }
            }
            Kind::Usage => {
                if let Some(u) = ev.usage {
                    let t = &mut self.stats.tokens;
                    t.results += 1;
                    t.input += u.input;
                    t.output += u.output;
                    t.cache_read += u.cache_read;
                    t.cache_write += u.cache_write;
                }
            }
            Kind::End => {
                if ev.ok == Some(false) {
                    self.stats.results_error += 1;
                } else {
                    self.stats.results_success += 1;
                }
                self.stats.duration_ms += ev.duration_ms.unwrap_or(0);
                if let Some(c) = ev.cost_usd {
                    *self.stats.cost_usd.get_or_insert(0.0) += c;
                }
                self.close_open_calls();
            }
            Kind::UserPrompt | Kind::AssistantText | Kind::Thinking | Kind::Error => {}
        }
    }
}

/// The statistics of the stream `reader` holds, with the validator's findings counted.
pub fn collect<R: Read>(reader: R, opts: &CheckOptions) -> io::Result<Stats> {
    let (stats, read) = collect_partial(reader, opts);
    read.map(|()| stats)
}

/// The statistics of what `reader` held up to its end or up to the error that stopped it
/// (Ctrl-C), and how the reading ended.
pub fn collect_partial<R: Read>(reader: R, opts: &CheckOptions) -> (Stats, io::Result<()>) {
    let mut collector = Collector::new().max_open_calls(opts.max_open_calls);
    let mut findings = Findings::default();
    let mut totals = Totals::default();
    let read = check_into(
        reader,
        opts,
        &mut |d| {
            findings.count(d.severity);
            Ok(())
        },
        &mut collector,
        &mut totals,
    );
    let stats = collector.finish(totals.records, totals.bytes, findings);
    (stats, read)
}

/// The sum of every file's statistics.
fn total(files: &[(String, Stats)]) -> Stats {
    let mut total = Stats::default();
    for (_, s) in files {
        total.merge(s);
    }
    total
}

/// The median of sorted values: the middle one, or the mean of the two middle ones.
pub fn median(sorted: &[u64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
        _ => Some((sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0),
    }
}

/// The nearest-rank percentile of sorted values: the smallest value that at least `p` percent of
/// the values do not exceed. Always one of the values.
pub fn percentile(sorted: &[u64], p: u64) -> Option<u64> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    let rank = (p * n).div_ceil(100).clamp(1, n);
    Some(sorted[(rank - 1) as usize])
}

/// A duration for people: `45 ms`, `0.8 s`, `13.0 s`, `2 min 05 s`, `1 h 02 min`.
pub fn duration(ms: u64) -> String {
    if ms < 100 {
        format!("{ms} ms")
    } else if ms < 59_950 {
        let tenths = (ms + 50) / 100;
        format!("{}.{} s", tenths / 10, tenths % 10)
    } else if ms < 3_600_000 - 500 {
        let s = (ms + 500) / 1000;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let min = (ms + 30_000) / 60_000;
        format!("{} h {:02} min", thousands(min / 60), min % 60)
    }
}

/// The three duration summaries of a kind: median, p95, max.
struct Percentiles {
    timed: u64,
    median: Option<f64>,
    p95: Option<u64>,
    max: Option<u64>,
}

impl ToolStats {
    fn summary(&self) -> Percentiles {
        let s = self.durations.summary();
        Percentiles {
            timed: s.count,
            median: s.median,
            p95: s.p95,
            max: s.max,
        }
    }
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

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The table format: a block per file, then the total when there are several, separated by blank
/// lines.
pub fn write_tables<W: Write>(out: &mut W, files: &[(String, Stats)]) -> io::Result<()> {
    for (i, (name, s)) in files.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        write_table(out, name, s)?;
    }
    if files.len() > 1 {
        out.write_all(b"\n")?;
        write_table(
            out,
            &format!("total ({} files)", files.len()),
            &total(files),
        )?;
    }
    Ok(())
}

/// One block of the table: a title line, then the indented lines of `s`. Names and kinds come
/// from the input and are escaped.
fn write_table<W: Write>(out: &mut W, title: &str, s: &Stats) -> io::Result<()> {
    let mut t = String::new();
    let _ = writeln!(t, "{}", escape_untrusted(title));
    let mut records = format!("{} ({})", thousands(s.records), format_bytes(s.bytes));
    if s.invalid_records > 0 {
        let _ = write!(records, ", {} invalid", thousands(s.invalid_records));
    }
    let results = s.results_success + s.results_error;
    let mut sessions = format!(
        "{}; {}",
        thousands(s.sessions),
        plural(results, "result", "results")
    );
    if results > 0 {
        let _ = write!(
            sessions,
            // Not "errors": beside the findings, that word means something else.
            " ({} success, {} failed)",
            thousands(s.results_success),
            thousands(s.results_error)
        );
    }
    let time = if results == 0 {
        "none reported".to_owned()
    } else {
        format!(
            "{} (api {})",
            duration(s.duration_ms),
            duration(s.duration_api_ms)
        )
    };
    let thinking = if s.thinking_phases == 0 {
        "none measured".to_owned()
    } else {
        format!(
            "{} in {}",
            duration(s.thinking_ms),
            plural(s.thinking_phases, "phase", "phases")
        )
    };
    let k = &s.tokens;
    let tokens = if k.results == 0 {
        "none reported".to_owned()
    } else {
        format!(
            "{} in, {} out, {} cache read, {} cache write ({})",
            thousands(k.input),
            thousands(k.output),
            thousands(k.cache_read),
            thousands(k.cache_write),
            plural(k.results, "result", "results")
        )
    };
    let f = &s.findings;
    let findings = if f.errors + f.warnings + f.infos == 0 {
        "none".to_owned()
    } else {
        [
            (f.errors, "error", "errors"),
            (f.warnings, "warning", "warnings"),
            (f.infos, "info", "infos"),
        ]
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| plural(*n, one, many))
        .collect::<Vec<_>>()
        .join(", ")
    };
    let agent = match s.agent.as_deref() {
        Some(a) => crate::agents::Agent::from_name(a)
            .map_or_else(|| a.to_owned(), |a| a.display_name().to_owned()),
        None => "none sjlint knows".to_owned(),
    };
    let cost = s.cost_usd.map(|c| format!("${c:.4}"));
    for (label, value) in [
        ("agent", agent),
        ("records", records),
        ("sessions", sessions),
        ("duration", time),
        ("thinking", thinking),
        ("tokens", tokens),
        ("findings", findings),
    ] {
        if label == "findings"
            && let Some(cost) = &cost
        {
            let _ = writeln!(t, "  {:<9} {cost}", "cost");
        }
        let _ = writeln!(t, "  {label:<9} {value}");
    }

    let events = sorted_events(s);
    if !events.is_empty() {
        let names: Vec<String> = events
            .iter()
            .map(|e| match &e.subtype {
                Some(sub) => format!("{}/{}", shown(&e.ty), shown(sub)),
                None => shown(&e.ty),
            })
            .collect();
        let counts: Vec<String> = events.iter().map(|e| thousands(e.count)).collect();
        let w0 = width(names.iter().map(String::as_str).chain(["event"]));
        let w1 = width(counts.iter().map(String::as_str).chain(["count"]));
        let _ = writeln!(t, "\n  {:<w0$}  {:>w1$}", "event", "count");
        for (name, count) in names.iter().zip(&counts) {
            let _ = writeln!(t, "  {name:<w0$}  {count:>w1$}");
        }
    }

    let tools = sorted_tools(s);
    if !tools.is_empty() {
        const HEAD: [&str; 8] = [
            "tool call",
            "count",
            "rejected",
            "failed",
            "unfinished",
            "median",
            "p95",
            "max",
        ];
        let mut rows: Vec<[String; 8]> = Vec::new();
        for tool in &tools {
            let sum = tool.summary();
            let ms = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), duration);
            rows.push([
                shown(&tool.kind),
                thousands(tool.count),
                thousands(tool.rejected),
                thousands(tool.failed),
                thousands(tool.unfinished),
                ms(sum.median.map(|m| m.round() as u64)),
                ms(sum.p95),
                ms(sum.max),
            ]);
        }
        let widths: Vec<usize> = (0..HEAD.len())
            .map(|i| width(rows.iter().map(|r| r[i].as_str()).chain([HEAD[i]])))
            .collect();
        let _ = write!(t, "\n ");
        for (i, h) in HEAD.iter().enumerate() {
            let w = widths[i];
            if i == 0 {
                let _ = write!(t, " {h:<w$}");
            } else {
                let _ = write!(t, "  {h:>w$}");
            }
        }
        t.push('\n');
        for row in &rows {
            t.push(' ');
            for (i, cell) in row.iter().enumerate() {
                let w = widths[i];
                if i == 0 {
                    let _ = write!(t, " {cell:<w$}");
                } else {
                    let _ = write!(t, "  {cell:>w$}");
                }
            }
            t.push('\n');
        }
    }
    out.write_all(t.as_bytes())
}

/// A name from the stream as a table shows it: a bounded excerpt, escaped for the terminal. So
/// a column is at most some hundreds of characters wide, whatever the input names.
fn shown(name: &str) -> String {
    escape_untrusted(&Excerpt(name).to_string()).into_owned()
}

/// The widest of `cells`, in characters (the names are ASCII in practice; escaped text is).
fn width<'a>(cells: impl Iterator<Item = &'a str>) -> usize {
    cells.map(|c| c.chars().count()).max().unwrap_or(0)
}

/// The json format: one document for every file and their total.
#[derive(Serialize)]
struct WireDocument<'a> {
    files: Vec<WireFile<'a>>,
    total: WireTotal<'a>,
}

#[derive(Serialize)]
struct WireFile<'a> {
    file: &'a str,
    #[serde(flatten)]
    stats: WireStats<'a>,
}

#[derive(Serialize)]
struct WireTotal<'a> {
    files: u64,
    #[serde(flatten)]
    stats: WireStats<'a>,
}

#[derive(Serialize)]
struct WireStats<'a> {
    agent: Option<&'a str>,
    cost_usd: Option<f64>,
    records: u64,
    bytes: u64,
    invalid_records: u64,
    sessions: u64,
    results: WireResults,
    events: Vec<WireEvent<'a>>,
    tool_calls: Vec<WireTool<'a>>,
    thinking: WireThinking,
    usage: WireUsage,
    duration_ms: u64,
    duration_api_ms: u64,
    findings: WireFindings,
}

#[derive(Serialize)]
struct WireResults {
    success: u64,
    error: u64,
}

#[derive(Serialize)]
struct WireEvent<'a> {
    #[serde(rename = "type")]
    ty: &'a str,
    subtype: Option<&'a str>,
    count: u64,
}

#[derive(Serialize)]
struct WireTool<'a> {
    kind: &'a str,
    count: u64,
    rejected: u64,
    failed: u64,
    unfinished: u64,
    subagent: u64,
    duration_ms: WireDurations,
}

#[derive(Serialize)]
struct WireDurations {
    timed: u64,
    median: Option<f64>,
    p95: Option<u64>,
    max: Option<u64>,
}

#[derive(Serialize)]
struct WireThinking {
    phases: u64,
    duration_ms: u64,
}

#[derive(Serialize)]
struct WireUsage {
    results: u64,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
}

#[derive(Serialize)]
struct WireFindings {
    error: u64,
    warning: u64,
    info: u64,
}

fn wire(s: &Stats) -> WireStats<'_> {
    WireStats {
        agent: s.agent.as_deref(),
        cost_usd: s.cost_usd,
        records: s.records,
        bytes: s.bytes,
        invalid_records: s.invalid_records,
        sessions: s.sessions,
        results: WireResults {
            success: s.results_success,
            error: s.results_error,
        },
        events: sorted_events(s)
            .into_iter()
            .map(|e| WireEvent {
                ty: &e.ty,
                subtype: e.subtype.as_deref(),
                count: e.count,
            })
            .collect(),
        tool_calls: sorted_tools(s)
            .into_iter()
            .map(|t| {
                let sum = t.summary();
                WireTool {
                    kind: &t.kind,
                    count: t.count,
                    rejected: t.rejected,
                    failed: t.failed,
                    unfinished: t.unfinished,
                    subagent: t.subagent,
                    duration_ms: WireDurations {
                        timed: sum.timed,
                        median: sum.median,
                        p95: sum.p95,
                        max: sum.max,
                    },
                }
            })
            .collect(),
        thinking: WireThinking {
            phases: s.thinking_phases,
            duration_ms: s.thinking_ms,
        },
        usage: WireUsage {
            results: s.tokens.results,
            input_tokens: s.tokens.input,
            output_tokens: s.tokens.output,
            cache_read_tokens: s.tokens.cache_read,
            cache_write_tokens: s.tokens.cache_write,
        },
        duration_ms: s.duration_ms,
        duration_api_ms: s.duration_api_ms,
        findings: WireFindings {
            error: s.findings.errors,
            warning: s.findings.warnings,
            info: s.findings.infos,
        },
    }
}

/// The json format: `files` (name and statistics of each) and `total`, pretty-printed, with a
/// final newline. Text is written exactly as found; JSON escaping makes it safe to carry.
pub fn write_json<W: Write>(out: &mut W, files: &[(String, Stats)]) -> io::Result<()> {
    let total = total(files);
    let doc = WireDocument {
        files: files
            .iter()
            .map(|(file, s)| WireFile {
                file,
                stats: wire(s),
            })
            .collect(),
        total: WireTotal {
            files: files.len() as u64,
            stats: wire(&total),
        },
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats_of(input: &str) -> Stats {
        collect(input.as_bytes(), &CheckOptions::default()).unwrap()
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[7]), Some(7.0));
        assert_eq!(median(&[1, 2, 9]), Some(2.0));
        assert_eq!(median(&[4162, 6197]), Some(5179.5));
        assert_eq!(median(&[1, 2, 3, 100]), Some(2.5));
    }

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentile(&[], 95), None);
        assert_eq!(percentile(&[5], 95), Some(5));
        assert_eq!(percentile(&[4162, 6197], 95), Some(6197));
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 95), Some(95));
        assert_eq!(percentile(&hundred, 50), Some(50));
        assert_eq!(percentile(&hundred, 100), Some(100));
        assert_eq!(percentile(&hundred, 0), Some(1));
        let twenty: Vec<u64> = (1..=20).collect();
        // rank ⌈0.95 · 20⌉ = 19
        assert_eq!(percentile(&twenty, 95), Some(19));
        let twenty_one: Vec<u64> = (1..=21).collect();
        // rank ⌈0.95 · 21⌉ = ⌈19.95⌉ = 20
        assert_eq!(percentile(&twenty_one, 95), Some(20));
    }

    #[test]
    fn durations_for_people() {
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(99), "99 ms");
        assert_eq!(duration(100), "0.1 s");
        assert_eq!(duration(849), "0.8 s");
        assert_eq!(duration(13_039), "13.0 s");
        assert_eq!(duration(59_949), "59.9 s");
        assert_eq!(duration(59_950), "1 min 00 s");
        assert_eq!(duration(125_000), "2 min 05 s");
        assert_eq!(duration(3_599_499), "59 min 59 s");
        assert_eq!(duration(3_599_500), "1 h 00 min");
        assert_eq!(duration(3_720_000), "1 h 02 min");
    }

    const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s"}"#;

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
        let shell = s
            .tools
            .iter()
            .find(|t| &*t.kind == "shellToolCall")
            .unwrap();
        assert_eq!((shell.count, shell.failed, shell.rejected), (2, 1, 0));
        assert_eq!(shell.durations, vec![800, 6000]);
        let read = s.tools.iter().find(|t| &*t.kind == "readToolCall").unwrap();
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

    #[test]
    fn names_beyond_the_cap_are_counted_as_other() {
        let input: String = (0..MAX_KEYS + 10)
            .map(|i| format!("{{\"type\":\"t{i}\"}}\n"))
            .collect();
        let s = stats_of(&input);
        assert_eq!(s.events.len(), MAX_KEYS + 1);
        let other = s.events.iter().find(|e| &*e.ty == OTHER).unwrap();
        assert_eq!(other.count, 10);
        let total: u64 = s.events.iter().map(|e| e.count).sum();
        assert_eq!(total, (MAX_KEYS + 10) as u64);
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
        let init = total.events.iter().find(|e| &*e.ty == "system").unwrap();
        assert_eq!(init.count, 2);
    }
}
