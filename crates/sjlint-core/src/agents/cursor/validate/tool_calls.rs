//! The tool-call rules: every `started` pairs with one `completed` of its `call_id` (same kind,
//! same `args`), every `interaction_query` request with one response of its `id`, within one
//! session, and no more of them open at once than `--max-open-calls`.
//!
//! It owns the pairing state of the current session ([`Pairing`]): open calls, open queries and
//! the call ids queries announced, keyed by [`key_of`] and bounded by the budget, with the
//! strings of ended entries kept for the next ones so that a steady stream allocates nothing. It
//! must not decide when a session ends: the lifecycle says so by calling [`Pairing::close`].

use super::schema::unknown_tool_kind;
use super::{Ctx, Map, Set};
use crate::agents::Agent;
use crate::agents::cursor::view::Event;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::Field;
use crate::locate;
use crate::pairing::key_of;
use crate::rules::messages::{self, Id, Orphan, Pairing as CallPairing};

/// How cursor-agent's tool calls pair, for the messages of the pairing rules.
const PAIRING: CallPairing<'static> = CallPairing {
    opener: "`tool_call`/`started`",
    closer: "`tool_call`/`completed`",
    key: "`call_id`",
    before: None,
};

struct OpenCall {
    line: u64,
    /// The tool kind it started with.
    kind: Option<KindRef>,
    args: Option<u64>,
    /// The start of the `started` record's first line (at most [`HEAD_BYTES`]), for the
    /// snippet of `unfinished-tool-call`; a string taken from `spare_heads` and put back there.
    head: String,
    /// Where the `started` record is: the finding points there.
    start: Position,
}

/// Bytes of a `started` record kept for the snippet of an unfinished call.
const HEAD_BYTES: usize = 160;

/// What is open in the current session: tool calls, interaction queries, announced call ids.
pub(super) struct Pairing {
    calls: Map<String, OpenCall>,
    /// The keys of calls that have completed, of queries that were answered and of announced ids
    /// that were let go, kept for the next keys of any of the three, so that a steady stream of
    /// calls and queries allocates nothing.
    spare_ids: Vec<String>,
    /// Tool kinds by name, for the open calls: a stream names a handful, a hostile one any number.
    kinds: Kinds,
    /// The `head`s of calls that have completed, kept for the next calls'.
    spare_heads: Vec<String>,
    /// `toolCallId`s announced by `interaction_query` requests that have not completed yet.
    announced: Set<String>,
    /// Open `interaction_query` requests by `id` (a number in its decimal form), with their lines.
    queries: Map<String, Position>,
    /// Most entries of `calls`, `queries` and `announced` together (`--max-open-calls`).
    pub(super) max_open: usize,
    /// The budget was spent in this session: said once, and completions and responses that
    /// find no entry are no longer orphans for sure.
    over_budget: bool,
    /// Where the key of a long id is written (`pairing::key_of`).
    scratch: String,
}

impl Pairing {
    pub(super) fn new() -> Pairing {
        Pairing {
            calls: Map::default(),
            spare_ids: Vec::new(),
            kinds: Kinds::default(),
            spare_heads: Vec::new(),
            announced: Set::default(),
            queries: Map::default(),
            max_open: crate::pairing::DEFAULT_MAX_OPEN_CALLS,
            over_budget: false,
            scratch: String::new(),
        }
    }

    /// Entries of pairing state held now.
    fn open_entries(&self) -> usize {
        self.calls.len() + self.queries.len() + self.announced.len()
    }

    /// A `tool_call`/`started`: the call opens, unless its id is open already.
    pub(super) fn started(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
    ) {
        let Some(id) = ev.call_id.as_str() else {
            return;
        };
        let key = key_of(id, &mut self.scratch);
        if duplicate_call_id(ctx, &self.calls, key, id) {
            return;
        }
        if !self.announced.is_empty()
            && let Some(key) = self.announced.take(key)
        {
            self.spare_ids.push(key);
        }
        if self.open_entries() >= self.max_open {
            too_many_open_calls(ctx, &mut self.over_budget, self.max_open);
            return;
        }
        let kind = ev.tool_call.kind.as_deref().map(|k| self.kinds.intern(k));
        let key = spare_key(&mut self.spare_ids, key_of(id, &mut self.scratch));
        self.calls.insert(
            key,
            OpenCall {
                line: ctx.pos.line,
                kind,
                args: ev.tool_call.args.map(|a| hash(a.get().as_bytes())),
                head: head(&mut self.spare_heads, ctx.bytes),
                start: ctx.pos,
            },
        );
    }

