//! Claude Code's notices: the `system` lines other than `init` that 2.1 added (refusals, the
//! SDK's mirror errors, plugin installs, notifications, memory recalls, version-control news,
//! task notifications, …) and the `command_lifecycle` lines, with the fields each carries and
//! what the common form makes of them.
//!
//! This module owns the list of those notices and their fields, each marked by how sure the
//! sources are of it (see `agents/claude.md` of the format notes): a field the SDK's types name
//! ([`Sure::Typed`]) is checked as any field is, a missing required one or a wrong type being an
//! error; a field known only from lines seen in other projects' captures ([`Sure::Seen`]) is
//! checked leniently, a wrong type being information. A notice is read again for its fields,
//! which costs nothing on the lines that are not notices (`thinking_tokens`, the most frequent
//! `system` line, is none). What the common form makes of a notice: an error the run goes on
//! after (`mirror_error`, `model_refusal_no_fallback`, a `plugin_install` that failed) is an
//! `error` event; the others say nothing a consumer of the common form acts on. It must not
//! hold the rules of sessions or tool calls (`super`).

use crate::agents::{Emit, Raw, Sink, Want, expect, missing};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::Severity;
use crate::vocab::{self, Kind};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// How sure the sources are of a field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sure {
    /// The SDK's types name it, with its type.
    Typed,
    /// Only seen in lines other projects captured: a wrong type is information.
    Seen,
}

/// One field of a notice.
struct Spec {
    name: &'static str,
    want: Want,
    /// The notice has no meaning without it.
    required: bool,
    nullable: bool,
    sure: Sure,
}

const fn req(name: &'static str, want: Want) -> Spec {
    Spec {
        name,
        want,
        required: true,
        nullable: false,
        sure: Sure::Typed,
    }
}

const fn opt(name: &'static str, want: Want) -> Spec {
    Spec {
        name,
        want,
        required: false,
        nullable: false,
        sure: Sure::Typed,
    }
}

const fn or_null(name: &'static str, want: Want) -> Spec {
    Spec {
        name,
        want,
        required: false,
        nullable: true,
        sure: Sure::Typed,
    }
}

const fn seen(name: &'static str, want: Want) -> Spec {
    Spec {
        name,
        want,
        required: false,
        nullable: false,
        sure: Sure::Seen,
    }
}

