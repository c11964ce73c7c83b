//! JSON text for the canonical writer: an object's entries read in order, objects written
//! entry by entry, values copied without the whitespace between their tokens, strings escaped.
//!
//! This module owns the few JSON building blocks `fmt` writes with, so that no JSON tree is
//! ever built: keys, key order, repeated keys and the text of every value (numbers included)
//! are kept as they are. It must not know events or dialects.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The keys and raw values of one JSON object, in order, repeated keys included.
pub(super) type Entries<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

/// The entries of `json` when it is an object.
pub(super) fn entries(json: &str) -> Option<Entries<'_>> {
    if !json.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<EntriesDe<'_>>(json)
        .ok()
        .map(|e| e.0)
}

struct EntriesDe<'a>(Entries<'a>);

impl<'de> Deserialize<'de> for EntriesDe<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EntriesDe<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(12));
                while let Some(key) = map.next_key::<KeyDe<'de>>()? {
                    out.push((key.0, map.next_value::<&'de RawValue>()?));
                }
                Ok(EntriesDe(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A key, borrowed when it has no escapes.
struct KeyDe<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for KeyDe<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyDe<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(KeyDe(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(KeyDe(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

pub(super) fn is_object(v: &RawValue) -> bool {
    v.get().starts_with('{')
}

pub(super) fn is_string(v: &RawValue) -> bool {
    v.get().starts_with('"')
}

/// Writes an object's entries one by one.
pub(super) struct Obj<'o> {
    pub(super) out: &'o mut Vec<u8>,
    empty: bool,
}

impl<'o> Obj<'o> {
    pub(super) fn open(out: &'o mut Vec<u8>) -> Self {
        out.push(b'{');
        Obj { out, empty: true }
    }

    /// Writes `"key":`; the value follows.
    pub(super) fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        write_str(key, self.out);
        self.out.push(b':');
    }

    pub(super) fn raw(&mut self, key: &str, v: &RawValue) {
        self.key(key);
        minify(v.get(), self.out);
    }

    /// Writes `"key":` and the given JSON text.
    pub(super) fn lit(&mut self, key: &str, json: &str) {
        self.key(key);
        self.out.extend_from_slice(json.as_bytes());
    }

    pub(super) fn close(self) {
        self.out.push(b'}');
    }
}

/// Appends `json` without the whitespace between its tokens (strings are copied as they are).
pub(super) fn minify(json: &str, out: &mut Vec<u8>) {
    minify_into(json, &mut |piece| out.extend_from_slice(piece));
}

/// [`minify`], handing out the pieces of the result in order (a string at once, whatever its
/// length).
pub(super) fn minify_into(json: &str, put: &mut impl FnMut(&[u8])) {
    let b = json.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i);
                put(&b[i..end]);
                i = end;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                // Copy the run up to the next string or whitespace at once.
                let run = b[i..]
                    .iter()
                    .position(|&c| matches!(c, b'"' | b' ' | b'\t' | b'\n' | b'\r'))
                    .unwrap_or(b.len() - i);
                put(&b[i..i + run]);
                i += run;
            }
        }
    }
}

/// Whether [`minify`] of `json` gives `expected`, without writing it anywhere.
pub(super) fn minifies_to(json: &str, expected: &[u8]) -> bool {
    let (mut at, mut same) = (0, true);
    minify_into(json, &mut |piece| {
        same = same && expected.get(at..at + piece.len()) == Some(piece);
        at += piece.len();
    });
    same && at == expected.len()
}

/// `b[i]` opens a string; the index after its closing quote.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(k) = memchr::memchr2(b'"', b'\\', &b[j..]) {
        j += k;
        if b[j] == b'\\' {
            j += 2;
        } else {
            return j + 1;
        }
    }
    b.len()
}

/// Appends `s` as a JSON string: quotes, backslashes and control characters escaped, everything
/// else as UTF-8.
pub(super) fn write_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => {
                out.extend_from_slice(&b[start..i]);
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 15) as usize]);
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&b[start..i]);
        out.extend_from_slice(esc);
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minify_keeps_strings_and_number_text() {
        let mut out = Vec::new();
        minify(
            "{ \"a b\" : [ 1.50E+3 , -0 , \"x \\\" y\" ] ,\r\n\t\"c\":{} }",
            &mut out,
        );
        assert_eq!(out, br#"{"a b":[1.50E+3,-0,"x \" y"],"c":{}}"#);
    }

    #[test]
    fn minifies_to_compares_without_writing() {
        let json = "{ \"a\" : [1, \"b c\"] }";
        assert!(minifies_to(json, br#"{"a":[1,"b c"]}"#));
        assert!(!minifies_to(json, br#"{"a":[1,"b c"]}x"#));
        assert!(!minifies_to(json, br#"{"a":[1,"b d"]}"#));
        assert!(!minifies_to(json, br#"{"a":[1,"b c"]"#));
    }

    #[test]
    fn write_str_escapes_only_what_json_requires() {
        let mut out = Vec::new();
        write_str("a\"b\\c\nd\u{1}é→", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a\\\"b\\\\c\\nd\\u0001é→\""
        );
    }
}
