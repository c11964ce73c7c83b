//! The agents whose streams sjlint reads, and which one wrote an input.
//!
//! This module owns the registry (`agents!`: the [`Agent`] enum and each agent's names,
//! command line, schema and fixtures), the view of a record read into its agent's shape
//! (`Line`, which the pipeline's lanes make), the [`Checker`] that checks a view with its
//! agent's rules, and the lifecycle state `sjlint run` asks about ([`Progress`]). The pieces
//! every checker shares live beside it: `detect` (each agent's score of a record, which
//! recognises an agent, and the finding for a stream of two agents), `views` (the `view!` macro
//! and [`Raw`], the borrowed reading of a record), `calls` (the bounded table of open tool
//! calls) and `fields` (the checks of a field's type). Each agent has a module of its own
//! (`claude`, `codex`, `gemini`, `grok`, `opencode`, `pi`, `copilot`, `droid`, `kimi`, `common`;
//! Qwen Code and Amp write Claude Code's shape and are read by `claude` with a profile of their
//! own) that reads a record into a small
//! borrowed view, checks it with owned bounded state, and maps it into the common vocabulary of
//! [`crate::vocab`]. cursor-agent is one of them, behind the same `Line` and [`Checker`]: its
//! records are read by `cursor::view` (three dialects), checked by `cursor::validate`, and mapped
//! into the vocabulary by `cursor`. See `docs/adding-an-agent.md` for what a new agent takes.
//!
//! Detection is per input and by evidence, never by one field: each agent scores the first
//! records on the marks only it writes ([`marks`]); a record with one agent's mark decides at
//! once, and the records that decide nothing (not JSON, no type, or only fields several agents
//! write) are held meanwhile (a bounded number) until one does, or until the bound or the end
//! of the input, when the highest score wins. A stream whose first records are not JSON or
//! carry no type is still checked as a whole by the right agent. Once the agent is known,
//! [`Mixed`] finds a record of another agent by the same scores.
//!
//! For a supervisor (`sjlint run`): [`Checker::progress`] gives the live state of a stream of
//! these agents through [`Progress`]: whether its last session or turn has ended, and which
//! tool calls are open (id, opening line, tool name).

mod calls;
pub mod claude;
pub mod codex;
pub mod common;
pub mod copilot;
pub mod cursor;
mod detect;
pub mod droid;
mod fields;
pub mod gemini;
pub mod grok;
pub mod kimi;
pub mod opencode;
pub mod pi;
mod views;

pub use calls::{Calls, OpenCall, Opened, line_pos, over_budget, unfinished};
pub use detect::{
    Evidence, Guess, MARK, Mixed, Reading, SHAPE, Sniff, SniffMessage, Sniffed, count_marks,
    foreign, is_codex_type, marks, mixed, read,
};
pub use fields::{
    Emit, NoType, Sink, Typed, Want, count, expect, expect_count, known_type, missing, own_type,
    parse_timestamp, require, unknown_type, wrong_type,
};
pub use views::{InPlace, Key, Raw, SetShape, Slot, parse, parse_array, parse_into};
pub(crate) use views::{non_object_visits, view};

use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use std::fmt;

/// Declares the registry: the [`Agent`] enum and, per agent, its names, its command line, the
/// schema of its events and where its fixtures are. One line an agent; see [`REGISTRY`].
macro_rules! agents {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            name: $name:literal,
            display: $display:literal,
            command: $command:literal,
            schema: $schema:literal,
            fixtures: $fixtures:literal $(,)?
        }
    )*) => {
        /// Who wrote a stream: one variant per line of the registry.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Agent {
            $($(#[$doc])* $variant,)*
        }

        /// Every agent sjlint reads, in the registry's order, with what the rest of sjlint
        /// needs to know of it besides its checker.
        pub static REGISTRY: &[Entry] = &[$(
            Entry {
                agent: Agent::$variant,
                name: $name,
                display: $display,
                command: $command,
                schema: $schema,
                fixtures: $fixtures,
            },
        )*];

        impl Agent {
            pub const ALL: [Agent; 0 $(+ { let _ = Agent::$variant; 1 })*] = [$(Agent::$variant,)*];
        }
    };
}

