//! Running the commands: resolving paths, opening inputs, sending findings to a printer, and
//! turning what was found into an exit code.
//!
//! This module owns everything with side effects on the outside world (files, stdin, stdout,
//! stderr). It must not contain checking logic.

use crate::check::{self, Options, Tee};
use crate::cli::{
    CheckArgs, Cli, ColorArg, Command, DropArg, FmtArgs, InputArgs, RenderArgs, StatsArgs,
    StatsFormat, ToArg,
};
use crate::diagnostic::Diagnostic;
use crate::fmt::{self, FmtOptions, Target};
use crate::interrupt::{self, Interruptible};
use crate::mapped::Mapped;
use crate::report::{self, Format, Printer, Summary};
use crate::rules::{RULES, Rule, RuleSet, Severity};
use crate::simd::Kernel;
use crate::split::{InPlace, Splitter};
use crate::status::Live;
use crate::{pipeline, render, stats};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

/// Exit codes: no error-severity finding; findings; usage or unreadable path.
pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
/// Ctrl-C: the run stopped where it stood (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

pub fn run(cli: Cli) -> ExitCode {
    if matches!(
        cli.command,
        Command::Check(_) | Command::Stats(_) | Command::Render(_)
    ) && let Err(e) = interrupt::install()
    {
        let _ = writeln!(io::stderr(), "sjlint: cannot handle Ctrl-C: {e}");
    }
    let result = match cli.command {
        Command::Check(args) => run_check(&args),
        Command::Rules => print_rules(),
        Command::Explain { rule } => explain(&rule),
        Command::Stats(args) => run_stats(&args),
        Command::Render(args) => run_render(&args),
        Command::Completions { shell } => print_generated(|cmd, out| {
            clap_complete::generate(shell, cmd, "sjlint", out);
            Ok(())
        }),
        Command::Man { command } => print_man(command.as_deref()),
        Command::Fmt(args) => run_fmt(&args),
        Command::Schema { name } => print_schema(name.as_deref()),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // A closed stdout (`sjlint … | head -1`) is a normal, quiet end.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_OK),
        Err(e) => {
            let _ = writeln!(io::stderr(), "sjlint: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Prints what `generate` writes about the command line. The generators are rendered into a
/// buffer first: clap_complete panics when its writer fails, and a closed stdout must not.
fn print_generated(
    generate: impl FnOnce(&mut clap::Command, &mut Vec<u8>) -> io::Result<()>,
) -> io::Result<u8> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let mut text = Vec::new();
    generate(&mut cmd, &mut text)?;
    let mut out = io::stdout().lock();
    out.write_all(&text)?;
    out.flush()?;
    Ok(EXIT_OK)
}

/// The main manual page, or the page of `sub` (whose title is `sjlint-<sub>`, as the main page's
/// SUBCOMMANDS section names it).
fn print_man(sub: Option<&str>) -> io::Result<u8> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    // Gives subcommands their display names.
    cmd.build();
    let page = match sub {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                writeln!(
                    io::stderr(),
                    "sjlint: no subcommand `{}` (`sjlint --help` lists them)",
                    report::escape_untrusted(name)
                )?;
                return Ok(EXIT_USAGE);
            }
        },
    };
    print_generated(|_, out| clap_mangen::Man::new(page).render(out))
}

