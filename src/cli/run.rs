//! `run`'s options, and their resolution into the supervisor's plain settings.

use super::{
    AgentArg, ColorArg, DialectArg, FormatArg, LevelArg, ProgressArg, agent_arg, parse_rule_name,
};
use clap::{Args, ValueEnum};
use sjlint_outputs::report::Format;
use std::ffi::OsString;
use std::path::PathBuf;

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
pub(crate) fn parse_budget_cost(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not an amount of US dollars (such as 0.50)"
        )),
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

    /// The longest one export request may take, and how long the end of the run waits for
    /// the last spans before it counts them as not sent
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration, default_value = "5s", help_heading = "OpenTelemetry")]
    pub otlp_timeout: std::time::Duration,

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

    #[command(flatten)]
    pub redact: super::RedactArg,

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
                timeout: Some(a.otlp_timeout),
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
            redact: a.redact.redactor(),
            agent: a.agent.forced(),
            dialect: a.dialect.forced(),
            color: a.color.into(),
            progress: a.progress.into(),
        }
    }
}
