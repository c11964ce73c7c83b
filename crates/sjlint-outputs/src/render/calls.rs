//! What one tool call line of the transcript says: the call's action, its target, its outcome.
//!
//! This module owns what a call does as its line words it ([`Action`], from the common event's
//! tool kind, and the tool's name where one kind covers several actions), the reading of a
//! call's arguments into the target a line names (a command, a path, a pattern, a query, a URL,
//! cut to [`MAX_TARGET_CHARS`] characters), the wording of a finished call ([`Call`]: "Ran
//! `pytest -q`: exit 1 in 0.8 s", "Rejected: …", the `--plain` wording of the `text` output
//! format) and its [`Tone`]. Every agent's calls are worded alike. Every piece of input it quotes is
//! escaped here with `escape_untrusted`. It must not write to the output nor keep state between
//! calls; the renderer pairs `started` with `completed` and chooses the styles.

use crate::stats::duration;
use serde::Deserialize;
use serde_json::value::RawValue;
use sjlint_core::text::{escape_untrusted, thousands};
use std::borrow::Cow;

/// Tool call targets longer than this many characters are cut, so a call stays one line.
const MAX_TARGET_CHARS: usize = 120;

/// What a call does, as its line words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    Shell,
    Read,
    Write,
    Edit,
    Delete,
    List,
    Grep,
    Glob,
    CodeSearch,
    WebFetch,
    WebSearch,
    Todo,
    Plan,
    Lints,
    Question,
    Mcp,
    /// No words of its own: the line names the tool.
    Other,
}

impl Action {
    /// The action of a call of a tool of `tool_kind` (the common event's; `None`: the kind of
    /// `name`) named `name`: the kind says it, but for the kinds that cover several actions,
    /// where the tool's name tells them apart (a listing, a glob or a code search among the
    /// searches, a deletion among the edits).
    pub(super) fn of(tool_kind: Option<&str>, name: &str) -> Action {
        let kind = tool_kind.unwrap_or_else(|| sjlint_core::vocab::tool_kind(name));
        let lower = name.to_ascii_lowercase();
        let n = lower.strip_suffix("toolcall").unwrap_or(&lower);
        match (kind, n) {
            ("shell", _) => Action::Shell,
            ("read", _) => Action::Read,
            ("write", _) => Action::Write,
            ("edit", "delete") => Action::Delete,
            ("edit", _) => Action::Edit,
            ("search", "ls") => Action::List,
            ("search", "glob") => Action::Glob,
            ("search", "semsearch") => Action::CodeSearch,
            ("search", _) => Action::Grep,
            ("web_fetch", _) => Action::WebFetch,
            ("web_search", _) => Action::WebSearch,
            ("todo", _) => Action::Todo,
            ("mcp", "mcp") => Action::Mcp,
            (_, "createplan") => Action::Plan,
            (_, "readlints") => Action::Lints,
            (_, "askquestion") => Action::Question,
            _ => Action::Other,
        }
    }

    /// The words of a call carried out, and of one planned (a rejected or failed call).
    fn words(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Action::Shell => ("Ran", "run"),
            Action::Read => ("Read file", "read file"),
            Action::Write => ("Wrote file", "write file"),
            Action::Edit => ("Edited file", "edit file"),
            Action::Delete => ("Deleted file", "delete file"),
            Action::List => ("Listed directory", "list directory"),
            Action::Grep => ("Searched for", "search for"),
            Action::Glob => ("Found files matching", "find files matching"),
            Action::CodeSearch => ("Searched the codebase for", "search the codebase for"),
            Action::WebFetch => ("Fetched", "fetch"),
            Action::WebSearch => ("Searched the web for", "search the web for"),
            Action::Todo => ("Updated the to-do list", "update the to-do list"),
            Action::Plan => ("Created a plan", "create a plan"),
            Action::Lints => ("Read the lints", "read the lints"),
            Action::Question => ("Asked a question", "ask a question"),
            Action::Mcp => ("Called MCP tool", "call MCP tool"),
            Action::Other => return None,
        })
    }

    /// Whether `--plain` has words of its own for it (the `text` output format's four).
    pub(super) fn is_worded_plain(self) -> bool {
        matches!(
            self,
            Action::Read | Action::Edit | Action::Shell | Action::Write
        )
    }
}

/// A tool's name as a line shows it: cut, and without the `ToolCall` its kind names end in
/// (cursor-agent's `grepToolCall` is `grep`).
pub(super) fn shown_name(name: &str) -> String {
    let name = sjlint_core::text::Excerpt(name).to_string();
    match name.strip_suffix("ToolCall") {
        Some(short) => short.to_owned(),
        None => name,
    }
}

