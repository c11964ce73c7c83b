//! Running the commands: resolving paths, opening inputs, sending findings to a printer, and
//! turning what was found into an exit code.
//!
//! This module owns everything with side effects on the outside world (files, stdin, stdout,
//! stderr). It must not contain checking logic.

use crate::check::{self, Options, Tee};
use crate::cli::{CheckArgs, Cli, Command, InputArgs, RenderArgs, StatsArgs, StatsFormat};
use crate::interrupt::{self, Interruptible};
use crate::report::{self, Format, Printer, Summary};
use crate::rules::{RULES, Rule, RuleSet, Severity};
use crate::{render, stats};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    for r in &RULES {
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
    reader: Box<dyn Read>,
    /// Standard input: findings and output are shown as it arrives.
    live: bool,
}

/// Opens `input`; `None` after reporting a file that cannot be opened.
fn open_input(
    input: &Input,
    stdin_name: &str,
    unreadable: &mut bool,
) -> io::Result<Option<Opened>> {
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
                *unreadable = true;
                cannot_read(path, &e)?;
                return Ok(None);
            }
        },
    };
    Ok(Some(Opened { name, reader, live }))
}

fn run_check(args: &CheckArgs) -> io::Result<u8> {
    let mut unreadable = false;
    let Some(inputs) = resolve_inputs(&args.paths, &mut unreadable)? else {
        return Ok(EXIT_USAGE);
    };
    let mut interrupted = false;

    let format = args.format.map_or(Format::Human, Format::from);
    // Under GitHub Actions, findings also become annotations unless a format was chosen. They go
    // to stderr, which the runner reads too, so stdout is the same as on any other machine.
    let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let mut annotations = (args.format.is_none() && github_actions)
        .then(|| Printer::new(Format::Github, io::stderr(), false));
    // With --tee, stdout carries the stream itself and findings go to stderr.
    let (sink, is_terminal): (Box<dyn Write>, bool) = if args.tee {
        (Box::new(io::stderr()), io::stderr().is_terminal())
    } else {
        (
            Box::new(BufWriter::new(io::stdout())),
            io::stdout().is_terminal(),
        )
    };
    let color = format == Format::Human
        && report::use_color(args.color.as_str(), is_terminal, |k| std::env::var(k).ok());
    let mut printer = Printer::new(format, sink, color).strict(args.strict);
    let opts = Options {
        enabled: args.rules(),
        max_record_bytes: args.max_record_bytes,
    };
    let mut summary = Summary::default();
    let mut printed = 0u64;
    let max = args.max_diagnostics.unwrap_or(u64::MAX);
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");

    for input in &inputs {
        let Some(Opened { name, reader, live }) = open_input(input, stdin_name, &mut unreadable)?
        else {
            if let Input::File(path) = input {
                // Begun and never ended: listed as unreadable where a report lists files.
                printer.begin_file(&path.display().to_string())?;
            }
            continue;
        };
        let reader: Box<dyn Read> = if args.tee {
            Box::new(Tee::new(reader, io::stdout()))
        } else {
            reader
        };
        printer.begin_file(&name)?;
        let mut emit = |d: crate::diagnostic::Diagnostic| -> io::Result<()> {
            match d.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
            if printed < max {
                printed += 1;
                printer.diagnostic(&name, &d)?;
                if let Some(annotations) = &mut annotations {
                    annotations.diagnostic(&name, &d)?;
                }
                if live {
                    printer.flush()?;
                }
            }
            Ok(())
        };
        let mut totals = check::Totals::default();
        match check::check_into(reader, &opts, &mut emit, &mut (), &mut totals) {
            Ok(()) => {
                printer.end_file(&name, totals.records, totals.bytes)?;
                summary.files += 1;
                summary.records += totals.records;
                summary.bytes += totals.bytes;
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e),
            Err(e) if interrupt::is_stop(&e) => {
                interrupted = true;
                printer.end_file(&name, totals.records, totals.bytes)?;
                summary.files += 1;
                summary.records += totals.records;
                summary.bytes += totals.bytes;
                break;
            }
            Err(e) => {
                unreadable = true;
                let shown = match input {
                    Input::Stdin => PathBuf::from(stdin_name),
                    Input::File(p) => p.clone(),
                };
                cannot_read(&shown, &e)?;
            }
        }
    }
    if interrupted {
        writeln!(
            io::stderr(),
            "sjlint: interrupted; the findings and the summary cover the input read so far"
        )?;
    }
    if !args.quiet {
        printer.summary(&summary)?;
    }
    printer.finish()?;

    let failed = summary.errors > 0 || (args.strict && summary.warnings > 0);
    Ok(if interrupted {
        EXIT_INTERRUPTED
    } else if unreadable {
        EXIT_USAGE
    } else if failed && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
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
        let Some(Opened { name, reader, live }) = open_input(input, stdin_name, &mut unreadable)?
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
