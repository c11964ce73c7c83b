//! Pi's records as borrowed views: the line, its `message` and the message's content blocks,
//! and the texts the common form reads from them. It owns the field names only; it must not
//! check anything (that is the checker's, `super`, and the field shapes', `super::shape`).

use crate::agents::{Raw, view};
use crate::json::{Field, JsonType};
use bumpalo::Bump;
use std::borrow::Cow;

view! {
    /// One line of the stream: the header's keys, the events' and the session events'.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "version" => version: Field<'a>,
        "id" => id: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "parentSession" => parent_session: Field<'a>,
        "message" => message: Raw<'a>,
        "messages" => messages: Raw<'a>,
        "willRetry" => will_retry: Field<'a>,
        "toolResults" => tool_results: Raw<'a>,
        "assistantMessageEvent" => event: StreamEvent<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "toolName" => tool_name: Field<'a>,
        "args" => args: Raw<'a>,
        "partialResult" => partial_result: Raw<'a>,
        "result" => result: ToolResult<'a>,
        "isError" => is_error: Field<'a>,
        "reason" => reason: Field<'a>,
        "aborted" => aborted: Field<'a>,
        "errorMessage" => error_message: Field<'a>,
        "attempt" => attempt: Field<'a>,
        "maxAttempts" => max_attempts: Field<'a>,
        "delayMs" => delay_ms: Field<'a>,
        "success" => success: Field<'a>,
        "finalError" => final_error: Field<'a>,
        "steering" => steering: Raw<'a>,
        "followUp" => follow_up: Raw<'a>,
    }
}

view! {
    /// `message` of a message or turn event: a user, assistant or tool-result message. Read from
    /// the line's raw `message` where it is checked (the line's view stays small: every record
    /// is read into it).
    pub struct Message<'a> {
        "role" => role: Field<'a>,
        "content" => content: Raw<'a>,
        "timestamp" => timestamp: Field<'a>,
        "api" => api: Field<'a>,
        "provider" => provider: Field<'a>,
        "model" => model: Field<'a>,
        "stopReason" => stop_reason: Field<'a>,
        "errorMessage" => error_message: Field<'a>,
        "usage" => usage: Usage<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "toolName" => tool_name: Field<'a>,
        "isError" => is_error: Field<'a>,
    }
}

view! {
    /// `usage` of an assistant message: this message's tokens and cost.
    pub struct Usage<'a> {
        "input" => input: Field<'a>,
        "output" => output: Field<'a>,
        "cacheRead" => cache_read: Field<'a>,
        "cacheWrite" => cache_write: Field<'a>,
        "totalTokens" => total_tokens: Field<'a>,
        "reasoning" => reasoning: Field<'a>,
        "cost" => cost: Cost<'a>,
    }
}

view! {
    /// `usage.cost`: US dollars, from Pi's catalogue of models.
    pub struct Cost<'a> {
        "input" => input: Field<'a>,
        "output" => output: Field<'a>,
        "cacheRead" => cache_read: Field<'a>,
        "cacheWrite" => cache_write: Field<'a>,
        "total" => total: Field<'a>,
    }
}

view! {
    /// `assistantMessageEvent` of a `message_update` (its `partial` message is not read).
    pub struct StreamEvent<'a> {
        "type" => ty: Field<'a>,
        "contentIndex" => content_index: Field<'a>,
        "delta" => delta: Field<'a>,
    }
}

view! {
    /// `result` of a `tool_execution_end` (`{content, details}`), or of a `compaction_end`.
    pub struct ToolResult<'a> {
        "content" => content: Raw<'a>,
    }
}

view! {
    /// A message of `agent_end.messages`, as far as the run's outcome needs it.
    pub struct Head<'a> {
        "role" => role: Field<'a>,
        "stopReason" => stop_reason: Field<'a>,
        "errorMessage" => error_message: Field<'a>,
    }
}

view! {
    /// A block of a message's `content`: `text`, `thinking`, `toolCall` or `image`.
    pub struct Block<'a> {
        "type" => ty: Field<'a>,
        "text" => text: Field<'a>,
        "thinking" => thinking: Field<'a>,
    }
}

/// The text of a message's `content`: a string, or the `text` (or `thinking`) of its blocks,
/// joined. Read only for the common form.
pub(super) fn content_text<'a>(
    content: &Raw<'a>,
    arena: &'a Bump,
    thinking: bool,
) -> Option<Cow<'a, str>> {
    let raw = content.get()?;
    if content.json_type() == Some(JsonType::String) {
        return if thinking { None } else { content.text() };
    }
    let mut blocks = bumpalo::collections::Vec::new_in(arena);
    crate::agents::parse_array::<Block<'a>>(raw, arena, &mut blocks);
    let want = if thinking { "thinking" } else { "text" };
    let mut out: Option<Cow<'a, str>> = None;
    for b in blocks.iter().filter(|b| b.ty.as_str() == Some(want)) {
        let piece = if thinking { &b.thinking } else { &b.text };
        let Some(piece) = piece.to_cow() else {
            continue;
        };
        out = Some(match out {
            None => piece,
            Some(prev) => Cow::Owned(format!("{prev}\n{piece}")),
        });
    }
    out.filter(|t| !t.is_empty())
}

/// The `message` of a line, read into its view when it is an object.
pub(super) fn message_of<'a>(raw: &Raw<'a>, arena: &'a Bump) -> Message<'a> {
    match raw.get() {
        Some(text) if raw.json_type() == Some(JsonType::Object) => {
            crate::agents::parse(text, arena).unwrap_or_default()
        }
        _ => Message::default(),
    }
}
