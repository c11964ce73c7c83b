//! A validating JSON reader over one record's text: the fast path of classification.
//!
//! This module owns reading a record's text as one JSON value through serde's `Deserializer`
//! interface, so that the visitors of the agents' views (which hold the dialect logic, written once) run
//! over it exactly as they run over `serde_json`. It validates fully (RFC 8259 grammar, string
//! escapes, no raw control characters, nothing after the value but whitespace), borrows strings
//! without escapes, and skips ignored values with the block scan of `json_str`.
//!
//! It is a fast path only: whatever it accepts it must read exactly as `serde_json` does, and
//! whatever is unusual it rejects without saying why (`Rejected`), for the view to run `serde_json`,
//! which gives the exact error and position. Rejected on purpose: numbers `serde_json` reads in a
//! way of its own are handed to `serde_json`'s number parser rather than parsed here; nesting
//! deeper than `MAX_DEPTH` (100); unpaired surrogate escapes anywhere; and every `deserialize_*`
//! method the visitors do not use.
//!
//! The child module `tap` lets the reader note a record's top-level keys while it reads the
//! record's view, for the comparison with the agent's schema (`drift`).

mod field;
pub(crate) mod tap;
pub use field::{Field, JsonType};

use crate::json_str::{self, Level};
use bumpalo::Bump;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The fast path gave up; `serde_json` decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rejected;

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not read by the fast path")
    }
}

impl std::error::Error for Rejected {}

impl de::Error for Rejected {
    #[cold]
    fn custom<T: fmt::Display>(_: T) -> Self {
        Rejected
    }
}

impl From<json_str::Invalid> for Rejected {
    #[cold]
    fn from(_: json_str::Invalid) -> Self {
        Rejected
    }
}

/// Containers nested deeper than this are left to `serde_json`, whose own limit (128 levels read
/// through its visitors) is higher: so nothing this reader accepts is too deep for `serde_json`.
pub(crate) const MAX_DEPTH: u32 = 100;

/// The name under which `serde_json`'s `RawValue` asks a deserializer for the raw text of a value
/// (`deserialize_newtype_struct`); the value then comes as a one-entry map whose key is this
/// name and whose value is the text, borrowed.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Reads `text` as one JSON value through `seed`. Strings with escapes are unescaped into
/// `arena` when given, and lent to the visitors like the strings without; otherwise each is a
/// `String` of its own. When the tap is armed for `text` (see [`tap`]), the keys of the object
/// at its top level are noted.
pub(crate) fn from_str<'de, T: DeserializeSeed<'de>>(
    text: &'de str,
    arena: Option<&'de Bump>,
    seed: T,
) -> Result<T::Value, Rejected> {
    let mut r = Reader {
        text,
        arena,
        pos: 0,
        depth: 0,
        level: Level::detect(),
    };
    if let Some(tap) = tap::Tap::take(text) {
        return noting(r, tap, seed);
    }
    let value = seed.deserialize(&mut r)?;
    match r.skip_ws() {
        None => Ok(value),
        Some(_) => Err(Rejected),
    }
}

/// [`from_str`] with the tap taken: the keys at the top level are noted into `tap`. Kept out of
/// `from_str`, whose reading without a tap is then compiled (and inlined) as it was before the
/// tap.
#[cold]
#[inline(never)]
fn noting<'de, T: DeserializeSeed<'de>>(
    mut r: Reader<'de>,
    mut tap: tap::Tap,
    seed: T,
) -> Result<T::Value, Rejected> {
    let value = match seed.deserialize(tap::Noting::new(&mut r, &mut tap)) {
        Ok(value) if r.skip_ws().is_none() => Ok(value),
        _ => Err(Rejected),
    };
    tap.give_back(value.is_ok());
    value
}

struct Reader<'de> {
    text: &'de str,
    arena: Option<&'de Bump>,
    /// The next byte to read.
    pos: usize,
    /// Containers open around `pos`.
    depth: u32,
    level: Level,
}

impl<'de> Reader<'de> {
    #[inline(always)]
    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    /// Skips whitespace; the next byte, not consumed.
    #[inline(always)]
    fn skip_ws(&mut self) -> Option<u8> {
        // Records are mostly written without whitespace between tokens.
        match self.bytes().get(self.pos) {
            Some(&b) if b > b' ' => Some(b),
            _ => self.skip_some_ws(),
        }
    }

