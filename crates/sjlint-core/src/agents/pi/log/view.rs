//! What the reader of Pi's session files reads of a line: the header's keys, an entry's place in
//! the tree (`id`, `parentId`), its time, and its `message`, read with the stream's own view of
//! an `AgentMessage` ([`super::super::view::Message`]), since the file stores the same messages.
//! The blocks of an assistant message's `content` are read here for their tool calls, which the
//! stream announces in events of their own.
//!
//! This module owns the reading only; it must not check anything.

use crate::agents::{Raw, view};
use crate::json::{Field, JsonType};

view! {
    /// One line of a session file (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`).
    pub struct Record<'a> {
        "type" => ty: Field<'a>,
        "version" => version: Field<'a>,
        "id" => id: Field<'a>,
        "parentId" => parent_id: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "modelId" => model_id: Field<'a>,
        "message" => message: Raw<'a>,
    }
}

view! {
    /// A block of an assistant message's `content`, as far as its tool calls go.
    pub struct Call<'a> {
        "type" => ty: Field<'a>,
        "id" => id: Field<'a>,
        "name" => name: Field<'a>,
        "arguments" => arguments: Raw<'a>,
    }
}

impl Record<'_> {
    /// The line carries a mark of Pi's session files (what its evidence scores): an entry type
    /// of the file's with its place in the tree, or, in a version 1 file, a `message` entry
    /// holding its message (the stream's messages ride on their own events); or the header.
    pub(crate) fn marked(&self) -> bool {
        let ty = self.ty.as_str();
        super::entry(
            ty,
            self.parent_id.is_present(),
            self.message.json_type() == Some(JsonType::Object),
        ) || super::header(ty, &self.version, self.model_id.is_present())
    }
}
