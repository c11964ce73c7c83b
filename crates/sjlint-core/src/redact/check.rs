//! What is checked of a match beyond its pattern: where it may start and end (at a word's
//! edge, where a JSON escape such as `\n` counts as an edge), whether its value is a
//! placeholder (`xxxx`, `<token>`, `${VAR}`, `your-api-key`, AWS's documented `…EXAMPLE` keys),
//! and the checks some formats carry (a CRC32, base64 of `user:password`).
//!
//! This module owns those tests of a value; the patterns are `redact::kinds`'s and the search
//! the parent's.

use super::kinds::Check;

/// A byte that continues a word: a match next to one is part of a longer word, not a token.
fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a match may start at `at` of `hay`: at its start, after a byte that ends a word, or
/// right after a JSON escape (`\n`, `\t`, `\uXXXX`: the escape's last character is a letter or
/// a digit, but the text it stands for ends a word).
pub(super) fn starts_word(hay: &[u8], at: usize) -> bool {
    if at == 0 || !word(hay[at - 1]) {
        return true;
    }
    // `\n`, `\r`, `\t`, `\b`, `\f`, with an odd run of backslashes before the letter.
    if matches!(hay[at - 1], b'n' | b'r' | b't' | b'b' | b'f') && escaped(hay, at - 1) {
        return true;
    }
    // `\uXXXX`.
    at >= 6
        && hay[at - 5] == b'u'
        && hay[at - 4..at].iter().all(u8::is_ascii_hexdigit)
        && escaped(hay, at - 5)
}

/// Whether the byte at `at` follows an odd run of backslashes (it is an escape's letter).
fn escaped(hay: &[u8], at: usize) -> bool {
    let run = hay[..at].iter().rev().take_while(|&&b| b == b'\\').count();
    run % 2 == 1
}

/// Whether a match may end at `at`: at the end, or before a byte that does not continue the
/// token.
pub(super) fn ends_word(hay: &[u8], at: usize) -> bool {
    hay.get(at)
        .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/'))
}

/// Whether `value` stands for a credential rather than being one: a variable's reference, an
/// elided or masked value, a documented example, a word in angle brackets.
pub(super) fn placeholder(value: &[u8]) -> bool {
    let Some(&first) = value.first() else {
        return true;
    };
    if matches!(first, b'$' | b'%' | b'<' | b'{' | b'*')
        || value.starts_with(b"[REDACTED")
        || value.iter().all(|&b| b == first)
    {
        return true;
    }
    const MARKS: &[&[u8]] = &[
        b"<",
        b">",
        b"${",
        b"{{",
        b"***",
        b"...",
        b"xxxx",
        b"XXXX",
        b"EXAMPLE",
        b"example",
        b"your_",
        b"your-",
        b"YOUR_",
        b"YOUR-",
        b"placeholder",
        b"PLACEHOLDER",
        b"REDACTED",
        b"redacted",
    ];
    if MARKS
        .iter()
        .any(|m| memchr::memmem::find(value, m).is_some())
    {
        return true;
    }
    const WORDS: &[&[u8]] = &[
        b"true",
        b"false",
        b"null",
        b"none",
        b"nil",
        b"undefined",
        b"changeme",
    ];
    WORDS.iter().any(|w| value.eq_ignore_ascii_case(w))
}

/// Whether `value` passes its kind's own check.
pub(super) fn passes(check: Check, value: &[u8]) -> bool {
    match check {
        Check::Shape => true,
        Check::Crc32Base62 => crc_holds(value),
        Check::UserPassBase64 => user_pass(value),
        Check::MixedCase => {
            value.iter().any(u8::is_ascii_uppercase) && value.iter().any(u8::is_ascii_lowercase)
        }
    }
}

/// GitHub's and npm's tokens: the 36 characters after the prefix are 30 random ones and their
/// CRC32 in base62. A longer body (GitHub's 76-character refresh tokens) carries none.
fn crc_holds(value: &[u8]) -> bool {
    let Some(underscore) = memchr::memchr(b'_', value) else {
        return false;
    };
    let body = &value[underscore + 1..];
    if body.len() != 36 {
        return body.len() > 36;
    }
    body[30..] == base62_6(crc32(&body[..30]))
}

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// `n` in base62 (`0-9A-Za-z`), six digits, padded with `0`.
pub(super) fn base62_6(mut n: u32) -> [u8; 6] {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 62) as usize];
        n /= 62;
    }
    out
}

/// Whether `value` is base64 of printable `user:password` text, both halves non-empty.
fn user_pass(value: &[u8]) -> bool {
    let Some(text) = base64(value) else {
        return false;
    };
    let printable = text.iter().all(|&b| (0x20..0x7f).contains(&b));
    let colon = memchr::memchr(b':', &text);
    printable && colon.is_some_and(|at| at > 0 && at + 1 < text.len())
}

/// Standard base64, padding optional; `None` when it is not.
fn base64(value: &[u8]) -> Option<Vec<u8>> {
    let digits = value
        .strip_suffix(b"==")
        .or_else(|| value.strip_suffix(b"="))
        .unwrap_or(value);
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in digits {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}
