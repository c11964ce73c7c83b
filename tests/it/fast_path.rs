//! The fast reader of classification against `serde_json`: whatever the fast path accepts,
//! `serde_json` accepts too and reads into the same event; the fast path never accepts what
//! `serde_json` rejects.
//!
//! Over every record of `testdata/`, of `../shared/corpus` and `../shared/seeds` (read in place;
//! required under `CI=true`), the same records mutated, generated bench streams, and generated
//! JSON-ish records (valid and subtly invalid, in the shapes of all three dialects); the other
//! agents' generated streams read as cursor's events, as the pipeline's lanes read them before
//! the agent is known.

use crate::generator as streams;

use crate::common::{corpus_dir, files_under, manifest_dir};
use proptest::prelude::*;
use sjlint::unstable::agents::cursor::view::{self, Dialect};
use std::path::PathBuf;

const READINGS: [Option<Dialect>; 4] = [
    None,
    Some(Dialect::Cursor),
    Some(Dialect::Payload),
    Some(Dialect::Sdk),
];

/// Compares the two paths on `text` under every reading, the fast one with and without an
/// arena for unescaped strings (as `check` and as `fmt` read), and the public entry point with
/// `serde_json` whenever the fast path has no answer; true when the fast path accepted it.
fn same(text: &str) -> bool {
    let mut accepted = false;
    for forced in READINGS {
        match view::readers_agree(text, forced) {
            Ok(fast) => accepted |= fast,
            Err(e) => panic!("{e}"),
        }
    }
    accepted
}

/// Records of a stream: its lines, as text where they are UTF-8.
fn records(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| std::str::from_utf8(l.strip_suffix(b"\r").unwrap_or(l)).ok())
}

/// Deterministic small edits of a record: a byte-level mutator for the file-based runs.
fn mutations(text: &str, seed: u64) -> Vec<String> {
    const INSERTS: &[&str] = &[
        "\"", "\\", ",", ":", "}", "]", " ", "\u{1}", "\n", "0", "-", "1e400", "\\ud800", "\\u",
        "é", "\\\\", "-0", ".5", "e", "null", "[]", "{}",
    ];
    let mut rng = streams::Rng::new(seed);
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let mut out = Vec::new();
    for _ in 0..8 {
        let at = boundaries[rng.below(boundaries.len() as u64) as usize];
        let mut s = text.to_owned();
        match rng.below(3) {
            0 => s.insert_str(at, INSERTS[rng.below(INSERTS.len() as u64) as usize]),
            1 => {
                let end = boundaries
                    .iter()
                    .copied()
                    .find(|&b| b > at)
                    .unwrap_or(text.len());
                s.replace_range(at..end, "");
            }
            _ => s.truncate(at),
        }
        out.push(s);
    }
    out
}

fn check_files(dirs: &[PathBuf]) {
    let mut files = Vec::new();
    for dir in dirs {
        files_under(dir, &mut files);
    }
    assert!(!files.is_empty());
    let (mut records_seen, mut fast) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        for (n, text) in records(&bytes).enumerate() {
            records_seen += 1;
            fast += usize::from(same(text));
            for m in mutations(text, n as u64 + 1) {
                same(&m);
            }
        }
    }
    eprintln!(
        "{} files, {records_seen} records, {fast} read by the fast path",
        files.len()
    );
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn testdata_records_read_the_same() {
    check_files(&[
        manifest_dir().join("testdata"),
        manifest_dir().join("fuzz/seeds"),
    ]);
}

