//! The agent's stderr: forwarded as it comes, kept in part, quoted when no event came.
//!
//! This module owns the thread body that copies the agent's stderr to sjlint's stderr (through
//! the queue of `notes`, above the status line) and to `PATH.stderr`, keeping its first [`STDERR_KEPT`] bytes, and the
//! `agent-wrote-no-events` finding that quotes its first lines when the agent wrote no record
//! (a trust prompt, an authentication error, a bad flag). It must not interpret the bytes
//! otherwise nor signal anything: what is forwarded is the agent's own text, passed on as it
//! is, and the finding is escaped by the reporters.

use super::Notes;
use super::outcome::{self, Status};
use super::pipe::PipeReader;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::Rule;
use std::fs::File;
use std::io::{self, Read, Write};

/// How much of the agent's stderr is kept to quote when it wrote no event.
const STDERR_KEPT: usize = 2048;

/// What the agent wrote on stderr.
pub(super) struct StderrSeen {
    pub(super) bytes: u64,
    pub(super) head: Vec<u8>,
    /// The last [`STDERR_KEPT`] bytes, for the summary's tail.
    pub(super) tail: Vec<u8>,
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
        tail: Vec::new(),
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
        let keep = &chunk[n.saturating_sub(STDERR_KEPT)..];
        seen.tail.extend_from_slice(keep);
        let over = seen.tail.len().saturating_sub(STDERR_KEPT);
        seen.tail.drain(..over);
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
        .map(|l| format!("{:?}", crate::text::Excerpt(l)));
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
