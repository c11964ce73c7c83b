//! What Claude Code's checker reads of a line: the borrowed views of a line, its message and
//! the message's content blocks, and the readers that go back to a line for what the first
//! reading left out (blocks beyond the first few, a string content's text, a tool result's parts).
//!
//! This module owns the reading only: `message.content` is read with the line, its first
//! [`INLINE_BLOCKS`] blocks kept in place and every long text left [`Raw`], so a line is scanned
//! once and nothing is unescaped or allocated to check it. It must not check anything.

use crate::agents::{Raw, view};
use crate::json::{Field, JsonType};
use bumpalo::Bump;
use std::borrow::Cow;

view! {
    /// One line of the stream: the fields any rule or the common mapping reads.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "subtype" => subtype: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "uuid" => uuid: Field<'a>,
        "parent_tool_use_id" => parent_tool_use_id: Field<'a>,
        "message" => message: Message<'a>,
        "is_error" => is_error: Field<'a>,
        "result" => result: Raw<'a>,
        "total_cost_usd" => total_cost_usd: Field<'a>,
        "usage" => usage: Usage<'a>,
        "num_turns" => num_turns: Field<'a>,
        "duration_ms" => duration_ms: Field<'a>,
        "model" => model: Field<'a>,
        "event" => event: StreamEvent<'a>,
        "error" => error: ErrorObj<'a>,
        "terminal_reason" => terminal_reason: Field<'a>,
        "stop_reason" => stop_reason: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "timestamp" => timestamp: Field<'a>,
        "permission_denials" => permission_denials: Raw<'a>,
        "deferred_tool_use" => deferred_tool_use: Raw<'a>,
        "ttft_ms" => ttft_ms: Field<'a>,
        "api_error_status" => api_error_status: Field<'a>,
        "is_api_error_message" => is_api_error_message: Field<'a>,
        "supersedes" => supersedes: Field<'a>,
    }
}

view! {
    /// A line read again for its `error` as a string: an assistant line's, the API error it
    /// stands for (the [`Line`]'s `error` is read as Qwen Code's object).
    pub struct ErrorLine<'a> {
        "error" => error: Field<'a>,
    }
}

view! {
    /// One of a result's `permission_denials`: a tool call a permission rule refused.
    pub struct Denial<'a> {
        "tool_name" => tool_name: Field<'a>,
        "tool_use_id" => tool_use_id: Field<'a>,
        "tool_input" => tool_input: Field<'a>,
    }
}

view! {
    /// A result's `deferred_tool_use`: the tool call the turn stopped at, for the caller to run.
    pub struct Deferred<'a> {
        "id" => id: Field<'a>,
        "name" => name: Field<'a>,
        "input" => input: Field<'a>,
    }
}

view! {
    /// `error` of a Qwen Code error result: `{type?, message}`.
    pub struct ErrorObj<'a> {
        "type" => ty: Field<'a>,
        "message" => message: Field<'a>,
    }
}

view! {
    /// `message` of an assistant or user line: an Anthropic API message.
    pub struct Message<'a> {
        "id" => id: Field<'a>,
        "role" => role: Field<'a>,
        "model" => model: Field<'a>,
        "content" => content: Content<'a>,
        "usage" => usage: Usage<'a>,
    }
}

/// How many blocks of a message's `content` are read with the line. Claude Code writes one
/// block per line; a line with more is read again for the blocks beyond ([`RawLine`]).
pub(super) const INLINE_BLOCKS: usize = 2;

/// `message.content`, read with the line: a string (its text is read again only for the
/// common form), or an array whose first [`INLINE_BLOCKS`] blocks are kept. Each block's long
/// texts stay [`Raw`], so checking skips them once and unescapes nothing.
#[derive(Debug, Default)]
pub(crate) struct Content<'a> {
    /// The JSON type of the value; `None` when absent.
    pub shape: Option<JsonType>,
    /// The first blocks of an array, `len` of them.
    pub blocks: [Block<'a>; INLINE_BLOCKS],
    pub len: usize,
    /// The array has more blocks than are kept.
    pub more: bool,
}

impl crate::agents::Slot for Content<'_> {
    fn present(&self) -> bool {
        self.shape.is_some()
    }
}

impl crate::agents::SetShape for Content<'_> {
    fn set_shape(&mut self, t: JsonType) {
        self.shape = Some(t);
    }
}

