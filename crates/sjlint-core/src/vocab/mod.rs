//! The agent-neutral event vocabulary: what every agent's stream says, in one form.
//!
//! This module owns [`Event`] (a borrowed view each agent's checker maps its records into, and
//! the one thing `stats`, `render`, the status line, `run` and `fmt --to common` read of a
//! stream), its [`Kind`]s, [`Tokens`], and the tool kinds every agent's tool names map to
//! ([`tool_kind`]). Its JSON form, which `sjlint fmt --to common` writes, is the child module
//! `wire` (`schemas/common.schema.json`, versioned by [`VERSION`]). It is a leaf: it must not
//! know any agent's record shapes (the agent modules map into it), nor read or write anything.
//! Every event names the source line it came from.
//!
//! The vocabulary (`type`): `session_start`, `user_prompt`, `assistant_text`, `thinking`,
//! `tool_start`, `tool_end`, `usage`, `error`, `end`.

mod account;
mod outcome;
mod wire;

pub use account::Account;
pub use outcome::Outcome;
pub use wire::{Named, write_line};

use serde_json::value::RawValue;
use std::borrow::Cow;

/// The version of the common form, written as `v` on every `session_start` (see `CHANGELOG`
/// of `schemas/common.schema.json`'s description).
pub const VERSION: u32 = 1;

/// The kind of a common event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A session (Claude), thread (Codex) or run (Gemini) begins.
    SessionStart,
    /// The user's prompt, or a message standing in for the user.
    UserPrompt,
    /// Text of the assistant (a whole message, or a `delta` piece of one).
    AssistantText,
    /// The model's reasoning, as far as the agent shows it.
    Thinking,
    /// A tool call begins.
    ToolStart,
    /// A tool call ends, with its status and result.
    ToolEnd,
    /// Tokens of one API message or turn (counted once).
    Usage,
    /// An error the agent reports that does not by itself end the run.
    Error,
    /// The session, turn or run ends.
    End,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::SessionStart,
        Kind::UserPrompt,
        Kind::AssistantText,
        Kind::Thinking,
        Kind::ToolStart,
        Kind::ToolEnd,
        Kind::Usage,
        Kind::Error,
        Kind::End,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SessionStart => "session_start",
            Kind::UserPrompt => "user_prompt",
            Kind::AssistantText => "assistant_text",
            Kind::Thinking => "thinking",
            Kind::ToolStart => "tool_start",
            Kind::ToolEnd => "tool_end",
            Kind::Usage => "usage",
            Kind::Error => "error",
            Kind::End => "end",
        }
    }

    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Token counts, each once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
}

impl Tokens {
    /// Count by count, the larger of the two.
    pub fn max(self, o: Tokens) -> Tokens {
        Tokens {
            input: self.input.max(o.input),
            output: self.output.max(o.output),
            cache_read: self.cache_read.max(o.cache_read),
            cache_write: self.cache_write.max(o.cache_write),
            reasoning: self.reasoning.max(o.reasoning),
        }
    }

    /// Count by count, the sum (saturating).
    pub fn plus(self, o: Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_add(o.input),
            output: self.output.saturating_add(o.output),
            cache_read: self.cache_read.saturating_add(o.cache_read),
            cache_write: self.cache_write.saturating_add(o.cache_write),
            reasoning: self.reasoning.saturating_add(o.reasoning),
        }
    }

    /// Count by count, what `self` has beyond `o` (0 where it has less).
    pub fn beyond(self, o: Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_sub(o.input),
            output: self.output.saturating_sub(o.output),
            cache_read: self.cache_read.saturating_sub(o.cache_read),
            cache_write: self.cache_write.saturating_sub(o.cache_write),
            reasoning: self.reasoning.saturating_sub(o.reasoning),
        }
    }

    /// No count at all.
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }
}