    /// A `tool_call`/`completed`: the call it ends closes, and must repeat its start's kind and
    /// `args`. `unreadable`: a record of the session could not be read.
    pub(super) fn completed(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
        unreadable: bool,
    ) {
        let Some(id) = ev.call_id.as_str() else {
            return;
        };
        let kind = ev.tool_call.kind.as_deref();
        let key = key_of(id, &mut self.scratch);
        let open = self.calls.remove_entry(key).map(|(key, mut open)| {
            self.spare_ids.push(key);
            self.spare_heads.push(std::mem::take(&mut open.head));
            open
        });
        let done = kind.map(|k| (k, self.kinds.find(k)));
        // An unknown kind is said once per call, on its `started`; a completion says it only when
        // it names a kind its start did not.
        if let Some((kind, found)) = done
            && open.as_ref().and_then(|o| o.kind) != Some(found)
        {
            unknown_tool_kind(ctx, kind);
        }
        let Some(open) = open else {
            self.orphan_completion(ctx, id, unreadable);
            return;
        };
        if !self.tool_kind_mismatch(ctx, id, &open, done) {
            tool_args_mismatch(ctx, id, &open, ev);
        }
    }

    /// `orphan-completion`: a completion of a call that was neither started nor announced.
    fn orphan_completion(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        id: &str,
        unreadable: bool,
    ) {
        if let Some(key) = self.announced.take(key_of(id, &mut self.scratch)) {
            self.spare_ids.push(key);
        } else if self.over_budget || unreadable {
            // Its `started` may have been a record that could not be read, or one past the
            // budget that was not kept.
        } else {
            let d = Diagnostic::from_message(
                ctx.pos,
                messages::orphan_completion(&Orphan {
                    agent: Agent::Cursor.display_name(),
                    record: PAIRING.closer,
                    id: Some(Id::Text(id)),
                    again: false,
                    opener: PAIRING.opener,
                    closer: PAIRING.closer,
                    key: Some(PAIRING.key),
                    note: Some(
                        "an `interaction_query` request whose `args.toolCallId` names the call opens it too",
                    ),
                }),
            );
            ctx.emit_at(d, &["call_id"], false);
        }
    }

    /// `tool-kind-mismatch`: the completion names another kind than its start. Whether it did.
    fn tool_kind_mismatch(
        &self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        id: &str,
        open: &OpenCall,
        done: Option<(&str, KindRef)>,
    ) -> bool {
        let (Some(started), Some((done, found))) = (open.kind, done) else {
            return false;
        };
        if started == found {
            return false;
        }
        let d = Diagnostic::from_message(
            ctx.pos,
            messages::tool_kind_mismatch(
                id,
                self.kinds.name(started),
                open.line,
                "completes",
                done,
            ),
        );
        ctx.emit_at(d, &["tool_call", done], false);
        true
    }

    /// An `interaction_query`/`request`: the query opens, and the call id it announces may
    /// complete without a `started`.
    pub(super) fn query_requested(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
    ) {
        let mut digits = IdDigits::default();
        if let Some(id) = digits.key(&ev.query.id) {
            let full = self.open_entries() >= self.max_open;
            let id = key_of(id, &mut self.scratch);
            // A repeated id keeps its key and takes the later line, as `insert` would.
            match self.queries.get_mut(id) {
                Some(open) => *open = ctx.pos,
                None if full => too_many_open_calls(ctx, &mut self.over_budget, self.max_open),
                None => {
                    let key = spare_key(&mut self.spare_ids, id);
                    self.queries.insert(key, ctx.pos);
                }
            }
        }
        if let Some(call) = ev.query.tool_call_id.as_deref() {
            let full = self.open_entries() >= self.max_open;
            let call = key_of(call, &mut self.scratch);
            if self.announced.contains(call) {
            } else if full {
                too_many_open_calls(ctx, &mut self.over_budget, self.max_open);
            } else {
                let key = spare_key(&mut self.spare_ids, call);
                self.announced.insert(key);
            }
        }
    }

