//! The options of `sjlint usage`.

use super::InputArgs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(mut_arg("paths", |a| a.help(
    "Files or directories to read; nothing reads the session logs the agents keep (their homes \
     found from HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME and the XDG folders); `-` reads \
     standard input"
)))]
pub struct UsageArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Group the rows by this (repeat for several keys: `--by day --by model`)
    #[arg(
        long,
        value_enum,
        value_name = "KEY",
        default_value = "day",
        help_heading = "Ledger"
    )]
    pub by: Vec<ByArg>,

    /// Only the days from this one on (YYYY-MM-DD, in the time zone)
    #[arg(long, value_name = "YYYY-MM-DD", help_heading = "Ledger")]
    pub since: Option<String>,

    /// Only the days up to this one, included (YYYY-MM-DD, in the time zone)
    #[arg(long, value_name = "YYYY-MM-DD", help_heading = "Ledger")]
    pub until: Option<String>,

    /// The time zone days are counted in, as an IANA name (`Europe/Paris`, `UTC`); default: the
    /// system's
    #[arg(long, value_name = "IANA", help_heading = "Ledger")]
    pub timezone: Option<String>,

    /// A price list in `LiteLLM`'s shape (`model_prices_and_context_window.json`) to use instead of
    /// the bundled one
    #[arg(long, value_name = "FILE", help_heading = "Ledger")]
    pub prices: Option<PathBuf>,

    /// Read every file again: neither use nor keep the cache of each file's rows
    /// (`$XDG_CACHE_HOME/sjlint/usage.json`, else `~/.cache/sjlint/usage.json`)
    #[arg(long, help_heading = "Ledger")]
    pub no_cache: bool,

    /// How to print the ledger
    #[arg(long, value_enum, default_value = "table", help_heading = "Output")]
    pub format: UsageFormat,

    /// Files read at once (default: one per core); the output is the same either way. At most
    /// 4 per core
    #[arg(long, short, value_name = "N", help_heading = "Performance")]
    pub jobs: Option<usize>,
}

/// What `--by` groups by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// The day, YYYY-MM-DD in the time zone
    Day,
    /// The ISO week, named by its Monday
    Week,
    /// The month, YYYY-MM
    Month,
    /// The session's id
    Session,
    /// The directory the agent worked in
    Project,
    /// The model, as the agent names it
    Model,
    /// The agent
    Agent,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UsageFormat {
    /// Aligned columns with a totals row, for people
    Table,
    /// One JSON document: `by`, `rows`, `totals`, `prices`
    Json,
    /// A header and a row per line, the columns of the JSON rows
    Csv,
}
