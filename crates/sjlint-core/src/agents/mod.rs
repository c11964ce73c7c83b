//! The agents whose streams sjlint reads, and which one wrote an input.
//!
//! This module owns the registry (`agents!`: the [`Agent`] enum and each agent's names,
//! command line, schema and fixtures), the view of a record read into its agent's shape
//! (`Line`, which the pipeline's lanes make), and the [`Checker`] that checks a view with its
//! agent's rules. What each agent implements for them (its view, its rules, the [`Progress`]
//! `sjlint run` asks about, the record [`Cx`] it is handed) is `contract`. The pieces every
//! checker shares live beside it: `detect` (each agent's score of a record, which
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
pub(crate) mod chain;
pub mod claude;
pub mod codex;
pub mod common;
mod contract;
pub mod copilot;
pub mod cursor;
mod detect;
pub mod droid;
mod fields;
pub mod gemini;
pub mod grok;
pub mod kimi;
pub mod lifecycle;
pub mod opencode;
pub mod pi;
mod views;

pub use calls::{Calls, OpenCall, Opened, line_pos, over_budget, unfinished};
pub use claude::log as claude_log;
pub use codex::log as codex_log;
pub use contract::{Cx, Progress};
pub(crate) use contract::{Rules, View};
pub use copilot::log as copilot_log;
pub use cursor::log as cursor_log;
pub use detect::{
    Evidence, Guess, MARK, Mixed, Reading, SHAPE, Sniff, SniffMessage, Sniffed, count_marks,
    foreign, is_codex_type, marks, mixed, read,
};
pub use fields::{
    Emit, NoType, Sink, Typed, Want, count, expect, expect_count, known_type, missing, own_type,
    parse_timestamp, require, unknown_type, wrong_type,
};
pub use gemini::log as gemini_log;
pub use pi::log as pi_log;
pub use views::{InPlace, Key, Raw, SetShape, Slot, parse, parse_array, parse_into};
pub(crate) use views::{non_object_visits, view};

use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::JsonType;
use std::fmt;

/// Declares the registry: the [`Agent`] enum and, per agent, its names, its command line, the
/// schema of its events, where its fixtures are, the view its records are read into, its
/// checker and its evidence; and from them the dispatch ([`Line`], [`Checker`]). One line an
/// agent; see [`REGISTRY`].
macro_rules! agents {
    (@log_of) => { None };
    (@log_of $of:ident) => { Some(Agent::$of) };
    (@source) => { Source::Stream };
    (@source $of:ident) => { Source::SessionLog };
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            name: $name:literal,
            $(log_of: $log_of:ident,)?
            display: $display:literal,
            command: $command:literal,
            schema: $schema:literal,
            fixtures: $fixtures:literal,
            cost: $cost:literal,
            view: $vmod:ident :: $view:ident,
            checker: $cmod:ident :: $checker:ident,
            evidence: $evidence:path,
            types: $types:path $(,)?
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
                source: agents!(@source $($log_of)?),
                log_of: agents!(@log_of $($log_of)?),
                display: $display,
                command: $command,
                schema: $schema,
                fixtures: $fixtures,
                reports_cost: $cost,
                evidence: $evidence,
                types: &$types,
            },
        )*];

        impl Agent {
            pub const ALL: [Agent; 0 $(+ { let _ = Agent::$variant; 1 })*] = [$(Agent::$variant,)*];
        }

        /// One record read into its agent's view: the pure half of checking it, which the
        /// pipeline's lanes do side by side, apart from the checker's state. Read in place, in
        /// the slot of its record, and never moved: a box would allocate per record.
        #[derive(Debug)]
        pub(crate) enum Line<'a> {
            $($variant($vmod::$view<'a>),)*
        }

        /// The checker of one agent's stream.
        pub enum Checker {
            $($variant(Box<$cmod::$checker>),)*
        }

        /// `$body` for the view in `$line`, whichever agent's it is (`$l` names it), as a
        /// `match` of one arm per agent: the dispatch stays static and inlined.
        macro_rules! each_line {
            ($line:expr, $l:ident => $body:expr) => {
                match $line {
                    $(Line::$variant($l) => $body,)*
                }
            };
        }

        /// `$body` for the checker `$of`, whichever agent's it is (`$c` names it).
        macro_rules! each_checker {
            ($of:expr, $c:ident => $body:expr) => {
                match $of {
                    $(Checker::$variant($c) => $body,)*
                }
            };
        }

        impl Line<'_> {
            /// An empty view of `agent`'s records (cursor-agent's read as `dialect`, when
            /// `--dialect` forces one; other agents have one shape). Returned by value, not in
            /// an option, so that it is made where it goes: a view is some hundred bytes, and
            /// moving it costs as much as reading a short record.
            #[inline(always)]
            pub(crate) fn empty(agent: Agent, dialect: Option<cursor::view::Dialect>) -> Self {
                match agent {
                    $(Agent::$variant => Line::$variant(View::empty(dialect)),)*
                }
            }

            pub(crate) fn agent(&self) -> Agent {
                match self {
                    $(Line::$variant(_) => Agent::$variant,)*
                }
            }
        }

        impl Checker {
            pub fn agent(&self) -> Agent {
                match self {
                    $(Checker::$variant(_) => Agent::$variant,)*
                }
            }

            /// The checker of `agent`'s stream, keeping at most `max_open_calls` tool calls
            /// open (`--max-open-calls`; past it `too-many-open-calls` is said once a session),
            /// with the rules `enabled` (cursor-agent's checker asks before building some
            /// findings).
            pub fn new(
                agent: Agent,
                max_open_calls: usize,
                enabled: crate::rules::RuleSet,
            ) -> Checker {
                match agent {
                    $(Agent::$variant => Checker::$variant(Box::new(
                        Rules::new(agent, max_open_calls, enabled),
                    )),)*
                }
            }

            /// Checks one record read into its view already, and passes its events in the
            /// common vocabulary to `cx.sink` when given: `Err` when `line` is not this
            /// checker's agent's view, `Ok(Some(t))` when the record is valid JSON but not an
            /// object.
            pub(crate) fn check<'a>(
                &mut self,
                cx: Cx<'a, '_>,
                line: &Line<'a>,
            ) -> Result<Option<JsonType>, OtherAgent> {
                if line.has_duplicate_key() {
                    (cx.emit)(duplicate_key(cx.pos, cx.bytes, cx.json));
                }
                Ok(match (self, line) {
                    $((Checker::$variant(v), Line::$variant(l)) => v.check(cx, l),)*
                    _ => return Err(OtherAgent),
                })
            }
        }
    };
}

