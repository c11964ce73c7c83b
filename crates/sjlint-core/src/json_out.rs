//! JSON written for other tools to read (the json, json-lines and sarif reports, `stats --format
//! json`, the common form of `fmt --to common`, `fmt --to otlp`, `run --summary`): `serde_json`, with the characters that reorder
//! or hide text escaped, in raw JSON text kept from a record too.
//!
//! Text quoted from a record may hold bidi overrides and isolates, C1 controls, U+2028/U+2029,
//! zero-width, tag or other format characters. `serde_json` writes them raw, which is valid JSON, but a reader's
//! terminal or editor obeys them; here every character [`crate::text`] would escape for a
//! terminal is written as `\uXXXX` instead, so the value read back is the same and the bytes on
//! the wire show nothing. This module owns that spelling for every JSON output; it must not
//! decide what is written.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter, Serializer};
use std::io::{self, Write};

/// `value` as one line of JSON.
pub fn to_writer<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(out, Safe(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// `value` as indented JSON.
pub fn to_writer_pretty<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(out, Safe(PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// `value` as one line of JSON, in a `String`.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> io::Result<String> {
    let mut out = Vec::with_capacity(128);
    to_writer(&mut out, value)?;
    // `serde_json` writes UTF-8 only.
    String::from_utf8(out).map_err(io::Error::other)
}

/// Whether `c` is written as `\uXXXX`: the characters [`crate::text::is_unsafe_char`] names, but
/// for the ASCII ones (`serde_json` escapes the C0 controls already; DEL is left as it is).
fn escaped(c: char) -> bool {
    !c.is_ascii() && crate::text::is_unsafe_char(c)
}

/// A formatter that writes strings as `F` would, with the unsafe characters escaped.
struct Safe<F>(F);

/// Writes `fragment` (text `serde_json` needs no escape for) with every character a terminal must
/// not see as is written as `\uXXXX` (two escapes, a surrogate pair, for a character beyond the
/// BMP: a tag character, U+E0041, is `\uDB40\uDC41`).
#[cold]
fn write_escaped<W: ?Sized + Write>(out: &mut W, fragment: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in fragment.char_indices() {
        if escaped(c) {
            out.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(out, "\\u{unit:04X}")?;
            }
            start = i + c.len_utf8();
        }
    }
    out.write_all(&fragment.as_bytes()[start..])
}

impl<F: Formatter> Formatter for Safe<F> {
    #[inline]
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Every character to escape is outside ASCII; most text is ASCII.
        if fragment.is_ascii() || !fragment.chars().any(escaped) {
            out.write_all(fragment.as_bytes())
        } else {
            write_escaped(out, fragment)
        }
    }

    /// Raw JSON text (a `RawValue` kept from a record): the characters can only be inside its
    /// strings, where an escape reads the same.
    #[inline]
    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        self.write_string_fragment(out, fragment)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.begin_array(out)
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.end_array(out)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.end_array_value(out)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.begin_object(out)
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.end_object(out)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(out, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.end_object_key(out)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.begin_object_value(out)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.0.end_object_value(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_are_escaped_and_read_back_the_same() {
        let text = "a\u{202e}b\u{2066}c\u{85}d\u{9b}e\u{2028}f\u{61c}g\u{200f}é\u{1f600}\n";
        let out = to_string(&[text]).unwrap();
        assert_eq!(
            out,
            r#"["a\u202Eb\u2066c\u0085d\u009Be\u2028f\u061Cg\u200Fé😀\n"]"#
        );
        let back: Vec<String> = serde_json::from_str(&out).unwrap();
        assert_eq!(back, [text]);
    }

    #[test]
    fn raw_values_are_escaped_inside_their_strings() {
        let raw: Box<serde_json::value::RawValue> =
            serde_json::from_str("{\"a\":[\"x\u{202e}\"]}").unwrap();
        let out = to_string(&raw).unwrap();
        assert_eq!(out, r#"{"a":["x\u202E"]}"#);
    }

    #[test]
    fn pretty_output_keeps_its_layout() {
        let value = serde_json::json!({"k\u{202e}": [1, "x\u{2069}"]});
        let mut out = Vec::new();
        to_writer_pretty(&mut out, &value).unwrap();
        let mut plain = Vec::new();
        serde_json::to_writer_pretty(&mut plain, &value).unwrap();
        let plain = String::from_utf8(plain)
            .unwrap()
            .replace('\u{202e}', "\\u202E")
            .replace('\u{2069}', "\\u2069");
        assert_eq!(String::from_utf8(out).unwrap(), plain);
    }
}
