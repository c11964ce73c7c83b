//! `sjlint usage`, the ledger, through the real binary: its rows are the tokens of the common
//! form (so every agent's fixture counts in `usage` what `stats` counts), grouped by day in the
//! time zone asked for, by week, month, session, project, model and agent, within
//! `--since`/`--until`; priced from the bundled list (the whole of a long request at the
//! long-context rates), from `--prices`, or by the agent's own figure; a model without a price
//! is named once and never priced as zero; with no path, the agents' homes are read.

use crate::common::{Scratch, corpus_dir, exec, manifest_dir, run_cmd, sjlint, testdata};
use crate::session_logs::{codex_tokens, derived_tokens};
use serde_json::Value;
use std::path::Path;

/// `sjlint usage ARGS… --format json`, in UTC unless ARGS name a zone; the document.
fn ledger(args: &[&str]) -> Value {
    let mut all = vec!["usage", "--no-cache", "--format", "json"];
    if !args.contains(&"--timezone") {
        all.extend(["--timezone", "UTC"]);
    }
    all.extend_from_slice(args);
    let run = exec(&all, None);
    assert_eq!(run.code, 0, "sjlint {all:?}\n{}", run.describe());
    serde_json::from_slice(&run.stdout).unwrap()
}

/// A row's (or the totals') input, output, cache read, cache write and reasoning tokens.
fn tokens_of(row: &Value) -> [u64; 5] {
    [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
    ]
    .map(|k| row[k].as_u64().unwrap_or_else(|| panic!("{k} in {row}")))
}

/// The bundled price list, as the test reads it: per token of each kind of `model`, the base
/// and the long-context rates.
fn rates(model: &str) -> ([f64; 4], [f64; 4]) {
    let path = manifest_dir().join("crates/sjlint-outputs/src/usage/prices.json");
    let list: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let e = &list[model];
    let f = |k: &str| e[k].as_f64().unwrap_or_else(|| panic!("{k} of {model}"));
    let base = [
        f("input_cost_per_token"),
        f("output_cost_per_token"),
        f("cache_read_input_token_cost"),
        f("cache_creation_input_token_cost"),
    ];
    let long = [
        f("input_cost_per_token_above_200k_tokens"),
        f("output_cost_per_token_above_200k_tokens"),
        f("cache_read_input_token_cost_above_200k_tokens"),
        f("cache_creation_input_token_cost_above_200k_tokens"),
    ];
    (base, long)
}

