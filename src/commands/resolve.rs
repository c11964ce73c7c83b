//! The command line resolved once: each command that reads streams turns its arguments, the
//! configuration files that govern its inputs and what the terminal allows into one value
//! ([`CheckConfig`], [`FmtConfig`], [`ReadConfig`]) before it reads a byte.
//!
//! This module owns every decision of that kind: the inputs and their settings, the rule set,
//! the output format and where findings go, colour, the live status line (both asked of
//! [`Terminal`]), threads, limits. A configuration that cannot be used is an error here, so the
//! commands only run what was resolved. It must not read inputs nor print findings.

use super::inputs::{Input, resolve_inputs, settings_of};
use super::stdio;
use crate::cli::{CheckArgs, DropArg, FmtArgs, InputArgs, RenderArgs, ToArg};
use crate::fmt_files::Mode;
use anyhow::{Context, bail};
use sjlint_core::check::CheckOptions;
use sjlint_core::check::pipeline;
use sjlint_core::config::Settings;
use sjlint_core::rules::{Rule, RuleSet, Severity};
use sjlint_outputs::fmt::{FmtOptions, Target};
use sjlint_outputs::report::Format;
use sjlint_outputs::terminal::{Stream, Terminal};
use std::fs::File;
use std::io::{self, Write};
use std::sync::Arc;

/// The inputs of a run and what resolving them found.
pub(super) struct Inputs {
    pub list: Vec<Input>,
    /// The name standard input is shown under (`--stdin-filename`, else `-`).
    pub stdin_name: String,
    /// A directory, or an entry of one, could not be read (already reported): the run exits 2.
    pub unreadable: bool,
}

impl Inputs {
    fn resolve(
        paths: &[std::path::PathBuf],
        walk: &crate::cli::WalkArgs,
        configs: &mut sjlint_core::config::Configs,
        stdin_name: Option<&str>,
        terminal: &Terminal,
    ) -> anyhow::Result<Inputs> {
        let mut unreadable = false;
        let list = resolve_inputs(paths, walk, terminal.stdin, configs, &mut unreadable)?;
        Ok(Inputs {
            list,
            stdin_name: stdin_name.unwrap_or("-").to_owned(),
            unreadable,
        })
    }

    /// [`Inputs::resolve`] for a command that needs the configuration files only to walk
    /// directories (their `include` and `exclude`), not their rule settings.
    fn walked(
        paths: &[std::path::PathBuf],
        walk: &crate::cli::WalkArgs,
        stdin_name: Option<&str>,
        terminal: &Terminal,
    ) -> anyhow::Result<Inputs> {
        let mut configs = walk.configs(walk.overrides()).map_err(anyhow::Error::msg)?;
        Inputs::resolve(paths, walk, &mut configs, stdin_name, terminal)
    }
}

/// Where `check` writes its findings.
pub(super) enum Findings {
    Stdout,
    /// `--tee`: stdout carries the stream itself.
    Stderr,
    /// `--output-file`, created.
    File(File),
}

/// Everything a `sjlint check` run was asked to do.
pub(super) struct CheckConfig {
    pub inputs: Inputs,
    /// The settings of each input, in the order of `inputs.list`.
    pub per_input: Vec<Arc<Settings>>,
    /// The settings findings are judged by before the first input (the first input's, else the
    /// command line's over the defaults).
    pub defaults: Arc<Settings>,
    /// What the checker runs: every rule some input's settings enable.
    pub check: CheckOptions,
    pub format: Format,
    /// Under GitHub Actions with no `--format`: findings also as annotations on stderr.
    pub annotations: bool,
    pub findings: Findings,
    /// Colour for the findings (human format only).
    pub color: bool,
    /// The live status line on stderr (never while files are checked in parallel).
    pub live: bool,
    pub threads: Threads,
    /// `--tee`: the input is copied to stdout as it arrives.
    pub tee: bool,
    pub reporting: Reporting,
}

