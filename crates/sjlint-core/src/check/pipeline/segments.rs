//! Checking an input in memory in segments: where each segment's frames start, the lanes'
//! splitters of them, and the joining of their frames into the input's.
//!
//! This module owns the segment half of the pipeline for inputs in memory (mapped files,
//! buffers): cutting the input into segments at a guessed record start, splitting each into
//! batches on whichever lane takes it, and, in the in-order stage, setting the guess right
//! where a segment was taken to start inside a record that spans several lines, so that the
//! frames are exactly those of a one-thread run. A lane that searches or skips a line longer
//! than a few MiB tells the input which runs it has passed ([`SharedInput::passed`]), so that a
//! record of gigabytes is never held whole. It must not decide anything about records (that is
//! `check`) nor own threads, queues or budgets (that is the parent, `pipeline`).

use super::{BatchSink, ExaminedBatch, Part, SharedInput};
use crate::check::{Consumer, InOrder, Totals};
use crate::diagnostic::Diagnostic;
use crate::input::record::{Frame, Position, Record};
use crate::input::simd::Kernel;
use crate::input::split::{IN_PLACE_STEP, InPlace, Splitter};
use std::io;
use std::ops::Range;
use std::sync::Arc;

/// Where the frames of each segment of an input in memory are taken to start. Segment `i`
/// holds the frames that start in `start(i)..start(i + 1)`, where a frame is taken to start
/// right after the first LF at or after the segment's first byte (the LF just before it
/// included). The guess is wrong where that LF lies inside a string of a record that spans
/// several lines; the in-order stage sets it right ([`SegmentJoiner`]).
pub(super) struct SegmentStarts<'a> {
    bytes: &'a [u8],
    /// The input the bytes are, told of the runs of a line searched past ([`SharedInput::passed`]).
    whole: &'a dyn SharedInput,
    size: usize,
    /// The last answer: a frame is taken to start at `known.end` for a segment whose first byte
    /// (less one) lies in `known`. Segments are asked for in order, so no byte is searched
    /// twice, even in a line longer than many segments.
    known: Range<usize>,
}

impl<'a> SegmentStarts<'a> {
    fn new(whole: &'a dyn SharedInput, size: usize) -> Self {
        SegmentStarts {
            bytes: whole.bytes(),
            whole,
            size: size.max(1),
            known: 0..0,
        }
    }

    pub(super) fn count(&self) -> usize {
        self.bytes.len().div_ceil(self.size)
    }

    fn start(&mut self, i: usize) -> usize {
        let len = self.bytes.len();
        let Some(from) = i.saturating_mul(self.size).checked_sub(1) else {
            return 0;
        };
        if from >= len {
            return len;
        }
        if !self.known.contains(&from) {
            self.known = from..self.line_end(from);
        }
        self.known.end
    }

    /// The offset after the first LF at or after `from` (the input's length if none), searched
    /// in runs of [`RELEASE`] bytes: a line longer than a run (a record over the limit, most
    /// likely) is not held in memory whole while it is searched.
    fn line_end(&self, from: usize) -> usize {
        let len = self.bytes.len();
        let mut at = from;
        loop {
            let upto = ((at / RELEASE + 1) * RELEASE).min(len);
            if let Some(lf) = memchr::memchr(b'\n', &self.bytes[at..upto]) {
                return at + lf + 1;
            }
            if upto == len {
                return len;
            }
            self.whole.passed(at..upto);
            at = upto;
        }
    }
}

pub(super) type NoPace = fn(usize, usize) -> io::Result<()>;

/// The bytes of [`SharedInput::passed`] runs, as a mapped file gives its pages back.
const RELEASE: usize = crate::input::mapped::RELEASE;

/// What a lane's splitter has handed on, which its pace must not give back.
#[derive(Clone, Copy, Default)]
struct Handed {
    /// Where the bytes of the segment being split start in the input.
    base: usize,
    /// The end of the last frame handed on (in the input): bytes from there to where the
    /// splitter stands are the middle of a record over the limit, skipped unread.
    upto: usize,
    /// Given back up to here already.
    passed: usize,
}

/// Nothing to do as a segment's splitter moves on: the in-order stage paces the run.
pub(super) fn no_pace(_: usize, _: usize) -> io::Result<()> {
    Ok(())
}

/// One lane's splitter of the segments of an input in memory. Its pace (`P`, one closure for
/// every segment) gives back the runs of a record over the limit that the splitter skips, as
/// it skips them: nothing reads them again, and a record of gigabytes is not held whole.
pub(super) struct Cutter<'a, P> {
    bytes: &'a [u8],
    pub(super) cuts: SegmentStarts<'a>,
    splitter: Splitter<InPlace<'a, P>>,
    pace: P,
    handed: std::rc::Rc<std::cell::Cell<Handed>>,
    limit: usize,
}

