//! `sjlint fmt --to otlp`: every agent's stream as one OTLP/JSON `ExportTraceServiceRequest`.
//!
//! This module owns the consumer that feeds the common events every agent's checker gives to
//! the span builder (`crate::otlp::Builder`) and writes each span as it ends
//! (`crate::otlp::JsonRequest`), so that a transcript of any length is written holding only
//! what is still open. Times are the records' own, else their arrival times when `sjlint run
//! --save` kept them beside the transcript (`sjlint_core::arrivals`). It must
//! not map any agent's records, nor decide what a span holds.

use super::FmtTotals;
use crate::otlp::{Builder, JsonRequest, Options};
use sjlint_core::agents::Agent;
use sjlint_core::check::{self, CheckOptions, Consumer};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::{Position, Record};
use sjlint_core::vocab::Event;
use std::io::{self, Read, Write};

struct Writer<'o, W: Write, A: FnMut(u64) -> Option<u64>> {
    out: JsonRequest<&'o mut W>,
    builder: Builder<A>,
    invalid: u64,
    /// Records of another agent's run inside the stream, which no span holds.
    foreign: FmtTotals,
    failed: Option<io::Error>,
}

impl<W: Write, A: FnMut(u64) -> Option<u64>> Writer<'_, W, A> {
    fn write_done(&mut self) {
        let agent = self.builder.agent_name();
        for span in self.builder.drain() {
            if self.failed.is_some() {
                continue;
            }
            if let Err(e) = self.out.span(agent, &span) {
                self.failed = Some(e);
            }
        }
    }
}

impl<W: Write, A: FnMut(u64) -> Option<u64>> Consumer for Writer<'_, W, A> {
    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.invalid += 1;
    }

    fn foreign(&mut self, rec: &Record<'_>) {
        self.foreign.left_out_foreign(rec.pos.line);
    }

    fn agent(&mut self, agent: Option<Agent>) {
        self.builder
            .agent(agent.filter(|&a| a != Agent::Common).map(Agent::as_str));
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &Event<'_>) {
        self.builder.event(ev);
        self.write_done();
    }
}

/// `sjlint fmt --to otlp`: the spans of every session of `reader` (of any agent) as one
/// OTLP/JSON request on one line of `out`; with `content`, prompts, texts and tool contents
/// too; timed by `arrivals` where the records carry no time. Findings of the rules `check`
/// enables go to `emit`.
pub fn format<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    content: bool,
    arrivals: Option<&sjlint_core::arrivals::Arrivals>,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    let arrival = |line: u64| arrivals.and_then(|a| a.at(line));
    let mut writer = Writer {
        out: JsonRequest::new(out),
        builder: Builder::new(Options { content }, arrival).max_open_calls(check.max_open_calls),
        invalid: 0,
        foreign: FmtTotals::default(),
        failed: None,
    };
    let totals = check::check_with(reader, check, emit, &mut writer);
    if let Some(e) = writer.failed.take() {
        return Err(e);
    }
    let totals = totals?;
    writer.builder.finish();
    writer.write_done();
    if let Some(e) = writer.failed.take() {
        return Err(e);
    }
    let spans = writer.out.spans();
    writer.out.finish()?;
    Ok(FmtTotals {
        records: totals.records,
        written: spans,
        invalid: writer.invalid,
        foreign: writer.foreign.foreign,
        foreign_line: writer.foreign.foreign_line,
        ..FmtTotals::default()
    })
}
