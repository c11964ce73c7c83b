//! Pi's tool executions: `tool_execution_start`, `_update` and `_end`, paired by `toolCallId`,
//! and the finding of an update or end that no open call has.

use super::view::{Line, content_text};
use super::{PAIRING, Validator};
use crate::agents::{Agent, Emit, Sink, Want, expect, require};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::messages::{self, Orphan};
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;

impl Validator {
    pub(super) fn tool_start(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_execution_start`";
        require(
            line.tool_name.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolName"],
            emit,
        );
        expect(
            line.args.json_type(),
            Want::Obj,
            false,
            pos,
            bytes,
            &["args"],
            emit,
        );
        if !require(
            line.tool_call_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolCallId"],
            emit,
        ) {
            return;
        }
        let id = line.tool_call_id.as_str().unwrap_or_default();
        let name = line.tool_name.as_str().unwrap_or("?");
        self.calls
            .open(id, pos, bytes, name)
            .report(&PAIRING, id, pos, bytes, emit);
        if let Some(sink) = sink {
            let mut ev = vocab::Event::new(Kind::ToolStart, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.name = Some(Cow::Borrowed(name));
            ev.tool_kind = Some(vocab::tool_kind(name));
            ev.args = line.args.0;
            sink(&ev);
        }
    }

    /// A tool event for `id` that no open call has: never started, or ended already.
    #[cold]
    fn orphan(&self, pos: Position, bytes: &[u8], ty: &str, id: &str, emit: Emit<'_>) {
        let again = self.calls.was_seen(id) == Some(true);
        let record = format!("`{ty}`");
        let d = Diagnostic::from_message(
            pos,
            messages::orphan_completion(&Orphan::call(
                Agent::Pi.display_name(),
                &record,
                id,
                again,
                &PAIRING,
            )),
        );
        emit(match crate::locate::value(bytes, &["toolCallId"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        });
    }

    pub(super) fn tool_update(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'_>,
        emit: Emit<'_>,
    ) {
        if !require(
            line.tool_call_id.json_type(),
            Want::Str,
            "a `tool_execution_update`",
            pos,
            bytes,
            &["toolCallId"],
            emit,
        ) {
            return;
        }
        expect(
            line.tool_name.json_type(),
            Want::Str,
            false,
            pos,
            bytes,
            &["toolName"],
            emit,
        );
        let id = line.tool_call_id.as_str().unwrap_or_default();
        // Not after a record that could not be read, nor once the bounded memory forgot ids.
        if !self.calls.is_open(id)
            && !self.calls.unreadable_seen()
            && self.calls.was_seen(id).is_some()
        {
            self.orphan(pos, bytes, "tool_execution_update", id, emit);
        }
    }

    pub(super) fn tool_end<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        line: &Line<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
        sink: &mut Sink<'_, '_>,
    ) {
        let what = "a `tool_execution_end`";
        require(
            line.tool_name.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolName"],
            emit,
        );
        require(
            line.is_error.json_type(),
            Want::Bool,
            what,
            pos,
            bytes,
            &["isError"],
            emit,
        );
        expect(
            line.result.shape,
            Want::Obj,
            false,
            pos,
            bytes,
            &["result"],
            emit,
        );
        if !require(
            line.tool_call_id.json_type(),
            Want::Str,
            what,
            pos,
            bytes,
            &["toolCallId"],
            emit,
        ) {
            return;
        }
        let id = line.tool_call_id.as_str().unwrap_or_default();
        let open = self.calls.close(id);
        if open.is_none() && !self.calls.unreadable_seen() && self.calls.was_seen(id).is_some() {
            self.orphan(pos, bytes, "tool_execution_end", id, emit);
        }
        if let Some(sink) = sink {
            let name = match &open {
                Some(c) => Cow::Owned(self.calls.name(c).to_owned()),
                None => Cow::Borrowed(line.tool_name.as_str().unwrap_or("?")),
            };
            let mut ev = vocab::Event::new(Kind::ToolEnd, pos.line);
            ev.call_id = Some(Cow::Borrowed(id));
            ev.tool_kind = Some(vocab::tool_kind(&name));
            ev.name = Some(name);
            ev.ok = Some(line.is_error.as_bool() != Some(true));
            ev.text = content_text(&line.result.content, arena, false);
            sink(&ev);
        }
    }
}
