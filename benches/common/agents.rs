//! Deterministic generators of streams that look like real runs of every agent but cursor-agent
//! (whose generator is the parent's), for benches, for `examples/gen_stream.rs --agent`, and for
//! the property tests.
//!
//! Shapes follow the captures: Claude Code writes one assistant line per content block, all
//! lines of one API message repeating its `usage`, tool results of several KB, subagent lines
//! with `parent_tool_use_id`; Codex writes command items started and completed, messages and
//! reasoning completed-only, one turn per run; Gemini CLI writes assistant deltas, batches of
//! `tool_use` then their `tool_result`s in completion order, one `result` per run; Grok Build
//! writes thought and text chunks, `tool_call`s answered by `tool_call_update`s (progress with
//! a null status, then `completed` or `failed` with the output), one `end` per run; Copilot CLI
//! writes the SDK's envelope, streamed reasoning and message pieces repeated by the whole
//! message, `tool.execution_start`s completed by `tool.execution_complete`s, per-call
//! `assistant.usage`, one `result` per run. OpenCode, Pi, droid, Kimi CLI, Qwen Code and Amp are
//! in `others`, each modelled on its fixture. Parallel calls complete out of order.

use super::{Rng, text};

mod others;

/// The agents of the registry: the generators below cover every one but cursor-agent (whose
/// generator is the parent's) and the common form, and the match in `generator` is over the
/// registry's own enum, so a new agent does not compile here until it has one.
pub(crate) use sjlint::unstable::agents::Agent;

/// The agents with a generator here, in the registry's order.
pub(crate) fn generated() -> impl Iterator<Item = Agent> {
    Agent::ALL.into_iter().filter(|a| generator(*a).is_some())
}

/// The generator of one run of `agent`; `None` for cursor-agent (see `super::stream`), for
/// the common form, which is written from the others, and for the session logs (Claude Code's, Codex's, Pi's, cursor-agent's,
/// Copilot CLI's, Gemini CLI's), whose properties (no end marker, calls left open without a finding) differ from a run's.
fn generator(agent: Agent) -> Option<RunFn> {
    Some(match agent {
        Agent::Cursor
        | Agent::Common
        | Agent::ClaudeLog
        | Agent::CodexLog
        | Agent::PiLog
        | Agent::CursorLog
        | Agent::CopilotLog
        | Agent::GeminiLog => return None,
        Agent::Claude => claude_run,
        Agent::Codex => codex_run,
        Agent::Gemini => gemini_run,
        Agent::Grok => grok_run,
        Agent::Copilot => copilot_run,
        Agent::OpenCode => others::opencode_run,
        Agent::Pi => others::pi_run,
        Agent::Droid => others::droid_run,
        Agent::Kimi => others::kimi_run,
        Agent::Qwen => others::qwen_run,
        Agent::Amp => others::amp_run,
    })
}

/// One run's generator: the run's number, the order its calls complete in, the call whose
/// result is left out; returns the line each call opens on.
type RunFn = fn(&mut Rng, u64, &[usize], Option<usize>, &mut String) -> Vec<u64>;

/// About `size` bytes of whole runs of `agent`.
pub(crate) fn stream(agent: Agent, seed: u64, size: usize) -> Vec<u8> {
    stream_from(agent, seed, size, 0)
}

/// About `size` bytes of whole runs of `agent`, numbered from `first` (their ids and times
/// follow from their number): the pieces of a longer stream, each from where the one before
/// ended, so that the times of the whole stream never go back.
pub(crate) fn stream_from(agent: Agent, seed: u64, size: usize, first: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(size + (64 << 10));
    let mut run = first;
    // Each run is written apart, so that the lines of its calls are counted within it.
    let mut one = String::new();
    while out.len() < size {
        let n = 1 + rng.below(4) as usize;
        let order = shuffled(&mut rng, n);
        one.clear();
        run_of(agent, &mut rng, run, &order, None, &mut one);
        out.push_str(&one);
        run += 1;
    }
    out.into_bytes()
}

/// One run of `agent` with `order.len()` parallel tool calls that complete in `order`, the
/// result of call `skip` left out. Returns the run and the line (1-based) on which each call
/// opens, by call index.
pub(crate) fn one_run(
    agent: Agent,
    seed: u64,
    order: &[usize],
    skip: Option<usize>,
) -> (String, Vec<u64>) {
    let mut rng = Rng::new(seed);
    let mut out = String::new();
    let opened = run_of(agent, &mut rng, 0, order, skip, &mut out);
    (out, opened)
}

