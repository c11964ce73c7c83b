//! The top-level keys of a record, noted by the fast reader while it reads the record's view, so
//! that what compares them with a schema (`drift`) need not read the record a second time.
//!
//! This module owns the hand-over between whoever wants a record's keys (the check stage, when
//! the `unknown-field` rule or a consumer asks for drift) and the reader: [`noting`] arms the
//! tap for one text around the parse of its view, and gives what was noted to its caller. The
//! reader that takes the tap is the first one to read exactly that text (the same address and
//! length) from its start; it reads the object at the top level through [`Noting`], which notes
//! each key there and whether the object was read to its end, while the values (and everything
//! below them) are read by the reader as ever. Every other reader (one that reads a value of the
//! record again, the views' later reads of raw sub-values, a second read of the same text) finds
//! no tap, so a nested read cannot note anything. What is noted holds only if the reader
//! accepted the whole text: it then reads exactly as `serde_json` does (the contract of `json`),
//! so the keys are those `serde_json` would give.
//!
//! The tap is a thread-local slot, not a parameter: the record's view is read through each
//! agent's own `parse_into` (twelve of them, and the views' entry points), and a parameter would
//! run through all of them for the one reader that takes it. The slot is armed only inside
//! [`noting`], for one text, and disarmed when it returns (or unwinds). A reader with no tap
//! pays one thread-local load per text for it, and nothing per key: [`Noting`] is another
//! deserializer type, used only when the tap is taken. It must not hold on to what it noted
//! past the call that asked for it: [`noting`] lends it to the caller, who copies it.

use super::{Key, Map, Reader, Rejected};
use bumpalo::Bump;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use std::cell::{Cell, RefCell};

/// Where one top-level key of a record lies in its text: the key's body (between its quotes, as
/// written, escapes included) and where its value starts (whitespace may come before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyAt {
    from: u32,
    to: u32,
    value: u32,
}

impl KeyAt {
    /// The key as written in `text` (the record's text it was noted in): escapes not undone.
    pub(crate) fn raw<'t>(&self, text: &'t str) -> Option<&'t str> {
        text.get(self.from as usize..self.to as usize)
    }

    /// The text from the key's value on: the value, then the rest of the record.
    pub(crate) fn value<'t>(&self, text: &'t str) -> Option<&'t str> {
        text.get(self.value as usize..)
    }
}

/// What the reader noted at the top level of a record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Top<'n> {
    /// Nothing: the fast reader did not read the whole record (`serde_json` did, or nothing
    /// could), or no one asked.
    #[default]
    Unread,
    /// The record is valid JSON, and not an object.
    NotAnObject,
    /// The record is an object with these keys, in order, repeats included.
    Object(&'n [KeyAt]),
}

impl Top<'_> {
    /// A copy in `arena`.
    pub(crate) fn copied_into<'a>(&self, arena: &'a Bump) -> Top<'a> {
        match *self {
            Top::Unread => Top::Unread,
            Top::NotAnObject => Top::NotAnObject,
            Top::Object(keys) => Top::Object(arena.alloc_slice_copy(keys)),
        }
    }
}

/// The most keys the slot keeps room for between records: what one record with more made
/// large is given back.
const KEYS_KEPT: usize = 1 << 12;

/// What was noted of one record, kept by a caller that cannot hold what [`noting`] lends (the
/// check stage, whose arena is borrowed elsewhere meanwhile). Reused from record to record.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    keys: Vec<KeyAt>,
    found: Found,
    /// The text it was noted in (address and length).
    of: (usize, usize),
}

impl Kept {
    /// Forgets what was kept.
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.found = Found::Unread;
        if self.keys.capacity() > KEYS_KEPT {
            self.keys = Vec::new();
        }
    }

    /// [`noting`], keeping what was noted of `text`.
    pub(crate) fn noting<R>(&mut self, text: &str, parse: impl FnOnce() -> R) -> R {
        noting(text, parse, |top| {
            self.clear();
            self.of = id(text);
            match top {
                Top::Unread => {}
                Top::NotAnObject => self.found = Found::NotAnObject,
                Top::Object(keys) => {
                    self.keys.extend_from_slice(keys);
                    self.found = Found::Object;
                }
            }
        })
    }

    /// What was kept of `text`: [`Top::Unread`] unless it was noted in that very text.
    pub(crate) fn top(&self, text: &str) -> Top<'_> {
        match self.found {
            _ if self.of != id(text) => Top::Unread,
            Found::Unread => Top::Unread,
            Found::NotAnObject => Top::NotAnObject,
            Found::Object => Top::Object(&self.keys),
        }
    }
}

/// What the reader that took the tap found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Found {
    #[default]
    Unread,
    NotAnObject,
    Object,
}