#[test]
fn corpus_and_seed_records_read_the_same() {
    let Some(corpus) = corpus_dir() else { return };
    let seeds = corpus.join("../seeds");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        assert!(seeds.is_dir(), "CI=true but {} is missing", seeds.display());
    }
    let mut dirs = vec![corpus];
    if seeds.is_dir() {
        dirs.push(seeds);
    }
    check_files(&dirs);
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn generated_streams_read_the_same_and_take_the_fast_path() {
    for (seed, raw_newlines) in [(1, false), (2, true), (3, false)] {
        let stream = streams::stream(seed, 1 << 20, raw_newlines);
        for text in records(&stream).filter(|t| !t.is_empty()) {
            let fast = same(text);
            // Healthy records are read by the fast path (a raw newline cuts a record in two,
            // and neither half is JSON).
            assert!(fast || raw_newlines, "not read by the fast path: {text:?}");
        }
    }
    // Content arrays of several texts, `toolCall` objects, tool kinds spelled from sdk names:
    // what the arena holds beside unescaped strings.
    let stream = streams::rare_shapes(4, 1 << 20);
    for text in records(&stream).filter(|t| !t.is_empty()) {
        assert!(same(text), "not read by the fast path: {text:?}");
    }
    // The other agents' records: read as cursor's events by the pipeline's lanes until the
    // agent is known.
    for agent in streams::agents::generated() {
        let stream = streams::agents::stream(agent, 5, 256 << 10);
        for text in records(&stream).filter(|t| !t.is_empty()) {
            assert!(same(text), "{agent:?}: not read by the fast path: {text:?}");
        }
    }
}

#[test]
fn what_the_arena_holds_reads_the_same() {
    for text in [
        // Texts joined, with escapes, empty ones, and items that are not text.
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a\n"},{"type":"image"},{"type":"text","text":""},{"type":"text","text":"\u00e9 \"b\""},{"text":3},{"text":"c"}]}}"#,
        r#"{"type":"user","payload":{"message":{"content":[{"text":"x"},{"text":"y"}]}}}"#,
        // `toolCall` of the payload dialect, taken or not.
        r#"{"type":"tool_call","subtype":"started","payload":{"toolCall":{"id":"s\n1","shellToolCall":{"name":"shell","args":{"command":"ls"}}}}}"#,
        r#"{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"s1","result":{"exitCode":1}}}}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"readToolCall":{}},"payload":{"toolCall":{"id":"d"}}}"#,
        r#"{"type":"tool_call","toolCall":{"id":"a"},"toolCall":{"id":"b","editToolCall":{}}}"#,
        // The cloud sdk's `toolCall`, and sdk names whose kind is spelled or is the name.
        r#"{"type":"tool-call-started","callId":"c2","toolCall":{"type":"web_fetch","args":{"url":"x"}}}"#,
        r#"{"type":"tool-call-completed","callId":"c2","toolCall":{"type":"mcp\u0054oolCall","args":{},"result":{"success":true}}}"#,
        r#"{"type":"tool-call-started","callId":"c3","toolCall":"shell"}"#,
        r#"{"type":"tool-call-started","tool_name":"sem\u005fsearch","tool_call_id":"c4","parameters":{}}"#,
        r#"{"type":"tool-call-completed","tool_name":"__","tool_call_id":"c4","result":{"success":false}}"#,
        r#"{"type":"tool-call-started","tool_name":"Élan vital","tool_call_id":"c5","toolCall":{"type":"ls"}}"#,
    ] {
        assert!(same(text), "not read by the fast path: {text}");
    }
}

#[test]
fn what_the_fast_path_leaves_to_serde_json() {
    for text in [
        r#"{"type":"result","duration_ms":1e400}"#,
        r#"{"session_id":"a\ud800b"}"#,
        r#"{"a":1,}"#,
        r#"{"a":"x"} x"#,
        &("[".repeat(101) + &"]".repeat(101)),
        &("[".repeat(200) + &"]".repeat(200)),
    ] {
        assert!(!same(text), "{text}");
    }
    for text in [
        r#"{"type":"result","duration_ms":1.5e3,"timestamp_ms":-0,"x":1e400}"#,
        r#"{"session_id":"a\ud83d\ude00b \u00e9 \/"}"#,
        r#"{"ignored":"\ud800"}"#,
    ] {
        // Ignored values are only validated, as serde_json does; the lone surrogate escape in the
        // last one is still left to serde_json.
        let _ = same(text);
    }
}

