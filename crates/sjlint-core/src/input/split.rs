//! Splitting an input byte stream into NDJSON frames.
//!
//! This module owns framing: where each record starts and ends, stripping line terminators and
//! byte-order marks, joining a record that a writer broke over several physical lines with raw LF
//! bytes inside a JSON string, enforcing the record size limit in constant memory, and exact byte,
//! line and record positions. It reads through one reused buffer (or takes an input already in
//! memory where it lies) and lends out each frame until the next call; on request it also checks
//! the bytes for UTF-8 as they come, a whole read at once, and flags the records found valid. It
//! must not interpret records beyond the small JSON prefix grammar that decides
//! joins: no parsing of values, no event classification, no repair of the raw LFs it lets through,
//! no diagnostics, and no allocation per record.
//!
//! Beside it: where the bytes come from (`source`: a reader's reused buffer, or an input in
//! memory), the prefix grammar itself (`prefix`), the string trackers (`simd`), and, on
//! request, an over-limit record's bytes handed out in pieces before its frame (`passing`). The
//! scan that joins a record over several lines is the child module `join`.

use crate::input::record::{
    BOM_STRIPPED, ENDS_IN_STRING, Frame, NO_FINAL_LF, Position, Record, UTF8,
};
use crate::input::simd::{Found, Kernel, LineIndex, string_state_bytewise};
use memchr::memchr;
use std::io::{self, Read};

use super::prefix::Prefix;
pub use super::source::{IN_PLACE_STEP, InPlace, Reading, Source};
pub use passing::Item;

mod passing;

const LF: u8 = b'\n';
const CR: u8 = b'\r';
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const CHUNK: usize = 256 * 1024;
/// What an undecided frame may hold beyond the limit: a BOM, plus the two bytes after the limit
/// that tell "CR of a CRLF terminator" apart from "one byte too long".
const SLACK: usize = BOM.len() + 2;

// Test builds count the bytes every scan touches, so tests can assert linear work without
// relying on wall time.
macro_rules! tick {
    ($splitter:expr, $n:expr) => {
        #[cfg(test)]
        {
            $splitter.work += $n as u64;
        }
    };
}

// After `tick!`, which it uses.
mod join;

/// How much of `bytes` to check for UTF-8 before more arrives: all of it, less the first 1 to
/// 3 bytes of a character that the end of `bytes` cuts.
fn complete_prefix(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        let len = match bytes[n - back] {
            0x00..=0x7F => return n,
            // A continuation byte: look further back for the lead.
            0x80..=0xBF => continue,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        return if len > back { n - back } else { n };
    }
    n
}

/// Splits an input into frames; see the module documentation.
pub struct Splitter<S> {
    /// The input's bytes: a reused buffer that a reader fills ([`Reading`]), or the whole input
    /// already in memory ([`InPlace`]). Only `..end` of it is read; what lies beyond is stale,
    /// or input not reached yet.
    buf: S,
    max: usize,
    /// Start of the frame being scanned (its physical line start, before any BOM).
    start: usize,
    /// End of the bytes read so far.
    end: usize,
    /// Input offset of `buf[0]`.
    base: u64,
    eof: bool,
    bytes_read: u64,
    /// Physical line on which the frame at `start` begins.
    line: u64,
    /// Records and too-large frames yielded so far.
    records: u64,
    /// The next line is the input's first: a document that spans lines may open there
    /// ([`Scan::Join`]'s `doc`).
    doc: bool,
    scan: Scan,
    prefix: Prefix,
    /// The LFs ahead of `start` with their string state, found in one pass over many lines.
    index: LineIndex,
    /// Whether reads are checked for UTF-8 ([`Splitter::checking_utf8`]).
    utf8: bool,
    /// Input offsets: `utf8_from..utf8_to` is valid UTF-8, checked as it was read.
    utf8_from: u64,
    utf8_to: u64,
    /// Over-limit records handed out in pieces ([`Splitter::passing_over_limit`]).
    pass: passing::Pass,
    #[cfg(test)]
    work: u64,
}

/// How far the frame at `start` has been examined. Offsets are relative to `start`, so moving
/// the unread bytes to the front of the buffer does not invalidate them, and no byte is examined
/// again just because more input arrived.
#[derive(Clone, Copy, Debug)]
enum Scan {
    /// Not even the BOM question is settled.
    LineStart,
    /// First physical line, whose end and string state the index finds (and carries across
    /// reads).
    Line { body: usize },
    /// First physical line after a backslash outside any string, where the block method does
    /// not apply: tracking only whether we are inside a string, up to `scanned`.
    ByteWise {
        body: usize,
        scanned: usize,
        in_str: bool,
        esc: bool,
    },
    /// The first line ended inside a string and is a valid JSON prefix; `prefix` carries the
    /// grammar state at `at`. With `doc`, the input's first line opened an object that it does
    /// not close (a pretty-printed document, such as a chat saved as one JSON file): the record
    /// goes on to the line where that object closes.
    Join {
        body: usize,
        first_lf: usize,
        at: usize,
        lines: u32,
        doc: bool,
    },
    /// Over the limit: the bytes are dropped as they are read until the next physical LF.
    Skip {
        byte: u64,
        bom: bool,
        len: u64,
        last_cr: bool,
        all_ws: bool,
        line_adv: u64,
    },
}

enum Flow {
    Done(Done),
    NeedData,
    Again,
}

/// A decided frame, as buffer indices, so that the borrow of the buffer is only taken when the
/// frame is handed out.
enum Done {
    End,
    Record {
        body: usize,
        len: usize,
        lines: u32,
        flags: u8,
        next: usize,
        line_adv: u64,
    },
    Blank {
        byte: u64,
        bom: bool,
        next: usize,
        line_adv: u64,
    },
    TooLarge {
        byte: u64,
        len: u64,
        bom: bool,
        next: usize,
        line_adv: u64,
    },
}

impl<R: Read> Splitter<Reading<R>> {
    pub fn new(reader: R, max_record_bytes: usize) -> Self {
        Self::with_kernel(reader, max_record_bytes, Kernel::best())
    }

    /// With the given block implementation (tests compare them all; frames never differ).
    pub fn with_kernel(reader: R, max_record_bytes: usize, kernel: Kernel) -> Self {
        let buf = Reading {
            reader,
            buf: vec![0; CHUNK],
        };
        Splitter::over(buf, max_record_bytes, kernel)
    }
}

impl<'a> Splitter<InPlace<'a, fn(usize, usize) -> io::Result<()>>> {
    /// Splits `bytes` where they lie.
    pub fn in_place(bytes: &'a [u8], max_record_bytes: usize) -> Self {
        let pace: fn(usize, usize) -> io::Result<()> = |_, _| Ok(());
        Splitter::over(InPlace::new(bytes, pace), max_record_bytes, Kernel::best())
    }
}

impl<S: Source> Splitter<S> {
    /// Where the bytes come from (to give a push source more).
    pub(crate) fn source_mut(&mut self) -> &mut S {
        &mut self.buf
    }

    /// Splits the bytes of `source` with the given block implementation.
    pub fn over(source: S, max_record_bytes: usize, kernel: Kernel) -> Self {
        Splitter {
            buf: source,
            max: max_record_bytes,
            start: 0,
            end: 0,
            base: 0,
            eof: false,
            bytes_read: 0,
            line: 1,
            records: 0,
            doc: true,
            scan: Scan::LineStart,
            prefix: Prefix::new(),
            index: LineIndex::new(kernel),
            utf8: false,
            utf8_from: 0,
            utf8_to: 0,
            pass: passing::Pass::default(),
            #[cfg(test)]
            work: 0,
        }
    }

    /// Splits `source` from here on, the part of a larger input that starts at `at`: at input
    /// offset `at.byte`, on physical line `at.line`, after `at.record` records. Every position
    /// counts from there. The splitter starts afresh, as at the start of an input, and keeps
    /// only its buffers and settings.
    pub fn restart(&mut self, source: S, at: Position) {
        self.buf = source;
        (self.start, self.end, self.base) = (0, 0, at.byte);
        (self.eof, self.bytes_read) = (false, 0);
        (self.line, self.records) = (at.line, at.record);
        self.doc = at.byte == 0;
        self.scan = Scan::LineStart;
        self.prefix.reset();
        self.index.invalidate();
        (self.utf8_from, self.utf8_to) = (at.byte, at.byte);
        self.pass.reset();
    }

