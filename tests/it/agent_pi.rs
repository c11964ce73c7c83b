//! Pi's stream (`pi -p --mode json`), through the real binary: its fixtures are clean and
//! recognised without `--agent`; streams broken as real runs break get their finding at their
//! line; the common form of each fixture reads back clean; `stats` counts its tokens and cost once
//! (per assistant message, from `message_end`) and its tools by kind; the run's end says how it
//! went.

use crate::common::agent::*;
use crate::common::*;
use serde_json::Value;

const DIR: &str = "agents/pi";

fn of_type<'e>(events: &'e [Value], ty: &str) -> Vec<&'e Value> {
    events.iter().filter(|e| e["type"] == ty).collect()
}

/// The fixtures hold a tool run, the least run, a failed one and one that counts usage; that
/// each is clean and Pi's without `--agent` is the agent matrix's.
#[test]
fn the_fixtures_hold_each_kind_of_run() {
    let files = fixtures(DIR);
    assert!(files.len() >= 4, "{files:?}");
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "tool-run.ndjson",
        "minimal.ndjson",
        "model-error.ndjson",
        "usage.ndjson",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
}

/// A stream that is only the session header (Pi failed before its first prompt) is Pi's.
#[test]
fn the_session_header_alone_is_pis() {
    let header = &fixture_lines(DIR, "tool-run.ndjson")[0];
    let input = join(&[header]);
    assert_eq!(stats_of(&[], Some(input.as_bytes()))["agent"], "pi");
    // A run that never started is a broken run, as every other agent's cut stream is.
    let (run, findings) = check_json(&[], Some(input.as_bytes()));
    assert_eq!(run.code, 1, "{}", show(&findings));
    assert_eq!(
        crate::common::lines_of(&findings, "missing-result"),
        [1],
        "{}",
        show(&findings)
    );
    // A session that never ran: one `session_start`, and the `end` that says no result came.
    let events = common_of(&input, &[]);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["type"], "session_start");
    assert_eq!(
        (&events[1]["type"], &events[1]["outcome"]),
        (&"end".into(), &"no_result".into())
    );
    assert_eq!(
        events[0]["session_id"],
        "019a8f3c-5b2e-7c41-9d3a-6e2f1b8c4d70"
    );
}

/// The lines of `tool-run.ndjson`, whose tool call starts on line 15 and ends on line 17.
fn tool_run() -> Vec<String> {
    let l = fixture_lines(DIR, "tool-run.ndjson");
    assert_eq!(l.len(), 27);
    assert!(l[14].contains("\"tool_execution_start\""), "{}", l[14]);
    assert!(l[16].contains("\"tool_execution_end\""), "{}", l[16]);
    l
}

