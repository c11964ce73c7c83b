//! A deterministic generator of streams that look like real cursor-agent runs, for benches.
//!
//! Shape, from real captures: most records are small (one-word thinking deltas, assistant
//! segments, tool-call starts), a few tool completions carry file contents or command output of
//! several KB, text is escape-heavy (quotes, newlines, tabs) with raw UTF-8, half the call ids are
//! OpenAI-style with an escaped newline, and parallel calls complete out of order.

#![allow(
    dead_code,
    reason = "each bench and the tests use their own part of the generator"
)]

pub(crate) mod agents;

/// xorshift64*: small, fast, and the same sequence on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "the",
    "file",
    "test",
    "fails",
    "because",
    "config",
    "→",
    "“quoted”",
    "cargo",
    "build",
    "src/lib.rs",
    "ok",
    "thinking",
    "about",
    "函数",
    "returns",
    "None",
    "error:",
    "line",
    "42",
];

/// Text of about `len` bytes with JSON escapes (\n, \t, \", \\) every few dozen bytes.
fn text(rng: &mut Rng, len: usize, out: &mut String) {
    let start = out.len();
    while out.len() - start < len {
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        match rng.below(12) {
            0 => out.push_str("\\n"),
            1 => out.push_str("\\t"),
            2 => out.push_str("\\\""),
            3 => out.push_str("\\\\"),
            _ => out.push(' '),
        }
    }
}

fn call_id(rng: &mut Rng, n: u64) -> String {
    if rng.below(2) == 0 {
        format!("call_{:016x}{n}\\nfc_{:032x}", rng.next(), rng.next())
    } else {
        format!("toolu_{:020x}{n}", rng.next())
    }
}

/// The streams the benches compare, byte for byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Variant {
    /// Every record on one line.
    Clean,
    /// About 1.5 % of tool-call starts with a raw newline inside their `call_id`.
    RawNewlines,
    /// Hostile framing, see [`adversarial`].
    Adversarial,
}

impl Variant {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Variant::Clean => "clean",
            Variant::RawNewlines => "raw newlines",
            Variant::Adversarial => "adversarial",
        }
    }
}

/// About `size` bytes of the given variant (the adversarial one holds a record of
/// [`big_record_len`]`(size)` bytes).
pub(crate) fn generate(variant: Variant, seed: u64, size: usize) -> Vec<u8> {
    match variant {
        Variant::Clean => stream(seed, size, false),
        Variant::RawNewlines => stream(seed, size, true),
        Variant::Adversarial => adversarial(seed, size, big_record_len(size)),
    }
}

/// The largest record the adversarial stream holds: just under the default
/// `--max-record-bytes` (64 MiB), so that the splitter buffers and tracks all of it and `check`
/// parses it. A record over the limit would only be skipped by a newline search in constant
/// memory, which is the cheap path, not the adversarial one.
pub(crate) const BIG_RECORD_MAX: usize = (64 << 20) - (4 << 10);

/// The adversarial stream's big record for a stream of about `size` bytes: a quarter of it,
/// but never under 4 MiB (so a small stream still holds one record of several MiB) and never
/// over [`BIG_RECORD_MAX`].
pub(crate) fn big_record_len(size: usize) -> usize {
    (size / 4).clamp(4 << 20, BIG_RECORD_MAX)
}

/// Sessions as in [`stream`], and between them what framing finds hardest: a line that opens a
/// string and never closes it (the join with the next line fails), records whose strings hold
/// runs of thousands of backslashes (even runs, and odd ones that escape a quote), and, once
/// half of `size` is written, one record of about `big` bytes (none when `big` is 0) whose
/// text is escape-heavy and holds backslash runs too.
pub(crate) fn adversarial(seed: u64, size: usize, big: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(size + big + 64 * 1024);
    let mut n = 0u64;
    let mut big_done = big == 0;
    while out.len() < size {
        session(&mut rng, &mut out, &mut n, false);
        let mut cut = String::new();
        let len = 40 + rng.below(400) as usize;
        text(&mut rng, len, &mut cut);
        out.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{cut}\n"
        ));
        for _ in 0..=rng.below(3) {
            let mut body = String::new();
            backslash_run(&mut rng, &mut body);
            let len = 100 + rng.below(2000) as usize;
            text(&mut rng, len, &mut body);
            backslash_run(&mut rng, &mut body);
            out.push_str(&format!(
                "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{body}\"}}]}},\"session_id\":\"{:016x}\"}}\n",
                rng.next()
            ));
        }
        if !big_done && out.len() >= size / 2 {
            big_done = true;
            big_record(&mut rng, big, &mut out);
        }
    }
    out.into_bytes()
}

