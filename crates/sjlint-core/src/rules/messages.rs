//! Each rule's message, worded once: the checkers pass facts (the agent's display name, the
//! records it opens and ends a session or a call with, the call id, the field path, the types
//! found and expected, line numbers) and the rule's builder here words the message and its help.
//!
//! This module owns the wording of the rules in [`OWNED`]: a finding of one of them is built
//! from a [`Message`] ([`crate::diagnostic::Diagnostic::from_message`]), and a test of this
//! module fails when the code calls `Diagnostic::new` with one, so a hand-written message
//! cannot come back at a call site (the reporters' tests, which render made-up messages, may).
//! It decides nothing: when a rule fires is the checkers' business. Untrusted text (ids, field values) is quoted through
//! [`crate::text::Excerpt`] here, never by the caller.

use super::Rule;
use crate::json::JsonType;
use crate::pairing::ShownKey;
use crate::text::Excerpt;
use std::fmt;

mod calls;
mod lifecycle;
mod logs;
mod types;
pub use calls::{
    Malformed, assistant_not_delta, did_nothing, malformed_tool_call, orphan_query_response,
    result_flag_mismatch, result_text_mismatch, too_many_open_calls, tool_args_mismatch,
    tool_kind_mismatch, unanswered_query, unknown_parent_tool_use, unknown_tool_kind,
};
pub use lifecycle::{
    AfterEnd, Clock, EventType, Opening, SessionIds, Streamed, event_after_result, missing_init,
    session_id_mismatch, thinking_not_completed, timestamp_regression,
};
pub use logs::{
    chain_fork, chain_unchecked, dangling_parent, requested_after_start, token_total_drop,
};
pub use types::{
    Subtype, duplicate_key, missing_type, mixed_agents, newer_common_form, unknown_event_type,
    unknown_subtype,
};

/// The rules whose every message is worded by a builder of this module.
pub const OWNED: &[Rule] = &[
    Rule::MissingField,
    Rule::WrongFieldType,
    Rule::DuplicateInit,
    Rule::MissingResult,
    Rule::OrphanCompletion,
    Rule::UnfinishedToolCall,
    Rule::DuplicateCallId,
    Rule::EventAfterResult,
    Rule::MissingInit,
    Rule::SessionIdMismatch,
    Rule::TimestampRegression,
    Rule::ThinkingNotCompleted,
    Rule::MissingType,
    Rule::UnknownEventType,
    Rule::UnknownSubtype,
    Rule::DuplicateKey,
    Rule::MixedAgents,
    Rule::MalformedToolCall,
    Rule::UnknownToolKind,
    Rule::ToolKindMismatch,
    Rule::ToolArgsMismatch,
    Rule::OrphanQueryResponse,
    Rule::UnansweredQuery,
    Rule::TooManyOpenCalls,
    Rule::UnknownParentToolUse,
    Rule::ResultFlagMismatch,
    Rule::ResultTextMismatch,
    Rule::DidNothing,
    Rule::AssistantNotDelta,
    Rule::DanglingParent,
    Rule::TokenTotalDrop,
];

/// A finding's words, as its rule's builder made them: the rule, the message, its help and the
/// other line it points at.
#[derive(Clone, Debug)]
pub struct Message {
    rule: Rule,
    text: String,
    help: Option<String>,
    related: Option<(u64, String)>,
}

impl Message {
    pub fn rule(&self) -> Rule {
        self.rule
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The other line the finding points at, and what that line is.
    pub fn related(&self) -> Option<(u64, &str)> {
        self.related
            .as_ref()
            .map(|(line, what)| (*line, what.as_str()))
    }

    /// The rule, the message, the help and the related line, for the diagnostic.
    pub fn into_parts(self) -> Parts {
        (self.rule, self.text, self.help, self.related)
    }

    /// The message of `rule`, with no help and no related line.
    fn plain(rule: Rule, text: String) -> Message {
        Message {
            rule,
            text,
            help: None,
            related: None,
        }
    }

    /// The message of `rule`, with its help.
    fn helped(rule: Rule, text: String, help: String) -> Message {
        Message {
            rule,
            text,
            help: Some(help),
            related: None,
        }
    }

    /// Points at the other line the finding involves.
    #[must_use]
    fn with_related(mut self, line: u64, what: impl Into<String>) -> Message {
        self.related = Some((line, what.into()));
        self
    }
}

/// A [`Message`] taken apart: the rule, the text, the help and the related line.
pub type Parts = (Rule, String, Option<String>, Option<(u64, String)>);

/// An id from the stream as messages quote it.
#[derive(Clone, Copy)]
pub enum Id<'a> {
    /// The id as the record wrote it: quoted and escaped, cut when long.
    Text(&'a str),
    /// A pairing key of [`crate::pairing::key_of`]: a long id by its prefix and length.
    Key(&'a str),
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Id::Text(id) => fmt::Debug::fmt(&Excerpt(id), f),
            Id::Key(key) => fmt::Debug::fmt(&ShownKey(key), f),
        }
    }
}

