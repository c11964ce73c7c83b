//! The owned picture of one run that the HTML page is drawn from: its calls, text segments,
//! transcript entries, token curve, totals and findings.
//!
//! This module owns [`Builder`], which takes the events of the common vocabulary one at a time
//! ([`vocab::Event`], every fact a checker maps a record into) and findings, and [`Run`], what it
//! gives: positions (milliseconds or record lines), greedy lanes per group of calls (a subagent's
//! calls form the group under the call that started it), idle gaps. Memory is bounded whatever
//! the input: texts are cut as they arrive (shorter once a budget is spent) and every list has a
//! cap, with counts of what was left out. It must not read input nor write HTML.

use serde_json::value::RawValue;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::pairing;
use sjlint_core::vocab::{self, Kind, Outcome};
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::fmt::Write as _;

/// The normalised tool kinds, in the order of the page's legend ("other" last).
pub(crate) use sjlint_core::vocab::TOOL_KINDS as KINDS;

/// The index of `kind` in [`KINDS`] ("other" when unknown).
pub(crate) fn kind_index(kind: &str) -> usize {
    KINDS
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(KINDS.len() - 1)
}

/// Token counts of the run, summed over its `usage` events.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
}

impl Usage {
    pub(crate) fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }
}

/// A text kept for the page: its first characters and the size of the whole, in bytes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Cut {
    pub text: String,
    pub full: usize,
}

/// The first `max` bytes of `s`, cut at a character boundary.
pub(crate) fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Where something happened: its record line, and the clock then (the last timestamp seen).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct At {
    pub line: u64,
    pub ms: Option<u64>,
}

/// One tool call.
#[derive(Debug)]
pub(crate) struct Call {
    pub id: String,
    pub name: String,
    pub kind: usize,
    /// The subagent call this one ran under, when that call is in the run.
    pub parent: Option<String>,
    pub start: At,
    /// `None`: the stream ended before the call did.
    pub end: Option<At>,
    /// An unfinished call's session ended here (else it runs to the end of the stream).
    pub until: Option<At>,
    pub ok: Option<bool>,
    /// The call was refused (by the user or a permission rule), not run.
    pub rejected: bool,
    /// A command's exit code, when the agent reports it.
    pub exit_code: Option<i64>,
    /// The lines of the file a read read, when the agent reports them.
    pub lines: Option<u64>,
    pub duration_ms: Option<u64>,
    pub args: Cut,
    /// The argument that says most (a command, a path, a pattern), as `render` shows it.
    pub brief: String,
    pub output: Cut,
    /// Filled by [`Builder::finish`]: the row of the timeline the call is drawn on.
    pub row: usize,
}

/// Thinking or assistant text, merged over consecutive pieces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Segment {
    pub thinking: bool,
    pub start: At,
    pub end: At,
}

/// What the transcript shows, in stream order.
#[derive(Debug)]
pub(crate) enum Entry {
    Prompt(Cut),
    Text(Cut),
    Thinking(Cut),
    /// The index of the call in [`Run::calls`].
    Call(usize),
    Error(Cut),
    End {
        ok: Option<bool>,
        /// The outcome, with the agent's word for it (`max_turns (error_max_turns)`).
        outcome: String,
        text: Cut,
    },
}

/// A transcript entry and the line it starts on.
#[derive(Debug)]
pub(crate) struct Item {
    pub line: u64,
    /// The clock then, if the stream has one.
    pub ms: Option<u64>,
    pub entry: Entry,
    /// Inside a subagent.
    pub nested: bool,
}

/// A finding as the page shows it.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub rule: &'static str,
    pub severity: &'static str,
    pub line: u64,
    pub message: String,
}

/// A row of the timeline: a lane of the main agent's calls, or of one subagent's.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The subagent call whose calls this row holds (its index in `calls`).
    pub group: Option<usize>,
    pub lane: usize,
}

