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
//! where a record goes: its agent's checker (every agent's through the one interface of
//! `agents::Checker`), or nowhere. It must not split records nor apply the framing rules (the
//! parent and `framing` do), nor hold any agent's rules (`agents`).

use super::{Checked, Consumer, Examined, InOrder, Totals, framing, known_text};
use crate::agents::cursor::view::Dialect;
use crate::agents::{self, Agent, Evidence, Mixed, Reading, Sniffed};
use crate::diagnostic::Diagnostic;
use crate::input::record::{
    DOCUMENT, ENDS_IN_STRING, Frame, JOIN_FAILED, OwnedFrame, Position, Record,
};
use crate::json::tap::Kept;
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
/// Their streams only: the session logs are the same agents' files.
fn known_agents() -> String {
    let names: Vec<&str> = agents::REGISTRY
        .iter()
        .filter(|e| e.agent != Agent::Common && e.source == agents::Source::Stream)
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
    /// The agent's checker.
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

/// The agents whose files may be one pretty-printed JSON document, read as one record: Gemini
/// CLI's legacy chats. Another agent's document (OpenCode's storage files, Kimi CLI's
/// `state.json`) is still the one `invalid-json` of a pretty-printed input until its reader
/// joins this list.
const DOCUMENT_READERS: &[Agent] = &[Agent::GeminiLog];

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
    /// Whether the record that is a whole pretty-printed document is one an agent reads as such
    /// ([`DOCUMENT_READERS`]), by its own marks.
    fn reads_document(&mut self, rec: &Record<'_>) -> bool {
        self.arena.reset();
        let Some(text) = known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok())
        else {
            return false;
        };
        match agents::read(text, &self.arena) {
            Reading::Scored(e) => e.decisive().is_some_and(|a| DOCUMENT_READERS.contains(&a)),
            _ => false,
        }
    }

    /// The route `--agent` or `--dialect` forces, if any.
    pub(super) fn routed(mut self) -> Self {
        let opts = self.opts;
        match (opts.agent, opts.dialect) {
            (Some(agent), _) => self.decide(Some(agent)),
            (None, Some(_)) => self.decide(Some(Agent::DEFAULT)),
            (None, None) => {}
        }
        self
    }

    /// The agent is known (`None`: no agent sjlint knows).
    fn decide(&mut self, agent: Option<Agent>) {
        self.route = match agent {
            None => Route::Unknown,
            Some(a) => Route::Agent(agents::Checker::new(
                a,
                self.opts.max_open_calls,
                self.opts.enabled,
            )),
        };
        self.consumer.agent(agent);
    }

    /// Decides when no held record decided: the agent with the highest score (a tie goes to
    /// [`Agent::DEFAULT`]); when none scores, no agent when some record named a type no agent
    /// writes, and [`Agent::DEFAULT`] otherwise (the input holds no event at all, or only events
    /// without a type).
    pub(super) fn decide_from_held(&mut self) {
        if let Some(agent) = self.held.evidence.likeliest() {
            self.decide(Some(agent));
        } else if let Some((pos, ty)) = self.held.unknown.take() {
            self.decide(None);
            self.pending.push(unknown_agent(pos, &ty, self.held.full));
        } else {
            self.decide(Some(Agent::DEFAULT));
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
        if self.held.records == 0 && rec.has(DOCUMENT) && !self.reads_document(rec) {
            self.route = Route::Array(Whole {
                pos: rec.pos,
                object: true,
                gemini: memchr::memmem::find(rec.bytes, b"\n  \"response\":").is_some(),
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

/// Where a record that parsed goes: its agent's checker (with what tells another agent's
/// records apart), or nowhere (no agent sjlint knows; the arena its reading borrows from).
pub(super) enum Check<'c> {
    Agent(&'c mut agents::Checker, AgentSide<'c>),
    /// Not checked (no agent sjlint knows); the consumer still gets the record.
    Nothing(&'c Bump),
}

/// What an agent's checker is given besides the record: the arena its view borrows from,
/// what tells another agent's records apart, `--dialect`, and, when drift is wanted, where
/// the record's top-level keys are kept as the reader of its view notes them.
pub(super) struct AgentSide<'c> {
    pub(super) arena: &'c Bump,
    pub(super) mixed: &'c mut Mixed,
    pub(super) dialect: Option<Dialect>,
    pub(super) keys: Option<&'c mut Kept>,
}

impl framing::Classify for Check<'_> {
    fn unreadable(&mut self, line: u64) {
        match self {
            Check::Agent(checker, _) => checker.on_unreadable(line),
            Check::Nothing(_) => {}
        }
    }

    fn read(
        &mut self,
        rec: &Record<'_>,
        bytes: &[u8],
        json: &str,
        first: Option<Diagnostic>,
        emit: &mut impl FnMut(Diagnostic),
        consumer: &mut impl Consumer,
    ) -> Result<(), serde_json::Error> {
        match self {
            Check::Agent(checker, side) => {
                let mut line = agents::Line::empty(checker.agent(), side.dialect);
                line.parse_into(json, side.arena)?;
                emit_first(first, emit);
                if (side.mixed.settled() && line.own_mark())
                    || side
                        .mixed
                        .admits(checker.agent(), rec.pos, json, &Sniffed::Unread, emit)
                {
                    agent_checked(rec, json, &line, checker, side.arena, emit, consumer);
                } else {
                    consumer.foreign(rec);
                }
            }
            Check::Nothing(arena) => {
                let mut line = agents::Line::unknown();
                line.parse_into(json, arena)?;
                emit_first(first, emit);
                // No agent sjlint knows: nothing is checked, and `stats` and `render` still see
                // what the records are.
                match line.unknown_shape() {
                    None => consumer.agent_record(rec, json, &Checked(&line)),
                    Some(t) => {
                        consumer.invalid(rec.pos, bytes);
                        emit(framing::not_an_object(rec, bytes, t));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The finding the slow path says once the record is read (a repaired control character).
fn emit_first(first: Option<Diagnostic>, emit: &mut impl FnMut(Diagnostic)) {
    if let Some(d) = first {
        emit(d);
    }
}

/// A record of the stream: its agent's checker reads it (in the view the pure half read it
/// into, when it was read as this agent's), and the framing rules only when the record is not
/// plain valid JSON (the slow path).
pub(super) fn agent_record(
    rec: &Record<'_>,
    examined: Option<&Examined<'_>>,
    checker: &mut agents::Checker,
    mut side: AgentSide<'_>,
    scratch: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let text = match examined {
        Some(Examined::Agent(text, line, sniffed, _)) if line.agent() == checker.agent() => {
            if (side.mixed.settled() && line.own_mark())
                || side
                    .mixed
                    .admits(checker.agent(), rec.pos, text, sniffed, emit)
            {
                agent_checked(rec, text, line, checker, side.arena, emit, consumer);
            } else {
                consumer.foreign(rec);
            }
            return;
        }
        // Read as another agent's before the agent was known.
        Some(Examined::Agent(text, ..)) => Some(*text),
        Some(Examined::SlowPath) => None,
        None if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) => None,
        None => known_text(rec).or_else(|| simdutf8::basic::from_utf8(rec.bytes).ok()),
    };
    if let Some(text) = text
        && agent_event(rec, text, checker, &mut side, emit, consumer)
    {
        return;
    }
    let mut check = Check::Agent(checker, side);
    framing::slow_record(rec, &mut check, scratch, emit, consumer);
}

/// An agent's record whose text is `json`; false when it does not parse (the slow path then
/// says why). A record of another agent's is not checked (see [`Mixed`]).
fn agent_event(
    rec: &Record<'_>,
    json: &str,
    checker: &mut agents::Checker,
    side: &mut AgentSide<'_>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) -> bool {
    let mut line = agents::Line::empty(checker.agent(), side.dialect);
    let mut parse = || line.parse_into(json, side.arena);
    let parsed = match side.keys.as_deref_mut() {
        Some(keys) => keys.noting(json, parse),
        None => parse(),
    }
    .is_ok();
    let own = parsed && side.mixed.settled() && line.own_mark();
    if !own
        && !side
            .mixed
            .admits(checker.agent(), rec.pos, json, &Sniffed::Unread, emit)
    {
        consumer.foreign(rec);
        return true;
    }
    if !parsed {
        return false;
    }
    agent_checked(rec, json, &line, checker, side.arena, emit, consumer);
    true
}

/// An agent's record read into its view `line`, which is the checker's agent's: its common
/// events (when wanted), then the record, go to the consumer. Its findings point into its own
/// bytes (`rec.bytes`), also when `json` is their repaired copy.
fn agent_checked<'a>(
    rec: &Record<'_>,
    json: &'a str,
    line: &agents::Line<'a>,
    checker: &mut agents::Checker,
    arena: &'a Bump,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let bytes = rec.bytes;
    let wants_common = consumer.wants_common();
    let mut emit = |d| emit(d);
    let mut common = |ev: &vocab::Event<'_>| consumer.common(ev);
    let cx = agents::Cx {
        pos: rec.pos,
        bytes,
        json,
        arena,
        emit: &mut emit,
        sink: if wants_common {
            Some(&mut common)
        } else {
            None
        },
    };
    let checked = checker.check(cx, line);
    match checked.expect("the view is the checker's agent's") {
        None => consumer.agent_record(rec, json, &Checked(line)),
        Some(t) => {
            consumer.invalid(rec.pos, bytes);
            emit(framing::not_an_object(rec, bytes, t));
        }
    }
}
