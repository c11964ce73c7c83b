//! `sjlint ci` as a GitHub Actions step runs it: with `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`
//! and `GITHUB_ACTIONS` set to what the runner sets, on healthy, failed, denied and over-budget
//! runs, a stream and claude-code-action's execution file, a Codex rollout priced from the list.
//! Every number is checked against what `sjlint stats` and `sjlint usage` say of the same file.

use crate::common::{run_cmd, sjlint, testdata};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The files a runner gives a step, made in a folder of the test's own.
struct Runner {
    dir: PathBuf,
}

impl Runner {
    fn new(name: &str) -> Runner {
        let dir = std::env::temp_dir().join(format!("sjlint-ci-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Earlier steps wrote into both files: `ci` appends, and never truncates.
        std::fs::write(dir.join("summary.md"), "earlier step\n").unwrap();
        std::fs::write(dir.join("output"), "earlier=1\n").unwrap();
        Runner { dir }
    }

    /// `sjlint ci ARGS` as the runner starts it; exit code and stdout.
    fn ci(&self, args: &[&str]) -> (i32, String) {
        let mut cmd = sjlint();
        cmd.arg("ci")
            .args(args)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", self.dir.join("summary.md"))
            .env("GITHUB_OUTPUT", self.dir.join("output"));
        let run = run_cmd(cmd, None);
        assert!(
            matches!(run.code, 0..=2),
            "sjlint ci did not end as a command: {}",
            run.describe()
        );
        (run.code, run.stdout())
    }

    /// What claude-code-action writes of `stream`: its events as one pretty-printed array, in
    /// a file of the runner's folder; its path and text.
    fn execution_file(&self, stream: &Path) -> (PathBuf, String) {
        let events: Vec<Value> = std::fs::read_to_string(stream)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let path = self.dir.join("claude-execution-output.json");
        let text = serde_json::to_string_pretty(&events).unwrap();
        std::fs::write(&path, &text).unwrap();
        (path, text)
    }

    fn summary(&self) -> String {
        let text = std::fs::read_to_string(self.dir.join("summary.md")).unwrap();
        assert!(text.starts_with("earlier step\n"), "truncated: {text}");
        text
    }

    /// The outputs `ci` appended, as the runner reads them.
    fn outputs(&self) -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(self.dir.join("output")).unwrap();
        assert!(text.starts_with("earlier=1\n"), "truncated: {text}");
        parse_outputs(&text)
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// GitHub's syntax: `key=value`, or `key<<DELIM` … `DELIM`.
fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((key, delim)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delim).collect();
            out.insert(key.to_owned(), value.join("\n"));
        } else if let Some((key, value)) = line.split_once('=') {
            out.insert(key.to_owned(), value.to_owned());
        }
    }
    out
}

/// `sjlint stats --format json` of one file: its entry.
fn stats(path: &Path) -> Value {
    let mut cmd = sjlint();
    cmd.args(["stats", "--format", "json"]).arg(path);
    let run = run_cmd(cmd, None);
    let all: Value =
        serde_json::from_slice(&run.stdout).unwrap_or_else(|_| panic!("{}", run.describe()));
    all["files"][0].clone()
}

fn claude(name: &str) -> PathBuf {
    testdata(&format!("agents/claude/{name}"))
}