/// `missing-field`: `record` (how the checker names the record: "a `thread.started`", "the
/// `assistant` event") has no `field`; `one_of` lists the values it takes, when it is a
/// discriminator.
#[cold]
pub fn missing_field(record: &str, field: &str, one_of: Option<&[&str]>) -> Message {
    let mut text = format!("{record} has no `{field}`");
    if let Some(known) = one_of {
        text.push_str(&format!(" (one of: {})", known.join(", ")));
    }
    Message {
        rule: Rule::MissingField,
        text,
        help: None,
        related: None,
    }
}

/// A type a field may hold, as messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    Str,
    Num,
    /// A number that is a whole number.
    Int,
    Bool,
    Obj,
    Arr,
    /// An array of content parts.
    Parts,
    /// A string that holds JSON text.
    JsonText,
    Null,
}

impl Want {
    fn name(self) -> &'static str {
        match self {
            Want::Str => "a string",
            Want::Num => "a number",
            Want::Int => "an integer",
            Want::Bool => "a boolean",
            Want::Obj => "an object",
            Want::Arr => "an array",
            Want::Parts => "an array of parts",
            Want::JsonText => "a string (JSON)",
            Want::Null => "null",
        }
    }

    /// Whether a value of type `t` is one.
    pub fn accepts(self, t: JsonType) -> bool {
        matches!(
            (self, t),
            (Want::Str | Want::JsonText, JsonType::String)
                | (Want::Num | Want::Int, JsonType::Number)
                | (Want::Bool, JsonType::Bool)
                | (Want::Obj, JsonType::Object)
                | (Want::Arr | Want::Parts, JsonType::Array)
                | (Want::Null, JsonType::Null)
        )
    }
}

impl From<JsonType> for Want {
    fn from(t: JsonType) -> Want {
        match t {
            JsonType::String => Want::Str,
            JsonType::Number => Want::Num,
            JsonType::Bool => Want::Bool,
            JsonType::Object => Want::Obj,
            JsonType::Array => Want::Arr,
            JsonType::Null => Want::Null,
        }
    }
}

/// What a field holds where another type belongs.
#[derive(Clone, Copy)]
pub enum Found<'a> {
    /// Another JSON type.
    Type(JsonType),
    /// A number that is no count (`-5`, `1.5`, `1e400`), its text when it was found.
    NotACount(Option<&'a [u8]>),
}

/// `wrong-field-type`: the field at `path` holds `found` where one of `want` belongs.
#[cold]
pub fn wrong_field_type(path: &[&str], found: Found<'_>, want: &[Want]) -> Message {
    let path = path.join(".");
    let text = match found {
        Found::Type(found) => {
            let want: Vec<&str> = want.iter().map(|w| w.name()).collect();
            format!(
                "`{path}` is {}, expected {}",
                found.as_str(),
                want.join(" or ")
            )
        }
        Found::NotACount(value) => {
            let value = value
                .and_then(|v| std::str::from_utf8(v).ok())
                .map_or_else(|| "no count".to_owned(), |v| Excerpt(v).to_string());
            format!("`{path}` is {value}: a count must be a whole number from 0 to 2^64−1")
        }
    };
    Message {
        rule: Rule::WrongFieldType,
        text,
        help: None,
        related: None,
    }
}

/// The facts of a session, run, turn or step that is open when it should have ended.
pub struct Unended<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// What is open: "session", "run", "turn", "message".
    pub unit: &'a str,
    /// The line it began on, when known.
    pub began: Option<u64>,
    /// The record the agent ends it with: "`result`", "`turn.completed` or `turn.failed`".
    pub end: &'a str,
    /// The record that came in place of the end, when the input did not simply stop:
    /// "`agent_end`", "`thread.started`".
    pub cut_by: Option<&'a str>,
    /// What is known of how it stopped, when the checker knows more.
    pub why: Option<&'a str>,
    /// What the agent's stream says beyond the rule, for the help: how a run of it stops
    /// without its end.
    pub note: Option<&'a str>,
}

