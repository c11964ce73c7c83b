//! The table format of `sjlint stats`: an aligned block per file, then their total.
//!
//! This module owns the wording and the layout of the table: the labelled lines (agent,
//! records, sessions, duration, thinking, tokens, cost, findings), then the events and the tool
//! calls as right-aligned columns. Every name from the stream is shown as a bounded excerpt
//! escaped for the terminal, so a column stays some hundreds of characters wide at most. It must
//! not count anything (that is `collector`) nor change the json format (that is `wire`).

use super::{Stats, duration, sorted_events, sorted_tools, total};
use sjlint_core::text::{Excerpt, escape_untrusted, format_bytes, thousands};
use std::fmt::Write as _;
use std::io::{self, Write};

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The table format: a block per file, then the total when there are several, separated by blank
/// lines.
pub fn write_tables<W: Write>(out: &mut W, files: &[(String, Stats)]) -> io::Result<()> {
    for (i, (name, s)) in files.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        write_table(out, name, s)?;
    }
    if files.len() > 1 {
        out.write_all(b"\n")?;
        write_table(
            out,
            &format!("total ({} files)", files.len()),
            &total(files),
        )?;
    }
    Ok(())
}

/// One block of the table: a title line, the summary's lines, then the events, the tool calls
/// and what the schema does not list. Names and kinds come from the input and are escaped.
fn write_table<W: Write>(out: &mut W, title: &str, s: &Stats) -> io::Result<()> {
    let mut t = String::new();
    let _ = writeln!(t, "{}", escape_untrusted(title));
    let cost = s.cost_usd.map(|c| format!("${c:.4}"));
    for (label, value) in summary(s) {
        if label == "findings"
            && let Some(cost) = &cost
        {
            let _ = writeln!(t, "  {:<9} {cost}", "cost");
        }
        let _ = writeln!(t, "  {label:<9} {value}");
    }
    write_events(&mut t, s);
    write_tools(&mut t, s);
    write_unlisted(&mut t, s);
    out.write_all(t.as_bytes())
}