/// One line of the registry.
#[derive(Debug)]
pub struct Entry {
    pub agent: Agent,
    /// The line's own name, unique in the registry: the one `--agent` takes ([`Agent::id`]).
    /// JSON outputs use it too, but for a session log, which they name by the agent that
    /// writes it ([`Agent::as_str`]).
    pub name: &'static str,
    /// What the line reads: the agent's stream, or the log it keeps on disk.
    pub source: Source,
    /// For a session log, the agent whose log it is (its stream's line).
    pub log_of: Option<Agent>,
    /// The name people know the CLI by, for messages.
    pub display: &'static str,
    /// The command line that writes the stream.
    pub command: &'static str,
    /// The bundled schema of its events (`sjlint schema NAME`).
    pub schema: &'static str,
    /// The folder of `testdata/` holding clean streams of it, every one recognised as this
    /// agent (the tests hold each line to its fixtures, schema and row of docs/agents.md).
    pub fixtures: &'static str,
    /// Its stream says what a run cost in dollars (`end.cost_usd` of the common form): what
    /// `run --max-cost` can act on.
    pub reports_cost: bool,
    /// How strongly a record is this agent's (see [`marks`]): [`MARK`] per mark only it writes.
    pub evidence: fn(&Sniff<'_>) -> u32,
    /// The record types that name it in another agent's stream, and those it shares
    /// ([`detect::foreign`]).
    pub types: &'static Types,
}

/// What an agent's record types say of it when they turn up in another agent's stream: a record
/// of a type one agent owns, in the stream of an agent that does not write that type, is the
/// first's ([`detect::foreign`]). No two lines of the registry own the same type (a test holds
/// them to it), so the registry's order does not matter.
#[derive(Debug)]
pub struct Types {
    /// Types no other agent writes but those that list them in `shared`, in groups (an agent's
    /// own list, the names it shares with its family, …).
    pub own: &'static [&'static [&'static str]],
    /// Prefixes of the types it owns (Codex's `thread.`, `turn.`, `item.`).
    pub own_prefixes: &'static [&'static str],
    /// Types it writes that another agent owns: in its stream they are its own.
    pub shared: &'static [&'static [&'static str]],
}

impl Types {
    /// An agent none of whose types names it: its records are told by their keys.
    pub const NONE: Types = Types {
        own: &[],
        own_prefixes: &[],
        shared: &[],
    };