// ---- Generated records ----

/// Scalars that are valid JSON, chosen where readers tend to differ.
fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "0",
            "-0",
            "1",
            "-1",
            "42",
            "1770000000000",
            "18446744073709551615",
            "18446744073709551616",
            "9223372036854775807",
            "-9223372036854775808",
            "-9223372036854775809",
            "-18446744073709551615",
            "123456789012345678901234567890",
            "1.5",
            "-0.0",
            "1e5",
            "1E+5",
            "2.5e-3",
            "1e400",
            "-1e400",
            "1e-400",
            "0.1",
            "3.0",
            "12.000",
            "true",
            "false",
            "null",
        ])
        .prop_map(str::to_owned),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        string(),
    ]
}

/// Strings, mostly valid, with escapes of every kind.
fn string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => "[a-zA-Z_ ]{0,12}",
            1 => prop::sample::select(vec![
                "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\u00e9", "\\u0000",
                "\\uD83D\\uDE00", "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\ud800\\u0041",
                "→", "函数", "\u{2028}", "\u{7f}",
                "shellToolCall", "readToolCall", "success", "Shell", "str_replace",
            ]).prop_map(str::to_owned),
        ],
        0..6,
    )
    .prop_map(|parts| format!("\"{}\"", parts.concat()))
}

const KEYS: &[&str] = &[
    "type",
    "subtype",
    "session_id",
    "timestamp_ms",
    "call_id",
    "model_call_id",
    "tool_call",
    "shellToolCall",
    "readToolCall",
    "editToolCall",
    "function",
    "args",
    "arguments",
    "result",
    "success",
    "rejected",
    "error",
    "exitCode",
    "exit_code",
    "totalLines",
    "isBackground",
    "message",
    "role",
    "content",
    "text",
    "is_error",
    "duration_ms",
    "duration_api_ms",
    "request_id",
    "usage",
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "query_type",
    "query",
    "response",
    "toolCallId",
    "id",
    "data",
    "apiKeySource",
    "cwd",
    "permissionMode",
    "payload",
    "toolCall",
    "tool_name",
    "tool_call_id",
    "callId",
    "parameters",
    "prompt",
    "webSearchRequestQuery",
    "x",
    "type\\u0020",
    "t\\u0079pe",
];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(KEYS).prop_map(|k| format!("\"{k}\"")),
        1 => string(),
    ]
}

/// Whitespace between tokens, usually none.
fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(""), 1 => Just(" "), 1 => Just("\n\t "), 1 => Just("\r\n")]
}

/// JSON values whose objects use the dialects' keys.
fn value() -> impl Strategy<Value = String> {
    scalar().prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..5).prop_map(|items| {
                let items: Vec<String> = items
                    .into_iter()
                    .map(|(a, v, b)| format!("{a}{v}{b}"))
                    .collect();
                format!("[{}]", items.join(","))
            }),
            prop::collection::vec((key(), ws(), inner, ws()), 0..8).prop_map(|entries| {
                let entries: Vec<String> = entries
                    .into_iter()
                    .map(|(k, a, v, b)| format!("{k}{a}:{b}{v}"))
                    .collect();
                format!("{{{}}}", entries.join(","))
            }),
        ]
    })
}

