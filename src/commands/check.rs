//! `sjlint check`: each input through the checker, its findings through the settings that
//! govern it to a printer, and what was found into an exit code.
//!
//! This module owns the order inputs are read in (one after another, each possibly spread over
//! threads, or several files at once with their findings printed in path order), the status line
//! while they are read, and what happens to each finding (`--level`, `--max-diagnostics`,
//! `--statistics`, collapsing, annotations). What to do was resolved before
//! ([`CheckConfig`]); it must not decide it again, nor contain checking logic.

use super::inputs::{Input, Opened, cannot_read, open_input, unreadable_input};
use super::resolve::{CheckConfig, Findings, Reporting, Threads};
use super::stdio;
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use crate::cli::CheckArgs;
use sjlint_core::check::pipeline;
use sjlint_core::check::{self, CheckOptions, Tee};
use sjlint_core::config::Settings;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::compressed;
use sjlint_core::input::mapped::Mapped;
use sjlint_core::input::simd::Kernel;
use sjlint_core::input::split::{InPlace, Splitter};
use sjlint_core::interrupt::{self, Interruptible};
use sjlint_core::rules::{RULES, Severity};
use sjlint_outputs::report::{Format, Printer, Summary};
use sjlint_outputs::sink::{self, Sink};
use sjlint_outputs::status::Live;
use sjlint_outputs::terminal::Terminal;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

/// `sjlint check`: the exit code of what was found (0, 1, 2 for an unreadable input, 128 + n
/// after a signal).
pub(super) fn run(args: &CheckArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let CheckConfig {
        inputs,
        per_input,
        defaults,
        check: opts,
        format,
        annotations,
        findings,
        color,
        live,
        threads,
        tee,
        reporting,
    } = CheckConfig::resolve(args, terminal)?;
    let live = live.then(Live::start);
    let sink: Box<dyn Write> = match findings {
        Findings::File(f) => Box::new(Sink(BufWriter::new(f))),
        Findings::Stderr => Box::new(Sink(stdio::stderr())),
        // A closed stdout does not end the check of files: the exit code is the verdict of the
        // inputs. Standard input may never end (a live agent, `yes`), so a check that reads it
        // ends with its reader, with the exit code of the findings so far.
        Findings::Stdout if inputs.list.iter().any(|i| matches!(i, Input::Stdin)) => {
            Box::new(BufWriter::new(Sink(stdio::stdout())))
        }
        Findings::Stdout => Box::new(BufWriter::new(Sink(sink::Outlasting::new(stdio::stdout())))),
    };
    let sink: Box<dyn Write> = match &live {
        Some(live) => Box::new(live.writer(sink)),
        None => sink,
    };
    let printer = Printer::new(format, sink, color).strict(reporting.strict);
    let annotations = annotations.then(|| Printer::new(Format::Github, stdio::stderr(), false));
    let mut out = Output::new(printer, annotations, &reporting, defaults, per_input);
    let mut unreadable = inputs.unreadable;
    if threads.parallel {
        let (jobs, map) = (threads.jobs, threads.map);
        check_in_parallel(&inputs.list, &opts, jobs, map, &mut out, &mut unreadable)?;
    } else {
        let order = InOrder {
            stdin_name: &inputs.stdin_name,
            opts: &opts,
            threads: &threads,
            tee,
            live: live.as_ref(),
        };
        order.check(&inputs.list, &mut out, &mut unreadable)?;
    }
    if let Some(live) = live {
        live.finish();
    }
    out.finish(format, reporting.quiet)?;

    let summary = &out.summary;
    let failed = summary.errors > 0 || (reporting.strict && summary.warnings > 0);
    Ok(if out.interrupted {
        interrupt::exit_code()
    } else if unreadable {
        EXIT_USAGE
    } else if failed && !reporting.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// What checking inputs one after another needs besides the inputs.
struct InOrder<'a> {
    stdin_name: &'a str,
    opts: &'a CheckOptions,
    threads: &'a Threads,
    /// `--tee`: each input is copied to stdout as it is read.
    tee: bool,
    live: Option<&'a Live>,
}

impl InOrder<'_> {
    /// Checks `inputs` one after another, each spread over the threads unless `--jobs 1`.
    fn check<W: Write>(
        &self,
        inputs: &[Input],
        out: &mut Output<W>,
        unreadable: &mut bool,
    ) -> io::Result<()> {
        for (i, input) in inputs.iter().enumerate() {
            out.settings = out.per_input[i].clone();
            let Opened {
                name,
                reader,
                mapped,
                live: from_stdin,
            } = match open_input(input, self.stdin_name, self.threads.map) {
                Ok(opened) => opened,
                Err(e) => {
                    *unreadable = true;
                    unreadable_input(&e)?;
                    if let Input::File(path) = input {
                        // Begun and never ended: listed as unreadable where a report lists files.
                        out.begin_file(&path.display().to_string())?;
                    }
                    continue;
                }
            };
            let pipeline = self.threads.pipeline(from_stdin);
            let reader: Box<dyn Read + Send> = if self.tee {
                // The stream's reader going away does not end the check of a file either; a
                // live stdin ends with its reader, as without `--tee`.
                if from_stdin {
                    Box::new(Tee::new(reader, Sink(stdio::stdout())))
                } else {
                    Box::new(Tee::new(
                        reader,
                        Sink(sink::Outlasting::new(stdio::stdout())),
                    ))
                }
            } else {
                reader
            };
            out.begin_file(&name)?;
            let mut totals = check::Totals::default();
            let result = match self.live {
                Some(live) => {
                    let size = match input {
                        Input::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
                        Input::Stdin => None,
                    };
                    live.input(&name, size);
                    let mut emit = |d: Diagnostic| {
                        live.finding(d.severity);
                        out.report(&name, &d, from_stdin)
                    };
                    let bytes = match mapped {
                        Some(mapped) => InputBytes::Mapped(mapped),
                        None => InputBytes::Read(Box::new(live.counting(reader))),
                    };
                    let consumer = &mut &*live;
                    let p = pipeline.as_ref();
                    check_one(
                        bytes,
                        Some(live),
                        self.opts,
                        p,
                        &mut emit,
                        consumer,
                        &mut totals,
                    )
                }
                None => {
                    let mut emit = |d: Diagnostic| out.report(&name, &d, from_stdin);
                    let bytes = match mapped {
                        Some(mapped) => InputBytes::Mapped(mapped),
                        None => InputBytes::Read(reader),
                    };
                    let p = pipeline.as_ref();
                    check_one(bytes, None, self.opts, p, &mut emit, &mut (), &mut totals)
                }
            };
            if out.end_input(input, &name, self.stdin_name, result, totals, unreadable)? {
                break;
            }
        }
        Ok(())
    }
}

