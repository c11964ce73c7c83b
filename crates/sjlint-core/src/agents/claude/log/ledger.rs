//! The tokens of a session log, one meaning per count: Claude Code writes one record per
//! content block, and each block of one API response repeats its usage under the same
//! `message.id` and `requestId`; early blocks carry a partial `output_tokens`. A response is
//! counted once, with the copy whose `output_tokens` is greatest (the format notes, §5).
//!
//! Copies of one response are written together, so a window of the [`WINDOW`] most recent
//! keys finds them: a key leaving the window is committed (its usage is final), and so is every
//! key left at the end. Keys are hashes, so a record costs no allocation. It must not report
//! anything.

use crate::vocab::Tokens;
use std::hash::{DefaultHasher, Hash, Hasher};

/// How many responses are held open at once.
pub(super) const WINDOW: usize = 64;

/// One response held open: its key, its usage so far, and the line, time and model of the
/// copy kept.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    key: u64,
    pub(super) tokens: Tokens,
    pub(super) line: u64,
    pub(super) ms: Option<u64>,
    /// The model, as an index into the log's models (see `Validator::model`).
    pub(super) model: Option<u16>,
}

impl Held {
    /// A copy of a response's usage, on `line`, written at `ms`, by `model`.
    pub(super) fn new(tokens: Tokens, line: u64, ms: Option<u64>, model: Option<u16>) -> Held {
        Held {
            key: 0,
            tokens,
            line,
            ms,
            model,
        }
    }
}

/// The responses held open, oldest first.
#[derive(Default)]
pub(super) struct Ledger {
    held: std::collections::VecDeque<Held>,
}

impl Ledger {
    /// A copy of the usage of the response `(id, request)` on `line`: kept when it is the first
    /// or its `output_tokens` are the greatest so far. A response without an id is its own
    /// (nothing tells its copies apart). Returns the response that left the window to make room,
    /// whose usage is final.
    pub(super) fn copy(
        &mut self,
        id: Option<&str>,
        request: Option<&str>,
        held: Held,
    ) -> Option<Held> {
        let held = Held {
            key: key(id, request, held.line),
            ..held
        };
        if let Some(h) = self.held.iter_mut().find(|h| h.key == held.key) {
            if held.tokens.output > h.tokens.output {
                *h = held;
            }
            return None;
        }
        let gone = if self.held.len() >= WINDOW {
            self.held.pop_front()
        } else {
            None
        };
        self.held.push_back(held);
        gone
    }

    /// The responses still held, oldest first: the input ended.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = Held> + '_ {
        self.held.drain(..)
    }
}

/// The key of a response; a record without an id gets one of its own (its line).
fn key(id: Option<&str>, request: Option<&str>, line: u64) -> u64 {
    let mut h = DefaultHasher::new();
    match id {
        Some(id) => {
            id.hash(&mut h);
            request.hash(&mut h);
        }
        None => line.hash(&mut h),
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
    fn a_response_counts_once_with_its_greatest_output() {
        let mut l = Ledger::default();
        assert!(
            l.copy(Some("m"), Some("r"), Held::new(t(5, 1), 1, None, None))
                .is_none()
        );
        assert!(
            l.copy(Some("m"), Some("r"), Held::new(t(5, 9), 2, None, None))
                .is_none()
        );
        assert!(
            l.copy(Some("m"), Some("r"), Held::new(t(5, 3), 3, None, None))
                .is_none()
        );
        // Another request of the same message id is another response.
        assert!(
            l.copy(Some("m"), Some("q"), Held::new(t(2, 2), 4, None, None))
                .is_none()
        );
        let all: Vec<Held> = l.drain().collect();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].tokens, all[0].line), (t(5, 9), 2));
        assert_eq!(all[1].tokens, t(2, 2));
    }

    #[test]
    fn the_oldest_response_is_committed_when_the_window_is_full() {
        let mut l = Ledger::default();
        for i in 0..WINDOW as u64 {
            assert!(
                l.copy(
                    Some(&i.to_string()),
                    None,
                    Held::new(t(i, 1), i, None, None)
                )
                .is_none()
            );
        }
        let gone = l
            .copy(Some("new"), None, Held::new(t(0, 1), 99, None, None))
            .expect("one leaves");
        assert_eq!(gone.line, 0);
        assert_eq!(l.drain().count(), WINDOW);
        // Records without an id are each their own response.
        assert!(
            l.copy(None, None, Held::new(t(1, 1), 1, None, None))
                .is_none()
        );
        assert!(
            l.copy(None, None, Held::new(t(1, 1), 2, None, None))
                .is_none()
        );
        assert_eq!(l.drain().count(), 2);
    }
}
