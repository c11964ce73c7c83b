//! The serde building blocks of the event readers: object keys (borrowed when they have no
//! escapes), repeated keys found without allocating, scalar fields kept with their JSON type,
//! and the two macros that give a view its visitor.
//!
//! This module owns how one JSON value becomes a [`Field`] or a [`JsonType`]. It must not know
//! any event's keys nor any dialect (that is `record`, `cursor`, `payload` and `sdk`). What is
//! here runs for every key of every record: it stays inlined where it is, and allocates nothing
//! but for strings with escapes read without an arena and objects of more than 32 keys.

use super::{Field, JsonType};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::mem::MaybeUninit;

/// The `visit_*` methods of a visitor for every value but an object: each gives `$out` of the
/// value's JSON type (an array's items are read and skipped).
macro_rules! non_object_visits {
    ($out:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out(JsonType::Bool))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out(JsonType::Number))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out(JsonType::Number))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out(JsonType::Number))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($out(JsonType::String))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out(JsonType::Null))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($out(JsonType::Array))
        }
    };
}
pub(super) use non_object_visits;

/// An object key, borrowed from the input when it has no escapes.
pub(super) struct Key<'a> {
    pub(super) name: Cow<'a, str>,
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(|name| Key { name })
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// The keys of one object seen so far, to find repeated keys without allocating: 64-bit hashes
/// of the first 32 keys (events have about ten), and past them a hash set, made only for an
/// object that has more keys. Two different keys of one object share a hash
/// with a chance of about 2^-58, which would read as a repeated key. The slots are not zeroed
/// first: one set is made per object, and zeroing its 256 bytes cost a call of `memset` for
/// every record. `len` comes first, and stays there (`repr(C)`): after the array, the compiler
/// merged its store of 0 and the array into one `memset` of the whole set.
#[repr(C)]
pub(super) struct KeySet {
    /// The first `len` hashes are written.
    len: usize,
    hashes: MaybeUninit<[u64; KEYS]>,
    /// The hashes of the keys after the first [`KEYS`]; its own hasher is seeded at random, so
    /// crafted keys cannot pile up in one bucket.
    more: Option<HashSet<u64, foldhash::fast::RandomState>>,
}

const KEYS: usize = 32;

impl Default for KeySet {
    fn default() -> Self {
        KeySet {
            len: 0,
            hashes: MaybeUninit::uninit(),
            more: None,
        }
    }
}

impl KeySet {
    /// Records `key`; true when it was already there.
    // Always inlined into the key loops of the readers in the other modules: called out of line,
    // once per key, it cost 0.7 % of the instructions of a cursor check.
    #[inline(always)]
    pub(super) fn insert(&mut self, key: &Key<'_>) -> bool {
        use std::hash::{BuildHasher, Hasher};
        // The hasher's own calls rather than `hash_one`, which the compiler may leave out of
        // line (a call per key) depending on how the crate is split into codegen units.
        let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
        hasher.write(key.name.as_bytes());
        let h = hasher.finish();
        let first = self.hashes.as_mut_ptr().cast::<u64>();
        // SAFETY: the first `len` (at most KEYS) hashes were written by earlier calls, below.
        let seen = unsafe { std::slice::from_raw_parts(first, self.len) };
        if seen.contains(&h) {
            return true;
        }
        if self.len < KEYS {
            // SAFETY: `len < KEYS`, so the slot lies inside the array.
            unsafe { first.add(self.len).write(h) };
            self.len += 1;
            return false;
        }
        self.insert_more(h)
    }

    /// Records the hash of a key past the first [`KEYS`]; true when it was already there.
    #[cold]
    fn insert_more(&mut self, h: u64) -> bool {
        !self.more.get_or_insert_default().insert(h)
    }
}

impl<'de> Deserialize<'de> for Field<'de> {
    // Inlined into the visitors' loops: a field returned from a call comes back through memory,
    // and reading it back costs more than the call.
    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

pub(super) struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Field::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Field::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Field::UInt(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Field::Float(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Field::Other(JsonType::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Field::Other(JsonType::Array))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Field::Other(JsonType::Object))
    }
}

/// Generates a `Deserialize` for a view struct with a `shape` field: non-objects record their
/// type, objects go to the given map visitor body.
macro_rules! object_view {
    ($ty:ident, |$ev:ident, $map:ident| $body:block) => {
        impl<'de> Deserialize<'de> for $ty<'de> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a JSON value")
                    }
                    non_object_visits!(|t| $ty {
                        shape: Some(t),
                        ..Default::default()
                    });
                    fn visit_map<A: MapAccess<'de>>(
                        self,
                        mut $map: A,
                    ) -> Result<Self::Value, A::Error> {
                        let mut $ev = $ty {
                            shape: Some(JsonType::Object),
                            ..Default::default()
                        };
                        $body
                        Ok($ev)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}
pub(super) use object_view;

/// A whole number that fits an `i64`.
pub(super) fn int(f: &Field<'_>) -> Option<i64> {
    match *f {
        Field::UInt(n) => i64::try_from(n).ok(),
        Field::Int(n) => Some(n),
        _ => None,
    }
}

/// The JSON type of a value that is otherwise skipped.
pub(super) struct TypeOf(pub(super) JsonType);

impl<'de> Deserialize<'de> for TypeOf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TypeOf;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            non_object_visits!(TypeOf);
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(TypeOf(JsonType::Object))
            }
        }
        d.deserialize_any(V)
    }
}
