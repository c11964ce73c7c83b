//! The agents whose streams sjlint reads, and which one wrote an input.
//!
//! This module owns the [`Agent`] enum, the per-record vote that recognises an agent from a
//! record's own shape ([`vote`]), and the pieces every agent's checker shares: the borrowed view
//! machinery (the `view!` macro, [`Raw`] for values read later or never), the bounded table of
//! open tool calls ([`Calls`]) and the lifecycle state that `sjlint run` can ask about
//! ([`Progress`]). Each agent has a module of its own (`claude`, `codex`, `gemini`) that maps a
//! record into a small borrowed view, checks it with owned bounded state, and maps it into the
//! agent-neutral vocabulary of [`common`]. The cursor dialects stay in `event` and `validate`:
//! this module must not touch the cursor path beyond recognising it.
//!
//! Detection is per input: `check` asks [`vote`] about the first records until one of them
//! names an agent (surely, or as the likeliest), and holds the records that name none meanwhile
//! (a bounded number), so that a stream whose first records are not JSON or carry no type is
//! still checked as a whole by the right agent.
//!
//! For a supervisor (`sjlint run`): [`Checker::progress`] gives the live state of a stream of
//! these agents through [`Progress`]: whether its last session or turn has ended, and which
//! tool calls are open (id, opening line, tool name).

pub mod claude;
pub mod codex;
pub mod common;
pub mod gemini;

use crate::diagnostic::Diagnostic;
use crate::event::{Field, JsonType};
use crate::input::record::Position;
use crate::rules::Rule;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// Who wrote a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agent {
    /// `cursor-agent --output-format stream-json` (with its payload and sdk dialects).
    Cursor,
    /// `claude -p --output-format stream-json --verbose`.
    Claude,
    /// `codex exec --json`.
    Codex,
    /// `gemini -p … --output-format stream-json`.
    Gemini,
    /// sjlint's own agent-neutral form (`sjlint fmt --to common`).
    Common,
}

impl Agent {
    pub const ALL: [Agent; 5] = [
        Agent::Cursor,
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Common,
    ];

    /// The name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Cursor => "cursor",
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Common => "common",
        }
    }

    /// The name people know the CLI by, for messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Cursor => "cursor-agent",
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Common => "sjlint's common form",
        }
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How sure a record is of its agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    /// Nothing in the record names an agent (no `type`, or one no agent writes).
    None,
    /// A shape several agents share (`{"type":"result",…}` with nothing else to tell).
    Weak(Agent),
    /// A shape only this agent writes.
    Strong(Agent),
    /// An object with a string `type` that no agent writes.
    Unknown,
}

/// The ids of tool calls are kept as prefixes of at most this many bytes: a hostile stream
/// cannot make the checker keep long keys.
pub const MAX_ID_BYTES: usize = 256;
/// At most this many tool calls are kept open at once; the ones beyond are reported once and
/// not tracked.
pub const MAX_OPEN_CALLS: usize = 4096;
/// At most this many closed tool-call ids are remembered (for subagent lines and repeated
/// results); beyond it the oldest are forgotten and the checks that need them stay quiet.
pub const MAX_KNOWN_IDS: usize = 65_536;
/// Untrusted text quoted in a message is cut to this many characters.
pub const MAX_EXCERPT_CHARS: usize = 80;

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

/// `text` cut to [`MAX_EXCERPT_CHARS`] characters, with `…` when cut; for messages (reporters
/// escape it before printing).
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(MAX_EXCERPT_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
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

/// One open tool call.
#[derive(Clone, Copy, Debug)]
pub struct OpenCall {
    pub line: u64,
    /// The tool's name or item type, as an index into [`Calls`]' names.
    name: u32,
    /// When it started, in milliseconds since the epoch, when the stream says.
    pub start_ms: Option<u64>,
}

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// At most this many distinct tool names are kept; the ones beyond are named `(other)`.
const MAX_NAMES: usize = 256;

/// The open tool calls of a stream, by id, bounded: at most [`MAX_OPEN_CALLS`] entries, each
/// id at most [`MAX_ID_BYTES`] bytes. The keys of closed calls are kept for the next ones and
/// the tool names once each, so that a steady stream of calls allocates nothing.
#[derive(Default)]
pub struct Calls {
    open: Map<String, OpenCall>,
    spare: Vec<String>,
    names: Vec<Box<str>>,
    /// Hashes of the ids seen (open or closed), bounded, oldest forgotten first.
    known: Set<u64>,
    known_order: std::collections::VecDeque<u64>,
    /// The budget of open calls was exceeded (reported once).
    pub overflowed: bool,
}

/// What opening a call found.
pub enum Opened {
    Ok,
    /// The id is open already, since this line.
    AlreadyOpen(u64),
    /// The budget of open calls is spent: not tracked.
    OverBudget,
}

fn id_hash(id: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x1d5).hash_one(id.as_bytes())
}

