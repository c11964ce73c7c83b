//! `sjlint report`: pages written by the real binary and opened in headless Chromium; the
//! assertions read the DOM after the page's script ran, and Chromium's console (a script error
//! or a request the page's policy blocked shows there). Without Chromium the tests are skipped
//! with a note, except under `CI=true`, where they fail.
//!
//! Screenshots of each page are written under `target/report-screenshots/`; with
//! `SJLINT_UPDATE_DOCS=1` the Claude run's is also copied to `docs/report.png` for the README.

use crate::common::{corpus_dir, manifest_dir, run_cmd, sjlint, testdata};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The Chromium binary, or `None` (the caller skips) when it is not installed.
fn chromium() -> Option<PathBuf> {
    for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "CI=true but chromium is not installed: the report tests must run in CI (apt-get install chromium)"
    );
    eprintln!("note: chromium is not installed; report browser test skipped");
    None
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sjlint-report-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Chromium run headless, offline, with a profile of its own.
fn browser(chromium: &Path, profile: &Path) -> Command {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// A page as Chromium left it: its DOM after the scripts ran, and the console's messages.
struct Loaded {
    dom: String,
    console: Vec<String>,
}

fn load(chromium: &Path, page: &Path, hash: &str) -> Loaded {
    let profile = page.with_extension("profile");
    let out = browser(chromium, &profile)
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("file://{}{hash}", page.display()))
        .output()
        .expect("chromium runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    Loaded {
        dom: String::from_utf8_lossy(&out.stdout).into_owned(),
        console: stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_owned)
            .collect(),
    }
}

/// Writes a screenshot of `page` at `width` × 900 to `target/report-screenshots/NAME.png` and
/// returns its path.
fn screenshot(chromium: &Path, page: &Path, name: &str, width: u32) -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| manifest_dir().join("target"), PathBuf::from)
        .join("report-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot directory");
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let status = browser(chromium, &page.with_extension("shot"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={width},900"))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let bytes = std::fs::read(&png).unwrap_or_default();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "no screenshot of {}: {}",
        page.display(),
        String::from_utf8_lossy(&status.stderr)
    );
    png
}

/// Runs `sjlint report ARGS… -o OUTPUT` and returns its exit code.
fn report(args: &[&Path], output: &Path) -> i32 {
    let mut cmd = sjlint();
    cmd.arg("report").args(args).arg("-o").arg(output);
    let run = run_cmd(cmd, None);
    assert!(
        output.exists(),
        "sjlint report wrote nothing:\n{}",
        run.describe()
    );
    run.code
}

/// How many elements carry `attr` (as `attr="`) in `dom`.
fn count(dom: &str, attr: &str) -> usize {
    dom.matches(&format!(" {attr}=\"")).count()
}

/// The distinct `top` offsets of the call bars: one per lane drawn.
fn lanes(dom: &str) -> usize {
    let mut tops = BTreeSet::new();
    for tag in dom.split("<div class=\"bar").skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        if let Some(i) = tag.find("top: ") {
            let rest = &tag[i + 5..];
            tops.insert(rest[..rest.find("px").unwrap_or(0)].to_owned());
        }
    }
    tops.len()
}

/// Tool calls of `path` as `sjlint stats --format json` counts them.
fn stats_calls(path: &Path) -> usize {
    let mut cmd = sjlint();
    cmd.args(["stats", "--format", "json"]).arg(path);
    let run = run_cmd(cmd, None);
    let v: Value = serde_json::from_str(&run.stdout()).expect("stats JSON");
    v["files"][0]["tool_calls"]
        .as_array()
        .expect("tool_calls")
        .iter()
        .map(|t| t["count"].as_u64().unwrap_or(0))
        .sum::<u64>() as usize
}

/// Findings of `path` as `sjlint check --format json` reports them.
fn check_findings(path: &Path) -> usize {
    let mut cmd = sjlint();
    cmd.args(["check", "--format", "json"]).arg(path);
    run_cmd(cmd, None).findings().len()
}

