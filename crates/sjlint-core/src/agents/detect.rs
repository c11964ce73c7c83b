//! Which agent wrote a stream, from the evidence of its records, and the finding for a stream
//! that mixes two agents.
//!
//! Each agent owns one function that scores a record on the marks only that agent writes
//! ([`marks`] lists them: cursor-agent's is here, the others' are `evidence` in their modules).
//! A mark is worth [`MARK`]; a record of a type the agent writes but with nothing that tells
//! it apart (`system`, `user`, `assistant` and `result` of cursor-agent and Claude Code) is
//! worth [`SHAPE`]. A field several agents write (`apiKeySource`, `mcp_servers`, `tools`,
//! `uuid`, `session_id`, `slash_commands`, `skills`, `plugins`, `model`, `cwd`,
//! `permissionMode`) is worth nothing: it never decides alone. Claude Code, Qwen Code and Amp
//! write one shape: the marks they share are scored alike for each (`claude::family`), and a
//! tie of the three is Claude Code's, as a tie always goes to the agent first in the registry.
//!
//! [`Evidence`] is what one record (or several, added up) says: it decides when one agent has a
//! mark and scores above every other; until then the stream waits for the record that decides,
//! and [`Evidence::likeliest`] names the agent when it cannot wait longer. [`Mixed`] uses the
//! same scores once the agent is known: a record with another agent's mark and none of this
//! one's starts a run of another agent, reported once ([`mixed`]) and not checked. [`foreign`]
//! is the fallback by type alone: a type the stream's agent never writes. This module reads a
//! record through a view of its distinguishing keys only; it must not check anything.

use super::{Agent, REGISTRY, claude, codex, parse, view};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use std::borrow::Cow;

view! {
    /// What the agents' evidence functions read of a record: the keys that tell them apart.
    pub struct Sniff<'a> {
        "type" => ty: Field<'a>,
        "subtype" => subtype: Field<'a>,
        "uuid" => uuid: Field<'a>,
        "parent_tool_use_id" => parent_tool_use_id: Field<'a>,
        "tools" => tools: Field<'a>,
        "claude_code_version" => claude_code_version: Field<'a>,
        "total_cost_usd" => total_cost_usd: Field<'a>,
        "num_turns" => num_turns: Field<'a>,
        "message" => message: SniffMessage<'a>,
        "timestamp" => timestamp: Field<'a>,
        "timestamp_ms" => timestamp_ms: Field<'a>,
        "status" => status: Field<'a>,
        "severity" => severity: Field<'a>,
        "call_id" => call_id: Field<'a>,
        "model_call_id" => model_call_id: Field<'a>,
        "request_id" => request_id: Field<'a>,
        "toolCallId" => tool_call_id: Field<'a>,
        "stopReason" => stop_reason: Field<'a>,
        "payload" => payload: Field<'a>,
        "line" => line: Field<'a>,
        "sessionID" => session_id: Field<'a>,
        "version" => version: Field<'a>,
        "sessionId" => session_id_camel: Field<'a>,
        "data" => data: Field<'a>,
        "parentId" => parent_id: Field<'a>,
        "exitCode" => exit_code: Field<'a>,
        "apiKeySource" => api_key_source: Field<'a>,
        "permissionMode" => permission_mode: Field<'a>,
        "model" => model: Field<'a>,
        "text" => text: Field<'a>,
        "toolName" => tool_name: Field<'a>,
        "messageId" => message_id: Field<'a>,
        "toolId" => tool_id: Field<'a>,
        "isError" => is_error: Field<'a>,
        "finalText" => final_text: Field<'a>,
        "role" => role: Field<'a>,
        "session_id" => thread_id: Field<'a>,
        "qwen_code_version" => qwen_code_version: Field<'a>,
        "permission_mode" => permission_mode_snake: Field<'a>,
        "event" => event: SniffEvent<'a>,
        "error" => error: Field<'a>,
        "parentUuid" => parent_uuid: Field<'a>,
        "isSidechain" => is_sidechain: Field<'a>,
        "leafUuid" => leaf_uuid: Field<'a>,
        "modelId" => model_id: Field<'a>,
        "$set" => set: Field<'a>,
        "$rewindTo" => rewind_to: Field<'a>,
        "projectHash" => project_hash: Field<'a>,
        "tokens" => tokens: Field<'a>,
        "toolCalls" => tool_calls: Field<'a>,
    }
}