/// What a tool does, across agents' tool names: Claude Code's and Amp's (`Bash`, `Read`,
/// `Edit`, `Task`, `mcp__server__tool`, …), Codex's item types (`command_execution`,
/// `file_change`, …), Gemini CLI's and Qwen Code's (`run_shell_command`, `replace`,
/// `google_web_search`, …), Grok Build's (`run_terminal_command`, `search_replace`, …),
/// OpenCode's and Pi's lowercase ones (`bash`, `list`, `patch`, `webfetch`, `todowrite`, `find`,
/// …), Copilot CLI's (`read_bash`, `view`, `create`, `str_replace_editor`, `update_todo`, …),
/// droid's (`Execute`, `Create`, `ApplyPatch`, `FetchUrl`, …), Kimi CLI's (`ReadFile`,
/// `StrReplaceFile`, `SearchWeb`, `SetTodoList`, …), Amp's own (`create_file`, `edit_file`,
/// `finder`, `oracle`, …) and cursor-agent's `<kind>ToolCall` keys (`shellToolCall`,
/// `grepToolCall`, `taskToolCall`, …, with or without the suffix). Names it does not know are
/// `other`; case does not matter.
pub fn tool_kind(name: &str) -> &'static str {
    let lower = name.to_ascii_lowercase();
    let n = lower.strip_suffix("toolcall").unwrap_or(&lower);
    if n.starts_with("mcp__") {
        return "mcp";
    }
    match n {
        "bash"
        | "powershell"
        | "command_execution"
        | "run_shell_command"
        | "shell"
        | "bashoutput"
        | "killshell"
        | "killbash"
        | "run_terminal_command"
        | "execute"
        | "writeshellstdin"
        | "read_bash"
        | "write_bash"
        | "stop_bash"
        | "list_bash" => "shell",
        "read" | "read_file" | "read_many_files" | "notebookread" | "view" | "readfile"
        | "readmediafile" => "read",
        "write" | "write_file" | "writefile" | "create" | "create_file" => "write",
        "edit" | "multiedit" | "replace" | "file_change" | "notebookedit" | "apply_patch"
        | "search_replace" | "strreplace" | "str_replace" | "delete" | "delete_file" | "patch"
        | "str_replace_editor" | "applypatch" | "strreplacefile" | "edit_file" | "undo_edit" => {
            "edit"
        }
        "glob"
        | "grep"
        | "ls"
        | "list"
        | "codesearch"
        | "find"
        | "list_directory"
        | "list_dir"
        | "search_file_content"
        | "glob_tool"
        | "semsearch"
        | "codebase_search"
        | "grep_search"
        | "file_search"
        | "finder" => "search",
        "webfetch" | "web_fetch" | "fetch" | "fetchurl" | "read_web_page" => "web_fetch",
        "websearch" | "web_search" | "google_web_search" | "searchweb" => "web_search",
        "task" | "agent" | "collab_tool_call" | "oracle" | "librarian" => "subagent",
        "todowrite" | "todo_list" | "write_todos" | "todo" | "updatetodos" | "readtodos"
        | "todoread" | "update_todo" | "settodolist" | "todo_write" | "task_list" => "todo",
        "mcp" | "mcp_tool_call" | "getmcptools" => "mcp",
        _ => "other",
    }
}

/// One event of the common vocabulary. Fields a kind does not use stay `None`.
#[derive(Clone, Debug)]
pub struct Event<'a> {
    pub kind: Kind,
    /// The physical line of the source record.
    pub line: u64,
    /// The agent that wrote the source: on `session_start`, and on the first event of the
    /// common form.
    pub agent: Option<&'static str>,
    pub session_id: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    /// `session_start`: the working directory the agent runs in, when it says.
    pub cwd: Option<Cow<'a, str>>,
    /// Prompt, assistant text, thinking, tool result text, error text, final result text.
    pub text: Option<Cow<'a, str>>,
    /// `assistant_text`: the text is a piece of a message whose pieces are joined.
    pub delta: bool,
    pub call_id: Option<Cow<'a, str>>,
    /// The tool's name as the agent gives it.
    pub name: Option<Cow<'a, str>>,
    /// [`tool_kind`] of the name.
    pub tool_kind: Option<&'static str>,
    /// `tool_start`: the arguments, as JSON text.
    pub args: Option<&'a RawValue>,
    /// `tool_end`, `end`: whether it went well.
    pub ok: Option<bool>,
    /// `tool_end`: the call was refused (by the user or a permission rule), not run.
    pub rejected: bool,
    /// `end`: how the session ended, when the agent's record says more than `ok` (else
    /// [`Outcome::of_ok`] of `ok`).
    pub outcome: Option<Outcome>,
    /// `end`: the agent's own word for how it ended (`terminal_reason`, `stopReason`, an error
    /// type), when it gives one.
    pub reason: Option<Cow<'a, str>>,
    /// `end`: the tool calls the agent reports were denied permission in the session.
    pub denied: Option<u64>,
    /// `tool_end` of a command: its exit code, when the agent reports it.
    pub exit_code: Option<i64>,
    /// `tool_end` of a read: the lines the file has, when the agent reports it.
    pub lines: Option<u64>,
    pub usage: Option<Tokens>,
    /// `end`: the cost of this session or turn in US dollars, when the agent reports it;
    /// `usage`: this message's or step's part of it, where the agent reports cost as it goes
    /// (the `end` after them says their sum: a session's cost is its `end`'s, else the sum of
    /// its `usage` costs).
    pub cost_usd: Option<f64>,
    /// `tool_end`: how long the call took, when timestamps tell; `end`: the run's duration.
    pub duration_ms: Option<u64>,
    /// `end`: the part of the run's duration spent waiting on the model's API, when the agent
    /// reports it (cursor-agent's `duration_api_ms`). Counted by `stats`; not part of the
    /// common form's lines.
    pub duration_api_ms: Option<u64>,
    /// When the agent stamps its records: milliseconds since the Unix epoch.
    pub timestamp_ms: Option<u64>,
    /// The tool call of the subagent this event belongs to.
    pub parent: Option<Cow<'a, str>>,
}

