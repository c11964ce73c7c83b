//! The command line: clap definitions and their resolution into plain settings.
//!
//! This module owns what the user can type and what it means (`check` as the default command,
//! size suffixes, rule lists). It must not read inputs or print findings; `commands` does.

use clap::{Args, Parser, Subcommand, ValueEnum};
use sjlint_core::agents::cursor::view::Dialect;
use sjlint_core::rules::RuleSet;
use sjlint_outputs::report::Format;
use sjlint_outputs::terminal::{ColorChoice, ProgressChoice};
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "sjlint",
    version,
    about = "Check the NDJSON event streams of coding-agent CLIs (cursor-agent, Claude Code, Codex, Gemini CLI, Grok Build, OpenCode, Pi, Copilot CLI, Factory droid, Kimi CLI, Qwen Code, Amp)",
    after_help = "`sjlint PATH…` is `sjlint check PATH…`. Pipe a stream in, or name files and directories."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate streams and report findings (the default command)
    #[command(display_order = 1)]
    Check(CheckArgs),
    /// List every rule: name, group, default severity, summary
    #[command(display_order = 5)]
    Rules,
    /// Explain a rule (what it checks, why, a failing and a passing example), or list a group's
    #[command(display_order = 6)]
    Explain {
        /// A rule or group name, as `sjlint rules` lists them
        rule: String,
    },
    /// Summarize streams: records, sessions, events, tool calls and their durations, tokens
    #[command(display_order = 3)]
    Stats(StatsArgs),
    /// Print a readable transcript: prompt, assistant text, one line per tool call, result
    #[command(display_order = 4)]
    Render(RenderArgs),
    /// Print a shell completion script (e.g. `sjlint completions bash > ~/.local/share/bash-completion/completions/sjlint`)
    #[command(display_order = 9)]
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff) on stdout (e.g. `sjlint man | man -l -`)
    #[command(display_order = 10)]
    Man {
        /// A subcommand's page (`sjlint-check(1)`) instead of the main one
        command: Option<String>,
    },
    /// Write streams in canonical form (one event per line) to stdout, or check, diff or rewrite
    /// files with --check, --diff, --write
    #[command(display_order = 2)]
    Fmt(FmtArgs),
    /// List the agents sjlint reads: name (as `--agent` takes it), command line, schema
    #[command(display_order = 7)]
    Agents {
        /// `text`: one line per agent; `json`: one JSON array of objects
        #[arg(long, value_enum, default_value = "text")]
        format: ListFormatArg,
    },
    /// Print a bundled JSON Schema; with no name, list them
    #[command(display_order = 8)]
    Schema {
        /// A schema name, as `sjlint schema` lists them
        name: Option<String>,
    },
    /// Show the settings in force for a path: the configuration file found, rules, severities
    #[command(display_order = 7)]
    Config {
        /// A file or directory (default: the current directory)
        path: Option<PathBuf>,
        #[command(flatten)]
        walk: WalkArgs,
        /// Only these rules or groups, as `check --select` takes them
        #[arg(long, value_name = "RULES", value_delimiter = ',', value_parser = parse_rule_name, help_heading = "Rules")]
        select: Vec<String>,
        /// Skip these rules or groups, as `check --ignore` does
        #[arg(long, value_name = "RULES", value_delimiter = ',', value_parser = parse_rule_name, help_heading = "Rules")]
        ignore: Vec<String>,
        /// Set a rule's or group's severity, as `check --severity` does
        #[arg(long, value_name = "RULE=LEVEL", value_parser = sjlint_core::config::parse_severity_arg, help_heading = "Rules")]
        severity: Vec<(String, sjlint_core::config::Level)>,
    },
    /// Run an agent, check its stream live, and end it when it hangs or stalls
    #[command(display_order = 11, after_help = crate::run::EXIT_CODES_HELP)]
    Run(RunArgs),
    /// Write a self-contained HTML page of a run (timeline of tool calls, tokens, findings,
    /// transcript); several runs or a directory give a folder with an index.html
    #[command(display_order = 12)]
    Report(ReportArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// rustc-style, with a snippet of each offending line and a summary
    Human,
    /// One `file:line:col: severity[rule] message` line per finding, and a summary line
    Concise,
    /// One JSON array of findings
    Json,
    /// One JSON object per finding per line (NDJSON)
    JsonLines,
    /// GitHub Actions workflow commands (annotations)
    Github,
    /// One SARIF 2.1.0 log, for code scanning
    Sarif,
    /// `JUnit` XML, a test suite per file
    Junit,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Human => Format::Human,
            FormatArg::Concise => Format::Concise,
            FormatArg::Json => Format::Json,
            FormatArg::JsonLines => Format::JsonLines,
            FormatArg::Github => Format::Github,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Junit => Format::Junit,
        }
    }
}

