//! The end of a run: the notes of what failed, the findings of what the process did, their
//! printing, the summary (`--summary`, the closing line, `--report`) and the exit code.

use super::outcome::{self, Ending, Status, Verdict};
use super::stderr::{StderrSeen, no_events};
use super::stdout::Checked;
use super::{Notes, RunOptions, Supervisor, note, session, stderr_path, write_report};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::interrupt;
use sjlint_core::rules::Rule;
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::report;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::time::Instant;

/// How the agent's process ended.
pub(super) fn exit_status(sup: &Supervisor<'_>) -> Status {
    sup.exited.map_or(Status::default(), |s| Status {
        code: s.code(),
        signal: s.signal(),
    })
}

/// Why the run ended, as the summary's `ended` says it.
pub(super) fn ended(sup: &Supervisor<'_>) -> Ending {
    match sup.ending {
        // Ended by a signal sjlint sent only because the agent's leftovers lingered.
        None | Some(Ending::Exited) => Ending::Exited,
        Some(e) => e,
    }
}

/// What `finish` reads of a run that ended besides what its stdout gave.
pub(super) struct Ended<'s, 'r> {
    pub(super) sup: &'s Supervisor<'r>,
    pub(super) stderr_seen: StderrSeen,
}

/// After the run: the findings' summary, the closing line, `--summary`, the exit code.
pub(super) fn finish(
    opts: &RunOptions,
    ended_run: Ended<'_, '_>,
    mut checked: Checked,
    notes: &Notes,
    pid: u32,
    start: Instant,
) -> io::Result<u8> {
    let Ended { sup, stderr_seen } = ended_run;
    let status = exit_status(sup);
    let ending = ended(sup);
    let save_error = note_failures(opts, &checked, &stderr_seen, notes);
    let found = process_findings(sup, &mut checked, status, &stderr_seen);
    let verdict_findings = print_findings(opts, &mut checked, &found)?;

    let result = sup
        .session
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .result
        .clone();
    let last = checked.stats.last_end.as_ref().map(|(o, _)| *o);
    let verdict = Verdict {
        ending,
        status,
        // A result that says success of a session that failed (Claude Code's `terminal_reason`)
        // is the agent's failure.
        result_error: result
            .as_ref()
            .map(|r| r.is_error || last.is_some_and(|o| !o.is_success())),
        findings: verdict_findings,
        strict: opts.strict,
    };
    let mut code = verdict.exit_code();
    if save_error.is_some() {
        // The transcript asked for is not whole: as when another file could not be written.
        code = outcome::EXIT_USAGE.max(code);
    }
    let ran = Ran {
        sup,
        status,
        ending,
        pid,
        start,
        result,
        code,
    };
    let summary = run_summary(opts, &ran, &mut checked, stderr_seen, notes, save_error);
    note(
        notes,
        outcome::closing_line(&summary, status).trim_start_matches("sjlint run: "),
    );
    if let Some(path) = &opts.summary {
        // Escaped as every JSON output is: the summary quotes the stream and stderr.
        let mut json = Vec::with_capacity(4096);
        let written = sjlint_core::json_out::to_writer_pretty(&mut json, &summary).and_then(|()| {
            json.push(b'\n');
            crate::out_file::write_whole(path, &json)
        });
        if let Err(e) = written {
            note(notes, &format!("cannot write the summary: {e}"));
            return Ok(outcome::EXIT_USAGE.max(code));
        }
    }
    if let (Some(page), Some(run)) = (&opts.report, &checked.page)
        && let Err(e) = write_report(page, run)
    {
        note(notes, &format!("cannot write the report: {e}"));
        return Ok(outcome::EXIT_USAGE.max(code));
    }
    Ok(code)
}

