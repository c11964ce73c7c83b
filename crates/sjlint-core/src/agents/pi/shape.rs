//! The shapes of Pi's fields: what a message, an assistant message, a stop reason and the end
//! of a compaction must hold. Each check reports on the record it is given and keeps no state;
//! the order of events and the pairing of calls are the checker's (`super`).

use super::view::Usage;
use super::{Line, Message, Role, STOP_REASONS};
use crate::agents::{Emit, Raw, Want, expect, require};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;

/// A field that must be (`required`) or may be an array.
pub(super) fn array(
    f: &Raw<'_>,
    required: bool,
    what: &str,
    name: &str,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) {
    match f.json_type() {
        None if required => emit(crate::agents::missing(pos, bytes, what, name)),
        None | Some(JsonType::Array) => {}
        Some(t) => emit(crate::agents::wrong_type(
            pos,
            bytes,
            &[name],
            t,
            &[Want::Arr],
        )),
    }
}

/// The fields of a `message`; `whole` on `message_end`, where the message is final.
pub(super) fn message(pos: Position, bytes: &[u8], m: &Message<'_>, whole: bool, emit: Emit<'_>) {
    let what = "a message";
    if !require(
        m.role.json_type(),
        Want::Str,
        what,
        pos,
        bytes,
        &["message", "role"],
        emit,
    ) {
        return;
    }
    expect(
        m.timestamp.json_type(),
        Want::Num,
        false,
        pos,
        bytes,
        &["message", "timestamp"],
        emit,
    );
    let role = Role::of(m.role.as_str());
    match (role, m.content.json_type()) {
        (_, None) if whole && role != Role::Other => {
            emit(crate::agents::missing(pos, bytes, what, "message.content"));
        }
        (Role::User, Some(JsonType::String | JsonType::Array))
        | (Role::Assistant | Role::ToolResult, Some(JsonType::Array))
        | (Role::Other, _)
        | (_, None) => {}
        (Role::User, Some(t)) => emit(crate::agents::wrong_type(
            pos,
            bytes,
            &["message", "content"],
            t,
            &[Want::Str, Want::Arr],
        )),
        (_, Some(t)) => emit(crate::agents::wrong_type(
            pos,
            bytes,
            &["message", "content"],
            t,
            &[Want::Arr],
        )),
    }
    match role {
        Role::Assistant => assistant(pos, bytes, m, whole, emit),
        Role::ToolResult => {
            for (name, f, want) in [
                ("toolCallId", &m.tool_call_id, Want::Str),
                ("toolName", &m.tool_name, Want::Str),
                ("isError", &m.is_error, Want::Bool),
            ] {
                expect(
                    f.json_type(),
                    want,
                    false,
                    pos,
                    bytes,
                    &["message", name],
                    emit,
                );
            }
        }
        Role::User | Role::Other => {}
    }
}

/// The fields of an assistant message: its model, its stop reason and its usage.
pub(super) fn assistant(pos: Position, bytes: &[u8], m: &Message<'_>, whole: bool, emit: Emit<'_>) {
    for (name, f) in [
        ("api", &m.api),
        ("provider", &m.provider),
        ("model", &m.model),
        ("errorMessage", &m.error_message),
    ] {
        expect(
            f.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["message", name],
            emit,
        );
    }
    if whole {
        require(
            m.stop_reason.json_type(),
            Want::Str,
            "an assistant message",
            pos,
            bytes,
            &["message", "stopReason"],
            emit,
        );
        if let Some(r) = m.stop_reason.as_str()
            && !STOP_REASONS.contains(&r)
        {
            other_stop(r, pos, bytes, emit);
        }
    } else {
        expect(
            m.stop_reason.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["message", "stopReason"],
            emit,
        );
    }
    if whole {
        usage(pos, bytes, &m.usage, emit);
    }
}

/// The fields of an assistant message's `usage`, when it has one.
pub(super) fn usage(pos: Position, bytes: &[u8], u: &Usage<'_>, emit: Emit<'_>) {
    if !expect(
        u.shape,
        Want::Obj,
        false,
        pos,
        bytes,
        &["message", "usage"],
        emit,
    ) {
        return;
    }
    for (name, f) in [
        ("input", &u.input),
        ("output", &u.output),
        ("cacheRead", &u.cache_read),
        ("cacheWrite", &u.cache_write),
        ("totalTokens", &u.total_tokens),
        ("reasoning", &u.reasoning),
    ] {
        let path = ["message", "usage", name];
        if expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit) {
            crate::agents::expect_count(f, pos, bytes, &path, emit);
        }
    }
    let c = &u.cost;
    if expect(
        c.shape,
        Want::Obj,
        false,
        pos,
        bytes,
        &["message", "usage", "cost"],
        emit,
    ) {
        for (name, f) in [
            ("input", &c.input),
            ("output", &c.output),
            ("cacheRead", &c.cache_read),
            ("cacheWrite", &c.cache_write),
            ("total", &c.total),
        ] {
            let path = ["message", "usage", "cost", name];
            expect(f.json_type(), Want::Num, false, pos, bytes, &path, emit);
        }
    }
}

/// A `stopReason` pi-ai does not list.
#[cold]
pub(super) fn other_stop(r: &str, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    let d = Diagnostic::from_message(
        pos,
        crate::rules::messages::unknown_subtype(&crate::rules::messages::Subtype {
            agent: crate::agents::Agent::Pi.display_name(),
            record: "an assistant message",
            field: "stopReason",
            value: r,
            known: &["stop", "length", "toolUse", "error", "aborted"],
            note: Some(
                "a run whose last assistant message stops otherwise than with `stop` ends without a finished answer",
            ),
        }),
    );
    emit(
        match crate::locate::value(bytes, &["message", "stopReason"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        },
    );
}

/// `compaction_end` (and the older `auto_compaction_end`): how the compaction went.
pub(super) fn compaction_end(pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
    for (name, f, want) in [
        ("reason", &line.reason, Want::Str),
        ("aborted", &line.aborted, Want::Bool),
        ("willRetry", &line.will_retry, Want::Bool),
        ("errorMessage", &line.error_message, Want::Str),
    ] {
        expect(f.json_type(), want, false, pos, bytes, &[name], emit);
    }
    // `result` is the compaction's summary, or absent when there was none.
    expect(
        line.result.shape,
        Want::Obj,
        true,
        pos,
        bytes,
        &["result"],
        emit,
    );
}