/// One run of `agent` appended to `out` (see [`one_run`]).
fn run_of(
    agent: Agent,
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let write = generator(agent).expect("cursor-agent's streams come from the parent module");
    write(rng, run, order, skip, out)
}

fn shuffled(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

fn words(rng: &mut Rng, len: usize) -> String {
    let mut s = String::new();
    text(rng, len, &mut s);
    s
}

/// RFC 3339 UTC with milliseconds, as Gemini CLI writes (`new Date().toISOString()`).
fn iso(ms: u64) -> String {
    let s = ms / 1000;
    let (days, rem) = (s / 86_400, s % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        ms % 1000
    )
}

fn lines(out: &str) -> u64 {
    out.bytes().filter(|&b| b == b'\n').count() as u64
}

const CLAUDE_TOOLS: &[(&str, &str)] = &[
    (
        "Bash",
        r#"{"command":"cargo test --quiet","description":"Run the tests"}"#,
    ),
    ("Read", r#"{"file_path":"/work/src/lib.rs"}"#),
    (
        "Grep",
        r#"{"pattern":"fn main","path":"/work","output_mode":"files_with_matches"}"#,
    ),
    (
        "Edit",
        r#"{"file_path":"/work/src/lib.rs","old_string":"a","new_string":"b"}"#,
    ),
];

fn claude_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let sid = format!("6170607e-7232-407c-82c3-{run:012x}");
    let usage = |rng: &mut Rng| {
        format!(
            r#"{{"input_tokens":{},"cache_creation_input_tokens":{},"cache_read_input_tokens":{},"output_tokens":{},"service_tier":"standard"}}"#,
            rng.below(20) + 1,
            rng.below(5000),
            rng.below(30000),
            rng.below(400) + 1
        )
    };
    out.push_str(&format!(
        r#"{{"type":"system","subtype":"init","cwd":"/work","session_id":"{sid}","tools":["Task","Bash","Glob","Grep","Read","Edit","Write","TodoWrite"],"mcp_servers":[],"model":"claude-sonnet-4-5-20250929","permissionMode":"default","slash_commands":["compact","review"],"apiKeySource":"none","claude_code_version":"2.0.25","output_style":"default","agents":["general-purpose"],"uuid":"{sid}-i"}}"#
    ));
    out.push('\n');
    let msg = |n: u64| format!("msg_01{run:08x}{n:08x}");
    let u = usage(rng);
    out.push_str(&format!(
        r#"{{"type":"assistant","message":{{"model":"claude-sonnet-4-5-20250929","id":"{}","type":"message","role":"assistant","content":[{{"type":"text","text":"{}"}}],"stop_reason":null,"stop_sequence":null,"usage":{u}}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"{sid}-a0"}}"#,
        msg(0),
        words(rng, 120)
    ));
    out.push('\n');
    let mut opened = vec![0; order.len()];
    let u = usage(rng);
    for (i, slot) in opened.iter_mut().enumerate() {
        let (name, input) = CLAUDE_TOOLS[i % CLAUDE_TOOLS.len()];
        *slot = lines(out) + 1;
        out.push_str(&format!(
            r#"{{"type":"assistant","message":{{"model":"claude-sonnet-4-5-20250929","id":"{}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_01{run:08x}{i:06x}","name":"{name}","input":{input}}}],"stop_reason":null,"stop_sequence":null,"usage":{u}}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"{sid}-t{i}"}}"#,
            msg(1)
        ));
        out.push('\n');
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let len = 200 + rng.below(3000) as usize;
        let body = words(rng, len);
        let error = if rng.below(10) == 0 {
            r#","is_error":true"#
        } else {
            ""
        };
        out.push_str(&format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_01{run:08x}{i:06x}","type":"tool_result","content":"{body}"{error}}}]}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"{sid}-r{i}","tool_use_result":{{"stdout":"{}","stderr":"","interrupted":false,"isImage":false}}}}"#,
            words(rng, 40)
        ));
        out.push('\n');
    }
    let u = usage(rng);
    let last = words(rng, 300);
    out.push_str(&format!(
        r#"{{"type":"assistant","message":{{"model":"claude-sonnet-4-5-20250929","id":"{}","type":"message","role":"assistant","content":[{{"type":"text","text":"{last}"}}],"stop_reason":null,"stop_sequence":null,"usage":{u}}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"{sid}-a9"}}"#,
        msg(2)
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"type":"result","subtype":"success","is_error":false,"duration_ms":{},"duration_api_ms":{},"num_turns":{},"result":"{last}","session_id":"{sid}","total_cost_usd":0.0{}1,"usage":{},"permission_denials":[],"uuid":"{sid}-z"}}"#,
        rng.below(90000),
        rng.below(90000),
        order.len() + 1,
        rng.below(9999),
        usage(rng)
    ));
    out.push('\n');
    opened
}

