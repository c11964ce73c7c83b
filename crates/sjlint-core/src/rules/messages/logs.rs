//! The wording of the rules of session logs (the transcripts agents keep on disk):
//! `dangling-parent` (a parent the file lacks, or a fork of Copilot CLI's chain),
//! `token-total-drop`.

use super::Message;
use crate::rules::Rule;
use crate::text::Excerpt;

/// `dangling-parent`: a record of `agent`'s session log names `parent` in its `key`
/// (`parentUuid`, `parentId`), which no record before it in the file has as its id; `note` says
/// when a parent may be missing without a defect.
#[cold]
pub fn dangling_parent(agent: &str, key: &str, parent: &str, note: &str) -> Message {
    Message::helped(
        Rule::DanglingParent,
        format!(
            "`{key}` {:?} names no record before it in the file",
            Excerpt(parent)
        ),
        format!(
            "{agent} links each record to the one before it in the same file; a record the chain names but the file lacks was lost or edited away ({note})"
        ),
    )
}

/// `dangling-parent`, Copilot CLI's fork: a record of `agent`'s session log names in `key` the
/// earlier record `parent`, not the one just before it, so that the chain branches there
/// (said once a file).
#[cold]
pub fn chain_fork(agent: &str, key: &str, parent: &str, before: &str) -> Message {
    Message::helped(
        Rule::DanglingParent,
        format!(
            "`{key}` {:?} skips the record just before it ({:?}): the chain branches here (later branches of this file are not reported)",
            Excerpt(parent),
            Excerpt(before)
        ),
        format!(
            "{agent} links each event to the event written just before it (a system message or a hook may hang beside the chain); a record that names an earlier one leaves the records between on a branch of their own, as when lines were inserted or two files were joined"
        ),
    )
}

/// `dangling-parent`, said once: the file has more records with an `id` key than the check
/// keeps (`max`), so the `parent` key of the records after them is not checked.
#[cold]
pub fn chain_unchecked(agent: &str, id: &str, parent: &str, max: usize) -> Message {
    Message::helped(
        Rule::DanglingParent,
        format!(
            "more than {max} records of this {agent} file have a `{id}`; the `{parent}` of the records from here on is not checked"
        ),
        "the check keeps a bounded number of the ids it has seen, so that a log of any size is read in the same memory".to_owned(),
    )
}

/// `orphan-completion` said as information: an `assistant.message` of `agent`'s session log
/// requests the call `id`, which started before it.
#[cold]
pub fn requested_after_start(agent: &str, id: &str) -> Message {
    Message::helped(
        Rule::OrphanCompletion,
        format!(
            "this message requests the tool call {:?}, whose `tool.execution_start` came before it",
            Excerpt(id)
        ),
        format!(
            "{agent} writes the `assistant.message` that requests a call, then the call's start and completion; a start before its request means records were reordered or inserted by hand (the order is observed on its streams only, so this is information)"
        ),
    )
}

/// `token-total-drop`: a cumulative token total of `agent`'s session log is `to` tokens, below
/// the `from` of the total before it.
#[cold]
pub fn token_total_drop(agent: &str, from: u64, to: u64) -> Message {
    Message::helped(
        Rule::TokenTotalDrop,
        format!(
            "the cumulative token total drops from {from} to {to}: a second counter series begins, or a forked thread's replayed history"
        ),
        format!(
            "{agent} writes running totals; one file may interleave several (multi-agent threads, counts re-sent under another rate limit) or begin with the history of the thread it was forked from. Each series is counted from its own previous total, never twice"
        ),
    )
}
