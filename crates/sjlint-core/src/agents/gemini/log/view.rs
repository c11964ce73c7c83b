//! What the reader of Gemini CLI's chat recordings reads of a record: a message
//! (`MessageRecord`), the session's metadata (the first line of a JSONL chat, or the whole of a
//! legacy `.json` chat with its `messages`), a metadata update (`$set`) or a rewind
//! (`$rewindTo`). One flat view: the shapes share few keys, and a key a shape lacks is absent.
//!
//! This module owns the reading only; it must not check anything.

use crate::agents::{Raw, view};
use crate::json::Field;

view! {
    /// One record of a chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`), or a message of
    /// a `messages` list.
    pub struct Record<'a> {
        "type" => ty: Field<'a>,
        "id" => id: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "content" => content: Raw<'a>,
        "model" => model: Field<'a>,
        "tokens" => tokens: Tokens<'a>,
        "toolCalls" => tool_calls: Raw<'a>,
        "thoughts" => thoughts: Raw<'a>,
        "sessionId" => session_id: Field<'a>,
        "projectHash" => project_hash: Field<'a>,
        "startTime" => start_time: Field<'a>,
        "kind" => kind: Field<'a>,
        "messages" => messages: Raw<'a>,
        "$set" => set: Set<'a>,
        "$rewindTo" => rewind_to: Field<'a>,
    }
}

view! {
    /// `$set`: the metadata keys it updates; a `messages` list replaces the chat's.
    pub struct Set<'a> {
        "messages" => messages: Raw<'a>,
        "lastUpdated" => last_updated: Field<'a>,
    }
}

view! {
    /// `tokens` of a `gemini` message: the API's usage metadata, renamed.
    pub struct Tokens<'a> {
        "input" => input: Field<'a>,
        "output" => output: Field<'a>,
        "cached" => cached: Field<'a>,
        "thoughts" => thoughts: Field<'a>,
        "tool" => tool: Field<'a>,
        "total" => total: Field<'a>,
    }
}

view! {
    /// One entry of `toolCalls`: the call and, once it ran, its result.
    pub struct ToolCall<'a> {
        "id" => id: Field<'a>,
        "name" => name: Field<'a>,
        "args" => args: Raw<'a>,
        "status" => status: Field<'a>,
        "result" => result: Raw<'a>,
        "resultDisplay" => result_display: Raw<'a>,
    }
}

view! {
    /// One entry of `thoughts`, or a part of a `content` list.
    pub struct Part<'a> {
        "subject" => subject: Raw<'a>,
        "description" => description: Raw<'a>,
        "text" => text: Raw<'a>,
    }
}

impl Record<'_> {
    /// The record carries a mark only Gemini CLI's chats write (what its evidence scores).
    pub(crate) fn marked(&self) -> bool {
        self.set.shape.is_some()
            || self.rewind_to.is_present()
            || self.project_hash.is_present()
            || self.ty.as_str() == Some("gemini")
    }

    /// What `run` and `stats` call the record: its `type`, else its shape.
    pub(crate) fn kind(&self) -> Option<&str> {
        if let Some(ty) = self.ty.as_str() {
            Some(ty)
        } else if self.set.shape.is_some() {
            Some("$set")
        } else if self.rewind_to.is_present() {
            Some("$rewindTo")
        } else if self.session_id.is_present() {
            Some("metadata")
        } else {
            None
        }
    }
}