impl Calls {
    pub fn open(&mut self, id: &str, line: u64, name: &str) -> Opened {
        self.open_at(id, line, name, None)
    }

    /// [`Calls::open`], with the time the call started.
    pub fn open_at(&mut self, id: &str, line: u64, name: &str, start_ms: Option<u64>) -> Opened {
        let id = id_prefix(id);
        if let Some(c) = self.open.get(id) {
            return Opened::AlreadyOpen(c.line);
        }
        if self.open.len() >= MAX_OPEN_CALLS {
            self.overflowed = true;
            return Opened::OverBudget;
        }
        self.remember(id);
        let name = self.name_index(name);
        let mut key = self.spare.pop().unwrap_or_default();
        key.clear();
        key.push_str(id);
        self.open.insert(
            key,
            OpenCall {
                line,
                name,
                start_ms,
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
        let (key, call) = self.open.remove_entry(id_prefix(id))?;
        if self.spare.len() < 64 {
            self.spare.push(key);
        }
        Some(call)
    }

    pub fn is_open(&self, id: &str) -> bool {
        self.open.contains_key(id_prefix(id))
    }

    /// The open call `id`, if it is open.
    pub fn get(&self, id: &str) -> Option<&OpenCall> {
        self.open.get(id_prefix(id))
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

    /// Takes every open call, in the order of their lines, with its id and tool name.
    pub fn drain(&mut self) -> Vec<(String, OpenCall, String)> {
        let mut all: Vec<_> = self
            .open
            .drain()
            .map(|(id, c)| {
                let name = self
                    .names
                    .get(c.name as usize)
                    .map_or("?", |n| n)
                    .to_owned();
                (id, c, name)
            })
            .collect();
        all.sort_by_key(|(_, c, _)| c.line);
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
            .map(|(id, c)| (id.clone(), c.line, self.name(c).to_owned()))
            .collect();
        v.sort_by_key(|(_, line, _)| *line);
        v
    }
}

/// The finding for a call that opened but never closed.
#[cold]
pub fn unfinished(line: u64, id: &str, name: &str, what: &str) -> Diagnostic {
    Diagnostic::new(
        Rule::UnfinishedToolCall,
        line_pos(line),
        format!(
            "tool call \"{}\" ({}) never completes",
            excerpt(id),
            excerpt(name)
        ),
    )
    .with_help(format!("pairing is by id: {what}"))
}

pub fn line_pos(line: u64) -> Position {
    Position {
        byte: 0,
        line,
        record: 0,
    }
}

/// An object key, borrowed from the record when it has no escapes.
pub struct Key<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A value kept as its raw JSON text, to be read later (or never): arrays of content blocks,
/// tool arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Raw<'a>(pub Option<&'a RawValue>);

impl<'a> Raw<'a> {
    pub fn get(&self) -> Option<&'a str> {
        self.0.map(RawValue::get)
    }

    /// The value as a string, when it is one: borrowed when it has no escapes. For the long
    /// texts (tool output, messages) that only the common form reads, so that checking skips
    /// them with the fast scan instead of unescaping them.
    pub fn text(&self) -> Option<Cow<'a, str>> {
        let raw = self.get()?.trim();
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        if !inner.contains('\\') {
            return Some(Cow::Borrowed(inner));
        }
        serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
    }

    /// The JSON type of the value, from its first byte.
    pub fn json_type(&self) -> Option<JsonType> {
        let t = self.get()?.trim_start();
        Some(match t.as_bytes().first()? {
            b'{' => JsonType::Object,
            b'[' => JsonType::Array,
            b'"' => JsonType::String,
            b't' | b'f' => JsonType::Bool,
            b'n' => JsonType::Null,
            _ => JsonType::Number,
        })
    }
}

impl<'de> Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(d).map(|r| Raw(Some(r)))
    }
}