fn print_rules() -> io::Result<u8> {
    let mut out = BufWriter::new(io::stdout().lock());
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in RULES {
        writeln!(
            out,
            "{:width$}  {:10}  {:7}  {}",
            r.name,
            r.group.as_str(),
            r.severity.as_str(),
            r.summary
        )?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

fn explain(name: &str) -> io::Result<u8> {
    match Rule::from_name(name) {
        Some(rule) => {
            let mut out = io::stdout().lock();
            out.write_all(rule.info().doc.as_bytes())?;
            out.flush()?;
            Ok(EXIT_OK)
        }
        None => {
            let mut err = io::stderr().lock();
            write!(
                err,
                "sjlint: unknown rule `{}`",
                report::escape_untrusted(name)
            )?;
            if let Some(near) = closest_rule(name) {
                write!(err, "; did you mean `{near}`?")?;
            }
            writeln!(err, " (`sjlint rules` lists them all)")?;
            Ok(EXIT_USAGE)
        }
    }
}

/// The rule name nearest to `name` by edit distance, when it is close enough to be a typo.
fn closest_rule(name: &str) -> Option<&'static str> {
    RULES
        .iter()
        .map(|r| (edit_distance(name, r.name), r.name))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// One thing to check.
enum Input {
    Stdin,
    File(PathBuf),
}

/// The inputs `paths` name: `-` and no path at all are standard input, directories are walked.
/// `None` after a usage message when standard input would be read from a terminal. Directories
/// that cannot be walked are reported and set `unreadable`.
fn resolve_inputs(paths: &[PathBuf], unreadable: &mut bool) -> io::Result<Option<Vec<Input>>> {
    let mut inputs = Vec::new();
    if paths.is_empty() {
        if io::stdin().is_terminal() {
            writeln!(
                io::stderr(),
                "sjlint: no input: pipe a stream in (`cursor-agent -p --output-format stream-json … | sjlint`) or name files or directories (`sjlint run.ndjson`). See `sjlint --help`."
            )?;
            return Ok(None);
        }
        inputs.push(Input::Stdin);
    }
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if path.is_dir() {
            if let Err(e) = walk(path, &mut inputs) {
                *unreadable = true;
                cannot_read(path, &e)?;
            }
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    Ok(Some(inputs))
}

/// An input, opened.
struct Opened {
    /// The name it is shown under.
    name: String,
    reader: Box<dyn Read + Send>,
    /// The file mapped into memory, when it was asked for and the file can be.
    mapped: Option<Arc<Mapped>>,
    /// Standard input: findings and output are shown as it arrives.
    live: bool,
}

/// Opens `input`, and with `map` also maps it when it is a file that can be; `None` after
/// reporting a file that cannot be opened.
fn open_input(
    input: &Input,
    stdin_name: &str,
    map: bool,
    unreadable: &mut bool,
) -> io::Result<Option<Opened>> {
    let mut mapped = None;
    let (name, reader, live): (String, Box<dyn Read + Send>, bool) = match input {
        Input::Stdin => (
            stdin_name.to_owned(),
            Box::new(Interruptible(stdin())),
            true,
        ),
        Input::File(path) => match File::open(path) {
            Ok(f) => {
                if map {
                    mapped = Mapped::new(&f).map(Arc::new);
                }
                (
                    path.display().to_string(),
                    Box::new(Interruptible(f)),
                    false,
                )
            }
            Err(e) => {
                *unreadable = true;
                cannot_read(path, &e)?;
                return Ok(None);
            }
        },
    };
    Ok(Some(Opened {
        name,
        reader,
        mapped,
        live,
    }))
}

/// Standard input, read without a buffer of its own: the reader stage of a pipeline asks the
/// descriptor whether bytes are waiting ([`stdin_ready`]), which must then be all there is. A
/// pipe also gets a larger buffer, so a fast producer is not held up by the reads.
fn stdin() -> Box<dyn Read + Send> {
    #[cfg(unix)]
    {
        raise_pipe_buffer();
        Box::new(RawStdin)
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdin())
    }
}

/// Descriptor 0, read directly.
#[cfg(unix)]
struct RawStdin;

#[cfg(unix)]
impl Read for RawStdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len().min(isize::MAX as usize);
        // SAFETY: `buf` is valid for writes of `len` bytes for the duration of the call.
        let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), len) };
        match usize::try_from(n) {
            Ok(n) => Ok(n),
            // A closed descriptor reads as an empty input, as std's stdin does.
            Err(_) if io::Error::last_os_error().raw_os_error() == Some(libc::EBADF) => Ok(0),
            Err(_) => Err(io::Error::last_os_error()),
        }
    }
}

/// Asks for a 1 MiB pipe buffer when standard input is a pipe (best effort: the system's
/// `fs.pipe-max-size` may not allow it).
fn raise_pipe_buffer() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: fstat writes into the zeroed stat buffer it is given; fcntl with
        // F_SETPIPE_SZ takes an int and touches no memory of ours; both only read descriptor 0.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(0, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFIFO {
                libc::fcntl(0, libc::F_SETPIPE_SZ, 1 << 20);
            }
        }
    }
}

