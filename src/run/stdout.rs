//! The agent's stdout: forwarded byte for byte, and checked on the way.
//!
//! This module owns the thread body that copies the agent's stdout to sjlint's stdout and to
//! the `--save` transcript while the pipeline checks it exactly as `check --tee` checks
//! standard input, and the [`Consumer`] that reads the stream beside the validator in a run:
//! the statistics of the summary, the status line, and the session state the timers follow.
//! Findings are printed as they come, except the `truncated-record` of a record that sjlint cut
//! short itself, by ending the agent after its result: that one is kept aside for a note. A
//! failed write to sjlint's stdout is kept to say what it was. It must not decide when the
//! agent is ended (it tells the supervisor what changed) nor what the findings mean for the
//! exit code.

use super::Msg;
use super::judge::Judge;
use super::pipe::PipeReader;
use super::session::Session;
use sjlint_core::check::{self, CheckOptions, Consumer, Tee};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::{Position, Record};
use sjlint_core::rules::Rule;
use sjlint_core::vocab;
use sjlint_outputs::report::Printer;
use sjlint_outputs::report_html::{Collect, Run};
use sjlint_outputs::stats::{Collector, Findings, Stats};
use sjlint_outputs::status::Live;
use sjlint_outputs::usage::{Meter, Prices};
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::Sender;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// A printer of findings, to stderr or a file.
pub(super) type FindingPrinter = Printer<Box<dyn Write + Send>>;

/// What the stdout thread found.
pub(super) struct Checked {
    pub(super) read: io::Result<()>,
    pub(super) totals: check::Totals,
    pub(super) stats: Stats,
    pub(super) findings: Findings,
    pub(super) printer: FindingPrinter,
    /// GitHub Actions annotations of every finding, on stderr, beside the chosen format.
    pub(super) annotations: Option<FindingPrinter>,
    /// Writing the transcript failed (the forwarding went on).
    pub(super) save_error: Option<io::Error>,
    /// Writing to sjlint's own stdout failed (closed, or full): the reading stopped there.
    pub(super) out_error: Option<io::Error>,
    /// The `truncated-record` of a record sjlint cut short when it ended the agent after its
    /// result: not the stream's fault, so it is only noted.
    pub(super) cut: Option<Diagnostic>,
    /// The file name findings are reported under.
    pub(super) name: String,
    /// What is reported, and the collapsed findings' count.
    pub(super) judge: Judge,
    /// `empty-stream` of a stream with no record: `agent-wrote-no-events` says more, so it is
    /// reported only when that rule is not enabled.
    pub(super) empty: Option<Diagnostic>,
    /// What the stream lacks because sjlint ended a stalled agent (`missing-result`,
    /// `unfinished-tool-call`, `truncated-record`): notes of the stall's finding, not findings
    /// of their own (at most [`MAX_CONSEQUENCES`], then counted).
    pub(super) consequences: Vec<Diagnostic>,
    pub(super) more_consequences: u64,
    /// The findings reported, for the summary (bounded), and how many more.
    pub(super) listed: Vec<super::outcome::FindingItem>,
    pub(super) listed_more: u64,
    /// What the stream says of itself, for the summary.
    pub(super) said: Said,
    /// `--otlp-endpoint`: the exporter, with the run's last spans handed to it.
    pub(super) exporter: Option<crate::run::export::Exporter>,
    /// `--report`: the run's page, laid out.
    pub(super) page: Option<Run>,
}

/// What the stream says that the summary reports: the ids to resume it, the model, the result
/// text (bounded).
#[derive(Default)]
pub(super) struct Said {
    pub(super) session_id: Option<String>,
    pub(super) model: Option<String>,
    pub(super) result_text: Option<String>,
    pub(super) result_text_bytes: u64,
}

/// When the record being read arrived: when the read that completed it returned (Unix ms).
#[derive(Clone, Copy)]
pub(super) struct Clock<'a> {
    pub(super) activity: &'a super::pipe::Activity,
    pub(super) start_unix_ms: u64,
}

impl Clock<'_> {
    fn now(&self) -> u64 {
        self.start_unix_ms
            .saturating_add(self.activity.last_read_ms())
    }
}

/// How the stdout thread reports findings: its printers, the judge of what is reported, the
/// check's options and the name findings are reported under.
pub(super) struct Judging {
    pub(super) printers: (FindingPrinter, Option<FindingPrinter>),
    pub(super) judge: Judge,
    pub(super) check: CheckOptions,
    pub(super) name: String,
}

