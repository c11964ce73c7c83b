//! The transcript of every agent's stream but cursor-agent's, from their common events.
//!
//! This module owns the wording of the agent-neutral events the agents' checkers map their
//! records into (`session_start`, `user_prompt`, `assistant_text`, `thinking`, `tool_start`,
//! `tool_end`, `usage`, `error`, `end`), a subagent's text and calls marked as such. A call gets
//! one line, worded by its tool kind as cursor-agent's calls are (`calls`), so that every
//! agent's transcript has the same shape, `--plain` included. It writes
//! through the renderer's own line handling, so the same escaping and blank lines apply; it
//! must not read records itself nor know one agent from another beyond its display name.

use super::calls::{Call, Tone, common_target, cut, target};
use super::{Block, Open, Renderer};
use crate::stats::duration;
use crate::text::{Excerpt, escape_untrusted, thousands};
use crate::vocab;
use std::io::Write;

/// The kind a call's line is worded by (`calls::Call`): cursor-agent's kind of the same tool kind
/// when it has one, else the agent's own name of the tool ("Used `mcp__github__list`").
fn wording_kind<'a>(tool_kind: Option<&'static str>, name: &'a str) -> &'a str {
    // cursor-agent's own names word themselves.
    if name.ends_with("ToolCall") {
        return name;
    }
    match tool_kind.unwrap_or_else(|| vocab::tool_kind(name)) {
        "shell" => "shellToolCall",
        "read" => "readToolCall",
        "write" => "writeToolCall",
        "edit" => "editToolCall",
        "search" => "grepToolCall",
        "web_fetch" => "webFetchToolCall",
        "web_search" => "webSearchToolCall",
        "todo" => "updateTodosToolCall",
        _ => name,
    }
}

/// Whether `--plain` has words of its own for a call worded as `kind` (the `text` output
/// format's four).
fn is_worded_plain(kind: &str) -> bool {
    matches!(
        kind,
        "readToolCall" | "editToolCall" | "shellToolCall" | "writeToolCall"
    )
}

/// Whether a call worded as `kind` runs a command.
fn wording_is_shell(kind: &str) -> bool {
    kind == "shellToolCall"
}