impl<'de> serde::Deserialize<'de> for Content<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut c = Content::default();
        Self::deserialize_in_place(d, &mut c)?;
        Ok(c)
    }

    fn deserialize_in_place<D: serde::Deserializer<'de>>(
        d: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess};
        struct V<'p, 'de>(&'p mut Content<'de>);
        impl<'de> serde::de::Visitor<'de> for V<'_, 'de> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                let c = self.0;
                c.shape = Some(JsonType::Array);
                while c.len < INLINE_BLOCKS {
                    if seq
                        .next_element_seed(crate::agents::InPlace(&mut c.blocks[c.len]))?
                        .is_none()
                    {
                        return Ok(());
                    }
                    c.len += 1;
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    c.more = true;
                }
                Ok(())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                self.0.shape = Some(JsonType::Object);
                Ok(())
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
                self.0.shape = Some(JsonType::Bool);
                Ok(())
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
                self.0.shape = Some(JsonType::Number);
                Ok(())
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
                self.0.shape = Some(JsonType::Number);
                Ok(())
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
                self.0.shape = Some(JsonType::Number);
                Ok(())
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
                self.0.shape = Some(JsonType::String);
                Ok(())
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
                self.0.shape = Some(JsonType::Null);
                Ok(())
            }
        }
        d.deserialize_any(V(place))
    }
}

view! {
    /// A line read again for its `message.content` as raw text: for the blocks beyond
    /// [`INLINE_BLOCKS`], and for a string's text in the common form.
    pub struct RawLine<'a> {
        "message" => message: RawMessage<'a>,
    }
}

view! {
    /// `message` of a [`RawLine`].
    pub struct RawMessage<'a> {
        "content" => content: Raw<'a>,
    }
}

view! {
    /// `usage` of a message or a result.
    pub struct Usage<'a> {
        "input_tokens" => input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "cache_read_input_tokens" => cache_read: Field<'a>,
        "cache_creation_input_tokens" => cache_write: Field<'a>,
        "output_tokens_details" => details: OutputDetails<'a>,
    }
}

view! {
    /// `usage.output_tokens_details` (Claude Code 2.1.x): the part of `output_tokens` spent
    /// thinking, already counted in them.
    pub struct OutputDetails<'a> {
        "thinking_tokens" => thinking_tokens: Field<'a>,
    }
}

view! {
    /// `event` of a `stream_event` line (the raw API stream event).
    pub struct StreamEvent<'a> {
        "type" => ty: Field<'a>,
    }
}

view! {
    /// A content block of a message.
    pub struct Block<'a> {
        "type" => ty: Field<'a>,
        "id" => id: Field<'a>,
        "name" => name: Field<'a>,
        "input" => input: Raw<'a>,
        "tool_use_id" => tool_use_id: Field<'a>,
        "is_error" => is_error: Field<'a>,
        "text" => text: Raw<'a>,
        "thinking" => thinking: Raw<'a>,
        "content" => content: Raw<'a>,
    }
}

view! {
    /// A part of a tool result's `content` array.
    pub struct Part<'a> {
        "type" => ty: Field<'a>,
        "text" => text: Field<'a>,
    }
}

/// `message.content` of the line `json` as raw text, read again (see [`RawLine`]).
#[cold]
pub(super) fn raw_content<'a>(json: &'a str, arena: &'a Bump) -> Option<Raw<'a>> {
    let mut line = RawLine::default();
    crate::agents::parse_into(json, arena, &mut line).ok()?;
    Some(line.message.content)
}

/// The `error` of the line `json` when it is a string, read again (see [`ErrorLine`]).
#[cold]
pub(super) fn error_code<'a>(json: &'a str, arena: &'a Bump) -> Option<Cow<'a, str>> {
    let mut line = ErrorLine::default();
    crate::agents::parse_into(json, arena, &mut line).ok()?;
    line.error.to_cow()
}

/// The text of a tool result's `content`: a string, or the texts of an array of parts.
pub(super) fn result_text<'a>(content: &Raw<'a>, arena: &'a Bump) -> Option<Cow<'a, str>> {
    let raw = content.get()?;
    match content.json_type()? {
        JsonType::String => serde_json::from_str::<Cow<'_, str>>(raw)
            .ok()
            .map(|c| Cow::Owned(c.into_owned())),
        JsonType::Array => {
            let mut parts = bumpalo::collections::Vec::new_in(arena);
            crate::agents::parse_array::<Part<'a>>(raw, arena, &mut parts);
            let texts: Vec<&str> = parts.iter().filter_map(|p| p.text.as_str()).collect();
            Some(Cow::Owned(texts.join("\n")))
        }
        _ => None,
    }
}

/// The value of `key` in the `i`-th block of `message.content`, for pointing at it.
pub(super) fn nth_value(bytes: &[u8], i: usize, key: &str) -> Option<std::ops::Range<usize>> {
    let at = crate::locate::value(bytes, &["message", "content"])?;
    let text = std::str::from_utf8(&bytes[at.clone()]).ok()?;
    let values: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).ok()?;
    let block = values.get(i)?;
    let offset = block.get().as_ptr() as usize - text.as_ptr() as usize;
    let inner = crate::locate::value(block.get().as_bytes(), &[key])?;
    Some(at.start + offset + inner.start..at.start + offset + inner.end)
}
