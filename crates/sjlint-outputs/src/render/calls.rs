//! What one tool call line of the transcript says: the call's action, its target, its outcome.
//!
//! This module owns the reading of a call's arguments into the target a line names (a command,
//! a path, a pattern, a query, a URL, cut to [`MAX_TARGET_CHARS`] characters), the wording of a
//! finished call ([`Call`]: "Ran `pytest -q`: exit 1 in 0.8 s", "Rejected: …", the `--plain`
//! wording of the `text` output format) and its [`Tone`]. Every piece of input it quotes is
//! escaped here with `escape_untrusted`. It must not write to the output nor keep state between
//! calls; the renderer pairs `started` with `completed` and chooses the styles.

use crate::stats::duration;
use serde::Deserialize;
use serde_json::value::RawValue;
use sjlint_core::text::{escape_untrusted, thousands};
use std::borrow::Cow;

/// Tool call targets longer than this many characters are cut, so a call stays one line.
const MAX_TARGET_CHARS: usize = 120;

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

/// The target a line names for a call of `kind` with `args`, escaped and cut to one line:
/// `` `command` `` for a shell call, a path, `` `pattern` in path ``, a query, a URL.
pub(super) fn target(kind: &str, args: &RawValue) -> Option<String> {
    let a: Args<'_> = serde_json::from_str(args.get()).ok()?;
    let path = a
        .path
        .get()
        .or(a.target_file.get())
        .or(a.target_directory.get());
    let pattern = a.pattern.get().or(a.glob_pattern.get());
    let query = a.query.get().or(a.search_term.get());
    let code = |s: &str| format!("`{}`", cut(s));
    Some(match kind {
        "shellToolCall" => code(a.command.get().or(a.cmd.get())?),
        "grepToolCall" | "globToolCall" => match (pattern, path) {
            (Some(p), Some(dir)) => format!("{} under {}", code(p), cut(dir)),
            (Some(p), None) => code(p),
            (None, Some(dir)) => cut(dir),
            (None, None) => return None,
        },
        "webSearchToolCall" | "semSearchToolCall" => code(query?),
        "webFetchToolCall" => cut(a.url.get()?),
        "mcpToolCall" => cut(a.tool_name.get().or(a.name.get())?),
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
    pub(super) kind: &'a str,
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
        let short = self.kind.strip_suffix("ToolCall").unwrap_or(self.kind);
        let (past, plan) = match self.kind {
            "shellToolCall" => ("Ran", "run"),
            "readToolCall" => ("Read file", "read file"),
            "writeToolCall" => ("Wrote file", "write file"),
            "editToolCall" => ("Edited file", "edit file"),
            "deleteToolCall" => ("Deleted file", "delete file"),
            "lsToolCall" => ("Listed directory", "list directory"),
            "grepToolCall" => ("Searched for", "search for"),
            "globToolCall" => ("Found files matching", "find files matching"),
            "semSearchToolCall" => ("Searched the codebase for", "search the codebase for"),
            "webFetchToolCall" => ("Fetched", "fetch"),
            "webSearchToolCall" => ("Searched the web for", "search the web for"),
            "updateTodosToolCall" => ("Updated the to-do list", "update the to-do list"),
            "createPlanToolCall" => ("Created a plan", "create a plan"),
            "readLintsToolCall" => ("Read the lints", "read the lints"),
            "askQuestionToolCall" => ("Asked a question", "ask a question"),
            "mcpToolCall" => ("Called MCP tool", "call MCP tool"),
            _ => ("", ""),
        };
        let mut s = if past.is_empty() {
            let name = escape_untrusted(short);
            if done {
                format!("Used {name}")
            } else {
                format!("use {name}")
            }
        } else if done {
            past.to_owned()
        } else {
            plan.to_owned()
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
        Some(match self.kind {
            "readToolCall" => "Read file".to_owned(),
            "editToolCall" => "Edited file".to_owned(),
            "shellToolCall" => "Ran terminal command".to_owned(),
            "writeToolCall" => "Created new file".to_owned(),
            kind => format!(
                "Used tool {}",
                escape_untrusted(kind.strip_suffix("ToolCall").unwrap_or(kind))
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_cut_to_one_short_line() {
        let long = "x".repeat(500);
        let args = RawValue::from_string(format!("{{\"command\":\"{long}\"}}")).unwrap();
        let t = target("shellToolCall", &args).unwrap();
        assert_eq!(t.chars().count(), MAX_TARGET_CHARS + 3);
        assert!(t.ends_with("…`"));
        let args = RawValue::from_string(
            r#"{"path":7,"targetDirectory":"d","globPattern":"*.rs"}"#.into(),
        )
        .unwrap();
        assert_eq!(
            target("globToolCall", &args).as_deref(),
            Some("`*.rs` under d")
        );
        let args = RawValue::from_string(r#""a string""#.into()).unwrap();
        assert_eq!(target("function", &args), None);
    }
}
