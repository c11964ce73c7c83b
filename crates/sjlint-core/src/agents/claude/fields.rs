//! The checks of the fields of Claude Code's assistant and result lines, and of their usage:
//! the types each field must have, and what an assistant line says beside its message.

use super::{
    Bump, Diagnostic, Emit, Found, JsonType, Kind, Line, Position, Severity, Sink, Usage, Want,
    expect, messages, require, view, vocab,
};

/// What an assistant line says beside its message (2.1): `error`, the API error it stands for;
/// `is_api_error_message`; `supersedes`, the messages a refusal's fallback replaces. An API
/// error message (a `<synthetic>` message, or one marked `is_api_error_message`) says its
/// error in its text, which the common form gives as `error` events: the return value. Another
/// line with an `error` (a message cut at `max_output_tokens`) keeps its text, and its error
/// is an `error` event before it.
pub(super) fn assistant_fields<'a>(
    pos: Position,
    bytes: &[u8],
    json: &'a str,
    line: &Line<'a>,
    arena: &'a Bump,
    emit: Emit<'_>,
    sink: &mut Sink<'_, '_>,
) -> bool {
    expect(
        line.error.shape,
        Want::Str,
        false,
        pos,
        bytes,
        &["error"],
        emit,
    );
    expect(
        line.supersedes.json_type(),
        Want::Arr,
        false,
        pos,
        bytes,
        &["supersedes"],
        emit,
    );
    // Seen in captures of 2.1.2xx, not in the SDK's types: a wrong type is information.
    expect(
        line.is_api_error_message.json_type(),
        Want::Bool,
        false,
        pos,
        bytes,
        &["is_api_error_message"],
        &mut |mut d: Diagnostic| {
            d.severity = Severity::Info;
            emit(d);
        },
    );
    if line.error.shape != Some(JsonType::String) {
        return false;
    }
    let synthetic = line.is_api_error_message.as_bool() == Some(true)
        || line.message.model.as_str() == Some("<synthetic>");
    if !synthetic && let Some(sink) = sink.as_deref_mut() {
        let mut ev = vocab::Event::new(Kind::Error, pos.line);
        ev.text = view::error_code(json, arena);
        ev.parent = line.parent_tool_use_id.to_cow();
        sink(&ev);
    }
    synthetic
}

/// The fields of a result that 2.1 added: `terminal_reason`, `api_error_status`, `ttft_ms`,
/// `deferred_tool_use` and each of `permission_denials` (what they mean for the run is the
/// common `end`'s business, not this check's).
pub(super) fn result_fields<'a>(
    pos: Position,
    bytes: &[u8],
    line: &Line<'a>,
    arena: &'a Bump,
    emit: Emit<'_>,
) {
    for (name, f, want, nullable) in [
        ("terminal_reason", &line.terminal_reason, Want::Str, false),
        ("api_error_status", &line.api_error_status, Want::Num, true),
        ("ttft_ms", &line.ttft_ms, Want::Num, false),
    ] {
        expect(f.json_type(), want, nullable, pos, bytes, &[name], emit);
    }
    let deferred = &line.deferred_tool_use;
    if expect(
        deferred.json_type(),
        Want::Obj,
        false,
        pos,
        bytes,
        &["deferred_tool_use"],
        emit,
    ) && let Some(raw) = deferred.get()
    {
        let mut d = view::Deferred::default();
        if crate::agents::parse_into(raw, arena, &mut d).is_ok() {
            let what = "a result's `deferred_tool_use`";
            for (name, f, want) in [
                ("id", &d.id, Want::Str),
                ("name", &d.name, Want::Str),
                ("input", &d.input, Want::Obj),
            ] {
                require(
                    f.json_type(),
                    want,
                    what,
                    pos,
                    bytes,
                    &["deferred_tool_use", name],
                    emit,
                );
            }
        }
    }
    let denials = &line.permission_denials;
    if !expect(
        denials.json_type(),
        Want::Arr,
        false,
        pos,
        bytes,
        &["permission_denials"],
        emit,
    ) {
        return;
    }
    // Most results refused nothing.
    let Some(raw) = denials.get().filter(|r| r.trim() != "[]") else {
        return;
    };
    let mut list = bumpalo::collections::Vec::new_in(arena);
    crate::agents::parse_array::<view::Denial<'a>>(raw, arena, &mut list);
    let what = "a permission denial";
    for d in &list {
        if let Some(t) = d.shape.filter(|&t| t != JsonType::Object) {
            let d = Diagnostic::from_message(
                pos,
                messages::wrong_field_type(&["permission_denials[]"], Found::Type(t), &[Want::Obj]),
            );
            emit(match crate::locate::value(bytes, &["permission_denials"]) {
                Some(span) => d.at(bytes, span),
                None => d.with_snippet(bytes),
            });
            continue;
        }
        for (name, f, want) in [
            ("tool_name", &d.tool_name, Want::Str),
            ("tool_use_id", &d.tool_use_id, Want::Str),
            ("tool_input", &d.tool_input, Want::Obj),
        ] {
            require(
                f.json_type(),
                want,
                what,
                pos,
                bytes,
                &["permission_denials", name],
                emit,
            );
        }
    }
}

pub(super) fn check_usage(
    u: &Usage<'_>,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: Emit<'_>,
) {
    for (name, f) in [
        ("input_tokens", &u.input_tokens),
        ("output_tokens", &u.output_tokens),
        ("cache_read_input_tokens", &u.cache_read),
        ("cache_creation_input_tokens", &u.cache_write),
    ] {
        let Some(t) = f.json_type() else {
            continue;
        };
        if t != JsonType::Number && t != JsonType::Null {
            let mut p = path.to_vec();
            p.push(name);
            emit(crate::agents::wrong_type(pos, bytes, &p, t, &[Want::Num]));
        } else if f.is_number_but_no_count() {
            let mut p = path.to_vec();
            p.push(name);
            crate::agents::expect_count(f, pos, bytes, &p, emit);
        }
    }
}
