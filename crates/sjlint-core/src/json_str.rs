//! JSON string bodies, 64 bytes at a time: where a string ends and whether its body is valid.
//!
//! This module owns one question for the fast deserializer of `json.rs`: given the bytes after
//! an opening quote, where is the closing quote, and is everything before it a valid JSON string
//! body (no raw control character, only the escapes RFC 8259 names, `\u` with four hex digits,
//! surrogates only as a high-low pair)? It answers with bit masks per 64-byte block (AVX-512BW or
//! AVX2 when the CPU has them, plain code elsewhere): escaped positions come from the backslash
//! runs without a branch per escape, so escape-heavy text costs what plain text costs, and only
//! `\u` escapes are looked at one by one. It also unescapes the strings that are kept.
//!
//! It must never accept a string `serde_json` rejects. It may reject more (an unpaired surrogate
//! escape, which `serde_json` skips inside ignored values): the caller then falls back to
//! `serde_json`, which decides.

/// The string body is not valid, or not one this module accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Invalid;

/// The instruction set the block scan uses. Only [`Level::detect`] makes one, so a level names
/// instructions this CPU has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Level(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// The best level this CPU supports.
    pub(crate) fn detect() -> Level {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512bw") {
                return Level(Isa::Avx512);
            }
            if std::is_x86_feature_detected!("avx2") {
                return Level(Isa::Avx2);
            }
        }
        Level(Isa::Portable)
    }

    /// Every level this CPU supports (tests compare them).
    #[cfg(test)]
    pub(crate) fn all() -> Vec<Level> {
        let mut out = vec![Level(Isa::Portable)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                out.push(Level(Isa::Avx2));
            }
            if std::is_x86_feature_detected!("avx512bw") {
                out.push(Level(Isa::Avx512));
            }
        }
        out
    }
}

/// The end of the string whose body starts at `bytes[from]`: the offset of its closing quote, and
/// whether the body holds any escape.
#[inline(always)]
pub(crate) fn scan(level: Level, bytes: &[u8], from: usize) -> Result<(usize, bool), Invalid> {
    // Most strings (keys, ids, one-word deltas) are short and plain: one 16-byte look first.
    #[cfg(target_arch = "x86_64")]
    if let Some(end) = x86::short_plain(bytes, from) {
        return Ok((end, false));
    }
    match level.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was detected on this CPU, which so supports AVX-512BW.
        Isa::Avx512 => unsafe { x86::scan_avx512(bytes, from) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was detected on this CPU, which so supports AVX2.
        Isa::Avx2 => unsafe { x86::scan_avx2(bytes, from) },
        Isa::Portable => scan_with(bytes, from, masks_portable, escapes_portable),
    }
}

/// Bit i of each mask is set when byte i of the block is a quote, a backslash, a control
/// character (below 0x20).
#[derive(Clone, Copy)]
struct Masks {
    quote: u64,
    backslash: u64,
    control: u64,
}

/// Bit i is set when byte i may follow a backslash (`"\/bfnrtu`), and when it is `u`.
#[derive(Clone, Copy)]
struct Escapes {
    valid: u64,
    unicode: u64,
}

