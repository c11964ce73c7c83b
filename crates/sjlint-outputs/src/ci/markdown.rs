//! The Markdown summary of an [`Account`]: what a GitHub step shows on the run's page
//! (`GITHUB_STEP_SUMMARY`), and what `sjlint ci` prints elsewhere.
//!
//! Every text that came from an input (file names, tool names, the agent's reasons, the
//! findings' messages) goes through [`markdown_text`]: control characters made visible, then the
//! characters that open Markdown's inline constructs backslash-escaped, so that no input can
//! open a link, an image (which a browser would fetch), an HTML tag or entity, a table cell,
//! emphasis, a code span or math. Such text never starts a line (it follows `- ` or `| `), so
//! what only matters there (`#`, `-`, `1.`) needs nothing.

use super::{Account, CostFrom, Run, count, dollars, outcome_name, thousands};
use crate::stats::{Stats, duration};
use sjlint_core::rules::Severity;
use sjlint_core::text::escape_untrusted;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Most runs listed one by one; the rest are counted.
const MAX_RUNS: usize = 50;

/// Writes the summary of `account`.
pub fn markdown<W: Write>(out: &mut W, account: &Account) -> io::Result<()> {
    let mut s = String::new();
    let outcome = account.outcome();
    let mark = if account.passed() { "✅" } else { "❌" };
    let verdict = if account.passed() {
        "every gate held"
    } else {
        "a gate failed"
    };
    let _ = writeln!(
        s,
        "## sjlint: {mark} {} ({verdict})\n",
        outcome_name(outcome).replace('_', " ")
    );
    headline(&mut s, account);
    gates(&mut s, account);
    runs(&mut s, account);
    tools(&mut s, &account.total);
    denials(&mut s, &account.total);
    findings(&mut s, account);
    if let Some(report) = &account.report {
        let _ = writeln!(
            s,
            "The report page: {} (keep it as an artifact of the job).\n",
            markdown_text(report)
        );
    }
    if !account.redacted.is_empty() {
        // Each place a credential was replaced (one key copied into three records counts 3).
        let kinds: Vec<String> = account
            .redacted
            .iter()
            .map(|(kind, n)| format!("{kind} × {n}"))
            .collect();
        let _ = writeln!(
            s,
            "🔒 Redacted in what sjlint wrote: {} (each place a credential stood).\n",
            kinds.join(", ")
        );
    }
    out.write_all(s.as_bytes())
}

/// What opens an inline construct: `\\` an escape, `` ` `` a code span, `*` `_` `~` emphasis and
/// strike-through, `[` `]` `!` links and images, `<` `>` `&` HTML and entities, `|` a cell,
/// `$` math.
const MARKUP: &[char] = &[
    '\\', '`', '*', '_', '~', '[', ']', '!', '<', '>', '&', '|', '$',
];