/// The run, ready to draw.
#[derive(Debug, Default)]
pub struct Run {
    pub(crate) name: String,
    pub(crate) agent: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) session_id: Option<String>,
    /// The working directory the agent ran in, when its stream says.
    pub(crate) cwd: Option<String>,
    /// Laid out in milliseconds (else by record line).
    pub(crate) clock: bool,
    /// First and last timestamp (clock) or line.
    pub(crate) t0: u64,
    pub(crate) t1: u64,
    pub(crate) first_ms: Option<u64>,
    /// The run's duration: the agent's own figure, else the span of its timestamps.
    pub(crate) duration_ms: Option<u64>,
    pub(crate) calls: Vec<Call>,
    pub(crate) calls_left_out: u64,
    pub(crate) rows: Vec<Row>,
    pub(crate) segments: Vec<Segment>,
    pub(crate) items: Vec<Item>,
    pub(crate) items_left_out: u64,
    pub(crate) usage: Usage,
    /// Cumulative tokens at positions; thinned to a bounded number of points.
    pub(crate) curve: Vec<(u64, u64)>,
    pub(crate) cost_usd: Option<f64>,
    pub(crate) ok: Option<bool>,
    /// How the last session of the main thread ended, with the agent's word for it.
    pub(crate) outcome: Option<String>,
    pub(crate) findings: Vec<Finding>,
    pub(crate) findings_left_out: u64,
    /// Stretches (in position units) with no event, longer than the idle threshold.
    pub(crate) idle: Vec<(u64, u64)>,
    pub(crate) records: u64,
}

impl Run {
    /// A position on the timeline: milliseconds from the run's clock, or the record line.
    pub(crate) fn pos(&self, at: At) -> u64 {
        if self.clock {
            at.ms.or(self.first_ms).unwrap_or(0)
        } else {
            at.line
        }
    }

    /// Where a call ends on the timeline: its end, else the end of the stream.
    pub(crate) fn end_pos(&self, call: &Call) -> u64 {
        let start = self.pos(call.start);
        match call.end {
            Some(end) => {
                let mut e = self.pos(end);
                if self.clock
                    && let Some(d) = call.duration_ms
                {
                    e = e.max(start.saturating_add(d));
                }
                e.max(start)
            }
            None => call.until.map_or(self.t1, |u| self.pos(u)).max(start),
        }
    }

    /// The verdict shown in the index: failed, findings or ok.
    pub(crate) fn verdict(&self) -> &'static str {
        if self.ok == Some(false) || self.findings.iter().any(|f| f.severity == "error") {
            "failed"
        } else if self.ok.is_none() {
            "unfinished"
        } else if self.findings.is_empty() {
            "ok"
        } else {
            "warnings"
        }
    }
}

/// Most calls, transcript entries, segments and findings kept; the rest are counted.
const MAX_CALLS: usize = 200_000;
const MAX_ITEMS: usize = 50_000;
const MAX_SEGMENTS: usize = 50_000;
pub(crate) const MAX_FINDINGS: usize = 10_000;
const MAX_CURVE: usize = 4096;
/// Text kept per item while the budget lasts, and after.
const TEXT_EARLY: usize = 4096;
const TEXT_LATE: usize = 160;
/// Bytes of text kept in all before texts are cut short.
const TEXT_BUDGET: usize = 3 << 20;
/// A stretch without events longer than this (ms) is shaded as idle.
pub(crate) const IDLE_MS: u64 = 5_000;

/// Builds a [`Run`] from common events and findings, in stream order.
#[derive(Default)]
pub(crate) struct Builder {
    run: Run,
    /// Open calls: id → index in `calls`, at most [`MAX_CALLS`] of them.
    open: pairing::Table<usize>,
    now_ms: Option<u64>,
    last: At,
    /// Bytes of text kept so far.
    kept_bytes: usize,
    /// Text pieces are joined while `delta` pieces of the same kind follow each other.
    joining: Option<bool>,
    in_subagent: bool,
    costs: HashMap<String, f64>,
    /// Cumulative tokens by the clock (the run's `curve` holds them by line).
    curve_ms: Vec<(u64, u64)>,
    first_line: Option<u64>,
    /// Two different timestamps were seen: the run has a clock.
    ticks: bool,
    min_ms: u64,
    max_ms: u64,
    idle: Vec<(u64, u64)>,
}

