//! The runs of the agents whose generators came last: OpenCode, Pi, droid, Kimi CLI, Qwen Code
//! and Amp, each modelled on its clean fixture (`testdata/agents/<name>/tool-run.ndjson`) and
//! its format notes, with tool outputs of several KB and parallel calls answered out of order.
//!
//! This module owns only the shapes of these runs; the stream around them (sizes, seeds, which
//! agent) is the parent's. Every run it writes must be clean and recognised as its agent.

use super::{Rng, iso, lines, words};

/// Where tool `i` of a run is: the file read, the command run.
fn target(i: usize) -> String {
    format!("src/mod_{i}.rs")
}

const OPENCODE_TOOLS: &[&str] = &["read", "bash", "grep", "edit"];

/// OpenCode (`opencode run --format json`): steps of a model call (`step_start` … `step_finish`),
/// a `text` part when it completes, and one `tool_use` line for each call when it has finished
/// (there is no start line), in completion order.
pub(super) fn opencode_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let sid = format!("ses_5a1c9e2f7ffe{run:012x}");
    let mut ms = 1_790_000_000_000 + run * 60_000;
    let mut part = 0u64;
    let mut line = |out: &mut String, ty: &str, ms: u64, body: &str| {
        out.push_str(&format!(
            r#"{{"type":"{ty}","timestamp":{ms},"sessionID":"{sid}","part":{{"id":"prt_a63e1c{run:08x}{part:06x}","sessionID":"{sid}","messageID":{body}}}}}"#
        ));
        out.push('\n');
        part += 1;
    };
    let snapshot = "4f2a9c1d0b7e3a5f6c8d2e1b0a9f8e7d6c5b4a39";
    let msg = |n: u64| format!("\"msg_a63e1c{run:08x}{n:04x}\"");
    ms += 400;
    line(
        out,
        "step_start",
        ms,
        &format!(r#"{},"type":"step-start","snapshot":"{snapshot}""#, msg(0)),
    );
    ms += 1700;
    line(
        out,
        "text",
        ms,
        &format!(
            r#"{},"type":"text","text":"{}","time":{{"start":{},"end":{}}}"#,
            msg(0),
            words(rng, 120),
            ms - 370,
            ms - 2
        ),
    );
    let mut opened = vec![0; order.len()];
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        opened[i] = lines(out) + 1;
        let tool = OPENCODE_TOOLS[i % OPENCODE_TOOLS.len()];
        let start = ms + 10;
        ms += 200 + rng.below(3000);
        let state = opencode_state(rng, i, start, ms - 2);
        line(
            out,
            "tool_use",
            ms,
            &format!(
                r#"{},"type":"tool","callID":"toolu_01{run:012x}{i:04}","tool":"{tool}","state":{state}"#,
                msg(0)
            ),
        );
    }
    ms += 110;
    let t = opencode_tokens(rng);
    line(
        out,
        "step_finish",
        ms,
        &format!(
            r#"{},"type":"step-finish","reason":"tool-calls","snapshot":"{snapshot}","cost":0.0{},"tokens":{t}"#,
            msg(0),
            1 + rng.below(999)
        ),
    );
    ms += 60;
    line(
        out,
        "step_start",
        ms,
        &format!(r#"{},"type":"step-start","snapshot":"{snapshot}""#, msg(1)),
    );
    ms += 1700;
    line(
        out,
        "text",
        ms,
        &format!(
            r#"{},"type":"text","text":"{}","time":{{"start":{},"end":{}}}"#,
            msg(1),
            words(rng, 300),
            ms - 800,
            ms - 2
        ),
    );
    ms += 110;
    let t = opencode_tokens(rng);
    line(
        out,
        "step_finish",
        ms,
        &format!(
            r#"{},"type":"step-finish","reason":"stop","snapshot":"{snapshot}","cost":0.00{},"tokens":{t}"#,
            msg(1),
            1 + rng.below(99)
        ),
    );
    opened
}