/// The page of `input` loaded and checked against `stats` and `check`: one element per tool
/// call, one per finding, no console message. Returns the DOM.
fn page_agrees(chromium: &Path, input: &Path, name: &str) -> (PathBuf, String) {
    // Named relative to the crate root, where the binary runs, as a user would name it.
    let input = input.strip_prefix(manifest_dir()).unwrap_or(input);
    let dir = scratch(name);
    let page = dir.join("page.html");
    report(&[input], &page);
    let loaded = load(chromium, &page, "");
    assert!(
        loaded.console.is_empty(),
        "console of {name}: {:#?}",
        loaded.console
    );
    assert!(loaded.dom.contains("id=\"tl\""), "no timeline in {name}");
    let calls = stats_calls(input);
    assert_eq!(
        count(&loaded.dom, "data-call-id"),
        calls,
        "{name}: calls on the timeline"
    );
    assert_eq!(
        count(&loaded.dom, "data-call-id"),
        dom_bars_with_kind(&loaded.dom),
        "{name}: every call has its kind"
    );
    assert_eq!(
        count(&loaded.dom, "data-rule"),
        check_findings(input),
        "{name}: findings listed"
    );
    (page, loaded.dom)
}

/// Bars that carry both `data-call-id` and `data-kind`.
fn dom_bars_with_kind(dom: &str) -> usize {
    dom.split("<div class=\"bar")
        .skip(1)
        .filter(|t| {
            let tag = &t[..t.find('>').unwrap_or(t.len())];
            tag.contains(" data-call-id=\"") && tag.contains(" data-kind=\"")
        })
        .count()
}

#[test]
fn cursor_parallel_calls_take_two_lanes_on_a_clock() {
    let (Some(chromium), Some(corpus)) = (chromium(), corpus_dir()) else {
        return;
    };
    let input = corpus.join("reifying__cursor-hack__experiments__parallel-sleep.jsonl");
    let (page, dom) = page_agrees(&chromium, &input, "cursor-parallel");
    assert_eq!(lanes(&dom), 2, "two calls at once take two lanes");
    assert!(
        !dom.contains("id=\"no-clock\""),
        "cursor stamps its records"
    );
    assert!(dom.contains("data-kind=\"shell\""));
    screenshot(&chromium, &page, "cursor-parallel", 1280);
    screenshot(&chromium, &page, "cursor-parallel-480", 480);
}

#[test]
fn claude_subagent_calls_are_nested_under_their_task() {
    let (Some(chromium), Some(corpus)) = (chromium(), corpus_dir()) else {
        return;
    };
    let input =
        corpus.join("agents/claude/ariel-frischer__claude-clean__claude-stream-json-simple.log");
    let (page, dom) = page_agrees(&chromium, &input, "claude-subagent");
    assert!(lanes(&dom) > 1);
    // One row label per subagent that ran calls, naming the Task call.
    assert_eq!(dom.matches("class=\"label sub\" title=\"↳ Task").count(), 2);
    assert!(dom.contains("data-kind=\"subagent\""));
    // The subagent's Read of a directory failed (EISDIR).
    assert_eq!(dom.matches("class=\"bar k-read failed\"").count(), 1);
    assert!(
        dom.contains("id=\"no-clock\""),
        "no timestamps: laid out by line"
    );
    let png = screenshot(&chromium, &page, "claude-subagent", 1280);
    if std::env::var_os("SJLINT_UPDATE_DOCS").is_some() {
        std::fs::copy(&png, manifest_dir().join("docs/report.png")).expect("docs/report.png");
    }
}

#[test]
fn codex_run_is_laid_out_by_sequence_and_says_so() {
    let (Some(chromium), Some(corpus)) = (chromium(), corpus_dir()) else {
        return;
    };
    let input = corpus.join("agents/codex/dungle-scrubs__hcn__harnesses__codex-filetool.ndjson");
    let (page, dom) = page_agrees(&chromium, &input, "codex");
    assert!(count(&dom, "data-call-id") > 0, "the Codex run has calls");
    assert!(dom.contains("id=\"no-clock\""));
    assert!(dom.contains("line "), "the axis counts lines");
    screenshot(&chromium, &page, "codex", 1280);
}

#[test]
fn broken_run_pins_its_findings_and_marks_unfinished_calls() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("broken-input");
    // A run cut off while two calls ran, with a line that is no JSON at all.
    let mut text = std::fs::read_to_string(testdata("many-findings.ndjson")).expect("fixture");
    text.push_str("\n{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"cut-1\",\"tool_call\":{\"readToolCall\":{\"args\":{\"path\":\"a\"}}},\"session_id\":\"s\",\"timestamp_ms\":1770823976204}\nnot json\n");
    let input = dir.join("broken.ndjson");
    std::fs::write(&input, text).expect("write");
    let (page, dom) = page_agrees(&chromium, &input, "broken");
    let findings = count(&dom, "data-rule");
    assert!(findings > 3, "the broken run has findings: {findings}");
    // Each finding has its marker on the timeline, linking to it, and a link into the
    // transcript whose entry links back.
    assert_eq!(dom.matches("class=\"mark\"").count(), findings);
    assert!(dom.contains("<a class=\"mark\" href=\"#finding-0\""));
    assert!(dom.contains("class=\"flag\" href=\"#finding-"));
    assert!(
        dom.contains("class=\"bar k-read open\""),
        "the cut call runs to the end"
    );
    assert!(dom.contains("verdict</dt><dd>failed"));
    screenshot(&chromium, &page, "broken", 1280);
}

