//! String tracking over 64-byte blocks with bit masks, for the splitter's fast path.
//!
//! This module owns two questions. Starting in a given string state, are we inside a JSON
//! string at the end of these bytes? And, ahead of a line start, where are the next LFs and
//! does each stand inside a string (the line index)? It answers both a block at a time: bit
//! masks of quotes, backslashes and LFs per 64 bytes (AVX-512 or AVX2 when the CPU has them,
//! SSE2 on every x86-64, plain code elsewhere, chosen at run time, every one giving the same
//! answers), escaped positions from the backslash runs, and the in-string mask as the prefix
//! XOR of the unescaped quotes. It must give exactly the answers of the byte-at-a-time tracker
//! (`string_state_bytewise`, kept here too), which lets a backslash escape only inside a string;
//! where the two could differ (a backslash outside any string, which valid JSON never has) it
//! says so and the caller falls back to the byte-at-a-time tracker. It knows nothing of
//! records, limits or the join rules.

use memchr::{memchr, memchr2};
use std::ops::Range;

/// The string state after `bytes`, starting from (`in_str`, `esc`): `esc` means the previous
/// byte was a backslash inside a string whose escape is still pending. `None` when a backslash
/// stands outside a string, where the block method's answer is not the splitter's.
pub fn string_state(in_str: bool, esc: bool, bytes: &[u8]) -> Option<(bool, bool)> {
    string_state_within(in_str, esc, bytes, 0..bytes.len())
}

/// [`string_state`] over `buf[range]`. The bytes of `buf` after the range are read (and
/// ignored) so the last block needs no copy; only at the very end of `buf` is one made.
pub fn string_state_within(
    in_str: bool,
    esc: bool,
    buf: &[u8],
    range: Range<usize>,
) -> Option<(bool, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq") {
            // SAFETY: the CPU supports AVX2 and PCLMULQDQ, checked just above.
            return unsafe { scan_avx2(in_str, esc, buf, range) };
        }
        scan_with(in_str, esc, buf, range, x86::masks_sse2)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scan_with(in_str, esc, buf, range, masks_portable)
    }
}

/// The same, always with the portable mask builder (tests compare the two).
pub fn string_state_portable(in_str: bool, esc: bool, bytes: &[u8]) -> Option<(bool, bool)> {
    scan_with(in_str, esc, bytes, 0..bytes.len(), masks_portable)
}

/// Masks of one 64-byte block: bit i is set when byte i is `"` / `\` / LF. (Where only the
/// string state is asked for, the LF mask is computed and dropped by the optimiser.)
#[derive(Clone, Copy)]
struct Masks {
    quote: u64,
    backslash: u64,
    lf: u64,
}

#[inline(always)]
fn scan_with(
    in_str: bool,
    esc: bool,
    buf: &[u8],
    range: Range<usize>,
    masks: impl Fn(&[u8; 64]) -> Masks,
) -> Option<(bool, bool)> {
    scan_with_xor(in_str, esc, buf, range, masks, prefix_xor)
}

#[inline(always)]
fn scan_with_xor(
    mut in_str: bool,
    mut esc: bool,
    buf: &[u8],
    range: Range<usize>,
    masks: impl Fn(&[u8; 64]) -> Masks,
    xor: impl Fn(u64) -> u64,
) -> Option<(bool, bool)> {
    let (mut at, end) = (range.start, range.end);
    while at < end {
        let len = (end - at).min(64);
        let m = match buf.get(at..at + 64) {
            Some(block) => masks(block.try_into().expect("64 bytes")),
            None => {
                let mut block = [0u8; 64];
                block[..len].copy_from_slice(&buf[at..at + len]);
                masks(&block)
            }
        };
        let m = if len < 64 {
            // Bytes past the range are not ours to judge.
            let keep = (1u64 << len) - 1;
            Masks {
                quote: m.quote & keep,
                backslash: m.backslash & keep,
                lf: m.lf & keep,
            }
        } else {
            m
        };
        (in_str, esc) = step(m, in_str, esc, len, &xor)?;
        at += len;
    }
    Some((in_str, esc))
}