/// `sjlint agents --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormatArg {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

impl From<ColorArg> for ColorChoice {
    fn from(c: ColorArg) -> ColorChoice {
        match c {
            ColorArg::Auto => ColorChoice::Auto,
            ColorArg::Always => ColorChoice::Always,
            ColorArg::Never => ColorChoice::Never,
        }
    }
}

/// `--progress`: whether the live status line is drawn on stderr ([`sjlint_outputs::terminal`] decides).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    // When stderr is a terminal. (Plain comments: doc comments would change `--help`.)
    Auto,
    // Even when stderr is not a terminal.
    Always,
    Never,
}

impl From<ProgressArg> for ProgressChoice {
    fn from(p: ProgressArg) -> ProgressChoice {
        match p {
            ProgressArg::Auto => ProgressChoice::Auto,
            ProgressArg::Always => ProgressChoice::Always,
            ProgressArg::Never => ProgressChoice::Never,
        }
    }
}

/// `--dialect`: which dialect records are read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// Classify each record by its own shape
    Auto,
    /// cursor-agent's own stream-json
    Cursor,
    /// A web client's `payload` wrapping of the same events
    Payload,
    /// The Python client's and Cursor's cloud SDK's events
    Sdk,
}

impl DialectArg {
    /// The dialect to force, if any.
    pub fn forced(self) -> Option<Dialect> {
        match self {
            DialectArg::Auto => None,
            DialectArg::Cursor => Some(Dialect::Cursor),
            DialectArg::Payload => Some(Dialect::Payload),
            DialectArg::Sdk => Some(Dialect::Sdk),
        }
    }
}

/// `--agent`: which agent's stream the input is (`auto`, or a name of the agents' registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentArg(Option<sjlint_core::agents::Agent>);

impl AgentArg {
    /// The agent to force, if any.
    pub fn forced(self) -> Option<sjlint_core::agents::Agent> {
        self.0
    }
}

/// The values `--agent` takes: `auto`, then every agent of the registry, each with its command
/// line as help.
fn agent_arg() -> impl clap::builder::TypedValueParser<Value = AgentArg> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let auto = PossibleValue::new("auto").help("Recognise the agent from its first records");
    let named = sjlint_core::agents::REGISTRY
        .iter()
        .map(|e| PossibleValue::new(e.name).help(format!("{} (`{}`)", e.display, e.command)));
    PossibleValuesParser::new(std::iter::once(auto).chain(named))
        .map(|name| AgentArg(sjlint_core::agents::Agent::from_name(&name)))
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (directories: *.ndjson, *.jsonl, and *.json files that
    /// hold a stream); `-` or nothing reads standard input
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// Only these rules or groups (comma-separated names, repeatable; see `sjlint rules`)
    #[arg(long, value_name = "RULES", value_delimiter = ',', value_parser = parse_rule_name, help_heading = "Rules")]
    pub select: Vec<String>,

    /// Skip these rules or groups (comma-separated, repeatable)
    #[arg(long, value_name = "RULES", value_delimiter = ',', value_parser = parse_rule_name, help_heading = "Rules")]
    pub ignore: Vec<String>,

    /// Set a rule's or group's severity: error, warning, info or off (repeatable; e.g.
    /// `--severity unknown-event-type=error`)
    #[arg(long, value_name = "RULE=LEVEL", value_parser = sjlint_core::config::parse_severity_arg, help_heading = "Rules")]
    pub severity: Vec<(String, sjlint_core::config::Level)>,

    /// Report only findings of this severity or above
    #[arg(long, value_enum, value_name = "LEVEL", help_heading = "Rules")]
    pub level: Option<LevelArg>,

    /// How to print findings [default: human; under GitHub Actions, human plus annotations on
    /// stderr]
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<FormatArg>,

    /// Write the findings (in any format) to this file instead of stdout
    #[arg(long, value_name = "PATH", help_heading = "Output")]
    pub output_file: Option<PathBuf>,

    /// Copy the input to stdout byte for byte as it arrives; findings go to stderr
    #[arg(long, help_heading = "Output")]
    pub tee: bool,

    /// Show every finding: repeated identical ones (same rule, same message) are otherwise
    /// collapsed after the first 3 of each file into one note (human format)
    #[arg(long, help_heading = "Output")]
    pub no_collapse: bool,

    /// Print how many findings each rule had (rule, count, severity, summary) instead of the
    /// findings
    #[arg(long, help_heading = "Output")]
    pub statistics: bool,

    /// Warnings fail the run too
    #[arg(long, help_heading = "Rules")]
    pub strict: bool,

    /// Name every field and event type the agent's schema does not list (turns on the
    /// `unknown-field` rule: how a new CLI version shows before a parser breaks)
    #[arg(long, help_heading = "Rules")]
    pub strict_schema: bool,

    /// Exit 0 even when there are findings
    #[arg(long, help_heading = "Rules")]
    pub exit_zero: bool,

    /// Print at most N findings, errors before warnings before infos, and say how many were
    /// not shown (all are still counted in the summary)
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub max_diagnostics: Option<u64>,

    /// Largest record checked; longer ones are skipped and reported (suffixes K, M, G, T; binary)
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_size, default_value = "64M", help_heading = "Input")]
    pub max_record_bytes: usize,

    /// Tool calls and interaction queries kept open at once per session; past that, the rest
    /// are not paired and `too-many-open-calls` says so once. Bounds the memory a stream that
    /// never completes its calls can take
    #[arg(long, value_name = "N", default_value_t = sjlint_core::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..), help_heading = "Input")]
    pub max_open_calls: usize,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto", help_heading = "Input")]
    pub dialect: DialectArg,

    /// Read the input as this agent's stream; auto recognises the agent from its first records
    #[arg(long, value_name = "AGENT", value_parser = agent_arg(), default_value = "auto", help_heading = "Input")]
    pub agent: AgentArg,

    /// The name standard input is reported under
    #[arg(long, value_name = "NAME", help_heading = "Input")]
    pub stdin_filename: Option<String>,

    /// Colour: auto honours `NO_COLOR`, `FORCE_COLOR` and `CLICOLOR_FORCE`
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    pub color: ColorArg,

    /// Print findings only: no summary
    #[arg(long, short, help_heading = "Output")]
    pub quiet: bool,

    /// A live status line (and a progress bar for files) on stderr: auto shows it when stderr is
    /// a terminal
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    pub progress: ProgressArg,

    /// Threads (default: all cores): several files are checked at once, one input is split,
    /// parsed and validated on separate threads; 1 keeps everything on one thread. The output
    /// is the same either way and keeps the order of the paths. At most 4 per core: more are
    /// cut to that, with a note
    #[arg(long, short, value_name = "N", help_heading = "Performance")]
    pub jobs: Option<usize>,

    /// Read files instead of mapping them into memory (mapping is faster, but a file that
    /// another process truncates meanwhile ends its check with an error)
    #[arg(long, help_heading = "Performance")]
    pub no_mmap: bool,

    /// Bytes of records handed from thread to thread at once when one input is checked on
    /// several threads (suffixes K, M, G, T); for tests
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_size, hide = true)]
    pub batch_size: Option<usize>,
    /// Bytes of a file each thread splits and examines on its own, when a file is checked
    /// where it lies on several threads (suffixes K, M, G, T); for tests
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_size, hide = true)]
    pub segment_size: Option<usize>,
}

