//! The pieces of cursor's shape that the dialects' mappings share: `message.content` as an
//! array of texts, `message.role` from the event type, `is_error` from the subtype.
//!
//! This module owns those pieces and nothing else: it names no dialect's mapping and no module
//! of `fmt` but the JSON building blocks, so `payload`, `sdk` and `to_json` use it while
//! `canonical` uses them, and nothing here leads back. It must not keep state between records.

use crate::fmt::json_text::{Obj, entries, is_string, minify, write_str};
use serde_json::value::RawValue;
use sjlint_core::agents::cursor::view::Event;

/// `[{"type":"text","text":<text>}]`: a text where cursor writes `message.content`.
pub(in crate::fmt) fn text_content(text: &RawValue, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"[{"type":"text","text":"#);
    minify(text.get(), out);
    out.extend_from_slice(b"}]");
}

/// `message` with `role` (from the event type, when missing) and its content as an array.
pub(in crate::fmt) fn message(v: &RawValue, role: Option<&str>, out: &mut Vec<u8>) {
    let Some(m) = entries(v.get()) else {
        minify(v.get(), out);
        return;
    };
    let mut o = Obj::open(out);
    if let Some(role) = role
        && !m.iter().any(|(k, _)| k == "role")
    {
        o.key("role");
        write_str(role, o.out);
    }
    for (k, v) in &m {
        if k == "content" && is_string(v) {
            o.key(k);
            text_content(v, o.out);
        } else {
            o.raw(k, v);
        }
    }
    o.close();
}

pub(in crate::fmt) fn role_of(ty: Option<&str>) -> Option<&str> {
    ty.filter(|t| matches!(*t, "user" | "assistant"))
}

/// `is_error` as the subtype says it.
pub(in crate::fmt) fn error_flag(ev: &Event<'_>) -> Option<&'static str> {
    match ev.subtype.as_str() {
        Some("success") => Some("false"),
        Some("error") => Some("true"),
        _ => None,
    }
}