/// Advances the state over one block of which the first `len` bytes are real.
#[inline(always)]
fn step(
    m: Masks,
    in_str: bool,
    esc: bool,
    len: usize,
    xor: impl Fn(u64) -> u64,
) -> Option<(bool, bool)> {
    let (escaped, carry) = escaped_positions(m.backslash, esc);
    let quotes = m.quote & !escaped;
    let inside = xor(quotes) ^ if in_str { !0 } else { 0 };
    // A backslash outside every string: there the byte-at-a-time tracker ignores it and this
    // method would not. (Up to the first such backslash the two agree, so this finds it.)
    if m.backslash & !inside != 0 {
        return None;
    }
    Some(match len {
        0 => (in_str, esc),
        64 => (inside >> 63 == 1, carry),
        _ => ((inside >> (len - 1)) & 1 == 1, (escaped >> len) & 1 == 1),
    })
}

const EVEN: u64 = 0x5555_5555_5555_5555;
const ODD: u64 = !EVEN;

/// The positions escaped by a backslash: the byte after every run of backslashes of odd length
/// (and byte 0 when `carry_in` says the previous block ended with a pending escape). The second
/// value says that a run of odd length reaches the end of the block, so the next block's first
/// byte is escaped. (Bits at backslashes inside a run are set too, which changes nothing: only
/// quotes and the byte after the block are asked about.)
///
/// Branch-free: a run from bit s to bit p-1 escapes bit p when its length p-s is odd, that is
/// when s and p differ in parity. Adding each run's first bit to the mask, for the runs that
/// start on an odd bit only, clears those runs (the carry lands on the bit after them) and
/// leaves the others set; so bit p-1 of the sum tells which parity a run ending at p-1 started
/// on, and the parity of p itself decides.
///
/// A pending escape only changes bit 0 (escaped) and the first run, if it starts at bit 0: that
/// run is one shorter, so the parity at its end flips, and so does the carry if the run fills
/// the block. That correction is rare, and as a predicted branch it keeps the carry out of the
/// chain of dependences from one block to the next.
#[inline(always)]
fn escaped_positions(backslash: u64, carry_in: bool) -> (u64, bool) {
    let b = backslash;
    let follows = b << 1;
    let odd_starts = b & ODD & !follows;
    let (sum, overflow) = odd_starts.overflowing_add(b);
    let escaped = (EVEN ^ (sum << 1)) & follows;
    // A run that started on an odd bit and runs to bit 63 has odd length: its escape is pending.
    if carry_in {
        // The lowest clear bit: the end of a run at bit 0, or bit 0 itself.
        let first_end = !b & b.wrapping_add(1);
        (escaped ^ (first_end | 1), overflow ^ (b == !0))
    } else {
        (escaped, overflow)
    }
}

/// Bit i of the result is the XOR of bits 0..=i of `x`: set inside a quoted run.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

