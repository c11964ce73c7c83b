//! The rule table: every rule's stable name, group, default severity and documentation, and the
//! set of enabled rules.
//!
//! This is the one place that lists rules. It must not contain checking logic: the validator and
//! the classifier decide when a rule fires; this module only says what each rule is.

pub mod messages;

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
    /// What `sjlint run` saw the agent's process do (only `run` reports these).
    Run,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Framing,
        Group::Schema,
        Group::Lifecycle,
        Group::ToolCalls,
        Group::Result,
        Group::Run,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Group::Framing => "framing",
            Group::Schema => "schema",
            Group::Lifecycle => "lifecycle",
            Group::ToolCalls => "tool-calls",
            Group::Result => "result",
            Group::Run => "run",
        }
    }
}

/// Declares every rule once: its variant, stable name, group, default severity and one-line
/// summary. The enum [`Rule`], the table [`RULES`] (in declaration order, indexed by the
/// discriminant) and each rule's documentation (`crates/sjlint-core/src/rules/<name>.md`, included at build time,
/// so a rule without its doc does not compile) all come from this one list.
macro_rules! rules {
    ($($variant:ident: $name:literal, $group:ident, $severity:ident, $summary:literal;)*) => {
        /// Every rule. The discriminant indexes [`RULES`] and the bits of [`RuleSet`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Rule {
            $($variant,)*
        }

        /// Every rule's description, in the order of [`Rule`]'s discriminants.
        pub static RULES: &[RuleInfo] = &[
            $(RuleInfo {
                rule: Rule::$variant,
                name: $name,
                group: Group::$group,
                severity: Severity::$severity,
                summary: $summary,
                doc: include_str!(concat!($name, ".md")),
            },)*
        ];
    };
}

/// What a rule is.
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