impl Builder {
    pub(crate) fn new(name: &str) -> Builder {
        Builder {
            run: Run {
                name: name.to_owned(),
                ..Run::default()
            },
            open: pairing::Table::new(MAX_CALLS),
            min_ms: u64::MAX,
            ..Builder::default()
        }
    }

    fn limit(&self) -> usize {
        if self.kept_bytes < TEXT_BUDGET {
            TEXT_EARLY
        } else {
            TEXT_LATE
        }
    }

    fn cut(&mut self, s: &str) -> Cut {
        let text = prefix(s, self.limit()).to_owned();
        self.kept_bytes += text.len();
        Cut {
            text,
            full: s.len(),
        }
    }

    /// Appends `s` to `c` within the current limit.
    fn extend(&mut self, c: &mut Cut, s: &str) {
        let room = self.limit().saturating_sub(c.text.len());
        let add = prefix(s, room);
        c.text.push_str(add);
        self.kept_bytes += add.len();
        c.full = c.full.saturating_add(s.len());
    }

    fn item(&mut self, line: u64, entry: Entry) {
        if self.run.items.len() < MAX_ITEMS {
            self.run.items.push(Item {
                line,
                ms: self.now_ms,
                entry,
                nested: self.in_subagent,
            });
        } else {
            self.run.items_left_out += 1;
        }
    }

    /// The agent that wrote the stream, when the check knows it before its events name it.
    pub(crate) fn agent(&mut self, agent: &str) {
        self.run.agent.get_or_insert_with(|| agent.to_owned());
    }

    /// Takes one event; `arrived_ms` is when its record arrived, for an event without a time of
    /// its own.
    pub(crate) fn event(&mut self, ev: &vocab::Event<'_>, arrived_ms: Option<u64>) {
        if let Some(ms) = ev.timestamp_ms.or(arrived_ms) {
            if let Some(now) = self.now_ms {
                self.ticks |= ms != now;
                // Against the latest time seen, so that gaps never overlap where the clock
                // went back.
                if ms > self.max_ms.saturating_add(IDLE_MS) && self.idle.len() < MAX_SEGMENTS {
                    self.idle.push((self.max_ms, ms));
                }
            }
            // The stream's own clock, even where it goes back (a run appended to another).
            self.now_ms = Some(ms);
            self.min_ms = self.min_ms.min(ms);
            self.max_ms = self.max_ms.max(ms);
            self.run.first_ms.get_or_insert(ms);
        }
        self.first_line.get_or_insert(ev.line);
        let at = At {
            line: ev.line,
            ms: self.now_ms,
        };
        self.last = at;
        self.run.records = self.run.records.max(ev.line);
        self.in_subagent = ev.parent.is_some();
        if let Some(a) = ev.agent {
            self.run.agent.get_or_insert_with(|| a.to_owned());
        }
        if let Some(d) = &ev.cwd {
            self.run
                .cwd
                .get_or_insert_with(|| prefix(d, 400).to_owned());
        }
        if let Some(m) = &ev.model {
            self.run
                .model
                .get_or_insert_with(|| prefix(m, 200).to_owned());
        }
        if let Some(s) = &ev.session_id {
            self.run
                .session_id
                .get_or_insert_with(|| prefix(s, 200).to_owned());
        }
        let text = ev.text.as_deref().unwrap_or("");
        match ev.kind {
            Kind::UserPrompt => {
                self.joining = None;
                let c = self.cut(text);
                self.item(ev.line, Entry::Prompt(c));
            }
            Kind::AssistantText | Kind::Thinking => self.text(ev, at, text),
            Kind::ToolStart => self.start(ev, at),
            Kind::ToolEnd => self.end(ev, at),
            Kind::Usage => {
                if let Some(u) = ev.usage {
                    let r = &mut self.run.usage;
                    r.input = r.input.saturating_add(u.input);
                    r.output = r.output.saturating_add(u.output);
                    r.cache_read = r.cache_read.saturating_add(u.cache_read);
                    r.cache_write = r.cache_write.saturating_add(u.cache_write);
                    r.reasoning = r.reasoning.saturating_add(u.reasoning);
                    let total = r.total();
                    self.curve(at, total);
                }
            }
            Kind::Error => {
                self.joining = None;
                let c = self.cut(text);
                self.item(ev.line, Entry::Error(c));
            }
            Kind::End => self.end_of_run(ev, at, text),
            Kind::SessionStart => {}
        }
    }

