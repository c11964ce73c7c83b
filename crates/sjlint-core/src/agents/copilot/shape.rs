//! Copilot CLI's records as sjlint reads them: the borrowed views of an envelope, its `data` and
//! the `result` line, and the checks of their fields' shapes (which strings, arrays, objects and
//! counts the notes name for each type), apart from the checker's lifecycle and pairing in the
//! parent module. It must not keep state.

use super::super::{Emit, Raw, Want, expect, expect_count, require, view};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::messages::{self, Found};
use crate::vocab::Tokens;
use bumpalo::Bump;

view! {
    /// One line of the stream: a session event's envelope, or the terminal `result`. `data` is
    /// read into [`Data`] with the envelope, by whichever lane reads the record, so that the
    /// checker, which works in order, finds its fields read already; `usage`, on one line a run,
    /// is kept as its text and read into [`RunUsage`] when checked.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "data" => data: Data<'a>,
        "id" => id: Raw<'a>,
        "timestamp" => timestamp: Field<'a>,
        "parentId" => parent_id: Raw<'a>,
        "ephemeral" => ephemeral: Raw<'a>,
        "agentId" => agent_id: Raw<'a>,
        "sessionId" => session_id: Field<'a>,
        "exitCode" => exit_code: Field<'a>,
        "usage" => usage: Raw<'a>,
    }
}

view! {
    /// `data` of a session event: the keys of every type this checker reads. The strings whose
    /// type alone is checked are kept as their text, neither unescaped nor copied.
    pub struct Data<'a> {
        "content" => content: Raw<'a>,
        "transformedContent" => transformed_content: Raw<'a>,
        "attachments" => attachments: Raw<'a>,
        "deltaContent" => delta_content: Raw<'a>,
        "messageId" => message_id: Field<'a>,
        "reasoningId" => reasoning_id: Field<'a>,
        "toolRequests" => tool_requests: Raw<'a>,
        "inputTokens" => input_tokens: Field<'a>,
        "outputTokens" => output_tokens: Field<'a>,
        "cacheReadTokens" => cache_read_tokens: Field<'a>,
        "cacheWriteTokens" => cache_write_tokens: Field<'a>,
        "reasoningTokens" => reasoning_tokens: Field<'a>,
        "cost" => cost: Field<'a>,
        "duration" => duration: Field<'a>,
        "model" => model: Raw<'a>,
        "turnId" => turn_id: Field<'a>,
        "interactionId" => interaction_id: Raw<'a>,
        "parentToolCallId" => parent_tool_call_id: Field<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "toolName" => tool_name: Field<'a>,
        "arguments" => arguments: Raw<'a>,
        "mcpServerName" => mcp_server_name: Field<'a>,
        "success" => success: Field<'a>,
        "result" => result: ToolResult<'a>,
        "error" => error: ToolError<'a>,
        "message" => message: Field<'a>,
        "infoType" => info_type: Raw<'a>,
        "warningType" => warning_type: Raw<'a>,
        "errorType" => error_type: Raw<'a>,
        "statusCode" => status_code: Raw<'a>,
        "serverName" => server_name: Raw<'a>,
        "status" => status: Raw<'a>,
        "servers" => servers: Raw<'a>,
        "reason" => reason: Field<'a>,
        "agentName" => agent_name: Raw<'a>,
        "shutdownType" => shutdown_type: Raw<'a>,
        "modelMetrics" => model_metrics: Raw<'a>,
        "tokenDetails" => token_details: TokenDetails<'a>,
        "codeChanges" => code_changes: Raw<'a>,
        "totalApiDurationMs" => total_api_duration_ms: Field<'a>,
        "aborted" => aborted: Field<'a>,
        "phase" => phase: Raw<'a>,
        "sessionId" => session_id: Field<'a>,
        "selectedModel" => selected_model: Field<'a>,
        "newModel" => new_model: Field<'a>,
        "context" => context: Context<'a>,
    }
}

view! {
    /// `data.context` of a session log's `session.start` and `session.resume`: where the
    /// session runs.
    pub struct Context<'a> {
        "cwd" => cwd: Field<'a>,
    }
}

