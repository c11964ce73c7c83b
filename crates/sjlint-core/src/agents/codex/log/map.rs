//! A rollout's items in the common vocabulary: the assistant's messages and reasoning, and
//! its tool calls with their outputs. Tool kinds follow the stream's mapping: the shell tools
//! are the stream's `command_execution` (kind `shell`), `apply_patch` its `file_change`
//! (kind `edit`); any other name is read as [`vocab::tool_kind`] reads it (MCP tools by their
//! `mcp__` prefix).
//!
//! This module owns the mapping only: it is called when common events are wanted, and what it
//! writes (a message's parts joined, a call's arguments as JSON) goes in the record's arena. It
//! must not check anything.

use super::view::{Part, Payload};
use crate::agents::{Raw, parse_array};
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The tool kind of a rollout's tool `name`.
fn kind(name: &str) -> &'static str {
    match name {
        "shell" | "shell_command" | "exec_command" | "write_stdin" | "local_shell"
        | "container.exec" | "unified_exec" => vocab::tool_kind("command_execution"),
        "apply_patch" => vocab::tool_kind("file_change"),
        _ => vocab::tool_kind(name),
    }
}

/// A `message` (the assistant's: the user's are taken from `user_message` events) or a
/// `reasoning` item (its summary): one event each, its text parts joined.
pub(super) fn said<'a>(
    mut ev: vocab::Event<'a>,
    ty: &str,
    p: &Payload<'a>,
    arena: &'a Bump,
    sink: &mut dyn FnMut(&vocab::Event<'_>),
) {
    let (parts, wanted) = match ty {
        "message" if p.role.as_str() == Some("assistant") => (&p.content, "output_text"),
        "reasoning" => {
            ev.kind = Kind::Thinking;
            (&p.summary, "summary_text")
        }
        _ => return,
    };
    ev.text = joined(parts, wanted, arena);
    if ev.text.is_some() {
        sink(&ev);
    }
}

/// The texts of the parts of type `wanted`, joined by blank lines (borrowed when there is one).
fn joined<'a>(parts: &Raw<'a>, wanted: &str, arena: &'a Bump) -> Option<Cow<'a, str>> {
    let raw = parts.get()?;
    let mut all = bumpalo::collections::Vec::new_in(arena);
    parse_array::<Part<'a>>(raw, arena, &mut all);
    let mut texts = all
        .iter()
        .filter(|part| part.ty.as_str() == Some(wanted))
        .filter_map(|part| part.text.text());
    let first = texts.next()?;
    let Some(second) = texts.next() else {
        return Some(first);
    };
    let mut text = bumpalo::collections::String::from_str_in(&first, arena);
    for t in std::iter::once(second).chain(texts) {
        text.push_str("\n\n");
        text.push_str(&t);
    }
    Some(Cow::Borrowed(text.into_bump_str()))
}

/// The `tool_start` of a call: a function's `arguments` (a JSON text in a string) as the JSON
/// they encode, a freeform tool's `input` as `{"input": …}`, a local shell call's `action`.
pub(super) fn tool_start<'a>(
    mut ev: vocab::Event<'a>,
    id: &'a str,
    name: &'a str,
    ty: &str,
    p: &Payload<'a>,
    arena: &'a Bump,
    sink: &mut dyn FnMut(&vocab::Event<'_>),
) {
    ev.call_id = Some(Cow::Borrowed(id));
    ev.name = Some(Cow::Borrowed(name));
    ev.tool_kind = Some(kind(name));
    ev.args = match ty {
        "function_call" => p.arguments.text().and_then(|text| {
            let text = arena.alloc_str(&text);
            serde_json::from_str::<&RawValue>(text).ok()
        }),
        "custom_tool_call" => p.input.get().and_then(|raw| {
            let text = arena.alloc_str(&format!("{{\"input\":{raw}}}"));
            serde_json::from_str::<&RawValue>(text).ok()
        }),
        _ => p.action.0,
    };
    sink(&ev);
}

/// The `tool_end` of a call whose output this is; its text when the output is a string.
pub(super) fn tool_end<'a>(
    mut ev: vocab::Event<'a>,
    id: &'a str,
    name: &str,
    p: &Payload<'a>,
    arena: &'a Bump,
    sink: &mut dyn FnMut(&vocab::Event<'_>),
) {
    ev.call_id = Some(Cow::Borrowed(id));
    ev.tool_kind = Some(kind(name));
    ev.name = Some(Cow::Borrowed(arena.alloc_str(name)));
    ev.text = p
        .output
        .text()
        .or_else(|| joined(&p.output, "input_text", arena));
    sink(&ev);
}
