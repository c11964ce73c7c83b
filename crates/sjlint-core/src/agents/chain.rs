//! The chain of a session log: every record with an id (Claude Code's `uuid`, Pi's and Copilot
//! CLI's `id`) may be named by a later record's parent (`parentUuid`, `parentId`). This module
//! keeps what was seen, bounded, answers whether a parent was, and words the findings of the
//! chain (`Link`); the session logs' checkers decide when a parent is to be checked and emit them.
//!
//! Ids are kept as 64-bit hashes (the standard hasher with fixed keys), never as text: a hash costs no
//! allocation per record and eight bytes of the set. A collision can only hide a dangling
//! parent, never invent one. Past [`MAX_IDS`] ids the set stops growing and the check stops,
//! which its owner says once ([`Link::full`]). It must not emit anything itself.

use crate::agents::Agent;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::Severity;
use crate::rules::messages;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};

/// At most this many ids are kept (some 16 MiB of set at most).
pub(crate) const MAX_IDS: usize = 1 << 20;

/// The ids of the records seen so far.
#[derive(Default)]
pub(crate) struct Chain {
    /// Hashes of the `uuid`s seen, at most [`MAX_IDS`] of them.
    seen: HashSet<u64, BuildHasherDefault<Passthrough>>,
    /// The set is full: no parent is checked any more.
    full: bool,
}

/// What [`Chain::parent`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Parent {
    /// Seen before, or not checked (the set was full before it).
    Known,
    /// Named by no record before.
    Dangling,
}

impl Chain {
    /// A record's own `uuid`: later records may name it. `false` once the set is full (the
    /// first time it fills, the caller says so).
    pub(crate) fn record(&mut self, uuid: &str) -> bool {
        if self.full {
            return false;
        }
        if self.seen.len() >= MAX_IDS {
            self.full = true;
            return false;
        }
        self.seen.insert(hash(uuid));
        true
    }

    /// Whether `parent` names a record seen before.
    pub(crate) fn parent(&self, parent: &str) -> Parent {
        if self.full || self.seen.contains(&hash(parent)) {
            Parent::Known
        } else {
            Parent::Dangling
        }
    }
}

/// The keys a log chains its records by, and whose log it is: what the findings say.
pub(crate) struct Link {
    /// The log's line of the registry.
    pub(crate) agent: Agent,
    /// The key of a record's own id (`uuid`).
    pub(crate) id: &'static str,
    /// The key naming its parent (`parentUuid`), the path its value is located by.
    pub(crate) parent: &'static str,
    /// Why a parent may be missing without a defect, for the finding's help.
    pub(crate) note: &'static str,
}

impl Link {
    /// `dangling-parent`: the record's parent names no record before it.
    #[cold]
    pub(crate) fn dangling(&self, pos: Position, bytes: &[u8], parent: &str) -> Diagnostic {
        let d = Diagnostic::from_message(
            pos,
            messages::dangling_parent(self.agent.display_name(), self.parent, parent, self.note),
        );
        match crate::locate::value(bytes, &[self.parent]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        }
    }

    /// The chain is too long to keep: said once, as information.
    #[cold]
    pub(crate) fn full(&self, pos: Position) -> Diagnostic {
        let mut d = Diagnostic::from_message(
            pos,
            messages::chain_unchecked(self.agent.display_name(), self.id, self.parent, MAX_IDS),
        );
        d.severity = Severity::Info;
        d
    }
}

/// The key an id is kept by.
pub(crate) fn hash(id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// The set's hasher: its keys are hashes already.
#[derive(Default)]
struct Passthrough(u64);

impl Hasher for Passthrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_is_known_once_its_record_was_seen() {
        let mut c = Chain::default();
        assert_eq!(c.parent("a"), Parent::Dangling);
        assert!(c.record("a"));
        assert_eq!(c.parent("a"), Parent::Known);
        assert_eq!(c.parent("b"), Parent::Dangling);
    }

    #[test]
    fn a_full_chain_stops_checking() {
        let mut c = Chain::default();
        for i in 0..MAX_IDS {
            assert!(c.record(&i.to_string()));
        }
        assert!(!c.record("one more"));
        assert_eq!(c.parent("never seen"), Parent::Known);
    }
}
