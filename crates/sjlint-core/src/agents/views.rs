//! The borrowed reading of an agent's record: the `view!` macro that declares which keys of an
//! object a checker reads, [`Raw`] for values kept as their JSON text, and the readers
//! ([`parse`], [`parse_array`]) that fill views from a record's text.
//!
//! This module owns how records become views: only the listed keys are read, everything else is
//! skipped without being unescaped or kept, and strings borrow from the record (or from the
//! record's arena when they have escapes), so reading a record allocates nothing. It must not
//! know any agent's fields: those are declared in the agents' modules. Valid JSON that
//! `serde_json` refuses (numbers beyond the f64 range, unpaired surrogate escapes) is read from a
//! substituted copy in the arena, as cursor's events are (`event::lenient`): no view rejects a
//! valid JSON text for them.

use crate::json::{Field, JsonType};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// An object key, borrowed from the record when it has no escapes.
pub struct Key<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A value kept as its raw JSON text, to be read later (or never): arrays of content blocks,
/// tool arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Raw<'a>(pub Option<&'a RawValue>);

impl<'a> Raw<'a> {
    pub fn get(&self) -> Option<&'a str> {
        self.0.map(RawValue::get)
    }

    /// The value as a string, when it is one: borrowed when it has no escapes. For the long
    /// texts (tool output, messages) that only the common form reads, so that checking skips
    /// them with the fast scan instead of unescaping them.
    pub fn text(&self) -> Option<Cow<'a, str>> {
        let raw = self.get()?.trim();
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        if !inner.contains('\\') {
            return Some(Cow::Borrowed(inner));
        }
        serde_json::from_str::<String>(raw)
            .or_else(|_| serde_json::from_str(&format!("\"{}\"", lone_surrogates_as_text(inner))))
            .ok()
            .map(Cow::Owned)
    }

    /// The JSON type of the value, from its first byte.
    pub fn json_type(&self) -> Option<JsonType> {
        let t = self.get()?.trim_start();
        Some(match t.as_bytes().first()? {
            b'{' => JsonType::Object,
            b'[' => JsonType::Array,
            b'"' => JsonType::String,
            b't' | b'f' => JsonType::Bool,
            b'n' => JsonType::Null,
            _ => JsonType::Number,
        })
    }
}

/// `inner` (a JSON string's body) with each escape of an unpaired surrogate (`\ud800`), which no
/// Rust string can hold, turned into the text of that escape (`\\ud800`): the text keeps it as
/// written rather than losing the whole string.
fn lone_surrogates_as_text(inner: &str) -> String {
    let hex = |at: usize| {
        inner
            .get(at..at + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let mut out = String::with_capacity(inner.len() + 8);
    let mut rest = 0;
    let mut i = 0;
    let bytes = inner.as_bytes();
    while i + 1 < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes[i + 1] != b'u' {
            i += 2;
            continue;
        }
        let paired = |cp: u32| {
            (0xd800..0xdc00).contains(&cp)
                && inner.get(i + 6..i + 8) == Some("\\u")
                && hex(i + 8).is_some_and(|lo| (0xdc00..0xe000).contains(&lo))
        };
        match hex(i + 2) {
            Some(cp) if paired(cp) => i += 12,
            Some(cp) if (0xd800..0xe000).contains(&cp) => {
                out.push_str(&inner[rest..i]);
                out.push('\\');
                rest = i;
                i += 6;
            }
            _ => i += 2,
        }
    }
    out.push_str(&inner[rest..]);
    out
}

impl<'de> Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(d).map(|r| Raw(Some(r)))
    }
}

/// Whether a member of a view was present in the record (to find repeated keys).
pub trait Slot {
    fn present(&self) -> bool;
}

impl Slot for Field<'_> {
    fn present(&self) -> bool {
        self.is_present()
    }
}

impl Slot for Raw<'_> {
    fn present(&self) -> bool {
        self.0.is_some()
    }
}