impl CheckArgs {
    /// The enabled rules of the command line alone: `--select` (default all) less `--ignore`.
    pub fn rules(&self) -> RuleSet {
        sjlint_core::config::Settings::defaults(&self.overrides()).enabled
    }

    /// What the command line lays over a configuration file.
    pub fn overrides(&self) -> sjlint_core::config::Overrides {
        sjlint_core::config::Overrides {
            select: (!self.select.is_empty()).then(|| self.select.clone()),
            ignore: self.ignore.clone(),
            severity: self.severity.clone(),
            strict_schema: self.strict_schema,
            include: self.walk.include.clone(),
            exclude: self.walk.exclude.clone(),
        }
    }
}

/// `--level`: the lowest severity reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LevelArg {
    Info,
    // `warn` as in configuration files and `--severity`.
    #[value(alias = "warn")]
    Warning,
    Error,
}

impl LevelArg {
    pub fn severity(self) -> sjlint_core::rules::Severity {
        match self {
            LevelArg::Info => sjlint_core::rules::Severity::Info,
            LevelArg::Warning => sjlint_core::rules::Severity::Warning,
            LevelArg::Error => sjlint_core::rules::Severity::Error,
        }
    }
}

/// `run --to`: what stdout carries instead of the agent's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunTo {
    /// The common form (`sjlint fmt --to common`), one event a line, live.
    Common,
}

/// `run --otlp-protocol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OtlpProtocolArg {
    /// OTLP/HTTP with protobuf bodies
    #[value(name = "http/protobuf")]
    HttpProtobuf,
    /// OTLP/HTTP with OTLP/JSON bodies
    #[value(name = "http/json")]
    HttpJson,
}

/// `--otlp-header K=V`.
fn parse_header(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v))
            if !k.trim().is_empty() && !k.contains(['\r', '\n']) && !v.contains(['\r', '\n']) =>
        {
            Ok((k.trim().to_owned(), v.trim().to_owned()))
        }
        _ => Err(format!("`{s}` is not KEY=VALUE")),
    }
}