    fn curve(&mut self, at: At, total: u64) {
        let c = &mut self.run.curve;
        // Positions are settled in `finish`; the line and the clock are both kept here.
        c.push((at.line, total));
        if c.len() >= MAX_CURVE {
            let mut i = 0;
            c.retain(|_| {
                i += 1;
                i % 2 == 0
            });
        }
        if at.ms.is_some() {
            // The latest time seen: the curve only goes forward.
            self.curve_ms.push((self.max_ms, total));
            if self.curve_ms.len() >= MAX_CURVE {
                let mut i = 0;
                self.curve_ms.retain(|_| {
                    i += 1;
                    i % 2 == 0
                });
            }
        }
    }

    fn text(&mut self, ev: &vocab::Event<'_>, at: At, text: &str) {
        let thinking = ev.kind == Kind::Thinking;
        let joins = ev.delta && self.joining == Some(thinking);
        if joins {
            if let Some(seg) = self.run.segments.last_mut()
                && seg.thinking == thinking
            {
                seg.end = at;
            }
            if let Some(mut item) = self.run.items.pop() {
                match &mut item.entry {
                    Entry::Text(c) | Entry::Thinking(c) => {
                        let mut c = std::mem::take(c);
                        self.extend(&mut c, text);
                        item.entry = if thinking {
                            Entry::Thinking(c)
                        } else {
                            Entry::Text(c)
                        };
                    }
                    _ => {}
                }
                self.run.items.push(item);
            }
        } else {
            if self.run.segments.len() < MAX_SEGMENTS {
                self.run.segments.push(Segment {
                    thinking,
                    start: at,
                    end: at,
                });
            }
            let c = self.cut(text);
            self.item(
                ev.line,
                if thinking {
                    Entry::Thinking(c)
                } else {
                    Entry::Text(c)
                },
            );
        }
        self.joining = ev.delta.then_some(thinking);
    }

    fn start(&mut self, ev: &vocab::Event<'_>, at: At) {
        self.joining = None;
        if self.run.calls.len() >= MAX_CALLS {
            self.run.calls_left_out += 1;
            return;
        }
        let id = ev.call_id.as_deref().unwrap_or("");
        let raw = ev.args.map_or("", RawValue::get);
        let args = self.cut(raw);
        let brief = brief(raw, ev.text.as_deref());
        let index = self.run.calls.len();
        self.run.calls.push(Call {
            id: prefix(id, 200).to_owned(),
            name: prefix(ev.name.as_deref().unwrap_or(""), 200).to_owned(),
            kind: kind_index(ev.tool_kind.unwrap_or("other")),
            parent: ev.parent.as_deref().map(|p| prefix(p, 200).to_owned()),
            start: at,
            end: None,
            until: None,
            ok: None,
            rejected: false,
            exit_code: None,
            lines: None,
            duration_ms: None,
            args,
            brief,
            output: Cut::default(),
            row: 0,
        });
        if !id.is_empty() {
            // A second start of an open id takes its place; past the budget the call stays
            // without an end.
            self.open.insert(id, index);
        }
        self.item(ev.line, Entry::Call(index));
    }