    /// `orphan-query-response`: an `interaction_query`/`response` whose `id` no open request
    /// has; otherwise the query closes. `unreadable`: a record of the session could not be read.
    pub(super) fn orphan_query_response(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
        unreadable: bool,
    ) {
        let mut digits = IdDigits::default();
        let Some(id) = digits.key(&ev.response.id) else {
            return;
        };
        match self.queries.remove_entry(key_of(id, &mut self.scratch)) {
            Some((key, _)) => self.spare_ids.push(key),
            None if unreadable => {}
            // Past the budget, the request may be one that was not kept.
            None if self.over_budget => {}
            None => {
                let d = Diagnostic::from_message(ctx.pos, messages::orphan_query_response(id));
                ctx.emit_at(d, &["response", "id"], true);
            }
        }
    }

    /// The session ended: calls still open are unfinished and queries unanswered, except those
    /// opened before line `unreadable` (a record that could not be read, which may have ended
    /// them; 0 when none).
    pub(super) fn close(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, unreadable: u64) {
        self.unfinished_tool_calls(ctx, unreadable);
        self.unanswered_queries(ctx, unreadable);
        // Ids announced for calls that then started and completed stay until here.
        self.spare_ids.extend(self.announced.drain());
        self.over_budget = false;
    }

    /// `unfinished-tool-call`, for each call still open, in the order they started.
    fn unfinished_tool_calls(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        unreadable: u64,
    ) {
        let mut open: Vec<(u64, String, String, Position)> = self
            .calls
            .drain()
            .map(|(id, c)| (c.line, id, c.head, c.start))
            .collect();
        open.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        for (line, id, head, start) in open {
            if line >= unreadable {
                let d = Diagnostic::from_message(
                    start,
                    messages::unfinished_tool_call(
                        Id::Key(&id),
                        None,
                        &CallPairing {
                            before: Some("its session's `result`"),
                            ..PAIRING
                        },
                        Some("was the agent stopped while the tool ran, or the event lost?"),
                    ),
                );
                // The started record, its call id marked when it lies within what was kept.
                let bytes = head.as_bytes();
                ctx.emit(match locate::in_any_dialect(bytes, &["call_id"], true) {
                    Some(span) => d.at(bytes, span),
                    None => d.with_snippet(bytes),
                });
            }
            self.spare_ids.push(id);
            self.spare_heads.push(head);
        }
    }

    /// `unanswered-query`, for each query still open, in the order they were requested.
    fn unanswered_queries(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        unreadable: u64,
    ) {
        let mut queries: Vec<(u64, String, Position)> = self
            .queries
            .drain()
            .map(|(id, pos)| (pos.line, id, pos))
            .collect();
        queries.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        for (line, id, pos) in queries {
            if line < unreadable {
                self.spare_ids.push(id);
                continue;
            }
            // On the request: its record and byte, as for a call that never completes.
            ctx.emit(Diagnostic::from_message(
                pos,
                messages::unanswered_query(Id::Key(&id)),
            ));
            self.spare_ids.push(id);
        }
    }
}

/// `duplicate-call-id`: a call is started again while it is open (`key` is its id's key).
/// Whether it was.
fn duplicate_call_id(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    calls: &Map<String, OpenCall>,
    key: &str,
    id: &str,
) -> bool {
    let Some(open) = calls.get(key) else {
        return false;
    };
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::duplicate_call_id(PAIRING.opener, Id::Text(id), true, None),
    )
    .with_related(open.line, "first started here");
    ctx.emit_at(d, &["call_id"], false);
    true
}

/// `tool-args-mismatch`: the completion repeats `args` that differ from its start's.
fn tool_args_mismatch(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    id: &str,
    open: &OpenCall,
    ev: &Event<'_>,
) {
    if let (Some(started), Some(args)) = (open.args, ev.tool_call.args)
        && started != hash(args.get().as_bytes())
    {
        let d = Diagnostic::from_message(ctx.pos, messages::tool_args_mismatch(id, open.line));
        match ev.tool_call.kind.as_deref() {
            Some(k) => ctx.emit_at(d, &["tool_call", k, "args"], false),
            None => ctx.emit(d),
        }
    }
}

/// `too-many-open-calls`: the session has more calls and queries open than `max`
/// (`--max-open-calls`). Said once per session, at the record where it happens.
#[cold]
fn too_many_open_calls(ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, said: &mut bool, max: usize) {
    if std::mem::replace(said, true) {
        return;
    }
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::too_many_open_calls(max, "tool calls and interaction queries"),
    );
    ctx.emit(d);
}