/// The reads whose time is kept for the events of records already seen.
const ARRIVALS_KEPT: usize = 16;

/// What the stdout thread keeps besides the findings and the statistics, each when asked for.
pub(super) struct Beside<'a> {
    pub(super) clock: Clock<'a>,
    /// `--save`'s sidecar: the arrival time of each record.
    pub(super) arrivals: Option<&'a Mutex<sjlint_core::arrivals::Writer>>,
    /// `--otlp-endpoint`: the run's spans, built as its events arrive.
    pub(super) tracing: Option<super::tracing::Tracing>,
    /// `--report`: the run's page is collected from this same reading (its findings graded by
    /// the settings alone, as `sjlint report` grades a transcript's).
    pub(super) page: bool,
}

/// The consequences of a stall kept as notes of its finding; the rest are counted.
pub(super) const MAX_CONSEQUENCES: usize = 8;

/// What a run keeps of the stream's findings for after the stream (see [`Checked`]).
#[derive(Default)]
struct Kept {
    consequences: Vec<Diagnostic>,
    more_consequences: u64,
    listed: Vec<super::outcome::FindingItem>,
    listed_more: u64,
}

impl Kept {
    fn consequence(&mut self, d: Diagnostic) {
        if self.consequences.len() < MAX_CONSEQUENCES {
            self.consequences.push(d);
        } else {
            self.more_consequences += 1;
        }
    }

    fn list(&mut self, d: &Diagnostic) {
        if self.listed.len() < super::outcome::FINDINGS_LISTED {
            self.listed.push(super::outcome::FindingItem::of(d));
        } else {
            self.listed_more += 1;
        }
    }
}

/// Where a finding of the stream goes in a run, besides being reported.
enum Aside {
    /// Reported.
    No,
    /// `empty-stream` of a stream with no record (see [`Checked::empty`]).
    Empty,
    /// The record sjlint cut short after the result (see [`Checked::cut`]).
    Cut,
    /// What follows from ending a stalled agent (see [`Checked::consequences`]).
    Consequence,
}

fn aside(d: &Diagnostic, session: &Mutex<Session>) -> Aside {
    if d.rule == Rule::EmptyStream && d.record == 0 {
        return Aside::Empty;
    }
    if !matches!(
        d.rule,
        Rule::MissingResult | Rule::UnfinishedToolCall | Rule::TruncatedRecord
    ) {
        return Aside::No;
    }
    let s = session
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if d.rule == Rule::TruncatedRecord && s.cut_after_result {
        Aside::Cut
    } else if s.ended_by_stall {
        Aside::Consequence
    } else {
        Aside::No
    }
}

/// Where each finding of the stream goes in a run: set aside (see [`Aside`]), or judged,
/// counted, listed for the summary, and printed.
struct Reported<'a> {
    name: &'a str,
    session: &'a Mutex<Session>,
    live: Option<&'a Live>,
    printer: FindingPrinter,
    annotations: Option<FindingPrinter>,
    judge: Judge,
    findings: Findings,
    kept: Kept,
    empty: Option<Diagnostic>,
    cut: Option<Diagnostic>,
    /// `--report`'s page, which shows every finding the settings report, set aside or not.
    page: Option<&'a RefCell<Collect>>,
}

impl<'a> Reported<'a> {
    fn new(
        name: &'a str,
        session: &'a Mutex<Session>,
        live: Option<&'a Live>,
        (printer, annotations): (FindingPrinter, Option<FindingPrinter>),
        judge: Judge,
        page: Option<&'a RefCell<Collect>>,
    ) -> Reported<'a> {
        let mut reported = Reported {
            name,
            session,
            live,
            printer,
            annotations,
            judge,
            findings: Findings::default(),
            kept: Kept::default(),
            empty: None,
            cut: None,
            page,
        };
        let _ = reported.printer.begin_file(name);
        reported
    }

    fn finding(&mut self, d: Diagnostic) -> io::Result<()> {
        if let Some(page) = self.page
            && let Some(d) = self.judge.graded(&d)
        {
            page.borrow_mut().finding(&d);
        }
        match aside(&d, self.session) {
            Aside::No => {}
            Aside::Empty => {
                self.empty = Some(d);
                return Ok(());
            }
            Aside::Cut => {
                self.cut = Some(d);
                return Ok(());
            }
            Aside::Consequence => {
                self.kept.consequence(d);
                return Ok(());
            }
        }
        let Some(d) = self.judge.judge(&d) else {
            return Ok(());
        };
        self.findings.count(d.severity);
        self.kept.list(&d);
        if let Some(live) = self.live {
            live.finding(d.severity);
        }
        // In the order `check` writes them: the finding, its annotation (every finding is
        // one: collapsing is for the human output only), then the finding flushed.
        let shown = self.judge.shown(&d);
        if shown {
            self.printer.diagnostic(self.name, &d)?;
        }
        if let Some(annotations) = &mut self.annotations {
            annotations.diagnostic(self.name, &d)?;
            annotations.flush()?;
        }
        if shown {
            self.printer.flush()?;
        }
        Ok(())
    }
}