/// The `system` subtypes of Claude Code 2.1 this module knows, with their fields (besides
/// `uuid` and `session_id`, which every line has). The SDK's types of 2.1.19x name all but
/// `vcs_state_changed` and `code_change_published` (since 2.1.217, seen only).
const SUBTYPES: &[(&str, &[Spec])] = &[
    (
        "informational",
        &[
            req("content", Want::Str),
            opt("level", Want::Str),
            opt("tool_use_id", Want::Str),
            opt("prevent_continuation", Want::Bool),
        ],
    ),
    (
        "model_refusal_fallback",
        &[
            req("content", Want::Str),
            opt("original_model", Want::Str),
            opt("fallback_model", Want::Str),
            or_null("request_id", Want::Str),
            opt("trigger", Want::Str),
            opt("direction", Want::Str),
            opt("scope", Want::Str),
            or_null("api_refusal_category", Want::Str),
            or_null("api_refusal_explanation", Want::Str),
            opt("retracted_message_uuids", Want::Arr),
            or_null("refused_user_message_uuid", Want::Str),
        ],
    ),
    (
        "model_refusal_no_fallback",
        &[
            req("content", Want::Str),
            opt("original_model", Want::Str),
            or_null("request_id", Want::Str),
            or_null("api_refusal_category", Want::Str),
            or_null("api_refusal_explanation", Want::Str),
            or_null("refused_user_message_uuid", Want::Str),
        ],
    ),
    (
        "mirror_error",
        &[req("error", Want::Str), opt("key", Want::Obj)],
    ),
    (
        "plugin_install",
        &[
            req("status", Want::Str),
            opt("name", Want::Str),
            opt("error", Want::Str),
        ],
    ),
    (
        "control_request_progress",
        &[
            req("request_id", Want::Str),
            req("status", Want::Str),
            opt("attempt", Want::Num),
            opt("max_retries", Want::Num),
            opt("retry_delay_ms", Want::Num),
            or_null("error_status", Want::Num),
        ],
    ),
    ("worker_shutting_down", &[opt("reason", Want::Str)]),
    (
        "notification",
        &[
            req("text", Want::Str),
            opt("key", Want::Str),
            opt("priority", Want::Str),
            opt("color", Want::Str),
            opt("timeout_ms", Want::Num),
        ],
    ),
    (
        "memory_recall",
        &[req("memories", Want::Arr), opt("mode", Want::Str)],
    ),
    (
        "vcs_state_changed",
        &[
            seen("kind", Want::Str),
            seen("branch", Want::Str),
            seen("cwd", Want::Str),
        ],
    ),
    (
        "code_change_published",
        &[
            seen("provider", Want::Str),
            seen("url", Want::Str),
            seen("repo", Want::Str),
            seen("identifier", Want::Str),
            seen("action", Want::Str),
        ],
    ),
    ("commands_changed", &[req("commands", Want::Arr)]),
    (
        "elicitation_complete",
        &[
            req("mcp_server_name", Want::Str),
            req("elicitation_id", Want::Str),
        ],
    ),
    (
        "task_notification",
        &[
            req("task_id", Want::Str),
            req("status", Want::Str),
            opt("tool_use_id", Want::Str),
            opt("output_file", Want::Str),
            opt("summary", Want::Str),
            opt("usage", Want::Obj),
            opt("reason", Want::Str),
            opt("resource_links", Want::Arr),
            opt("skip_transcript", Want::Bool),
            opt("ambient", Want::Bool),
        ],
    ),
];

/// The fields of a `command_lifecycle` line (2.1.206): one per command of the input, as it is
/// queued, started and completed. Seen only: the SDK's types leave the line out.
const COMMAND_LIFECYCLE: &[Spec] = &[seen("command_uuid", Want::Str), seen("state", Want::Str)];

/// Whether this module knows the `system` subtype `st`.
pub(super) fn knows(st: &str) -> bool {
    SUBTYPES.iter().any(|(name, _)| *name == st)
}

/// A line's top-level fields, read again (a notice is rare; `None`: the line does not read as
/// an object with `serde_json`'s reader, and is not checked further).
struct Fields<'a>(BTreeMap<String, &'a RawValue>);

impl<'a> Fields<'a> {
    fn read(json: &'a str) -> Option<Fields<'a>> {
        serde_json::from_str(json).ok().map(Fields)
    }

    fn get(&self, name: &str) -> Raw<'a> {
        Raw(self.0.get(name).copied())
    }
}

/// Checks the `system` line `json` of subtype `st` (one [`knows`]), and gives its common event
/// to `sink`, when it has one.
pub(super) fn system(
    st: &str,
    pos: Position,
    bytes: &[u8],
    json: &str,
    emit: Emit<'_>,
    sink: &mut Sink<'_, '_>,
) {
    let Some((name, specs)) = SUBTYPES.iter().find(|(name, _)| *name == st) else {
        return;
    };
    let Some(fields) = Fields::read(json) else {
        return;
    };
    let what = format!("a `system`/`{name}` line");
    check(specs, &fields, &what, pos, bytes, emit);
    if let Some(sink) = sink
        && let Some(ev) = common(st, &fields, pos.line)
    {
        sink(&ev);
    }
}

/// Checks a `command_lifecycle` line.
pub(super) fn command_lifecycle(pos: Position, bytes: &[u8], json: &str, emit: Emit<'_>) {
    if let Some(fields) = Fields::read(json) {
        check(
            COMMAND_LIFECYCLE,
            &fields,
            "a `command_lifecycle` line",
            pos,
            bytes,
            emit,
        );
    }
}