view! {
    /// `event` of a `stream_event`, as the evidence functions read it.
    pub struct SniffEvent<'a> {
        "type" => ty: Field<'a>,
    }
}

view! {
    /// `message` as the evidence functions read it.
    pub struct SniffMessage<'a> {
        "id" => id: Field<'a>,
        "model" => model: Field<'a>,
        "usage" => usage: Field<'a>,
    }
}

/// What one mark (a key, type or shape only one agent writes) is worth.
pub const MARK: u32 = 16;
/// What a record of a type the agent writes is worth when nothing in it tells the agents that
/// share the type apart.
pub const SHAPE: u32 = 1;

/// Each agent's evidence function (its line of the registry): how strongly a record is this
/// agent's.
pub fn marks(agent: Agent) -> fn(&Sniff<'_>) -> u32 {
    agent.entry().evidence
}

/// `n` marks: [`MARK`] for each condition that holds.
pub fn count_marks(conditions: &[bool]) -> u32 {
    conditions.iter().map(|&c| u32::from(c) * MARK).sum()
}

/// Whether `ty` is an event type of Codex's (`thread.started`, `item.completed`, …).
pub fn is_codex_type(ty: &str) -> bool {
    codex::TYPE_NAMES.owns(ty)
}

/// What some records say of the agent that wrote them: each agent's score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    scores: [u32; Agent::ALL.len()],
}

/// What one record is, for detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Nothing in the record names an agent: not an object, no string `type`, or a type several
    /// agents write with nothing to tell them apart (`error`).
    Nothing,
    /// An object with a string `type` that no agent writes.
    Unknown,
    /// What the record says (at least one agent scores).
    Scored(Evidence),
}

impl Evidence {
    /// The evidence of one record.
    pub fn of(s: &Sniff<'_>) -> Evidence {
        let mut e = Evidence::default();
        for a in Agent::ALL {
            e.scores[a as usize] = marks(a)(s);
        }
        e
    }

    pub fn score(&self, agent: Agent) -> u32 {
        self.scores[agent as usize]
    }

    /// No agent scores at all.
    pub fn is_empty(&self) -> bool {
        self.scores.iter().all(|&s| s == 0)
    }

    /// Adds the evidence of another record.
    pub fn add(&mut self, other: &Evidence) {
        for (a, b) in self.scores.iter_mut().zip(other.scores) {
            *a = a.saturating_add(b);
        }
    }

    /// The agent whose marks decide: it has one and scores above every other agent. A tie
    /// inside the family that writes Claude Code's shape (Claude Code, Qwen Code, Amp) is
    /// Claude Code's at once, as it would be at the end of the wait (see `claude::family`).
    /// A tie of a stream with its own session log is the stream's (the log scores the
    /// envelope they share as the stream does, and its own types above it), except where both
    /// open with the same header: Pi's, whose lines after the header tell them apart.
    pub fn decisive(&self) -> Option<Agent> {
        let best = self.likeliest()?;
        let top = self.score(best);
        let family = best == Agent::Claude;
        (top >= MARK
            && Agent::ALL.iter().all(|&a| {
                a == best
                    || self.score(a) < top
                    || (family && claude::family::is_member(a))
                    || (a.entry().log_of == Some(best) && a != Agent::PiLog)
            }))
        .then_some(best)
    }

    /// The agent with the highest score, if any scores; a tie goes to the one first in the
    /// registry (cursor-agent, the default).
    pub fn likeliest(&self) -> Option<Agent> {
        let mut best: Option<Agent> = None;
        for a in Agent::ALL {
            if self.score(a) > best.map_or(0, |b| self.score(b)) {
                best = Some(a);
            }
        }
        best
    }

    /// Another agent than `this` that the record surely belongs to: it has that agent's mark
    /// and scores above this agent (the highest such agent).
    pub fn against(&self, this: Agent) -> Option<Agent> {
        let mut best: Option<Agent> = None;
        for a in Agent::ALL {
            if a != this
                && self.score(a) >= MARK
                && self.score(a) > self.score(this)
                && self.score(a) > best.map_or(0, |b| self.score(b))
            {
                best = Some(a);
            }
        }
        best
    }
}

