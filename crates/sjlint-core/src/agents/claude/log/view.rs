//! What the reader of Claude Code's session logs reads of a record: its envelope (the keys that
//! chain records, name the session and date them) and its `message`, read with the stream's own
//! view of an Anthropic API message ([`Message`]), since the log stores the same messages.
//!
//! This module owns the reading only; it must not check anything.

use super::super::view::Message;
use crate::agents::{Raw, view};
use crate::json::Field;

view! {
    /// One record of a session log (`~/.claude/projects/<project>/<session>.jsonl`).
    pub struct Record<'a> {
        "type" => ty: Field<'a>,
        "subtype" => subtype: Field<'a>,
        "uuid" => uuid: Field<'a>,
        "parentUuid" => parent_uuid: Field<'a>,
        "logicalParentUuid" => logical_parent_uuid: Field<'a>,
        "sessionId" => session_id: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "isSidechain" => is_sidechain: Field<'a>,
        "isMeta" => is_meta: Field<'a>,
        "isCompactSummary" => is_compact_summary: Field<'a>,
        "agentId" => agent_id: Field<'a>,
        "version" => version: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "requestId" => request_id: Field<'a>,
        "leafUuid" => leaf_uuid: Field<'a>,
        "message" => message: Message<'a>,
        "toolUseResult" => tool_use_result: Raw<'a>,
    }
}

impl Record<'_> {
    /// The record carries a mark only Claude Code's session logs write (what its evidence
    /// scores): the chain's `parentUuid` beside `isSidechain`, or one of the log's own types.
    pub(crate) fn marked(&self) -> bool {
        let ty = self.ty.as_str();
        (self.parent_uuid.is_present() && self.is_sidechain.is_present())
            || matches!(ty, Some("file-history-snapshot" | "queue-operation"))
            || (ty == Some("summary") && self.leaf_uuid.is_present())
    }
}