/// What a tool call of another agent acts on: the first of the argument keys that name it.
pub(super) fn common_target(args: &RawValue) -> Option<String> {
    // A list of changes (Codex's `file_change`) names its first.
    let v = match serde_json::from_str::<serde_json::Value>(args.get()).ok()? {
        serde_json::Value::Object(m) => m,
        serde_json::Value::Array(a) => match a.into_iter().next()? {
            serde_json::Value::Object(m) => m,
            _ => return None,
        },
        _ => return None,
    };
    for key in [
        "command",
        "file_path",
        "absolute_path",
        "path",
        "pattern",
        "query",
        "url",
        "description",
        "prompt",
    ] {
        if let Some(serde_json::Value::String(s)) = v.get(key) {
            return Some(cut(s));
        }
    }
    None
}

/// The arguments a tool call line names. Several spellings are seen for the same thing (grep's
/// `path`, glob's `targetDirectory`, web search's `searchTerm`); the first present wins.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Args<'a> {
    #[serde(borrow)]
    command: Loose<'a>,
    /// Amp's `Bash`.
    #[serde(borrow)]
    cmd: Loose<'a>,
    #[serde(borrow)]
    path: Loose<'a>,
    #[serde(borrow)]
    target_directory: Loose<'a>,
    #[serde(borrow)]
    target_file: Loose<'a>,
    #[serde(borrow)]
    pattern: Loose<'a>,
    #[serde(borrow)]
    glob_pattern: Loose<'a>,
    #[serde(borrow)]
    query: Loose<'a>,
    #[serde(borrow)]
    search_term: Loose<'a>,
    #[serde(borrow)]
    url: Loose<'a>,
    #[serde(borrow)]
    tool_name: Loose<'a>,
    #[serde(borrow)]
    name: Loose<'a>,
}