#[test]
fn a_folder_gives_an_index_with_a_row_per_run_and_a_page_each() {
    let (Some(chromium), Some(corpus)) = (chromium(), corpus_dir()) else {
        return;
    };
    let dir = scratch("folder");
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).expect("runs");
    for (src, name) in [
        (
            "reifying__cursor-hack__experiments__parallel-sleep.jsonl",
            "a.jsonl",
        ),
        (
            "agents/claude/ariel-frischer__claude-clean__claude-stream-json-simple.log",
            "b.jsonl",
        ),
        (
            "agents/codex/dungle-scrubs__hcn__harnesses__codex-filetool.ndjson",
            "c.jsonl",
        ),
    ] {
        std::fs::copy(corpus.join(src), runs.join(name)).expect("copy");
    }
    let out = dir.join("out");
    assert_eq!(report(&[&runs], &out), 0);
    let index = out.join("index.html");
    let loaded = load(&chromium, &index, "");
    assert!(loaded.console.is_empty(), "{:#?}", loaded.console);
    assert_eq!(count(&loaded.dom, "data-run"), 3);
    for agent in ["cursor", "claude", "codex"] {
        assert!(loaded.dom.contains(&format!("<td>{agent}</td>")), "{agent}");
    }
    // Each row links to a page that exists and links back.
    for href in loaded.dom.split("<td><a href=\"").skip(1) {
        let href = &href[..href.find('"').expect("quoted")];
        let page = std::fs::read_to_string(out.join(href)).expect("page of a row");
        assert!(page.contains("href=\"index.html\""));
    }
    screenshot(&chromium, &index, "index", 1280);
    // The filter keeps the rows whose text holds every word typed.
    let filtered = load(&chromium, &index, "#filter=claude");
    assert!(filtered.console.is_empty(), "{:#?}", filtered.console);
    let hidden = filtered
        .dom
        .split("<tr data-run=")
        .skip(1)
        .filter(|r| r[..r.find('>').unwrap_or(0)].contains("hidden"))
        .count();
    assert_eq!(hidden, 2, "two of three runs are not Claude Code's");
}

