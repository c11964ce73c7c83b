//! The payload dialect: a web client's wrapping (seed 002), mapped into the canonical view.
//!
//! This module owns what a payload record means canonically: the body inside `payload` (read
//! by `record` as if its keys were top-level), `toolCall` as `tool_call` and its `id` as
//! `call_id`, a user `prompt` as the message, a `thinking` with `content` as one completed
//! thought, and a `content` string as one text item. `fmt::rewrite` makes the same moves, so the
//! two change together. It must not read JSON (`record` reads every dialect's keys) nor decide
//! a record's dialect.

use super::{Event, Extras, Field, JsonType, text_message};
use std::borrow::Cow;

/// Whether a record's own shape is the payload dialect's: a `payload` object, or an event type
/// only the wrapper writes.
#[inline]
pub(super) fn shape_is_payload(ev: &Event<'_>, x: &Extras<'_>) -> bool {
    x.payload || matches!(ev.ty.as_str(), Some("error" | "raw"))
}

/// Payload dialect (seed 002) → canonical view. `fmt::rewrite` makes the same moves.
pub(super) fn map_payload<'de>(ev: &mut Event<'de>, x: &mut Extras<'de>) {
    if ev.tool_call.shape.is_none()
        && let Some(tc) = x.tool_call.take()
    {
        ev.tool_call = tc.into_inner();
        if !ev.call_id.is_present() {
            ev.call_id = std::mem::take(&mut ev.tool_call.id);
        }
    }
    match ev.ty.as_str() {
        Some("user") if ev.message.shape.is_none() && x.prompt.as_str().is_some() => {
            ev.message = text_message(std::mem::take(&mut x.prompt));
        }
        Some("thinking") => {
            if !ev.text.is_present() {
                ev.text = std::mem::take(&mut x.content);
            }
            // Seed 002 never ends a thinking phase: each `thinking` without a subtype is a whole
            // thought, which the canonical form writes as `completed` with its text.
            if !ev.subtype.is_present() {
                ev.subtype = Field::Str(Cow::Borrowed("completed"));
            }
        }
        _ => {}
    }
    // "The content field can be a string": canonically, one text item.
    if ev.message.content_shape == Some(JsonType::String) {
        ev.message.content_shape = Some(JsonType::Array);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::event;
    use super::super::{Dialect, JsonType};

    #[test]
    fn payload_records_map_into_the_canonical_view() {
        let e = event(
            r#"{"type": "tool_call", "subtype": "started", "payload": {"toolCall": {"id": "shell-1", "shellToolCall": {"name": "shell", "args": {"command": "ls"}}}}}"#,
        );
        assert_eq!(e.dialect, Dialect::Payload);
        assert_eq!(e.call_id.as_str(), Some("shell-1"));
        assert_eq!(e.tool_call.kind.as_deref(), Some("shellToolCall"));
        assert_eq!(e.tool_call.args.unwrap().get(), r#"{"command": "ls"}"#);
        let c = event(
            r#"{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"shell-1","result":{"exitCode":2,"stdout":""}}}}"#,
        );
        assert_eq!(c.tool_call.kind, None);
        assert!(c.tool_call.bare_result);
        assert_eq!(c.tool_call.outcome.as_deref(), Some("success"));
        assert_eq!(c.tool_call.exit_code, Some(2));
        let t = event(r#"{"type":"thinking","payload":{"content":"hmm"}}"#);
        assert_eq!(t.subtype.as_str(), Some("completed"));
        assert_eq!(t.text.as_str(), Some("hmm"));
        let u = event(r#"{"type":"user","payload":{"prompt":"hi"}}"#);
        assert_eq!(u.message.text.as_deref(), Some("hi"));
        assert_eq!(u.message.content_shape, Some(JsonType::Array));
        let a = event(r#"{"type":"assistant","payload":{"message":{"content":"plain"}}}"#);
        assert_eq!(a.message.text.as_deref(), Some("plain"));
        assert_eq!(a.message.content_shape, Some(JsonType::Array));
        let r = event(
            r#"{"type":"result","subtype":"error","exitCode":1,"payload":{"exitCode":1,"is_error":true}}"#,
        );
        assert_eq!(r.is_error.as_bool(), Some(true));
        let dup = event(r#"{"type":"user","payload":{"prompt":"a","prompt":"b"}}"#);
        assert_eq!(dup.duplicate_key.as_deref(), Some("prompt"));
    }
}
