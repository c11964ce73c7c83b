//! The agent-neutral event vocabulary: what every agent's stream says, in one form.
//!
//! This module owns [`Event`] (a borrowed view each agent's checker maps its records into) and
//! its JSON form, which `sjlint fmt --to common` writes and sjlint reads back as a stream of its
//! own (`schemas/common.schema.json`). It must not know any agent's record shapes: the agent
//! modules map into it. Every event names the source line it came from.
//!
//! The vocabulary (`type`): `session_start`, `user_prompt`, `assistant_text`, `thinking`,
//! `tool_start`, `tool_end`, `usage`, `error`, `end`.

use serde_json::value::RawValue;
use std::borrow::Cow;

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

/// What a tool does, across agents' tool names.
pub fn tool_kind(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    let n = n.as_str();
    if n.starts_with("mcp__") || n == "mcp_tool_call" {
        return "mcp";
    }
    match n {
        "bash" | "powershell" | "command_execution" | "run_shell_command" | "shell"
        | "bashoutput" | "killshell" | "killbash" => "shell",
        "read" | "read_file" | "read_many_files" | "notebookread" => "read",
        "write" | "write_file" => "write",
        "edit" | "multiedit" | "replace" | "file_change" | "notebookedit" | "apply_patch" => "edit",
        "glob" | "grep" | "ls" | "list_directory" | "search_file_content" | "glob_tool" => "search",
        "webfetch" | "web_fetch" => "web_fetch",
        "websearch" | "web_search" | "google_web_search" => "web_search",
        "task" | "agent" | "collab_tool_call" => "subagent",
        "todowrite" | "todo_list" | "write_todos" => "todo",
        _ => "other",
    }
}

/// One event of the common vocabulary. Fields a kind does not use stay `None`.
#[derive(Clone, Debug)]
pub struct Event<'a> {
    pub kind: Kind,
    /// The physical line of the source record.
    pub line: u64,
    /// `session_start`: the agent that wrote the source.
    pub agent: Option<&'static str>,
    pub session_id: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
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
    pub usage: Option<Tokens>,
    /// `end`: the cost of this session or turn in US dollars, when the agent reports it.
    pub cost_usd: Option<f64>,
    /// `tool_end`: how long the call took, when timestamps tell; `end`: the run's duration.
    pub duration_ms: Option<u64>,
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
            text: None,
            delta: false,
            call_id: None,
            name: None,
            tool_kind: None,
            args: None,
            ok: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            timestamp_ms: None,
            parent: None,
        }
    }
}

/// Milliseconds since the Unix epoch of an RFC 3339 UTC timestamp
/// (`2025-10-15T12:00:00.123Z`); `None` for anything else.
pub fn parse_timestamp(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let t = s.get(r)?;
        if !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut ms = 0;
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let frac = &s[start..i];
        let mut digits = frac.bytes().take(3).map(|c| u64::from(c - b'0'));
        for _ in 0..3 {
            ms = ms * 10 + digits.next().unwrap_or(0);
        }
    }
    if s.get(i..) != Some("Z") || !(1..=12).contains(&mo) || d == 0 || d > 31 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, mo) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + sec * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_timestamp("2025-10-15T12:00:01.5Z"),
            Some(1_760_529_601_500)
        );
        assert_eq!(parse_timestamp("2025-10-15 12:00:01Z"), None);
    }

    #[test]
    fn kinds() {
        assert_eq!(tool_kind("Bash"), "shell");
        assert_eq!(tool_kind("mcp__github__list"), "mcp");
        assert_eq!(tool_kind("run_shell_command"), "shell");
        assert_eq!(tool_kind("whatever"), "other");
    }
}