/// A string argument; any other JSON value counts as absent rather than failing the parse.
#[derive(Default)]
struct Loose<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Loose<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Loose(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Loose(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl Loose<'_> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

/// The target a line names for a call that does `action` with `args`, escaped and cut to one
/// line: `` `command` `` for a shell call, a path, `` `pattern` in path ``, a query, a URL.
pub(super) fn target(action: Action, args: &RawValue) -> Option<String> {
    let a: Args<'_> = serde_json::from_str(args.get()).ok()?;
    let path = a
        .path
        .get()
        .or(a.target_file.get())
        .or(a.target_directory.get());
    let pattern = a.pattern.get().or(a.glob_pattern.get());
    let query = a.query.get().or(a.search_term.get());
    let code = |s: &str| format!("`{}`", cut(s));
    Some(match action {
        Action::Shell => code(a.command.get().or(a.cmd.get())?),
        Action::Grep | Action::Glob => match (pattern, path) {
            (Some(p), Some(dir)) => format!("{} under {}", code(p), cut(dir)),
            (Some(p), None) => code(p),
            (None, Some(dir)) => cut(dir),
            (None, None) => return None,
        },
        Action::WebSearch | Action::CodeSearch => code(query?),
        Action::WebFetch => cut(a.url.get()?),
        Action::Mcp => cut(a.tool_name.get().or(a.name.get())?),
        _ => match (
            a.command.get().or(a.cmd.get()),
            path,
            pattern,
            query,
            a.url.get(),
        ) {
            (Some(c), ..) => code(c),
            (None, Some(p), ..) => cut(p),
            (None, None, Some(p), ..) => code(p),
            (None, None, None, Some(q), _) => code(q),
            (None, None, None, None, Some(u)) => cut(u),
            _ => return None,
        },
    })
}

/// `s` escaped and cut to [`MAX_TARGET_CHARS`] characters.
pub(super) fn cut(s: &str) -> String {
    let escaped = escape_untrusted(s);
    match escaped.char_indices().nth(MAX_TARGET_CHARS) {
        Some((i, _)) => format!("{}…", &escaped[..i]),
        None => escaped.into_owned(),
    }
}

/// How a tool call line is coloured.
pub(super) enum Tone {
    Ok,
    Warn,
    Bad,
}

/// One finished tool call, as its line describes it.
pub(super) struct Call<'a> {
    pub(super) action: Action,
    /// The tool's name as shown ([`shown_name`]), for a call whose action has no words.
    pub(super) name: &'a str,
    pub(super) target: Option<&'a str>,
    pub(super) outcome: Option<&'a str>,
    pub(super) exit_code: Option<i64>,
    pub(super) total_lines: Option<u64>,
    pub(super) took: Option<u64>,
}

impl Call<'_> {
    /// What the call does: "Read file src/cart.py" when `done`, "read file src/cart.py" as a
    /// plan (for a rejected or failed call).
    pub(super) fn action(&self, done: bool) -> String {
        let mut s = match self.action.words() {
            None if done => format!("Used {}", escape_untrusted(self.name)),
            None => format!("use {}", escape_untrusted(self.name)),
            Some((past, _)) if done => past.to_owned(),
            Some((_, plan)) => plan.to_owned(),
        };
        if let Some(target) = self.target {
            s.push(' ');
            s.push_str(target);
        }
        s
    }

    /// The default line and its tone.
    pub(super) fn line(&self) -> (String, Tone) {
        let took = self
            .took
            .map(|ms| format!(" in {}", duration(ms)))
            .unwrap_or_default();
        match self.outcome {
            Some("success") => {
                let mut s = self.action(true);
                let mut tone = Tone::Ok;
                if let Some(code) = self.exit_code {
                    s.push_str(&format!(": exit {code}"));
                    if code != 0 {
                        tone = Tone::Bad;
                    }
                }
                if let Some(n) = self.total_lines {
                    let lines = if n == 1 { "line" } else { "lines" };
                    s.push_str(&format!(" ({} {lines})", thousands(n)));
                }
                (s + &took, tone)
            }
            Some("rejected") => (format!("Rejected: {}", self.action(false)), Tone::Warn),
            Some(other) => {
                let how = if other == "error" || other == "failure" {
                    "Failed".to_owned()
                } else {
                    format!("Failed ({})", escape_untrusted(other))
                };
                (format!("{how}: {}{took}", self.action(false)), Tone::Bad)
            }
            None => (
                format!("Completed without a result: {}{took}", self.action(false)),
                Tone::Warn,
            ),
        }
    }

    /// The `text` output format's line (seed 000), for an action that was carried out. The seed
    /// is a translated page; the CLI itself writes these lines in English ("Read file", "Edited
    /// file", "Ran terminal command", "Created new file"), so that is what `--plain` prints. The
    /// seed words four kinds; other kinds get a line in the same style naming the tool.
    pub(super) fn plain(&self) -> Option<String> {
        if self.outcome != Some("success") {
            return None;
        }
        Some(match self.action {
            Action::Read => "Read file".to_owned(),
            Action::Edit => "Edited file".to_owned(),
            Action::Shell => "Ran terminal command".to_owned(),
            Action::Write => "Created new file".to_owned(),
            _ => format!("Used tool {}", escape_untrusted(self.name)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same tool reads the same whoever called it: the words come from the common tool
    /// kind, and the name only tells apart the actions one kind covers.
    #[test]
    fn every_agents_calls_are_worded_by_what_they_do() {
        for (kind, name, action) in [
            (Some("search"), "globToolCall", Action::Glob),
            (None, "Glob", Action::Glob),
            (None, "glob", Action::Glob),
            (None, "LS", Action::List),
            (None, "lsToolCall", Action::List),
            (None, "Grep", Action::Grep),
            (None, "search_file_content", Action::Grep),
            (None, "Bash", Action::Shell),
            (None, "shellToolCall", Action::Shell),
            (None, "writeFileToolCall", Action::Write),
            (None, "TodoWrite", Action::Todo),
            (None, "deleteToolCall", Action::Delete),
            (None, "mcpToolCall", Action::Mcp),
            (None, "mcp__github__list", Action::Other),
            (None, "createPlanToolCall", Action::Plan),
        ] {
            assert_eq!(Action::of(kind, name), action, "{name}");
        }
        let call = Call {
            action: Action::Other,
            name: &shown_name("frobnicateToolCall"),
            target: None,
            outcome: Some("success"),
            exit_code: None,
            total_lines: None,
            took: None,
        };
        assert_eq!(call.action(true), "Used frobnicate");
    }

    #[test]
    fn targets_are_cut_to_one_short_line() {
        let long = "x".repeat(500);
        let args = RawValue::from_string(format!("{{\"command\":\"{long}\"}}")).unwrap();
        let t = target(Action::Shell, &args).unwrap();
        assert_eq!(t.chars().count(), MAX_TARGET_CHARS + 3);
        assert!(t.ends_with("…`"));
        let args = RawValue::from_string(
            r#"{"path":7,"targetDirectory":"d","globPattern":"*.rs"}"#.into(),
        )
        .unwrap();
        assert_eq!(
            target(Action::Glob, &args).as_deref(),
            Some("`*.rs` under d")
        );
        let args = RawValue::from_string(r#""a string""#.into()).unwrap();
        assert_eq!(target(Action::Other, &args), None);
    }
}