/// `--max-cost`: a number of US dollars, finite and not negative.
fn parse_budget_cost(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not an amount of US dollars (such as 0.50)"
        )),
    }
}

/// A rule or group name of `--select`/`--ignore`, with the nearest name on a typo.
fn parse_rule_name(s: &str) -> Result<String, String> {
    let s = s.trim();
    sjlint_core::config::rules_named(s)
        .map(|_| s.to_owned())
        .ok_or_else(|| sjlint_core::config::unknown_name(s))
}

/// What `fmt --drop` can leave out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DropArg {
    /// `thinking` events
    Thinking,
    /// `--stream-partial-output` assistant deltas that the flush after them repeats
    Deltas,
}

/// What `fmt --to` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ToArg {
    /// The canonical NDJSON stream
    Ndjson,
    /// Per session, the one `result` object that `--output-format json` writes
    Json,
    /// sjlint's agent-neutral events, the same for every agent (`sjlint schema common`)
    Common,
    /// The sessions as OpenTelemetry traces: one OTLP/JSON `ExportTraceServiceRequest` a line,
    /// spans after OpenTelemetry's `gen_ai` semantic conventions (`invoke_agent`, `chat`, `execute_tool`)
    Otlp,
}

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Files or directories (directories, with --check, --diff or --write: *.ndjson, *.jsonl,
    /// and *.json files that hold a stream); `-` or nothing reads standard input
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto", help_heading = "Input")]
    pub dialect: DialectArg,

    /// Read the input as this agent's stream; auto recognises the agent from its first records
    #[arg(long, value_name = "AGENT", value_parser = agent_arg(), default_value = "auto", help_heading = "Input")]
    pub agent: AgentArg,

    /// Keep each record that is not an event as `{"type":"raw","data":"<the line>"}` instead of
    /// leaving it out (it is reported on stderr either way); a record over --max-record-bytes
    /// is kept as it is, byte for byte
    #[arg(long, help_heading = "Output")]
    pub keep_invalid: bool,

    /// Leave out these events (comma-separated): thinking, deltas
    #[arg(
        long,
        value_enum,
        value_name = "KINDS",
        value_delimiter = ',',
        help_heading = "Output"
    )]
    pub drop: Vec<DropArg>,

    /// What to write: the canonical stream, or per session the result object of
    /// `--output-format json`
    #[arg(long, value_enum, default_value = "ndjson", conflicts_with_all = ["drop", "keep_invalid"], help_heading = "Output")]
    pub to: ToArg,

    /// With --to otlp, put prompts, assistant texts, tool arguments and tool results into the
    /// spans' attributes (without it, no span holds any of them)
    #[arg(long, help_heading = "Output")]
    pub otlp_content: bool,

    /// Say which files are not in canonical form, and exit 1 if any is; write nothing
    #[arg(long, conflicts_with_all = ["diff", "write", "to"], help_heading = "Output")]
    pub check: bool,

    /// Print a unified diff of each file against its canonical form; exit 1 if any differs
    #[arg(long, conflicts_with_all = ["write", "to"], help_heading = "Output")]
    pub diff: bool,

    /// Write the canonical form over each file (atomically; a file with records that are not
    /// events, another agent's stream, or a file that changes meanwhile is left alone)
    #[arg(long, conflicts_with = "to", help_heading = "Output")]
    pub write: bool,

    /// With --write, also write read-only files and files with other hard links (the new file
    /// takes the path alone, as `sed -i` does). FIFOs, devices and symbolic links met in a
    /// directory walk are never written
    #[arg(long, requires = "write", help_heading = "Output")]
    pub force: bool,

    /// Largest record read; longer ones are left out and reported (suffixes K, M, G, T; binary)
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_size, default_value = "64M", help_heading = "Input")]
    pub max_record_bytes: usize,

    /// Tool calls and interaction queries kept open at once per session; past that, the rest
    /// are not paired and `too-many-open-calls` says so once. Bounds the memory a stream that
    /// never completes its calls can take
    #[arg(long, value_name = "N", default_value_t = sjlint_core::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..), help_heading = "Input")]
    pub max_open_calls: usize,

    /// The name standard input is reported under
    #[arg(long, value_name = "NAME", help_heading = "Input")]
    pub stdin_filename: Option<String>,

    /// Colour of the findings on stderr: auto honours `NO_COLOR`, `FORCE_COLOR` and `CLICOLOR_FORCE`
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    pub color: ColorArg,
}

