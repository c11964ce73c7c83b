//! The transcript of cursor-agent streams, from the canonical event view.
//!
//! This module owns the wording of the events of the canonical view (whatever dialect a record
//! was written in): the session header of `system`/`init`, the user prompt, assistant text with
//! its partial-output deltas merged, thinking with its duration, one line per finished tool
//! call (paired with its `started` by id, within the renderer's bound on open calls), and the
//! result with its tokens. It writes through the renderer's own line handling, so the same
//! escaping and blank lines apply; it must not read the input nor keep anything per record
//! beyond the open calls.

use super::calls::{Call, Tone, target};
use super::merge::{Piece, TextMerge};
use super::{Block, Open, Renderer};
use crate::event::Event;
use crate::input::record::Record;
use crate::pairing;
use crate::stats::duration;
use crate::text::{Excerpt, escape_untrusted, thousands};
use serde::Deserialize;
use std::borrow::Cow;
use std::io::Write;

/// The canonical events of cursor-agent and its dialects.
impl<W: Write> Renderer<'_, W> {
    pub(super) fn init(&mut self, json: &str, ev: &Event<'_>) {
        if self.opts.plain {
            return;
        }
        /// The fields of `system`/`init` the header shows (the event view does not keep them).
        #[derive(Deserialize)]
        struct Init<'a> {
            #[serde(borrow)]
            model: Option<Cow<'a, str>>,
            #[serde(borrow)]
            cwd: Option<Cow<'a, str>>,
        }
        let init: Option<Init<'_>> = serde_json::from_str(json).ok();
        let mut line = "session".to_owned();
        if let Some(id) = ev.session_id.as_str() {
            line.push(' ');
            line.push_str(&escape_untrusted(id));
        }
        if let Some(init) = init {
            for part in [init.model, init.cwd].into_iter().flatten() {
                line.push_str(" · ");
                line.push_str(&escape_untrusted(&part));
            }
        }
        self.start(Block::Header);
        self.push_styled(&line, self.styles.header);
        self.newline();
    }

    pub(super) fn user(&mut self, ev: &Event<'_>) {
        if self.opts.plain {
            return;
        }
        let Some(text) = ev.message.text.as_deref() else {
            return;
        };
        self.start(Block::Prompt);
        let style = self.styles.prompt;
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            self.push_styled(">", style);
            if !line.is_empty() {
                self.push_styled(" ", None);
                self.push_escaped(line, None);
            }
        }
        self.newline();
    }

    pub(super) fn assistant(&mut self, ev: &Event<'_>) {
        let Some(text) = ev.message.text.as_deref() else {
            return;
        };
        let (shown, continues) = self.text.push(text, Piece::of(ev));
        if shown.is_empty() {
            return;
        }
        if !(continues && self.last == Block::Text) {
            self.start(Block::Text);
        }
        self.push_lines(shown, None);
        self.text_shown = true;
    }

    pub(super) fn thinking_delta(&mut self, ev: &Event<'_>) {
        self.thinking.get_or_insert(ev.timestamp_ms.as_millis());
        if !self.opts.thinking {
            return;
        }
        let mut text = ev.text.as_str();
        if self.last != Block::Thinking {
            self.start(Block::Thinking);
            self.push_styled("· thinking", self.styles.dim);
            self.newline();
        } else if let Some(heading) = text
            .map(|t| t.trim_start_matches('\n'))
            .filter(|t| opens_heading(t))
        {
            // A heading starts a paragraph: the model writes its next one a single newline
            // after the last sentence (or none).
            while self.newlines < 2 {
                self.newline();
            }
            text = Some(heading);
        }
        if let Some(text) = text {
            self.push_lines(text, self.styles.thinking);
        }
    }

    pub(super) fn thinking_completed(&mut self, ev: &Event<'_>) {
        let since = self.thinking.take();
        if !self.opts.thinking || self.last != Block::Thinking {
            return;
        }
        self.end_line();
        let dim = self.styles.dim;
        match (since.flatten(), ev.timestamp_ms.as_millis()) {
            (Some(start), Some(end)) if end >= start => {
                self.push_styled(&format!("· thought for {}", duration(end - start)), dim);
            }
            _ => self.push_styled("· thought", dim),
        }
        self.newline();
        // What follows starts a new block.
        self.last = Block::Marker;
    }

    pub(super) fn started(&mut self, rec: &Record<'_>, ev: &Event<'_>) {
        let Some(id) = ev.call_id.as_str() else {
            return;
        };
        // Past the budget a call is not kept: its completion is shown without its start.
        if self.open.len() >= self.max_open {
            return;
        }
        let kind = ev.tool_call.kind.as_deref().unwrap_or("(none)");
        let open = Open {
            // A bounded excerpt: the kind is kept for display only.
            kind: Excerpt(kind).to_string().into(),
            target: ev.tool_call.args.and_then(|a| target(kind, a)),
            started_ms: ev.timestamp_ms.as_millis(),
            line: rec.pos.line,
            subagent: false,
        };
        self.open
            .insert(pairing::key_of(id, &mut self.scratch).into(), open);
    }

    pub(super) fn completed(&mut self, ev: &Event<'_>) {
        let open = ev
            .call_id
            .as_str()
            .and_then(|id| self.open.remove(pairing::key_of(id, &mut self.scratch)));
        let kind: Cow<'_, str> = match (&ev.tool_call.kind, &open) {
            (Some(k), _) => Cow::Borrowed(k),
            (None, Some(o)) => Cow::Owned(o.kind.to_string()),
            (None, None) => Cow::Borrowed("(none)"),
        };
        // A rejected call's `completed` may omit `args`: the `started` ones name the target.
        let target = ev
            .tool_call
            .args
            .and_then(|args| target(&kind, args))
            .or_else(|| open.as_ref().and_then(|o| o.target.clone()));
        let took = match (
            open.as_ref().and_then(|o| o.started_ms),
            ev.timestamp_ms.as_millis(),
        ) {
            (Some(start), Some(end)) if end >= start => Some(end - start),
            _ => None,
        };
        let call = Call {
            kind: &kind,
            target: target.as_deref(),
            outcome: ev.tool_call.outcome.as_deref(),
            exit_code: ev.tool_call.exit_code,
            total_lines: ev.tool_call.total_lines,
            took,
        };
        if self.opts.plain {
            if let Some(line) = call.plain() {
                self.start(Block::Tool);
                self.push_styled(&line, None);
                self.newline();
            }
            return;
        }
        let (line, style) = call.line();
        self.start(Block::Tool);
        self.push_styled("→ ", self.styles.dim);
        let style = match style {
            Tone::Ok => None,
            Tone::Warn => self.styles.warn,
            Tone::Bad => self.styles.bad,
        };
        self.push_styled(&line, style);
        self.newline();
    }

    pub(super) fn result(&mut self, ev: &Event<'_>) {
        self.unfinished_calls();
        let error = match ev.is_error.as_bool() {
            Some(e) => e,
            None => ev.subtype.as_str() == Some("error"),
        };
        let text = ev.result.as_str().filter(|t| !t.is_empty());
        // The `--output-format json` form, or a session whose text was never streamed.
        if !error
            && !self.text_shown
            && let Some(text) = text
        {
            self.start(Block::Text);
            self.push_lines(text, None);
        }
        if self.opts.plain {
            if error && let Some(text) = text {
                self.start(Block::Text);
                self.push_lines(text, None);
            }
        } else {
            self.start(Block::Result);
            let (mark, style) = if error {
                ("✗ error", self.styles.bad)
            } else {
                ("✓ success", self.styles.ok)
            };
            self.push_styled(mark, style);
            if let Some(ms) = ev.duration_ms.as_millis() {
                self.push_styled(&format!(" in {}", duration(ms)), None);
            }
            let u = &ev.usage;
            if u.shape == Some(crate::event::JsonType::Object) {
                let n = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), thousands);
                let tokens = format!(
                    " · tokens: {} in, {} out, {} cache read, {} cache write",
                    n(u.input_tokens),
                    n(u.output_tokens),
                    n(u.cache_read_tokens),
                    n(u.cache_write_tokens)
                );
                self.push_styled(&tokens, self.styles.dim);
            }
            if error && let Some(text) = text {
                self.push_styled(": ", None);
                self.push_escaped(text, style);
            }
            self.newline();
        }
        self.in_session = false;
        self.text_shown = false;
        self.text = TextMerge::default();
        self.thinking = None;
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
            "session s · M · /w\n\n> hi\n> there \\u{1b}[31m\n\nHello\n\\u{1b}[2J\n\n✓ success in 1.2 s\n"
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
        assert_eq!(
            out,
            "→ Read file src/cart.py (54 lines) in 10 ms\n\
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