/// Whether a member of a view was present in the record (to find repeated keys).
pub trait Slot {
    fn present(&self) -> bool;
}

impl Slot for Field<'_> {
    fn present(&self) -> bool {
        self.is_present()
    }
}

impl Slot for Raw<'_> {
    fn present(&self) -> bool {
        self.0.is_some()
    }
}

/// Declares a borrowed view of a JSON object: the listed keys go to the listed members (each a
/// [`Field`], a [`Raw`] or another view), the rest is skipped. A value that is not an object
/// gives a view whose `shape` is its type; `dup` is set when a listed key appears twice (the
/// last value is kept). Only `deserialize_any`, `deserialize_str` and `deserialize_ignored_any`
/// are asked of the reader, so the fast reader of `json.rs` reads every view.
macro_rules! view {
    ($(#[$m:meta])* pub struct $name:ident<'a> { $($(#[$fm:meta])* $key:literal => $field:ident : $ty:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Default)]
        pub struct $name<'a> {
            /// The JSON type of the value; `None` when absent.
            pub shape: Option<$crate::event::JsonType>,
            /// A listed key appears twice.
            pub dup: bool,
            $($(#[$fm])* pub $field: $ty,)*
            #[doc(hidden)]
            pub _life: std::marker::PhantomData<&'a ()>,
        }

        impl $crate::agents::Slot for $name<'_> {
            fn present(&self) -> bool {
                self.shape.is_some()
            }
        }

        impl $crate::agents::SetShape for $name<'_> {
            fn set_shape(&mut self, t: $crate::event::JsonType) {
                self.shape = Some(t);
            }
        }

        impl<'de> serde::Deserialize<'de> for $name<'de> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a JSON value")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Self::Value, A::Error> {
                        #[allow(unused_imports)]
                        use $crate::agents::Slot as _;
                        let mut v = $name {
                            shape: Some($crate::event::JsonType::Object),
                            ..Default::default()
                        };
                        while let Some(k) = map.next_key::<$crate::agents::Key<'de>>()? {
                            match &*k.0 {
                                $($key => {
                                    if v.$field.present() {
                                        v.dup = true;
                                    }
                                    v.$field = map.next_value()?;
                                })*
                                _ => {
                                    map.next_value::<serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(v)
                    }
                    $crate::agents::non_object_visits!($name);
                }
                d.deserialize_any(V)
            }
        }
    };
}
pub(crate) use view;

/// The visits of a view's visitor for values that are not objects: the view records the type.
macro_rules! non_object_visits {
    ($name:ident) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($crate::agents::shaped($crate::event::JsonType::Bool))
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($crate::agents::shaped($crate::event::JsonType::Number))
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($crate::agents::shaped($crate::event::JsonType::Number))
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($crate::agents::shaped($crate::event::JsonType::Number))
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($crate::agents::shaped($crate::event::JsonType::String))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($crate::agents::shaped($crate::event::JsonType::Null))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok($crate::agents::shaped($crate::event::JsonType::Array))
        }
    };
}
pub(crate) use non_object_visits;

/// A view of a value that is not an object.
pub fn shaped<T: Default + SetShape>(t: JsonType) -> T {
    let mut v = T::default();
    v.set_shape(t);
    v
}

/// Views record the type of a value that is not an object.
pub trait SetShape {
    fn set_shape(&mut self, t: JsonType);
}