/// The bytes of one input as [`check_one`] takes them: read as they come, or a file mapped
/// into memory.
enum InputBytes {
    Read(Box<dyn Read + Send>),
    Mapped(Arc<Mapped>),
}

/// Checks one input: on the calling thread, or through a pipeline with `settings`. A mapped
/// file is split where it lies, stops at Ctrl-C like a read does, gives its pages back as
/// checking moves on, and counts for `progress` as it is reached.
fn check_one<C: check::Consumer>(
    input: InputBytes,
    progress: Option<&Live>,
    opts: &CheckOptions,
    settings: Option<&pipeline::Settings>,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut check::Totals,
) -> io::Result<()> {
    let mapped = match input {
        InputBytes::Read(reader) => {
            return match settings {
                Some(settings) => {
                    pipeline::check_into(reader, opts, settings, emit, consumer, totals)
                }
                None => check::check_into(reader, opts, emit, consumer, totals),
            };
        }
        InputBytes::Mapped(mapped) => mapped,
    };
    let mut reached = 0;
    let cut = Arc::clone(&mapped);
    let mut pace = move |_done: usize, end: usize| {
        // A file truncated meanwhile is noticed before the step is checked.
        cut.touch(reached, end);
        if cut.truncated() {
            return Err(shrank());
        }
        interrupt::stop_if_interrupted()?;
        if let Some(live) = progress {
            live.read((end - reached) as u64);
        }
        reached = end;
        Ok(())
    };
    let checked = match settings {
        // The in-order stage gives the pages back.
        Some(settings) => {
            let whole = Arc::clone(&mapped) as Arc<dyn pipeline::SharedInput>;
            pipeline::check_in_place(whole, pace, opts, settings, emit, consumer, totals)
        }
        None => {
            let source = InPlace::new(mapped.bytes(), |done, end| {
                mapped.release_below(done);
                pace(done, end)
            });
            let splitter =
                Splitter::over(source, opts.max_record_bytes, Kernel::best()).checking_utf8();
            check::check_split(splitter, opts, emit, consumer, totals)
        }
    };
    match checked {
        Ok(()) if mapped.truncated() => Err(shrank()),
        checked => checked,
    }
}