view! {
    /// `data.tokenDetails` of a `session.shutdown` (1.0.6x): the session's tokens, its input
    /// net of the cache.
    pub struct TokenDetails<'a> {
        "input" => input: TokenCount<'a>,
        "output" => output: TokenCount<'a>,
        "cache_read" => cache_read: TokenCount<'a>,
        "cache_write" => cache_write: TokenCount<'a>,
    }
}

view! {
    /// One count of `data.tokenDetails`.
    pub struct TokenCount<'a> {
        "tokenCount" => token_count: Field<'a>,
    }
}

view! {
    /// One model's entry of a `session.shutdown`'s `data.modelMetrics` (older versions have
    /// `requests` only, a count or `{count, cost}`).
    pub struct ModelMetric<'a> {
        "usage" => usage: MetricUsage<'a>,
    }
}

view! {
    /// `usage` of one model's entry of `data.modelMetrics`: its `inputTokens` hold the cache
    /// reads and writes.
    pub struct MetricUsage<'a> {
        "inputTokens" => input_tokens: Field<'a>,
        "outputTokens" => output_tokens: Field<'a>,
        "cacheReadTokens" => cache_read_tokens: Field<'a>,
        "cacheWriteTokens" => cache_write_tokens: Field<'a>,
        "reasoningTokens" => reasoning_tokens: Field<'a>,
    }
}

/// The sum of the models' `usage` in `data.modelMetrics`, each model's input less its cache
/// reads and writes; `None` when no model has a `usage` object.
struct Metrics(Option<Tokens>);

impl<'de> serde::Deserialize<'de> for Metrics {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Metrics;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of models")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Metrics, A::Error> {
                let mut sum: Option<Tokens> = None;
                while let Some((_, m)) =
                    map.next_entry::<serde::de::IgnoredAny, ModelMetric<'de>>()?
                {
                    let u = &m.usage;
                    if u.shape != Some(JsonType::Object) {
                        continue;
                    }
                    let n = |f: &Field<'_>| super::super::count(f).unwrap_or(0);
                    let (read, write) = (n(&u.cache_read_tokens), n(&u.cache_write_tokens));
                    let t = Tokens {
                        input: n(&u.input_tokens)
                            .saturating_sub(read)
                            .saturating_sub(write),
                        output: n(&u.output_tokens),
                        cache_read: read,
                        cache_write: write,
                        reasoning: n(&u.reasoning_tokens),
                    };
                    sum = Some(sum.unwrap_or_default().plus(t));
                }
                Ok(Metrics(sum))
            }
        }
        d.deserialize_any(V)
    }
}

/// The session's tokens a `session.shutdown` reports: its `tokenDetails` (input net of the
/// cache) when it has them, with the reasoning of its `modelMetrics`; else the sum of the
/// models' `usage` in `modelMetrics`; `None` when it has neither.
pub(super) fn shutdown_tokens<'a>(d: &Data<'a>, arena: &'a Bump) -> Option<Tokens> {
    let metrics = d
        .model_metrics
        .get()
        .and_then(|raw| super::super::parse::<Metrics>(raw, arena).ok())
        .and_then(|m| m.0);
    let t = &d.token_details;
    if t.shape != Some(JsonType::Object) {
        return metrics;
    }
    let n = |c: &TokenCount<'_>| super::super::count(&c.token_count).unwrap_or(0);
    Some(Tokens {
        input: n(&t.input),
        output: n(&t.output),
        cache_read: n(&t.cache_read),
        cache_write: n(&t.cache_write),
        reasoning: metrics.map_or(0, |m| m.reasoning),
    })
}

view! {
    /// `data.result` of a `tool.execution_complete`.
    pub struct ToolResult<'a> {
        "content" => content: Raw<'a>,
        "detailedContent" => detailed_content: Raw<'a>,
        "contents" => contents: Raw<'a>,
    }
}

view! {
    /// `data.error` of a failed `tool.execution_complete`.
    pub struct ToolError<'a> {
        "message" => message: Raw<'a>,
        "code" => code: Field<'a>,
    }
}

