//! The agent's stderr: forwarded as it comes, kept in part, quoted when no event came.
//!
//! This module owns the thread body that copies the agent's stderr to sjlint's stderr (through
//! the queue of `notes`, above the status line) and to `PATH.stderr`, keeping its first [`STDERR_KEPT`] bytes
//! and its last lines (each bounded, whatever their length: [`TailLines`]), and the
//! `agent-wrote-no-events` finding that quotes its first lines when the agent wrote no record
//! (a trust prompt, an authentication error, a bad flag). It must not interpret the bytes
//! otherwise nor signal anything: what is forwarded is the agent's own text, passed on as it
//! is, and the finding is escaped by the reporters.

use super::Notes;
use super::outcome::{self, Status};
use super::outcome::{STDERR_LINE_CHARS, STDERR_TAIL_LINES};
use super::pipe::PipeReader;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::input::record::Position;
use sjlint_core::rules::Rule;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};

/// How much of the agent's stderr is kept to quote when it wrote no event.
const STDERR_KEPT: usize = 2048;

/// What the agent wrote on stderr.
pub(super) struct StderrSeen {
    pub(super) bytes: u64,
    pub(super) head: Vec<u8>,
    /// The last lines, for the summary's tail.
    pub(super) tail: TailLines,
    pub(super) save_error: Option<io::Error>,
}

/// The agent's stderr to sjlint's stderr (above the status line) and to `PATH.stderr`; the
/// first [`STDERR_KEPT`] bytes are kept to quote.
pub(super) fn forward_stderr(
    mut reader: PipeReader,
    notes: &Notes,
    mut save: Option<File>,
) -> StderrSeen {
    let mut seen = StderrSeen {
        bytes: 0,
        head: Vec::new(),
        tail: TailLines::default(),
        save_error: None,
    };
    let mut buf = vec![0u8; 16 << 10];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        seen.bytes += n as u64;
        let room = STDERR_KEPT.saturating_sub(seen.head.len());
        seen.head.extend_from_slice(&chunk[..room.min(n)]);
        seen.tail.feed(chunk);
        notes.pass_on(chunk);
        if let Some(file) = &mut save
            && let Err(e) = file.write_all(chunk)
        {
            save = None;
            seen.save_error = Some(e);
        }
    }
    seen
}

/// Bytes kept of each line of the tail: enough for [`STDERR_LINE_CHARS`] characters of any
/// width.
const TAIL_LINE_BYTES: usize = 4 * STDERR_LINE_CHARS;

/// The last non-blank lines of the agent's stderr, at most [`STDERR_TAIL_LINES`], each kept to
/// its first [`TAIL_LINE_BYTES`] bytes and its whole length counted: a line of any length, with
/// or without its newline, costs at most that much memory.
#[derive(Debug, Default)]
pub(super) struct TailLines {
    /// Lines ended by a newline, oldest first: each its kept start and its whole length.
    done: VecDeque<(Vec<u8>, u64)>,
    /// The line being written: its kept start and its length so far.
    open: (Vec<u8>, u64),
}

impl TailLines {
    pub(super) fn feed(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            let (piece, ended) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            let room = TAIL_LINE_BYTES.saturating_sub(self.open.0.len());
            self.open
                .0
                .extend_from_slice(&piece[..room.min(piece.len())]);
            self.open.1 += piece.len() as u64;
            let Some(next) = ended else { break };
            self.end_line();
            chunk = &chunk[next..];
        }
    }

    /// Files the open line among the last ones, unless it is blank.
    fn end_line(&mut self) {
        let line = std::mem::take(&mut self.open);
        if line.0.iter().all(u8::is_ascii_whitespace) && line.1 == line.0.len() as u64 {
            return;
        }
        if self.done.len() == STDERR_TAIL_LINES {
            self.done.pop_front();
        }
        self.done.push_back(line);
    }

    /// The last lines, the unended one included: each its kept start and its whole length.
    pub(super) fn lines(&self) -> impl Iterator<Item = (&[u8], u64)> {
        let open = (!self.open.0.iter().all(u8::is_ascii_whitespace)).then_some(&self.open);
        let skip =
            (self.done.len() + usize::from(open.is_some())).saturating_sub(STDERR_TAIL_LINES);
        self.done
            .iter()
            .chain(open)
            .skip(skip)
            .map(|(kept, len)| (kept.as_slice(), *len))
    }

    /// Bytes held, for the bound's test.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.done.iter().map(|l| l.0.len()).sum::<usize>() + self.open.0.len()
    }
}

