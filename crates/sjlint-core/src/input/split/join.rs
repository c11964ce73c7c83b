//! Joining a record that a writer broke over several physical lines with raw LF bytes inside a
//! JSON string.
//!
//! This module owns the splitter's join scan: from the first line that ends inside a string of
//! a valid JSON prefix, on through the lines that continue it, until the record ends outside any
//! string, the prefix grammar fails (the join is given up and the first line stands alone), the
//! input ends, or the record proves longer than the limit. It must not decide anything about a
//! line that does not end inside a string (that is the parent's), nor repair or interpret the
//! joined record.

use super::{CR, Done, Flow, LF, Scan, Source, Splitter, bom_flag, over_limit};
use crate::input::record::{DOCUMENT, ENDS_IN_STRING, JOIN_FAILED, MULTILINE, NO_FINAL_LF};

/// [`DOCUMENT`] on a record that a document's join made.
fn doc_flag(doc: bool) -> u8 {
    if doc { DOCUMENT } else { 0 }
}
use memchr::memchr3;

impl<S: Source> Splitter<S> {
    // Why joins keep the total work linear. A join only ever advances (the automaton state is
    // carried across lines and reads), so a successful join costs its length once. A failed join
    // from line j that gave up on line k makes lines j+1..=k be split again. Each line strictly
    // between j and k was read by the join starting and ending inside a string without the
    // automaton failing. Read fresh, the same line starts outside a string. Outside strings a
    // valid prefix never contains a backslash, and in both readings one side is outside a string
    // at every byte, so the line contains no backslash at all and every quote flips both
    // readings: they stay opposite to the end of the line. Hence, read fresh, such a line ends
    // outside a string or fails the automaton, and never starts a join of its own. Only line k
    // can start the next join, so join spans overlap in at most one line, and every byte is
    // scanned by at most two joins and a bounded number of fast-path scans.
    //
    // A document (`doc`, the input's first line opening an object) goes on through LFs outside
    // strings until the object closes; where the grammar fails, or the input ends first, the
    // first line stands alone as it would have without the attempt, and splitting resumes at
    // the next line. It is tried once, at the input's start, so it adds at most one pass.
    pub(super) fn join(
        &mut self,
        body: usize,
        first_lf: usize,
        at: usize,
        mut lines: u32,
        doc: bool,
    ) -> Flow {
        let s = self.start;
        let b0 = s + body;
        let bom = body != 0;
        let first_lf = s + first_lf;
        let mut p = s + at;
        loop {
            if p == self.end {
                self.scan = Scan::Join {
                    body,
                    first_lf: first_lf - s,
                    at: p - s,
                    lines,
                    doc,
                };
                if !self.eof {
                    return Flow::NeedData;
                }
                if doc && !self.prefix.complete() {
                    return Flow::Done(self.join_failed(b0, first_lf, bom, None));
                }
                if self.prefix.in_string() {
                    return Flow::Done(self.join_failed(b0, first_lf, bom, Some(ENDS_IN_STRING)));
                }
                let n = p - b0;
                let line_adv = u64::from(lines - 1);
                // Only reachable with a CR sitting exactly at the limit.
                if n > self.max {
                    return Flow::Done(self.too_large(b0, n, bom, p, line_adv));
                }
                return Flow::Done(Done::Record {
                    body: b0,
                    len: n,
                    lines,
                    flags: bom_flag(bom) | MULTILINE | NO_FINAL_LF | doc_flag(doc),
                    next: p,
                    line_adv,
                });
            }
            if self.prefix.in_plain_string() {
                // Below the limit, string content needs no per-byte decisions except at quotes,
                // backslashes and LFs (which are counted).
                let stop = self.end.min(b0.saturating_add(self.max));
                if p < stop {
                    let run = memchr3(b'"', b'\\', LF, &self.buf[p..stop]).unwrap_or(stop - p);
                    tick!(self, run);
                    p += run;
                    if p == stop {
                        continue;
                    }
                }
            }
            let b = self.buf[p];
            if b == LF
                && (if doc {
                    self.prefix.complete()
                } else {
                    !self.prefix.in_string()
                })
            {
                let content_end = if self.buf[p - 1] == CR { p - 1 } else { p };
                return Flow::Done(Done::Record {
                    body: b0,
                    len: content_end - b0,
                    lines,
                    flags: bom_flag(bom) | MULTILINE | doc_flag(doc),
                    next: p + 1,
                    line_adv: u64::from(lines),
                });
            }
            tick!(self, 1);
            if !self.prefix.step(b) {
                let flags = if doc { None } else { Some(0) };
                return Flow::Done(self.join_failed(b0, first_lf, bom, flags));
            }
            if b == LF {
                lines = lines.saturating_add(1);
            }
            p += 1;
            if over_limit(p - 1 - b0, b, self.max) {
                // The proving byte belongs to the record (even an LF: it is inside a string),
                // so the skip starts after it and the length stays above the limit.
                self.pass.enter(b0);
                self.scan = Scan::Skip {
                    byte: self.base + b0 as u64,
                    bom,
                    len: (p - b0) as u64,
                    last_cr: b == CR,
                    all_ws: false,
                    line_adv: u64::from(lines),
                };
                self.start = p;
                return Flow::Again;
            }
        }
    }

    /// The first line alone; `extra` flags beside [`JOIN_FAILED`] for a join, `None` for a
    /// document, whose first line is then the record it would have been without the attempt.
    fn join_failed(&self, b0: usize, first_lf: usize, bom: bool, extra: Option<u8>) -> Done {
        let content_end = if first_lf > b0 && self.buf[first_lf - 1] == CR {
            first_lf - 1
        } else {
            first_lf
        };
        Done::Record {
            body: b0,
            len: content_end - b0,
            lines: 1,
            flags: bom_flag(bom) | extra.map_or(0, |e| JOIN_FAILED | e),
            next: first_lf + 1,
            line_adv: 1,
        }
    }
}
