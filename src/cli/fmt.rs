//! `fmt`'s options: what it leaves out and what it writes.

use super::{AgentArg, ColorArg, DialectArg, WalkArgs, agent_arg};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

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

    #[command(flatten)]
    pub redact: super::RedactArg,
}