    fn skip_some_ws(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Skips whitespace and the given byte, which must come next.
    #[inline(always)]
    fn expect(&mut self, b: u8) -> Result<(), Rejected> {
        if self.skip_ws() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Rejected)
        }
    }

    /// Reads the string whose opening quote is at `pos`: its body, and whether it has escapes.
    #[inline(always)]
    fn string(&mut self) -> Result<(&'de str, bool), Rejected> {
        let from = self.pos + 1;
        let (end, escaped) = json_str::scan(self.level, self.bytes(), from)?;
        self.pos = end + 1;
        // Both ends are quotes (ASCII), so character boundaries.
        Ok((&self.text[from..end], escaped))
    }

    #[inline(always)]
    fn visit_string<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Rejected> {
        match self.string()? {
            (body, false) => v.visit_borrowed_str(body),
            (body, true) => match self.arena {
                Some(arena) => v.visit_borrowed_str(unescape_in(body, arena)?),
                None => v.visit_string(unescape(body)?),
            },
        }
    }

    /// Reads `word` (`true`, `false`, `null`) at `pos`.
    #[inline(always)]
    fn literal(&mut self, word: &[u8]) -> Result<(), Rejected> {
        if self.bytes()[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Rejected)
        }
    }

    /// Reads a number token at `pos` by the grammar; true when it has a fraction or exponent.
    #[inline(always)]
    fn number(&mut self) -> Result<bool, Rejected> {
        let bytes = self.bytes();
        let digits = |mut i: usize| {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = self.pos;
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        i = match bytes.get(i) {
            Some(b'0') => i + 1,
            Some(b'1'..=b'9') => digits(i + 1),
            _ => return Err(Rejected),
        };
        let mut float = false;
        if bytes.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return Err(Rejected);
            }
            i = end;
            float = true;
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return Err(Rejected);
            }
            i = end;
            float = true;
        }
        self.pos = i;
        Ok(float)
    }

    /// Reads a number and gives it to `v` as `serde_json` would: a non-negative integer as `u64`,
    /// a negative one as `i64`, anything else (fractions, exponents, `-0`, integers beyond 64
    /// bits) as `serde_json`'s own number parser reads it.
    fn visit_number<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Rejected> {
        let start = self.pos;
        let float = self.number()?;
        let token = &self.text[start..self.pos];
        if !float {
            let (negative, digits) = match token.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, token),
            };
            // 19 digits never overflow a u64, 18 never an i64. Wrapping all the same: the digits
            // are read again after `number` checked them, and a mapped file truncated meanwhile
            // reads zeros there (`input::mapped`), which must not panic; the check then ends
            // in an error naming the file, so the value is never reported.
            let value = || {
                digits.bytes().fold(0u64, |n, d| {
                    n.wrapping_mul(10)
                        .wrapping_add(u64::from(d.wrapping_sub(b'0')))
                })
            };
            if !negative && digits.len() <= 19 {
                return v.visit_u64(value());
            }
            if negative && digits.len() <= 18 && digits != "0" {
                return v.visit_i64(-(value() as i64));
            }
        }
        let n: serde_json::Number = token.parse().map_err(|_| Rejected)?;
        if let Some(u) = n.as_u64() {
            v.visit_u64(u)
        } else if let Some(i) = n.as_i64() {
            v.visit_i64(i)
        } else {
            v.visit_f64(n.as_f64().ok_or(Rejected)?)
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<(), Rejected> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Rejected);
        }
        self.pos += 1;
        Ok(())
    }

    /// Skips one value, validating it.
    fn skip_value(&mut self) -> Result<(), Rejected> {
        match self.skip_ws() {
            Some(b'"') => {
                self.string()?;
            }
            Some(b'{') => {
                self.enter()?;
                if self.skip_ws() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        if self.skip_ws() != Some(b'"') {
                            return Err(Rejected);
                        }
                        self.string()?;
                        self.expect(b':')?;
                        self.skip_value()?;
                        match self.skip_ws() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(Rejected),
                        }
                    }
                }
                self.depth -= 1;
            }
            Some(b'[') => {
                self.enter()?;
                if self.skip_ws() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.skip_value()?;
                        match self.skip_ws() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(Rejected),
                        }
                    }
                }
                self.depth -= 1;
            }
            Some(b't') => self.literal(b"true")?,
            Some(b'f') => self.literal(b"false")?,
            Some(b'n') => self.literal(b"null")?,
            Some(b'-' | b'0'..=b'9') => {
                self.number()?;
            }
            _ => return Err(Rejected),
        }
        Ok(())
    }
}

/// [`json_str::unescape`], kept out of the visitors' loops into which strings are inlined.
#[inline(never)]
fn unescape(body: &str) -> Result<String, Rejected> {
    Ok(json_str::unescape(body)?)
}

/// [`unescape`] into `arena`.
#[inline(never)]
fn unescape_in<'a>(body: &str, arena: &'a Bump) -> Result<&'a str, Rejected> {
    let mut out = bumpalo::collections::String::with_capacity_in(body.len(), arena);
    json_str::unescape_into(body, &mut out)?;
    Ok(out.into_bump_str())
}

