//! The payload dialect (seed 002) in cursor's envelope: the wrapper's keys moved to the top
//! level, `toolCall` into `call_id` and `tool_call.<kind>`, `thinking`'s `content` into `text`,
//! `prompt` into `message`.
//!
//! This module owns that mapping, as `view::map_payload` reads the same record; the two
//! change together. It must not map another dialect nor keep state between records.

use super::canonical::parts::{message, role_of, text_content};
use super::json_text::{Entries, Obj, entries, is_object, is_string, minify};
use serde_json::value::RawValue;
use sjlint_core::agents::cursor::view::{self, Event};

/// Payload dialect (seed 002): the wrapper's keys move to the top level, where a key that is
/// already there keeps the wrapper's copy in the wrapper (unless the two are equal); then the
/// same moves as `view::map_payload`.
pub(super) fn payload(
    top: &Entries<'_>,
    ev: &Event<'_>,
    started_kind: Option<&str>,
    out: &mut Vec<u8>,
) {
    let ty = ev.ty.as_str();
    // Every `payload` object is a wrapper (the classifier reads them all).
    let wrappers: Vec<(usize, Entries<'_>)> = top
        .iter()
        .enumerate()
        .filter(|(_, (k, v))| k == "payload" && is_object(v))
        .filter_map(|(i, (_, v))| entries(v.get()).map(|e| (i, e)))
        .collect();
    let wrapper = |i: usize| wrappers.iter().find(|(w, _)| *w == i).map(|(_, e)| e);
    let outer = |name: &str| {
        top.iter()
            .enumerate()
            .find(|(i, (k, _))| wrapper(*i).is_none() && k == name)
            .map(|(_, (_, v))| *v)
    };
    let has = |name: &str| {
        outer(name).is_some()
            || wrappers
                .iter()
                .any(|(_, e)| e.iter().any(|(k, _)| k == name))
    };
    let ctx = PayloadCtx {
        ty,
        ev,
        started_kind,
        has_message: has("message"),
        has_text: has("text"),
        has_tool_call: has("tool_call"),
        has_call_id: has("call_id"),
    };
    let mut o = Obj::open(out);
    let mut subtype_written = outer("subtype").is_some();
    for (i, (k, v)) in top.iter().enumerate() {
        if let Some(inner) = wrapper(i) {
            let mut kept = Vec::new();
            for (ik, iv) in inner {
                let stays = match &**ik {
                    // The event's own type and subtype are the top-level ones.
                    "type" | "subtype" | "payload" => true,
                    name => outer(name).is_some_and(|ov| !same_json(ov, iv)),
                };
                if stays {
                    kept.push((ik, *iv));
                } else if outer(ik).is_none() {
                    payload_field(&mut o, &ctx, ik, iv);
                }
            }
            if !kept.is_empty() {
                o.key("payload");
                let mut w = Obj::open(o.out);
                for (k, v) in kept {
                    w.raw(k, v);
                }
                w.close();
            }
            continue;
        }
        payload_field(&mut o, &ctx, k, v);
        // Seed 002's `thinking` names no subtype: a whole thought, `completed` canonically.
        if k == "type" && ty == Some("thinking") && !subtype_written {
            o.lit("subtype", r#""completed""#);
            subtype_written = true;
        }
    }
    o.close();
}

struct PayloadCtx<'e> {
    ty: Option<&'e str>,
    ev: &'e Event<'e>,
    started_kind: Option<&'e str>,
    has_message: bool,
    has_text: bool,
    has_tool_call: bool,
    has_call_id: bool,
}

fn payload_field(o: &mut Obj<'_>, c: &PayloadCtx<'_>, k: &str, v: &RawValue) {
    match k {
        "prompt" if c.ty == Some("user") && !c.has_message && is_string(v) => {
            o.key("message");
            o.out.extend_from_slice(br#"{"role":"user","content":"#);
            text_content(v, o.out);
            o.out.push(b'}');
        }
        "content" if c.ty == Some("thinking") && !c.has_text => o.raw("text", v),
        "message" if is_object(v) => {
            o.key("message");
            message(v, role_of(c.ty), o.out);
        }
        "toolCall" if !c.has_tool_call => payload_tool_call(o, c, v),
        _ => o.raw(k, v),
    }
}

/// `toolCall{id, <kind>{…}, result}` → `call_id` and `tool_call{<kind>{args, result}}`.
fn payload_tool_call(o: &mut Obj<'_>, c: &PayloadCtx<'_>, v: &RawValue) {
    let Some(tc) = entries(v.get()) else {
        o.raw("tool_call", v);
        return;
    };
    // Where `id` repeats, the classifier reads its last value; so does the mapping.
    let id = if c.has_call_id {
        None
    } else {
        tc.iter().rposition(|(k, _)| k == "id")
    };
    if let Some(i) = id {
        o.raw("call_id", tc[i].1);
    }
    let subtype = c.ev.subtype.as_str();
    let names_kind = tc.iter().any(|(k, _)| view::is_kind_key(k));
    // A completion that names no kind is written with its start's.
    let fill = match subtype {
        Some("completed") if !names_kind => c.started_kind,
        _ => None,
    };
    o.key("tool_call");
    let mut w = Obj::open(o.out);
    let mut body_written = false;
    for (j, (k, v)) in tc.iter().enumerate() {
        if Some(j) == id {
            continue;
        }
        if let Some(kind) = fill
            && matches!(&**k, "args" | "result")
        {
            if !body_written {
                body_written = true;
                w.key(kind);
                let mut b = Obj::open(w.out);
                for (k, v) in tc.iter().filter(|(k, _)| matches!(&**k, "args" | "result")) {
                    b.raw(k, v);
                }
                b.close();
            }
            continue;
        }
        if subtype == Some("started") && view::is_kind_key(k) && is_object(v) {
            w.key(k);
            kind_body(v, w.out);
        } else {
            w.raw(k, v);
        }
    }
    w.close();
}

/// A started kind whose fields are its arguments (`writeFileToolCall{path, contents}`) gets them
/// under `args`; `name` stays beside them. A body with `args` (or `arguments`, or a `result`) is
/// kept as it is.
fn kind_body(v: &RawValue, out: &mut Vec<u8>) {
    let body = entries(v.get()).unwrap_or_default();
    let flat = !body
        .iter()
        .any(|(k, _)| matches!(&**k, "args" | "arguments" | "result"))
        && body.iter().any(|(k, _)| k != "name");
    if !flat {
        minify(v.get(), out);
        return;
    }
    let mut o = Obj::open(out);
    let mut args_written = false;
    for (k, v) in &body {
        if k == "name" {
            o.raw(k, v);
        } else if !args_written {
            args_written = true;
            o.key("args");
            let mut a = Obj::open(o.out);
            for (k, v) in body.iter().filter(|(k, _)| k != "name") {
                a.raw(k, v);
            }
            a.close();
        }
    }
    o.close();
}

/// Whether two raw JSON values are the same text once the whitespace between tokens is gone.
fn same_json(a: &RawValue, b: &RawValue) -> bool {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    minify(a.get(), &mut x);
    minify(b.get(), &mut y);
    x == y
}
