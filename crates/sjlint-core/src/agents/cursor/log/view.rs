//! What the reader of cursor-agent's transcripts reads of a line: its `role` (or, on the
//! role-less line that closes a turn, its `type` and `status`), its `message`, and the blocks
//! of the message's `content`.
//!
//! This module owns the reading only; it must not check anything.

use crate::agents::{Raw, view};
use crate::json::{Field, JsonType};

view! {
    /// One line of a transcript (`~/.cursor/projects/<p>/agent-transcripts/<id>/<id>.jsonl`).
    pub struct Record<'a> {
        "role" => role: Field<'a>,
        "type" => ty: Field<'a>,
        "status" => status: Field<'a>,
        "message" => message: Message<'a>,
    }
}

view! {
    /// `message` of a line: its content blocks (the transcript keeps no id, model or usage).
    pub struct Message<'a> {
        "content" => content: Raw<'a>,
    }
}

view! {
    /// A block of a message's `content`: `text`, `thinking` or `tool_use` (which has no id).
    pub struct Block<'a> {
        "type" => ty: Field<'a>,
        "text" => text: Raw<'a>,
        "thinking" => thinking: Raw<'a>,
        "name" => name: Field<'a>,
        "input" => input: Raw<'a>,
    }
}

impl Record<'_> {
    /// The line carries a mark only a transcript writes (what its evidence scores): a `role`
    /// beside a `message` object, with no `type` (Kimi CLI's lines carry their `content` at
    /// the top, cursor-agent's stream names every event by its `type`), or the line that closes
    /// a turn.
    pub(crate) fn marked(&self) -> bool {
        super::marked(
            self.role.as_str().is_some(),
            self.ty.as_str(),
            self.message.shape == Some(JsonType::Object),
        )
    }
}