/// What the commands that read streams without reporting findings share.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Files or directories to read (directories: *.ndjson, *.jsonl, and *.json files that
    /// hold a stream); `-` or nothing reads standard input
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// Largest record read; longer ones are skipped (suffixes K, M, G, T; binary)
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_size, default_value = "64M", help_heading = "Input")]
    pub max_record_bytes: usize,

    /// Tool calls and interaction queries kept open at once per session; past that, the rest
    /// are not paired and `too-many-open-calls` says so once. Bounds the memory a stream that
    /// never completes its calls can take
    #[arg(long, value_name = "N", default_value_t = sjlint_core::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..), help_heading = "Input")]
    pub max_open_calls: usize,

    /// The name standard input is shown under
    #[arg(long, value_name = "NAME", help_heading = "Input")]
    pub stdin_filename: Option<String>,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto", help_heading = "Input")]
    pub dialect: DialectArg,

    /// Read the input as this agent's stream; auto recognises the agent from its first records
    #[arg(long, value_name = "AGENT", value_parser = agent_arg(), default_value = "auto", help_heading = "Input")]
    pub agent: AgentArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// Aligned text for people
    Table,
    /// One JSON document; `sjlint schema stats` prints its JSON Schema
    Json,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// How to print the statistics
    #[arg(long, value_enum, default_value = "table", help_heading = "Output")]
    pub format: StatsFormat,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The page to write; with several inputs, a directory, or a path ending in `/`, a directory
    /// that gets `index.html` and one page per run
    #[arg(long, short = 'o', value_name = "PATH", help_heading = "Output")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Show the model's thinking too
    #[arg(long, help_heading = "Output")]
    pub thinking: bool,

    /// The wording of cursor-agent's own `text` output format: one line per action, no colour
    #[arg(long, conflicts_with = "thinking", help_heading = "Output")]
    pub plain: bool,

    /// Colour: auto honours `NO_COLOR`, `FORCE_COLOR` and `CLICOLOR_FORCE`
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    pub color: ColorArg,
}

/// How directories are walked; shared by every command that reads streams.
#[derive(Args, Debug, Default, Clone)]
pub struct WalkArgs {
    /// Take the files matching GLOB in directories, instead of *.ndjson, *.jsonl and the *.json
    /// files that hold a stream (repeatable)
    #[arg(long, value_name = "GLOB", help_heading = "Input")]
    pub include: Vec<String>,

    /// Leave out paths matching GLOB in directories (gitignore syntax; repeatable)
    #[arg(long, value_name = "GLOB", help_heading = "Input")]
    pub exclude: Vec<String>,

    /// Walk directories without honouring ignore files (`.gitignore`, `.ignore`,
    /// `.git/info/exclude`); `.gitignore` counts only inside a git repository anyway
    #[arg(long, help_heading = "Input")]
    pub no_ignore: bool,

    /// Walk hidden files and directories too (names starting with `.`)
    #[arg(long, help_heading = "Input")]
    pub hidden: bool,

    /// Read settings from this file (sjlint.toml, or pyproject.toml's [tool.sjlint]) for every
    /// input, instead of the one found by walking up from each input
    #[arg(long, value_name = "PATH", help_heading = "Input")]
    pub config: Option<PathBuf>,

    /// Read no configuration file
    #[arg(long, conflicts_with = "config", help_heading = "Input")]
    pub isolated: bool,
}

impl WalkArgs {
    /// The configurations of a run whose command line lays `overrides` over them.
    pub fn configs(
        &self,
        overrides: sjlint_core::config::Overrides,
    ) -> Result<sjlint_core::config::Configs, String> {
        sjlint_core::config::Configs::new(overrides, self.config.as_deref(), self.isolated)
    }

    /// What the command line alone lays over a configuration file (commands with no rules).
    pub fn overrides(&self) -> sjlint_core::config::Overrides {
        sjlint_core::config::Overrides {
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            ..Default::default()
        }
    }

    pub fn filter(&self) -> sjlint_core::walk::Filter {
        sjlint_core::walk::Filter {
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            ..sjlint_core::walk::Filter::default()
        }
        .honouring(self.no_ignore, self.hidden)
    }
}

