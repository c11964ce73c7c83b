//! The cursor dialect: the shapes `cursor-agent --output-format stream-json` writes, which are
//! the canonical view every dialect maps into.
//!
//! This module owns reading the canonical objects of a record into the view types: `tool_call`
//! (its kind key, `args`, the variant and details of `result`), `message` (the texts of
//! `content`, joined), `usage`, and `query`/`response`, with the keys and the flat results other
//! dialects put in the same objects. It must not read the top level of a record, classify it,
//! nor map one dialect into another (`record`, `payload`, `sdk`), and it keeps nothing across
//! records.

use super::visit::{FieldVisitor, Key, KeySet, TypeOf, int, non_object_visits, object_view};
use super::{Field, JsonType, Message, Query, ToolCall, Usage};
use bumpalo::Bump;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A key of a tool call object that names its kind.
pub fn is_kind_key(key: &str) -> bool {
    key.ends_with("ToolCall") || key == "function"
}

object_view!(ToolCall, |tc, map| {
    let mut seen = KeySet::default();
    let mut loose_args = None;
    let mut loose_outcome: Option<Outcome<'de>> = None;
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if seen.insert(&key) && tc.duplicate_key.is_none() {
            tc.duplicate_key = Some(key.name.clone());
        }
        // Keys other dialects put directly in the tool call object.
        match &*key.name {
            "id" => {
                tc.id = map.next_value()?;
                continue;
            }
            "type" => {
                tc.type_name = map.next_value()?;
                continue;
            }
            "args" => {
                loose_args = Some(map.next_value()?);
                continue;
            }
            "result" => {
                loose_outcome = Some(map.next_value()?);
                tc.bare_result = true;
                continue;
            }
            _ => {}
        }
        if is_kind_key(&key.name) {
            tc.kinds += 1;
            if tc.kind.is_none() {
                let body: ToolBody<'de> = map.next_value()?;
                tc.kind = Some(key.name);
                tc.body_shape = Some(body.shape);
                tc.args = body.args;
                tc.outcome = body.outcome.variant;
                tc.exit_code = body.outcome.exit_code;
                tc.total_lines = body.outcome.total_lines;
                tc.output = body.outcome.output;
                continue;
            }
            if tc.other_kind.is_none() {
                tc.other_kind = Some(key.name);
            }
        }
        map.next_value::<IgnoredAny>()?;
    }
    if tc.kind.is_none() {
        tc.args = loose_args;
        if let Some(o) = loose_outcome {
            tc.outcome = o.variant;
            tc.exit_code = o.exit_code;
            tc.total_lines = o.total_lines;
            tc.output = o.output;
        }
    }
});

/// The value of `<kind>ToolCall`: `{args, result, description?}`.
struct ToolBody<'a> {
    shape: JsonType,
    args: Option<&'a RawValue>,
    outcome: Outcome<'a>,
}

impl<'de> Deserialize<'de> for ToolBody<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolBody<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            non_object_visits!(|t| ToolBody {
                shape: t,
                args: None,
                outcome: Outcome::default(),
            });
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut body = ToolBody {
                    shape: JsonType::Object,
                    args: None,
                    outcome: Outcome::default(),
                };
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match &*key.name {
                        // The `function` shape names its arguments `arguments`.
                        "args" | "arguments" if body.args.is_none() => {
                            body.args = Some(map.next_value()?);
                        }
                        "result" => body.outcome = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(body)
            }
        }
        d.deserialize_any(V)
    }
}

/// A tool result: its variant and the few details of a success that reports read.
///
/// Cursor writes `{<variant>: {…}}` (`success`, `rejected`, `error`, …, possibly beside
/// `isBackground`): the variant is the first key holding an object. Other dialects write flat
/// results (`{exitCode, stdout}`, `{success: true, output, exit_code}`); those are a `success`,
/// unless `success` is false (`failure`) or an `error` is given (`error`).
#[derive(Default)]
pub(super) struct Outcome<'a> {
    pub(super) variant: Option<Cow<'a, str>>,
    pub(super) exit_code: Option<i64>,
    pub(super) total_lines: Option<u64>,
    /// The output of a `success` (see [`Success::output`]).
    pub(super) output: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for Outcome<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Outcome<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            non_object_visits!(|_| Outcome::default());
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                read_outcome(map)
            }
        }
        d.deserialize_any(V)
    }
}

