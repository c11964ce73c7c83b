//! Round 4 of "nothing lost": outputs that would replace an input, temporary files a planted
//! link could redirect, output paths found wrong only after the agent ran, and pages said to be
//! written when they were not. Each case was once reproduced by hand.

use crate::common::{exec, testdata};
use std::fs;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("nothing-lost-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A transcript in `dir`, and its bytes.
fn transcript(dir: &Path) -> (PathBuf, Vec<u8>) {
    let bytes = fs::read(testdata("sample.ndjson")).unwrap();
    let path = dir.join("run.ndjson");
    fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

#[test]
fn a_report_page_never_replaces_its_input() {
    let dir = scratch("report-input");
    let (input, bytes) = transcript(&dir);
    let link = dir.join("page.html");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = dir.join("hard.html");
    fs::hard_link(&input, &hard).unwrap();
    let dotted = dir.join(".").join("run.ndjson");
    for output in [&input, &link, &hard, &dotted] {
        let run = exec(&["report", s(&input), "-o", s(output)], None);
        assert_eq!(run.code, 2, "{}", run.describe());
        assert!(
            run.stderr().contains("is the input") && !run.stderr().contains("wrote"),
            "{}",
            run.describe()
        );
        assert_eq!(fs::read(&input).unwrap(), bytes, "-o {output:?}");
    }
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    // A directory of pages whose index would be an input is refused as well.
    let pages = dir.join("pages");
    fs::create_dir(&pages).unwrap();
    let index = pages.join("index.html");
    fs::write(&index, &bytes).unwrap();
    let run = exec(&["report", s(&input), s(&index), "-o", s(&pages)], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert_eq!(fs::read(&index).unwrap(), bytes);
}

#[test]
fn a_report_of_nothing_readable_writes_nothing_and_says_so() {
    let dir = scratch("report-missing");
    let page = dir.join("page.html");
    fs::write(&page, "<p>yesterday's page</p>").unwrap();
    let run = exec(
        &["report", s(&dir.join("missing.ndjson")), "-o", s(&page)],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(!run.stderr().contains("wrote"), "{}", run.describe());
    assert!(
        run.stderr().contains("nothing written"),
        "{}",
        run.describe()
    );
    assert_eq!(
        fs::read_to_string(&page).unwrap(),
        "<p>yesterday's page</p>"
    );
}

#[test]
fn a_report_page_replaces_a_link_at_its_name_instead_of_writing_through_it() {
    let dir = scratch("report-link");
    let (input, _) = transcript(&dir);
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    let page = dir.join("page.html");
    std::os::unix::fs::symlink(&victim, &page).unwrap();
    let run = exec(&["report", s(&input), "-o", s(&page)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(fs::read_to_string(&page).unwrap().contains("<html"));
    // Nothing temporary is left beside it.
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["page.html", "run.ndjson", "victim.txt"]);
}

/// `sjlint run` of an agent that prints the sample session and leaves a mark that it ran.
fn run_agent(dir: &Path, args: &[&str]) -> crate::common::Run {
    let mark = dir.join("agent-ran");
    let script = format!(
        "touch '{}'; cat '{}'",
        mark.display(),
        testdata("sample.ndjson").display()
    );
    let mut all = vec!["run", "--color", "never"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--", "sh", "-c", &script]);
    exec(&all, None)
}

#[test]
fn run_report_writes_its_page_only_and_never_through_a_planted_link() {
    let dir = scratch("run-report");
    let page = dir.join("page.html");
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    // The name a transcript kept for the page would have had, planted as a link to the victim.
    std::os::unix::fs::symlink(&victim, dir.join("page.html.stream.tmp")).unwrap();
    let run = run_agent(&dir, &["--report", s(&page)]);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(fs::read_to_string(&page).unwrap().contains("<html"));
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "agent-ran",
            "page.html",
            "page.html.stream.tmp",
            "victim.txt"
        ],
        "nothing but the page is written"
    );
}

#[test]
fn run_refuses_output_paths_before_the_agent_starts() {
    let dir = scratch("run-outputs");
    let save = dir.join("run.ndjson");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--summary".into(),
                s(&dir.join("missing/summary.json")).into(),
            ],
            "--summary",
        ),
        (
            vec!["--report".into(), s(&dir.join("missing/page.html")).into()],
            "--report",
        ),
        (
            vec![
                "--save".into(),
                s(&save).into(),
                "--report".into(),
                s(&save).into(),
            ],
            "names the same file as --save",
        ),
        (
            vec![
                "--save".into(),
                s(&save).into(),
                "--summary".into(),
                s(&dir.join(".").join("run.ndjson")).into(),
            ],
            "names the same file as --save",
        ),
        (vec!["--summary".into(), s(&dir).into()], "is a directory"),
    ];
    for (args, said) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = run_agent(&dir, &args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.describe());
        assert!(run.stderr().contains(said), "{args:?}: {}", run.describe());
        assert!(
            !dir.join("agent-ran").exists(),
            "{args:?}: the agent was started"
        );
    }
}