/// One line of the registry.
#[derive(Debug)]
pub struct Entry {
    pub agent: Agent,
    /// The name `--agent` takes and JSON outputs use.
    pub name: &'static str,
    /// The name people know the CLI by, for messages.
    pub display: &'static str,
    /// The command line that writes the stream.
    pub command: &'static str,
    /// The bundled schema of its events (`sjlint schema NAME`).
    pub schema: &'static str,
    /// The folder of `testdata/` holding clean streams of it, every one recognised as this
    /// agent (the tests hold each line to its fixtures, schema and row of docs/agents.md).
    pub fixtures: &'static str,
}

agents! {
    /// `cursor-agent --output-format stream-json` (with its payload and sdk dialects).
    Cursor {
        name: "cursor",
        display: "cursor-agent",
        command: "cursor-agent -p --output-format stream-json",
        schema: "events",
        fixtures: "healthy",
    }
    /// `claude -p --output-format stream-json --verbose`.
    Claude {
        name: "claude",
        display: "Claude Code",
        command: "claude -p --output-format stream-json --verbose",
        schema: "claude",
        fixtures: "agents/claude",
    }
    /// `codex exec --json`.
    Codex {
        name: "codex",
        display: "Codex",
        command: "codex exec --json",
        schema: "codex",
        fixtures: "agents/codex",
    }
    /// `gemini -p … --output-format stream-json`.
    Gemini {
        name: "gemini",
        display: "Gemini CLI",
        command: "gemini -p … --output-format stream-json",
        schema: "gemini",
        fixtures: "agents/gemini",
    }
    /// `grok -p … --output-format streaming-json` (xAI Grok Build).
    Grok {
        name: "grok",
        display: "Grok Build",
        command: "grok -p … --output-format streaming-json",
        schema: "grok",
        fixtures: "agents/grok",
    }
    /// `opencode run --format json`.
    OpenCode {
        name: "opencode",
        display: "OpenCode",
        command: "opencode run --format json",
        schema: "opencode",
        fixtures: "agents/opencode",
    }
    /// `pi -p --mode json` (the pi-mono coding agent).
    Pi {
        name: "pi",
        display: "Pi",
        command: "pi -p --mode json",
        schema: "pi",
        fixtures: "agents/pi",
    }
    /// `copilot -p … --output-format json` (GitHub Copilot CLI).
    Copilot {
        name: "copilot",
        display: "Copilot CLI",
        command: "copilot -p … --output-format json -s",
        schema: "copilot",
        fixtures: "agents/copilot",
    }
    /// `droid exec -o stream-json` (Factory).
    Droid {
        name: "droid",
        display: "Factory droid",
        command: "droid exec -o stream-json",
        schema: "droid",
        fixtures: "agents/droid",
    }
    /// `kimi --print --output-format stream-json` (Moonshot AI's Kimi CLI / Kimi Code).
    Kimi {
        name: "kimi",
        display: "Kimi CLI",
        command: "kimi --print --output-format stream-json",
        schema: "kimi",
        fixtures: "agents/kimi",
    }
    /// `qwen -p … --output-format stream-json` (Claude Code's shape; see `claude::family`).
    Qwen {
        name: "qwen",
        display: "Qwen Code",
        command: "qwen -p … --output-format stream-json",
        schema: "qwen",
        fixtures: "agents/qwen",
    }
    /// `amp -x … --stream-json` (Claude Code's shape; see `claude::family`).
    Amp {
        name: "amp",
        display: "Amp",
        command: "amp -x … --stream-json",
        schema: "amp",
        fixtures: "agents/amp",
    }
    /// sjlint's own agent-neutral form (`sjlint fmt --to common`).
    Common {
        name: "common",
        display: "sjlint's common form",
        command: "sjlint fmt --to common",
        schema: "common",
        fixtures: "agents/common",
    }
}