/// Escapes `text` from an input for Markdown (see the module documentation).
pub fn markdown_text(text: &str) -> String {
    let visible = escape_untrusted(text);
    let mut out = String::with_capacity(visible.len() + 8);
    for c in visible.chars() {
        if MARKUP.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn headline(s: &mut String, account: &Account) {
    let t = &account.total;
    let mut parts = vec![format!("**Outcome** {}", outcome_words(account))];
    if t.durations_reported > 0 {
        parts.push(format!("**Duration** {}", duration(t.duration_ms)));
    }
    parts.push(format!("**Cost** {}", cost_words(account)));
    parts.push(format!(
        "**Tokens** {} in, {} out, {} cache read, {} cache write",
        thousands(t.tokens.input),
        thousands(t.tokens.output),
        thousands(t.tokens.cache_read),
        thousands(t.tokens.cache_write)
    ));
    let calls: u64 = t.tools.iter().map(|k| k.count).sum();
    parts.push(format!("**Tool calls** {}", calls_words(t, calls)));
    parts.push(format!(
        "**Findings** {}, {}, {}",
        count(t.findings.errors, "error"),
        count(t.findings.warnings, "warning"),
        count(t.findings.infos, "info")
    ));
    let _ = writeln!(s, "{}\n", parts.join(" · "));
}

fn outcome_words(account: &Account) -> String {
    match account.runs.as_slice() {
        [one] => run_outcome(one),
        runs => {
            let done = runs
                .iter()
                .filter(|r| r.outcome() == Some(sjlint_core::vocab::Outcome::Completed))
                .count();
            format!(
                "{} ({done} of {} completed)",
                outcome_name(account.outcome()),
                count(runs.len() as u64, "run")
            )
        }
    }
}

fn run_outcome(run: &Run) -> String {
    let name = outcome_name(run.outcome());
    match run.reason() {
        Some(reason) if reason != name => format!("{name} ({})", markdown_text(reason)),
        _ => name.to_owned(),
    }
}

fn cost_words(account: &Account) -> String {
    match account.cost() {
        None => "unknown".to_owned(),
        Some(c) => {
            let priced = account.runs.iter().any(|r| r.cost_from == CostFrom::Prices);
            let mut words = dollars(c);
            if priced {
                words.push_str(" (priced from the list where the agent reports none)");
            }
            if account.cost_partial() {
                words.push_str(" (at least: some runs have no known cost)");
            }
            words
        }
    }
}

fn calls_words(t: &Stats, calls: u64) -> String {
    let failed: u64 = t.tools.iter().map(|k| k.failed).sum();
    let rejected: u64 = t.tools.iter().map(|k| k.rejected).sum();
    let unfinished: u64 = t.tools.iter().map(|k| k.unfinished).sum();
    let mut words = thousands(calls);
    let extra: Vec<String> = [
        (failed, "failed"),
        (rejected, "rejected"),
        (unfinished, "unfinished"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, w)| format!("{} {w}", thousands(*n)))
    .collect();
    if !extra.is_empty() {
        let _ = write!(words, " ({})", extra.join(", "));
    }
    words
}

fn gates(s: &mut String, account: &Account) {
    if account.gates.is_empty() {
        return;
    }
    s.push_str("### Gates\n\n");
    for g in &account.gates {
        let mark = if g.held { "✅" } else { "❌" };
        let _ = writeln!(s, "- {mark} {}", g.text);
    }
    s.push('\n');
}

fn runs(s: &mut String, account: &Account) {
    if account.runs.len() < 2 {
        return;
    }
    s.push_str("### Runs\n\n");
    s.push_str("| Run | Agent | Outcome | Duration | Cost | Input | Output | Cache read | Cache write | Tool calls | Errors | Warnings |\n");
    s.push_str("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for run in account.runs.iter().take(MAX_RUNS) {
        let t = &run.stats;
        let calls: u64 = t.tools.iter().map(|k| k.count).sum();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            markdown_text(&run.name),
            markdown_text(t.agent.as_deref().unwrap_or("unknown")),
            run_outcome(run),
            if t.durations_reported > 0 {
                duration(t.duration_ms)
            } else {
                "—".to_owned()
            },
            run.cost.map_or_else(|| "—".to_owned(), dollars),
            thousands(t.tokens.input),
            thousands(t.tokens.output),
            thousands(t.tokens.cache_read),
            thousands(t.tokens.cache_write),
            calls_words(t, calls),
            thousands(t.findings.errors),
            thousands(t.findings.warnings),
        );
    }
    if account.runs.len() > MAX_RUNS {
        let _ = writeln!(
            s,
            "\n{} more not listed; the totals above count them.",
            count((account.runs.len() - MAX_RUNS) as u64, "run")
        );
    }
    s.push('\n');
}

fn tools(s: &mut String, t: &Stats) {
    if t.tools.iter().all(|k| k.count == 0) {
        return;
    }
    s.push_str("### Tool calls\n\n| Kind | Calls | Failed | Rejected | Unfinished | Tools |\n|---|--:|--:|--:|--:|---|\n");
    let mut kinds: Vec<_> = t.tools.iter().filter(|k| k.count > 0).collect();
    kinds.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));
    for k in kinds {
        let names: Vec<String> = k
            .sorted_names()
            .iter()
            .take(8)
            .map(|n| format!("{} × {}", markdown_text(&n.name), n.count))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            markdown_text(&k.kind),
            thousands(k.count),
            thousands(k.failed),
            thousands(k.rejected),
            thousands(k.unfinished),
            names.join(", ")
        );
    }
    s.push('\n');
}

fn denials(s: &mut String, t: &Stats) {
    let mut refused: Vec<(&str, &str, u64)> = t
        .tools
        .iter()
        .flat_map(|k| {
            k.names
                .iter()
                .filter(|n| n.rejected > 0)
                .map(|n| (&*n.name, &*k.kind, n.rejected))
        })
        .collect();
    if refused.is_empty() && t.denied == 0 {
        return;
    }
    refused.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    s.push_str("### Permission denials\n\n");
    for (name, kind, n) in &refused {
        let _ = writeln!(
            s,
            "- {} ({}): {} refused",
            markdown_text(name),
            markdown_text(kind),
            count(*n, "call")
        );
    }
    let listed: u64 = refused.iter().map(|r| r.2).sum();
    if t.denied > listed {
        let _ = writeln!(
            s,
            "- the agents reported {} refused permission in all",
            count(t.denied, "tool call")
        );
    }
    s.push('\n');
}

fn findings(s: &mut String, account: &Account) {
    let f = &account.total.findings;
    let all = f.errors + f.warnings + f.infos;
    if all == 0 {
        return;
    }
    let _ = writeln!(s, "### Findings\n");
    for (file, d) in &account.findings {
        let place = if d.line > 0 {
            format!("{}:{}", markdown_text(file), d.line)
        } else {
            markdown_text(file)
        };
        let level = match d.severity {
            Severity::Error => "**error**",
            Severity::Warning => "**warning**",
            Severity::Info => "info",
        };
        let _ = writeln!(
            s,
            "- {level} {place} `{}`: {}",
            d.rule.name(),
            markdown_text(&d.message)
        );
    }
    let shown = account.findings.len() as u64;
    if all > shown {
        let _ = writeln!(
            s,
            "- … and {} more ({} in all: {}, {}, {})",
            thousands(all - shown),
            thousands(all),
            count(f.errors, "error"),
            count(f.warnings, "warning"),
            count(f.infos, "info")
        );
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_text_opens_no_link_image_tag_or_cell() {
        let hostile = "![x](https://evil.test/p?k=1) <img src=x> | cell # h";
        let escaped = markdown_text(hostile);
        assert_eq!(
            escaped,
            r"\!\[x\](https://evil.test/p?k=1) \<img src=x\> \| cell # h"
        );
        assert_eq!(markdown_text("line\nnext"), r"line\\nnext");
    }
}
