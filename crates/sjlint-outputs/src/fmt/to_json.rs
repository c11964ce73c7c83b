//! `fmt --to json`: for each session that ends with a `result`, the one object
//! `--output-format json` would have printed.
//!
//! This module owns a session's assistant text (joined as `result.result` joins it, bounded by
//! [`TEXT_MAX`]) and the result object built from the canonical `result` event. It must not
//! write: it hands the object's line to `writer`, which decides what is written.

use super::FmtTotals;
use super::canonical::{canonical, error_flag};
use super::json_text::{Obj, entries, write_str};
use sjlint_core::agents::cursor::view::{Dialect, Event};

/// `--to json`: follows the session's text; at its `result`, puts the result object in `line`
/// and returns true.
pub(super) fn json_event(
    session: &mut Option<SessionText>,
    totals: &mut FmtTotals,
    json: &str,
    ev: &Event<'_>,
    forced: Option<Dialect>,
    started_kind: Option<&str>,
    line: &mut Vec<u8>,
) -> bool {
    let (ty, subtype) = (ev.ty.as_str(), ev.subtype.as_str());
    if ty == Some("raw") {
        return false;
    }
    // An init opens a session unless it repeats the init of the one still open (the validator's
    // `duplicate-init`): then that session goes on. One naming another session means the open
    // one was cut off.
    if ty == Some("system")
        && subtype == Some("init")
        && let Some(open) = session.as_ref()
        && matches!((&open.id, ev.session_id.as_str()), (Some(a), Some(b)) if **a != *b)
    {
        totals.unfinished += 1;
        *session = None;
    }
    let current = session.get_or_insert_with(SessionText::default);
    current.events += 1;
    if current.id.is_none()
        && let Some(id) = ev.session_id.as_str()
    {
        current.id = Some(id.into());
    }
    match ty {
        Some("assistant") => {
            if let Some(text) = ev.message.text.as_deref() {
                let flush = !ev.timestamp_ms.is_present() && !ev.model_call_id.is_present();
                current.push(text, ev.is_delta(), flush);
            }
            false
        }
        Some("result") => {
            let ended = session.take().unwrap_or_default();
            let mut canon = Vec::with_capacity(json.len());
            canonical(json, ev, forced, started_kind, &mut canon);
            let canon = std::str::from_utf8(&canon).expect("the canonical form is UTF-8");
            if ended.too_long && !ev.result.is_present() {
                totals.texts_left_out += 1;
            }
            json_result(canon, ev, &ended, line);
            line.push(b'\n');
            true
        }
        _ => false,
    }
}

/// The assistant text of one session, joined as `result.result` joins it: every segment, with
/// partial-output deltas and the flush that repeats them counted once.
#[derive(Default)]
pub(super) struct SessionText {
    pub(super) events: u64,
    id: Option<Box<str>>,
    text: String,
    /// Deltas since the last segment that was not one.
    pending: String,
    /// The text grew past [`TEXT_MAX`]: it is no longer kept, nor added to the result.
    too_long: bool,
}

/// `--to json`: most bytes of a session's assistant text kept, to give a `result` that lacks
/// its text the session's text. A longer text would make a result record longer than sjlint
/// reads by default.
pub(super) const TEXT_MAX: usize = 64 << 20;

impl SessionText {
    fn push(&mut self, text: &str, delta: bool, flush: bool) {
        if self.too_long {
            return;
        }
        if self.text.len() + self.pending.len() + text.len() > TEXT_MAX {
            self.too_long = true;
            self.text = String::new();
            self.pending = String::new();
            return;
        }
        if delta {
            self.pending.push_str(text);
            return;
        }
        if !(flush && !self.pending.is_empty() && self.pending == text) {
            self.text.push_str(&self.pending);
        }
        self.text.push_str(text);
        self.pending.clear();
    }

    fn joined(&self) -> String {
        let mut text = self.text.clone();
        text.push_str(&self.pending);
        text
    }
}

/// The `--output-format json` object for a session: its canonical `result` event, with what
/// that form always carries added when the stream's result lacks it: the result text (the
/// session's assistant text joined), `session_id` and `is_error`.
fn json_result(canon: &str, ev: &Event<'_>, session: &SessionText, out: &mut Vec<u8>) {
    let Some(top) = entries(canon) else {
        out.extend_from_slice(canon.as_bytes());
        return;
    };
    let has = |name: &str| top.iter().any(|(k, _)| k == name);
    let mut o = Obj::open(out);
    for (k, v) in &top {
        o.raw(k, v);
    }
    if !has("result") && !session.too_long {
        o.key("result");
        write_str(&session.joined(), o.out);
    }
    if !has("session_id")
        && let Some(id) = &session.id
    {
        o.key("session_id");
        write_str(id, o.out);
    }
    if !has("is_error")
        && let Some(flag) = error_flag(ev)
    {
        o.key("is_error");
        o.out.extend_from_slice(flag.as_bytes());
    }
    o.close();
}