/// The agent's stdout to sjlint's stdout (and the transcript), byte for byte as it arrives;
/// on the way it is checked exactly as `check --tee` checks standard input.
pub(super) fn check_stdout(
    reader: PipeReader,
    save: Option<File>,
    judging: Judging,
    session: &Mutex<Session>,
    live: Option<&Live>,
    tx: Sender<Msg>,
    beside: Beside<'_>,
) -> Checked {
    let Judging {
        printers,
        judge,
        check: opts,
        name,
    } = judging;
    let (opts, name) = (&opts, name.as_str());
    let common_out = RefCell::new(CommonOut::new());
    let common_out = CommonOut::wanted(session).then_some(&common_out);
    let mut forward = Forward {
        out: io::stdout(),
        save,
        save_error: None,
        out_error: None,
        common: common_out,
        redact: opts
            .redact
            .map(|r| (r, sjlint_core::redact::Lines::default())),
    };
    let Beside {
        clock,
        arrivals,
        tracing,
        page,
    } = beside;
    let collect = page.then(|| RefCell::new(Collect::new(name)));
    let page = collect.as_ref();
    let mut observer = Observer {
        session,
        tx: tx.clone(),
        stats: Collector::new(),
        meter: session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .budgets
            .max_cost
            .map(|_| Meter::default()),
        live,
        changed: false,
        said: Said::default(),
        common_out,
        clock,
        arrivals_kept: std::collections::VecDeque::new(),
        last_line: 0,
        arrivals,
        tracing,
        page,
    };
    let mut totals = check::Totals::default();
    let mut reported = Reported::new(name, session, live, printers, judge, page);
    let read = check::check_into(
        Tee::new(reader, &mut forward),
        opts,
        &mut |d| reported.finding(d),
        &mut observer,
        &mut totals,
    );
    forward.finish();
    // sjlint's stdout failed (closed, most often) or the agent's pipe could not be read:
    // nothing reads the agent's output any more, so it must be ended rather than left blocked.
    let closed = read.is_err();
    let full = forward
        .out_error
        .as_ref()
        .is_some_and(|e| e.kind() != io::ErrorKind::BrokenPipe);
    let _ = tx.send(Msg::StdoutDone { closed, full });
    let Reported {
        printer,
        annotations,
        judge,
        findings,
        kept,
        empty,
        cut,
        ..
    } = reported;
    let exporter = observer.tracing.take().map(super::tracing::Tracing::finish);
    let stats = observer
        .stats
        .finish(totals.records, totals.bytes, findings);
    Checked {
        read,
        totals,
        stats,
        findings,
        printer,
        annotations,
        save_error: forward.save_error,
        out_error: forward.out_error,
        cut,
        consequences: kept.consequences,
        more_consequences: kept.more_consequences,
        listed: kept.listed,
        listed_more: kept.listed_more,
        said: observer.said,
        exporter,
        page: collect.map(|c| c.into_inner().finish()),
        name: name.to_owned(),
        judge,
        empty,
    }
}

/// sjlint's stdout and the transcript.
struct Forward<'c> {
    out: io::Stdout,
    save: Option<File>,
    save_error: Option<io::Error>,
    /// The first error of sjlint's stdout, kept to say what it was.
    out_error: Option<io::Error>,
    /// `--to common`: the common events go to stdout (written by the [`Observer`]), and the
    /// agent's bytes only to the transcript; a failed write of the events stops the reading
    /// here, at the next bytes.
    common: Option<&'c RefCell<CommonOut>>,
    /// `--redact`: the agent's bytes are written line by line, each redacted once its end has
    /// come.
    redact: Option<(
        &'static sjlint_core::redact::Redactor,
        sjlint_core::redact::Lines,
    )>,
}