/// The start of `record`'s first line, at most [`HEAD_BYTES`] and whole characters, in a
/// string taken from `spare` (a new one only when `spare` is empty).
fn head(spare: &mut Vec<String>, record: &[u8]) -> String {
    let line = memchr::memchr(b'\n', record).map_or(record, |i| &record[..i]);
    let cut = &line[..line.len().min(HEAD_BYTES)];
    crate::text::kept_prefix(spare, cut)
}

/// An owned copy of `id` in a string taken from `spare` (a new one only when `spare` is empty),
/// to be put back there when its entry goes.
fn spare_key(spare: &mut Vec<String>, id: &str) -> String {
    let mut key = spare.pop().unwrap_or_default();
    key.clear();
    key.push_str(id);
    key
}

/// Room for the decimal form of any `u64` or `i64`: at most 20 bytes, sign included.
#[derive(Default)]
struct IdDigits([u8; 20]);

impl IdDigits {
    /// An id as a map key: strings as they are, numbers in their decimal form (written here, so
    /// that looking a number up allocates nothing).
    fn key<'s>(&'s mut self, f: &'s Field<'_>) -> Option<&'s str> {
        let (negative, mut n) = match *f {
            Field::Str(ref s) => return Some(s),
            Field::UInt(n) => (false, n),
            Field::Int(n) => (n < 0, n.unsigned_abs()),
            _ => return None,
        };
        let mut at = self.0.len();
        loop {
            at -= 1;
            self.0[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        if negative {
            at -= 1;
            self.0[at] = b'-';
        }
        // Only ASCII digits and a sign were written.
        std::str::from_utf8(&self.0[at..]).ok()
    }
}

/// A fingerprint of a call's `args` text, to tell whether the completion repeats the start's.
/// Nothing is composed from it, so a fast fixed-seed hash serves better than
/// [`TextHash`](super::TextHash).
fn hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x5eed).hash_one(bytes)
}

/// Most tool kinds [`Kinds`] keeps by name, and most bytes of their names.
const MAX_KINDS: usize = 256;
const MAX_KIND_BYTES: usize = 64 << 10;

/// A tool kind, as [`Kinds`] knows it: by its place in the table, or, once the table is full, by
/// a hash keyed at random for this process (so no input can make two kinds equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KindRef {
    Named(u32),
    Hashed(u64),
}

/// The tool kinds seen, each once, found by hash. Bounded: past [`MAX_KINDS`] names or
/// [`MAX_KIND_BYTES`] of them, new kinds are kept as keyed hashes only, which still tell two kinds
/// apart but no longer name the one a call started with.
#[derive(Default)]
struct Kinds {
    index: Map<Box<str>, u32>,
    names: Vec<Box<str>>,
    bytes: usize,
    keyed: foldhash::quality::RandomState,
}

impl Kinds {
    /// `kind`, added by name while the table has room.
    fn intern(&mut self, kind: &str) -> KindRef {
        let found = self.find(kind);
        if let KindRef::Hashed(_) = found
            && self.names.len() < MAX_KINDS
            && self.bytes + kind.len() <= MAX_KIND_BYTES
        {
            let i = self.names.len() as u32;
            self.names.push(kind.into());
            self.index.insert(kind.into(), i);
            self.bytes += kind.len();
            return KindRef::Named(i);
        }
        found
    }

    /// `kind` as [`Kinds::intern`] gave it, without adding it.
    fn find(&self, kind: &str) -> KindRef {
        match self.index.get(kind) {
            Some(&i) => KindRef::Named(i),
            None => KindRef::Hashed(std::hash::BuildHasher::hash_one(&self.keyed, kind)),
        }
    }

    fn name(&self, kind: KindRef) -> Option<&str> {
        match kind {
            KindRef::Named(i) => Some(&self.names[i as usize]),
            KindRef::Hashed(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_ids_are_keyed_by_their_decimal_form() {
        for n in [0, 7, 10, 99, 1_000_000, u64::MAX] {
            let f = Field::UInt(n);
            assert_eq!(IdDigits::default().key(&f), Some(&*n.to_string()));
        }
        for n in [0, -1, -10, 42, i64::MIN, i64::MAX] {
            let f = Field::Int(n);
            assert_eq!(IdDigits::default().key(&f), Some(&*n.to_string()));
        }
        let f = Field::Str("q_7c1e".into());
        assert_eq!(IdDigits::default().key(&f), Some("q_7c1e"));
        assert_eq!(IdDigits::default().key(&Field::Float(1.5)), None);
        assert_eq!(IdDigits::default().key(&Field::Absent), None);
    }
}