/// `sjlint run`: what to run and when to end it (durations: `500ms`, `5s`, `2m`, `1h`, `1d`,
/// `1m30s`).
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The agent's command line, after `--` (e.g. `-- cursor-agent -p --output-format
    /// stream-json "…"`)
    #[arg(required = true, last = true, value_name = "AGENT")]
    pub command: Vec<OsString>,

    /// After the session's `result`, how long the agent gets to exit by itself before its
    /// process group is sent SIGTERM (0: at once)
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration, default_value = "3s")]
    pub after_result: std::time::Duration,

    /// After SIGTERM, how long the process group gets before SIGKILL (as `timeout -k`)
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration, default_value = "2s")]
    pub kill_after: std::time::Duration,

    /// End the run when no byte arrives for this long while no tool call is running, counted
    /// from the agent's first byte (0: no limit)
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration)]
    pub idle_timeout: Option<std::time::Duration>,

    /// What stdout carries: the agent's bytes as they come (the default), or `common`, the
    /// stream's events in sjlint's common form, each line as it is known (`--save` still keeps
    /// the bytes)
    #[arg(long, value_name = "FORM", value_enum)]
    pub to: Option<RunTo>,

    /// Send the run as an OpenTelemetry trace to this OTLP/HTTP collector (`/v1/traces` is
    /// added unless the URL ends so): spans as they end, from a thread of their own that never
    /// holds the agent's output; a collector that fails is one warning, never a failed run.
    /// Without it, the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` turns the export on
    #[arg(long, value_name = "URL", help_heading = "OpenTelemetry")]
    pub otlp_endpoint: Option<String>,

    /// The OTLP encoding [default: `OTEL_EXPORTER_OTLP_PROTOCOL`, else http/protobuf]
    #[arg(
        long,
        value_name = "PROTOCOL",
        value_enum,
        help_heading = "OpenTelemetry"
    )]
    pub otlp_protocol: Option<OtlpProtocolArg>,

    /// A header of every export request, `KEY=VALUE` (repeatable; over
    /// `OTEL_EXPORTER_OTLP_HEADERS`): an API key, a project name
    #[arg(long, value_name = "K=V", value_parser = parse_header, help_heading = "OpenTelemetry")]
    pub otlp_header: Vec<(String, String)>,

    /// Put prompts, assistant texts, tool arguments and tool results into the spans (without
    /// it, no span holds any of them)
    #[arg(long, help_heading = "OpenTelemetry")]
    pub otlp_content: bool,

    /// End the run once the cost the agent reports passes this many US dollars
    #[arg(long, value_name = "USD", value_parser = parse_budget_cost)]
    pub max_cost: Option<f64>,

    /// End the run once its tokens (input and output, each counted once) pass N
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,

    /// End the run once it has started more than N tool calls
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<u64>,

    /// End the run when the agent writes nothing for this long after it starts: its start-up,
    /// which --idle-timeout does not count (0: no limit)
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration)]
    pub first_output_timeout: Option<std::time::Duration>,

    /// End the run when one tool call has been running this long (0: no limit)
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration)]
    pub tool_timeout: Option<std::time::Duration>,

    /// End the run when it has lasted this long in all (0: no limit)
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration)]
    pub timeout: Option<std::time::Duration>,

    /// Write how the run ended as JSON (see `sjlint schema run-summary`)
    #[arg(long, value_name = "PATH")]
    pub summary: Option<PathBuf>,

    /// Write an HTML page of the run (as `sjlint report` does) to PATH when it ends
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,

    /// Write the agent's stdout as received to PATH (findings then point into it), and when
    /// each record arrived to PATH.arrivals (read by `stats` and `report`)
    #[arg(long, value_name = "PATH")]
    pub save: Option<PathBuf>,

    /// Write status events as NDJSON (started, agent, tool-running, idle, result-seen,
    /// ending; see `sjlint schema run-events`) to FD, a file descriptor already open for
    /// writing (as `3>events.ndjson`), or to PATH (created or truncated)
    #[arg(long, value_name = "FD|PATH")]
    pub events: Option<OsString>,

    /// At most how often the periodic events (tool-running, idle) are written, and at least
    /// how often `--save`'s arrival times are flushed
    #[arg(long, value_name = "DURATION", value_parser = parse_interval, default_value = "1s")]
    pub events_interval: std::time::Duration,

    /// With --save, also write the agent's stderr to PATH.stderr
    #[arg(long, requires = "save")]
    pub save_stderr: bool,

    /// Write findings to PATH instead of stderr
    #[arg(long, value_name = "PATH")]
    pub output_file: Option<PathBuf>,

    /// How to print findings [default: human; under GitHub Actions, human plus annotations on
    /// stderr]
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    /// Only these rules or groups (comma-separated names, repeatable; see `sjlint rules`)
    #[arg(long, value_name = "RULES", value_delimiter = ',', value_parser = parse_rule_name)]
    pub select: Vec<String>,

    /// Skip these rules or groups (comma-separated, repeatable)
    #[arg(long, value_name = "RULES", value_delimiter = ',', value_parser = parse_rule_name)]
    pub ignore: Vec<String>,

    /// Set a rule's or group's severity: error, warning, info or off (repeatable; e.g.
    /// `--severity agent-hung-after-result=info`)
    #[arg(long, value_name = "RULE=LEVEL", value_parser = sjlint_core::config::parse_severity_arg)]
    pub severity: Vec<(String, sjlint_core::config::Level)>,

    /// Report only findings of this severity or above
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub level: Option<LevelArg>,

    /// Show every finding: repeated identical ones (same rule, same message) are otherwise
    /// collapsed after the first 3 into one note (human format)
    #[arg(long)]
    pub no_collapse: bool,

    /// Read settings from this file (sjlint.toml, or pyproject.toml's [tool.sjlint]) instead of
    /// the one found by walking up from the current directory
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Read no configuration file
    #[arg(long, conflicts_with = "config")]
    pub isolated: bool,

    /// Warnings fail the run too (exit 1)
    #[arg(long)]
    pub strict: bool,

    /// Tool calls and interaction queries kept open at once per session (as for `check`)
    #[arg(long, value_name = "N", default_value_t = sjlint_core::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_open_calls: usize,

    /// Largest record checked; longer ones are forwarded, skipped and reported (suffixes K, M, G, T)
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_size, default_value = "64M")]
    pub max_record_bytes: usize,

    /// Read the stream as this agent's; auto recognises the agent from its first records
    #[arg(long, value_name = "AGENT", value_parser = agent_arg(), default_value = "auto")]
    pub agent: AgentArg,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,

    /// Colour: auto honours `NO_COLOR`, `FORCE_COLOR` and `CLICOLOR_FORCE`
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,

    /// A live status line on stderr: auto shows it when stderr is a terminal
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,

    /// Print findings and the closing line only: no summary of the findings
    #[arg(long, short)]
    pub quiet: bool,
}

