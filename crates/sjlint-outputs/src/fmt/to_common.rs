//! `sjlint fmt --to common`: every agent's stream written in the common form, one event a line.
//!
//! This module owns the writer of that form: it takes the common events every agent's checker
//! gives (cursor-agent's included, mapped by `sjlint_core::agents::cursor`), names the input's agent on
//! the first event, and counts what it wrote. It must not map any agent's records itself.

use super::FmtTotals;
use sjlint_core::agents::Agent;
use sjlint_core::check::{self, CheckOptions, Consumer};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::{Position, Record};
use sjlint_core::vocab::{Event, Named};
use std::io::{self, Read, Write};

/// Writes every agent's stream as common events (`sjlint fmt --to common`); see [`format`].
struct Writer<'o, W: Write> {
    out: &'o mut W,
    line: Vec<u8>,
    totals: FmtTotals,
    failed: Option<io::Error>,
    /// Names the agent of the input on the first event written.
    named: Named,
}

impl<W: Write> Writer<'_, W> {
    fn write(&mut self, ev: &Event<'_>) {
        if self.failed.is_some() {
            return;
        }
        self.line.clear();
        self.named.write(ev, &mut self.line);
        match self.out.write_all(&self.line) {
            Ok(()) => self.totals.written += 1,
            Err(e) => self.failed = Some(e),
        }
    }
}

impl<W: Write> Consumer for Writer<'_, W> {
    fn invalid(&mut self, _pos: Position, _bytes: &[u8]) {
        self.totals.invalid += 1;
    }

    fn foreign(&mut self, rec: &Record<'_>) {
        self.totals.left_out_foreign(rec.pos.line);
    }

    fn agent(&mut self, agent: Option<Agent>) {
        self.totals.agent = agent;
        self.named
            .set(agent.filter(|&a| a != Agent::Common).map(Agent::as_str));
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &Event<'_>) {
        self.write(ev);
    }
}

/// `sjlint fmt --to common`: every event of `reader` (of any agent) in the common form on
/// `out`. Findings of the rules `check` enables go to `emit`.
pub fn format<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    let mut writer = Writer {
        out,
        line: Vec::with_capacity(4096),
        totals: FmtTotals::default(),
        failed: None,
        named: Named::default(),
    };
    let totals = check::check_with(reader, check, emit, &mut writer);
    if let Some(e) = writer.failed.take() {
        return Err(e);
    }
    let totals = totals?;
    writer.out.flush()?;
    let mut t = writer.totals;
    // Records reach the writer as common events (none, one or several a record).
    t.records = totals.records;
    Ok(t)
}
