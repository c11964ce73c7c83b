//! Redaction of credentials: every API key, token, private key and password found in a
//! record's text is replaced by `[REDACTED:KIND]`, and so is every other occurrence of the same
//! value in that record.
//!
//! This module owns the search ([`Redactor`]): a prefilter (Aho-Corasick over the literal
//! prefixes and context words of every kind, so that a record with none is passed over at once
//! and unchanged), then the pattern of each kind whose literal was seen, the checks of each
//! match (`check`), and the replacement. The kinds themselves are the table of `kinds`. It
//! decides nothing about where redaction applies: the check pipeline
//! (`crate::check::CheckOptions::redact`) applies it to every record before it is read, so that
//! every output derived from the records is redacted.
//!
//! The text is treated as a JSON record's: a value's alphabet stops at `"` and `\`, so that a
//! replacement never takes part of an escape sequence and a valid record stays valid; the
//! replacement `[REDACTED:KIND]` holds neither. Plain text is read the same way.
//!
//! ```
//! use sjlint_core::redact::Redactor;
//! let redactor = Redactor::new();
//! let record = br#"{"output":"export DB_PASSWORD=hunter22-staging"}"#;
//! let redacted = redactor.redact_record(record);
//! assert_eq!(&*redacted, br#"{"output":"export DB_PASSWORD=[REDACTED:env-secret]"}"#);
//! assert_eq!(redactor.counts(), vec![("env-secret", 1)]);
//! // Nothing found: the record itself, not a copy.
//! assert!(matches!(redactor.redact_record(b"{}"), std::borrow::Cow::Borrowed(_)));
//! ```

mod check;
mod kinds;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::bytes::Regex;
use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use kinds::KINDS;

/// The shortest value whose other occurrences in a record are replaced too: a shorter one
/// (`pass` in `postgres://user:pass@`) is too likely to be part of ordinary text.
const SAME_VALUE_MIN: usize = 6;

/// Finds and replaces credentials. Built once (its patterns are compiled then), shared by every
/// thread: `&Redactor` is all a search needs.
pub struct Redactor {
    /// Every kind's literals; the pattern's index is that of [`Redactor::literal_kind`].
    prefilter: AhoCorasick,
    /// For each literal of the prefilter, the kind whose pattern it calls for.
    literal_kind: Vec<u16>,
    /// Each kind's pattern, in the order of the table.
    patterns: Vec<Regex>,
    /// How many values of each kind were replaced.
    counts: Vec<AtomicU64>,
}

/// A value to replace: its bytes and its kind.
#[derive(Clone, Copy, Debug)]
struct Hit {
    start: usize,
    end: usize,
    kind: u16,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("kinds", &KINDS.len())
            .field("counts", &self.counts())
            .finish()
    }
}

static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| KINDS.iter().map(|k| k.name).collect());

static SHARED: LazyLock<Redactor> = LazyLock::new(Redactor::new);

