//! The sdk dialect: a Python client's events (seed 004) and Cursor's cloud SDK stream, mapped
//! into the canonical view.
//!
//! This module owns what an sdk record means canonically: `tool-call-started` and
//! `tool-call-completed` are `tool_call` with that subtype, `tool_name` (or `toolCall.type`) is
//! spelled as a tool kind, `parameters` and `result` (or `toolCall.args` and `toolCall.result`)
//! are the call's, `tool_call_id` or `callId` its `call_id`; a top-level assistant `text` is the
//! message, and a result's `error` its text. `fmt::rewrite` makes the same moves, so the two
//! change together. It must not read JSON (`record` reads every dialect's keys) nor decide a
//! record's dialect.

use super::{Event, Extras, Field, JsonType, ParkedToolCall, ToolCall, text_message};
use crate::json_str::Text;
use bumpalo::Bump;
use std::borrow::Cow;

/// Whether a record's own shape is the sdk dialect's (asked of a record that is not the payload
/// dialect's): its tool call events, an assistant `text` without a `message`, a `result` with an
/// `error`, an init without the keys only cursor's init writes.
#[inline]
pub(super) fn shape_is_sdk(ev: &Event<'_>, x: &Extras<'_>) -> bool {
    match ev.ty.as_str() {
        Some("tool-call-started" | "tool-call-completed") => true,
        Some("assistant") => ev.message.shape.is_none() && ev.text.is_present(),
        Some("result") => x.error.is_present(),
        Some("system") => ev.subtype.as_str() == Some("init") && !ev.init_keys,
        _ => false,
    }
}

/// `tool-call-started`/`tool-call-completed` → `tool_call` with that subtype.
pub(super) fn sdk_event_name(ev: &mut Event<'_>) {
    let subtype = match ev.ty.as_str() {
        Some("tool-call-started") => "started",
        Some("tool-call-completed") => "completed",
        _ => return,
    };
    ev.ty = Field::Str(Cow::Borrowed("tool_call"));
    ev.subtype = Field::Str(Cow::Borrowed(subtype));
}

/// Sdk dialect → canonical view. `fmt::rewrite` makes the same moves.
pub(super) fn map_sdk<'de>(ev: &mut Event<'de>, x: &mut Extras<'de>, arena: Option<&'de Bump>) {
    sdk_event_name(ev);
    match ev.ty.as_str() {
        Some("tool_call") => {
            if !ev.call_id.is_present() {
                ev.call_id = std::mem::take(&mut x.call_id_alias);
            }
            if ev.tool_call.shape.is_none() {
                let result = std::mem::take(&mut ev.result);
                ev.tool_call = sdk_tool_call(x, result.is_present(), arena);
            }
        }
        Some("assistant") if ev.message.shape.is_none() && ev.text.is_present() => {
            ev.message = text_message(std::mem::take(&mut ev.text));
        }
        Some("result") if !ev.result.is_present() => ev.result = std::mem::take(&mut x.error),
        _ => {}
    }
}

/// The canonical tool call of an sdk event: `tool_name` (or `toolCall.type`) names the kind,
/// `parameters` (or `toolCall.args`) are its args, `result` (or `toolCall.result`) its result.
/// A kind spelled from the name goes to `arena` when given.
fn sdk_tool_call<'de>(
    x: &mut Extras<'de>,
    had_result: bool,
    arena: Option<&'de Bump>,
) -> ToolCall<'de> {
    let camel = x
        .tool_call
        .take()
        .filter(|tc| tc.shape() == Some(JsonType::Object))
        .map(ParkedToolCall::into_inner);
    let present =
        had_result || x.tool_name.is_present() || x.parameters.is_some() || camel.is_some();
    if !present {
        return ToolCall::default();
    }
    let mut tc = camel.unwrap_or_else(|| ToolCall {
        shape: Some(JsonType::Object),
        ..Default::default()
    });
    let name = match &x.tool_name {
        Field::Absent => &tc.type_name,
        named => named,
    };
    let kind = match name {
        Field::Str(name) => sdk_tool_kind_in(name, arena),
        _ => None,
    };
    let args = x.parameters.or(tc.args);
    let outcome = x.outcome.take();
    let bare = had_result || tc.bare_result;
    match kind {
        Some(kind) => {
            tc.kinds += 1;
            if tc.kind.is_none() {
                tc.kind = Some(kind);
                tc.body_shape = Some(JsonType::Object);
            } else if tc.other_kind.is_none() {
                tc.other_kind = Some(kind);
            }
            tc.args = args;
        }
        None => {
            tc.args = args;
            tc.bare_result = bare;
        }
    }
    if let Some(o) = outcome {
        tc.outcome = o.variant;
        tc.exit_code = o.exit_code;
        tc.total_lines = o.total_lines;
        tc.output = o.output;
    }
    tc
}