/// What the record `text` says of its agent.
pub fn read(text: &str, arena: &bumpalo::Bump) -> Reading {
    let Ok(s) = parse::<Sniff<'_>>(text, arena) else {
        return Reading::Nothing;
    };
    reading(&s)
}

/// The agent the first records of a stream name, read ahead of the stage that decides (which
/// holds and weighs the same records on its own): a hint for the pipeline's lanes, so that they
/// read the records as that agent's from the first batch on, not as cursor-agent's until the
/// decision comes back to them. A record that decides nothing is weighed with the next ones,
/// [`Guess::RECORDS`] of them at most; records that do not parse (a raw newline in a string
/// cuts one in two) count for nothing, and so do records over [`Guess::RECORD_BYTES`], which are
/// not read: a guess costs a few small records' reading, whatever the input holds.
#[derive(Default)]
pub struct Guess {
    evidence: Evidence,
    records: usize,
    arena: bumpalo::Bump,
}

impl Guess {
    /// How many records are read at most. A hint needs no more: the in-order stage holds more
    /// while it waits for the record that decides, and reads again what the lanes read as
    /// another agent's. The reader stage keeps what the guess has not read past, so a longer
    /// guess costs memory on every input whose first records decide nothing (cursor-agent's
    /// records name no agent).
    pub const RECORDS: usize = 16;
    /// The largest record read, and how far into an input in memory lines are looked for.
    pub const RECORD_BYTES: usize = 64 << 10;

    /// Reads one more record: `Some(Some(agent))` once the records so far decide, `Some(None)`
    /// while they may still, `None` when they no longer will.
    pub fn record(&mut self, bytes: &[u8]) -> Option<Option<Agent>> {
        if bytes.trim_ascii().is_empty() {
            return Some(None);
        }
        self.arena.reset();
        if bytes.len() <= Self::RECORD_BYTES
            && let Ok(text) = std::str::from_utf8(bytes)
            && let Reading::Scored(e) = read(text, &self.arena)
        {
            self.evidence.add(&e);
            if let Some(agent) = self.evidence.decisive() {
                return Some(Some(agent));
            }
        }
        self.records += 1;
        (self.records < Self::RECORDS).then_some(None)
    }

    /// The agent the first lines of an input in memory name, if they decide. Lines are looked
    /// for within [`Guess::RECORD_BYTES`] of the last one: a longer line ends the guess.
    pub fn head(input: &[u8]) -> Option<Agent> {
        let mut guess = Guess::default();
        let mut rest = input;
        // Blank lines count for nothing, but are not read without end either.
        for _ in 0..4 * Self::RECORDS {
            let window = &rest[..rest.len().min(Self::RECORD_BYTES + 1)];
            let line = match memchr::memchr(b'\n', window) {
                Some(end) => {
                    let line = &rest[..end];
                    rest = &rest[end + 1..];
                    line
                }
                // The input's last line, or one too long to read.
                None if window.len() == rest.len() => std::mem::take(&mut rest),
                None => return None,
            };
            if let Some(decided) = guess.record(line)? {
                return Some(decided);
            }
            if rest.is_empty() {
                return None;
            }
        }
        None
    }
}

/// What a parsed record says of its agent.
fn reading(s: &Sniff<'_>) -> Reading {
    if s.shape != Some(JsonType::Object) {
        return Reading::Nothing;
    }
    let e = Evidence::of(s);
    match s.ty.as_str() {
        _ if !e.is_empty() => Reading::Scored(e),
        None => Reading::Nothing,
        // Codex's, Gemini CLI's and Grok Build's, and cursor's payload dialect's: the records
        // around it tell.
        Some("error") => Reading::Nothing,
        Some(_) => Reading::Unknown,
    }
}