view! {
    /// `usage` of the `result` line: premium requests, durations and code changes; no tokens.
    pub struct RunUsage<'a> {
        "premiumRequests" => premium_requests: Field<'a>,
        "totalApiDurationMs" => total_api_duration_ms: Field<'a>,
        "sessionDurationMs" => session_duration_ms: Field<'a>,
        "codeChanges" => code_changes: CodeChanges<'a>,
    }
}

view! {
    /// `usage.codeChanges` of the `result` line.
    pub struct CodeChanges<'a> {
        "linesAdded" => lines_added: Field<'a>,
        "linesRemoved" => lines_removed: Field<'a>,
        "filesModified" => files_modified: Raw<'a>,
    }
}

view! {
    /// One element of `assistant.message`'s `data.toolRequests`.
    pub struct ToolRequest<'a> {
        "toolCallId" => tool_call_id: Field<'a>,
        "name" => name: Field<'a>,
        "type" => ty: Field<'a>,
    }
}

/// `data.toolRequests` of an `assistant.message`: an array of `{toolCallId, name, arguments,
/// type}`, read from its raw text into the record's arena (`type` not required of a session
/// log, `strict` false).
pub(super) fn tool_requests<'a>(
    at: (Position, &[u8]),
    d: &Data<'a>,
    strict: bool,
    arena: &'a Bump,
    emit: Emit<'_>,
) {
    let (pos, bytes) = at;
    let path = ["data", "toolRequests"];
    if !array(&d.tool_requests, false, "", pos, bytes, &path, emit) {
        return;
    }
    let Some(raw) = d.tool_requests.get() else {
        return;
    };
    let mut reqs = bumpalo::collections::Vec::new_in(arena);
    super::super::parse_array::<ToolRequest<'a>>(raw, arena, &mut reqs);
    let what = "a tool request of an `assistant.message`";
    for r in &reqs {
        let Some(JsonType::Object) = r.shape else {
            let t = r.shape.unwrap_or(JsonType::Null);
            let d = Diagnostic::from_message(
                pos,
                messages::wrong_field_type(
                    &["data", "toolRequests[]"],
                    Found::Type(t),
                    &[Want::Obj],
                ),
            );
            emit(super::at(d, bytes, &path));
            return;
        };
        for (name, f) in [
            ("toolCallId", &r.tool_call_id),
            ("name", &r.name),
            ("type", &r.ty),
        ] {
            match f.json_type() {
                // The 0.0.4xx log's requests have no `type`.
                None if !strict && name == "type" => {}
                None => {
                    emit(super::super::missing(pos, bytes, what, name));
                    return;
                }
                Some(JsonType::String) => {}
                Some(t) => {
                    let d = Diagnostic::from_message(
                        pos,
                        messages::wrong_field_type(
                            &["data", "toolRequests[]", name],
                            Found::Type(t),
                            &[Want::Str],
                        ),
                    );
                    emit(super::at(d, bytes, &path));
                    return;
                }
            }
        }
    }
}

/// The fields of a session event's `data` that are not strings, checked by their type alone.
pub(super) fn shapes(
    ty: &str,
    d: &Data<'_>,
    what: &str,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) {
    match ty {
        "session.mcp_servers_loaded" => {
            array(
                &d.servers,
                true,
                what,
                pos,
                bytes,
                &["data", "servers"],
                emit,
            );
        }
        "session.error" => {
            expect(
                d.status_code.json_type(),
                Want::Num,
                false,
                pos,
                bytes,
                &["data", "statusCode"],
                emit,
            );
        }
        "session.task_complete" => {
            expect(
                d.success.json_type(),
                Want::Bool,
                false,
                pos,
                bytes,
                &["data", "success"],
                emit,
            );
        }
        "session.shutdown" => {
            for (name, f) in [
                ("modelMetrics", &d.model_metrics),
                ("codeChanges", &d.code_changes),
            ] {
                object(f, what, pos, bytes, &["data", name], emit);
            }
            count_field(
                &d.total_api_duration_ms,
                true,
                what,
                pos,
                bytes,
                &["data", "totalApiDurationMs"],
                emit,
            );
        }
        "session.idle" | "assistant.idle" => {
            expect(
                d.aborted.json_type(),
                Want::Bool,
                false,
                pos,
                bytes,
                &["data", "aborted"],
                emit,
            );
        }
        _ => {}
    }
}

