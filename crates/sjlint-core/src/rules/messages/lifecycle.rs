//! The words of the lifecycle rules that are not about a session's start or end records
//! pairing up (those are beside [`super::missing_result`]): `event-after-result`,
//! `missing-init`, `session-id-mismatch`, `timestamp-regression` and `thinking-not-completed`.
//! The checkers pass what they saw; the type of a record and the ids it carries are quoted here.

use super::{Message, Rule};
use crate::text::Excerpt;
use std::fmt;

/// A record's type (and subtype, for an agent whose events have one), as messages name it:
/// `` `assistant` ``, `` `tool_call`/`started` ``, "an event with no type".
#[derive(Clone, Copy)]
pub struct EventType<'a> {
    /// The record's `type`, when it has a string one.
    pub ty: Option<&'a str>,
    /// Its `subtype`, when the agent's events have one and this one has.
    pub subtype: Option<&'a str>,
}

impl<'a> EventType<'a> {
    /// A record of type `ty`.
    pub fn of(ty: &'a str) -> Self {
        EventType {
            ty: Some(ty),
            subtype: None,
        }
    }
}

impl fmt::Display for EventType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.ty, self.subtype) {
            (Some(t), Some(s)) => write!(f, "`{}`/`{}`", Excerpt(t), Excerpt(s)),
            (Some(t), None) => write!(f, "`{}`", Excerpt(t)),
            (None, _) => f.write_str("an event with no type"),
        }
    }
}

/// The facts of a record that comes after its session (run) ended.
pub struct AfterEnd<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// What ended: "session", "run".
    pub unit: &'a str,
    /// The record that came after the end.
    pub record: EventType<'a>,
    /// The record the agent ends one with: "`result`", "`done` (or an `error`)".
    pub end: &'a str,
    /// The line it ended on.
    pub ended: u64,
    /// The record the next one begins with, when the agent writes several in one stream.
    pub next: Option<&'a str>,
}

/// `event-after-result`: a record after its session's end that does not begin the next one.
/// The records after it, up to the next session, are this one finding.
#[cold]
pub fn event_after_result(f: &AfterEnd<'_>) -> Message {
    let AfterEnd {
        agent,
        unit,
        record,
        end,
        ended,
        next,
    } = *f;
    let text = format!("{record} after the {unit} ended with {end} on line {ended}");
    let help = match next {
        Some(next) => format!(
            "{agent} ends each {unit} with {end}; nothing follows it but the next {unit}, which begins with {next}; the records after this one, up to that one, are not reported one by one"
        ),
        None => format!("{agent} ends each {unit} with {end}; nothing follows it"),
    };
    Message::helped(Rule::EventAfterResult, text, help)
        .with_related(ended, format!("the {unit} ended here"))
}

/// The facts of a session (run) whose first record is not the one that opens it.
pub struct Opening<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// What starts: "session", "run".
    pub unit: &'a str,
    /// The record it starts with instead.
    pub first: EventType<'a>,
    /// The record the agent opens one with: "`system`/`init`", "`thread.started`".
    pub opener: &'a str,
    /// What the agent's stream says beyond the rule: "hooks may come before it".
    pub aside: Option<&'a str>,
}

/// `missing-init`: a session (run) that starts with another record than its opener.
#[cold]
pub fn missing_init(f: &Opening<'_>) -> Message {
    let Opening {
        agent,
        unit,
        first,
        opener,
        aside,
    } = *f;
    let text = format!("the {unit} starts with {first}, not with {opener}");
    let aside = aside.map(|a| format!(" ({a})")).unwrap_or_default();
    let help = format!(
        "{agent} opens every {unit} with {opener}{aside}; was the start of the stream cut off?"
    );
    Message::helped(Rule::MissingInit, text, help)
}