/// Declares a borrowed view of a JSON object: the listed keys go to the listed members (each a
/// [`Field`], a [`Raw`] or another view), the rest is skipped. A value that is not an object
/// gives a view whose `shape` is its type; `dup` is set when a listed key appears twice (the
/// last value is kept). Only `deserialize_any`, `deserialize_str` and `deserialize_ignored_any`
/// are asked of the reader, so the fast reader of `json.rs` reads every view.
///
/// A view is read in place (`Deserialize::deserialize_in_place` into a default view, nested
/// views into their member): a record's view is some hundred bytes, and returning it through
/// the layers of the reader copied it several times per record.
macro_rules! view {
    ($(#[$m:meta])* pub struct $name:ident<'a> { $($(#[$fm:meta])* $key:literal => $field:ident : $ty:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Default)]
        #[allow(unreachable_pub, reason = "a view is public where its agent re-exports it, private elsewhere")]
        pub struct $name<'a> {
            /// The JSON type of the value; `None` when absent.
            pub shape: Option<$crate::json::JsonType>,
            /// A listed key appears twice.
            pub dup: bool,
            $($(#[$fm])* pub $field: $ty,)*
            #[doc(hidden)]
            pub _life: std::marker::PhantomData<&'a ()>,
        }

        impl $crate::agents::Slot for $name<'_> {
            fn present(&self) -> bool {
                self.shape.is_some()
            }
        }

        impl $crate::agents::SetShape for $name<'_> {
            fn set_shape(&mut self, t: $crate::json::JsonType) {
                self.shape = Some(t);
            }
        }

        impl<'de> serde::Deserialize<'de> for $name<'de> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut v = $name::default();
                Self::deserialize_in_place(d, &mut v)?;
                Ok(v)
            }

            /// Reads into `place`, which is a default view.
            fn deserialize_in_place<D: serde::Deserializer<'de>>(
                d: D,
                place: &mut Self,
            ) -> Result<(), D::Error> {
                struct V<'p, 'de>(&'p mut $name<'de>);
                impl<'p, 'de> serde::de::Visitor<'de> for V<'p, 'de> {
                    type Value = ();
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a JSON value")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<(), A::Error> {
                        #[allow(unused_imports, reason = "not every expansion of the macro uses the trait")]
                        use $crate::agents::Slot as _;
                        let v = self.0;
                        v.shape = Some($crate::json::JsonType::Object);
                        while let Some(k) = map.next_key::<$crate::agents::Key<'de>>()? {
                            match &*k.0 {
                                $($key => {
                                    if v.$field.present() {
                                        v.dup = true;
                                        v.$field = Default::default();
                                    }
                                    map.next_value_seed($crate::agents::InPlace(&mut v.$field))?;
                                })*
                                _ => {
                                    map.next_value::<serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(())
                    }
                    $crate::agents::non_object_visits!();
                }
                d.deserialize_any(V(place))
            }
        }
    };
}
pub(crate) use view;

/// The visits of a view's visitor (a `V(&mut view)` whose value is `()`) for values that are not
/// objects: the view records the type.
macro_rules! non_object_visits {
    () => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::Bool);
            Ok(())
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::Number);
            Ok(())
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::Number);
            Ok(())
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::Number);
            Ok(())
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::String);
            Ok(())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::Null);
            Ok(())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            $crate::agents::SetShape::set_shape(self.0, $crate::json::JsonType::Array);
            Ok(())
        }
    };
}
pub(crate) use non_object_visits;

/// Reads a value into `self.0` in place ([`Deserialize::deserialize_in_place`]): the member of
/// a view, or a whole view.
pub struct InPlace<'p, T>(pub &'p mut T);

impl<'de, T: Deserialize<'de>> serde::de::DeserializeSeed<'de> for InPlace<'_, T> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        T::deserialize_in_place(d, self.0)
    }
}

/// Views record the type of a value that is not an object.
pub trait SetShape {
    fn set_shape(&mut self, t: JsonType);
}