impl Agent {
    /// cursor-agent, the agent sjlint first read: an input is read as its stream when nothing in
    /// it names one (it holds no event, or only events without a type), `--dialect` means it,
    /// `fmt` rewrites its records in their canonical form (every other agent's in the common
    /// form), and the reports leave it unnamed, as they did before sjlint knew other agents.
    pub const DEFAULT: Agent = Agent::Cursor;

    /// This agent's line of the registry.
    pub fn entry(self) -> &'static Entry {
        // The registry lists the variants in their order.
        &REGISTRY[self as usize]
    }

    /// The name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        self.entry().name
    }

    /// Its stream says what a run cost in dollars (`end.cost_usd` of the common form): what
    /// `run --max-cost` can act on.
    pub fn reports_cost(self) -> bool {
        matches!(
            self,
            Agent::Claude | Agent::Grok | Agent::Pi | Agent::OpenCode | Agent::Common
        )
    }

    /// The name people know the CLI by, for messages.
    pub fn display_name(self) -> &'static str {
        self.entry().display
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        REGISTRY.iter().find(|e| e.name == name).map(|e| e.agent)
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The ids of tool calls are kept as prefixes of at most this many bytes: a hostile stream
/// cannot make the checker keep long keys.
pub const MAX_ID_BYTES: usize = 256;
/// At most this many closed tool-call ids are remembered (for subagent lines and repeated
/// results); beyond it the oldest are forgotten and the checks that need them stay quiet.
pub const MAX_KNOWN_IDS: usize = 65_536;

/// The bounded prefix of an id under which it is kept.
pub fn id_prefix(id: &str) -> &str {
    if id.len() <= MAX_ID_BYTES {
        return id;
    }
    let mut end = MAX_ID_BYTES;
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    &id[..end]
}

/// At most this many bytes of an answer are kept for the `end` event (see [`Answer`]).
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// The assistant's last message, kept (bounded) for the common `end` event of agents whose
/// terminal record does not carry the run's final text (Codex, Gemini CLI, Grok Build). Kept
/// only while common events are wanted.
#[derive(Default)]
pub struct Answer {
    text: String,
}

impl Answer {
    /// A new message begins (or a tool call ends the one under way).
    pub fn clear(&mut self) {
        self.text.clear();
    }

    /// More of the message under way, up to [`MAX_ANSWER_BYTES`] in all.
    pub fn push(&mut self, piece: &str) {
        let room = MAX_ANSWER_BYTES.saturating_sub(self.text.len());
        let mut end = piece.len().min(room);
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&piece[..end]);
    }

    /// The message, when there is one.
    pub fn text(&self) -> Option<std::borrow::Cow<'_, str>> {
        (!self.text.is_empty()).then_some(std::borrow::Cow::Borrowed(self.text.as_str()))
    }
}

/// What the run looks like so far, for anyone watching it live (`sjlint run`, the status line):
/// whether its last session has ended and which tool calls are open.
pub trait Progress {
    /// The last session or turn has its terminal event, and no later one has begun.
    fn ended(&self) -> bool;
    /// The open tool calls: id (a bounded prefix), the line that opened it, and the tool's name
    /// as the stream gives it.
    fn open_calls(&self) -> Vec<(String, u64, String)>;
}