/// The block loop, given the mask builders of one instruction set. Bytes past the end of `bytes`
/// read as spaces, which are neither quotes, backslashes nor control characters.
#[inline(always)]
fn scan_with(
    bytes: &[u8],
    from: usize,
    masks: impl Fn(&[u8; 64]) -> Masks,
    escapes: impl Fn(&[u8; 64]) -> Escapes,
) -> Result<(usize, bool), Invalid> {
    let mut at = from;
    // The first byte of the block is escaped by a backslash run that ended the previous one.
    let mut carry = false;
    let mut escaped_any = false;
    // The `u` of a low surrogate escape already read with the high one before it.
    let mut paired_low = usize::MAX;
    loop {
        if at >= bytes.len() {
            return Err(Invalid);
        }
        // The block starting at `at`; near the end of `bytes`, the last 64 bytes with the masks
        // shifted down so that bit 0 is `at` (the bits past the end are clear), or for shorter
        // texts a copy padded with spaces, which are neither quotes, backslashes nor control
        // characters.
        let short;
        let (block, shift): (&[u8; 64], usize) = match bytes.get(at..at + 64) {
            Some(b) => (b.try_into().expect("64 bytes"), 0),
            None => match bytes.len().checked_sub(64) {
                Some(start) => (bytes[start..].try_into().expect("64 bytes"), at - start),
                None => {
                    let mut padded = [b' '; 64];
                    padded[..bytes.len() - at].copy_from_slice(&bytes[at..]);
                    short = padded;
                    (&short, 0)
                }
            },
        };
        let m = masks(block);
        let m = Masks {
            quote: m.quote >> shift,
            backslash: m.backslash >> shift,
            control: m.control >> shift,
        };
        let (escaped, carry_out) = escaped_positions(m.backslash, carry);
        let quotes = m.quote & !escaped;
        // The bytes before the closing quote (all of them when it is not in this block).
        let body = quotes.wrapping_sub(1) & !quotes;
        if m.control & body != 0 {
            return Err(Invalid);
        }
        escaped_any |= (m.backslash | escaped) & body != 0;
        let escaped = escaped & body;
        if escaped != 0 {
            let e = escapes(block);
            let e = Escapes {
                valid: e.valid >> shift,
                unicode: e.unicode >> shift,
            };
            if escaped & !e.valid != 0 {
                return Err(Invalid);
            }
            let mut u = escaped & e.unicode;
            while u != 0 {
                let i = at + u.trailing_zeros() as usize;
                u &= u - 1;
                if i != paired_low {
                    paired_low = unicode_escape(bytes, i)?;
                }
            }
        }
        if quotes != 0 {
            return Ok((at + quotes.trailing_zeros() as usize, escaped_any));
        }
        carry = carry_out;
        at += 64;
    }
}

const EVEN: u64 = 0x5555_5555_5555_5555;
const ODD: u64 = !EVEN;

/// The positions escaped by a backslash, and whether the next block's first byte is.
///
/// A backslash escapes the byte after it unless it is escaped itself, so in a run of backslashes
/// they pair up from its start, and the byte after the run is escaped when the run has odd
/// length. Adding a run's first bit to the backslash mask carries through the run and lands on
/// the byte after it; a run of odd length starting on an even bit ends on an odd bit and the
/// other way round, so runs are added in two groups, by the parity of their first bit, and each
/// group keeps the landing bits of the other parity. `carry_in` (byte 0 escaped) is applied
/// first: that byte escapes nothing, and is escaped.
#[inline(always)]
fn escaped_positions(backslash: u64, carry_in: bool) -> (u64, bool) {
    let carried = u64::from(carry_in);
    let b = backslash & !carried;
    let starts = b & !(b << 1);
    let even_sum = b.wrapping_add(starts & EVEN);
    let (odd_sum, odd_overflow) = b.overflowing_add(starts & ODD);
    let after_even_starts = even_sum & !b & ODD;
    let after_odd_starts = odd_sum & !b & EVEN;
    // Runs that reach bit 63 carry out of the sum; the one that started on an odd bit and ends
    // at bit 63 has odd length, so its escape falls on the next block's first byte. A run that
    // started on an even bit and reaches bit 63 has even length and escapes nothing.
    (carried | after_even_starts | after_odd_starts, odd_overflow)
}

/// Checks the `\u` escape whose `u` is `bytes[u]`: four hex digits, and a high surrogate only
/// when a `\u` low surrogate follows at once. Returns the offset of that low escape's `u`
/// (`usize::MAX` when there is none), which the caller must not read as an escape of its own.
#[inline]
fn unicode_escape(bytes: &[u8], u: usize) -> Result<usize, Invalid> {
    match hex4(bytes, u + 1)? {
        0xD800..=0xDBFF => {
            if bytes.get(u + 5) == Some(&b'\\')
                && bytes.get(u + 6) == Some(&b'u')
                && (0xDC00..=0xDFFF).contains(&hex4(bytes, u + 7)?)
            {
                Ok(u + 6)
            } else {
                Err(Invalid)
            }
        }
        0xDC00..=0xDFFF => Err(Invalid),
        _ => Ok(usize::MAX),
    }
}