impl<'a> Unended<'a> {
    /// The `unit` of `agent` that began on line `began` (when known) and has no `end`, when the
    /// input ends.
    pub fn new(agent: &'a str, unit: &'a str, began: Option<u64>, end: &'a str) -> Self {
        Unended {
            agent,
            unit,
            began,
            end,
            cut_by: None,
            why: None,
            note: None,
        }
    }

    /// The record that came in place of the end.
    #[must_use]
    pub fn cut_by(mut self, record: impl Into<Option<&'a str>>) -> Self {
        self.cut_by = record.into();
        self
    }

    /// What is known of how it stopped.
    #[must_use]
    pub fn why(mut self, why: impl Into<Option<&'a str>>) -> Self {
        self.why = why.into();
        self
    }

    /// What the agent's stream says beyond the rule, for the help.
    #[must_use]
    pub fn note(mut self, note: impl Into<Option<&'a str>>) -> Self {
        self.note = note.into();
        self
    }
}

/// `missing-result`: a session (run, turn) that has not ended when the input ends or another
/// record closes it.
#[cold]
pub fn missing_result(f: &Unended<'_>) -> Message {
    let Unended {
        agent,
        unit,
        began,
        end,
        cut_by,
        why,
        note,
    } = *f;
    let cut = cut_by.map_or_else(|| "the input ends".to_owned(), |r| format!("{r} comes"));
    let mut text = match began {
        Some(line) => format!("{cut} while the {unit} that began on line {line} has no {end}"),
        None => format!("{cut} while the {unit} has no {end}"),
    };
    if let Some(why) = why {
        text.push_str(": ");
        text.push_str(why);
    }
    let help = match note {
        Some(note) => format!("{agent} ends every {unit} with {end}; {note}"),
        None => format!(
            "{agent} ends every {unit} with {end}; a {unit} that was killed, crashed or cut off has none"
        ),
    };
    Message {
        rule: Rule::MissingResult,
        text,
        help: Some(help),
        related: None,
    }
}

/// The facts of a record that opens a session (run, turn, step) while one is open.
pub struct Reopened<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// What it opens: "session", "run", "turn", "step", "message".
    pub unit: &'a str,
    /// The record that opens one: "`system`/`init`", "`turn_start`".
    pub opener: &'a str,
    /// The line the open one began on.
    pub began: u64,
    /// The record the agent ends one with: "`result`", "`step_finish`".
    pub end: &'a str,
    /// What the agent's stream says beyond the rule, for the help.
    pub note: Option<&'a str>,
}

impl<'a> Reopened<'a> {
    /// `opener` of `agent` while the `unit` that began on line `began` has no `end`.
    pub fn new(agent: &'a str, unit: &'a str, opener: &'a str, began: u64, end: &'a str) -> Self {
        Reopened {
            agent,
            unit,
            opener,
            began,
            end,
            note: None,
        }
    }

    /// What the agent's stream says beyond the rule, for the help.
    #[must_use]
    pub fn note(mut self, note: impl Into<Option<&'a str>>) -> Self {
        self.note = note.into();
        self
    }
}

/// `duplicate-init`: a record that opens a session while the one before has not ended.
#[cold]
pub fn duplicate_init(f: &Reopened<'_>) -> Message {
    let Reopened {
        agent,
        unit,
        opener,
        began,
        end,
        note,
    } = *f;
    let text = format!("{opener} while the {unit} that began on line {began} has no {end}");
    let help = match note {
        Some(note) => {
            format!("{agent} ends each {unit} with {end} before the next {opener}; {note}")
        }
        None => format!(
            "{agent} ends each {unit} with {end} before the next {opener}; a second {opener} means two {unit}s were interleaved or the first was cut off"
        ),
    };
    Message {
        rule: Rule::DuplicateInit,
        text,
        help: Some(help),
        related: None,
    }
}

/// The facts of a record that ends something no record opened.
pub struct Orphan<'a> {
    /// The agent's display name.
    pub agent: &'a str,
    /// This record: "`tool_result`", "`item.updated`", "`turn_end`".
    pub record: &'a str,
    /// The id it names, when things of its kind pair by id.
    pub id: Option<Id<'a>>,
    /// Whether that id was opened and has ended already (as far as memory goes).
    pub again: bool,
    /// The record that opens what it ends: "`tool_use`", "`item.started`".
    pub opener: &'a str,
    /// The record that ends it, for the help: "`tool_result`", "`item.completed`".
    pub closer: &'a str,
    /// The key pairing is by: "`tool_use_id`", "`item.id`"; `None` when by order.
    pub key: Option<&'a str>,
    /// What the agent's stream says beyond the rule, for the help.
    pub note: Option<&'a str>,
}