/// Reads `text` (one record) into `place`, a default view, in place: the fast reader first,
/// `serde_json` when it declines (the view is reset first). The view borrows from `text`, or from
/// `arena` for strings with escapes.
pub fn parse_into<'a, T: Deserialize<'a> + Default>(
    text: &'a str,
    arena: &'a bumpalo::Bump,
    place: &mut T,
) -> Result<(), serde_json::Error> {
    if crate::json::from_str(text, Some(arena), InPlace(&mut *place)).is_ok() {
        return Ok(());
    }
    *place = T::default();
    let strict = |text: &'a str, place: &mut T| {
        let mut de = serde_json::Deserializer::from_str(text);
        T::deserialize_in_place(&mut de, place)?;
        de.end()
    };
    match strict(text, place) {
        Err(e) => match crate::agents::cursor::view::substituted_in(text, &e, arena) {
            // Valid JSON `serde_json` refuses (numbers beyond the f64 range, unpaired
            // surrogate escapes): read as cursor's events read it.
            Some(copy) => {
                *place = T::default();
                strict(copy, place)
            }
            None => Err(e),
        },
        ok => ok,
    }
}

/// Reads `text` (one record) into a view: the fast reader first, `serde_json` when it declines.
/// The view borrows from `text`, or from `arena` for strings with escapes.
pub fn parse<'a, T: Deserialize<'a>>(
    text: &'a str,
    arena: &'a bumpalo::Bump,
) -> Result<T, serde_json::Error> {
    if let Ok(v) = crate::json::from_str(text, Some(arena), std::marker::PhantomData::<T>) {
        return Ok(v);
    }
    let strict = |text: &'a str| {
        let mut de = serde_json::Deserializer::from_str(text);
        let v = T::deserialize(&mut de)?;
        de.end()?;
        Ok(v)
    };
    strict(text).or_else(
        |e| match crate::agents::cursor::view::substituted_in(text, &e, arena) {
            Some(copy) => strict(copy),
            None => Err(e),
        },
    )
}

/// Reads the array at `raw` element by element into `out` (an arena vector, so that nothing is
/// allocated per record). A value that is not an array leaves `out` empty and returns its type.
pub fn parse_array<'a, T: Deserialize<'a>>(
    raw: &'a str,
    arena: &'a bumpalo::Bump,
    out: &mut bumpalo::collections::Vec<'a, T>,
) -> Option<JsonType> {
    struct Seed<'o, 'a, T>(&'o mut bumpalo::collections::Vec<'a, T>);
    impl<'de, T: Deserialize<'de>> serde::de::DeserializeSeed<'de> for Seed<'_, 'de, T> {
        type Value = Option<JsonType>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Seed<'_, 'de, T> {
        type Value = Option<JsonType>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while let Some(x) = seq.next_element::<T>()? {
                self.0.push(x);
            }
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Some(JsonType::Object))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Bool))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Number))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Number))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Number))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Some(JsonType::String))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Null))
        }
    }
    out.clear();
    if let Ok(t) = crate::json::from_str(raw, Some(arena), Seed(out)) {
        return t;
    }
    out.clear();
    let mut de = serde_json::Deserializer::from_str(raw);
    // The raw text was read as valid JSON once already; serde_json reads it again.
    match serde::de::DeserializeSeed::deserialize(Seed(out), &mut de) {
        Ok(t) => t,
        Err(_) => {
            out.clear();
            None
        }
    }
}

/// The first top-level key of the object `json` that appears a second time: read only once a
/// view has said that one does (the cold path of `duplicate-key`).
#[cold]
pub(super) fn first_repeated_key(json: &str) -> Option<String> {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut first = None;
            while let Some(k) = map.next_key::<Key<'de>>()? {
                map.next_value::<IgnoredAny>()?;
                if first.is_none() && !seen.insert(k.0.clone().into_owned()) {
                    first = Some(k.0.into_owned());
                }
            }
            Ok(first)
        }
    }
    let mut de = serde_json::Deserializer::from_str(json);
    de.deserialize_map(Keys).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_with_an_unpaired_surrogate_keeps_its_escape() {
        let text = |json: &str| {
            let raw: &RawValue = serde_json::from_str(json).unwrap();
            Raw(Some(raw)).text().map(Cow::into_owned)
        };
        assert_eq!(text(r#""a\ud800b""#).as_deref(), Some(r"a\ud800b"));
        assert_eq!(text(r#""\udc00\n""#).as_deref(), Some("\\udc00\n"));
        // A pair and an escaped backslash are read as ever.
        assert_eq!(
            text(r#""\ud83d\ude00 \\ud800""#).as_deref(),
            Some("\u{1f600} \\ud800")
        );
    }
}