fn masks_portable(block: &[u8; 64]) -> Masks {
    let mut quote = 0u64;
    let mut backslash = 0u64;
    let mut lf = 0u64;
    for (i, &b) in block.iter().enumerate() {
        quote |= u64::from(b == b'"') << i;
        backslash |= u64::from(b == b'\\') << i;
        lf |= u64::from(b == b'\n') << i;
    }
    Masks {
        quote,
        backslash,
        lf,
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{LineIndex, Masks, extend_with};
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_set_epi64x, _mm_set1_epi8, _mm256_cmpeq_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_set1_epi8, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512,
        _mm512_set1_epi8,
    };

    /// SSE2 is part of every x86-64 CPU, so this needs no detection.
    #[inline(always)]
    pub(super) fn masks_sse2(block: &[u8; 64]) -> Masks {
        // SAFETY: SSE2 is always available on x86_64; the loads read 4 × 16 bytes inside the
        // 64-byte array (unaligned loads are allowed).
        unsafe {
            let q = _mm_set1_epi8(b'"' as i8);
            let bs = _mm_set1_epi8(b'\\' as i8);
            let nl = _mm_set1_epi8(b'\n' as i8);
            let mut quote = 0u64;
            let mut backslash = 0u64;
            let mut lf = 0u64;
            for k in 0..4 {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast());
                let mq = u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) as u16);
                let mb = u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)) as u16);
                let ml = u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u16);
                quote |= mq << (16 * k);
                backslash |= mb << (16 * k);
                lf |= ml << (16 * k);
            }
            Masks {
                quote,
                backslash,
                lf,
            }
        }
    }

    /// The prefix XOR as one carry-less multiplication by all ones.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ.
    #[target_feature(enable = "pclmulqdq")]
    pub(super) unsafe fn prefix_xor_clmul(x: u64) -> u64 {
        // The intrinsics are safe to call here: PCLMULQDQ is enabled for this function, and
        // SSE2 (for the moves) is part of x86-64.
        let v = _mm_set_epi64x(0, x as i64);
        let ones = _mm_set1_epi8(-1);
        _mm_cvtsi128_si64(_mm_clmulepi64_si128(v, ones, 0)) as u64
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn masks_avx2(block: &[u8; 64]) -> Masks {
        // SAFETY: the two loads read 2 × 32 bytes inside the 64-byte array; AVX2 is enabled
        // for this function and its caller checked for it.
        unsafe {
            let q = _mm256_set1_epi8(b'"' as i8);
            let bs = _mm256_set1_epi8(b'\\' as i8);
            let lo = _mm256_loadu_si256(block.as_ptr().cast());
            let hi = _mm256_loadu_si256(block.as_ptr().add(32).cast());
            let ql = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, q)) as u32);
            let qh = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, q)) as u32);
            let bl = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, bs)) as u32);
            let bh = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, bs)) as u32);
            let nl = _mm256_set1_epi8(b'\n' as i8);
            let ll = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, nl)) as u32);
            let lh = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, nl)) as u32);
            Masks {
                quote: ql | qh << 32,
                backslash: bl | bh << 32,
                lf: ll | lh << 32,
            }
        }
    }

    /// # Safety
    /// The CPU must support AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub(super) unsafe fn masks_avx512(block: &[u8; 64]) -> Masks {
        // SAFETY: the load reads the 64 bytes of the array (unaligned loads are allowed);
        // AVX-512BW is enabled for this function and its caller checked for it.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        Masks {
            quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
            backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
            lf: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\n' as i8)),
        }
    }

    /// The index's block loop with AVX2 compares and the carry-less prefix XOR.
    ///
    /// # Safety
    /// The CPU must support AVX2, PCLMULQDQ, POPCNT and BMI1.
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1")]
    pub(super) unsafe fn extend_avx2(ix: &mut LineIndex, buf: &[u8], limit: usize, end: usize) {
        extend_with(
            ix,
            buf,
            limit,
            end,
            // SAFETY (both closures): this function only runs where the CPU has AVX2 and
            // PCLMULQDQ (and more), as its caller guarantees.
            |b| unsafe { masks_avx2(b) },
            |q| unsafe { prefix_xor_clmul(q) },
        );
    }

    /// The index's block loop with AVX-512 compares into mask registers and the carry-less
    /// prefix XOR.
    ///
    /// # Safety
    /// The CPU must support AVX-512BW, PCLMULQDQ, POPCNT and BMI1.
    #[target_feature(enable = "avx512bw,pclmulqdq,popcnt,bmi1")]
    pub(super) unsafe fn extend_avx512(ix: &mut LineIndex, buf: &[u8], limit: usize, end: usize) {
        extend_with(
            ix,
            buf,
            limit,
            end,
            // SAFETY (both closures): this function only runs where the CPU has AVX-512BW and
            // PCLMULQDQ (and more), as its caller guarantees.
            |b| unsafe { masks_avx512(b) },
            |q| unsafe { prefix_xor_clmul(q) },
        );
    }
}

#[cfg(target_arch = "x86_64")]
/// # Safety
/// The CPU must support AVX2 and PCLMULQDQ.
#[target_feature(enable = "avx2,pclmulqdq")]
unsafe fn scan_avx2(
    in_str: bool,
    esc: bool,
    buf: &[u8],
    range: Range<usize>,
) -> Option<(bool, bool)> {
    scan_with_xor(
        in_str,
        esc,
        buf,
        range,
        // SAFETY: the CPU supports AVX2, as this function's caller guarantees.
        |b| unsafe { x86::masks_avx2(b) },
        // SAFETY: the CPU supports PCLMULQDQ, as this function's caller guarantees.
        |q| unsafe { x86::prefix_xor_clmul(q) },
    )
}

/// Which block implementation an index uses. Only [`Kernel::best`] and [`Kernel::available`]
/// make one, after asking the CPU, so holding a `Kernel` proves its instructions are there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Imp);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Imp {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse2,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Kernel {
    /// The fastest implementation this CPU runs.
    pub fn best() -> Kernel {
        *Kernel::available()
            .last()
            .expect("the portable kernel is always there")
    }

    /// Every implementation this CPU runs, slowest first (the portable one is always there).
    pub fn available() -> Vec<Kernel> {
        #[allow(unused_mut, reason = "pushed to only on targets with SIMD kernels")]
        let mut all = vec![Kernel(Imp::Portable)];
        #[cfg(target_arch = "x86_64")]
        {
            // SSE2 is part of x86-64; the prefix XOR there is the shift ladder.
            all.push(Kernel(Imp::Sse2));
            if std::is_x86_feature_detected!("pclmulqdq")
                && std::is_x86_feature_detected!("popcnt")
                && std::is_x86_feature_detected!("bmi1")
            {
                if std::is_x86_feature_detected!("avx2") {
                    all.push(Kernel(Imp::Avx2));
                }
                if std::is_x86_feature_detected!("avx512bw") {
                    all.push(Kernel(Imp::Avx512));
                }
            }
        }
        all
    }

    pub fn name(self) -> &'static str {
        match self.0 {
            Imp::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Imp::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Imp::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Imp::Avx512 => "avx512",
        }
    }
}

