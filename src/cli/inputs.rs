//! The options every command that reads inputs shares (what to read, the agent, the walk),
//! and those of `stats`, `report` and `render`.

use super::{AgentArg, ColorArg, DialectArg, agent_arg};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// What the commands that read streams without reporting findings share.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Files or directories to read (directories: *.ndjson, *.jsonl, *.json files that hold a
    /// stream, and their zstd copies *.ndjson.zst and *.jsonl.zst); `-` or nothing reads
    /// standard input
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

    /// Files read at once (default: one per core); the output is the same either way and keeps
    /// the order of the paths. At most 4 per core
    #[arg(long, short, value_name = "N", help_heading = "Performance")]
    pub jobs: Option<usize>,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The page to write; with several inputs, a directory, or a path ending in `/`, a directory
    /// that gets `index.html` and one page per run
    #[arg(long, short = 'o', value_name = "PATH", help_heading = "Output")]
    pub output: PathBuf,

    #[command(flatten)]
    pub redact: super::RedactArg,
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

    #[command(flatten)]
    pub redact: super::RedactArg,
}

/// How directories are walked; shared by every command that reads streams.
#[derive(Args, Debug, Default, Clone)]
pub struct WalkArgs {
    /// Take the files matching GLOB in directories, instead of *.ndjson, *.jsonl, the *.json
    /// files that hold a stream, *.ndjson.zst and *.jsonl.zst (repeatable)
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
