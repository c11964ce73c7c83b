//! `sjlint render`: a readable transcript of a stream, written as the stream is read.
//!
//! This module owns the [`Renderer`] (a [`Consumer`] of the event stream) and the wording of its
//! lines: the session header, the user prompt, the assistant text with partial-output deltas
//! merged (see [`merge`]), one line per tool call, thinking on request, the result. With
//! `plain`, it writes the wording of the `text` output format of cursor-agent as seed 000
//! describes it instead.
//!
//! Everything shown comes from the input and is untrusted: it goes through
//! [`escape_untrusted`], except that newlines inside assistant and thinking text stay real
//! newlines (and a prompt keeps its lines, each quoted with `> `). Memory is bounded: one entry
//! per open tool call and a hash of the deltas not yet flushed, nothing per record. It must not
//! open files nor decide exit codes; `commands` does.

mod calls;
mod ci_log;
mod common_events;
mod merge;

use crate::agents::common;
use crate::check::{self, Consumer};
use crate::event::Event;
use crate::input::record::{Position, Record};
use crate::pairing;
use crate::stats::duration;
use crate::text::Excerpt;
use crate::text::{escape_untrusted, thousands};
use calls::{Call, Tone, target};
use ci_log::no_command;
use merge::{Piece, TextMerge};
use owo_colors::Style;
use serde::Deserialize;
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{self, Read, Write};

/// How to render.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// Show thinking text (never in `plain`).
    pub thinking: bool,
    /// The `text` output format's wording: assistant text and one line per action.
    pub plain: bool,
    pub color: bool,
}

/// Renders the stream `reader` holds onto `out`, under a `header` line when several inputs are
/// rendered. `live` flushes `out` after every record (a pipe from a running agent).
///
/// A write error on `out` (a closed stdout) stops reading at the next refill of the input and
/// is returned; so is a read error of the input.
pub fn render<R: Read, W: Write>(
    reader: R,
    out: W,
    header: Option<&str>,
    opts: &RenderOptions,
    check_opts: &check::CheckOptions,
    live: bool,
) -> io::Result<()> {
    let stop = Cell::new(false);
    let reader = StopReader {
        inner: reader,
        stop: &stop,
    };
    let mut r = Renderer::new(out, *opts, &stop);
    r.live = live;
    r.max_open = check_opts.max_open_calls.max(1);
    if let Some(header) = header {
        r.file_header(header);
    }
    let read = check::check_with(reader, check_opts, &mut |_| Ok(()), &mut r);
    r.finish();
    match r.error.take() {
        Some(e) => Err(e),
        None => read.map(|_| ()),
    }
}

/// A reader that ends the input early once `stop` is raised: nobody is reading the transcript.
struct StopReader<'s, R> {
    inner: R,
    stop: &'s Cell<bool>,
}

impl<R: Read> Read for StopReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.get() {
            return Ok(0);
        }
        self.inner.read(buf)
    }
}

/// The kind of the last thing written, to separate blocks with a blank line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Nothing,
    Header,
    Prompt,
    Text,
    Thinking,
    Tool,
    Marker,
    Result,
}

/// A tool call started and not yet completed.
struct Open {
    kind: Box<str>,
    /// The target as shown (escaped, cut), from the `started` args.
    target: Option<String>,
    started_ms: Option<u64>,
    line: u64,
}

/// The styles in use; all `None` without colour.
#[derive(Default)]
struct Styles {
    header: Option<Style>,
    prompt: Option<Style>,
    dim: Option<Style>,
    thinking: Option<Style>,
    ok: Option<Style>,
    warn: Option<Style>,
    bad: Option<Style>,
}

impl Styles {
    fn new(color: bool) -> Styles {
        if !color {
            return Styles::default();
        }
        Styles {
            header: Some(Style::new().bold()),
            prompt: Some(Style::new().cyan().bold()),
            dim: Some(Style::new().dimmed()),
            thinking: Some(Style::new().dimmed().italic()),
            ok: Some(Style::new().green().bold()),
            warn: Some(Style::new().yellow()),
            bad: Some(Style::new().red()),
        }
    }
}

