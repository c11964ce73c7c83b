//! OpenTelemetry traces through the real binary: `fmt --to otlp` (the spans of a transcript:
//! their kinds, parents, tokens, statuses, times and contents, and the same output every time)
//! and `run --otlp-endpoint` (the run sent to a small OTLP/HTTP receiver in the test, in
//! protobuf and in JSON, and a dead or silent collector that costs one warning, which counts
//! every span lost, and nothing else).

use crate::common::{exec, run_cmd, sjlint, testdata};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// The spans of the one OTLP/JSON request `fmt --to otlp ARGS…` writes.
fn otlp(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["fmt", "--to", "otlp"];
    all.extend_from_slice(args);
    let ran = exec(&all, None);
    assert_eq!(ran.code, 0, "{}", ran.describe());
    let out = ran.stdout();
    assert_eq!(out.lines().count(), 1, "one request a line: {out}");
    spans_of(&serde_json::from_str(&out).unwrap())
}

fn spans_of(request: &Value) -> Vec<Value> {
    let mut spans = Vec::new();
    for rs in request["resourceSpans"].as_array().unwrap() {
        for ss in rs["scopeSpans"].as_array().unwrap() {
            spans.extend(ss["spans"].as_array().unwrap().iter().cloned());
        }
    }
    spans
}

/// A span's attribute, as JSON (`{"stringValue": …}`, `{"intValue": "…"}`).
fn attr<'s>(span: &'s Value, key: &str) -> Option<&'s Value> {
    span["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

fn attr_str<'s>(span: &'s Value, key: &str) -> Option<&'s str> {
    attr(span, key)?["stringValue"].as_str()
}

fn attr_int(span: &Value, key: &str) -> Option<u64> {
    attr(span, key)?["intValue"].as_str()?.parse().ok()
}

fn named<'s>(spans: &'s [Value], name: &str) -> Vec<&'s Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn count_op(spans: &[Value], op: &str) -> usize {
    spans
        .iter()
        .filter(|s| attr_str(s, "gen_ai.operation.name") == Some(op))
        .count()
}

const SUBAGENT: &str = "testdata/agents/claude/subagent.ndjson";

#[test]
fn otlp_fmt_one_agent_span_a_chat_span_per_turn_and_a_tool_span_per_call() {
    let spans = otlp(&[SUBAGENT]);
    assert_eq!(count_op(&spans, "invoke_agent"), 1);
    assert_eq!(count_op(&spans, "execute_tool"), 3);
    // The main agent's turn before the Task call and its answer; the subagent's two turns.
    assert_eq!(count_op(&spans, "chat"), 4);
    let root = named(&spans, "invoke_agent claude")[0];
    assert_eq!(attr_str(root, "openinference.span.kind"), Some("AGENT"));
    assert_eq!(attr_str(root, "gen_ai.agent.name"), Some("claude"));
    assert_eq!(attr_str(root, "gen_ai.provider.name"), Some("anthropic"));
    assert_eq!(
        attr_str(root, "gen_ai.request.model"),
        Some("claude-sonnet-4-5")
    );
    assert_eq!(
        attr_str(root, "gen_ai.conversation.id"),
        Some("9c1e4b7a-sub-agent-run")
    );
    assert!(root.get("parentSpanId").is_none(), "{root}");
    for tool in spans
        .iter()
        .filter(|s| s["name"].as_str().unwrap().starts_with("execute_tool"))
    {
        assert_eq!(attr_str(tool, "openinference.span.kind"), Some("TOOL"));
        assert_eq!(attr_str(tool, "gen_ai.tool.type"), Some("function"));
        assert!(attr_str(tool, "gen_ai.tool.call.id").is_some());
        assert_eq!(tool["kind"], 1, "INTERNAL, as an integer");
    }
    let task = named(&spans, "execute_tool Task")[0];
    assert_eq!(attr_str(task, "sjlint.tool.kind"), Some("subagent"));
    assert_eq!(task["parentSpanId"], root["spanId"]);
    // The subagent's calls and turns nest under the call that started it.
    for name in ["execute_tool Read", "execute_tool Bash"] {
        let s = named(&spans, name)[0];
        assert_eq!(s["parentSpanId"], task["spanId"], "{name}");
        assert_eq!(
            attr_str(s, "sjlint.parent.call_id"),
            Some("toolu_01TaskCfg")
        );
    }
    let chats_under_task = spans
        .iter()
        .filter(|s| s["name"] == "chat claude-sonnet-4-5" && s["parentSpanId"] == task["spanId"])
        .count();
    assert_eq!(chats_under_task, 2);
    // The failed call is an error (STATUS_CODE_ERROR = 2), the others are not.
    assert_eq!(named(&spans, "execute_tool Bash")[0]["status"]["code"], 2);
    assert!(
        named(&spans, "execute_tool Read")[0]["status"]
            .get("code")
            .is_none()
    );
    // One trace.
    assert!(spans.iter().all(|s| s["traceId"] == root["traceId"]));
}