impl<'a> Orphan<'a> {
    /// `record` of `agent`, which ends what `opener` opens (`closer` ends it), with none open:
    /// things that pair by order, not by id.
    pub fn unpaired(agent: &'a str, record: &'a str, opener: &'a str, closer: &'a str) -> Self {
        Orphan {
            agent,
            record,
            id: None,
            again: false,
            opener,
            closer,
            key: None,
            note: None,
        }
    }

    /// What the agent's stream says beyond the rule, for the help.
    #[must_use]
    pub fn note(mut self, note: impl Into<Option<&'a str>>) -> Self {
        self.note = note.into();
        self
    }

    /// The facts of `record`, which ends the tool call `id` of an agent whose calls pair as
    /// `pairing` says; `again` when that call has ended already.
    pub fn call(
        agent: &'a str,
        record: &'a str,
        id: &'a str,
        again: bool,
        pairing: &Pairing<'a>,
    ) -> Orphan<'a> {
        Orphan {
            agent,
            record,
            id: Some(Id::Text(id)),
            again,
            opener: pairing.opener,
            closer: pairing.closer,
            key: Some(pairing.key),
            note: None,
        }
    }
}

/// `orphan-completion`: a record that ends a call (a turn, a step) no record opened.
#[cold]
pub fn orphan_completion(f: &Orphan<'_>) -> Message {
    let Orphan {
        agent,
        record,
        id,
        again,
        opener,
        closer,
        key,
        note,
    } = *f;
    let text = match (id, again) {
        (Some(id), true) => format!("{record} for {id:?}, which has ended already"),
        (Some(id), false) => format!("{record} for {id:?}, which no {opener} opened"),
        (None, _) => format!("{record} with no {opener} open"),
    };
    let mut help = match key {
        Some(key) => {
            format!("pairing is by {key}: each {opener} is ended by one {closer} with its id")
        }
        None => format!("{agent} ends each {opener} with one {closer}"),
    };
    if let Some(note) = note {
        help.push_str("; ");
        help.push_str(note);
    }
    Message {
        rule: Rule::OrphanCompletion,
        text,
        help: Some(help),
        related: None,
    }
}

/// How a tool call of an agent's stream is opened and ended, for the help of the pairing rules.
#[derive(Clone, Copy)]
pub struct Pairing<'a> {
    /// The record that opens a call: "`tool_use`", "`item.started`".
    pub opener: &'a str,
    /// The record that ends it: "`tool_result`", "`item.completed`".
    pub closer: &'a str,
    /// The key they pair by: "`tool_use_id`", "`item.id`".
    pub key: &'a str,
    /// What the closer must come before, when the agent says: "the run's `agent_end`".
    pub before: Option<&'a str>,
}

/// `unfinished-tool-call`: the call `id` (of tool `name`, when known) was opened and never
/// ended. `note` adds what the agent's stream says beyond the rule.
#[cold]
pub fn unfinished_tool_call(
    id: Id<'_>,
    name: Option<&str>,
    pairing: &Pairing<'_>,
    note: Option<&str>,
) -> Message {
    let text = match name {
        Some(name) => format!("tool call {id:?} ({}) never completes", Excerpt(name)),
        None => format!("tool call {id:?} never completes"),
    };
    let Pairing {
        opener,
        closer,
        key,
        before,
    } = *pairing;
    let mut help =
        format!("pairing is by {key}: each {opener} is ended by one {closer} with its id");
    if let Some(before) = before {
        help.push_str(" before ");
        help.push_str(before);
    }
    if let Some(note) = note {
        help.push_str("; ");
        help.push_str(note);
    }
    Message {
        rule: Rule::UnfinishedToolCall,
        text,
        help: Some(help),
        related: None,
    }
}