impl Forward<'_> {
    /// What `buf` gives to write: itself, or with `--redact` the lines it ends, redacted.
    fn redacted(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.redact.take() {
            Some((redactor, mut lines)) => {
                let mut chunk = Vec::new();
                lines.push(redactor, buf, &mut chunk);
                self.redact = Some((redactor, lines));
                self.through(&chunk)
            }
            None => self.through(buf),
        }
    }

    /// The agent's stream ended: with `--redact`, the last line held (one without its end).
    fn finish(&mut self) {
        if let Some((redactor, mut lines)) = self.redact.take() {
            let mut chunk = Vec::new();
            lines.finish(redactor, &mut chunk);
            let _ = self.through(&chunk).and_then(|()| self.flush());
        }
    }

    /// `bytes` to sjlint's stdout (but with `--to common`) and the transcript.
    fn through(&mut self, buf: &[u8]) -> io::Result<()> {
        let written = match self.common {
            Some(c) => match c.borrow_mut().error.take() {
                Some(e) => Err(e),
                None => Ok(()),
            },
            None => self.out.write_all(buf),
        };
        if let Err(e) = written {
            let returned = io::Error::new(e.kind(), e.to_string());
            self.out_error = Some(e);
            return Err(returned);
        }
        if let Some(file) = &mut self.save
            && let Err(e) = file.write_all(buf)
        {
            self.save = None;
            self.save_error = Some(e);
        }
        Ok(())
    }
}

/// sjlint's stdout under `--to common`, shared by the [`Observer`] that writes the events and
/// the [`Forward`] that stops the reading when writing failed.
struct CommonOut {
    out: io::Stdout,
    line: Vec<u8>,
    error: Option<io::Error>,
}

impl CommonOut {
    fn new() -> CommonOut {
        CommonOut {
            out: io::stdout(),
            line: Vec::new(),
            error: None,
        }
    }

    /// Whether the run was asked for `--to common`.
    fn wanted(session: &Mutex<Session>) -> bool {
        session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .to_common
    }
}

impl Write for Forward<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.redacted(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.common.is_some() {
            return Ok(());
        }
        self.out.flush()
    }
}

/// The bundled price list, parsed when a cost budget first needs it.
static PRICES: std::sync::LazyLock<Prices> = std::sync::LazyLock::new(Prices::bundled);

/// What reads the stream beside the validator in a run: the statistics of the summary, the
/// status line, and the session state the timers follow.
struct Observer<'a> {
    session: &'a Mutex<Session>,
    tx: Sender<Msg>,
    stats: Collector,
    /// The stream priced by the list, for a cost budget while the agent has said no cost.
    meter: Option<Meter>,
    live: Option<&'a Live>,
    /// A common event of the record being read changed the timers.
    changed: bool,
    said: Said,
    /// `--to common`: where the common events are written, each as it is known.
    common_out: Option<&'a RefCell<CommonOut>>,
    clock: Clock<'a>,
    /// When the last records arrived: the first line of each read, and its time, for the
    /// events of records already seen (the input's end names its last records).
    arrivals_kept: std::collections::VecDeque<(u64, u64)>,
    /// The line of the last record that arrived.
    last_line: u64,
    /// `--save`: the arrival time of each record.
    arrivals: Option<&'a Mutex<sjlint_core::arrivals::Writer>>,
    /// `--otlp-endpoint`: the run's spans, built as its events arrive.
    tracing: Option<super::tracing::Tracing>,
    /// `--report`: the run's page.
    page: Option<&'a RefCell<Collect>>,
}

impl Observer<'_> {
    fn session(&self) -> MutexGuard<'_, Session> {
        self.session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The record starting on `line` arrived now, unless it is one seen before: then when it
    /// did (as the sidecar says it to `report`).
    fn arrived(&mut self, line: u64) -> u64 {
        if let Some(&(_, t)) = self.arrivals_kept.back()
            && line <= self.last_line
        {
            // The time of the newest read kept that began at or before `line` (the oldest
            // kept, past them).
            return self
                .arrivals_kept
                .iter()
                .rev()
                .find(|&&(l, _)| l <= line)
                .or(self.arrivals_kept.front())
                .map_or(t, |&(_, t)| t);
        }
        let t = self.clock.now();
        self.last_line = line;
        // Records of one read share its time: the first line of each is kept.
        if self.arrivals_kept.back().is_none_or(|&(_, last)| last != t) {
            if self.arrivals_kept.len() == ARRIVALS_KEPT {
                self.arrivals_kept.pop_front();
            }
            self.arrivals_kept.push_back((line, t));
        }
        if let Some(w) = self.arrivals {
            w.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .record(line, t);
        }
        t
    }
}

