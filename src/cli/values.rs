//! The values options take: output formats, colour, progress, dialect, agent, and the rule
//! names of `--select`/`--ignore` checked as they are typed.

use clap::ValueEnum;
use sjlint_core::agents::cursor::view::Dialect;
use sjlint_outputs::report::Format;
use sjlint_outputs::terminal::{ColorChoice, ProgressChoice};

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
pub(super) fn agent_arg() -> impl clap::builder::TypedValueParser<Value = AgentArg> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let auto = PossibleValue::new("auto").help("Recognise the agent from its first records");
    let named = sjlint_core::agents::REGISTRY
        .iter()
        .map(|e| PossibleValue::new(e.name).help(format!("{} (`{}`)", e.display, e.command)));
    PossibleValuesParser::new(std::iter::once(auto).chain(named))
        .map(|name| AgentArg(sjlint_core::agents::Agent::from_name(&name)))
}

/// A rule or group name of `--select`/`--ignore`, with the nearest name on a typo.
pub(super) fn parse_rule_name(s: &str) -> Result<String, String> {
    let s = s.trim();
    sjlint_core::config::rules_named(s)
        .map(|_| s.to_owned())
        .ok_or_else(|| sjlint_core::config::unknown_name(s))
}