#[test]
fn otlp_fmt_tokens_are_counted_once_as_stats_counts_them() {
    // Claude Code repeats a message's usage on every content block (msg_01 here), and its
    // result's usage is the main thread's (100 in, 19 out); the subagent's messages (msg_02 and
    // msg_03) add their own 75 in and 17 out. The root holds the tokens once.
    let spans = otlp(&[SUBAGENT]);
    let root = named(&spans, "invoke_agent claude")[0];
    assert_eq!(attr_int(root, "gen_ai.usage.input_tokens"), Some(175));
    assert_eq!(attr_int(root, "gen_ai.usage.output_tokens"), Some(36));
    assert_eq!(
        attr_int(root, "gen_ai.usage.cache_read.input_tokens"),
        Some(100)
    );
    // Every agent's run: the tokens of the roots are the statistics' tokens; the reasoning, a
    // part of the output, is said apart where the agent reports it.
    for path in [
        "claude/tool-run",
        "codex/tool-run",
        "gemini/tool-run",
        "grok/tool-run",
        "opencode/tool-run",
        "pi/tool-run",
        "copilot/tool-run",
        "droid/tool-run",
        "kimi/tool-run",
        "qwen/tool-run",
        "amp/tool-run",
        "claude/thinking-timed",
        "pi/reasoning",
        "opencode/reasoning",
        "copilot/usage",
        "codex/edit-and-answer",
    ] {
        let agent = path;
        let path = format!("testdata/agents/{path}.ndjson");
        let stats = exec(&["stats", "--format", "json", &path], None);
        let stats: Value = serde_json::from_str(&stats.stdout()).unwrap();
        let tokens = &stats["files"][0]["usage"];
        let spans = otlp(&[&path]);
        let sum = |key: &str| -> u64 {
            spans
                .iter()
                .filter(|s| attr_str(s, "gen_ai.operation.name") == Some("invoke_agent"))
                .map(|s| attr_int(s, key).unwrap())
                .sum()
        };
        assert_eq!(
            sum("gen_ai.usage.input_tokens"),
            tokens["input_tokens"].as_u64().unwrap(),
            "{agent}"
        );
        assert_eq!(
            sum("gen_ai.usage.output_tokens"),
            tokens["output_tokens"].as_u64().unwrap(),
            "{agent}"
        );
        assert_eq!(
            sum("gen_ai.usage.reasoning.output_tokens"),
            tokens["reasoning_tokens"].as_u64().unwrap(),
            "{agent}"
        );
    }
    // The fixture's own count: the result's, which is the session's (one thread, no subagent).
    let text = std::fs::read_to_string(testdata("agents/claude/thinking-timed.ndjson")).unwrap();
    let result: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "result")
        .unwrap();
    let thinking = result["usage"]["output_tokens_details"]["thinking_tokens"]
        .as_u64()
        .unwrap();
    assert!(thinking > 0);
    let spans = otlp(&["testdata/agents/claude/thinking-timed.ndjson"]);
    let root = named(&spans, "invoke_agent claude")[0];
    assert_eq!(
        attr_int(root, "gen_ai.usage.reasoning.output_tokens"),
        Some(thinking)
    );
}