/// A run of 1000 to 5000 backslashes inside a string: an even run is that many escaped
/// backslashes; an odd one ends by escaping a quote.
fn backslash_run(rng: &mut Rng, out: &mut String) {
    let len = 1000 + rng.below(4000) as usize;
    out.extend(std::iter::repeat_n('\\', len));
    if len % 2 == 1 {
        out.push('"');
    }
}

/// A read tool's completion of a little under `len` bytes (never over it).
fn big_record(rng: &mut Rng, len: usize, out: &mut String) {
    // The rest of the record takes less than this.
    let target = len.saturating_sub(512);
    let mut content = String::with_capacity(target);
    while content.len() + 70_000 < target {
        text(rng, 60_000, &mut content);
        backslash_run(rng, &mut content);
    }
    // Then word by word (no word is longer than 16 bytes).
    while content.len() + 32 < target {
        content.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        content.push(' ');
    }
    let (kind, args) = tool(true, "toolu_big");
    out.push_str(&format!(
        "{{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"toolu_big\",\"tool_call\":{{\"{kind}\":{{\"args\":{args},\"result\":{{\"success\":{{\"content\":\"{content}\",\"isEmpty\":false,\"exceededLimit\":false}}}}}}}},\"session_id\":\"big\"}}\n"
    ));
}

/// Appends whole sessions until `out` holds at least `size` bytes. With `raw_newlines`, about
/// 1.5 % of records get a raw newline inside their `call_id` string.
pub(crate) fn stream(seed: u64, size: usize, raw_newlines: bool) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(size + 64 * 1024);
    let mut n = 0u64;
    while out.len() < size {
        session(&mut rng, &mut out, &mut n, raw_newlines);
    }
    out.into_bytes()
}