/// Reads `text` (one record) into a view: the fast reader first, serde_json when it declines.
/// The view borrows from `text`, or from `arena` for strings with escapes.
pub fn parse<'a, T: Deserialize<'a>>(
    text: &'a str,
    arena: &'a bumpalo::Bump,
) -> Result<T, serde_json::Error> {
    if let Ok(v) = crate::json::from_str(text, Some(arena), std::marker::PhantomData::<T>) {
        return Ok(v);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let v = T::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Reads the array at `raw` element by element into `out` (an arena vector, so that nothing is
/// allocated per record). A value that is not an array leaves `out` empty and returns its type.
pub fn parse_array<'a, T: Deserialize<'a>>(
    raw: &'a str,
    arena: &'a bumpalo::Bump,
    out: &mut bumpalo::collections::Vec<'a, T>,
) -> Option<JsonType> {
    struct Seed<'o, 'a, T>(&'o mut bumpalo::collections::Vec<'a, T>);
    impl<'de, T: Deserialize<'de>> serde::de::DeserializeSeed<'de> for Seed<'_, 'de, T> {
        type Value = Option<JsonType>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Seed<'_, 'de, T> {
        type Value = Option<JsonType>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while let Some(x) = seq.next_element::<T>()? {
                self.0.push(x);
            }
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Some(JsonType::Object))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Bool))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Number))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Number))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Number))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Some(JsonType::String))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Some(JsonType::Null))
        }
    }
    out.clear();
    if let Ok(t) = crate::json::from_str(raw, Some(arena), Seed(out)) {
        return t;
    }
    out.clear();
    let mut de = serde_json::Deserializer::from_str(raw);
    // The raw text was read as valid JSON once already; serde_json reads it again.
    match serde::de::DeserializeSeed::deserialize(Seed(out), &mut de) {
        Ok(t) => t,
        Err(_) => {
            out.clear();
            None
        }
    }
}

view! {
    /// What [`vote`] reads of a record: the keys that tell the agents apart.
    pub struct Sniff<'a> {
        "type" => ty: Field<'a>,
        "subtype" => subtype: Field<'a>,
        "uuid" => uuid: Field<'a>,
        "parent_tool_use_id" => parent_tool_use_id: Field<'a>,
        "tools" => tools: Field<'a>,
        "mcp_servers" => mcp_servers: Field<'a>,
        "claude_code_version" => claude_code_version: Field<'a>,
        "total_cost_usd" => total_cost_usd: Field<'a>,
        "num_turns" => num_turns: Field<'a>,
        "message" => message: SniffMessage<'a>,
        "timestamp" => timestamp: Field<'a>,
        "timestamp_ms" => timestamp_ms: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "status" => status: Field<'a>,
        "severity" => severity: Field<'a>,
        "tool_id" => tool_id: Field<'a>,
        "role" => role: Field<'a>,
        "call_id" => call_id: Field<'a>,
        "model_call_id" => model_call_id: Field<'a>,
        "apiKeySource" => api_key_source: Field<'a>,
        "payload" => payload: Field<'a>,
        "line" => line: Field<'a>,
    }
}

view! {
    /// `message` as [`vote`] reads it.
    pub struct SniffMessage<'a> {
        "id" => id: Field<'a>,
        "model" => model: Field<'a>,
        "usage" => usage: Field<'a>,
    }
}

/// Event types only Claude Code writes.
const CLAUDE_ONLY_TYPES: &[&str] = &[
    "stream_event",
    "rate_limit_event",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
    "prompt_suggestion",
    "conversation_reset",
];

/// `system` subtypes only Claude Code writes.
const CLAUDE_ONLY_SUBTYPES: &[&str] = &[
    "hook_started",
    "hook_progress",
    "hook_response",
    "status",
    "compact_boundary",
    "api_retry",
    "task_started",
    "task_progress",
    "task_updated",
    "background_tasks_changed",
    "thinking_tokens",
    "session_state_changed",
    "permission_denied",
    "local_command_output",
    "files_persisted",
];

/// Whether `ty` is an event type of Codex's (`thread.started`, `item.completed`, …).
pub fn is_codex_type(ty: &str) -> bool {
    ty.starts_with("thread.")
        || ty.starts_with("turn.")
        || ty.starts_with("item.")
        || ty == "request_user_input"
}

