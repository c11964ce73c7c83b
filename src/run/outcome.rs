//! How a run ended: the reason, the exit code, the closing line and the `--summary` document.
//!
//! This module owns the exit-code table of `sjlint run` and the wire form of
//! `schemas/run-summary.schema.json`. It must not signal processes nor read pipes; the
//! supervisor hands it what happened.

use serde::Serialize;
use sjlint_core::text::{escape_untrusted, thousands};
use sjlint_core::vocab::Outcome;
use sjlint_outputs::stats::{Findings, Stats};
use std::fmt::Write as _;
use std::time::Duration;

/// The agent ended and sjlint found nothing wrong (a run ended after a successful `result` is
/// a success).
pub const EXIT_OK: u8 = 0;
/// The agent succeeded by its own account, but the stream broke: error findings (or warnings
/// with `--strict`).
pub const EXIT_FINDINGS: u8 = 1;
/// A usage error (clap's own), a file to write (`--save`, `--output-file`) could not be
/// created, a transcript or `--summary` could not be written in full, or sjlint's stdout failed
/// otherwise than closed (a full disk).
pub const EXIT_USAGE: u8 = 2;
/// The agent reported failure: an error `result`, or no `result` and a non-zero exit (or death
/// by a signal sjlint did not send).
pub const EXIT_AGENT_FAILED: u8 = 3;
/// A stall or a timeout: `--idle-timeout`, `--tool-timeout`, `--timeout` (as `timeout`).
pub const EXIT_STALLED: u8 = 124;
/// The agent could not be executed (found but not runnable), or not found: as shells say it.
pub const EXIT_CANNOT_EXECUTE: u8 = 126;
pub const EXIT_NOT_FOUND: u8 = 127;
/// The run went past a budget (`--max-cost`, `--max-tokens`, `--max-tool-calls`) and the
/// agent's group was ended.
pub const EXIT_OVER_BUDGET: u8 = 4;

/// sjlint's stdout was closed: the agent's group was ended (128 + SIGPIPE).
pub const EXIT_OUTPUT_CLOSED: u8 = 141;

/// Why the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The agent exited by itself.
    Exited,
    /// The agent did not exit within `--after-result` of its result and was ended.
    AfterResult,
    /// The agent wrote nothing within `--first-output-timeout` of its start.
    FirstOutput,
    /// The stream went past `--max-cost`, `--max-tokens` or `--max-tool-calls`.
    Budget,
    Idle,
    ToolTimeout,
    Timeout,
    /// sjlint received this signal and passed it on.
    Interrupted(i32),
    /// sjlint's stdout was closed.
    OutputClosed,
    /// Writing to sjlint's stdout failed otherwise (a full disk).
    OutputFailed,
}

impl Ending {
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Exited => "exited",
            Ending::AfterResult => "terminated-after-result",
            Ending::FirstOutput => "first-output-timeout",
            Ending::Budget => "over-budget",
            Ending::Idle => "idle-timeout",
            Ending::ToolTimeout => "tool-timeout",
            Ending::Timeout => "timeout",
            Ending::Interrupted(_) => "interrupted",
            Ending::OutputClosed => "output-closed",
            Ending::OutputFailed => "output-failed",
        }
    }
}

/// How the agent's process ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// What the exit code depends on.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    pub ending: Ending,
    pub status: Status,
    /// `Some(is_error)` when a terminal result arrived (the last one counts).
    pub result_error: Option<bool>,
    pub findings: Findings,
    pub strict: bool,
}