    /// `ty` names this agent.
    #[must_use]
    pub fn owns(&self, ty: &str) -> bool {
        self.own.iter().any(|g| g.contains(&ty))
            || self.own_prefixes.iter().any(|p| ty.starts_with(p))
    }

    /// This agent writes `ty`, though another may own it.
    #[must_use]
    pub fn writes(&self, ty: &str) -> bool {
        self.owns(ty) || self.shared.iter().any(|g| g.contains(&ty))
    }
}

agents! {
    /// `cursor-agent --output-format stream-json` (with its payload and sdk dialects).
    Cursor {
        name: "cursor",
        display: "cursor-agent",
        command: "cursor-agent -p --output-format stream-json",
        schema: "events",
        fixtures: "healthy",
        cost: false,
        view: cursor::Line,
        checker: cursor::Checker,
        evidence: cursor::evidence,
        types: cursor::TYPE_NAMES,
    }
    /// `claude -p --output-format stream-json --verbose`.
    Claude {
        name: "claude",
        display: "Claude Code",
        command: "claude -p --output-format stream-json --verbose",
        schema: "claude",
        fixtures: "agents/claude",
        cost: true,
        view: claude::Line,
        checker: claude::Validator,
        evidence: claude::evidence,
        types: claude::TYPE_NAMES,
    }
    /// `codex exec --json`.
    Codex {
        name: "codex",
        display: "Codex",
        command: "codex exec --json",
        schema: "codex",
        fixtures: "agents/codex",
        cost: false,
        view: codex::Line,
        checker: codex::Validator,
        evidence: codex::evidence,
        types: codex::TYPE_NAMES,
    }
    /// `gemini -p … --output-format stream-json`.
    Gemini {
        name: "gemini",
        display: "Gemini CLI",
        command: "gemini -p … --output-format stream-json",
        schema: "gemini",
        fixtures: "agents/gemini",
        cost: false,
        view: gemini::Line,
        checker: gemini::Validator,
        evidence: gemini::evidence,
        types: gemini::TYPE_NAMES,
    }
    /// `grok -p … --output-format streaming-json` (xAI Grok Build).
    Grok {
        name: "grok",
        display: "Grok Build",
        command: "grok -p … --output-format streaming-json",
        schema: "grok",
        fixtures: "agents/grok",
        cost: true,
        view: grok::Line,
        checker: grok::Validator,
        evidence: grok::evidence,
        types: grok::TYPE_NAMES,
    }
    /// `opencode run --format json`.
    OpenCode {
        name: "opencode",
        display: "OpenCode",
        command: "opencode run --format json",
        schema: "opencode",
        fixtures: "agents/opencode",
        cost: true,
        view: opencode::Line,
        checker: opencode::Validator,
        evidence: opencode::evidence,
        types: opencode::TYPE_NAMES,
    }
    /// `pi -p --mode json` (the pi-mono coding agent).
    Pi {
        name: "pi",
        display: "Pi",
        command: "pi -p --mode json",
        schema: "pi",
        fixtures: "agents/pi",
        cost: true,
        view: pi::Line,
        checker: pi::Validator,
        evidence: pi::evidence,
        types: pi::TYPE_NAMES,
    }
    /// `copilot -p … --output-format json` (GitHub Copilot CLI).
    Copilot {
        name: "copilot",
        display: "Copilot CLI",
        command: "copilot -p … --output-format json -s",
        schema: "copilot",
        fixtures: "agents/copilot",
        cost: false,
        view: copilot::Line,
        checker: copilot::Validator,
        evidence: copilot::evidence,
        types: copilot::TYPE_NAMES,
    }
    /// `droid exec -o stream-json` (Factory).
    Droid {
        name: "droid",
        display: "Factory droid",
        command: "droid exec -o stream-json",
        schema: "droid",
        fixtures: "agents/droid",
        cost: false,
        view: droid::Line,
        checker: droid::Validator,
        evidence: droid::evidence,
        types: droid::TYPE_NAMES,
    }
    /// `kimi --print --output-format stream-json` (Moonshot AI's Kimi CLI / Kimi Code).
    Kimi {
        name: "kimi",
        display: "Kimi CLI",
        command: "kimi --print --output-format stream-json",
        schema: "kimi",
        fixtures: "agents/kimi",
        cost: false,
        view: kimi::Record,
        checker: kimi::Validator,
        evidence: kimi::evidence,
        types: Types::NONE,
    }
    /// `qwen -p … --output-format stream-json` (Claude Code's shape; see `claude::family`).
    Qwen {
        name: "qwen",
        display: "Qwen Code",
        command: "qwen -p … --output-format stream-json",
        schema: "qwen",
        fixtures: "agents/qwen",
        cost: false,
        view: claude::Line,
        checker: claude::Validator,
        evidence: claude::family::qwen,
        types: claude::family::TYPE_NAMES,
    }
    /// `amp -x … --stream-json` (Claude Code's shape; see `claude::family`).
    Amp {
        name: "amp",
        display: "Amp",
        command: "amp -x … --stream-json",
        schema: "amp",
        fixtures: "agents/amp",
        cost: false,
        view: claude::Line,
        checker: claude::Validator,
        evidence: claude::family::amp,
        types: claude::family::TYPE_NAMES,
    }
    /// Claude Code's session logs, the transcripts it keeps on disk
    /// (`~/.claude/projects/<project>/<session>.jsonl`).
    ClaudeLog {
        name: "claude-log",
        log_of: Claude,
        display: "Claude Code session log",
        command: "claude (its transcripts: ~/.claude/projects/<project>/<session>.jsonl)",
        schema: "claude-log",
        fixtures: "agents/claude-log",
        cost: false,
        view: claude_log::Record,
        checker: claude_log::Validator,
        evidence: claude_log::evidence,
        types: Types::NONE,
    }
    /// Codex's session logs, the rollouts it keeps on disk
    /// (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    CodexLog {
        name: "codex-log",
        log_of: Codex,
        display: "Codex session log",
        command: "codex (its rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)",
        schema: "codex-log",
        fixtures: "agents/codex-log",
        cost: false,
        view: codex_log::Record,
        checker: codex_log::Validator,
        evidence: codex_log::evidence,
        types: Types::NONE,
    }
    /// Pi's session files, the sessions it keeps on disk
    /// (`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`).
    PiLog {
        name: "pi-log",
        log_of: Pi,
        display: "Pi session log",
        command: "pi (its sessions: ~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl)",
        schema: "pi-log",
        fixtures: "agents/pi-log",
        cost: false,
        view: pi_log::Record,
        checker: pi_log::Validator,
        evidence: pi_log::evidence,
        types: Types::NONE,
    }
    /// cursor-agent's transcripts, the conversations it keeps on disk
    /// (`~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl`, and `subagents/`).
    CursorLog {
        name: "cursor-log",
        log_of: Cursor,
        display: "cursor-agent session log",
        command: "cursor-agent (its transcripts: ~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl)",
        schema: "cursor-log",
        fixtures: "agents/cursor-log",
        cost: false,
        view: cursor_log::Record,
        checker: cursor_log::Validator,
        evidence: cursor_log::evidence,
        types: Types::NONE,
    }
    /// GitHub Copilot CLI's session logs, the events it keeps on disk
    /// (`~/.copilot/session-state/<id>/events.jsonl`; 0.0.4xx: `session-state/<id>.jsonl`).
    CopilotLog {
        name: "copilot-log",
        log_of: Copilot,
        display: "Copilot CLI session log",
        command: "copilot (its session events: ~/.copilot/session-state/<id>/events.jsonl)",
        schema: "copilot-log",
        fixtures: "agents/copilot-log",
        cost: false,
        view: copilot::Line,
        checker: copilot_log::Validator,
        evidence: copilot_log::evidence,
        types: Types::NONE,
    }
    /// Gemini CLI's chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, and the
    /// one-document `session-*.json` of the versions before 0.39).
    GeminiLog {
        name: "gemini-log",
        log_of: Gemini,
        display: "Gemini CLI session log",
        command: "gemini (its chats: ~/.gemini/tmp/<project>/chats/session-*.jsonl)",
        schema: "gemini-log",
        fixtures: "agents/gemini-log",
        cost: false,
        view: gemini_log::Record,
        checker: gemini_log::Validator,
        evidence: gemini_log::evidence,
        types: Types::NONE,
    }
    /// sjlint's own agent-neutral form (`sjlint fmt --to common`).
    Common {
        name: "common",
        display: "sjlint's common form",
        command: "sjlint fmt --to common",
        schema: "common",
        fixtures: "agents/common",
        cost: true,
        view: common::Line,
        checker: common::Validator,
        evidence: common::evidence,
        types: common::TYPE_NAMES,
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

    /// The name outputs use (`agent` of `stats` and of the common form): the registry's
    /// own name for a stream, the name of the agent that keeps it for a session log (a Claude
    /// Code transcript is `claude`'s, read apart by [`Agent::source`]).
    pub fn as_str(self) -> &'static str {
        match self.entry().log_of {
            Some(of) => of.entry().name,
            None => self.entry().name,
        }
    }