/// [`pipeline::Ready`] for standard input: whether a read would not wait for the producer.
/// After Ctrl-C it always would not, since the read then stops at once.
fn stdin_ready(timeout: std::time::Duration) -> bool {
    if interrupt::interrupted() {
        return true;
    }
    #[cfg(unix)]
    {
        let mut fd = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: `fd` is one valid pollfd for the duration of the call.
        let rc = unsafe { libc::poll(&mut fd, 1, ms) };
        // A signal (Ctrl-C included, checked on the next call) is a wait that ended early; any
        // other failure is left for the read to report.
        rc > 0 || (rc < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted)
    }
    #[cfg(not(unix))]
    {
        let _ = timeout;
        true
    }
}

fn run_check(args: &CheckArgs) -> io::Result<u8> {
    let mut unreadable = false;
    let Some(inputs) = resolve_inputs(&args.paths, &mut unreadable)? else {
        return Ok(EXIT_USAGE);
    };

    let format = args.format.map_or(Format::Human, Format::from);
    // Under GitHub Actions, findings also become annotations unless a format was chosen. They go
    // to stderr, which the runner reads too, so stdout is the same as on any other machine.
    let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let annotations = (args.format.is_none() && github_actions)
        .then(|| Printer::new(Format::Github, io::stderr(), false));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let files = inputs
        .iter()
        .filter(|i| matches!(i, Input::File(_)))
        .count();
    // Standard input and --tee are read in order as they arrive; several files go to workers.
    let parallel = jobs > 1 && !args.tee && files > 1 && files == inputs.len();
    let live = match args.progress {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => io::stderr().is_terminal(),
    } && !parallel;
    let live = live.then(Live::start);

    // With --tee, stdout carries the stream itself and findings go to stderr.
    let (sink, is_terminal): (Box<dyn Write>, bool) = if args.tee {
        (Box::new(io::stderr()), io::stderr().is_terminal())
    } else {
        (
            Box::new(BufWriter::new(io::stdout())),
            io::stdout().is_terminal(),
        )
    };
    let sink: Box<dyn Write> = match &live {
        Some(live) => Box::new(live.writer(sink)),
        None => sink,
    };
    let color = format == Format::Human
        && report::use_color(args.color.as_str(), is_terminal, |k| std::env::var(k).ok());
    let mut out = Output {
        printer: Printer::new(format, sink, color).strict(args.strict),
        annotations,
        summary: Summary::default(),
        printed: 0,
        max: args.max_diagnostics.unwrap_or(u64::MAX),
        interrupted: false,
    };
    let opts = Options {
        enabled: args.rules(),
        max_record_bytes: args.max_record_bytes,
        dialect: args.dialect.forced(),
        agent: args.agent.forced(),
    };
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");

    if parallel {
        let map = !args.no_mmap;
        check_in_parallel(&inputs, &opts, jobs, map, &mut out, &mut unreadable)?;
    } else {
        for input in &inputs {
            // A file is mapped and split where it lies, unless its bytes are copied on.
            let map = !args.no_mmap && !args.tee;
            let Some(Opened {
                name,
                reader,
                mapped,
                live: from_stdin,
            }) = open_input(input, stdin_name, map, &mut unreadable)?
            else {
                if let Input::File(path) = input {
                    // Begun and never ended: listed as unreadable where a report lists files.
                    out.printer.begin_file(&path.display().to_string())?;
                }
                continue;
            };
            // One input at a time, each spread over the threads unless --jobs 1.
            let one = (jobs > 1).then(|| pipeline::Settings {
                workers: jobs,
                batch_bytes: args.batch_size.unwrap_or(pipeline::DEFAULT_BATCH_BYTES),
                ready: from_stdin.then_some(stdin_ready as pipeline::Ready),
                segment_bytes: args.segment_size.unwrap_or(pipeline::DEFAULT_SEGMENT_BYTES),
            });
            let one = one.as_ref();
            let reader: Box<dyn Read + Send> = if args.tee {
                Box::new(Tee::new(reader, io::stdout()))
            } else {
                reader
            };
            out.printer.begin_file(&name)?;
            let mut totals = check::Totals::default();
            let result = match &live {
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
                    let input = match mapped {
                        Some(mapped) => One::Mapped(mapped),
                        None => One::Read(Box::new(live.counting(reader))),
                    };
                    let (progress, consumer) = (Some(live), &mut &*live);
                    check_one(
                        input,
                        progress,
                        &opts,
                        one,
                        &mut emit,
                        consumer,
                        &mut totals,
                    )
                }
                None => {
                    let mut emit = |d: Diagnostic| out.report(&name, &d, from_stdin);
                    let input = match mapped {
                        Some(mapped) => One::Mapped(mapped),
                        None => One::Read(reader),
                    };
                    check_one(input, None, &opts, one, &mut emit, &mut (), &mut totals)
                }
            };
            if out.end_input(input, &name, stdin_name, result, totals, &mut unreadable)? {
                break;
            }
        }
    }
    if let Some(live) = live {
        live.finish();
    }
    if out.interrupted {
        writeln!(
            io::stderr(),
            "sjlint: interrupted; the findings and the summary cover the input read so far"
        )?;
    }
    if !args.quiet {
        out.printer.summary(&out.summary)?;
    }
    out.printer.finish()?;

    let failed = out.summary.errors > 0 || (args.strict && out.summary.warnings > 0);
    Ok(if out.interrupted {
        EXIT_INTERRUPTED
    } else if unreadable {
        EXIT_USAGE
    } else if failed && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// One input as [`check_one`] takes it.
enum One {
    Read(Box<dyn Read + Send>),
    Mapped(Arc<Mapped>),
}

/// Checks one input: on the calling thread, or through a pipeline with `settings`. A mapped
/// file is split where it lies, stops at Ctrl-C like a read does, gives its pages back as
/// checking moves on, and counts for `progress` as it is reached.
fn check_one<C: check::Consumer>(
    input: One,
    progress: Option<&Live>,
    opts: &Options,
    settings: Option<&pipeline::Settings>,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
    consumer: &mut C,
    totals: &mut check::Totals,
) -> io::Result<()> {
    let mapped = match input {
        One::Read(reader) => {
            return match settings {
                Some(settings) => {
                    pipeline::check_into(reader, opts, settings, emit, consumer, totals)
                }
                None => check::check_into(reader, opts, emit, consumer, totals),
            };
        }
        One::Mapped(mapped) => mapped,
    };
    let mut reached = 0;
    let mut pace = move |_done: usize, end: usize| {
        interrupt::stop_if_interrupted()?;
        if let Some(live) = progress {
            live.read((end - reached) as u64);
        }
        reached = end;
        Ok(())
    };
    match settings {
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
    }
}

/// Where the findings of `check` go, and what is counted on the way.
struct Output<W: Write> {
    printer: Printer<W>,
    annotations: Option<Printer<io::Stderr>>,
    summary: Summary,
    printed: u64,
    max: u64,
    /// Ctrl-C stopped the run; what was read so far is reported.
    interrupted: bool,
}

impl<W: Write> Output<W> {
    /// Counts a finding and prints it unless `--max-diagnostics` were printed already; `live`
    /// inputs are flushed at once, so a watcher sees each finding as it is found.
    fn report(&mut self, name: &str, d: &Diagnostic, live: bool) -> io::Result<()> {
        match d.severity {
            Severity::Error => self.summary.errors += 1,
            Severity::Warning => self.summary.warnings += 1,
            Severity::Info => self.summary.infos += 1,
        }
        if self.printed < self.max {
            self.printed += 1;
            self.printer.diagnostic(name, d)?;
            if let Some(annotations) = &mut self.annotations {
                annotations.diagnostic(name, d)?;
            }
            if live {
                self.printer.flush()?;
            }
        }
        Ok(())
    }

    fn add(&mut self, name: &str, totals: check::Totals) -> io::Result<()> {
        self.printer.end_file(name, totals.records, totals.bytes)?;
        self.summary.files += 1;
        self.summary.records += totals.records;
        self.summary.bytes += totals.bytes;
        Ok(())
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
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(e),
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
                cannot_read(&shown, &e)?;
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
    opts: &Options,
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
                        let input = match map.then(|| Mapped::new(&f)).flatten() {
                            Some(mapped) => One::Mapped(Arc::new(mapped)),
                            None => One::Read(Box::new(Interruptible(f))),
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
                    out.printer.begin_file(&name)?;
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

/// An input `each_input` hands on, and where it stands among them.
struct Source<'a> {
    name: &'a str,
    /// How many inputs were read before this one.
    index: usize,
    /// Standard input: shown as it arrives.
    live: bool,
    /// More than one input is read.
    several: bool,
}

/// Reads every input `args` name with `each`, which sees the input's name and reader. Errors of
/// `each` other than a closed stdout are read errors: reported, and the run goes on with exit 2.
fn each_input(
    args: &InputArgs,
    mut each: impl FnMut(&Source<'_>, Box<dyn Read>) -> io::Result<()>,
) -> io::Result<u8> {
    let mut unreadable = false;
    let Some(inputs) = resolve_inputs(&args.paths, &mut unreadable)? else {
        return Ok(EXIT_USAGE);
    };
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");
    let mut index = 0;
    for input in &inputs {
        let Some(Opened {
            name, reader, live, ..
        }) = open_input(input, stdin_name, false, &mut unreadable)?
        else {
            continue;
        };
        let source = Source {
            name: &name,
            index,
            live,
            several: inputs.len() > 1,
        };
        index += 1;
        match each(&source, reader) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e),
            Err(e) if interrupt::is_stop(&e) => {
                writeln!(
                    io::stderr(),
                    "sjlint: interrupted; the output covers the input read so far"
                )?;
                return Ok(EXIT_INTERRUPTED);
            }
            Err(e) => {
                unreadable = true;
                cannot_read(Path::new(&name), &e)?;
            }
        }
    }
    Ok(if unreadable { EXIT_USAGE } else { EXIT_OK })
}

fn run_stats(args: &StatsArgs) -> io::Result<u8> {
    let opts = Options {
        enabled: RuleSet::all(),
        max_record_bytes: args.input.max_record_bytes,
        dialect: args.input.dialect.forced(),
        agent: args.input.agent.forced(),
    };
    let mut files = Vec::new();
    let code = each_input(&args.input, |source, reader| {
        let (stats, read) = stats::collect_partial(reader, &opts);
        // After Ctrl-C, what was read so far is still shown.
        if read.as_ref().is_ok() || read.as_ref().is_err_and(interrupt::is_stop) {
            files.push((source.name.to_owned(), stats));
        }
        read
    })?;
    let mut out = BufWriter::new(io::stdout().lock());
    match args.format {
        StatsFormat::Table => stats::write_tables(&mut out, &files)?,
        StatsFormat::Json => stats::write_json(&mut out, &files)?,
    }
    out.flush()?;
    Ok(code)
}

fn run_render(args: &RenderArgs) -> io::Result<u8> {
    let color = report::use_color(args.color.as_str(), io::stdout().is_terminal(), |k| {
        std::env::var(k).ok()
    });
    let opts = render::Options {
        thinking: args.thinking,
        plain: args.plain,
        color,
    };
    let check_opts = Options {
        enabled: RuleSet::all(),
        max_record_bytes: args.input.max_record_bytes,
        dialect: args.input.dialect.forced(),
        agent: args.input.agent.forced(),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let code = each_input(&args.input, |source, reader| {
        if source.index > 0 {
            out.write_all(b"\n")?;
        }
        let header = source.several.then_some(source.name);
        render::render(reader, &mut out, header, &opts, &check_opts, source.live)
    })?;
    out.flush()?;
    Ok(code)
}

/// `sjlint fmt`: the canonical form on stdout; records left out (or kept as `raw`) are reported
/// on stderr, and make the exit code 1.
fn run_fmt(args: &FmtArgs) -> io::Result<u8> {
    let mut unreadable = false;
    let Some(inputs) = resolve_inputs(&args.paths, &mut unreadable)? else {
        return Ok(EXIT_USAGE);
    };
    let color = report::use_color(args.color.as_str(), io::stderr().is_terminal(), |k| {
        std::env::var(k).ok()
    });
    let mut printer = Printer::new(Format::Human, io::stderr(), color);
    let check = Options {
        enabled: fmt::reported_rules(),
        max_record_bytes: args.max_record_bytes,
        dialect: args.dialect.forced(),
        agent: args.agent.forced(),
    };
    let opts = FmtOptions {
        keep_invalid: args.keep_invalid,
        drop_thinking: args.drop.contains(&DropArg::Thinking),
        drop_deltas: args.drop.contains(&DropArg::Deltas),
        to: match args.to {
            ToArg::Ndjson => Target::Ndjson,
            ToArg::Json => Target::Json,
            ToArg::Common => Target::Common,
        },
    };
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");
    let mut findings = false;
    for input in &inputs {
        let (name, reader, live): (String, Box<dyn Read>, bool) = match input {
            Input::Stdin => (stdin_name.to_owned(), Box::new(io::stdin().lock()), true),
            Input::File(path) => match File::open(path) {
                Ok(f) => (path.display().to_string(), Box::new(f), false),
                Err(e) => {
                    unreadable = true;
                    cannot_read(path, &e)?;
                    continue;
                }
            },
        };
        // A live stream goes on line by line; a file in large writes.
        let mut out: Box<dyn Write> = if live {
            Box::new(io::LineWriter::new(io::stdout().lock()))
        } else {
            Box::new(BufWriter::new(io::stdout().lock()))
        };
        let mut emit = |d: crate::diagnostic::Diagnostic| -> io::Result<()> {
            findings |= d.severity == Severity::Error;
            printer.diagnostic(&name, &d)?;
            printer.flush()
        };
        match fmt::format(reader, &check, &opts, &mut out, &mut emit) {
            Ok(totals) if totals.unfinished > 0 => {
                findings = true;
                writeln!(
                    io::stderr(),
                    "sjlint: {}: {} session(s) with no `result`; nothing written for them",
                    report::escape_untrusted(&name),
                    totals.unfinished
                )?;
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e),
            Err(e) => {
                unreadable = true;
                cannot_read(Path::new(&name), &e)?;
            }
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

/// `sjlint schema [NAME]`: a bundled schema, or the list of their names.
fn print_schema(name: Option<&str>) -> io::Result<u8> {
    let mut out = io::stdout().lock();
    let Some(name) = name else {
        for s in crate::schema::SCHEMAS {
            writeln!(out, "{}", s.name)?;
        }
        out.flush()?;
        return Ok(EXIT_OK);
    };
    match crate::schema::find(name) {
        Some(s) => {
            out.write_all(s.text.as_bytes())?;
            out.flush()?;
            Ok(EXIT_OK)
        }
        None => {
            let names: Vec<&str> = crate::schema::SCHEMAS.iter().map(|s| s.name).collect();
            writeln!(
                io::stderr(),
                "sjlint: no schema named `{}` (bundled: {})",
                report::escape_untrusted(name),
                names.join(", ")
            )?;
            Ok(EXIT_USAGE)
        }
    }
}

fn cannot_read(path: &Path, e: &io::Error) -> io::Result<()> {
    let shown = path.display().to_string();
    writeln!(
        io::stderr(),
        "sjlint: cannot read {}: {e}",
        report::escape_untrusted(&shown)
    )
}

/// Adds the stream files below `dir` in a stable order: entries sorted by name, hidden entries
/// skipped, files ending in .ndjson, .jsonl or .json.
fn walk(dir: &Path, out: &mut Vec<Input>) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("ndjson" | "jsonl" | "json")
        ) {
            out.push(Input::File(path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_a_suggestion() {
        assert_eq!(closest_rule("orphan-completon"), Some("orphan-completion"));
        assert_eq!(closest_rule("something-else-entirely"), None);
    }
}