rules! {
    InvalidJson: "invalid-json", Framing, Error,
        "the record is not RFC 8259 JSON";
    InvalidUtf8: "invalid-utf8", Framing, Error,
        "the record holds bytes that are not UTF-8";
    NotAnObject: "not-an-object", Framing, Error,
        "valid JSON that is not an object";
    RawControlCharacter: "raw-control-character", Framing, Warning,
        "a raw control character (U+0000 to U+001F) inside a string; repaired and validated";
    TruncatedRecord: "truncated-record", Framing, Error,
        "the input ends inside a record";
    RecordTooLarge: "record-too-large", Framing, Error,
        "a record exceeds --max-record-bytes; skipped";
    BlankLine: "blank-line", Framing, Info,
        "an empty or whitespace-only line; not a record";
    ByteOrderMark: "byte-order-mark", Framing, Info,
        "a UTF-8 byte-order mark at the start of the input or of a line; stripped";
    EmptyStream: "empty-stream", Framing, Error,
        "the input holds no event: it is empty, or only blank lines or plain text";
    MissingType: "missing-type", Schema, Error,
        "an object without a string `type`";
    UnknownEventType: "unknown-event-type", Schema, Info,
        "a `type` no dialect knows";
    UnknownSubtype: "unknown-subtype", Schema, Info,
        "a known `type` with an unknown `subtype`";
    MissingField: "missing-field", Schema, Error,
        "a field that this kind of event must have is absent";
    WrongFieldType: "wrong-field-type", Schema, Error,
        "a known field has the wrong JSON type";
    MalformedToolCall: "malformed-tool-call", Schema, Error,
        "`tool_call` is not an object, or names no tool kind, or several";
    UnknownToolKind: "unknown-tool-kind", Schema, Info,
        "a tool kind that is not in the list of known kinds";
    DuplicateKey: "duplicate-key", Schema, Warning,
        "a record (or cursor-agent's `tool_call`) repeats a key";
    ResultFlagMismatch: "result-flag-mismatch", Schema, Error,
        "`subtype` and `is_error` of a result disagree";
    MissingInit: "missing-init", Lifecycle, Error,
        "a session's first event is not `system`/`init`";
    DuplicateInit: "duplicate-init", Lifecycle, Error,
        "a `system`/`init` inside a session that has no `result` yet";
    EventAfterResult: "event-after-result", Lifecycle, Error,
        "an event after its session's `result` that does not start a new session";
    MissingResult: "missing-result", Lifecycle, Error,
        "the input ends while the last session has no `result`";
    SessionIdMismatch: "session-id-mismatch", Lifecycle, Error,
        "an event's `session_id` differs from its session's";
    TimestampRegression: "timestamp-regression", Lifecycle, Warning,
        "`timestamp_ms` smaller than the previous event's";
    ThinkingNotCompleted: "thinking-not-completed", Lifecycle, Warning,
        "thinking deltas ended by another event with no `thinking`/`completed` between";
    OrphanCompletion: "orphan-completion", ToolCalls, Error,
        "a `completed` tool call that was never started nor announced";
    UnfinishedToolCall: "unfinished-tool-call", ToolCalls, Error,
        "a `started` tool call that never completes";
    DuplicateCallId: "duplicate-call-id", ToolCalls, Error,
        "a `started` tool call whose `call_id` is still open";
    ToolKindMismatch: "tool-kind-mismatch", ToolCalls, Error,
        "`completed` names another tool kind than its `started`";
    ToolArgsMismatch: "tool-args-mismatch", ToolCalls, Warning,
        "`completed` repeats `args` that differ from the `started` ones";
    OrphanQueryResponse: "orphan-query-response", ToolCalls, Warning,
        "an `interaction_query` response with no request of that `id`";
    UnansweredQuery: "unanswered-query", ToolCalls, Warning,
        "an `interaction_query` request with no response by its session's end";
    ResultTextMismatch: "result-text-mismatch", Result, Warning,
        "`result.result` differs from the assistant text of the session";
    DidNothing: "did-nothing", Result, Warning,
        "a session ends in success having called no tool and written no text";
    UnknownAgent: "unknown-agent", Schema, Warning,
        "the records match none of the agents sjlint knows; reported once, nothing else is checked";
    MixedAgents: "mixed-agents", Schema, Error,
        "records of another agent in a stream; reported once, at the first";
    UnknownParentToolUse: "unknown-parent-tool-use", ToolCalls, Warning,
        "a Claude Code subagent line names a `parent_tool_use_id` no `tool_use` opened";
    AssistantNotDelta: "assistant-not-delta", Schema, Warning,
        "a Gemini CLI assistant `message` without `delta: true`";
    TooManyOpenCalls: "too-many-open-calls", ToolCalls, Warning,
        "more tool calls and queries are open at once than `--max-open-calls` pairs";
    AgentHungAfterResult: "agent-hung-after-result", Run, Warning,
        "`run`: the agent did not exit within --after-result of its session's end and was ended, or left processes holding its stdout open";
    AgentStalled: "agent-stalled", Run, Error,
        "`run`: no first output within --first-output-timeout, no output for --idle-timeout, a tool call past --tool-timeout, or --timeout reached; the agent was ended";
    AgentWroteNoEvents: "agent-wrote-no-events", Run, Error,
        "`run`: the agent wrote nothing on stdout; quotes what it printed on stderr";
    // New rules go last: a rule's index is its SARIF `ruleIndex`.
    AgentOverBudget: "agent-over-budget", Run, Error,
        "`run`: the stream went past --max-cost, --max-tokens or --max-tool-calls; the agent was ended";
    UnknownField: "unknown-field", Schema, Info,
        "a field or event type the agent's schema does not list (off unless selected, or `--strict-schema`)";
    RunInterrupted: "run-interrupted", Run, Warning,
        "`run`: sjlint was interrupted (SIGINT, SIGTERM, SIGHUP) while the agent ran, and ended it";
    DanglingParent: "dangling-parent", Lifecycle, Warning,
        "a session log's record whose `parentUuid` names no `uuid` earlier in the file";
    TokenTotalDrop: "token-total-drop", Lifecycle, Info,
        "a session log's cumulative token total smaller than the one before it; counted once";
}

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

    /// Rules that are off unless named (by `--select`, a group, `all`, a severity, or their own
    /// flag): `unknown-field` names every field a newer CLI adds, which is news to a consumer's
    /// author, not a fault of the stream.
    pub fn opt_in(self) -> bool {
        matches!(self, Rule::UnknownField)
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
pub struct RuleSet(u128);

// Every rule has its bit.
const _: () = assert!(RULES.len() < 128);

impl RuleSet {
    pub const fn empty() -> Self {
        RuleSet(0)
    }

    pub fn all() -> Self {
        RuleSet((1u128 << RULES.len()) - 1)
    }

    /// The rules on when nothing is selected: every rule but the opt-in ones ([`Rule::opt_in`]).
    pub fn defaults() -> Self {
        let mut set = RuleSet::all();
        for r in Rule::all().filter(|r| r.opt_in()) {
            set.remove(r);
        }
        set
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
