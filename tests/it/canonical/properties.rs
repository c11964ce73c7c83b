//! Properties of `fmt` over generated streams in the three dialects, healthy and broken: it is
//! idempotent, it copies canonical input byte for byte, its output is clean NDJSON, and `check`
//! never finds in its output what it did not find in its input.

use super::fmt::adds_no_finding;
use proptest::prelude::*;
use sjlint::unstable::check::CheckOptions;
use sjlint::unstable::fmt::{FmtOptions, Target};

/// One step of a generated run, written in any dialect.
#[derive(Clone, Debug)]
enum Op {
    Init,
    /// An init naming another session: a second run appended, or the first one cut off.
    NewRun,
    User(String),
    /// A thinking phase, ended with `completed` or not.
    Thinking(String, bool),
    /// An assistant segment before tool calls (`model_call_id`).
    Segment(String),
    /// `--stream-partial-output` deltas, then (or not) the flush repeating them.
    Deltas(Vec<String>, bool),
    /// The final assistant message.
    Final(String),
    /// A tool call starting: call id, tool kind.
    Start(u8, u8),
    /// A tool call completing: call id, tool kind, whether the completion names its kind.
    Complete(u8, u8, bool),
    /// The result: success, and whether its text is the assistant text.
    Result(bool, bool),
    /// Seed 002's error event.
    Error(String),
    /// A line that is not JSON.
    Garbage(String),
    Blank,
}

/// The text the generator puts in strings: quotes, escapes, raw UTF-8, a newline now and then.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        Just("a \"quoted\" word".to_owned()),
        Just("line one\nline two".to_owned()),
        Just("tab\there → “café” 日本".to_owned()),
        Just("back\\slash /path".to_owned()),
        Just(String::new()),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Init),
        1 => Just(Op::NewRun),
        2 => text().prop_map(Op::User),
        2 => (text(), any::<bool>()).prop_map(|(t, done)| Op::Thinking(t, done)),
        2 => text().prop_map(Op::Segment),
        2 => (prop::collection::vec(text(), 1..4), any::<bool>())
            .prop_map(|(d, flush)| Op::Deltas(d, flush)),
        2 => text().prop_map(Op::Final),
        4 => (0..4u8, 0..5u8).prop_map(|(id, kind)| Op::Start(id, kind)),
        4 => (0..4u8, 0..5u8, any::<bool>())
            .prop_map(|(id, kind, named)| Op::Complete(id, kind, named)),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(ok, text)| Op::Result(ok, text)),
        1 => text().prop_map(Op::Error),
        1 => "[a-zA-Z: ]{1,20}".prop_map(Op::Garbage),
        1 => Just(Op::Blank),
    ]
}

/// A run: usually an init first and a result last, with anything in between.
fn ops() -> impl Strategy<Value = Vec<Op>> {
    (
        any::<bool>(),
        prop::collection::vec(op(), 0..24),
        any::<bool>(),
    )
        .prop_map(|(init, mut middle, result)| {
            if init {
                middle.insert(0, Op::Init);
            }
            if result {
                middle.push(Op::Result(true, true));
            }
            middle
        })
}

/// How the records are dressed: spaces after separators, CRLF, a BOM, unknown fields, raw
/// newlines inside strings, odd number spellings, a repeated key (`repeat` picks which).
#[derive(Clone, Copy, Debug)]
struct Dress {
    spaces: bool,
    crlf: bool,
    bom: bool,
    extra_field: bool,
    raw_newlines: bool,
    number: u8,
    repeat: u8,
}

fn dress() -> impl Strategy<Value = Dress> {
    (
        (any::<bool>(), any::<bool>(), any::<bool>()),
        (any::<bool>(), any::<bool>(), 0..6u8, 0..8u8),
    )
        .prop_map(
            |((spaces, crlf, bom), (extra_field, raw_newlines, number, repeat))| Dress {
                spaces,
                crlf,
                bom,
                extra_field,
                raw_newlines,
                number,
                repeat,
            },
        )
}

