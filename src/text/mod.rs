//! Text for people, shared by every output: untrusted text escaped for a terminal, bounded
//! excerpts of it, and counts spelled for reading.
//!
//! This module owns those spellings; it must not decide where text goes or in which format
//! (that is `report`, `status`, `render`, `stats`), so every consumer of events can use it
//! without importing a reporter.

use std::borrow::Cow;
use std::fmt::Write as _;

mod excerpt;

pub use excerpt::{EXCERPT_CHARS, Excerpt};

/// Whether `c` must not reach a terminal as is: it moves the cursor, starts an escape sequence,
/// reorders the text around it, or is invisible (zero-width characters and marks, which can make
/// two different texts look the same). The JSON outputs escape the same characters
/// ([`crate::json_out`]).
pub fn is_unsafe_char(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Escapes untrusted text for a terminal: C0 controls, DEL, C1 controls, Unicode bidi
/// overrides/isolates/marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), zero-width
/// characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+180E) and U+2028/U+2029 become visible escapes
/// like `\n`, `\t`, `\u{1b}`; everything else is unchanged. Returns `Cow::Borrowed` when nothing changes.
pub fn escape_untrusted(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find(is_unsafe_char) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe_char(c) => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The article before a name read out by sound: "a `user`", "an `assistant`", "an
/// `item.completed`", "an `init`".
pub fn article(name: &str) -> &'static str {
    if name.starts_with(['a', 'e', 'i', 'o', 'A', 'E', 'I', 'O']) {
        "an"
    } else {
        "a"
    }
}

/// The whole characters of `bytes` (the start of a record, cut anywhere) copied into a string
/// taken from `spare`, a new one only when `spare` is empty: what a finding made later quotes of
/// a record gone by then, without an allocation per record.
#[inline]
pub fn kept_prefix(spare: &mut Vec<String>, bytes: &[u8]) -> String {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        // Cut inside a character: the whole ones before it.
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut kept = spare.pop().unwrap_or_default();
    kept.clear();
    kept.push_str(text);
    kept
}

pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count in decimal units: `999 B`, `1.0 kB`, `5.6 MB`, `12.3 GB`.
pub fn format_bytes(n: u64) -> String {
    if n < 1000 {
        return format!("{n} B");
    }
    const UNITS: [(&str, u128); 3] = [("kB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000)];
    let mut shown = String::new();
    for (name, unit) in UNITS {
        // Rounded to tenths; a value that rounds up to 1000.0 moves to the next unit.
        let tenths = (u128::from(n) * 10 + unit / 2) / unit;
        let whole = u64::try_from(tenths / 10).unwrap_or(u64::MAX);
        shown = format!("{}.{} {name}", thousands(whole), tenths % 10);
        if tenths < 10_000 {
            break;
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_safe_text_borrowed() {
        let s = "plain \"text\" with é, → and 漢字 and a \\ backslash";
        assert!(matches!(escape_untrusted(s), Cow::Borrowed(t) if t == s));
        assert!(matches!(escape_untrusted(""), Cow::Borrowed("")));
    }

    #[test]
    fn escape_makes_controls_visible() {
        assert_eq!(escape_untrusted("a\nb\tc\rd"), "a\\nb\\tc\\rd");
        assert_eq!(escape_untrusted("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(escape_untrusted("\0\u{7}\u{7f}"), "\\u{0}\\u{7}\\u{7f}");
        assert_eq!(escape_untrusted("c1:\u{85}\u{9b}"), "c1:\\u{85}\\u{9b}");
        assert_eq!(escape_untrusted("\u{a0}"), "\u{a0}");
    }

    #[test]
    fn escape_makes_bidi_and_separators_visible() {
        assert_eq!(escape_untrusted("x\u{202e}y"), "x\\u{202e}y");
        for c in ('\u{202a}'..='\u{202e}').chain('\u{2066}'..='\u{2069}') {
            let escaped = escape_untrusted(&c.to_string()).into_owned();
            assert_eq!(escaped, format!("\\u{{{:x}}}", c as u32));
        }
        assert_eq!(escape_untrusted("\u{2028}\u{2029}"), "\\u{2028}\\u{2029}");
        assert_eq!(
            escape_untrusted("\u{2027}\u{202f}\u{2065}\u{206a}").len(),
            12
        );
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(123_456_789), "123,456,789");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn byte_units() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1), "1 B");
        assert_eq!(format_bytes(999), "999 B");
        assert_eq!(format_bytes(1000), "1.0 kB");
        assert_eq!(format_bytes(1049), "1.0 kB");
        assert_eq!(format_bytes(1050), "1.1 kB");
        assert_eq!(format_bytes(3_400), "3.4 kB");
        assert_eq!(format_bytes(999_949), "999.9 kB");
        assert_eq!(format_bytes(999_950), "1.0 MB");
        assert_eq!(format_bytes(5_600_000), "5.6 MB");
        assert_eq!(format_bytes(12_345_678_901), "12.3 GB");
        assert_eq!(format_bytes(1_234_567_000_000), "1,234.6 GB");
        assert_eq!(format_bytes(u64::MAX), "18,446,744,073.7 GB");
    }
}