/// `--events-interval`: a duration, not zero (a line at most once per nothing is no bound).
fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    let d = crate::units::parse_duration(s)?;
    if d < std::time::Duration::from_millis(10) {
        return Err("the interval must be at least 10ms".to_owned());
    }
    Ok(d)
}

impl From<RunArgs> for crate::run::RunOptions {
    /// The run's options, with the rules and severities the command line sets over the
    /// configuration file (read by `run`, from the current directory or `--config`, as `check`
    /// reads standard input).
    fn from(a: RunArgs) -> crate::run::RunOptions {
        crate::run::RunOptions {
            command: a.command,
            after_result: a.after_result,
            kill_after: a.kill_after,
            idle_timeout: a.idle_timeout,
            first_output_timeout: a.first_output_timeout,
            to_common: a.to == Some(RunTo::Common),
            otlp: crate::run::export::Flags {
                endpoint: a.otlp_endpoint,
                protocol: a.otlp_protocol.map(|p| match p {
                    OtlpProtocolArg::HttpProtobuf => crate::run::export::Protocol::Protobuf,
                    OtlpProtocolArg::HttpJson => crate::run::export::Protocol::Json,
                }),
                headers: a.otlp_header,
            },
            otlp_content: a.otlp_content,
            budgets: crate::run::Budgets {
                max_cost: a.max_cost,
                max_tokens: a.max_tokens,
                max_tool_calls: a.max_tool_calls,
            },
            tool_timeout: a.tool_timeout,
            timeout: a.timeout,
            summary: a.summary,
            report: a.report,
            events: a.events.as_deref().map(crate::run::EventsTarget::parse),
            events_interval: a.events_interval,
            save: a.save,
            save_stderr: a.save_stderr,
            output_file: a.output_file,
            format: a.format.map(Format::from),
            overrides: sjlint_core::config::Overrides {
                select: (!a.select.is_empty()).then_some(a.select),
                ignore: a.ignore,
                severity: a.severity,
                ..Default::default()
            },
            config: a.config,
            isolated: a.isolated,
            floor: a
                .level
                .map_or(sjlint_core::rules::Severity::Info, LevelArg::severity),
            no_collapse: a.no_collapse,
            strict: a.strict,
            quiet: a.quiet,
            max_open_calls: a.max_open_calls,
            max_record_bytes: a.max_record_bytes,
            agent: a.agent.forced(),
            dialect: a.dialect.forced(),
            color: a.color.into(),
            progress: a.progress.into(),
        }
    }
}

const SUBCOMMANDS: &[&str] = &[
    "check",
    "rules",
    "explain",
    "agents",
    "stats",
    "render",
    "completions",
    "man",
    "fmt",
    "schema",
    "config",
    "run",
    "report",
    "help",
];

/// Parses the command line, with `check` inserted when no subcommand is named. A first word
/// that is no path but nearly a subcommand (`sjlint chekc`) is a usage error naming it.
pub fn parse_from<I: IntoIterator<Item = OsString>>(args: I) -> Cli {
    let args: Vec<OsString> = args.into_iter().collect();
    if let Some(first) = args.get(1).and_then(|a| a.to_str())
        && let Some(near) = mistyped_subcommand(first)
    {
        let tip = match near {
            Meant::Near(near) => format!("a similar subcommand exists: '{near}'"),
            Meant::Unknown => {
                "`sjlint --help` lists the subcommands; a path is checked as `sjlint PATH`"
                    .to_owned()
            }
        };
        let msg = format!(
            "unrecognized subcommand '{first}' (and no such file)\n\n  tip: {tip}\n\nFor more information, try '--help'.\n"
        );
        clap::Error::raw(clap::error::ErrorKind::InvalidSubcommand, msg)
            .with_cmd(&<Cli as clap::CommandFactory>::command())
            .exit();
    }
    let args = with_default_command(args);
    Cli::try_parse_from(&args).unwrap_or_else(|e| agent_after_dashes(e, &args).exit())
}