/// `deserialize_*` methods the visitors of the agents' views never call: rejected, so that a visitor that
/// starts to call one runs on `serde_json` until this reader learns it.
macro_rules! rejected {
    // The typed requests no visitor of the classifier makes (it asks for any value, a string,
    // an identifier, or something to ignore).
    (typed) => {
        rejected!(
            deserialize_bool,
            deserialize_i8,
            deserialize_i16,
            deserialize_i32,
            deserialize_i64,
            deserialize_u8,
            deserialize_u16,
            deserialize_u32,
            deserialize_u64,
            deserialize_f32,
            deserialize_f64,
            deserialize_char,
            deserialize_bytes,
            deserialize_byte_buf,
            deserialize_option,
            deserialize_unit,
            deserialize_seq
        );
    };
    ($($name:ident),*) => {
        $(fn $name<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        })*
    };
}

impl<'de> Reader<'de> {
    /// `deserialize_any` of every value but a string.
    fn any_but_string<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Rejected> {
        match self.skip_ws() {
            // The container was read to its end when the depth is back where it was.
            Some(b'{') => {
                let depth = self.depth;
                self.enter()?;
                let value = v.visit_map(Map {
                    r: &mut *self,
                    first: true,
                    ended: false,
                })?;
                if self.depth != depth {
                    return Err(Rejected);
                }
                Ok(value)
            }
            Some(b'[') => {
                let depth = self.depth;
                self.enter()?;
                let value = v.visit_seq(Seq {
                    r: &mut *self,
                    first: true,
                    ended: false,
                })?;
                if self.depth != depth {
                    return Err(Rejected);
                }
                Ok(value)
            }
            Some(b't') => {
                self.literal(b"true")?;
                v.visit_bool(true)
            }
            Some(b'f') => {
                self.literal(b"false")?;
                v.visit_bool(false)
            }
            Some(b'n') => {
                self.literal(b"null")?;
                v.visit_unit()
            }
            Some(b'-' | b'0'..=b'9') => self.visit_number(v),
            _ => Err(Rejected),
        }
    }
}