#[test]
fn otlp_fmt_gives_the_same_output_every_time_and_ids_from_the_session() {
    let a = exec(&["fmt", "--to", "otlp", SUBAGENT], None);
    let b = exec(&["fmt", "--to", "otlp", SUBAGENT], None);
    assert_eq!(a.stdout, b.stdout);
    let spans = spans_of(&serde_json::from_slice(&a.stdout).unwrap());
    let ids: std::collections::BTreeSet<&str> = spans
        .iter()
        .map(|s| s["spanId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), spans.len(), "span ids are unique");
    for s in &spans {
        let trace = s["traceId"].as_str().unwrap();
        assert_eq!(trace.len(), 32, "16 bytes of hex");
        assert!(
            trace
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(s["spanId"].as_str().unwrap().len(), 16);
        // 64-bit integers are strings in OTLP/JSON.
        assert!(s["startTimeUnixNano"].is_string());
    }
    // Another session id, another trace.
    let other = std::fs::read_to_string(testdata("agents/claude/subagent.ndjson"))
        .unwrap()
        .replace("9c1e4b7a-sub-agent-run", "another-session");
    let c = exec(&["fmt", "--to", "otlp", "-"], Some(other.as_bytes()));
    let c = spans_of(&serde_json::from_slice(&c.stdout).unwrap());
    assert_ne!(c[0]["traceId"], spans[0]["traceId"]);
}

#[test]
fn otlp_fmt_holds_no_prompt_text_or_tool_content_without_otlp_content() {
    let secret_bits = [
        "taplo check",
        "port = 8080",
        "helper agent",
        "no TOML checker",
        "The config sets port 8080",
        "config.toml",
    ];
    let plain = exec(&["fmt", "--to", "otlp", SUBAGENT], None).stdout();
    for bit in secret_bits {
        assert!(!plain.contains(bit), "{bit} is in {plain}");
    }
    let with = otlp(&["--otlp-content", SUBAGENT]);
    let bash = named(&with, "execute_tool Bash")[0];
    assert_eq!(
        attr_str(bash, "gen_ai.tool.call.arguments"),
        Some(r#"{"command":"taplo check config.toml"}"#)
    );
    assert_eq!(
        attr_str(bash, "gen_ai.tool.call.result"),
        Some("taplo: command not found")
    );
    let root = named(&with, "invoke_agent claude")[0];
    assert_eq!(
        attr_str(root, "output.value"),
        Some("The config sets port 8080.")
    );
}

#[test]
fn otlp_fmt_times_are_the_records_own_or_said_to_be_none() {
    // Claude Code stamps no record: every span is of no length at the fixed base, and the root
    // says so.
    let spans = otlp(&[SUBAGENT]);
    let root = named(&spans, "invoke_agent claude")[0];
    assert_eq!(attr_str(root, "sjlint.time.source"), Some("none"));
    for s in &spans {
        assert_eq!(s["startTimeUnixNano"], "1704067200000000000");
        assert_eq!(s["endTimeUnixNano"], "1704067200000000000");
    }
    // cursor-agent stamps its calls: the parallel calls overlap, each as long as it took, and
    // the session spans them all (its first record, unstamped, begins at the first time known).
    let spans = otlp(&["testdata/healthy/parallel-shell-calls-complete-out-of-order.ndjson"]);
    let root = named(&spans, "invoke_agent cursor")[0];
    assert_eq!(attr_str(root, "sjlint.time.source"), Some("record"));
    let t = |s: &Value, k: &str| s[k].as_str().unwrap().parse::<u64>().unwrap();
    let calls = named(&spans, "execute_tool shellToolCall");
    assert_eq!(calls.len(), 3);
    for c in &calls {
        assert!(t(c, "startTimeUnixNano") < t(c, "endTimeUnixNano"));
        assert!(t(root, "startTimeUnixNano") <= t(c, "startTimeUnixNano"));
        assert!(t(c, "endTimeUnixNano") <= t(root, "endTimeUnixNano"));
        assert_eq!(c["parentSpanId"], root["spanId"]);
    }
    let latest_start = calls
        .iter()
        .map(|c| t(c, "startTimeUnixNano"))
        .max()
        .unwrap();
    let earliest_end = calls.iter().map(|c| t(c, "endTimeUnixNano")).min().unwrap();
    assert!(latest_start < earliest_end, "the calls ran at once");
}

#[test]
fn otlp_fmt_an_unfinished_call_is_an_error_span() {
    let cut: String = std::fs::read_to_string(testdata("agents/claude/subagent.ndjson"))
        .unwrap()
        .lines()
        .take(6)
        .map(|l| format!("{l}\n"))
        .collect();
    let ran = exec(&["fmt", "--to", "otlp", "-"], Some(cut.as_bytes()));
    let spans = spans_of(&serde_json::from_slice(&ran.stdout).unwrap());
    for name in ["execute_tool Task", "execute_tool Bash"] {
        let s = named(&spans, name)[0];
        assert_eq!(s["status"]["code"], 2, "{name}");
        assert_eq!(
            attr(s, "sjlint.tool.unfinished").unwrap()["boolValue"],
            true
        );
    }
    let root = named(&spans, "invoke_agent claude")[0];
    assert_eq!(
        attr(root, "sjlint.session.unfinished").unwrap()["boolValue"],
        true
    );
}

/// What a small OTLP/HTTP receiver got: each request's path, headers (lowercase names) and body.
type Received = Arc<Mutex<Vec<(String, Vec<(String, String)>, Vec<u8>)>>>;

/// A receiver on a free port of localhost that answers every POST with 200; its base URL.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let got: Received = Arc::default();
    let keep = Arc::clone(&got);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            let keep = Arc::clone(&keep);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut conn = conn;
                loop {
                    let mut first = String::new();
                    if reader.read_line(&mut first).unwrap_or(0) == 0 {
                        return;
                    }
                    let path = first.split(' ').nth(1).unwrap_or("").to_owned();
                    let mut headers = Vec::new();
                    loop {
                        let mut line = String::new();
                        reader.read_line(&mut line).unwrap();
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        let (k, v) = line.split_once(':').unwrap();
                        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
                    }
                    let len: usize = headers
                        .iter()
                        .find(|(k, _)| k == "content-length")
                        .map_or(0, |(_, v)| v.parse().unwrap());
                    let mut body = vec![0; len];
                    reader.read_exact(&mut body).unwrap();
                    keep.lock().unwrap().push((path, headers, body));
                    conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                        .unwrap();
                }
            });
        }
    });
    (url, got)
}

