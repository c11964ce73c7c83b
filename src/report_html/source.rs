//! Where a report's events come from today: the stream is written in the common form in
//! process (as `sjlint fmt --to common` writes it) and each line read back into the model; the
//! findings of the same pass are collected beside them.
//!
//! This is the one adapter between the checker and the page, kept small so it can be swapped
//! for a direct feed of common events once every agent produces them. It owns only that
//! plumbing: it must not lay out, count or write HTML.

use super::model::{Builder, Ev, MAX_FINDINGS, Run};
use crate::check::CheckOptions;
use crate::diagnostic::Diagnostic;
use std::io::{self, Read, Write};

/// Reads a whole stream into a [`Run`] named `name`. `keep` says which findings the page shows
/// (the settings of `check` for this input); the others are dropped. A read error ends the
/// reading and is returned with nothing built.
pub(crate) fn read_run(
    name: &str,
    reader: impl Read,
    check: &CheckOptions,
    keep: &mut dyn FnMut(&Diagnostic) -> Option<Diagnostic>,
) -> io::Result<Run> {
    let mut lines = Lines {
        pending: Vec::new(),
        builder: Builder::new(name),
    };
    // Bounded as the model's list is: past the cap findings are only counted.
    let mut findings = Vec::new();
    let mut left_out = 0;
    let mut emit = |d: Diagnostic| {
        if let Some(d) = keep(&d) {
            if findings.len() < MAX_FINDINGS {
                findings.push(d);
            } else {
                left_out += 1;
            }
        }
        Ok(())
    };
    crate::fmt::to_common::format(reader, check, &mut lines, &mut emit)?;
    lines.flush_line();
    let mut builder = lines.builder;
    for d in &findings {
        builder.finding(d);
    }
    builder.findings_left_out(left_out);
    Ok(builder.finish())
}

/// A writer that hands each complete line of the common form to the builder.
struct Lines {
    /// The part of a line written so far (one line at most).
    pending: Vec<u8>,
    builder: Builder,
}

impl Lines {
    fn flush_line(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        // The common form is sjlint's own JSON: a line that does not read back is skipped.
        if let Ok(ev) = serde_json::from_slice::<Ev<'_>>(&self.pending) {
            self.builder.event(&ev);
        }
        self.pending.clear();
    }
}

impl Write for Lines {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let n = buf.len();
        while let Some(i) = memchr::memchr(b'\n', buf) {
            self.pending.extend_from_slice(&buf[..i]);
            self.flush_line();
            buf = &buf[i + 1..];
        }
        self.pending.extend_from_slice(buf);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
