//! The result rule: `result.result` must be the session's assistant text joined.
//!
//! It decides which assistant text counts and which results are held to it, and compares them
//! through the session's [`TextTracker`] (kept in `assistant_text`, which the session owns). It
//! must not hold any state of its own.

use super::Ctx;
use super::assistant_text::TextTracker;
use super::lifecycle::Session;
use crate::agents::cursor::view::Event;
use crate::diagnostic::Diagnostic;

/// Folds an `assistant` event's text into the session's running hashes.
#[inline]
pub(super) fn track_assistant_text(text: &mut TextTracker, ev: &Event<'_>) {
    if let Some(t) = ev.message.text.as_deref() {
        let delta = ev.timestamp_ms.is_present() && !ev.model_call_id.is_present();
        // Any whole message that repeats the deltas before it is their flush: newer builds stamp
        // the one before a tool call with `model_call_id` and `timestamp_ms`.
        text.push(t, delta, !delta);
    }
}

/// `did-nothing`: a successful result with no text, in a session that called no tool and wrote
/// no assistant text. After a record that could not be read, the call or the text may be lost.
pub(super) fn did_nothing(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    session: &Session,
    ev: &Event<'_>,
) {
    if ev.is_error.as_bool() != Some(true)
        && ev.subtype.as_str() != Some("error")
        && session.unreadable.is_none()
        && session.calls == 0
        && !session.text.any()
        && ev.result.as_str().is_some_and(|r| r.trim().is_empty())
    {
        ctx.emit_at(did_nothing_finding(ctx.pos), &["result"], false);
    }
}

/// The finding of `did-nothing` at `pos`, for every agent that can tell.
#[cold]
pub(crate) fn did_nothing_finding(pos: crate::input::record::Position) -> Diagnostic {
    Diagnostic::from_message(pos, crate::rules::messages::did_nothing())
}

/// `result-text-mismatch`: a successful result whose `result` is none of the joins of the
/// session's assistant text. An error result's text is the error message, not the assistant's
/// text; after a record that could not be read, some text may be missing.
pub(super) fn result_text_mismatch(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    session: &Session,
    ev: &Event<'_>,
) {
    if ev.is_error.as_bool() != Some(true)
        && ev.subtype.as_str() != Some("error")
        && session.unreadable.is_none()
        && let Some(result) = ev.result.as_str()
        && let Some((result_bytes, joined_bytes)) = session.text.mismatch(result)
    {
        let d = Diagnostic::from_message(
            ctx.pos,
            crate::rules::messages::result_text_mismatch(result_bytes, joined_bytes),
        );
        ctx.emit_at(d, &["result"], false);
    }
}