/// The outputs hold what `stats` counts of the same file.
fn assert_outputs_match_stats(outputs: &BTreeMap<String, String>, stats: &Value) {
    for (output, field) in [
        ("input_tokens", "input_tokens"),
        ("output_tokens", "output_tokens"),
        ("cache_read_tokens", "cache_read_tokens"),
        ("cache_write_tokens", "cache_write_tokens"),
    ] {
        assert_eq!(
            outputs[output],
            stats["usage"][field].to_string(),
            "{output}: {outputs:?}"
        );
    }
    let calls: u64 = stats["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["count"].as_u64().unwrap())
        .sum();
    assert_eq!(outputs["tool_calls"], calls.to_string());
    assert_eq!(outputs["errors"], stats["findings"]["error"].to_string());
    assert_eq!(
        outputs["warnings"],
        stats["findings"]["warning"].to_string()
    );
    let cost: f64 = outputs["cost_usd"].parse().unwrap();
    assert!((cost - stats["cost_usd"].as_f64().unwrap()).abs() < 1e-6);
}

#[test]
fn a_healthy_run_passes_and_says_what_it_spent() {
    let runner = Runner::new("healthy");
    let file = claude("tool-run.ndjson");
    let (code, stdout) = runner.ci(&["--max-cost", "1", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}\n{}", runner.summary());
    let outputs = runner.outputs();
    let stats = stats(&file);
    assert_outputs_match_stats(&outputs, &stats);
    assert_eq!(outputs["outcome"], "completed");
    assert_eq!(outputs["passed"], "true");
    assert_eq!(outputs["report"], "");
    let summary = runner.summary();
    assert!(summary.contains("✅ completed"), "{summary}");
    assert!(summary.contains("cost $0.0042 ≤ $1.00"), "{summary}");
    // No finding: no annotation.
    assert!(!stdout.contains("::error"), "{stdout}");
}

#[test]
fn a_failed_run_fails_the_step_with_its_reason() {
    let runner = Runner::new("failed");
    let file = claude("api-error-2.1.ndjson");
    let (code, _) = runner.ci(&[file.to_str().unwrap()]);
    assert_eq!(code, 1);
    let outputs = runner.outputs();
    assert_eq!(outputs["outcome"], "failed");
    assert_eq!(outputs["passed"], "false");
    assert_outputs_match_stats(&outputs, &stats(&file));
    let summary = runner.summary();
    assert!(summary.contains("❌ failed"), "{summary}");
    assert!(
        summary.contains("ended failed (--fail-on-outcome)"),
        "{summary}"
    );
    // The outcome gate can be turned off, or narrowed.
    let (code, _) = runner.ci(&["--fail-on-outcome", "none", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, _) = runner.ci(&[
        "--fail-on-outcome",
        "max_turns,denied",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
}

#[test]
fn denied_tools_are_named_in_the_summary() {
    let runner = Runner::new("denied");
    let file = claude("permission-denied.ndjson");
    let (code, _) = runner.ci(&[file.to_str().unwrap()]);
    assert_eq!(
        code, 1,
        "a run whose tools were denied does not pass by default"
    );
    assert_eq!(runner.outputs()["outcome"], "denied");
    let summary = runner.summary();
    let denials = summary
        .split("### Permission denials")
        .nth(1)
        .expect("a section of denials");
    // The tool the stream's refused call named.
    let stats = stats(&file);
    let refused: Vec<&str> = stats["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|k| k["names"].as_array().unwrap())
        .filter(|n| n["rejected"].as_u64().unwrap() > 0)
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert!(!refused.is_empty());
    for name in refused {
        assert!(denials.contains(&format!("- {name} (")), "{summary}");
    }
}

#[test]
fn budgets_fail_the_step_when_passed_and_hold_when_not() {
    let runner = Runner::new("budget");
    let file = claude("tool-run.ndjson");
    let path = file.to_str().unwrap();
    let stats = stats(&file);
    let cost = stats["cost_usd"].as_f64().unwrap();
    let tokens = stats["usage"]["input_tokens"].as_u64().unwrap()
        + stats["usage"]["output_tokens"].as_u64().unwrap();
    let below = format!("{:.4}", cost / 2.0);
    let (code, _) = runner.ci(&["--max-cost", &below, path]);
    assert_eq!(code, 1);
    assert!(
        runner.summary().contains("❌ cost $0.0042 > $0.0021"),
        "{}",
        runner.summary()
    );
    let (code, _) = runner.ci(&["--max-tokens", &(tokens - 1).to_string(), path]);
    assert_eq!(code, 1);
    let (code, _) = runner.ci(&["--max-tokens", &tokens.to_string(), path]);
    assert_eq!(code, 0);
    // Codex's stream reports neither a cost nor a model: a cost budget cannot hold blind.
    let codex = testdata("agents/codex-completed.ndjson");
    let (code, _) = runner.ci(&["--max-cost", "100", codex.to_str().unwrap()]);
    let summary = runner.summary();
    if stats_of_tokens(&codex) > 0 {
        assert_eq!(code, 1, "{summary}");
        assert!(summary.contains("cost unknown"), "{summary}");
    } else {
        assert_eq!(code, 0, "{summary}");
    }
}

fn stats_of_tokens(path: &Path) -> u64 {
    let s = stats(path);
    [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
    ]
    .iter()
    .map(|f| s["usage"][f].as_u64().unwrap())
    .sum()
}

#[test]
fn claude_code_actions_execution_file_counts_as_its_stream() {
    let runner = Runner::new("array");
    let stream = claude("terminal-reasons.ndjson");
    let (array, _) = runner.execution_file(&stream);
    let (_, _) = runner.ci(&["--fail-on-outcome", "none", array.to_str().unwrap()]);
    let from_array = runner.outputs();
    let again = Runner::new("array-stream");
    let (_, _) = again.ci(&["--fail-on-outcome", "none", stream.to_str().unwrap()]);
    let from_stream = again.outputs();
    for key in [
        "outcome",
        "cost_usd",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "tool_calls",
        "errors",
        "warnings",
    ] {
        assert_eq!(from_array[key], from_stream[key], "{key}");
    }
    assert_outputs_match_stats(&from_array, &stats(&stream));
}

#[test]
fn findings_become_annotations_on_the_files_lines() {
    let runner = Runner::new("annotations");
    let codex = testdata("agents/codex-session.ndjson");
    let (code, stdout) = runner.ci(&[codex.to_str().unwrap()]);
    assert_eq!(code, 1);
    // The same findings `check --format github` writes, one workflow command each.
    let mut cmd = sjlint();
    cmd.args(["check", "--format", "github"]).arg(&codex);
    let check = run_cmd(cmd, None).stdout();
    assert!(!check.is_empty());
    for line in check.lines().filter(|l| l.starts_with("::")) {
        assert!(stdout.contains(line), "{line} not in:\n{stdout}");
    }
    let outputs = runner.outputs();
    assert_ne!(outputs["errors"], "0");
    assert!(runner.summary().contains("### Findings"));
    // In an array, a finding names the line of the file its event starts on.
    let (array, pretty) = runner.execution_file(&codex);
    let (_, stdout) = runner.ci(&[array.to_str().unwrap()]);
    let annotated: Vec<u64> = stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .filter_map(|l| l.split(",line=").nth(1))
        .map(|rest| rest.split([',', ':']).next().unwrap().parse().unwrap())
        .collect();
    assert!(!annotated.is_empty(), "{stdout}");
    // Each element opens with `  {` on a line of its own.
    let starts: Vec<u64> = pretty
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "  {")
        .map(|(i, _)| i as u64 + 1)
        .collect();
    for line in annotated {
        assert!(
            starts.contains(&line),
            "line {line} starts no event: {starts:?}"
        );
    }
}

#[test]
fn a_rollout_without_a_cost_is_priced_from_the_list_as_usage_prices_it() {
    let runner = Runner::new("priced");
    let rollout = testdata("agents/codex-log/tool-run.jsonl");
    let (code, _) = runner.ci(&[rollout.to_str().unwrap()]);
    assert_eq!(
        code,
        0,
        "a session log says nothing of its outcome: {}",
        runner.summary()
    );
    let outputs = runner.outputs();
    assert_eq!(outputs["outcome"], "unknown");
    let mut cmd = sjlint();
    cmd.args([
        "usage",
        "--no-cache",
        "--by",
        "session",
        "--format",
        "json",
        "--timezone",
        "UTC",
    ])
    .arg(&rollout);
    let usage = run_cmd(cmd, None);
    let ledger: Value =
        serde_json::from_slice(&usage.stdout).unwrap_or_else(|_| panic!("{}", usage.describe()));
    let rows = ledger["rows"]
        .as_array()
        .or_else(|| ledger.as_array())
        .expect("rows");
    let priced: f64 = rows.iter().map(|r| r["cost_usd"].as_f64().unwrap()).sum();
    assert!(priced > 0.0);
    let cost: f64 = outputs["cost_usd"].parse().unwrap();
    assert!((cost - priced).abs() < 1e-6, "{cost} against {priced}");
    assert!(runner.summary().contains("priced from the list"));
}

#[test]
fn the_report_is_written_and_named_in_the_outputs() {
    let runner = Runner::new("report");
    let dir = runner.dir.join("pages");
    let file = claude("tool-run.ndjson");
    let (code, _) = runner.ci(&["--report", dir.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(code, 0);
    let page = PathBuf::from(&runner.outputs()["report"]);
    assert_eq!(page, dir.join("index.html"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<html"), "{html}");
    // The execution file's report is its stream's, not the one finding of an array.
    let (array, _) = runner.execution_file(&file);
    let dir = runner.dir.join("array-pages");
    let (code, _) = runner.ci(&["--report", dir.to_str().unwrap(), array.to_str().unwrap()]);
    assert_eq!(code, 0, "{}", runner.summary());
    let pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(pages.len(), 2, "index.html and the run's page");
    for html in pages {
        assert!(!html.contains("invalid-json"), "{html}");
    }
}

#[test]
fn input_text_cannot_write_markdown_into_the_summary() {
    let runner = Runner::new("escape");
    let stream = std::fs::read_to_string(claude("permission-denied.ndjson"))
        .unwrap()
        .replace("\"Write\"", "\"![x](https://evil.test/t.png)<img src=x>|\"");
    let file = runner.dir.join("hostile.ndjson");
    std::fs::write(&file, stream).unwrap();
    runner.ci(&[file.to_str().unwrap()]);
    let summary = runner.summary();
    assert!(
        summary.contains("evil.test"),
        "the name is shown: {summary}"
    );
    assert!(!summary.contains("![x]("), "{summary}");
    // Escaped, `<` is shown and opens no tag.
    assert!(!summary.replace("\\<", "").contains("<img"), "{summary}");
}

#[test]
fn outside_github_the_summary_is_printed_and_usage_errors_exit_2() {
    let file = claude("tool-run.ndjson");
    let mut cmd = sjlint();
    cmd.arg("ci").arg(&file);
    for var in ["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"] {
        cmd.env_remove(var);
    }
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout().starts_with("## sjlint: ✅ completed"),
        "{}",
        run.describe()
    );
    for args in [
        &["ci", "--fail-on-outcome", "fine", "x.ndjson"][..],
        &["ci", "--fail-on", "sometimes", "x.ndjson"],
        &["ci", "--max-cost", "-1", "x.ndjson"],
        &["ci", "--report", "out", "-"],
        &["ci", "no-such-file.ndjson"],
    ] {
        let mut cmd = sjlint();
        cmd.args(args);
        let run = run_cmd(cmd, Some(b""));
        assert_eq!(run.code, 2, "{args:?}: {}", run.describe());
        assert!(!run.stderr().is_empty(), "{args:?}");
    }
}

/// The lines of `action.yml`'s step `id: ci` script (its `run: |` block).
fn action_script(action: &str) -> String {
    let step = action
        .split("    - name: ")
        .find(|s| s.contains("\n      id: ci\n"))
        .expect("a step with id ci");
    let block = step.split("      run: |\n").nth(1).expect("a run block");
    block
        .lines()
        .take_while(|l| l.starts_with("        ") || l.is_empty())
        .map(|l| l.get(8..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names under `outputs:` in `action.yml`.
fn action_outputs(action: &str) -> Vec<String> {
    let section = action.split("\noutputs:\n").nth(1).expect("outputs");
    section
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':').to_owned())
        .collect()
}

#[test]
fn the_actions_script_runs_sjlint_ci_with_its_inputs_and_exposes_every_output() {
    let action = std::fs::read_to_string(crate::common::manifest_dir().join("action.yml")).unwrap();
    let runner = Runner::new("action");
    let script = runner.dir.join("step.sh");
    std::fs::write(&script, action_script(&action)).unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_sjlint"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let marker = runner.dir.join("pwned");
    let file = claude("tool-run.ndjson");
    let run = |paths: String, max_cost: &str| {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg(&script)
            .current_dir(crate::common::manifest_dir())
            .env("PATH", &path)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", runner.dir.join("summary.md"))
            .env("GITHUB_OUTPUT", runner.dir.join("output"))
            .env("SJLINT_PATHS", paths)
            .env("SJLINT_MAX_COST", max_cost)
            .env("SJLINT_MAX_TOKENS", "")
            .env("SJLINT_FAIL_ON", "error")
            .env("SJLINT_FAIL_ON_OUTCOME", "")
            .env("SJLINT_REPORT", runner.dir.join("report"))
            .env("SJLINT_REDACT", "true")
            .env("SJLINT_ARGS", "--max-findings\n5");
        run_cmd(cmd, None)
    };
    let done = run(format!("{}\n", file.display()), "1");
    assert_eq!(done.code, 0, "{}", done.describe());
    let outputs = runner.outputs();
    let written: Vec<&String> = outputs.keys().filter(|k| *k != "earlier").collect();
    let declared = action_outputs(&action);
    assert_eq!(
        written
            .iter()
            .map(|s| s.as_str())
            .collect::<std::collections::BTreeSet<_>>(),
        declared.iter().map(String::as_str).collect(),
        "action.yml's outputs are what `sjlint ci` writes"
    );
    assert!(outputs["report"].ends_with("index.html"));
    let over = run(format!("{}\n", file.display()), "0.001");
    assert_eq!(over.code, 1, "{}", over.describe());
    // A path is data, not a command.
    let hostile = run(
        format!("$(touch {})\n{}", marker.display(), file.display()),
        "",
    );
    assert_eq!(hostile.code, 2, "{}", hostile.describe());
    assert!(!marker.exists(), "an input ran a command");
}

#[test]
fn credentials_are_redacted_from_everything_ci_writes_unless_asked_not_to() {
    let runner = Runner::new("redact");
    let samples: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(testdata("redact/credentials.json")).unwrap(),
    )
    .unwrap();
    let key = samples[0]["secret"].as_str().unwrap();
    // A tool named with a key shows in the summary; the run's texts in the report.
    let stream = std::fs::read_to_string(claude("permission-denied.ndjson"))
        .unwrap()
        .replace("\"Write\"", &format!("\"Write {key}\""))
        .replace("config/port.toml", &format!("config/port.toml with {key}"));
    let file = runner.dir.join("leaky.ndjson");
    std::fs::write(&file, stream).unwrap();
    let pages = runner.dir.join("pages");
    let (_, stdout) = runner.ci(&["--report", pages.to_str().unwrap(), file.to_str().unwrap()]);
    let summary = runner.summary();
    // Escaped for Markdown, as every text of the input is.
    assert!(
        summary.contains(r"Write \[REDACTED:aws-access-key-id\]"),
        "{summary}"
    );
    assert!(
        summary.contains("Redacted in what sjlint wrote: aws-access-key-id × "),
        "{summary}"
    );
    assert_ne!(runner.outputs()["redacted"], "0");
    let mut written = vec![summary, stdout];
    for page in std::fs::read_dir(&pages).unwrap() {
        written.push(std::fs::read_to_string(page.unwrap().path()).unwrap());
    }
    for text in &written {
        assert!(!text.contains(key), "the key is in:\n{text}");
    }
    // Asked not to, the summary copies the name as it is.
    let plain = Runner::new("no-redact");
    plain.ci(&["--no-redact", file.to_str().unwrap()]);
    assert!(plain.summary().contains(key));
    assert_eq!(plain.outputs()["redacted"], "0");
}