impl Redactor {
    /// A redactor of every kind in [`Redactor::kinds`], its counts at zero.
    ///
    /// # Panics
    ///
    /// Only if a pattern of the built-in table did not compile, which its tests rule out.
    pub fn new() -> Redactor {
        let mut literals = Vec::new();
        let mut literal_kind = Vec::new();
        for (i, kind) in KINDS.iter().enumerate() {
            for key in kind.keys {
                literals.push(*key);
                literal_kind.push(i as u16);
            }
        }
        // A DFA: one table lookup a byte, the fastest of the kinds for a pass over every record
        // (the literals are too many for the SIMD searcher, and the NFA the crate picks for so
        // many runs at a sixth of the speed); its table is a few hundred KiB.
        let prefilter = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(&literals)
            .expect("the literals are few and short");
        let patterns = KINDS
            .iter()
            .map(|k| {
                let pattern = k
                    .pattern
                    .replace("{q}", kinds::QUOTE)
                    .replace("{sep}", kinds::SEP);
                Regex::new(&pattern).unwrap_or_else(|e| panic!("the pattern of {}: {e}", k.name))
            })
            .collect();
        Redactor {
            prefilter,
            literal_kind,
            patterns,
            counts: KINDS.iter().map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The redactor of the whole process, built on first use: the one the command line turns on
    /// (`--redact`), whose [`Redactor::counts`] are the run's.
    pub fn shared() -> &'static Redactor {
        &SHARED
    }

    /// One JSON record's raw text (one line of a stream): every credential replaced by
    /// `[REDACTED:KIND]`, and every other occurrence of the same secret value anywhere in the
    /// record too; `Borrowed` when nothing was found (the common case does not allocate).
    pub fn redact_record<'a>(&self, record: &'a [u8]) -> Cow<'a, [u8]> {
        let hits = self.hits(record);
        if hits.is_empty() {
            return Cow::Borrowed(record);
        }
        let mut out = Vec::with_capacity(record.len() + 16 * hits.len());
        let mut at = 0;
        for hit in &hits {
            out.extend_from_slice(&record[at..hit.start]);
            out.extend_from_slice(b"[REDACTED:");
            out.extend_from_slice(KINDS[usize::from(hit.kind)].name.as_bytes());
            out.push(b']');
            at = hit.end;
            self.counts[usize::from(hit.kind)].fetch_add(1, Ordering::Relaxed);
        }
        out.extend_from_slice(&record[at..]);
        Cow::Owned(out)
    }

    /// Plain text (a summary line, a finding's message), read as [`Redactor::redact_record`]
    /// reads a record.
    pub fn redact_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.redact_record(text.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            // Every match is ASCII between character boundaries, so the text stays UTF-8.
            Cow::Owned(bytes) => Cow::Owned(
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
        }
    }

    /// How many credentials of each kind were replaced so far, kinds with none left out, in the
    /// order of [`Redactor::kinds`].
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        KINDS
            .iter()
            .zip(&self.counts)
            .map(|(k, n)| (k.name, n.load(Ordering::Relaxed)))
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// Every kind it knows, in a stable order (the more specific first).
    pub fn kinds() -> &'static [&'static str] {
        &NAMES
    }

    /// The values to replace in `hay`, in order, none overlapping.
    fn hits(&self, hay: &[u8]) -> Vec<Hit> {
        let Some(first) = self.prefilter.find(hay) else {
            return Vec::new();
        };
        let mut wanted = [0u64; KINDS.len().div_ceil(64)];
        for m in self.prefilter.find_overlapping_iter(&hay[first.start()..]) {
            let kind = usize::from(self.literal_kind[m.pattern().as_usize()]);
            wanted[kind / 64] |= 1 << (kind % 64);
        }
        let mut hits = Vec::new();
        for (i, kind) in KINDS.iter().enumerate() {
            if wanted[i / 64] & (1 << (i % 64)) == 0 {
                continue;
            }
            for caps in self.patterns[i].captures_iter(hay) {
                let whole = caps.get(0).expect("a match");
                let value = caps.iter().skip(1).flatten().next().unwrap_or(whole);
                let bytes = value.as_bytes();
                // No word need end where a match ends: cursor-agent's `result` runs the texts of
                // a turn together, so a token that ended one text is followed by the next.
                if (kind.bounded && !check::starts_word(hay, whole.start()))
                    || check::placeholder(bytes)
                    || !check::passes(kind.check, bytes)
                {
                    continue;
                }
                hits.push(Hit {
                    start: value.start(),
                    end: value.end(),
                    kind: i as u16,
                });
            }
        }
        if hits.is_empty() {
            return hits;
        }
        settle(&mut hits);
        same_values(hay, &mut hits);
        hits
    }
}

/// A copy of a stream written as it is read (`run --save`), redacted line by line: each line is
/// redacted once its end has come, so that a credential split between two reads is still found.
#[derive(Debug, Default)]
pub struct Lines {
    /// The start of a line whose end has not come yet.
    partial: Vec<u8>,
}

impl Lines {
    /// The most of a line held while its end has not come (64 MiB, the default
    /// `--max-record-bytes`): past that, it is redacted and passed on as it is.
    const HELD: usize = 64 << 20;

    /// `bytes` as they arrived: the lines they end, redacted, are appended to `out`; the rest
    /// is held.
    pub fn push(&mut self, redactor: &Redactor, bytes: &[u8], out: &mut Vec<u8>) {
        let Some(last) = memchr::memrchr(b'\n', bytes) else {
            self.partial.extend_from_slice(bytes);
            if self.partial.len() > Self::HELD {
                self.finish(redactor, out);
            }
            return;
        };
        self.partial.extend_from_slice(&bytes[..=last]);
        for line in self.partial.split_inclusive(|&b| b == b'\n') {
            out.extend_from_slice(&redactor.redact_record(line));
        }
        self.partial.clear();
        self.partial.extend_from_slice(&bytes[last + 1..]);
    }

    /// The stream ended: what is held of a last line without its end, redacted.
    pub fn finish(&mut self, redactor: &Redactor, out: &mut Vec<u8>) {
        out.extend_from_slice(&redactor.redact_record(&self.partial));
        self.partial.clear();
    }
}

/// Sorts `hits` and drops those that overlap one before (the one that starts first wins, and at
/// the same start the kind earlier in the table).
fn settle(hits: &mut Vec<Hit>) {
    hits.sort_unstable_by_key(|h| (h.start, h.kind, usize::MAX - h.end));
    let mut end = 0;
    hits.retain(|h| {
        let keep = h.start >= end;
        if keep {
            end = h.end;
        }
        keep
    });
}

/// Adds every other occurrence in `hay` of the values found, as whole words, with their kind.
fn same_values(hay: &[u8], hits: &mut Vec<Hit>) {
    let mut more = Vec::new();
    let mut seen: Vec<&[u8]> = Vec::new();
    for hit in hits.iter() {
        let value = &hay[hit.start..hit.end];
        if value.len() < SAME_VALUE_MIN || seen.contains(&value) {
            continue;
        }
        seen.push(value);
        for at in memchr::memmem::find_iter(hay, value) {
            let end = at + value.len();
            let taken = hits.iter().any(|h| h.start < end && at < h.end);
            if !taken && check::starts_word(hay, at) && check::ends_word(hay, end) {
                more.push(Hit {
                    start: at,
                    end,
                    kind: hit.kind,
                });
            }
        }
    }
    if !more.is_empty() {
        hits.extend(more);
        settle(hits);
    }
}

#[cfg(test)]
mod tests;
