//! The HTML page of one run: header, numbers (tokens, cost, the token curve as inline SVG,
//! per-kind counts and durations), the timeline's data for the page's script, the findings and
//! the transcript (one `<details>` per turn).
//!
//! This module owns the page's markup and the bounds on its size: every text from the stream
//! is cut to a share of a fixed budget (with its full size shown) and escaped through `html`.
//! It must not read streams nor files; the CSS and the script are assets included at build time
//! and load nothing from elsewhere (the page's Content-Security-Policy forbids it).

use super::html::{push_script_json, push_text, text, visible};
use super::model::{Call, Cut, Entry, KINDS, Run, prefix};
use serde_json::{Value, json};
use sjlint_core::text::thousands;
use std::fmt::Write as _;

const CSS: &str = include_str!("assets/page.css");
const JS: &str = include_str!("assets/page.js");

/// Bytes of call arguments and output the page's data holds in all, and per call at most.
const CALL_TEXT_BUDGET: usize = 1_000_000;
const CALL_TEXT_MAX: usize = 1_200;
/// Transcript entries shown, and bytes of their text in all and per entry at most.
const ITEMS_SHOWN: usize = 3_000;
const ITEM_TEXT_BUDGET: usize = 1_200_000;
const ITEM_TEXT_MAX: usize = 2_000;
/// Points of the token curve.
const CURVE_POINTS: usize = 240;
/// Tool calls the timeline's data holds at most: the first and the last ones; those between are
/// counted on the page. With the text budgets above, this is what keeps a page of any run within
/// about 5 MB.
const CALLS_HEAD: usize = 2_000;
const CALLS_TAIL: usize = 1_000;
/// Text segments and idle gaps the timeline's data holds at most, the first and the last ones.
const SPANS_HEAD: usize = 2_000;
const SPANS_TAIL: usize = 1_000;
/// Findings listed at most (the page counts the others).
const FINDINGS_SHOWN: usize = 2_000;

/// The indices of `n` things that a page holds: all when they are few, else the first `head`
/// and the last `tail`.
fn kept(n: usize, head: usize, tail: usize) -> impl Iterator<Item = usize> {
    let (a, b) = if n > head + tail {
        (head, n - tail)
    } else {
        (n, n)
    };
    (0..a).chain(b..n)
}

/// A number hard to guess, so that only the page's own script runs (`script-src 'nonce-…'`).
pub(crate) fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let a = h.finish();
    let b = std::collections::hash_map::RandomState::new().hash_one(a);
    format!("{a:016x}{b:016x}")
}

/// The document's head: charset, the policy that keeps it offline, title and the style sheet.
pub(crate) fn head(out: &mut String, title: &str, nonce: &str) {
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-{nonce}'\">"
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"generator\" content=\"sjlint report\">\n<title>");
    push_text(out, title);
    out.push_str("</title>\n<style>");
    out.push_str(CSS);
    out.push_str("</style></head>\n");
}

/// Writes the page of `run`; `back` links to the index of several runs.
pub(crate) fn page(run: &Run, back: Option<&str>) -> String {
    let nonce = nonce();
    let mut out = String::with_capacity(64 << 10);
    head(&mut out, &format!("sjlint report: {}", run.name), &nonce);
    out.push_str("<body>\n");
    if let Some(back) = back {
        out.push_str("<nav><a href=\"");
        push_text(&mut out, back);
        out.push_str("\">← all runs</a></nav>\n");
    }
    header(&mut out, run);
    numbers(&mut out, run);
    timeline(&mut out, run);
    findings(&mut out, run);
    transcript(&mut out, run);
    out.push_str("<script type=\"application/json\" id=\"run-data\">");
    let data = data(run).to_string();
    push_script_json(&mut out, &data);
    let _ = write!(out, "</script>\n<script nonce=\"{nonce}\">");
    out.push_str(JS);
    out.push_str("</script>\n</body></html>\n");
    out
}

