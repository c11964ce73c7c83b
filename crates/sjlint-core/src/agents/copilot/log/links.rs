//! The `parentId` chain of a Copilot CLI session log: each event names the one written just
//! before it (`null` on the first) [notes §2, live file]. A parent no record before it has is
//! `dangling-parent`. A parent that is an earlier record, not the one just before, makes the
//! chain branch: said once a file (one fork is what tells; the branches after it add
//! nothing). A system message or a hook may hang beside the chain (the 0.0.4xx sample writes
//! them so), and the next event goes on from the last event on the chain: that is no fork.
//! A resume goes on with the same chain. The ids are kept by [`chain::Chain`], bounded.

use super::redacted;
use crate::agents::chain::{self, Chain, Link, Parent};
use crate::agents::copilot::Line;
use crate::agents::{Agent, Emit, id_prefix};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use crate::rules::messages;

/// The keys Copilot CLI's log chains its events by, for the findings.
const LINK: Link = Link {
    agent: Agent::CopilotLog,
    id: "id",
    parent: "parentId",
    note: "Copilot CLI chains each event to the one written just before it, and a resumed session goes on with the same chain in the same file",
};

/// Types written beside the chain as well as on it.
const BESIDE: &[&str] = &["system.message", "hook.start", "hook.end"];

/// The chain of one log.
#[derive(Default)]
pub(super) struct Links {
    ids: Chain,
    /// The record just before (hashed id), and its id (a bounded prefix) for the finding.
    previous: Option<u64>,
    previous_id: String,
    /// The last record on the chain, past the records beside it.
    tip: Option<u64>,
    /// A fork was said.
    forked: bool,
    /// The chain filled up, and that was said.
    full_said: bool,
}

impl Links {
    /// A record's place in the chain, from its `id` and `parentId`.
    pub(super) fn link(
        &mut self,
        pos: Position,
        bytes: &[u8],
        ty: &str,
        line: &Line<'_>,
        emit: Emit<'_>,
    ) {
        let Some(id) = line
            .id
            .text()
            .filter(|_| line.id.json_type() == Some(JsonType::String))
        else {
            return;
        };
        let parent = line
            .parent_id
            .text()
            .filter(|_| line.parent_id.json_type() == Some(JsonType::String));
        if let Some(parent) = parent.as_deref().filter(|p| !redacted(p)) {
            self.check(pos, bytes, ty, parent, emit);
        }
        if redacted(&id) {
            self.previous = None;
            return;
        }
        let key = chain::hash(&id);
        if !self.ids.record(&id) && !std::mem::replace(&mut self.full_said, true) {
            emit(LINK.full(pos));
        }
        self.previous = Some(key);
        self.previous_id.clear();
        self.previous_id.push_str(id_prefix(&id));
        if !BESIDE.contains(&ty) {
            self.tip = Some(key);
        }
    }

    fn check(&mut self, pos: Position, bytes: &[u8], ty: &str, parent: &str, emit: Emit<'_>) {
        if self.ids.parent(parent) == Parent::Dangling {
            emit(LINK.dangling(pos, bytes, parent));
            return;
        }
        let key = Some(chain::hash(parent));
        // The record before was redacted, or the chain is past its bound: nothing to compare.
        if self.previous.is_none() || self.full_said {
            return;
        }
        let on_chain = key == self.previous || (key == self.tip && !BESIDE.contains(&ty));
        if on_chain || std::mem::replace(&mut self.forked, true) {
            return;
        }
        let d = Diagnostic::from_message(
            pos,
            messages::chain_fork(
                Agent::CopilotLog.display_name(),
                "parentId",
                parent,
                &self.previous_id,
            ),
        );
        emit(super::at(d, bytes, &["parentId"]));
    }
}
