//! The transcript of every agent's stream but cursor-agent's, from their common events.
//!
//! This module owns the wording of the agent-neutral events the agents' checkers map their
//! records into (`session_start`, `user_prompt`, `assistant_text`, `thinking`, `tool_start`,
//! `tool_end`, `usage`, `error`, `end`), a subagent's text and calls marked as such. A call gets
//! one line, worded by what it does (`calls::Action`, from the event's tool kind and name), so
//! that every agent's transcript has the same shape, `--plain` included. It writes
//! through the renderer's own line handling, so the same escaping and blank lines apply; it
//! must not read records itself nor know one agent from another beyond its display name.

use super::calls::{Action, Call, Tone, common_target, cut, shown_name, target};
use super::{Block, Open, Renderer};
use crate::stats::duration;
use sjlint_core::agents::cursor::validate::TextHash;
use sjlint_core::text::{Excerpt, escape_untrusted, thousands};
use sjlint_core::vocab;
use std::io::Write;

/// Whether `name` is one of cursor-agent's tool kinds (`shellToolCall`): its calls' ends always
/// say how they went, so an end without `ok` had no result, and a failed command without an exit
/// code never ran. Read for the outcome only; the words are every agent's.
fn is_cursors(name: &str) -> bool {
    name.ends_with("ToolCall")
}

