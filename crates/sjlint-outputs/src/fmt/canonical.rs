//! The canonical form of one event: a cursor record copied without the whitespace between its
//! tokens, a payload or sdk record moved into cursor's envelope (`payload`, `sdk`), round after
//! round until it reads as cursor. The pieces of cursor's shape the mappings share
//! (`message.content` as an array of texts, `is_error` from the subtype) are in [`parts`], a
//! leaf that `payload` and `sdk` use directly (and `to_json` through the re-export here), so
//! the mappings do not name this module back.
//!
//! This module owns the mapping of one record, given its event and the kind its call started
//! with. It must not decide which records are written (that is `writer`'s) nor keep state
//! between records; it moves fields the way the classifier of `agents::cursor::view` maps them.

pub(super) mod parts;

use super::json_text::{entries, minifies_to, minify};
use super::payload::payload;
use super::sdk::sdk;
use sjlint_core::agents::cursor::view::{self, Dialect, Event, Parsed};

pub(super) use parts::error_flag;

/// Appends the canonical form of one event. `started_kind`: the kind of the call a completion
/// completes, when known.
/// `forced`: the dialect every record is read as (`--dialect`), or `None` for each by its shape.
pub(super) fn canonical(
    json: &str,
    ev: &Event<'_>,
    forced: Option<Dialect>,
    started_kind: Option<&str>,
    out: &mut Vec<u8>,
) {
    if ev.dialect == Dialect::Cursor {
        minify(json, out);
        return;
    }
    // Sized for the record and what a mapping adds (a few keys, a kind), plus its line's LF:
    // a long record is not copied again by growing.
    let mut once = Vec::with_capacity(json.len() + MAPPING_ADDS);
    map_dialect(json, ev, started_kind, &mut once);
    // A record can mix dialects (an sdk event name inside a payload wrapper): what one mapping
    // leaves, the next one maps (read as the same `--dialect`), until the record reads as cursor
    // or stops changing. Each round removes one dialect's shapes, so a few rounds suffice; this
    // keeps `fmt` idempotent. A mapping that moved nothing would map its own output the same
    // way again: no round is needed then.
    let mut scratch = Vec::new();
    for _ in 0..3 {
        if minifies_to(json, &once) {
            break;
        }
        let Ok(text) = std::str::from_utf8(&once) else {
            break;
        };
        let Ok(Parsed::Event(next)) = view::parse(text, forced, Some(&mut scratch)) else {
            break;
        };
        if next.dialect == Dialect::Cursor {
            break;
        }
        let mut again = Vec::with_capacity(once.len() + MAPPING_ADDS);
        map_dialect(text, &next, started_kind, &mut again);
        if again == once {
            break;
        }
        once = again;
    }
    if out.is_empty() && out.capacity() < once.capacity() {
        *out = once;
    } else {
        out.extend_from_slice(&once);
    }
}

/// Room for what mapping a record adds to it (besides a kind named elsewhere in the record,
/// for which the buffer grows).
const MAPPING_ADDS: usize = 4096;

/// One round of [`canonical`]: the record's own dialect mapped into the cursor form.
fn map_dialect(json: &str, ev: &Event<'_>, started_kind: Option<&str>, out: &mut Vec<u8>) {
    let Some(top) = entries(json) else {
        minify(json, out);
        return;
    };
    match ev.dialect {
        Dialect::Payload => payload(&top, ev, started_kind, out),
        Dialect::Sdk => sdk(&top, ev, started_kind, out),
        Dialect::Cursor => unreachable!("cursor records are copied above"),
    }
}