fn session(rng: &mut Rng, out: &mut String, n: &mut u64, raw_newlines: bool) {
    let sid = format!(
        "{:08x}-4b5e-9c2a-{:012x}",
        rng.next() as u32,
        rng.next() >> 16
    );
    let mut ts = 1_770_000_000_000u64 + rng.below(1 << 30);
    out.push_str(&format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"apiKeySource\":\"login\",\"cwd\":\"/home/user/project\",\"session_id\":\"{sid}\",\"model\":\"Claude 4.6 Opus (Thinking)\",\"permissionMode\":\"default\"}}\n"
    ));
    let mut prompt = String::new();
    text(rng, 80, &mut prompt);
    out.push_str(&format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{prompt}\"}}]}},\"session_id\":\"{sid}\"}}\n"
    ));
    let mut result = String::new();
    for turn in 0..=rng.below(4) {
        for _ in 0..10 + rng.below(40) {
            ts += rng.below(30);
            let w = WORDS[rng.below(WORDS.len() as u64) as usize];
            out.push_str(&format!(
                "{{\"type\":\"thinking\",\"subtype\":\"delta\",\"text\":\"{w} \",\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
            ));
        }
        ts += 5;
        out.push_str(&format!(
            "{{\"type\":\"thinking\",\"subtype\":\"completed\",\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
        ));
        let mcid = format!("{:x}-{turn}-mwez", rng.next());
        let mut seg = String::new();
        let len = 60 + rng.below(200) as usize;
        text(rng, len, &mut seg);
        result.push_str(&seg);
        out.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{seg}\"}}]}},\"session_id\":\"{sid}\",\"model_call_id\":\"{mcid}\",\"timestamp_ms\":{ts}}}\n"
        ));
        let calls: Vec<(String, bool)> = (0..=rng.below(3))
            .map(|_| {
                *n += 1;
                (call_id(rng, *n), rng.below(2) == 0)
            })
            .collect();
        for (id, is_read) in &calls {
            ts += 3;
            let id = if raw_newlines && rng.below(60) == 0 {
                id.replacen("\\n", "\n", 1)
            } else {
                id.clone()
            };
            let (kind, args) = tool(*is_read, &id);
            out.push_str(&format!(
                "{{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"{id}\",\"tool_call\":{{\"{kind}\":{{\"args\":{args}}}}},\"model_call_id\":\"{mcid}\",\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
            ));
        }
        // Parallel calls complete in finish order, not start order.
        for (id, is_read) in calls.iter().rev() {
            ts += rng.below(5000);
            let (kind, args) = tool(*is_read, id);
            let mut body = String::new();
            let size = if rng.below(40) == 0 {
                20_000 + rng.below(200_000)
            } else {
                200 + rng.below(6000)
            };
            text(rng, size as usize, &mut body);
            let result = if *is_read {
                format!(
                    "{{\"success\":{{\"content\":\"{body}\",\"isEmpty\":false,\"exceededLimit\":false,\"totalLines\":{},\"totalChars\":{}}}}}",
                    body.len() / 40,
                    body.len()
                )
            } else {
                format!(
                    "{{\"success\":{{\"command\":\"cargo test\",\"workingDirectory\":\"\",\"exitCode\":{},\"signal\":\"\",\"stdout\":\"{body}\",\"stderr\":\"\",\"executionTime\":{}}},\"isBackground\":false}}",
                    rng.below(2),
                    rng.below(9000)
                )
            };
            out.push_str(&format!(
                "{{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"{id}\",\"tool_call\":{{\"{kind}\":{{\"args\":{args},\"result\":{result}}}}},\"model_call_id\":\"{mcid}\",\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
            ));
        }
    }
    let mut fin = String::new();
    text(rng, 100, &mut fin);
    result.push_str(&fin);
    out.push_str(&format!(
        "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{fin}\"}}]}},\"session_id\":\"{sid}\"}}\n"
    ));
    out.push_str(&format!(
        "{{\"type\":\"result\",\"subtype\":\"success\",\"duration_ms\":{d},\"duration_api_ms\":{d},\"is_error\":false,\"result\":\"{result}\",\"session_id\":\"{sid}\",\"request_id\":\"{:x}\",\"usage\":{{\"inputTokens\":{},\"outputTokens\":{},\"cacheReadTokens\":0,\"cacheWriteTokens\":0}}}}\n",
        rng.next(),
        rng.below(100_000),
        rng.below(5_000),
        d = rng.below(60_000)
    ));
}

fn tool(is_read: bool, id: &str) -> (&'static str, String) {
    if is_read {
        (
            "readToolCall",
            format!("{{\"path\":\"/home/user/project/src/lib.rs\",\"toolCallId\":\"{id}\"}}"),
        )
    } else {
        (
            "shellToolCall",
            format!(
                "{{\"command\":\"cargo test -q\",\"workingDirectory\":\"\",\"timeout\":10000,\"toolCallId\":\"{id}\",\"simpleCommands\":[\"cargo\"],\"isBackground\":false}}"
            ),
        )
    }
}

/// Sdk tool names whose kind is not in the sdk table: spelled from the name (`web_fetch` →
/// `webFetchToolCall`) or the name itself (`mcpToolCall`), two of them with an escape in the
/// record (`\u005f` is `_`, `\u0054` is `T`). Every kind they stand for is a known one.
const SPELLED_TOOL_NAMES: &[&str] = &[
    "web_fetch",
    "web_search",
    "update_todos",
    "ask_question",
    "create_plan",
    "sem_search",
    "read_lints",
    "mcp",
    "mcpToolCall",
    "readLintsToolCall",
    "sem\\u005fsearch",
    "mcp\\u0054oolCall",
];

