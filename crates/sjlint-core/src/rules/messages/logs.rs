//! The wording of the rules of session logs (the transcripts agents keep on disk):
//! `dangling-parent`.

use super::Message;
use crate::rules::Rule;
use crate::text::Excerpt;

/// `dangling-parent`: a record of `agent`'s session log names `parent` in its `parentUuid`,
/// which no record before it in the file has as its `uuid`.
#[cold]
pub fn dangling_parent(agent: &str, parent: &str) -> Message {
    Message::helped(
        Rule::DanglingParent,
        format!(
            "`parentUuid` {:?} names no record before it in the file",
            Excerpt(parent)
        ),
        format!(
            "{agent} links each record to the one before it in the same file; a record the chain names but the file lacks was lost or edited away (a resumed session starts its chain in another file under a new `sessionId`, which is not reported)"
        ),
    )
}

/// `dangling-parent`, said once: the file has more records with a `uuid` than the check keeps
/// (`max`), so the `parentUuid` of the records after them is not checked.
#[cold]
pub fn chain_unchecked(agent: &str, max: usize) -> Message {
    Message::helped(
        Rule::DanglingParent,
        format!(
            "more than {max} records of this {agent} file have a `uuid`; the `parentUuid` of the records from here on is not checked"
        ),
        "the check keeps a bounded number of the ids it has seen, so that a log of any size is read in the same memory".to_owned(),
    )
}
