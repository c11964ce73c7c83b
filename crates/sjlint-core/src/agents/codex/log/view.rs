//! What the reader of Codex's rollouts reads of a line: its envelope (`timestamp`, `type`,
//! `payload`) and the keys of the payload that the checker and the common form use, whatever
//! the payload's kind (one flat view: the kinds share few keys, and a key a kind lacks is
//! simply absent). Token counts are read with the stream's own [`Usage`] view, since the
//! rollout's `token_count` and the stream's `turn.completed` write the same five counts.
//!
//! This module owns the reading only; it must not check anything.

use crate::agents::codex::Usage;
use crate::agents::{Raw, view};
use crate::json::Field;

view! {
    /// One line of a rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    pub struct Record<'a> {
        "timestamp" => timestamp: Field<'a>,
        "type" => ty: Field<'a>,
        "payload" => payload: Payload<'a>,
    }
}

view! {
    /// The `payload` of a line: a session's metadata, a turn's context, a Responses-API item,
    /// or a persisted protocol event.
    pub struct Payload<'a> {
        "type" => ty: Field<'a>,
        "id" => id: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "cli_version" => cli_version: Field<'a>,
        "model" => model: Field<'a>,
        "role" => role: Field<'a>,
        "content" => content: Raw<'a>,
        "summary" => summary: Raw<'a>,
        "name" => name: Field<'a>,
        "arguments" => arguments: Raw<'a>,
        "input" => input: Raw<'a>,
        "action" => action: Raw<'a>,
        "call_id" => call_id: Field<'a>,
        "output" => output: Raw<'a>,
        "message" => message: Raw<'a>,
        "info" => info: Info<'a>,
    }
}

view! {
    /// `info` of a `token_count` event (`null` before the first request).
    pub struct Info<'a> {
        "total_token_usage" => total: Usage<'a>,
        "last_token_usage" => last: Usage<'a>,
    }
}

view! {
    /// One part of a message's `content` or of a reasoning item's `summary`.
    pub struct Part<'a> {
        "type" => ty: Field<'a>,
        "text" => text: Raw<'a>,
    }
}

impl Record<'_> {
    /// The line carries a mark only a rollout writes (what its evidence scores as the strong
    /// one): a kind of its own, or a protocol event in an object `payload`.
    pub(crate) fn marked(&self) -> bool {
        super::strong_kind(self.ty.as_str(), self.payload.shape)
    }
}
