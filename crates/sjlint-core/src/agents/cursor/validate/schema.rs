//! The schema rules: what one event must look like on its own, whatever came before it (its
//! `type` and `subtype`, the fields its kind must have and their JSON types, the shape of
//! `tool_call`, repeated keys, a result's flags).
//!
//! Every function here reads one event and reports; none keeps state, so an event is judged the
//! same wherever it stands in the stream. Which fields only some dialects write is decided by the
//! session ([`Required`]), not here.

use super::Ctx;
use crate::agents::Agent;
use crate::agents::cursor::view::Event;
use crate::diagnostic::Diagnostic;
use crate::json::{Field, JsonType};
use crate::rules::Rule;
use crate::rules::messages::{self, Found, Malformed, Want};
use crate::text::Excerpt;

/// Tool kinds seen in real runs or reported by users of the CLI; any other kind is information.
pub const KNOWN_TOOL_KINDS: &[&str] = &[
    "shellToolCall",
    "readToolCall",
    "editToolCall",
    "webFetchToolCall",
    "webSearchToolCall",
    "askQuestionToolCall",
    "grepToolCall",
    "globToolCall",
    "lsToolCall",
    "writeToolCall",
    "deleteToolCall",
    "updateTodosToolCall",
    "mcpToolCall",
    "createPlanToolCall",
    "semSearchToolCall",
    "readLintsToolCall",
    "function",
    // The payload dialect's file writes (seed 002).
    "writeFileToolCall",
    "taskToolCall",
    "getMcpToolsToolCall",
    "readTodosToolCall",
    "switchModeToolCall",
    "generateImageToolCall",
    "writeShellStdinToolCall",
];

/// Event types every dialect knows, with the subtypes each takes (`None`: takes no subtype).
const KNOWN_TYPES: &[(&str, Option<&[&str]>)] = &[
    (
        "system",
        Some(&["init", "task_notification", "background_shell_timeout"]),
    ),
    ("user", None),
    ("assistant", None),
    ("thinking", Some(&["delta", "completed"])),
    ("tool_call", Some(&["started", "completed"])),
    ("interaction_query", Some(&["request", "response"])),
    ("result", Some(&["success", "error"])),
    // Transport records of a healthy run whose connection dropped and was restored.
    ("connection", Some(&["reconnecting", "reconnected"])),
    ("retry", Some(&["starting"])),
    // The payload dialect's own events (seed 002), which have no cursor counterpart. Sdk event
    // names are mapped to `tool_call` by the classifier, so they never reach this table unless
    // `--dialect cursor` forces a cursor reading.
    ("error", None),
    ("raw", None),
];

/// The fields that only some dialects write, and whether this event must have them.
#[derive(Clone, Copy)]
pub(super) struct Required {
    /// `session_id` on every event.
    pub(super) session_id: bool,
    /// `is_error` on a result, and `result` on a success.
    pub(super) result_fields: bool,
}

/// The per-record schema rules, in the order their findings are reported.
pub(super) fn check(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    required: Required,
) {
    duplicate_event_key(ctx, ev);
    let Some(ty) = missing_type(ctx, ev) else {
        return;
    };
    let Some((_, subtypes)) = KNOWN_TYPES.iter().find(|(t, _)| *t == ty) else {
        unknown_event_type(ctx, ty);
        return;
    };
    unknown_subtype(ctx, ev, ty, *subtypes);
    missing_subtype(ctx, ev, ty, *subtypes);
    let subtype = ev.subtype.as_str().unwrap_or("");
    common_field_types(ctx, ev);
    if required.session_id
        && !matches!(ty, "interaction_query" | "error" | "raw")
        && !ev.session_id.is_present()
    {
        missing(ctx, ty, "session_id");
    }
    match ty {
        "user" | "assistant" => message_fields(ctx, ev, ty),
        "thinking" => thinking_fields(ctx, ev, subtype),
        "tool_call" => tool_call_fields(ctx, ev, subtype),
        "interaction_query" => query_fields(ctx, ev, subtype),
        "result" => {
            result_fields(ctx, ev, subtype, required);
            result_flag_mismatch(ctx, ev, subtype);
        }
        "error" => error_fields(ctx, ev, ty),
        "raw" => raw_fields(ctx, ev, ty),
        _ => {}
    }
}

