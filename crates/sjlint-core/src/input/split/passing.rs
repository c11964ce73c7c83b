//! Passing an over-limit record through: its bytes handed out in pieces as the splitter reads
//! past them, for a consumer that keeps such a record as it is (`fmt --keep-invalid`).
//!
//! This module owns the pieces: where the record's bytes start in the buffer, which of them
//! have been handed out, and the one byte whose fate is not known when a read ends (a CR that
//! may be the CR of the record's CRLF terminator: it is held back, and handed out after it only
//! when another byte than the LF follows). Each piece is lent from the splitter's buffer until
//! the next call, before the buffer is reused, so memory stays what the splitter holds anyway
//! (O(`--max-record-bytes`)) whatever the record's size. The record's frame
//! ([`Frame::TooLarge`]) comes after its last piece, as it does without passing, so a consumer
//! sees: pieces, then the frame that ends them.
//!
//! While passing, a line longer than the limit is an over-limit record even when it holds only
//! whitespace (otherwise whether its pieces were handed out would depend on where the reads
//! ended). It must not decide frames: framing is `split`'s, and without passing nothing here
//! runs.

use super::{CR, Done, Splitter};
use crate::input::record::Frame;
use crate::input::source::Source;
use std::io;

/// What [`Splitter::next_item`] yields.
#[derive(Debug)]
pub enum Item<'a> {
    Frame(Frame<'a>),
    /// The next bytes of a record over the limit, in input order, without its BOM and line
    /// terminator; its [`Frame::TooLarge`] follows its last piece. Never empty.
    Piece(&'a [u8]),
}

/// The passing state of a splitter.
#[derive(Default)]
pub(super) struct Pass {
    /// Over-limit records are handed out ([`Splitter::passing_over_limit`]).
    pub(super) on: bool,
    /// In an over-limit record: the buffer index of its first byte not handed out yet.
    from: Option<usize>,
    /// A CR ended the bytes handed out so far and was held back.
    cr: bool,
    /// The record's end is found: where its content ends in the buffer, and whether a held
    /// CR is content (it is not when the LF came right after it).
    end: Option<(usize, bool)>,
    /// The record's frame, handed out after its last piece.
    done: Option<Done>,
}

impl Pass {
    /// The splitter starts skipping a record whose bytes start at `b0` in the buffer.
    #[inline]
    pub(super) fn enter(&mut self, b0: usize) {
        if self.on {
            (self.from, self.cr, self.end) = (Some(b0), false, None);
        }
    }

    /// The skipped record ends at the LF at `lf` (`last_cr`: a CR comes right before it), or
    /// at `lf` with no LF because the input ends there (then `last_cr` is false).
    pub(super) fn ends_at(&mut self, lf: usize, last_cr: bool) {
        let Some(from) = self.from else { return };
        self.end = Some(match (last_cr, lf > from) {
            // The CR before the LF is still in the buffer.
            (true, true) => (lf - 1, true),
            // It was the held one: the terminator's.
            (true, false) => (lf, false),
            (false, _) => (lf, true),
        });
    }

    /// Back to the start of an input, keeping the setting.
    pub(super) fn reset(&mut self) {
        *self = Pass {
            on: self.on,
            ..Pass::default()
        };
    }
}

/// What one call hands out, before the buffer is borrowed for it.
enum Out {
    Done(Done),
    Piece(usize, usize),
    HeldCr,
}

impl<S: Source> Splitter<S> {
    /// Hands out the bytes of over-limit records too ([`Item::Piece`]) when `on`, from
    /// [`Splitter::next_item`].
    pub fn passing_over_limit(mut self, on: bool) -> Self {
        self.pass.on = on;
        self
    }

    /// [`Splitter::next_frame`], with the pieces of over-limit records before their frames when
    /// passing. Lends its item until the next call.
    #[inline]
    pub fn next_item(&mut self) -> io::Result<Option<Item<'_>>> {
        if !self.pass.on {
            return Ok(self.next_frame()?.map(Item::Frame));
        }
        let out = loop {
            if let Some(done) = self.pass.done.take() {
                match self.last_piece() {
                    Some(out) => {
                        self.pass.done = Some(done);
                        break out;
                    }
                    None => {
                        self.pass.reset();
                        break Out::Done(done);
                    }
                }
            }
            let done = match self.indexed_line() {
                Some(done) => done,
                None => match self.advance() {
                    Some(done) => done,
                    None => {
                        if let Some(out) = self.piece_before_fill() {
                            break out;
                        }
                        self.fill()?;
                        if self.pass.from.is_some() {
                            self.pass.from = Some(self.start);
                        }
                        continue;
                    }
                },
            };
            match done {
                // Decided with the whole record in the buffer, or at the end of a skip.
                Done::TooLarge { byte, len, .. } => {
                    if self.pass.from.is_none() {
                        let b0 = (byte - self.base) as usize;
                        self.pass.from = Some(b0);
                        self.pass.end = Some((b0 + len as usize, true));
                    }
                    self.pass.done = Some(done);
                }
                done => break Out::Done(done),
            }
        };
        Ok(match out {
            Out::Done(done) => self.emit(done).map(Item::Frame),
            Out::Piece(from, to) => Some(Item::Piece(&self.buf[from..to])),
            Out::HeldCr => Some(Item::Piece(b"\r")),
        })
    }

    /// Before the buffer is reused in the middle of an over-limit record: its bytes read so
    /// far, less a final CR, which is held back.
    fn piece_before_fill(&mut self) -> Option<Out> {
        let from = self.pass.from?;
        let upto = self.start;
        if from == upto {
            return None;
        }
        if self.pass.cr {
            self.pass.cr = false;
            return Some(Out::HeldCr);
        }
        self.pass.from = Some(upto);
        let mut to = upto;
        if self.buf[to - 1] == CR {
            to -= 1;
            self.pass.cr = true;
        }
        (from < to).then_some(Out::Piece(from, to))
    }

    /// The end of an over-limit record: the held CR if it is content, then the rest of its
    /// bytes; `None` once all are out.
    fn last_piece(&mut self) -> Option<Out> {
        let from = self.pass.from?;
        let (to, cr_is_content) = self.pass.end?;
        if self.pass.cr {
            self.pass.cr = false;
            if cr_is_content {
                return Some(Out::HeldCr);
            }
        }
        if from < to {
            self.pass.from = Some(to);
            return Some(Out::Piece(from, to));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Reads `size` bytes at a time.
    struct Steps<'a>(&'a [u8], usize);

    impl Read for Steps<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Each frame's debug form; an over-limit record's with the bytes its pieces gave.
    fn items(input: &[u8], max: usize, step: usize) -> Vec<String> {
        let mut splitter = Splitter::new(Steps(input, step), max).passing_over_limit(true);
        let (mut out, mut pieces) = (Vec::new(), Vec::new());
        while let Some(item) = splitter.next_item().unwrap() {
            match item {
                Item::Piece(bytes) => {
                    assert!(!bytes.is_empty());
                    pieces.extend_from_slice(bytes);
                }
                Item::Frame(Frame::TooLarge { pos, len, bom }) => {
                    let at = pos.byte as usize;
                    assert_eq!(pieces, &input[at..at + len as usize], "step {step}");
                    out.push(format!("big {pos:?} {len} {bom}"));
                    pieces.clear();
                }
                Item::Frame(frame) => {
                    assert!(pieces.is_empty(), "{frame:?} after pieces");
                    out.push(format!("{frame:?}"));
                }
            }
        }
        assert!(pieces.is_empty());
        out
    }

    #[test]
    fn pieces_give_each_over_limit_record_whatever_the_reads() {
        let inputs: [&[u8]; 7] = [
            b"{\"a\":1}\n{\"b\":\"0123456789abcdef\"}\n{}\n",
            b"0123456789abcdef\r\n\xef\xbb\xbf0123456789\r\r\r\n{}\r\n",
            b"{}\n0123456789abcdef\r",
            b"{\"a\":\"01\n23456789\nabcdefghijklmnop\"}\n{}\n",
            b"          \n\t\t\t\t\t\t\t\t\t\t\t\t\n{}\n",
            b"xxxxxxxxxxxxxxxxxxxxxxxxxxxx\nyyyyyyyyyyyyyyyyyyyyyyyy\r",
            b"\r\r\r\r\r\r\r\r\r\r\r\r\r\r\n\r",
        ];
        for input in inputs {
            let whole = items(input, 8, usize::MAX);
            for step in 1..=input.len() {
                assert_eq!(items(input, 8, step), whole, "step {step} of {input:?}");
            }
        }
        // A whitespace line over the limit is one too, and a CR of a CRLF is never content.
        assert_eq!(
            items(b"0123456789\r\n", 4, 1),
            ["big Position { byte: 0, line: 1, record: 1 } 10 false"]
        );
        assert!(items(b"           \n", 4, 3)[0].starts_with("big"));
    }

    #[test]
    fn without_passing_items_are_the_frames() {
        let input = b"{}\n0123456789abcdef\n   \n";
        let mut splitter = Splitter::new(&input[..], 4);
        let mut frames = Vec::new();
        while let Some(item) = splitter.next_item().unwrap() {
            let Item::Frame(frame) = item else {
                panic!("a piece without passing");
            };
            frames.push(format!("{frame:?}"));
        }
        assert_eq!(frames.len(), 3);
        assert!(frames[1].starts_with("TooLarge"));
    }

    #[test]
    fn a_long_record_passes_in_the_memory_of_the_limit() {
        let mut input = vec![b'x'; 5 << 20];
        input.extend_from_slice(b"\n{}\n");
        let mut splitter = Splitter::new(&input[..], 1000).passing_over_limit(true);
        let mut passed = 0;
        while let Some(item) = splitter.next_item().unwrap() {
            if let Item::Piece(bytes) = item {
                passed += bytes.len();
            }
        }
        assert_eq!(passed, 5 << 20);
        assert!(splitter.capacity() <= super::super::CHUNK + 1000 + super::super::SLACK);
    }
}