/// The transcript of every agent's stream but cursor-agent's, from their common events.
impl<W: Write> Renderer<'_, W> {
    pub(super) fn common_event(&mut self, ev: &vocab::Event<'_>) {
        use vocab::Kind;
        if ev.kind != Kind::End {
            self.in_session = true;
        }
        match ev.kind {
            Kind::SessionStart => self.common_session_start(ev),
            Kind::UserPrompt => self.common_prompt(ev),
            Kind::AssistantText => self.common_text(ev),
            Kind::Thinking => self.common_thinking(ev),
            Kind::ToolStart => self.common_tool_start(ev),
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

    /// The session's header: its id, model, working directory and agent (not in `plain`).
    fn common_session_start(&mut self, ev: &vocab::Event<'_>) {
        if self.opts.plain {
            return;
        }
        let mut line = "session".to_owned();
        if let Some(id) = &ev.session_id {
            line.push(' ');
            line.push_str(&escape_untrusted(id));
        }
        for part in [&ev.model, &ev.cwd].into_iter().flatten() {
            line.push_str(" · ");
            line.push_str(&escape_untrusted(part));
        }
        if let Some(a) = ev.agent.and_then(sjlint_core::agents::Agent::from_name) {
            line.push_str(" · ");
            line.push_str(a.display_name());
        }
        self.start(Block::Header);
        self.push_styled(&line, self.styles.header);
        self.newline();
    }

    /// The user's prompt, each of its lines quoted with `> ` (not in `plain`).
    fn common_prompt(&mut self, ev: &vocab::Event<'_>) {
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
            let sub = if i == 0 { subagent_mark(ev) } else { "" };
            if !(line.is_empty() && sub.is_empty()) {
                self.push_styled(" ", None);
                self.push_styled(sub, self.styles.dim);
                self.push_escaped(line, None);
            }
        }
        self.newline();
    }

    /// The assistant's text: the pieces of one message in one block, hashed so that a failed
    /// session's `end` that repeats it is not shown again.
    fn common_text(&mut self, ev: &vocab::Event<'_>) {
        let Some(text) = ev.text.as_deref().filter(|t| !t.is_empty()) else {
            return;
        };
        if !(ev.delta && self.last == Block::Text) {
            self.start(Block::Text);
            self.push_styled(subagent_mark(ev), self.styles.dim);
            self.message_hash = TextHash::default();
        }
        self.message_hash = self.message_hash.append(TextHash::of(text.as_bytes()));
        self.push_lines(text, None);
        self.text_shown = true;
    }

    /// A call starts: nothing is shown until it ends, but what its line will say of it is kept
    /// (within the budget of open calls; past it, its end is worded from the end alone).
    fn common_tool_start(&mut self, ev: &vocab::Event<'_>) {
        let Some(id) = ev.call_id.as_deref() else {
            return;
        };
        if self.open.len() >= self.open.max() {
            return;
        }
        let name = ev.name.as_deref().unwrap_or("(none)");
        let action = Action::of(ev.tool_kind, name);
        let target = ev
            .args
            .and_then(|a| target(action, a).or_else(|| common_target(a)))
            .or_else(|| ev.text.as_deref().map(cut));
        // A second start of an open id takes its place.
        self.open.insert(
            id,
            Open {
                action,
                name: shown_name(name).into(),
                target,
                started_ms: ev.timestamp_ms,
                line: ev.line,
                subagent: ev.parent.is_some(),
            },
        );
    }

    /// Thinking, shown on request: the pieces of one phase in one block (a bold heading starts a
    /// paragraph), a whole thought in a block of its own; a thinking event without text ends
    /// the phase ("· thought for 2.1 s").
    fn common_thinking(&mut self, ev: &vocab::Event<'_>) {
        if ev.text.is_none() && !ev.delta {
            if self.opts.thinking && self.last == Block::Thinking {
                self.end_line();
                let line = match ev.duration_ms {
                    Some(ms) => format!("· thought for {}", duration(ms)),
                    None => "· thought".to_owned(),
                };
                self.push_styled(&line, self.styles.dim);
                self.newline();
                // What follows starts a new block.
                self.last = Block::Marker;
            }
            return;
        }
        let mut text = ev.text.as_deref().unwrap_or_default();
        // A whole thought without text says nothing; a piece without text still opens the block.
        if !self.opts.thinking || (text.is_empty() && !ev.delta) {
            return;
        }
        if !(ev.delta && self.last == Block::Thinking) {
            self.start(Block::Thinking);
            self.push_styled("· thinking", self.styles.dim);
            self.newline();
        } else if let Some(heading) =
            Some(text.trim_start_matches('\n')).filter(|t| opens_heading(t))
        {
            // A heading starts a paragraph: the model writes its next one a single newline
            // after the last sentence (or none).
            while self.newlines < 2 {
                self.newline();
            }
            text = heading;
        }
        self.push_lines(text, self.styles.thinking);
        if !ev.delta {
            // A whole thought is a block of its own.
            self.last = Block::Marker;
        }
    }

    /// One line per call, worded by what it does (`calls::Call`): "Ran `cargo test` in 1.2 s",
    /// "Read file src/main.rs", "Failed: edit file x: …".
    fn common_tool_end(&mut self, ev: &vocab::Event<'_>) {
        let open = ev.call_id.as_deref().and_then(|id| self.open.take(id));
        let name = ev.name.as_deref().unwrap_or("(none)");
        // The end's own name, when it gives one (it may differ from the start's: a
        // `tool-kind-mismatch` of cursor-agent's is worded as it completed).
        let (action, shown): (Action, String) = match &open {
            Some(o) if name == "(none)" => (o.action, o.name.to_string()),
            _ => (Action::of(ev.tool_kind, name), shown_name(name)),
        };
        let subagent = open.as_ref().map_or(ev.parent.is_some(), |o| o.subagent);
        let took = ev.duration_ms.or(
            match (open.as_ref().and_then(|o| o.started_ms), ev.timestamp_ms) {
                (Some(a), Some(b)) if b >= a => Some(b - a),
                _ => None,
            },
        );
        let failed = ev.ok == Some(false);
        // A command that ran and exited non-zero was carried out: its line says the code.
        let ran = ev.exit_code.is_some_and(|c| c != 0);
        let outcome = if ev.rejected {
            Some("rejected")
        } else if failed && !ran {
            Some("error")
        } else if ev.ok.is_none() && ev.name.as_deref().is_some_and(is_cursors) {
            // cursor-agent wrote a `completed` without its result.
            None
        } else {
            Some("success")
        };
        let call = Call {
            action,
            name: &shown,
            target: open.as_ref().and_then(|o| o.target.as_deref()),
            outcome,
            exit_code: ev.exit_code,
            total_lines: ev.lines,
            took,
        };
        let sub = if subagent { "(subagent) " } else { "" };
        if self.opts.plain {
            // A command that ran and failed was still run, as cursor-agent's shell calls with a
            // non-zero exit code are.
            let shown = if is_cursors(name) || ev.rejected || ran {
                // cursor-agent's calls are worded by their own kinds, as its `text` format does.
                call.plain()
            } else if failed && action == Action::Shell {
                Call {
                    outcome: Some("success"),
                    ..call
                }
                .plain()
            } else if !failed && !action.is_worded_plain() {
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
        if outcome == Some("error")
            && let Some(text) = ev.text.as_deref()
        {
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
        let outcome = ev.outcome.unwrap_or(vocab::Outcome::of_ok(ev.ok));
        if outcome == vocab::Outcome::NoResult {
            // The end of the input says it, with the calls left open.
            return;
        }
        self.unfinished_calls();
        let error = ev.ok == Some(false) || !outcome.is_success();
        // A failed session's text that repeats its last message is not shown twice.
        let repeats = |t: &str| self.text_shown && TextHash::of(t.as_bytes()) == self.message_hash;
        let text = ev.text.as_deref().filter(|t| !t.is_empty() && !repeats(t));
        if !error
            && !self.text_shown
            && let Some(text) = text
        {
            self.start(Block::Text);
            self.push_lines(text, None);
        }
        if self.opts.plain {
            // The `text` format prints a failed run's message.
            if error && let Some(text) = text {
                self.start(Block::Text);
                self.push_lines(text, None);
            }
        } else {
            self.start(Block::Result);
            let (mark, style) = match outcome {
                vocab::Outcome::Completed => ("✓", self.styles.ok),
                vocab::Outcome::Denied | vocab::Outcome::Empty => ("!", self.styles.warn),
                _ => ("✗", self.styles.bad),
            };
            self.push_styled(&format!("{mark} {}", outcome.as_str()), style);
            if let Some(reason) = ev.reason.as_deref().filter(|r| *r != outcome.as_str()) {
                self.push_styled(" (", style);
                self.push_escaped(&cut(reason), style);
                self.push_styled(")", style);
            }
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
            match (outcome, ev.denied) {
                (vocab::Outcome::Empty, _) => {
                    self.push_styled(": no tool call, no text", style);
                }
                (_, Some(n)) if n > 0 => {
                    let calls = if n == 1 { "call" } else { "calls" };
                    self.push_styled(
                        &format!(" · {} tool {calls} refused permission", thousands(n)),
                        style,
                    );
                }
                _ => {}
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

/// What marks the text and calls of a subagent.
fn subagent_mark(ev: &vocab::Event<'_>) -> &'static str {
    if ev.parent.is_some() {
        "(subagent) "
    } else {
        ""
    }
}

/// Whether a thinking delta opens a bold heading (`**Planning the fix**`): `**` and then a
/// word, not the `**` that closes a heading begun in the delta before.
fn opens_heading(text: &str) -> bool {
    text.strip_prefix("**")
        .and_then(|rest| rest.chars().next())
        .is_some_and(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::super::RenderOptions;
    use super::super::tests::rendered;

    /// cursor-agent's partial output: the deltas once, the flush that repeats them adds nothing.
    #[test]
    fn partial_output_is_merged_and_escaped() {
        let input = [
            r#"{"type":"system","subtype":"init","session_id":"s","model":"M","cwd":"/w"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi\nthere \u001b[31m"}]},"session_id":"s"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hel"}]},"session_id":"s","timestamp_ms":1}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"lo\n\u001b[2J"}]},"session_id":"s","timestamp_ms":2}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello\n\u001b[2J"}]},"session_id":"s"}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":1234,"result":"Hello\n\u001b[2J","session_id":"s"}"#,
        ]
        .join("\n");
        let out = rendered(&input, RenderOptions::default());
        assert_eq!(
            out,
            "session s · M · /w · cursor-agent\n\n> hi\n> there \\u{1b}[31m\n\nHello\n\\u{1b}[2J\n\n✓ completed in 1.2 s\n"
        );
        assert!(!out.contains('\u{1b}'));
    }

    #[test]
    fn tool_lines_say_what_how_and_how_long() {
        let input = [
            r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"shellToolCall":{"args":{"command":"pytest -q"}}},"timestamp_ms":1000}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"b","tool_call":{"readToolCall":{"args":{"path":"src/cart.py"}}},"timestamp_ms":1000}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"b","tool_call":{"readToolCall":{"args":{"path":"src/cart.py"},"result":{"success":{"totalLines":54}}}},"timestamp_ms":1010}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"a","tool_call":{"shellToolCall":{"args":{"command":"pytest -q"},"result":{"success":{"exitCode":1}}}},"timestamp_ms":1800}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"rm -rf /\nx"}}}}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"rejected":{"reason":""}}}}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"d","tool_call":{"grepToolCall":{"args":{"pattern":"TODO","path":"src"}}}}"#,
        ]
        .join("\n");
        let out = rendered(&input, RenderOptions::default());
        // No `system`/`init`: the session still opens, under the agent's name.
        assert_eq!(
            out,
            "session · cursor-agent\n\n\
             → Read file src/cart.py (54 lines) in 10 ms\n\
             → Ran `pytest -q`: exit 1 in 0.8 s\n\
             → Rejected: run `rm -rf /\\nx`\n\
             → Never completed: search for `TODO` under src\n\
             \n! the stream ends before the session's result\n"
        );
        let plain = rendered(
            &input,
            RenderOptions {
                plain: true,
                ..RenderOptions::default()
            },
        );
        assert_eq!(plain, "Read file\nRan terminal command\n");
    }
}
