//! Routing one input to its agent, and a record that parsed to its checker.
//!
//! This module owns which checker an input's records go to: the one `--agent` or `--dialect`
//! forces, or the agent the evidence of the first records decides (a record with one agent's
//! mark decides at once; the records that decide nothing are held until one does, at most
//! [`HOLD_RECORDS`] of them or [`HOLD_BYTES`], and replayed in order; at the bound or the end
//! the highest score wins, and a stream none scores is no known agent's, said once, with the
//! bound when it was reached); an input no agent sjlint
//! knows wrote, and one that is a pretty-printed JSON array or object (events saved as an array,
//! Gemini CLI's `--output-format json`), each reported once. It also owns
//! where a record that parsed goes: cursor's validator, an agent's checker, or nowhere. It must
//! not split records nor apply the framing rules (the parent and `framing` do), nor hold any
//! agent's rules (`agents`).

use super::{Consumer, Examined, InOrder, Totals, View, framing, known_text};
use crate::agents::cursor::validate::Validator;
use crate::agents::cursor::view::Dialect;
use crate::agents::{self, Agent, Evidence, Mixed, Reading, Sniffed, cursor};
use crate::diagnostic::Diagnostic;
use crate::input::record::{ENDS_IN_STRING, Frame, JOIN_FAILED, OwnedFrame, Position, Record};
use crate::rules::Rule;
use crate::vocab;
use bumpalo::Bump;
use std::io;

/// The finding for an input that no agent sjlint knows wrote; `held` says how much was read
/// for it when the hold was full before the input ended.
#[cold]
fn unknown_agent(pos: Position, ty: &str, held: Option<(usize, usize)>) -> Diagnostic {
    let waited = match held {
        Some((records, bytes)) => format!(
            "; no record of the first {records} ({}) named an agent, and sjlint holds no more while it waits for one",
            crate::text::format_bytes(bytes as u64)
        ),
        None => String::new(),
    };
    Diagnostic::new(
        Rule::UnknownAgent,
        pos,
        format!(
            "no agent sjlint knows writes events like this one (`type` {:?}){waited}; the stream is not checked beyond its framing",
            crate::text::Excerpt(ty)
        ),
    )
    .with_help(format!(
        "sjlint knows the streams of {}; `--agent` reads the input as one of them",
        known_agents()
    ))
}