/// How `check` spreads its work over threads.
pub(super) struct Threads {
    /// `--jobs`, cut to what the machine can use.
    pub jobs: usize,
    /// Several files checked at once, one per thread.
    pub parallel: bool,
    /// Files are mapped into memory and split where they lie (not with `--no-mmap`, nor with
    /// `--tee`, whose bytes are copied on as they are read).
    pub map: bool,
    /// For one input checked on several threads.
    pub batch_bytes: usize,
    pub segment_bytes: usize,
}

impl Threads {
    /// The settings of the pipeline one input is checked through, unless `jobs` is 1.
    pub(super) fn pipeline(&self, from_stdin: bool) -> Option<pipeline::Settings> {
        (self.jobs > 1).then(|| pipeline::Settings {
            workers: self.jobs,
            batch_bytes: self.batch_bytes,
            // Standard input in memory is always ready; descriptor 0 is then another's.
            ready: (from_stdin && !super::stdio::is_captured())
                .then_some(super::inputs::stdin_ready as pipeline::Ready),
            segment_bytes: self.segment_bytes,
        })
    }
}

/// What `check` does with each finding, and what it prints at the end.
pub(super) struct Reporting {
    pub strict: bool,
    pub exit_zero: bool,
    /// `--level`: findings below it are neither shown nor counted.
    pub floor: Severity,
    /// `--max-diagnostics`.
    pub max: Option<u64>,
    /// `--max-diagnostics` keeps the most serious findings until the end of the run.
    pub keep: bool,
    /// `--statistics`: counts per rule instead of findings.
    pub statistics: bool,
    /// Repeated identical findings collapsed (human format, no limit, not `--no-collapse`).
    pub collapse: bool,
    /// `--quiet`: no summary.
    pub quiet: bool,
}