/// `duplicate-key`: the record repeats a top-level key its agent's checker reads (which value
/// a consumer takes depends on its JSON reader: most take the last, some the first).
#[cold]
fn duplicate_key(pos: Position, bytes: &[u8], json: &str) -> Diagnostic {
    let key = views::first_repeated_key(json).unwrap_or_default();
    let d = Diagnostic::from_message(pos, crate::rules::messages::duplicate_key(&key, None));
    match crate::locate::value(bytes, &[&key]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

/// One record read into its agent's view: the pure half
/// of checking it, which the pipeline's lanes do side by side, apart from the checker's state.
/// Read in place, in the slot of its record, and never moved: a box would allocate per record.
#[derive(Debug)]
pub(crate) enum Line<'a> {
    Cursor(cursor::Line<'a>),
    Claude(claude::Line<'a>),
    Codex(codex::Line<'a>),
    Gemini(gemini::Line<'a>),
    Grok(grok::Line<'a>),
    OpenCode(opencode::Line<'a>),
    Pi(pi::Line<'a>),
    Copilot(copilot::Line<'a>),
    Droid(droid::Line<'a>),
    Kimi(kimi::Record<'a>),
    /// Qwen Code's and Amp's records are read into Claude Code's view.
    Qwen(claude::Line<'a>),
    Amp(claude::Line<'a>),
    Common(common::Line<'a>),
}

impl<'a> Line<'a> {
    /// An empty view of `agent`'s records (cursor-agent's read as `dialect`, when
    /// `--dialect` forces one; other agents have one shape). Returned by value, not in an
    /// option, so that it is made where it goes: a view is some hundred bytes, and moving it
    /// costs as much as reading a short record.
    #[inline(always)]
    pub(crate) fn empty(agent: Agent, dialect: Option<cursor::view::Dialect>) -> Self {
        match agent {
            Agent::Cursor => Line::Cursor(cursor::Line::forced(dialect)),
            Agent::Claude => Line::Claude(claude::Line::default()),
            Agent::Codex => Line::Codex(codex::Line::default()),
            Agent::Gemini => Line::Gemini(gemini::Line::default()),
            Agent::Grok => Line::Grok(grok::Line::default()),
            Agent::OpenCode => Line::OpenCode(opencode::Line::default()),
            Agent::Pi => Line::Pi(pi::Line::default()),
            Agent::Copilot => Line::Copilot(copilot::Line::default()),
            Agent::Droid => Line::Droid(droid::Line::default()),
            Agent::Kimi => Line::Kimi(kimi::Record::default()),
            Agent::Qwen => Line::Qwen(claude::Line::default()),
            Agent::Amp => Line::Amp(claude::Line::default()),
            Agent::Common => Line::Common(common::Line::default()),
        }
    }

    /// The record carries a mark only its agent writes (what [`detect`] scores as one), read
    /// from the view already made: a stream whose records have their own agent's mark needs no
    /// second reading to know that no other agent's run has begun ([`Mixed::admits`]).
    #[inline]
    pub(crate) fn own_mark(&self) -> bool {
        match self {
            Line::Cursor(l) => l.own_mark(),
            Line::Claude(l) => claude::family::own_mark(l, claude::Profile::Claude),
            Line::Qwen(l) => claude::family::own_mark(l, claude::Profile::Qwen),
            Line::Amp(l) => claude::family::own_mark(l, claude::Profile::Amp),
            Line::Codex(l) => l.ty.as_str().is_some_and(is_codex_type),
            Line::Gemini(l) => match l.ty.as_str() {
                Some("init" | "message" | "tool_use" | "tool_result") => {
                    l.timestamp.as_str().is_some()
                }
                _ => false,
            },
            Line::Grok(l) => match l.ty.as_str() {
                Some("tool_call") => l.tool_call_id.is_present(),
                Some("end") => l.stop_reason.is_present(),
                Some(t) => grok::OWN_TYPES.contains(&t),
                None => false,
            },
            Line::OpenCode(l) => {
                l.ty.as_str()
                    .is_some_and(|t| opencode::marked(t, &l.session_id, &l.timestamp))
            }
            Line::Pi(l) => l.ty.as_str().is_some_and(|t| pi::marked(t, &l.version)),
            Line::Copilot(l) => l.ty.as_str().is_some_and(|t| {
                copilot::marked(
                    t,
                    l.data.shape,
                    l.parent_id.0.is_some(),
                    l.exit_code.json_type(),
                    l.session_id.is_present(),
                )
            }),
            Line::Droid(l) => l.ty.as_str().is_some_and(|t| {
                droid::marked(
                    t,
                    &droid::Keys {
                        text: l.text.0.is_some(),
                        ids: l.message_id.is_present() || l.tool_id.is_present(),
                        bare_tool_name: l.tool_name.is_present() && !l.tool_call_id.is_present(),
                        is_error: l.is_error.is_present(),
                        final_text: l.final_text.0.is_some(),
                    },
                )
            }),
            Line::Kimi(l) => kimi::marked(&l.line.role, &l.line.ty),
            Line::Common(_) => false,
        }
    }

    /// A record of an input no agent sjlint knows wrote: read with cursor-agent's view, which
    /// reads any object's `type` and `subtype` (and those of its dialects' wrappers), for the
    /// consumers that count or show what such records are. Nothing checks it.
    pub(crate) fn unknown() -> Self {
        Line::Cursor(cursor::Line::default())
    }

    /// The JSON type of a record read by [`Line::unknown`] whose value is no object.
    pub(crate) fn unknown_shape(&self) -> Option<JsonType> {
        match self {
            Line::Cursor(l) => l.not_an_object(),
            _ => None,
        }
    }

    /// cursor-agent's view of the record, for the one consumer that rewrites its records
    /// (`fmt`'s canonical writer); `None` for every other agent's.
    pub(crate) fn cursor_event(&self) -> Option<&cursor::view::Event<'a>> {
        match self {
            Line::Cursor(l) => l.event(),
            _ => None,
        }
    }

    /// A key the record's view reads appears twice at its top level.
    #[inline]
    pub(crate) fn has_duplicate_key(&self) -> bool {
        match self {
            // cursor-agent's checker names a repeated key itself, with the event's schema.
            Line::Cursor(_) => false,
            Line::Claude(l) | Line::Qwen(l) | Line::Amp(l) => l.dup,
            Line::Codex(l) => l.dup,
            Line::Gemini(l) => l.dup,
            Line::Grok(l) => l.dup,
            Line::OpenCode(l) => l.dup,
            Line::Pi(l) => l.dup,
            Line::Copilot(l) => l.dup,
            Line::Droid(l) => l.dup,
            Line::Kimi(l) => l.line.dup,
            Line::Common(l) => l.dup,
        }
    }

    pub(crate) fn agent(&self) -> Agent {
        match self {
            Line::Cursor(_) => Agent::Cursor,
            Line::Claude(_) => Agent::Claude,
            Line::Codex(_) => Agent::Codex,
            Line::Gemini(_) => Agent::Gemini,
            Line::Grok(_) => Agent::Grok,
            Line::OpenCode(_) => Agent::OpenCode,
            Line::Pi(_) => Agent::Pi,
            Line::Copilot(_) => Agent::Copilot,
            Line::Droid(_) => Agent::Droid,
            Line::Kimi(_) => Agent::Kimi,
            Line::Qwen(_) => Agent::Qwen,
            Line::Amp(_) => Agent::Amp,
            Line::Common(_) => Agent::Common,
        }
    }

    /// Reads `json` (one record) into this view, which is empty (see [`parse_into`]).
    pub(crate) fn parse_into(
        &mut self,
        json: &'a str,
        arena: &'a bumpalo::Bump,
    ) -> Result<(), serde_json::Error> {
        match self {
            Line::Cursor(l) => l.parse_into(json, arena),
            Line::Claude(l) | Line::Qwen(l) | Line::Amp(l) => parse_into(json, arena, l),
            Line::Codex(l) => parse_into(json, arena, l),
            Line::Gemini(l) => parse_into(json, arena, l),
            Line::Grok(l) => parse_into(json, arena, l),
            Line::OpenCode(l) => parse_into(json, arena, l),
            Line::Pi(l) => parse_into(json, arena, l),
            Line::Copilot(l) => parse_into(json, arena, l),
            Line::Droid(l) => parse_into(json, arena, l),
            Line::Kimi(l) => l.parse_into(json, arena),
            Line::Common(l) => parse_into(json, arena, l),
        }
    }

    /// The record's `type`, when it is a string (Kimi CLI's: its `role`, but for `meta` lines).
    pub(crate) fn ty(&self) -> Option<&str> {
        match self {
            Line::Cursor(l) => l.ev.ty.as_str(),
            Line::Claude(l) | Line::Qwen(l) | Line::Amp(l) => l.ty.as_str(),
            Line::Codex(l) => l.ty.as_str(),
            Line::Gemini(l) => l.ty.as_str(),
            Line::Grok(l) => l.ty.as_str(),
            Line::OpenCode(l) => l.ty.as_str(),
            Line::Pi(l) => l.ty.as_str(),
            Line::Copilot(l) => l.ty.as_str(),
            Line::Droid(l) => l.ty.as_str(),
            // Its records' discriminator is `role`; only `meta` lines have a `type`.
            Line::Kimi(l) => l.line.ty.as_str().or_else(|| l.line.role.as_str()),
            Line::Common(l) => l.ty.as_str(),
        }
    }

    /// What the record says of how its event went: Claude Code's `subtype`, the `status` of a
    /// `result` (Gemini CLI's `success` or `error`), or Copilot CLI's `exitCode` as either.
    pub(crate) fn subtype(&self) -> Option<&str> {
        match self {
            Line::Cursor(l) => l.ev.subtype.as_str(),
            Line::Claude(l) | Line::Qwen(l) | Line::Amp(l) => l.subtype.as_str(),
            Line::Droid(l) => l.subtype.as_str(),
            Line::Gemini(l) if l.ty.as_str() == Some("result") => l.status.as_str().map(id_prefix),
            Line::Grok(l) if l.ty.as_str() == Some("result") => l.status.as_str().map(id_prefix),
            // Copilot CLI's `result` says how the run went by its `exitCode`.
            Line::Copilot(l) if l.ty.as_str() == Some("result") => match l.exit_code {
                Field::UInt(0) | Field::Int(0) => Some("success"),
                Field::UInt(_) | Field::Int(_) => Some("error"),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A record read into the view of another agent than the checker's.
#[derive(Debug)]
pub(crate) struct OtherAgent;

/// The checker of one agent's stream.
pub enum Checker {
    Cursor(Box<cursor::Checker>),
    Claude(Box<claude::Validator>),
    Codex(Box<codex::Validator>),
    Gemini(Box<gemini::Validator>),
    Grok(Box<grok::Validator>),
    OpenCode(Box<opencode::Validator>),
    Pi(Box<pi::Validator>),
    Copilot(Box<copilot::Validator>),
    Droid(Box<droid::Validator>),
    Kimi(Box<kimi::Validator>),
    /// Claude Code's checker, with Qwen Code's profile.
    Qwen(Box<claude::Validator>),
    /// Claude Code's checker, with Amp's profile.
    Amp(Box<claude::Validator>),
    Common(Box<common::Validator>),
}

impl Checker {
    /// The checker of `agent`'s stream, keeping at most `max_open_calls` tool calls open
    /// (`--max-open-calls`; past it `too-many-open-calls` is said once a session), with the
    /// rules `enabled` (cursor-agent's checker asks before building some findings).
    pub fn new(agent: Agent, max_open_calls: usize, enabled: crate::rules::RuleSet) -> Checker {
        let mut c = match agent {
            Agent::Cursor => {
                return Checker::Cursor(Box::new(cursor::Checker::new(enabled, max_open_calls)));
            }
            Agent::Claude => Checker::Claude(Box::default()),
            Agent::Codex => Checker::Codex(Box::default()),
            Agent::Gemini => Checker::Gemini(Box::default()),
            Agent::Grok => Checker::Grok(Box::default()),
            Agent::OpenCode => Checker::OpenCode(Box::default()),
            Agent::Pi => Checker::Pi(Box::default()),
            Agent::Copilot => Checker::Copilot(Box::default()),
            Agent::Droid => Checker::Droid(Box::default()),
            Agent::Kimi => Checker::Kimi(Box::default()),
            Agent::Qwen => Checker::Qwen(Box::new(claude::Validator::new(claude::Profile::Qwen))),
            Agent::Amp => Checker::Amp(Box::new(claude::Validator::new(claude::Profile::Amp))),
            Agent::Common => Checker::Common(Box::default()),
        };
        let calls = match &mut c {
            Checker::Claude(v) | Checker::Qwen(v) | Checker::Amp(v) => &mut v.calls,
            Checker::Codex(v) => &mut v.calls,
            Checker::Gemini(v) => &mut v.calls,
            Checker::Grok(v) => &mut v.calls,
            Checker::OpenCode(v) => &mut v.calls,
            Checker::Pi(v) => &mut v.calls,
            Checker::Copilot(v) => &mut v.calls,
            Checker::Droid(v) => &mut v.calls,
            Checker::Kimi(v) => &mut v.calls,
            Checker::Common(v) => &mut v.calls,
            Checker::Cursor(_) => unreachable!("returned above"),
        };
        calls.set_max_open(max_open_calls);
        c
    }

    pub fn agent(&self) -> Agent {
        match self {
            Checker::Cursor(_) => Agent::Cursor,
            Checker::Claude(_) => Agent::Claude,
            Checker::Codex(_) => Agent::Codex,
            Checker::Gemini(_) => Agent::Gemini,
            Checker::Grok(_) => Agent::Grok,
            Checker::OpenCode(_) => Agent::OpenCode,
            Checker::Pi(_) => Agent::Pi,
            Checker::Copilot(_) => Agent::Copilot,
            Checker::Droid(_) => Agent::Droid,
            Checker::Kimi(_) => Agent::Kimi,
            Checker::Qwen(_) => Agent::Qwen,
            Checker::Amp(_) => Agent::Amp,
            Checker::Common(_) => Agent::Common,
        }
    }

    /// Checks one record read into its view already, and passes its events in the common
    /// vocabulary to `common` when given: `Err` when `line` is not this
    /// checker's agent's view, `Ok(Some(t))` when the record is valid JSON but not an object.
    #[expect(
        clippy::too_many_arguments,
        reason = "the record, its view and the caller's sinks"
    )]
    pub(crate) fn check<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        json: &'a str,
        line: &Line<'a>,
        arena: &'a bumpalo::Bump,
        emit: &mut dyn FnMut(Diagnostic),
        common: Option<&mut dyn FnMut(&crate::vocab::Event<'_>)>,
    ) -> Result<Option<JsonType>, OtherAgent> {
        if line.has_duplicate_key() {
            emit(duplicate_key(pos, bytes, json));
        }
        Ok(match (self, line) {
            (Checker::Cursor(v), Line::Cursor(l)) => v.check(pos, bytes, json, l, emit, common),
            (Checker::Claude(v), Line::Claude(l))
            | (Checker::Qwen(v), Line::Qwen(l))
            | (Checker::Amp(v), Line::Amp(l)) => v.check(pos, bytes, json, l, arena, emit, common),
            (Checker::Codex(v), Line::Codex(l)) => {
                v.check(pos, bytes, json, l, arena, emit, common)
            }
            (Checker::Gemini(v), Line::Gemini(l)) => {
                v.check(pos, bytes, json, l, arena, emit, common)
            }
            (Checker::Grok(v), Line::Grok(l)) => v.check(pos, bytes, json, l, arena, emit, common),
            (Checker::OpenCode(v), Line::OpenCode(l)) => {
                v.check(pos, bytes, json, l, arena, emit, common)
            }
            (Checker::Pi(v), Line::Pi(l)) => v.check(pos, bytes, json, l, arena, emit, common),
            (Checker::Copilot(v), Line::Copilot(l)) => {
                v.check(pos, bytes, json, l, arena, emit, common)
            }
            (Checker::Droid(v), Line::Droid(l)) => {
                v.check(pos, bytes, json, l, arena, emit, common)
            }
            (Checker::Kimi(v), Line::Kimi(l)) => v.check(pos, bytes, json, l, arena, emit, common),
            (Checker::Common(v), Line::Common(l)) => {
                v.check(pos, bytes, json, l, arena, emit, common)
            }
            _ => return Err(OtherAgent),
        })
    }

    /// A record on `line` could not be read: what its absence would cause is not reported.
    #[cold]
    pub fn on_unreadable(&mut self, line: u64) {
        match self {
            Checker::Cursor(v) => v.on_unreadable(line),
            Checker::Claude(v) | Checker::Qwen(v) | Checker::Amp(v) => {
                v.calls.on_unreadable(line);
            }
            Checker::Codex(v) => v.calls.on_unreadable(line),
            Checker::Gemini(v) => v.calls.on_unreadable(line),
            Checker::Grok(v) => v.calls.on_unreadable(line),
            Checker::OpenCode(v) => v.calls.on_unreadable(line),
            Checker::Pi(v) => v.calls.on_unreadable(line),
            Checker::Copilot(v) => v.calls.on_unreadable(line),
            Checker::Droid(v) => v.calls.on_unreadable(line),
            Checker::Kimi(v) => v.calls.on_unreadable(line),
            Checker::Common(v) => v.calls.on_unreadable(line),
        }
    }

    /// The input ended: the common events still due (the `end` of an OpenCode run whose last
    /// step stopped, the tokens of a Copilot CLI run cut short, the `end` of a Kimi CLI run that
    /// completed), before [`Self::finish`].
    pub fn finish_common(&mut self, sink: &mut dyn FnMut(&crate::vocab::Event<'_>)) {
        match self {
            Checker::OpenCode(v) => v.finish_common(sink),
            Checker::Copilot(v) => v.finish_common(sink),
            Checker::Kimi(v) => v.finish_common(sink),
            _ => {}
        }
    }

    pub fn finish(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        match self {
            Checker::Cursor(v) => v.finish(emit),
            Checker::Claude(v) | Checker::Qwen(v) | Checker::Amp(v) => v.finish(emit),
            Checker::Codex(v) => v.finish(emit),
            Checker::Gemini(v) => v.finish(emit),
            Checker::Grok(v) => v.finish(emit),
            Checker::OpenCode(v) => v.finish(emit),
            Checker::Pi(v) => v.finish(emit),
            Checker::Copilot(v) => v.finish(emit),
            Checker::Droid(v) => v.finish(emit),
            Checker::Kimi(v) => v.finish(emit),
            Checker::Common(v) => v.finish(emit),
        }
    }

    /// Called for every record of the stream, read or not, before [`Self::check`]: what waits
    /// for a second record is said (cursor-agent's `missing-init` of a stream that opens with
    /// its `result`, which alone is the `--output-format json` form).
    pub fn on_record(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        if let Checker::Cursor(v) = self {
            v.on_record(emit);
        }
    }

    /// Whether the agent's schema describes the record checked last (`unknown-field` compares
    /// only such records): cursor-agent's only in its canonical dialect.
    pub fn schema_describes_last(&self) -> bool {
        match self {
            Checker::Cursor(v) => v.schema_describes_last(),
            _ => true,
        }
    }

    /// The live state, for a supervisor.
    pub fn progress(&self) -> &dyn Progress {
        match self {
            Checker::Cursor(v) => &**v,
            Checker::Claude(v) | Checker::Qwen(v) | Checker::Amp(v) => &**v,
            Checker::Codex(v) => &**v,
            Checker::Gemini(v) => &**v,
            Checker::Grok(v) => &**v,
            Checker::OpenCode(v) => &**v,
            Checker::Pi(v) => &**v,
            Checker::Copilot(v) => &**v,
            Checker::Droid(v) => &**v,
            Checker::Kimi(v) => &**v,
            Checker::Common(v) => &**v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_lists_every_agent_once_in_the_enums_order() {
        for (i, (e, a)) in REGISTRY.iter().zip(Agent::ALL).enumerate() {
            assert_eq!(e.agent, a, "line {i} of the registry");
            assert_eq!(a as usize, i);
            assert_eq!(Agent::from_name(e.name), Some(a));
        }
        assert_eq!(REGISTRY.len(), Agent::ALL.len());
    }
}