/// The agent a record of another agent's stream belongs to when its type alone says so: a
/// type this agent never writes. The fallback of [`Mixed`] for records with no mark.
pub fn foreign(ty: &str, this: Agent) -> Option<Agent> {
    if this.source() == super::Source::SessionLog {
        // A log's unknown types are its agent's newer records (drift), not another agent's:
        // only marks tell a run of another agent there.
        return None;
    }
    if this.entry().types.writes(ty) {
        return None;
    }
    REGISTRY
        .iter()
        .find(|e| e.agent != this && e.types.owns(ty))
        .map(|e| e.agent)
}

/// What [`Mixed`] needs of a record, read apart from the order of the stream (by a lane of the
/// pipeline, beside the record's view): its evidence, and its type for the fallback by type.
#[derive(Debug, Default)]
pub enum Sniffed<'a> {
    /// Not read: [`Mixed::admits`] reads the record's text itself.
    #[default]
    Unread,
    /// Not a readable object: admitted (the checker reports what it cannot read).
    Admitted,
    /// An object, and what it says.
    Read {
        evidence: Evidence,
        ty: Option<&'a str>,
        /// Kimi CLI's records are named by their `role`: they have no `type`.
        role: Option<&'a str>,
    },
}

impl<'a> Sniffed<'a> {
    /// Reads the record `text`, its unescaped strings into `arena`.
    pub fn read(text: &'a str, arena: &'a bumpalo::Bump) -> Sniffed<'a> {
        match parse::<Sniff<'a>>(text, arena) {
            Ok(s) if s.shape == Some(JsonType::Object) => {
                // Borrowed from the text or the arena, but for the rare record the strict
                // reader read: its strings are copied into the arena.
                let keep = |f: &Field<'a>| match f.to_cow()? {
                    Cow::Borrowed(b) => Some(b),
                    Cow::Owned(o) => Some(&*arena.alloc_str(&o)),
                };
                Sniffed::Read {
                    evidence: Evidence::of(&s),
                    ty: keep(&s.ty),
                    role: keep(&s.role),
                }
            }
            _ => Sniffed::Admitted,
        }
    }
}

/// Whether a stream whose agent is known has turned to another agent's records: the one
/// `mixed-agents` finding, and which records are not checked as the stream's agent's.
#[derive(Default)]
pub struct Mixed {
    run: Run,
    /// The unescaped strings of the record being read (reset for each).
    arena: bumpalo::Bump,
}

/// The state of [`Mixed`].
#[derive(Default)]
struct Run {
    /// The finding was given (once per stream).
    said: bool,
    /// The agent of the run the last records belong to, when it is not the stream's.
    other: Option<Agent>,
}

impl Mixed {
    /// Whether the record `text` of a stream of `this` is to be checked as `this`'s. A record
    /// with another agent's mark that outweighs this agent's (or, lacking marks, a type this
    /// agent never writes) starts a run of that agent: the first such record of the stream is
    /// reported, and the records after it are not checked either until one with this agent's
    /// mark, or one of a type this agent writes and the other does not. `sniffed` is the record
    /// read already, or [`Sniffed::Unread`].
    pub fn admits(
        &mut self,
        this: Agent,
        pos: Position,
        text: &str,
        sniffed: &Sniffed<'_>,
        emit: &mut dyn FnMut(Diagnostic),
    ) -> bool {
        if let Sniffed::Unread = sniffed {
            self.arena.reset();
            let read = Sniffed::read(text, &self.arena);
            return self.run.admits(this, pos, &read, emit);
        }
        self.run.admits(this, pos, sniffed, emit)
    }

    /// The records are this agent's so far (no run of another agent is going on).
    pub fn settled(&self) -> bool {
        self.run.other.is_none()
    }
}

impl Run {
    fn admits(
        &mut self,
        this: Agent,
        pos: Position,
        sniffed: &Sniffed<'_>,
        emit: &mut dyn FnMut(Diagnostic),
    ) -> bool {
        let Sniffed::Read {
            evidence: e,
            ty,
            role,
        } = sniffed
        else {
            return true;
        };
        let ty = *ty;
        let other = e.against(this).or_else(|| {
            (e.score(this) < MARK)
                .then(|| ty.and_then(|t| foreign(t, this)))
                .flatten()
        });
        if let Some(other) = other {
            if !std::mem::replace(&mut self.said, true) {
                let what = ty.or(*role).unwrap_or_default();
                emit(mixed(pos, this, other, what));
            }
            self.other = Some(other);
            return false;
        }
        // The other agent's run goes on while a record has no more of this agent's marks than of
        // the other's: none at all, or as many (a record of the family Claude Code, Qwen Code
        // and Amp share, in a run of one of them inside a stream of another).
        match self.other {
            Some(other)
                if e.score(this) == 0
                    || (e.score(other) > 0 && e.score(other) >= e.score(this)) =>
            {
                false
            }
            _ => {
                self.other = None;
                true
            }
        }
    }
}