/// The agents of the registry by their display names, for [`unknown_agent`]'s help: "a, b and c".
fn known_agents() -> String {
    let names: Vec<&str> = agents::REGISTRY
        .iter()
        .filter(|e| e.agent != Agent::Common)
        .map(|e| e.display)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The `type` of a record, for [`unknown_agent`].
fn unknown_type(bytes: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct T {
        r#type: String,
    }
    serde_json::from_slice::<T>(bytes)
        .map(|t| agents::id_prefix(&t.r#type).to_owned())
        .unwrap_or_default()
}

/// An input that is one pretty-printed JSON document: where it opens, and what it is.
#[derive(Clone, Copy)]
pub(super) struct Whole {
    pub(super) pos: Position,
    /// An object (`{` alone on the first line) rather than an array.
    object: bool,
    /// A top-level `"response"` key: Gemini CLI's `--output-format json`.
    gemini: bool,
}

impl Whole {
    /// Notes what a line of the document says about it (`bytes`: the line's own bytes).
    pub(super) fn line(&mut self, bytes: &[u8]) {
        // Gemini CLI indents its keys by two spaces.
        if self.object && bytes.starts_with(b"  \"response\":") {
            self.gemini = true;
        }
    }
}

/// The one finding for an input that is a pretty-printed JSON array or object.
#[cold]
pub(super) fn array_diagnostic(whole: Whole, records: u64) -> Diagnostic {
    let (what, help) = match (whole.object, whole.gemini) {
        (false, _) => (
            "array",
            "events saved as an array are not a stream; `jq -c '.[]'` turns the array into one event per line, which sjlint checks",
        ),
        (true, false) => (
            "object",
            "a stream holds one event object per line; `jq -c .` writes the object on one line, which sjlint checks as one event",
        ),
        (true, true) => (
            "object",
            "it looks like Gemini CLI's `--output-format json` output (one object with `response` and `stats`), which sjlint does not check; `gemini -p … --output-format stream-json` writes the event stream",
        ),
    };
    Diagnostic::new(
        Rule::InvalidJson,
        whole.pos,
        format!("the input is one pretty-printed JSON {what} ({records} lines), not a stream of one JSON event per line"),
    )
    .with_help(help)
}

/// Which checker the records of an input go to.
pub(super) enum Route {
    /// The agent is not known yet: frames are held (see [`Held`]).
    Undecided,
    /// cursor-agent, in any of its dialects: the view and checker of `agents::cursor`.
    Cursor,
    /// Claude Code, Codex or Gemini CLI.
    Agent(agents::Checker),
    /// No agent sjlint knows: reported once; records get the framing rules only.
    Unknown,
    /// The input is one pretty-printed JSON array or object: reported once, at the end.
    Array(Whole),
}

/// How many records are held at most while the agent is not known, and how many bytes: a
/// stream may open with many records that several agents write (Grok Build's with tens of
/// chunks of thought and text before its first tool call), and the wait for the one that
/// decides is bounded by both. The lanes' guess reads fewer ([`agents::Guess::RECORDS`]): it is
/// a hint, and what it reads the reader stage keeps.
const HOLD_RECORDS: usize = 256;
const HOLD_BYTES: usize = 1 << 20;

/// Frames held until a record names the agent, replayed in order once it is known.
#[derive(Default)]
pub(super) struct Held {
    frames: Vec<OwnedFrame>,
    bytes: usize,
    records: usize,
    /// The first record whose `type` no agent writes: its position and type (bounded).
    unknown: Option<(Position, String)>,
    /// What the held records say of their agent, added up.
    evidence: Evidence,
    /// The hold was full before a record decided: how many records and bytes it held.
    full: Option<(usize, usize)>,
}

impl Held {
    pub(super) fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// What [`InOrder::hold`] did with a frame.
pub(super) enum Hold {
    /// Held: the agent is not known yet.
    Kept,
    /// To be checked now, after the held frames.
    CheckNow,
    /// Held, and the agent is now known: the held frames (this one last) are to be checked.
    Flush,
}

/// Whether a record's bytes are the opening bracket of a pretty-printed JSON array (or the
/// brace of an object), and which.
fn opens_document(bytes: &[u8]) -> Option<bool> {
    match bytes.trim_ascii() {
        b"[" => Some(false),
        b"{" => Some(true),
        _ => None,
    }
}

impl<E: super::Emit, C: Consumer> InOrder<E, C> {
    /// The route `--agent` or `--dialect` forces, if any.
    pub(super) fn routed(mut self) -> Self {
        let opts = self.opts;
        match (opts.agent, opts.dialect) {
            (Some(agent), _) => self.decide(Some(agent)),
            (None, Some(_)) => self.decide(Some(Agent::Cursor)),
            (None, None) => {}
        }
        self
    }

    /// The agent is known (`None`: no agent sjlint knows).
    fn decide(&mut self, agent: Option<Agent>) {
        self.route = match agent {
            None => Route::Unknown,
            Some(a) => agents::Checker::new(a, self.opts.max_open_calls)
                .map_or(Route::Cursor, Route::Agent),
        };
        self.consumer.agent(agent);
    }

    /// Decides when no held record decided: the agent with the highest score (a tie goes to
    /// cursor); when none scores, no agent when some record named a type no agent writes, and
    /// cursor otherwise (the input holds no event at all, or only events without a type, which
    /// is how sjlint read every input before it knew other agents).
    pub(super) fn decide_from_held(&mut self) {
        if let Some(agent) = self.held.evidence.likeliest() {
            self.decide(Some(agent));
        } else if let Some((pos, ty)) = self.held.unknown.take() {
            self.decide(None);
            self.pending.push(unknown_agent(pos, &ty, self.held.full));
        } else {
            self.decide(Some(Agent::Cursor));
        }
    }

    /// While the agent is not known: holds `frame`, or finds the agent in it.
    pub(super) fn hold(&mut self, frame: &Frame<'_>) -> Hold {
        let rec = match frame {
            Frame::Record(rec) => rec,
            _ if self.held.frames.is_empty() => return Hold::CheckNow,
            _ => {
                self.held.frames.push(frame.to_owned_frame());
                return Hold::Kept;
            }
        };
        if self.held.records == 0
            && rec.pos.record == 1
            && let Some(object) = opens_document(rec.bytes)
        {
            self.route = Route::Array(Whole {
                pos: rec.pos,
                object,
                gemini: false,
            });
            return Hold::CheckNow;
        }
        self.arena.reset();
        let reading = if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) {
            Reading::Nothing
        } else {
            match known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()) {
                Some(text) => agents::read(text, &self.arena),
                None => Reading::Nothing,
            }
        };
        match reading {
            Reading::Scored(e) => {
                self.held.evidence.add(&e);
                // A mark decides at once: a live stream's findings do not wait for the records
                // after it. Only records that several agents could have written wait.
                if let Some(agent) = self.held.evidence.decisive() {
                    self.decide(Some(agent));
                    return Hold::CheckNow;
                }
            }
            Reading::Unknown if self.held.unknown.is_none() => {
                let ty = unknown_type(rec.bytes);
                self.held.unknown = Some((rec.pos, ty));
            }
            Reading::Unknown | Reading::Nothing => {}
        }
        self.held.frames.push(frame.to_owned_frame());
        self.held.records += 1;
        self.held.bytes += rec.bytes.len();
        if self.held.records >= HOLD_RECORDS || self.held.bytes >= HOLD_BYTES {
            self.held.full = Some((self.held.records, self.held.bytes));
            self.decide_from_held();
            return Hold::Flush;
        }
        Hold::Kept
    }

    /// Checks the held frames, in order, with the route now known.
    pub(super) fn replay(&mut self, totals: &mut Totals) -> io::Result<()> {
        let held = std::mem::take(&mut self.held);
        for f in &held.frames {
            self.routed_frame(f.frame(), None, totals, true)?;
        }
        Ok(())
    }
}

/// Where a record that parsed goes: cursor's validator or an agent's checker (each with what
/// tells another agent's records apart), or nowhere (no agent sjlint knows).
pub(super) enum Check<'c> {
    Cursor(&'c mut Validator, &'c mut Mixed, &'c mut cursor::ToCommon),
    Agent(&'c mut agents::Checker, AgentSide<'c>),
    /// Not checked (no agent sjlint knows); the consumer still gets the event.
    Nothing,
}

/// What an agent's checker is given besides the record: the arena its view borrows from, and
/// what tells another agent's records apart.
pub(super) struct AgentSide<'c> {
    pub(super) arena: &'c Bump,
    pub(super) mixed: &'c mut Mixed,
}

impl framing::Classify for Check<'_> {
    fn unreadable(&mut self, line: u64) {
        match self {
            Check::Cursor(validator, _, _) => validator.on_unreadable(line),
            Check::Agent(checker, _) => checker.on_unreadable(line),
            Check::Nothing => {}
        }
    }

    fn classified(
        &mut self,
        rec: &Record<'_>,
        bytes: &[u8],
        json: &str,
        view: View<'_, '_>,
        emit: &mut impl FnMut(Diagnostic),
        consumer: &mut impl Consumer,
    ) {
        classified(rec, bytes, json, view, self, emit, consumer);
    }
}