/// Where each agent's fixture first reports what it spent: the record a budget of 1 token (or
/// of a millionth of a dollar, for the agents that report cost as they go) is passed on. The
/// lines are the fixtures' own: the first assistant line with `usage` (Claude Code, Qwen Code,
/// Amp), `assistant.usage` (Copilot CLI), the first assistant `message_end` (Pi),
/// `step_finish` (OpenCode), `usage` (Grok Build), and the terminal record of the agents that
/// report spend only there (Codex, Gemini CLI, droid).
const FIRST_SPEND: [(&str, &str, u64, bool); 10] = [
    // Claude Code says its cost in its result only: its first request is priced by the list,
    // by the model its message names.
    ("claude", "agents/claude/tool-run.ndjson", 2, true),
    ("qwen", "agents/qwen/tool-run.ndjson", 2, false),
    ("amp", "agents/amp/tool-run.ndjson", 3, false),
    ("copilot", "agents/copilot/usage.ndjson", 8, false),
    ("pi", "agents/pi/tool-run.ndjson", 14, true),
    ("opencode", "agents/opencode/tool-run.ndjson", 5, true),
    ("grok", "agents/grok/tool-run.ndjson", 8, false),
    ("codex", "agents/codex/tool-run.ndjson", 6, false),
    ("gemini", "agents/gemini/tool-run.ndjson", 14, false),
    // droid reports no cost; its session names a model the list prices.
    ("droid", "agents/droid/tool-run.ndjson", 10, true),
];

/// `sjlint run` with `budget` of an agent that writes the first `lines` lines of `fixture`,
/// then `after` (a shell command): the exit code and the summary.
fn run_budget(
    dir: &Path,
    fixture: &str,
    lines: u64,
    after: &str,
    budget: &[&str],
) -> (crate::common::Run, serde_json::Value) {
    let summary = dir.join(format!("summary-{}.json", unique()));
    let script = format!("head -n {lines} '{}'; {after}", testdata(fixture).display());
    let mut args = vec!["run", "--color", "never", "--summary", s(&summary)];
    args.extend_from_slice(budget);
    args.extend_from_slice(&["--", "sh", "-c", &script]);
    let run = exec(&args, None);
    let json = fs::read(&summary)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    (run, json)
}

/// A number no other call in this process gets.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn a_budget_acts_on_the_record_that_passes_it_whatever_the_agent_does_next() {
    let dir = scratch("budgets");
    let mut cases = Vec::new();
    for (agent, fixture, line, cost) in FIRST_SPEND {
        cases.push((agent, fixture, line, ["--max-tokens", "1"], "tokens"));
        if cost {
            cases.push((agent, fixture, line, ["--max-cost", "0.000001"], "cost"));
        }
    }
    // The agent exits right after the record (10 tries each: the verdict may not depend on
    // which of sjlint's threads hears of it first), or hangs after it.
    let mut runs = Vec::new();
    for &(agent, fixture, line, budget, kind) in &cases {
        for _ in 0..10 {
            runs.push((agent, fixture, line, budget, kind, "exit 0"));
        }
        runs.push((agent, fixture, line, budget, kind, "exec sleep 60"));
    }
    let queue = std::sync::Mutex::new(runs);
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                loop {
                    let Some((agent, fixture, line, budget, kind, after)) =
                        queue.lock().unwrap().pop()
                    else {
                        return;
                    };
                    let started = std::time::Instant::now();
                    let (run, summary) = run_budget(&dir, fixture, line, after, &budget);
                    let context = format!("{agent} {budget:?}, then `{after}`: {}", run.describe());
                    assert_eq!(run.code, 4, "{context}");
                    assert_eq!(summary["ended"], "over-budget", "{context}\n{summary}");
                    assert_eq!(summary["budget"]["kind"], kind, "{context}\n{summary}");
                    assert_eq!(summary["budget"]["line"], line, "{context}\n{summary}");
                    // A hang after the record is ended by the budget, not waited out.
                    assert!(
                        started.elapsed() < std::time::Duration::from_secs(30),
                        "{context}"
                    );
                }
            });
        }
    });
}