/// `duplicate-key`: the event object repeats a top-level key.
fn duplicate_event_key(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>) {
    if let Some(key) = ev.duplicate_key.as_deref() {
        let d = Diagnostic::from_message(ctx.pos, messages::duplicate_key(key, None));
        ctx.emit_at(d, &[key], false);
    }
}

/// `missing-type`: the event has no `type`, or not a string. The type, when it has one.
fn missing_type<'e>(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &'e Event<'_>,
) -> Option<&'e str> {
    match &ev.ty {
        Field::Str(t) => Some(t),
        Field::Absent => {
            let d = Diagnostic::from_message(
                ctx.pos,
                messages::missing_type(Agent::Cursor.display_name(), "type", None, None),
            );
            ctx.emit_at(d, &[], false);
            None
        }
        other => {
            let d = Diagnostic::from_message(
                ctx.pos,
                messages::missing_type(
                    Agent::Cursor.display_name(),
                    "type",
                    other.json_type(),
                    None,
                ),
            );
            ctx.emit_at(d, &["type"], true);
            None
        }
    }
}

/// `unknown-event-type`: a `type` no dialect knows.
fn unknown_event_type(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ty: &str) {
    if ctx.wants(Rule::UnknownEventType) {
        let d = Diagnostic::from_message(
            ctx.pos,
            messages::unknown_event_type(Agent::Cursor.display_name(), "type", ty),
        );
        ctx.emit_at(d, &["type"], true);
    }
}

/// `unknown-subtype`: a subtype the known `type` does not take.
fn unknown_subtype(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    ty: &str,
    subtypes: Option<&[&str]>,
) {
    let Field::Str(s) = &ev.subtype else {
        return;
    };
    if !ctx.wants(Rule::UnknownSubtype) {
        return;
    }
    let known = match subtypes {
        Some(known) if known.contains(&&**s) => return,
        Some(known) => known,
        None => &[],
    };
    let record = format!("`{}`", Excerpt(ty));
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::unknown_subtype(&messages::Subtype {
            agent: Agent::Cursor.display_name(),
            record: &record,
            field: "subtype",
            value: s,
            known,
            note: None,
        }),
    );
    ctx.emit_at(d, &["subtype"], true);
}

/// `missing-field`: a `type` that takes subtypes has none.
fn missing_subtype(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    ty: &str,
    subtypes: Option<&[&str]>,
) {
    if let (Field::Absent, Some(known)) = (&ev.subtype, subtypes) {
        let d = Diagnostic::from_message(
            ctx.pos,
            messages::missing_field(&event_named(ty), "subtype", Some(known)),
        );
        ctx.emit_at(d, &["type"], true);
    }
}

/// `wrong-field-type` of the fields every event may carry.
fn common_field_types(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>) {
    expect(ctx, "subtype", &ev.subtype, JsonType::String);
    expect(ctx, "session_id", &ev.session_id, JsonType::String);
    expect(ctx, "timestamp_ms", &ev.timestamp_ms, JsonType::Number);
    expect(ctx, "model_call_id", &ev.model_call_id, JsonType::String);
}

/// A `user` or `assistant` event without its `message` object, or with a `message.content` that
/// is not an array of texts.
fn message_fields(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>, ty: &str) {
    match ev.message.shape {
        None => missing(ctx, ty, "message"),
        Some(JsonType::Object) => {
            expect(ctx, "role", &ev.message.role, JsonType::String);
            match ev.message.content_shape {
                None => missing(ctx, ty, "message.content"),
                Some(JsonType::Array) => {
                    if let Some(t) = ev.message.bad_text {
                        wrong(
                            ctx,
                            &["message", "content"],
                            "message.content[].text",
                            t,
                            JsonType::String,
                        );
                    }
                }
                Some(t) => wrong(
                    ctx,
                    &["message", "content"],
                    "message.content",
                    t,
                    JsonType::Array,
                ),
            }
        }
        Some(t) => wrong(ctx, &["message"], "message", t, JsonType::Object),
    }
}

/// A `thinking` event whose `text` is not a string, or a delta without one.
fn thinking_fields(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>, subtype: &str) {
    expect(ctx, "text", &ev.text, JsonType::String);
    if subtype == "delta" && !ev.text.is_present() {
        missing(ctx, "thinking/delta", "text");
    }
}

