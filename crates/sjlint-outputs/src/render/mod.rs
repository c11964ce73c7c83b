//! `sjlint render`: a readable transcript of a stream, written as the stream is read.
//!
//! This module owns the [`Renderer`] (a [`Consumer`] of the event stream) and the layout of its
//! output: blocks separated by blank lines, styles, escaping at the point of writing, flushing,
//! the end of reading once nobody reads the output, and the markers for invalid records and for
//! what the input left unfinished. What is true of the whole input (no agent sjlint knows, no
//! event at all, one pretty-printed document) is said once, up front, as `check` says it: an
//! input of plain text gets that one line instead of a marker per line. What the lines say lives beside it: `common_events` words every
//! agent's common events (the session header, the prompt, the assistant text, thinking on
//! request, one line per call worded by its tool kind, the result), so every transcript has the
//! same shape and no agent's records are read here; `calls` the line of one tool call. With `plain`, it writes the wording
//! of the `text` output format of cursor-agent as seed 000 describes it instead.
//!
//! Everything shown comes from the input and is untrusted: it goes through
//! [`escape_untrusted`], except that newlines inside assistant and thinking text stay real
//! newlines (and a prompt keeps its lines, each quoted with `> `); a line never starts a CI
//! workflow command (`ci_log`). Memory is bounded: one entry per open tool call and a hash of
//! the deltas not yet flushed, nothing per record. It must not open files nor decide exit
//! codes; `commands` does.

mod calls;
mod ci_log;
mod common_events;

use calls::Call;
use ci_log::no_command;
use owo_colors::Style;
use sjlint_core::check::{self, Consumer};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::{Position, Record};
use sjlint_core::rules::Rule;
use sjlint_core::text::escape_untrusted;
use sjlint_core::vocab;
use std::cell::{Cell, RefCell};
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
    let said = RefCell::new(Vec::new());
    let mut r = Renderer::new(out, *opts, &stop);
    r.said = Some(&said);
    r.live = live;
    r.open.set_max(check_opts.max_open_calls);
    if let Some(header) = header {
        r.file_header(header);
    }
    let mut emit = |d: Diagnostic| {
        if is_about_the_whole_input(&d) {
            said.borrow_mut().push(d);
        }
        Ok(())
    };
    let read = check::check_with(reader, check_opts, &mut emit, &mut r);
    r.finish();
    match r.error.take() {
        Some(e) => Err(e),
        None => read.map(|_| ()),
    }
}

/// Whether `d` says what the whole input is rather than what one record is: the input is of no
/// agent sjlint knows, holds no event, or is one pretty-printed JSON document.
fn is_about_the_whole_input(d: &Diagnostic) -> bool {
    match d.rule {
        Rule::UnknownAgent | Rule::EmptyStream => true,
        Rule::InvalidJson => d.line == 1 && d.message.starts_with("the input is one "),
        _ => false,
    }
}