/// What the run's end says besides its findings: stdout that could not be written or read, a
/// transcript that could not be written (returned: the summary says it too), the line cut short.
fn note_failures(
    opts: &RunOptions,
    checked: &Checked,
    stderr_seen: &StderrSeen,
    notes: &Notes,
) -> Option<String> {
    match (&checked.out_error, &checked.read) {
        (Some(e), _) if e.kind() != io::ErrorKind::BrokenPipe => {
            note(notes, &format!("cannot write to stdout: {e}"));
        }
        (None, Err(e)) if e.kind() != io::ErrorKind::BrokenPipe => {
            note(notes, &format!("cannot read the agent's stdout: {e}"));
        }
        _ => {}
    }
    let save_paths = opts.save.iter().flat_map(|p| [p.clone(), stderr_path(p)]);
    let mut save_error = None;
    for (path, e) in save_paths.zip([&checked.save_error, &stderr_seen.save_error]) {
        if let Some(e) = e {
            let text = format!(
                "cannot write the transcript {}: {e}; it is incomplete",
                escape_untrusted(&path.display().to_string())
            );
            note(notes, &text);
            save_error.get_or_insert(text);
        }
    }
    if let Some(d) = &checked.cut {
        note(
            notes,
            &format!(
                "the agent was ended after its result while it wrote line {}; that line is forwarded as it came, not checked",
                d.line
            ),
        );
    }
    save_error
}

/// The findings of what sjlint saw the agent's process do (a stall with what follows from it
/// as its notes, an agent that wrote no events), after the stream's own.
fn process_findings(
    sup: &Supervisor<'_>,
    checked: &mut Checked,
    status: Status,
    stderr_seen: &StderrSeen,
) -> Vec<Diagnostic> {
    // What sjlint saw the agent's process do, after the stream's findings. The exit code
    // follows its table: an agent ended after a successful result is a success, --strict too.
    let mut found: Vec<Diagnostic> = sup.finding.iter().cloned().collect();
    // One cause, one finding: what the stream lacks because sjlint ended the stalled agent is
    // said as notes of the stall.
    if let Some(stall) = found.first_mut() {
        for c in checked.consequences.drain(..) {
            stall.related.push(sjlint_core::diagnostic::Related {
                line: c.line,
                message: format!("so {}: {}", c.rule, c.message),
            });
        }
        if checked.more_consequences > 0 {
            stall.related.push(sjlint_core::diagnostic::Related {
                line: stall.line,
                message: format!(
                    "and {} more findings that follow from ending it",
                    checked.more_consequences
                ),
            });
        }
    }
    // When sjlint's stdout failed it stopped reading: it cannot say the agent wrote nothing. An
    // agent ended by --first-output-timeout wrote nothing by that finding's own account: one
    // cause, one finding.
    if checked.totals.records == 0
        && checked.out_error.is_none()
        && sup.ending != Some(Ending::FirstOutput)
    {
        if checked.judge.enabled().contains(Rule::AgentWroteNoEvents) {
            found.push(no_events(status, stderr_seen, checked.totals.bytes));
        } else {
            found.extend(checked.empty.take());
        }
    }
    found
}

/// Prints the process's findings, the collapsed notes, the file's end and the summary; returns
/// the counts the verdict weighs (a hang after the result is not one of them).
fn print_findings(
    opts: &RunOptions,
    checked: &mut Checked,
    found: &[Diagnostic],
) -> io::Result<sjlint_outputs::stats::Findings> {
    let mut verdict_findings = checked.findings;
    for d in found {
        let Some(d) = checked.judge.judge(d) else {
            continue;
        };
        checked.findings.count(d.severity);
        if checked.listed.len() < outcome::FINDINGS_LISTED {
            checked.listed.push(outcome::FindingItem::of(&d));
        } else {
            checked.listed_more += 1;
        }
        if d.rule != Rule::AgentHungAfterResult {
            verdict_findings.count(d.severity);
        }
        if checked.judge.shown(&d) {
            checked.printer.diagnostic(&checked.name, &d)?;
        }
        if let Some(annotations) = &mut checked.annotations {
            annotations.diagnostic(&checked.name, &d)?;
            annotations.flush()?;
        }
    }
    let collapsed = checked.judge.notes(&checked.name);
    if !collapsed.is_empty() {
        checked.printer.write_text(&format!("\n{collapsed}"))?;
    }
    checked.printer.file_agent(checked.totals.agent);
    checked
        .printer
        .end_file(&checked.name, checked.totals.records, checked.totals.bytes)?;
    if !opts.quiet {
        let f = checked.findings;
        let mut s = report::Summary {
            errors: f.errors,
            warnings: f.warnings,
            infos: f.infos,
            files: 1,
            records: checked.totals.records,
            bytes: checked.totals.bytes,
            ..report::Summary::default()
        };
        s.add_agent(checked.totals.agent);
        checked.printer.summary(&s)?;
    }
    checked.printer.finish()?;
    Ok(verdict_findings)
}

