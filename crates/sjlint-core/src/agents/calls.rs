//! The open tool calls of one agent's stream, by id, and the finding for a call that never
//! closes.
//!
//! This module owns [`Calls`]: bounded in every direction (open calls, id length, remembered
//! ids, tool names, the start of each started record kept for the finding) so that a hostile
//! stream cannot grow it, and reusing the keys and kept starts of closed calls so that a steady
//! stream of calls allocates nothing. It knows nothing of any agent's events:
//! the agents' checkers say what opens and what closes.

use super::{Emit, MAX_KNOWN_IDS, id_prefix};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::messages::{self, Id, Pairing};
use std::collections::HashMap;

/// One open tool call.
#[derive(Clone, Copy, Debug)]
pub struct OpenCall {
    pub line: u64,
    /// Where the record that started it begins.
    pub start: Position,
    /// The tool's name or item type, as an index into [`Calls`]' names.
    name: u32,
    /// When it started, in milliseconds since the epoch, when the stream says.
    pub start_ms: Option<u64>,
}

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// At most this many distinct tool names are kept; the ones beyond are named `(other)`.
const MAX_NAMES: usize = 256;

/// Most bytes kept of the record that started a call, for the snippet of
/// `unfinished-tool-call`: the record's start up to a little past the call's id, when the id
/// lies within them.
const HEAD_BYTES: usize = 512;
/// Bytes kept past the id, and kept in all when the id lies beyond [`HEAD_BYTES`].
const PAST_ID: usize = 60;

/// An open call with the start of the record that started it.
struct Entry {
    call: OpenCall,
    head: Vec<u8>,
}

/// A call that never completed, as [`Calls::drain`] gives it.
pub struct Unfinished {
    pub id: String,
    pub call: OpenCall,
    pub name: String,
    /// The start of the record that started it (at most [`HEAD_BYTES`], whole characters).
    pub head: Vec<u8>,
}

/// The open tool calls of a stream, by id, bounded: at most `--max-open-calls` entries, each
/// id at most [`MAX_ID_BYTES`](super::MAX_ID_BYTES) bytes. The keys of closed calls are kept for the next ones and
/// the tool names once each, so that a steady stream of calls allocates nothing.
#[derive(Default)]
pub struct Calls {
    open: Map<String, Entry>,
    spare: Vec<String>,
    /// The `head`s of closed calls, for the next calls'.
    spare_heads: Vec<Vec<u8>>,
    names: Vec<Box<str>>,
    /// Hashes of the ids seen (open or closed), bounded, oldest forgotten first.
    known: Set<u64>,
    known_order: std::collections::VecDeque<u64>,
    /// The budget of open calls was exceeded (reported once until the calls are drained).
    pub overflowed: bool,
    /// The most calls kept open (`--max-open-calls`; 0 until set: the default).
    max_open: usize,
    /// Line of the last record since the calls were last drained that could not be read (cut
    /// off, broken JSON, over the size limit). It may have been any event, so what its absence
    /// would cause is not reported: no unfinished call started before it, no orphan after it,
    /// no missing end when it came last.
    unreadable: Option<u64>,
}

/// What opening a call found.
pub enum Opened {
    Ok,
    /// The id is open already, since this line.
    AlreadyOpen(u64),
    /// The budget of open calls is spent: not tracked. The budget the first time since the
    /// calls were last drained (to be reported, see [`over_budget`]), `None` after.
    OverBudget(Option<usize>),
}

impl Opened {
    /// Reports what opening the call `id` found: `duplicate-call-id` (its record is the
    /// `pairing`'s opener) or the first time past the budget of open calls. Returns whether the
    /// call is open now.
    pub fn report(
        self,
        pairing: &Pairing<'_>,
        id: &str,
        pos: Position,
        bytes: &[u8],
        emit: Emit<'_>,
    ) -> bool {
        match self {
            Opened::Ok => true,
            Opened::AlreadyOpen(at) => {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::duplicate_call_id(pairing.opener, Id::Text(id), true, None),
                    )
                    .with_related(at, "opened here")
                    .with_snippet(bytes),
                );
                false
            }
            Opened::OverBudget(max) => {
                if let Some(d) = over_budget(pos, "tool calls", max) {
                    emit(d);
                }
                false
            }
        }
    }
}

fn id_hash(id: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x1d5).hash_one(id.as_bytes())
}

impl Calls {
    /// Keeps at most `n` calls open (`--max-open-calls`).
    pub fn set_max_open(&mut self, n: usize) {
        self.max_open = n.max(1);
    }

    /// The most calls kept open.
    pub fn max_open(&self) -> usize {
        if self.max_open == 0 {
            crate::pairing::DEFAULT_MAX_OPEN_CALLS
        } else {
            self.max_open
        }
    }