fn read_outcome<'de, A: MapAccess<'de>>(mut map: A) -> Result<Outcome<'de>, A::Error> {
    let mut out = Outcome::default();
    let mut flat = false;
    let mut flat_success = None;
    let mut flat_error = false;
    while let Some(key) = map.next_key::<Key<'de>>()? {
        match &*key.name {
            "isBackground" => {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            "success" if out.variant.is_none() => match map.next_value::<SuccessValue>()? {
                SuccessValue::Object(info) => {
                    out.variant = Some(key.name);
                    out.exit_code = info.exit_code.or(out.exit_code);
                    out.total_lines = info.total_lines;
                    out.output = info.output();
                }
                SuccessValue::Bool(b) => flat_success = Some(b),
                SuccessValue::Other => {}
            },
            "exitCode" | "exit_code" => {
                if let Some(n) = int(&map.next_value::<Field<'de>>()?) {
                    out.exit_code.get_or_insert(n);
                }
            }
            _ => {
                let t = map.next_value::<TypeOf>()?.0;
                if t == JsonType::Object && out.variant.is_none() {
                    out.variant = Some(key.name);
                    continue;
                }
                flat_error |= key.name == "error";
            }
        }
        flat = true;
    }
    if out.variant.is_none() && flat {
        out.variant = Some(Cow::Borrowed(if flat_success == Some(false) {
            "failure"
        } else if flat_error {
            "error"
        } else {
            "success"
        }));
    }
    Ok(out)
}

/// A top-level `result`: the result text of a `result` event, or (sdk completions) a tool result.
pub(super) struct ResultValue<'a> {
    pub(super) field: Field<'a>,
    pub(super) outcome: Option<Outcome<'a>>,
}

impl<'de> Deserialize<'de> for ResultValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                FieldVisitor.visit_bool(v).map(ResultValue::of)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                FieldVisitor.visit_i64(v).map(ResultValue::of)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                FieldVisitor.visit_u64(v).map(ResultValue::of)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                FieldVisitor.visit_f64(v).map(ResultValue::of)
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                FieldVisitor.visit_borrowed_str(v).map(ResultValue::of)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                FieldVisitor.visit_str(v).map(ResultValue::of)
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                FieldVisitor.visit_string(v).map(ResultValue::of)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                FieldVisitor.visit_unit().map(ResultValue::of)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                FieldVisitor.visit_seq(seq).map(ResultValue::of)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Ok(ResultValue {
                    field: Field::Other(JsonType::Object),
                    outcome: Some(read_outcome(map)?),
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl<'a> ResultValue<'a> {
    fn of(field: Field<'a>) -> Self {
        ResultValue {
            field,
            outcome: None,
        }
    }
}

/// The value of a result's `success`: cursor's details object, or a flat result's flag.
enum SuccessValue<'a> {
    Object(Success<'a>),
    Bool(bool),
    Other,
}

impl<'de> Deserialize<'de> for SuccessValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SuccessValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(SuccessValue::Bool(v))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(SuccessValue::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(SuccessValue::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(SuccessValue::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(SuccessValue::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(SuccessValue::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(SuccessValue::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Success::default();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match &*key.name {
                        "exitCode" => out.exit_code = int(&map.next_value::<Field<'de>>()?),
                        "totalLines" => {
                            out.total_lines = map.next_value::<Field<'de>>()?.as_millis();
                        }
                        // Read as raw text (never `Option`, which the fast reader leaves to
                        // the slow path): unescaped only when a consumer asks for it.
                        "interleavedOutput" => out.interleaved = Some(map.next_value()?),
                        "stdout" => out.stdout = Some(map.next_value()?),
                        "content" => out.content = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(SuccessValue::Object(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// `result.success`: only `exitCode`, `totalLines` and the output are read.
#[derive(Default)]
struct Success<'a> {
    exit_code: Option<i64>,
    total_lines: Option<u64>,
    /// The exact JSON text of `interleavedOutput`, `stdout` (a shell call) and `content` (a
    /// read call), when present.
    interleaved: Option<&'a RawValue>,
    stdout: Option<&'a RawValue>,
    content: Option<&'a RawValue>,
}

impl<'a> Success<'a> {
    /// What the tool gave back as text: the first of `interleavedOutput`, `stdout` and
    /// `content` that is a non-empty string (the JSON text of the string, quotes included).
    fn output(&self) -> Option<&'a RawValue> {
        [self.interleaved, self.stdout, self.content]
            .into_iter()
            .flatten()
            .find(|v| v.get().starts_with('"') && v.get() != "\"\"")
    }
}

/// Reads a [`Message`], joining its texts in `arena` when given.
pub(super) struct MessageSeed<'de> {
    pub(super) arena: Option<&'de Bump>,
}

impl<'de> DeserializeSeed<'de> for MessageSeed<'de> {
    type Value = Message<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MessageSeed<'de> {
    type Value = Message<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    non_object_visits!(|t| Message {
        shape: Some(t),
        ..Default::default()
    });

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut msg = Message {
            shape: Some(JsonType::Object),
            ..Default::default()
        };
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match &*key.name {
                "role" => msg.role = map.next_value()?,
                "content" => {
                    let content = map.next_value_seed(ContentSeed { arena: self.arena })?;
                    msg.content_shape = Some(content.shape);
                    msg.text = content.text;
                    msg.bad_text = content.bad_text;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(msg)
    }
}

/// `message.content`: an array of `{type, text}` items (a plain string in some clients).
struct Content<'a> {
    shape: JsonType,
    text: Option<Cow<'a, str>>,
    bad_text: Option<JsonType>,
}

/// Reads [`Content`], joining its texts in `arena` when given.
struct ContentSeed<'de> {
    arena: Option<&'de Bump>,
}

impl<'de> DeserializeSeed<'de> for ContentSeed<'de> {
    type Value = Content<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentSeed<'de> {
    type Value = Content<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Content::other(JsonType::Bool))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Content::other(JsonType::Number))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Content::other(JsonType::Number))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Content::other(JsonType::Number))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Content::other(JsonType::Null))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Content {
            shape: JsonType::String,
            text: Some(Cow::Borrowed(v)),
            bad_text: None,
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Content {
            shape: JsonType::String,
            text: Some(Cow::Owned(v.to_owned())),
            bad_text: None,
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Content::other(JsonType::Object))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut text = Joined::Nothing;
        let mut bad_text = None;
        while let Some(item) = seq.next_element::<ContentItem<'de>>()? {
            match item.text {
                Field::Str(t) => text.push(t, self.arena),
                Field::Absent => {}
                other => bad_text = bad_text.or(other.json_type()),
            }
        }
        Ok(Content {
            shape: JsonType::Array,
            text: text.finish(),
            bad_text,
        })
    }
}