/// `sjlint run ARGS… -- replay.sh` replaying `stream`, with no OTEL variable of the caller's.
fn run_replay(args: &[&str], stream: &str) -> crate::common::Run {
    let mut cmd = sjlint();
    cmd.arg("run").arg("--progress").arg("never").args(args);
    cmd.arg("--").arg(testdata("agents/replay.sh"));
    cmd.env("STREAM", testdata(stream));
    for (k, _) in std::env::vars() {
        if k.starts_with("OTEL_") {
            cmd.env_remove(k);
        }
    }
    run_cmd(cmd, None)
}

#[test]
fn otlp_run_sends_the_run_live_in_protobuf_with_its_headers() {
    let (url, got) = receiver();
    let ran = run_replay(
        &["--otlp-endpoint", &url, "--otlp-header", "x-api-key=k1"],
        "agents/claude/subagent.ndjson",
    );
    assert_eq!(ran.code, 0, "{}", ran.describe());
    assert!(!ran.stderr().contains("OTLP"), "{}", ran.describe());
    // The agent's bytes are forwarded as ever.
    assert_eq!(
        ran.stdout,
        std::fs::read(testdata("agents/claude/subagent.ndjson")).unwrap()
    );
    let got = got.lock().unwrap();
    assert!(!got.is_empty());
    let mut spans = Vec::new();
    for (path, headers, body) in got.iter() {
        assert_eq!(path, "/v1/traces");
        let header = |k: &str| {
            headers
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("content-type"), Some("application/x-protobuf"));
        assert_eq!(header("x-api-key"), Some("k1"));
        let req = ExportTraceServiceRequest::decode(&body[..]).unwrap();
        let rs = &req.resource_spans[0];
        let service = rs.resource.as_ref().unwrap().attributes[0].clone();
        assert_eq!(service.key, "service.name");
        for ss in &rs.scope_spans {
            spans.extend(ss.spans.iter().cloned());
        }
    }
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 8, "{names:?}");
    let task = spans
        .iter()
        .find(|s| s.name == "execute_tool Task")
        .unwrap();
    let read = spans
        .iter()
        .find(|s| s.name == "execute_tool Read")
        .unwrap();
    assert_eq!(read.parent_span_id, task.span_id);
    let root = spans
        .iter()
        .find(|s| s.name == "invoke_agent claude")
        .unwrap();
    // Times are the lines' arrival: real, not the fixed base.
    assert!(root.start_time_unix_nano > 1_750_000_000_000_000_000);
    assert!(spans.iter().all(|s| s.trace_id == root.trace_id));
}