/// About `size` bytes of healthy sessions whose records take the classifier's rarer paths:
/// `message.content` arrays of several `text` items, payload-dialect `toolCall` objects inside
/// `payload`, cloud-sdk `toolCall: {type, args}` objects, and sdk tool names whose kinds are
/// spelled from the name. Sdk and payload sessions alternate; no record is a finding.
pub(crate) fn rare_shapes(seed: u64, size: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(size + 64 * 1024);
    let mut n = 0u64;
    let mut sessions = 0u64;
    while out.len() < size {
        sessions += 1;
        if sessions.is_multiple_of(2) {
            payload_session(&mut rng, &mut out, &mut n);
        } else {
            sdk_session(&mut rng, &mut out, &mut n, sessions);
        }
    }
    out.into_bytes()
}

/// Escape-heavy text of `len` bytes or a little more.
fn text_of(rng: &mut Rng, len: usize) -> String {
    let mut s = String::new();
    text(rng, len, &mut s);
    s
}

fn sdk_session(rng: &mut Rng, out: &mut String, n: &mut u64, number: u64) {
    let sid = format!("sdk-{number}-{:x}", rng.next());
    let (a, b) = (text_of(rng, 30), text_of(rng, 50));
    out.push_str(&format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{sid}\",\"model\":\"composer-2\"}}\n"
    ));
    out.push_str(&format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{a}\"}},{{\"type\":\"text\",\"text\":\"{b}\"}}]}},\"session_id\":\"{sid}\"}}\n"
    ));
    // `result` is every assistant text joined.
    let mut joined = String::new();
    let mut ts = 1_770_000_000_000u64;
    for turn in 0..=rng.below(4) {
        ts += 10;
        let (a, b, c) = (text_of(rng, 20), text_of(rng, 40), text_of(rng, 10));
        joined.push_str(&a);
        joined.push_str(&b);
        joined.push_str(&c);
        out.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{a}\"}},{{\"type\":\"image\"}},{{\"type\":\"text\",\"text\":\"{b}\"}},{{\"type\":\"text\",\"text\":\"{c}\"}}]}},\"session_id\":\"{sid}\",\"model_call_id\":\"m-{turn}\",\"timestamp_ms\":{ts}}}\n"
        ));
        for _ in 0..=rng.below(3) {
            *n += 1;
            let id = format!("call_{n}");
            let name = SPELLED_TOOL_NAMES[rng.below(SPELLED_TOOL_NAMES.len() as u64) as usize];
            let args = format!("{{\"query\":\"{}\"}}", text_of(rng, 20));
            let output = text_of(rng, 60);
            ts += 10;
            if rng.below(2) == 0 {
                // Seed 004's `tool_name`.
                out.push_str(&format!(
                    "{{\"type\":\"tool-call-started\",\"tool_name\":\"{name}\",\"tool_call_id\":\"{id}\",\"parameters\":{args},\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
                ));
                out.push_str(&format!(
                    "{{\"type\":\"tool-call-completed\",\"tool_name\":\"{name}\",\"tool_call_id\":\"{id}\",\"result\":{{\"success\":true,\"output\":\"{output}\"}},\"duration_ms\":5,\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
                ));
            } else {
                // The cloud stream's `toolCall`.
                out.push_str(&format!(
                    "{{\"type\":\"tool-call-started\",\"callId\":\"{id}\",\"toolCall\":{{\"type\":\"{name}\",\"args\":{args}}},\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
                ));
                out.push_str(&format!(
                    "{{\"type\":\"tool-call-completed\",\"callId\":\"{id}\",\"toolCall\":{{\"type\":\"{name}\",\"args\":{args},\"result\":{{\"success\":true,\"output\":\"{output}\"}}}},\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n"
                ));
            }
        }
    }
    out.push_str(&format!(
        "{{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"{joined}\",\"session_id\":\"{sid}\",\"duration_ms\":812,\"duration_api_ms\":700,\"is_error\":false}}\n"
    ));
}