/// The byte ranges of the top-level `"key":value` pairs of a compact JSON object.
fn top_pairs(line: &str) -> Vec<std::ops::Range<usize>> {
    let (mut depth, mut in_string, mut escaped) = (0u32, false, false);
    let (mut start, mut pairs) = (None, Vec::new());
    for (i, c) in line.bytes().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                if depth == 1 && start.is_none() {
                    start = Some(i);
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some(s) = start.take()
                {
                    pairs.push(s..i);
                }
            }
            b',' if depth == 1 => {
                if let Some(s) = start.take() {
                    pairs.push(s..i);
                }
            }
            _ => {}
        }
    }
    pairs
}

const NUMBERS: [&str; 6] = [
    "0",
    "-0",
    "1.50",
    "1e3",
    "2E+2",
    "123456789012345678901234567890",
];

/// cursor kind, sdk tool name
const KINDS: [(&str, &str); 5] = [
    ("shellToolCall", "Shell"),
    ("readToolCall", "Read"),
    ("writeToolCall", "Write"),
    ("editToolCall", "StrReplace"),
    ("fooToolCall", "Foo"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum D {
    Cursor,
    Payload,
    Sdk,
}

fn s(t: &str) -> String {
    serde_json::to_string(t).unwrap()
}

/// Writes `ops` as a stream of dialect `d`.
#[expect(
    clippy::too_many_lines,
    reason = "one match over the generated operations; each arm writes one record"
)]
fn render(d: D, ops: &[Op], dress: Dress) -> Vec<u8> {
    let num = NUMBERS[dress.number as usize % NUMBERS.len()];
    let mut lines: Vec<String> = Vec::new();
    let mut ts = 1_770_000_000_000u64;
    // The result text as cursor joins it: every segment, a delta and the flush repeating it once.
    let mut text = Joined::default();
    let sid = r#""session_id":"s1""#;
    // The session as the validator follows it: its id, and whether its result has passed.
    let (mut open_id, mut ended): (Option<&str>, bool) = (None, false);
    for op in ops {
        ts += 7;
        let named = match (op, d) {
            (Op::Garbage(_) | Op::Blank | Op::Error(_), _) | (_, D::Payload) => None,
            (Op::NewRun, _) => Some("s2"),
            (Op::Init | Op::Result(..), _) | (_, D::Cursor) => Some("s1"),
            _ => None,
        };
        if matches!(op, Op::Init | Op::NewRun) {
            let other_run = matches!((open_id, named), (Some(a), Some(b)) if a != b);
            if ended || other_run {
                text = Joined::default();
                open_id = None;
            }
            ended = false;
        }
        if !matches!(op, Op::Garbage(_) | Op::Blank) && open_id.is_none() && !ended {
            open_id = named;
        }
        match (op, d) {
            (Op::Init, D::Cursor) => lines.push(
                r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#
                    .to_owned(),
            ),
            (Op::Init | Op::NewRun, D::Payload) => {
                lines.push(r#"{"type":"system","subtype":"init","payload":{}}"#.to_owned());
            }
            (Op::NewRun, D::Cursor) => lines.push(
                r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s2","model":"Auto","permissionMode":"default"}"#
                    .to_owned(),
            ),
            (Op::NewRun, D::Sdk) => lines.push(
                r#"{"type":"system","subtype":"init","session_id":"s2","model":"sonnet-4"}"#
                    .to_owned(),
            ),
            (Op::Init, D::Sdk) => lines.push(
                r#"{"type":"system","subtype":"init","session_id":"s1","model":"sonnet-4"}"#
                    .to_owned(),
            ),
            (Op::User(t), D::Payload) => lines.push(format!(
                r#"{{"type":"user","payload":{{"prompt":{}}}}}"#,
                s(t)
            )),
            (Op::User(t), _) => lines.push(format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":{}}}]}}{}}}"#,
                s(t),
                if d == D::Cursor { format!(",{sid}") } else { String::new() }
            )),
            (Op::Thinking(t, done), D::Payload) => lines.push(format!(
                r#"{{"type":"thinking",{}"payload":{{"content":{}}}}}"#,
                if *done { "" } else { r#""subtype":"delta","# },
                s(t)
            )),
            (Op::Thinking(t, done), _) => {
                let sid = if d == D::Cursor { format!(",{sid}") } else { String::new() };
                lines.push(format!(
                    r#"{{"type":"thinking","subtype":"delta","text":{}{sid},"timestamp_ms":{ts}}}"#,
                    s(t)
                ));
                if *done {
                    lines.push(format!(r#"{{"type":"thinking","subtype":"completed"{sid}}}"#));
                }
            }
            (Op::Segment(t) | Op::Final(t), D::Payload) => {
                text.push(t, false, true);
                lines.push(if t.len() % 2 == 0 {
                    format!(r#"{{"type":"assistant","payload":{{"message":{{"content":{}}}}}}}"#, s(t))
                } else {
                    format!(
                        r#"{{"type":"assistant","payload":{{"message":{{"content":[{{"type":"text","text":{}}}]}}}}}}"#,
                        s(t)
                    )
                });
            }
            (Op::Segment(t), _) => {
                // Only cursor's segments carry `model_call_id`. A segment that repeats the deltas
                // before it is their flush, stamped or not (newer cursor-agent builds stamp the
                // one before a tool call), and the result says the text once.
                text.push(t, false, true);
                let extra = if d == D::Cursor {
                    format!(r#",{sid},"model_call_id":"m1","timestamp_ms":{ts}"#)
                } else {
                    String::new()
                };
                lines.push(format!(
                    r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}}{extra}}}"#,
                    s(t)
                ));
            }
            (Op::Final(t), _) => {
                text.push(t, false, true);
                let extra = if d == D::Cursor { format!(",{sid}") } else { String::new() };
                lines.push(format!(
                    r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}}{extra}}}"#,
                    s(t)
                ));
            }
            (Op::Deltas(parts, flush), _) => {
                let joined: String = parts.concat();
                for p in parts {
                    text.push(p, true, false);
                    ts += 1;
                    lines.push(match d {
                        D::Cursor => format!(
                            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}},{sid},"timestamp_ms":{ts}}}"#,
                            s(p)
                        ),
                        D::Sdk => format!(
                            r#"{{"type":"assistant","text":{},"timestamp_ms":{ts}}}"#,
                            s(p)
                        ),
                        D::Payload => format!(
                            r#"{{"type":"assistant","payload":{{"message":{{"content":{}}}}},"timestamp_ms":{ts}}}"#,
                            s(p)
                        ),
                    });
                }
                if *flush {
                    text.push(&joined, false, true);
                    lines.push(match d {
                        D::Payload => format!(
                            r#"{{"type":"assistant","payload":{{"message":{{"content":{}}}}}}}"#,
                            s(&joined)
                        ),
                        _ => format!(
                            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}}{}}}"#,
                            s(&joined),
                            if d == D::Cursor { format!(",{sid}") } else { String::new() }
                        ),
                    });
                }
            }
            (Op::Start(id, k), _) => {
                let (kind, name) = KINDS[*k as usize % KINDS.len()];
                lines.push(match d {
                    D::Cursor => format!(
                        r#"{{"type":"tool_call","subtype":"started","call_id":"call_{id}","tool_call":{{"{kind}":{{"args":{{"n":{num}}}}}}},"model_call_id":"m1",{sid},"timestamp_ms":{ts}}}"#
                    ),
                    D::Payload if *k == 2 => format!(
                        r#"{{"type":"tool_call","subtype":"started","payload":{{"toolCall":{{"id":"t{id}","writeFileToolCall":{{"path":"a.py","contents":"x = {num}"}}}}}}}}"#
                    ),
                    D::Payload => format!(
                        r#"{{"type":"tool_call","subtype":"started","payload":{{"toolCall":{{"id":"t{id}","{kind}":{{"name":"{name}","args":{{"n":{num}}}}}}}}}}}"#
                    ),
                    D::Sdk if *id % 2 == 0 => format!(
                        r#"{{"type":"tool-call-started","tool_name":"{name}","tool_call_id":"c{id}","parameters":{{"n":{num}}}}}"#
                    ),
                    D::Sdk => format!(
                        r#"{{"type":"tool-call-started","callId":"c{id}","toolCall":{{"type":"{}","args":{{"n":{num}}}}}}}"#,
                        name.to_lowercase()
                    ),
                });
            }
            (Op::Complete(id, k, named), _) => {
                let (kind, name) = KINDS[*k as usize % KINDS.len()];
                lines.push(match d {
                    D::Cursor => format!(
                        r#"{{"type":"tool_call","subtype":"completed","call_id":"call_{id}","tool_call":{{"{kind}":{{"args":{{"n":{num}}},"result":{{"success":{{"exitCode":{num}}}}}}}}},"model_call_id":"m1",{sid},"timestamp_ms":{ts}}}"#
                    ),
                    D::Payload if *named => format!(
                        r#"{{"type":"tool_call","subtype":"completed","payload":{{"toolCall":{{"id":"t{id}","{kind}":{{"result":{{"success":true}}}}}}}}}}"#
                    ),
                    D::Payload => format!(
                        r#"{{"type":"tool_call","subtype":"completed","payload":{{"toolCall":{{"id":"t{id}","result":{{"exitCode":{num},"stdout":""}}}}}}}}"#
                    ),
                    D::Sdk if *named => format!(
                        r#"{{"type":"tool-call-completed","tool_name":"{name}","tool_call_id":"c{id}","result":{{"success":true,"exit_code":{num}}},"duration_ms":{num}}}"#
                    ),
                    D::Sdk => format!(
                        r#"{{"type":"tool-call-completed","tool_call_id":"c{id}","result":{{"success":false}},"duration_ms":{num}}}"#
                    ),
                });
            }
            (Op::Result(ok, exact), _) => {
                let joined = text.take();
                ended = true;
                let body = if *exact { joined } else { format!("{joined}?") };
                let sub = if *ok { "success" } else { "error" };
                lines.push(match d {
                    D::Cursor => format!(
                        r#"{{"type":"result","subtype":"{sub}","duration_ms":{num},"duration_api_ms":{num},"is_error":{},"result":{},{sid},"request_id":"r1"}}"#,
                        !ok,
                        s(&body)
                    ),
                    D::Payload => format!(
                        r#"{{"type":"result","subtype":"{sub}","exitCode":{},"payload":{{"exitCode":{},"is_error":{}}}}}"#,
                        u8::from(!ok),
                        u8::from(!ok),
                        !ok
                    ),
                    D::Sdk if *ok => format!(
                        r#"{{"type":"result","subtype":"success","result":{},{sid},"duration_ms":{num}}}"#,
                        s(&body)
                    ),
                    D::Sdk => format!(
                        r#"{{"type":"result","subtype":"error","error":{},{sid},"is_error":true}}"#,
                        s(&body)
                    ),
                });
            }
            (Op::Error(t), _) => lines.push(format!(r#"{{"type":"error","message":{}}}"#, s(t))),
            (Op::Garbage(t), _) => lines.push(t.clone()),
            (Op::Blank, _) => lines.push(String::new()),
        }
    }
    let mut out = Vec::new();
    if dress.bom {
        out.extend_from_slice("\u{feff}".as_bytes());
    }
    for (i, mut line) in lines.into_iter().enumerate() {
        if dress.extra_field && i % 3 == 1 && line.ends_with('}') {
            line.truncate(line.len() - 1);
            line.push_str(&format!(r#","x_extra":{{"n":{num},"s":"ok"}}}}"#));
        }
        if dress.repeat > 0 && i % 4 == 3 && line.starts_with('{') && line.ends_with('}') {
            // The same key twice: its last value is the one a reader keeps.
            let pairs = top_pairs(&line);
            if !pairs.is_empty() {
                let pair = line[pairs[dress.repeat as usize % pairs.len()].clone()].to_owned();
                line.truncate(line.len() - 1);
                line.push(',');
                line.push_str(&pair);
                line.push('}');
            }
        }
        if dress.spaces && line.starts_with('{') {
            line = spaced(&line);
        }
        if dress.raw_newlines && i % 4 == 2 {
            // A writer that does not escape newlines inside strings (seed 001's quirk).
            line = line.replacen("\\n", "\n", 1);
        }
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(if dress.crlf { b"\r\n" } else { b"\n" });
    }
    out
}

/// A session's assistant text joined as `result.result` joins it.
#[derive(Default)]
struct Joined {
    text: String,
    pending: String,
}

impl Joined {
    fn push(&mut self, t: &str, delta: bool, flush: bool) {
        if delta {
            self.pending.push_str(t);
            return;
        }
        if !(flush && !self.pending.is_empty() && self.pending == t) {
            self.text.push_str(&self.pending);
        }
        self.pending.clear();
        self.text.push_str(t);
    }

    fn take(&mut self) -> String {
        let mut t = std::mem::take(&mut self.text);
        t.push_str(&std::mem::take(&mut self.pending));
        t
    }
}

/// Puts a space after every `:` and `,` outside strings, as seed 002 writes.
fn spaced(line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    let (mut in_string, mut escaped) = (false, false);
    for c in line.chars() {
        out.push(c);
        if escaped {
            escaped = false;
        } else if in_string && c == '\\' {
            escaped = true;
        } else if c == '"' {
            in_string = !in_string;
        } else if !in_string && (c == ':' || c == ',') {
            out.push(' ');
        }
    }
    out
}

fn fmt(input: &[u8], opts: FmtOptions) -> Vec<u8> {
    let mut out = Vec::new();
    sjlint::unstable::fmt::format(
        input,
        &CheckOptions::default(),
        &opts,
        &mut out,
        &mut |_| Ok(()),
    )
    .unwrap();
    out
}

fn dialect() -> impl Strategy<Value = D> {
    prop_oneof![Just(D::Cursor), Just(D::Payload), Just(D::Sdk)]
}

/// Every line is one compact JSON object; LF only; no BOM; no raw control character.
fn clean_ndjson(out: &[u8]) -> Result<(), TestCaseError> {
    let text = std::str::from_utf8(out).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(out.is_empty() || out.ends_with(b"\n"));
    prop_assert!(!out.starts_with(&[0xEF, 0xBB, 0xBF]), "a BOM");
    for line in text.lines() {
        prop_assert!(!line.bytes().any(|b| b < 0x20), "control byte in {line:?}");
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
        prop_assert!(value.is_object(), "{line}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        // Every seed file of the crate is in proptest-regressions/ at its root.
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/canonical_properties.txt"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn fmt_is_idempotent_and_adds_no_finding(
        d in dialect(),
        ops in ops(),
        dress in dress(),
        keep_invalid in any::<bool>(),
    ) {
        let input = render(d, &ops, dress);
        let opts = FmtOptions { keep_invalid, ..Default::default() };
        let once = fmt(&input, opts);
        clean_ndjson(&once)?;
        let twice = fmt(&once, opts);
        prop_assert_eq!(String::from_utf8_lossy(&twice), String::from_utf8_lossy(&once));
        adds_no_finding(&input, &once, &String::from_utf8_lossy(&input));
    }

    #[test]
    fn canonical_input_comes_out_byte_for_byte(ops in ops(), number in 0..6u8) {
        let ops: Vec<Op> = ops
            .into_iter()
            .filter(|op| !matches!(op, Op::Garbage(_) | Op::Blank | Op::Error(_)))
            .collect();
        let dress = Dress {
            spaces: false,
            crlf: false,
            bom: false,
            extra_field: number % 2 == 0,
            raw_newlines: false,
            number,
            repeat: 0,
        };
        let input = render(D::Cursor, &ops, dress);
        let out = fmt(&input, FmtOptions::default());
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&input));
    }

    #[test]
    fn the_filters_and_the_json_form_add_no_finding(
        d in dialect(),
        ops in ops(),
        dress in dress(),
    ) {
        let input = render(d, &ops, dress);
        let drop = FmtOptions {
            drop_thinking: true,
            drop_deltas: true,
            ..Default::default()
        };
        let out = fmt(&input, drop);
        clean_ndjson(&out)?;
        prop_assert_eq!(fmt(&out, drop), out.clone());
        adds_no_finding(&input, &out, "--drop thinking,deltas");
        let json = fmt(&input, FmtOptions { to: Target::Json, ..Default::default() });
        clean_ndjson(&json)?;
        for line in String::from_utf8_lossy(&json).lines() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            prop_assert_eq!(&value["type"], "result");
            prop_assert!(value["result"].is_string(), "{}", line);
        }
    }
}
