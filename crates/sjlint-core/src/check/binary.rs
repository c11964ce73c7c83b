//! Binary input: records that look like binary data, not text.
//!
//! This module owns the heuristics that tell an input is not a text stream at all: bytes no
//! text stream holds in a record that failed the framing rules, and every other byte NUL (UTF-16
//! text). It also owns the run of such records, whose framing findings are counted and summed up
//! in one finding where the run ends instead of one per line. It must not make findings of its
//! own beyond that summary and the note on the last record shown one by one, nor hold back the
//! findings of any group but framing.

use crate::diagnostic::Diagnostic;
use crate::input::record::{Position, Record};
use crate::rules::{Group, Rule, RuleSet, Severity};

/// How many records of a run of binary-looking records are reported one by one.
pub const BINARY_SHOWN: u64 = 3;

/// A run of consecutive records that look like binary data, so that a binary file does not
/// bury the output under one finding per line. The first [`BINARY_SHOWN`] records of a run are
/// reported as usual, the last of them with a note; from then on the framing findings of the
/// run's records (and of the blank and too-large lines among them) are counted by rule instead,
/// and one finding sums them up where the run ends: at the next record that does not look
/// binary, or at the end of the input. Nothing is dropped silently, and findings of other groups
/// are never held back.
#[derive(Default)]
pub(super) struct BinaryRun {
    /// Binary-looking records in a row so far.
    records: u64,
    /// The first record whose findings were counted.
    first: Option<Position>,
    /// The physical line of the last frame whose findings were counted.
    last_line: u64,
    /// Records whose findings were counted.
    counted: u64,
    /// Counted findings by rule, in the order the rules were first met.
    counts: Vec<(Rule, u64)>,
}

impl BinaryRun {
    fn counting(&self) -> bool {
        self.records > BINARY_SHOWN
    }

    /// Takes the framing findings of `held` into the count.
    fn count(&mut self, line: u64, held: &mut Vec<Diagnostic>, enabled: RuleSet) {
        self.last_line = line;
        held.retain(|d| {
            if d.rule.group() != Group::Framing {
                return true;
            }
            if enabled.contains(d.rule) {
                match self.counts.iter_mut().find(|(r, _)| *r == d.rule) {
                    Some((_, n)) => *n += 1,
                    None => self.counts.push((d.rule, 1)),
                }
            }
            false
        });
    }

    /// A blank or too-large line: counted while the run is being counted, and never a reason to
    /// start or end a run.
    pub(super) fn other_frame(&mut self, held: &mut Vec<Diagnostic>, enabled: RuleSet) {
        if self.counting()
            && let Some(line) = held.first().map(|d| d.line)
        {
            self.count(line, held, enabled);
        }
    }

    /// A record and its findings. Returns the summary of a run that this record ends.
    pub(super) fn record(
        &mut self,
        rec: &Record<'_>,
        held: &mut Vec<Diagnostic>,
        enabled: RuleSet,
    ) -> Option<Diagnostic> {
        let failed = held
            .iter()
            .any(|d| d.rule.group() == Group::Framing && d.severity == Severity::Error);
        // A run starts at a record that clearly looks binary, and goes on through failed
        // records that hold any byte a text stream does not, or are too short to tell (binary
        // data cut at its LF bytes gives lines of every length).
        let odd = if failed { odd_bytes(rec.bytes) } else { 0 };
        let binary = failed
            && if self.records == 0 {
                odd >= 8 && odd * 8 >= rec.bytes.len()
            } else {
                odd > 0 || rec.bytes.len() < 16
            };
        if !binary {
            return self.end();
        }
        self.records += 1;
        if self.counting() {
            self.first.get_or_insert(rec.pos);
            self.counted += 1;
            self.count(rec.pos.line, held, enabled);
        } else if self.records == BINARY_SHOWN
            && let Some(d) = held.iter_mut().find(|d| d.rule.group() == Group::Framing)
        {
            d.help = Some(format!(
                "{BINARY_SHOWN} records in a row look binary: the framing findings of the next ones like them are counted and summed up in one finding where the run ends"
            ));
        }
        None
    }

    /// Ends the run; the summary finding when findings were counted.
    pub(super) fn end(&mut self) -> Option<Diagnostic> {
        if self.records == 0 {
            return None;
        }
        let run = std::mem::take(self);
        let first = run.first?;
        let (rule, _) = *run
            .counts
            .iter()
            .max_by_key(|(r, n)| (r.severity() == Severity::Error, *n))?;
        let tally: Vec<String> = run
            .counts
            .iter()
            .map(|(r, n)| format!("{n} {}", r.name()))
            .collect();
        let lines = if run.last_line > first.line {
            format!("lines {}-{}", first.line, run.last_line)
        } else {
            format!("line {}", first.line)
        };
        let records = if run.counted == 1 {
            "record"
        } else {
            "records"
        };
        Some(
            Diagnostic::new(
                rule,
                first,
                format!(
                    "{} more {records} on {lines} look binary; their framing findings, not shown one by one: {}",
                    run.counted,
                    tally.join(", ")
                ),
            )
            .with_help("the input looks like binary data, not a text stream of JSON events: was a binary file, a core dump or a UTF-16 file mixed in?"),
        )
    }
}

/// How many bytes of a failed record no text stream holds: bytes that are not UTF-8, DEL, and
/// C0 controls other than TAB, LF, CR, form feed, ESC (colour codes) and RS (JSON text
/// sequences). A short record with a stray byte (a Latin-1 letter, a conformance case) never
/// starts a run of binary records.
#[cold]
fn odd_bytes(bytes: &[u8]) -> usize {
    let mut odd = 0;
    for chunk in bytes.utf8_chunks() {
        odd += chunk.invalid().len();
        odd += chunk
            .valid()
            .bytes()
            .filter(|&b| {
                (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b | 0x1e)) || b == 0x7f
            })
            .count();
    }
    odd
}

/// Whether `bytes` look like UTF-16 text of mostly ASCII characters: one NUL in every pair of
/// bytes.
pub(super) fn looks_like_utf16(bytes: &[u8]) -> bool {
    let pairs = bytes.chunks_exact(2);
    pairs.len() > 0
        && pairs.clone().filter(|p| (p[0] == 0) != (p[1] == 0)).count() * 5 >= pairs.len() * 4
}