/// Seed 002's shapes: `toolCall` with an `id` inside `payload`, completions that name no kind.
fn payload_session(rng: &mut Rng, out: &mut String, n: &mut u64) {
    let (a, b) = (text_of(rng, 30), text_of(rng, 50));
    out.push_str("{\"type\":\"system\",\"subtype\":\"init\",\"payload\":{}}\n");
    out.push_str(&format!(
        "{{\"type\":\"user\",\"payload\":{{\"prompt\":\"{a}\"}}}}\n"
    ));
    out.push_str(&format!(
        "{{\"type\":\"assistant\",\"payload\":{{\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{a}\"}},{{\"type\":\"text\",\"text\":\"{b}\"}}]}}}}}}\n"
    ));
    for _ in 0..=rng.below(4) {
        *n += 1;
        let id = format!("shell-{n}");
        let command = text_of(rng, 20);
        let stdout = text_of(rng, 60);
        out.push_str(&format!(
            "{{\"type\":\"tool_call\",\"subtype\":\"started\",\"payload\":{{\"toolCall\":{{\"id\":\"{id}\",\"shellToolCall\":{{\"name\":\"shell\",\"args\":{{\"command\":\"{command}\"}}}}}}}}}}\n"
        ));
        out.push_str(&format!(
            "{{\"type\":\"tool_call\",\"subtype\":\"completed\",\"payload\":{{\"toolCall\":{{\"id\":\"{id}\",\"result\":{{\"exitCode\":0,\"stdout\":\"{stdout}\",\"stderr\":\"\"}}}}}}}}\n"
        ));
    }
    out.push_str(&format!(
        "{{\"type\":\"assistant\",\"payload\":{{\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{b}\"}},{{\"type\":\"text\",\"text\":\"{a}\"}}]}}}}}}\n"
    ));
    out.push_str(
        "{\"type\":\"result\",\"subtype\":\"success\",\"exitCode\":0,\"payload\":{\"exitCode\":0,\"is_error\":false}}\n",
    );
}

/// The tools that ask before they run, as `(query_type, response key, tool kind, args key)`.
const QUERIED_TOOLS: &[(&str, &str, &str, &str)] = &[
    (
        "webFetchRequestQuery",
        "webFetchRequestResponse",
        "webFetchToolCall",
        "url",
    ),
    (
        "webSearchRequestQuery",
        "webSearchRequestResponse",
        "webSearchToolCall",
        "searchTerm",
    ),
    (
        "askQuestionInteractionQuery",
        "askQuestionInteractionResponse",
        "askQuestionToolCall",
        "question",
    ),
];

/// About `size` bytes of healthy cursor sessions (2026.09 on) in which every tool call is
/// announced by an `interaction_query` request, answered by its response. The request and its
/// response come before the call's `started`, or between `started` and `completed`, or stand in
/// for a `started` that is never written (the call only completes); the calls of a turn overlap
/// and complete in reverse order. Query ids are strings or numbers; half the call ids hold an
/// escaped newline. No record is a finding.
pub(crate) fn queries(seed: u64, size: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(size + 64 * 1024);
    let mut n = 0u64;
    while out.len() < size {
        queries_session(&mut rng, &mut out, &mut n);
    }
    out.into_bytes()
}

