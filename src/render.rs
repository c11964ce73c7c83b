//! `sjlint render`: a readable transcript of a stream, written as the stream is read.
//!
//! This module owns the [`Renderer`] (a [`Consumer`] of the event stream) and the wording of its
//! lines: the session header, the user prompt, the assistant text with partial-output deltas
//! merged (see `TextMerge`), one line per tool call, thinking on request, the result. With
//! `plain`, it writes the wording of the `text` output format of cursor-agent as seed 000
//! describes it instead.
//!
//! Everything shown comes from the input and is untrusted: it goes through
//! [`escape_untrusted`], except that newlines inside assistant and thinking text stay real
//! newlines (and a prompt keeps its lines, each quoted with `> `). Memory is bounded: one entry
//! per open tool call and a hash of the deltas not yet flushed, nothing per record. It must not
//! open files nor decide exit codes; `commands` does.

use crate::agents::common;
use crate::check::{self, Consumer};
use crate::event::Event;
use crate::input::record::{Position, Record};
use crate::pairing;
use crate::stats::duration;
use crate::text::Excerpt;
use crate::text::{escape_untrusted, thousands};
use crate::validate::TextHash as Poly;
use owo_colors::Style;
use serde::Deserialize;
use serde_json::value::RawValue;
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

/// Tool call targets longer than this many characters are cut, so a call stays one line.
const MAX_TARGET_CHARS: usize = 120;

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

/// What an assistant event is, by the fields real runs set (FORMAT.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// `timestamp_ms` and no `model_call_id`: a `--stream-partial-output` token delta.
    Delta,
    /// Neither field: a final message, or a flush repeating the deltas since the last flush.
    Flush,
    /// `model_call_id`: a segment before tool calls.
    Segment,
}

impl Piece {
    fn of(ev: &Event<'_>) -> Piece {
        match (ev.timestamp_ms.is_present(), ev.model_call_id.is_present()) {
            (_, true) => Piece::Segment,
            (true, false) => Piece::Delta,
            (false, false) => Piece::Flush,
        }
    }
}

/// Merges partial-output deltas with the flush that repeats them, in constant memory: only a
/// hash of the deltas since the last flush is kept.
#[derive(Default)]
struct TextMerge {
    pending: Poly,
}

impl TextMerge {
    /// The part of `text` still to show, and whether it continues the text shown just before
    /// (`false`: it starts a new paragraph).
    fn push<'t>(&mut self, text: &'t str, piece: Piece) -> (&'t str, bool) {
        match piece {
            Piece::Delta => {
                let continues = self.pending.len > 0;
                self.pending = self.pending.append(Poly::of(text.as_bytes()));
                (text, continues)
            }
            Piece::Flush | Piece::Segment => {
                let pending = std::mem::take(&mut self.pending);
                let n = pending.len as usize;
                let repeats = piece == Piece::Flush
                    && n > 0
                    && text.is_char_boundary(n.min(text.len()))
                    && text.len() >= n
                    && Poly::of(&text.as_bytes()[..n]) == pending;
                if repeats {
                    (&text[n..], true)
                } else {
                    (text, false)
                }
            }
        }
    }
}

