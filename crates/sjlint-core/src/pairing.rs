//! The bounds of pairing state: how many tool calls and interaction queries are kept open at
//! once, and how much of each id is kept.
//!
//! Every consumer that pairs a `started` with its `completed` (the validator, `stats`, `render`,
//! `fmt`) keeps one entry per open call. A hostile stream can open calls without end, or give
//! them ids of megabytes, so each of them keeps at most [`CheckOptions::max_open_calls`] entries per
//! session, and keys them by [`key_of`]: a short id as it is, a long one as a bounded prefix plus
//! a hash keyed at random per process (so no input can make two ids share a key). An entry then
//! costs a few hundred bytes whatever the ids, and the state of a session is bounded by the
//! budget. This module owns that key and its spelling in messages; it must not decide what
//! happens when the budget is spent (each consumer does).
//!
//! [`CheckOptions::max_open_calls`]: crate::check::CheckOptions::max_open_calls

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
}