impl Verdict {
    /// The exit code, by precedence: interrupted; closed output; stall or timeout; the agent's
    /// own failure; findings; success.
    pub fn exit_code(&self) -> u8 {
        match self.ending {
            Ending::Interrupted(n) => return sjlint_core::interrupt::exit_code_for(n),
            Ending::OutputClosed => return EXIT_OUTPUT_CLOSED,
            Ending::OutputFailed => return EXIT_USAGE,
            Ending::FirstOutput | Ending::Idle | Ending::ToolTimeout | Ending::Timeout => {
                return EXIT_STALLED;
            }
            Ending::Budget => return EXIT_OVER_BUDGET,
            Ending::Exited | Ending::AfterResult => {}
        }
        let failed = match self.result_error {
            Some(is_error) => is_error,
            None => self.status.code != Some(0),
        };
        if failed {
            EXIT_AGENT_FAILED
        } else if self.findings.errors > 0 || (self.strict && self.findings.warnings > 0) {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    }
}

/// The version of the summary's form: 2 added the fields an orchestrator acts on (ids, model,
/// result text, cost, calls by kind, the findings, the tail of stderr).
pub const SUMMARY_VERSION: u32 = 2;

/// `--summary`: see `schemas/run-summary.schema.json`.
#[derive(Serialize, Debug)]
pub struct RunSummary {
    pub version: u32,
    pub command: Vec<String>,
    pub ended: &'static str,
    /// How the run ended, in the words of the common form (see [`run_outcome`]).
    pub outcome: &'static str,
    /// The agent's own word for how its last session ended.
    pub reason: Option<String>,
    pub exit_code: u8,
    pub duration_ms: u64,
    pub agent: Agent,
    pub signal_received: Option<String>,
    /// Signals sent to the agent's process group, in order.
    pub signals_sent: Vec<String>,
    pub result: Option<ResultSummary>,
    pub stall: Option<Stall>,
    /// The budget the run went past, when one ended it.
    pub budget: Option<BudgetSummary>,
    pub records: u64,
    pub bytes: u64,
    pub invalid_records: u64,
    pub tool_calls: ToolCalls,
    pub tokens: Option<Tokens>,
    /// What the agent reports the run cost, in US dollars, counted as `stats` counts it.
    pub cost_usd: Option<f64>,
    pub findings: FindingCounts,
    pub stderr_bytes: u64,
    /// The last lines of the agent's stderr (escaped, each cut; at most [`STDERR_TAIL_LINES`]).
    pub stderr_tail: Vec<String>,
    /// Bytes meant for sjlint's stderr that were dropped because nothing read it.
    pub stderr_dropped: u64,
    /// The `--save` path, when the transcript was written in full.
    pub saved: Option<String>,
    /// Why the transcript is not whole: the file and the OS error.
    pub save_error: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct Agent {
    pub pid: u32,
    /// The agent recognised from the stream (`claude`), if any.
    pub kind: Option<&'static str>,
    /// The model the stream names (its first session's).
    pub model: Option<String>,
    /// The session, thread or run id the stream names, to resume it (`claude --resume`,
    /// `codex exec resume`, …).
    pub session_id: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct ResultSummary {
    pub subtype: Option<String>,
    pub is_error: bool,
    pub line: u64,
    /// The run's final result text (the agent's own, else its last message), cut to
    /// [`RESULT_TEXT_CHARS`] characters.
    pub text: Option<String>,
    /// The whole text's length in bytes, cut or not.
    pub text_bytes: u64,
}

/// Most characters of the result text a summary keeps.
pub const RESULT_TEXT_CHARS: usize = 4000;
/// Most lines of the agent's stderr a summary keeps, and characters of each.
pub const STDERR_TAIL_LINES: usize = 20;
pub const STDERR_LINE_CHARS: usize = 1_000;
/// Most findings a summary lists (all are counted).
pub const FINDINGS_LISTED: usize = 100;

/// The budget that ended the run: which, its limit, what was spent, the line that passed it.
#[derive(Serialize, Debug, Clone)]
pub struct BudgetSummary {
    pub kind: &'static str,
    pub limit: f64,
    pub spent: f64,
    pub line: u64,
}

/// What was running when a stall or timeout ended the run.
#[derive(Serialize, Debug, Clone)]
pub struct Stall {
    /// How long the condition had lasted when the run was ended.
    pub after_ms: u64,
    pub running: Vec<Running>,
    pub last_event: Option<LastEvent>,
}

#[derive(Serialize, Debug, Clone)]
pub struct Running {
    pub id: String,
    pub kind: String,
    pub line: u64,
    pub age_ms: u64,
}

#[derive(Serialize, Debug, Clone)]
pub struct LastEvent {
    #[serde(rename = "type")]
    pub ty: Option<String>,
    pub subtype: Option<String>,
    pub line: u64,
}

#[derive(Serialize, Debug, Default)]
pub struct ToolCalls {
    pub total: u64,
    pub failed: u64,
    pub rejected: u64,
    pub unfinished: u64,
    /// By the common vocabulary's tool kind, with the agent's names and the durations.
    pub by_kind: Vec<KindCalls>,
}

#[derive(Serialize, Debug, Default)]
pub struct KindCalls {
    pub kind: String,
    /// The agent's names of its tools of this kind.
    pub names: Vec<String>,
    pub count: u64,
    pub failed: u64,
    pub rejected: u64,
    pub unfinished: u64,
    pub median_ms: Option<f64>,
    pub max_ms: Option<u64>,
}

#[derive(Serialize, Debug)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// The part of `output` spent reasoning (already in it).
    pub reasoning: u64,
}

#[derive(Serialize, Debug)]
pub struct FindingCounts {
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    /// The findings reported, in order (at most [`FINDINGS_LISTED`]).
    pub list: Vec<FindingItem>,
    /// Those beyond the list.
    pub more: u64,
}

/// One finding of the run, as the summary lists it.
#[derive(Serialize, Debug, Clone)]
pub struct FindingItem {
    pub rule: &'static str,
    pub severity: &'static str,
    pub line: u64,
    pub message: String,
}

impl FindingItem {
    pub fn of(d: &sjlint_core::diagnostic::Diagnostic) -> FindingItem {
        FindingItem {
            rule: d.rule.name(),
            severity: d.severity.as_str(),
            line: d.line,
            message: d.message.clone(),
        }
    }
}

impl ToolCalls {
    pub fn of(stats: &Stats) -> ToolCalls {
        let mut t = ToolCalls::default();
        for tool in &stats.tools {
            t.total += tool.count;
            t.failed += tool.failed;
            t.rejected += tool.rejected;
            t.unfinished += tool.unfinished;
            let sum = tool.durations.summary();
            t.by_kind.push(KindCalls {
                kind: tool.kind.to_string(),
                names: tool
                    .sorted_names()
                    .iter()
                    .map(|n| n.name.to_string())
                    .collect(),
                count: tool.count,
                failed: tool.failed,
                rejected: tool.rejected,
                unfinished: tool.unfinished,
                median_ms: sum.median,
                max_ms: sum.max,
            });
        }
        t
    }
}

impl Tokens {
    pub fn of(stats: &Stats) -> Option<Tokens> {
        let t = &stats.tokens;
        // A run stopped before its result still has what its messages reported.
        let counted = t.input + t.output + t.cache_read + t.cache_write;
        (t.results > 0 || counted > 0).then_some(Tokens {
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_write: t.cache_write,
            reasoning: t.reasoning,
        })
    }
}

impl FindingCounts {
    pub fn of(f: Findings, list: Vec<FindingItem>, more: u64) -> Self {
        FindingCounts {
            errors: f.errors,
            warnings: f.warnings,
            infos: f.infos,
            list,
            more,
        }
    }
}

/// The last lines of the agent's stderr (each its kept start and its whole length in bytes),
/// escaped, each cut to [`STDERR_LINE_CHARS`] characters with a marker saying its length.
pub fn stderr_tail<'a>(lines: impl Iterator<Item = (&'a [u8], u64)>) -> Vec<String> {
    lines
        .map(|(kept, len)| {
            let text = String::from_utf8_lossy(kept);
            let text = text.trim_end();
            let cut: String = text.chars().take(STDERR_LINE_CHARS).collect();
            let whole = cut.len() == text.len() && kept.len() as u64 == len;
            let mut line = escape_untrusted(&cut).into_owned();
            if !whole {
                let _ = write!(line, "… (cut: {} bytes in all)", thousands(len));
            }
            line
        })
        .collect()
}