/// `line`, which starts a line of the transcript, with the colon that would begin `::` escaped
/// as `\u{3a}`: a GitHub Actions runner takes a log line that begins with `::` (after blanks) for
/// a workflow command, so a transcript shown in a job log could otherwise set outputs, add
/// annotations or stop command processing. A lone `:` is escaped too, since the next piece of
/// text may bring the second one.
fn no_command(line: &str) -> Cow<'_, str> {
    let blanks = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[blanks..];
    if rest == ":" || rest.starts_with("::") {
        Cow::Owned(format!("{}\\u{{3a}}{}", &line[..blanks], &rest[1..]))
    } else {
        Cow::Borrowed(line)
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

/// The transcript of Claude Code, Codex and Gemini CLI streams, from their common events.
impl<W: Write> Renderer<'_, W> {
    fn common_event(&mut self, ev: &common::Event<'_>) {
        use common::Kind;
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
            Kind::Usage => {}
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

    fn common_tool_end(&mut self, ev: &common::Event<'_>) {
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

    fn common_end(&mut self, ev: &common::Event<'_>) {
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
    }
}

/// What a tool call of another agent acts on: the first of the argument keys that name it.
fn common_target(args: &RawValue) -> Option<String> {
    let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(args.get()).ok()?;
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

impl<'a> Loose<'a> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

/// The target a line names for a call of `kind` with `args`, escaped and cut to one line:
/// `` `command` `` for a shell call, a path, `` `pattern` in path ``, a query, a URL.
fn target(kind: &str, args: &RawValue) -> Option<String> {
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
        "shellToolCall" => code(a.command.get()?),
        "grepToolCall" | "globToolCall" => match (pattern, path) {
            (Some(p), Some(dir)) => format!("{} under {}", code(p), cut(dir)),
            (Some(p), None) => code(p),
            (None, Some(dir)) => cut(dir),
            (None, None) => return None,
        },
        "webSearchToolCall" | "semSearchToolCall" => code(query?),
        "webFetchToolCall" => cut(a.url.get()?),
        "mcpToolCall" => cut(a.tool_name.get().or(a.name.get())?),
        _ => match (a.command.get(), path, pattern, query, a.url.get()) {
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
fn cut(s: &str) -> String {
    let escaped = escape_untrusted(s);
    match escaped.char_indices().nth(MAX_TARGET_CHARS) {
        Some((i, _)) => format!("{}…", &escaped[..i]),
        None => escaped.into_owned(),
    }
}

/// How a tool call line is coloured.
enum Tone {
    Ok,
    Warn,
    Bad,
}

/// One finished tool call, as its line describes it.
struct Call<'a> {
    kind: &'a str,
    target: Option<&'a str>,
    outcome: Option<&'a str>,
    exit_code: Option<i64>,
    total_lines: Option<u64>,
    took: Option<u64>,
}

impl Call<'_> {
    /// What the call does: "Read file src/cart.py" when `done`, "read file src/cart.py" as a
    /// plan (for a rejected or failed call).
    fn action(&self, done: bool) -> String {
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
    fn line(&self) -> (String, Tone) {
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
    fn plain(&self) -> Option<String> {
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

    fn merged(pieces: &[(&str, Piece)]) -> Vec<(String, bool)> {
        let mut m = TextMerge::default();
        pieces
            .iter()
            .map(|(t, p)| {
                let (s, c) = m.push(t, *p);
                (s.to_owned(), c)
            })
            .collect()
    }

    #[test]
    fn a_flush_repeating_the_deltas_shows_nothing_new() {
        let out = merged(&[
            ("Hel", Piece::Delta),
            ("lo", Piece::Delta),
            ("Hello", Piece::Flush),
        ]);
        assert_eq!(
            out,
            vec![
                ("Hel".into(), false),
                ("lo".into(), true),
                ("".into(), true)
            ]
        );
    }

    #[test]
    fn a_flush_longer_than_the_deltas_shows_the_rest() {
        let out = merged(&[("Hé", Piece::Delta), ("Héllo!", Piece::Flush)]);
        assert_eq!(out[1], ("llo!".into(), true));
    }

    #[test]
    fn a_flush_that_differs_is_shown_whole_as_a_new_paragraph() {
        let out = merged(&[("abc", Piece::Delta), ("xyz!", Piece::Flush)]);
        assert_eq!(out[1], ("xyz!".into(), false));
        // Shorter than the deltas, and cut inside a character.
        let out = merged(&[("abcdef", Piece::Delta), ("ab", Piece::Flush)]);
        assert_eq!(out[1], ("ab".into(), false));
        let out = merged(&[("a", Piece::Delta), ("é", Piece::Flush)]);
        assert_eq!(out[1], ("é".into(), false));
    }

    #[test]
    fn without_deltas_every_message_is_its_own_paragraph() {
        let out = merged(&[
            ("I'll run it.", Piece::Segment),
            ("done", Piece::Flush),
            ("again", Piece::Flush),
        ]);
        assert!(out.iter().all(|(_, continues)| !continues));
        assert_eq!(out[1].0, "done");
    }

    #[test]
    fn deltas_after_a_flush_start_over() {
        let out = merged(&[
            ("a", Piece::Delta),
            ("a", Piece::Flush),
            ("b", Piece::Delta),
            ("c", Piece::Delta),
            ("bc", Piece::Flush),
        ]);
        assert_eq!(out[2], ("b".into(), false));
        assert_eq!(out[3], ("c".into(), true));
        assert_eq!(out[4], ("".into(), true));
    }

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