fn header(out: &mut String, run: &Run) {
    out.push_str("<header><h1>");
    let file = run.name.rsplit('/').next().unwrap_or(&run.name);
    push_text(out, file);
    out.push_str("</h1>\n<dl class=\"facts\">");
    let mut fact = |k: &str, v: &str| {
        let _ = write!(out, "<div><dt>{k}</dt><dd>");
        push_text(out, v);
        out.push_str("</dd></div>");
    };
    fact("file", &run.name);
    fact("agent", run.agent.as_deref().unwrap_or("unknown"));
    fact("model", run.model.as_deref().unwrap_or("—"));
    fact("session", run.session_id.as_deref().unwrap_or("—"));
    if let Some(cwd) = &run.cwd {
        fact("directory", cwd);
    }
    fact("start", &run.first_ms.map_or("—".into(), utc));
    fact("verdict", run.verdict());
    fact("outcome", run.outcome.as_deref().unwrap_or("—"));
    fact("records", &run.records.to_string());
    out.push_str("</dl></header>\n");
}

/// `ms` since the epoch as `YYYY-MM-DD HH:MM:SS UTC`.
pub(crate) fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A duration for people: `850 ms`, `4.2 s`, `3 min 5 s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{}.{} s", ms / 1000, ms % 1000 / 100)
    } else if ms < 3_600_000 {
        format!("{} min {} s", ms / 60_000, ms % 60_000 / 1000)
    } else {
        format!("{} h {} min", ms / 3_600_000, ms % 3_600_000 / 60_000)
    }
}

/// The output tokens, with the part spent reasoning (already in them) when the agent says.
fn output_tokens(u: &super::model::Usage) -> String {
    if u.reasoning > 0 {
        format!("{} ({} reasoning)", u.output, u.reasoning)
    } else {
        u.output.to_string()
    }
}

fn numbers(out: &mut String, run: &Run) {
    out.push_str("<section id=\"numbers\"><h2>Numbers</h2><div class=\"cards\">");
    let u = &run.usage;
    let cost = run.cost_usd.map_or("—".into(), |c| format!("${c:.4}"));
    let cards = [
        ("duration", run.duration_ms.map_or("—".into(), duration)),
        ("tool calls", run.calls.len().to_string()),
        ("input tokens", u.input.to_string()),
        ("output tokens", output_tokens(u)),
        ("cache read", u.cache_read.to_string()),
        ("cache write", u.cache_write.to_string()),
        ("cost", cost),
        ("findings", run.findings.len().to_string()),
    ];
    for (k, v) in cards {
        let _ = write!(
            out,
            "<div class=\"card\"><span>{k}</span><b>{}</b></div>",
            text(&v)
        );
    }
    out.push_str("</div>\n");
    curve(out, run);
    kinds_table(out, run);
    out.push_str("</section>\n");
}

/// The cumulative tokens over the run as a small SVG line.
fn curve(out: &mut String, run: &Run) {
    let Some(&(_, max)) = run.curve.last() else {
        out.push_str("<p class=\"note\">No token counts in this stream.</p>\n");
        return;
    };
    let (w, h) = (600.0_f64, 80.0_f64);
    let span = (run.t1.saturating_sub(run.t0)).max(1) as f64;
    let step = run.curve.len().div_ceil(CURVE_POINTS).max(1);
    // Steps: the count holds until the next usage event.
    let mut points = format!("0,{h}");
    let mut last_y = h;
    for (i, &(pos, total)) in run.curve.iter().enumerate() {
        if i % step != 0 && i + 1 != run.curve.len() {
            continue;
        }
        let x = (pos.saturating_sub(run.t0)) as f64 / span * w;
        let y = h - total as f64 / max.max(1) as f64 * (h - 4.0);
        let _ = write!(points, " {x:.1},{last_y:.1} {x:.1},{y:.1}");
        last_y = y;
    }
    let _ = write!(points, " {w:.1},{last_y:.1}");
    let _ = writeln!(
        out,
        "<figure class=\"curve\"><svg viewBox=\"0 0 {w} {h}\" width=\"100%\" height=\"{h}\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"cumulative tokens\"><polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\" points=\"{points}\"/></svg><figcaption>cumulative tokens (input, output, cache), {max} at the end, by {}</figcaption></figure>",
        if run.clock { "time" } else { "record line" }
    );
}

/// The `p`-th percentile (0–100) of sorted `v`, nearest rank.
fn percentile(v: &[u64], p: usize) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let rank = (p * v.len()).div_ceil(100).max(1);
    v[rank.min(v.len()) - 1]
}

fn kinds_table(out: &mut String, run: &Run) {
    let mut per: Vec<(usize, usize, Vec<u64>)> = vec![(0, 0, Vec::new()); KINDS.len()];
    for c in &run.calls {
        let p = &mut per[c.kind];
        p.0 += 1;
        if c.ok == Some(false) {
            p.1 += 1;
        }
        if run.clock && c.end.is_some() {
            p.2.push(run.end_pos(c) - run.pos(c.start));
        }
    }
    out.push_str("<table class=\"kinds\"><thead><tr><th>kind</th><th>calls</th><th>failed</th><th>p50</th><th>p95</th></tr></thead><tbody>");
    for (k, (count, failed, mut d)) in per.into_iter().enumerate() {
        if count == 0 {
            continue;
        }
        d.sort_unstable();
        let (p50, p95) = if d.is_empty() {
            ("—".to_owned(), "—".to_owned())
        } else {
            (duration(percentile(&d, 50)), duration(percentile(&d, 95)))
        };
        let _ = write!(
            out,
            "<tr data-kind=\"{kind}\"><td><i class=\"sw k-{kind}\"></i>{kind}</td><td>{count}</td><td>{failed}</td><td>{p50}</td><td>{p95}</td></tr>",
            kind = KINDS[k]
        );
    }
    out.push_str("</tbody></table>\n");
}

fn timeline(out: &mut String, run: &Run) {
    out.push_str("<section id=\"timeline\"><h2>Timeline</h2>\n");
    if run.clock {
        let _ = writeln!(
            out,
            "<p class=\"note\">Shaded: no event for more than {} s.</p>",
            super::model::IDLE_MS / 1000
        );
    } else {
        out.push_str("<p class=\"note\" id=\"no-clock\">This stream has no timestamps: calls are laid out by sequence (record line), not by time.</p>\n");
    }
    let left = run.calls.len().saturating_sub(CALLS_HEAD + CALLS_TAIL);
    if left > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\" id=\"calls-left-out\">The timeline draws the first {CALLS_HEAD} and the last {CALLS_TAIL} of the {} tool calls; the {} in between are counted in the numbers above, not drawn.</p>",
            run.calls.len(),
            left
        );
    }
    out.push_str("<div class=\"controls\"><button type=\"button\" data-zoom=\"in\">zoom in</button><button type=\"button\" data-zoom=\"out\">zoom out</button><button type=\"button\" data-zoom=\"reset\">whole run</button><span class=\"hint\">wheel: zoom · drag: pan · keys + − ← → on the timeline</span></div>\n<ul class=\"legend\">");
    for k in KINDS {
        let _ = write!(out, "<li><i class=\"sw k-{k}\"></i>{k}</li>");
    }
    out.push_str("<li><i class=\"sw failed\"></i>failed</li><li><i class=\"sw open\"></i>unfinished</li><li><i class=\"sw seg-text\"></i>assistant text</li><li><i class=\"sw seg-think\"></i>thinking</li></ul>\n");
    out.push_str("<div id=\"tl\" class=\"tl\" tabindex=\"0\" aria-label=\"timeline of tool calls\"><noscript>The timeline needs JavaScript; the transcript below has every call.</noscript></div>\n<div id=\"tip\" class=\"tip\" role=\"tooltip\" hidden></div>\n</section>\n");
}

/// The transcript entry a finding on `line` points at: the last whose line is at most `line`.
fn entry_for(run: &Run, line: u64) -> Option<usize> {
    let n = run.items.partition_point(|i| i.line <= line);
    n.checked_sub(1)
}

fn findings(out: &mut String, run: &Run) {
    let _ = writeln!(
        out,
        "<section id=\"findings\"><h2>Findings ({})</h2>",
        run.findings.len()
    );
    if run.findings.is_empty() {
        out.push_str("<p class=\"note\">None.</p>");
    }
    out.push_str("<ol class=\"findings\">");
    for (i, f) in run.findings.iter().enumerate().take(FINDINGS_SHOWN) {
        let _ = write!(
            out,
            "<li id=\"finding-{i}\" class=\"sev-{sev}\" data-rule=\"{rule}\" data-line=\"{line}\"><span class=\"sev\">{sev}</span> <code>{rule}</code> ",
            sev = f.severity,
            rule = f.rule,
            line = f.line
        );
        push_text(out, &f.message);
        match entry_for(run, f.line) {
            Some(e) => {
                let _ = write!(out, " <a href=\"#e-{e}\">line {}</a>", f.line);
            }
            None => {
                let _ = write!(out, " <span>line {}</span>", f.line);
            }
        }
        out.push_str("</li>");
    }
    out.push_str("</ol>");
    let more = run.findings_left_out + run.findings.len().saturating_sub(FINDINGS_SHOWN) as u64;
    if more > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{more} more findings not listed.</p>"
        );
    }
    out.push_str("</section>\n");
}

/// A kept text cut again to `max` bytes, with its size when anything is left out.
fn push_cut(out: &mut String, c: &Cut, max: usize) {
    let shown = prefix(&c.text, max);
    push_text(out, shown);
    if shown.len() < c.full {
        let _ = write!(
            out,
            "<span class=\"cut\">… (cut: {} of {} bytes shown)</span>",
            shown.len(),
            c.full
        );
    }
}

fn transcript(out: &mut String, run: &Run) {
    out.push_str("<section id=\"transcript\"><h2>Transcript</h2>\n");
    let shown = run.items.len().min(ITEMS_SHOWN);
    // A call's entry shows two texts (arguments and output).
    let max = (ITEM_TEXT_BUDGET / shown.max(1) / 2).clamp(80, ITEM_TEXT_MAX);
    // Findings per transcript entry, for the links back.
    let mut marks: Vec<Vec<usize>> = Vec::new();
    for (i, f) in run.findings.iter().enumerate() {
        if let Some(e) = entry_for(run, f.line)
            && e < shown
            && i < FINDINGS_SHOWN
        {
            if marks.len() <= e {
                marks.resize_with(e + 1, Vec::new);
            }
            marks[e].push(i);
        }
    }
    let mut turn = 0;
    let mut open = false;
    for (i, item) in run.items.iter().take(shown).enumerate() {
        let starts = matches!(item.entry, Entry::Prompt(_)) && !item.nested;
        if starts || !open {
            if open {
                out.push_str("</details>\n");
            }
            turn += 1;
            let _ = write!(out, "<details open id=\"turn-{turn}\"><summary>Turn {turn}");
            if let Entry::Prompt(p) = &item.entry {
                out.push_str(": ");
                push_text(out, prefix(p.text.lines().next().unwrap_or(""), 100));
            }
            out.push_str("</summary>\n");
            open = true;
        }
        entry(out, run, i, item, max);
        if let Some(m) = marks.get(i) {
            for &f in m {
                let _ = write!(
                    out,
                    "<a class=\"flag\" href=\"#finding-{f}\">⚑ {}</a>",
                    run.findings[f].rule
                );
            }
        }
        out.push_str("</div>\n");
    }
    if open {
        out.push_str("</details>\n");
    }
    let left = (run.items.len() - shown) as u64 + run.items_left_out;
    if left > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{left} more transcript entries not shown.</p>"
        );
    }
    out.push_str("</section>\n");
}

/// One transcript entry, its `<div>` left open for the finding links.
fn entry(out: &mut String, run: &Run, i: usize, item: &super::model::Item, max: usize) {
    let nested = if item.nested { " nested" } else { "" };
    let open = |out: &mut String, class: &str| {
        let _ = write!(
            out,
            "<div class=\"e {class}{nested}\" id=\"e-{i}\" data-line=\"{}\">",
            item.line
        );
    };
    match &item.entry {
        Entry::Prompt(c) => {
            open(out, "prompt");
            out.push_str("<pre>");
            push_cut(out, c, max);
            out.push_str("</pre>");
        }
        Entry::Text(c) => {
            open(out, "text");
            out.push_str("<pre>");
            push_cut(out, c, max);
            out.push_str("</pre>");
        }
        Entry::Thinking(c) => {
            open(out, "thinking");
            out.push_str("<details><summary>thinking</summary><pre>");
            push_cut(out, c, max);
            out.push_str("</pre></details>");
        }
        Entry::Call(k) => {
            let c = &run.calls[*k];
            open(out, "call");
            call_line(out, run, c, max);
        }
        Entry::Error(c) => {
            open(out, "error");
            out.push_str("<pre>error: ");
            push_cut(out, c, max);
            out.push_str("</pre>");
        }
        Entry::End { ok, outcome, text } => {
            open(out, "end");
            let word = match ok {
                Some(true) => "result",
                Some(false) => "result: error",
                None => "result",
            };
            let _ = write!(out, "<p><b>{word}: ");
            push_text(out, outcome);
            out.push_str("</b></p>");
            if !text.text.is_empty() {
                out.push_str("<pre>");
                push_cut(out, text, max);
                out.push_str("</pre>");
            }
        }
    }
}

/// A tool call as `render` shows it: `→ Name brief ✓ 1.2 s` (a failed call with the first line
/// of its output), then its arguments and output folded.
fn call_line(out: &mut String, run: &Run, c: &Call, max: usize) {
    let _ = write!(out, "<p><i class=\"sw k-{}\"></i>→ ", KINDS[c.kind]);
    if c.parent.is_some() {
        out.push_str("(subagent) ");
    }
    out.push_str("<b>");
    push_text(out, if c.name.is_empty() { "(tool)" } else { &c.name });
    out.push_str("</b> <code>");
    if c.brief.is_empty() {
        push_text(out, prefix(&c.args.text, 120));
    } else {
        push_text(out, &c.brief);
    }
    out.push_str("</code> ");
    match (c.end, c.ok) {
        (None, _) => out.push_str("<span class=\"st open\">… unfinished</span>"),
        // Refused before it ran: not a failure of the tool.
        _ if c.rejected => out.push_str("<span class=\"st open\">rejected</span>"),
        (_, Some(false)) => {
            out.push_str("<span class=\"st bad\">✗</span>");
            let first = c.output.text.lines().next().unwrap_or("");
            if !first.is_empty() {
                out.push_str("<span class=\"st bad\">: ");
                push_text(out, prefix(first, 160));
                out.push_str("</span>");
            }
        }
        (_, Some(true)) => out.push_str("<span class=\"st good\">✓</span>"),
        _ => out.push_str("<span class=\"st\">·</span>"),
    }
    if let Some(code) = c.exit_code {
        let class = if code == 0 { "st" } else { "st bad" };
        let _ = write!(out, " <span class=\"{class}\">exit {code}</span>");
    }
    if let Some(n) = c.lines {
        let lines = if n == 1 { "line" } else { "lines" };
        let _ = write!(out, " <span class=\"st\">{} {lines}</span>", thousands(n));
    }
    if c.end.is_some() && run.clock {
        let _ = write!(out, " {}", duration(run.end_pos(c) - run.pos(c.start)));
    }
    out.push_str("</p>");
    if c.args.text.is_empty() && c.output.text.is_empty() {
        return;
    }
    out.push_str("<details class=\"io\"><summary>arguments and output</summary>");
    for (what, text) in [("arguments", &c.args), ("output", &c.output)] {
        if !text.text.is_empty() {
            let _ = write!(out, "<h4>{what}</h4><pre>");
            push_cut(out, text, max);
            out.push_str("</pre>");
        }
    }
    out.push_str("</details>");
}

/// A kept text for the script: made visible, cut to `max`.
fn short(c: &Cut, max: usize) -> String {
    visible(prefix(&c.text, max)).into_owned()
}

/// The rows the kept calls lie on (the main agent's first row always), each row's new index.
fn kept_rows(run: &Run, calls: &[usize]) -> Vec<Option<usize>> {
    let mut map = vec![None; run.rows.len()];
    if let Some(first) = map.first_mut() {
        *first = Some(0);
    }
    for &k in calls {
        if let Some(m) = map.get_mut(run.calls[k].row) {
            *m = Some(0);
        }
    }
    for (next, m) in map.iter_mut().flatten().enumerate() {
        *m = next;
    }
    map
}

/// The timeline's data for the page's script.
fn data(run: &Run) -> Value {
    let shown: Vec<usize> = kept(run.calls.len(), CALLS_HEAD, CALLS_TAIL).collect();
    let row_of = kept_rows(run, &shown);
    let max = (CALL_TEXT_BUDGET / shown.len().max(1)).min(CALL_TEXT_MAX) / 2;
    let calls: Vec<Value> = shown
        .iter()
        .map(|&k| {
            let c = &run.calls[k];
            let start = run.pos(c.start).saturating_sub(run.t0);
            let end = run.end_pos(c).saturating_sub(run.t0);
            let flags = u8::from(c.ok == Some(false)) | (u8::from(c.end.is_none()) << 1);
            let mut v = json!([
                visible(prefix(&c.id, 80)),
                visible(prefix(&c.name, 60)),
                c.kind,
                start,
                end,
                flags,
                row_of.get(c.row).copied().flatten().unwrap_or(0),
                c.start.line,
            ]);
            if max > 0
                && let Some(a) = v.as_array_mut()
            {
                a.push(json!(short(&c.args, max)));
                a.push(json!(c.args.full));
                a.push(json!(short(&c.output, max)));
                a.push(json!(c.output.full));
            }
            v
        })
        .collect();
    let rows: Vec<Value> = run
        .rows
        .iter()
        .zip(&row_of)
        .filter(|(_, m)| m.is_some())
        .map(|(r, _)| match r.group {
            None if r.lane == 0 => json!(["main agent", 0]),
            None => json!(["", 0]),
            Some(_) if r.lane > 0 => json!(["", 1]),
            Some(g) => {
                let c = &run.calls[g];
                json!([visible(&format!("↳ {} {}", c.name, prefix(&c.id, 24))), 1])
            }
        })
        .collect();
    let segs: Vec<Value> = kept(run.segments.len(), SPANS_HEAD, SPANS_TAIL)
        .map(|i| &run.segments[i])
        .map(|s| {
            json!([
                u8::from(s.thinking),
                run.pos(s.start).saturating_sub(run.t0),
                run.pos(s.end).saturating_sub(run.t0)
            ])
        })
        .collect();
    let idle: Vec<Value> = kept(run.idle.len(), SPANS_HEAD, SPANS_TAIL)
        .map(|i| &run.idle[i])
        .map(|&(a, b)| json!([a.saturating_sub(run.t0), b.saturating_sub(run.t0)]))
        .collect();
    let marks: Vec<Value> = run
        .findings
        .iter()
        .enumerate()
        .take(FINDINGS_SHOWN)
        .map(|(i, f)| {
            let pos = match entry_for(run, f.line) {
                Some(e) => item_pos(run, e),
                None if f.line == 0 => 0,
                None => run.t1.saturating_sub(run.t0),
            };
            json!([pos, i, f.rule, f.line])
        })
        .collect();
    json!({
        "clock": run.clock,
        "span": run.t1.saturating_sub(run.t0),
        "t0": run.t0,
        "kinds": KINDS,
        "calls": calls,
        "rows": rows,
        "segs": segs,
        "idle": idle,
        "marks": marks,
    })
}

/// The position of transcript entry `e` on the timeline.
fn item_pos(run: &Run, e: usize) -> u64 {
    let item = &run.items[e];
    let pos = match &item.entry {
        Entry::Call(k) => run.pos(run.calls[*k].start),
        _ if run.clock => item.ms.or(run.first_ms).unwrap_or(run.t0),
        _ => item.line,
    };
    pos.saturating_sub(run.t0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_run_gives_a_page_of_a_few_megabytes() {
        use super::super::model::{Builder, test_event};
        let mut b = Builder::new("big");
        let big = "x".repeat(5_000);
        for i in 0..30_000u64 {
            let line = 3 * i + 1;
            let start = format!(
                r#"{{"type":"tool_start","line":{line},"call_id":"call-{i}","tool_kind":"shell","args":{{"command":"{big}"}},"timestamp_ms":{}}}"#,
                1_000_000 + i * 10
            );
            b.event(&test_event(&start), None);
            let end = format!(
                r#"{{"type":"tool_end","line":{},"call_id":"call-{i}","ok":true,"text":"{big}","timestamp_ms":{}}}"#,
                line + 1,
                1_000_005 + i * 10
            );
            b.event(&test_event(&end), None);
            let text = format!(
                r#"{{"type":"assistant_text","line":{},"text":"{big}"}}"#,
                line + 2
            );
            b.event(&test_event(&text), None);
        }
        let run = b.finish();
        assert_eq!(run.calls.len(), 30_000);
        let html = page(&run, None);
        assert!(html.len() < 6 << 20, "{} bytes", html.len());
        assert!(html.contains("more transcript entries not shown"));
        assert!(html.contains("bytes shown)"));
    }

    #[test]
    fn clocks_at_the_edges_of_u64_do_not_panic() {
        use super::super::model::{Builder, test_event};
        let mut b = Builder::new("edges");
        for line in [
            r#"{"type":"tool_start","line":1,"call_id":"a","timestamp_ms":18446744073709551615}"#,
            r#"{"type":"tool_end","line":2,"call_id":"a","duration_ms":18446744073709551615,"timestamp_ms":5}"#,
            r#"{"type":"tool_start","line":3,"call_id":"b","timestamp_ms":0}"#,
            r#"{"type":"tool_end","line":4,"call_id":"b","duration_ms":18446744073709551615,"timestamp_ms":18446744073709551615}"#,
            r#"{"type":"end","line":5,"duration_ms":18446744073709551615,"cost_usd":1e308}"#,
            r#"{"type":"end","line":6,"duration_ms":18446744073709551615,"cost_usd":1e308,"session_id":"x"}"#,
        ] {
            b.event(&test_event(line), None);
        }
        let run = b.finish();
        assert!(page(&run, None).contains("data-kind"));
        assert!(!utc(u64::MAX).is_empty());
    }

    #[test]
    fn dates_and_durations_read_plainly() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_770_823_976_204), "2026-02-11 15:32:56 UTC");
        assert_eq!(duration(4162), "4.1 s");
        assert_eq!(duration(185_000), "3 min 5 s");
        assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
        assert_eq!(percentile(&[1, 2, 3, 4], 95), 4);
    }
}