/// How many lines of the agent's stderr the `agent-wrote-no-events` finding quotes.
const STDERR_QUOTED: usize = 5;

/// The finding of a run in which the agent wrote no record: what it printed on stderr instead
/// (its first lines, each cut short; reporters escape them).
pub(super) fn no_events(status: Status, seen: &StderrSeen, bytes: u64) -> Diagnostic {
    let how = match (status.code, status.signal) {
        (None, None) => String::new(),
        _ => format!("; it {}", outcome::describe_status(status)),
    };
    // Worded as `check`'s headline of a stream with no event (`no events: …, so the agent
    // never wrote its stream; it printed "…"`), with what only `run` knows: how it ended and
    // that the words came on stderr.
    let wrote = if bytes > 0 {
        "only blank lines"
    } else {
        "nothing"
    };
    let text = String::from_utf8_lossy(&seen.head);
    let mut lines = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(STDERR_QUOTED)
        .map(|l| format!("{:?}", sjlint_core::text::Excerpt(l)));
    let pos = Position {
        byte: 0,
        line: 0,
        record: 0,
    };
    let Some(first) = lines.next() else {
        return Diagnostic::new(
            Rule::AgentWroteNoEvents,
            pos,
            format!("no events: the agent wrote {wrote} on stdout and nothing on stderr{how}"),
        )
        .with_help("check the agent's command line: a stream-json agent writes at least one event before it ends");
    };
    let more: Vec<String> = lines.collect();
    let help = if more.is_empty() {
        String::from(
            "an agent that stops before its first event (a trust prompt, an authentication error, a bad flag) says why on stderr",
        )
    } else {
        format!(
            "on stderr it went on: {}; the whole of it is above (and in PATH.stderr with --save-stderr)",
            more.join(", ")
        )
    };
    Diagnostic::new(
        Rule::AgentWroteNoEvents,
        pos,
        format!(
            "no events: the agent wrote {wrote} on stdout, so it never wrote its stream{how}; on stderr it printed {first}"
        ),
    )
    .with_help(help)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail_of(chunks: &[&[u8]]) -> Vec<(String, u64)> {
        let mut t = TailLines::default();
        for c in chunks {
            t.feed(c);
        }
        t.lines()
            .map(|(k, n)| (String::from_utf8_lossy(k).into_owned(), n))
            .collect()
    }

    #[test]
    fn the_last_lines_are_kept_whole_across_chunks_and_blanks_left_out() {
        let long = "x".repeat(5_000);
        let mut text = String::new();
        for i in 0..30 {
            text.push_str(&format!("{long} {i}\n\n  \n"));
        }
        text.push_str("Error: the last line\n");
        for size in [1, 7, 4096, text.len()] {
            let chunks: Vec<&[u8]> = text.as_bytes().chunks(size).collect();
            let tail = tail_of(&chunks);
            assert_eq!(tail.len(), STDERR_TAIL_LINES);
            assert_eq!(
                tail.last().unwrap(),
                &("Error: the last line".to_owned(), 20)
            );
            assert_eq!(tail[0].1, 5_003);
            assert_eq!(tail[0].0.len(), TAIL_LINE_BYTES);
        }
    }

    #[test]
    fn a_line_without_end_is_held_to_its_bound() {
        let mut t = TailLines::default();
        t.feed(b"first\n");
        let block = vec![b'y'; 1 << 20];
        for _ in 0..64 {
            t.feed(&block);
        }
        assert!(t.held() <= 5 + TAIL_LINE_BYTES, "{}", t.held());
        let lines: Vec<u64> = t.lines().map(|(_, n)| n).collect();
        assert_eq!(lines, [5, 64 << 20]);
    }
}