    /// Where the next frame starts, as a blank line there would be placed: its input offset
    /// (before any BOM), its physical line, and the records before it.
    pub fn next_start(&self) -> Position {
        Position {
            byte: self.base + self.start as u64,
            line: self.line,
            record: self.records,
        }
    }

    /// Total bytes read from the reader so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Lending iterator: the returned frame borrows the splitter's buffer until the next call.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        let done = match self.indexed_line() {
            Some(done) => done,
            None => loop {
                match self.advance() {
                    Some(done) => break done,
                    None => self.fill()?,
                }
            },
        };
        Ok(self.emit(done))
    }

    /// The hot path: at a line start, the index already holds the line's LF, and the line is
    /// decided here. Only a plain record (no BOM, not blank, within the limit, ending outside
    /// any string) is decided in a few steps; the rest go through the general rules.
    #[inline(always)]
    fn indexed_line(&mut self) -> Option<Done> {
        if !matches!(self.scan, Scan::LineStart) {
            return None;
        }
        let s = self.start;
        let (lf, in_str) = self.index.take(s)?;
        // A BOM starts with 0xEF; a blank line with one of these or its LF.
        let unusual = lf == s || matches!(self.buf[s], b' ' | b'\t' | b'\r' | 0xEF);
        if in_str || unusual || lf - s > self.max || self.doc {
            return match self.line_end(self.bom_at(s, lf), lf, in_str) {
                Flow::Done(done) => Some(done),
                // A join goes on from its scan state.
                Flow::Again | Flow::NeedData => None,
            };
        }
        let content_end = if self.buf[lf - 1] == CR { lf - 1 } else { lf };
        tick!(self, content_end - s);
        Some(Done::Record {
            body: s,
            len: content_end - s,
            lines: 1,
            flags: 0,
            next: lf + 1,
            line_adv: 1,
        })
    }

    /// The length of a BOM at the start of the line from `s` to its LF at `lf`.
    fn bom_at(&self, s: usize, lf: usize) -> usize {
        if self.buf[s..lf].starts_with(&BOM) {
            BOM.len()
        } else {
            0
        }
    }

    #[cfg(test)]
    fn capacity(&self) -> usize {
        self.buf.len()
    }

    #[cfg(test)]
    fn work(&self) -> u64 {
        self.work + self.index.work()
    }

    fn fill(&mut self) -> io::Result<()> {
        debug_assert!(!self.eof, "asked for more input after the end");
        // An undecided frame never exceeds max + SLACK bytes, so this cap is never the reason
        // a frame does not fit.
        let cap = self.max.saturating_add(SLACK).saturating_add(CHUNK);
        let moved = self.buf.make_room(self.start, self.end, cap);
        if moved > 0 {
            // Only the undecided frame is moved, and `start` stays 0 until that frame is
            // handed out, so every byte is moved at most a constant number of times.
            tick!(self, self.end - self.start);
            self.index.shift(moved);
            self.base += moved as u64;
            self.end -= moved;
            self.start -= moved;
        }
        let n = self.buf.more(self.start, self.end)?;
        if n == 0 {
            self.eof = true;
        }
        self.end += n;
        self.bytes_read += n as u64;
        if self.utf8 {
            self.check_utf8();
        }
        Ok(())
    }

    /// Also checks the input for UTF-8 as it is read, a whole read at once, and flags the
    /// records found valid ([`UTF8`]), which costs less than a check per record. Framing alone
    /// does not need it.
    pub fn checking_utf8(mut self) -> Self {
        self.utf8 = true;
        self
    }

    /// Checks the bytes read since the last call for UTF-8, all at once, once: a character the
    /// read cuts waits for the next read. A read with an invalid byte ends the valid run, and
    /// the next one starts after it: the records it holds are checked one by one, as the
    /// records of a binary input are. (Locating each error instead would scan the rest of the
    /// read once per error: quadratic on binary input.)
    fn check_utf8(&mut self) {
        let start = self.base + self.start as u64;
        if start > self.utf8_to {
            // Bytes skipped unread (a record over the limit): the run starts again here.
            (self.utf8_from, self.utf8_to) = (start, start);
        }
        let at = (self.utf8_to - self.base) as usize;
        let upto = if self.eof {
            self.end
        } else {
            at + complete_prefix(&self.buf[at..self.end])
        };
        tick!(self, upto - at);
        if simdutf8::basic::from_utf8(&self.buf[at..upto]).is_err() {
            self.utf8_from = self.base + upto as u64;
        }
        self.utf8_to = self.base + upto as u64;
    }

    fn advance(&mut self) -> Option<Done> {
        loop {
            let flow = match self.scan {
                Scan::LineStart => self.line_start(),
                Scan::Line { body } => self.first_line(body),
                Scan::ByteWise {
                    body,
                    scanned,
                    in_str,
                    esc,
                } => self.first_line_slow(body, scanned, in_str, esc),
                Scan::Join {
                    body,
                    first_lf,
                    at,
                    lines,
                    doc,
                } => self.join(body, first_lf, at, lines, doc),
                Scan::Skip { .. } => self.skip(),
            };
            match flow {
                Flow::Done(done) => return Some(done),
                Flow::NeedData => {
                    debug_assert!(!self.eof);
                    return None;
                }
                Flow::Again => {}
            }
        }
    }

    fn line_start(&mut self) -> Flow {
        let s = self.start;
        // The hot path: the index already holds this line's LF. Then the line cannot be a cut
        // BOM waiting for more bytes.
        if let Some((lf, in_str)) = self.index.take(s) {
            return self.line_end(self.bom_at(s, lf), lf, in_str);
        }
        let avail = &self.buf[s..self.end];
        if avail.len() < BOM.len() && !self.eof && BOM.starts_with(avail) {
            return Flow::NeedData;
        }
        if avail.is_empty() {
            return Flow::Done(Done::End);
        }
        let body = if avail.starts_with(&BOM) {
            BOM.len()
        } else {
            0
        };
        self.scan = Scan::Line { body };
        Flow::Again
    }

    /// Most lines end outside any string and never meet the grammar automaton; the index
    /// finds their ends many lines at a time.
    fn first_line(&mut self, body: usize) -> Flow {
        let s = self.start;
        match self.index.find(&self.buf, self.end, s) {
            Found::Lf { at, in_str } => self.line_end(body, at, in_str),
            Found::End { in_str, .. } => self.no_lf_yet(body, in_str),
            Found::Backslash(at) => {
                self.scan = Scan::ByteWise {
                    body,
                    scanned: at - s,
                    in_str: false,
                    esc: false,
                };
                Flow::Again
            }
        }
    }

    /// The first line from `scanned` on, with the byte tracker wherever a backslash stands
    /// outside a string.
    fn first_line_slow(&mut self, body: usize, scanned: usize, in_str: bool, esc: bool) -> Flow {
        let s = self.start;
        let from = s + scanned;
        let lf = memchr(LF, &self.buf[from..self.end]).map(|i| from + i);
        let upto = lf.unwrap_or(self.end);
        tick!(self, upto - from);
        let (in_str, esc) = super::simd::string_state_within(in_str, esc, &self.buf, from..upto)
            .unwrap_or_else(|| string_state_bytewise(in_str, esc, &self.buf[from..upto]));
        match lf {
            Some(lf) => self.line_end(body, lf, in_str),
            None => {
                self.scan = Scan::ByteWise {
                    body,
                    scanned: self.end - s,
                    in_str,
                    esc,
                };
                self.no_lf_yet(body, in_str)
            }
        }
    }

    /// The first line has no LF in the buffer; `in_str` is the string state at its end.
    fn no_lf_yet(&mut self, body: usize, in_str: bool) -> Flow {
        let b0 = self.start + body;
        let bom = body != 0;
        let n = self.end - b0;
        let next = self.end;
        if self.eof {
            self.doc = false;
            let bytes = &self.buf[b0..self.end];
            tick!(self, n);
            return Flow::Done(if is_blank(bytes) && !(self.pass.on && n > self.max) {
                self.blank(b0, bom, next, 0)
            } else if n > self.max {
                self.too_large(b0, n, bom, next, 0)
            } else {
                let cut = if in_str { ENDS_IN_STRING } else { 0 };
                Done::Record {
                    body: b0,
                    len: n,
                    lines: 1,
                    flags: bom_flag(bom) | NO_FINAL_LF | cut,
                    next,
                    line_adv: 0,
                }
            });
        }
        if n > 0 && over_limit(n - 1, self.buf[self.end - 1], self.max) {
            self.doc = false;
            tick!(self, n);
            self.index.invalidate();
            self.pass.enter(b0);
            self.scan = Scan::Skip {
                byte: self.base + b0 as u64,
                bom,
                len: n as u64,
                last_cr: self.buf[self.end - 1] == CR,
                all_ws: is_blank(&self.buf[b0..self.end]),
                line_adv: 1,
            };
            self.start = self.end;
            return Flow::Again;
        }
        Flow::NeedData
    }

    /// The first line ends at the LF at `lf`, inside a string or not.
    fn line_end(&mut self, body: usize, lf: usize, in_str: bool) -> Flow {
        let doc = std::mem::take(&mut self.doc);
        let s = self.start;
        let b0 = s + body;
        let bom = body != 0;
        let content_end = if lf > b0 && self.buf[lf - 1] == CR {
            lf - 1
        } else {
            lf
        };
        let n = content_end - b0;
        let next = lf + 1;
        tick!(self, n);
        if is_blank(&self.buf[b0..content_end]) && !(self.pass.on && n > self.max) {
            return Flow::Done(self.blank(b0, bom, next, 1));
        }
        if n > self.max {
            // Any join would only be longer, so there is nothing to decide.
            return Flow::Done(self.too_large(b0, n, bom, next, 1));
        }
        let single = Done::Record {
            body: b0,
            len: n,
            lines: 1,
            flags: bom_flag(bom),
            next,
            line_adv: 1,
        };
        if !in_str {
            if doc && self.opens_document(b0, next) {
                self.scan = Scan::Join {
                    body,
                    first_lf: lf - s,
                    at: next - s,
                    lines: 2,
                    doc: true,
                };
                return Flow::Again;
            }
            return Flow::Done(single);
        }
        // The LF itself is fed too: after a lone backslash it is an invalid escape, so such a
        // line is as broken as any other and does not continue.
        self.prefix.reset();
        tick!(self, next - b0);
        if !self.prefix.feed(&self.buf[b0..next]) || !self.prefix.in_plain_string() {
            return Flow::Done(single);
        }
        self.scan = Scan::Join {
            body,
            first_lf: lf - s,
            at: next - s,
            lines: 2,
            doc: false,
        };
        Flow::Again
    }

    /// The input's first line, `b0..next` with its LF, opens an object it does not close and
    /// ends outside any string: the whole input may be one pretty-printed document. Only the
    /// first line is asked, so that the lines of a stream never meet the grammar automaton.
    fn opens_document(&mut self, b0: usize, next: usize) -> bool {
        let line = &self.buf[b0..next];
        if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return false;
        }
        self.prefix.reset();
        tick!(self, line.len());
        self.prefix.feed(line) && !self.prefix.in_string() && !self.prefix.complete()
    }

    fn skip(&mut self) -> Flow {
        let Scan::Skip {
            byte,
            bom,
            len,
            last_cr,
            all_ws,
            line_adv,
        } = self.scan
        else {
            unreachable!("skip() called outside Scan::Skip");
        };
        let from = self.start;
        let lf = memchr(LF, &self.buf[from..self.end]).map(|i| from + i);
        let upto = lf.unwrap_or(self.end);
        tick!(self, upto - from);
        let seg = &self.buf[from..upto];
        let len = len + seg.len() as u64;
        let last_cr = seg.last().map_or(last_cr, |&b| b == CR);
        let all_ws = all_ws && is_blank(seg);
        let (next, len, line_adv) = match lf {
            Some(lf) => {
                self.pass.ends_at(lf, last_cr);
                (lf + 1, len - u64::from(last_cr), line_adv)
            }
            None if self.eof => {
                self.pass.ends_at(self.end, false);
                (self.end, len, 0)
            }
            None => {
                self.start = self.end;
                self.scan = Scan::Skip {
                    byte,
                    bom,
                    len,
                    last_cr,
                    all_ws,
                    line_adv,
                };
                return Flow::NeedData;
            }
        };
        // Passed on, a line over the limit stays one whatever it holds (see `passing`).
        Flow::Done(if all_ws && !self.pass.on {
            Done::Blank {
                byte,
                bom,
                next,
                line_adv,
            }
        } else {
            Done::TooLarge {
                byte,
                len,
                bom,
                next,
                line_adv,
            }
        })
    }

    fn blank(&self, b0: usize, bom: bool, next: usize, line_adv: u64) -> Done {
        Done::Blank {
            byte: self.base + b0 as u64,
            bom,
            next,
            line_adv,
        }
    }

    fn too_large(&self, b0: usize, len: usize, bom: bool, next: usize, line_adv: u64) -> Done {
        Done::TooLarge {
            byte: self.base + b0 as u64,
            len: len as u64,
            bom,
            next,
            line_adv,
        }
    }

    fn emit(&mut self, done: Done) -> Option<Frame<'_>> {
        self.scan = Scan::LineStart;
        let line = self.line;
        match done {
            Done::End => None,
            Done::Record {
                body,
                len,
                lines,
                flags,
                next,
                line_adv,
            } => {
                self.records += 1;
                self.start = next;
                self.line += line_adv;
                let pos = Position {
                    byte: self.base + body as u64,
                    line,
                    record: self.records,
                };
                let utf8 = pos.byte >= self.utf8_from && pos.byte + len as u64 <= self.utf8_to;
                Some(Frame::Record(Record {
                    bytes: &self.buf[body..body + len],
                    pos,
                    lines,
                    flags: if utf8 { flags | UTF8 } else { flags },
                }))
            }
            Done::Blank {
                byte,
                bom,
                next,
                line_adv,
            } => {
                self.start = next;
                self.line += line_adv;
                let pos = Position {
                    byte,
                    line,
                    record: self.records,
                };
                Some(Frame::Blank { pos, bom })
            }
            Done::TooLarge {
                byte,
                len,
                bom,
                next,
                line_adv,
            } => {
                self.records += 1;
                self.start = next;
                self.line += line_adv;
                let pos = Position {
                    byte,
                    line,
                    record: self.records,
                };
                Some(Frame::TooLarge { pos, len, bom })
            }
        }
    }
}

