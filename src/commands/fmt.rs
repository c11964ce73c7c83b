//! `sjlint fmt`: streams written in canonical form to stdout, or with `--check`, `--diff` and
//! `--write` compared with (and written over) their files.
//!
//! This module owns the loop over `fmt`'s inputs, the report of records left out or kept as
//! `raw` (on stderr, exit 1), what is said of each file of `--check`, `--diff` and `--write`
//! and the exit code it calls for (noted as it goes, so that a closed stdout keeps it), leaving
//! alone a stream that has no lossless canonical form (another agent's), and refusing to write
//! a file when that would lose records. The canonical form itself is `sjlint_outputs::fmt`'s; comparing
//! and writing files is `crate::fmt_files`'.

use super::inputs::{
    Input, Opened, cannot_read, input_failure, open_input, stdin, unreadable_input,
};
use super::resolve::FmtConfig;
use super::stdio;
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use crate::cli::FmtArgs;
use crate::fmt_files::{Compare, Mode, NotWritten, Target, Window};
use anyhow::Context;
use sjlint_core::agents::Agent;
use sjlint_core::check::CheckOptions;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::compressed;
use sjlint_core::rules::Severity;
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::fmt::{self, FmtOptions, Target as To};
use sjlint_outputs::report::{Format, Printer};
use sjlint_outputs::sink::{self, Sink};
use sjlint_outputs::terminal::Terminal;
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

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
    let mut printer = Printer::new(Format::Human, stdio::stderr(), color);
    let stdin_name = inputs.stdin_name.as_str();
    let mut unreadable = inputs.unreadable;
    if let Some(mode) = mode {
        let files = EachFile {
            mode,
            stdin_name,
            check: &check,
            opts: FmtOptions {
                lossless: true,
                ..opts
            },
            named: &args.paths,
            force: args.force,
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
            Box::new(io::LineWriter::new(Sink(stdio::stdout())))
        } else {
            Box::new(BufWriter::new(Sink(stdio::stdout())))
        };
        let mut emit = |d: sjlint_core::diagnostic::Diagnostic| -> io::Result<()> {
            if d.severity == Severity::Error {
                findings = true;
                sink::note_exit(EXIT_FINDINGS);
            }
            printer.diagnostic(&name, &d)?;
            printer.flush()
        };
        let arrivals = arrivals_of(input, opts.to);
        match fmt::format_timed(
            reader,
            &check,
            &opts,
            arrivals.as_ref(),
            &mut out,
            &mut emit,
        ) {
            Ok(totals) => match said_of(&name, &totals, opts.to)? {
                Some(EXIT_USAGE) => unreadable = true,
                Some(_) => findings = true,
                None => {}
            },
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

/// What is said of one input `fmt` wrote to stdout, on stderr: the records or sessions it left
/// out, or why it wrote nothing. The exit code that calls for (noted already), if any.
fn said_of(name: &str, totals: &fmt::FmtTotals, to: To) -> io::Result<Option<u8>> {
    let name = escape_untrusted(name);
    if to == To::Json
        && let Some(agent) = other_agent(totals.agent)
    {
        sink::note_exit(EXIT_USAGE);
        writeln!(
            stdio::stderr(),
            "sjlint: {name}: nothing written: --to json builds cursor-agent's `--output-format json` result object, and this is {} (--to common writes any agent's events)",
            a_stream_of(agent),
        )?;
        return Ok(Some(EXIT_USAGE));
    }
    if to == To::Common && totals.agent.is_none() && totals.written == 0 && totals.records > 0 {
        sink::note_exit(EXIT_USAGE);
        writeln!(
            stdio::stderr(),
            "sjlint: {name}: nothing written: no agent sjlint knows wrote this stream, so it has no common form (`sjlint check` says what its records are; --agent names the agent when detection cannot)",
        )?;
        return Ok(Some(EXIT_USAGE));
    }
    if totals.foreign > 0 {
        sink::note_exit(EXIT_FINDINGS);
        writeln!(stdio::stderr(), "sjlint: {name}: {}", foreign(totals))?;
        return Ok(Some(EXIT_FINDINGS));
    }
    if totals.unfinished > 0 {
        sink::note_exit(EXIT_FINDINGS);
        writeln!(
            stdio::stderr(),
            "sjlint: {name}: {} with no `result`; nothing written for them",
            sessions(totals.unfinished),
        )?;
        return Ok(Some(EXIT_FINDINGS));
    }
    if totals.texts_left_out > 0 {
        writeln!(
            stdio::stderr(),
            "sjlint: {name}: {} with more than 64 MiB of assistant text and a `result` without its text; the text was not added to it",
            sessions(totals.texts_left_out),
        )?;
    }
    Ok(None)
}

/// `fmt --check | --diff | --write`: each input formatted and compared with its bytes; see
/// [`crate::fmt_files`]. Only a form that keeps every byte of meaning is written or asked for:
/// another agent's stream (which has none yet) is left as it is.
struct EachFile<'a> {
    mode: Mode,
    stdin_name: &'a str,
    check: &'a CheckOptions,
    opts: FmtOptions,
    /// The paths named on the command line; any other file was found in a directory walk.
    named: &'a [PathBuf],
    /// `--force`: read-only and hard-linked files are written too.
    force: bool,
}

/// What became of one file.
enum Verdict {
    Changed,
    Unchanged,
    /// Not read, not written, or left alone: the exit code it calls for.
    NotDone(u8),
    /// Interrupted (Ctrl-C, SIGTERM): the run ends with this code.
    Stop(u8),
}

impl EachFile<'_> {
    fn run(
        &self,
        inputs: &[Input],
        printer: &mut Printer<stdio::Out>,
        unreadable: bool,
    ) -> anyhow::Result<u8> {
        let mut outcome = crate::fmt_files::Outcome::default();
        let mut code = if unreadable { EXIT_USAGE } else { EXIT_OK };
        sink::note_exit(code);
        // A closed stdout ends the run quietly, with the exit code noted so far.
        let mut out = BufWriter::new(Sink(stdio::stdout()));
        for input in inputs {
            let verdict = match input {
                Input::Stdin => self.stdin(printer, &mut out)?,
                Input::File(path) if self.mode == Mode::Write => self.write(path, printer)?,
                Input::File(path) => self.compare(path, printer, &mut out)?,
            };
            let file_code = match verdict {
                Verdict::Changed => {
                    outcome.changed += 1;
                    if self.mode == Mode::Write {
                        EXIT_OK
                    } else {
                        EXIT_FINDINGS
                    }
                }
                Verdict::Unchanged => {
                    outcome.unchanged += 1;
                    EXIT_OK
                }
                Verdict::NotDone(c) => {
                    outcome.failed += 1;
                    c
                }
                Verdict::Stop(c) => return Ok(c),
            };
            code = code.max(file_code);
        }
        out.flush()?;
        let summary = outcome.summary(self.mode);
        match self.mode {
            Mode::Diff => writeln!(stdio::stderr(), "{summary}")?,
            Mode::Check | Mode::Write => writeln!(out, "{summary}")?,
        }
        out.flush()?;
        Ok(code)
    }

    /// Standard input, compared with its canonical form (`--write` refuses it up front).
    fn stdin<W: Write>(
        &self,
        printer: &mut Printer<stdio::Out>,
        out: &mut W,
    ) -> anyhow::Result<Verdict> {
        if self.mode != Mode::Diff {
            let window = self.streamed();
            let compared = Compare::streamed(&window);
            return self.check_one(self.stdin_name, &window, stdin(), compared, printer, out);
        }
        // Kept in a temporary file, which can be read again as a file is.
        let file = match crate::fmt_files::kept(stdin()) {
            Ok(file) => file,
            Err((true, e)) => {
                return Err(e).with_context(|| format!("cannot read {}", self.stdin_name));
            }
            Err((false, e)) => return Err(e).with_context(|| kept_in_temp(self.stdin_name)),
        };
        self.diff(self.stdin_name, &file, printer, out)
    }

    /// `--check` or `--diff` of one file.
    fn compare<W: Write>(
        &self,
        path: &Path,
        printer: &mut Printer<stdio::Out>,
        out: &mut W,
    ) -> anyhow::Result<Verdict> {
        let name = path.display().to_string();
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) => {
                cannot_read(path, e)?;
                return Ok(not_done(EXIT_USAGE));
            }
        };
        let zstd = match compressed::is_zstd(&file) {
            Ok(zstd) => zstd,
            Err(e) => {
                cannot_read(path, e)?;
                return Ok(not_done(EXIT_USAGE));
            }
        };
        // A FIFO or a device cannot be read again, nor a compressed file be compared where its
        // bytes lie: either is kept (decompressed) as standard input is.
        let regular = !zstd && file.metadata().is_ok_and(|m| m.is_file());
        if self.mode == Mode::Diff {
            if regular {
                return self.diff(&name, &file, printer, out);
            }
            let kept = if zstd {
                compressed::decoder(file)
                    .map_err(|e| (true, e))
                    .and_then(crate::fmt_files::kept)
            } else {
                crate::fmt_files::kept(&file)
            };
            return match kept {
                Ok(kept) => self.diff(&name, &kept, printer, out),
                Err((true, e)) => {
                    cannot_read(path, e)?;
                    Ok(not_done(EXIT_USAGE))
                }
                Err((false, e)) => Err(e).with_context(|| kept_in_temp(&name)),
            };
        }
        if regular {
            let window = Window::of_file();
            let compared = Compare::of_file(&window, &file, None);
            return self.check_one(&name, &window, &file, compared, printer, out);
        }
        let window = self.streamed();
        let compared = Compare::streamed(&window);
        if zstd {
            return match compressed::decoder(file) {
                Ok(reader) => self.check_one(&name, &window, reader, compared, printer, out),
                Err(e) => {
                    cannot_read(path, e)?;
                    Ok(not_done(EXIT_USAGE))
                }
            };
        }
        self.check_one(&name, &window, &file, compared, printer, out)
    }

    /// `--check` of `input`, read from `name` through `window` and compared with its new form
    /// as both go, so that neither is held whole (see [`Compare`]).
    fn check_one<R: Read, W: Write>(
        &self,
        name: &str,
        window: &RefCell<Window>,
        input: R,
        compared: Compare<'_>,
        printer: &mut Printer<stdio::Out>,
        out: &mut W,
    ) -> anyhow::Result<Verdict> {
        match self.changes(name, window, input, compared, printer)? {
            Err(verdict) => Ok(verdict),
            Ok(false) => Ok(Verdict::Unchanged),
            Ok(true) => {
                // Noted before the output is written: a closed stdout still ends with exit 1.
                sink::note_exit(EXIT_FINDINGS);
                let shown = escape_untrusted(name).into_owned();
                crate::fmt_files::would_reformat(&shown, out)?;
                Ok(Verdict::Changed)
            }
        }
    }

    /// Whether `input` changes (read through `window`, compared in `compared`), or the verdict
    /// when it was not read or is left as it is.
    fn changes<R: Read>(
        &self,
        name: &str,
        window: &RefCell<Window>,
        input: R,
        mut compared: Compare<'_>,
        printer: &mut Printer<stdio::Out>,
    ) -> anyhow::Result<Result<bool, Verdict>> {
        let shown = escape_untrusted(name).into_owned();
        let input = Compare::reader(window, input);
        let totals = match self.format(name, input, &mut compared, Some(printer)) {
            Ok(totals) => totals,
            Err(e) => return failed_input(name, e).map(Err),
        };
        if let Some(verdict) = self.left_alone(&shown, &totals)? {
            return Ok(Err(verdict));
        }
        Ok(Ok(compared.changed()))
    }

    /// `--diff` of `file`, read from `name` (a regular file, or what standard input or a pipe
    /// gave, kept in a temporary one): compared first as `--check` does, holding no file; only
    /// one that changes is formatted again, into a temporary file, and the two are diffed a
    /// window at a time (see [`crate::fmt_files::write_diff`]).
    fn diff<W: Write>(
        &self,
        name: &str,
        file: &File,
        printer: &mut Printer<stdio::Out>,
        out: &mut W,
    ) -> anyhow::Result<Verdict> {
        let window = Window::of_file();
        let compared = Compare::of_file(&window, file, None);
        match self.changes(name, &window, from_start(file)?, compared, printer)? {
            Err(verdict) => return Ok(verdict),
            Ok(false) => return Ok(Verdict::Unchanged),
            Ok(true) => {}
        }
        // Noted before the output is written: a closed stdout still ends with exit 1.
        sink::note_exit(EXIT_FINDINGS);
        let shown = escape_untrusted(name).into_owned();
        let formatted = crate::fmt_files::temp_file()
            .with_context(|| kept_in_temp(&format!("the new form of {name}")))?;
        let mut to = BufWriter::with_capacity(1 << 16, &formatted);
        // Its findings were reported already.
        if let Err(e) = self
            .format(name, from_start(file)?, &mut to, None)
            .and_then(|_| to.flush())
        {
            return failed_input(name, e);
        }
        drop(to);
        crate::fmt_files::write_diff(&shown, file, &formatted, out)?;
        Ok(Verdict::Changed)
    }

    /// The window standard input is kept in, told when a long line is always left out: a
    /// record over the limit (longer than it by more than a BOM and a CR) that `--keep-invalid`
    /// does not pass through, where each record gives at most one line (not `--to common`).
    fn streamed(&self) -> RefCell<Window> {
        let passed = self.opts.keep_invalid && self.opts.to == To::Ndjson;
        let one_line_each = self.opts.to != To::Common;
        Window::streamed((!passed && one_line_each).then(|| self.check.max_record_bytes as u64 + 4))
    }

    /// `--write` of one file: its new form goes to a temporary file beside it, which replaces
    /// it only if nothing is lost by that (see [`crate::fmt_files`]).
    fn write(&self, path: &Path, printer: &mut Printer<stdio::Out>) -> anyhow::Result<Verdict> {
        let name = path.display().to_string();
        let shown = escape_untrusted(&name).into_owned();
        let walked = !self.named.iter().any(|p| p == path);
        let target = match Target::open(path, walked, self.force) {
            Ok(target) => target,
            Err(why) => return not_written(&shown, &why),
        };
        let window = Window::of_file();
        let mut compared = Compare::of_file(&window, target.file(), Some(&target));
        let input = Compare::reader(&window, target.file());
        let totals = match self.format(&name, input, &mut compared, Some(printer)) {
            Ok(totals) => totals,
            Err(e) if sjlint_core::interrupt::is_stop(&e) || sink::is_write_error(&e) => {
                return failed_input(&name, e);
            }
            Err(e) => {
                let what = if window.borrow().read_failed() {
                    "cannot read"
                } else {
                    "cannot write"
                };
                let why = NotWritten {
                    reason: format!("{what}: {e}"),
                    failure: true,
                };
                return not_written(&shown, &why);
            }
        };
        if let Some(verdict) = self.left_alone(&shown, &totals)? {
            return Ok(verdict);
        }
        let temp = match compared.into_temp() {
            Ok(Some(temp)) => temp,
            Ok(None) => return Ok(Verdict::Unchanged),
            Err(e) => {
                let why = NotWritten {
                    reason: format!("cannot write: {e}"),
                    failure: true,
                };
                return not_written(&shown, &why);
            }
        };
        match target.replace(temp) {
            Ok(()) => Ok(Verdict::Changed),
            Err(why) => not_written(&shown, &why),
        }
    }

    /// Formats `input` into `out`, the records it leaves out reported on stderr.
    fn format<R: Read, W: Write>(
        &self,
        name: &str,
        input: R,
        out: &mut W,
        mut printer: Option<&mut Printer<stdio::Out>>,
    ) -> io::Result<fmt::FmtTotals> {
        let mut emit = |d: Diagnostic| -> io::Result<()> {
            let Some(printer) = printer.as_deref_mut() else {
                return Ok(());
            };
            printer.diagnostic(name, &d)?;
            printer.flush()
        };
        fmt::format(input, self.check, &self.opts, out, &mut emit)
    }

    /// A file left as it is whatever its form: another agent's stream (counted as formatted),
    /// or with `--write`, a file whose records that are not events would be lost.
    fn left_alone(&self, shown: &str, totals: &fmt::FmtTotals) -> io::Result<Option<Verdict>> {
        if let Some(agent) = other_agent(totals.agent) {
            let why = if agent == Agent::Common {
                "a stream in sjlint's common form has no canonical form".to_owned()
            } else {
                format!("{} streams have no canonical form", agent.display_name())
            };
            writeln!(stdio::stderr(), "sjlint: {shown}: left as is: {why}")?;
            return Ok(Some(Verdict::Unchanged));
        }
        if totals.foreign > 0 {
            writeln!(
                stdio::stderr(),
                "sjlint: {shown}: not written: {}",
                foreign(totals)
            )?;
            return Ok(Some(not_done(EXIT_FINDINGS)));
        }
        if self.mode == Mode::Write && totals.invalid > 0 && !self.opts.keep_invalid {
            // Writing would drop them: nothing is lost without being asked for.
            writeln!(
                stdio::stderr(),
                "sjlint: {shown}: not written: {} and would be left out (--keep-invalid keeps them as raw events)",
                if totals.invalid == 1 {
                    "1 record is not an event".to_owned()
                } else {
                    format!("{} records are not events", totals.invalid)
                }
            )?;
            return Ok(Some(not_done(EXIT_FINDINGS)));
        }
        Ok(None)
    }
}