/// [`rejected!`] for the methods that also take a name and field or variant lists: shapes the
/// classifier's visitors never ask for.
macro_rules! rejected_shapes {
    (@one unit_struct) => {
        fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        }
    };
    (@one newtype_struct) => {
        fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        }
    };
    (@one tuple) => {
        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        }
    };
    (@one tuple_struct) => {
        fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        }
    };
    (@one struct) => {
        fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        }
    };
    (@one enum) => {
        fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], _: V) -> Result<V::Value, Rejected> {
            Err(Rejected)
        }
    };
    // Last, so that the `@one` arms above are matched first.
    ($($shape:tt)*) => { $(rejected_shapes!(@one $shape);)* };
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Rejected;

    // Inlined into the visitors for strings, the most common value: a value returned from a call
    // comes back through memory, and reading it back costs more than the call.
    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        match self.skip_ws() {
            Some(b'"') => self.visit_string(v),
            _ => self.any_but_string(v),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        match self.skip_ws() {
            Some(b'"') => self.visit_string(v),
            _ => Err(Rejected),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        self.deserialize_str(v)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        self.deserialize_str(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        self.skip_value()?;
        v.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Rejected> {
        if name != RAW_VALUE_TOKEN {
            return Err(Rejected);
        }
        self.skip_ws();
        let start = self.pos;
        self.skip_value()?;
        v.visit_map(RawValueAccess {
            raw: Some(&self.text[start..self.pos]),
        })
    }

    rejected!(typed);

    // A map or struct visitor refuses every value but an object (a struct one also an array),
    // as with serde_json.
    serde::forward_to_deserialize_any! { map struct }

    rejected_shapes! { unit_struct tuple tuple_struct enum }
}

/// The entries of an object being read; `ended` once its closing brace is (which also closes
/// its level of `depth`).
struct Map<'a, 'de> {
    r: &'a mut Reader<'de>,
    first: bool,
    ended: bool,
}

impl<'de> MapAccess<'de> for Map<'_, 'de> {
    type Error = Rejected;

    // The provided `next_key` and `next_value` are spelled out to be inlined into the visitors'
    // loops, so that keys and values come back in registers.
    #[inline(always)]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>, Rejected> {
        self.next_key_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V, Rejected> {
        self.next_value_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Rejected> {
        if !self.key_follows()? {
            return Ok(None);
        }
        let key = seed.deserialize(Key { r: &mut *self.r })?;
        self.r.expect(b':')?;
        Ok(Some(key))
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Rejected> {
        seed.deserialize(&mut *self.r)
    }
}

impl Map<'_, '_> {
    /// Reads up to the next key: true when one follows (its opening quote at `pos`), false
    /// when the object has ended.
    #[inline(always)]
    fn key_follows(&mut self) -> Result<bool, Rejected> {
        let r = &mut *self.r;
        match r.skip_ws() {
            Some(b'}') if !self.ended => {
                r.pos += 1;
                r.depth -= 1;
                self.ended = true;
                return Ok(false);
            }
            Some(b',') if !self.first && !self.ended => {
                r.pos += 1;
                if r.skip_ws() != Some(b'"') {
                    return Err(Rejected);
                }
            }
            Some(b'"') if self.first => {}
            _ => return Err(Rejected),
        }
        self.first = false;
        Ok(true)
    }
}

/// The elements of an array being read; `ended` once its closing bracket is (which also closes
/// its level of `depth`).
struct Seq<'a, 'de> {
    r: &'a mut Reader<'de>,
    first: bool,
    ended: bool,
}

impl<'de> SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Rejected;

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>, Rejected> {
        self.next_element_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Rejected> {
        let r = &mut *self.r;
        if self.ended {
            return Err(Rejected);
        }
        match r.skip_ws() {
            Some(b']') => {
                r.pos += 1;
                r.depth -= 1;
                self.ended = true;
                return Ok(None);
            }
            Some(b',') if !self.first => r.pos += 1,
            Some(_) if self.first => {}
            _ => return Err(Rejected),
        }
        self.first = false;
        seed.deserialize(&mut *r).map(Some)
    }
}

/// An object key (its opening quote at `pos`): a string, or skipped.
struct Key<'a, 'de> {
    r: &'a mut Reader<'de>,
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Rejected;

    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        self.r.visit_string(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        self.r.string()?;
        v.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        str string identifier
    }

    rejected!(typed);
    rejected!(deserialize_map);

    rejected_shapes! { unit_struct newtype_struct tuple tuple_struct struct enum }
}

/// The one-entry map through which a raw value is handed over (see [`RAW_VALUE_TOKEN`]).
struct RawValueAccess<'de> {
    raw: Option<&'de str>,
}

impl<'de> MapAccess<'de> for RawValueAccess<'de> {
    type Error = Rejected;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Rejected> {
        if self.raw.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Rejected> {
        let raw = self.raw.take().ok_or(Rejected)?;
        seed.deserialize(BorrowedStrDeserializer::new(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::value::RawValue;

    fn accepts(text: &str) -> bool {
        from_str(text, None, std::marker::PhantomData::<de::IgnoredAny>).is_ok()
    }

    #[test]
    fn raw_values_are_the_exact_text_of_the_value() {
        #[derive(Deserialize)]
        struct Outer<'a> {
            #[serde(borrow)]
            a: &'a RawValue,
            b: &'a RawValue,
        }
        let text = r#"{"a" : { "x": [1, "\u00e9"] } ,"b":2}"#;
        let o: Outer<'_> = from_str(text, None, std::marker::PhantomData).unwrap();
        assert_eq!(o.a.get(), r#"{ "x": [1, "\u00e9"] }"#);
        assert_eq!(o.b.get(), "2");
        let reference: Outer<'_> = serde_json::from_str(text).unwrap();
        assert_eq!(reference.a.get(), o.a.get());
        let bad = r#"{"a":{"x":01},"b":2}"#;
        assert!(
            from_str::<std::marker::PhantomData<Outer<'_>>>(bad, None, std::marker::PhantomData)
                .is_err()
        );
    }

    #[test]
    fn grammar() {
        for ok in [
            "{}",
            " [ ] ",
            r#"{"a":[1,-2,0.5,-0,1e5,1E+5,2.5e-3,true,false,null,"x\n"]}"#,
            "\t\r\n0\n",
            "-1234567890123456789012345678901234567890",
        ] {
            assert!(accepts(ok), "{ok}");
        }
        for bad in [
            "",
            "{",
            "{}}",
            "{} x",
            "[1,]",
            "[,1]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:1}",
            "01",
            "1.",
            ".5",
            "1e",
            "1e+",
            "+1",
            "-",
            "tru",
            "nul",
            "True",
            "\"a\tb\"",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"\\ud800\"",
            "[\"\u{1}\"]",
            "NaN",
        ] {
            assert!(!accepts(bad), "{bad:?}");
        }
        let deep = "[".repeat(MAX_DEPTH as usize) + &"]".repeat(MAX_DEPTH as usize);
        assert!(accepts(&deep));
        let deeper = "[".repeat(MAX_DEPTH as usize + 1) + &"]".repeat(MAX_DEPTH as usize + 1);
        assert!(!accepts(&deeper));
    }
}
