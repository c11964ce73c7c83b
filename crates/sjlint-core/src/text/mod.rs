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
/// reorders the text around it, or is invisible (every format character, general category Cf:
/// bidi controls, zero-width characters and marks, the soft hyphen, the tag characters that can
/// hide a prompt inside text, which can make two different texts look the same). The JSON
/// outputs escape the same characters ([`crate::json_out`]).
#[inline]
pub fn is_unsafe_char(c: char) -> bool {
    let cp = u32::from(c);
    if cp < 0xad {
        return cp < 0x20 || (0x7f..=0x9f).contains(&cp);
    }
    cp == 0x2028 || cp == 0x2029 || is_format(cp)
}

/// The format characters (general category Cf) of Unicode 16.0, and the whole tag block
/// U+E0000–U+E007F (its unassigned code points too), as sorted, disjoint, inclusive ranges.
const FORMAT: [(u32, u32); 20] = [
    (0xad, 0xad),
    (0x600, 0x605),
    (0x61c, 0x61c),
    (0x6dd, 0x6dd),
    (0x70f, 0x70f),
    (0x890, 0x891),
    (0x8e2, 0x8e2),
    (0x180e, 0x180e),
    (0x200b, 0x200f),
    (0x202a, 0x202e),
    (0x2060, 0x2064),
    (0x2066, 0x206f),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x1343f),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0000, 0xe007f),
];

/// Whether code point `cp` is in [`FORMAT`]: a binary search, after one comparison for the
/// text between the Latin-1 controls and the Arabic block that most text is written in.
#[inline]
fn is_format(cp: u32) -> bool {
    if (0xae..0x600).contains(&cp) {
        return false;
    }
    let i = FORMAT.partition_point(|&(_, last)| last < cp);
    FORMAT.get(i).is_some_and(|&(first, _)| first <= cp)
}

/// Escapes untrusted text for a terminal: C0 controls, DEL, C1 controls, every format character
/// (bidi overrides, isolates and marks, zero-width characters, the soft hyphen, tag characters:
/// `FORMAT`) and U+2028/U+2029 become visible escapes like `\n`, `\t`, `\u{1b}`,
/// `\u{e0041}`; everything else is unchanged. Returns `Cow::Borrowed` when nothing changes.
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
        assert_eq!(escape_untrusted("\u{2027}\u{202f}\u{2065}").len(), 9);
    }

    #[test]
    fn escape_makes_format_and_tag_characters_visible() {
        assert_eq!(escape_untrusted("soft\u{ad}hyphen"), "soft\\u{ad}hyphen");
        assert_eq!(
            escape_untrusted("ok\u{e0001}\u{e0069}\u{e007f}"),
            "ok\\u{e0001}\\u{e0069}\\u{e007f}"
        );
        assert_eq!(escape_untrusted("\u{206a}\u{1d173}"), "\\u{206a}\\u{1d173}");
    }

    /// The format characters of Unicode 16.0 (`UnicodeData.txt`, field 2 `Cf`), spelled apart
    /// from [`FORMAT`], and the tag block.
    const CF_16: &str = "ad 600-605 61c 6dd 70f 890-891 8e2 180e 200b-200f 202a-202e 2060-2064 \
        2066-206f feff fff9-fffb 110bd 110cd 13430-1343f 1bca0-1bca3 1d173-1d17a e0001 \
        e0020-e007f";

    /// The ranges of [`CF_16`] and the tag block, read once (reading them again for each of the
    /// 1.1 million code points took 20 s in a test build).
    fn cf_16() -> Vec<(u32, u32)> {
        let hex = |h: &str| u32::from_str_radix(h, 16).unwrap();
        CF_16
            .split_whitespace()
            .map(|r| {
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                (hex(a), hex(b))
            })
            .chain([(0xe0000, 0xe007f)])
            .collect()
    }

    #[test]
    fn every_code_point_is_unsafe_exactly_when_a_control_a_separator_or_cf() {
        let windows_hold = FORMAT.windows(2).all(|w| w[0].1 < w[1].0);
        assert!(windows_hold && FORMAT.iter().all(|&(a, b)| a <= b));
        let cf = cf_16();
        for c in (0..=0x10_ffffu32).filter_map(char::from_u32) {
            let cp = u32::from(c);
            let in_cf = cf.iter().any(|&(a, b)| (a..=b).contains(&cp));
            let want = c.is_control() || cp == 0x2028 || cp == 0x2029 || in_cf;
            assert_eq!(is_unsafe_char(c), want, "U+{cp:04X}");
        }
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
