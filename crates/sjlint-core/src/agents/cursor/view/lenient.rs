//! The lenient parse: valid JSON that `serde_json` refuses, read through a substituted copy.
//!
//! RFC 8259's grammar allows two things `serde_json` refuses: numbers beyond the f64 range
//! (`1e400`, a 400-digit integer) and `\u` escapes of unpaired UTF-16 surrogates (`"\ud800"`,
//! which JavaScript's `JSON.stringify` writes for a string cut between the two halves of a pair).
//! This module owns recognising those refusals and writing a copy of the record of the same
//! length in which each such number reads as ±1e308 and each such escape as a private-use
//! character, so that the strict readers can read the copy and byte offsets stay exact.
//!
//! It must not know the event view nor any dialect: it works on bytes and hands the copy to the
//! strict parse its caller gives it (or, for the agents' views, puts it in their arena). It runs
//! only after the strict parse has failed, never on the path of a record that parses.

/// When the strict parse of `text` failed with `e` because of something that is valid JSON,
/// parses a substituted copy of `text` (written to `scratch`) with `strict` instead; otherwise,
/// or when the copy is no text, `e` stands.
pub(super) fn retry<'a, T>(
    text: &str,
    e: serde_json::Error,
    scratch: &'a mut Vec<u8>,
    strict: impl FnOnce(&'a str) -> Result<T, serde_json::Error>,
) -> Result<T, serde_json::Error> {
    if !is_substitutable(&e) {
        return Err(e);
    }
    substitute(text.as_bytes(), scratch);
    // Substitution writes ASCII over ASCII, so the copy is UTF-8 unless `text` changed while it
    // was copied (a mapped file truncated meanwhile, `input::mapped`).
    match std::str::from_utf8(scratch) {
        Ok(copy) => strict(copy),
        Err(_) => Err(e),
    }
}

/// The agents' views, which borrow from an arena: when the strict parse of `text` failed with
/// `e` because of something that is valid JSON, the substituted copy of `text`, in `arena`, for
/// the view to be read from again; `None` when `e` stands.
#[cold]
pub(crate) fn substituted_in<'a>(
    text: &str,
    e: &serde_json::Error,
    arena: &'a bumpalo::Bump,
) -> Option<&'a str> {
    if !is_substitutable(e) {
        return None;
    }
    let mut copy = Vec::new();
    substitute(text.as_bytes(), &mut copy);
    std::str::from_utf8(&copy)
        .ok()
        .map(|c| &*arena.alloc_str(c))
}

/// Whether `serde_json` rejected something that is valid JSON.
fn is_substitutable(e: &serde_json::Error) -> bool {
    let msg = e.to_string();
    msg.starts_with("number out of range")
        || msg.starts_with("lone leading surrogate in hex escape")
        || msg.starts_with("unexpected end of hex escape")
}

/// Copies `text` into `out`, replacing outside strings every number token of magnitude 1e308
/// or more by `1e308`/`-1e308` and spaces, and inside strings every `\u` escape of an unpaired
/// surrogate U+Dxyz by U+Exyz (the first hex digit `D` becomes `E`: a private-use character).
/// Same length, ASCII replaced by ASCII; anything that is not valid JSON is copied unchanged for
/// the parser to report.
fn substitute(text: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(text);
    let n = text.len();
    let mut i = 0;
    while i < n {
        match text[i] {
            b'"' => i = substitute_in_string(text, i + 1, out),
            b'-' | b'0'..=b'9' => {
                let end = i + text[i..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(n - i);
                let token = &text[i..end];
                if decimal_order(token).is_some_and(|order| order >= 308) {
                    let huge: &[u8] = if token[0] == b'-' {
                        b"-1e308"
                    } else {
                        b"1e308"
                    };
                    out[i..i + huge.len()].copy_from_slice(huge);
                    out[i + huge.len()..end].fill(b' ');
                }
                i = end;
            }
            _ => i += 1,
        }
    }
}

/// Substitutes the unpaired surrogate escapes of the string whose content starts at `from`;
/// returns the offset after its closing quote (or the end of `text`).
fn substitute_in_string(text: &[u8], from: usize, out: &mut [u8]) -> usize {
    // The hex digits of a high surrogate escape that a low one may still pair with, and where
    // that low escape would have to start.
    let mut high: Option<(usize, usize)> = None;
    // `at` is the offset of the escape's first hex digit, a `D` or `d`.
    let lone = |at: usize, out: &mut [u8]| out[at] = out[at].wrapping_add(b'E' - b'D');
    let mut i = from;
    loop {
        let Some(k) = memchr::memchr2(b'"', b'\\', &text[i..]) else {
            if let Some((h, _)) = high {
                lone(h, out);
            }
            return text.len();
        };
        i += k;
        if let Some((h, next)) = high
            && (next != i || text[i] == b'"')
        {
            lone(h, out);
            high = None;
        }
        if text[i] == b'"' {
            return i + 1;
        }
        let hex = text
            .get(i + 2..i + 6)
            .filter(|_| text[i + 1] == b'u')
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| {
                u16::from_str_radix(h, 16)
                    .ok()
                    .filter(|_| !h.starts_with('+'))
            });
        let Some(unit) = hex else {
            // Any other escape (or a broken one): skip the backslash and the byte after it.
            if let Some((h, _)) = high.take() {
                lone(h, out);
            }
            i = (i + 2).min(text.len());
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                if let Some((h, _)) = high {
                    lone(h, out);
                }
                high = Some((i + 2, i + 6));
            }
            0xDC00..=0xDFFF => {
                let paired = high.take().is_some();
                if !paired {
                    lone(i + 2, out);
                }
            }
            _ => {}
        }
        i += 6;
    }
}

