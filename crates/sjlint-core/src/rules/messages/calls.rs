//! The words of the tool-call rules that are not the pairing of a call's start and end (those
//! are beside [`super::orphan_completion`]): `malformed-tool-call`, `unknown-tool-kind`,
//! `tool-kind-mismatch`, `tool-args-mismatch`, `orphan-query-response`, `unanswered-query`,
//! `too-many-open-calls` and `unknown-parent-tool-use`; and of the result rules
//! `result-flag-mismatch`, `result-text-mismatch`, `did-nothing` and `assistant-not-delta`.
//! Ids and kinds come from the stream and are quoted here.

use super::{Id, Message, Rule};
use crate::json::JsonType;
use crate::text::Excerpt;

/// What is wrong with a tool call, for `malformed-tool-call`.
#[derive(Clone, Copy)]
pub enum Malformed<'a> {
    /// `field` (and its key `key` from the stream, when the field is one of its keys) holds
    /// `found` where an object belongs.
    NotObject {
        field: &'a str,
        key: Option<&'a str>,
        found: JsonType,
    },
    /// cursor-agent's `tool_call` names no tool kind.
    NoKind,
    /// cursor-agent's `tool_call` names `count` tool kinds, `first` and `other` among them.
    SeveralKinds {
        count: u32,
        first: &'a str,
        other: &'a str,
    },
    /// The arguments at `path`, a JSON-encoded string, do not parse: `error` says why.
    NotJson { path: &'a str, error: &'a str },
    /// `record`'s `field` is `value`, which is none of `want`.
    Status {
        record: &'a str,
        field: &'a str,
        value: &'a str,
        want: &'a str,
    },
}

/// `malformed-tool-call`: a call that cannot be read as one. `note` says what the agent's stream
/// says beyond the rule, for the help.
#[cold]
pub fn malformed_tool_call(problem: Malformed<'_>, note: Option<&str>) -> Message {
    let text = match problem {
        Malformed::NotObject { field, key, found } => match key {
            Some(key) => format!(
                "`{field}.{}` is {}, expected an object",
                Excerpt(key),
                found.as_str()
            ),
            None => format!("`{field}` is {}, expected an object", found.as_str()),
        },
        Malformed::NoKind => {
            "`tool_call` names no tool kind (no key ending in `ToolCall`, nor `function`)"
                .to_owned()
        }
        Malformed::SeveralKinds {
            count,
            first,
            other,
        } => format!(
            "`tool_call` names {count} tool kinds (`{}`, `{}`); it must name one",
            Excerpt(first),
            Excerpt(other)
        ),
        Malformed::NotJson { path, error } => format!("`{path}` is not JSON: {error}"),
        Malformed::Status {
            record,
            field,
            value,
            want,
        } => format!(
            "{record} whose `{field}` is {:?}, not {want}",
            Excerpt(value)
        ),
    };
    Message {
        rule: Rule::MalformedToolCall,
        text,
        help: note.map(str::to_owned),
        related: None,
    }
}

/// `unknown-tool-kind`: a tool kind that is not in the list sjlint knows.
#[cold]
pub fn unknown_tool_kind(kind: &str) -> Message {
    Message::helped(
        Rule::UnknownToolKind,
        format!("tool kind `{}` is not one sjlint knows", Excerpt(kind)),
        "new tool kinds appear often; this is information, not an error".to_owned(),
    )
}

/// `tool-kind-mismatch`: the call `id`, which started on line `began` as `started` (when its
/// kind is known), `verb`s ("completes", "is updated") as `now`.
#[cold]
pub fn tool_kind_mismatch(
    id: &str,
    started: Option<&str>,
    began: u64,
    verb: &str,
    now: &str,
) -> Message {
    let started = match started {
        Some(kind) => format!("`{}`", Excerpt(kind)),
        None => "another kind".to_owned(),
    };
    Message::plain(
        Rule::ToolKindMismatch,
        format!(
            "tool call {:?} started as {started} but {verb} as `{}`",
            Excerpt(id),
            Excerpt(now)
        ),
    )
    .with_related(began, "started here")
}