/// The value of the four hex digits at `bytes[at..at + 4]`.
#[inline]
fn hex4(bytes: &[u8], at: usize) -> Result<u32, Invalid> {
    let digits = bytes.get(at..at + 4).ok_or(Invalid)?;
    let mut n = 0;
    for &d in digits {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return Err(Invalid),
        };
        n = n << 4 | u32::from(v);
    }
    Ok(n)
}

/// Where unescaped text is written: a `String`, or one in an arena.
pub(crate) trait Text {
    fn push_str(&mut self, s: &str);
    fn push(&mut self, c: char);
}

impl Text for String {
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

impl Text for bumpalo::collections::String<'_> {
    fn push_str(&mut self, s: &str) {
        bumpalo::collections::String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        bumpalo::collections::String::push(self, c);
    }
}

/// The text of a string body that [`scan`] accepted and found escapes in.
pub(crate) fn unescape(body: &str) -> Result<String, Invalid> {
    let mut out = String::with_capacity(body.len());
    unescape_into(body, &mut out)?;
    Ok(out)
}

/// [`unescape`], written to `out`.
pub(crate) fn unescape_into(body: &str, out: &mut impl Text) -> Result<(), Invalid> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &bytes[i..]) {
        // Both ends are ASCII bytes (the start of the body or the byte after an escape, and a
        // backslash), so they are character boundaries.
        out.push_str(&body[i..i + k]);
        i += k;
        let c = match bytes.get(i + 1).ok_or(Invalid)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let n = hex4(bytes, i + 2)?;
                let (c, len) = match n {
                    0xD800..=0xDBFF => {
                        if bytes.get(i + 6..i + 8) != Some(b"\\u") {
                            return Err(Invalid);
                        }
                        let low = hex4(bytes, i + 8)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(Invalid);
                        }
                        (0x10000 + ((n - 0xD800) << 10) + (low - 0xDC00), 12)
                    }
                    _ => (n, 6),
                };
                out.push(char::from_u32(c).ok_or(Invalid)?);
                i += len;
                continue;
            }
            _ => return Err(Invalid),
        };
        out.push(c);
        i += 2;
    }
    out.push_str(&body[i..]);
    Ok(())
}

fn masks_portable(block: &[u8; 64]) -> Masks {
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        control: 0,
    };
    for (i, &b) in block.iter().enumerate() {
        m.quote |= u64::from(b == b'"') << i;
        m.backslash |= u64::from(b == b'\\') << i;
        m.control |= u64::from(b < 0x20) << i;
    }
    m
}