    /// Opens the call `id` of tool `name`, started by `record` at `pos`.
    pub fn open(&mut self, id: &str, pos: Position, record: &[u8], name: &str) -> Opened {
        self.open_at(id, pos, record, name, None)
    }

    /// [`Calls::open`], with the time the call started.
    pub fn open_at(
        &mut self,
        id: &str,
        pos: Position,
        record: &[u8],
        name: &str,
        start_ms: Option<u64>,
    ) -> Opened {
        let id = id_prefix(id);
        if let Some(e) = self.open.get(id) {
            return Opened::AlreadyOpen(e.call.line);
        }
        if self.open.len() >= self.max_open() {
            let first = !std::mem::replace(&mut self.overflowed, true);
            return Opened::OverBudget(first.then(|| self.max_open()));
        }
        self.remember(id);
        let name = self.name_index(name);
        let mut key = self.spare.pop().unwrap_or_default();
        key.clear();
        key.push_str(id);
        let head = head(&mut self.spare_heads, record, id);
        self.open.insert(
            key,
            Entry {
                call: OpenCall {
                    line: pos.line,
                    start: pos,
                    name,
                    start_ms,
                },
                head,
            },
        );
        Opened::Ok
    }

    fn name_index(&mut self, name: &str) -> u32 {
        let name = id_prefix(name);
        if let Some(i) = self.names.iter().position(|n| &**n == name) {
            return i as u32;
        }
        if self.names.len() >= MAX_NAMES {
            return self.name_index("(other)");
        }
        self.names.push(name.into());
        (self.names.len() - 1) as u32
    }

    /// The tool name of an open (or just closed) call.
    pub fn name(&self, call: &OpenCall) -> &str {
        self.names.get(call.name as usize).map_or("?", |n| n)
    }

    /// Closes `id`; the call when it was open.
    pub fn close(&mut self, id: &str) -> Option<OpenCall> {
        let (key, entry) = self.open.remove_entry(id_prefix(id))?;
        if self.spare.len() < 64 {
            self.spare.push(key);
            self.spare_heads.push(entry.head);
        }
        Some(entry.call)
    }

    pub fn is_open(&self, id: &str) -> bool {
        self.open.contains_key(id_prefix(id))
    }

    /// The open call `id`, if it is open.
    pub fn get(&self, id: &str) -> Option<&OpenCall> {
        self.open.get(id_prefix(id)).map(|e| &e.call)
    }

    /// Whether `id` was ever opened (as far as the bounded memory goes); `None` when the memory
    /// has forgotten ids, so the answer for an unknown id is not sure.
    pub fn was_seen(&self, id: &str) -> Option<bool> {
        let id = id_prefix(id);
        if self.known.contains(&id_hash(id)) || self.open.contains_key(id) {
            Some(true)
        } else if self.known_order.len() >= MAX_KNOWN_IDS {
            None
        } else {
            Some(false)
        }
    }

    /// Forgets the ids seen so far (a new run's ids are its own).
    pub fn forget_seen(&mut self) {
        self.known.clear();
        self.known_order.clear();
    }

    fn remember(&mut self, id: &str) {
        let h = id_hash(id);
        if !self.known.insert(h) {
            return;
        }
        if self.known_order.len() >= MAX_KNOWN_IDS
            && let Some(old) = self.known_order.pop_front()
        {
            self.known.remove(&old);
        }
        self.known_order.push_back(h);
    }

    /// A record on `line` could not be read.
    pub fn on_unreadable(&mut self, line: u64) {
        self.unreadable = Some(line);
    }

    /// Whether a record that could not be read came after `line` (the last one read): it may
    /// have been the end that is missing.
    pub fn unreadable_after(&self, line: u64) -> bool {
        self.unreadable.is_some_and(|u| u > line)
    }

    /// Whether a record that could not be read came since the calls were last drained: a
    /// completion with no start may have been started in it.
    pub fn unreadable_seen(&self) -> bool {
        // Past the budget of open calls, a completion may be of a call that was not tracked.
        self.unreadable.is_some() || self.overflowed
    }

    /// Takes every open call that is unfinished, in the order of their lines, with its id and
    /// tool name: those started before a record that could not be read may have completed in
    /// it, and are left out.
    pub fn drain(&mut self) -> Vec<Unfinished> {
        let after = self.unreadable.take().unwrap_or(0);
        self.overflowed = false;
        let mut all: Vec<_> = self
            .open
            .drain()
            .filter(|(_, e)| e.call.line > after)
            .map(|(id, e)| {
                let name = self
                    .names
                    .get(e.call.name as usize)
                    .map_or("?", |n| n)
                    .to_owned();
                Unfinished {
                    id,
                    call: e.call,
                    name,
                    head: e.head,
                }
            })
            .collect();
        all.sort_by_key(|u| u.call.line);
        all
    }

    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// The open calls for [`Progress::open_calls`].
    pub fn listed(&self) -> Vec<(String, u64, String)> {
        let mut v: Vec<_> = self
            .open
            .iter()
            .map(|(id, e)| (id.clone(), e.call.line, self.name(&e.call).to_owned()))
            .collect();
        v.sort_by_key(|(_, line, _)| *line);
        v
    }
}