/// The summary's lines, label and value, in the order they are printed (the cost, when known,
/// goes before the findings).
fn summary(s: &Stats) -> [(&'static str, String); 8] {
    let mut records = format!("{} ({})", thousands(s.records), format_bytes(s.bytes));
    if s.invalid_records > 0 {
        let _ = write!(records, ", {} invalid", thousands(s.invalid_records));
    }
    let results = s.results_success + s.results_error;
    let mut sessions = format!(
        "{}; {}",
        thousands(s.sessions),
        plural(results, "result", "results")
    );
    if results > 0 {
        let _ = write!(
            sessions,
            // Not "errors": beside the findings, that word means something else.
            " ({} success, {} failed)",
            thousands(s.results_success),
            thousands(s.results_error)
        );
    }
    let time = if results == 0 || s.durations_reported == 0 {
        "none reported".to_owned()
    } else if s.duration_api_ms == 0 {
        // No result said how long its API calls took (Claude Code, Codex and Gemini CLI
        // results are not read for it): not "api 0 ms".
        duration(s.duration_ms)
    } else {
        format!(
            "{} (api {})",
            duration(s.duration_ms),
            duration(s.duration_api_ms)
        )
    };
    let thinking = if s.thinking_phases == 0 {
        "none measured".to_owned()
    } else {
        format!(
            "{} in {}",
            duration(s.thinking_ms),
            plural(s.thinking_phases, "phase", "phases")
        )
    };
    let tokens = tokens_line(s);
    let findings = findings_line(s);
    let agent = match s.agent.as_deref() {
        Some(a) => {
            let name = sjlint_core::agents::Agent::from_name(a)
                .map_or_else(|| a.to_owned(), |a| a.display_name().to_owned());
            match s.source {
                Some("session-log") => format!("{name} (session log)"),
                _ => name,
            }
        }
        None if s.events.is_empty() => "none: the input holds no event".to_owned(),
        None => "none sjlint knows".to_owned(),
    };
    let ended: Vec<String> = sjlint_core::vocab::Outcome::ALL
        .iter()
        .zip(s.outcomes)
        .filter(|(_, n)| *n > 0)
        .map(|(o, n)| format!("{} {}", thousands(n), o.as_str()))
        .collect();
    let mut outcomes = if ended.is_empty() {
        "none".to_owned()
    } else {
        ended.join(", ")
    };
    if s.denied > 0 {
        let _ = write!(
            outcomes,
            "; {} refused permission",
            plural(s.denied, "tool call", "tool calls")
        );
    }
    [
        ("agent", agent),
        ("records", records),
        ("sessions", sessions),
        ("outcomes", outcomes),
        ("duration", time),
        ("thinking", thinking),
        ("tokens", tokens),
        ("findings", findings),
    ]
}

/// The `tokens` line: what the results reported, or what the messages said when no result did.
fn tokens_line(s: &Stats) -> String {
    let k = &s.tokens;
    let counted = k.input + k.output + k.cache_read + k.cache_write;
    // Reasoning is part of the output: said inside it, never added to the total.
    let wrote = if k.reasoning > 0 {
        format!(
            "{} out ({} reasoning)",
            thousands(k.output),
            thousands(k.reasoning)
        )
    } else {
        format!("{} out", thousands(k.output))
    };
    if k.results == 0 && counted == 0 {
        "none reported".to_owned()
    } else if k.results == 0 {
        // A session that ended without its result: what its messages said.
        format!(
            "{} in, {wrote}, {} cache read, {} cache write (no result reported them; counted from the messages)",
            thousands(k.input),
            thousands(k.cache_read),
            thousands(k.cache_write),
        )
    } else {
        format!(
            "{} in, {wrote}, {} cache read, {} cache write ({})",
            thousands(k.input),
            thousands(k.cache_read),
            thousands(k.cache_write),
            plural(k.results, "result", "results")
        )
    }
}

/// The `findings` line: how many of each severity.
fn findings_line(s: &Stats) -> String {
    let f = &s.findings;
    if f.errors + f.warnings + f.infos == 0 {
        "none".to_owned()
    } else {
        [
            (f.errors, "error", "errors"),
            (f.warnings, "warning", "warnings"),
            (f.infos, "info", "infos"),
        ]
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| plural(*n, one, many))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// The events by type, with their counts.
fn write_events(t: &mut String, s: &Stats) {
    let events = sorted_events(s);
    if !events.is_empty() {
        let names: Vec<String> = events
            .iter()
            .map(|e| match &e.subtype {
                Some(sub) => format!("{}/{}", shown(&e.ty), shown(sub)),
                None => shown(&e.ty),
            })
            .collect();
        let counts: Vec<String> = events.iter().map(|e| thousands(e.count)).collect();
        let w0 = width(names.iter().map(String::as_str).chain(["event"]));
        let w1 = width(counts.iter().map(String::as_str).chain(["count"]));
        let _ = writeln!(t, "\n  {:<w0$}  {:>w1$}", "event", "count");
        for (name, count) in names.iter().zip(&counts) {
            let _ = writeln!(t, "  {name:<w0$}  {count:>w1$}");
        }
    }
}

/// The tool calls by kind: count, rejected, failed, unfinished and durations.
fn write_tools(t: &mut String, s: &Stats) {
    let tools = sorted_tools(s);
    if !tools.is_empty() {
        const HEAD: [&str; 8] = [
            "tool call",
            "count",
            "rejected",
            "failed",
            "unfinished",
            "median",
            "p95",
            "max",
        ];
        let mut rows: Vec<[String; 8]> = Vec::new();
        for tool in &tools {
            let sum = tool.summary();
            let ms = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), duration);
            let names: Vec<String> = tool.sorted_names().iter().map(|n| shown(&n.name)).collect();
            rows.push([
                format!("{} ({})", shown(&tool.kind), names.join(", ")),
                thousands(tool.count),
                thousands(tool.rejected),
                thousands(tool.failed),
                thousands(tool.unfinished),
                ms(sum.median.map(|m| m.round() as u64)),
                ms(sum.p95),
                ms(sum.max),
            ]);
        }
        let widths: Vec<usize> = (0..HEAD.len())
            .map(|i| width(rows.iter().map(|r| r[i].as_str()).chain([HEAD[i]])))
            .collect();
        let _ = write!(t, "\n ");
        for (i, h) in HEAD.iter().enumerate() {
            let w = widths[i];
            if i == 0 {
                let _ = write!(t, " {h:<w$}");
            } else {
                let _ = write!(t, "  {h:>w$}");
            }
        }
        t.push('\n');
        for row in &rows {
            t.push(' ');
            for (i, cell) in row.iter().enumerate() {
                let w = widths[i];
                if i == 0 {
                    let _ = write!(t, " {cell:<w$}");
                } else {
                    let _ = write!(t, "  {cell:>w$}");
                }
            }
            t.push('\n');
        }
    }
}

/// The fields and event types the agent's schema does not list.
fn write_unlisted(t: &mut String, s: &Stats) {
    if !s.unlisted.is_empty() {
        let names: Vec<String> = s
            .unlisted
            .iter()
            .map(|u| escape_untrusted(&u.what.to_string()).into_owned())
            .collect();
        let files: Vec<String> = s.unlisted.iter().map(|u| thousands(u.files)).collect();
        const HEAD: &str = "not in the schema";
        let w0 = width(names.iter().map(String::as_str).chain([HEAD]));
        let w1 = width(files.iter().map(String::as_str).chain(["files"]));
        let _ = writeln!(t, "\n  {HEAD:<w0$}  {:>w1$}", "files");
        for (name, n) in names.iter().zip(&files) {
            let _ = writeln!(t, "  {name:<w0$}  {n:>w1$}");
        }
        if s.unlisted_more > 0 {
            let _ = writeln!(t, "  … and {} more", thousands(s.unlisted_more));
        }
    }
}

/// A name from the stream as a table shows it: a bounded excerpt, escaped for the terminal. So
/// a column is at most some hundreds of characters wide, whatever the input names.
fn shown(name: &str) -> String {
    escape_untrusted(&Excerpt(name).to_string()).into_owned()
}

/// The widest of `cells`, in characters (the names are ASCII in practice; escaped text is).
fn width<'a>(cells: impl Iterator<Item = &'a str>) -> usize {
    cells.map(|c| c.chars().count()).max().unwrap_or(0)
}