impl<'a> Event<'a> {
    pub fn new(kind: Kind, line: u64) -> Event<'a> {
        Event {
            kind,
            line,
            agent: None,
            session_id: None,
            model: None,
            cwd: None,
            text: None,
            delta: false,
            call_id: None,
            name: None,
            tool_kind: None,
            args: None,
            ok: None,
            rejected: false,
            outcome: None,
            reason: None,
            denied: None,
            exit_code: None,
            lines: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            duration_api_ms: None,
            timestamp_ms: None,
            parent: None,
        }
    }
}

/// The tool kinds [`tool_kind`] gives, for reading them back as `&'static str` (and in this
/// order in the legends of `sjlint report`), "other" last.
pub const TOOL_KINDS: &[&str] = &[
    "shell",
    "read",
    "write",
    "edit",
    "search",
    "web_fetch",
    "web_search",
    "subagent",
    "todo",
    "mcp",
    "other",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(tool_kind("Bash"), "shell");
        assert_eq!(tool_kind("mcp__github__list"), "mcp");
        assert_eq!(tool_kind("run_shell_command"), "shell");
        assert_eq!(tool_kind("whatever"), "other");
    }

    /// The tool names each agent's format documents (`../shared/agents/*.md`, cursor-agent's
    /// `FORMAT.md`) and the fixtures use, each with its kind.
    #[test]
    fn every_agents_tool_names_have_their_kind() {
        let table = [
            (
                "shell",
                "Bash BashOutput KillShell command_execution run_shell_command \
                 run_terminal_command shellToolCall writeShellStdinToolCall bash read_bash \
                 write_bash stop_bash list_bash Execute Shell",
            ),
            (
                "read",
                "Read NotebookRead read_file read_many_files readToolCall read view ReadFile \
                 ReadMediaFile",
            ),
            (
                "write",
                "Write write_file writeToolCall write create Create WriteFile create_file",
            ),
            (
                "edit",
                "Edit MultiEdit NotebookEdit file_change replace search_replace editToolCall \
                 deleteToolCall edit multiedit patch str_replace_editor ApplyPatch \
                 StrReplaceFile edit_file undo_edit",
            ),
            (
                "search",
                "Glob Grep LS glob search_file_content list_directory grepToolCall \
                 globToolCall lsToolCall semSearchToolCall grep list codesearch find ls \
                 grep_search finder",
            ),
            (
                "web_fetch",
                "WebFetch web_fetch webFetchToolCall webfetch FetchUrl FetchURL read_web_page",
            ),
            (
                "web_search",
                "WebSearch web_search google_web_search webSearchToolCall websearch SearchWeb",
            ),
            (
                "subagent",
                "Task Agent collab_tool_call taskToolCall task oracle librarian",
            ),
            (
                "todo",
                "TodoWrite todo_list write_todos todoToolCall updateTodosToolCall \
                 readTodosToolCall todowrite todoread update_todo SetTodoList todo_write \
                 task_list",
            ),
            (
                "mcp",
                "mcp__github__list mcp_tool_call mcpToolCall getMcpToolsToolCall",
            ),
            (
                "other",
                "ExitPlanMode save_memory askQuestionToolCall createPlanToolCall report_intent \
                 task_complete",
            ),
        ];
        for (kind, names) in table {
            assert!(TOOL_KINDS.contains(&kind));
            for name in names.split_whitespace() {
                assert_eq!(tool_kind(name), kind, "{name}");
            }
        }
    }
}