/// Markers of invalid records held before the first event, at most this many (the rest
/// counted).
const HELD_MARKERS: usize = 10;

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
    action: calls::Action,
    /// The tool's name as shown.
    name: Box<str>,
    /// The target as shown (escaped, cut), from the `started` args.
    target: Option<String>,
    started_ms: Option<u64>,
    line: u64,
    /// A subagent's call.
    subagent: bool,
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
    /// Open calls by their id, at most `--max-open-calls` of them.
    open: sjlint_core::pairing::Table<Open>,
    /// Events seen in the current session (reset by its `result`).
    in_session: bool,
    /// Assistant text was shown in the current session.
    text_shown: bool,
    /// A hash of the last message shown (its pieces joined): a failed session's `end` that
    /// repeats it is not shown again.
    message_hash: sjlint_core::agents::cursor::validate::TextHash,
    /// Another agent's token usage reported in the current session, shown with its end.
    tokens: Option<sjlint_core::vocab::Tokens>,
    /// What `check` found true of the whole input, not yet shown.
    said: Option<&'s RefCell<Vec<Diagnostic>>>,
    /// Something about the whole input was shown: the markers of its lines are not.
    said_shown: bool,
    /// An event has been seen.
    any_event: bool,
    /// Markers of invalid records before the first event, and how many more.
    held: Vec<(Position, Skipped)>,
    held_more: u64,
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
            open: sjlint_core::pairing::Table::new(sjlint_core::pairing::DEFAULT_MAX_OPEN_CALLS),
            in_session: false,
            text_shown: false,
            message_hash: sjlint_core::agents::cursor::validate::TextHash::default(),
            tokens: None,
            said: None,
            said_shown: false,
            any_event: false,
            held: Vec::new(),
            held_more: 0,
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
        if self.newlines > 0 {
            self.push_styled(&no_command(&escaped), style);
        } else {
            self.push_styled(&escaped, style);
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

    /// What `check` found true of the whole input, once, as a marker; up front, since it is
    /// found before the records it is about are passed on (or at the end, for an input that
    /// holds no event).
    fn say(&mut self) {
        let Some(said) = self.said else { return };
        let found: Vec<Diagnostic> = said.borrow_mut().drain(..).collect();
        for d in found {
            self.said_shown = true;
            if self.opts.plain {
                continue;
            }
            self.start(Block::Marker);
            let warn = self.styles.warn;
            self.push_styled("! ", warn);
            self.push_escaped(&d.message, warn);
            self.newline();
            for r in &d.related {
                self.push_styled("  ", None);
                self.push_escaped(&r.message, self.styles.dim);
                self.push_styled(&format!(" (line {})", r.line), self.styles.dim);
                self.newline();
            }
        }
    }

    /// The markers held before the first event, now shown.
    fn release_markers(&mut self) {
        for (pos, skipped) in std::mem::take(&mut self.held) {
            self.marker(pos, &skipped);
        }
        if self.held_more > 0 {
            self.start(Block::Marker);
            let line = if self.held_more == 1 {
                "! 1 more record before the first event is not a valid event".to_owned()
            } else {
                format!(
                    "! {} more records before the first event are not valid events",
                    self.held_more
                )
            };
            self.push_styled(&line, self.styles.warn);
            self.newline();
            self.held_more = 0;
        }
    }

    /// The end of the input: calls that never completed, a session left without result.
    fn finish(&mut self) {
        self.say();
        if self.said_shown {
            self.held = Vec::new();
            self.held_more = 0;
        } else {
            self.release_markers();
        }
        self.unfinished_calls();
        if self.in_session && !self.opts.plain && !self.said_shown {
            self.start(Block::Marker);
            let warn = self.styles.warn;
            self.push_styled("! the stream ends before the session's result", warn);
            self.newline();
        }
        self.end_line();
        self.flush_buf(true);
    }

    /// Lines for the calls of the session that never completed, in the order they started.
    fn unfinished_calls(&mut self) {
        let mut open: Vec<Open> = self.open.drain().collect();
        if self.opts.plain {
            return;
        }
        open.sort_by_key(|o| o.line);
        for o in open {
            let call = Call {
                action: o.action,
                name: &o.name,
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

    /// What is said of the whole input, then the markers held before the first event.
    fn first_event(&mut self) {
        self.say();
        if !self.any_event {
            self.any_event = true;
            self.release_markers();
        }
    }

    fn marker(&mut self, pos: Position, skipped: &Skipped) {
        self.start(Block::Marker);
        let warn = self.styles.warn;
        match skipped {
            Skipped::Text(text) => {
                // The agent's own words (an error it printed on stdout), escaped like any text of
                // the stream.
                self.push_styled(&format!("! line {}: ", pos.line), warn);
                self.push_escaped(text, warn);
            }
            Skipped::TooLarge | Skipped::Invalid => {
                let what = if matches!(skipped, Skipped::TooLarge) {
                    "a record too large to read"
                } else {
                    "not a valid event"
                };
                let line = format!(
                    "! line {}: {what}; skipped (`sjlint check` says why)",
                    pos.line
                );
                self.push_styled(&line, warn);
            }
        }
        self.newline();
    }
}

/// The most characters of a line of plain text shown in its marker.
const TEXT_CHARS: usize = 300;

/// A record that is no event, as its marker tells it.
enum Skipped {
    /// Over `--max-record-bytes`: never read.
    TooLarge,
    /// JSON that is broken or no object: `check` says why.
    Invalid,
    /// A line of plain text, such as an error the agent printed on stdout: its first
    /// [`TEXT_CHARS`] characters.
    Text(String),
}

impl Skipped {
    fn of(bytes: &[u8]) -> Skipped {
        if bytes.is_empty() {
            return Skipped::TooLarge;
        }
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim();
        if text.is_empty() || text.starts_with(['{', '[', '"']) {
            return Skipped::Invalid;
        }
        Skipped::Text(match text.char_indices().nth(TEXT_CHARS) {
            Some((i, _)) => format!("{}…", &text[..i]),
            None => text.to_owned(),
        })
    }
}

impl<W: Write> Consumer for Renderer<'_, W> {
    /// A record, after its common events (an input no agent sjlint knows gives none): what is
    /// said of the whole input, once.
    fn agent_record(&mut self, _rec: &Record<'_>, _json: &str, _read: &check::Checked<'_, '_>) {
        self.first_event();
        self.flush_buf(false);
    }

    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        self.say();
        if !self.any_event {
            // Held until an event shows the input is a stream after all.
            if self.held.len() < HELD_MARKERS {
                self.held.push((pos, Skipped::of(bytes)));
            } else {
                self.held_more += 1;
            }
            return;
        }
        self.marker(pos, &Skipped::of(bytes));
        self.flush_buf(false);
    }

    fn wants_common(&self) -> bool {
        true
    }

    /// Every agent's events, cursor-agent's too, worded by `common_events`.
    fn common(&mut self, ev: &vocab::Event<'_>) {
        self.first_event();
        self.common_event(ev);
        self.flush_buf(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn rendered(input: &str, opts: RenderOptions) -> String {
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
    fn invalid_records_get_a_marker() {
        let out = rendered(
            "{\"type\":\"user\"}\n{\"type\":\"us\nnot json\n",
            RenderOptions::default(),
        );
        assert!(out.contains("! line 2: not a valid event"), "{out}");
        // A line of plain text is shown as what it says.
        assert!(out.contains("! line 3: not json\n"), "{out}");
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