fn check(
    specs: &[Spec],
    fields: &Fields<'_>,
    what: &str,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) {
    for spec in specs {
        let t = fields.get(spec.name).json_type();
        if t.is_none() {
            if spec.required {
                emit(missing(pos, bytes, what, spec.name));
            }
            continue;
        }
        match spec.sure {
            Sure::Typed => {
                expect(t, spec.want, spec.nullable, pos, bytes, &[spec.name], emit);
            }
            Sure::Seen => {
                let mut lenient = |mut d: Diagnostic| {
                    d.severity = Severity::Info;
                    emit(d);
                };
                expect(
                    t,
                    spec.want,
                    spec.nullable,
                    pos,
                    bytes,
                    &[spec.name],
                    &mut lenient,
                );
            }
        }
    }
}

/// The common event of a notice: an error the agent reports and goes on after.
fn common<'a>(st: &str, fields: &Fields<'a>, line: u64) -> Option<vocab::Event<'a>> {
    let text = match st {
        "mirror_error" => fields.get("error").text(),
        "model_refusal_no_fallback" => fields.get("content").text(),
        "plugin_install" if fields.get("status").text().as_deref() == Some("failed") => {
            fields.get("error").text().or_else(|| {
                let name = fields.get("name").text();
                Some(Cow::Owned(match name {
                    Some(n) => format!("plugin {n} failed to install"),
                    None => "a plugin failed to install".to_owned(),
                }))
            })
        }
        _ => return None,
    };
    let mut ev = vocab::Event::new(Kind::Error, line);
    ev.text = text;
    Some(ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::record::Position;
    use crate::rules::Rule;

    fn findings(st: &str, json: &str) -> Vec<(Rule, Severity)> {
        let mut out = Vec::new();
        let pos = Position {
            line: 1,
            record: 1,
            byte: 0,
        };
        system(
            st,
            pos,
            json.as_bytes(),
            json,
            &mut |d| out.push((d.rule, d.severity)),
            &mut None,
        );
        out
    }

    #[test]
    fn a_typed_field_is_checked_and_a_seen_one_leniently() {
        let ok = r#"{"type":"system","subtype":"mirror_error","error":"write failed","key":{"projectKey":"p","sessionId":"s"},"uuid":"u","session_id":"s"}"#;
        assert!(findings("mirror_error", ok).is_empty());
        let none = r#"{"type":"system","subtype":"mirror_error","uuid":"u","session_id":"s"}"#;
        assert_eq!(
            findings("mirror_error", none),
            [(Rule::MissingField, Severity::Error)]
        );
        let wrong = r#"{"type":"system","subtype":"mirror_error","error":7}"#;
        assert_eq!(
            findings("mirror_error", wrong),
            [(Rule::WrongFieldType, Severity::Error)]
        );
        let seen = r#"{"type":"system","subtype":"vcs_state_changed","kind":["push"],"cwd":"/w"}"#;
        assert_eq!(
            findings("vcs_state_changed", seen),
            [(Rule::WrongFieldType, Severity::Info)]
        );
        // A nullable field takes null.
        let refusal = r#"{"type":"system","subtype":"model_refusal_no_fallback","content":"declined","original_model":"m","request_id":null}"#;
        assert!(findings("model_refusal_no_fallback", refusal).is_empty());
    }

    #[test]
    fn the_errors_a_run_goes_on_after_are_error_events() {
        let error = |st: &str, json: &str| {
            let fields = Fields::read(json).unwrap();
            common(st, &fields, 3).map(|ev| (ev.kind, ev.text.map(Cow::into_owned)))
        };
        assert_eq!(
            error("mirror_error", r#"{"error":"write failed"}"#),
            Some((Kind::Error, Some("write failed".to_owned())))
        );
        assert_eq!(
            error("plugin_install", r#"{"status":"failed","name":"lint"}"#),
            Some((
                Kind::Error,
                Some("plugin lint failed to install".to_owned())
            ))
        );
        assert_eq!(
            error("plugin_install", r#"{"status":"installed","name":"lint"}"#),
            None
        );
        assert_eq!(error("notification", r#"{"text":"hi"}"#), None);
    }
}