/// Bytes indexed per call at most: enough blocks for the loop to run long, few enough offsets
/// to stay in the first-level cache.
const WINDOW: usize = 16 * 1024;
/// Marks the offset of an LF that stands inside a string.
const IN_STRING: u32 = 1 << 31;

/// What [`LineIndex::find`] says about the line being split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// The line's LF, and whether it stands inside a string.
    Lf { at: usize, in_str: bool },
    /// No LF before the end of the bytes: the string state there.
    End { in_str: bool, esc: bool },
    /// A backslash outside every string at this offset, before any LF: from here the block
    /// method's answer is not the byte tracker's, so the caller continues byte by byte, from
    /// the state outside any string.
    Backslash(usize),
}

/// The LFs ahead of a line start, each with whether it stands inside a JSON string, found a
/// window of blocks at a time in one pass.
///
/// The splitter tracks the string state line by line, starting every line outside any string.
/// Carried across an LF that stands outside a string, the block method's state is exactly that
/// fresh state (such an LF is neither escaped nor escapes anything), so one pass over many lines
/// answers for all of them, as long as each line starts right after the previous LF taken from
/// here. The index stops at the first LF inside a string (which it hands out, flagged, as the
/// last one) and at the first backslash outside any string; after either, or when a line was
/// split some other way, the caller starts it again at the next line start.
pub struct LineIndex {
    kernel: Kernel,
    /// Offsets from `origin`, with [`IN_STRING`] on an LF inside a string; `head..len` are not
    /// taken yet. Sized so that every byte of a window could be an LF, plus the slot every
    /// block writes whether or not it has LFs.
    lfs: Box<[u32]>,
    head: usize,
    len: usize,
    origin: usize,
    /// The line start the index is valid for: the byte after the last LF taken, or where it was
    /// started. `usize::MAX` when it is valid for none.
    line: usize,
    /// First byte not indexed yet, and the string state before it.
    pos: usize,
    in_str: bool,
    esc: bool,
    /// Indexing stopped at a backslash outside every string here.
    blocked: Option<usize>,
    /// Bytes indexed, for the splitter's tests of linear work.
    #[cfg(test)]
    work: u64,
}