/// The error of a mapped file that another process truncated while it was checked.
fn shrank() -> io::Error {
    io::Error::other(
        "the file was truncated while it was being checked; the findings above cover the part read before (--no-mmap reads such files)",
    )
}

/// Where the findings of `check` go, and what is counted on the way.
struct Output<W: Write> {
    printer: Printer<W>,
    annotations: Option<Printer<stdio::Out>>,
    summary: Summary,
    printed: u64,
    max: u64,
    /// Ctrl-C stopped the run; what was read so far is reported.
    interrupted: bool,
    /// `--strict` and `--exit-zero`, for the exit code findings call for.
    strict: bool,
    exit_zero: bool,
    /// The settings of the input being reported, and of every input in order.
    settings: Arc<Settings>,
    per_input: Vec<Arc<Settings>>,
    /// `--level`: findings below it are neither shown nor counted.
    floor: Severity,
    /// `--statistics`: findings per rule and severity, counted instead of printed.
    statistics: Option<Vec<[u64; 3]>>,
    /// `--max-diagnostics`, for the streaming formats: the findings kept until the end.
    kept: Option<sjlint_outputs::lint::Kept>,
    /// The human format's collapsing of repeated identical findings (not with --no-collapse).
    collapse: Option<sjlint_outputs::lint::Collapse>,
    /// junit with `--max-diagnostics`: where each input began and ended, replayed around the
    /// findings kept, since a suite holds its file's test cases.
    brackets: Option<Vec<sjlint_outputs::lint::Bracket>>,
}

impl<W: Write> Output<W> {
    fn new(
        printer: Printer<W>,
        annotations: Option<Printer<stdio::Out>>,
        reporting: &Reporting,
        defaults: Arc<Settings>,
        per_input: Vec<Arc<Settings>>,
    ) -> Self {
        let junit = reporting.keep && reporting.max.is_some() && printer.format() == Format::Junit;
        Output {
            printer,
            annotations,
            summary: Summary::default(),
            printed: 0,
            max: reporting.max.unwrap_or(u64::MAX),
            interrupted: false,
            strict: reporting.strict,
            exit_zero: reporting.exit_zero,
            settings: defaults,
            per_input,
            floor: reporting.floor,
            statistics: reporting.statistics.then(|| vec![[0; 3]; RULES.len()]),
            // A limit keeps the most serious findings, so they wait for the end of the run.
            kept: reporting
                .max
                .filter(|_| reporting.keep)
                .map(sjlint_outputs::lint::Kept::new),
            collapse: reporting
                .collapse
                .then(sjlint_outputs::lint::Collapse::default),
            brackets: junit.then(Vec::new),
        }
    }

    /// An input begins (held back with the kept findings, for junit).
    fn begin_file(&mut self, name: &str) -> io::Result<()> {
        match &mut self.brackets {
            Some(brackets) => {
                brackets.push(sjlint_outputs::lint::Bracket::Begin(name.to_owned()));
                Ok(())
            }
            None => self.printer.begin_file(name),
        }
    }

