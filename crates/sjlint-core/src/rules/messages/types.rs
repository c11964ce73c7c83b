//! The words of the schema rules about what a record says it is: `missing-type`,
//! `unknown-event-type`, `unknown-subtype`, `duplicate-key` and `mixed-agents`. The checkers
//! pass the field that names a record's kind, the value they found and the values they know;
//! those values come from the stream and are quoted here.

use super::{Message, Rule};
use crate::json::JsonType;
use crate::text::Excerpt;

/// `missing-type`: a record of `agent` whose `field` (`type`, or Kimi CLI's `role`) is absent
/// (`found` is `None`) or no string. `aside` says what the field holds in this agent's stream.
#[cold]
pub fn missing_type(
    agent: &str,
    field: &str,
    found: Option<JsonType>,
    aside: Option<&str>,
) -> Message {
    let text = match found {
        None => format!("a record without a string `{field}`"),
        Some(t) => format!("`{field}` is {}, expected a string", t.as_str()),
    };
    let aside = aside.map(|a| format!(" ({a})")).unwrap_or_default();
    let help = format!("{agent} names the kind of each record in a string `{field}`{aside}");
    Message::helped(Rule::MissingType, text, help)
}

/// `unknown-event-type`: a value of `field` (`type`, `role`) that `agent` is not known to write.
#[cold]
pub fn unknown_event_type(agent: &str, field: &str, value: &str) -> Message {
    let what = if field == "type" { "event type" } else { field };
    Message::helped(
        Rule::UnknownEventType,
        format!("unknown {what} {:?} for {agent}", Excerpt(value)),
        format!(
            "new {what}s appear in new CLI versions; a consumer should skip what it does not know"
        ),
    )
}

/// `unknown-event-type` of the common form: a `session_start` of version `found`, newer than
/// the version `known` this build reads.
#[cold]
pub fn newer_common_form(found: u64, known: u32) -> Message {
    Message::helped(
        Rule::UnknownEventType,
        format!("the common form of version {found}, newer than the version {known} this sjlint reads"),
        "a newer sjlint wrote it; what its version added is read as unknown fields and not checked (docs/common-form.md lists each version's changes)".to_owned(),
    )
}

/// The facts of a value that refines a known record's kind (a subtype, a role, a reason) and
/// is not one the agent is known to write.
pub struct Subtype<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// The record, as the checker names it: "`system`", "an assistant message".
    pub record: &'a str,
    /// The field: "subtype", "role", "reason", "stopReason".
    pub field: &'a str,
    /// The value found.
    pub value: &'a str,
    /// The values the agent writes there; none when the record takes no such field.
    pub known: &'a [&'a str],
    /// What a consumer should make of it, when the agent's stream says more than the rule.
    pub note: Option<&'a str>,
}

/// `unknown-subtype`: a known record with a subtype (role, reason) its agent is not known to
/// write.
#[cold]
pub fn unknown_subtype(f: &Subtype<'_>) -> Message {
    let Subtype {
        agent,
        record,
        field,
        value,
        known,
        note,
    } = *f;
    let known = if known.is_empty() {
        format!("it takes no `{field}`")
    } else {
        format!("known: {}", known.join(", "))
    };
    let text = format!(
        "{record} with `{field}` {:?}, which {agent} is not known to write ({known})",
        Excerpt(value)
    );
    let help = note.map_or_else(
        || {
            "new values appear in new CLI versions; a consumer should skip what it does not know"
                .to_owned()
        },
        str::to_owned,
    );
    Message::helped(Rule::UnknownSubtype, text, help)
}

/// `duplicate-key`: `key` appears more than once in `within` (the record, when `None`).
#[cold]
pub fn duplicate_key(key: &str, within: Option<&str>) -> Message {
    let within = within.unwrap_or("the record");
    Message::helped(
        Rule::DuplicateKey,
        format!("key {:?} appears more than once in {within}", Excerpt(key)),
        "JSON readers differ on a repeated key: most keep the last value, some the first, some refuse the record".to_owned(),
    )
}

/// `mixed-agents`: a record of type `ty`, which `other` writes, in a stream of `this`.
#[cold]
pub fn mixed_agents(this: &str, other: &str, ty: &str) -> Message {
    Message::helped(
        Rule::MixedAgents,
        format!(
            "{} `{}` record of {other} in a stream of {this}",
            crate::text::article(ty),
            Excerpt(ty)
        ),
        format!(
            "records of one agent only are checked; this one and any other {other} records are not (were two captures concatenated?)"
        ),
    )
}