fn escapes_portable(block: &[u8; 64]) -> Escapes {
    let mut e = Escapes {
        valid: 0,
        unicode: 0,
    };
    for (i, &b) in block.iter().enumerate() {
        let valid = matches!(
            b,
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u'
        );
        e.valid |= u64::from(valid) << i;
        e.unicode |= u64::from(b == b'u') << i;
    }
    e
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Escapes, Invalid, Masks, scan_with};
    use std::arch::x86_64::{
        __m256i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_setr_epi8, _mm256_and_si256, _mm256_broadcastsi128_si256,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_movemask_epi8,
        _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
        _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_loadu_si512, _mm512_set1_epi8,
    };

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scan_avx2(bytes: &[u8], from: usize) -> Result<(usize, bool), Invalid> {
        // SAFETY (both closures): AVX2 is enabled for this function, whose caller checked the
        // CPU for it; the loads read 2 × 32 bytes inside the 64-byte array (unaligned loads are
        // allowed).
        scan_with(
            bytes,
            from,
            |b| unsafe {
                let lo = _mm256_loadu_si256(b.as_ptr().cast());
                let hi = _mm256_loadu_si256(b.as_ptr().add(32).cast());
                let eq = |c: u8| {
                    let c = _mm256_set1_epi8(c as i8);
                    join(_mm256_cmpeq_epi8(lo, c), _mm256_cmpeq_epi8(hi, c))
                };
                // x <= 0x1f exactly when max(x, 0x1f) == 0x1f (unsigned).
                let c = _mm256_set1_epi8(0x1f);
                let control = join(
                    _mm256_cmpeq_epi8(_mm256_max_epu8(lo, c), c),
                    _mm256_cmpeq_epi8(_mm256_max_epu8(hi, c), c),
                );
                Masks {
                    quote: eq(b'"'),
                    backslash: eq(b'\\'),
                    control,
                }
            },
            |b| unsafe {
                // A byte may follow a backslash when the table entries of its two nibbles share
                // a bit: one bit per high nibble of the allowed bytes (2: `"` `/`, 5: `\`,
                // 6: `b` `f` `n`, 7: `r` `t` `u`), set in the low-nibble entries of those bytes.
                // High nibbles 8 and up (non-ASCII) have no bit.
                let low_table = _mm256_broadcastsi128_si256(_mm_setr_epi8(
                    0, 0, 0b1101, 0, 0b1000, 0b1000, 0b0100, 0, 0, 0, 0, 0, 0b0010, 0, 0b0100,
                    0b0001,
                ));
                let high_table = _mm256_broadcastsi128_si256(_mm_setr_epi8(
                    0, 0, 0b0001, 0, 0, 0b0010, 0b0100, 0b1000, 0, 0, 0, 0, 0, 0, 0, 0,
                ));
                let nibble = _mm256_set1_epi8(0x0f);
                let u = _mm256_set1_epi8(b'u' as i8);
                let classify = |v: __m256i| {
                    let low = _mm256_shuffle_epi8(low_table, _mm256_and_si256(v, nibble));
                    let high = _mm256_shuffle_epi8(
                        high_table,
                        _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble),
                    );
                    let none =
                        _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
                    (none, _mm256_cmpeq_epi8(v, u))
                };
                let (nl, ul) = classify(_mm256_loadu_si256(b.as_ptr().cast()));
                let (nh, uh) = classify(_mm256_loadu_si256(b.as_ptr().add(32).cast()));
                Escapes {
                    valid: !join(nl, nh),
                    unicode: join(ul, uh),
                }
            },
        )
    }

    /// The end of a string that closes within the 16 bytes at `from` with no backslash or
    /// control character before its quote; `None` for any other string (or fewer than 16 bytes
    /// left).
    #[inline(always)]
    pub(super) fn short_plain(bytes: &[u8], from: usize) -> Option<usize> {
        let chunk = bytes.get(from..from + 16)?;
        // SAFETY: SSE2 is part of every x86-64 CPU; the load reads the 16 bytes of `chunk`
        // (unaligned loads are allowed).
        let (quote, other) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            let c = _mm_set1_epi8(0x1f);
            let control = _mm_cmpeq_epi8(_mm_max_epu8(v, c), c);
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            (
                _mm_movemask_epi8(quote) as u32,
                _mm_movemask_epi8(_mm_or_si128(control, backslash)) as u32,
            )
        };
        let before = quote.wrapping_sub(1) & !quote;
        (quote != 0 && other & before == 0).then(|| from + quote.trailing_zeros() as usize)
    }

    /// The 64-bit mask of two 32-byte comparison results.
    #[inline(always)]
    unsafe fn join(lo: __m256i, hi: __m256i) -> u64 {
        // SAFETY: only called from functions with AVX2 enabled.
        unsafe {
            u64::from(_mm256_movemask_epi8(lo) as u32)
                | u64::from(_mm256_movemask_epi8(hi) as u32) << 32
        }
    }

    /// # Safety
    /// The CPU must support AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub(super) unsafe fn scan_avx512(bytes: &[u8], from: usize) -> Result<(usize, bool), Invalid> {
        // SAFETY (both closures): AVX-512BW (and AVX-512F, which it implies) is enabled for this
        // function, whose caller checked the CPU for it; the load reads the 64-byte array
        // (unaligned loads are allowed).
        scan_with(
            bytes,
            from,
            |b| unsafe {
                let v = _mm512_loadu_si512(b.as_ptr().cast());
                Masks {
                    quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
                    backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
                    control: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
                }
            },
            |b| unsafe {
                let v = _mm512_loadu_si512(b.as_ptr().cast());
                let eq = |c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
                let unicode = eq(b'u');
                Escapes {
                    valid: eq(b'"')
                        | eq(b'\\')
                        | eq(b'/')
                        | eq(b'b')
                        | eq(b'f')
                        | eq(b'n')
                        | eq(b'r')
                        | eq(b't')
                        | unicode,
                    unicode,
                }
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same question answered a byte at a time, strictly.
    fn reference(bytes: &[u8], from: usize) -> Result<(usize, bool), Invalid> {
        let mut i = from;
        let mut escaped = false;
        loop {
            match *bytes.get(i).ok_or(Invalid)? {
                b'"' => return Ok((i, escaped)),
                b'\\' => {
                    escaped = true;
                    match *bytes.get(i + 1).ok_or(Invalid)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            let n = hex4(bytes, i + 2)?;
                            if (0xDC00..=0xDFFF).contains(&n) {
                                return Err(Invalid);
                            }
                            if (0xD800..=0xDBFF).contains(&n) {
                                if bytes.get(i + 6..i + 8) != Some(b"\\u") {
                                    return Err(Invalid);
                                }
                                if !(0xDC00..=0xDFFF).contains(&hex4(bytes, i + 8)?) {
                                    return Err(Invalid);
                                }
                                i += 12;
                            } else {
                                i += 6;
                            }
                        }
                        _ => return Err(Invalid),
                    }
                }
                0..0x20 => return Err(Invalid),
                _ => i += 1,
            }
        }
    }

    fn check(bytes: &[u8]) {
        for from in 0..bytes.len().min(3) {
            let want = reference(bytes, from);
            for level in Level::all() {
                assert_eq!(
                    scan(level, bytes, from),
                    want,
                    "{level:?} from {from} on {:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }

    #[test]
    fn ends_escapes_and_errors() {
        for s in [
            &b"abc\" tail"[..],
            b"a\\\"b\"",
            b"a\\\\\"b",
            b"\\\\\\\"\"",
            b"\\u00e9\"",
            b"\\ud83d\\ude00\"",
            b"\\ud83d\"",
            b"\\ude00\"",
            b"\\ud83d\\u0041\"",
            b"\\u12\"",
            b"\\x\"",
            b"a\tb\"",
            b"\x7f\"",
            b"unterminated",
            b"",
            b"\\",
        ] {
            check(s);
        }
        // Runs of backslashes across the 64-byte boundary, of every parity.
        for pad in 55..70 {
            for run in 0..6 {
                let mut s = vec![b'a'; pad];
                s.extend(std::iter::repeat_n(b'\\', run));
                s.extend_from_slice(b"\"x\"");
                check(&s);
                let mut s = vec![b'a'; pad];
                s.extend(std::iter::repeat_n(b'\\', run));
                s.extend_from_slice(b"ud800\\udc00\"");
                check(&s);
            }
        }
    }

    #[test]
    fn unescapes() {
        let body = r#"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00→"#;
        assert_eq!(
            unescape(body).unwrap(),
            "a\"b\\c/d\u{8}\u{c}\n\r\t\u{e9}\u{1f600}→"
        );
        assert_eq!(unescape(r"\ud800"), Err(Invalid));
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2000,
            // Every seed file of the crate is in proptest-regressions/ at its root.
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/json_str.txt"),
            )),
            ..ProptestConfig::default()
        })]

        #[test]
        #[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
        fn block_scans_agree_with_the_byte_at_a_time_reading(
            parts in prop::collection::vec(
                prop_oneof![
                    Just("\\".to_string()),
                    Just("\"".to_string()),
                    Just("u".to_string()),
                    Just("\\u".to_string()),
                    Just("d83d".to_string()),
                    Just("\\ude00".to_string()),
                    Just("n".to_string()),
                    Just("\n".to_string()),
                    Just("é".to_string()),
                    "[a-f0-9 xX]{1,70}",
                ],
                0..40,
            )
        ) {
            check(parts.concat().as_bytes());
        }
    }
}