/// The texts of a content array, joined as they come: a single text is kept as it was read
/// (borrowed from the record or the arena); from the second on they are appended to a copy,
/// in the arena when there is one.
enum Joined<'a> {
    Nothing,
    One(Cow<'a, str>),
    InArena(bumpalo::collections::String<'a>),
    Owned(String),
}

impl<'a> Joined<'a> {
    fn push(&mut self, t: Cow<'a, str>, arena: Option<&'a Bump>) {
        match self {
            Joined::Nothing => *self = Joined::One(t),
            Joined::One(first) => {
                let first = std::mem::take(first);
                *self = match arena {
                    Some(arena) => {
                        let mut all = bumpalo::collections::String::with_capacity_in(
                            first.len() + t.len(),
                            arena,
                        );
                        all.push_str(&first);
                        all.push_str(&t);
                        Joined::InArena(all)
                    }
                    None => Joined::Owned(first.into_owned() + &t),
                };
            }
            Joined::InArena(all) => all.push_str(&t),
            Joined::Owned(all) => all.push_str(&t),
        }
    }

    fn finish(self) -> Option<Cow<'a, str>> {
        match self {
            Joined::Nothing => None,
            Joined::One(t) => Some(t),
            Joined::InArena(all) => Some(Cow::Borrowed(all.into_bump_str())),
            Joined::Owned(all) => Some(Cow::Owned(all)),
        }
    }
}

impl Content<'_> {
    fn other(shape: JsonType) -> Self {
        Content {
            shape,
            text: None,
            bad_text: None,
        }
    }
}

/// One item of `message.content`; only `text` is read.
#[derive(Default)]
struct ContentItem<'a> {
    /// Set by `object_view!`; a non-object item simply has no text.
    #[expect(
        dead_code,
        reason = "set by the visitor, which checks the shape; never read"
    )]
    shape: Option<JsonType>,
    text: Field<'a>,
}