/// `part.tokens` of an OpenCode step: its own, not the run's.
fn opencode_tokens(rng: &mut Rng) -> String {
    let (input, output, read) = (rng.below(20_000), rng.below(400), rng.below(16_000));
    format!(
        r#"{{"input":{input},"output":{output},"reasoning":0,"cache":{{"read":{read},"write":0}},"total":{}}}"#,
        input + output + read
    )
}

/// `part.state` of an OpenCode tool call that ran from `start` to `end`: completed with its
/// output, or now and then failed.
fn opencode_state(rng: &mut Rng, i: usize, start: u64, end: u64) -> String {
    if rng.below(10) == 0 {
        return format!(
            r#"{{"status":"error","input":{{"filePath":"/work/{}"}},"error":"{}","time":{{"start":{start},"end":{end}}}}}"#,
            target(i),
            words(rng, 60)
        );
    }
    let len = 200 + rng.below(3000) as usize;
    format!(
        r#"{{"status":"completed","input":{{"filePath":"/work/{}"}},"output":"{}","title":"{}","metadata":{{"preview":"{}"}},"time":{{"start":{start},"end":{end}}}}}"#,
        target(i),
        words(rng, len),
        target(i),
        words(rng, 60)
    )
}

const PI_TOOLS: &[&str] = &["bash", "read", "grep", "edit"];

/// The usage of one of Pi's assistant messages, with its cost.
fn pi_usage(rng: &mut Rng) -> String {
    let (input, output, read) = (rng.below(3000), rng.below(300), rng.below(6000));
    format!(
        r#"{{"input":{input},"output":{output},"cacheRead":{read},"cacheWrite":0,"totalTokens":{},"cost":{{"input":0.00{input},"output":0.000{output},"cacheRead":0.0,"cacheWrite":0.0,"total":0.01{input}}}}}"#,
        input + output + read
    )
}

/// An assistant message of Pi's: `content` (JSON blocks), usage and stop reason.
fn pi_assistant(content: &str, usage: &str, stop: &str, ms: u64) -> String {
    format!(
        r#"{{"role":"assistant","content":[{content}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{usage},"stopReason":"{stop}","timestamp":{ms}}}"#
    )
}

