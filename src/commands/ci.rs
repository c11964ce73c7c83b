//! `sjlint ci`: runs checked in a CI job. Each input is counted as `stats` counts it with the
//! findings `check` reports of it; the account and its gates (`sjlint_outputs::ci`) are
//! written where GitHub Actions reads them, or printed elsewhere.
//!
//! This module owns the command's side effects: the environment it reads (`GITHUB_STEP_SUMMARY`,
//! `GITHUB_OUTPUT`, `GITHUB_ACTIONS`), the files it appends to, pricing a run whose agent
//! reports no cost, the report pages, and the exit code. It must not count, judge or format
//! anything itself.

use super::inputs::{Input, unrolled};
use super::read::{Reading, read_all};
use super::resolve::ReadConfig;
use super::stdio;
use super::{EXIT_FINDINGS, EXIT_OK};
use crate::cli::{CiArgs, FailOnArg, OutcomeArg};
use anyhow::{Context, bail};
use sjlint_core::check::CheckOptions;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::redact::Redactor;
use sjlint_core::rules::{RuleSet, Severity};
use sjlint_core::vocab::Outcome;
use sjlint_outputs::ci::{Account, CostFrom, Gates, Run};
use sjlint_outputs::lint::Kept;
use sjlint_outputs::report::{Format, Printer};
use sjlint_outputs::sink::Sink;
use sjlint_outputs::stats::{self, Stats};
use sjlint_outputs::terminal::Terminal;
use sjlint_outputs::usage::{Prices, Settings};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

/// What one input gave: its statistics and the first of its findings.
struct Counted {
    stats: Stats,
    findings: Vec<Diagnostic>,
    /// What it cost, and where the figure comes from.
    cost: (Option<f64>, CostFrom),
}

pub(super) fn run(args: &CiArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let gates = gates(args);
    let mut config = ReadConfig::resolve_judged(&args.input, terminal)?;
    let redact = (!args.no_redact).then(Redactor::shared);
    config.check.redact = redact;
    let reads_stdin = config.inputs.list.iter().any(|i| matches!(i, Input::Stdin));
    if args.report.is_some() && reads_stdin {
        bail!("--report reads the runs a second time: name their files, not standard input");
    }
    let jobs = super::resolve::jobs(args.jobs)?;
    let keep = args.max_findings.max(args.max_annotations) as u64;
    let count =
        |reading: &Reading<'_>, reader: Box<dyn Read>| count(&config, reading, reader, keep);
    let mut files = Vec::new();
    let mut code = read_all(&config, jobs, &count, &mut files)?;

    // The findings shown: the first ones over every input, errors before warnings.
    let mut kept = Kept::new(keep);
    let mut runs = Vec::with_capacity(files.len());
    for (name, counted) in files {
        for d in &counted.findings {
            kept.push(&name, d);
        }
        let (cost, cost_from) = counted.cost;
        runs.push(Run {
            name,
            stats: counted.stats,
            cost,
            cost_from,
        });
    }
    let shown = kept.take();
    let summary_findings = shown.iter().take(args.max_findings).cloned().collect();
    let mut account = Account::new(runs, summary_findings, &gates);
    // What the runs held, counted before the report reads them again.
    account.redacted = redact.map(Redactor::counts).unwrap_or_default();

    if let Some(dir) = &args.report {
        let (report_code, page) = super::report::pages(
            &args.input,
            dir,
            super::report::Pages {
                folder: true,
                arrays: true,
                redact,
            },
            terminal,
        )?;
        code = code.max(report_code);
        account.report = page.map(|p| p.display().to_string());
    }
    write_summary(&account)?;
    write_outputs(&account)?;
    if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
        annotate(&shown, &account, args.max_annotations)?;
    }
    Ok(match code {
        EXIT_OK if account.passed() => EXIT_OK,
        EXIT_OK => EXIT_FINDINGS,
        // An input that could not be read, or a signal: the gates were held to part of the runs.
        other => other,
    })
}

fn gates(args: &CiArgs) -> Gates {
    let fail_on_outcome = match &args.fail_on_outcome {
        None => Outcome::ALL
            .into_iter()
            .filter(|o| *o != Outcome::Completed)
            .collect(),
        Some(list) => list
            .iter()
            .filter_map(|o| match o {
                OutcomeArg::Outcome(o) => Some(*o),
                OutcomeArg::None => None,
            })
            .collect(),
    };
    Gates {
        max_cost: args.max_cost,
        max_tokens: args.max_tokens,
        fail_on: match args.fail_on {
            FailOnArg::Error => Some(Severity::Error),
            FailOnArg::Warning => Some(Severity::Warning),
            FailOnArg::Never => None,
        },
        fail_on_outcome,
    }
}

