//! Where the splitter's bytes come from: the `Source` contract and its two sources.
//!
//! This module owns the two ways bytes reach a `Splitter`: `Reading`, a reader read into one
//! reused buffer that rolls the unread tail to the front and grows only when one frame does not
//! fit, and `InPlace`, an input already in memory taken where it lies in growing steps, with a
//! `pace` callback before each step. It also states the `unsafe` contract every source keeps
//! (bytes once taken in never change), on which the splitter's single UTF-8 check relies. It
//! must not look at the bytes: no framing, no UTF-8 check, no knowledge of records.

use std::io::{self, ErrorKind, Read};
use std::ops::Deref;

/// Where a [`Splitter`](super::split::Splitter)'s bytes come from. It derefs to the bytes held, of which the splitter
/// reads `..end` only.
///
/// # Safety
///
/// A splitter made with [`Splitter::checking_utf8`](super::split::Splitter::checking_utf8) checks the bytes a source takes in once, as
/// they arrive, and from then on treats them as UTF-8 without checking again (the records it
/// flags `UTF8` are read with `str::from_utf8_unchecked`). An implementation must therefore never
/// change bytes it has taken in: `deref` gives back, at each position below `end`, the bytes
/// `more` took in there, except that `make_room` may move `start..end` toward the front by the
/// distance it returns (and then the bytes before `start` are forgotten). Breaking this lets
/// invalid UTF-8 reach a `&str`, which is undefined behaviour.
pub unsafe trait Source: Deref<Target = [u8]> {
    /// Makes room for more bytes after `end`, keeping `start..end`, where an undecided frame
    /// never needs more than `cap` bytes. Returns how far the kept bytes moved toward the front.
    fn make_room(&mut self, start: usize, end: usize, cap: usize) -> usize;

    /// Takes in more bytes after `end` and returns how many; 0 at the end of the input. The
    /// bytes before `start` are done with.
    fn more(&mut self, start: usize, end: usize) -> io::Result<usize>;
}

/// A reader's bytes, read into one buffer that is reused. The buffer is always fully
/// initialised (its length is its usable capacity), so reads need no `unsafe`.
pub struct Reading<R> {
    pub(super) reader: R,
    pub(super) buf: Vec<u8>,
}

impl<R> Reading<R> {
    /// The reader (to give a push source more).
    pub(crate) fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }
}

impl<R> Deref for Reading<R> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf
    }
}

// SAFETY: `buf` changes only by `make_room` (which moves `start..end` to the front and grows
// the buffer past `end`) and by reads into `buf[end..]`, after the bytes taken in.
unsafe impl<R: Read> Source for Reading<R> {
    fn make_room(&mut self, start: usize, end: usize, cap: usize) -> usize {
        if start > 0 {
            self.buf.copy_within(start..end, 0);
        }
        let kept = end - start;
        if kept == self.buf.len() {
            // Four times larger, not twice, and straight to `cap` past a quarter of it: the
            // allocator keeps a freed buffer a while before it gives its pages back, so the
            // buffers left behind on the way add up to at most a third of the cap, not to all
            // of it;
            // and a buffer of exactly the record limit, which a record over it fills before
            // it is known to be over, is never grown by a few bytes into a copy of itself. A
            // fresh zeroed buffer, not `resize`: a large one comes zeroed from the system and
            // its pages are taken only as bytes are read into them. (From about 2.1 times the
            // limit of 64 MiB, from standard input, to about 1.3.)
            let mut grown = self.buf.len().saturating_mul(GROWTH);
            if grown > cap / 4 {
                grown = cap;
            }
            let grown = grown.max(kept + 1);
            let mut fresh = vec![0; grown];
            fresh[..kept].copy_from_slice(&self.buf[..kept]);
            self.buf = fresh;
        }
        start
    }

    fn more(&mut self, _start: usize, end: usize) -> io::Result<usize> {
        let free = self.buf.len() - end;
        loop {
            match self.reader.read(&mut self.buf[end..]) {
                Ok(n) if n <= free => return Ok(n),
                Ok(_) => {
                    return Err(io::Error::new(
                        ErrorKind::InvalidData,
                        "reader reported more bytes than the buffer it was given",
                    ));
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// How much larger a [`Reading`] buffer grows when one frame does not fit.
const GROWTH: usize = 4;

/// An input that is in memory already (a mapped file, a buffer): split where it lies, with no
/// copy. It is taken in steps, and `pace` is called before each with the bytes done with and
/// the end of the step; an error from it stops the splitter as a read error would (Ctrl-C).
pub struct InPlace<'a, P> {
    bytes: &'a [u8],
    /// The size of the next step, and of the one after it; steps grow to `step`.
    next: usize,
    after: usize,
    step: usize,
    pace: P,
}

/// The first of the growing steps after a [`InPlace::first_step`].
const SMALL_STEP: usize = 4 << 10;

/// How far an [`InPlace`] input is taken at a time: past the splitter's look-ahead, and small
/// enough that a caller's `pace` runs often.
pub const IN_PLACE_STEP: usize = 1 << 20;

impl<'a, P: FnMut(usize, usize) -> io::Result<()>> InPlace<'a, P> {
    pub fn new(bytes: &'a [u8], pace: P) -> Self {
        InPlace::with_step(bytes, IN_PLACE_STEP, pace)
    }

    /// With steps of `step` bytes (at least 1).
    pub fn with_step(bytes: &'a [u8], step: usize, pace: P) -> Self {
        let step = step.max(1);
        InPlace {
            bytes,
            next: step,
            after: step,
            step,
            pace,
        }
    }

    /// The first step takes `first` bytes (at least 1); the steps after it start small and
    /// grow. For a part of an input whose frames are expected to end `first` bytes in: a frame
    /// that goes on past it reads (and checks for UTF-8) little beyond its end.
    pub fn first_step(mut self, first: usize) -> Self {
        self.next = first.max(1);
        self.after = SMALL_STEP.min(self.step);
        self
    }
}

impl<P> Deref for InPlace<'_, P> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes
    }
}

// SAFETY: the bytes are a shared borrow for the whole life of the source, so nothing can
// change them; `make_room` moves nothing.
unsafe impl<P: FnMut(usize, usize) -> io::Result<()>> Source for InPlace<'_, P> {
    fn make_room(&mut self, _start: usize, _end: usize, _cap: usize) -> usize {
        0
    }

    fn more(&mut self, start: usize, end: usize) -> io::Result<usize> {
        let n = self.next.min(self.bytes.len() - end);
        self.next = self.after;
        self.after = self.after.saturating_mul(2).min(self.step);
        if n > 0 {
            (self.pace)(start, end + n)?;
        }
        Ok(n)
    }
}
