//! The command line: clap definitions and their resolution into plain settings.
//!
//! This module owns what the user can type and what it means (`check` as the default command,
//! size suffixes, rule lists). It must not read inputs or print findings; `commands` does.

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

    /// Files checked at once (default: all cores); output keeps the order of the paths
    #[arg(long, short, value_name = "N")]
    pub jobs: Option<usize>,
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

    /// The name standard input is shown under
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,
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
