//! The transcript of Claude Code, Codex and Gemini CLI streams, from their common events.
//!
//! This module owns the wording of the agent-neutral events these agents' checkers map their
//! records into (`session_start`, `user_prompt`, `assistant_text`, `thinking`, `tool_start`,
//! `tool_end`, `usage`, `error`, `end`), a subagent's text and calls marked as such. It writes
//! through the renderer's own line handling, so the same escaping and blank lines apply; it
//! must not read records itself nor know one agent from another beyond its display name.

use super::calls::{common_target, cut};
use super::{Block, Open, Renderer};
use crate::stats::duration;
use crate::text::{escape_untrusted, thousands};
use crate::vocab;
use std::io::Write;

/// The transcript of Claude Code, Codex and Gemini CLI streams, from their common events.
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
                if self.open.len() >= crate::agents::MAX_OPEN_CALLS {
                    return;
                }
                let name = ev.name.as_deref().unwrap_or("(none)");
                let target = ev
                    .text
                    .as_deref()
                    .map(cut)
                    .or_else(|| ev.args.and_then(common_target));
                self.open.insert(
                    crate::agents::id_prefix(id).into(),
                    Open {
                        kind: format!("{sub}{name}").into(),
                        target,
                        started_ms: ev.timestamp_ms,
                        line: ev.line,
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

    fn common_tool_end(&mut self, ev: &vocab::Event<'_>) {
        let open = ev
            .call_id
            .as_deref()
            .and_then(|id| self.open.remove(crate::agents::id_prefix(id)));
        if self.opts.plain {
            return;
        }
        let name = match &open {
            Some(o) => o.kind.to_string(),
            None => ev.name.as_deref().unwrap_or("(none)").to_owned(),
        };
        let took = ev.duration_ms.or(
            match (open.as_ref().and_then(|o| o.started_ms), ev.timestamp_ms) {
                (Some(a), Some(b)) if b >= a => Some(b - a),
                _ => None,
            },
        );
        let mut line = escape_untrusted(&name).into_owned();
        if let Some(t) = open.as_ref().and_then(|o| o.target.as_deref()) {
            line.push(' ');
            line.push_str(&escape_untrusted(t));
        }
        let failed = ev.ok == Some(false);
        line.push_str(if failed { " ✗" } else { " ✓" });
        if let Some(ms) = took {
            line.push_str(&format!(" ({})", duration(ms)));
        }
        if failed && let Some(text) = ev.text.as_deref() {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            line.push_str(": ");
            line.push_str(&escape_untrusted(&cut(first)));
        }
        self.start(Block::Tool);
        self.push_styled("→ ", self.styles.dim);
        let style = if failed { self.styles.bad } else { None };
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
