//! `sjlint fmt --to otlp`: every agent's stream as one OTLP/JSON `ExportTraceServiceRequest`.
//!
//! This module owns the consumer that feeds the common events every agent's checker gives to
//! the span builder (`crate::otlp::Builder`) and writes each span as it ends
//! (`crate::otlp::JsonRequest`), so that a transcript of any length is written holding only
//! what is still open. Times are the records' own; a transcript has no arrival times. It must
//! not map any agent's records, nor decide what a span holds.

use super::FmtTotals;
use crate::agents::Agent;
use crate::check::{self, CheckOptions, Consumer};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::otlp::{Builder, JsonRequest, Options};
use crate::vocab::Event;
use std::io::{self, Read, Write};

/// The arrival time of a line: none in a transcript.
type NoArrival = fn(u64) -> Option<u64>;

struct Writer<'o, W: Write> {
    out: JsonRequest<&'o mut W>,
    builder: Builder<NoArrival>,
    invalid: u64,
    failed: Option<io::Error>,
}

impl<W: Write> Writer<'_, W> {
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

impl<W: Write> Consumer for Writer<'_, W> {
    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.invalid += 1;
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
/// too. Findings of the rules `check` enables go to `emit`.
pub fn format<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    content: bool,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    let no_arrival: NoArrival = |_| None;
    let mut writer = Writer {
        out: JsonRequest::new(out),
        builder: Builder::new(Options { content }, no_arrival).max_open_calls(check.max_open_calls),
        invalid: 0,
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
        ..FmtTotals::default()
    })
}