fn codex_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    out.push_str(&format!(
        r#"{{"type":"thread.started","thread_id":"019a2d7b-c0ed-75a0-8908-{run:012x}"}}"#
    ));
    out.push('\n');
    out.push_str("{\"type\":\"turn.started\"}\n");
    let mut n = 0;
    out.push_str(&format!(
        r#"{{"type":"item.completed","item":{{"id":"item_{n}","type":"reasoning","text":"**{}**"}}}}"#,
        words(rng, 80)
    ));
    out.push('\n');
    n += 1;
    let base = n;
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(out) + 1;
        out.push_str(&format!(
            r#"{{"type":"item.started","item":{{"id":"item_{}","type":"command_execution","command":"/bin/zsh -lc 'rg --files -g {i}'","aggregated_output":"","exit_code":null,"status":"in_progress"}}}}"#,
            base + i
        ));
        out.push('\n');
        n += 1;
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let code = i32::from(rng.below(8) == 0);
        let len = 200 + rng.below(3000) as usize;
        out.push_str(&format!(
            r#"{{"type":"item.completed","item":{{"id":"item_{}","type":"command_execution","command":"/bin/zsh -lc 'rg --files -g {i}'","aggregated_output":"{}","exit_code":{code},"status":"{}"}}}}"#,
            base + i,
            words(rng, len),
            if code == 0 { "completed" } else { "failed" }
        ));
        out.push('\n');
    }
    out.push_str(&format!(
        r#"{{"type":"item.completed","item":{{"id":"item_{n}","type":"agent_message","text":"{}"}}}}"#,
        words(rng, 300)
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"type":"turn.completed","usage":{{"input_tokens":{},"cached_input_tokens":{},"cache_write_input_tokens":0,"output_tokens":{},"reasoning_output_tokens":{}}}}}"#,
        rng.below(60000),
        rng.below(30000),
        rng.below(900),
        rng.below(300)
    ));
    out.push('\n');
    opened
}

fn gemini_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let mut ms = 1_791_560_742_000 + run * 60_000;
    let mut ts = |rng: &mut Rng| {
        ms += rng.below(900) + 1;
        iso(ms)
    };
    out.push_str(&format!(
        r#"{{"type":"init","timestamp":"{}","session_id":"5b0f7d0e-3c52-4a8e-9d0e-{run:012x}","model":"auto-gemini-2.5"}}"#,
        ts(rng)
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"type":"message","timestamp":"{}","role":"user","content":"{}"}}"#,
        ts(rng),
        words(rng, 60)
    ));
    out.push('\n');
    for _ in 0..3 {
        out.push_str(&format!(
            r#"{{"type":"message","timestamp":"{}","role":"assistant","content":"{}","delta":true}}"#,
            ts(rng),
            words(rng, 40)
        ));
        out.push('\n');
    }
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(out) + 1;
        out.push_str(&format!(
            r#"{{"type":"tool_use","timestamp":"{}","tool_name":"run_shell_command","tool_id":"run_shell_command__run_shell_command_{run}_{i}","parameters":{{"command":"ls -la src/{i}","description":"List"}}}}"#,
            ts(rng)
        ));
        out.push('\n');
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let len = 200 + rng.below(3000) as usize;
        out.push_str(&format!(
            r#"{{"type":"tool_result","timestamp":"{}","tool_id":"run_shell_command__run_shell_command_{run}_{i}","status":"success","output":"{}"}}"#,
            ts(rng),
            words(rng, len)
        ));
        out.push('\n');
    }
    for _ in 0..4 {
        out.push_str(&format!(
            r#"{{"type":"message","timestamp":"{}","role":"assistant","content":"{}","delta":true}}"#,
            ts(rng),
            words(rng, 80)
        ));
        out.push('\n');
    }
    out.push_str(&format!(
        r#"{{"type":"result","timestamp":"{}","status":"success","stats":{{"total_tokens":{},"input_tokens":{},"output_tokens":{},"cached":0,"input":0,"duration_ms":{},"tool_calls":{}}}}}"#,
        ts(rng),
        rng.below(90000),
        rng.below(80000),
        rng.below(900),
        rng.below(60000),
        order.len()
    ));
    out.push('\n');
    opened
}