/// The decimal order of magnitude of a JSON number token (`1e3` and `1234` are order 3), or
/// `None` when the token is zero or is not a JSON number.
fn decimal_order(token: &[u8]) -> Option<i64> {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut s = token.strip_prefix(b"-").unwrap_or(token);
    let int = &s[..digits(s)];
    if int.is_empty() || (int.len() > 1 && int[0] == b'0') {
        return None;
    }
    s = &s[int.len()..];
    let mut frac: &[u8] = &[];
    if let Some(rest) = s.strip_prefix(b".") {
        frac = &rest[..digits(rest)];
        if frac.is_empty() {
            return None;
        }
        s = &rest[frac.len()..];
    }
    let mut exp: i64 = 0;
    if let Some(rest) = s.strip_prefix(b"e").or_else(|| s.strip_prefix(b"E")) {
        let (negative, rest) = match rest.first() {
            Some(b'-') => (true, &rest[1..]),
            Some(b'+') => (false, &rest[1..]),
            _ => (false, rest),
        };
        let e = &rest[..digits(rest)];
        if e.is_empty() || e.len() != rest.len() {
            return None;
        }
        // Clamped far beyond any order that matters, so it cannot overflow.
        for &d in e {
            // Wrapping: see `json::Reader::visit_number` on bytes that change under a mapped file.
            exp = (exp * 10 + i64::from(d.wrapping_sub(b'0'))).min(1 << 40);
        }
        if negative {
            exp = -exp;
        }
    } else if !s.is_empty() {
        return None;
    }
    let lead = int.iter().position(|&d| d != b'0');
    let order = match lead {
        Some(_) => int.len() as i64 - 1,
        None => -(frac.iter().position(|&d| d != b'0')? as i64) - 1,
    };
    Some(order + exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn substituted(text: &str) -> String {
        let mut out = Vec::new();
        substitute(text.as_bytes(), &mut out);
        assert_eq!(out.len(), text.len());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_beyond_f64_become_1e308_of_the_same_length() {
        assert_eq!(
            substituted("[1e400,-1E+309 ,2e307]"),
            "[1e308,-1e308  ,2e307]"
        );
        let long = format!("{{\"n\":{}}}", "9".repeat(400));
        let out = substituted(&long);
        assert!(out.starts_with("{\"n\":1e308 "), "{out}");
        // Zero, tiny, invalid and quoted numbers are left alone.
        for same in [
            "[0e99999]",
            "[1e-400]",
            "[0.000e500]",
            "[01e400]",
            "[1.e400]",
            "[\"1e400\"]",
        ] {
            assert_eq!(substituted(same), same);
        }
        assert_eq!(decimal_order(b"1234"), Some(3));
        assert_eq!(decimal_order(b"0.00125e2"), Some(-1));
        assert_eq!(decimal_order(b"-1e99999999999999999999999"), Some(1 << 40));
        assert_eq!(decimal_order(b"1e"), None);
    }

    #[test]
    fn unpaired_surrogate_escapes_become_private_use_characters() {
        assert_eq!(substituted(r#"["\ud800"]"#), r#"["\ue800"]"#);
        assert_eq!(substituted(r#"["\udc00\ud800"]"#), r#"["\uec00\ue800"]"#);
        assert_eq!(substituted(r#"["\uD800x\uDC00"]"#), r#"["\uE800x\uEC00"]"#);
        assert_eq!(
            substituted(r#"["\ud800\ud800\udc00"]"#),
            r#"["\ue800\ud800\udc00"]"#
        );
        assert_eq!(
            substituted(r#"["\ud800\n", "\uDBFF"]"#),
            r#"["\ue800\n", "\uEBFF"]"#
        );
        // A pair, and escapes that are not surrogates, stay.
        let pair = r#"["\ud83d\ude00 \u00e9 \\ud800"]"#;
        assert_eq!(substituted(pair), pair);
    }
}