/// Writes the transcript as events arrive; see the module documentation.
pub struct Renderer<'s, W: Write> {
    out: W,
    opts: RenderOptions,
    styles: Styles,
    live: bool,
    /// The first write error; nothing more is written after it and `stop` is raised.
    error: Option<io::Error>,
    stop: &'s Cell<bool>,
    /// The output of the current record, written at once.
    buf: String,
    last: Block,
    /// Newlines at the end of what was written: 0 inside a line, 1 at a line start, 2 after a
    /// blank line.
    newlines: u8,
    text: TextMerge,
    /// Open calls by `pairing::key_of` their id, at most `max_open` of them.
    open: HashMap<Box<str>, Open>,
    max_open: usize,
    scratch: String,
    /// Events seen in the current session (reset by its `result`).
    in_session: bool,
    /// Assistant text was shown in the current session.
    text_shown: bool,
    /// `timestamp_ms` of the first delta of the thinking phase under way, and whether one is.
    thinking: Option<Option<u64>>,
}

impl<'s, W: Write> Renderer<'s, W> {
    fn new(out: W, opts: RenderOptions, stop: &'s Cell<bool>) -> Self {
        Renderer {
            out,
            styles: Styles::new(opts.color && !opts.plain),
            opts: RenderOptions {
                thinking: opts.thinking && !opts.plain,
                ..opts
            },
            live: false,
            error: None,
            stop,
            buf: String::new(),
            last: Block::Nothing,
            newlines: 2,
            text: TextMerge::default(),
            open: HashMap::new(),
            max_open: crate::pairing::DEFAULT_MAX_OPEN_CALLS,
            scratch: String::new(),
            in_session: false,
            text_shown: false,
            thinking: None,
        }
    }

    /// Writes `buf` out.
    fn flush_buf(&mut self, force: bool) {
        if self.error.is_none() {
            let mut r = self.out.write_all(self.buf.as_bytes());
            if r.is_ok() && (force || self.live) {
                r = self.out.flush();
            }
            if let Err(e) = r {
                self.error = Some(e);
                self.stop.set(true);
            }
        }
        self.buf.clear();
    }

    fn push_styled(&mut self, s: &str, style: Option<Style>) {
        if s.is_empty() {
            return;
        }
        match style {
            Some(style) => {
                use std::fmt::Write as _;
                let _ = write!(self.buf, "{}", style.style(s));
            }
            None => self.buf.push_str(s),
        }
        self.newlines = 0;
    }

    /// Untrusted text, escaped whole (newlines too); at the start of a line, never the `::` of a
    /// workflow command.
    fn push_escaped(&mut self, s: &str, style: Option<Style>) {
        let escaped = escape_untrusted(s);
        match self.newlines > 0 {
            true => self.push_styled(&no_command(&escaped), style),
            false => self.push_styled(&escaped, style),
        }
    }

