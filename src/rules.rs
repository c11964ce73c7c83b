//! The rule table: every rule's stable name, group, default severity and documentation, and the
//! set of enabled rules.
//!
//! This is the one place that lists rules. It must not contain checking logic: the validator and
//! the classifier decide when a rule fires; this module only says what each rule is.

use std::fmt;

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rule groups, usable wherever a rule name is (`--select lifecycle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    Framing,
    Schema,
    Lifecycle,
    ToolCalls,
    Result,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Framing,
        Group::Schema,
        Group::Lifecycle,
        Group::ToolCalls,
        Group::Result,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Group::Framing => "framing",
            Group::Schema => "schema",
            Group::Lifecycle => "lifecycle",
            Group::ToolCalls => "tool-calls",
            Group::Result => "result",
        }
    }
}

/// Every rule. The discriminant indexes [`RULES`] and the bits of [`RuleSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Rule {
    InvalidJson,
    InvalidUtf8,
    NotAnObject,
    RawControlCharacter,
    TruncatedRecord,
    RecordTooLarge,
    BlankLine,
    ByteOrderMark,
    EmptyStream,
    MissingType,
    UnknownEventType,
    UnknownSubtype,
    MissingField,
    WrongFieldType,
    MalformedToolCall,
    UnknownToolKind,
    DuplicateKey,
    ResultFlagMismatch,
    MissingInit,
    DuplicateInit,
    EventAfterResult,
    MissingResult,
    SessionIdMismatch,
    TimestampRegression,
    ThinkingNotCompleted,
    OrphanCompletion,
    UnfinishedToolCall,
    DuplicateCallId,
    ToolKindMismatch,
    ToolArgsMismatch,
    OrphanQueryResponse,
    UnansweredQuery,
    ResultTextMismatch,
    TooManyOpenCalls,
}

pub struct RuleInfo {
    pub rule: Rule,
    /// Stable kebab-case identifier.
    pub name: &'static str,
    pub group: Group,
    pub severity: Severity,
    /// One line, used by `sjlint rules` and as SARIF's short description.
    pub summary: &'static str,
    /// Markdown in a fixed template: what it checks, why it matters, a failing and a passing
    /// example (fenced `ndjson` blocks, tested to fail and to pass).
    pub doc: &'static str,
}

pub static RULES: [RuleInfo; 34] = [
    RuleInfo {
        rule: Rule::InvalidJson,
        name: "invalid-json",
        group: Group::Framing,
        severity: Severity::Error,
        summary: "the record is not RFC 8259 JSON",
        doc: include_str!("rules/invalid-json.md"),
    },
    RuleInfo {
        rule: Rule::InvalidUtf8,
        name: "invalid-utf8",
        group: Group::Framing,
        severity: Severity::Error,
        summary: "the record holds bytes that are not UTF-8",
        doc: include_str!("rules/invalid-utf8.md"),
    },
    RuleInfo {
        rule: Rule::NotAnObject,
        name: "not-an-object",
        group: Group::Framing,
        severity: Severity::Error,
        summary: "valid JSON that is not an object",
        doc: include_str!("rules/not-an-object.md"),
    },
    RuleInfo {
        rule: Rule::RawControlCharacter,
        name: "raw-control-character",
        group: Group::Framing,
        severity: Severity::Warning,
        summary: "a raw control character (U+0000 to U+001F) inside a string; repaired and validated",
        doc: include_str!("rules/raw-control-character.md"),
    },
    RuleInfo {
        rule: Rule::TruncatedRecord,
        name: "truncated-record",
        group: Group::Framing,
        severity: Severity::Error,
        summary: "the input ends inside a record",
        doc: include_str!("rules/truncated-record.md"),
    },
    RuleInfo {
        rule: Rule::RecordTooLarge,
        name: "record-too-large",
        group: Group::Framing,
        severity: Severity::Error,
        summary: "a record exceeds --max-record-bytes; skipped",
        doc: include_str!("rules/record-too-large.md"),
    },
    RuleInfo {
        rule: Rule::BlankLine,
        name: "blank-line",
        group: Group::Framing,
        severity: Severity::Info,
        summary: "an empty or whitespace-only line; not a record",
        doc: include_str!("rules/blank-line.md"),
    },
    RuleInfo {
        rule: Rule::ByteOrderMark,
        name: "byte-order-mark",
        group: Group::Framing,
        severity: Severity::Info,
        summary: "a UTF-8 byte-order mark at the start of the input or of a line; stripped",
        doc: include_str!("rules/byte-order-mark.md"),
    },
    RuleInfo {
        rule: Rule::EmptyStream,
        name: "empty-stream",
        group: Group::Framing,
        severity: Severity::Error,
        summary: "the input holds no record",
        doc: include_str!("rules/empty-stream.md"),
    },
    RuleInfo {
        rule: Rule::MissingType,
        name: "missing-type",
        group: Group::Schema,
        severity: Severity::Error,
        summary: "an object without a string `type`",
        doc: include_str!("rules/missing-type.md"),
    },
    RuleInfo {
        rule: Rule::UnknownEventType,
        name: "unknown-event-type",
        group: Group::Schema,
        severity: Severity::Warning,
        summary: "a `type` no dialect knows",
        doc: include_str!("rules/unknown-event-type.md"),
    },
    RuleInfo {
        rule: Rule::UnknownSubtype,
        name: "unknown-subtype",
        group: Group::Schema,
        severity: Severity::Warning,
        summary: "a known `type` with an unknown `subtype`",
        doc: include_str!("rules/unknown-subtype.md"),
    },
    RuleInfo {
        rule: Rule::MissingField,
        name: "missing-field",
        group: Group::Schema,
        severity: Severity::Error,
        summary: "a field that this kind of event must have is absent",
        doc: include_str!("rules/missing-field.md"),
    },
    RuleInfo {
        rule: Rule::WrongFieldType,
        name: "wrong-field-type",
        group: Group::Schema,
        severity: Severity::Error,
        summary: "a known field has the wrong JSON type",
        doc: include_str!("rules/wrong-field-type.md"),
    },
    RuleInfo {
        rule: Rule::MalformedToolCall,
        name: "malformed-tool-call",
        group: Group::Schema,
        severity: Severity::Error,
        summary: "`tool_call` is not an object, or names no tool kind, or several",
        doc: include_str!("rules/malformed-tool-call.md"),
    },
    RuleInfo {
        rule: Rule::UnknownToolKind,
        name: "unknown-tool-kind",
        group: Group::Schema,
        severity: Severity::Info,
        summary: "a tool kind that is not in the list of known kinds",
        doc: include_str!("rules/unknown-tool-kind.md"),
    },
    RuleInfo {
        rule: Rule::DuplicateKey,
        name: "duplicate-key",
        group: Group::Schema,
        severity: Severity::Warning,
        summary: "the event object or its `tool_call` repeats a key",
        doc: include_str!("rules/duplicate-key.md"),
    },
    RuleInfo {
        rule: Rule::ResultFlagMismatch,
        name: "result-flag-mismatch",
        group: Group::Schema,
        severity: Severity::Error,
        summary: "`subtype` and `is_error` of a result disagree",
        doc: include_str!("rules/result-flag-mismatch.md"),
    },
    RuleInfo {
        rule: Rule::MissingInit,
        name: "missing-init",
        group: Group::Lifecycle,
        severity: Severity::Error,
        summary: "a session's first event is not `system`/`init`",
        doc: include_str!("rules/missing-init.md"),
    },
    RuleInfo {
        rule: Rule::DuplicateInit,
        name: "duplicate-init",
        group: Group::Lifecycle,
        severity: Severity::Error,
        summary: "a `system`/`init` inside a session that has no `result` yet",
        doc: include_str!("rules/duplicate-init.md"),
    },
    RuleInfo {
        rule: Rule::EventAfterResult,
        name: "event-after-result",
        group: Group::Lifecycle,
        severity: Severity::Error,
        summary: "an event after its session's `result` that does not start a new session",
        doc: include_str!("rules/event-after-result.md"),
    },
    RuleInfo {
        rule: Rule::MissingResult,
        name: "missing-result",
        group: Group::Lifecycle,
        severity: Severity::Error,
        summary: "the input ends while the last session has no `result`",
        doc: include_str!("rules/missing-result.md"),
    },
    RuleInfo {
        rule: Rule::SessionIdMismatch,
        name: "session-id-mismatch",
        group: Group::Lifecycle,
        severity: Severity::Error,
        summary: "an event's `session_id` differs from its session's",
        doc: include_str!("rules/session-id-mismatch.md"),
    },
    RuleInfo {
        rule: Rule::TimestampRegression,
        name: "timestamp-regression",
        group: Group::Lifecycle,
        severity: Severity::Warning,
        summary: "`timestamp_ms` smaller than the previous event's",
        doc: include_str!("rules/timestamp-regression.md"),
    },
    RuleInfo {
        rule: Rule::ThinkingNotCompleted,
        name: "thinking-not-completed",
        group: Group::Lifecycle,
        severity: Severity::Warning,
        summary: "thinking deltas ended by another event with no `thinking`/`completed` between",
        doc: include_str!("rules/thinking-not-completed.md"),
    },
    RuleInfo {
        rule: Rule::OrphanCompletion,
        name: "orphan-completion",
        group: Group::ToolCalls,
        severity: Severity::Error,
        summary: "a `completed` tool call that was never started nor announced",
        doc: include_str!("rules/orphan-completion.md"),
    },
    RuleInfo {
        rule: Rule::UnfinishedToolCall,
        name: "unfinished-tool-call",
        group: Group::ToolCalls,
        severity: Severity::Error,
        summary: "a `started` tool call that never completes",
        doc: include_str!("rules/unfinished-tool-call.md"),
    },
    RuleInfo {
        rule: Rule::DuplicateCallId,
        name: "duplicate-call-id",
        group: Group::ToolCalls,
        severity: Severity::Error,
        summary: "a `started` tool call whose `call_id` is still open",
        doc: include_str!("rules/duplicate-call-id.md"),
    },
    RuleInfo {
        rule: Rule::ToolKindMismatch,
        name: "tool-kind-mismatch",
        group: Group::ToolCalls,
        severity: Severity::Error,
        summary: "`completed` names another tool kind than its `started`",
        doc: include_str!("rules/tool-kind-mismatch.md"),
    },
    RuleInfo {
        rule: Rule::ToolArgsMismatch,
        name: "tool-args-mismatch",
        group: Group::ToolCalls,
        severity: Severity::Warning,
        summary: "`completed` repeats `args` that differ from the `started` ones",
        doc: include_str!("rules/tool-args-mismatch.md"),
    },
    RuleInfo {
        rule: Rule::OrphanQueryResponse,
        name: "orphan-query-response",
        group: Group::ToolCalls,
        severity: Severity::Warning,
        summary: "an `interaction_query` response with no request of that `id`",
        doc: include_str!("rules/orphan-query-response.md"),
    },
    RuleInfo {
        rule: Rule::UnansweredQuery,
        name: "unanswered-query",
        group: Group::ToolCalls,
        severity: Severity::Warning,
        summary: "an `interaction_query` request with no response by its session's end",
        doc: include_str!("rules/unanswered-query.md"),
    },
    RuleInfo {
        rule: Rule::ResultTextMismatch,
        name: "result-text-mismatch",
        group: Group::Result,
        severity: Severity::Warning,
        summary: "`result.result` differs from the assistant text of the session",
        doc: include_str!("rules/result-text-mismatch.md"),
    },
    RuleInfo {
        rule: Rule::TooManyOpenCalls,
        name: "too-many-open-calls",
        group: Group::ToolCalls,
        severity: Severity::Warning,
        summary: "more tool calls and queries are open at once than `--max-open-calls` pairs",
        doc: include_str!("rules/too-many-open-calls.md"),
    },
];

impl Rule {
    pub fn info(self) -> &'static RuleInfo {
        &RULES[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn group(self) -> Group {
        self.info().group
    }

    pub fn severity(self) -> Severity {
        self.info().severity
    }

    pub fn from_name(name: &str) -> Option<Rule> {
        RULES.iter().find(|r| r.name == name).map(|r| r.rule)
    }

    pub fn all() -> impl Iterator<Item = Rule> {
        RULES.iter().map(|r| r.rule)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of rules as a bit set, read once outside the hot loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet(u64);

impl RuleSet {
    pub const fn empty() -> Self {
        RuleSet(0)
    }

    pub fn all() -> Self {
        RuleSet((1u64 << RULES.len()) - 1)
    }

    pub fn contains(self, rule: Rule) -> bool {
        self.0 & (1 << rule as u8) != 0
    }

    pub fn insert(&mut self, rule: Rule) {
        self.0 |= 1 << rule as u8;
    }

    pub fn remove(&mut self, rule: Rule) {
        self.0 &= !(1 << rule as u8);
    }

    /// Resolves a comma-separated list of rule and group names (`all` names every rule).
    pub fn parse_list(list: &str) -> Result<RuleSet, String> {
        let mut set = RuleSet::empty();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item == "all" {
                set = RuleSet::all();
            } else if let Some(rule) = Rule::from_name(item) {
                set.insert(rule);
            } else if let Some(group) = Group::ALL.iter().find(|g| g.as_str() == item) {
                for r in RULES.iter().filter(|r| r.group == *group) {
                    set.insert(r.rule);
                }
            } else {
                return Err(format!(
                    "unknown rule or group `{item}` (see `sjlint rules` for the list)"
                ));
            }
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_discriminant() {
        for (i, info) in RULES.iter().enumerate() {
            assert_eq!(info.rule as usize, i, "{} is out of place", info.name);
            assert_eq!(Rule::from_name(info.name), Some(info.rule));
        }
    }

    #[test]
    fn groups_and_names_resolve() {
        let set = RuleSet::parse_list("lifecycle, invalid-json").unwrap();
        assert!(set.contains(Rule::MissingInit));
        assert!(set.contains(Rule::InvalidJson));
        assert!(!set.contains(Rule::InvalidUtf8));
        assert!(RuleSet::parse_list("no-such-rule").is_err());
    }
}