/// `sjlint run ./agent.sh`: the agent's command line goes after `--`, and the error says so.
fn agent_after_dashes(mut e: clap::Error, args: &[OsString]) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument
        || args.get(1).is_none_or(|a| a != "run")
        || args.iter().any(|a| a == "--")
    {
        return e;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    if arg.starts_with('-') {
        return e;
    }
    let tip = format!("to run `{arg}`, put it after `--`: sjlint run -- {arg}");
    e.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
    e
}

/// A first word that is meant as a subcommand but is none.
enum Meant {
    /// Close to this one.
    Near(&'static str),
    /// Close to none (`sjlint lint`, as other linters spell it).
    Unknown,
}

/// Whether `word`, which is no subcommand, is meant as one: it is not a flag, names no file,
/// and is close to a subcommand or a bare word, lower-case letters and dashes with no `.` or
/// `/` of a path.
fn mistyped_subcommand(word: &str) -> Option<Meant> {
    if word.starts_with('-') || SUBCOMMANDS.contains(&word) || std::path::Path::new(word).exists() {
        return None;
    }
    let near = SUBCOMMANDS
        .iter()
        .map(|s| (sjlint_core::config::edit_distance(word, s), *s))
        .filter(|(d, s)| *d <= 2 && *d < s.len() / 2 + 1)
        .min()
        .map(|(_, s)| s);
    let bare = !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    match near {
        Some(near) => Some(Meant::Near(near)),
        None => bare.then_some(Meant::Unknown),
    }
}

fn with_default_command<I: IntoIterator<Item = OsString>>(args: I) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    let first = args.get(1).and_then(|a| a.to_str());
    let is_global_flag = matches!(first, Some("-h" | "--help" | "-V" | "--version"));
    if !is_global_flag && !first.is_some_and(|a| SUBCOMMANDS.contains(&a)) {
        args.insert(1.min(args.len()), "check".into());
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        parse_from(
            std::iter::once("sjlint")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    #[test]
    fn check_is_the_default_command() {
        match parse(&["a.ndjson", "--strict"]).command {
            Command::Check(c) => {
                assert_eq!(c.paths, vec![PathBuf::from("a.ndjson")]);
                assert!(c.strict);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse(&[]).command, Command::Check(_)));
        assert!(matches!(parse(&["rules"]).command, Command::Rules));
        // The words taken for subcommands before clap parses are clap's subcommands.
        let mut clap_names: Vec<String> = <Cli as clap::CommandFactory>::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .chain(["help".to_owned()])
            .collect();
        let mut ours: Vec<String> = SUBCOMMANDS.iter().map(|s| (*s).to_owned()).collect();
        clap_names.sort();
        ours.sort();
        assert_eq!(ours, clap_names);
    }

    #[test]
    fn fmt_and_schema_are_subcommands() {
        match parse(&[
            "fmt",
            "a.jsonl",
            "--drop",
            "thinking,deltas",
            "--dialect",
            "sdk",
        ])
        .command
        {
            Command::Fmt(f) => {
                assert_eq!(f.drop, vec![DropArg::Thinking, DropArg::Deltas]);
                assert_eq!(f.dialect.forced(), Some(Dialect::Sdk));
                assert_eq!(f.to, ToArg::Ndjson);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(&["schema", "events"]).command,
            Command::Schema { name: Some(n) } if n == "events"
        ));
        assert!(matches!(
            parse(&["schema"]).command,
            Command::Schema { name: None }
        ));
        let both = Cli::try_parse_from(["sjlint", "fmt", "--to", "json", "--drop", "thinking"]);
        assert!(
            both.is_err(),
            "--to json writes results only, there is nothing to drop"
        );
    }

    #[test]
    fn select_and_ignore() {
        match parse(&["--select", "lifecycle", "--ignore", "missing-init"]).command {
            Command::Check(c) => {
                let set = c.rules();
                assert!(set.contains(sjlint_core::rules::Rule::MissingResult));
                assert!(!set.contains(sjlint_core::rules::Rule::MissingInit));
                assert!(!set.contains(sjlint_core::rules::Rule::InvalidJson));
            }
            other => panic!("{other:?}"),
        }
    }
}