object_view!(ContentItem, |item, map| {
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if key.name == "text" {
            item.text = map.next_value()?;
        } else {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

impl<'de> Deserialize<'de> for Usage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Usage;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            non_object_visits!(|t| Usage {
                shape: Some(t),
                ..Default::default()
            });
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut u = Usage {
                    shape: Some(JsonType::Object),
                    ..Default::default()
                };
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let (name, slot) = match &*key.name {
                        "inputTokens" => ("inputTokens", &mut u.input_tokens),
                        "outputTokens" => ("outputTokens", &mut u.output_tokens),
                        "cacheReadTokens" => ("cacheReadTokens", &mut u.cache_read_tokens),
                        "cacheWriteTokens" => ("cacheWriteTokens", &mut u.cache_write_tokens),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    let value = map.next_value::<Field<'de>>()?;
                    *slot = value.as_millis();
                    if slot.is_none()
                        && u.not_a_count.is_none()
                        && let Some(t) = value.json_type().filter(|&t| t != JsonType::Null)
                    {
                        u.not_a_count = Some((name, t));
                    }
                }
                Ok(u)
            }
        }
        d.deserialize_any(V)
    }
}

object_view!(Query, |q, map| {
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if key.name == "id" {
            q.id = map.next_value()?;
        } else {
            let inner: QueryInner<'de> = map.next_value()?;
            if q.tool_call_id.is_none() {
                q.tool_call_id = inner.tool_call_id;
            }
            if q.decision.is_none() {
                q.decision = inner.first_key;
            }
        }
    }
});

/// `<queryType>: {args: {toolCallId}}` of a request, or `<…Response>: {approved: {}}` of a
/// response.
#[derive(Default)]
struct QueryInner<'a> {
    /// Set by `object_view!`; a non-object value simply announces nothing.
    #[expect(
        dead_code,
        reason = "set by the visitor, which checks the shape; never read"
    )]
    shape: Option<JsonType>,
    first_key: Option<Cow<'a, str>>,
    tool_call_id: Option<Cow<'a, str>>,
}

object_view!(QueryInner, |qi, map| {
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if key.name == "args" {
            qi.tool_call_id = map.next_value_seed(ToolCallIdSeed)?;
        } else {
            map.next_value::<IgnoredAny>()?;
        }
        if qi.first_key.is_none() {
            qi.first_key = Some(key.name);
        }
    }
});

/// Reads `toolCallId` out of an `args` object, skipping everything else.
struct ToolCallIdSeed;

impl<'de> DeserializeSeed<'de> for ToolCallIdSeed {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<Cow<'de, str>>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            non_object_visits!(|_| None);
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut id = None;
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    if key.name == "toolCallId" {
                        if let Field::Str(s) = map.next_value::<Field<'de>>()? {
                            id = Some(s);
                        }
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(id)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{event, event_in};
    use super::super::{Field, JsonType};
    use bumpalo::Bump;
    use std::borrow::Cow;