/// A record of a stream of another agent than cursor-agent: its agent's checker reads it (in
/// the view the pure half read it into, when it was read as this agent's), and cursor's
/// classifier only when the record is not plain valid JSON (the slow path).
#[expect(
    clippy::too_many_arguments,
    reason = "separate borrows of the caller's state, which one struct would borrow all at once"
)]
pub(super) fn agent_record(
    rec: &Record<'_>,
    examined: Option<&Examined<'_>>,
    dialect: Option<Dialect>,
    checker: &mut agents::Checker,
    side: AgentSide<'_>,
    scratch: &mut Vec<u8>,
    lenient: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let text = match examined {
        Some(Examined::Agent(text, line, sniffed)) if line.agent() == checker.agent() => {
            if (side.mixed.settled() && line.own_mark())
                || side
                    .mixed
                    .admits(checker.agent(), rec.pos, text, sniffed, emit)
            {
                agent_checked(
                    rec, rec.bytes, text, line, checker, side.arena, emit, consumer,
                );
            } else {
                consumer.foreign(rec);
            }
            return;
        }
        // Read as another agent's, or as cursor's, before the agent was known.
        Some(Examined::Agent(text, ..) | Examined::Cursor(text, ..)) => Some(*text),
        Some(Examined::SlowPath) => None,
        None if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) => None,
        None => known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()),
    };
    if let Some(text) = text
        && agent_event(
            rec, rec.bytes, text, checker, side.arena, side.mixed, emit, consumer,
        )
    {
        return;
    }
    let mut check = Check::Agent(checker, side);
    framing::slow_record(rec, dialect, &mut check, scratch, lenient, emit, consumer);
}

