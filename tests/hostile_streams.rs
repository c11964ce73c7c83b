//! Streams crafted to slow sjlint down, blow its output up or hide findings from it, through the
//! real binary: each test is the reproduction of one way a hostile input once got through.

#[allow(dead_code)] // each test binary uses its own part of the helpers
mod common;

use common::{check_json, exec, lines_of};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s"}"#;

/// `n` started tool calls, each of its own kind: names of `width` bytes that differ only at the
/// end, so that comparing two of them reads them whole.
fn distinct_kinds(n: usize, width: usize) -> Vec<u8> {
    let mut s = format!("{INIT}\n");
    let pad = "x".repeat(width);
    for i in 0..n {
        let _ = writeln!(
            s,
            r#"{{"type":"tool_call","subtype":"started","call_id":"c{i}","tool_call":{{"{pad}{i:06}ToolCall":{{"args":{{}}}}}},"session_id":"s"}}"#
        );
    }
    s.into_bytes()
}

#[test]
fn distinct_tool_kinds_are_checked_in_linear_time() {
    // 20,000 kinds of 2 KB: a list scanned per call took about 17 s in a release build; a
    // lookup by hash takes about a second in a debug build on a busy machine.
    let input = distinct_kinds(20_000, 2_000);
    for command in ["check", "stats", "render", "fmt"] {
        let start = Instant::now();
        let run = exec(&[command, "-"], Some(&input));
        let took = start.elapsed();
        assert!(run.code <= 1, "{command}: {}", run.code);
        assert!(
            took < Duration::from_secs(10),
            "{command} took {took:?} on 20,000 distinct tool kinds"
        );
    }
}

#[test]
fn a_kind_mismatch_is_found_past_the_kinds_kept_by_name() {
    // Past the kinds kept by name, a call's kind is kept as a keyed hash: a completion of
    // another kind is still a mismatch, one of the same kind is not.
    let mut input = distinct_kinds(2_000, 100);
    input.extend_from_slice(
        br#"{"type":"tool_call","subtype":"completed","call_id":"c1999","tool_call":{"readToolCall":{"args":{},"result":{}}},"session_id":"s"}
"#,
    );
    let same = format!(
        r#"{{"type":"tool_call","subtype":"completed","call_id":"c1998","tool_call":{{"{}001998ToolCall":{{"args":{{}},"result":{{}}}}}},"session_id":"s"}}"#,
        "x".repeat(100)
    );
    input.extend_from_slice(same.as_bytes());
    input.push(b'\n');
    let (_, findings) = check_json(&["-"], Some(&input));
    assert_eq!(lines_of(&findings, "tool-kind-mismatch"), [2002]);
    let mismatch = findings
        .iter()
        .find(|f| f.rule == "tool-kind-mismatch")
        .unwrap();
    assert!(
        mismatch.message.contains("started as another kind"),
        "{}",
        mismatch.message
    );
}

#[test]
fn findings_quote_a_bounded_excerpt_of_huge_ids() {
    // An init with a 1 MB session_id, then 100 events of another session: each finding quotes
    // the id, which once printed 100 MB.
    let id = "a".repeat(1 << 20);
    let mut input = format!(r#"{{"type":"system","subtype":"init","session_id":"{id}"}}"#);
    input.push('\n');
    for _ in 0..100 {
        input.push_str(r#"{"type":"thinking","subtype":"completed","session_id":"t"}"#);
        input.push('\n');
    }
    for format in ["human", "concise", "json", "github", "sarif", "junit"] {
        let run = exec(&["check", "--format", format, "-"], Some(input.as_bytes()));
        assert_eq!(run.code, 1, "{format}: {}", run.stderr());
        let out = run.stdout();
        assert!(
            out.len() < 500_000,
            "{format}: {} bytes of output for 100 findings",
            out.len()
        );
        assert!(
            out.contains("… (1048576 bytes)"),
            "{format} does not say how long the id was"
        );
    }
}
