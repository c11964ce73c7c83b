//! The command line: clap definitions and their resolution into plain settings.
//!
//! This module owns what the user can type and what it means (`check` as the default command,
//! size suffixes, rule lists). It must not read inputs or print findings; `commands` does.

use crate::event::Dialect;
use crate::report::Format;
use crate::rules::RuleSet;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "sjlint",
    version,
    about = "Check the NDJSON event streams of coding-agent CLIs (cursor-agent stream-json)",
    after_help = "`sjlint PATH…` is `sjlint check PATH…`. Pipe a stream in, or name files and directories."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate streams and report findings (the default command)
    Check(CheckArgs),
    /// List every rule: name, group, default severity, summary
    Rules,
    /// Explain a rule: what it checks, why, a failing and a passing example
    Explain {
        /// A rule name, as `sjlint rules` lists them
        rule: String,
    },
    /// Summarize streams: records, sessions, events, tool calls and their durations, tokens
    Stats(StatsArgs),
    /// Print a readable transcript: prompt, assistant text, one line per tool call, result
    Render(RenderArgs),
    /// Print a shell completion script (e.g. `sjlint completions bash > ~/.local/share/bash-completion/completions/sjlint`)
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff) on stdout (e.g. `sjlint man | man -l -`)
    Man {
        /// A subcommand's page (`sjlint-check(1)`) instead of the main one
        command: Option<String>,
    },
    /// Write streams in canonical form (cursor's stream-json, one event per line) to stdout
    Fmt(FmtArgs),
    /// Print a bundled JSON Schema; with no name, list them
    Schema {
        /// A schema name, as `sjlint schema` lists them
        name: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Human,
    Concise,
    Json,
    Github,
    Sarif,
    Junit,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Human => Format::Human,
            FormatArg::Concise => Format::Concise,
            FormatArg::Json => Format::Json,
            FormatArg::Github => Format::Github,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Junit => Format::Junit,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

impl ColorArg {
    pub fn as_str(self) -> &'static str {
        match self {
            ColorArg::Auto => "auto",
            ColorArg::Always => "always",
            ColorArg::Never => "never",
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
    /// A web client's `payload` wrapping (seed 002)
    Payload,
    /// The Python client's and the cloud SDK's events (seed 004)
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

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (directories: *.ndjson, *.jsonl, *.json); `-` or nothing
    /// reads standard input
    pub paths: Vec<PathBuf>,

    /// How to print findings [default: human; under GitHub Actions, human plus annotations on
    /// stderr]
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    /// Copy the input to stdout byte for byte as it arrives; findings go to stderr
    #[arg(long)]
    pub tee: bool,

    /// Only these rules or groups (comma-separated names; see `sjlint rules`)
    #[arg(long, value_name = "RULES", value_parser = parse_rules)]
    pub select: Option<RuleSet>,

    /// Skip these rules or groups (comma-separated)
    #[arg(long, value_name = "RULES", value_parser = parse_rules)]
    pub ignore: Option<RuleSet>,

    /// Warnings fail the run too
    #[arg(long)]
    pub strict: bool,

    /// Exit 0 even when there are findings
    #[arg(long)]
    pub exit_zero: bool,

    /// Print at most N findings (all are still counted in the summary)
    #[arg(long, value_name = "N")]
    pub max_diagnostics: Option<u64>,

    /// Largest record checked; longer ones are skipped and reported (suffixes K, M, G; binary)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "64M")]
    pub max_record_bytes: usize,

    /// Tool calls and interaction queries kept open at once per session; past that, the rest
    /// are not paired and `too-many-open-calls` says so once. Bounds the memory a stream that
    /// never completes its calls can take
    #[arg(long, value_name = "N", default_value_t = crate::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_open_calls: usize,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,

    /// The name standard input is reported under
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,

    /// Colour: auto honours NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,

    /// Print findings only: no summary
    #[arg(long, short)]
    pub quiet: bool,

    /// A live status line (and a progress bar for files) on stderr: auto shows it when stderr is
    /// a terminal
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ColorArg,

    /// Threads (default: all cores): several files are checked at once, one input is split,
    /// parsed and validated on separate threads; 1 keeps everything on one thread. The output
    /// is the same either way and keeps the order of the paths. At most 4 per core: more are
    /// cut to that, with a note
    #[arg(long, short, value_name = "N")]
    pub jobs: Option<usize>,

    /// Read files instead of mapping them into memory (mapping is faster, but a file that
    /// another process truncates meanwhile ends its check with an error)
    #[arg(long)]
    pub no_mmap: bool,

    /// Bytes of records handed from thread to thread at once when one input is checked on
    /// several threads (suffixes K, M, G); for tests
    #[arg(long, value_name = "SIZE", value_parser = parse_size, hide = true)]
    pub batch_size: Option<usize>,
    /// Bytes of a file each thread splits and examines on its own, when a file is checked
    /// where it lies on several threads (suffixes K, M, G); for tests
    #[arg(long, value_name = "SIZE", value_parser = parse_size, hide = true)]
    pub segment_size: Option<usize>,
}

impl CheckArgs {
    /// The enabled rules: `--select` (default all) less `--ignore`.
    pub fn rules(&self) -> RuleSet {
        let mut set = self.select.unwrap_or_else(RuleSet::all);
        if let Some(ignore) = self.ignore {
            for rule in crate::rules::Rule::all() {
                if ignore.contains(rule) {
                    set.remove(rule);
                }
            }
        }
        set
    }
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
}

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Files or directories (directories: *.ndjson, *.jsonl, *.json); `-` or nothing reads
    /// standard input
    pub paths: Vec<PathBuf>,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,

    /// Keep each record that is not an event as `{"type":"raw","data":"<the line>"}` instead of
    /// leaving it out (it is reported on stderr either way)
    #[arg(long)]
    pub keep_invalid: bool,

    /// Leave out these events (comma-separated): thinking, deltas
    #[arg(long, value_enum, value_name = "KINDS", value_delimiter = ',')]
    pub drop: Vec<DropArg>,

    /// What to write: the canonical stream, or per session the result object of
    /// `--output-format json`
    #[arg(long, value_enum, default_value = "ndjson", conflicts_with_all = ["drop", "keep_invalid"])]
    pub to: ToArg,

    /// Largest record read; longer ones are left out and reported (suffixes K, M, G; binary)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "64M")]
    pub max_record_bytes: usize,

    /// Tool calls and interaction queries kept open at once per session; past that, the rest
    /// are not paired and `too-many-open-calls` says so once. Bounds the memory a stream that
    /// never completes its calls can take
    #[arg(long, value_name = "N", default_value_t = crate::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_open_calls: usize,

    /// The name standard input is reported under
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,

    /// Colour of the findings on stderr: auto honours NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
}

fn parse_rules(s: &str) -> Result<RuleSet, String> {
    RuleSet::parse_list(s)
}

/// `1024`, `64K`, `64KiB`, `64M`, `1G` (binary multiples).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let n: usize = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 1048576, 512K, 64M, 1G)"))?;
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("`{s}`: unknown size suffix (use K, M or G)")),
    };
    let size = n
        .checked_mul(1usize << shift)
        .ok_or_else(|| format!("`{s}` is too large"))?;
    if size == 0 {
        return Err("the size must be at least 1 byte".to_owned());
    }
    Ok(size)
}