/// Which agent, if any, the record `text` names by its shape.
pub fn vote(text: &str, arena: &bumpalo::Bump) -> Vote {
    let Ok(s) = parse::<Sniff<'_>>(text, arena) else {
        return Vote::None;
    };
    if s.shape != Some(JsonType::Object) {
        return Vote::None;
    }
    if s.payload.is_present() {
        return Vote::Strong(Agent::Cursor);
    }
    let Some(ty) = s.ty.as_str() else {
        return Vote::None;
    };
    if s.line.json_type() == Some(JsonType::Number) && common::Kind::from_name(ty).is_some() {
        return Vote::Strong(Agent::Common);
    }
    if is_codex_type(ty) {
        return Vote::Strong(Agent::Codex);
    }
    let claude_marks = s.uuid.is_present()
        || s.parent_tool_use_id.is_present()
        || s.tools.is_present()
        || s.mcp_servers.is_present()
        || s.claude_code_version.is_present()
        || s.total_cost_usd.is_present()
        || s.num_turns.is_present()
        || s.message.id.is_present()
        || s.message.model.is_present()
        || s.message.usage.is_present();
    let cursor_marks =
        s.timestamp_ms.is_present() || s.call_id.is_present() || s.model_call_id.is_present();
    match ty {
        _ if CLAUDE_ONLY_TYPES.contains(&ty) => Vote::Strong(Agent::Claude),
        // Gemini CLI stamps every event with an ISO-8601 string; other CLIs that reuse these
        // names (opencode's `tool_use`) do not.
        "init" | "message" | "tool_use" | "tool_result" if s.timestamp.as_str().is_some() => {
            Vote::Strong(Agent::Gemini)
        }
        "system"
            if s.subtype
                .as_str()
                .is_some_and(|st| CLAUDE_ONLY_SUBTYPES.contains(&st)) =>
        {
            Vote::Strong(Agent::Claude)
        }
        "system" | "assistant" | "user" | "result" if claude_marks => Vote::Strong(Agent::Claude),
        "result" if s.status.is_present() && !s.subtype.is_present() => Vote::Strong(Agent::Gemini),
        "error" if s.severity.is_present() => Vote::Strong(Agent::Gemini),
        "system" if s.subtype.as_str() == Some("init") && s.api_key_source.is_present() => {
            Vote::Strong(Agent::Cursor)
        }
        "tool_call"
        | "thinking"
        | "interaction_query"
        | "tool-call-started"
        | "tool-call-completed" => Vote::Strong(Agent::Cursor),
        "system" | "assistant" | "user" | "result" | "raw" if cursor_marks => {
            Vote::Strong(Agent::Cursor)
        }
        "system" | "assistant" | "user" | "result" | "raw" => Vote::Weak(Agent::Cursor),
        // Codex's, and cursor's payload dialect's: the records around it tell.
        "error" => Vote::None,
        _ => Vote::Unknown,
    }
}

/// The agent a record of another agent's stream belongs to, when its type says so clearly:
/// for the finding that a stream mixes two agents.
pub fn foreign(ty: &str, this: Agent) -> Option<Agent> {
    let other = if is_codex_type(ty) {
        Agent::Codex
    } else if CLAUDE_ONLY_TYPES.contains(&ty) {
        Agent::Claude
    } else if matches!(ty, "init" | "message" | "tool_use" | "tool_result") {
        Agent::Gemini
    } else if matches!(
        ty,
        "tool_call"
            | "thinking"
            | "interaction_query"
            | "tool-call-started"
            | "tool-call-completed"
    ) {
        Agent::Cursor
    } else if matches!(ty, "system" | "assistant" | "user")
        && matches!(this, Agent::Codex | Agent::Gemini)
    {
        // Claude Code and cursor-agent share these names; the finding names the first.
        Agent::Claude
    } else {
        return None;
    };
    (other != this).then_some(other)
}

/// The finding for the first record of another agent in a stream.
#[cold]
pub fn mixed(pos: Position, this: Agent, other: Agent, ty: &str) -> Diagnostic {
    Diagnostic::new(
        Rule::MixedAgents,
        pos,
        format!(
            "a `{}` record of {} in a stream of {}",
            excerpt(ty),
            other.display_name(),
            this.display_name()
        ),
    )
    .with_help(format!(
        "records of one agent only are checked; this one and any other {} records are not (were two captures concatenated?)",
        other.display_name()
    ))
}

