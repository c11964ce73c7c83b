//! What a CI step is told of the runs it checked (`sjlint ci`): one account of them (how they
//! ended, what they spent, their tool calls and findings), the gates held to it, and its two
//! forms: the Markdown summary a GitHub step shows ([`markdown()`]) and the step's outputs in
//! the `key=value` syntax of `GITHUB_OUTPUT` ([`outputs()`]).
//!
//! This module owns the account and the gates' verdict. It must not read inputs or the
//! environment, nor open files (the `ci` command does).

mod markdown;
mod outputs;

pub use markdown::{markdown, markdown_text};
pub use outputs::outputs;

use crate::stats::Stats;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::Severity;
use sjlint_core::vocab::Outcome;

/// Where a run's cost comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostFrom {
    /// The agent reported it.
    Agent,
    /// The agent reported none: its tokens priced by the price list.
    Prices,
    /// Neither: no cost is known.
    Unknown,
}

/// One input, counted.
pub struct Run {
    pub name: String,
    pub stats: Stats,
    /// US dollars, and where the figure comes from.
    pub cost: Option<f64>,
    pub cost_from: CostFrom,
}

impl Run {
    /// How the run ended: its last session's outcome. `None` when the input does not say: a
    /// session log, which keeps no account of a run's end, or an input with no event.
    pub fn outcome(&self) -> Option<Outcome> {
        self.stats.last_end.as_ref().map(|(o, _)| *o)
    }

    /// The agent's own word for how its last session ended, when it gives one.
    pub fn reason(&self) -> Option<&str> {
        self.stats.last_end.as_ref().and_then(|(_, r)| r.as_deref())
    }
}

/// The gates a CI step holds the runs to.
#[derive(Clone, Debug, Default)]
pub struct Gates {
    /// Most US dollars all runs may cost together.
    pub max_cost: Option<f64>,
    /// Most tokens (input and output, each counted once, as `run --max-tokens` counts them).
    pub max_tokens: Option<u64>,
    /// Findings of this severity or above fail the step (`None`: findings never do).
    pub fail_on: Option<Severity>,
    /// Runs that end in one of these fail the step.
    pub fail_on_outcome: Vec<Outcome>,
}

/// One gate, and whether the runs held it.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    pub held: bool,
    /// What was held and against what, for people (`cost $0.42 ≤ $1.00`), as Markdown: the
    /// names of inputs in it are escaped ([`markdown_text`]).
    pub text: String,
}

/// Everything the summary and the outputs say.
pub struct Account {
    pub runs: Vec<Run>,
    /// Every run's statistics added up.
    pub total: Stats,
    /// The findings shown (the first ones, errors before warnings before infos), with their
    /// input's name.
    pub findings: Vec<(String, Diagnostic)>,
    /// The page `--report` wrote.
    pub report: Option<String>,
    /// Credentials replaced in what was written, per kind.
    pub redacted: Vec<(&'static str, u64)>,
    pub gates: Vec<Gate>,
}

impl Account {
    /// The runs counted, their total, and the gates judged.
    pub fn new(runs: Vec<Run>, findings: Vec<(String, Diagnostic)>, gates: &Gates) -> Account {
        let mut total = Stats::default();
        for run in &runs {
            total.merge(&run.stats);
        }
        let mut account = Account {
            runs,
            total,
            findings,
            report: None,
            redacted: Vec::new(),
            gates: Vec::new(),
        };
        account.gates = account.judge(gates);
        account
    }

    /// How the runs ended: the first outcome other than `completed`, in the order of the
    /// inputs; `completed` when every run that says completed; `None` when none says.
    pub fn outcome(&self) -> Option<Outcome> {
        let mut outcomes = self.runs.iter().filter_map(Run::outcome);
        match outcomes.clone().find(|o| *o != Outcome::Completed) {
            Some(other) => Some(other),
            None => outcomes.next(),
        }
    }

    /// What all the runs cost together: `None` when no run's cost is known.
    pub fn cost(&self) -> Option<f64> {
        self.runs.iter().filter_map(|r| r.cost).reduce(|a, b| a + b)
    }

    /// Some runs' cost is unknown while others' is: the total is a floor.
    pub fn cost_partial(&self) -> bool {
        let known = self.runs.iter().filter(|r| r.cost.is_some()).count();
        known > 0 && known < self.runs.len()
    }

    /// Input and output tokens, each counted once.
    pub fn tokens(&self) -> u64 {
        self.total.tokens.input + self.total.tokens.output
    }

    /// Whether every gate held.
    pub fn passed(&self) -> bool {
        self.gates.iter().all(|g| g.held)
    }