/// The agent of a stream that is not cursor-agent's.
fn other_agent(agent: Option<Agent>) -> Option<Agent> {
    agent.filter(|a| *a != Agent::DEFAULT)
}

/// "a Claude Code stream".
fn a_stream_of(agent: Agent) -> String {
    if agent == Agent::Common {
        "a stream in sjlint's common form".to_owned()
    } else {
        format!("a {} stream", agent.display_name())
    }
}

/// What became of the records of another agent's run inside a stream that this output has no
/// place for.
fn foreign(totals: &fmt::FmtTotals) -> String {
    let records = if totals.foreign == 1 {
        "1 record".to_owned()
    } else {
        format!("{} records", totals.foreign)
    };
    format!(
        "{records} of another agent's run (from line {}, see `sjlint check`: mixed-agents) left out: this output holds one agent's events",
        totals.foreign_line
    )
}

/// A file not done, its exit code noted for a run that a closed stdout cuts short.
fn not_done(code: u8) -> Verdict {
    sink::note_exit(code);
    Verdict::NotDone(code)
}

/// Says why a file was not written.
fn not_written(shown: &str, why: &NotWritten) -> anyhow::Result<Verdict> {
    writeln!(
        stdio::stderr(),
        "sjlint: {shown}: not written: {}",
        why.reason
    )?;
    Ok(not_done(if why.failure {
        EXIT_USAGE
    } else {
        EXIT_FINDINGS
    }))
}