    fn end(&mut self, ev: &vocab::Event<'_>, at: At) {
        self.joining = None;
        let id = ev.call_id.as_deref().unwrap_or("");
        let Some(index) = self.open.take(id) else {
            return;
        };
        let output = self.cut(ev.text.as_deref().unwrap_or(""));
        let call = &mut self.run.calls[index];
        call.end = Some(at);
        call.ok = ev.ok;
        call.rejected = ev.rejected;
        call.exit_code = ev.exit_code;
        call.lines = ev.lines;
        call.duration_ms = ev.duration_ms;
        call.output = output;
        // Without its own timestamp a call's start is its end less its duration.
        if let (Some(end), Some(d)) = (at.ms, ev.duration_ms)
            && call.start.ms.is_none_or(|s| s > end.saturating_sub(d))
        {
            call.start.ms = Some(end.saturating_sub(d));
        }
    }

    fn end_of_run(&mut self, ev: &vocab::Event<'_>, at: At, text: &str) {
        self.joining = None;
        if ev.parent.is_some() {
            return;
        }
        // The input ended with the session open: it stays unfinished, and says so.
        let said = ev.outcome.unwrap_or(Outcome::of_ok(ev.ok));
        if said == Outcome::NoResult {
            self.run.outcome = Some(Outcome::NoResult.as_str().to_owned());
            return;
        }
        // What the session left running ends with it on the timeline, still unfinished.
        for i in self.open.drain() {
            self.run.calls[i].until = Some(at);
        }
        self.run.ok = match (self.run.ok, ev.ok) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (_, Some(true)) => Some(true),
            (k, None) => k,
        };
        if let Some(d) = ev.duration_ms {
            self.run.duration_ms = Some(self.run.duration_ms.unwrap_or(0).saturating_add(d));
        }
        // The common form leaves out a cost that is not a finite number.
        if let Some(c) = ev.cost_usd.filter(|c| c.is_finite()) {
            // Counted once per session.
            let key = ev.session_id.as_deref().unwrap_or("").to_owned();
            self.costs.insert(key, c);
        }
        let mut outcome = said.as_str().to_owned();
        if let Some(r) = ev.reason.as_deref() {
            let _ = write!(outcome, " ({})", sjlint_core::agents::id_prefix(r));
        }
        self.run.outcome = Some(outcome.clone());
        let c = self.cut(text);
        self.item(
            ev.line,
            Entry::End {
                ok: ev.ok,
                outcome,
                text: c,
            },
        );
    }

    /// Takes one finding.
    pub(crate) fn finding(&mut self, d: &Diagnostic) {
        if self.run.findings.len() >= MAX_FINDINGS {
            self.run.findings_left_out += 1;
            return;
        }
        self.run.findings.push(Finding {
            rule: d.rule.name(),
            severity: d.severity.as_str(),
            line: d.line,
            message: prefix(&d.message, 2000).to_owned(),
        });
    }

    /// The run, laid out.
    pub(crate) fn finish(mut self) -> Run {
        let mut run = std::mem::take(&mut self.run);
        run.clock = self.ticks;
        if !self.costs.is_empty() {
            run.cost_usd = Some(self.costs.values().sum());
        }
        if run.clock {
            run.t0 = self.min_ms;
            run.t1 = self.max_ms.max(run.t0);
            // A call whose start is its end less its duration may begin before the first stamp.
            let earliest = run.calls.iter().filter_map(|c| c.start.ms).min();
            run.t0 = run.t0.min(earliest.unwrap_or(run.t0));
            if run.duration_ms.is_none() {
                run.duration_ms = Some(run.t1.saturating_sub(run.t0));
            }
            run.curve = std::mem::take(&mut self.curve_ms);
        } else {
            run.t0 = self.first_line.unwrap_or(0);
            run.t1 = self.last.line.max(run.t0);
        }
        let max_end = run
            .calls
            .iter()
            .map(|c| run.end_pos(c))
            .max()
            .unwrap_or(run.t1);
        run.t1 = run.t1.max(max_end);
        if run.clock {
            run.idle = std::mem::take(&mut self.idle);
        }
        lay_out(&mut run);
        run
    }
}