    fn judge(&self, gates: &Gates) -> Vec<Gate> {
        let mut out = Vec::new();
        if let Some(max) = gates.max_cost {
            out.push(match self.cost() {
                Some(cost) => Gate {
                    held: cost <= max,
                    text: format!(
                        "cost {} {} {} (--max-cost)",
                        dollars(cost),
                        if cost <= max { "≤" } else { ">" },
                        dollars(max)
                    ),
                },
                // A budget that cannot be checked does not hold: the step would pass blind.
                None => Gate {
                    held: false,
                    text: format!(
                        "cost unknown: no run reported one and none could be priced (--max-cost {})",
                        dollars(max)
                    ),
                },
            });
        }
        if let Some(max) = gates.max_tokens {
            let spent = self.tokens();
            out.push(Gate {
                held: spent <= max,
                text: format!(
                    "tokens {} {} {} (--max-tokens; input and output)",
                    thousands(spent),
                    if spent <= max { "≤" } else { ">" },
                    thousands(max)
                ),
            });
        }
        if let Some(level) = gates.fail_on {
            let f = &self.total.findings;
            let failing = match level {
                Severity::Error => f.errors,
                Severity::Warning => f.errors + f.warnings,
                Severity::Info => f.errors + f.warnings + f.infos,
            };
            out.push(Gate {
                held: failing == 0,
                text: format!(
                    "{} at {} level or above (--fail-on {})",
                    count(failing, "finding"),
                    level.as_str(),
                    level.as_str()
                ),
            });
        }
        if !gates.fail_on_outcome.is_empty() {
            let failing: Vec<&Run> = self
                .runs
                .iter()
                .filter(|r| {
                    r.outcome()
                        .is_some_and(|o| gates.fail_on_outcome.contains(&o))
                })
                .collect();
            out.push(Gate {
                held: failing.is_empty(),
                text: match failing.as_slice() {
                    [] => format!(
                        "no run ended {} (--fail-on-outcome)",
                        or_list(&gates.fail_on_outcome)
                    ),
                    [one] => format!(
                        "{} ended {} (--fail-on-outcome)",
                        markdown_text(&one.name),
                        outcome_name(one.outcome())
                    ),
                    [first, ..] => format!(
                        "{} ended in a failing outcome, the first {} (--fail-on-outcome)",
                        count(failing.len() as u64, "run"),
                        outcome_name(first.outcome())
                    ),
                },
            });
        }
        out
    }
}

/// An outcome's name; `unknown` when the input does not say.
pub fn outcome_name(outcome: Option<Outcome>) -> &'static str {
    outcome.map_or("unknown", Outcome::as_str)
}

/// `$0.0042`, `$1.25`, `$1,234.50`.
pub fn dollars(usd: f64) -> String {
    if usd != 0.0 && usd.abs() < 0.01 {
        format!("${usd:.4}")
    } else {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a cost in cents, far below 2^53"
        )]
        let cents = (usd.abs() * 100.0).round() as u64;
        let sign = if usd < 0.0 { "-" } else { "" };
        format!("{sign}${}.{:02}", thousands(cents / 100), cents % 100)
    }
}

fn thousands(n: u64) -> String {
    sjlint_core::text::thousands(n)
}

/// `1 finding`, `3 findings`.
fn count(n: u64, word: &str) -> String {
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// `failed, max_turns or denied`.
fn or_list(outcomes: &[Outcome]) -> String {
    let names: Vec<&str> = outcomes.iter().map(|o| o.as_str()).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outcome: Option<Outcome>, cost: Option<f64>) -> Run {
        let mut stats = Stats {
            last_end: outcome.map(|o| (o, None)),
            ..Stats::default()
        };
        stats.tokens.input = 100;
        stats.tokens.output = 50;
        Run {
            name: "r".into(),
            stats,
            cost,
            cost_from: if cost.is_some() {
                CostFrom::Agent
            } else {
                CostFrom::Unknown
            },
        }
    }

    #[test]
    fn the_outcome_is_the_first_run_that_did_not_complete() {
        let runs = vec![
            run(Some(Outcome::Completed), None),
            run(Some(Outcome::MaxTurns), None),
            run(Some(Outcome::Failed), None),
        ];
        let a = Account::new(runs, Vec::new(), &Gates::default());
        assert_eq!(a.outcome(), Some(Outcome::MaxTurns));
        let a = Account::new(
            vec![run(Some(Outcome::Completed), None)],
            Vec::new(),
            &Gates::default(),
        );
        assert_eq!(a.outcome(), Some(Outcome::Completed));
        // A session log says nothing of how its run ended, and fails no outcome gate.
        let log = vec![run(None, None), run(Some(Outcome::Completed), None)];
        let gates = Gates {
            fail_on_outcome: vec![Outcome::NoResult, Outcome::Failed],
            ..Gates::default()
        };
        let a = Account::new(log, Vec::new(), &gates);
        assert_eq!(a.outcome(), Some(Outcome::Completed));
        assert!(a.passed(), "{:?}", a.gates);
        let a = Account::new(Vec::new(), Vec::new(), &Gates::default());
        assert_eq!(a.outcome(), None);
    }

    #[test]
    fn an_unknown_cost_fails_a_cost_budget_and_a_known_one_is_compared() {
        let gates = Gates {
            max_cost: Some(1.0),
            ..Gates::default()
        };
        let a = Account::new(vec![run(Some(Outcome::Completed), None)], vec![], &gates);
        assert!(!a.passed(), "{:?}", a.gates);
        let a = Account::new(
            vec![run(Some(Outcome::Completed), Some(0.5))],
            vec![],
            &gates,
        );
        assert!(a.passed(), "{:?}", a.gates);
        let a = Account::new(
            vec![
                run(Some(Outcome::Completed), Some(0.5)),
                run(Some(Outcome::Completed), Some(0.75)),
            ],
            vec![],
            &gates,
        );
        assert!(!a.passed());
        assert_eq!(a.gates[0].text, "cost $1.25 > $1.00 (--max-cost)");
    }

    #[test]
    fn tokens_are_input_and_output() {
        let gates = Gates {
            max_tokens: Some(150),
            ..Gates::default()
        };
        let a = Account::new(vec![run(Some(Outcome::Completed), None)], vec![], &gates);
        assert!(a.passed(), "{:?}", a.gates);
        let gates = Gates {
            max_tokens: Some(149),
            ..Gates::default()
        };
        let a = Account::new(vec![run(Some(Outcome::Completed), None)], vec![], &gates);
        assert!(!a.passed());
    }

    #[test]
    fn dollars_read_as_people_write_them() {
        assert_eq!(dollars(0.0031), "$0.0031");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(1.5), "$1.50");
        assert_eq!(dollars(1234.5), "$1,234.50");
    }
}
