//! Which agent wrote a record, from the record's own shape, and the finding for a stream that
//! mixes two agents.
//!
//! This module owns [`vote`] (the keys and types that tell cursor-agent, Claude Code, Codex,
//! Gemini CLI, Grok Build and sjlint's common form apart), [`foreign`] (the types that surely belong to
//! another agent than the stream's) and the `mixed-agents` finding. It reads a record through a
//! view of its distinguishing keys only; it must not check anything.

use super::{Agent, Vote, grok, parse, view};
use crate::diagnostic::Diagnostic;
use crate::event::{Field, JsonType};
use crate::input::record::Position;
use crate::rules::Rule;
use crate::text::Excerpt;
use crate::vocab;

view! {
    /// What [`vote`] reads of a record: the keys that tell the agents apart.
    pub struct Sniff<'a> {
        "type" => ty: Field<'a>,
        "subtype" => subtype: Field<'a>,
        "uuid" => uuid: Field<'a>,
        "parent_tool_use_id" => parent_tool_use_id: Field<'a>,
        "tools" => tools: Field<'a>,
        "mcp_servers" => mcp_servers: Field<'a>,
        "claude_code_version" => claude_code_version: Field<'a>,
        "total_cost_usd" => total_cost_usd: Field<'a>,
        "num_turns" => num_turns: Field<'a>,
        "message" => message: SniffMessage<'a>,
        "timestamp" => timestamp: Field<'a>,
        "timestamp_ms" => timestamp_ms: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "status" => status: Field<'a>,
        "severity" => severity: Field<'a>,
        "tool_id" => tool_id: Field<'a>,
        "role" => role: Field<'a>,
        "call_id" => call_id: Field<'a>,
        "model_call_id" => model_call_id: Field<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "stopReason" => stop_reason: Field<'a>,
        "apiKeySource" => api_key_source: Field<'a>,
        "payload" => payload: Field<'a>,
        "line" => line: Field<'a>,
    }
}

view! {
    /// `message` as [`vote`] reads it.
    pub struct SniffMessage<'a> {
        "id" => id: Field<'a>,
        "model" => model: Field<'a>,
        "usage" => usage: Field<'a>,
    }
}

/// Event types only Claude Code writes.
const CLAUDE_ONLY_TYPES: &[&str] = &[
    "stream_event",
    "rate_limit_event",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
    "prompt_suggestion",
    "conversation_reset",
];

/// `system` subtypes only Claude Code writes.
const CLAUDE_ONLY_SUBTYPES: &[&str] = &[
    "hook_started",
    "hook_progress",
    "hook_response",
    "status",
    "compact_boundary",
    "api_retry",
    "task_started",
    "task_progress",
    "task_updated",
    "background_tasks_changed",
    "thinking_tokens",
    "session_state_changed",
    "permission_denied",
    "local_command_output",
    "files_persisted",
];

/// Whether `ty` is an event type of Codex's (`thread.started`, `item.completed`, …).
pub fn is_codex_type(ty: &str) -> bool {
    ty.starts_with("thread.")
        || ty.starts_with("turn.")
        || ty.starts_with("item.")
        || ty == "request_user_input"
}