/// The finding for the first record of another agent in a stream.
#[cold]
pub fn mixed(pos: Position, this: Agent, other: Agent, ty: &str) -> Diagnostic {
    Diagnostic::from_message(
        pos,
        crate::rules::messages::mixed_agents(this.display_name(), other.display_name(), ty),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    /// Every name a line of the registry owns or shares, with the line.
    fn names() -> Vec<(Agent, &'static str, bool)> {
        let mut all = Vec::new();
        for e in REGISTRY {
            for g in e.types.own {
                all.extend(g.iter().map(|t| (e.agent, *t, true)));
            }
            for g in e.types.shared {
                all.extend(g.iter().map(|t| (e.agent, *t, false)));
            }
        }
        all
    }

    #[test]
    fn no_two_agents_own_a_type_and_what_one_shares_another_owns() {
        let all = names();
        for &(agent, ty, own) in &all {
            let owners: Vec<Agent> = REGISTRY
                .iter()
                .filter(|e| e.types.owns(ty))
                .map(|e| e.agent)
                .collect();
            if own {
                assert_eq!(owners, [agent], "{ty:?} is owned by {owners:?}");
            } else {
                assert!(
                    owners.len() == 1 && owners[0] != agent,
                    "{agent:?} shares {ty:?}, owned by {owners:?}"
                );
                assert_eq!(foreign(ty, agent), None, "{agent:?} writes {ty:?}");
            }
        }
    }

    #[test]
    fn a_type_another_agent_owns_names_it_wherever_it_is_not_written() {
        for &(owner, ty, _) in names().iter().filter(|n| n.2) {
            for e in REGISTRY
                .iter()
                .filter(|e| e.source == super::super::Source::Stream)
            {
                let want = (e.agent != owner && !e.types.writes(ty)).then_some(owner);
                assert_eq!(
                    foreign(ty, e.agent),
                    want,
                    "{ty:?} in {:?}'s stream",
                    e.agent
                );
            }
        }
        assert_eq!(foreign("assistant", Agent::Pi), Some(Agent::Claude));
        assert_eq!(foreign("tool_call", Agent::Grok), None);
        assert_eq!(foreign("thread.started", Agent::ClaudeLog), None);
    }

    fn r(text: &str) -> Reading {
        read(text, &bumpalo::Bump::new())
    }

    fn decides(text: &str) -> Option<Agent> {
        match r(text) {
            Reading::Scored(e) => e.decisive(),
            _ => None,
        }
    }

    const CURSOR_INIT: &str = r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/","session_id":"s","model":"m","permissionMode":"default"}"#;

    #[test]
    fn a_guess_reads_the_first_lines_until_they_decide() {
        let codex = "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n";
        // Records that decide nothing (`error` is several agents'), a blank line and a line that
        // is not JSON before the one that decides.
        let head = format!("\n{{\"type\":\"error\"}}\nnot json\n{codex}{{\"type\":\"x\"");
        assert_eq!(Guess::head(head.as_bytes()), Some(Agent::Codex));
        assert_eq!(
            Guess::head(format!("{CURSOR_INIT}\n").as_bytes()),
            Some(Agent::Cursor)
        );
        // Past its records it gives up, as the in-order stage decides by then without it.
        let late = format!("{}{codex}", "{\"type\":\"error\"}\n".repeat(Guess::RECORDS));
        assert_eq!(Guess::head(late.as_bytes()), None);
        assert_eq!(Guess::head(b""), None);
        // A line too long to read ends the guess; one within the bound is read.
        let long = |n: usize| format!("{{\"type\":\"x\",\"s\":\"{}\"}}\n{codex}", "a".repeat(n));
        assert_eq!(Guess::head(long(Guess::RECORD_BYTES).as_bytes()), None);
        assert_eq!(Guess::head(long(1000).as_bytes()), Some(Agent::Codex));
        // The last line needs no newline.
        assert_eq!(Guess::head(codex.trim_end().as_bytes()), Some(Agent::Codex));
    }

    #[test]
    fn a_mark_decides() {
        assert_eq!(
            decides(r#"{"type":"thread.started","thread_id":"t"}"#),
            Some(Agent::Codex)
        );
        assert_eq!(decides(CURSOR_INIT), Some(Agent::Cursor));
        assert_eq!(
            decides(
                r#"{"type":"system","subtype":"init","cwd":"/","session_id":"s","tools":[],"claude_code_version":"2.1.0"}"#
            ),
            Some(Agent::Claude)
        );
        assert_eq!(
            decides(
                r#"{"type":"init","timestamp":"2025-01-01T00:00:00.000Z","session_id":"s","model":"auto"}"#
            ),
            Some(Agent::Gemini)
        );
        assert_eq!(
            decides(r#"{"type":"thinking","subtype":"delta","text":"a","timestamp_ms":1}"#),
            Some(Agent::Cursor)
        );
        assert_eq!(
            decides(r#"{"type":"session_start","line":1,"timestamp_ms":1}"#),
            Some(Agent::Common)
        );
    }

    #[test]
    fn opencode_and_gemini_tool_use_are_told_apart() {
        // OpenCode: a numeric `timestamp` and `sessionID`; Gemini CLI: an ISO one and `tool_id`.
        assert_eq!(
            decides(
                r#"{"type":"tool_use","timestamp":1790000002390,"sessionID":"ses_1","part":{"type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{},"output":""}}}"#
            ),
            Some(Agent::OpenCode)
        );
        assert_eq!(
            decides(
                r#"{"type":"tool_use","timestamp":"2025-01-01T00:00:00.000Z","tool_name":"read_file","tool_id":"t","parameters":{}}"#
            ),
            Some(Agent::Gemini)
        );
        // Grok Build's `text` has `data`, no `sessionID`.
        assert_eq!(decides(r#"{"type":"text","data":"hi"}"#), None);
        assert_eq!(
            decides(r#"{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{}}"#),
            Some(Agent::OpenCode)
        );
        // A `step_start` with an ISO timestamp is no agent's mark; its type still names OpenCode.
        assert_eq!(foreign("step_finish", Agent::Gemini), Some(Agent::OpenCode));
        assert_eq!(foreign("tool_use", Agent::OpenCode), None);
    }

    #[test]
    fn pis_events_and_header_are_its_marks() {
        assert_eq!(decides(r#"{"type":"agent_start"}"#), Some(Agent::Pi));
        // The header is Pi's session file's too: alone it decides nothing, and an input of
        // nothing else is the stream's (first in the registry).
        let header = r#"{"type":"session","version":3,"id":"019a8f3c-5b2e-7c41-9d3a-6e2f1b8c4d70","timestamp":"2026-09-21T14:13:20.112Z","cwd":"/w"}"#;
        assert_eq!(decides(header), None);
        let Reading::Scored(e) = read(header, &bumpalo::Bump::new()) else {
            panic!("the header scores");
        };
        assert_eq!(e.likeliest(), Some(Agent::Pi));
        // A `session` without its numeric `version` names no agent.
        assert_eq!(decides(r#"{"type":"session","id":"s"}"#), None);
        // Claude Code's `stream_event` nests a `message_start`; Pi's is a line of its own.
        assert_eq!(
            decides(
                r#"{"type":"stream_event","event":{"type":"message_start"},"parent_tool_use_id":null}"#
            ),
            Some(Agent::Claude)
        );
        assert_eq!(foreign("message_end", Agent::Claude), Some(Agent::Pi));
        assert_eq!(foreign("message_end", Agent::Pi), None);
        assert_eq!(foreign("assistant", Agent::Pi), Some(Agent::Claude));
    }

    #[test]
    fn copilot_clis_envelope_and_result_decide() {
        // The SDK's envelope: `data` beside `parentId` (null on a session's first event).
        assert_eq!(
            decides(
                r#"{"type":"session.mcp_server_status_changed","data":{"serverName":"github-mcp-server","status":"connected"},"id":"0b9f3c6e-1d2a-4e8b-9c7f-5a3e1d0b2c84","timestamp":"2026-09-10T03:26:31.070Z","parentId":null,"ephemeral":true}"#
            ),
            Some(Agent::Copilot)
        );
        assert_eq!(
            decides(
                r#"{"type":"abort","data":{"reason":"user_initiated"},"id":"i","timestamp":"2026-09-10T03:26:31.070Z","parentId":"p"}"#
            ),
            Some(Agent::Copilot)
        );
        // Its `result`: `exitCode` and the camel-case `sessionId`.
        assert_eq!(
            decides(
                r#"{"type":"result","timestamp":"2026-09-10T03:26:39.21Z","sessionId":"s","exitCode":0,"usage":{"premiumRequests":1}}"#
            ),
            Some(Agent::Copilot)
        );
        // Without the envelope a dotted type is no Copilot CLI mark: Kimi Code's
        // `session.resume_hint` is Kimi CLI's. Grok Build's `data` is a string.
        assert_eq!(
            decides(r#"{"role":"meta","type":"session.resume_hint","session_id":"s"}"#),
            Some(Agent::Kimi)
        );
        assert_eq!(
            decides(r#"{"type":"text","data":"hi","parentId":null}"#),
            None
        );
        // Claude Code's `result` has `session_id`.
        assert_ne!(
            decides(r#"{"type":"result","subtype":"success","session_id":"s","is_error":false}"#),
            Some(Agent::Copilot)
        );
        assert_eq!(
            foreign("assistant.message", Agent::Claude),
            Some(Agent::Copilot)
        );
        assert_eq!(foreign("result", Agent::Copilot), None);
    }

    #[test]
    fn droids_init_decides_nothing_and_its_own_records_do() {
        // droid's init, with and without `tools`: no agent's mark (cursor-agent's bare init has
        // `apiKeySource` and `permissionMode`, or no `model`).
        for init in [
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Read"],"model":"gpt-5-codex"}"#,
            r#"{"type":"system","subtype":"init","model":"claude-opus-4-8","session_id":"s1"}"#,
        ] {
            assert_eq!(decides(init), None, "{init}");
        }
        assert_eq!(
            decides(r#"{"type":"system","subtype":"init","session_id":"s"}"#),
            Some(Agent::Cursor)
        );
        for line in [
            r#"{"type":"message","role":"user","id":"u1","text":"hello","timestamp":12345,"session_id":"s"}"#,
            r#"{"type":"tool_call","id":"t1","messageId":"m1","toolId":"Read","toolName":"Read","parameters":{},"timestamp":1,"session_id":"s"}"#,
            r#"{"type":"tool_result","id":"t1","isError":false,"value":"x","session_id":"s"}"#,
            r#"{"type":"completion","finalText":"ok","numTurns":1,"durationMs":10,"session_id":"s"}"#,
        ] {
            assert_eq!(decides(line), Some(Agent::Droid), "{line}");
        }
        // Grok Build's `tool_call` has `toolName` too, with `toolCallId`.
        assert_eq!(
            decides(r#"{"type":"tool_call","toolCallId":"c","toolName":"read_file","title":"t"}"#),
            Some(Agent::Grok)
        );
        assert_eq!(foreign("message", Agent::Droid), None);
        assert_eq!(foreign("tool_call", Agent::Droid), None);
        assert_eq!(foreign("completion", Agent::Gemini), Some(Agent::Droid));
    }

    #[test]
    fn kimis_chat_messages_are_told_by_role_without_type() {
        for line in [
            r#"{"role":"assistant","content":"hi"}"#,
            r#"{"role":"tool","tool_call_id":"tc_1","content":"ok"}"#,
            r#"{"role":"meta","type":"session.resume_hint","session_id":"session_01","command":"kimi -r session_01","content":"To resume"}"#,
        ] {
            assert_eq!(decides(line), Some(Agent::Kimi), "{line}");
        }
        // `role` beside a `type` is another agent's (Gemini CLI's and droid's `message`).
        assert_eq!(
            decides(
                r#"{"type":"message","timestamp":"2025-01-01T00:00:00.000Z","role":"user","content":"x"}"#
            ),
            Some(Agent::Gemini)
        );
        // cursor-agent's SDK dialect has a top-level `tool_call_id`, with a `type`.
        assert_eq!(
            decides(
                r#"{"type":"tool-call-started","tool_name":"Shell","tool_call_id":"c","parameters":{}}"#
            ),
            Some(Agent::Cursor)
        );
        assert_eq!(r(r#"{"content":"no role"}"#), Reading::Nothing);
    }

    #[test]
    fn shared_fields_never_decide() {
        // cursor's init with every key Claude Code's init has too.
        let init = CURSOR_INIT.replace(
            r#""permissionMode":"default""#,
            r#""permissionMode":"default","tools":[],"uuid":"u","mcp_servers":[],"slash_commands":[],"skills":[],"plugins":[]"#,
        );
        let Reading::Scored(e) = r(&init) else {
            panic!("{init}")
        };
        assert_eq!(e.decisive(), None);
        // Undecided at the end: the tie goes to cursor.
        assert_eq!(e.likeliest(), Some(Agent::Cursor));
        // cursor's `user` has `message.content` as Claude Code's does: no mark.
        assert_eq!(
            decides(r#"{"type":"user","message":{"role":"user","content":[]},"session_id":"s"}"#),
            None
        );
        // Claude Code's assistant message has `id`, `model`, `usage`; cursor-agent's does not.
        // They are marks of the family Qwen Code and Amp share: the three tie, and the tie is
        // Claude Code's (see `claude::family`).
        let Reading::Scored(e) =
            r(r#"{"type":"assistant","message":{"id":"m","role":"assistant","content":[]}}"#)
        else {
            panic!()
        };
        assert_eq!(e.score(Agent::Claude), e.score(Agent::Qwen));
        assert_eq!(e.score(Agent::Claude), e.score(Agent::Amp));
        assert!(e.score(Agent::Claude) > e.score(Agent::Cursor));
        assert_eq!(e.decisive(), Some(Agent::Claude));
    }

    #[test]
    fn readings_without_evidence() {
        assert_eq!(r(r#"{"type":"mystery"}"#), Reading::Unknown);
        assert_eq!(r(r#"{"type":"error","message":"m"}"#), Reading::Nothing);
        assert_eq!(r(r#"{"no":"type"}"#), Reading::Nothing);
        assert_eq!(r(r"[1]"), Reading::Nothing);
    }

    #[test]
    fn another_agents_run_is_reported_once_and_not_checked() {
        let mut m = Mixed::default();
        let mut found = Vec::new();
        let mut emit = |d: Diagnostic| found.push(d);
        let pos = Position::default();
        let claude_init = r#"{"type":"system","subtype":"init","session_id":"s","tools":[],"claude_code_version":"2.1.0","uuid":"u"}"#;
        assert!(m.admits(Agent::Cursor, pos, CURSOR_INIT, &Sniffed::Unread, &mut emit));
        assert!(!m.admits(Agent::Cursor, pos, claude_init, &Sniffed::Unread, &mut emit));
        // Claude Code's records with no mark of cursor's are not checked either.
        assert!(!m.admits(
            Agent::Cursor,
            pos,
            r#"{"type":"result","subtype":"success","session_id":"s"}"#,
            &Sniffed::Unread,
            &mut emit
        ));
        // A cursor init ends the run of the other agent; a second Claude run is not reported.
        assert!(m.admits(Agent::Cursor, pos, CURSOR_INIT, &Sniffed::Unread, &mut emit));
        assert!(!m.admits(Agent::Cursor, pos, claude_init, &Sniffed::Unread, &mut emit));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, Rule::MixedAgents);
    }

    #[test]
    fn every_agent_has_an_evidence_function() {
        let arena = bumpalo::Bump::new();
        let s = parse::<Sniff<'_>>(r#"{"type":"system"}"#, &arena).unwrap();
        for a in Agent::ALL {
            let _ = marks(a)(&s);
        }
    }
}
