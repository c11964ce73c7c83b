//! The bounds of pairing state: how many tool calls and interaction queries are kept open at
//! once, and how much of each id is kept.
//!
//! Every consumer that pairs a `started` with its `completed` (the validator, `stats`, `render`,
//! `fmt`) keeps one entry per open call. A hostile stream can open calls without end, or give
//! them ids of megabytes, so each of them keeps at most [`CheckOptions::max_open_calls`] entries per
//! session, and keys them by [`key_of`]: a short id as it is, a long one as a bounded prefix plus
//! a hash keyed at random per process (so no input can make two ids share a key). An entry then
//! costs a few hundred bytes whatever the ids, and the state of a session is bounded by the
//! budget. This module owns that key, its spelling in messages and [`Table`], the bounded table
//! of open entries by key that the consumers of common events (and cursor-agent's mapping into
//! them) pair with; it must not decide what happens when the budget is spent: [`Table::insert`]
//! says so and hands the entry back, and each consumer does what its output needs with it.
//!
//! [`CheckOptions::max_open_calls`]: crate::check::CheckOptions::max_open_calls

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// Tool calls and interaction queries kept open at once per session, unless `--max-open-calls`
/// says otherwise. Real runs have a handful open at once.
pub const DEFAULT_MAX_OPEN_CALLS: usize = 10_000;

/// Ids up to this many bytes are kept as they are; longer ones by a prefix about this long.
pub const ID_KEEP: usize = 96;

/// The separator of the parts of a long id's key: a short id never reaches this length, so a key
/// longer than [`ID_KEEP`] is always a long id's.
const SEP: char = '\u{0}';

fn hashers() -> &'static (std::hash::RandomState, std::hash::RandomState) {
    static KEYS: OnceLock<(std::hash::RandomState, std::hash::RandomState)> = OnceLock::new();
    KEYS.get_or_init(|| (std::hash::RandomState::new(), std::hash::RandomState::new()))
}

/// The key `id` is kept under: `id` itself when at most [`ID_KEEP`] bytes, else written into
/// `scratch` as its first bytes (cut at a character), a 128-bit hash of the whole id keyed at
/// random per process, and its length. Two different ids share a key with a chance of about
/// 2^-128 whatever they hold. Allocates only when `scratch` must grow.
pub fn key_of<'a>(id: &'a str, scratch: &'a mut String) -> &'a str {
    if id.len() <= ID_KEEP {
        return id;
    }
    let mut cut = ID_KEEP;
    while !id.is_char_boundary(cut) {
        cut -= 1;
    }
    let (a, b) = hashers();
    let (mut ha, mut hb) = (a.build_hasher(), b.build_hasher());
    ha.write(id.as_bytes());
    hb.write(id.as_bytes());
    scratch.clear();
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(
        scratch,
        "{}{SEP}{:016x}{:016x}{SEP}{}",
        &id[..cut],
        ha.finish(),
        hb.finish(),
        id.len()
    );
    scratch
}

/// A key of [`key_of`] as messages quote it: a short id quoted whole, a long one by its prefix
/// and its length, `"call_…"… (N bytes)`, the spelling of [`crate::text::Excerpt`].
pub struct ShownKey<'a>(pub &'a str);

impl fmt::Debug for ShownKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.0;
        if key.len() <= ID_KEEP {
            return fmt::Debug::fmt(key, f);
        }
        let mut parts = key.rsplitn(3, SEP);
        let len = parts.next().unwrap_or("");
        let _hash = parts.next();
        let prefix = parts.next().unwrap_or("");
        fmt::Debug::fmt(prefix, f)?;
        write!(f, "… ({len} bytes)")
    }
}

/// Keys of entries taken out, kept for the next ones so that a steady stream of calls allocates
/// no key; at most this many.
const SPARE_KEYS: usize = 64;

/// What [`Table::insert`] did with an entry.
#[derive(Debug, PartialEq, Eq)]
pub enum Opened<V> {
    /// It is open now.
    Kept,
    /// It is open now, in place of the entry its id had, handed back (a second start of an
    /// open id).
    Replaced(V),
    /// The budget is spent: it is not kept, and is handed back.
    Full(V),
}

/// Entries open at once (tool calls started and not yet ended), by [`key_of`] their id, at most
/// `max` of them: an id opens with [`Table::insert`], ends with [`Table::take`], and what is left
/// open when the session ends comes out of [`Table::drain`]. An entry costs its value and a key
/// of at most a few hundred bytes whatever the id; the keys of ended entries are reused.
pub struct Table<V> {
    map: HashMap<String, V, foldhash::fast::RandomState>,
    max: usize,
    /// Keys of entries taken out, for the next ones (at most [`SPARE_KEYS`]).
    spare: Vec<String>,
    /// Where the key of a long id is written; a `Cell` so that looking up takes `&self`.
    scratch: Cell<String>,
}

impl<V> Default for Table<V> {
    /// A table of at most [`DEFAULT_MAX_OPEN_CALLS`] entries.
    fn default() -> Table<V> {
        Table::new(DEFAULT_MAX_OPEN_CALLS)
    }
}

impl<V> Table<V> {
    /// A table of at most `max` entries (at least one).
    pub fn new(max: usize) -> Table<V> {
        Table {
            map: HashMap::default(),
            max: max.max(1),
            spare: Vec::new(),
            scratch: Cell::new(String::new()),
        }
    }