/// The finding for a call that opened but never closed (`pairing` says how the agent's calls
/// pair): it points at the record that started it, its id marked when the kept start of that
/// record holds it.
#[cold]
pub fn unfinished(call: &Unfinished, pairing: &Pairing<'_>) -> Diagnostic {
    let d = Diagnostic::from_message(
        call.call.start,
        messages::unfinished_tool_call(Id::Text(&call.id), Some(&call.name), pairing, None),
    );
    let head = &call.head[..];
    let id = call.id.as_bytes();
    match memchr::memmem::find_iter(head, id).find(|&at| at_quotes(head, at, at + id.len())) {
        Some(at) => d.at(head, at - 1..at + id.len() + 1),
        None => d.with_snippet(head),
    }
}

/// Whether `text[start..end]` is a whole JSON string's content: quotes on both sides.
fn at_quotes(text: &[u8], start: usize, end: usize) -> bool {
    start > 0 && text.get(start - 1) == Some(&b'"') && text.get(end) == Some(&b'"')
}

/// `too-many-open-calls`: a call opened past the budget of open calls (`max`,
/// `--max-open-calls`); `what` names the calls ("tool calls", "items"). Said once until the
/// calls are drained (the session ends), as for cursor-agent.
#[cold]
pub fn over_budget(pos: Position, what: &str, max: Option<usize>) -> Option<Diagnostic> {
    let max = max?;
    Some(Diagnostic::from_message(
        pos,
        messages::too_many_open_calls(max, what),
    ))
}

/// The start of `record`'s first line up to [`PAST_ID`] bytes past `id` when `id` is read in
/// place within the first [`HEAD_BYTES`] (else the first [`PAST_ID`] bytes), ending on a whole
/// character, in a buffer taken from `spare` (a new one only when `spare` is empty). Where the id
/// lies is known from its address, and the record was checked as UTF-8 when it was read: no
/// search and no validation per call, only the copy.
fn head(spare: &mut Vec<Vec<u8>>, record: &[u8], id: &str) -> Vec<u8> {
    let base = record.as_ptr() as usize;
    let id_start = (id.as_ptr() as usize).wrapping_sub(base);
    let id_end = id_start.wrapping_add(id.len());
    let keep = if id_end <= record.len().min(HEAD_BYTES) {
        id_end + 1 + PAST_ID
    } else {
        PAST_ID
    };
    let mut cut = &record[..record.len().min(keep)];
    if let Some(lf) = memchr::memchr(b'\n', cut) {
        cut = &cut[..lf];
    } else if cut.len() < record.len() {
        // Not past the middle of a character: back over its continuation bytes.
        let mut end = cut.len();
        while end > 0 && record[end] & 0xC0 == 0x80 {
            end -= 1;
        }
        cut = &cut[..end];
    }
    let mut kept = spare.pop().unwrap_or_default();
    kept.clear();
    kept.extend_from_slice(cut);
    kept
}

/// A place known by its line alone (a call's start, a session's end): no record and no byte
/// are claimed (`null` in the json formats, not a made-up `0`).
pub fn line_pos(line: u64) -> Position {
    Position {
        byte: crate::diagnostic::UNKNOWN_BYTE,
        line,
        record: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::MAX_ID_BYTES;

    #[test]
    fn the_kept_start_of_a_record_ends_on_a_whole_character() {
        let record = format!("{{\"id\":\"c1\",\"text\":\"{}\"}}", "é".repeat(100));
        let id_at = record.find("c1").unwrap();
        let id = &record[id_at..id_at + 2];
        let kept = head(&mut Vec::new(), record.as_bytes(), id);
        let text = std::str::from_utf8(&kept).expect("whole characters");
        assert!(text.len() <= id_at + 2 + 1 + PAST_ID && text.len() > id_at + 2);
        assert!(record.starts_with(text));
        // An id not read in place (unescaped elsewhere): the first bytes only.
        let copy = String::from("c1");
        let kept = head(&mut Vec::new(), record.as_bytes(), &copy);
        assert!(kept.len() <= PAST_ID && std::str::from_utf8(&kept).is_ok());
    }

    #[test]
    fn ids_are_bounded() {
        let long = "é".repeat(300);
        assert!(id_prefix(&long).len() <= MAX_ID_BYTES);
        let mut calls = Calls::default();
        assert!(matches!(
            calls.open(&long, line_pos(1), b"{}", "x"),
            Opened::Ok
        ));
        assert!(calls.close(&long).is_some());
    }
}