/// An input whose formatting failed: a closed stdout ends the run, a stop ends it with its
/// code, anything else is reported against the input.
fn failed_input(name: &str, e: io::Error) -> anyhow::Result<Verdict> {
    match input_failure(name, e)? {
        Some(code) => Ok(Verdict::Stop(code)),
        None => Ok(not_done(EXIT_USAGE)),
    }
}

/// Why `--diff` stopped: a temporary file it could not keep `what` in.
fn kept_in_temp(what: &str) -> String {
    format!(
        "cannot keep {} in a temporary file in {} to diff it",
        escape_untrusted(what),
        escape_untrusted(&std::env::temp_dir().display().to_string())
    )
}

/// `file`, read from its start.
fn from_start(file: &File) -> io::Result<&File> {
    use std::io::Seek;
    let mut f = file;
    f.rewind()?;
    Ok(file)
}

/// `1 session`, `2 sessions`.
fn sessions(n: u64) -> String {
    if n == 1 {
        "1 session".to_owned()
    } else {
        format!("{n} sessions")
    }
}

/// The arrival times `sjlint run --save` kept beside a transcript: they time the spans of
/// `--to otlp` for records that carry no time of their own.
fn arrivals_of(input: &Input, to: To) -> Option<sjlint_core::arrivals::Arrivals> {
    match input {
        Input::File(path) if to == To::Otlp => sjlint_core::arrivals::Arrivals::beside(path),
        _ => None,
    }
}
