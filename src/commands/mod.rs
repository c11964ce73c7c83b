//! Running the commands: resolving paths, opening inputs, sending findings to a printer, and
//! turning what was found into an exit code.
//!
//! This module owns everything with side effects on the outside world (files, stdin, stdout,
//! stderr). It must not contain checking logic.

use crate::check::{self, CheckOptions, Tee};
use crate::cli::{
    CheckArgs, Cli, Command, DropArg, FmtArgs, InputArgs, RenderArgs, StatsArgs, StatsFormat,
    ToArg, WalkArgs,
};
use crate::config::{Configs, Settings};
use crate::diagnostic::Diagnostic;
use crate::fmt::{self, FmtOptions, Target};
use crate::input::mapped::Mapped;
use crate::input::pipeline;
use crate::input::simd::Kernel;
use crate::input::split::{InPlace, Splitter};
use crate::interrupt::{self, Interruptible};
use crate::report::{Format, Printer, Summary};
use crate::rules::{RULES, Rule, RuleSet, Severity};
use crate::sink::{self, Sink};
use crate::status::Live;
use crate::terminal::{Stream, Terminal};
use crate::text::escape_untrusted;
use crate::{render, stats};
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
/// Ctrl-C: the run stopped where it stood (128 + SIGINT, as shells report it; SIGTERM and
/// SIGHUP give 143 and 129, see [`interrupt::exit_code`]).
pub const EXIT_INTERRUPTED: u8 = 130;

pub fn run(cli: Cli) -> ExitCode {
    if matches!(
        cli.command,
        Command::Check(_) | Command::Stats(_) | Command::Render(_) | Command::Fmt(_)
    ) && let Err(e) = interrupt::install()
    {
        let _ = writeln!(
            io::stderr(),
            "sjlint: cannot handle Ctrl-C, SIGTERM, SIGHUP: {e}"
        );
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
        Command::Config { path, walk } => show_config(path.as_deref(), &walk),
        Command::Run(args) => crate::run::run(&args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // A closed stdout (`sjlint … | head -1`) is a normal, quiet end, with the exit code of
        // what was found before it.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(sink::exit_so_far()),
        Err(e) if sink::is_write_error(&e) => {
            let _ = writeln!(io::stderr(), "sjlint: cannot write the output: {e}");
            ExitCode::from(EXIT_USAGE)
        }
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
                    escape_untrusted(name)
                )?;
                return Ok(EXIT_USAGE);
            }
        },
    };
    let main = sub.is_none();
    print_generated(|_, out| {
        clap_mangen::Man::new(page).render(out)?;
        if main {
            out.extend_from_slice(MAN_EXTRA.as_bytes());
        }
        Ok(())
    })
}

/// The main page's sections that clap does not write: EXIT STATUS and EXAMPLES (roff).
const MAN_EXTRA: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
No error-severity finding (with \fB\-\-strict\fR, no warning either), or \fB\-\-exit\-zero\fR.
.TP
\fB1\fR
Findings; for \fBfmt \-\-check\fR and \fBfmt \-\-diff\fR, a file that is not in canonical form.
.TP
\fB2\fR
A usage error, a bad configuration file, no file matched, or a path that cannot be read (the other paths are still checked).
.TP
\fB130\fR
Interrupted by Ctrl\-C; what was read so far is reported.
.SH EXAMPLES
.TP
\fBcursor\-agent \-p \-\-output\-format stream\-json "fix the tests" | sjlint check \-\-tee | consumer\fR
Check a live run, forwarding the stream unchanged; findings on stderr as they are found.
.TP
\fBsjlint check transcripts/ \-\-format github\fR
Check captured transcripts in CI, as GitHub Actions annotations.
.TP
\fBsjlint check run.ndjson \-\-statistics\fR
Count the findings per rule.
.TP
\fBsjlint explain unfinished\-tool\-call\fR
What a rule checks, with a failing and a passing example.
.TP
\fBsjlint fmt \-\-check transcripts/\fR
Fail when a file is not in canonical form; \fB\-\-write\fR rewrites them.
.TP
\fBsjlint config transcripts/\fR
Show the configuration in force (sjlint.toml, .sjlint.toml, or [tool.sjlint] in pyproject.toml).
"#;

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
            if let Some(group) = crate::rules::Group::ALL.iter().find(|g| g.as_str() == name) {
                return explain_group(*group);
            }
            let mut err = io::stderr().lock();
            write!(err, "sjlint: unknown rule `{}`", escape_untrusted(name))?;
            if let Some(near) = crate::config::closest_name(name) {
                write!(err, "; did you mean `{near}`?")?;
            }
            writeln!(err, " (`sjlint rules` lists them all)")?;
            Ok(EXIT_USAGE)
        }
    }
}