type Case<'a> = (&'a str, String, Vec<(&'a str, u64)>);

/// Each case's findings are exactly its (rule, line)s, and the stream fails.
fn each_gets_its_finding(cases: Vec<Case<'_>>) {
    for (what, input, want) in cases {
        let (run, findings) =
            check_json(&["--stdin-filename", "pi.ndjson"], Some(input.as_bytes()));
        let mut got: Vec<(&str, u64)> =
            findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        got.sort_by_key(|g| g.1);
        assert_eq!(got, want, "{what}: {}", show(&findings));
        assert_eq!(run.code, 1, "{what}");
    }
}

/// The run of `tool-run.ndjson` with its tool call broken as real runs break: each gets its
/// finding, at its line.
#[test]
fn broken_tool_calls_get_their_finding() {
    let owned = tool_run();
    let l: Vec<&str> = owned.iter().map(String::as_str).collect();
    let id = "toolu_01HkT9qWm3xV7bN2cR5pL8sD";
    let other_end = l[16].replace(id, "toolu_01Zz9yX8wV7uT6sR5qP4oN3m");
    each_gets_its_finding(vec![
        // Cut before the run's end.
        (
            "cut before agent_end",
            join(&l[..26]),
            vec![("missing-result", 26)],
        ),
        // Cut while the tool runs: the run and the call never end.
        (
            "cut mid-tool",
            join(&l[..16]),
            vec![("unfinished-tool-call", 15), ("missing-result", 16)],
        ),
        // A tool's end for an id no start opened; the call it should have ended stays open
        // at its turn's end.
        (
            "unknown tool result",
            join(&[&l[..16], &[other_end.as_str()][..], &l[17..]].concat()),
            vec![("unfinished-tool-call", 15), ("orphan-completion", 17)],
        ),
        // The start lost: its update and its end pair with nothing.
        (
            "unpaired tool result",
            join(&[&l[..14], &l[15..]].concat()),
            vec![("orphan-completion", 15), ("orphan-completion", 16)],
        ),
        // The same `toolCallId` started twice.
        (
            "duplicate call id",
            join(&[&l[..15], &l[14..]].concat()),
            vec![("duplicate-call-id", 16)],
        ),
    ]);
}

/// Fields of the wrong type or missing: `wrong-field-type`, `missing-field`, at their line.
#[test]
fn broken_fields_get_their_finding() {
    let owned = tool_run();
    let l: Vec<&str> = owned.iter().map(String::as_str).collect();
    let is_error_text = l[16].replace(r#""isError":false"#, r#""isError":"false""#);
    let no_tool_name = l[14].replace(r#""toolName":"bash","#, "");
    let tokens_text = l[13].replace(r#""input":2712"#, r#""input":"2712""#);
    let negative = l[24].replace(r#""output":21"#, r#""output":-21"#);
    let no_stop = l[24].replace(r#""stopReason":"stop","#, "");
    each_gets_its_finding(vec![
        // Wrong field types, and a missing one.
        (
            "isError a string",
            join(&[&l[..16], &[is_error_text.as_str()][..], &l[17..]].concat()),
            vec![("wrong-field-type", 17)],
        ),
        (
            "usage a string",
            join(&[&l[..13], &[tokens_text.as_str()][..], &l[14..]].concat()),
            vec![("wrong-field-type", 14)],
        ),
        (
            "negative tokens",
            join(&[&l[..24], &[negative.as_str()][..], &l[25..]].concat()),
            vec![("wrong-field-type", 25)],
        ),
        (
            "no toolName",
            join(&[&l[..14], &[no_tool_name.as_str()][..], &l[15..]].concat()),
            vec![("missing-field", 15)],
        ),
        (
            "no stopReason",
            join(&[&l[..24], &[no_stop.as_str()][..], &l[25..]].concat()),
            vec![("missing-field", 25)],
        ),
    ]);
}

/// The run's lifecycle broken: a lost start, turn or message start, events after the end, runs
/// interleaved, another agent's record.
#[test]
fn broken_lifecycles_get_their_finding() {
    let owned = tool_run();
    let l: Vec<&str> = owned.iter().map(String::as_str).collect();
    let codex = r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#;
    each_gets_its_finding(vec![
        // The run's start lost: said once, at the first event of the run.
        (
            "no agent_start",
            join(&[&l[..1], &l[2..]].concat()),
            vec![("missing-init", 2)],
        ),
        // A turn left open before the next.
        (
            "turn left open",
            join(&[&l[..19], &l[20..]].concat()),
            vec![("duplicate-init", 20)],
        ),
        // A message's start lost: its updates and end are said once.
        (
            "no message_start",
            join(&[&l[..5], &l[6..]].concat()),
            vec![("orphan-completion", 6)],
        ),
        // An event of a run after its `agent_end`, and a second `agent_end`.
        (
            "after agent_end",
            join(&[&l[..], &[l[20]][..]].concat()),
            vec![("event-after-result", 28)],
        ),
        // A run's tail after its end, `agent_end` and all: said once.
        (
            "tail after agent_end",
            join(&[&l[..], &l[20..]].concat()),
            vec![("event-after-result", 28)],
        ),
        (
            "agent_end twice",
            join(&[&l[..], &[l[26]][..]].concat()),
            vec![("orphan-completion", 28)],
        ),
        // Two runs interleaved: an `agent_start` inside a run.
        (
            "agent_start inside a run",
            join(&[&l[..10], &l[1..]].concat()),
            vec![("duplicate-init", 11)],
        ),
        // A Codex record inside the run.
        (
            "mixed",
            join(&[&l[..3], &[codex][..], &l[3..]].concat()),
            vec![("mixed-agents", 4)],
        ),
    ]);
}

/// What Pi's forks and newer versions may write is information, and the stream is clean: a type
/// of a fork, a stop reason pi-ai does not list (a run that ends with one did not go well).
#[test]
fn information_is_not_a_failure() {
    let owned = tool_run();
    let l: Vec<&str> = owned.iter().map(String::as_str).collect();
    let fork = r#"{"type":"session_action_update","actions":{"queued":[],"active":[]}}"#;
    let pause = l[24].replace(r#""stopReason":"stop""#, r#""stopReason":"pause_turn""#);
    for (what, input, want) in [
        (
            "fork's type",
            join(&[&l[..2], &[fork][..], &l[2..]].concat()),
            ("unknown-event-type", 3),
        ),
        (
            "other stop reason",
            join(&[&l[..24], &[pause.as_str()][..], &l[25..]].concat()),
            ("unknown-subtype", 25),
        ),
    ] {
        let (run, findings) =
            check_json(&["--stdin-filename", "pi.ndjson"], Some(input.as_bytes()));
        let got: Vec<(&str, &str, u64)> = findings
            .iter()
            .map(|f| (f.rule.as_str(), f.severity.as_str(), f.line))
            .collect();
        assert_eq!(
            got,
            [(want.0, "info", want.1)],
            "{what}: {}",
            show(&findings)
        );
        assert_eq!(run.code, 0, "{what}");
    }
    // The other run ended well with `pause_turn`: not.
    let pause_end = l[26].replace(r#""stopReason":"stop""#, r#""stopReason":"pause_turn""#);
    let input = join(&[&l[..24], &[pause.as_str(), l[25], pause_end.as_str()][..]].concat());
    let end = common_of(&input, &[]).pop().unwrap();
    assert_eq!(end["ok"], false, "{end}");
}

/// Failed runs: a failure is a clean stream whose end is not ok and says the error; a failed
/// run cut before its `agent_end` is still cut; a retry announced by `agent_end` is awaited.
#[test]
fn failed_and_retried_runs() {
    let owned = fixture_lines(DIR, "model-error.ndjson");
    let l: Vec<&str> = owned.iter().map(String::as_str).collect();
    let (run, findings) = check_json(
        &["--stdin-filename", "pi.ndjson"],
        Some(join(&l[..8]).as_bytes()),
    );
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(got, [("missing-result", 8)], "{}", show(&findings));
    assert_eq!(run.code, 1);

    let owned = fixture_lines(DIR, "auto-retry.ndjson");
    let l: Vec<&str> = owned.iter().map(String::as_str).collect();
    assert!(l[8].contains(r#""willRetry":true"#), "{}", l[8]);
    // Cut while the retry waits: the run has no end.
    let (run, findings) = check_json(
        &["--stdin-filename", "pi.ndjson"],
        Some(join(&l[..10]).as_bytes()),
    );
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(got, [("missing-result", 10)], "{}", show(&findings));
    assert!(
        findings[0]
            .help
            .as_deref()
            .unwrap_or_default()
            .contains("retry")
    );
    assert_eq!(run.code, 1);
    // The whole of it is one run that went well, with the provider's error on the way.
    let events = common_of(&join(&l), &[]);
    assert_eq!(of_type(&events, "session_start").len(), 1);
    let ends = of_type(&events, "end");
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0]["ok"], true);
    assert_eq!(ends[0]["text"], "Added .nvmrc with `22`.");
    let errors = of_type(&events, "error");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["text"], "529 overloaded_error: Overloaded");
    assert_eq!(errors[0]["line"], 9);
    // The retries gave up: the run failed where `auto_retry_end` says so.
    let gave_up = r#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"529 overloaded_error: Overloaded"}"#;
    let input = join(&[&l[..10], &[gave_up][..]].concat());
    let (run, findings) = check_json(&["--stdin-filename", "pi.ndjson"], Some(input.as_bytes()));
    assert_eq!(run.code, 0, "{}", show(&findings));
    let end = common_of(&input, &[]).pop().unwrap();
    assert_eq!(end["type"], "end");
    assert_eq!(end["ok"], false);
    assert_eq!(end["line"], 11);
}

/// The common form of `tool-run.ndjson`: the run's session id from the header, the prompt, the
/// assistant's text from its deltas only (never again from `message_end`), one bash call started
/// and ended with its output, usage per assistant message, and the end with the last message's
/// text and the summed cost.
#[test]
fn a_tool_run_in_the_common_form() {
    let text = std::fs::read_to_string(testdata(&format!("{DIR}/tool-run.ndjson"))).unwrap();
    let events = common_of(&text, &[]);
    let sid = "019a8f3c-5b2e-7c41-9d3a-6e2f1b8c4d70";
    let start = of_type(&events, "session_start")[0];
    assert_eq!(start["session_id"], sid);
    // The header says it.
    assert_eq!(start["line"], 1);
    assert_eq!(start["timestamp_ms"], 1_790_000_000_112_u64);
    let prompt = of_type(&events, "user_prompt");
    assert_eq!(prompt.len(), 1);
    assert_eq!(
        prompt[0]["text"],
        "Run the test suite and tell me if anything fails."
    );
    let texts = of_type(&events, "assistant_text");
    // Each message's first delta begins it; the others continue it.
    let delta: Vec<bool> = texts.iter().map(|t| t["delta"] == true).collect();
    assert_eq!(delta, [false, true, false, true], "{texts:?}");
    let joined: String = texts.iter().map(|t| t["text"].as_str().unwrap()).collect();
    assert_eq!(
        joined,
        "I'll run the tests.All 87 tests in 12 files pass; nothing fails."
    );
    let tool_start = of_type(&events, "tool_start");
    assert_eq!(tool_start.len(), 1);
    assert_eq!(tool_start[0]["call_id"], "toolu_01HkT9qWm3xV7bN2cR5pL8sD");
    assert_eq!(tool_start[0]["name"], "bash");
    assert_eq!(tool_start[0]["tool_kind"], "shell");
    assert_eq!(
        tool_start[0]["args"]["command"],
        "npm test 2>&1 | tail -n 20"
    );
    let tool_end = of_type(&events, "tool_end");
    assert_eq!(tool_end.len(), 1);
    assert_eq!(tool_end[0]["ok"], true);
    assert!(
        tool_end[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("> shop-api@1.4.0 test"),
        "{}",
        tool_end[0]
    );
    assert_eq!(of_type(&events, "usage").len(), 2);
    let end = of_type(&events, "end");
    assert_eq!(end.len(), 1);
    let end = end[0];
    assert_eq!(end["ok"], true);
    assert_eq!(end["line"], 27);
    assert_eq!(end["session_id"], sid);
    assert_eq!(end["text"], "All 87 tests in 12 files pass; nothing fails.");
    let cost = end["cost_usd"].as_f64().unwrap();
    assert!((cost - message_cost(&text)).abs() < 1e-9, "{end}");
}

/// The sum of `usage.cost.total` over the assistant messages' `message_end`s of a stream.
fn message_cost(stream: &str) -> f64 {
    stream
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "message_end" && v["message"]["role"] == "assistant")
        .map(|v| v["message"]["usage"]["cost"]["total"].as_f64().unwrap())
        .sum()
}

/// The sum of a usage field over the assistant messages' `message_end`s.
fn message_tokens(stream: &str, field: &str) -> u64 {
    stream
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "message_end" && v["message"]["role"] == "assistant")
        .map(|v| v["message"]["usage"][field].as_u64().unwrap())
        .sum()
}

/// `stats`: tokens and cost once per assistant message (not once per `message_update`, which
/// repeats the growing message, nor again from `turn_end` or `agent_end`), tool calls by kind
/// with Pi's names, failed calls, and how the runs ended.
#[test]
fn stats_count_pis_usage_once() {
    for name in ["tool-run.ndjson", "usage.ndjson", "auto-retry.ndjson"] {
        let path = testdata(&format!("{DIR}/{name}"));
        let text = std::fs::read_to_string(&path).unwrap();
        let s = stats_of(&[path.to_str().unwrap()], None);
        for (ours, theirs) in [
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_tokens", "cacheRead"),
            ("cache_write_tokens", "cacheWrite"),
        ] {
            assert_eq!(
                s["usage"][ours].as_u64().unwrap(),
                message_tokens(&text, theirs),
                "{name} {ours}: {s}"
            );
        }
        let cost = s["cost_usd"].as_f64().unwrap();
        assert!((cost - message_cost(&text)).abs() < 1e-9, "{name}: {s}");
    }
    let s = stats_of(
        &[testdata(&format!("{DIR}/usage.ndjson")).to_str().unwrap()],
        None,
    );
    assert_eq!(s["usage"]["input_tokens"], 3021 + 142 + 88 + 12);
    assert_eq!(s["sessions"], 2, "{s}");
    assert_eq!(s["results"]["success"], 2, "{s}");
    let calls = s["tool_calls"].as_array().unwrap();
    let kind = |k: &str| calls.iter().find(|t| t["kind"] == k).unwrap().clone();
    assert_eq!(kind("read")["names"][0]["name"], "read");
    assert_eq!(kind("read")["failed"], 1);
    assert_eq!(kind("search")["names"][0]["name"], "grep");
    assert_eq!(kind("search")["failed"], 0);
    let s = stats_of(
        &[testdata(&format!("{DIR}/tool-run.ndjson"))
            .to_str()
            .unwrap()],
        None,
    );
    assert_eq!(s["tool_calls"][0]["kind"], "shell");
    assert_eq!(s["tool_calls"][0]["names"][0]["name"], "bash");
    for name in ["model-error.ndjson", "no-api-key.ndjson"] {
        let s = stats_of(
            &[testdata(&format!("{DIR}/{name}")).to_str().unwrap()],
            None,
        );
        assert_eq!(s["results"]["error"], 1, "{name}: {s}");
        assert_eq!(s["results"]["success"], 0, "{name}: {s}");
    }
}

/// Text said once: a message streamed as deltas is not said again whole, and one that came
/// without deltas is said whole from its `message_end`; the same for thinking. A failed run's
/// end says its `errorMessage`.
#[test]
fn text_and_thinking_are_said_once() {
    let text = std::fs::read_to_string(testdata(&format!("{DIR}/usage.ndjson"))).unwrap();
    let events = common_of(&text, &[]);
    let thinking = of_type(&events, "thinking");
    assert_eq!(thinking.len(), 2);
    // One thinking block streamed in two deltas: the first begins it.
    let delta: Vec<bool> = thinking.iter().map(|t| t["delta"] == true).collect();
    assert_eq!(delta, [false, true], "{thinking:?}");
    let texts = of_type(&events, "assistant_text");
    assert_eq!(texts.len(), 2);
    assert!(texts.iter().all(|t| t.get("delta").is_none()), "{texts:?}");
    assert_eq!(
        texts[0]["text"],
        "In src/http/client.ts, line 14: `retryDelayMs: 750`."
    );
    assert_eq!(texts[0]["timestamp_ms"], 1_790_014_403_300_u64);
    let ends = of_type(&events, "end");
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[1]["text"], "You're welcome.");

    let text = std::fs::read_to_string(testdata(&format!("{DIR}/model-error.ndjson"))).unwrap();
    let end = common_of(&text, &[]).pop().unwrap();
    assert_eq!(end["type"], "end");
    assert_eq!(end["ok"], false);
    assert!(
        end["text"].as_str().unwrap().contains("overloaded_error"),
        "{end}"
    );
    let text = std::fs::read_to_string(testdata(&format!("{DIR}/no-api-key.ndjson"))).unwrap();
    let events = common_of(&text, &[]);
    assert_eq!(of_type(&events, "session_start").len(), 1);
    let end = events.last().unwrap();
    assert_eq!(end["ok"], false);
    assert!(
        end["text"]
            .as_str()
            .unwrap()
            .starts_with("No API key found"),
        "{end}"
    );
}

/// `render` words each of Pi's tool calls by its kind, and says how the run ended.
#[test]
fn render_shows_a_pi_run() {
    let p = testdata(&format!("{DIR}/usage.ndjson"));
    let run = exec(&["render", "--color", "never", p.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    assert!(out.contains("· Pi"), "{out}");
    assert!(
        out.contains("> Where is the retry delay configured?"),
        "{out}"
    );
    assert!(out.contains("Searched for `retryDelay`"), "{out}");
    assert!(out.contains("✓ completed"), "{out}");
}

/// `sjlint schema pi`: every line of every fixture follows it, and names only top-level keys
/// the schema lists for its type; a field of the wrong type does not follow it.
#[test]
fn every_fixture_follows_pis_schema() {
    let run = exec(&["schema", "pi"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let schema: Value = serde_json::from_slice(&run.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    // The keys the schema lists for a type: its `properties` and those of the `then` whose `if`
    // names the type.
    let listed = |ty: &str| -> Vec<String> {
        let mut keys: Vec<String> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        for rule in schema["allOf"].as_array().unwrap() {
            let cond = &rule["if"]["properties"]["type"];
            let names: Vec<&str> = match cond["const"].as_str() {
                Some(c) => vec![c],
                None => cond["enum"]
                    .as_array()
                    .map(|e| e.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default(),
            };
            if names.contains(&ty) {
                keys.extend(
                    rule["then"]["properties"]
                        .as_object()
                        .unwrap()
                        .keys()
                        .cloned(),
                );
            }
        }
        keys
    };
    for f in fixtures(DIR) {
        let p = f.to_str().unwrap();
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let event: Value = serde_json::from_str(line).unwrap();
            if let Err(e) = validator.validate(&event) {
                panic!("{p}: {event}\ndoes not follow the schema: {e}");
            }
            let keys = listed(event["type"].as_str().unwrap());
            for k in event.as_object().unwrap().keys() {
                assert!(
                    keys.contains(k),
                    "{p}: `{k}` of {} is not in the schema",
                    event["type"]
                );
            }
        }
    }
    let owned = tool_run();
    let wrong: Value =
        serde_json::from_str(&owned[16].replace(r#""isError":false"#, r#""isError":"false""#))
            .unwrap();
    assert!(validator.validate(&wrong).is_err());
}