    /// The registry's own name of the line, unique: the one `--agent` takes (`claude-log`
    /// for Claude Code's session logs, `claude` for its stream).
    pub fn id(self) -> &'static str {
        self.entry().name
    }

    /// What the line reads: a stream an agent prints, or a session log it keeps.
    pub fn source(self) -> Source {
        self.entry().source
    }

    /// Its stream says what a run cost in dollars (`end.cost_usd` of the common form): what
    /// `run --max-cost` can act on.
    pub fn reports_cost(self) -> bool {
        self.entry().reports_cost
    }

    /// The name people know the CLI by, for messages.
    pub fn display_name(self) -> &'static str {
        self.entry().display
    }

    /// The line whose [`Agent::id`] is `name` (a stream's id is its agent's name, so `claude`
    /// is Claude Code's stream and `claude-log` its session log).
    pub fn from_name(name: &str) -> Option<Agent> {
        REGISTRY.iter().find(|e| e.name == name).map(|e| e.agent)
    }
}

/// What a line of the registry reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The events an agent prints as it runs (`--output-format stream-json` and the like).
    Stream,
    /// The transcript an agent keeps on disk (`~/.claude/projects/*/*.jsonl`): no record
    /// says how a session began or ended, and its token counts follow the log's own rules.
    SessionLog,
}