fn bom_flag(bom: bool) -> u8 {
    if bom { BOM_STRIPPED } else { 0 }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// Whether a byte at offset `q` from the record start, known not to be its terminating LF,
/// proves the record longer than `max`. A CR exactly at the limit proves nothing yet: it may be
/// the CR of a CRLF terminator.
fn over_limit(q: usize, b: u8, max: usize) -> bool {
    q > max || (q == max && b != CR)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::record::{DOCUMENT, JOIN_FAILED, MULTILINE, OwnedFrame as Owned};
    use proptest::prelude::*;
    use std::io::ErrorKind;

    fn own(frame: Frame<'_>) -> Owned {
        // The UTF-8 flag depends on how the input was read; when set, it must be true.
        if let Frame::Record(r) = frame
            && r.has(UTF8)
        {
            assert!(std::str::from_utf8(r.bytes).is_ok(), "{r:?}");
        }
        let mut owned = frame.to_owned_frame();
        if let Owned::Record { flags, .. } = &mut owned {
            *flags &= !UTF8;
        }
        owned
    }

    fn at(byte: u64, line: u64, record: u64) -> Position {
        Position { byte, line, record }
    }

    fn rec(bytes: &[u8], pos: Position, lines: u32, flags: u8) -> Owned {
        Owned::Record {
            bytes: bytes.to_vec(),
            pos,
            lines,
            flags,
        }
    }

    fn blank(pos: Position, bom: bool) -> Owned {
        Owned::Blank { pos, bom }
    }

    fn big(pos: Position, len: u64, bom: bool) -> Owned {
        Owned::TooLarge { pos, len, bom }
    }

    /// Reads in the given sizes, cycling; reads whose size is a multiple of 3 are preceded by
    /// an `Interrupted` error, which the splitter must retry.
    struct Chunked<'a> {
        data: &'a [u8],
        sizes: &'a [usize],
        turn: usize,
        interrupted: bool,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes[self.turn % self.sizes.len()];
            if size.is_multiple_of(3) && !self.interrupted {
                self.interrupted = true;
                return Err(ErrorKind::Interrupted.into());
            }
            self.interrupted = false;
            self.turn += 1;
            let n = size.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn frames_with(input: &[u8], max: usize, sizes: &[usize]) -> Vec<Owned> {
        frames_kernel(input, max, sizes, Kernel::best())
    }

    fn frames_kernel(input: &[u8], max: usize, sizes: &[usize], kernel: Kernel) -> Vec<Owned> {
        let reader = Chunked {
            data: input,
            sizes,
            turn: 0,
            interrupted: false,
        };
        let mut splitter = Splitter::with_kernel(reader, max, kernel).checking_utf8();
        let mut out = Vec::new();
        while let Some(frame) = splitter.next_frame().unwrap() {
            out.push(own(frame));
        }
        assert!(splitter.next_frame().unwrap().is_none());
        assert_eq!(splitter.bytes_read(), input.len() as u64);
        check_cover(input, max, &out);
        // The same input split where it lies, in steps of the first read size: the same
        // frames, and every step announced once, in order, with only decided bytes done with.
        let mut paced = 0;
        let mut done = 0;
        let pace = |start: usize, end: usize| {
            assert!(start >= done && start <= paced && end > paced && end <= input.len());
            (done, paced) = (start, end);
            Ok(())
        };
        let in_place = InPlace::with_step(input, sizes[0], pace);
        let mut in_place = Splitter::over(in_place, max, kernel).checking_utf8();
        let mut same = Vec::new();
        let mut starts = Vec::new();
        loop {
            starts.push(in_place.next_start());
            match in_place.next_frame().unwrap() {
                Some(frame) => same.push(own(frame)),
                None => break,
            }
        }
        assert_eq!(in_place.bytes_read(), input.len() as u64);
        drop(in_place);
        assert_eq!(paced, input.len());
        assert_eq!(same, out, "in place, steps of {}", sizes[0]);
        restarted_anywhere(input, max, sizes[0], kernel, &starts, &out);
        out
    }

    /// A splitter restarted where any frame starts, on the rest of the input alone (first step
    /// `first`), gives the frames from there on, at the same positions; the last start is the
    /// end of the input.
    fn restarted_anywhere(
        input: &[u8],
        max: usize,
        first: usize,
        kernel: Kernel,
        starts: &[Position],
        out: &[Owned],
    ) {
        assert_eq!(starts.last().map(|p| p.byte), Some(input.len() as u64));
        let no_pace: fn(usize, usize) -> io::Result<()> = |_, _| Ok(());
        let mut splitter = Splitter::over(InPlace::new(&[], no_pace), max, kernel).checking_utf8();
        // Every start of a short input; of a longer one, some.
        let every = (starts.len() / 6).max(1);
        for (k, &at) in starts.iter().enumerate().step_by(every) {
            let rest = InPlace::new(&input[at.byte as usize..], no_pace).first_step(first);
            splitter.restart(rest, at);
            let mut tail = Vec::new();
            while let Some(frame) = splitter.next_frame().unwrap() {
                tail.push(own(frame));
            }
            assert_eq!(tail, out[k..], "restarted at {at:?}");
            assert_eq!(splitter.next_start().byte, input.len() as u64);
        }
    }

    #[test]
    fn first_step_then_small_growing_steps() {
        let input = vec![b'x'; 100_000];
        let mut ends = Vec::new();
        let pace = |_: usize, end: usize| {
            ends.push(end);
            Ok(())
        };
        let mut source = InPlace::with_step(&input, 20_000, pace).first_step(1000);
        let mut end = 0;
        loop {
            let n = source.more(0, end).unwrap();
            if n == 0 {
                break;
            }
            end += n;
        }
        assert_eq!(
            ends,
            [1000, 5096, 13288, 29672, 49672, 69672, 89672, 100_000]
        );
    }

    fn frames(input: &[u8], max: usize, chunk: usize) -> Vec<Owned> {
        frames_with(input, max, &[chunk])
    }

    fn whole(input: &[u8], max: usize) -> Vec<Owned> {
        frames(input, max, usize::MAX)
    }

    fn count_lf(bytes: &[u8]) -> u64 {
        bytes.iter().filter(|&&b| b == LF).count() as u64
    }

    /// Where a record or too-large frame ending at `end` stops consuming input.
    fn after_terminator(input: &[u8], end: usize, no_final_lf: bool) -> usize {
        if no_final_lf {
            assert_eq!(end, input.len(), "NO_FINAL_LF record not at the end");
            return end;
        }
        if input[end..].starts_with(b"\r\n") {
            end + 2
        } else {
            assert_eq!(
                input.get(end),
                Some(&LF),
                "record not followed by its terminator"
            );
            assert_ne!(input[end - 1], CR, "CR before LF left in the record");
            end + 1
        }
    }

    /// Checks every frame against the input independently of the splitter: frames tile the
    /// input in order from physical line starts, bytes are the input's bytes, line and record
    /// numbers are what counting gives, and nothing is lost at the end.
    fn check_cover(input: &[u8], max: usize, frames: &[Owned]) {
        let mut consumed = 0;
        let mut records = 0;
        for frame in frames {
            let (pos, bom) = match frame {
                Owned::Record { pos, flags, .. } => (*pos, flags & BOM_STRIPPED != 0),
                Owned::Blank { pos, bom } | Owned::TooLarge { pos, bom, .. } => (*pos, *bom),
            };
            let start = pos.byte as usize - if bom { BOM.len() } else { 0 };
            assert_eq!(start, consumed, "gap or overlap before {frame:?}");
            assert!(start == 0 || input[start - 1] == LF);
            assert_eq!(input[start..].starts_with(&BOM), bom);
            assert_eq!(pos.line, 1 + count_lf(&input[..start]));
            let body = pos.byte as usize;
            consumed = match frame {
                Owned::Record {
                    bytes,
                    lines,
                    flags,
                    ..
                } => {
                    records += 1;
                    assert!(bytes.len() <= max);
                    assert!(!is_blank(bytes));
                    assert_eq!(&input[body..body + bytes.len()], &bytes[..]);
                    assert_eq!(u64::from(*lines), 1 + count_lf(bytes));
                    assert_eq!(*lines > 1, flags & MULTILINE != 0);
                    if flags & ENDS_IN_STRING != 0 {
                        assert!(flags & (NO_FINAL_LF | JOIN_FAILED) != 0);
                    }
                    after_terminator(input, body + bytes.len(), flags & NO_FINAL_LF != 0)
                }
                Owned::Blank { .. } => {
                    let end = memchr(LF, &input[body..]).map_or(input.len(), |i| body + i);
                    assert!(is_blank(&input[body..end]));
                    (end + 1).min(input.len())
                }
                Owned::TooLarge { len, .. } => {
                    records += 1;
                    assert!(*len as usize > max);
                    let end = body + *len as usize;
                    after_terminator(input, end, end == input.len())
                }
            };
            assert_eq!(pos.record, records);
        }
        assert_eq!(consumed, input.len(), "input not fully covered");
    }

    /// The rules restated as a plain byte-at-a-time pass over the whole input: no buffer, no
    /// memchr, no carried scan state.
    fn reference(input: &[u8], max: usize) -> Vec<Owned> {
        let mut out = Vec::new();
        let (mut start, mut line, mut records) = (0, 1, 0);
        while start < input.len() {
            let bom = input[start..].starts_with(&BOM);
            let b0 = start + if bom { 3 } else { 0 };
            let flag = if bom { BOM_STRIPPED } else { 0 };
            let pos = move |record| at(b0 as u64, line, record);
            let Some(lf) = lf_from(input, b0) else {
                let content = &input[b0..];
                out.push(if is_blank(content) {
                    blank(pos(records), bom)
                } else {
                    reference_last(content, pos(records + 1), max, bom)
                });
                break;
            };
            let first = &input[b0..strip_cr(input, b0, lf)];
            start = lf + 1;
            line += 1;
            if is_blank(first) {
                out.push(blank(pos(records), bom));
                continue;
            }
            records += 1;
            let pos = pos(records);
            if first.len() > max {
                out.push(big(pos, first.len() as u64, bom));
                continue;
            }
            let mut prefix = Prefix::new();
            let opens = input[b0..lf].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
            if b0 == usize::from(bom) * 3
                && opens
                && !naive_in_string(&input[b0..lf])
                && input[b0..=lf].iter().all(|&b| prefix.step(b))
                && !prefix.complete()
            {
                let (frame, joined) = reference_join(input, (b0, lf), pos, max, bom, prefix, true);
                out.push(frame);
                if let Some((next, lines)) = joined {
                    start = next;
                    line += u64::from(lines) - 1;
                }
                continue;
            }
            prefix = Prefix::new();
            if !naive_in_string(&input[b0..lf])
                || !input[b0..=lf].iter().all(|&b| prefix.step(b))
                || !prefix.in_plain_string()
            {
                out.push(rec(first, pos, 1, flag));
                continue;
            }
            let (frame, joined) = reference_join(input, (b0, lf), pos, max, bom, prefix, false);
            out.push(frame);
            if let Some((next, lines)) = joined {
                start = next;
                line += u64::from(lines) - 1;
            }
        }
        out
    }

    /// The first LF at or after `i`.
    fn lf_from(input: &[u8], i: usize) -> Option<usize> {
        input[i..].iter().position(|&b| b == LF).map(|k| i + k)
    }

    /// The end `e` of a line that starts at `b0`, less a CR before it.
    fn strip_cr(input: &[u8], b0: usize, e: usize) -> usize {
        if e > b0 && input[e - 1] == CR {
            e - 1
        } else {
            e
        }
    }

    /// Whether `bytes` end inside a JSON string, by quotes and backslashes alone.
    fn naive_in_string(bytes: &[u8]) -> bool {
        let (mut in_str, mut esc) = (false, false);
        for &b in bytes {
            if esc {
                esc = false;
            } else if in_str {
                in_str = b != b'"';
                esc = b == b'\\';
            } else {
                in_str = b == b'"';
            }
        }
        in_str
    }

    /// The frame of `content`, the last line of the input, which no LF ends and which is not
    /// blank.
    fn reference_last(content: &[u8], pos: Position, max: usize, bom: bool) -> Owned {
        let flag = if bom { BOM_STRIPPED } else { 0 };
        if content.len() > max {
            big(pos, content.len() as u64, bom)
        } else {
            let cut = if naive_in_string(content) {
                ENDS_IN_STRING
            } else {
                0
            };
            rec(content, pos, 1, flag | NO_FINAL_LF | cut)
        }
    }

    /// The record at `pos` whose first line (from `b0` to the LF at `lf`) ends inside a string,
    /// joined with the lines after it while `prefix` says they can still be one JSON text: its
    /// frame, and, when it is more than its first line, where the next one starts and how many
    /// lines it took. With `doc`, the first line opened an object (at the input's start): the
    /// record ends at the LF after the object closes, and the first line stands alone,
    /// unflagged, where it never closes.
    fn reference_join(
        input: &[u8],
        (b0, lf): (usize, usize),
        pos: Position,
        max: usize,
        bom: bool,
        mut prefix: Prefix,
        doc: bool,
    ) -> (Owned, Option<(usize, u32)>) {
        let flag = if bom { BOM_STRIPPED } else { 0 };
        let failed = if doc { flag } else { flag | JOIN_FAILED };
        let whole = if doc { MULTILINE | DOCUMENT } else { MULTILINE };
        let first = &input[b0..strip_cr(input, b0, lf)];
        let mut q = lf + 1;
        let mut lines = 2;
        loop {
            if q == input.len() {
                return if doc && !prefix.complete() {
                    (rec(first, pos, 1, flag), None)
                } else if prefix.in_string() {
                    let flags = flag | JOIN_FAILED | ENDS_IN_STRING;
                    (rec(first, pos, 1, flags), None)
                } else if q - b0 > max {
                    (big(pos, (q - b0) as u64, bom), Some((q, lines)))
                } else {
                    let flags = flag | whole | NO_FINAL_LF;
                    (rec(&input[b0..q], pos, lines, flags), Some((q, lines)))
                };
            }
            let b = input[q];
            if b == LF
                && (if doc {
                    prefix.complete()
                } else {
                    !prefix.in_string()
                })
            {
                let bytes = &input[b0..strip_cr(input, b0, q)];
                return (rec(bytes, pos, lines, flag | whole), Some((q + 1, lines)));
            }
            if !prefix.step(b) {
                return (rec(first, pos, 1, failed), None);
            }
            if b == LF {
                lines += 1;
            }
            if q - b0 > max || (q - b0 == max && b != CR) {
                let (len, next) = match lf_from(input, q + 1) {
                    Some(e) => (strip_cr(input, b0, e) - b0, e + 1),
                    None => (input.len() - b0, input.len()),
                };
                return (big(pos, len as u64, bom), Some((next, lines)));
            }
            q += 1;
        }
    }

    const BOMS: &str = "\u{feff}";

    #[test]
    fn plain_records() {
        let input = b"{\"a\":1}\n{\"b\":2}\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{\"a\":1}", at(0, 1, 1), 1, 0),
                rec(b"{\"b\":2}", at(8, 2, 2), 1, 0),
            ]
        );
    }

    #[test]
    fn a_pretty_printed_document_is_one_record() {
        let doc = b"{\n  \"a\": [\n    1,\n    {\"b\": \"x\\ny\"}\n  ]\n}\n";
        let all = whole(doc, 100);
        assert_eq!(
            all,
            vec![rec(
                &doc[..doc.len() - 1],
                at(0, 1, 1),
                6,
                MULTILINE | DOCUMENT
            )]
        );
        assert_eq!(all, reference(doc, 100));
        // Without a final LF, and with lines after it.
        let cut = &doc[..doc.len() - 1];
        assert_eq!(
            whole(cut, 100),
            vec![rec(cut, at(0, 1, 1), 6, MULTILINE | NO_FINAL_LF | DOCUMENT)]
        );
        let mut more = doc.to_vec();
        more.extend_from_slice(b"{\"c\":1}\n");
        let frames = whole(&more, 100);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames, reference(&more, 100));
    }

    #[test]
    fn a_document_that_never_closes_is_split_into_lines_as_before() {
        for input in [
            &b"{\n  \"a\": 1,\n"[..],
            b"{\n  \"a\": 1\n} x\n",
            b"{\"a\":1,\n{\"b\":2}\n",
        ] {
            let frames = whole(input, 100);
            assert_eq!(frames, reference(input, 100));
            let Owned::Record { flags, lines, .. } = &frames[0] else {
                panic!("a record first");
            };
            assert_eq!((*flags, *lines), (0, 1));
        }
        // Only at the input's start: a later line that opens an object is a line.
        let later = b"{\"a\":1}\n{\n}\n";
        assert_eq!(whole(later, 100).len(), 3);
        // Over the limit, it is too large, not read whole.
        let big = b"{\n  \"a\": \"0123456789012345678901234567890123456789\"\n}\n";
        assert_eq!(whole(big, 20), reference(big, 20));
        assert!(matches!(whole(big, 20)[0], Owned::TooLarge { .. }));
    }

    #[test]
    fn crlf_terminators_are_stripped_once() {
        let input = b"{\"a\":1}\r\n{\"b\":2}\r\r\n[]\r\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{\"a\":1}", at(0, 1, 1), 1, 0),
                rec(b"{\"b\":2}\r", at(9, 2, 2), 1, 0),
                rec(b"[]", at(19, 3, 3), 1, 0),
            ]
        );
    }

    #[test]
    fn bom_at_start_and_mid_stream() {
        let input = format!("{BOMS}{{\"a\":1}}\n{BOMS}{{\"b\":2}}\n{BOMS}\n\u{feff}");
        assert_eq!(
            whole(input.as_bytes(), 100),
            vec![
                rec(b"{\"a\":1}", at(3, 1, 1), 1, BOM_STRIPPED),
                rec(b"{\"b\":2}", at(14, 2, 2), 1, BOM_STRIPPED),
                blank(at(25, 3, 2), true),
                blank(at(29, 4, 2), true),
            ]
        );
        // A BOM inside a line, or cut short, stays in the bytes.
        let input = b"{}\xEF\xBB\xBF\n\xEF\xBB";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{}\xEF\xBB\xBF", at(0, 1, 1), 1, 0),
                rec(b"\xEF\xBB", at(6, 2, 2), 1, NO_FINAL_LF),
            ]
        );
    }

    #[test]
    fn blank_and_whitespace_lines() {
        let input = b"\n \t\r\n{}\n\r\n  ";
        assert_eq!(
            whole(input, 100),
            vec![
                blank(at(0, 1, 0), false),
                blank(at(1, 2, 0), false),
                rec(b"{}", at(5, 3, 1), 1, 0),
                blank(at(8, 4, 1), false),
                blank(at(10, 5, 1), false),
            ]
        );
    }

    #[test]
    fn final_record_without_lf() {
        assert_eq!(
            whole(b"{\"a\":1}\n{\"b\":2}", 100),
            vec![
                rec(b"{\"a\":1}", at(0, 1, 1), 1, 0),
                rec(b"{\"b\":2}", at(8, 2, 2), 1, NO_FINAL_LF),
            ]
        );
        assert_eq!(
            whole(b"{}\r", 100),
            vec![rec(b"{}\r", at(0, 1, 1), 1, NO_FINAL_LF)]
        );
        assert_eq!(
            whole(b"{\"a\":\"cut", 100),
            vec![rec(
                b"{\"a\":\"cut",
                at(0, 1, 1),
                1,
                NO_FINAL_LF | ENDS_IN_STRING
            )]
        );
    }

    #[test]
    fn empty_input_and_only_lfs() {
        assert_eq!(whole(b"", 100), vec![]);
        assert_eq!(
            whole(b"\n\n\n", 100),
            vec![
                blank(at(0, 1, 0), false),
                blank(at(1, 2, 0), false),
                blank(at(2, 3, 0), false),
            ]
        );
    }

    #[test]
    fn raw_lf_in_call_id_joins_two_lines() {
        let input = b"{\"call_id\":\"call_a\nfc_b\",\"x\":1}\n{\"y\":2}\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(
                    b"{\"call_id\":\"call_a\nfc_b\",\"x\":1}",
                    at(0, 1, 1),
                    2,
                    MULTILINE
                ),
                rec(b"{\"y\":2}", at(32, 3, 2), 1, 0),
            ]
        );
    }

    #[test]
    fn unterminated_line_does_not_swallow_the_next() {
        let input = b"{\"a\":\"unterminated\n{\"type\":\"x\"}\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{\"a\":\"unterminated", at(0, 1, 1), 1, JOIN_FAILED),
                rec(b"{\"type\":\"x\"}", at(19, 2, 2), 1, 0),
            ]
        );
        // Trailing garbage after the string closes also fails the join.
        let input = b"{\"a\":\"x\ny\"} z\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{\"a\":\"x", at(0, 1, 1), 1, JOIN_FAILED),
                rec(b"y\"} z", at(8, 2, 2), 1, 0),
            ]
        );
    }

    #[test]
    fn failed_join_resplits_and_the_failing_line_may_join() {
        let input = b"{\"a\":\"x\n{\"b\":\"y\n\"}\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{\"a\":\"x", at(0, 1, 1), 1, JOIN_FAILED),
                rec(b"{\"b\":\"y\n\"}", at(8, 2, 2), 2, MULTILINE),
            ]
        );
    }

    #[test]
    fn end_of_input_inside_a_joined_string() {
        let input = b"{\"text\":\"one\r\ntwo\nthree";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(
                    b"{\"text\":\"one",
                    at(0, 1, 1),
                    1,
                    JOIN_FAILED | ENDS_IN_STRING
                ),
                rec(b"two", at(14, 2, 2), 1, 0),
                rec(b"three", at(18, 3, 3), 1, NO_FINAL_LF),
            ]
        );
        // A join that is complete at the end of input is one record.
        assert_eq!(
            whole(b"{\"a\":\"x\ny\"}", 100),
            vec![rec(
                b"{\"a\":\"x\ny\"}",
                at(0, 1, 1),
                2,
                MULTILINE | NO_FINAL_LF
            )]
        );
    }

    #[test]
    fn escaped_quote_and_backslash_at_line_end() {
        assert_eq!(
            whole(b"{\"a\":\"x\\\"\ny\"}\n", 100),
            vec![rec(b"{\"a\":\"x\\\"\ny\"}", at(0, 1, 1), 2, MULTILINE)]
        );
        assert_eq!(
            whole(b"{\"a\":\"x\\\\\ny\"}\n", 100),
            vec![rec(b"{\"a\":\"x\\\\\ny\"}", at(0, 1, 1), 2, MULTILINE)]
        );
        assert_eq!(
            whole(b"{\"a\":\"x\\\\\"}\n{\"b\":1}\n", 100),
            vec![
                rec(b"{\"a\":\"x\\\\\"}", at(0, 1, 1), 1, 0),
                rec(b"{\"b\":1}", at(12, 2, 2), 1, 0),
            ]
        );
    }

    #[test]
    fn lone_backslash_before_lf_does_not_join() {
        let input = b"{\"a\":\"x\\\ny\"}\n{\"b\":1}\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"{\"a\":\"x\\", at(0, 1, 1), 1, 0),
                rec(b"y\"}", at(9, 2, 2), 1, 0),
                rec(b"{\"b\":1}", at(13, 3, 3), 1, 0),
            ]
        );
    }

    #[test]
    fn broken_line_ending_in_string_never_continues() {
        let input = b"x \"\nabc\"\n{}\n";
        assert_eq!(
            whole(input, 100),
            vec![
                rec(b"x \"", at(0, 1, 1), 1, 0),
                rec(b"abc\"", at(4, 2, 2), 1, 0),
                rec(b"{}", at(9, 3, 3), 1, 0),
            ]
        );
    }

    fn thirteen_line_result() -> Vec<u8> {
        let text: Vec<String> = (1..=13).map(|i| format!("line {i}")).collect();
        format!(
            "{{\"type\":\"tool_result\",\"result\":\"{}\"}}\n{{\"type\":\"done\"}}\n",
            text.join("\n")
        )
        .into_bytes()
    }

    #[test]
    fn multiline_result_over_13_lines() {
        let input = thirteen_line_result();
        let first_len = input.iter().position(|&b| b == b'}').unwrap() + 1;
        assert_eq!(
            whole(&input, 1000),
            vec![
                rec(&input[..first_len], at(0, 1, 1), 13, MULTILINE),
                rec(
                    b"{\"type\":\"done\"}",
                    at(first_len as u64 + 1, 14, 2),
                    1,
                    0
                ),
            ]
        );
    }

    fn long_line(len: usize) -> Vec<u8> {
        let mut line = b"{\"x\":\"".to_vec();
        line.resize(len - 2, b'a');
        line.extend_from_slice(b"\"}");
        line
    }

    #[test]
    fn too_large_line_is_skipped_and_the_next_is_exact() {
        let mut input = long_line(1000);
        input.extend_from_slice(b"\r\n{\"b\":2}\n");
        for chunk in [1, 7, 64, usize::MAX] {
            assert_eq!(
                frames(&input, 100, chunk),
                vec![
                    big(at(0, 1, 1), 1000, false),
                    rec(b"{\"b\":2}", at(1002, 2, 2), 1, 0),
                ]
            );
        }
    }

    #[test]
    fn limit_is_exact_with_crlf_and_eof() {
        let input = b"abcd\r\nabcde\r\nabc\r";
        for chunk in 1..=input.len() {
            assert_eq!(frames(input, 4, chunk), whole(input, 4), "chunk {chunk}");
        }
        assert_eq!(
            whole(input, 4),
            vec![
                rec(b"abcd", at(0, 1, 1), 1, 0),
                big(at(6, 2, 2), 5, false),
                rec(b"abc\r", at(13, 3, 3), 1, NO_FINAL_LF),
            ]
        );
        assert_eq!(whole(b"abcd\r", 4), vec![big(at(0, 1, 1), 5, false)]);
        assert_eq!(whole(b"a\n", 0), vec![big(at(0, 1, 1), 1, false)]);
    }

    #[test]
    fn whitespace_line_longer_than_the_limit_is_blank() {
        let input = b"          \n{}\n";
        for chunk in [1, 2, usize::MAX] {
            assert_eq!(
                frames(input, 4, chunk),
                vec![blank(at(0, 1, 0), false), rec(b"{}", at(11, 2, 1), 1, 0)]
            );
        }
    }

    #[test]
    fn too_large_join_ends_at_the_physical_lf() {
        let input = b"{\"a\":\"0123456789\n0123456789abcdef\nxyz\"}\n{}\n";
        assert_eq!(
            whole(input, 20),
            vec![
                big(at(0, 1, 1), 33, false),
                rec(b"xyz\"}", at(34, 3, 2), 1, 0),
                rec(b"{}", at(40, 4, 3), 1, 0),
            ]
        );
    }

    #[test]
    fn ten_megabyte_lines_use_constant_memory() {
        let mut single = long_line(10 << 20);
        single.extend_from_slice(b"\n{\"b\":2}\n");
        let mut joined = b"{\"x\":\"a\n".to_vec();
        joined.resize(joined.len() + (10 << 20), b'b');
        joined.extend_from_slice(b"\n{\"b\":2}\n");
        for (input, len) in [(&single, 10 << 20), (&joined, 7 + 1 + (10 << 20))] {
            let mut splitter = Splitter::new(&input[..], 100);
            let frame = own(splitter.next_frame().unwrap().unwrap());
            assert_eq!(frame, big(at(0, 1, 1), len as u64, false));
            let line = 1 + count_lf(&input[..input.len() - 8]);
            let frame = own(splitter.next_frame().unwrap().unwrap());
            let next = rec(b"{\"b\":2}", at(input.len() as u64 - 8, line, 2), 1, 0);
            assert_eq!(frame, next);
            assert!(splitter.next_frame().unwrap().is_none());
            assert!(splitter.capacity() <= CHUNK + 100 + SLACK);
        }
    }

    #[test]
    fn buffer_grows_for_a_record_under_a_large_limit() {
        let mut input = long_line(300_000);
        input.extend_from_slice(b"\n{}\n");
        let mut splitter = Splitter::new(&input[..], 1 << 20);
        let Some(Frame::Record(r)) = splitter.next_frame().unwrap() else {
            panic!("expected a record");
        };
        assert_eq!(r.bytes, &input[..300_000]);
        assert!(splitter.capacity() >= 300_000);
        assert!(splitter.capacity() <= (1 << 20) + SLACK + CHUNK);
        assert_eq!(whole(&input, 1 << 20).len(), 2);
    }

    #[test]
    fn the_utf8_check_is_linear_on_binary_input() {
        let input = b"\xFF\x80 \n".repeat(1 << 18);
        for step in [1 << 20, 4096, 7] {
            let source = InPlace::with_step(&input, step, |_, _| Ok(()));
            let mut splitter = Splitter::over(source, 1 << 20, Kernel::best()).checking_utf8();
            while splitter.next_frame().unwrap().is_some() {}
            assert!(splitter.work() < 8 * input.len() as u64, "steps of {step}");
        }
    }

    #[test]
    fn a_character_cut_by_a_read_waits_for_the_next() {
        let text = "a\u{e9}\u{65e5}\u{1F600}".as_bytes();
        for end in 0..=text.len() {
            let cut = &text[..end];
            // Exactly the complete characters.
            let complete = std::str::from_utf8(cut).map_or_else(|e| e.valid_up_to(), str::len);
            assert_eq!(complete_prefix(cut), complete, "{end}");
        }
        // Bytes that cannot become valid are not held back: checking them finds the error.
        assert_eq!(complete_prefix(b"ab\x80"), 3);
        assert_eq!(complete_prefix(b"ab\xC3\xA9\x80"), 5);
        assert_eq!(complete_prefix(b"ab\xF0\x9F\x98"), 2);
        assert_eq!(complete_prefix(b"\x80\x80\x80"), 3);
    }

    #[test]
    fn utf8_is_checked_per_read_and_known_for_records_after_invalid_bytes() {
        let mut input = BOMS.as_bytes().to_vec();
        input.extend_from_slice("{\"a\":\"é日本\"}\r\n{\"b\":\"\u{1F600}\"}\n".as_bytes());
        input.extend_from_slice(b"{\"bad\":\"\xE6\x97\"}\n\xF0\x9F\n");
        input.extend_from_slice("{\"c\":\"ü\"}\n{\"x\":\"a\nb\"}\n{\"d\":\"ß\"}".as_bytes());
        for size in 1..=9 {
            let reader = Chunked {
                data: &input,
                sizes: &[size],
                turn: 0,
                interrupted: false,
            };
            let mut splitter = Splitter::new(reader, 1000).checking_utf8();
            let mut known = Vec::new();
            while let Some(frame) = splitter.next_frame().unwrap() {
                if let Frame::Record(r) = frame {
                    assert!(!r.has(UTF8) || std::str::from_utf8(r.bytes).is_ok());
                    known.push(r.has(UTF8));
                }
            }
            // Reads of up to 9 bytes: every valid record far enough from the invalid bytes is
            // known valid; the one right after them may share a read with them.
            assert_eq!(known.len(), 7);
            assert_eq!(known[..4], [true, true, false, false], "reads of {size}");
            assert_eq!(known[5..], [true, true], "reads of {size}");
        }
    }

    #[test]
    fn io_errors_are_returned_and_interrupts_retried() {
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                if std::mem::replace(&mut self.0, true) {
                    return Err(io::Error::other("disk gone"));
                }
                out[..3].copy_from_slice(b"{}\n");
                Ok(3)
            }
        }
        let mut splitter = Splitter::new(Failing(false), 100);
        assert!(matches!(splitter.next_frame(), Ok(Some(Frame::Record(_)))));
        let err = splitter.next_frame().unwrap_err();
        assert_eq!(err.to_string(), "disk gone");
        assert_eq!(splitter.bytes_read(), 3);
        // Chunked interrupts before every read of size 3.
        assert_eq!(frames(b"{}\n[]\n", 10, 3).len(), 2);
    }

    /// Every case above in one input, so that chunk boundaries fall everywhere.
    fn rich(tail: &[u8]) -> Vec<u8> {
        let mut input = Vec::new();
        input.extend_from_slice(BOMS.as_bytes());
        input.extend_from_slice(b"{\"type\":\"system\"}\r\n\n   \t\r\n");
        input.extend_from_slice(b"{\"call_id\":\"call_a\nfc_b\",\"x\":1}\n");
        input.extend_from_slice(b"{\"a\":\"unterminated\n{\"type\":\"x\"}\n");
        input.extend_from_slice(BOMS.as_bytes());
        input.extend_from_slice(b"\n{\"a\":\"x\\\"\ny\"}\r\n{\"a\":\"x\\\\\ny\"}\n");
        input.extend_from_slice(b"{\"a\":\"x\\\ny\"}\n");
        input.extend_from_slice(&thirteen_line_result());
        input.extend_from_slice(&long_line(250));
        input.extend_from_slice(b"\n{\"a\":\"0123456789\n");
        input.extend_from_slice(&[b'z'; 220]);
        input.extend_from_slice(b"\nxyz\"}\n");
        input.extend_from_slice(BOMS.as_bytes());
        input.extend_from_slice(b"{\"a\":\"x\n{\"b\":\"y\n\"}\r\n");
        input.extend_from_slice(b"x \"\n\"}\n[\"\\u00e9\",-1.5e+3,true,null,{}]\n");
        // Exactly at the limit with CRLF, then joins ending exactly at and one past it.
        input.extend_from_slice(&long_line(200));
        for k in [190, 191] {
            input.extend_from_slice(b"\r\n{\"a\":\"x\n");
            input.extend_from_slice(&vec![b'y'; k]);
            input.extend_from_slice(b"\"}");
        }
        input.extend_from_slice(b"\r\n");
        input.extend_from_slice(tail);
        input
    }

    fn summary(frames: &[Owned]) -> Vec<String> {
        frames
            .iter()
            .map(|frame| match frame {
                Owned::Record { pos, flags, .. } => format!("R{}:{flags}", pos.line),
                Owned::Blank { pos, .. } => format!("B{}", pos.line),
                Owned::TooLarge { pos, len, .. } => format!("T{}:{len}", pos.line),
            })
            .collect()
    }

    #[test]
    #[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
    fn every_chunk_size_gives_the_same_frames() {
        let body = "R1:2 B2 B3 R4:1 R6:16 R7:0 B8 R9:1 R11:1 R13:0 R14:0 R15:1 R28:0 T29:250 \
                    T30:237 R32:0 R33:18 R34:1 R36:0 R37:16 R38:0 R39:0 R40:1 T42:201";
        for (tail, tail_frames) in [
            (&b"{\"t\":\"tail\nmore\nend"[..], "R44:24 R45:0 R46:4"),
            (b"{\"z\":1}", "R44:4"),
            (b"{\"a\":\"x\ny\"}", "R44:5"),
            (b"  ", "B44"),
            (b"", ""),
        ] {
            let input = rich(tail);
            let expected = whole(&input, 200);
            assert_eq!(expected, reference(&input, 200));
            let want: Vec<&str> = body
                .split_whitespace()
                .chain(tail_frames.split_whitespace())
                .collect();
            assert_eq!(summary(&expected), want);
            for chunk in 1..=input.len() {
                assert_eq!(frames(&input, 200, chunk), expected, "chunk {chunk}");
            }
        }
    }

    /// Long lines (across index windows and buffer refills), escape runs across block edges,
    /// LFs inside strings that join and that do not, backslashes outside strings, BOMs, CRLF,
    /// blank lines and lines over the limit of 30 000 bytes, among many ordinary lines.
    fn long_mixed() -> Vec<u8> {
        let mut input = Vec::new();
        let mut k = 0usize;
        while input.len() < 120_000 {
            k += 1;
            input.extend_from_slice(b"{\"t\":\"");
            input.extend(std::iter::repeat_n(b'a', (k * 53) % 400));
            match k % 17 {
                0 => input.extend_from_slice(&rich(b"")),
                2 => input.extend_from_slice(&long_line(20_000 + k)),
                4 => input.extend_from_slice(&long_line(31_000)),
                6 => {
                    input.extend(std::iter::repeat_n(b'\\', k % 131));
                    input.extend_from_slice(b"\"}");
                }
                8 => input.extend_from_slice(b"\ncall_b\",\"x\":1}"),
                10 => input.extend_from_slice(b"\"} \\ \"x\""),
                12 => input.extend_from_slice(BOMS.as_bytes()),
                14 => input.extend_from_slice(b"\"}\r\n   "),
                _ => input.extend_from_slice(b"\"}"),
            }
            input.push(b'\n');
        }
        input
    }

    #[test]
    #[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
    fn every_kernel_gives_the_same_frames() {
        let long = long_mixed();
        let want = reference(&long, 30_000);
        assert!(want.len() > 60);
        for kernel in Kernel::available() {
            // Reads of one byte come in the first list, and over all of `rich` below.
            for sizes in [
                &[7usize, 64, 1][..],
                &[63, 65, 1000],
                &[4096],
                &[65_536],
                &[usize::MAX],
            ] {
                let got = frames_kernel(&long, 30_000, sizes, kernel);
                assert!(got == want, "{} kernel, reads {sizes:?}", kernel.name());
            }
            for tail in [&b"{\"t\":\"tail\nmore\nend"[..], b"  ", b""] {
                let input = rich(tail);
                let want = reference(&input, 200);
                // Every size up to two block windows, then every 13th: read edges at every
                // offset of a window, and at every place of `rich`.
                for chunk in (1..=130).chain((131..=input.len()).step_by(13)) {
                    let got = frames_kernel(&input, 200, &[chunk], kernel);
                    assert!(got == want, "{} kernel, chunk {chunk}", kernel.name());
                }
            }
        }
    }

    fn work_for(input: &[u8], max: usize, chunk: usize) -> (u64, usize) {
        let sizes = [chunk];
        let reader = Chunked {
            data: input,
            sizes: &sizes,
            turn: 0,
            interrupted: false,
        };
        let mut splitter = Splitter::new(reader, max);
        let mut n = 0;
        while splitter.next_frame().unwrap().is_some() {
            n += 1;
        }
        (splitter.work(), n)
    }

    #[test]
    fn work_is_linear_for_lines_that_open_strings() {
        for (line, frames) in [(&b"{\"a\":\"\n"[..], 20_000), (b"\"\n", 10_000)] {
            let input = line.repeat(20_000);
            for chunk in [7, usize::MAX] {
                let (work, n) = work_for(&input, 1 << 20, chunk);
                assert_eq!(n, frames, "{line:?}");
                assert!(work <= 6 * input.len() as u64, "{work} for {}", input.len());
            }
        }
    }

    #[test]
    fn work_is_linear_for_a_long_failed_join() {
        let mut input = b"[\"\n".to_vec();
        input.extend_from_slice(&b"a\n".repeat(20_000));
        input.extend_from_slice(b"\"}\n");
        let (work, n) = work_for(&input, 1 << 20, usize::MAX);
        assert_eq!(n, 20_002);
        assert!(work <= 6 * input.len() as u64);
    }

    fn split_token() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            12 => prop::sample::select(b"{}[]\"\\:,\n\ra1".to_vec()).prop_map(|b| vec![b]),
            2 => prop::sample::select(b" \t\xEF\xBB\xBFue-.tn".to_vec()).prop_map(|b| vec![b]),
            1 => Just(BOM.to_vec()),
            1 => Just(b"\"k\":\"".to_vec()),
            1 => Just(b"true".to_vec()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            // Every seed file of the crate is in proptest-regressions/ at its root.
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/split.txt"),
            )),
            ..ProptestConfig::default()
        })]

        #[test]
        fn chunking_never_changes_frames(
            tokens in prop::collection::vec(split_token(), 0..160),
            max in prop_oneof![0usize..48, Just(usize::MAX)],
            sizes in prop::collection::vec(1usize..24, 1..6),
        ) {
            let input = tokens.concat();
            let expected = whole(&input, max);
            prop_assert_eq!(&expected, &reference(&input, max));
            prop_assert_eq!(frames_with(&input, max, &sizes), expected);
        }

        #[test]
        #[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
        fn no_kernel_changes_frames(
            tokens in prop::collection::vec(split_token(), 0..600),
            max in prop_oneof![0usize..48, Just(200), Just(usize::MAX)],
            sizes in prop::collection::vec(1usize..300, 1..6),
        ) {
            let input = tokens.concat();
            let want = reference(&input, max);
            for kernel in Kernel::available() {
                prop_assert_eq!(&frames_kernel(&input, max, &sizes, kernel), &want, "{}", kernel.name());
            }
        }
    }
}