/// Which agent, if any, the record `text` names by its shape.
pub fn vote(text: &str, arena: &bumpalo::Bump) -> Vote {
    let Ok(s) = parse::<Sniff<'_>>(text, arena) else {
        return Vote::None;
    };
    if s.shape != Some(JsonType::Object) {
        return Vote::None;
    }
    if s.payload.is_present() {
        return Vote::Strong(Agent::Cursor);
    }
    let Some(ty) = s.ty.as_str() else {
        return Vote::None;
    };
    if s.line.json_type() == Some(JsonType::Number) && vocab::Kind::from_name(ty).is_some() {
        return Vote::Strong(Agent::Common);
    }
    if is_codex_type(ty) {
        return Vote::Strong(Agent::Codex);
    }
    let claude_marks = s.uuid.is_present()
        || s.parent_tool_use_id.is_present()
        || s.tools.is_present()
        || s.mcp_servers.is_present()
        || s.claude_code_version.is_present()
        || s.total_cost_usd.is_present()
        || s.num_turns.is_present()
        || s.message.id.is_present()
        || s.message.model.is_present()
        || s.message.usage.is_present();
    let cursor_marks =
        s.timestamp_ms.is_present() || s.call_id.is_present() || s.model_call_id.is_present();
    match ty {
        _ if CLAUDE_ONLY_TYPES.contains(&ty) => Vote::Strong(Agent::Claude),
        _ if grok::OWN_TYPES.contains(&ty) => Vote::Strong(Agent::Grok),
        // cursor-agent's `tool_call` has `call_id` and a subtype; Grok Build's a `toolCallId`.
        "tool_call" if s.tool_call_id.is_present() => Vote::Strong(Agent::Grok),
        "end" if s.stop_reason.is_present() => Vote::Strong(Agent::Grok),
        // Gemini CLI stamps every event with an ISO-8601 string; other CLIs that reuse these
        // names (opencode's `tool_use`) do not.
        "init" | "message" | "tool_use" | "tool_result" if s.timestamp.as_str().is_some() => {
            Vote::Strong(Agent::Gemini)
        }
        "system"
            if s.subtype
                .as_str()
                .is_some_and(|st| CLAUDE_ONLY_SUBTYPES.contains(&st)) =>
        {
            Vote::Strong(Agent::Claude)
        }
        "system" | "assistant" | "user" | "result" if claude_marks => Vote::Strong(Agent::Claude),
        "result" if s.status.is_present() && !s.subtype.is_present() => Vote::Strong(Agent::Gemini),
        "error" if s.severity.is_present() => Vote::Strong(Agent::Gemini),
        "system" if s.subtype.as_str() == Some("init") && s.api_key_source.is_present() => {
            Vote::Strong(Agent::Cursor)
        }
        "tool_call"
        | "thinking"
        | "interaction_query"
        | "tool-call-started"
        | "tool-call-completed" => Vote::Strong(Agent::Cursor),
        "system" | "assistant" | "user" | "result" | "raw" if cursor_marks => {
            Vote::Strong(Agent::Cursor)
        }
        "system" | "assistant" | "user" | "result" | "raw" => Vote::Weak(Agent::Cursor),
        // Codex's, and cursor's payload dialect's: the records around it tell.
        "error" => Vote::None,
        _ => Vote::Unknown,
    }
}

/// The agent a record of another agent's stream belongs to, when its type says so clearly:
/// for the finding that a stream mixes two agents.
pub fn foreign(ty: &str, this: Agent) -> Option<Agent> {
    let other = if is_codex_type(ty) {
        Agent::Codex
    } else if CLAUDE_ONLY_TYPES.contains(&ty) {
        Agent::Claude
    } else if grok::OWN_TYPES.contains(&ty) {
        Agent::Grok
    } else if matches!(ty, "init" | "message" | "tool_use" | "tool_result") {
        Agent::Gemini
    } else if ty == "tool_call" && this == Agent::Grok {
        // Both write one; Grok Build's is told apart by its keys, not its type.
        return None;
    } else if matches!(
        ty,
        "tool_call"
            | "thinking"
            | "interaction_query"
            | "tool-call-started"
            | "tool-call-completed"
    ) {
        Agent::Cursor
    } else if matches!(ty, "system" | "assistant" | "user")
        && matches!(this, Agent::Codex | Agent::Gemini | Agent::Grok)
    {
        // Claude Code and cursor-agent share these names; the finding names the first.
        Agent::Claude
    } else {
        return None;
    };
    (other != this).then_some(other)
}

/// The finding for the first record of another agent in a stream.
#[cold]
pub fn mixed(pos: Position, this: Agent, other: Agent, ty: &str) -> Diagnostic {
    Diagnostic::new(
        Rule::MixedAgents,
        pos,
        format!(
            "{} `{}` record of {} in a stream of {}",
            crate::text::article(ty),
            Excerpt(ty),
            other.display_name(),
            this.display_name()
        ),
    )
    .with_help(format!(
        "records of one agent only are checked; this one and any other {} records are not (were two captures concatenated?)",
        other.display_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Vote {
        vote(text, &bumpalo::Bump::new())
    }

    #[test]
    fn votes() {
        assert_eq!(
            v(r#"{"type":"thread.started","thread_id":"t"}"#),
            Vote::Strong(Agent::Codex)
        );
        assert_eq!(
            v(r#"{"type":"system","subtype":"init","cwd":"/","session_id":"s","tools":[]}"#),
            Vote::Strong(Agent::Claude)
        );
        assert_eq!(
            v(
                r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/","session_id":"s","model":"m","permissionMode":"default"}"#
            ),
            Vote::Strong(Agent::Cursor)
        );
        assert_eq!(
            v(
                r#"{"type":"init","timestamp":"2025-01-01T00:00:00.000Z","session_id":"s","model":"auto"}"#
            ),
            Vote::Strong(Agent::Gemini)
        );
        assert_eq!(v(r#"{"type":"result"}"#), Vote::Weak(Agent::Cursor));
        assert_eq!(v(r#"{"type":"mystery"}"#), Vote::Unknown);
        assert_eq!(v(r#"{"no":"type"}"#), Vote::None);
        assert_eq!(v(r"[1]"), Vote::None);
    }
}