/// The arguments a call is best known by, in the order `render` looks for them.
const BRIEF_KEYS: [&str; 8] = [
    "command",
    "file_path",
    "path",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
];

/// The one argument shown for a call (of its arguments, or of the first of a list of them, or
/// the text the agent gave with the start), cut to a line's worth; empty when none is known.
fn brief(args: &str, text: Option<&str>) -> String {
    use serde_json::Value;
    let v: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let obj = match &v {
        Value::Array(a) => a.first(),
        v => Some(v),
    };
    let found = BRIEF_KEYS.iter().find_map(|k| match obj?.get(k)? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    });
    let main = found.unwrap_or_else(|| text.unwrap_or("").lines().next().unwrap_or("").to_owned());
    prefix(&main, 200).to_owned()
}

/// Greedy lanes per group: a call takes the first lane free at its start. Rows: the main
/// agent's lanes, then each subagent's under it, in the order their calls started.
fn lay_out(run: &mut Run) {
    let index_of: HashMap<&str, usize> = run
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.id.is_empty())
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let groups: Vec<Option<usize>> = run
        .calls
        .iter()
        .map(|c| c.parent.as_deref().and_then(|p| index_of.get(p).copied()))
        .collect();
    drop(index_of);
    // Calls in order of their start within each group.
    let mut order: Vec<usize> = (0..run.calls.len()).collect();
    order.sort_by_key(|&i| {
        (
            groups[i].map_or(0, |g| g + 1),
            run.pos(run.calls[i].start),
            i,
        )
    });
    let mut lanes_of: HashMap<Option<usize>, Lanes> = HashMap::new();
    let mut lane = vec![0usize; run.calls.len()];
    for &i in &order {
        let start = run.pos(run.calls[i].start);
        let end = run.end_pos(&run.calls[i]);
        lane[i] = lanes_of.entry(groups[i]).or_default().take(start, end);
    }
    let mut group_order: Vec<Option<usize>> = lanes_of.keys().copied().collect();
    group_order.sort_by_key(|g| g.map_or(0, |g| g + 1));
    let mut first_row: HashMap<Option<usize>, usize> = HashMap::new();
    for g in group_order {
        first_row.insert(g, run.rows.len());
        for l in 0..lanes_of[&g].count {
            run.rows.push(Row { group: g, lane: l });
        }
    }
    for (i, call) in run.calls.iter_mut().enumerate() {
        call.row = first_row[&groups[i]] + lane[i];
    }
}

/// The lanes of one group: which are busy until when, and which are free.
#[derive(Default)]
struct Lanes {
    busy: BinaryHeap<std::cmp::Reverse<(u64, usize)>>,
    free: BTreeSet<usize>,
    count: usize,
}

impl Lanes {
    fn take(&mut self, start: u64, end: u64) -> usize {
        while let Some(std::cmp::Reverse((e, l))) = self.busy.peek().copied() {
            if e > start {
                break;
            }
            self.busy.pop();
            self.free.insert(l);
        }
        let l = if let Some(l) = self.free.pop_first() {
            l
        } else {
            self.count += 1;
            self.count - 1
        };
        // A call of no length still holds its lane for that instant.
        self.busy
            .push(std::cmp::Reverse((end.max(start.saturating_add(1)), l)));
        l
    }
}