fn cost(t: [u64; 4], r: [f64; 4]) -> f64 {
    t.iter().zip(r).map(|(n, r)| *n as f64 * r).sum()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn every_fixture_counts_in_usage_what_stats_counts() {
    let mut files = Vec::new();
    crate::common::files_under(&testdata("agents"), &mut files);
    let files: Vec<String> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ndjson" || e == "jsonl"))
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    assert!(files.len() > 50, "{} fixtures", files.len());
    for file in &files {
        let want = tokens_of(&crate::common::agent::stats_of(&[file], None)["usage"]);
        let doc = ledger(&[file.as_str()]);
        assert_eq!(tokens_of(&doc["totals"]), want, "{file}: {doc}");
        let rows: u64 = doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["total_tokens"].as_u64().unwrap())
            .sum();
        assert_eq!(
            rows,
            doc["totals"]["total_tokens"].as_u64().unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_claude_log_counts_each_response_once_and_prices_it_from_the_list() {
    let Some(corpus) = corpus_dir() else { return };
    let file = corpus.join(
        "logs/claude/d-kimuson__claude-code-viewer__mock-global-claude-dir__projects__sample-project__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let (once, naive) = derived_tokens(&text);
    assert_ne!(once, naive, "the sample repeats usage");
    let doc = ledger(&["--by", "model", "--by", "session", file.to_str().unwrap()]);
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{doc}");
    let row = &rows[0];
    assert_eq!(tokens_of(row), once);
    assert_eq!(row["model"], "claude-sonnet-4-20250514");
    assert_eq!(row["session"], "5c0375b4-57a5-4f26-b12d-d022ee4e51b7");
    assert_eq!(row["sessions"], 1);
    // No request of the sample is past 200,000 tokens of input: base rates throughout.
    let (base, _) = rates("claude-sonnet-4-20250514");
    let want = cost([once[0], once[1], once[2], once[3]], base);
    let got = row["cost_usd"].as_f64().unwrap();
    assert!(close(got, want), "{got} against {want}");
    assert_eq!(doc["totals"]["cost_usd"], row["cost_usd"]);
}

#[test]
fn a_codex_rollout_counts_its_running_totals_once() {
    let Some(corpus) = corpus_dir() else { return };
    let file =
        corpus.join("logs/codex/jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__codex__small.jsonl");
    let want = codex_tokens(&std::fs::read_to_string(&file).unwrap());
    let doc = ledger(&["--by", "agent", file.to_str().unwrap()]);
    assert_eq!(tokens_of(&doc["totals"]), want, "{doc}");
    assert_eq!(doc["rows"][0]["agent"], "codex");
}

#[test]
fn days_are_counted_in_the_time_zone_asked_for() {
    let file = testdata("usage/midnight.jsonl");
    let file = file.to_str().unwrap();
    // 23:30 and 00:30 UTC: two days in UTC, one in Tokyo (UTC+9), one in New York (UTC-5).
    let days = |zone: &str| -> Vec<(String, u64)> {
        ledger(&["--timezone", zone, file])["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["day"].as_str().unwrap().to_owned(),
                    r["total_tokens"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    // The second response is written twice, its output growing: counted once, at 90.
    assert_eq!(
        days("UTC"),
        [("2026-03-01".into(), 1530), ("2026-03-02".into(), 2097)]
    );
    assert_eq!(days("Asia/Tokyo"), [("2026-03-02".into(), 3627)]);
    assert_eq!(days("America/New_York"), [("2026-03-01".into(), 3627)]);
    let run = exec(
        &["usage", "--no-cache", "--timezone", "Mars/Olympus", file],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().contains("--timezone Mars/Olympus"),
        "{}",
        run.describe()
    );
}

#[test]
fn weeks_months_and_the_dates_asked_for() {
    let dir = testdata("usage");
    let dir = dir.to_str().unwrap();
    let keys = |args: &[&str], key: &str| -> Vec<String> {
        let mut all = args.to_vec();
        all.push(dir);
        ledger(&all)["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[key].as_str().unwrap().to_owned())
            .collect()
    };
    // 2026-03-01 is a Sunday: its ISO week began on Monday 2026-02-23.
    assert_eq!(
        keys(&["--by", "week"], "week"),
        ["2026-02-23", "2026-03-02"]
    );
    assert_eq!(keys(&["--by", "month"], "month"), ["2026-03"]);
    assert_eq!(
        keys(&["--since", "2026-03-02", "--until", "2026-03-05"], "day"),
        ["2026-03-02", "2026-03-05"]
    );
    let run = exec(
        &[
            "usage",
            "--no-cache",
            "--since",
            "2026-03-09",
            "--until",
            "2026-03-01",
            dir,
        ],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    let run = exec(&["usage", "--no-cache", "--since", "March", dir], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stderr().contains("not a date"), "{}", run.describe());
}

#[test]
fn a_long_request_is_priced_whole_at_the_long_context_rates() {
    let file = testdata("usage/long-context.jsonl");
    let doc = ledger(&[file.to_str().unwrap()]);
    let (base, long) = rates("claude-sonnet-4-20250514");
    // 10,000 + 150,000 + 50,000 tokens of input: past 200,000, every token of the request at
    // the long rates; the next request (1,000) at the base ones.
    let want = cost([10_000, 400, 150_000, 50_000], long) + cost([1_000, 100, 0, 0], base);
    let got = doc["totals"]["cost_usd"].as_f64().unwrap();
    assert!(close(got, want), "{got} against {want}");
    // Repricing only the part past 200,000 would say less.
    assert!(got > cost([11_000, 500, 150_000, 50_000], base) + 0.1);
}

#[test]
fn a_model_without_a_price_is_named_once_and_its_row_has_no_cost() {
    let unknown = testdata("usage/unknown-model.jsonl");
    let run = exec(
        &[
            "usage",
            "--no-cache",
            "--timezone",
            "UTC",
            "--by",
            "model",
            unknown.to_str().unwrap(),
            unknown.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let notes: Vec<&str> = run
        .stderr
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| std::str::from_utf8(l).unwrap())
        .collect();
    assert_eq!(
        notes,
        [
            "sjlint: note: no price for `acme-coder-9\\u{1b}[31m`: its 22 tokens are counted without a cost"
        ],
        "{}",
        run.describe()
    );
    // The table escapes the name and marks the total.
    let out = run.stdout();
    assert!(!out.contains('\x1b'), "{out}");
    assert!(out.contains("acme-coder-9\\u{1b}[31m"), "{out}");
    let doc = ledger(&["--by", "model", unknown.to_str().unwrap()]);
    assert_eq!(doc["rows"][0]["cost_usd"], Value::Null, "{doc}");
    assert_eq!(
        doc["rows"][0]["unpriced_models"][0],
        "acme-coder-9\u{1b}[31m"
    );
    // A list that has it prices it.
    let scratch = Scratch::new("usage-prices");
    let list = scratch.join("prices.json");
    std::fs::write(
        &list,
        r#"{"acme-coder-9\u001b[31m": {"input_cost_per_token": 0.5, "output_cost_per_token": 2}}"#,
    )
    .unwrap();
    let doc = ledger(&[
        "--prices",
        list.to_str().unwrap(),
        unknown.to_str().unwrap(),
    ]);
    assert_eq!(
        doc["totals"]["cost_usd"].as_f64(),
        Some(5.0 * 0.5 + 6.0 * 2.0)
    );
    assert_eq!(doc["totals"]["unpriced_models"], serde_json::json!([]));
    std::fs::write(&list, "[1, 2]").unwrap();
    let run = exec(
        &[
            "usage",
            "--no-cache",
            "--prices",
            list.to_str().unwrap(),
            unknown.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().contains("not a price list"),
        "{}",
        run.describe()
    );
}

#[test]
fn the_agents_own_cost_is_the_sessions_cost() {
    // Claude Code's stream says what each session cost (`total_cost_usd`).
    let file = testdata("agents/claude/tool-run.ndjson");
    let text = std::fs::read_to_string(&file).unwrap();
    let own: f64 = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "result")
        .map(|r| r["total_cost_usd"].as_f64().unwrap())
        .sum();
    let run = exec(
        &[
            "usage",
            "--no-cache",
            "--format",
            "json",
            file.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert!(
        close(doc["totals"]["cost_usd"].as_f64().unwrap(), own),
        "{doc}"
    );
    // It differs from the list's by more than 1 %: said, once for the file.
    assert!(
        run.stderr().contains("the agent's own figure is counted"),
        "{}",
        run.describe()
    );
}

#[test]
fn csv_and_the_table_hold_the_same_rows() {
    let dir = testdata("usage");
    let dir = dir.to_str().unwrap();
    let run = exec(
        &[
            "usage",
            "--no-cache",
            "--timezone",
            "UTC",
            "--by",
            "project",
            "--format",
            "csv",
            dir,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some(
            "project,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,total_tokens,cost_usd,sessions,models,unpriced_models"
        )
    );
    // A path with a comma is quoted.
    assert!(
        out.contains("\"/home/ana/shop, backend\",17,110,3000,500,0,3627,"),
        "{out}"
    );
    assert_eq!(lines.count(), 3, "{out}");
    let run = exec(
        &[
            "usage",
            "--no-cache",
            "--timezone",
            "UTC",
            "--by",
            "project",
            dir,
        ],
        None,
    );
    let table = run.stdout();
    let total = table.lines().find(|l| l.starts_with("Total")).unwrap();
    assert!(total.contains("215,138"), "{table}");
    assert!(table.contains("/home/ana/shop, backend"), "{table}");
}

#[test]
fn with_no_path_the_agents_homes_are_read() {
    let home = Scratch::new("usage-home");
    let project = home.join(".claude/projects/-home-ana-shop");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        testdata("usage/midnight.jsonl"),
        project.join("2b7c9d10.jsonl"),
    )
    .unwrap();
    let rollouts = home.join(".codex/sessions/2026/03/02");
    std::fs::create_dir_all(&rollouts).unwrap();
    std::fs::copy(
        testdata("agents/codex-log/tool-run.jsonl"),
        rollouts.join("rollout-2026-03-02T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"),
    )
    .unwrap();
    let usage = |home: &Path| {
        let mut cmd = sjlint();
        for var in [
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "COPILOT_HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "GEMINI_CLI_HOME",
            "PI_CODING_AGENT_DIR",
            "KIMI_SHARE_DIR",
            "KIMI_CODE_HOME",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("HOME", home).args([
            "usage",
            "--no-cache",
            "--format",
            "json",
            "--timezone",
            "UTC",
            "--by",
            "agent",
        ]);
        run_cmd(cmd, None)
    };
    let run = usage(&home);
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    let agents: Vec<&str> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["claude", "codex"], "{doc}");
    let empty = Scratch::new("usage-no-home");
    let run = usage(&empty);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("no session logs in the agents' homes"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_second_run_takes_unchanged_files_from_the_cache_and_reads_changed_ones() {
    let dir = Scratch::new("usage-cache");
    let log = dir.join("midnight.jsonl");
    let text = std::fs::read_to_string(testdata("usage/midnight.jsonl")).unwrap();
    std::fs::write(&log, &text).unwrap();
    let cache = dir.join("cache");
    let total = |extra: &[&str]| -> u64 {
        let mut cmd = sjlint();
        cmd.env("XDG_CACHE_HOME", &cache)
            .args(["usage", "--format", "json", "--timezone", "UTC"])
            .args(extra)
            .arg(&log);
        let run = run_cmd(cmd, None);
        assert_eq!(run.code, 0, "{}", run.describe());
        let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
        doc["totals"]["output_tokens"].as_u64().unwrap()
    };
    assert_eq!(total(&[]), 110);
    assert!(cache.join("sjlint/usage.json").is_file());
    // The same bytes' length, another count (20 → 29), and the time it had: the cache is
    // trusted, so the file is not read again.
    let changed = text.replacen("\"output_tokens\":20,", "\"output_tokens\":29,", 1);
    assert_ne!(changed, text);
    let modified = std::fs::metadata(&log).unwrap().modified().unwrap();
    std::fs::write(&log, &changed).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&log)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(total(&[]), 110, "read from the cache");
    assert_eq!(total(&["--no-cache"]), 119, "read anew");
    // Another time of change: read anew, and kept.
    std::fs::File::options()
        .write(true)
        .open(&log)
        .unwrap()
        .set_modified(modified + std::time::Duration::from_secs(1))
        .unwrap();
    assert_eq!(total(&[]), 119);
    // Rows counted in another zone are not those of this one.
    let run = {
        let mut cmd = sjlint();
        cmd.env("XDG_CACHE_HOME", &cache)
            .args(["usage", "--format", "json", "--timezone", "Asia/Tokyo"])
            .arg(&log);
        run_cmd(cmd, None)
    };
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["rows"].as_array().unwrap().len(), 1, "{doc}");
}
