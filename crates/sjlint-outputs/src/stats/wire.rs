//! The json format of `sjlint stats`: one document for every file and their total.
//!
//! This module owns the wire form that `schemas/stats.schema.json` describes: the field names,
//! their order, the events and tool kinds sorted by name, the duration summaries of each tool
//! kind. Text is written as found; JSON escaping ([`sjlint_core::json_out`], which writes bidi and C1
//! controls as `\uXXXX`) makes it safe to carry. It must not
//! count anything (that is `collector`) nor print the table (that is `table`); a change here is
//! a change of the schema, made in both.

use super::{Stats, sorted_events, sorted_tools, total};
use serde::Serialize;
use sjlint_core::vocab::Outcome;
use std::io::{self, Write};

/// The json format: one document for every file and their total.
#[derive(Serialize)]
struct WireDocument<'a> {
    files: Vec<WireFile<'a>>,
    total: WireTotal<'a>,
}

#[derive(Serialize)]
struct WireFile<'a> {
    file: &'a str,
    #[serde(flatten)]
    stats: WireStats<'a>,
}

#[derive(Serialize)]
struct WireTotal<'a> {
    files: u64,
    #[serde(flatten)]
    stats: WireStats<'a>,
}

#[derive(Serialize)]
struct WireStats<'a> {
    agent: Option<&'a str>,
    source: Option<&'a str>,
    cost_usd: Option<f64>,
    records: u64,
    bytes: u64,
    invalid_records: u64,
    sessions: u64,
    results: WireResults,
    events: Vec<WireEvent<'a>>,
    tool_calls: Vec<WireTool<'a>>,
    thinking: WireThinking,
    usage: WireUsage,
    duration_ms: u64,
    duration_api_ms: u64,
    findings: WireFindings,
    not_in_schema: WireUnlisted<'a>,
    outcomes: WireOutcomes,
    denied: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_outcomes: Option<WireSessions<'a>>,
}

/// Sessions by outcome: every outcome of the vocabulary, in its order, with its count.
struct WireOutcomes([u64; Outcome::ALL.len()]);

impl Serialize for WireOutcomes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (o, n) in Outcome::ALL.iter().zip(self.0) {
            map.serialize_entry(o.as_str(), &n)?;
        }
        map.end()
    }
}

/// One input's sessions as they ended, in order.
#[derive(Serialize)]
struct WireSessions<'a> {
    sessions: Vec<WireSession<'a>>,
    more: u64,
}

#[derive(Serialize)]
struct WireSession<'a> {
    session_id: Option<&'a str>,
    line: u64,
    outcome: &'static str,
    reason: Option<&'a str>,
}

/// What the records carry that the agent's schema does not list.
#[derive(Serialize)]
struct WireUnlisted<'a> {
    fields: Vec<WireUnlistedField<'a>>,
    more: u64,
}

#[derive(Serialize)]
struct WireUnlistedField<'a> {
    #[serde(rename = "type")]
    ty: Option<&'a str>,
    field: Option<&'a str>,
    files: u64,
}

#[derive(Serialize)]
struct WireResults {
    success: u64,
    error: u64,
}

#[derive(Serialize)]
struct WireEvent<'a> {
    #[serde(rename = "type")]
    ty: &'a str,
    subtype: Option<&'a str>,
    count: u64,
}

#[derive(Serialize)]
struct WireTool<'a> {
    kind: &'a str,
    names: Vec<WireName<'a>>,
    count: u64,
    rejected: u64,
    failed: u64,
    unfinished: u64,
    subagent: u64,
    duration_ms: WireDurations,
}

#[derive(Serialize)]
struct WireName<'a> {
    name: &'a str,
    count: u64,
    rejected: u64,
}

#[derive(Serialize)]
struct WireDurations {
    timed: u64,
    median: Option<f64>,
    p95: Option<u64>,
    max: Option<u64>,
}

#[derive(Serialize)]
struct WireThinking {
    phases: u64,
    duration_ms: u64,
}

