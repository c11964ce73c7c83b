//! The command line: clap definitions and their resolution into plain settings.
//!
//! This module owns what the user can type and what it means (`check` as the default command,
//! size suffixes, rule lists). It must not read inputs or print findings; `commands` does.
//!
//! Here: the command and its subcommands, and the parsing that inserts `check` when none is
//! named. Beside it, each command's options: `check`, `fmt`, `inputs` (what the commands that
//! read inputs share, and `stats`, `report`, `render`), `run`; and `values`, the types options
//! take.

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

mod check;
mod ci;
mod fmt;
mod inputs;
mod redact;
mod run;
mod usage;
mod values;

pub use check::*;
pub use ci::*;
pub use fmt::*;
pub use inputs::*;
pub use redact::*;
pub use run::*;
pub use usage::*;
pub use values::*;

/// The binary's one-line description, naming every agent of the registry (but sjlint's own
/// common form).
fn about() -> String {
    let names: Vec<&str> = sjlint_core::agents::REGISTRY
        .iter()
        .filter(|e| e.agent != sjlint_core::agents::Agent::Common)
        .map(|e| e.display)
        .collect();
    format!(
        "Check the NDJSON event streams of coding-agent CLIs ({})",
        names.join(", ")
    )
}

#[derive(Parser, Debug)]
#[command(
    name = "sjlint",
    version,
    about = about(),
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
    /// Copy the session logs the agents keep on disk into a folder of compressed files, before
    /// the agents delete them; run it again to copy what is new or grew
    #[command(display_order = 13)]
    Archive(ArchiveArgs),
    /// Tokens and cost by day, week, month, session, project, model or agent, from the agents'
    /// session logs (by default) or the streams and logs named
    #[command(display_order = 14)]
    Usage(UsageArgs),
    /// Check runs in CI: a Markdown summary for the job's page, the step's outputs, annotations,
    /// and gates on outcome, cost, tokens and findings
    #[command(display_order = 15)]
    Ci(CiArgs),
}

/// The options of `sjlint archive`.
#[derive(clap::Args, Debug)]
pub struct ArchiveArgs {
    /// The archive folder
    #[arg(
        long,
        value_name = "DIR",
        long_help = "The archive folder (default: $XDG_DATA_HOME/sjlint/archive, else ~/.local/share/sjlint/archive)"
    )]
    pub to: Option<PathBuf>,

    /// Say what would be copied, and copy nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// The subcommands, for telling a mistyped one from a file name.
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
    "archive",
    "usage",
    "ci",
    "help",
];

/// Parses the command line, with `check` inserted when no subcommand is named. A first word
/// that is no path but nearly a subcommand (`sjlint chekc`) is a usage error naming it. On an
/// error (`--help` and `--version` included) it prints and exits, as clap does.
pub fn parse_from<I: IntoIterator<Item = OsString>>(args: I) -> Cli {
    try_parse_from(args).unwrap_or_else(|e| e.exit())
}

/// [`parse_from`], with the error returned instead of printed.
pub fn try_parse_from<I: IntoIterator<Item = OsString>>(args: I) -> Result<Cli, clap::Error> {
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
        return Err(
            clap::Error::raw(clap::error::ErrorKind::InvalidSubcommand, msg)
                .with_cmd(&<Cli as clap::CommandFactory>::command()),
        );
    }
    let args = with_default_command(args);
    Cli::try_parse_from(&args).map_err(|e| agent_after_dashes(e, &args))
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
    use sjlint_core::agents::cursor::view::Dialect;

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