    #[test]
    fn tool_call_kind_is_the_key_ending_in_toolcall_not_the_first_key() {
        let e = event(
            r#"{"type":"tool_call","subtype":"completed","call_id":"c\nfc","tool_call":{"toolCallId":"c","shellToolCall":{"args":{"command":"ls"},"result":{"rejected":{"reason":""}}},"startedAtMs":"1"}}"#,
        );
        assert_eq!(e.tool_call.kind.as_deref(), Some("shellToolCall"));
        assert_eq!(e.tool_call.kinds, 1);
        assert_eq!(e.tool_call.args.unwrap().get(), r#"{"command":"ls"}"#);
        assert_eq!(e.tool_call.outcome.as_deref(), Some("rejected"));
        let ok = event(
            r#"{"tool_call":{"shellToolCall":{"result":{"success":{"exitCode":2,"stdout":"x"},"isBackground":false}}}}"#,
        );
        assert_eq!(ok.tool_call.outcome.as_deref(), Some("success"));
        assert_eq!(ok.tool_call.exit_code, Some(2));
        assert_eq!(e.call_id.as_str(), Some("c\nfc"));
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let e = event(r#"{"type":"user","session_id":"abc"}"#);
        assert!(matches!(e.session_id, Field::Str(Cow::Borrowed("abc"))));
    }

    #[test]
    fn wrong_types_are_kept_not_rejected() {
        let e = event(r#"{"type":"result","duration_ms":"12","is_error":"no","tool_call":[1]}"#);
        assert_eq!(e.duration_ms.json_type(), Some(JsonType::String));
        assert_eq!(e.is_error.json_type(), Some(JsonType::String));
        assert_eq!(e.tool_call.shape, Some(JsonType::Array));
    }

    #[test]
    fn duplicate_keys_are_found_at_both_levels() {
        let e = event(r#"{"type":"a","x":1,"x":2,"tool_call":{"aToolCall":{},"aToolCall":{}}}"#);
        assert_eq!(e.duplicate_key.as_deref(), Some("x"));
        assert_eq!(e.tool_call.duplicate_key.as_deref(), Some("aToolCall"));
        assert_eq!(e.tool_call.kinds, 2);
    }

    #[test]
    fn message_texts_are_joined() {
        let e = event(
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}"#,
        );
        assert_eq!(e.message.text.as_deref(), Some("ab"));
        assert_eq!(e.message.content_shape, Some(JsonType::Array));
    }

    #[test]
    fn joined_texts_are_the_same_with_an_arena_and_without() {
        let arena = Bump::new();
        for (text, joined) in [
            (
                r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}"#,
                Some("ab"),
            ),
            (
                r#"{"type":"user","message":{"content":[{"text":"say \"hi\"\n"},{"text":"→ 函数"},{"text":""},{"text":"\u00e9"}]}}"#,
                Some("say \"hi\"\n→ 函数é"),
            ),
            (
                r#"{"type":"assistant","payload":{"message":{"content":[{"text":"x"},{"text":7},{"text":"y\t"}]}}}"#,
                Some("xy\t"),
            ),
            (
                r#"{"type":"assistant","message":{"content":[{"text":"only\none"}]}}"#,
                Some("only\none"),
            ),
            (
                r#"{"type":"assistant","message":{"content":"plain"}}"#,
                Some("plain"),
            ),
            (
                r#"{"type":"assistant","message":{"content":[{"type":"image"}]}}"#,
                None,
            ),
        ] {
            let with = event_in(text, &arena);
            let without = event(text);
            assert_eq!(with.message.text.as_deref(), joined, "{text}");
            assert_eq!(without.message.text.as_deref(), joined, "{text}");
            assert_eq!(with.message.bad_text, without.message.bad_text, "{text}");
            assert_eq!(with.message.content_shape, without.message.content_shape);
            // Nothing of the event is owned: what the record's text does not hold is in the
            // arena.
            assert!(!matches!(with.message.text, Some(Cow::Owned(_))), "{text}");
        }
    }

    #[test]
    fn interaction_query_ids_and_announced_call() {
        let e = event(
            r#"{"type":"interaction_query","subtype":"request","query_type":"webSearchRequestQuery","query":{"id":7,"webSearchRequestQuery":{"args":{"q":"x","toolCallId":"call_9"}}}}"#,
        );
        assert_eq!(e.query.id, Field::UInt(7));
        assert_eq!(e.query.tool_call_id.as_deref(), Some("call_9"));
        let r = event(
            r#"{"type":"interaction_query","subtype":"response","response":{"id":7,"webSearchRequestResponse":{"rejected":{"reason":"no"}}}}"#,
        );
        assert_eq!(r.response.decision.as_deref(), Some("rejected"));
        assert_eq!(r.response.id, Field::UInt(7));
    }

    #[test]
    fn usage_tokens() {
        let e = event(
            r#"{"type":"result","usage":{"inputTokens":10,"outputTokens":2,"cacheReadTokens":0,"cacheWriteTokens":5}}"#,
        );
        assert_eq!(e.usage.input_tokens, Some(10));
        assert_eq!(e.usage.cache_write_tokens, Some(5));
    }

    #[test]
    fn flat_tool_results_have_a_variant() {
        let v = |r: &str| {
            let text = format!(r#"{{"tool_call":{{"aToolCall":{{"result":{r}}}}}}}"#);
            event(&text)
                .tool_call
                .outcome
                .map(std::borrow::Cow::into_owned)
        };
        assert_eq!(
            v(r#"{"success":{"exitCode":1}}"#).as_deref(),
            Some("success")
        );
        assert_eq!(
            v(r#"{"isBackground":false,"rejected":{"reason":""}}"#).as_deref(),
            Some("rejected")
        );
        assert_eq!(v(r#"{"success":true}"#).as_deref(), Some("success"));
        assert_eq!(v(r#"{"success":false}"#).as_deref(), Some("failure"));
        assert_eq!(v(r#"{"error":"denied"}"#).as_deref(), Some("error"));
        assert_eq!(
            v(r#"{"exitCode":0,"stdout":""}"#).as_deref(),
            Some("success")
        );
        assert_eq!(v(r"{}"), None);
    }
}
