//! `sjlint fmt`: streams written in canonical form to stdout, or with `--check`, `--diff` and
//! `--write` compared with (and written over) their files.
//!
//! This module owns the loop over `fmt`'s inputs, the report of records left out or kept as
//! `raw` (on stderr, exit 1), and refusing to write a file when that would lose records. The
//! canonical form itself is `crate::fmt`'s; comparing and writing files is `crate::fmt_files`'.

use super::inputs::{
    Input, Opened, cannot_read, input_failure, open_input, stdin, unreadable_input,
};
use super::resolve::FmtConfig;
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use crate::check::CheckOptions;
use crate::cli::FmtArgs;
use crate::diagnostic::Diagnostic;
use crate::fmt::{self, FmtOptions};
use crate::fmt_files::Mode;
use crate::report::{Format, Printer};
use crate::rules::Severity;
use crate::sink::{self, Sink};
use crate::terminal::Terminal;
use crate::text::escape_untrusted;
use anyhow::Context;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

/// `sjlint fmt`: the canonical form on stdout; records left out (or kept as `raw`) are reported
/// on stderr, and make the exit code 1.
pub(super) fn run(args: &FmtArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let FmtConfig {
        inputs,
        check,
        fmt: opts,
        mode,
        color,
    } = FmtConfig::resolve(args, terminal)?;
    let mut printer = Printer::new(Format::Human, io::stderr(), color);
    let stdin_name = inputs.stdin_name.as_str();
    let mut unreadable = inputs.unreadable;
    if let Some(mode) = mode {
        let files = EachFile {
            mode,
            stdin_name,
            check: &check,
            opts: &opts,
        };
        return files.run(&inputs.list, &mut printer, unreadable);
    }
    let mut findings = false;
    for input in &inputs.list {
        let Opened {
            name, reader, live, ..
        } = match open_input(input, stdin_name, false) {
            Ok(opened) => opened,
            Err(e) => {
                unreadable = true;
                unreadable_input(&e)?;
                continue;
            }
        };
        // A live stream goes on line by line; a file in large writes.
        let mut out: Box<dyn Write> = if live {
            Box::new(io::LineWriter::new(Sink(io::stdout().lock())))
        } else {
            Box::new(BufWriter::new(Sink(io::stdout().lock())))
        };
        let mut emit = |d: crate::diagnostic::Diagnostic| -> io::Result<()> {
            if d.severity == Severity::Error {
                findings = true;
                sink::note_exit(EXIT_FINDINGS);
            }
            printer.diagnostic(&name, &d)?;
            printer.flush()
        };
        match fmt::format(reader, &check, &opts, &mut out, &mut emit) {
            Ok(totals) if totals.unfinished > 0 => {
                findings = true;
                sink::note_exit(EXIT_FINDINGS);
                writeln!(
                    io::stderr(),
                    "sjlint: {}: {} with no `result`; nothing written for them",
                    escape_untrusted(&name),
                    sessions(totals.unfinished),
                )?;
            }
            Ok(totals) if totals.texts_left_out > 0 => writeln!(
                io::stderr(),
                "sjlint: {}: {} with more than 64 MiB of assistant text and a `result` without its text; the text was not added to it",
                escape_untrusted(&name),
                sessions(totals.texts_left_out),
            )?,
            Ok(_) => {}
            Err(e) => match input_failure(&name, e)? {
                Some(code) => return Ok(code),
                None => unreadable = true,
            },
        }
    }
    Ok(if unreadable {
        EXIT_USAGE
    } else if findings {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// `fmt --check | --diff | --write`: each input formatted into memory and compared with its
/// bytes; see [`crate::fmt_files`].
struct EachFile<'a> {
    mode: Mode,
    stdin_name: &'a str,
    check: &'a CheckOptions,
    opts: &'a FmtOptions,
}

impl EachFile<'_> {
    fn run(
        &self,
        inputs: &[Input],
        printer: &mut Printer<io::Stderr>,
        mut unreadable: bool,
    ) -> anyhow::Result<u8> {
        let (mode, stdin_name, check, opts) = (self.mode, self.stdin_name, self.check, self.opts);
        let mut outcome = crate::fmt_files::Outcome::default();
        // A file --write left alone because writing would drop records.
        let mut refused = false;
        let mut out = BufWriter::new(io::stdout().lock());
        for input in inputs {
            let (name, path, original) = match input {
                Input::Stdin => {
                    let mut bytes = Vec::new();
                    stdin()
                        .read_to_end(&mut bytes)
                        .with_context(|| format!("cannot read {stdin_name}"))?;
                    (stdin_name.to_owned(), PathBuf::from(stdin_name), bytes)
                }
                Input::File(path) => match std::fs::read(path) {
                    Ok(bytes) => (path.display().to_string(), path.clone(), bytes),
                    Err(e) => {
                        unreadable = true;
                        cannot_read(path, e)?;
                        continue;
                    }
                },
            };
            let mut formatted = Vec::with_capacity(original.len());
            let mut emit = |d: Diagnostic| -> io::Result<()> {
                printer.diagnostic(&name, &d)?;
                printer.flush()
            };
            let totals = fmt::format(&original[..], check, opts, &mut formatted, &mut emit)?;
            let shown = escape_untrusted(&name).into_owned();
            if mode == Mode::Write && totals.invalid > 0 && !opts.keep_invalid {
                // Writing would drop them: nothing is lost without being asked for.
                writeln!(
                    io::stderr(),
                    "sjlint: {shown}: not written: {} and would be left out (--keep-invalid keeps them as raw events)",
                    if totals.invalid == 1 {
                        "1 record is not an event".to_owned()
                    } else {
                        format!("{} records are not events", totals.invalid)
                    }
                )?;
                refused = true;
                continue;
            }
            match crate::fmt_files::one(mode, &path, &shown, &original, &formatted, &mut out) {
                Ok(true) => outcome.changed += 1,
                Ok(false) => outcome.unchanged += 1,
                Err(e) => {
                    unreadable = true;
                    writeln!(io::stderr(), "sjlint: cannot write {shown}: {e}")?;
                }
            }
        }
        out.flush()?;
        let summary = outcome.summary(mode);
        match mode {
            Mode::Diff => writeln!(io::stderr(), "{summary}")?,
            Mode::Check | Mode::Write => writeln!(out, "{summary}")?,
        }
        out.flush()?;
        Ok(if unreadable {
            EXIT_USAGE
        } else if refused || (outcome.changed > 0 && mode != Mode::Write) {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        })
    }
}

/// `1 session`, `2 sessions`.
fn sessions(n: u64) -> String {
    if n == 1 {
        "1 session".to_owned()
    } else {
        format!("{n} sessions")
    }
}