/// Where an agent's checker sends its findings.
pub type Emit<'e> = &'e mut dyn FnMut(Diagnostic);
/// Where an agent's checker sends the agent-neutral events of a record, when they are wanted.
pub type Sink<'s, 'e> = Option<&'s mut dyn FnMut(&common::Event<'_>)>;

/// Why a record has no type its agent's checker goes on with.
pub enum NoType {
    /// No string `type`: `missing-type` was reported.
    Missing,
    /// A type of another agent: `mixed-agents` was reported, once per stream (`said`).
    Foreign,
}

/// What every agent's checker asks first of a record: its string `type`, when it is one this
/// agent may write. A record with none is `missing-type`; the first with another agent's type
/// is `mixed-agents`.
pub fn own_type<'t>(
    ty: Option<&'t str>,
    this: Agent,
    said: &mut bool,
    pos: Position,
    bytes: &[u8],
    emit: Emit<'_>,
) -> Result<&'t str, NoType> {
    let Some(ty) = ty else {
        emit(
            Diagnostic::new(Rule::MissingType, pos, "a record without a string `type`")
                .with_snippet(bytes),
        );
        return Err(NoType::Missing);
    };
    if let Some(other) = foreign(ty, this) {
        if !std::mem::replace(said, true) {
            emit(mixed(pos, this, other, ty));
        }
        return Err(NoType::Foreign);
    }
    Ok(ty)
}

/// The checker of one agent's stream (cursor's lives in `validate`).
pub enum Checker {
    Claude(Box<claude::Validator>),
    Codex(Box<codex::Validator>),
    Gemini(Box<gemini::Validator>),
    Common(Box<common::Validator>),
}

impl Checker {
    pub fn new(agent: Agent) -> Option<Checker> {
        Some(match agent {
            Agent::Cursor => return None,
            Agent::Claude => Checker::Claude(Box::default()),
            Agent::Codex => Checker::Codex(Box::default()),
            Agent::Gemini => Checker::Gemini(Box::default()),
            Agent::Common => Checker::Common(Box::default()),
        })
    }

    pub fn agent(&self) -> Agent {
        match self {
            Checker::Claude(_) => Agent::Claude,
            Checker::Codex(_) => Agent::Codex,
            Checker::Gemini(_) => Agent::Gemini,
            Checker::Common(_) => Agent::Common,
        }
    }

    /// Checks one record (`json`, parsed from the record's own `bytes`), and passes its events
    /// in the common vocabulary to `common` when given. `Err` when `json` does not parse (the
    /// caller's slow path reports it); `Ok(Some(t))` when it is valid JSON but not an object.
    #[allow(clippy::too_many_arguments)]
    pub fn record<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        json: &'a str,
        arena: &'a bumpalo::Bump,
        emit: &mut dyn FnMut(Diagnostic),
        common: Option<&mut dyn FnMut(&common::Event<'_>)>,
    ) -> Result<Option<JsonType>, serde_json::Error> {
        match self {
            Checker::Claude(v) => v.record(pos, bytes, json, arena, emit, common),
            Checker::Codex(v) => v.record(pos, bytes, json, arena, emit, common),
            Checker::Gemini(v) => v.record(pos, bytes, json, arena, emit, common),
            Checker::Common(v) => v.record(pos, bytes, json, arena, emit, common),
        }
    }

    pub fn finish(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        match self {
            Checker::Claude(v) => v.finish(emit),
            Checker::Codex(v) => v.finish(emit),
            Checker::Gemini(v) => v.finish(emit),
            Checker::Common(v) => v.finish(emit),
        }
    }

    /// The live state, for a supervisor.
    pub fn progress(&self) -> &dyn Progress {
        match self {
            Checker::Claude(v) => &**v,
            Checker::Codex(v) => &**v,
            Checker::Gemini(v) => &**v,
            Checker::Common(v) => &**v,
        }
    }
}

