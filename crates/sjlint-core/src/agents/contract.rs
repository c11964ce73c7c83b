//! What each agent implements for the registry's dispatch: the view of a record ([`View`]),
//! the checker with its rules ([`Rules`]), the live state `sjlint run` asks about
//! ([`Progress`]), and the record a checker is handed ([`Cx`]), with the type preamble every
//! checker asks first.
//!
//! This module owns that contract; the registry and the dispatch over it are `agents`' own.
//! It must not know any agent.

use super::{Agent, Emit, NoType, Sink, Typed, cursor, known_type, own_type};
use crate::input::record::Position;
use crate::json::JsonType;
use std::fmt;

/// What the run looks like so far, for anyone watching it live (`sjlint run`, the status line):
/// whether its last session has ended and which tool calls are open.
pub trait Progress {
    /// The last session or turn has its terminal event, and no later one has begun.
    fn ended(&self) -> bool;
    /// The open tool calls: id (a bounded prefix), the line that opened it, and the tool's name
    /// as the stream gives it.
    fn open_calls(&self) -> Vec<(String, u64, String)>;
}

/// One record as a checker reads it: where it is, its bytes and text, the arena its view was
/// read into, and where its findings and its common events go. Made per record by the
/// pipeline and taken apart by each agent's `Rules::check`.
pub struct Cx<'a, 's> {
    pub pos: Position,
    /// The record's own bytes (for snippets and spans).
    pub bytes: &'s [u8],
    /// The record's text, which its view borrows.
    pub json: &'a str,
    /// Where the view put what it unescaped or substituted.
    pub arena: &'a bumpalo::Bump,
    /// Where findings go.
    pub emit: Emit<'s>,
    /// Where the record's events in the common vocabulary go, when they are wanted.
    pub sink: Sink<'s, 's>,
}

impl Cx<'_, '_> {
    /// The question every checker asks first of a record (`ty`, its `type`, of a value of
    /// JSON type `shape`), with its findings ([`own_type`]): `Ok` with the type to go on with,
    /// or `Err` with what `Rules::check` returns, the record's JSON type when it is no object.
    /// A record with no type is the last one read (`last_line`), as far as its absence goes.
    pub fn own_type<'t>(
        &mut self,
        shape: Option<JsonType>,
        ty: Option<&'t str>,
        this: Agent,
        said: &mut bool,
        last_line: &mut u64,
    ) -> Result<&'t str, Option<JsonType>> {
        if shape != Some(JsonType::Object) {
            return Err(shape);
        }
        own_type(ty, this, said, self.pos, self.bytes, &mut *self.emit).map_err(|why| {
            if matches!(why, NoType::Missing) {
                *last_line = self.pos.line;
            }
            None
        })
    }

    /// [`Cx::own_type`] for an agent with a fixed list of `types` ([`known_type`]): another
    /// type is `Err(None)` too.
    pub fn known_type<'t>(
        &mut self,
        shape: Option<JsonType>,
        ty: Option<&'t str>,
        this: Agent,
        types: &[&str],
        said: &mut bool,
        last_line: &mut u64,
    ) -> Result<&'t str, Option<JsonType>> {
        if shape != Some(JsonType::Object) {
            return Err(shape);
        }
        match known_type(ty, this, types, said, self.pos, self.bytes, &mut *self.emit) {
            Typed::Known(ty) => Ok(ty),
            Typed::Missing => {
                *last_line = self.pos.line;
                Err(None)
            }
            Typed::Other => Err(None),
        }
    }
}

/// What the registry's dispatch asks of an agent's view of a record.
pub(crate) trait View<'a>: fmt::Debug + Default {
    /// An empty view, made where it goes (cursor-agent's read as `dialect` when `--dialect`
    /// forces one; the other agents have one shape and ignore it).
    #[inline(always)]
    fn empty(_dialect: Option<cursor::view::Dialect>) -> Self {
        Self::default()
    }
    /// Reads `json` (one record) into this view, which is empty (see [`parse_into`]).
    fn parse_into(
        &mut self,
        json: &'a str,
        arena: &'a bumpalo::Bump,
    ) -> Result<(), serde_json::Error>;
    /// The record carries a mark only `agent` writes (what [`detect`] scores as one), read from
    /// the view already made (`agent` tells the agents that share a view apart).
    fn own_mark(&self, agent: Agent) -> bool;
    /// A key the view reads appears twice at the record's top level.
    fn has_duplicate_key(&self) -> bool;
    /// The record's `type`, when it is a string.
    fn ty(&self) -> Option<&str>;
    /// What the record says of how its event went (Claude Code's `subtype`, a `result`'s
    /// `status`), when it says it.
    fn subtype(&self) -> Option<&str> {
        None
    }
}

/// What the registry's dispatch asks of an agent's checker: its state over the stream's
/// records, its rules, and the events it maps them into.
pub(crate) trait Rules: Progress {
    /// The view its records are read into.
    type Line<'a>: View<'a>;
    /// The checker of `agent`'s stream (one checker may serve several agents of one family),
    /// keeping at most `max_open_calls` tool calls open, with the rules `enabled`.
    fn new(agent: Agent, max_open_calls: usize, enabled: crate::rules::RuleSet) -> Self
    where
        Self: Sized;
    /// Checks one record read into `line` already: `Some(t)` when it is valid JSON but not an
    /// object.
    fn check<'a>(&mut self, cx: Cx<'a, '_>, line: &Self::Line<'a>) -> Option<JsonType>;
    /// The input ended: what is still open is said (nothing, for a stream with no end of its
    /// own to miss: a session log's).
    fn finish(&mut self, _emit: Emit<'_>) {}
    /// A record on `line` could not be read: what its absence would cause is not reported.
    fn on_unreadable(&mut self, line: u64);
    /// The input ended: the common events still due, before [`Rules::finish`].
    fn finish_common(&mut self, _sink: &mut dyn FnMut(&crate::vocab::Event<'_>)) {}
    /// Called for every record of the stream, read or not, before [`Rules::check`].
    fn on_record(&mut self, _emit: Emit<'_>) {}
    /// Whether the agent's schema describes the record checked last (`unknown-field` compares
    /// only such records).
    fn schema_describes_last(&self) -> bool {
        true
    }
}
