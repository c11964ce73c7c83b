//! The sdk dialect (seed 004, the cloud SDK) in cursor's envelope: `tool-call-started` and
//! `-completed` as `tool_call` events with `call_id` and `tool_call.<kind>{name, args, result}`,
//! top-level `text` deltas as `message.content`, a result's `error` as its `result` text.
//!
//! This module owns that mapping, as `view::map_sdk` reads the same record; the two change
//! together. It must not map another dialect nor keep state between records.

use super::canonical::parts::{error_flag, text_content};
use super::json_text::{Entries, Obj, entries, is_object, write_str};
use serde_json::value::RawValue;
use sjlint_core::agents::cursor::view::{self, Event};
use sjlint_core::json::Field;
use std::borrow::Cow;

/// Sdk dialect (seed 004, cloud SDK): the same moves as `view::map_sdk`.
pub(super) fn sdk(
    top: &Entries<'_>,
    ev: &Event<'_>,
    started_kind: Option<&str>,
    out: &mut Vec<u8>,
) {
    let ty = ev.ty.as_str();
    let has = |name: &str| top.iter().any(|(k, _)| k == name);
    // Where a key repeats, the classifier reads its last value; so does the mapping.
    let last_error = top.iter().rposition(|(k, _)| k == "error");
    let is_tool_type = |v: &RawValue| {
        matches!(
            v.get(),
            r#""tool-call-started""# | r#""tool-call-completed""#
        )
    };
    let tool_event = top
        .iter()
        .rev()
        .find(|(k, _)| k == "type")
        .is_some_and(|(_, v)| is_tool_type(v));
    let tool = ty == Some("tool_call");
    let build_tool = tool && !has("tool_call");
    let alias = if tool && !has("call_id") {
        top.iter()
            .position(|(k, _)| matches!(&**k, "tool_call_id" | "callId"))
    } else {
        None
    };
    let absorbed = |k: &str, v: &RawValue| {
        build_tool
            && (matches!(k, "tool_name" | "parameters" | "result")
                || (k == "toolCall" && is_object(v)))
    };
    let mut o = Obj::open(out);
    let mut tool_written = false;
    let mut type_written = false;
    for (i, (k, v)) in top.iter().enumerate() {
        match &**k {
            "type" if tool_event && is_tool_type(v) => {
                o.lit("type", r#""tool_call""#);
                if !type_written {
                    type_written = true;
                    o.key("subtype");
                    write_str(ev.subtype.as_str().unwrap_or_default(), o.out);
                }
            }
            // The mapped subtype replaces any the record had.
            "subtype" if tool_event => {}
            _ if Some(i) == alias => o.raw("call_id", v),
            k if absorbed(k, v) => {
                if !tool_written {
                    tool_written = true;
                    o.key("tool_call");
                    sdk_tool_call(top, ev, started_kind, o.out);
                }
            }
            "text" if ty == Some("assistant") && !has("message") => {
                o.key("message");
                o.out
                    .extend_from_slice(br#"{"role":"assistant","content":"#);
                text_content(v, o.out);
                o.out.push(b'}');
            }
            "error" if ty == Some("result") && !has("result") && Some(i) == last_error => {
                o.raw("result", v);
            }
            _ => o.raw(k, v),
        }
    }
    if ty == Some("result")
        && !has("is_error")
        && let Some(flag) = error_flag(ev)
    {
        o.lit("is_error", flag);
    }
    o.close();
}

/// `tool_call` of an sdk event: `{<kind>:{name, args, result}, …the rest of toolCall}`, or the
/// same fields directly in it when no kind is known.
fn sdk_tool_call(top: &Entries<'_>, ev: &Event<'_>, started_kind: Option<&str>, out: &mut Vec<u8>) {
    let last = |name: &str| top.iter().rev().find(|(k, _)| k == name).map(|(_, v)| *v);
    let camel = last("toolCall")
        .filter(|v| is_object(v))
        .and_then(|v| entries(v.get()))
        .unwrap_or_default();
    let in_camel = |name: &str| camel.iter().rev().find(|(k, _)| k == name).map(|(_, v)| *v);
    let name = last("tool_name").or_else(|| in_camel("type"));
    // As the classifier reads it: a `tool_name` that is not a string names no kind.
    let named = match last("tool_name") {
        Some(v) => string_value(v),
        None => in_camel("type").and_then(string_value),
    };
    let kind: Option<Cow<'_, str>> = named.as_deref().and_then(view::sdk_tool_kind).or_else(|| {
        (ev.subtype.as_str() == Some("completed"))
            .then_some(started_kind)
            .flatten()
            .map(Cow::Borrowed)
    });
    let args = last("parameters").or_else(|| in_camel("args"));
    let result = last("result").or_else(|| in_camel("result"));
    let mut o = Obj::open(out);
    {
        let write_fields = |b: &mut Obj<'_>| {
            if let Some(v) = name {
                b.raw("name", v);
            }
            if let Some(v) = args {
                b.raw("args", v);
            }
            if let Some(v) = result {
                b.raw("result", v);
            }
        };
        match &kind {
            Some(kind) => {
                o.key(kind);
                let mut b = Obj::open(o.out);
                write_fields(&mut b);
                b.close();
            }
            None => write_fields(&mut o),
        }
    }
    for (k, v) in &camel {
        if !matches!(&**k, "type" | "args" | "result") {
            o.raw(k, v);
        }
    }
    o.close();
}

/// The text of a JSON string value.
fn string_value(v: &RawValue) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<Field<'_>>(v.get()) {
        Ok(Field::Str(s)) => Some(s),
        _ => None,
    }
}