#[test]
fn otlp_run_sends_otlp_json_on_request() {
    let (url, got) = receiver();
    let ran = run_replay(
        &[
            "--otlp-endpoint",
            &format!("{url}/v1/traces"),
            "--otlp-protocol",
            "http/json",
        ],
        "agents/codex/tool-run.ndjson",
    );
    assert_eq!(ran.code, 0, "{}", ran.describe());
    let got = got.lock().unwrap();
    let mut spans = Vec::new();
    for (path, headers, body) in got.iter() {
        assert_eq!(path, "/v1/traces");
        assert!(headers.contains(&("content-type".into(), "application/json".into())));
        spans.extend(spans_of(&serde_json::from_slice(body).unwrap()));
    }
    assert_eq!(count_op(&spans, "invoke_agent"), 1);
    assert!(count_op(&spans, "execute_tool") >= 1);
}

#[test]
fn otlp_run_with_a_dead_collector_warns_once_and_the_run_goes_on() {
    // A port that was free a moment ago: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let ran = run_replay(
        &["--otlp-endpoint", &format!("http://127.0.0.1:{port}")],
        "agents/claude/subagent.ndjson",
    );
    assert_eq!(ran.code, 0, "{}", ran.describe());
    assert_eq!(
        ran.stdout,
        std::fs::read(testdata("agents/claude/subagent.ndjson")).unwrap()
    );
    let warning = export_warning(&ran);
    assert!(warning.contains("8 spans not sent"), "{warning}");
}

/// The one `OTLP export` warning of `ran`'s stderr.
fn export_warning(ran: &crate::common::Run) -> String {
    let warnings: Vec<String> = ran
        .stderr()
        .lines()
        .filter(|l| l.contains("OTLP export"))
        .map(str::to_owned)
        .collect();
    assert_eq!(warnings.len(), 1, "{}", ran.describe());
    warnings[0].clone()
}

#[test]
fn otlp_run_with_a_collector_that_never_answers_counts_every_span_lost() {
    // Accepts every connection and reads what comes, but never answers: each request waits
    // until the exporter gives up on it, and the run ends before then.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            std::thread::spawn(move || {
                let mut sink = [0u8; 4096];
                while conn.read(&mut sink).is_ok_and(|n| n > 0) {}
            });
        }
    });
    let started = std::time::Instant::now();
    // The run gives up on the collector after --otlp-timeout (5 s without it).
    let ran = run_replay(
        &["--otlp-endpoint", &url, "--otlp-timeout", "200ms"],
        "agents/claude/subagent.ndjson",
    );
    assert_eq!(ran.code, 0, "{}", ran.describe());
    // The run does not wait on the collector for long.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let warning = export_warning(&ran);
    assert!(
        warning.contains("8 spans not sent") && warning.contains("; 0 sent"),
        "{warning}"
    );
}

#[test]
fn otlp_fmt_each_session_of_a_stream_is_a_trace_of_its_own() {
    let spans = otlp(&["testdata/healthy/two-sessions-appended.ndjson"]);
    let roots = named(&spans, "invoke_agent cursor");
    assert_eq!(roots.len(), 2);
    assert_ne!(roots[0]["traceId"], roots[1]["traceId"]);
    for root in roots {
        let id = attr_str(root, "gen_ai.conversation.id").unwrap();
        assert!(
            id == "f315c935-4302-5076-82d2-e39607f2808f"
                || id == "4e01ceaf-f219-5bc3-b900-37ee58aa8a53"
        );
        // Every other span of the trace hangs from its root.
        for s in spans
            .iter()
            .filter(|s| s["traceId"] == root["traceId"] && s != &root)
        {
            assert_eq!(s["parentSpanId"], root["spanId"], "{s}");
        }
    }
}