    /// Counts a finding and prints it unless `--max-diagnostics` were printed already; `live`
    /// inputs are flushed at once, so a watcher sees each finding as it is found.
    fn report(&mut self, name: &str, d: &Diagnostic, live: bool) -> io::Result<()> {
        let Some(d) = self
            .settings
            .grade(d, Path::new(name))
            .filter(|d| d.severity >= self.floor)
        else {
            return Ok(());
        };
        let d = &*d;
        if let Some(counts) = &mut self.statistics {
            counts[d.rule as usize][d.severity as usize] += 1;
        }
        match d.severity {
            Severity::Error => self.summary.errors += 1,
            Severity::Warning => self.summary.warnings += 1,
            Severity::Info => self.summary.infos += 1,
        }
        let fails =
            d.severity == Severity::Error || (self.strict && d.severity == Severity::Warning);
        if fails && !self.exit_zero {
            sink::note_exit(EXIT_FINDINGS);
        }
        if self.statistics.is_some() {
            return Ok(());
        }
        if let Some(kept) = &mut self.kept {
            kept.push(name, d);
            return Ok(());
        }
        if self.printed >= self.max {
            return Ok(());
        }
        let shown = self.collapse.as_mut().is_none_or(|c| c.show(d));
        if shown {
            self.printed += 1;
            self.printer.diagnostic(name, d)?;
        }
        // Every finding is an annotation: collapsing is for the human output only.
        if let Some(annotations) = &mut self.annotations {
            annotations.diagnostic(name, d)?;
        }
        if live && shown {
            self.printer.flush()?;
        }
        Ok(())
    }

    fn add(&mut self, name: &str, totals: check::Totals) -> io::Result<()> {
        if let Some(collapse) = &mut self.collapse {
            let notes = collapse.notes(name);
            if !notes.is_empty() {
                self.printer.write_text(&format!("\n{notes}"))?;
            }
        }
        match &mut self.brackets {
            Some(brackets) => brackets.push(sjlint_outputs::lint::Bracket::End(
                name.to_owned(),
                totals.agent,
                totals.records,
                totals.bytes,
            )),
            None => {
                self.printer.file_agent(totals.agent);
                self.printer.end_file(name, totals.records, totals.bytes)?;
            }
        }
        self.summary.files += 1;
        self.summary.records += totals.records;
        self.summary.bytes += totals.bytes;
        self.summary.add_agent(totals.agent);
        Ok(())
    }

    /// Ends the run's output: that a signal stopped it, the findings kept for the end, the
    /// statistics, the summary (unless `quiet`), and the printer's end of document.
    fn finish(&mut self, format: Format, quiet: bool) -> io::Result<()> {
        if self.interrupted {
            writeln!(
                stdio::stderr(),
                "sjlint: {}; the findings and the summary cover the input read so far",
                interrupt::describe()
            )?;
        }
        self.flush_kept(format)?;
        if let Some(counts) = &self.statistics {
            let mut table = sjlint_outputs::lint::statistics(counts, format == Format::Json);
            if format == Format::Human && !quiet && !table.is_empty() {
                // A blank line before the summary.
                table.push('\n');
            }
            self.printer.write_text(&table)?;
        }
        if !quiet {
            self.printer.summary(&self.summary)?;
        }
        self.printer.finish()
    }

    /// `--max-diagnostics`: the findings kept, then how many were not shown (in the human
    /// output; on stderr for the machine formats, whose stdout stays a document).
    fn flush_kept(&mut self, format: Format) -> io::Result<()> {
        let total = self.summary.errors + self.summary.warnings + self.summary.infos;
        let note = match &mut self.kept {
            Some(kept) => {
                let brackets = self.brackets.take().unwrap_or_default();
                for step in sjlint_outputs::lint::interleave(brackets, kept.take()) {
                    match step {
                        sjlint_outputs::lint::Replay::Finding(name, d) => {
                            self.printer.diagnostic(&name, &d)?;
                            if let Some(annotations) = &mut self.annotations {
                                annotations.diagnostic(&name, &d)?;
                            }
                        }
                        sjlint_outputs::lint::Replay::Bracket(
                            sjlint_outputs::lint::Bracket::Begin(name),
                        ) => {
                            self.printer.begin_file(&name)?;
                        }
                        sjlint_outputs::lint::Replay::Bracket(
                            sjlint_outputs::lint::Bracket::End(name, agent, records, bytes),
                        ) => {
                            self.printer
                                .hidden(&name, kept.hidden_in(&name), kept.max());
                            self.printer.file_agent(agent);
                            self.printer.end_file(&name, records, bytes)?;
                        }
                    }
                }
                kept.hidden_note()
            }
            None if self.printed < total && self.statistics.is_none() && self.max < u64::MAX => {
                let hidden = total - self.printed;
                Some(format!(
                    "note: {hidden} finding{} not shown (--max-diagnostics {})",
                    if hidden == 1 { "" } else { "s" },
                    self.max
                ))
            }
            None => None,
        };
        match note {
            Some(note) if format == Format::Human => {
                self.printer.write_text(&format!("\n{note}\n"))
            }
            Some(note) => writeln!(stdio::stderr(), "sjlint: {note}"),
            None => Ok(()),
        }
    }

