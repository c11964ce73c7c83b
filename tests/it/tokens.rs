//! One meaning per token count: every agent's fixtures through `stats --format json`, with the
//! totals derived here from the records themselves by the rules `docs/common-form.md` writes
//! down (input not read from a cache, each reported count once, reasoning a part of the output),
//! not copied from sjlint.

use crate::common::{exec, testdata};
use serde_json::Value;
use std::collections::HashMap;

/// Input, output, cache read, cache write, reasoning (a part of output).
type Counts = [u64; 5];

fn n(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn add(a: &mut Counts, b: Counts) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

fn records(fixture: &str) -> Vec<Value> {
    std::fs::read_to_string(testdata(fixture))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Claude Code's family: a message counts once (its largest copy); the result's usage is the
/// main thread's, so a subagent's messages add to it; Amp's lines have no id and each counts.
fn claude_family(recs: &[Value]) -> Counts {
    let mut total = [0; 5];
    let mut messages: HashMap<String, (Counts, bool)> = HashMap::new();
    let mut anonymous = [0; 5];
    for r in recs {
        let counts = |u: &Value| {
            [
                n(u, "input_tokens"),
                n(u, "output_tokens"),
                n(u, "cache_read_input_tokens"),
                n(u, "cache_creation_input_tokens"),
                n(&u["output_tokens_details"], "thinking_tokens"),
            ]
        };
        match r["type"].as_str() {
            Some("assistant") => {
                let Some(u) = r["message"].get("usage") else {
                    continue;
                };
                let main = r["parent_tool_use_id"].is_null();
                match r["message"]["id"].as_str() {
                    Some(id) => {
                        let e = messages.entry(id.into()).or_insert(([0; 5], main));
                        for (x, y) in e.0.iter_mut().zip(counts(u)) {
                            *x = (*x).max(y);
                        }
                    }
                    None => add(&mut anonymous, counts(u)),
                }
            }
            Some("result") => {
                let mut main = [0; 5];
                let mut sub = anonymous;
                for (c, is_main) in messages.values() {
                    add(if *is_main { &mut main } else { &mut sub }, *c);
                }
                if let Some(u) = r.get("usage").filter(|u| u.is_object()) {
                    let reported = counts(u);
                    for i in 0..5 {
                        main[i] = main[i].max(reported[i]);
                    }
                }
                add(&mut total, main);
                add(&mut total, sub);
                messages.clear();
                anonymous = [0; 5];
            }
            _ => {}
        }
    }
    total
}

/// What the fixture of `agent` spent, by that agent's own fields.
#[expect(
    clippy::too_many_lines,
    reason = "one short arm per agent, each its own fields"
)]
fn derived(agent: &str, recs: &[Value]) -> Counts {
    let mut total = [0; 5];
    match agent {
        "claude" | "qwen" | "amp" => return claude_family(recs),
        "codex" => {
            // The thread's running total: its last.
            if let Some(u) = recs
                .iter()
                .rev()
                .find(|r| r["type"] == "turn.completed")
                .map(|r| &r["usage"])
            {
                // The whole input: what was read from and written to a cache is counted apart.
                total = [
                    n(u, "input_tokens")
                        - n(u, "cached_input_tokens")
                        - n(u, "cache_write_input_tokens"),
                    n(u, "output_tokens"),
                    n(u, "cached_input_tokens"),
                    n(u, "cache_write_input_tokens"),
                    n(u, "reasoning_output_tokens"),
                ];
            }
        }
        "gemini" => {
            for r in recs.iter().filter(|r| r["type"] == "result") {
                let s = &r["stats"];
                add(
                    &mut total,
                    [
                        n(s, "input_tokens") - n(s, "cached"),
                        n(s, "output_tokens"),
                        n(s, "cached"),
                        0,
                        0,
                    ],
                );
            }
        }
        "copilot" => {
            // Each call's `assistant.usage` (input holds the cache reads and writes); the
            // shutdown's totals add what they have beyond the calls; without any call's usage,
            // the messages' own output tokens add what is beyond both.
            let beyond = |total: &mut Counts, t: Counts| {
                for i in 0..5 {
                    total[i] = total[i].max(t[i]);
                }
            };
            for r in recs.iter().filter(|r| r["type"] == "assistant.usage") {
                let d = &r["data"];
                add(
                    &mut total,
                    [
                        n(d, "inputTokens") - n(d, "cacheReadTokens") - n(d, "cacheWriteTokens"),
                        n(d, "outputTokens"),
                        n(d, "cacheReadTokens"),
                        n(d, "cacheWriteTokens"),
                        n(d, "reasoningTokens"),
                    ],
                );
            }
            for r in recs.iter().filter(|r| r["type"] == "session.shutdown") {
                let mut t = [0; 5];
                for m in r["data"]["modelMetrics"].as_object().unwrap().values() {
                    let u = &m["usage"];
                    add(
                        &mut t,
                        [
                            n(u, "inputTokens")
                                - n(u, "cacheReadTokens")
                                - n(u, "cacheWriteTokens"),
                            n(u, "outputTokens"),
                            n(u, "cacheReadTokens"),
                            n(u, "cacheWriteTokens"),
                            n(u, "reasoningTokens"),
                        ],
                    );
                }
                beyond(&mut total, t);
            }
            if !recs.iter().any(|r| r["type"] == "assistant.usage") {
                let output = recs
                    .iter()
                    .filter(|r| r["type"] == "assistant.message")
                    .map(|r| n(&r["data"], "outputTokens"))
                    .sum();
                beyond(&mut total, [0, output, 0, 0, 0]);
            }
        }
        "pi" => {
            for r in recs
                .iter()
                .filter(|r| r["type"] == "message_end" && r["message"]["role"] == "assistant")
            {
                let u = &r["message"]["usage"];
                add(
                    &mut total,
                    [
                        n(u, "input"),
                        n(u, "output"),
                        n(u, "cacheRead"),
                        n(u, "cacheWrite"),
                        n(u, "reasoning"),
                    ],
                );
            }
        }
        "opencode" => {
            for r in recs.iter().filter(|r| r["type"] == "step_finish") {
                let t = &r["part"]["tokens"];
                add(
                    &mut total,
                    [
                        n(t, "input"),
                        // OpenCode's `output` leaves its `reasoning` out (its `total` adds both).
                        n(t, "output") + n(t, "reasoning"),
                        n(&t["cache"], "read"),
                        n(&t["cache"], "write"),
                        n(t, "reasoning"),
                    ],
                );
            }
        }
        "grok" => {
            let counts = |u: &Value| {
                [
                    n(u, "input_tokens"),
                    n(u, "output_tokens"),
                    n(u, "cache_read_input_tokens"),
                    n(u, "cache_creation_input_tokens"),
                    n(u, "reasoning_tokens"),
                ]
            };
            let mut lines = [0; 5];
            for r in recs {
                match r["type"].as_str() {
                    Some("usage") => add(&mut lines, counts(&r["usage"])),
                    Some("end" | "error") => {
                        let end = counts(&r["usage"]);
                        for i in 0..5 {
                            total[i] += lines[i].max(end[i]);
                        }
                        lines = [0; 5];
                    }
                    _ => {}
                }
            }
        }
        "droid" => {
            for r in recs.iter().filter(|r| r["type"] == "completion") {
                let u = &r["usage"];
                add(
                    &mut total,
                    [
                        n(u, "input_tokens"),
                        n(u, "output_tokens"),
                        n(u, "cache_read_input_tokens"),
                        n(u, "cache_creation_input_tokens"),
                        n(u, "thinking_tokens"),
                    ],
                );
            }
        }
        _ => {}
    }
    total
}

#[test]
fn every_agents_tokens_mean_the_same_and_count_once() {
    let mut checked = 0;
    for agent in [
        "claude", "qwen", "amp", "codex", "gemini", "copilot", "pi", "opencode", "grok", "droid",
    ] {
        let dir = testdata(&format!("agents/{agent}"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let fixture = format!(
                "agents/{agent}/{}",
                path.file_name().unwrap().to_str().unwrap()
            );
            let want = derived(agent, &records(&fixture));
            let out = exec(&["stats", "--format", "json", path.to_str().unwrap()], None);
            let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
            let u = &stats["files"][0]["usage"];
            let got = [
                n(u, "input_tokens"),
                n(u, "output_tokens"),
                n(u, "cache_read_tokens"),
                n(u, "cache_write_tokens"),
                n(u, "reasoning_tokens"),
            ];
            assert_eq!(got, want, "{fixture}: {u}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} fixtures");
}
