//! What comes before a stream's first event: when an input holds plain text and no event at
//! all, the one fact that matters is that the agent never wrote its stream (a trust prompt, an
//! authentication error, a `--output-format text` capture), and what it printed instead.
//!
//! Until the first event, the findings of plain-text lines and blank lines are held here
//! instead of reported, the first [`SHOWN`] frames' findings in full and the rest counted. An
//! event, or any other kind of record, ends the wait: the held findings are reported as they
//! were, and the counted ones as one summary finding. An input that ends while still waiting
//! gets one headline (`empty-stream`), quoting the first lines, in place of the held findings:
//! they are the same fact, line by line (with `empty-stream` ignored, they are reported as
//! above). On a live stream this holds the findings of text written before the
//! first event until that event (or the end) arrives: an agent in print mode writes its init at
//! once, or prints why it cannot and exits. This module must not decide what a plain-text
//! line is (that is `check`'s `json_diagnostic`); it only reads the messages it sets.

use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::Rule;

/// The message of `invalid-json` on a line of plain text.
pub const PLAIN_TEXT: &str = "the line is plain text, not JSON";
/// The message of `invalid-json` on a line of plain text with colour codes.
pub const ANSI_TEXT: &str = "the line is not JSON: plain text with ANSI colour codes";
/// The help both give.
pub const STDERR_HELP: &str =
    "plain text between records usually means stderr was merged into stdout (2>&1)";

/// Frames before the first event whose findings are held in full.
pub const SHOWN: usize = 10;
/// Lines the headline quotes.
const QUOTED: usize = 5;
/// Characters of each quoted line.
const QUOTE_CHARS: usize = 100;

/// The findings of the frames before the first event.
pub struct Preamble {
    /// Still before the first event and any record that is not plain text.
    active: bool,
    /// Frames seen while active.
    frames: usize,
    /// The findings of the first [`SHOWN`] frames.
    held: Vec<Diagnostic>,
    /// Plain-text lines seen while active.
    text_lines: u64,
    /// The first line of plain text: where the headline points.
    first_text: Option<Diagnostic>,
    /// The first [`QUOTED`] lines of plain text.
    quoted: Vec<(u64, String)>,
    /// Findings of frames past the first [`SHOWN`], counted: plain-text lines, other findings.
    more_text: u64,
    more_other: u64,
    more_first: Option<Position>,
    more_last_line: u64,
}

impl Default for Preamble {
    fn default() -> Self {
        Preamble {
            active: true,
            frames: 0,
            held: Vec::new(),
            text_lines: 0,
            first_text: None,
            quoted: Vec::new(),
            more_text: 0,
            more_other: 0,
            more_first: None,
            more_last_line: 0,
        }
    }
}

/// Whether `d` is the finding of a line of plain text.
pub fn is_text(d: &Diagnostic) -> bool {
    d.rule == Rule::InvalidJson && (d.message == PLAIN_TEXT || d.message == ANSI_TEXT)
}

impl Preamble {
    /// Whether frames are still held: a branch per frame, nothing more, once the stream runs.
    #[inline]
    pub fn active(&self) -> bool {
        self.active
    }

    /// Takes the findings of a frame that is plain text or a blank line, while active. Returns
    /// false (taking nothing) when the frame ends the wait: the caller then calls [`Self::end`]
    /// and reports the frame's findings itself.
    pub fn take(&mut self, findings: &mut Vec<Diagnostic>, blank: bool) -> bool {
        let text = findings.iter().position(is_text);
        let only_text = findings
            .iter()
            .all(|d| is_text(d) || matches!(d.rule, Rule::ByteOrderMark | Rule::BlankLine));
        if !only_text || (text.is_none() && !blank) {
            return false;
        }
        self.frames += 1;
        if let Some(i) = text {
            let d = &findings[i];
            self.text_lines += 1;
            if self.quoted.len() < QUOTED {
                let line = d.snippet.as_ref().map_or("", |s| s.text.trim());
                let mut quote: String = line.chars().take(QUOTE_CHARS).collect();
                if quote.len() < line.len() || d.snippet.as_ref().is_some_and(|s| s.cut_right) {
                    quote.push('…');
                }
                self.quoted.push((d.line, quote));
            }
            if self.first_text.is_none() {
                self.first_text = Some(d.clone());
            }
        }
        if self.frames <= SHOWN {
            self.held.append(findings);
        } else {
            let line = findings.first().map_or(0, |d| d.line);
            self.more_first.get_or_insert(Position {
                byte: findings.first().map_or(0, |d| d.byte),
                line,
                record: findings.first().map_or(0, |d| d.record),
            });
            if text.is_some() {
                self.more_text += 1;
            } else {
                self.more_other += findings.len() as u64;
            }
            self.more_last_line = line;
            findings.clear();
        }
        true
    }

    /// The wait is over (an event, another record, or a stop before the end): the held
    /// findings, then one finding for those counted, go to `send`.
    pub fn end(&mut self, send: &mut impl FnMut(Diagnostic)) {
        if !self.active {
            return;
        }
        self.active = false;
        for d in self.held.drain(..) {
            send(d);
        }
        if let Some(first) = self.more_first.take() {
            let lines = if self.more_last_line > first.line {
                format!("lines {}-{}", first.line, self.more_last_line)
            } else {
                format!("line {}", first.line)
            };
            let blank = match self.more_other {
                0 => String::new(),
                1 => " (and 1 blank line)".to_owned(),
                n => format!(" (and {n} blank lines)"),
            };
            let more = if self.more_text == 1 {
                "1 more line".to_owned()
            } else {
                format!("{} more lines", self.more_text)
            };
            send(
                Diagnostic::new(
                    Rule::InvalidJson,
                    first,
                    format!(
                        "{more} of plain text on {lines} before the first event{blank}, not shown one by one"
                    ),
                )
                .with_help(STDERR_HELP),
            );
        }
        self.quoted = Vec::new();
        self.first_text = None;
    }

    /// The input ended. With no event and only plain text, the one headline goes to `send` in
    /// place of the held findings (when `empty-stream` is enabled); otherwise [`Self::end`].
    pub fn finish(&mut self, headline_enabled: bool, send: &mut impl FnMut(Diagnostic)) {
        if !self.active {
            return;
        }
        let Some(first) = self.first_text.take().filter(|_| headline_enabled) else {
            return self.end(send);
        };
        self.active = false;
        let n = self.text_lines;
        let (_, quote) = self.quoted.first().cloned().unwrap_or_default();
        let lines = if n == 1 { "line" } else { "lines" };
        let mut d = Diagnostic::new(
            Rule::EmptyStream,
            Position {
                byte: first.byte,
                line: first.line,
                record: first.record,
            },
            format!(
                "no events: the input is {n} {lines} of plain text, so the agent never wrote its stream; it printed {quote:?}"
            ),
        )
        .with_help("an agent that stops before its first event (a trust prompt, an authentication error, a bad flag) prints why as text, and a `--output-format text` capture is text too: run it with `--output-format stream-json` and keep stderr apart (2>agent.log); the lines are not reported one by one");
        d.column = first.column;
        d.snippet = first.snippet;
        for (line, text) in self.quoted.iter().skip(1) {
            d = d.with_related(*line, format!("{text:?}"));
        }
        send(d);
        // The lines themselves are the headline's fact, line by line: not reported again.
        self.held = Vec::new();
        self.more_first = None;
        self.quoted = Vec::new();
    }
}