impl Consumer for Observer<'_> {
    fn agent(&mut self, agent: Option<sjlint_core::agents::Agent>) {
        self.stats.agent(agent);
        if let Some(page) = self.page {
            page.borrow_mut().agent(agent);
        }
        if let Some(t) = &mut self.tracing {
            t.agent(
                agent
                    .filter(|&a| a != sjlint_core::agents::Agent::Common)
                    .map(sjlint_core::agents::Agent::as_str),
            );
        }
        if let Some(mut live) = self.live {
            live.agent(agent);
        }
        if agent.is_some() {
            self.session().agent = agent;
            let _ = self.tx.send(Msg::Changed);
        }
    }

    /// Every agent's stream is followed through its common events.
    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        if let Some(c) = self.common_out {
            let mut c = c.borrow_mut();
            if c.error.is_none() {
                let CommonOut { out, line, error } = &mut *c;
                line.clear();
                vocab::write_line(ev, line);
                if let Err(e) = out.write_all(line).and_then(|()| out.flush()) {
                    // Nothing reads the events any more: the run ends as when the agent's bytes
                    // could not be forwarded.
                    let full = e.kind() != io::ErrorKind::BrokenPipe;
                    *error = Some(e);
                    let _ = self.tx.send(Msg::StdoutDone { closed: true, full });
                }
            }
        }
        self.stats.common(ev);
        if let Some(meter) = &mut self.meter {
            meter.common(ev, &PRICES);
            if ev.kind == vocab::Kind::Usage && ev.usage.is_some_and(|t| !t.is_zero()) {
                let priced = meter.cost().is_some();
                self.session().priced.get_or_insert(priced);
            }
        }
        if let Some(t) = &mut self.tracing {
            t.event(ev);
        }
        // An event of a new record arrived with the last read; one of a record already seen
        // (the input's end, after its last record) when that record did, as the sidecar says
        // to `report`. Kept for the sidecar now, so that an event of the input's end has its
        // time there too.
        let arrived = self.arrived(ev.line);
        if let Some(page) = self.page {
            page.borrow_mut().common(ev, Some(arrived));
        }
        let said = &mut self.said;
        match ev.kind {
            vocab::Kind::SessionStart | vocab::Kind::End => {
                if said.session_id.is_none()
                    && let Some(id) = &ev.session_id
                {
                    said.session_id = Some(sjlint_core::agents::id_prefix(id).to_owned());
                }
                if said.model.is_none()
                    && let Some(m) = &ev.model
                {
                    said.model = Some(sjlint_core::agents::id_prefix(m).to_owned());
                }
                if ev.kind == vocab::Kind::End && ev.outcome != Some(vocab::Outcome::NoResult) {
                    said.result_text = ev.text.as_deref().map(|t| {
                        t.chars()
                            .take(super::outcome::RESULT_TEXT_CHARS)
                            .collect::<String>()
                    });
                    said.result_text_bytes = ev.text.as_deref().map_or(0, |t| t.len() as u64);
                }
            }
            _ => {}
        }
        if let Some(mut live) = self.live {
            live.common(ev);
        }
        let mut changed = self.session().observe_common(ev, Instant::now());
        if self.session().budgets.any() {
            let (tokens, cost) = self.stats.spent();
            // The agent's own figure once it says one; until then, the list's.
            let cost = cost.or_else(|| self.meter.as_ref().and_then(Meter::cost));
            changed |= self.session().spend(tokens, cost, ev.line);
        }
        // The record follows: the timers hear of both then.
        self.changed |= changed;
    }

    /// A record, after its common events (of an input no agent sjlint knows: the only word of
    /// it).
    fn agent_record(&mut self, rec: &Record<'_>, json: &str, read: &check::Checked<'_, '_>) {
        self.arrived(rec.pos.line);
        self.stats.agent_record(rec, json, read);
        // The record's own type names the last event, as the agent wrote it.
        let goes_on = self
            .session()
            .observe_record(rec.pos.line, read.ty(), read.subtype());
        if std::mem::take(&mut self.changed) | goes_on {
            let _ = self.tx.send(Msg::Changed);
        }
    }

    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        self.arrived(pos.line);
        self.stats.invalid(pos, bytes);
        if let Some(mut live) = self.live {
            live.invalid(pos, bytes);
        }
        if self.session().observe_invalid(pos.line) {
            let _ = self.tx.send(Msg::Changed);
        }
    }
}