/// A lane's [`Cutter`] of `whole`.
pub(super) fn cutter(
    whole: &dyn SharedInput,
    segment: usize,
    max_record_bytes: usize,
    limit: usize,
) -> Cutter<'_, impl FnMut(usize, usize) -> io::Result<()> + Clone + '_> {
    let handed = std::rc::Rc::new(std::cell::Cell::new(Handed::default()));
    let seen = std::rc::Rc::clone(&handed);
    // Called once per step of the splitter (up to IN_PLACE_STEP), not per record; `madvise`
    // once per whole run skipped.
    let pace = move |start: usize, _end: usize| {
        let h = seen.get();
        let (from, to) = (h.upto.max(h.passed), h.base + start);
        if to >= from + RELEASE {
            whole.passed(from..to);
            seen.set(Handed {
                passed: to / RELEASE * RELEASE,
                ..h
            });
        }
        Ok(())
    };
    Cutter {
        bytes: whole.bytes(),
        cuts: SegmentStarts::new(whole, segment),
        splitter: Splitter::over(
            InPlace::new(&[], pace.clone()),
            max_record_bytes,
            Kernel::best(),
        )
        .checking_utf8(),
        pace,
        handed,
        limit,
    }
}

impl<P: FnMut(usize, usize) -> io::Result<()> + Clone> Cutter<'_, P> {
    /// Splits segment `i` into batches of frames, each handed on once it is full, and the last
    /// one (perhaps empty) when the segment is done. The last frame goes on past the segment's
    /// end when it does in the input.
    pub(super) fn segment(
        &mut self,
        i: usize,
        whole: &Arc<dyn SharedInput>,
        to: &mut impl BatchSink,
    ) -> io::Result<()> {
        let (start, next) = (self.cuts.start(i), self.cuts.start(i + 1));
        let origin = Position {
            byte: start as u64,
            line: 1,
            record: 0,
        };
        let part = Part {
            first: true,
            start,
            next,
            end: None,
        };
        let mut batch = to.fresh();
        (batch.part, batch.whole) = (Some(part), Some(Arc::clone(whole)));
        let mut end = origin;
        if next > start {
            let source = InPlace::new(&self.bytes[start..], self.pace.clone());
            // A segment is one long line when a line is longer than a segment: taken in one
            // step, it would be skipped with no pace between.
            let first = (next - start).min(IN_PLACE_STEP);
            self.splitter.restart(source.first_step(first), origin);
            let base = self.bytes.as_ptr() as usize;
            loop {
                end = self.splitter.next_start();
                self.handed.set(Handed {
                    base: start,
                    upto: end.byte as usize,
                    passed: self.handed.get().passed,
                });
                if end.byte >= next as u64 {
                    break;
                }
                let Some(frame) = self.splitter.next_frame()? else {
                    end = self.splitter.next_start();
                    break;
                };
                batch.push(&frame, Some(base), end.byte as usize);
                if batch.size() >= self.limit {
                    let mut more = to.fresh();
                    let part = Part {
                        first: false,
                        ..part
                    };
                    (more.part, more.whole) = (Some(part), Some(Arc::clone(whole)));
                    to.hand(std::mem::replace(&mut batch, more))?;
                }
            }
        }
        if let Some(part) = &mut batch.part {
            part.end = Some(end);
        }
        to.hand(batch)
    }
}

/// The in-order stage of an input cut into segments: joins the frames of each segment to the
/// input's. A segment split where a record truly starts (nearly always) gives the true frames,
/// their lines and record indices shifted. Where a segment was taken to start inside a record
/// that spans several lines, the frames that start before the true next frame are dropped,
/// and the bytes up to the next frame start the two agree on are split again here; from a true
/// record start, a segment's splitter gives the frames a one-thread run gives, since splitting
/// depends on nothing before it.
pub(super) struct SegmentJoiner<'a, E, C, P> {
    pub(super) stage: InOrder<&'a mut E, &'a mut C>,
    pub(super) whole: &'a dyn SharedInput,
    /// Where the next true frame starts (offset, line, records before it).
    pub(super) next: Position,
    /// While the current segment's frames are the true ones: what to add to their lines and
    /// record indices (modulo 2⁶⁴).
    pub(super) shift: Option<(u64, u64)>,
    /// Splits what a segment got wrong.
    pub(super) gaps: Splitter<InPlace<'a, NoPace>>,
    /// How far checking has reached, as `pace` was told.
    pub(super) reached: usize,
    /// The first byte a lane may still read: the one before the segment being joined (see
    /// [`SegmentStarts::start`]), since every later segment starts at or after it. The pages from
    /// there on are kept, not given back: a read maps the pages around it again (a whole
    /// large folio of the page cache), and they would stay mapped.
    pub(super) keep: usize,
    pub(super) pace: P,
    /// `pace` stopped the run.
    pub(super) interrupted: bool,
}