/// How the run went, for its summary.
struct Ran<'s, 'r> {
    sup: &'s Supervisor<'r>,
    status: Status,
    ending: Ending,
    pid: u32,
    start: Instant,
    result: Option<session::ResultSeen>,
    code: u8,
}

/// The run's summary (`--summary`, and the closing line).
fn run_summary(
    opts: &RunOptions,
    ran: &Ran<'_, '_>,
    checked: &mut Checked,
    stderr_seen: StderrSeen,
    notes: &Notes,
    save_error: Option<String>,
) -> outcome::RunSummary {
    let Ran {
        sup,
        status,
        ending,
        pid,
        start,
        code,
        ..
    } = *ran;
    let result = ran.result.clone();
    let last_end = checked.stats.last_end.clone();
    let last = last_end.as_ref().map(|(o, _)| *o);
    let said = std::mem::take(&mut checked.said);
    outcome::RunSummary {
        version: outcome::SUMMARY_VERSION,
        command: opts
            .command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        ended: ending.as_str(),
        outcome: outcome::run_outcome(ending, status, last).as_str(),
        reason: last_end.and_then(|(_, r)| r).map(String::from),
        exit_code: code,
        duration_ms: start.elapsed().as_millis() as u64,
        agent: outcome::Agent {
            pid,
            kind: checked.totals.agent.map(sjlint_core::agents::Agent::as_str),
            model: said.model,
            session_id: said.session_id,
            exit_code: status.code,
            signal: status.signal.map(interrupt::signal_name),
        },
        signal_received: sup.received.map(interrupt::signal_name),
        signals_sent: sup
            .signals_sent
            .iter()
            .map(|&n| interrupt::signal_name(n))
            .collect(),
        result: result.map(|r| outcome::ResultSummary {
            subtype: r.subtype,
            is_error: r.is_error,
            line: r.line,
            text: said.result_text,
            text_bytes: said.result_text_bytes,
        }),
        stall: sup.stall.clone(),
        budget: (ending == Ending::Budget)
            .then(|| {
                sup.session
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .over_budget
                    .clone()
            })
            .flatten()
            .map(|b| outcome::BudgetSummary {
                kind: b.kind,
                limit: b.limit,
                spent: b.spent,
                line: b.line,
            }),
        records: checked.totals.records,
        bytes: checked.totals.bytes,
        invalid_records: checked.stats.invalid_records,
        tool_calls: outcome::ToolCalls::of(&checked.stats),
        tokens: outcome::Tokens::of(&checked.stats),
        cost_usd: checked.stats.cost_usd,
        findings: outcome::FindingCounts::of(
            checked.findings,
            std::mem::take(&mut checked.listed),
            checked.listed_more,
        ),
        stderr_bytes: stderr_seen.bytes,
        stderr_tail: outcome::stderr_tail(stderr_seen.tail.lines()),
        stderr_dropped: notes.dropped(),
        saved: opts
            .save
            .as_ref()
            .filter(|_| save_error.is_none())
            .map(|p| p.display().to_string()),
        save_error,
    }
}
