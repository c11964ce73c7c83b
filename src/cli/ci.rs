//! The options of `sjlint ci`.

use super::InputArgs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(
    mut_arg("paths", |a| a.help(
        "Streams and session logs to check (claude-code-action's execution file, a Codex rollout, \
         a captured stream), or directories of them; `-` or nothing reads standard input"
    )),
    after_help = "In GitHub Actions (GITHUB_STEP_SUMMARY and GITHUB_OUTPUT set) the summary is \
                  appended to the job's page, the outputs to the step's, and findings become \
                  annotations; elsewhere the summary is printed. Exit 0 when every gate holds, 1 \
                  when one fails, 2 on a usage error or an input that cannot be read."
)]
pub struct CiArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Fail when the runs cost more than this many US dollars together (the agents' own
    /// figures, else their tokens priced by the bundled list; a cost that cannot be known fails
    /// the gate)
    #[arg(long, value_name = "USD", value_parser = super::run::parse_budget_cost, help_heading = "Gates")]
    pub max_cost: Option<f64>,

    /// Fail when the runs used more than N tokens together (input and output, each counted
    /// once, as `run --max-tokens` counts them)
    #[arg(long, value_name = "N", help_heading = "Gates")]
    pub max_tokens: Option<u64>,

    /// Fail on findings of this severity or above
    #[arg(
        long,
        value_enum,
        value_name = "LEVEL",
        default_value = "error",
        help_heading = "Gates"
    )]
    pub fail_on: FailOnArg,

    #[arg(
        long,
        value_name = "OUTCOMES",
        value_delimiter = ',',
        value_parser = parse_outcome,
        help_heading = "Gates",
        help = "Fail when a run ended in one of these outcomes (comma-separated, as `stats` names \
                them: failed, max_turns, budget, refused, denied, hook_stopped, cancelled, \
                no_result, empty, stalled, killed); `none` for no such gate [default: every \
                outcome but completed]"
    )]
    pub fail_on_outcome: Option<Vec<OutcomeArg>>,

    /// Also write the HTML report of the runs into this directory (`index.html` and a page per
    /// run); its path is the `report` output
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub report: Option<PathBuf>,

    /// Copy credentials as they are: by default every text `ci` writes (the summary, the
    /// annotations, the report) has each credential replaced by `[REDACTED:KIND]`, as `--redact`
    /// does elsewhere, since CI logs of public repositories are public
    #[arg(long, help_heading = "Output")]
    pub no_redact: bool,

    /// Findings listed in the summary (the first ones, errors first); the rest are counted
    #[arg(long, value_name = "N", default_value_t = 10, help_heading = "Output")]
    pub max_findings: usize,

    /// Findings made annotations in GitHub Actions (the runner shows 10 errors and 10 warnings
    /// per step); the rest are counted in a notice
    #[arg(long, value_name = "N", default_value_t = 50, help_heading = "Output")]
    pub max_annotations: usize,

    /// Files read at once (default: one per core). At most 4 per core
    #[arg(long, short, value_name = "N", help_heading = "Performance")]
    pub jobs: Option<usize>,
}

/// `--fail-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    Error,
    Warning,
    /// Findings never fail the step
    Never,
}

/// One of `--fail-on-outcome`: an outcome, or `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutcomeArg {
    Outcome(sjlint_core::vocab::Outcome),
    None,
}

fn parse_outcome(s: &str) -> Result<OutcomeArg, String> {
    let s = s.trim();
    if s == "none" {
        return Ok(OutcomeArg::None);
    }
    sjlint_core::vocab::Outcome::from_name(s)
        .map(OutcomeArg::Outcome)
        .ok_or_else(|| {
            let names: Vec<&str> = sjlint_core::vocab::Outcome::ALL
                .iter()
                .map(|o| o.as_str())
                .collect();
            format!(
                "`{s}` is no outcome; the outcomes are {}, or none",
                names.join(", ")
            )
        })
}