#[derive(Serialize)]
struct WireUsage {
    results: u64,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    reasoning_tokens: u64,
}

#[derive(Serialize)]
struct WireFindings {
    error: u64,
    warning: u64,
    info: u64,
}

/// One input's statistics (with its sessions one by one), or a total (`listed` false).
fn wire(s: &Stats, listed: bool) -> WireStats<'_> {
    WireStats {
        agent: s.agent.as_deref(),
        source: s.source,
        cost_usd: s.cost_usd,
        records: s.records,
        bytes: s.bytes,
        invalid_records: s.invalid_records,
        sessions: s.sessions,
        results: WireResults {
            success: s.results_success,
            error: s.results_error,
        },
        events: sorted_events(s)
            .into_iter()
            .map(|e| WireEvent {
                ty: &e.ty,
                subtype: e.subtype.as_deref(),
                count: e.count,
            })
            .collect(),
        tool_calls: sorted_tools(s)
            .into_iter()
            .map(|t| {
                let sum = t.summary();
                WireTool {
                    kind: &t.kind,
                    names: t
                        .sorted_names()
                        .into_iter()
                        .map(|n| WireName {
                            name: &n.name,
                            count: n.count,
                            rejected: n.rejected,
                        })
                        .collect(),
                    count: t.count,
                    rejected: t.rejected,
                    failed: t.failed,
                    unfinished: t.unfinished,
                    subagent: t.subagent,
                    duration_ms: WireDurations {
                        timed: sum.timed,
                        median: sum.median,
                        p95: sum.p95,
                        max: sum.max,
                    },
                }
            })
            .collect(),
        thinking: WireThinking {
            phases: s.thinking_phases,
            duration_ms: s.thinking_ms,
        },
        usage: WireUsage {
            results: s.tokens.results,
            input_tokens: s.tokens.input,
            output_tokens: s.tokens.output,
            cache_read_tokens: s.tokens.cache_read,
            cache_write_tokens: s.tokens.cache_write,
            reasoning_tokens: s.tokens.reasoning,
        },
        duration_ms: s.duration_ms,
        duration_api_ms: s.duration_api_ms,
        findings: WireFindings {
            error: s.findings.errors,
            warning: s.findings.warnings,
            info: s.findings.infos,
        },
        not_in_schema: WireUnlisted {
            fields: s
                .unlisted
                .iter()
                .map(|u| WireUnlistedField {
                    ty: u.what.ty.as_deref(),
                    field: u.what.field.as_deref(),
                    files: u.files,
                })
                .collect(),
            more: s.unlisted_more,
        },
        outcomes: WireOutcomes(s.outcomes),
        denied: s.denied,
        session_outcomes: listed.then(|| WireSessions {
            sessions: s
                .ended
                .iter()
                .map(|e| WireSession {
                    session_id: e.session_id.as_deref(),
                    line: e.line,
                    outcome: e.outcome.as_str(),
                    reason: e.reason.as_deref(),
                })
                .collect(),
            more: s.ended_more,
        }),
    }
}

/// The json format: `files` (name and statistics of each) and `total`, pretty-printed, with a
/// final newline, escaped by [`sjlint_core::json_out`].
pub fn write_json<W: Write>(out: &mut W, files: &[(String, Stats)]) -> io::Result<()> {
    let total = total(files);
    let doc = WireDocument {
        files: files
            .iter()
            .map(|(file, s)| WireFile {
                file,
                stats: wire(s, true),
            })
            .collect(),
        total: WireTotal {
            files: files.len() as u64,
            stats: wire(&total, false),
        },
    };
    sjlint_core::json_out::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

/// One element of the json format's `files`: `file` and its statistics, on one line.
pub fn file_json(file: &str, s: &Stats) -> String {
    let mut out = Vec::new();
    let one = WireFile {
        file,
        stats: wire(s, true),
    };
    sjlint_core::json_out::to_writer(&mut out, &one).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("JSON is UTF-8")
}