/// A `tool_call` event without its `call_id`, or with a `tool_call` of the wrong shape.
fn tool_call_fields(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>, subtype: &str) {
    expect(ctx, "call_id", &ev.call_id, JsonType::String);
    // Only the subtypes sjlint knows have known required fields.
    if matches!(subtype, "started" | "completed") {
        let what = match subtype {
            "started" => "tool_call/started",
            _ => "tool_call/completed",
        };
        if !ev.call_id.is_present() {
            missing(ctx, what, "call_id");
        }
        malformed_tool_call(ctx, ev, what, subtype);
    } else if ev.tool_call.shape.is_some() {
        malformed_tool_call(ctx, ev, "tool_call", subtype);
    }
}

/// `malformed-tool-call` and the other findings on the `tool_call` object: absent, not an
/// object, a repeated key, no tool kind or several, a kind whose body is not an object, a kind
/// sjlint does not know.
fn malformed_tool_call(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    what: &str,
    subtype: &str,
) {
    let tc = &ev.tool_call;
    match tc.shape {
        None => return missing(ctx, what, "tool_call"),
        Some(JsonType::Object) => {}
        Some(t) => {
            let d = Diagnostic::from_message(
                ctx.pos,
                messages::malformed_tool_call(
                    Malformed::NotObject {
                        field: "tool_call",
                        key: None,
                        found: t,
                    },
                    None,
                ),
            );
            return ctx.emit_at(d, &["tool_call"], true);
        }
    }
    duplicate_tool_call_key(ctx, ev);
    let Some(kind) = tc.kind.as_deref() else {
        // A completion may carry its `result` without naming the kind again (seed 002): it takes
        // its `started`'s kind.
        if !(subtype == "completed" && tc.bare_result) {
            let d = Diagnostic::from_message(
                ctx.pos,
                messages::malformed_tool_call(Malformed::NoKind, None),
            );
            ctx.emit_at(d, &["tool_call"], true);
        }
        return;
    };
    if several_tool_kinds(ctx, ev, kind) || tool_body_not_object(ctx, ev, kind) {
        return;
    }
    // A completion's kind is judged against its start when the two are paired.
    if subtype != "completed" {
        unknown_tool_kind(ctx, kind);
    }
}

/// `duplicate-key`: the `tool_call` object repeats a key.
fn duplicate_tool_call_key(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>) {
    if let Some(key) = ev.tool_call.duplicate_key.as_deref() {
        let d =
            Diagnostic::from_message(ctx.pos, messages::duplicate_key(key, Some("`tool_call`")));
        ctx.emit_at(d, &["tool_call", key], false);
    }
}

/// `malformed-tool-call`: `tool_call` names more than one tool kind. Whether it did.
fn several_tool_kinds(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    kind: &str,
) -> bool {
    let tc = &ev.tool_call;
    if tc.kinds <= 1 {
        return false;
    }
    let other = tc.other_kind.as_deref().unwrap_or(kind);
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::malformed_tool_call(
            Malformed::SeveralKinds {
                count: tc.kinds,
                first: kind,
                other,
            },
            None,
        ),
    );
    ctx.emit_at(d, &["tool_call", other], false);
    true
}

/// `malformed-tool-call`: the tool kind's body is not an object. Whether it was not.
fn tool_body_not_object(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    kind: &str,
) -> bool {
    let tc = &ev.tool_call;
    if tc.body_shape == Some(JsonType::Object) {
        return false;
    }
    let t = tc.body_shape.unwrap_or(JsonType::Null);
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::malformed_tool_call(
            Malformed::NotObject {
                field: "tool_call",
                key: Some(kind),
                found: t,
            },
            None,
        ),
    );
    ctx.emit_at(d, &["tool_call", kind], true);
    true
}

/// `unknown-tool-kind`: a kind that is not in [`KNOWN_TOOL_KINDS`].
pub(super) fn unknown_tool_kind(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, kind: &str) {
    if ctx.wants(Rule::UnknownToolKind) && !KNOWN_TOOL_KINDS.contains(&kind) {
        let d = Diagnostic::from_message(ctx.pos, messages::unknown_tool_kind(kind));
        ctx.emit_at(d, &["tool_call", kind], false);
    }
}

