//! `check`'s options, and the severities of `--severity`.

use super::{
    AgentArg, ColorArg, DialectArg, FormatArg, ProgressArg, WalkArgs, agent_arg, parse_rule_name,
};
use clap::{Args, ValueEnum};
use sjlint_core::rules::RuleSet;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (directories: *.ndjson, *.jsonl, *.json files that hold a
    /// stream, and their zstd copies *.ndjson.zst and *.jsonl.zst); `-` or nothing reads
    /// standard input
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