/// `sjlint explain GROUP`: the group's rules, each with its severity and summary.
fn explain_group(group: crate::rules::Group) -> io::Result<u8> {
    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(out, "# {}\n", group.as_str())?;
    writeln!(
        out,
        "Rules of the `{}` group (`sjlint explain RULE` for one):\n",
        group.as_str()
    )?;
    for r in RULES.iter().filter(|r| r.group == group) {
        writeln!(out, "- `{}` ({}): {}", r.name, r.severity, r.summary)?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// One thing to check.
enum Input {
    Stdin,
    File(PathBuf),
}

/// The inputs `paths` name: `-` and no path at all are standard input, directories are walked
/// ([`crate::walk`]). `None` after a usage message: standard input would be read from a
/// terminal, a glob does not compile, or the paths matched no file at all (a run that checked
/// nothing must not pass). Directories that cannot be walked are reported and set `unreadable`.
fn resolve_inputs(
    paths: &[PathBuf],
    walk: &WalkArgs,
    configs: &mut Configs,
    unreadable: &mut bool,
) -> io::Result<Option<Vec<Input>>> {
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
    let mut filter = walk.filter();
    if let Err(e) = filter.validate() {
        writeln!(io::stderr(), "sjlint: {}", escape_untrusted(&e))?;
        return Ok(None);
    }
    let mut walked = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if path.is_dir() {
            walked.push(path);
            // The globs of the configuration that governs the directory, unless given.
            let settings = match configs.for_path(Some(path)) {
                Ok(s) => s,
                Err(e) => {
                    writeln!(io::stderr(), "sjlint: {}", escape_untrusted(&e))?;
                    return Ok(None);
                }
            };
            filter.include = settings.include.clone();
            filter.exclude = settings.exclude.clone();
            if let Err(e) = filter.validate() {
                writeln!(io::stderr(), "sjlint: {}", escape_untrusted(&e))?;
                return Ok(None);
            }
            match crate::walk::walk(path, &filter) {
                Ok((files, notes)) => {
                    inputs.extend(files.into_iter().map(Input::File));
                    for note in notes {
                        walk_note(&note, unreadable)?;
                    }
                }
                Err(e) => {
                    *unreadable = true;
                    cannot_read(path, &io::Error::other(e))?;
                }
            }
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    if inputs.is_empty() && !*unreadable {
        let shown: Vec<String> = walked
            .iter()
            .map(|p| format!("`{}`", escape_untrusted(&p.display().to_string())))
            .collect();
        let globs = filter.include_globs().join(", ");
        let streams = if filter.include.is_empty() {
            " (*.json only when it holds a stream)"
        } else {
            ""
        };
        writeln!(
            io::stderr(),
            "sjlint: no files matched: {} holds no file matching {globs}{streams}, once ignored and hidden files are left out; pass --include GLOB or name the files",
            shown.join(", ")
        )?;
        return Ok(None);
    }
    Ok(Some(inputs))
}

/// Tells what a directory walk skipped; an entry that could not be read sets `unreadable`.
fn walk_note(note: &crate::walk::Note, unreadable: &mut bool) -> io::Result<()> {
    match note {
        crate::walk::Note::NotRegular(path, what) => writeln!(
            io::stderr(),
            "sjlint: note: skipped {}: {what}, not a regular file (name it to read it)",
            escape_untrusted(&path.display().to_string())
        ),
        crate::walk::Note::Unreadable(e) => {
            *unreadable = true;
            writeln!(io::stderr(), "sjlint: cannot read {}", escape_untrusted(e))
        }
    }
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

/// A configuration that cannot be used: a usage error.
fn config_error(e: &str) -> io::Result<u8> {
    writeln!(io::stderr(), "sjlint: {}", escape_untrusted(e))?;
    Ok(EXIT_USAGE)
}

/// The settings of each input, in the order of `inputs`.
fn settings_of(inputs: &[Input], configs: &mut Configs) -> Result<Vec<Arc<Settings>>, String> {
    inputs
        .iter()
        .map(|input| match input {
            Input::File(p) => configs.for_path(Some(p)),
            Input::Stdin => configs.for_path(None),
        })
        .collect()
}

fn run_check(args: &CheckArgs) -> io::Result<u8> {
    let mut unreadable = false;
    let mut configs = match args.walk.configs(args.overrides()) {
        Ok(c) => c,
        Err(e) => return config_error(&e),
    };
    let Some(inputs) = resolve_inputs(&args.paths, &args.walk, &mut configs, &mut unreadable)?
    else {
        return Ok(EXIT_USAGE);
    };
    let per_input = match settings_of(&inputs, &mut configs) {
        Ok(s) => s,
        Err(e) => return config_error(&e),
    };
    // Every rule some input's settings enable is run; each input's own are applied to its
    // findings.
    let mut enabled = RuleSet::empty();
    for s in &per_input {
        for rule in Rule::all().filter(|r| s.enabled.contains(*r)) {
            enabled.insert(rule);
        }
    }

    let format = args.format.map_or(Format::Human, Format::from);
    // Under GitHub Actions, findings also become annotations unless a format was chosen. They go
    // to stderr, which the runner reads too, so stdout is the same as on any other machine.
    let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let annotations = (args.format.is_none() && github_actions)
        .then(|| Printer::new(Format::Github, io::stderr(), false));
    let jobs = jobs(args.jobs)?;
    let files = inputs
        .iter()
        .filter(|i| matches!(i, Input::File(_)))
        .count();
    // Standard input and --tee are read in order as they arrive; several files go to workers.
    let parallel = jobs > 1 && !args.tee && files > 1 && files == inputs.len();
    let terminal = Terminal::detect();
    let live = terminal.status_line(args.progress) && !parallel;
    let live = live.then(Live::start);

    // --output-file takes the findings in any format; with --tee, stdout carries the stream
    // itself and findings go to stderr.
    let (sink, stream): (Box<dyn Write>, Stream) = if let Some(path) = &args.output_file {
        match File::create(path) {
            Ok(f) => (Box::new(Sink(BufWriter::new(f))), Stream::File),
            Err(e) => {
                writeln!(
                    io::stderr(),
                    "sjlint: cannot write {}: {e}",
                    escape_untrusted(&path.display().to_string())
                )?;
                return Ok(EXIT_USAGE);
            }
        }
    } else if args.tee {
        (Box::new(Sink(io::stderr())), Stream::Stderr)
    } else {
        (Box::new(BufWriter::new(Sink(io::stdout()))), Stream::Stdout)
    };
    let sink: Box<dyn Write> = match &live {
        Some(live) => Box::new(live.writer(sink)),
        None => sink,
    };
    let color = format == Format::Human && terminal.color(args.color, stream);
    let mut out = Output {
        printer: Printer::new(format, sink, color).strict(args.strict),
        annotations,
        summary: Summary::default(),
        printed: 0,
        max: args.max_diagnostics.unwrap_or(u64::MAX),
        interrupted: false,
        strict: args.strict,
        exit_zero: args.exit_zero,
        settings: per_input
            .first()
            .cloned()
            .unwrap_or_else(|| Arc::new(Settings::defaults(&args.overrides()))),
        per_input,
        floor: args.level.map_or(Severity::Info, |l| l.severity()),
        statistics: args.statistics.then(|| vec![0; RULES.len()]),
        // A limit keeps the most serious findings, so they wait for the end of the run (the
        // document formats keep the first ones: they are written at the end anyway).
        kept: args
            .max_diagnostics
            .filter(|_| !matches!(format, Format::Sarif | Format::Junit))
            .map(crate::lint::Kept::new),
        collapse: (format == Format::Human && !args.no_collapse && args.max_diagnostics.is_none())
            .then(crate::lint::Collapse::default),
    };
    let opts = CheckOptions {
        enabled,
        max_record_bytes: args.max_record_bytes,
        dialect: args.dialect.forced(),
        agent: args.agent.forced(),
        max_open_calls: args.max_open_calls,
    };
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");

    if parallel {
        let map = !args.no_mmap;
        check_in_parallel(&inputs, &opts, jobs, map, &mut out, &mut unreadable)?;
    } else {
        for (i, input) in inputs.iter().enumerate() {
            out.settings = out.per_input[i].clone();
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
                Box::new(Tee::new(reader, Sink(io::stdout())))
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
            "sjlint: {}; the findings and the summary cover the input read so far",
            interrupt::describe()
        )?;
    }
    out.flush_kept(format)?;
    if let Some(counts) = &out.statistics {
        let mut table = crate::lint::statistics(counts, format == Format::Json);
        if format == Format::Human && !args.quiet {
            // A blank line before the summary.
            table.push('\n');
        }
        out.printer.write_text(&table)?;
    }
    if !args.quiet {
        out.printer.summary(&out.summary)?;
    }
    out.printer.finish()?;

    let failed = out.summary.errors > 0 || (args.strict && out.summary.warnings > 0);
    Ok(if out.interrupted {
        interrupt::exit_code()
    } else if unreadable {
        EXIT_USAGE
    } else if failed && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// Most threads per processor `--jobs` may ask for: more only wait for each other.
const JOBS_PER_CPU: usize = 4;

/// The threads to check with: `asked` (at least 1), or one per processor; at most
/// [`JOBS_PER_CPU`] per processor, with a note when `asked` is cut to that.
fn jobs(asked: Option<usize>) -> io::Result<usize> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Some(asked) = asked else {
        return Ok(cpus);
    };
    let most = cpus.saturating_mul(JOBS_PER_CPU);
    if asked > most {
        writeln!(
            io::stderr(),
            "sjlint: --jobs {asked} is more than this machine can use; checking with {most} threads ({JOBS_PER_CPU} per processor)"
        )?;
        return Ok(most);
    }
    Ok(asked.max(1))
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
    opts: &CheckOptions,
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
    annotations: Option<Printer<io::Stderr>>,
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
    /// `--statistics`: findings per rule, counted instead of printed.
    statistics: Option<Vec<u64>>,
    /// `--max-diagnostics`, for the streaming formats: the findings kept until the end.
    kept: Option<crate::lint::Kept>,
    /// The human format's collapsing of repeated identical findings (not with --no-collapse).
    collapse: Option<crate::lint::Collapse>,
}

impl<W: Write> Output<W> {
    /// Counts a finding and prints it unless `--max-diagnostics` were printed already; `live`
    /// inputs are flushed at once, so a watcher sees each finding as it is found.
    fn report(&mut self, name: &str, d: &Diagnostic, live: bool) -> io::Result<()> {
        if !self.settings.reports(d.rule, Path::new(name)) {
            return Ok(());
        }
        let severity = self.settings.severity_of(d.rule);
        let changed;
        let d = if severity == d.severity {
            d
        } else {
            changed = Diagnostic {
                severity,
                ..d.clone()
            };
            &changed
        };
        if d.severity < self.floor {
            return Ok(());
        }
        if let Some(counts) = &mut self.statistics {
            counts[d.rule as usize] += 1;
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
        self.printer.file_agent(totals.agent);
        self.printer.end_file(name, totals.records, totals.bytes)?;
        self.summary.files += 1;
        self.summary.records += totals.records;
        self.summary.bytes += totals.bytes;
        self.summary.add_agent(totals.agent);
        Ok(())
    }

    /// `--max-diagnostics`: the findings kept, then how many were not shown (in the human
    /// output; on stderr for the machine formats, whose stdout stays a document).
    fn flush_kept(&mut self, format: Format) -> io::Result<()> {
        let total = self.summary.errors + self.summary.warnings + self.summary.infos;
        let note = match &mut self.kept {
            Some(kept) => {
                for (name, d) in kept.take() {
                    self.printer.diagnostic(&name, &d)?;
                    if let Some(annotations) = &mut self.annotations {
                        annotations.diagnostic(&name, &d)?;
                    }
                }
                kept.hidden_note()
            }
            None if self.printed < total && self.statistics.is_none() && self.max < u64::MAX => {
                Some(format!(
                    "note: {} findings not shown (--max-diagnostics {})",
                    total - self.printed,
                    self.max
                ))
            }
            None => None,
        };
        match note {
            Some(note) if format == Format::Human => {
                self.printer.write_text(&format!("\n{note}\n"))
            }
            Some(note) => writeln!(io::stderr(), "sjlint: {note}"),
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
                    out.settings = out.per_input[due].clone();
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
    let mut configs = match args.walk.configs(args.walk.overrides()) {
        Ok(c) => c,
        Err(e) => return config_error(&e),
    };
    let Some(inputs) = resolve_inputs(&args.paths, &args.walk, &mut configs, &mut unreadable)?
    else {
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
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe || sink::is_write_error(&e) => {
                return Err(e);
            }
            Err(e) if interrupt::is_stop(&e) => {
                writeln!(
                    io::stderr(),
                    "sjlint: {}; the output covers the input read so far",
                    interrupt::describe()
                )?;
                return Ok(interrupt::exit_code());
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
    let opts = CheckOptions {
        enabled: RuleSet::all(),
        max_record_bytes: args.input.max_record_bytes,
        dialect: args.input.dialect.forced(),
        agent: args.input.agent.forced(),
        max_open_calls: args.input.max_open_calls,
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
    let mut out = BufWriter::new(Sink(io::stdout().lock()));
    match args.format {
        StatsFormat::Table => stats::write_tables(&mut out, &files)?,
        StatsFormat::Json => stats::write_json(&mut out, &files)?,
    }
    out.flush()?;
    Ok(code)
}

fn run_render(args: &RenderArgs) -> io::Result<u8> {
    let color = Terminal::detect().color(args.color, Stream::Stdout);
    let opts = render::RenderOptions {
        thinking: args.thinking,
        plain: args.plain,
        color,
    };
    let check_opts = CheckOptions {
        enabled: RuleSet::all(),
        max_record_bytes: args.input.max_record_bytes,
        dialect: args.input.dialect.forced(),
        agent: args.input.agent.forced(),
        max_open_calls: args.input.max_open_calls,
    };
    let mut out = BufWriter::new(Sink(io::stdout().lock()));
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
    let mut configs = match args.walk.configs(args.walk.overrides()) {
        Ok(c) => c,
        Err(e) => return config_error(&e),
    };
    let Some(inputs) = resolve_inputs(&args.paths, &args.walk, &mut configs, &mut unreadable)?
    else {
        return Ok(EXIT_USAGE);
    };
    let color = Terminal::detect().color(args.color, Stream::Stderr);
    let mut printer = Printer::new(Format::Human, io::stderr(), color);
    let check = CheckOptions {
        enabled: fmt::reported_rules(),
        max_record_bytes: args.max_record_bytes,
        dialect: args.dialect.forced(),
        agent: args.agent.forced(),
        max_open_calls: args.max_open_calls,
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
    let mode = if args.check {
        Some(crate::fmt_files::Mode::Check)
    } else if args.diff {
        Some(crate::fmt_files::Mode::Diff)
    } else if args.write {
        Some(crate::fmt_files::Mode::Write)
    } else {
        None
    };
    if let Some(mode) = mode {
        if mode == crate::fmt_files::Mode::Write && inputs.iter().any(|i| matches!(i, Input::Stdin))
        {
            writeln!(
                io::stderr(),
                "sjlint: --write writes files in place: name the files (standard input cannot be written back)"
            )?;
            return Ok(EXIT_USAGE);
        }
        return fmt_each_file(
            &inputs,
            mode,
            stdin_name,
            &check,
            &opts,
            &mut printer,
            unreadable,
        );
    }
    let mut findings = false;
    for input in &inputs {
        let (name, reader, live): (String, Box<dyn Read>, bool) = match input {
            Input::Stdin => (
                stdin_name.to_owned(),
                Box::new(Interruptible(io::stdin().lock())),
                true,
            ),
            Input::File(path) => match File::open(path) {
                Ok(f) => (
                    path.display().to_string(),
                    Box::new(Interruptible(f)),
                    false,
                ),
                Err(e) => {
                    unreadable = true;
                    cannot_read(path, &e)?;
                    continue;
                }
            },
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
                let sessions = if totals.unfinished == 1 {
                    "1 session".to_owned()
                } else {
                    format!("{} sessions", totals.unfinished)
                };
                writeln!(
                    io::stderr(),
                    "sjlint: {}: {sessions} with no `result`; nothing written for them",
                    escape_untrusted(&name),
                )?;
            }
            Ok(totals) if totals.texts_left_out > 0 => writeln!(
                io::stderr(),
                "sjlint: {}: {} session(s) with more than 64 MiB of assistant text and a `result` without its text; the text was not added to it",
                escape_untrusted(&name),
                totals.texts_left_out
            )?,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe || sink::is_write_error(&e) => {
                return Err(e);
            }
            Err(e) if interrupt::is_stop(&e) => {
                writeln!(
                    io::stderr(),
                    "sjlint: {}; the output covers the input read so far",
                    interrupt::describe()
                )?;
                return Ok(interrupt::exit_code());
            }
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

/// `fmt --check | --diff | --write`: each input formatted into memory and compared with its
/// bytes; see [`crate::fmt_files`].
fn fmt_each_file(
    inputs: &[Input],
    mode: crate::fmt_files::Mode,
    stdin_name: &str,
    check: &CheckOptions,
    opts: &FmtOptions,
    printer: &mut Printer<io::Stderr>,
    mut unreadable: bool,
) -> io::Result<u8> {
    use crate::fmt_files::Mode;
    let mut outcome = crate::fmt_files::Outcome::default();
    // A file --write left alone because writing would drop records.
    let mut refused = false;
    let mut out = BufWriter::new(io::stdout().lock());
    for input in inputs {
        let (name, path, original) = match input {
            Input::Stdin => {
                let mut bytes = Vec::new();
                stdin().read_to_end(&mut bytes)?;
                (stdin_name.to_owned(), PathBuf::from(stdin_name), bytes)
            }
            Input::File(path) => match std::fs::read(path) {
                Ok(bytes) => (path.display().to_string(), path.clone(), bytes),
                Err(e) => {
                    unreadable = true;
                    cannot_read(path, &e)?;
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

/// `sjlint config [PATH]`: the settings in force for PATH.
fn show_config(path: Option<&Path>, walk: &WalkArgs) -> io::Result<u8> {
    let path = path.unwrap_or(Path::new("."));
    let settings = walk
        .configs(walk.overrides())
        .and_then(|mut c| c.for_path(Some(path)));
    match settings {
        Ok(settings) => {
            let mut out = io::stdout().lock();
            for line in crate::config::describe(&settings).lines() {
                writeln!(out, "{}", escape_untrusted(line))?;
            }
            out.flush()?;
            Ok(EXIT_OK)
        }
        Err(e) => config_error(&e),
    }
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
                escape_untrusted(name),
                names.join(", ")
            )?;
            Ok(EXIT_USAGE)
        }
    }
}

fn cannot_read(path: &Path, e: &io::Error) -> io::Result<()> {
    sink::note_exit(EXIT_USAGE);
    let shown = path.display().to_string();
    writeln!(
        io::stderr(),
        "sjlint: cannot read {}: {e}",
        escape_untrusted(&shown)
    )
}