/// The tool kind an sdk `tool_name` stands for: seed 004's names through a table, any other name
/// `Foo` as `fooToolCall` (`web_fetch` as `webFetchToolCall`); a name that already is a kind as
/// itself. None for an empty name, or one of nothing but separators.
pub fn sdk_tool_kind(name: &str) -> Option<Cow<'static, str>> {
    Some(match kind_spelling(name)? {
        Spelling::Table(kind) => Cow::Borrowed(kind),
        Spelling::Itself => Cow::Owned(name.to_owned()),
        Spelling::Camel => {
            let mut kind = String::with_capacity(name.len() + 8);
            camel_kind(name, &mut kind);
            Cow::Owned(kind)
        }
    })
}

/// [`sdk_tool_kind`] of a name read from a record, without allocating when the name is borrowed
/// and an `arena` is given: a name that already is a kind is the kind, borrowed as the name is,
/// and a kind spelled from the name is written to `arena`.
fn sdk_tool_kind_in<'a>(name: &Cow<'a, str>, arena: Option<&'a Bump>) -> Option<Cow<'a, str>> {
    Some(match kind_spelling(name)? {
        Spelling::Table(kind) => Cow::Borrowed(kind),
        Spelling::Itself => name.clone(),
        Spelling::Camel => match arena {
            Some(arena) => {
                let mut kind =
                    bumpalo::collections::String::with_capacity_in(name.len() + 8, arena);
                camel_kind(name, &mut kind);
                Cow::Borrowed(kind.into_bump_str())
            }
            None => {
                let mut kind = String::with_capacity(name.len() + 8);
                camel_kind(name, &mut kind);
                Cow::Owned(kind)
            }
        },
    })
}

/// How [`sdk_tool_kind`] spells the kind of a name.
enum Spelling {
    /// A name of seed 004's table, in any case and with any separators.
    Table(&'static str),
    /// A name that already is a kind (`mcpToolCall`).
    Itself,
    /// Any other name, camel-cased with `ToolCall` appended ([`camel_kind`]).
    Camel,
}

/// A separator between the words of a tool name (`web_fetch`, `str-replace`).
fn is_separator(c: char) -> bool {
    matches!(c, '_' | '-' | ' ')
}

/// None for a name with nothing but separators (or nothing at all): it spells no kind.
fn kind_spelling(name: &str) -> Option<Spelling> {
    const TABLE: &[(&str, &str)] = &[
        ("Shell", "shellToolCall"),
        ("Read", "readToolCall"),
        ("Write", "writeToolCall"),
        ("StrReplace", "editToolCall"),
        ("Glob", "globToolCall"),
        ("Grep", "grepToolCall"),
        ("LS", "lsToolCall"),
        ("Delete", "deleteToolCall"),
    ];
    if name.chars().all(is_separator) {
        return None;
    }
    if let Some((_, kind)) = TABLE.iter().find(|(n, _)| *n == name) {
        return Some(Spelling::Table(kind));
    }
    // The cloud stream spells the same names in other cases (`shell`, `str_replace`).
    let folded = |s: &'static str| {
        s.chars()
            .filter(|&c| !is_separator(c))
            .flat_map(char::to_lowercase)
    };
    let same = |n: &'static str| {
        name.chars()
            .filter(|&c| !is_separator(c))
            .flat_map(char::to_lowercase)
            .eq(folded(n))
    };
    if let Some((_, kind)) = TABLE.iter().find(|(n, _)| same(n)) {
        return Some(Spelling::Table(kind));
    }
    if name.ends_with("ToolCall") {
        return Some(Spelling::Itself);
    }
    Some(Spelling::Camel)
}