    /// The most entries kept at once.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Keeps at most `max` entries (at least one) from now on; entries open already stay.
    pub fn set_max(&mut self, max: usize) {
        self.max = max.max(1);
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// `f` of the key of `id`.
    fn with_key<R>(&self, id: &str, f: impl FnOnce(&str) -> R) -> R {
        let mut scratch = self.scratch.take();
        let r = f(key_of(id, &mut scratch));
        self.scratch.set(scratch);
        r
    }

    /// Opens `id` with `value`, unless the table is full: then nothing changes and `value` is
    /// handed back, whether `id` is open or not.
    pub fn insert(&mut self, id: &str, value: V) -> Opened<V> {
        if self.map.len() >= self.max {
            return Opened::Full(value);
        }
        let mut scratch = self.scratch.take();
        let key = key_of(id, &mut scratch);
        let opened = match self.map.get_mut(key) {
            Some(open) => Opened::Replaced(std::mem::replace(open, value)),
            None => {
                let mut owned = self.spare.pop().unwrap_or_default();
                owned.clear();
                owned.push_str(key);
                self.map.insert(owned, value);
                Opened::Kept
            }
        };
        self.scratch.set(scratch);
        opened
    }

    /// Whether `id` is open.
    pub fn contains(&self, id: &str) -> bool {
        self.with_key(id, |key| self.map.contains_key(key))
    }

    /// The entry of `id`, when it is open.
    pub fn get(&self, id: &str) -> Option<&V> {
        self.with_key(id, |key| self.map.get(key))
    }

    /// The entry of `id`, when it is open.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut V> {
        let mut scratch = self.scratch.take();
        let found = self.map.get_mut(key_of(id, &mut scratch));
        self.scratch.set(scratch);
        found
    }

    /// Ends `id`: its entry, when it was open.
    pub fn take(&mut self, id: &str) -> Option<V> {
        let mut scratch = self.scratch.take();
        let found = self.map.remove_entry(key_of(id, &mut scratch));
        self.scratch.set(scratch);
        let (key, value) = found?;
        if self.spare.len() < SPARE_KEYS {
            self.spare.push(key);
        }
        Some(value)
    }

    /// The entries open, in no particular order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.map.values_mut()
    }

    /// Ends every entry: those open, in no particular order.
    pub fn drain(&mut self) -> impl Iterator<Item = V> + '_ {
        let spare = &mut self.spare;
        self.map.drain().map(move |(key, value)| {
            if spare.len() < SPARE_KEYS {
                spare.push(key);
            }
            value
        })
    }

    /// Ends every entry, leaving their values.
    pub fn clear(&mut self) {
        self.drain().for_each(drop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_are_their_own_keys() {
        let mut scratch = String::new();
        assert_eq!(key_of("call_1", &mut scratch), "call_1");
        let edge = "x".repeat(ID_KEEP);
        assert_eq!(key_of(&edge, &mut scratch), edge);
        assert_eq!(format!("{:?}", ShownKey("call_1")), "\"call_1\"");
    }

    #[test]
    fn long_ids_are_kept_bounded_and_told_apart() {
        let (mut s1, mut s2) = (String::new(), String::new());
        let a = format!("{}a", "é".repeat(1_000_000));
        let b = format!("{}b", "é".repeat(1_000_000));
        let ka = key_of(&a, &mut s1).to_owned();
        let kb = key_of(&b, &mut s2).to_owned();
        assert!(ka.len() < 200 && kb.len() < 200);
        assert_ne!(ka, kb);
        assert_eq!(key_of(&a, &mut s2), ka);
        let shown = format!("{:?}", ShownKey(&ka));
        assert_eq!(
            shown,
            format!("\"{}\"… ({} bytes)", "é".repeat(ID_KEEP / 2), a.len())
        );
    }

    #[test]
    fn a_table_pairs_by_id_and_hands_back_what_it_does_not_keep() {
        let mut t = Table::new(2);
        assert_eq!(t.insert("a", 1), Opened::Kept);
        assert_eq!(t.insert("a", 2), Opened::Replaced(1));
        let long = format!("{}x", "é".repeat(100_000));
        assert_eq!(t.insert(&long, 3), Opened::Kept);
        // Full: a new id is not kept, nor is an open one replaced.
        assert_eq!(t.insert("b", 4), Opened::Full(4));
        assert_eq!(t.insert("a", 5), Opened::Full(5));
        assert_eq!(t.get("a"), Some(&2));
        assert!(t.contains(&long));
        assert!(!t.contains(&format!("{}y", "é".repeat(100_000))));
        assert_eq!(t.take(&long), Some(3));
        assert_eq!(t.take(&long), None);
        assert_eq!(t.insert("b", 4), Opened::Kept);
        let mut left: Vec<i32> = t.drain().collect();
        left.sort_unstable();
        assert_eq!(left, [2, 4]);
        assert!(t.is_empty());
        assert_eq!(Table::<()>::new(0).max(), 1);
    }

    #[test]
    fn a_table_of_huge_ids_keeps_short_keys() {
        let mut t = Table::new(1000);
        for i in 0..1000 {
            let id = format!("{i:04}{}", "x".repeat(1 << 16));
            assert_eq!(t.insert(&id, i), Opened::Kept);
        }
        assert!(t.map.keys().all(|k| k.len() < 200));
        assert_eq!(t.take(&format!("0999{}", "x".repeat(1 << 16))), Some(999));
        assert_eq!(t.len(), 999);
    }
}
