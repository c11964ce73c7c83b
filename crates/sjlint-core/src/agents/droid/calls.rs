//! droid's tool calls: a `tool_call` opens one under its `id`, the `tool_result` with that
//! `id` closes it, with the findings of their pairing and their common `tool_start` and
//! `tool_end`.

use super::{Line, PAIRING, Validator};
use crate::agents::{Agent, Emit, Sink, Want, expect, require};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use crate::rules::messages::{self, Orphan};
use crate::vocab::{self, Kind};
use std::borrow::Cow;

impl Validator {
    pub(super) fn tool_call(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_call`";
        require(
            line.tool_name.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolName"],
            emit,
        );
        ids(pos, bytes, line, emit);
        match line.parameters.json_type() {
            None => emit(crate::agents::missing(pos, bytes, what, "parameters")),
            Some(JsonType::Object) => {}
            Some(t) => emit(crate::agents::wrong_type(
                pos,
                bytes,
                &["parameters"],
                t,
                &[Want::Obj],
            )),
        }
        if !require(
            line.id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["id"],
            emit,
        ) {
            return;
        }
        let id = line.id.as_str().unwrap_or_default();
        let name = line.tool_name.as_str().unwrap_or("?");
        self.calls
            .open_at(id, pos, bytes, name, ms)
            .report(&PAIRING, id, pos, bytes, emit);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(vocab::tool_kind(name));
            ev.args = line.parameters.0;
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    pub(super) fn tool_result(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        ms: Option<u64>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_result`";
        ids(pos, bytes, line, emit);
        expect(
            line.is_error.json_type(),
            Want::Bool,
            false,
            pos,
            bytes,
            &["isError"],
            emit,
        );
        match line.value.json_type() {
            None | Some(JsonType::String | JsonType::Object) => {}
            Some(t) => emit(crate::agents::wrong_type(
                pos,
                bytes,
                &["value"],
                t,
                &[Want::Str, Want::Obj],
            )),
        }
        if !require(
            line.id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["id"],
            emit,
        ) {
            return;
        }
        let id = line.id.as_str().unwrap_or_default();
        let open = self.calls.close(id);
        // Not after a record that could not be read: it may have been the `tool_call`.
        if open.is_none() && !self.calls.unreadable_seen() {
            orphan(pos, bytes, id, self.calls.was_seen(id) == Some(true), emit);
        }
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            if let Some(c) = &open {
                let name = self.calls.name(c);
                ev.name = Some(Cow::Owned(name.to_owned()));
                ev.tool_kind = Some(vocab::tool_kind(name));
            }
            ev.ok = Some(line.is_error.as_bool() != Some(true));
            ev.text = match line.value.json_type() {
                Some(JsonType::String) => line.value.text(),
                Some(JsonType::Object) => line.value.get().map(Cow::Borrowed),
                _ => None,
            };
            ev.timestamp_ms = ms;
            ev.duration_ms = match (open.and_then(|c| c.start_ms), ms) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                _ => None,
            };
            sink(&ev);
        }
    }
}

/// `messageId` and `toolId` of a tool call or result: strings when present.
fn ids(pos: Position, bytes: &[u8], line: &Line<'_>, emit: Emit<'_>) {
    for (name, f) in [("messageId", &line.message_id), ("toolId", &line.tool_id)] {
        expect(f.json_type(), Want::Str, false, pos, bytes, &[name], emit);
    }
}

#[cold]
fn orphan(pos: Position, bytes: &[u8], id: &str, again: bool, emit: Emit<'_>) {
    let d = Diagnostic::from_message(
        pos,
        messages::orphan_completion(&Orphan::call(
            Agent::Droid.display_name(),
            "`tool_result`",
            id,
            again,
            &PAIRING,
        )),
    );
    emit(match crate::locate::value(bytes, &["id"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    });
}