/// Records in the shapes of the three dialects, holes filled with any value.
fn shaped() -> impl Strategy<Value = String> {
    const TEMPLATES: &[&str] = &[
        r#"{"type":"tool_call","subtype":"completed","call_id":$,"tool_call":{"shellToolCall":{"args":$,"result":{"success":{"exitCode":$,"stdout":$,"totalLines":$},"isBackground":false}}},"timestamp_ms":$}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":$,"tool_call":{"readToolCall":{"args":{"path":$,"toolCallId":$}},"aToolCall":$}}"#,
        r#"{"tool_call":{"aToolCall":{"result":{"rejected":$,"exitCode":$,"error":$}}}}"#,
        r#"{"type":"assistant","message":{"role":$,"content":[{"type":"text","text":$},$,{"text":$}]},"session_id":$}"#,
        r#"{"type":"result","subtype":"success","duration_ms":$,"is_error":$,"result":$,"usage":{"inputTokens":$,"outputTokens":$,"cacheReadTokens":$,"cacheWriteTokens":$}}"#,
        r#"{"type":"interaction_query","subtype":"request","query_type":$,"query":{"id":$,"webSearchRequestQuery":{"args":{"q":$,"toolCallId":$}}}}"#,
        r#"{"type":"interaction_query","subtype":"response","response":{"id":$,"webSearchRequestResponse":{"rejected":$}}}"#,
        r#"{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":$,"result":$,"args":$}}}"#,
        r#"{"type":"thinking","payload":{"content":$,"type":$}}"#,
        r#"{"type":"user","payload":{"prompt":$,"prompt":$}}"#,
        r#"{"type":"assistant","payload":{"message":{"content":$}}}"#,
        r#"{"type":"tool-call-started","tool_name":$,"tool_call_id":$,"parameters":$}"#,
        r#"{"type":"tool-call-completed","tool_name":$,"callId":$,"result":{"success":$,"output":$,"exit_code":$},"duration_ms":$}"#,
        r#"{"type":"tool-call-started","callId":$,"toolCall":{"type":$,"args":$,"result":$}}"#,
        r#"{"type":"assistant","text":$,"timestamp_ms":$}"#,
        r#"{"type":"result","subtype":"error","error":$}"#,
        r#"{"type":"system","subtype":"init","cwd":$,"session_id":$,"apiKeySource":$}"#,
        r#"{"type":"raw","data":$,"type":$}"#,
    ];
    (
        prop::sample::select(TEMPLATES),
        prop::collection::vec(value(), 12),
    )
        .prop_map(|(template, values)| {
            let mut out = String::new();
            let mut values = values.into_iter();
            for (i, part) in template.split('$').enumerate() {
                if i > 0 {
                    out.push_str(&values.next().unwrap());
                }
                out.push_str(part);
            }
            out
        })
}

/// One edit that usually breaks the text: a byte inserted, removed, or the end cut off.
fn broken(text: String) -> impl Strategy<Value = String> {
    let len = text.chars().count();
    (
        0..=len,
        prop::sample::select(vec![
            "\"", "\\", ",", ":", "}", "{", "]", "[", " ", "\u{1}", "\u{1f}", "\n", "0", "-", ".",
            "e", "x", "é", "\\u", "\\ud800", "\\x", "tru",
        ]),
        0..3u8,
    )
        .prop_map(move |(at, insert, how)| {
            let at = text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
            let mut s = text.clone();
            match how {
                0 => s.insert_str(at, insert),
                1 => {
                    if at < s.len() {
                        s.remove(at);
                    }
                }
                _ => s.truncate(at),
            }
            s
        })
}

fn record() -> impl Strategy<Value = String> {
    let valid = prop_oneof![shaped(), value()];
    prop_oneof![
        2 => valid.clone(),
        2 => valid.prop_flat_map(broken),
        1 => (shaped(), "[ \t\r\n]{0,2}", prop::sample::select(vec!["", "x", "{}", "1", ",", "\u{0}"]))
            .prop_map(|(r, ws, tail)| format!("{ws}{r}{ws}{tail}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        // The fuzz targets run the same comparison for as long as they are given.
        cases: 1000,
        // Every seed file of the crate is in proptest-regressions/ at its root.
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/fast_path.txt"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_records_read_the_same(text in record()) {
        same(&text);
    }
}