impl CheckConfig {
    pub(super) fn resolve(args: &CheckArgs, terminal: &Terminal) -> anyhow::Result<CheckConfig> {
        let mut configs = args
            .walk
            .configs(args.overrides())
            .map_err(anyhow::Error::msg)?;
        let inputs = Inputs::resolve(
            &args.paths,
            &args.walk,
            &mut configs,
            args.stdin_filename.as_deref(),
            terminal,
        )?;
        let per_input = settings_of(&inputs.list, &mut configs)?;
        warn_of(&per_input)?;
        let enabled = union_of(&per_input);
        let defaults = per_input
            .first()
            .cloned()
            .unwrap_or_else(|| Arc::new(Settings::defaults(&args.overrides())));

        let format = args.format.map_or(Format::Human, Format::from);
        // Under GitHub Actions, findings also become annotations unless a format was chosen.
        // They go to stderr, which the runner reads too, so stdout is the same as on any other
        // machine.
        let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
        let jobs = jobs(args.jobs)?;
        let files = inputs
            .list
            .iter()
            .filter(|i| matches!(i, Input::File(_)))
            .count();
        // Standard input and --tee are read in order as they arrive; several files go to
        // workers.
        let parallel = jobs > 1 && !args.tee && files > 1 && files == inputs.list.len();

        // --output-file takes the findings in any format; with --tee, stdout carries the stream
        // itself and findings go to stderr.
        let (findings, stream) = match &args.output_file {
            Some(path) => {
                // Creating it truncates it: an output that is an input would be lost unread.
                let named: Vec<std::path::PathBuf> = inputs
                    .list
                    .iter()
                    .filter_map(|i| match i {
                        Input::File(p) => Some(p.clone()),
                        Input::Stdin => None,
                    })
                    .collect();
                if let Some(input) = crate::out_file::names_an_input(path, &named) {
                    return Err(
                        crate::out_file::names_input_error("--output-file", path, input).into(),
                    );
                }
                let file = File::create(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                (Findings::File(file), Stream::File)
            }
            None if args.tee => (Findings::Stderr, Stream::Stderr),
            None => (Findings::Stdout, Stream::Stdout),
        };
        Ok(CheckConfig {
            inputs,
            per_input,
            defaults,
            check: CheckOptions {
                enabled,
                max_record_bytes: args.max_record_bytes,
                dialect: args.dialect.forced(),
                agent: args.agent.forced(),
                max_open_calls: args.max_open_calls,
                redact: None,
            },
            format,
            annotations: args.format.is_none() && github_actions,
            findings,
            color: format == Format::Human && terminal.color(args.color.into(), stream),
            live: terminal.status_line(args.progress.into()) && !parallel,
            threads: Threads {
                jobs,
                parallel,
                map: !args.no_mmap && !args.tee,
                batch_bytes: args.batch_size.unwrap_or(pipeline::DEFAULT_BATCH_BYTES),
                segment_bytes: args.segment_size.unwrap_or(pipeline::DEFAULT_SEGMENT_BYTES),
            },
            tee: args.tee,
            reporting: Reporting {
                strict: args.strict,
                exit_zero: args.exit_zero,
                floor: args
                    .level
                    .map_or(Severity::Info, super::super::cli::LevelArg::severity),
                max: args.max_diagnostics,
                keep: args.max_diagnostics.is_some(),
                statistics: args.statistics,
                collapse: format == Format::Human
                    && !args.no_collapse
                    && args.max_diagnostics.is_none(),
                quiet: args.quiet,
            },
        })
    }
}

/// Says once what each configuration in force warns of (every rule turned off), before
/// anything is checked, so that "No problems found" is not taken for a clean run.
fn warn_of(per_input: &[Arc<Settings>]) -> std::io::Result<()> {
    let mut said = std::collections::BTreeSet::new();
    for warning in per_input.iter().filter_map(|s| s.warning.as_deref()) {
        if said.insert(warning) {
            writeln!(
                stdio::stderr(),
                "sjlint: warning: {}",
                sjlint_core::text::escape_untrusted(warning)
            )?;
        }
    }
    Ok(())
}

/// Every rule some input's settings enable: each input's own are applied to its findings.
fn union_of(per_input: &[Arc<Settings>]) -> RuleSet {
    let mut enabled = RuleSet::empty();
    for s in per_input {
        for rule in Rule::all().filter(|r| s.enabled.contains(*r)) {
            enabled.insert(rule);
        }
    }
    enabled
}

/// Most threads per processor `--jobs` may ask for: more only wait for each other.
const JOBS_PER_CPU: usize = 4;

/// The threads to check with: `asked` (at least 1), or one per processor; at most
/// [`JOBS_PER_CPU`] per processor, with a note when `asked` is cut to that.
pub(super) fn jobs(asked: Option<usize>) -> io::Result<usize> {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let Some(asked) = asked else {
        return Ok(cpus);
    };
    let most = cpus.saturating_mul(JOBS_PER_CPU);
    if asked > most {
        writeln!(
            stdio::stderr(),
            "sjlint: --jobs {asked} is more than this machine can use; checking with {most} threads ({JOBS_PER_CPU} per processor)"
        )?;
        return Ok(most);
    }
    Ok(asked.max(1))
}

/// Everything a `sjlint fmt` run was asked to do.
pub(super) struct FmtConfig {
    pub inputs: Inputs,
    /// The rules whose findings `fmt` reports (records it leaves out or keeps as `raw`).
    pub check: CheckOptions,
    pub fmt: FmtOptions,
    /// `--check`, `--diff` or `--write`; none writes the canonical form to stdout.
    pub mode: Option<Mode>,
    /// Colour of the findings on stderr.
    pub color: bool,
}

impl FmtConfig {
    pub(super) fn resolve(args: &FmtArgs, terminal: &Terminal) -> anyhow::Result<FmtConfig> {
        let inputs = Inputs::walked(
            &args.paths,
            &args.walk,
            args.stdin_filename.as_deref(),
            terminal,
        )?;
        let mode = if args.check {
            Some(Mode::Check)
        } else if args.diff {
            Some(Mode::Diff)
        } else if args.write {
            Some(Mode::Write)
        } else {
            None
        };
        // A directory's files are formatted each on its own, never as one stream on stdout.
        if let (None, Some(dir)) = (mode, args.paths.iter().find(|p| p.is_dir())) {
            bail!(
                "`{}` is a directory: fmt writes one stream on stdout, so a directory takes --check, --diff or --write, which treat each file on its own",
                dir.display()
            );
        }
        if mode == Some(Mode::Write) && inputs.list.iter().any(|i| matches!(i, Input::Stdin)) {
            bail!(
                "--write writes files in place: name the files (standard input cannot be written back)"
            );
        }
        Ok(FmtConfig {
            inputs,
            check: CheckOptions {
                enabled: sjlint_outputs::fmt::reported_rules(),
                max_record_bytes: args.max_record_bytes,
                dialect: args.dialect.forced(),
                agent: args.agent.forced(),
                max_open_calls: args.max_open_calls,
                redact: args.redact.redactor(),
            },
            fmt: FmtOptions {
                keep_invalid: args.keep_invalid,
                drop_thinking: args.drop.contains(&DropArg::Thinking),
                drop_deltas: args.drop.contains(&DropArg::Deltas),
                to: match args.to {
                    ToArg::Ndjson => Target::Ndjson,
                    ToArg::Json => Target::Json,
                    ToArg::Common => Target::Common,
                    ToArg::Otlp => Target::Otlp,
                },
                lossless: false,
                otlp_content: args.otlp_content,
            },
            mode,
            color: terminal.color(args.color.into(), Stream::Stderr),
        })
    }
}

/// What `stats` and `render`, which read streams without reporting findings, were asked for.
pub(super) struct ReadConfig {
    pub inputs: Inputs,
    /// `render`: every rule runs, and what they find shapes what is shown. `stats`: the rules
    /// some input's settings enable, as for `check`.
    pub check: CheckOptions,
    /// `stats`: the settings of each input, in the order of `inputs.list` (the configuration
    /// files `check` finds): the findings it counts are those `check` reports, with the
    /// severities `check` gives them. Empty for `render`.
    pub per_input: Vec<Arc<Settings>>,
}

impl ReadConfig {
    /// `render`'s: every rule runs.
    pub(super) fn resolve(args: &InputArgs, terminal: &Terminal) -> anyhow::Result<ReadConfig> {
        let inputs = Inputs::walked(
            &args.paths,
            &args.walk,
            args.stdin_filename.as_deref(),
            terminal,
        )?;
        Ok(ReadConfig {
            inputs,
            check: Self::options(args, RuleSet::all()),
            per_input: Vec::new(),
        })
    }

