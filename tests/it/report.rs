//! `sjlint report`: pages written by the real binary and opened in headless Chromium; the
//! assertions read the DOM after the page's script ran, and Chromium's console (a script error
//! or a request the page's policy blocked shows there). One test drives the page over
//! Chromium's `DevTools` pipe (clicks, a drag, a key, a hover). Without Chromium the tests are
//! skipped with a note, except under `CI=true`, where they fail.
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

/// A fresh directory for one test's files, removed when the test is done with it.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sjlint-report-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    Scratch(dir)
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
/// call, one per finding, no console message. Returns the page's directory, the page and the
/// DOM.
fn page_agrees(chromium: &Path, input: &Path, name: &str) -> (Scratch, PathBuf, String) {
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
    (dir, page, loaded.dom)
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
    let (_dir, page, dom) = page_agrees(&chromium, &input, "cursor-parallel");
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
    let (_dir, page, dom) = page_agrees(&chromium, &input, "claude-subagent");
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
    let (_dir, page, dom) = page_agrees(&chromium, &input, "codex");
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
    let (_dir, page, dom) = page_agrees(&chromium, &input, "broken");
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
        std::fs::read_dir(&*dir).expect("dir").all(|e| !e
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

/// Chromium driven over the `DevTools` protocol on a pipe (`--remote-debugging-pipe`: commands in
/// on descriptor 3, replies out on 4, each message ended by a NUL byte), for what a DOM dump
/// cannot show: the page after a click, a key or a pointer.
struct Devtools {
    child: std::process::Child,
    to: std::fs::File,
    from: std::io::BufReader<std::fs::File>,
    next: u64,
    session: String,
}

impl Devtools {
    fn open(chromium: &Path, page: &Path) -> Devtools {
        use std::os::fd::FromRawFd;
        use std::os::unix::process::CommandExt;
        let (mut commands, mut replies) = ([0i32; 2], [0i32; 2]);
        // SAFETY: two fresh arrays of two descriptors, as pipe(2) asks.
        unsafe {
            assert_eq!(libc::pipe(commands.as_mut_ptr()), 0);
            assert_eq!(libc::pipe(replies.as_mut_ptr()), 0);
        }
        let (child_in, child_out) = (commands[0], replies[1]);
        let mut cmd = browser(chromium, &page.with_extension("devtools"));
        cmd.arg("--remote-debugging-pipe")
            .arg("--window-size=1280,900")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: only async-signal-safe calls (dup2) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(child_in, 3) < 0 || libc::dup2(child_out, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("chromium runs");
        // SAFETY: the parent's ends, owned from here on; the child's ends are closed.
        let (to, from) = unsafe {
            libc::close(child_in);
            libc::close(child_out);
            (
                std::fs::File::from_raw_fd(commands[1]),
                std::fs::File::from_raw_fd(replies[0]),
            )
        };
        let mut dt = Devtools {
            child,
            to,
            from: std::io::BufReader::new(from),
            next: 0,
            session: String::new(),
        };
        let url = format!("file://{}", page.display());
        let target = dt.call("Target.createTarget", serde_json::json!({ "url": url }));
        let id = target["targetId"].as_str().expect("target").to_owned();
        let attached = dt.call(
            "Target.attachToTarget",
            serde_json::json!({ "targetId": id, "flatten": true }),
        );
        attached["sessionId"]
            .as_str()
            .expect("session")
            .clone_into(&mut dt.session);
        // Until the page's script has run; the blank page it starts on may be replaced while
        // this is asked, which is an error to ask again after.
        let ready = "location.protocol === 'file:' && document.readyState === 'complete'";
        let loaded = (0..200).any(|_| {
            let r = dt.try_call(
                "Runtime.evaluate",
                serde_json::json!({ "expression": ready, "returnByValue": true }),
            );
            if r.is_some_and(|r| r["result"]["value"] == true) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
            false
        });
        assert!(loaded, "the page did not load");
        dt
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let reply = self.send(method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// [`Devtools::call`], with `None` for an error reply.
    fn try_call(&mut self, method: &str, params: Value) -> Option<Value> {
        let reply = self.send(method, params);
        reply
            .get("error")
            .is_none()
            .then(|| reply["result"].clone())
    }

    fn send(&mut self, method: &str, params: Value) -> Value {
        use std::io::{BufRead, Write};
        self.next += 1;
        let mut msg = serde_json::json!({ "id": self.next, "method": method, "params": params });
        if !self.session.is_empty() {
            msg["sessionId"] = Value::from(self.session.clone());
        }
        let mut bytes = serde_json::to_vec(&msg).expect("json");
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        loop {
            let mut reply = Vec::new();
            let n = self
                .from
                .read_until(0, &mut reply)
                .expect("read from chromium");
            assert!(n > 0, "chromium closed the pipe during {method}");
            reply.pop();
            let v: Value = serde_json::from_slice(&reply).expect("reply JSON");
            if v["id"] == self.next {
                return v;
            }
        }
    }

    /// The value of a JavaScript expression in the page (awaited when it is a promise).
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            serde_json::json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }
}

impl Drop for Devtools {
    /// Closes the browser and waits for it, so its profile is no longer written to.
    fn drop(&mut self) {
        use std::io::Write;
        let close = format!(
            "{{\"id\":{},\"method\":\"Browser.close\"}}\0",
            self.next + 1
        );
        let _ = self.to.write_all(close.as_bytes());
        for _ in 0..200 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn zoom_pan_hover_and_keys_change_what_the_timeline_shows() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("interaction");
    let page = dir.join("page.html");
    report(&[&testdata("sample-with-problem.ndjson")], &page);
    let mut dt = Devtools::open(&chromium, &page);
    let bars = "document.querySelectorAll('[data-call-id]').length";
    assert_eq!(dt.eval(bars), 2);
    let first_left = "parseFloat(document.querySelector('.bar').style.left)";
    let before = dt.eval(first_left).as_f64().expect("left");
    // Zoom in twice about the middle: the bars spread out.
    dt.eval("document.querySelector('[data-zoom=in]').click(); document.querySelector('[data-zoom=in]').click(); new Promise(r => requestAnimationFrame(() => r(true)))");
    let zoomed = dt.eval("document.querySelector('.bar') ? parseFloat(document.querySelector('.bar').style.left) : null");
    assert_ne!(zoomed.as_f64(), Some(before), "zoom moved nothing");
    // Dragging pans: the bars move with the pointer.
    let frame = "new Promise(r => requestAnimationFrame(() => r(true)))";
    let left = "document.querySelector('.bar') ? parseFloat(document.querySelector('.bar').style.left) : null";
    let at = dt.eval(left);
    dt.eval("const tr = document.querySelector('.track'); tr.dispatchEvent(new MouseEvent('mousedown', {clientX: 600, bubbles: true})); window.dispatchEvent(new MouseEvent('mousemove', {clientX: 500})); window.dispatchEvent(new MouseEvent('mouseup')); true");
    dt.eval(frame);
    let panned = dt.eval(left);
    assert!(
        match (at.as_f64(), panned.as_f64()) {
            (Some(a), Some(b)) => (a - b - 100.0).abs() < 1.0,
            (a, b) => a != b,
        },
        "a drag of 100 px moved the bars from {at} to {panned}"
    );
    // The whole run again, then a key on the timeline zooms as the button does.
    dt.eval("document.querySelector('[data-zoom=reset]').click(); new Promise(r => requestAnimationFrame(() => r(true)))");
    assert_eq!(dt.eval(first_left).as_f64(), Some(before));
    dt.eval("const tl = document.getElementById('tl'); tl.focus(); tl.dispatchEvent(new KeyboardEvent('keydown', {key: '+', bubbles: true})); new Promise(r => requestAnimationFrame(() => r(true)))");
    assert_ne!(
        dt.eval(first_left).as_f64(),
        Some(before),
        "+ zoomed nothing"
    );
    dt.eval("document.querySelector('[data-zoom=reset]').click(); new Promise(r => requestAnimationFrame(() => r(true)))");
    // Hovering a bar shows its kind, id and arguments, as text.
    dt.eval("document.querySelector('.bar').dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); true");
    let tip = dt.eval("const t = document.getElementById('tip'); t.hidden ? '' : t.textContent");
    let tip = tip.as_str().expect("tooltip text");
    assert!(
        tip.contains("kind: read") || tip.contains("kind: shell"),
        "{tip}"
    );
    assert!(tip.contains("id: toolu_"), "{tip}");
    assert!(tip.contains("arguments: {"), "{tip}");
    // Leaving it hides the details.
    dt.eval("document.querySelector('.track').dispatchEvent(new MouseEvent('mouseleave')); true");
    assert_eq!(dt.eval("document.getElementById('tip').hidden"), true);
}