#[test]
fn hostile_text_in_a_transcript_stays_text() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("hostile");
    let evil = "<script>document.title='pwned'</script></style></script><img src=x onerror=\"document.title='img'\"><a href=\"javascript:document.title='js'\">click</a> \u{202e}gnp.exe \u{2028}";
    let lines = [
        serde_json::json!({"type":"system","subtype":"init","session_id":"s</script>","model":"m<b>"}),
        serde_json::json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":evil}]},"session_id":"s"}),
        serde_json::json!({"type":"tool_call","subtype":"started","call_id":"c1\"><script>x</script>","tool_call":{"shellToolCall":{"args":{"command":evil}}},"session_id":"s","timestamp_ms":1_000_000u64}),
        serde_json::json!({"type":"tool_call","subtype":"completed","call_id":"c1\"><script>x</script>","tool_call":{"shellToolCall":{"args":{"command":evil},"result":{"success":{"stdout":evil,"exitCode":0}}}},"session_id":"s","timestamp_ms":1_002_000u64}),
        serde_json::json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":evil}]},"session_id":"s"}),
        serde_json::json!({"type":"result","subtype":"success","is_error":false,"result":evil,"session_id":"s","duration_ms":2000}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let input = dir.join("evil.ndjson");
    std::fs::write(&input, text).expect("write");
    let page = dir.join("evil.html");
    report(&[&input], &page);
    let html = std::fs::read_to_string(&page).expect("page");
    assert_eq!(
        html.matches("<script").count(),
        2,
        "only the page's own scripts"
    );
    assert!(!html.contains('\u{202e}') && !html.contains('\u{2028}'));
    // Opened on the call, so its details are drawn from the data by the script too.
    let loaded = load(&chromium, &page, "#call-0");
    assert!(loaded.console.is_empty(), "{:#?}", loaded.console);
    let title = loaded
        .dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .expect("title");
    assert!(
        title.starts_with("sjlint report: "),
        "title changed: {title}"
    );
    assert_eq!(loaded.dom.matches("<script").count(), 2);
    assert!(!loaded.dom.contains("<img"));
    assert!(!loaded.dom.contains("<a href=\"javascript:"));
    assert_eq!(count(&loaded.dom, "data-call-id"), 1);
    let tip = loaded.dom.split("id=\"tip\"").nth(1).expect("tooltip");
    let tip = &tip[..tip.find("</section>").expect("end of the timeline")];
    let tag = &tip[..tip.find('>').expect("tag")];
    assert!(
        !tag.contains("hidden") && tip.contains("&lt;script&gt;document.title"),
        "the call's details are shown, as text: {tip}"
    );
}

#[test]
fn run_writes_the_page_when_the_agent_ends_and_keeps_no_transcript() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("run");
    let page = dir.join("run.html");
    let input = testdata("sample.ndjson");
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--report"])
        .arg(&page)
        .args(["--", "cat"])
        .arg(&input);
    let ran = run_cmd(cmd, None);
    assert!(page.exists(), "no page:\n{}", ran.describe());
    assert!(
        std::fs::read_dir(&dir).expect("dir").all(|e| !e
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp")),
        "the transcript kept for the page is removed"
    );
    let loaded = load(&chromium, &page, "");
    assert!(loaded.console.is_empty(), "{:#?}", loaded.console);
    let calls = stats_calls(&input);
    assert!(calls > 0);
    assert_eq!(count(&loaded.dom, "data-call-id"), calls);
}

#[test]
fn ten_thousand_calls_are_drawn_per_pixel_not_one_element_each() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("many-calls");
    let mut text = String::from(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n",
    );
    let calls = 10_000u64;
    for i in 0..calls {
        // Three calls at a time, each 250 ms, a new one every 100 ms.
        let (start, end) = (1_770_000_000_000 + i * 100, 1_770_000_000_250 + i * 100);
        for (sub, ts) in [("started", start), ("completed", end)] {
            let result = if sub == "completed" {
                ",\"result\":{\"success\":{\"exitCode\":0,\"stdout\":\"ok\"}}"
            } else {
                ""
            };
            text.push_str(&format!(
                "{{\"type\":\"tool_call\",\"subtype\":\"{sub}\",\"call_id\":\"c{i}\",\"tool_call\":{{\"shellToolCall\":{{\"args\":{{\"command\":\"true {i}\"}}{result}}}}},\"session_id\":\"s\",\"timestamp_ms\":{ts}}}\n"
            ));
        }
    }
    text.push_str("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"session_id\":\"s\",\"duration_ms\":1000250}\n");
    let input = dir.join("many.ndjson");
    std::fs::write(&input, text).expect("write");
    let page = dir.join("many.html");
    report(&[&input], &page);
    let started = std::time::Instant::now();
    let loaded = load(&chromium, &page, "");
    let took = started.elapsed();
    assert!(loaded.console.is_empty(), "{:#?}", loaded.console);
    assert!(loaded.dom.contains("<b>10000</b>"), "the calls are counted");
    assert_eq!(
        count(&loaded.dom, "data-call-id"),
        0,
        "not one element per call"
    );
    let cells = loaded.dom.matches("<div class=\"agg ").count();
    // At most one block per lane and pixel column of a 800-pixel-wide track.
    assert!(cells > 100 && cells < 3 * 1200, "{cells} blocks");
    assert!(took.as_secs() < 30, "the page took {took:?} to load");
}

#[test]
fn an_input_that_cannot_be_read_is_reported_and_the_others_are_written() {
    let dir = scratch("unreadable");
    let out = dir.join("out");
    let missing = dir.join("missing.ndjson");
    let mut cmd = sjlint();
    cmd.arg("report")
        .arg(testdata("sample.ndjson"))
        .arg(&missing)
        .arg("-o")
        .arg(&out);
    let ran = run_cmd(cmd, None);
    assert_eq!(ran.code, 2, "{}", ran.describe());
    assert!(
        ran.stderr().contains("missing.ndjson"),
        "{}",
        ran.describe()
    );
    let index = std::fs::read_to_string(out.join("index.html")).expect("index");
    assert_eq!(count(&index, "data-run"), 1);
    assert!(out.join("001-sample.html").exists());
}