struct Slot {
    keys: Vec<KeyAt>,
    found: Found,
}

thread_local! {
    /// The text the tap is armed for (its address and length), while it is.
    static ARMED: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
    /// The keys noted: lent to the reader that takes the tap, then to [`noting`]'s caller.
    static SLOT: RefCell<Slot> = const {
        RefCell::new(Slot {
            keys: Vec::new(),
            found: Found::Unread,
        })
    };
}

fn id(text: &str) -> (usize, usize) {
    (text.as_ptr() as usize, text.len())
}

/// Disarms the tap when dropped, so that a parse that unwinds leaves nothing armed.
struct Disarm;

impl Drop for Disarm {
    fn drop(&mut self) {
        ARMED.set(None);
    }
}

/// Runs `parse` (the read of the view of the record `text`) with the tap armed for `text`, then
/// lends `keep` what the reader noted of the record's top level. `keep` must not parse.
pub(crate) fn noting<R>(text: &str, parse: impl FnOnce() -> R, keep: impl FnOnce(Top<'_>)) -> R {
    // Offsets are noted in 32 bits: a longer record (past a `--max-record-bytes` of 4 GiB) is
    // left unread here.
    if u32::try_from(text.len()).is_err() {
        let value = parse();
        keep(Top::Unread);
        return value;
    }
    SLOT.with_borrow_mut(|s| {
        s.keys.clear();
        s.found = Found::Unread;
    });
    ARMED.set(Some(id(text)));
    let disarm = Disarm;
    let value = parse();
    drop(disarm);
    SLOT.with_borrow_mut(|s| {
        keep(match s.found {
            Found::Unread => Top::Unread,
            Found::NotAnObject => Top::NotAnObject,
            Found::Object => Top::Object(&s.keys),
        });
        if s.keys.capacity() > KEYS_KEPT {
            s.keys = Vec::new();
        }
    });
    value
}

/// The tap as a reader holds it: the keys noted so far, whether the object at the top level was
/// read to its end, and whether the value at the top level was something else.
pub(super) struct Tap {
    keys: Vec<KeyAt>,
    ended: bool,
    other: bool,
}

impl Tap {
    /// The tap, for the reader of `text`, when it is armed for exactly that text: then it is
    /// disarmed, so that no other reader takes it.
    #[inline]
    pub(super) fn take(text: &str) -> Option<Tap> {
        if ARMED.get() != Some(id(text)) {
            return None;
        }
        take_armed()
    }

    /// The reader is done with the text: `read` when it accepted all of it.
    pub(super) fn give_back(self, read: bool) {
        let found = match (read, self.ended, self.other) {
            (true, true, _) => Found::Object,
            (true, false, true) => Found::NotAnObject,
            _ => Found::Unread,
        };
        SLOT.with_borrow_mut(|s| {
            s.keys = self.keys;
            s.found = found;
        });
    }
}

#[cold]
fn take_armed() -> Option<Tap> {
    ARMED.set(None);
    let keys = SLOT.with_borrow_mut(|s| std::mem::take(&mut s.keys));
    Some(Tap {
        keys,
        ended: false,
        other: false,
    })
}

/// The reader at the top level of a record, noting the keys of the object there into a tap.
/// Only the object at the top level is read through [`NotingMap`]: its values, and every other
/// request, go to the reader itself, so that a record is read exactly as without a tap, and a
/// reader without one pays nothing for it.
pub(super) struct Noting<'n, 'r, 'de> {
    r: &'r mut Reader<'de>,
    tap: &'n mut Tap,
}

impl<'n, 'r, 'de> Noting<'n, 'r, 'de> {
    pub(super) fn new(r: &'r mut Reader<'de>, tap: &'n mut Tap) -> Self {
        Noting { r, tap }
    }
}

/// Requests the reader answers as it would at the top level of any text.
macro_rules! to_reader {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(fn $name<V: Visitor<'de>>(self, $($arg: $ty,)* v: V) -> Result<V::Value, Rejected> {
            self.r.$name($($arg,)* v)
        })*
    };
}

impl<'de> Deserializer<'de> for Noting<'_, '_, 'de> {
    type Error = Rejected;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        if self.r.skip_ws() != Some(b'{') {
            self.tap.other = true;
            return self.r.deserialize_any(v);
        }
        // As `Reader::any_but_string` reads an object.
        let depth = self.r.depth;
        self.r.enter()?;
        let value = v.visit_map(NotingMap {
            map: Map {
                r: &mut *self.r,
                first: true,
                ended: false,
            },
            tap: &mut *self.tap,
        })?;
        if self.r.depth != depth {
            return Err(Rejected);
        }
        Ok(value)
    }

    // As the reader's own, which read them as any value.
    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Rejected> {
        self.deserialize_any(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Rejected> {
        self.deserialize_any(v)
    }

    to_reader! {
        deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
        deserialize_i64(); deserialize_u8(); deserialize_u16(); deserialize_u32();
        deserialize_u64(); deserialize_f32(); deserialize_f64(); deserialize_char();
        deserialize_str(); deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_seq(); deserialize_identifier();
        deserialize_ignored_any();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }
}

/// The entries of the object at the top level, each key noted as it is read.
struct NotingMap<'n, 'r, 'de> {
    map: Map<'r, 'de>,
    tap: &'n mut Tap,
}