const GROK_TOOLS: &[(&str, &str, &str)] = &[
    (
        "run_terminal_command",
        "execute",
        r#"{"command":"cargo test"}"#,
    ),
    ("read_file", "read", r#"{"path":"src/parse.rs"}"#),
    ("grep", "search", r#"{"pattern":"fn main","path":"src"}"#),
];

fn grok_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    out.push_str(r#"{"type":"available_commands","tools":["run_terminal_command","read_file","search_replace","grep"],"commands":["compact","review"]}"#);
    out.push('\n');
    for _ in 0..3 {
        out.push_str(&format!(
            r#"{{"type":"thought","data":"{}"}}"#,
            words(rng, 40)
        ));
        out.push('\n');
    }
    let id = |i: usize| format!("call-7f1e2b90-1c4d-4e0a-9b7e-{run:012x}-{i}");
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(out) + 1;
        let (name, kind, input) = GROK_TOOLS[i % GROK_TOOLS.len()];
        out.push_str(&format!(
            r#"{{"type":"tool_call","toolCallId":"{}","title":"{name} {i}","kind":"{kind}","status":"pending","toolName":"{name}","rawInput":{input},"content":[],"locations":[]}}"#,
            id(i)
        ));
        out.push('\n');
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        out.push_str(&format!(
            r#"{{"type":"tool_call_update","toolCallId":"{}","status":null,"content":[],"rawOutput":null,"locations":[]}}"#,
            id(i)
        ));
        out.push('\n');
        let len = 200 + rng.below(3000) as usize;
        let output = words(rng, len);
        let status = if rng.below(8) == 0 {
            "failed"
        } else {
            "completed"
        };
        out.push_str(&format!(
            r#"{{"type":"tool_call_update","toolCallId":"{}","status":"{status}","content":[{{"type":"content","content":{{"type":"text","text":"{output}"}}}}],"rawOutput":"{output}","locations":[]}}"#,
            id(i)
        ));
        out.push('\n');
    }
    for _ in 0..4 {
        out.push_str(&format!(r#"{{"type":"text","data":"{}"}}"#, words(rng, 80)));
        out.push('\n');
    }
    let (input, output) = (rng.below(90000), rng.below(900));
    out.push_str(&format!(
        r#"{{"type":"usage","messageId":"msg-{run}","stopReason":"end_turn","usage":{{"input_tokens":{input},"output_tokens":{output},"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"reasoning_tokens":0}}}}"#
    ));
    out.push('\n');
    out.push_str(&format!(
        r#"{{"type":"end","stopReason":"end_turn","sessionId":"019fe1c2-7a10-7b2e-9c41-{run:012x}","requestId":"5e0c7a11-2b3d-4c5e-8f90-{run:012x}","usage":{{"input_tokens":{input},"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":{output},"reasoning_tokens":0,"total_tokens":{}}},"num_turns":{}}}"#,
        input + output,
        1 + order.len()
    ));
    out.push('\n');
    opened
}

const COPILOT_TOOLS: &[(&str, &str)] = &[
    (
        "bash",
        r#"{"command":"cargo test --quiet","description":"Run the tests"}"#,
    ),
    ("view", r#"{"path":"/work/src/lib.rs"}"#),
    ("grep", r#"{"pattern":"fn main","path":"/work"}"#),
    (
        "str_replace_editor",
        r#"{"command":"str_replace","path":"/work/src/lib.rs","old_str":"a","new_str":"b"}"#,
    ),
];

/// The lines of one Copilot CLI run: the SDK's envelope, each event's `parentId` the id of the
/// one before.
struct CopilotRun<'o> {
    out: &'o mut String,
    run: u64,
    n: u64,
    ms: u64,
}

impl CopilotRun<'_> {
    fn event(&mut self, ty: &str, data: &str, ephemeral: bool) {
        let parent = if self.n == 0 {
            "null".to_owned()
        } else {
            format!("\"{:08x}-0000-4000-8000-{:012x}\"", self.run, self.n - 1)
        };
        self.ms += 37;
        self.out.push_str(&format!(
            r#"{{"type":"{ty}","data":{data},"id":"{:08x}-0000-4000-8000-{:012x}","timestamp":"{}","parentId":{parent}{}}}"#,
            self.run,
            self.n,
            iso(self.ms),
            if ephemeral { r#","ephemeral":true"# } else { "" }
        ));
        self.out.push('\n');
        self.n += 1;
    }

    /// A message streamed in `pieces` pieces, then the whole message.
    fn message(&mut self, rng: &mut Rng, id: &str, pieces: usize, requests: &str) {
        let mut whole = String::new();
        for _ in 0..pieces {
            let piece = words(rng, 60);
            self.event(
                "assistant.message_delta",
                &format!(r#"{{"messageId":"{id}","deltaContent":"{piece}"}}"#),
                true,
            );
            whole.push_str(&piece);
        }
        self.event(
            "assistant.message",
            &format!(
                r#"{{"messageId":"{id}","content":"{whole}","toolRequests":[{requests}],"outputTokens":{}}}"#,
                10 + rng.below(400)
            ),
            false,
        );
    }
}

fn copilot_run(
    rng: &mut Rng,
    run: u64,
    order: &[usize],
    skip: Option<usize>,
    out: &mut String,
) -> Vec<u64> {
    let start = lines(out);
    let mut r = CopilotRun {
        out,
        run,
        n: 0,
        ms: 1_790_000_000_000 + run * 60_000,
    };
    r.event(
        "session.tools_updated",
        r#"{"model":"claude-sonnet-4.5"}"#,
        true,
    );
    r.event(
        "user.message",
        &format!(r#"{{"content":"{}"}}"#, words(rng, 80)),
        false,
    );
    r.event("assistant.turn_start", r#"{"turnId":"0"}"#, false);
    let reasoning = format!("rs_{run:x}");
    let mut thought = String::new();
    for _ in 0..3 {
        let piece = words(rng, 40);
        r.event(
            "assistant.reasoning_delta",
            &format!(r#"{{"reasoningId":"{reasoning}","deltaContent":"{piece}"}}"#),
            true,
        );
        thought.push_str(&piece);
    }
    r.event(
        "assistant.reasoning",
        &format!(r#"{{"reasoningId":"{reasoning}","content":"{thought}"}}"#),
        false,
    );
    let id = |i: usize| format!("toolu_vrtx_01{run:012x}{i:04}");
    let requests: Vec<String> = (0..order.len())
        .map(|i| {
            let (name, args) = COPILOT_TOOLS[i % COPILOT_TOOLS.len()];
            format!(
                r#"{{"toolCallId":"{}","name":"{name}","arguments":{args},"type":"function"}}"#,
                id(i)
            )
        })
        .collect();
    r.message(rng, &format!("msg_{run:x}_0"), 2, &requests.join(","));
    let mut opened = vec![0; order.len()];
    for (i, slot) in opened.iter_mut().enumerate() {
        *slot = lines(r.out) - start + 1;
        let (name, args) = COPILOT_TOOLS[i % COPILOT_TOOLS.len()];
        r.event(
            "tool.execution_start",
            &format!(
                r#"{{"toolCallId":"{}","toolName":"{name}","arguments":{args},"turnId":"0"}}"#,
                id(i)
            ),
            false,
        );
    }
    for &i in order {
        if Some(i) == skip {
            continue;
        }
        let len = 200 + rng.below(3000) as usize;
        let output = words(rng, len);
        let data = if rng.below(8) == 0 {
            format!(
                r#"{{"toolCallId":"{}","success":false,"error":{{"message":"{output}","code":"failure"}},"turnId":"0"}}"#,
                id(i)
            )
        } else {
            format!(
                r#"{{"toolCallId":"{}","success":true,"result":{{"content":"{output}","detailedContent":"{output}"}},"turnId":"0"}}"#,
                id(i)
            )
        };
        r.event("tool.execution_complete", &data, false);
    }
    r.event("assistant.turn_end", r#"{"turnId":"0"}"#, false);
    r.event("assistant.turn_start", r#"{"turnId":"1"}"#, false);
    r.message(rng, &format!("msg_{run:x}_1"), 4, "");
    let (input, output) = (rng.below(90000), rng.below(900));
    r.event(
        "assistant.usage",
        &format!(
            r#"{{"model":"claude-sonnet-4.5","inputTokens":{input},"outputTokens":{output},"cacheReadTokens":0,"cacheWriteTokens":0,"cost":1}}"#
        ),
        true,
    );
    r.event("assistant.turn_end", r#"{"turnId":"1"}"#, false);
    r.ms += 40;
    let ts = iso(r.ms);
    out.push_str(&format!(
        r#"{{"type":"result","timestamp":"{ts}","sessionId":"8f1c2a9e-4b7d-4e3a-9c5f-{run:012x}","exitCode":0,"usage":{{"premiumRequests":1,"totalApiDurationMs":{},"sessionDurationMs":{},"codeChanges":{{"linesAdded":0,"linesRemoved":0,"filesModified":[]}}}}}}"#,
        1000 + rng.below(9000),
        20_000 + rng.below(9000)
    ));
    out.push('\n');
    opened
}
