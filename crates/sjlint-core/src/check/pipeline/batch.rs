//! A batch: frames copied out of the splitter's buffer (or noted where they lie in an input in
//! memory), handed from stage to stage, with the pure half of each of its records.
//!
//! This module owns what a batch holds and counts for, its reuse, and the examining of its
//! records on whichever lane takes it. It must not decide where batches go nor own threads,
//! queues or budgets (that is the parent, `pipeline`), nor decide anything about records (that is
//! `check`).

use super::SharedInput;
use crate::agents::Agent;
use crate::agents::cursor::view::Dialect;
use crate::check::{Examined, examine, redacted};
use crate::input::record::{Frame, Position, Record};
use crate::redact::Redactor;
use bumpalo::Bump;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

/// What a frame counts for in a batch's size beyond its bytes: its place in the batch and what
/// the lanes make of it (the slot of its view, some 900 bytes), so that what is in flight is
/// bounded by memory, not by record bytes alone: a stream of small records, or of blank lines,
/// is handed on in batches of fewer frames.
pub(super) const FRAME_COST: usize =
    std::mem::size_of::<Meta>() + std::mem::size_of::<Examined<'static>>();

/// The frames of a batch, and the bytes of its records: copied one after the other into the
/// batch, or in place in the whole input.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) bytes: Vec<u8>,
    /// The input, when it is in memory: the records' bytes are there.
    pub(super) whole: Option<Arc<dyn SharedInput>>,
    pub(super) frames: Vec<Meta>,
    /// The records' bytes, counted.
    pub(super) held: usize,
    /// Where the last record's bytes end.
    pub(super) upto: usize,
    /// Bytes read from the input when the batch was handed on.
    pub(super) read: u64,
    /// The unescaped strings of the batch's events.
    pub(super) arena: Bump,
    /// The segment the batch is part of, when the input is cut into segments.
    pub(super) part: Option<Part>,
    /// `--redact`: the redacted text of the records that held a credential, one after the
    /// other (see [`Batch::redact`]).
    pub(super) redacted: Vec<u8>,
}

/// Where a batch stands in its segment ([`super::segments::SegmentStarts`]). The frames of a segment count their
/// lines and records from the segment's start, as if the input started there (line 1, no
/// record before); only their byte offsets are the input's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Part {
    /// The segment's first batch.
    pub(super) first: bool,
    /// Where the segment's frames were taken to start, and where the next segment's are.
    pub(super) start: usize,
    pub(super) next: usize,
    /// On the segment's last batch: where a frame after its last one starts (see
    /// [`crate::input::split::Splitter::next_start`]).
    pub(super) end: Option<Position>,
}

/// One frame of a [`Batch`]: the frame as the splitter gave it, a record's bytes left empty,
/// and where those bytes stand in the batch or in the whole input.
pub(super) struct Meta {
    pub(super) frame: Frame<'static>,
    pub(super) bytes: Range<usize>,
    /// Where the frame starts in the input, before any BOM (in batches of a segment only).
    pub(super) start: usize,
    /// `bytes` are in the batch's redacted text.
    pub(super) redacted: bool,
}

impl Batch {
    /// Adds `frame`, copying a record's bytes, or, with the address where the whole input
    /// starts, noting where they are in it.
    pub(super) fn push(&mut self, frame: &Frame<'_>, in_place: Option<usize>, start: usize) {
        let (frame, bytes) = match *frame {
            Frame::Record(rec) => {
                let bytes = match in_place {
                    Some(base) => {
                        let start = rec.bytes.as_ptr() as usize - base;
                        start..start + rec.bytes.len()
                    }
                    None => {
                        let start = self.bytes.len();
                        self.bytes.extend_from_slice(rec.bytes);
                        start..self.bytes.len()
                    }
                };
                self.held += rec.bytes.len();
                self.upto = bytes.end;
                (Frame::Record(Record { bytes: &[], ..rec }), bytes)
            }
            Frame::Blank { pos, bom } => (Frame::Blank { pos, bom }, 0..0),
            Frame::TooLarge { pos, len, bom } => (Frame::TooLarge { pos, len, bom }, 0..0),
        };
        self.frames.push(Meta {
            frame,
            bytes,
            start,
            redacted: false,
        });
    }

    /// Empties the batch for reuse; what one large record made large (beyond twice `limit`) is
    /// not kept.
    pub(super) fn clear(&mut self, limit: usize) {
        self.bytes.clear();
        self.redacted.clear();
        self.frames.clear();
        (self.held, self.upto) = (0, 0);
        self.part = None;
        self.arena.reset();
        if self.arena.allocated_bytes() > 2 * limit {
            self.arena = Bump::new();
        }
        if self.bytes.capacity() > 2 * limit {
            self.bytes = Vec::new();
        }
        if self.redacted.capacity() > 2 * limit {
            self.redacted = Vec::new();
        }
    }

    /// What the batch counts for against the limits.
    pub(super) fn size(&self) -> usize {
        self.held + self.frames.len() * FRAME_COST
    }

    pub(super) fn frame(&self, meta: &Meta) -> Frame<'_> {
        match meta.frame {
            Frame::Record(rec) => Frame::Record(Record {
                bytes: match &self.whole {
                    _ if meta.redacted => &self.redacted[meta.bytes.clone()],
                    Some(whole) => &whole.bytes()[meta.bytes.clone()],
                    None => &self.bytes[meta.bytes.clone()],
                },
                ..rec
            }),
            Frame::Blank { pos, bom } => Frame::Blank { pos, bom },
            Frame::TooLarge { pos, len, bom } => Frame::TooLarge { pos, len, bom },
        }
    }

    /// Every record's text through `redactor`, on the lane that examines the batch: a record
    /// that held a credential is read from then on from its redacted copy, by the lane and the
    /// in-order stage alike; one that held none stays where it is.
    pub(super) fn redact(&mut self, redactor: &Redactor) {
        for meta in &mut self.frames {
            let Frame::Record(rec) = meta.frame else {
                continue;
            };
            let bytes = match &self.whole {
                Some(whole) => &whole.bytes()[meta.bytes.clone()],
                None => &self.bytes[meta.bytes.clone()],
            };
            if let Cow::Owned(text) = redactor.redact_record(bytes) {
                let start = self.redacted.len();
                self.redacted.extend_from_slice(&text);
                meta.bytes = start..self.redacted.len();
                meta.redacted = true;
                meta.frame = Frame::Record(redacted(&rec, &[]));
            }
        }
    }

    /// The pure half of each record, in order, each with its view: cursor-agent's event, or
    /// `agent`'s record when it is another agent.
    pub(super) fn examine(
        &self,
        dialect: Option<Dialect>,
        agent: Option<Agent>,
        keys: bool,
    ) -> Outcomes<'_> {
        let mut out: Outcomes<'_> = Vec::with_capacity(self.frames.len());
        for meta in &self.frames {
            if let Frame::Record(rec) = self.frame(meta) {
                // Examined in place: the view is never moved.
                out.push(Examined::SlowPath);
                let slot = out.last_mut().expect("just pushed");
                examine(&rec, dialect, agent, keys, slot, &self.arena);
            }
        }
        out
    }
}

pub(super) type Outcomes<'a> = Vec<Examined<'a>>;

self_cell::self_cell!(
    /// A batch and the pure half of each of its records, which borrows the batch's bytes.
    pub(super) struct ExaminedBatch {
        owner: Batch,
        #[covariant]
        dependent: Outcomes,
    }
);