impl LineIndex {
    pub fn new(kernel: Kernel) -> LineIndex {
        LineIndex {
            kernel,
            lfs: vec![0; WINDOW + 2].into_boxed_slice(),
            head: 0,
            len: 0,
            origin: 0,
            line: usize::MAX,
            pos: 0,
            in_str: false,
            esc: false,
            blocked: None,
            #[cfg(test)]
            work: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn work(&self) -> u64 {
        self.work
    }

    /// Whether the index is valid for a line starting at `at`.
    #[inline]
    pub fn is_at(&self, at: usize) -> bool {
        self.line == at
    }

    /// Starts again at `at`, outside any string.
    pub fn restart(&mut self, at: usize) {
        self.line = at;
        self.pos = at;
        self.in_str = false;
        self.esc = false;
        self.head = 0;
        self.len = 0;
        self.blocked = None;
    }

    /// Valid for no line until the next restart.
    pub fn invalidate(&mut self) {
        self.line = usize::MAX;
    }

    /// The bytes before `by` were dropped from the front of the buffer. The index stays valid
    /// only for the line starting at `by`, and only when nothing is left to take.
    pub fn shift(&mut self, by: usize) {
        if self.line == by && self.head == self.len && self.blocked.is_none() {
            self.line = 0;
            self.pos -= by;
        } else {
            self.invalidate();
        }
    }

    /// First byte not indexed yet.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next LF already found, if the index is valid for a line starting at `line`.
    #[inline]
    pub fn take(&mut self, line: usize) -> Option<(usize, bool)> {
        if self.line != line || self.head == self.len {
            return None;
        }
        let e = self.lfs[self.head];
        self.head += 1;
        let at = self.origin + (e & !IN_STRING) as usize;
        let in_str = e & IN_STRING != 0;
        // After an LF inside a string, the next line is not where the carried state is fresh.
        self.line = if in_str { usize::MAX } else { at + 1 };
        Some((at, in_str))
    }

    /// The end of the line starting at `line` (restarting there if the index is not valid for
    /// it), indexing `buf[..end]` further as needed.
    pub fn find(&mut self, buf: &[u8], end: usize, line: usize) -> Found {
        if self.line != line {
            self.restart(line);
        }
        loop {
            if let Some((at, in_str)) = self.take(line) {
                return Found::Lf { at, in_str };
            }
            if let Some(at) = self.blocked {
                self.invalidate();
                return Found::Backslash(at);
            }
            if self.pos >= end {
                return Found::End {
                    in_str: self.in_str,
                    esc: self.esc,
                };
            }
            self.extend(buf, end);
        }
    }

    /// Indexes one window from `pos`, or up to `end`.
    fn extend(&mut self, buf: &[u8], end: usize) {
        debug_assert!(self.head == self.len && self.blocked.is_none());
        self.head = 0;
        self.len = 0;
        self.origin = self.pos;
        let limit = end.min(self.pos + WINDOW);
        #[cfg(test)]
        let from = self.pos;
        match self.kernel.0 {
            Imp::Portable => extend_with(self, buf, limit, end, masks_portable, prefix_xor),
            #[cfg(target_arch = "x86_64")]
            Imp::Sse2 => extend_with(self, buf, limit, end, x86::masks_sse2, prefix_xor),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernel` holding `Avx2` is only made after detecting AVX2, PCLMULQDQ,
            // POPCNT and BMI1 (see `Kernel::available`).
            Imp::Avx2 => unsafe { x86::extend_avx2(self, buf, limit, end) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernel` holding `Avx512` is only made after detecting AVX-512BW,
            // PCLMULQDQ, POPCNT and BMI1 (see `Kernel::available`).
            Imp::Avx512 => unsafe { x86::extend_avx512(self, buf, limit, end) },
        }
        #[cfg(test)]
        {
            self.work += (self.pos - from) as u64;
        }
    }
}

/// Blocks per step of the main loop: the four blocks' work interleaves, and one branch checks
/// them all.
const GROUP: usize = 4;

/// Indexes the full blocks of `buf[ix.pos..limit]`, then, when `limit` is `end`, the bytes
/// left before it. Inlined into each kernel so the block loop runs with its instructions.
#[inline(always)]
fn extend_with(
    ix: &mut LineIndex,
    buf: &[u8],
    limit: usize,
    end: usize,
    masks: impl Fn(&[u8; 64]) -> Masks,
    xor: impl Fn(u64) -> u64,
) {
    let start = ix.pos;
    let mut inside_before = if ix.in_str { !0u64 } else { 0 };
    let mut esc = ix.esc;
    let mut len = ix.len;
    let mut rel = (start - ix.origin) as u32;
    let lfs = &mut ix.lfs[..];
    let groups = (limit - start) / (64 * GROUP);
    let mut pos = start;
    // Groups of blocks in which every LF stands outside strings and every backslash inside
    // one; the state is only committed once a whole group is known to be such.
    for group in buf[start..start + groups * 64 * GROUP].chunks_exact(64 * GROUP) {
        let mut m = [Masks {
            quote: 0,
            backslash: 0,
            lf: 0,
        }; GROUP];
        for (k, m) in m.iter_mut().enumerate() {
            *m = masks(group[64 * k..64 * k + 64].try_into().expect("64 bytes"));
        }
        let (mut g_inside, mut g_esc) = (inside_before, esc);
        let mut bad = 0;
        for m in &m {
            let (escaped, carry) = escaped_positions(m.backslash, g_esc);
            let inside = xor(m.quote & !escaped) ^ g_inside;
            bad |= (m.lf & inside) | (m.backslash & !inside);
            g_inside = ((inside as i64) >> 63) as u64;
            g_esc = carry;
        }
        if bad != 0 {
            // The blocks one at a time below find where to stop.
            break;
        }
        for m in &m {
            push_lfs(lfs, &mut len, rel, m.lf);
            rel += 64;
        }
        (inside_before, esc) = (g_inside, g_esc);
        pos += 64 * GROUP;
    }
    while pos + 64 <= limit {
        let m = masks(buf[pos..pos + 64].try_into().expect("64 bytes"));
        let (escaped, carry) = escaped_positions(m.backslash, esc);
        let inside = xor(m.quote & !escaped) ^ inside_before;
        if (m.lf & inside) | (m.backslash & !inside) != 0 {
            ix.len = len;
            stop(ix, pos, m.lf, m.backslash, inside);
            return;
        }
        push_lfs(lfs, &mut len, rel, m.lf);
        rel += 64;
        inside_before = ((inside as i64) >> 63) as u64;
        esc = carry;
        pos += 64;
    }
    ix.len = len;
    ix.in_str = inside_before != 0;
    ix.esc = esc;
    ix.pos = pos;
    if pos < limit && limit == end {
        tail(ix, buf, end, masks, xor);
    }
}

/// Appends the LFs of one block. Branch-free for the usual zero or one LF per block: one slot
/// is always written (an unused one is overwritten later), the count moves by the real number.
#[inline(always)]
fn push_lfs(lfs: &mut [u32], len: &mut usize, rel: u32, lf: u64) {
    lfs[*len] = rel + lf.trailing_zeros();
    *len += usize::from(lf != 0);
    let mut rest = lf & lf.wrapping_sub(1);
    while rest != 0 {
        lfs[*len] = rel + rest.trailing_zeros();
        *len += 1;
        rest &= rest - 1;
    }
}

/// The bytes from `ix.pos` to `end`, fewer than a block, as the last (masked) block.
#[inline(always)]
fn tail(
    ix: &mut LineIndex,
    buf: &[u8],
    end: usize,
    masks: impl Fn(&[u8; 64]) -> Masks,
    xor: impl Fn(u64) -> u64,
) {
    let pos = ix.pos;
    let n = end - pos;
    let m = match buf.get(pos..pos + 64) {
        // The bytes after `end` are read but masked off below.
        Some(block) => masks(block.try_into().expect("64 bytes")),
        None => {
            let mut block = [0u8; 64];
            block[..n].copy_from_slice(&buf[pos..end]);
            masks(&block)
        }
    };
    let keep = (1u64 << n) - 1;
    let (quote, backslash, lf) = (m.quote & keep, m.backslash & keep, m.lf & keep);
    let (escaped, _) = escaped_positions(backslash, ix.esc);
    let inside = xor(quote & !escaped) ^ if ix.in_str { !0 } else { 0 };
    if (lf & inside) | (backslash & !inside) != 0 {
        stop(ix, pos, lf, backslash, inside);
        return;
    }
    let rel = (pos - ix.origin) as u32;
    let mut lf = lf;
    while lf != 0 {
        ix.lfs[ix.len] = rel + lf.trailing_zeros();
        ix.len += 1;
        lf &= lf - 1;
    }
    ix.in_str = (inside >> (n - 1)) & 1 == 1;
    ix.esc = (escaped >> n) & 1 == 1;
    ix.pos = end;
}

/// A block at `at` holds an LF inside a string or a backslash outside every string: the LFs
/// before the first of these are taken, then the index stops.
#[cold]
fn stop(ix: &mut LineIndex, at: usize, lf: u64, backslash: u64, inside: u64) {
    let lf_in = (lf & inside).trailing_zeros();
    let bs_out = (backslash & !inside).trailing_zeros();
    let cut = lf_in.min(bs_out);
    let rel = (at - ix.origin) as u32;
    let mut before = lf & ((1u64 << cut) - 1);
    while before != 0 {
        ix.lfs[ix.len] = rel + before.trailing_zeros();
        ix.len += 1;
        before &= before - 1;
    }
    if lf_in < bs_out {
        // Handed out last; the state after it is never used.
        ix.lfs[ix.len] = (rel + lf_in) | IN_STRING;
        ix.len += 1;
        ix.pos = at + lf_in as usize + 1;
    } else {
        ix.pos = at + bs_out as usize;
        ix.blocked = Some(ix.pos);
    }
}

/// Naive string tracking, continued over `bytes` from state (`in_str`, `esc`), byte by byte.
/// Outside strings a backslash means nothing here; the grammar automaton judges such lines when
/// it matters. The fast path (`simd`) gives the same answer a block at a time and defers to this
/// where a backslash stands outside a string.
pub(super) fn string_state_bytewise(mut in_str: bool, mut esc: bool, bytes: &[u8]) -> (bool, bool) {
    let mut i = 0;
    if esc && !bytes.is_empty() {
        esc = false;
        i = 1;
    }
    while i < bytes.len() {
        if in_str {
            let Some(j) = memchr2(b'"', b'\\', &bytes[i..]) else {
                break;
            };
            let k = i + j;
            if bytes[k] == b'"' {
                in_str = false;
                i = k + 1;
            } else if k + 1 < bytes.len() {
                i = k + 2;
            } else {
                esc = true;
                i = k + 1;
            }
        } else {
            let Some(j) = memchr(b'"', &bytes[i..]) else {
                break;
            };
            in_str = true;
            i += j + 1;
        }
    }
    (in_str, esc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The splitter's rule, one byte at a time.
    fn reference(mut in_str: bool, mut esc: bool, bytes: &[u8]) -> (bool, bool) {
        for &b in bytes {
            if esc {
                esc = false;
            } else if in_str && b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = !in_str;
            }
        }
        (in_str, esc)
    }

    fn padded(bytes: &[u8]) -> Vec<u8> {
        let mut v = b"\\\"\\".to_vec();
        v.extend_from_slice(bytes);
        v.extend_from_slice(&[b'"'; 70]);
        v.extend_from_slice(&[b'\\'; 70]);
        v
    }

    fn agree(in_str: bool, esc: bool, bytes: &[u8]) {
        let esc = esc && in_str;
        let want = reference(in_str, esc, bytes);
        for got in [
            string_state(in_str, esc, bytes),
            string_state_portable(in_str, esc, bytes),
            #[cfg(target_arch = "x86_64")]
            scan_with(in_str, esc, bytes, 0..bytes.len(), x86::masks_sse2),
            // The same bytes inside a larger buffer whose other bytes must not matter.
            string_state_within(in_str, esc, &padded(bytes), 3..3 + bytes.len()),
        ] {
            if let Some(got) = got {
                assert_eq!(
                    got,
                    want,
                    "{:?} from ({in_str}, {esc})",
                    String::from_utf8_lossy(bytes)
                );
            } else {
                // Only allowed where a backslash really stands outside a string.
                let mut s = (in_str, esc);
                let mut outside = false;
                for &b in bytes {
                    if b == b'\\' && !s.0 {
                        outside = true;
                    }
                    s = reference(s.0, s.1, &[b]);
                }
                assert!(
                    outside,
                    "fell back without cause on {:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn carry_less_prefix_xor_matches_the_shifts() {
        if !std::is_x86_feature_detected!("pclmulqdq") {
            return;
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x = x.rotate_left(7) ^ x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            // SAFETY: the CPU supports PCLMULQDQ, checked above.
            assert_eq!(unsafe { x86::prefix_xor_clmul(x) }, prefix_xor(x));
        }
    }

    #[test]
    fn block_edges_and_escape_runs() {
        for n in [0, 1, 62, 63, 64, 65, 127, 128, 129, 200] {
            for at in 0..n {
                let mut v = vec![b'a'; n];
                v[0] = b'"';
                v[at] = b'\\';
                agree(false, false, &v);
                agree(true, false, &v);
                agree(true, true, &v);
                let mut w = vec![b'x'; n];
                w[at] = b'"';
                agree(true, false, &w);
                agree(true, true, &w);
                agree(false, false, &w);
            }
        }
        let mut runs = Vec::new();
        for k in 0..10 {
            runs.push(b'"');
            runs.extend(std::iter::repeat_n(b'\\', k));
            runs.push(b'"');
            runs.extend_from_slice(b"abc");
        }
        for cut in 0..runs.len() {
            agree(false, false, &runs[..cut]);
            agree(true, false, &runs[cut..]);
        }
    }

    /// What the index must say about `bytes`, line after line, by the byte tracker: every line
    /// starts outside any string and ends at its LF (with the state there), at a backslash
    /// outside every string (then the next line starts after the next LF), or at the end.
    fn reference_lines(bytes: &[u8]) -> Vec<Found> {
        let mut out = Vec::new();
        let mut line = 0;
        loop {
            let (mut in_str, mut esc) = (false, false);
            let mut found = None;
            for (at, &b) in bytes.iter().enumerate().skip(line) {
                if b == b'\n' {
                    found = Some(Found::Lf { at, in_str });
                    break;
                }
                if b == b'\\' && !in_str {
                    found = Some(Found::Backslash(at));
                    break;
                }
                (in_str, esc) = reference(in_str, esc, &[b]);
            }
            let found = found.unwrap_or(Found::End { in_str, esc });
            out.push(found);
            line = match found {
                Found::Lf { at, .. } => at + 1,
                Found::Backslash(at) => match bytes[at..].iter().position(|&b| b == b'\n') {
                    Some(k) => at + k + 1,
                    None => return out,
                },
                Found::End { .. } => return out,
            };
        }
    }

    /// The same through an index with `kernel`, driven as the splitter drives it: the bytes
    /// arrive `step` at a time, a line whose end is not there yet is asked about again once
    /// more are, and the buffer goes on with bytes that must not matter.
    fn index_lines(kernel: Kernel, bytes: &[u8], step: usize) -> Vec<Found> {
        let mut buf = bytes.to_vec();
        buf.extend_from_slice(&b"\"\\\n\\\\\"\n".repeat(20));
        let mut ix = LineIndex::new(kernel);
        let mut out = Vec::new();
        let mut end = step.min(bytes.len());
        let mut line = 0;
        loop {
            let found = ix.find(&buf, end, line);
            if let Found::End { .. } = found
                && end < bytes.len()
            {
                end = end.saturating_add(step).min(bytes.len());
                continue;
            }
            out.push(found);
            line = match found {
                Found::Lf { at, .. } => at + 1,
                Found::Backslash(at) => match bytes[at..].iter().position(|&b| b == b'\n') {
                    Some(k) => at + k + 1,
                    None => return out,
                },
                Found::End { .. } => return out,
            };
            end = end.max(line);
        }
    }

    fn every_kernel_agrees(bytes: &[u8]) {
        let want = reference_lines(bytes);
        for kernel in Kernel::available() {
            for step in [1, 7, 64, 100, 4096, usize::MAX] {
                assert_eq!(
                    index_lines(kernel, bytes, step),
                    want,
                    "{} kernel, step {step}, on {:?}",
                    kernel.name(),
                    String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
                );
            }
        }
    }

    #[test]
    fn every_kernel_is_detected_or_left_out() {
        let names: Vec<&str> = Kernel::available().iter().map(|k| k.name()).collect();
        assert_eq!(names[0], "portable");
        assert_eq!(Kernel::best().name(), *names.last().unwrap());
        #[cfg(target_arch = "x86_64")]
        {
            assert!(names.contains(&"sse2"));
            let has = |f: bool, name| assert_eq!(names.contains(&name), f, "{name}");
            let base = std::is_x86_feature_detected!("pclmulqdq")
                && std::is_x86_feature_detected!("popcnt")
                && std::is_x86_feature_detected!("bmi1");
            has(base && std::is_x86_feature_detected!("avx2"), "avx2");
            has(base && std::is_x86_feature_detected!("avx512bw"), "avx512");
        }
    }

    #[test]
    fn kernels_agree_at_block_window_and_read_edges() {
        // Escape runs of every length ending at every offset around a block edge, before a
        // quote, inside a string and (for the lone backslash) outside; LFs after them.
        for run in 0..140 {
            for at in 50..70 {
                let mut v = b"{\"a\":\"".to_vec();
                v.resize(at.max(v.len()), b'x');
                v.extend(std::iter::repeat_n(b'\\', run));
                v.extend_from_slice(b"\"}\n{\"b\":\"y\n\"}\n");
                every_kernel_agrees(&v);
            }
        }
        // Lines of every length around the window (16 KiB), with escapes, LFs inside strings,
        // backslashes outside them and blank lines among many ordinary lines.
        let mut v = Vec::new();
        let mut k = 0usize;
        while v.len() < 3 * WINDOW + 1000 {
            k += 1;
            v.extend_from_slice(b"{\"t\":\"");
            v.extend(std::iter::repeat_n(b'a', (k * 37) % 300));
            v.extend_from_slice(match k % 11 {
                0 => &b"\\\"\\\\\"}\n"[..],
                3 => b"\n\"}\n",
                5 => b"\"} \\ x\n",
                7 => b"\"}\n\n",
                9 => b"\\\\\\\n\"}\n",
                _ => b"\"}\r\n",
            });
        }
        every_kernel_agrees(&v);
        every_kernel_agrees(&v[..v.len() - 3]);
    }

    fn soup() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                4 => prop::sample::select(b"\"\\\na ".to_vec()).prop_map(|b| vec![b]),
                1 => (1usize..200).prop_map(|n| vec![b'a'; n]),
                1 => (1usize..140).prop_map(|n| vec![b'\\'; n]),
                1 => Just(b"{\"k\":\"v\"}\n".to_vec()),
            ],
            0..120,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn every_kernel_indexes_like_the_byte_tracker(bytes in soup()) {
            every_kernel_agrees(&bytes);
        }

        #[test]
        fn agrees_with_the_byte_tracker(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), Just(b'a'), Just(b'\n'), any::<u8>()],
                0..300,
            ),
            in_str: bool,
            esc: bool,
        ) {
            agree(in_str, esc, &bytes);
        }
    }
}