/// The transcript of every agent's stream but cursor-agent's, from their common events.
impl<W: Write> Renderer<'_, W> {
    #[expect(
        clippy::too_many_lines,
        reason = "one match over the common event vocabulary; each arm writes one line"
    )]
    pub(super) fn common_event(&mut self, ev: &vocab::Event<'_>) {
        use vocab::Kind;
        if ev.kind != Kind::End {
            self.in_session = true;
        }
        let sub = if ev.parent.is_some() {
            "(subagent) "
        } else {
            ""
        };
        match ev.kind {
            Kind::SessionStart => {
                if self.opts.plain {
                    return;
                }
                let mut line = "session".to_owned();
                for part in [&ev.session_id, &ev.model].into_iter().flatten() {
                    line.push(' ');
                    line.push_str(&escape_untrusted(part));
                }
                if let Some(a) = ev.agent.and_then(crate::agents::Agent::from_name) {
                    line.push_str(" · ");
                    line.push_str(a.display_name());
                }
                self.start(Block::Header);
                self.push_styled(&line, self.styles.header);
                self.newline();
            }
            Kind::UserPrompt => {
                let Some(text) = ev.text.as_deref().filter(|t| !t.is_empty()) else {
                    return;
                };
                if self.opts.plain {
                    return;
                }
                self.start(Block::Prompt);
                let style = self.styles.prompt;
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        self.newline();
                    }
                    self.push_styled(">", style);
                    self.push_styled(" ", None);
                    if i == 0 {
                        self.push_styled(sub, self.styles.dim);
                    }
                    self.push_escaped(line, None);
                }
                self.newline();
            }
            Kind::AssistantText => {
                let Some(text) = ev.text.as_deref().filter(|t| !t.is_empty()) else {
                    return;
                };
                if !(ev.delta && self.last == Block::Text) {
                    self.start(Block::Text);
                    self.push_styled(sub, self.styles.dim);
                }
                self.push_lines(text, None);
                self.text_shown = true;
            }
            Kind::Thinking => {
                let Some(text) = ev.text.as_deref().filter(|t| !t.is_empty()) else {
                    return;
                };
                if !self.opts.thinking {
                    return;
                }
                self.start(Block::Thinking);
                self.push_styled("· thinking", self.styles.dim);
                self.newline();
                self.push_lines(text, self.styles.thinking);
                self.last = Block::Marker;
            }
            Kind::ToolStart => {
                let Some(id) = ev.call_id.as_deref() else {
                    return;
                };
                if self.open.len() >= self.max_open {
                    return;
                }
                let name = ev.name.as_deref().unwrap_or("(none)");
                let kind = wording_kind(ev.tool_kind, name);
                let target = ev
                    .args
                    .and_then(|a| target(kind, a).or_else(|| common_target(a)))
                    .or_else(|| ev.text.as_deref().map(cut));
                self.open.insert(
                    crate::agents::id_prefix(id).into(),
                    Open {
                        kind: Excerpt(kind).to_string().into(),
                        target,
                        started_ms: ev.timestamp_ms,
                        line: ev.line,
                        subagent: ev.parent.is_some(),
                    },
                );
            }
            Kind::ToolEnd => self.common_tool_end(ev),
            Kind::Usage | Kind::Error if self.opts.plain => {}
            Kind::Usage => {
                if let Some(u) = ev.usage {
                    let t = self.tokens.get_or_insert_with(Default::default);
                    t.input += u.input;
                    t.output += u.output;
                    t.cache_read += u.cache_read;
                    t.cache_write += u.cache_write;
                }
            }
            Kind::Error => {
                self.start(Block::Marker);
                let text = ev.text.as_deref().unwrap_or("(no message)");
                self.push_styled("! ", self.styles.warn);
                self.push_escaped(&cut(text), self.styles.warn);
                self.newline();
            }
            Kind::End => self.common_end(ev),
        }
    }

    /// One line per call, worded as cursor-agent's calls are (`calls::Call`), from the tool's
    /// kind: "Ran `cargo test` in 1.2 s", "Read file src/main.rs", "Failed: edit file x: …".
    fn common_tool_end(&mut self, ev: &vocab::Event<'_>) {
        let open = ev
            .call_id
            .as_deref()
            .and_then(|id| self.open.remove(crate::agents::id_prefix(id)));
        let name = ev.name.as_deref().unwrap_or("(none)");
        let kind: String = match &open {
            Some(o) => o.kind.to_string(),
            None => Excerpt(wording_kind(ev.tool_kind, name)).to_string(),
        };
        let subagent = open.as_ref().map_or(ev.parent.is_some(), |o| o.subagent);
        let took = ev.duration_ms.or(
            match (open.as_ref().and_then(|o| o.started_ms), ev.timestamp_ms) {
                (Some(a), Some(b)) if b >= a => Some(b - a),
                _ => None,
            },
        );
        let failed = ev.ok == Some(false);
        let call = Call {
            kind: &kind,
            target: open.as_ref().and_then(|o| o.target.as_deref()),
            outcome: Some(if failed { "error" } else { "success" }),
            exit_code: None,
            total_lines: None,
            took,
        };
        let sub = if subagent { "(subagent) " } else { "" };
        if self.opts.plain {
            // A command that ran and failed was still run, as cursor-agent's shell calls with a
            // non-zero exit code are.
            let shown = if failed && wording_is_shell(&kind) {
                Call {
                    outcome: Some("success"),
                    ..call
                }
                .plain()
            } else if !failed && !is_worded_plain(&kind) {
                // The agent's own name says more than a kind.
                Some(format!(
                    "Used tool {}",
                    escape_untrusted(&Excerpt(name).to_string())
                ))
            } else {
                call.plain()
            };
            if let Some(line) = shown {
                self.start(Block::Tool);
                self.push_styled(&format!("{sub}{line}"), None);
                self.newline();
            }
            return;
        }
        let (mut line, tone) = call.line();
        if failed && let Some(text) = ev.text.as_deref() {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            line.push_str(": ");
            line.push_str(&escape_untrusted(&cut(first)));
        }
        self.start(Block::Tool);
        self.push_styled("→ ", self.styles.dim);
        self.push_styled(sub, self.styles.dim);
        let style = match tone {
            Tone::Ok => None,
            Tone::Warn => self.styles.warn,
            Tone::Bad => self.styles.bad,
        };
        self.push_styled(&line, style);
        self.newline();
    }

    fn common_end(&mut self, ev: &vocab::Event<'_>) {
        self.unfinished_calls();
        let error = ev.ok == Some(false);
        let text = ev.text.as_deref().filter(|t| !t.is_empty());
        if !error
            && !self.text_shown
            && let Some(text) = text
        {
            self.start(Block::Text);
            self.push_lines(text, None);
        }
        if !self.opts.plain {
            self.start(Block::Result);
            let (mark, style) = if error {
                ("✗ error", self.styles.bad)
            } else {
                ("✓ success", self.styles.ok)
            };
            self.push_styled(mark, style);
            if let Some(ms) = ev.duration_ms {
                self.push_styled(&format!(" in {}", duration(ms)), None);
            }
            if let Some(t) = self.tokens {
                let tokens = format!(
                    " · tokens: {} in, {} out, {} cache read, {} cache write",
                    thousands(t.input),
                    thousands(t.output),
                    thousands(t.cache_read),
                    thousands(t.cache_write)
                );
                self.push_styled(&tokens, self.styles.dim);
            }
            if let Some(c) = ev.cost_usd {
                self.push_styled(&format!(" · ${c:.4}"), self.styles.dim);
            }
            if error && let Some(text) = text {
                self.push_styled(": ", None);
                self.push_escaped(&cut(text), style);
            }
            self.newline();
        }
        self.in_session = false;
        self.text_shown = false;
        self.tokens = None;
    }
}