/// The statistics of one input and its first `keep` findings (graded by its settings, as
/// `check` reports them).
fn count(
    config: &ReadConfig,
    reading: &Reading<'_>,
    reader: Box<dyn Read>,
    keep: u64,
) -> (Counted, io::Result<()>) {
    let settings = &config.per_input[reading.position];
    // claude-code-action's execution file: the stream's events saved as one JSON array.
    let unrolled = reading.path.and_then(unrolled);
    let reader: Box<dyn Read + '_> = match &unrolled {
        Some(u) => Box::new(u.stream.as_slice()),
        None => reader,
    };
    let mut kept = Kept::new(keep);
    let mut judge = |d: &Diagnostic| {
        let graded = settings.grade(d, Path::new(reading.name))?;
        kept.push(reading.name, &graded);
        Some(graded.severity)
    };
    let arrivals = reading
        .path
        .and_then(sjlint_core::arrivals::Arrivals::beside);
    let (stats, read) = stats::collect_judged(reader, &config.check, arrivals, &mut judge);
    let mut findings: Vec<Diagnostic> = kept.take().into_iter().map(|(_, d)| d).collect();
    if let Some(u) = &unrolled {
        // Said of the file's lines, not of the stream's.
        for d in &mut findings {
            d.line = u.line_in_document(d.line);
            d.column = None;
            for related in &mut d.related {
                related.line = u.line_in_document(related.line);
            }
        }
    }
    // The stream again, for the ledger, when the agent reported no cost.
    let again = || -> Option<Box<dyn Read + '_>> {
        match &unrolled {
            Some(u) => Some(Box::new(u.stream.as_slice())),
            None => Some(Box::new(std::fs::File::open(reading.path?).ok()?)),
        }
    };
    let cost = cost_of(&stats, again);
    let counted = Counted {
        stats,
        findings,
        cost,
    };
    (counted, read)
}

/// The bundled price list, parsed once for every run priced.
static PRICING: std::sync::LazyLock<Settings> = std::sync::LazyLock::new(|| Settings {
    zone: jiff::tz::TimeZone::UTC,
    prices: Prices::bundled(),
});

/// A run's cost: the agent's own figure, else its tokens priced by the bundled list (the input
/// read `again` for the models of its requests), else unknown. A run read from standard input
/// cannot be read again.
fn cost_of<'r>(
    stats: &Stats,
    again: impl FnOnce() -> Option<Box<dyn Read + 'r>>,
) -> (Option<f64>, CostFrom) {
    if let Some(cost) = stats.cost_usd {
        return (Some(cost), CostFrom::Agent);
    }
    let t = &stats.tokens;
    if t.input + t.output + t.cache_read + t.cache_write == 0 {
        // Nothing was spent that a price could apply to.
        return (Some(0.0), CostFrom::Prices);
    }
    let Some(reader) = again() else {
        return (None, CostFrom::Unknown);
    };
    let opts = CheckOptions {
        enabled: RuleSet::empty(),
        ..CheckOptions::default()
    };
    let (entries, read) = sjlint_outputs::usage::collect(reader, &opts, &PRICING, 0);
    let rows = entries.rows.values();
    if read.is_err() || rows.clone().any(|s| s.unpriced) {
        return (None, CostFrom::Unknown);
    }
    (Some(rows.map(|s| s.cost).sum()), CostFrom::Prices)
}

/// The summary: appended to the file `GITHUB_STEP_SUMMARY` names, or printed.
fn write_summary(account: &Account) -> anyhow::Result<()> {
    match env_file("GITHUB_STEP_SUMMARY") {
        Some(path) => append(&path, |out| sjlint_outputs::ci::markdown(out, account)),
        None => {
            let mut out = BufWriter::new(Sink(stdio::stdout()));
            sjlint_outputs::ci::markdown(&mut out, account)?;
            out.flush()?;
            Ok(())
        }
    }
}

/// The step's outputs, appended to the file `GITHUB_OUTPUT` names (nothing without it).
fn write_outputs(account: &Account) -> anyhow::Result<()> {
    match env_file("GITHUB_OUTPUT") {
        Some(path) => append(&path, |out| sjlint_outputs::ci::outputs(out, account)),
        None => Ok(()),
    }
}

/// The file an environment variable names, when it is set and not empty.
fn env_file(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(Into::into)
}

/// Appends what `write` writes to `path` (made when missing), as the runner expects of these
/// files: never truncated, since earlier steps wrote into them.
fn append(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> io::Result<()>,
) -> anyhow::Result<()> {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut out = BufWriter::new(file);
    write(&mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The findings shown as annotations, as `check --format github` writes them, at most `max`;
/// a notice counts the rest.
fn annotate(shown: &[(String, Diagnostic)], account: &Account, max: usize) -> anyhow::Result<()> {
    let mut printer = Printer::new(Format::Github, BufWriter::new(Sink(stdio::stdout())), false);
    for (file, d) in shown.iter().take(max) {
        printer.diagnostic(file, d)?;
    }
    let f = &account.total.findings;
    let all = f.errors + f.warnings + f.infos;
    let annotated = shown.len().min(max) as u64;
    if all > annotated {
        printer.write_text(&format!(
            "::notice title=sjlint::{} more findings are in the job summary's counts\n",
            all - annotated
        ))?;
    }
    printer.flush()?;
    Ok(())
}
