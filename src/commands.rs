//! Running the commands: resolving paths, opening inputs, sending findings to a printer, and
//! turning what was found into an exit code.
//!
//! This module owns everything with side effects on the outside world (files, stdin, stdout,
//! stderr). It must not contain checking logic.

use crate::check::{self, Options, Tee};
use crate::cli::{CheckArgs, Cli, Command, DropArg, FmtArgs, ToArg};
use crate::fmt::{self, FmtOptions, Target};
use crate::report::{self, Format, Printer, Summary};
use crate::rules::{RULES, Rule, Severity};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit codes: no error-severity finding; findings; usage or unreadable path.
pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Check(args) => run_check(&args),
        Command::Rules => print_rules(),
        Command::Explain { rule } => explain(&rule),
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

fn run_check(args: &CheckArgs) -> io::Result<u8> {
    let mut unreadable = false;
    let mut inputs = Vec::new();
    if args.paths.is_empty() {
        if io::stdin().is_terminal() {
            writeln!(
                io::stderr(),
                "sjlint: no input: pipe a stream in (`cursor-agent -p --output-format stream-json … | sjlint`) or name files or directories (`sjlint run.ndjson`). See `sjlint --help`."
            )?;
            return Ok(EXIT_USAGE);
        }
        inputs.push(Input::Stdin);
    }
    for path in &args.paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if path.is_dir() {
            if let Err(e) = walk(path, &mut inputs) {
                unreadable = true;
                cannot_read(path, &e)?;
            }
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }

    let format: Format = args.format.into();
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
    let mut printer = Printer::new(format, sink, color);
    let opts = Options {
        enabled: args.rules(),
        max_record_bytes: args.max_record_bytes,
        dialect: args.dialect.forced(),
    };
    let mut summary = Summary::default();
    let mut printed = 0u64;
    let max = args.max_diagnostics.unwrap_or(u64::MAX);
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");

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
        let reader: Box<dyn Read> = if args.tee {
            Box::new(Tee::new(reader, io::stdout()))
        } else {
            reader
        };
        let mut emit = |d: crate::diagnostic::Diagnostic| -> io::Result<()> {
            match d.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
            if printed < max {
                printed += 1;
                printer.diagnostic(&name, &d)?;
                if live {
                    printer.flush()?;
                }
            }
            Ok(())
        };
        match check::check(reader, &opts, &mut emit) {
            Ok(totals) => {
                summary.files += 1;
                summary.records += totals.records;
                summary.bytes += totals.bytes;
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e),
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
    if !args.quiet {
        printer.summary(&summary)?;
    }
    printer.flush()?;

    let failed = summary.errors > 0 || (args.strict && summary.warnings > 0);
    Ok(if unreadable {
        EXIT_USAGE
    } else if failed && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// `sjlint fmt`: the canonical form on stdout; records left out (or kept as `raw`) are reported
/// on stderr, and make the exit code 1.
fn run_fmt(args: &FmtArgs) -> io::Result<u8> {
    let Some((inputs, mut unreadable)) = inputs_of(&args.paths)? else {
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
    };
    let opts = FmtOptions {
        keep_invalid: args.keep_invalid,
        drop_thinking: args.drop.contains(&DropArg::Thinking),
        drop_deltas: args.drop.contains(&DropArg::Deltas),
        to: match args.to {
            ToArg::Ndjson => Target::Ndjson,
            ToArg::Json => Target::Json,
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

/// The inputs that `paths` name (standard input for none), and whether a directory could not be
/// read. `None`, after a usage message, when standard input is a terminal and no path is given.
fn inputs_of(paths: &[PathBuf]) -> io::Result<Option<(Vec<Input>, bool)>> {
    let mut unreadable = false;
    let mut inputs = Vec::new();
    if paths.is_empty() {
        if io::stdin().is_terminal() {
            writeln!(
                io::stderr(),
                "sjlint: no input: pipe a stream in (`cursor-agent -p --output-format stream-json … | sjlint fmt`) or name files or directories (`sjlint fmt run.ndjson`). See `sjlint --help`."
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
                unreadable = true;
                cannot_read(path, &e)?;
            }
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    Ok(Some((inputs, unreadable)))
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