/// `1.5s`, `250ms`, `2m05s`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// How the run ended, in the words of the common form's `end`: what sjlint did to end it, else
/// how the agent's last session ended (`last`), else how its process ended.
pub fn run_outcome(ending: Ending, status: Status, last: Option<Outcome>) -> Outcome {
    match ending {
        Ending::Budget => Outcome::Budget,
        Ending::FirstOutput | Ending::Idle | Ending::ToolTimeout | Ending::Timeout => {
            Outcome::Stalled
        }
        Ending::Interrupted(_) => Outcome::Cancelled,
        Ending::OutputClosed | Ending::OutputFailed => Outcome::Killed,
        Ending::Exited | Ending::AfterResult => match last {
            Some(o) if o != Outcome::NoResult => o,
            _ if status.signal.is_some() => Outcome::Killed,
            _ => Outcome::NoResult,
        },
    }
}

/// How the agent's process ended, in words.
pub fn describe_status(status: Status) -> String {
    match (status.code, status.signal) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(n)) => format!("was killed by {}", sjlint_core::interrupt::signal_name(n)),
        (None, None) => "ended".to_owned(),
    }
}

/// The closing line: how the run ended, the agent's status, the result, duration, counts.
pub fn closing_line(s: &RunSummary, status: Status) -> String {
    let ended = match s.ended {
        "exited" => "the agent ended by itself".to_owned(),
        "terminated-after-result" => "the agent was ended after its result".to_owned(),
        "first-output-timeout" => "stalled: no first output".to_owned(),
        "over-budget" => "over budget".to_owned(),
        "idle-timeout" => "stalled: idle timeout".to_owned(),
        "tool-timeout" => "stalled: tool timeout".to_owned(),
        "timeout" => "timed out".to_owned(),
        "interrupted" => format!(
            "interrupted by {}",
            s.signal_received.as_deref().unwrap_or("a signal")
        ),
        "output-failed" => "cannot write to stdout".to_owned(),
        _ => "stdout closed".to_owned(),
    };
    let result = match &s.result {
        Some(r) => format!(
            "result {}{}",
            escape_untrusted(r.subtype.as_deref().unwrap_or("(no subtype)")),
            if r.is_error { " (is_error)" } else { "" }
        ),
        None => "no result".to_owned(),
    };
    let result = match &s.reason {
        Some(reason) => format!(
            "{result} · outcome {} ({})",
            s.outcome,
            escape_untrusted(reason)
        ),
        None => format!("{result} · outcome {}", s.outcome),
    };
    let mut parts = vec![
        ended,
        format!("agent {}", describe_status(status)),
        result,
        duration(Duration::from_millis(s.duration_ms)),
        format!(
            "{} record{}",
            thousands(s.records),
            if s.records == 1 { "" } else { "s" }
        ),
        format!(
            "{} tool call{}",
            thousands(s.tool_calls.total),
            if s.tool_calls.total == 1 { "" } else { "s" }
        ),
    ];
    if let Some(t) = &s.tokens {
        parts.push(format!(
            "{} tokens in, {} out",
            thousands(t.input),
            thousands(t.output)
        ));
    }
    parts.push(format!(
        "{} error{}, {} warning{}",
        thousands(s.findings.errors),
        if s.findings.errors == 1 { "" } else { "s" },
        thousands(s.findings.warnings),
        if s.findings.warnings == 1 { "" } else { "s" }
    ));
    if s.save_error.is_some() {
        parts.push("transcript incomplete".to_owned());
    }
    parts.push(format!("exit {}", s.exit_code));
    format!("sjlint run: {}", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(ending: Ending, code: Option<i32>, result_error: Option<bool>, errors: u64) -> u8 {
        Verdict {
            ending,
            status: Status { code, signal: None },
            result_error,
            findings: Findings {
                errors,
                ..Findings::default()
            },
            strict: false,
        }
        .exit_code()
    }

    #[test]
    fn the_exit_code_table() {
        assert_eq!(verdict(Ending::Exited, Some(0), Some(false), 0), EXIT_OK);
        // Ended after a successful result: a success, whatever the signal did to the exit code.
        assert_eq!(verdict(Ending::AfterResult, None, Some(false), 0), EXIT_OK);
        assert_eq!(
            verdict(Ending::Exited, Some(0), Some(true), 0),
            EXIT_AGENT_FAILED
        );
        assert_eq!(verdict(Ending::Exited, Some(1), None, 1), EXIT_AGENT_FAILED);
        assert_eq!(verdict(Ending::Exited, Some(0), None, 1), EXIT_FINDINGS);
        assert_eq!(
            verdict(Ending::Exited, Some(0), Some(false), 2),
            EXIT_FINDINGS
        );
        assert_eq!(verdict(Ending::Idle, Some(0), Some(false), 0), EXIT_STALLED);
        assert_eq!(verdict(Ending::Timeout, None, None, 3), EXIT_STALLED);
        assert_eq!(verdict(Ending::Interrupted(15), None, None, 0), 143);
        assert_eq!(verdict(Ending::Interrupted(2), None, None, 0), 130);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(Duration::from_millis(250)), "250ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(duration(Duration::from_secs(125)), "2m05s");
    }
}
