//! The splitter fed in random chunkings, or splitting the input where it lies in steps, yields
//! exactly what it yields when fed the whole input at once, and its frames stay within the limit and in input order. The block string tracker
//! (`simd`, whose AVX2 and carry-less multiplication paths are the crate's `unsafe` code) gives
//! the portable tracker's answer on the same bytes, from every starting state.
//!
//! Input layout: byte 0 picks the record size limit, bytes 1..5 are the read sizes (cycled; a
//! 0 is an `Interrupted` error before the next read), the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjlint::unstable::input::record::{Frame, OwnedFrame as Owned, Position, UTF8};
use sjlint::unstable::input::simd::Kernel;
use sjlint::unstable::input::split::{InPlace, Source, Splitter};
use std::io::{self, Read};

const LIMITS: [usize; 9] = [1, 2, 3, 7, 16, 64, 200, 4096, 64 << 20];

struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [u8],
    turn: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        if size == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = usize::from(size).min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn frames(reader: impl Read, max: usize, len: usize) -> Vec<Owned> {
    frames_of(Splitter::new(reader, max).checking_utf8(), max, len)
}

fn frames_of<S: Source>(mut splitter: Splitter<S>, max: usize, len: usize) -> Vec<Owned> {
    let mut out = Vec::new();
    let mut last: Option<Position> = None;
    while let Some(frame) = splitter
        .next_frame()
        .expect("reading from memory cannot fail")
    {
        let owned = match frame {
            Frame::Record(r) => {
                assert!(r.bytes.len() <= max, "record over the limit");
                // Whether the bytes are known to be UTF-8 depends on the reads; when they are
                // said to be, they must be.
                if r.has(UTF8) {
                    assert!(std::str::from_utf8(r.bytes).is_ok(), "not UTF-8 after all");
                }
                Owned::Record {
                    bytes: r.bytes.to_vec(),
                    pos: r.pos,
                    lines: r.lines,
                    flags: r.flags & !UTF8,
                }
            }
            Frame::Blank { pos, bom } => Owned::Blank { pos, bom },
            Frame::TooLarge { pos, len, bom } => {
                assert!(len > max as u64, "too-large frame within the limit");
                Owned::TooLarge { pos, len, bom }
            }
        };
        let pos = owned.pos();
        if let Some(last) = last {
            assert!(
                pos.byte > last.byte && pos.line > last.line,
                "frames out of order"
            );
            assert!(pos.record >= last.record);
        }
        last = Some(pos);
        out.push(owned);
    }
    assert!(
        splitter.next_frame().unwrap().is_none(),
        "a frame after the end"
    );
    assert_eq!(
        splitter.bytes_read(),
        len as u64,
        "input not read to the end"
    );
    out
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 5 {
        return;
    }
    let max = LIMITS[usize::from(input[0]) % LIMITS.len()];
    let mut sizes = [0u8; 4];
    sizes.copy_from_slice(&input[1..5]);
    if sizes.iter().all(|&s| s == 0) {
        sizes[0] = 1;
    }
    let data = &input[5..];
    let whole = frames(data, max, data.len());
    let chunked = frames(
        Chunked {
            data,
            sizes: &sizes,
            turn: 0,
        },
        max,
        data.len(),
    );
    assert_eq!(whole, chunked, "chunking changed the frames");
    let step = usize::from(*sizes.iter().max().unwrap_or(&1));
    let in_place = InPlace::with_step(data, step, |_, _| Ok(()));
    let in_place = Splitter::over(in_place, max, Kernel::best()).checking_utf8();
    let in_place = frames_of(in_place, max, data.len());
    assert_eq!(whole, in_place, "splitting in place changed the frames");

    for (in_str, esc) in [(false, false), (true, false), (true, true)] {
        assert_eq!(
            sjlint::unstable::input::simd::string_state(in_str, esc, data),
            sjlint::unstable::input::simd::string_state_portable(in_str, esc, data),
            "block string tracking differs from the portable one"
        );
    }
});