    /// Closes an input: totals into the summary, or its read error reported. True when Ctrl-C
    /// stopped it and the run should end.
    fn end_input(
        &mut self,
        input: &Input,
        name: &str,
        stdin_name: &str,
        result: io::Result<()>,
        totals: check::Totals,
        unreadable: &mut bool,
    ) -> io::Result<bool> {
        match result {
            Ok(()) => {
                self.add(name, totals)?;
                Ok(false)
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe || sink::is_write_error(&e) => Err(e),
            Err(e) if interrupt::is_stop(&e) => {
                // What was read before the interrupt still counts.
                self.interrupted = true;
                self.add(name, totals)?;
                Ok(true)
            }
            Err(e) => {
                *unreadable = true;
                let shown = match input {
                    Input::Stdin => PathBuf::from(stdin_name),
                    Input::File(p) => p.clone(),
                };
                cannot_read(&shown, e)?;
                Ok(false)
            }
        }
    }
}

/// What a worker found in one file: its findings in order, and its totals or the error that
/// stopped it (an open error included).
type FileResult = (Vec<Diagnostic>, io::Result<()>, check::Totals);

/// Checks files on `jobs` threads and prints each file's findings in path order as soon as it
/// and every file before it are done, so the output is the same as a one-thread run.
fn check_in_parallel<W: Write>(
    inputs: &[Input],
    opts: &CheckOptions,
    jobs: usize,
    map: bool,
    out: &mut Output<W>,
    unreadable: &mut bool,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, FileResult)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(inputs.len()) {
            let tx = tx.clone();
            let (next, cancel) = (&next, &cancel);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= inputs.len() || cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    let Input::File(path) = &inputs[i] else {
                        unreachable!("the parallel path takes files only")
                    };
                    let mut found = Vec::new();
                    let mut totals = check::Totals::default();
                    let result = File::open(path).and_then(|f| {
                        let mut keep = |d| {
                            found.push(d);
                            Ok(())
                        };
                        let input = if compressed::is_zstd(&f)? {
                            InputBytes::Read(Box::new(Interruptible(compressed::decoder(f)?)))
                        } else {
                            match map.then(|| Mapped::new(&f)).flatten() {
                                Some(mapped) => InputBytes::Mapped(Arc::new(mapped)),
                                None => InputBytes::Read(Box::new(Interruptible(f))),
                            }
                        };
                        check_one(input, None, opts, None, &mut keep, &mut (), &mut totals)
                    });
                    if tx.send((i, (found, result, totals))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, FileResult> = BTreeMap::new();
        let mut due = 0;
        let printed = (|| {
            for (i, result) in &rx {
                waiting.insert(i, result);
                while let Some((found, result, totals)) = waiting.remove(&due) {
                    let Input::File(path) = &inputs[due] else {
                        unreachable!("the parallel path takes files only")
                    };
                    let name = path.display().to_string();
                    out.settings = out.per_input[due].clone();
                    out.begin_file(&name)?;
                    for d in &found {
                        out.report(&name, d, false)?;
                    }
                    if out.end_input(&inputs[due], &name, "-", result, totals, unreadable)? {
                        // Ctrl-C: the files after this one are not reported.
                        cancel.store(true, Ordering::Relaxed);
                        return Ok(());
                    }
                    due += 1;
                }
            }
            Ok(())
        })();
        if printed.is_err() {
            // A closed stdout: the workers stop after their current file.
            cancel.store(true, Ordering::Relaxed);
        }
        printed
    })
}
