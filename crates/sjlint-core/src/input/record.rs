//! Where a record sits in its input, and the framing items the splitter yields.
//!
//! This module owns the plain data passed from the splitter to everything after it. It must not
//! know anything about JSON or events: a `Record` is bytes plus a position.

/// A location in the input. All three counters are exact, also across records that span
/// several physical lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// 0-based byte offset of the first byte of the record (after any stripped BOM).
    pub byte: u64,
    /// 1-based physical line on which the record starts.
    pub line: u64,
    /// 1-based index of the record among the records of the input (blank lines do not count).
    pub record: u64,
}

/// The record's bytes contained raw LF bytes inside a JSON string: it spans `lines` physical lines.
pub const MULTILINE: u8 = 1;
/// A UTF-8 byte-order mark was stripped from the start of this record's line.
pub const BOM_STRIPPED: u8 = 2;
/// The input ended before this record's terminating LF (a final record without LF).
pub const NO_FINAL_LF: u8 = 4;
/// The record ends inside a JSON string because the input ended there (cut off by end of input).
pub const ENDS_IN_STRING: u8 = 8;
/// The first line of this record opened a string that a join with the following lines could not
/// turn into one valid record; the record is this first physical line alone and splitting
/// resumes at the next physical line.
pub const JOIN_FAILED: u8 = 16;
/// The splitter has found the record's bytes to be valid UTF-8 (it checks whole reads at once,
/// which costs less than a check per record). Without it, nothing is known either way.
pub const UTF8: u8 = 32;
/// The record is the whole of an input that is one JSON object pretty-printed over several
/// lines (its first line opened the object; see `split`'s join).
pub const DOCUMENT: u8 = 64;

/// One record: the bytes of one JSON text candidate, without its line terminator (LF, CRLF) and
/// without a leading BOM.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    pub bytes: &'a [u8],
    pub pos: Position,
    /// Number of physical lines the record spans (1 for an ordinary record).
    pub lines: u32,
    /// Bit set of the flag constants above.
    pub flags: u8,
}

impl Record<'_> {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// What the splitter yields.
#[derive(Debug)]
pub enum Frame<'a> {
    Record(Record<'a>),
    /// An empty or whitespace-only line (`bom` when a BOM was stripped from it). `pos.record` is
    /// the number of records before it.
    Blank {
        pos: Position,
        bom: bool,
    },
    /// A record longer than the limit; its bytes were skipped in constant memory up to the next
    /// physical LF (or the end of input), or handed out in pieces before this frame when the
    /// splitter passes them on (`split::passing`). `len` is the record's length without BOM and line
    /// terminator (always more than the limit).
    TooLarge {
        pos: Position,
        len: u64,
        bom: bool,
    },
}

/// A [`Frame`] that owns its bytes, for a frame kept past the read that gave it (the frames held
/// until a stream's agent is known) or compared with another (tests, fuzz targets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnedFrame {
    Record {
        bytes: Vec<u8>,
        pos: Position,
        lines: u32,
        flags: u8,
    },
    Blank {
        pos: Position,
        bom: bool,
    },
    TooLarge {
        pos: Position,
        len: u64,
        bom: bool,
    },
}

impl Frame<'_> {
    /// The frame with a copy of its bytes.
    pub fn to_owned_frame(&self) -> OwnedFrame {
        match *self {
            Frame::Record(rec) => OwnedFrame::Record {
                bytes: rec.bytes.to_vec(),
                pos: rec.pos,
                lines: rec.lines,
                flags: rec.flags,
            },
            Frame::Blank { pos, bom } => OwnedFrame::Blank { pos, bom },
            Frame::TooLarge { pos, len, bom } => OwnedFrame::TooLarge { pos, len, bom },
        }
    }
}

impl OwnedFrame {
    /// The frame, borrowing the bytes kept.
    pub fn frame(&self) -> Frame<'_> {
        match *self {
            OwnedFrame::Record {
                ref bytes,
                pos,
                lines,
                flags,
            } => Frame::Record(Record {
                bytes,
                pos,
                lines,
                flags,
            }),
            OwnedFrame::Blank { pos, bom } => Frame::Blank { pos, bom },
            OwnedFrame::TooLarge { pos, len, bom } => Frame::TooLarge { pos, len, bom },
        }
    }

    /// Where the frame starts.
    pub fn pos(&self) -> Position {
        match *self {
            OwnedFrame::Record { pos, .. }
            | OwnedFrame::Blank { pos, .. }
            | OwnedFrame::TooLarge { pos, .. } => pos,
        }
    }
}