/// An `interaction_query` without its `query_type`, or without its `query` (`response`) object
/// or that object's `id`.
fn query_fields(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>, subtype: &str) {
    expect(ctx, "query_type", &ev.query_type, JsonType::String);
    let (name, q) = if subtype == "response" {
        ("response", &ev.response)
    } else {
        ("query", &ev.query)
    };
    if subtype == "request" && !ev.query_type.is_present() {
        missing(ctx, "interaction_query/request", "query_type");
    }
    match q.shape {
        None if !subtype.is_empty() => missing(
            ctx,
            &format!("interaction_query/{}", Excerpt(subtype)),
            name,
        ),
        None => {}
        Some(JsonType::Object) if !q.id.is_present() => missing(
            ctx,
            &format!("interaction_query/{}", Excerpt(subtype)),
            &format!("{name}.id"),
        ),
        Some(JsonType::Object) => {}
        Some(t) => wrong(ctx, &[name], name, t, JsonType::Object),
    }
}

/// A `result` whose fields have the wrong types, or without the fields its session requires.
fn result_fields(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    subtype: &str,
    required: Required,
) {
    expect(ctx, "is_error", &ev.is_error, JsonType::Bool);
    expect(ctx, "result", &ev.result, JsonType::String);
    expect(ctx, "duration_ms", &ev.duration_ms, JsonType::Number);
    expect(
        ctx,
        "duration_api_ms",
        &ev.duration_api_ms,
        JsonType::Number,
    );
    expect(ctx, "request_id", &ev.request_id, JsonType::String);
    if let Some(t) = ev.usage.shape.filter(|t| *t != JsonType::Object) {
        wrong(ctx, &["usage"], "usage", t, JsonType::Object);
    }
    match ev.usage.not_a_count {
        Some((key, JsonType::Number)) => not_a_count(ctx, &["usage", key]),
        Some((key, t)) => wrong(
            ctx,
            &["usage", key],
            &format!("usage.{key}"),
            t,
            JsonType::Number,
        ),
        None => {}
    }
    if required.result_fields && !ev.is_error.is_present() {
        missing(ctx, "result", "is_error");
    }
    if required.result_fields && subtype == "success" && !ev.result.is_present() {
        missing(ctx, "result/success", "result");
    }
}

/// `result-flag-mismatch`: `subtype` and `is_error` say different things about the run.
fn result_flag_mismatch(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    ev: &Event<'_>,
    subtype: &str,
) {
    let is_error = match (subtype, ev.is_error.as_bool()) {
        ("success", Some(true)) => true,
        ("error", Some(false)) => false,
        _ => return,
    };
    let d = Diagnostic::from_message(ctx.pos, messages::result_flag_mismatch(subtype, is_error));
    ctx.emit_at(d, &["is_error"], true);
}

/// Seed 002's `{"type":"error","message"}`: here `message` is the error text.
fn error_fields(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>, ty: &str) {
    match ev.message.shape {
        None => missing(ctx, ty, "message"),
        Some(JsonType::String) => {}
        Some(t) => wrong(ctx, &["message"], "message", t, JsonType::String),
    }
}

/// A `raw` event without its `data` text.
fn raw_fields(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>, ty: &str) {
    expect(ctx, "data", &ev.data, JsonType::String);
    if !ev.data.is_present() {
        missing(ctx, ty, "data");
    }
}

/// How a message names an event of type `ty` (a known type: the stream's own text is not
/// repeated).
fn event_named(ty: &str) -> String {
    format!("the `{ty}` event")
}

/// `missing-field`: the `what` event has no `field`.
fn missing(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, what: &str, field: &str) {
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::missing_field(&event_named(what), field, None),
    );
    ctx.emit_at(d, &[], false);
}

/// `wrong-field-type`, when the field `name` is present with another type than `want`.
fn expect(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    name: &str,
    f: &Field<'_>,
    want: JsonType,
) {
    if let Some(found) = f.json_type()
        && found != want
    {
        wrong(ctx, &[name], name, found, want);
    }
}

/// `wrong-field-type` for a number at `path` that is no count.
#[cold]
fn not_a_count(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, path: &[&str]) {
    let value = crate::locate::in_any_dialect(ctx.bytes, path, true).map(|s| &ctx.bytes[s]);
    let message = messages::wrong_field_type(path, Found::NotACount(value), &[Want::Num]);
    let d = Diagnostic::from_message(ctx.pos, message);
    ctx.emit_at(d, path, true);
}

/// `wrong-field-type`: the field at `path` is a `found` where a `want` belongs.
fn wrong(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    path: &[&str],
    name: &str,
    found: JsonType,
    want: JsonType,
) {
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::wrong_field_type(&[name], Found::Type(found), &[want.into()]),
    );
    ctx.emit_at(d, path, true);
}