/// A number field as u64, when it is one.
pub fn count(f: &Field<'_>) -> Option<u64> {
    match *f {
        Field::UInt(n) => Some(n),
        Field::Int(n) if n >= 0 => Some(n as u64),
        Field::Float(x) if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 => Some(x as u64),
        _ => None,
    }
}

/// The checks every agent makes of a field's type: a finding when `f` is present with a type
/// not in `ok` (`null` is accepted when `nullable`).
#[cold]
pub fn wrong_type(
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    found: JsonType,
    want: &str,
) -> Diagnostic {
    let d = Diagnostic::new(
        Rule::WrongFieldType,
        pos,
        format!(
            "`{}` is {}, expected {want}",
            path.join("."),
            found.as_str()
        ),
    );
    match crate::locate::value(bytes, path) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    }
}

#[cold]
pub fn missing(pos: Position, bytes: &[u8], what: &str, field: &str) -> Diagnostic {
    Diagnostic::new(Rule::MissingField, pos, format!("{what} has no `{field}`")).with_snippet(bytes)
}

/// The type a field must have.
#[derive(Clone, Copy)]
pub enum Want {
    Str,
    Num,
    Bool,
    Obj,
}

impl Want {
    fn name(self) -> &'static str {
        match self {
            Want::Str => "a string",
            Want::Num => "a number",
            Want::Bool => "a boolean",
            Want::Obj => "an object",
        }
    }

    fn accepts(self, t: JsonType) -> bool {
        matches!(
            (self, t),
            (Want::Str, JsonType::String)
                | (Want::Num, JsonType::Number)
                | (Want::Bool, JsonType::Bool)
                | (Want::Obj, JsonType::Object)
        )
    }
}

/// Checks the type of a present field (`null` allowed when `nullable`); absent fields pass.
#[inline]
pub fn expect(
    t: Option<JsonType>,
    want: Want,
    nullable: bool,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: &mut dyn FnMut(Diagnostic),
) -> bool {
    match t {
        None => true,
        Some(t) if want.accepts(t) || (nullable && t == JsonType::Null) => true,
        Some(t) => {
            let want = if nullable {
                format!("{} or null", want.name())
            } else {
                want.name().to_owned()
            };
            emit(wrong_type(pos, bytes, path, t, &want));
            false
        }
    }
}

/// Checks a required field: a finding when absent, or present with the wrong type.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn require(
    t: Option<JsonType>,
    want: Want,
    what: &str,
    pos: Position,
    bytes: &[u8],
    path: &[&str],
    emit: &mut dyn FnMut(Diagnostic),
) -> bool {
    if t.is_none() {
        emit(missing(pos, bytes, what, &path.join(".")));
        return false;
    }
    expect(t, want, false, pos, bytes, path, emit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Vote {
        vote(text, &bumpalo::Bump::new())
    }

    #[test]
    fn votes() {
        assert_eq!(
            v(r#"{"type":"thread.started","thread_id":"t"}"#),
            Vote::Strong(Agent::Codex)
        );
        assert_eq!(
            v(r#"{"type":"system","subtype":"init","cwd":"/","session_id":"s","tools":[]}"#),
            Vote::Strong(Agent::Claude)
        );
        assert_eq!(
            v(
                r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/","session_id":"s","model":"m","permissionMode":"default"}"#
            ),
            Vote::Strong(Agent::Cursor)
        );
        assert_eq!(
            v(
                r#"{"type":"init","timestamp":"2025-01-01T00:00:00.000Z","session_id":"s","model":"auto"}"#
            ),
            Vote::Strong(Agent::Gemini)
        );
        assert_eq!(v(r#"{"type":"result"}"#), Vote::Weak(Agent::Cursor));
        assert_eq!(v(r#"{"type":"mystery"}"#), Vote::Unknown);
        assert_eq!(v(r#"{"no":"type"}"#), Vote::None);
        assert_eq!(v(r#"[1]"#), Vote::None);
    }

    #[test]
    fn ids_are_bounded() {
        let long = "é".repeat(300);
        assert!(id_prefix(&long).len() <= MAX_ID_BYTES);
        let mut calls = Calls::default();
        assert!(matches!(calls.open(&long, 1, "x"), Opened::Ok));
        assert!(calls.close(&long).is_some());
    }
}