/// `usage` of the `result` line: premium requests, durations and code changes.
pub(super) fn run_usage(u: &RunUsage<'_>, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    let what = "the `usage` of a `result`";
    expect(
        u.premium_requests.json_type(),
        Want::Num,
        false,
        pos,
        bytes,
        &["usage", "premiumRequests"],
        emit,
    );
    for (name, f) in [
        ("totalApiDurationMs", &u.total_api_duration_ms),
        ("sessionDurationMs", &u.session_duration_ms),
    ] {
        count_field(f, false, what, pos, bytes, &["usage", name], emit);
    }
    let c = &u.code_changes;
    if object_shape(c.shape, pos, bytes, &["usage", "codeChanges"], emit) {
        for (name, f) in [
            ("linesAdded", &c.lines_added),
            ("linesRemoved", &c.lines_removed),
        ] {
            count_field(
                f,
                false,
                what,
                pos,
                bytes,
                &["usage", "codeChanges", name],
                emit,
            );
        }
        array(
            &c.files_modified,
            false,
            what,
            pos,
            bytes,
            &["usage", "codeChanges", "filesModified"],
            emit,
        );
    }
}

/// The strings the notes name in a session event's `data`, required (`true`) or not. A session
/// log (`strict` false) requires only the ids that pair tool calls: its 0.0.4xx records lack
/// what later versions write (`messageId`).
pub(super) fn strings(
    ty: &str,
    d: &Data<'_>,
    what: &str,
    strict: bool,
    at: (Position, &[u8]),
    emit: Emit<'_>,
) {
    let (pos, bytes) = at;
    let strings: &[(&str, Option<JsonType>, bool)] = match ty {
        "session.mcp_server_status_changed" => &[
            ("serverName", d.server_name.json_type(), true),
            ("status", d.status.json_type(), true),
        ],
        "session.tools_updated" => &[("model", d.model.json_type(), true)],
        "session.info" => &[
            ("infoType", d.info_type.json_type(), true),
            ("message", d.message.json_type(), true),
        ],
        "session.warning" => &[
            ("warningType", d.warning_type.json_type(), true),
            ("message", d.message.json_type(), true),
        ],
        "session.error" => &[
            ("errorType", d.error_type.json_type(), true),
            ("message", d.message.json_type(), true),
        ],
        "session.task_complete" => &[("reason", d.reason.json_type(), false)],
        "session.shutdown" => &[("shutdownType", d.shutdown_type.json_type(), true)],
        "user.message" => &[
            (
                "transformedContent",
                d.transformed_content.json_type(),
                false,
            ),
            ("interactionId", d.interaction_id.json_type(), false),
            ("turnId", d.turn_id.json_type(), false),
        ],
        "assistant.turn_start" => &[
            ("turnId", d.turn_id.json_type(), true),
            ("interactionId", d.interaction_id.json_type(), false),
            ("model", d.model.json_type(), false),
        ],
        "assistant.turn_end" => &[
            ("turnId", d.turn_id.json_type(), true),
            ("model", d.model.json_type(), false),
        ],
        "assistant.reasoning_delta" | "assistant.reasoning" => {
            &[("reasoningId", d.reasoning_id.json_type(), true)]
        }
        "assistant.message_start" => &[("messageId", d.message_id.json_type(), true)],
        "assistant.message_delta" => &[
            ("messageId", d.message_id.json_type(), true),
            ("parentToolCallId", d.parent_tool_call_id.json_type(), false),
        ],
        "assistant.message" => &[
            ("messageId", d.message_id.json_type(), true),
            ("model", d.model.json_type(), false),
            ("turnId", d.turn_id.json_type(), false),
            ("interactionId", d.interaction_id.json_type(), false),
            ("phase", d.phase.json_type(), false),
            ("parentToolCallId", d.parent_tool_call_id.json_type(), false),
        ],
        "assistant.usage" => &[("model", d.model.json_type(), true)],
        "tool.execution_start" => &[
            ("toolCallId", d.tool_call_id.json_type(), true),
            ("toolName", d.tool_name.json_type(), true),
            ("mcpServerName", d.mcp_server_name.json_type(), false),
            ("parentToolCallId", d.parent_tool_call_id.json_type(), false),
            ("turnId", d.turn_id.json_type(), false),
            ("model", d.model.json_type(), false),
        ],
        "tool.execution_partial_result" | "tool.execution_progress" => {
            &[("toolCallId", d.tool_call_id.json_type(), false)]
        }
        "tool.execution_complete" => &[
            ("toolCallId", d.tool_call_id.json_type(), true),
            ("model", d.model.json_type(), false),
            ("interactionId", d.interaction_id.json_type(), false),
            ("turnId", d.turn_id.json_type(), false),
            ("parentToolCallId", d.parent_tool_call_id.json_type(), false),
        ],
        "subagent.started" | "subagent.completed" | "subagent.failed" => &[
            ("toolCallId", d.tool_call_id.json_type(), true),
            ("agentName", d.agent_name.json_type(), true),
        ],
        "abort" => &[("reason", d.reason.json_type(), true)],
        _ => &[],
    };
    for &(name, t, required) in strings {
        let path = ["data", name];
        if required && (strict || name == "toolCallId") {
            require(t, Want::Str, what, pos, bytes, &path, emit);
        } else {
            expect(t, Want::Str, false, pos, bytes, &path, emit);
        }
    }
}