impl Source {
    /// The name outputs use: `stream` or `session-log`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Stream => "stream",
            Source::SessionLog => "session-log",
        }
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

impl<'a> Line<'a> {
    /// The record carries a mark only its agent writes (what [`detect`] scores as one), read
    /// from the view already made: a stream whose records have their own agent's mark needs no
    /// second reading to know that no other agent's run has begun ([`Mixed::admits`]).
    #[inline]
    pub(crate) fn own_mark(&self) -> bool {
        let agent = self.agent();
        each_line!(self, l => l.own_mark(agent))
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
        each_line!(self, l => l.has_duplicate_key())
    }

    /// Reads `json` (one record) into this view, which is empty (see [`parse_into`]).
    pub(crate) fn parse_into(
        &mut self,
        json: &'a str,
        arena: &'a bumpalo::Bump,
    ) -> Result<(), serde_json::Error> {
        each_line!(self, l => l.parse_into(json, arena))
    }

    /// The record's `type`, when it is a string (Kimi CLI's: its `role`, but for `meta` lines).
    pub(crate) fn ty(&self) -> Option<&str> {
        each_line!(self, l => l.ty())
    }

    /// What the record says of how its event went: Claude Code's `subtype`, the `status` of a
    /// `result` (Gemini CLI's `success` or `error`), or Copilot CLI's `exitCode` as either.
    pub(crate) fn subtype(&self) -> Option<&str> {
        each_line!(self, l => l.subtype())
    }
}

/// A record read into the view of another agent than the checker's.
#[derive(Debug)]
pub(crate) struct OtherAgent;

impl Checker {
    /// A record on `line` could not be read: what its absence would cause is not reported.
    #[cold]
    pub fn on_unreadable(&mut self, line: u64) {
        each_checker!(self, v => v.on_unreadable(line));
    }

    /// The input ended: the common events still due (the `end` of an OpenCode run whose last
    /// step stopped, the tokens of a Copilot CLI run cut short, the `end` of a Kimi CLI run that
    /// completed), before [`Self::finish`].
    pub fn finish_common(&mut self, sink: &mut dyn FnMut(&crate::vocab::Event<'_>)) {
        each_checker!(self, v => v.finish_common(sink));
    }

    pub fn finish(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        each_checker!(self, v => v.finish(emit));
    }

    /// Called for every record of the stream, read or not, before [`Self::check`]: what waits
    /// for a second record is said (cursor-agent's `missing-init` of a stream that opens with
    /// its `result`, which alone is the `--output-format json` form).
    pub fn on_record(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        each_checker!(self, v => v.on_record(emit));
    }

    /// Whether the agent's schema describes the record checked last (`unknown-field` compares
    /// only such records): cursor-agent's only in its canonical dialect.
    pub fn schema_describes_last(&self) -> bool {
        each_checker!(self, v => v.schema_describes_last())
    }

    /// The live state, for a supervisor.
    pub fn progress(&self) -> &dyn Progress {
        each_checker!(self, v => &**v)
    }
}