    /// `stats`'s: each input's findings judged by its settings, as `check` judges them.
    pub(super) fn resolve_judged(
        args: &InputArgs,
        terminal: &Terminal,
    ) -> anyhow::Result<ReadConfig> {
        let mut configs = args
            .walk
            .configs(args.walk.overrides())
            .map_err(anyhow::Error::msg)?;
        let inputs = Inputs::resolve(
            &args.paths,
            &args.walk,
            &mut configs,
            args.stdin_filename.as_deref(),
            terminal,
        )?;
        let per_input = settings_of(&inputs.list, &mut configs)?;
        Ok(ReadConfig {
            inputs,
            check: Self::options(args, union_of(&per_input)),
            per_input,
        })
    }

    fn options(args: &InputArgs, enabled: RuleSet) -> CheckOptions {
        CheckOptions {
            enabled,
            max_record_bytes: args.max_record_bytes,
            dialect: args.dialect.forced(),
            agent: args.agent.forced(),
            max_open_calls: args.max_open_calls,
            redact: None,
        }
    }
}

/// `render`'s options: colour on stdout is decided with the rest.
pub(super) fn render_options(
    args: &RenderArgs,
    terminal: &Terminal,
) -> sjlint_outputs::render::RenderOptions {
    sjlint_outputs::render::RenderOptions {
        thinking: args.thinking,
        plain: args.plain,
        color: terminal.color(args.color.into(), Stream::Stdout),
    }
}
