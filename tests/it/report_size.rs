//! The size of `sjlint report`'s page through the real binary: past its bounds (the first and
//! last tool calls, text segments and findings) a run twice as long gives a page no bigger but
//! for a small margin, and the page says what it left out.

use crate::common::{run_cmd, sjlint};
use std::path::Path;

/// A Claude Code session of `calls` tool calls, each answered with some output, followed by
/// some assistant text and by a record of an unknown type (a finding).
fn session(calls: usize) -> String {
    let mut s = String::from(
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"u1"}"#,
    );
    s.push('\n');
    let output = "o".repeat(300);
    let text = "t".repeat(200);
    for i in 0..calls {
        s.push_str(&format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_{i:08}","name":"Bash","input":{{"command":"echo {i}"}}}}]}},"parent_tool_use_id":null,"session_id":"s1"}}
{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_{i:08}","content":"{output}"}}]}},"parent_tool_use_id":null,"session_id":"s1"}}
{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text} {i}"}}]}},"parent_tool_use_id":null,"session_id":"s1"}}
{{"type":"x-{i}","session_id":"s1"}}
"#
        ));
    }
    s.push_str(r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":9,"num_turns":1,"result":"done","session_id":"s1"}"#);
    s.push('\n');
    s
}

/// The page `sjlint report` writes for a session of `calls` tool calls.
fn page(dir: &Path, calls: usize) -> String {
    let input = dir.join(format!("run-{calls}.ndjson"));
    std::fs::write(&input, session(calls)).unwrap();
    let output = dir.join(format!("run-{calls}.html"));
    let mut cmd = sjlint();
    cmd.arg("report").arg("-o").arg(&output).arg(&input);
    let ran = run_cmd(cmd, None);
    assert!(output.exists(), "{}", ran.describe());
    std::fs::read_to_string(&output).unwrap()
}

#[test]
fn a_run_twice_as_long_past_the_bounds_gives_a_page_no_bigger() {
    let dir = std::env::temp_dir().join(format!("sjlint-report-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (small, large) = (page(&dir, 4_000), page(&dir, 8_000));
    let _ = std::fs::remove_dir_all(&dir);
    // The first and the last calls are there, in the timeline's data and the page says how
    // many it left out.
    for (page, calls) in [(&small, 4_000), (&large, 8_000)] {
        assert!(page.contains("toolu_00000000"));
        assert!(page.contains(&format!("toolu_{:08}", calls - 1)));
        assert!(!page.contains(&format!("toolu_{:08}", 2_500)));
        assert!(
            page.contains(&format!(
                "of the {calls} tool calls; the {} in between are counted",
                calls - 3_000
            )),
            "{calls} calls: no note of the calls left out"
        );
        assert!(page.contains("more findings not listed"));
    }
    assert!(
        large.len() <= small.len() + small.len() / 20,
        "{} bytes for 4,000 calls, {} for 8,000",
        small.len(),
        large.len()
    );
    assert!(large.len() < 5_000_000, "{} bytes", large.len());
}