/// `duplicate-call-id`: `record` opens the call `id` again; `open` when the first is still
/// open, else it has ended already (an agent that writes each call once). `note` adds what the
/// agent's stream says beyond the rule.
#[cold]
pub fn duplicate_call_id(record: &str, id: Id<'_>, open: bool, note: Option<&str>) -> Message {
    let text = if open {
        format!("{record} {id:?} starts again while it is still open")
    } else {
        format!("{record} {id:?} comes again after it has ended")
    };
    Message {
        rule: Rule::DuplicateCallId,
        text,
        help: note.map(str::to_owned),
        related: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builder_gives_its_own_rule() {
        let pairing = Pairing {
            opener: "`a`",
            closer: "`b`",
            key: "`id`",
            before: None,
        };
        let mut built = vec![
            missing_field("a `x`", "f", None),
            wrong_field_type(&["f"], Found::Type(JsonType::Null), &[Want::Str]),
            duplicate_init(&Reopened {
                agent: "A",
                unit: "run",
                opener: "`a`",
                began: 1,
                end: "`b`",
                note: None,
            }),
            missing_result(&Unended {
                agent: "A",
                unit: "run",
                began: Some(1),
                end: "`b`",
                cut_by: None,
                why: None,
                note: None,
            }),
            orphan_completion(&Orphan {
                agent: "A",
                record: "`b`",
                id: None,
                again: false,
                opener: "`a`",
                closer: "`b`",
                key: None,
                note: None,
            }),
            unfinished_tool_call(Id::Text("c"), None, &pairing, None),
            duplicate_call_id("`a`", Id::Text("c"), true, None),
        ];
        built.extend(later_builders());
        let rules: Vec<Rule> = built.iter().map(Message::rule).collect();
        assert_eq!(rules, OWNED);
    }

    #[test]
    fn the_session_logs_other_builders_give_their_rules() {
        assert_eq!(
            chain_fork("A", "parentId", "p", "q").rule(),
            Rule::DanglingParent
        );
        assert_eq!(
            requested_after_start("A", "c").rule(),
            Rule::OrphanCompletion
        );
    }

    /// A message of each builder after the first seven, in the order of [`OWNED`].
    fn later_builders() -> Vec<Message> {
        vec![
            event_after_result(&AfterEnd {
                agent: "A",
                unit: "run",
                record: EventType::of("x"),
                end: "`b`",
                ended: 1,
                next: None,
            }),
            missing_init(&Opening {
                agent: "A",
                unit: "run",
                first: EventType::of("x"),
                opener: "`a`",
                aside: None,
            }),
            session_id_mismatch(&SessionIds {
                agent: "A",
                unit: "run",
                field: "`id`",
                id: "s2",
                expected: "s1",
                began: None,
                each: true,
                note: None,
            }),
            timestamp_regression(&Clock {
                field: "`t`",
                millis: true,
                ms: 1,
                prev: 2,
                prev_line: 1,
            }),
            thinking_not_completed(&Streamed {
                agent: "A",
                pieces: "`d`",
                whole: "`w`",
                id: None,
                cut_by: EventType::of("x"),
                began: 1,
            }),
            missing_type("A", "type", None, None),
            unknown_event_type("A", "type", "x"),
            unknown_subtype(&Subtype {
                agent: "A",
                record: "`a`",
                field: "subtype",
                value: "x",
                known: &[],
                note: None,
            }),
            duplicate_key("k", None),
            mixed_agents("A", "B", "x"),
            malformed_tool_call(Malformed::NoKind, None),
            unknown_tool_kind("k"),
            tool_kind_mismatch("c", None, 1, "completes", "k"),
            tool_args_mismatch("c", 1),
            orphan_query_response("q"),
            unanswered_query(Id::Text("q")),
            too_many_open_calls(1, "tool calls"),
            unknown_parent_tool_use("p"),
            result_flag_mismatch("success", true),
            result_text_mismatch(1, 2),
            did_nothing(),
            assistant_not_delta("A"),
            dangling_parent("A", "parentUuid", "p", "n"),
            token_total_drop("A", 2, 1),
        ]
    }

    #[test]
    fn ids_from_the_stream_are_escaped_and_cut() {
        let hostile = format!("\u{1b}[31m{}", "x".repeat(500));
        let m = duplicate_call_id("`tool_use`", Id::Text(&hostile), true, None);
        assert!(!m.text().contains('\u{1b}'), "{}", m.text());
        assert!(m.text().contains("\\u{1b}[31m"), "{}", m.text());
        assert!(m.text().len() < 200, "{}", m.text());
    }

    /// No checker words a rule of [`OWNED`] itself: outside this module, no code before a
    /// file's tests calls `Diagnostic::new` with one.
    #[test]
    fn no_call_site_words_an_owned_rule() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut offenders = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("src is readable") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs")
                    || path.starts_with(root.join("rules"))
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("a source file");
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                let flat: String = code.split_whitespace().collect();
                for rule in OWNED {
                    let variant = format!("{rule:?}");
                    if flat.contains(&format!("Diagnostic::new(Rule::{variant},"))
                        || flat.contains(&format!("Diagnostic::new(crate::rules::Rule::{variant},"))
                    {
                        offenders.push(format!("{}: {}", path.display(), rule.name()));
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "words an owned rule by hand: {offenders:#?}"
        );
    }
}