    /// Untrusted text whose newlines stay newlines; everything else is escaped.
    fn push_lines(&mut self, s: &str, style: Option<Style>) {
        for (i, part) in s.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            self.push_escaped(part, style);
        }
    }

    fn newline(&mut self) {
        self.buf.push('\n');
        self.newlines = self.newlines.saturating_add(1).min(2);
    }

    fn end_line(&mut self) {
        if self.newlines == 0 {
            self.newline();
        }
    }

    /// Starts a block of `kind`: on a fresh line, after a blank line unless it goes on a group of
    /// tool lines or markers (`plain` has no blank lines).
    fn start(&mut self, kind: Block) {
        self.end_line();
        let groups = matches!(kind, Block::Tool | Block::Marker) && self.last == kind;
        if !(self.opts.plain || self.last == Block::Nothing || groups) {
            while self.newlines < 2 {
                self.newline();
            }
        }
        self.last = kind;
    }

    fn file_header(&mut self, name: &str) {
        self.start(Block::Header);
        let line = format!("==> {} <==", escape_untrusted(name));
        self.push_styled(&line, self.styles.header);
        self.newline();
        self.flush_buf(false);
    }

    /// The end of the input: calls that never completed, a session left without result.
    fn finish(&mut self) {
        self.unfinished_calls();
        if self.in_session && !self.opts.plain {
            self.start(Block::Marker);
            let warn = self.styles.warn;
            self.push_styled("! the stream ends before the session's result", warn);
            self.newline();
        }
        self.end_line();
        self.flush_buf(true);
    }

    fn init(&mut self, json: &str, ev: &Event<'_>) {
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

    fn user(&mut self, ev: &Event<'_>) {
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

    fn assistant(&mut self, ev: &Event<'_>) {
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

    fn thinking_delta(&mut self, ev: &Event<'_>) {
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

    fn thinking_completed(&mut self, ev: &Event<'_>) {
        let since = self.thinking.take();
        if !self.opts.thinking || self.last != Block::Thinking {
            return;
        }
        self.end_line();
        let dim = self.styles.dim;
        match (since.flatten(), ev.timestamp_ms.as_millis()) {
            (Some(start), Some(end)) if end >= start => {
                self.push_styled(&format!("· thought for {}", duration(end - start)), dim)
            }
            _ => self.push_styled("· thought", dim),
        }
        self.newline();
        // What follows starts a new block.
        self.last = Block::Marker;
    }

    fn started(&mut self, rec: &Record<'_>, ev: &Event<'_>) {
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
        };
        self.open
            .insert(pairing::key_of(id, &mut self.scratch).into(), open);
    }

    fn completed(&mut self, ev: &Event<'_>) {
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

    /// Lines for the calls of the session that never completed, in the order they started.
    fn unfinished_calls(&mut self) {
        let mut open: Vec<Open> = self.open.drain().map(|(_, o)| o).collect();
        if self.opts.plain {
            return;
        }
        open.sort_by_key(|o| o.line);
        for o in open {
            let call = Call {
                kind: &o.kind,
                target: o.target.as_deref(),
                outcome: None,
                exit_code: None,
                total_lines: None,
                took: None,
            };
            self.start(Block::Tool);
            self.push_styled("→ ", self.styles.dim);
            let line = format!("Never completed: {}", call.action(false));
            self.push_styled(&line, self.styles.warn);
            self.newline();
        }
    }

    fn result(&mut self, ev: &Event<'_>) {
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

    fn marker(&mut self, pos: Position, bytes: &[u8]) {
        self.start(Block::Marker);
        let what = if bytes.is_empty() {
            "a record too large to read"
        } else {
            "not a valid event"
        };
        let line = format!(
            "! line {}: {what}; skipped (`sjlint check` says why)",
            pos.line
        );
        self.push_styled(&line, self.styles.warn);
        self.newline();
    }
}

impl<W: Write> Consumer for Renderer<'_, W> {
    fn event(&mut self, rec: &Record<'_>, json: &str, ev: &Event<'_>) {
        let ty = ev.ty.as_str();
        let subtype = ev.subtype.as_str();
        if ty != Some("result") {
            self.in_session = true;
        }
        if ty != Some("thinking") {
            self.thinking = None;
        }
        match (ty, subtype) {
            (Some("system"), Some("init")) => self.init(json, ev),
            (Some("user"), _) => self.user(ev),
            (Some("assistant"), _) => self.assistant(ev),
            (Some("thinking"), Some("delta")) => self.thinking_delta(ev),
            (Some("thinking"), Some("completed")) => self.thinking_completed(ev),
            (Some("tool_call"), Some("started")) => self.started(rec, ev),
            (Some("tool_call"), Some("completed")) => self.completed(ev),
            (Some("result"), _) => self.result(ev),
            // Queries are shown through the calls they decide; unknown events are left out.
            _ => {}
        }
        self.flush_buf(false);
    }

    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        self.marker(pos, bytes);
        self.flush_buf(false);
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &common::Event<'_>) {
        self.common_event(ev);
        self.flush_buf(false);
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
    use super::*;

    fn rendered(input: &str, opts: RenderOptions) -> String {
        let mut out = Vec::new();
        render(
            input.as_bytes(),
            &mut out,
            None,
            &opts,
            &check::CheckOptions::default(),
            false,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

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

    #[test]
    fn invalid_records_get_a_marker() {
        let out = rendered("{\"type\":\"user\"}\nnot json\n", RenderOptions::default());
        assert!(out.contains("! line 2: not a valid event"), "{out}");
    }

    /// A writer whose reader went away.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_output_stops_reading() {
        /// Endless input: one user event after another.
        struct Endless(usize);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.0 += 1;
                assert!(self.0 < 1000, "kept reading after the output closed");
                let line = b"{\"type\":\"user\",\"message\":{\"content\":[{\"text\":\"x\"}]}}\n";
                let n = line.len().min(buf.len());
                buf[..n].copy_from_slice(&line[..n]);
                Ok(n)
            }
        }
        let err = render(
            Endless(0),
            Closed,
            None,
            &RenderOptions::default(),
            &check::CheckOptions::default(),
            false,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