#[expect(
    clippy::too_many_lines,
    reason = "one session of interaction queries written in the order a real run writes it"
)]
fn queries_session(rng: &mut Rng, out: &mut String, n: &mut u64) {
    let sid = format!(
        "{:08x}-5c1e-4a7d-{:012x}",
        rng.next() as u32,
        rng.next() >> 16
    );
    let mut ts = 1_780_000_000_000u64 + rng.below(1 << 30);
    out.push_str(&format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"apiKeySource\":\"login\",\"cwd\":\"/home/user/project\",\"session_id\":\"{sid}\",\"model\":\"GPT-5.1\",\"permissionMode\":\"default\"}}\n"
    ));
    let prompt = text_of(rng, 60);
    out.push_str(&format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{prompt}\"}}]}},\"session_id\":\"{sid}\"}}\n"
    ));
    let mut result = String::new();
    for turn in 0..=rng.below(6) {
        ts += 10;
        let mcid = format!("{:x}-{turn}-aq0x", rng.next());
        let len = 40 + rng.below(80) as usize;
        let seg = text_of(rng, len);
        result.push_str(&seg);
        out.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{seg}\"}}]}},\"session_id\":\"{sid}\",\"model_call_id\":\"{mcid}\",\"timestamp_ms\":{ts}}}\n"
        ));
        struct Call {
            id: String,
            query_id: String,
            tool: usize,
            /// 0: asked before `started`; 1: asked between `started` and `completed`; 2: asked
            /// instead of a `started`.
            placement: u64,
            approved: bool,
            arg: String,
        }
        let calls: Vec<Call> = (0..=rng.below(3))
            .map(|_| {
                *n += 1;
                let query_id = if rng.below(2) == 0 {
                    n.to_string()
                } else {
                    format!("\"q_{:04x}{n}\"", rng.below(1 << 16))
                };
                Call {
                    id: call_id(rng, *n),
                    query_id,
                    tool: rng.below(QUERIED_TOOLS.len() as u64) as usize,
                    placement: rng.below(3),
                    approved: rng.below(8) != 0,
                    arg: text_of(rng, 20),
                }
            })
            .collect();
        let request = |c: &Call, out: &mut String| {
            let (query_type, _, _, key) = QUERIED_TOOLS[c.tool];
            out.push_str(&format!(
                "{{\"type\":\"interaction_query\",\"subtype\":\"request\",\"query_type\":\"{query_type}\",\"query\":{{\"id\":{},\"{query_type}\":{{\"args\":{{\"{key}\":\"{}\",\"toolCallId\":\"{}\"}}}}}},\"session_id\":\"{sid}\"}}\n",
                c.query_id, c.arg, c.id
            ));
        };
        let response = |c: &Call, out: &mut String| {
            let (query_type, response, _, _) = QUERIED_TOOLS[c.tool];
            let decision = if c.approved {
                "{\"approved\":{}}"
            } else {
                "{\"rejected\":{\"reason\":\"not now\"}}"
            };
            out.push_str(&format!(
                "{{\"type\":\"interaction_query\",\"subtype\":\"response\",\"query_type\":\"{query_type}\",\"response\":{{\"id\":{},\"{response}\":{decision}}},\"session_id\":\"{sid}\"}}\n",
                c.query_id
            ));
        };
        for c in &calls {
            if c.placement != 1 {
                request(c, out);
                response(c, out);
            }
            if c.placement != 2 {
                ts += 3;
                let (_, _, kind, key) = QUERIED_TOOLS[c.tool];
                out.push_str(&format!(
                    "{{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"{}\",\"tool_call\":{{\"{kind}\":{{\"args\":{{\"{key}\":\"{}\",\"toolCallId\":\"{}\"}}}}}},\"model_call_id\":\"{mcid}\",\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n",
                    c.id, c.arg, c.id
                ));
            }
            if c.placement == 1 {
                request(c, out);
            }
        }
        for c in calls.iter().rev() {
            if c.placement == 1 {
                response(c, out);
            }
            ts += rng.below(3000);
            let (_, _, kind, key) = QUERIED_TOOLS[c.tool];
            let outcome = if c.approved {
                let len = 100 + rng.below(400) as usize;
                format!("{{\"success\":{{\"text\":\"{}\"}}}}", text_of(rng, len))
            } else {
                "{\"rejected\":{\"reason\":\"not now\"}}".to_owned()
            };
            out.push_str(&format!(
                "{{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"{}\",\"tool_call\":{{\"{kind}\":{{\"args\":{{\"{key}\":\"{}\",\"toolCallId\":\"{}\"}},\"result\":{outcome}}}}},\"model_call_id\":\"{mcid}\",\"session_id\":\"{sid}\",\"timestamp_ms\":{ts}}}\n",
                c.id, c.arg, c.id
            ));
        }
    }
    let fin = text_of(rng, 60);
    result.push_str(&fin);
    out.push_str(&format!(
        "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{fin}\"}}]}},\"session_id\":\"{sid}\"}}\n"
    ));
    out.push_str(&format!(
        "{{\"type\":\"result\",\"subtype\":\"success\",\"duration_ms\":{d},\"duration_api_ms\":{d},\"is_error\":false,\"result\":\"{result}\",\"session_id\":\"{sid}\",\"request_id\":\"{:x}\"}}\n",
        rng.next(),
        d = rng.below(60_000)
    ));
}