/// Writes the kind `name` spells: its words camel-cased, then `ToolCall` (`web_fetch` →
/// `webFetchToolCall`, `Foo` → `fooToolCall`). `name` holds more than separators.
fn camel_kind(name: &str, kind: &mut impl Text) {
    let mut first = true;
    let mut upper_next = false;
    for (i, c) in name.chars().enumerate() {
        if is_separator(c) {
            upper_next = i > 0;
        } else if first {
            c.to_lowercase().for_each(|c| kind.push(c));
            first = false;
        } else if upper_next {
            c.to_uppercase().for_each(|c| kind.push(c));
            upper_next = false;
        } else {
            kind.push(c);
        }
    }
    kind.push_str("ToolCall");
}

#[cfg(test)]
mod tests {
    use super::super::Dialect;
    use super::super::tests::event;
    use super::*;

    #[test]
    fn sdk_records_map_into_the_canonical_view() {
        let s = event(
            r#"{"type":"tool-call-started","tool_name":"StrReplace","tool_call_id":"c1","parameters":{"path":"a.py"}}"#,
        );
        assert_eq!(s.dialect, Dialect::Sdk);
        assert_eq!(s.ty.as_str(), Some("tool_call"));
        assert_eq!(s.subtype.as_str(), Some("started"));
        assert_eq!(s.call_id.as_str(), Some("c1"));
        assert_eq!(s.tool_call.kind.as_deref(), Some("editToolCall"));
        assert_eq!(s.tool_call.args.unwrap().get(), r#"{"path":"a.py"}"#);
        let c = event(
            r#"{"type":"tool-call-completed","tool_name":"Shell","tool_call_id":"c1","result":{"success":false,"output":"","exit_code":127},"duration_ms":5}"#,
        );
        assert_eq!(c.tool_call.outcome.as_deref(), Some("failure"));
        assert_eq!(c.tool_call.exit_code, Some(127));
        assert!(
            !c.result.is_present(),
            "the tool result is not a result text"
        );
        let cloud = event(
            r#"{"type":"tool-call-started","callId":"c2","toolCall":{"type":"shell","args":{"command":"ls"}}}"#,
        );
        assert_eq!(cloud.call_id.as_str(), Some("c2"));
        assert_eq!(cloud.tool_call.kind.as_deref(), Some("shellToolCall"));
        assert_eq!(cloud.tool_call.args.unwrap().get(), r#"{"command":"ls"}"#);
        let a = event(r#"{"type":"assistant","text":"The ","timestamp_ms":1}"#);
        assert_eq!(a.message.text.as_deref(), Some("The "));
        assert!(!a.text.is_present());
        let r = event(r#"{"type":"result","subtype":"error","error":"Request timed out"}"#);
        assert_eq!(r.result.as_str(), Some("Request timed out"));
    }

    #[test]
    fn sdk_tool_names_become_kinds() {
        let k = |n: &str| sdk_tool_kind(n).map(std::borrow::Cow::into_owned);
        assert_eq!(k("Shell").as_deref(), Some("shellToolCall"));
        assert_eq!(k("StrReplace").as_deref(), Some("editToolCall"));
        assert_eq!(k("str_replace").as_deref(), Some("editToolCall"));
        assert_eq!(k("LS").as_deref(), Some("lsToolCall"));
        assert_eq!(k("Foo").as_deref(), Some("fooToolCall"));
        assert_eq!(k("web_fetch").as_deref(), Some("webFetchToolCall"));
        assert_eq!(k("mcpToolCall").as_deref(), Some("mcpToolCall"));
        assert_eq!(k(""), None);
        assert_eq!(k("__"), None);
    }

    #[test]
    fn sdk_tool_kinds_are_the_same_with_an_arena_and_without() {
        let arena = Bump::new();
        for name in [
            "Shell",
            "str_replace",
            "Foo",
            "web_fetch",
            "_web__fetch-now ",
            "Élan_vital",
            "mcpToolCall",
            "ToolCall",
            "",
            "__",
        ] {
            let kind = sdk_tool_kind(name);
            let borrowed = Cow::Borrowed(name);
            let in_arena = sdk_tool_kind_in(&borrowed, Some(&arena));
            assert_eq!(in_arena, kind, "{name:?}");
            assert!(!matches!(in_arena, Some(Cow::Owned(_))), "{name:?}");
            assert_eq!(sdk_tool_kind_in(&borrowed, None), kind, "{name:?}");
            assert_eq!(sdk_tool_kind_in(&Cow::Owned(name.to_owned()), None), kind);
        }
    }
}