/// `tool-args-mismatch`: the call `id`, started on line `began`, completes with other `args`.
#[cold]
pub fn tool_args_mismatch(id: &str, began: u64) -> Message {
    Message::plain(
        Rule::ToolArgsMismatch,
        format!(
            "tool call {:?} completes with other `args` than it started with",
            Excerpt(id)
        ),
    )
    .with_related(began, "started here")
}

/// `orphan-query-response`: a response to the interaction query `id`, never requested.
#[cold]
pub fn orphan_query_response(id: &str) -> Message {
    Message::plain(
        Rule::OrphanQueryResponse,
        format!(
            "a response to interaction query {:?}, which was never requested",
            Excerpt(id)
        ),
    )
}

/// `unanswered-query`: the interaction query `id` has no response when its session ends.
#[cold]
pub fn unanswered_query(id: Id<'_>) -> Message {
    Message::plain(
        Rule::UnansweredQuery,
        format!("interaction query {id:?} has no response by the end of its session"),
    )
}

/// `too-many-open-calls`: more than `max` of `what` ("tool calls") are open at once.
#[cold]
pub fn too_many_open_calls(max: usize, what: &str) -> Message {
    Message::helped(
        Rule::TooManyOpenCalls,
        format!(
            "more than {max} {what} are open at once; the ones opened from here on in this session are not paired"
        ),
        "runs keep a handful open at once: were completions lost, or is the stream generated? --max-open-calls pairs more, at about 300 bytes each".to_owned(),
    )
}

/// `unknown-parent-tool-use`: a subagent's line names the call `parent`, which no `tool_use`
/// of the stream opened.
#[cold]
pub fn unknown_parent_tool_use(parent: &str) -> Message {
    Message::helped(
        Rule::UnknownParentToolUse,
        format!(
            "`parent_tool_use_id` {:?} names no `tool_use` of the stream",
            Excerpt(parent)
        ),
        "a subagent's lines name the `Task`/`Agent` tool call that started it, which comes first"
            .to_owned(),
    )
}

/// `result-flag-mismatch`: a result whose `subtype` is `subtype` and whose `is_error` is
/// `is_error`, which disagree.
#[cold]
pub fn result_flag_mismatch(subtype: &str, is_error: bool) -> Message {
    Message::helped(
        Rule::ResultFlagMismatch,
        format!(
            "`subtype` is {:?} but `is_error` is {is_error}",
            Excerpt(subtype)
        ),
        "consumers read either field to decide whether the run failed; they must agree".to_owned(),
    )
}

/// `result-text-mismatch`: the result's text of `result_bytes` bytes is none of the joins of
/// the session's assistant text, of `joined_bytes` bytes.
#[cold]
pub fn result_text_mismatch(result_bytes: u64, joined_bytes: u64) -> Message {
    Message::helped(
        Rule::ResultTextMismatch,
        format!(
            "`result` ({result_bytes} bytes) is not the session's assistant text joined ({joined_bytes} bytes)"
        ),
        "`result` joins every assistant segment with no separator; a mismatch means assistant events were lost or the result was edited".to_owned(),
    )
}

/// `did-nothing`: a session that ends in success having called no tool and written no text.
#[cold]
pub fn did_nothing() -> Message {
    Message::helped(
        Rule::DidNothing,
        "the session ends in success, but it called no tool and wrote no text".to_owned(),
        "the agent did nothing: an empty prompt, a prompt it ignored, or its output was lost; the outcome is `empty`".to_owned(),
    )
}

/// `assistant-not-delta`: `agent` writes the assistant's text only in delta pieces, and this
/// assistant `message` is not marked as one.
#[cold]
pub fn assistant_not_delta(agent: &str) -> Message {
    Message::helped(
        Rule::AssistantNotDelta,
        "an assistant `message` without `delta: true`".to_owned(),
        format!(
            "{agent} writes the assistant's text only as delta pieces; a consumer that joins them would repeat this text"
        ),
    )
}
