//! The tokens of a chat, one meaning per count. Gemini CLI appends a message again each time
//! it changes (its tokens arrive, a tool's result lands): the last copy of an id is the one
//! that counts, once. A message rewound away was billed all the same, and still counts.
//!
//! Copies of one message come close together, so a window of the [`WINDOW`] most recent ids
//! holds them: an id leaving the window is committed, and so is every id left at the end. A
//! committed id is remembered (a hash, at most [`MAX_IDS`] of them), so that a copy that comes
//! later still counts nothing. It must not report anything.

use crate::vocab::Tokens;
use std::collections::{HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

/// How many messages are held open at once.
pub(super) const WINDOW: usize = 64;
/// At most this many committed ids are remembered.
pub(super) const MAX_IDS: usize = 1 << 20;

/// One message's usage: the copy kept and where it was.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    key: u64,
    pub(super) tokens: Tokens,
    pub(super) line: u64,
    pub(super) ms: Option<u64>,
}

/// The messages held open, oldest first, and the ids committed.
#[derive(Default)]
pub(super) struct Ledger {
    held: VecDeque<Held>,
    done: HashSet<u64>,
}

impl Ledger {
    /// A copy of message `id`'s usage on `line`: it replaces the copy held. A message without
    /// an id is its own. Returns the message that left the window to make room, now final.
    pub(super) fn copy(
        &mut self,
        id: Option<&str>,
        tokens: Tokens,
        line: u64,
        ms: Option<u64>,
    ) -> Option<Held> {
        let key = key(id, line);
        if self.done.contains(&key) {
            return None;
        }
        let held = Held {
            key,
            tokens,
            line,
            ms,
        };
        if let Some(h) = self.held.iter_mut().find(|h| h.key == key) {
            *h = held;
            return None;
        }
        let gone = if self.held.len() >= WINDOW {
            self.held.pop_front()
        } else {
            None
        };
        if let Some(g) = gone
            && self.done.len() < MAX_IDS
        {
            self.done.insert(g.key);
        }
        self.held.push_back(held);
        gone
    }

    /// The messages still held, oldest first: the input ended.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = Held> + '_ {
        self.held.drain(..)
    }
}

fn key(id: Option<&str>, line: u64) -> u64 {
    let mut h = DefaultHasher::new();
    match id {
        Some(id) => id.hash(&mut h),
        None => (line, u8::MAX).hash(&mut h),
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(input: u64, output: u64) -> Tokens {
        Tokens {
            input,
            output,
            ..Tokens::default()
        }
    }

    #[test]
    fn the_last_copy_of_a_message_counts_once() {
        let mut l = Ledger::default();
        assert!(l.copy(Some("m"), t(5, 0), 1, None).is_none());
        assert!(l.copy(Some("m"), t(5, 9), 2, None).is_none());
        assert!(l.copy(Some("n"), t(1, 1), 3, None).is_none());
        let all: Vec<Held> = l.drain().collect();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].tokens, all[0].line), (t(5, 9), 2));
    }

    #[test]
    fn a_copy_after_its_message_left_the_window_counts_nothing() {
        let mut l = Ledger::default();
        for i in 0..=WINDOW as u64 {
            let gone = l.copy(Some(&i.to_string()), t(i, 1), i, None);
            assert_eq!(gone.map(|g| g.line), (i == WINDOW as u64).then_some(0));
        }
        assert!(l.copy(Some("0"), t(7, 7), 99, None).is_none());
        assert_eq!(l.drain().count(), WINDOW);
    }
}