/// A common event of the common form's JSON line (the fields these tests use), as a checker
/// gives it.
#[cfg(test)]
pub(crate) fn test_event(json: &str) -> vocab::Event<'_> {
    use serde_json::Value;
    #[derive(serde::Deserialize)]
    struct Args<'a> {
        #[serde(borrow, default)]
        args: Option<&'a RawValue>,
    }
    let v: Value = serde_json::from_str(json).expect("test event");
    let kind = v["type"]
        .as_str()
        .and_then(Kind::from_name)
        .expect("a kind");
    let mut e = vocab::Event::new(kind, v["line"].as_u64().unwrap_or(0));
    let text = |k: &str| v[k].as_str().map(|s| std::borrow::Cow::Owned(s.to_owned()));
    e.call_id = text("call_id");
    e.name = text("name");
    e.parent = text("parent");
    e.session_id = text("session_id");
    e.text = text("text");
    e.cwd = text("cwd");
    e.tool_kind = v["tool_kind"].as_str().map(|k| {
        *vocab::TOOL_KINDS
            .iter()
            .find(|t| **t == k)
            .expect("a tool kind")
    });
    e.args = serde_json::from_str::<Args<'_>>(json)
        .expect("test event")
        .args;
    e.ok = v["ok"].as_bool();
    e.rejected = v["rejected"].as_bool().unwrap_or(false);
    e.exit_code = v["exit_code"].as_i64();
    e.lines = v["lines"].as_u64();
    e.cost_usd = v["cost_usd"].as_f64();
    e.duration_ms = v["duration_ms"].as_u64();
    e.timestamp_ms = v["timestamp_ms"].as_u64();
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(json: &str) -> vocab::Event<'_> {
        test_event(json)
    }

    #[test]
    fn parallel_calls_take_two_lanes_and_sequential_ones_one() {
        let mut b = Builder::new("t");
        for line in [
            r#"{"type":"tool_start","line":1,"call_id":"a","tool_kind":"shell"}"#,
            r#"{"type":"tool_start","line":2,"call_id":"b","tool_kind":"read"}"#,
            r#"{"type":"tool_end","line":3,"call_id":"a","ok":true}"#,
            r#"{"type":"tool_end","line":4,"call_id":"b","ok":false}"#,
            r#"{"type":"tool_start","line":5,"call_id":"c"}"#,
            r#"{"type":"tool_end","line":6,"call_id":"c"}"#,
        ] {
            b.event(&ev(line), None);
        }
        let run = b.finish();
        assert!(!run.clock);
        let rows: Vec<usize> = run.calls.iter().map(|c| c.row).collect();
        assert_eq!(rows, [0, 1, 0]);
        assert_eq!(run.calls[1].ok, Some(false));
        assert_eq!(run.calls[2].kind, kind_index("other"));
    }

    #[test]
    fn subagent_calls_get_rows_under_the_main_ones_and_unfinished_calls_run_to_the_end() {
        let mut b = Builder::new("t");
        for line in [
            r#"{"type":"tool_start","line":1,"call_id":"task","tool_kind":"subagent","timestamp_ms":1000}"#,
            r#"{"type":"tool_start","line":2,"call_id":"x","parent":"task","timestamp_ms":2000}"#,
            r#"{"type":"tool_end","line":3,"call_id":"x","parent":"task","timestamp_ms":3000}"#,
            r#"{"type":"assistant_text","line":4,"text":"hi","timestamp_ms":20000}"#,
        ] {
            b.event(&ev(line), None);
        }
        let run = b.finish();
        assert!(run.clock);
        assert_eq!(run.rows.len(), 2);
        assert_eq!(run.rows[1].group, Some(0));
        assert_eq!(run.calls[1].row, 1);
        assert_eq!(run.end_pos(&run.calls[0]), 20000);
        assert_eq!(run.idle, [(3000, 20000)]);
    }

    #[test]
    fn texts_are_cut_on_character_boundaries() {
        assert_eq!(prefix("héllo", 2), "h");
        assert_eq!(prefix("ab", 5), "ab");
    }
}