impl<'de> MapAccess<'de> for NotingMap<'_, '_, 'de> {
    type Error = Rejected;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Rejected> {
        if !self.map.key_follows()? {
            self.tap.ended = true;
            return Ok(None);
        }
        let r = &mut *self.map.r;
        // The key's quotes are at `from - 1` and `to`.
        let from = r.pos + 1;
        let key = seed.deserialize(Key { r: &mut *r })?;
        let to = r.pos - 1;
        r.expect(b':')?;
        // Within the text, whose length fits (see `noting`).
        let at = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        self.tap.keys.push(KeyAt {
            from: at(from),
            to: at(to),
            value: at(r.pos),
        });
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Rejected> {
        self.map.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;
    use serde_json::value::RawValue;
    use std::fmt;

    /// Reads an object's entries, and reads again (with the fast reader, nested inside this
    /// read) each value that is itself an object.
    struct Nesting;

    impl<'de> DeserializeSeed<'de> for Nesting {
        type Value = usize;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Nesting {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut inner = 0;
            while map.next_key::<IgnoredAny>()?.is_some() {
                let raw: &'de RawValue = map.next_value()?;
                if raw.get().starts_with('{') {
                    inner += super::super::from_str(raw.get(), None, Nesting).unwrap_or(0) + 1;
                }
            }
            Ok(inner)
        }
    }

    fn noted(text: &str, read: impl FnOnce(&str)) -> Option<Vec<String>> {
        let mut out = None;
        noting(
            text,
            || read(text),
            |top| {
                out = match top {
                    Top::Object(keys) => Some(
                        keys.iter()
                            .map(|k| k.raw(text).unwrap_or("?").to_owned())
                            .collect(),
                    ),
                    Top::NotAnObject => Some(Vec::new()),
                    Top::Unread => None,
                }
            },
        );
        out
    }

    #[test]
    fn a_nested_read_notes_nothing() {
        let text = r#"{"a":{"x":1,"y":{"z":2}},"b":[{"w":3}], "a" : 4 ,"c\"d":{"v":5}}"#;
        let mut nested = 0;
        let keys = noted(text, |t| {
            nested = super::super::from_str(t, None, Nesting).expect("reads");
        });
        // The nested reads happened (each object value read again), and noted nothing.
        assert_eq!(nested, 3);
        assert_eq!(
            keys.as_deref(),
            Some(&["a", "b", "a", r#"c\"d"#].map(String::from)[..])
        );
    }

    #[test]
    fn only_a_whole_read_of_the_armed_text_is_noted() {
        let read = |t: &str| {
            let _ = super::super::from_str(t, None, std::marker::PhantomData::<IgnoredAny>);
        };
        // Skipped whole, the object's keys were not read one by one.
        assert_eq!(noted(r#"{"a":1}"#, read), None);
        // Not accepted by the fast reader (nested past its depth), or not JSON at all.
        let deep = format!(r#"{{"a":{}{}}}"#, "[".repeat(120), "]".repeat(120));
        let seed = |t: &str| {
            let _ = super::super::from_str(t, None, Nesting);
        };
        assert_eq!(noted(&deep, seed), None);
        assert_eq!(noted(r#"{"a":1} x"#, seed), None);
        let any = |t: &str| {
            let _ = super::super::from_str(t, None, std::marker::PhantomData::<serde_json::Value>);
        };
        assert_eq!(noted("[1,2]", any), Some(Vec::new()));
        assert_eq!(
            noted(r#" {"a":[1],"b":{"c":2}} "#, any),
            Some(vec!["a".into(), "b".into()])
        );
        // A read of another text (a copy of it) takes nothing.
        let copy = String::from(r#"{"a":1}"#);
        assert_eq!(noted(r#"{"a":1}"#, |_| seed(&copy)), None);
        // Armed for one text only: a later read of it is not noted.
        assert_eq!(
            noted(r#"{"k":{"j":1}}"#, |t| {
                seed(t);
                seed(t);
            }),
            Some(vec!["k".to_owned()])
        );
        assert_eq!(ARMED.get(), None);
    }
}
