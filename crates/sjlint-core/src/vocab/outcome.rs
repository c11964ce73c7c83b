//! How a session ended, in one vocabulary for every agent: the [`Outcome`] of an `end`.
//!
//! Each agent's checker reads its own account of the ending (Claude Code's `subtype` and
//! `terminal_reason`, Gemini CLI's error type, Pi's `stopReason`, …) into one of these; the
//! consumers that see a session end without an `end` (`stats`, `run`, `render`) say `no_result`,
//! and `sjlint run`'s supervisor says `stalled`, `killed` or `budget` when it ended the agent.

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The agent says the task ended normally, and it did something.
    Completed,
    /// The agent says the run failed: an API error, an error during execution, a prompt too
    /// long, a model error, …
    Failed,
    /// A limit on turns or steps ended it (`--max-turns`).
    MaxTurns,
    /// A cost or token budget ended it: the agent's own (`--max-budget-usd`) or sjlint's.
    Budget,
    /// The model refused the task.
    Refused,
    /// The agent says it completed, but tool calls it needed were denied permission.
    Denied,
    /// A hook stopped the run.
    HookStopped,
    /// The user (or a signal the agent received) cancelled the run.
    Cancelled,
    /// The stream ended without the agent's account of the ending.
    NoResult,
    /// The agent says it completed, having called no tool and written no text.
    Empty,
    /// `sjlint run` ended the agent for silence (`--idle-timeout`, `--tool-timeout`,
    /// `--first-output-timeout`, `--timeout`).
    Stalled,
    /// The agent was killed by a signal, or its stdout was closed.
    Killed,
}

impl Outcome {
    pub const ALL: [Outcome; 12] = [
        Outcome::Completed,
        Outcome::Failed,
        Outcome::MaxTurns,
        Outcome::Budget,
        Outcome::Refused,
        Outcome::Denied,
        Outcome::HookStopped,
        Outcome::Cancelled,
        Outcome::NoResult,
        Outcome::Empty,
        Outcome::Stalled,
        Outcome::Killed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
            Outcome::MaxTurns => "max_turns",
            Outcome::Budget => "budget",
            Outcome::Refused => "refused",
            Outcome::Denied => "denied",
            Outcome::HookStopped => "hook_stopped",
            Outcome::Cancelled => "cancelled",
            Outcome::NoResult => "no_result",
            Outcome::Empty => "empty",
            Outcome::Stalled => "stalled",
            Outcome::Killed => "killed",
        }
    }

    pub fn from_name(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// The task got done by the agent's own account: `completed`, and also `denied` and
    /// `empty`, which are warnings about a success, not failures.
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Completed | Outcome::Denied | Outcome::Empty)
    }

    /// The outcome of an `end` that says only whether it went well.
    pub fn of_ok(ok: Option<bool>) -> Outcome {
        if ok == Some(false) {
            Outcome::Failed
        } else {
            Outcome::Completed
        }
    }

    /// Claude Code's (and Qwen Code's, Amp's) account: the result's `subtype`, its
    /// `terminal_reason` (2.1.91 on; `completed` is the healthy one), its `stop_reason` and
    /// `is_error`. A reason it does not know that is not `completed` is a failure: the turn died.
    pub fn of_claude(
        subtype: Option<&str>,
        terminal_reason: Option<&str>,
        stop_reason: Option<&str>,
        is_error: bool,
    ) -> Outcome {
        match subtype {
            Some("error_max_turns") => return Outcome::MaxTurns,
            Some("error_max_budget_usd") => return Outcome::Budget,
            Some(s) if s.starts_with("error") => return Outcome::Failed,
            _ => {}
        }
        match terminal_reason {
            None | Some("completed") => {}
            Some("max_turns") => return Outcome::MaxTurns,
            Some("budget_exhausted") => return Outcome::Budget,
            Some("hook_stopped") => return Outcome::HookStopped,
            Some("aborted_streaming" | "aborted_tools") => return Outcome::Cancelled,
            Some("model_refusal" | "refusal") => return Outcome::Refused,
            Some(_) => return Outcome::Failed,
        }
        if is_error {
            Outcome::Failed
        } else if stop_reason == Some("refusal") {
            Outcome::Refused
        } else {
            Outcome::Completed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for o in Outcome::ALL {
            assert_eq!(Outcome::from_name(o.as_str()), Some(o));
        }
        assert_eq!(Outcome::from_name("success"), None);
    }

    #[test]
    fn claude_reads_its_subtype_then_its_terminal_reason() {
        let c = |st, tr, is_error| Outcome::of_claude(Some(st), tr, None, is_error);
        assert_eq!(c("success", Some("completed"), false), Outcome::Completed);
        assert_eq!(c("success", None, false), Outcome::Completed);
        assert_eq!(c("success", Some("max_turns"), false), Outcome::MaxTurns);
        assert_eq!(c("success", Some("api_error"), true), Outcome::Failed);
        assert_eq!(
            c("success", Some("rapid_refill_breaker"), false),
            Outcome::Failed
        );
        assert_eq!(
            c("success", Some("hook_stopped"), false),
            Outcome::HookStopped
        );
        assert_eq!(c("error_max_turns", None, true), Outcome::MaxTurns);
        assert_eq!(c("error_max_budget_usd", None, true), Outcome::Budget);
        assert_eq!(c("error_during_execution", None, true), Outcome::Failed);
        assert_eq!(
            Outcome::of_claude(Some("success"), None, Some("refusal"), false),
            Outcome::Refused
        );
    }
}