/// An agent's record whose text is `json`; false when it does not parse. A record of another
/// agent's is not checked (see [`Mixed`]).
#[expect(
    clippy::too_many_arguments,
    reason = "separate borrows of the caller's state, which one struct would borrow all at once"
)]
fn agent_event(
    rec: &Record<'_>,
    bytes: &[u8],
    json: &str,
    checker: &mut agents::Checker,
    arena: &Bump,
    mixed: &mut Mixed,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) -> bool {
    let mut line = agents::Line::empty(checker.agent());
    let parsed = line.parse_into(json, arena).is_ok();
    let own = parsed && mixed.settled() && line.own_mark();
    if !own && !mixed.admits(checker.agent(), rec.pos, json, &Sniffed::Unread, emit) {
        consumer.foreign(rec);
        return true;
    }
    if !parsed {
        return false;
    }
    agent_checked(rec, bytes, json, &line, checker, arena, emit, consumer);
    true
}

/// An agent's record read into its view `line`, which is the checker's agent's.
#[expect(
    clippy::too_many_arguments,
    reason = "separate borrows of the caller's state, which one struct would borrow all at once"
)]
fn agent_checked<'a>(
    rec: &Record<'_>,
    bytes: &[u8],
    json: &'a str,
    line: &agents::Line<'a>,
    checker: &mut agents::Checker,
    arena: &'a Bump,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let checked = if consumer.wants_common() {
        let mut sink = |ev: &vocab::Event<'_>| consumer.common(ev);
        checker.check(rec.pos, bytes, json, line, arena, emit, Some(&mut sink))
    } else {
        checker.check(rec.pos, bytes, json, line, arena, emit, None)
    };
    match checked.expect("the view is the checker's agent's") {
        None => consumer.agent_record(rec, json, line.ty(), line.subtype()),
        Some(t) => {
            consumer.invalid(rec.pos, bytes);
            emit(framing::not_an_object(rec, bytes, t));
        }
    }
}

/// A message line of the Claude Code family (Claude Code, Qwen Code, Amp): its envelope ends
/// with `parent_tool_use_id` (then `session_id`, `uuid`), a key cursor-agent never writes. Only
/// the record's tail is looked at, so the cost per record stays constant: such a line in a
/// cursor-agent stream is read again for whose it is, as another agent's run beginning.
fn claude_envelope(json: &str) -> bool {
    let b = json.as_bytes();
    memchr::memmem::find(&b[b.len().saturating_sub(256)..], b"\"parent_tool_use_id\"").is_some()
}

/// `bytes` are the record's own bytes (for columns and snippets), `json` the text parsed.
pub(super) fn classified(
    rec: &Record<'_>,
    bytes: &[u8],
    json: &str,
    view: View<'_, '_>,
    check: &mut Check<'_>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    match view {
        View::Event(ev) => match check {
            Check::Cursor(validator, mixed, to_common) => {
                // Once no other agent's run is going on, a record costs no second reading
                // when it has cursor's own keys, or is a message or result: another agent's
                // session in the stream begins with its own first record (Claude Code's
                // `system`/`init`, Gemini CLI's `init`, Codex's `thread.started`), which is
                // read again, as every `system` record and every other type is.
                let own = mixed.settled()
                    && match ev.ty.as_str() {
                        Some("assistant" | "user") => !claude_envelope(json),
                        Some("result") => true,
                        Some("thinking" | "tool_call") => {
                            ev.timestamp_ms.is_present()
                                || ev.call_id.is_present()
                                || ev.model_call_id.is_present()
                        }
                        _ => false,
                    };
                if !own && !mixed.admits(Agent::Cursor, rec.pos, json, &Sniffed::Unread, emit) {
                    consumer.foreign(rec);
                    return;
                }
                validator.check(rec, bytes, ev, emit);
                consumer.event(rec, json, ev);
                if consumer.wants_common() {
                    to_common.map(rec.pos.line, json, ev, &mut |e| consumer.common(e));
                }
            }
            Check::Agent(checker, side) => {
                if !agent_event(
                    rec, bytes, json, checker, side.arena, side.mixed, emit, consumer,
                ) {
                    // Valid JSON that cursor's classifier reads but the agent's view does not
                    // (numbers beyond the f64 range and unpaired surrogates both read).
                    consumer.invalid(rec.pos, bytes);
                    emit(
                        Diagnostic::new(
                            Rule::InvalidJson,
                            rec.pos,
                            "the record holds JSON this agent's events never hold",
                        )
                        .with_snippet(bytes),
                    );
                }
            }
            // No agent sjlint knows: nothing is checked, and `stats` and `render` still see
            // what the records are.
            Check::Nothing => consumer.event(rec, json, ev),
        },
        View::NotAnObject(t) => {
            consumer.invalid(rec.pos, bytes);
            emit(framing::not_an_object(rec, bytes, t));
        }
    }
}