impl<E, C, P> SegmentJoiner<'_, E, C, P>
where
    E: FnMut(Diagnostic) -> io::Result<()>,
    C: Consumer,
    P: FnMut(usize, usize) -> io::Result<()>,
{
    /// The next batch of the input's segments, in order.
    pub(super) fn take(&mut self, examined: &ExaminedBatch, totals: &mut Totals) -> io::Result<()> {
        examined.with_dependent(|batch, outcomes| {
            let part = batch.part.expect("a batch of a segment");
            if part.first {
                let origin = (1, 0);
                self.shift = (self.next.byte == part.start as u64).then(|| self.shift_to(origin));
            }
            let mut outcomes = outcomes.iter();
            for meta in &batch.frames {
                let frame = batch.frame(meta);
                let examined = match frame {
                    Frame::Record(_) => outcomes.next(),
                    _ => None,
                };
                let shift = match self.shift {
                    Some(shift) => shift,
                    None => {
                        let start = meta.start as u64;
                        if start > self.next.byte {
                            self.split_gap(start, totals)?;
                        }
                        if start != self.next.byte {
                            continue;
                        }
                        *self.shift.insert(self.shift_to(before(&frame)))
                    }
                };
                self.stage.frame(shifted(frame, shift), examined, totals)?;
            }
            if let Some(end) = part.end {
                match self.shift {
                    Some((lines, records)) => {
                        self.next = Position {
                            byte: end.byte,
                            line: end.line.wrapping_add(lines),
                            record: end.record.wrapping_add(records),
                        }
                    }
                    None if self.next.byte < part.next as u64 => {
                        self.split_gap(part.next as u64, totals)?;
                    }
                    None => {}
                }
            }
            let reached = match self.shift {
                Some(_) => batch.upto.max(self.next.byte as usize),
                None => self.next.byte as usize,
            };
            self.reach(reached)
        })
    }

    /// What turns a segment's line and record count (`(line, records before)`) at the next
    /// true frame into the input's.
    fn shift_to(&self, (line, records): (u64, u64)) -> (u64, u64) {
        (
            self.next.line.wrapping_sub(line),
            self.next.record.wrapping_sub(records),
        )
    }

    /// Splits and checks the input from the next true frame on, as far as the first frame
    /// that starts at or after `upto`.
    fn split_gap(&mut self, upto: u64, totals: &mut Totals) -> io::Result<()> {
        let from = self.next.byte as usize;
        let first = (upto as usize).saturating_sub(from);
        let bytes = &self.whole.bytes()[from..];
        let source = InPlace::new(bytes, no_pace as NoPace).first_step(first);
        self.gaps.restart(source, self.next);
        while self.gaps.next_start().byte < upto {
            match self.gaps.next_frame()? {
                Some(frame) => {
                    #[cfg(test)]
                    super::tests::RESPLIT.with(|n| n.set(n.get() + 1));
                    self.stage.frame(frame, None, totals)?;
                }
                None => break,
            }
        }
        self.next = self.gaps.next_start();
        Ok(())
    }

    /// Checking has reached `offset`: `pace` is told, and the input's pages below it are given
    /// back.
    pub(super) fn reach(&mut self, offset: usize) -> io::Result<()> {
        if offset <= self.reached {
            return Ok(());
        }
        if let Err(e) = (self.pace)(self.reached, offset) {
            self.interrupted = true;
            return Err(e);
        }
        self.reached = offset;
        self.whole.done_below(offset.min(self.keep));
        Ok(())
    }
}

/// A frame's line and the records before it, as its splitter counted them.
fn before(frame: &Frame<'_>) -> (u64, u64) {
    match frame {
        Frame::Record(rec) => (rec.pos.line, rec.pos.record - 1),
        Frame::TooLarge { pos, .. } => (pos.line, pos.record - 1),
        Frame::Blank { pos, .. } => (pos.line, pos.record),
    }
}

/// `frame`, its line and record index shifted by `(lines, records)`.
fn shifted(frame: Frame<'_>, (lines, records): (u64, u64)) -> Frame<'_> {
    let shift = |pos: Position| Position {
        byte: pos.byte,
        line: pos.line.wrapping_add(lines),
        record: pos.record.wrapping_add(records),
    };
    match frame {
        Frame::Record(rec) => Frame::Record(Record {
            pos: shift(rec.pos),
            ..rec
        }),
        Frame::TooLarge { pos, len, bom } => Frame::TooLarge {
            pos: shift(pos),
            len,
            bom,
        },
        Frame::Blank { pos, bom } => Frame::Blank {
            pos: shift(pos),
            bom,
        },
    }
}
