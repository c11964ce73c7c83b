//! The index page of several runs: one row per run (agent, model, start, duration, tool calls,
//! tokens, cost, verdict) linking to its page, sorted and filtered by a small inline script.
//!
//! This module owns that table's markup and script. It must not read streams nor lay out a run:
//! it takes the [`Summary`] of each, which holds no text of the stream but names and numbers.

use super::html::{push_text, text};
use super::model::Run;
use super::page::{duration, head, nonce, utc};
use std::fmt::Write as _;

/// What the index shows of one run.
pub struct Summary {
    pub name: String,
    /// The run's page, relative to the index.
    pub href: String,
    pub agent: String,
    pub model: String,
    pub start_ms: Option<u64>,
    pub duration_ms: Option<u64>,
    pub calls: usize,
    pub tokens: u64,
    pub cost_usd: Option<f64>,
    pub verdict: &'static str,
    /// How its last session ended.
    pub outcome: String,
    pub findings: usize,
}

impl Summary {
    pub fn of(run: &Run, href: String) -> Summary {
        Summary {
            name: run.name.clone(),
            href,
            agent: run.agent.clone().unwrap_or_else(|| "unknown".into()),
            model: run.model.clone().unwrap_or_default(),
            start_ms: run.first_ms,
            duration_ms: run.duration_ms,
            calls: run.calls.len(),
            tokens: run.usage.total(),
            cost_usd: run.cost_usd,
            verdict: run.verdict(),
            outcome: run.outcome.clone().unwrap_or_else(|| "—".into()),
            findings: run.findings.len(),
        }
    }
}

const SCRIPT: &str = include_str!("assets/index.js");

/// The index page of `runs`.
pub(crate) fn index(runs: &[Summary]) -> String {
    let nonce = nonce();
    let mut out = String::with_capacity(8 << 10);
    head(&mut out, "sjlint report: runs", &nonce);
    let _ = writeln!(
        out,
        "<body>\n<h1>{} runs</h1>\n<input id=\"filter\" type=\"search\" placeholder=\"filter: agent, model, verdict, name…\" aria-label=\"filter runs\">",
        runs.len()
    );
    out.push_str("<table class=\"runs\" id=\"runs\"><thead><tr>");
    for (h, kind) in [
        ("run", "text"),
        ("agent", "text"),
        ("model", "text"),
        ("start", "text"),
        ("duration", "num"),
        ("tool calls", "num"),
        ("tokens", "num"),
        ("cost", "num"),
        ("findings", "num"),
        ("verdict", "text"),
        ("outcome", "text"),
    ] {
        let _ = write!(
            out,
            "<th data-type=\"{kind}\" aria-sort=\"none\" tabindex=\"0\">{h}</th>"
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for (i, r) in runs.iter().enumerate() {
        row(&mut out, i, r);
    }
    let _ = writeln!(
        out,
        "</tbody></table>\n<script nonce=\"{nonce}\">{SCRIPT}</script>\n</body></html>"
    );
    out
}

fn row(out: &mut String, i: usize, r: &Summary) {
    let _ = write!(out, "<tr data-run=\"{i}\"><td><a href=\"");
    push_text(out, &r.href);
    out.push_str("\" title=\"");
    push_text(out, &r.name);
    out.push_str("\">");
    push_text(out, r.name.rsplit('/').next().unwrap_or(&r.name));
    out.push_str("</a></td>");
    let cell = |out: &mut String, sort: Option<u64>, shown: &str| {
        match sort {
            Some(v) => {
                let _ = write!(out, "<td data-sort=\"{v}\">");
            }
            None => out.push_str("<td>"),
        }
        push_text(out, shown);
        out.push_str("</td>");
    };
    cell(out, None, &r.agent);
    cell(out, None, &r.model);
    cell(out, None, &r.start_ms.map_or(String::new(), utc));
    cell(
        out,
        Some(r.duration_ms.unwrap_or(0)),
        &r.duration_ms.map_or("—".into(), duration),
    );
    cell(out, Some(r.calls as u64), &r.calls.to_string());
    cell(out, Some(r.tokens), &r.tokens.to_string());
    let cents = r.cost_usd.map_or(0, |c| (c * 1e6) as u64);
    cell(
        out,
        Some(cents),
        &r.cost_usd.map_or("—".into(), |c| format!("${c:.4}")),
    );
    cell(out, Some(r.findings as u64), &r.findings.to_string());
    let _ = write!(
        out,
        "<td class=\"v-{v}\">{}</td>",
        text(r.verdict),
        v = r.verdict
    );
    cell(out, None, &r.outcome);
    out.push_str("</tr>\n");
}