/// The facts of a record whose session id is not its session's.
pub struct SessionIds<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// The session's kind: "session", "run".
    pub unit: &'a str,
    /// The field that holds the id: "`session_id`", "`sessionID`".
    pub field: &'a str,
    /// The id of this record.
    pub id: &'a str,
    /// The session's.
    pub expected: &'a str,
    /// The line the session began on, when the checker keeps it.
    pub began: Option<u64>,
    /// Whether the records after this one that repeat its id are reported too.
    pub each: bool,
    /// What the agent's stream says beyond the rule: how a session changes its id.
    pub note: Option<&'a str>,
}

/// `session-id-mismatch`: a record's session id differs from its session's.
#[cold]
pub fn session_id_mismatch(f: &SessionIds<'_>) -> Message {
    let SessionIds {
        agent,
        unit,
        field,
        id,
        expected,
        began,
        each,
        note,
    } = *f;
    let text = format!(
        "{field} {:?} differs from the {unit}'s {:?}",
        Excerpt(id),
        Excerpt(expected)
    );
    let mut help = format!("{agent} stamps every record of a {unit} with one session id");
    if let Some(note) = note {
        help.push_str("; ");
        help.push_str(note);
    }
    if !each {
        help.push_str("; the records after this one that repeat this id are not reported again");
    }
    let m = Message::helped(Rule::SessionIdMismatch, text, help);
    match began {
        Some(line) => m.with_related(line, format!("the {unit} started here")),
        None => m,
    }
}

/// The facts of a timestamp earlier than the one before it.
pub struct Clock<'a> {
    /// The field: "`timestamp_ms`", "`timestamp`".
    pub field: &'a str,
    /// Whether the field holds the milliseconds themselves (else a date, read as them).
    pub millis: bool,
    /// This record's time, in milliseconds.
    pub ms: u64,
    /// The previous record's.
    pub prev: u64,
    /// The previous record's line.
    pub prev_line: u64,
}

/// `timestamp-regression`: a record's time is earlier than the previous record's.
#[cold]
pub fn timestamp_regression(f: &Clock<'_>) -> Message {
    let Clock {
        field,
        millis,
        ms,
        prev,
        prev_line,
    } = *f;
    let back = prev.saturating_sub(ms);
    let text = if millis {
        format!("{field} {ms} is {back} ms earlier than the previous event's {prev}")
    } else {
        format!("{field} is {back} ms earlier than the previous event's")
    };
    Message::plain(Rule::TimestampRegression, text)
        .with_related(prev_line, "the previous timestamp")
}

/// The facts of streamed pieces (thinking, message deltas) that never got their closing record.
pub struct Streamed<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// The pieces' record: "`thinking`/`delta`", "`assistant.reasoning_delta`".
    pub pieces: &'a str,
    /// The record that closes or repeats them whole: "`thinking`/`completed`".
    pub whole: &'a str,
    /// The id the pieces and their whole share, when they pair by one.
    pub id: Option<&'a str>,
    /// The record that came in place of the whole.
    pub cut_by: EventType<'a>,
    /// The line of the first piece.
    pub began: u64,
}

/// `thinking-not-completed`: streamed pieces ended by another record with no closing record.
#[cold]
pub fn thinking_not_completed(f: &Streamed<'_>) -> Message {
    let Streamed {
        agent,
        pieces,
        whole,
        id,
        cut_by,
        began,
    } = *f;
    let (text, help) = match id {
        Some(id) => (
            format!(
                "{cut_by} ends the {pieces} pieces of {:?}, which have no {whole}",
                Excerpt(id)
            ),
            format!(
                "{agent} repeats the streamed pieces in one {whole} with the same id; a consumer that waits for it never gets the text whole"
            ),
        ),
        None => (
            format!("{cut_by} ends the {pieces} pieces, which have no {whole}"),
            format!(
                "{agent} closes the streamed pieces with {whole}; a consumer that waits for it never sees the phase end"
            ),
        ),
    };
    Message::helped(Rule::ThinkingNotCompleted, text, help).with_related(began, "the first piece")
}