/// The common tool kind of a Copilot CLI tool: an MCP server's tool is `mcp`, else by its name.
pub(super) fn kind_of(name: &str, mcp: bool) -> &'static str {
    if mcp {
        "mcp"
    } else {
        crate::vocab::tool_kind(name)
    }
}

/// A string kept as raw JSON (long texts): required or not.
pub(super) fn text(
    f: &Raw<'_>,
    required: bool,
    what: &str,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: Emit<'_>,
) {
    match f.json_type() {
        None if required => emit(super::super::missing(pos, bytes, what, &path.join("."))),
        None | Some(JsonType::String) => {}
        Some(t) => emit(super::super::wrong_type(pos, bytes, path, t, &[Want::Str])),
    }
}

/// An array kept as raw JSON: required or not. Whether it is one.
pub(super) fn array(
    f: &Raw<'_>,
    required: bool,
    what: &str,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: Emit<'_>,
) -> bool {
    match f.json_type() {
        None => {
            if required {
                emit(super::super::missing(pos, bytes, what, &path.join(".")));
            }
            false
        }
        Some(JsonType::Array) => true,
        Some(t) => {
            emit(super::super::wrong_type(pos, bytes, path, t, &[Want::Arr]));
            false
        }
    }
}

/// A required object kept as raw JSON.
pub(super) fn object(
    f: &Raw<'_>,
    what: &str,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: Emit<'_>,
) {
    match f.json_type() {
        None => emit(super::super::missing(pos, bytes, what, &path.join("."))),
        Some(JsonType::Object) => {}
        Some(t) => emit(super::super::wrong_type(pos, bytes, path, t, &[Want::Obj])),
    }
}

/// An optional object read as a view: whether it is present and one.
pub(super) fn object_shape(
    shape: Option<JsonType>,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: Emit<'_>,
) -> bool {
    shape.is_some() && expect(shape, Want::Obj, false, pos, bytes, path, emit)
}

/// A number that counts (tokens, milliseconds): required or not. Whether it is a count.
pub(super) fn count_field(
    f: &Field<'_>,
    required: bool,
    what: &str,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: Emit<'_>,
) -> bool {
    let present = if required {
        require(f.json_type(), Want::Num, what, pos, bytes, path, emit)
    } else {
        f.is_present() && expect(f.json_type(), Want::Num, false, pos, bytes, path, emit)
    };
    if present {
        expect_count(f, pos, bytes, path, emit);
    }
    present && super::super::count(f).is_some()
}