/// What the commands that read streams without reporting findings share.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Files or directories to read (directories: *.ndjson, *.jsonl, *.json); `-` or nothing
    /// reads standard input
    pub paths: Vec<PathBuf>,

    /// Largest record read; longer ones are skipped (suffixes K, M, G; binary)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "64M")]
    pub max_record_bytes: usize,

    /// Tool calls and interaction queries kept open at once per session; past that, the rest
    /// are not paired and `too-many-open-calls` says so once. Bounds the memory a stream that
    /// never completes its calls can take
    #[arg(long, value_name = "N", default_value_t = crate::pairing::DEFAULT_MAX_OPEN_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_open_calls: usize,

    /// The name standard input is shown under
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,

    /// Read records as this dialect; auto classifies each record by its own shape
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// Aligned text for people
    Table,
    /// One JSON document; see `schemas/stats.schema.json`
    Json,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// How to print the statistics
    #[arg(long, value_enum, default_value = "table")]
    pub format: StatsFormat,
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Show the model's thinking too
    #[arg(long)]
    pub thinking: bool,

    /// The wording of cursor-agent's own `text` output format: one line per action, no colour
    #[arg(long, conflicts_with = "thinking")]
    pub plain: bool,

    /// Colour: auto honours NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
}

const SUBCOMMANDS: &[&str] = &[
    "check",
    "rules",
    "explain",
    "stats",
    "render",
    "completions",
    "man",
    "fmt",
    "schema",
    "help",
];

/// Parses the command line, with `check` inserted when no subcommand is named.
pub fn parse_from<I: IntoIterator<Item = OsString>>(args: I) -> Cli {
    Cli::parse_from(with_default_command(args))
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
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2KiB"), Ok(2048));
        assert!(parse_size("12 apples").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn select_and_ignore() {
        match parse(&["--select", "lifecycle", "--ignore", "missing-init"]).command {
            Command::Check(c) => {
                let set = c.rules();
                assert!(set.contains(crate::rules::Rule::MissingResult));
                assert!(!set.contains(crate::rules::Rule::MissingInit));
                assert!(!set.contains(crate::rules::Rule::InvalidJson));
            }
            other => panic!("{other:?}"),
        }
    }
}
