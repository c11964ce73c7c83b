//! String tracking over 64-byte blocks with bit masks, for the splitter's fast path.
//!
//! This module owns one question: starting in a given string state, are we inside a JSON string
//! at the end of these bytes? It answers it a block at a time: a bit mask of quotes and one of
//! backslashes per 64 bytes (SSE2 on every x86-64, AVX2 when the CPU has it, plain code
//! elsewhere), escaped positions from the backslash runs, and the in-string mask as the prefix
//! XOR of the unescaped quotes. It must give exactly the answer of the byte-at-a-time tracker in
//! `split.rs`, which lets a backslash escape only inside a string; where the two could differ (a
//! backslash outside any string, which valid JSON never has) it says so and the caller falls
//! back to the byte-at-a-time tracker.

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

/// Quote and backslash masks of one 64-byte block: bit i is set when byte i is `"` / `\`.
#[derive(Clone, Copy)]
struct Masks {
    quote: u64,
    backslash: u64,
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
/// byte is escaped.
///
/// Branch-free: adding a run's first bit to the mask carries through the run and sets the bit
/// just after it. A run of odd length that starts on an even bit ends on an odd one, and the
/// other way round, so runs are added in two groups by the parity of their start.
#[inline(always)]
fn escaped_positions(backslash: u64, carry_in: bool) -> (u64, bool) {
    let carried = u64::from(carry_in);
    // A backslash that is itself escaped starts nothing.
    let b = backslash & !carried;
    let starts = b & !(b << 1);
    let (even_sum, _) = b.overflowing_add(starts & EVEN);
    let (odd_sum, odd_overflow) = b.overflowing_add(starts & ODD);
    let after_even_runs = even_sum & !b;
    let after_odd_runs = odd_sum & !b;
    let escaped = carried | (after_even_runs & ODD) | (after_odd_runs & EVEN);
    // A run that started on an odd bit and runs to bit 63 has odd length: its escape is pending.
    (escaped, odd_overflow)
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
    for (i, &b) in block.iter().enumerate() {
        quote |= u64::from(b == b'"') << i;
        backslash |= u64::from(b == b'\\') << i;
    }
    Masks { quote, backslash }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Masks;
    use std::arch::x86_64::*;

    /// SSE2 is part of every x86-64 CPU, so this needs no detection.
    #[inline(always)]
    pub(super) fn masks_sse2(block: &[u8; 64]) -> Masks {
        // SAFETY: SSE2 is always available on x86_64; the loads read 4 × 16 bytes inside the
        // 64-byte array (unaligned loads are allowed).
        unsafe {
            let q = _mm_set1_epi8(b'"' as i8);
            let bs = _mm_set1_epi8(b'\\' as i8);
            let mut quote = 0u64;
            let mut backslash = 0u64;
            for k in 0..4 {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast());
                let mq = _mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) as u16 as u64;
                let mb = _mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)) as u16 as u64;
                quote |= mq << (16 * k);
                backslash |= mb << (16 * k);
            }
            Masks { quote, backslash }
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
            let ql = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, q)) as u32 as u64;
            let qh = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, q)) as u32 as u64;
            let bl = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, bs)) as u32 as u64;
            let bh = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, bs)) as u32 as u64;
            Masks {
                quote: ql | qh << 32,
                backslash: bl | bh << 32,
            }
        }
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

    proptest! {
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