/// An assistant message of Pi's streamed as its text grows: `message_start`, one
/// `message_update` a piece (each repeating the message so far), `message_end`.
fn pi_streamed(
    out: &mut String,
    rng: &mut Rng,
    pieces: usize,
    tools: &str,
    stop: &str,
    ms: u64,
) -> String {
    let empty = r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#;
    out.push_str(&format!(
        r#"{{"type":"message_start","message":{}}}"#,
        pi_assistant("", empty, "stop", ms)
    ));
    out.push('\n');
    let mut text = String::new();
    for _ in 0..pieces {
        let delta = words(rng, 60);
        text.push_str(&delta);
        let partial = pi_assistant(
            &format!(r#"{{"type":"text","text":"{text}"}}"#),
            empty,
            "stop",
            ms,
        );
        out.push_str(&format!(
            r#"{{"type":"message_update","message":{partial},"assistantMessageEvent":{{"type":"text_delta","contentIndex":0,"delta":"{delta}","partial":{partial}}}}}"#
        ));
        out.push('\n');
    }
    let mut content = format!(r#"{{"type":"text","text":"{text}"}}"#);
    content.push_str(tools);
    let whole = pi_assistant(&content, &pi_usage(rng), stop, ms);
    out.push_str(&format!(r#"{{"type":"message_end","message":{whole}}}"#));
    out.push('\n');
    whole
}

/// Pi (`pi -p --mode json`): the session header, `agent_start`, turns of one assistant message
/// each (streamed, `message_update` repeating the message so far), its tool calls run
/// (`tool_execution_start` … `tool_execution_end`, ends in completion order) and their results
/// as messages, `turn_end` with the turn's message and results, and `agent_end` with every
/// message of the run.
pub(super) fn pi_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let mut ms = 1_790_000_000_000 + run * 60_000;
    out.push_str(&format!(
        r#"{{"type":"session","version":3,"id":"019a8f3c-5b2e-7c41-9d3a-{run:012x}","timestamp":"{}","cwd":"/home/dev/shop-api"}}"#,
        iso(ms)
    ));
    out.push('\n');
    out.push_str("{\"type\":\"agent_start\"}\n{\"type\":\"turn_start\"}\n");
    ms += 150;
    let user = format!(
        r#"{{"role":"user","content":[{{"type":"text","text":"{}"}}],"timestamp":{ms}}}"#,
        words(rng, 80)
    );
    for ty in ["message_start", "message_end"] {
        out.push_str(&format!(r#"{{"type":"{ty}","message":{user}}}"#));
        out.push('\n');
    }
    let mut messages = vec![user];
    let id = |i: usize| format!("toolu_01{run:012x}{i:04}");
    let args = |i: usize| format!(r#"{{"path":"{}"}}"#, target(i));
    let calls: String = (0..order.len())
        .map(|i| {
            format!(
                r#",{{"type":"toolCall","id":"{}","name":"{}","arguments":{}}}"#,
                id(i),
                PI_TOOLS[i % PI_TOOLS.len()],
                args(i)
            )
        })
        .collect();
    ms += 900;
    let first = pi_streamed(out, rng, 3, &calls, "toolUse", ms);
    messages.push(first.clone());
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(out) + 1;
        out.push_str(&format!(
            r#"{{"type":"tool_execution_start","toolCallId":"{}","toolName":"{}","args":{}}}"#,
            id(i),
            PI_TOOLS[i % PI_TOOLS.len()],
            args(i)
        ));
        out.push('\n');
    }
    let mut results = Vec::new();
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let name = PI_TOOLS[i % PI_TOOLS.len()];
        let len = 200 + rng.below(3000) as usize;
        let output = words(rng, len);
        let error = rng.below(10) == 0;
        let result =
            format!(r#"{{"content":[{{"type":"text","text":"{output}"}}],"details":{{}}}}"#);
        out.push_str(&format!(
            r#"{{"type":"tool_execution_end","toolCallId":"{}","toolName":"{name}","result":{result},"isError":{error}}}"#,
            id(i)
        ));
        out.push('\n');
        ms += 200 + rng.below(3000);
        let message = format!(
            r#"{{"role":"toolResult","toolCallId":"{}","toolName":"{name}","content":[{{"type":"text","text":"{output}"}}],"details":{{}},"isError":{error},"timestamp":{ms}}}"#,
            id(i)
        );
        for ty in ["message_start", "message_end"] {
            out.push_str(&format!(r#"{{"type":"{ty}","message":{message}}}"#));
            out.push('\n');
        }
        results.push(message);
    }
    out.push_str(&format!(
        r#"{{"type":"turn_end","message":{first},"toolResults":[{}]}}"#,
        results.join(",")
    ));
    out.push('\n');
    messages.extend(results);
    out.push_str("{\"type\":\"turn_start\"}\n");
    ms += 800;
    let last = pi_streamed(out, rng, 4, "", "stop", ms);
    out.push_str(&format!(
        r#"{{"type":"turn_end","message":{last},"toolResults":[]}}"#
    ));
    out.push('\n');
    messages.push(last);
    out.push_str(&format!(
        r#"{{"type":"agent_end","messages":[{}]}}"#,
        messages.join(",")
    ));
    out.push('\n');
    opened
}

const DROID_TOOLS: &[&str] = &["Read", "Execute", "Grep", "Edit"];

/// Factory droid (`droid exec -o stream-json`): `system` init, the prompt and the assistant's
/// flat messages, a reasoning line, `tool_call`s answered by `tool_result`s of the same `id` in
/// completion order, and the terminal `completion` with the run's usage.
pub(super) fn droid_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let sid = format!("5f3c2a1e-8b7d-4e2f-9a6c-{run:012x}");
    let mut ms = 1_790_000_000_000 + run * 60_000;
    out.push_str(&format!(
        r#"{{"type":"system","subtype":"init","cwd":"/home/dev/api","session_id":"{sid}","tools":["Read","LS","Execute","Edit","Create","Grep","Glob","TodoWrite"],"model":"claude-sonnet-4-5-20250929"}}"#
    ));
    out.push('\n');
    let message = |out: &mut String, rng: &mut Rng, role: &str, n: u64, len: usize, ms: u64| {
        let text = words(rng, len);
        out.push_str(&format!(
            r#"{{"type":"message","role":"{role}","id":"msg_01{run:08x}{n:04x}","text":"{text}","timestamp":{ms},"session_id":"{sid}"}}"#
        ));
        out.push('\n');
        text
    };
    ms += 1000;
    message(out, rng, "user", 0, 80, ms);
    out.push_str(&format!(
        r#"{{"type":"reasoning","id":"rsn_01{run:08x}","text":"{}","session_id":"{sid}"}}"#,
        words(rng, 120)
    ));
    out.push('\n');
    ms += 1150;
    message(out, rng, "assistant", 1, 100, ms);
    let id = |i: usize| format!("toolu_01{run:012x}{i:04}");
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(out) + 1;
        let tool = DROID_TOOLS[i % DROID_TOOLS.len()];
        ms += 150;
        out.push_str(&format!(
            r#"{{"type":"tool_call","id":"{}","messageId":"msg_01{run:08x}0001","toolId":"{tool}","toolName":"{tool}","parameters":{{"file_path":"/home/dev/api/{}"}},"timestamp":{ms},"session_id":"{sid}"}}"#,
            id(i),
            target(i)
        ));
        out.push('\n');
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let tool = DROID_TOOLS[i % DROID_TOOLS.len()];
        let len = 200 + rng.below(3000) as usize;
        ms += 40 + rng.below(4000);
        out.push_str(&format!(
            r#"{{"type":"tool_result","id":"{}","messageId":"msg_01{run:08x}0001","toolId":"{tool}","isError":{},"value":"{}","timestamp":{ms},"session_id":"{sid}"}}"#,
            id(i),
            rng.below(10) == 0,
            words(rng, len)
        ));
        out.push('\n');
    }
    ms += 440;
    let last = message(out, rng, "assistant", 2, 300, ms);
    out.push_str(&format!(
        r#"{{"type":"completion","finalText":"{last}","numTurns":{},"durationMs":{},"session_id":"{sid}","timestamp":{},"usage":{{"input_tokens":{},"output_tokens":{},"cache_read_input_tokens":{},"cache_creation_input_tokens":{},"thinking_tokens":{}}}}}"#,
        1 + order.len(),
        5000 + rng.below(9000),
        ms + 10,
        rng.below(30_000),
        rng.below(900),
        rng.below(20_000),
        rng.below(4000),
        rng.below(200)
    ));
    out.push('\n');
    opened
}

const KIMI_TOOLS: &[&str] = &["Shell", "ReadFile", "Grep", "StrReplaceFile"];

/// Kimi CLI (`kimi --print --output-format stream-json`): OpenAI chat messages, an assistant
/// message whose `tool_calls` carry their arguments as a JSON string, one `tool` message a call
/// in completion order, the final answer, and Kimi Code's resume hint. Call ids number the
/// calls of the whole stream, as they do a session's.
pub(super) fn kimi_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let id = |i: usize| {
        format!(
            "{}:{}",
            KIMI_TOOLS[i % KIMI_TOOLS.len()],
            run * 8 + i as u64
        )
    };
    let calls: Vec<String> = (0..order.len())
        .map(|i| {
            format!(
                r#"{{"type":"function","id":"{}","function":{{"name":"{}","arguments":"{{\"path\": \"{}\"}}"}}}}"#,
                id(i),
                KIMI_TOOLS[i % KIMI_TOOLS.len()],
                target(i)
            )
        })
        .collect();
    let opened = vec![lines(out) + 1; order.len()];
    out.push_str(&format!(
        r#"{{"role":"assistant","content":"{}","tool_calls":[{}]}}"#,
        words(rng, 100),
        calls.join(",")
    ));
    out.push('\n');
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let len = 200 + rng.below(3000) as usize;
        out.push_str(&format!(
            r#"{{"role":"tool","tool_call_id":"{}","content":"{}"}}"#,
            id(i),
            words(rng, len)
        ));
        out.push('\n');
    }
    out.push_str(&format!(
        r#"{{"role":"assistant","content":"{}"}}"#,
        words(rng, 300)
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"role":"meta","type":"session.resume_hint","session_id":"session_01JC8Z3Q4M{run:016X}","command":"kimi -r session_01JC8Z3Q4M{run:016X}","content":"To resume this session: kimi -r session_01JC8Z3Q4M{run:016X}"}}"#
    ));
    out.push('\n');
    opened
}

/// Qwen Code (`qwen -p … --output-format stream-json`, Claude Code's shape): its own init
/// fields, one assistant line per content block (each a `uuid`, usage with `total_tokens`), one
/// user line a tool result in completion order, and a `result` without a cost.
pub(super) fn qwen_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let sid = format!("6f1c2b7e-3d4a-4e9b-9a51-{run:012x}");
    let mut n = 0u64;
    let mut uuid = || {
        n += 1;
        format!("a3e0d5c1-7b2f-4f8e-{run:04x}-{n:012x}")
    };
    out.push_str(&format!(
        r#"{{"type":"system","subtype":"init","uuid":"{sid}","session_id":"{sid}","cwd":"/home/dev/shop","tools":["task","list_directory","read_file","grep_search","glob","edit","write_file","run_shell_command"],"mcp_servers":[],"model":"qwen3-coder-plus","permission_mode":"yolo","slash_commands":["bug","compress","init","summary"],"qwen_code_version":"0.2.1","agents":["general-purpose"]}}"#
    ));
    out.push('\n');
    let usage = |rng: &mut Rng| {
        let (input, output) = (rng.below(20_000) + 1, rng.below(400) + 1);
        format!(
            r#"{{"input_tokens":{input},"output_tokens":{output},"cache_read_input_tokens":{},"total_tokens":{}}}"#,
            rng.below(input),
            input + output
        )
    };
    let mut assistant = |out: &mut String, rng: &mut Rng, msg: u64, block: &str, stop: &str| {
        out.push_str(&format!(
            r#"{{"type":"assistant","uuid":"{}","session_id":"{sid}","parent_tool_use_id":null,"message":{{"id":"b7c9e2a4-1f3d-4a6b-{run:04x}-{msg:012x}","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{block}],"stop_reason":{stop},"usage":{}}}}}"#,
            uuid(),
            usage(rng)
        ));
        out.push('\n');
    };
    let first = format!(r#"{{"type":"text","text":"{}"}}"#, words(rng, 120));
    assistant(out, rng, 0, &first, "null");
    let id = |i: usize| format!("call_9f2c4e7a{run:08x}{i:04}");
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(out) + 1;
        assistant(
            out,
            rng,
            0,
            &format!(
                r#"{{"type":"tool_use","id":"{}","name":"read_file","input":{{"absolute_path":"/home/dev/shop/{}"}}}}"#,
                id(i),
                target(i)
            ),
            "null",
        );
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let len = 200 + rng.below(3000) as usize;
        out.push_str(&format!(
            r#"{{"type":"user","uuid":"d2b6e9f0-4a1c-4e7d-{run:04x}-{i:012x}","session_id":"{sid}","parent_tool_use_id":null,"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{}","content":"{}","is_error":{}}}]}}}}"#,
            id(i),
            words(rng, len),
            rng.below(10) == 0
        ));
        out.push('\n');
    }
    let last = words(rng, 300);
    assistant(
        out,
        rng,
        1,
        &format!(r#"{{"type":"text","text":"{last}"}}"#),
        r#""end_turn""#,
    );
    let (input, output) = (rng.below(40_000) + 1, rng.below(900) + 1);
    out.push_str(&format!(
        r#"{{"type":"result","subtype":"success","uuid":"0a9e7c3f-5b1d-4f2a-9c8e-{run:012x}","session_id":"{sid}","is_error":false,"duration_ms":{},"duration_api_ms":{},"num_turns":2,"result":"{last}","usage":{{"input_tokens":{input},"output_tokens":{output},"cache_read_input_tokens":{},"total_tokens":{}}},"permission_denials":[]}}"#,
        5000 + rng.below(9000),
        3000 + rng.below(5000),
        rng.below(input),
        input + output
    ));
    out.push('\n');
    opened
}

const AMP_TOOLS: &[(&str, &str)] = &[
    ("Bash", r#"{"cmd":"npm test","cwd":"/home/dev/shop"}"#),
    ("Read", r#"{"path":"/home/dev/shop/package.json"}"#),
    (
        "Grep",
        r#"{"pattern":"describe\\(","path":"/home/dev/shop/test"}"#,
    ),
    (
        "edit_file",
        r#"{"path":"/home/dev/shop/src/cart.ts","old_str":"a","new_str":"b"}"#,
    ),
];

/// Amp (`amp -x … --stream-json`, Claude Code's shape): an init with its `T-` thread id and no
/// model, the prompt echoed, an assistant message holding text and its parallel `tool_use`
/// blocks, one user line a tool result in completion order, and a `result` without usage.
pub(super) fn amp_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let sid = format!("T-019c4a1e-7b3d-71c2-9e4f-{run:012x}");
    out.push_str(&format!(
        r#"{{"type":"system","subtype":"init","cwd":"/home/dev/shop","session_id":"{sid}","tools":["Bash","create_file","edit_file","finder","glob","Grep","oracle","Read","Task","web_search"],"mcp_servers":[]}}"#
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"{}"}}]}},"parent_tool_use_id":null,"session_id":"{sid}"}}"#,
        words(rng, 80)
    ));
    out.push('\n');
    let usage = |rng: &mut Rng| {
        format!(
            r#"{{"input_tokens":{},"cache_creation_input_tokens":{},"cache_read_input_tokens":{},"output_tokens":{},"max_tokens":968000,"service_tier":"standard"}}"#,
            rng.below(20_000) + 1,
            rng.below(2000),
            rng.below(16_000),
            rng.below(400) + 1
        )
    };
    let id = |i: usize| format!("toolu_01HfQm{run:012x}{i:04}");
    let mut content = format!(r#"{{"type":"text","text":"{}"}}"#, words(rng, 120));
    for i in 0..order.len() {
        let (name, input) = AMP_TOOLS[i % AMP_TOOLS.len()];
        content.push_str(&format!(
            r#",{{"type":"tool_use","id":"{}","name":"{name}","input":{input}}}"#,
            id(i)
        ));
    }
    let opened = vec![lines(out) + 1; order.len()];
    out.push_str(&format!(
        r#"{{"type":"assistant","message":{{"type":"message","role":"assistant","content":[{content}],"stop_reason":"tool_use","usage":{}}},"parent_tool_use_id":null,"session_id":"{sid}"}}"#,
        usage(rng)
    ));
    out.push('\n');
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let len = 200 + rng.below(3000) as usize;
        out.push_str(&format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{}","content":"{}","is_error":{}}}]}},"parent_tool_use_id":null,"session_id":"{sid}"}}"#,
            id(i),
            words(rng, len),
            rng.below(10) == 0
        ));
        out.push('\n');
    }
    let last = words(rng, 300);
    out.push_str(&format!(
        r#"{{"type":"assistant","message":{{"type":"message","role":"assistant","content":[{{"type":"text","text":"{last}"}}],"stop_reason":"end_turn","usage":{}}},"parent_tool_use_id":null,"session_id":"{sid}"}}"#,
        usage(rng)
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"type":"result","subtype":"success","duration_ms":{},"is_error":false,"num_turns":1,"result":"{last}","session_id":"{sid}"}}"#,
        5000 + rng.below(9000)
    ));
    out.push('\n');
    opened
}