#[test]
fn a_repeated_key_is_a_duplicate_key_for_every_agent() {
    let mut fixtures = vec![
        "sample.ndjson".to_owned(),
        "agents/common/gemini-tool-run.ndjson".to_owned(),
    ];
    for agent in [
        "claude", "codex", "gemini", "grok", "copilot", "opencode", "pi", "droid", "kimi", "qwen",
        "amp",
    ] {
        fixtures.push(format!("agents/{agent}/tool-run.ndjson"));
    }
    for fixture in fixtures {
        let text = fs::read_to_string(testdata(&fixture)).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        // The first key and its string value, written twice: `{"type":"x","type":"x",…`.
        let key_end = first[2..].find('"').unwrap() + 2;
        let key = &first[2..key_end];
        let value_end = first[key_end + 3..].find('"').unwrap() + key_end + 4;
        let pair = &first[1..value_end];
        let doubled = format!("{{{pair},{}\n{rest}", &first[1..]);
        let run = exec(
            &["check", "--format", "json", "-"],
            Some(doubled.as_bytes()),
        );
        let found: Vec<_> = run
            .findings()
            .into_iter()
            .filter(|f| f.rule == "duplicate-key")
            .collect();
        assert_eq!(found.len(), 1, "{fixture}: {}", run.describe());
        assert_eq!(found[0].line, 1, "{fixture}: {}", run.describe());
        assert!(
            found[0].message.contains(&format!("{key:?}")),
            "{fixture}: {}",
            run.describe()
        );
        // The untouched fixture has none.
        let clean = exec(&["check", "--format", "json", "-"], Some(text.as_bytes()));
        assert!(
            clean.findings().iter().all(|f| f.rule != "duplicate-key"),
            "{fixture}: {}",
            clean.describe()
        );
    }
}

#[test]
fn check_never_writes_its_findings_over_an_input() {
    let dir = scratch("check-output");
    let (input, bytes) = transcript(&dir);
    let link = dir.join("findings.txt");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    for output in [&input, &link] {
        let run = exec(&["check", s(&input), "--output-file", s(output)], None);
        assert_eq!(run.code, 2, "{}", run.describe());
        assert!(run.stderr().contains("is the input"), "{}", run.describe());
        assert_eq!(fs::read(&input).unwrap(), bytes);
    }
}

#[test]
fn a_cost_budget_on_an_agent_that_reports_no_cost_says_so() {
    let dir = scratch("no-cost");
    // Codex names no model; this Gemini run names one the bundled list does not price; droid
    // names one it does; Claude Code reports its cost.
    for (fixture, cannot, priced) in [
        ("agents/codex/tool-run.ndjson", true, false),
        ("agents/gemini/tool-run.ndjson", true, false),
        ("agents/droid/tool-run.ndjson", false, true),
        ("agents/claude/tool-run.ndjson", false, false),
    ] {
        let (run, _) = run_budget(&dir, fixture, 1000, "exit 0", &["--max-cost", "5"]);
        let stderr = run.stderr();
        assert_eq!(
            stderr.contains("--max-cost 5 cannot act"),
            cannot,
            "{fixture}: {}",
            run.describe()
        );
        assert_eq!(
            stderr.contains("its tokens are priced by the bundled list"),
            priced,
            "{fixture}: {}",
            run.describe()
        );
    }
}
