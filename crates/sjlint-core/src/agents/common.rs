//! sjlint's own common form read back as a stream: the agent `--agent common` names.
//!
//! This module owns the view of one record of the common form ([`Line`]) and its checker
//! ([`Validator`]): each event's type and fields, and that every `tool_start` is ended once. It
//! maps each record back into [`crate::vocab::Event`] for the consumers. The vocabulary itself
//! and its JSON form are `crate::vocab`'s; writing the form (`fmt --to common`) is `fmt`'s.

use super::{Agent, Calls, Emit, Opened, Progress, Raw, Want, expect, require, view};
use crate::agents::Cx;
use crate::agents::Types;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::json::{Field, JsonType};
use crate::rules::RuleSet;
use crate::rules::messages::{self, Id, Orphan, Pairing, Unended};
use crate::vocab::{Event, Kind, Outcome, TOOL_KINDS, Tokens, VERSION};
use bumpalo::Bump;

/// How the tool calls of its stream pair, for the messages of the pairing rules.
const PAIRING: Pairing<'static> = Pairing {
    opener: "`tool_start`",
    closer: "`tool_end`",
    key: "`call_id`",
    before: None,
};

view! {
    /// One record of the common form, read back.
    pub struct Line<'a> {
        "type" => ty: Field<'a>,
        "line" => line: Field<'a>,
        "v" => v: Field<'a>,
        "agent" => agent: Field<'a>,
        "session_id" => session_id: Field<'a>,
        "model" => model: Field<'a>,
        "cwd" => cwd: Field<'a>,
        "parent" => parent: Field<'a>,
        "call_id" => call_id: Field<'a>,
        "name" => name: Field<'a>,
        "tool_kind" => tool_kind: Field<'a>,
        "args" => args: Raw<'a>,
        "ok" => ok: Field<'a>,
        "rejected" => rejected: Field<'a>,
        "outcome" => outcome: Field<'a>,
        "reason" => reason: Field<'a>,
        "denied" => denied: Field<'a>,
        "exit_code" => exit_code: Field<'a>,
        "lines" => lines: Field<'a>,
        "text" => text: Field<'a>,
        "delta" => delta: Field<'a>,
        "usage" => usage: WireUsage<'a>,
        "cost_usd" => cost_usd: Field<'a>,
        "duration_ms" => duration_ms: Field<'a>,
        "timestamp_ms" => timestamp_ms: Field<'a>,
    }
}

view! {
    /// `usage` of a common `usage` event.
    pub struct WireUsage<'a> {
        "input_tokens" => input_tokens: Field<'a>,
        "output_tokens" => output_tokens: Field<'a>,
        "cache_read_tokens" => cache_read_tokens: Field<'a>,
        "cache_write_tokens" => cache_write_tokens: Field<'a>,
        "reasoning_tokens" => reasoning_tokens: Field<'a>,
    }
}

/// The checker of a stream in the common form: each event's type and fields, and that every
/// `tool_start` is ended once. What the source broke was reported on the source.
#[derive(Default)]
pub struct Validator {
    pub(super) calls: Calls,
    ended: bool,
}

impl Progress for Validator {
    fn ended(&self) -> bool {
        self.ended
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        self.calls.listed()
    }
}

impl<'a> super::View<'a> for Line<'a> {
    fn parse_into(&mut self, json: &'a str, arena: &'a Bump) -> Result<(), serde_json::Error> {
        super::parse_into(json, arena, self)
    }

    fn own_mark(&self, _agent: Agent) -> bool {
        false
    }

    fn has_duplicate_key(&self) -> bool {
        self.dup
    }

    fn ty(&self) -> Option<&str> {
        self.ty.as_str()
    }
}

impl super::Rules for Validator {
    type Line<'a> = Line<'a>;

    fn new(_agent: Agent, max_open_calls: usize, _enabled: RuleSet) -> Self {
        let mut v = Validator::default();
        v.calls.set_max_open(max_open_calls);
        v
    }

    /// Checks one record read into `l` already (from its text `json`, the record's own
    /// `bytes`): `Some(t)` when it is valid JSON but not an object.
    fn check<'a>(&mut self, cx: Cx<'a, '_>, l: &Line<'a>) -> Option<JsonType> {
        let Cx {
            pos,
            bytes,
            emit,
            sink,
            ..
        } = cx;
        if l.shape != Some(JsonType::Object) {
            return l.shape;
        }
        let Some(kind) = l.ty.as_str().and_then(Kind::from_name) else {
            if !l.ty.is_present() {
                let m = messages::missing_type(Agent::Common.display_name(), "type", None, None);
                emit(Diagnostic::from_message(pos, m).with_snippet(bytes));
            }
            return None;
        };
        field_types(l, pos, bytes, emit);
        match kind {
            Kind::ToolStart | Kind::ToolEnd
                if require(
                    l.call_id.json_type(),
                    Want::Str,
                    "a tool event",
                    pos,
                    bytes,
                    &["call_id"],
                    emit,
                ) =>
            {
                self.pair(pos, bytes, kind, l, emit);
            }
            Kind::SessionStart => {
                self.ended = false;
                version(&l.v, pos, bytes, emit);
            }
            Kind::End => {
                self.ended = true;
                end_outcome(&l.outcome, pos, bytes, emit);
                // A failed run may abandon its calls; a run that went well ends them.
                let open = self.calls.drain();
                if l.ok.as_bool() != Some(false) {
                    for call in open {
                        emit(super::unfinished(
                            &call,
                            &Pairing {
                                before: Some("the `end`"),
                                ..PAIRING
                            },
                        ));
                    }
                }
            }
            _ => {}
        }
        if let Some(sink) = sink {
            sink(&self.event(kind, l));
        }
        None
    }

    fn finish(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        for call in self.calls.drain() {
            emit(super::unfinished(&call, &PAIRING));
        }
    }

    fn on_unreadable(&mut self, line: u64) {
        self.calls.on_unreadable(line);
    }
}

/// The types of a common event's fields: `line` required, the others when present.
fn field_types(l: &Line<'_>, pos: Position, bytes: &[u8], emit: Emit<'_>) {
    let what = "a common event";
    require(
        l.line.json_type(),
        Want::Num,
        what,
        pos,
        bytes,
        &["line"],
        emit,
    );
    for (name, f) in [
        ("ok", &l.ok),
        ("delta", &l.delta),
        ("rejected", &l.rejected),
    ] {
        expect(f.json_type(), Want::Bool, false, pos, bytes, &[name], emit);
    }
    for (name, f) in [
        ("cost_usd", &l.cost_usd),
        ("duration_ms", &l.duration_ms),
        ("timestamp_ms", &l.timestamp_ms),
        ("exit_code", &l.exit_code),
        ("lines", &l.lines),
        ("denied", &l.denied),
    ] {
        expect(f.json_type(), Want::Num, false, pos, bytes, &[name], emit);
    }
    for (name, f) in [
        ("text", &l.text),
        ("call_id", &l.call_id),
        ("name", &l.name),
        ("session_id", &l.session_id),
        ("cwd", &l.cwd),
        ("reason", &l.reason),
        ("outcome", &l.outcome),
    ] {
        expect(f.json_type(), Want::Str, false, pos, bytes, &[name], emit);
    }
    expect(
        l.usage.shape,
        Want::Obj,
        false,
        pos,
        bytes,
        &["usage"],
        emit,
    );
}

/// `v` of a `session_start`: the version of the form, a count. Absent is the unversioned form
/// that came before version 1 (read alike); a newer version than sjlint knows is said once a
/// session, as information: what it added is not checked.
fn version(v: &Field<'_>, pos: Position, bytes: &[u8], emit: &mut dyn FnMut(Diagnostic)) {
    if !v.is_present() {
        return;
    }
    let Some(n) = super::count(v) else {
        expect(v.json_type(), Want::Num, false, pos, bytes, &["v"], emit);
        return;
    };
    if n > u64::from(VERSION) {
        let d = Diagnostic::from_message(pos, messages::newer_common_form(n, VERSION));
        emit(match crate::locate::value(bytes, &["v"]) {
            Some(span) => d.at(bytes, span),
            None => d.with_snippet(bytes),
        });
    }
}

impl Validator {
    fn pair(
        &mut self,
        pos: Position,
        bytes: &[u8],
        kind: Kind,
        l: &Line<'_>,
        emit: &mut dyn FnMut(Diagnostic),
    ) {
        let id = l.call_id.as_str().unwrap_or_default();
        if kind == Kind::ToolStart {
            if let Opened::AlreadyOpen(at) =
                self.calls
                    .open(id, pos, bytes, l.name.as_str().unwrap_or("?"))
            {
                emit(
                    Diagnostic::from_message(
                        pos,
                        messages::duplicate_call_id(PAIRING.opener, Id::Text(id), true, None),
                    )
                    .with_related(at, "opened here")
                    .with_snippet(bytes),
                );
            }
        } else if self.calls.close(id).is_none() && !self.calls.unreadable_seen() {
            emit(
                Diagnostic::from_message(
                    pos,
                    messages::orphan_completion(&Orphan::call(
                        Agent::Common.display_name(),
                        "`tool_end`",
                        id,
                        false,
                        &PAIRING,
                    )),
                )
                .with_snippet(bytes),
            );
        }
    }

    fn event<'a>(&self, kind: Kind, l: &Line<'a>) -> Event<'a> {
        let mut ev = Event::new(kind, super::count(&l.line).unwrap_or(0));
        ev.agent = l
            .agent
            .as_str()
            .and_then(Agent::from_name)
            .map(Agent::as_str);
        ev.session_id = l.session_id.to_cow();
        ev.model = l.model.to_cow();
        ev.cwd = l.cwd.to_cow();
        ev.parent = l.parent.to_cow();
        ev.call_id = l.call_id.to_cow();
        ev.name = l.name.to_cow();
        ev.tool_kind = l.tool_kind.as_str().map(|k| {
            TOOL_KINDS
                .iter()
                .copied()
                .find(|t| *t == k)
                .unwrap_or("other")
        });
        ev.args = l.args.0;
        ev.ok = l.ok.as_bool();
        ev.rejected = l.rejected.as_bool() == Some(true);
        ev.outcome = l.outcome.as_str().and_then(Outcome::from_name);
        ev.reason = l.reason.to_cow();
        ev.denied = super::count(&l.denied);
        ev.exit_code = l
            .exit_code
            .as_f64()
            .filter(|c| c.fract() == 0.0)
            .map(|c| c as i64);
        ev.lines = super::count(&l.lines);
        ev.text = l.text.to_cow();
        ev.delta = l.delta.as_bool() == Some(true);
        if l.usage.shape == Some(JsonType::Object) {
            let n = |f: &Field<'_>| super::count(f).unwrap_or(0);
            let u = &l.usage;
            ev.usage = Some(Tokens {
                input: n(&u.input_tokens),
                output: n(&u.output_tokens),
                cache_read: n(&u.cache_read_tokens),
                cache_write: n(&u.cache_write_tokens),
                reasoning: n(&u.reasoning_tokens),
            });
        }
        ev.cost_usd = l.cost_usd.as_f64();
        ev.duration_ms = super::count(&l.duration_ms);
        ev.timestamp_ms = super::count(&l.timestamp_ms);
        ev
    }
}

/// `outcome` of an `end`: one of the vocabulary's; `no_result` is a session that never finished,
/// which the source's check found (`missing-result`) and the common form keeps.
fn end_outcome(f: &Field<'_>, pos: Position, bytes: &[u8], emit: &mut dyn FnMut(Diagnostic)) {
    let Some(name) = f.as_str() else {
        return;
    };
    let at = |d: Diagnostic| match crate::locate::value(bytes, &["outcome"]) {
        Some(span) => d.at(bytes, span),
        None => d.with_snippet(bytes),
    };
    match Outcome::from_name(name) {
        Some(Outcome::NoResult) => emit(at(Diagnostic::from_message(
            pos,
            messages::missing_result(
                &Unended::new(
                    Agent::Common.display_name(),
                    "session",
                    None,
                    "`end` of a known outcome",
                )
                .cut_by("an `end` of outcome `no_result`")
                .why("its source ended without the agent's last record")
                .note("`no_result` says the agent was cut off, or its final record was lost; the run's outcome is unknown"),
            ),
        ))),
        Some(_) => {}
        None => emit(at(Diagnostic::from_message(
            pos,
            messages::unknown_subtype(&messages::Subtype {
                agent: Agent::Common.display_name(),
                record: "an `end`",
                field: "outcome",
                value: name,
                known: &Outcome::ALL.map(Outcome::as_str),
                note: None,
            }),
        ))),
    }
}

/// The common form owns no type. It takes `system`, `assistant` and `user` (Claude Code's) as
/// its agents' records do, without naming Claude Code: droid's `system` has those keys too, and
/// a run of droid in a common stream is found at its first record with droid's marks.
pub const TYPE_NAMES: Types = Types {
    own: &[],
    own_prefixes: &[],
    shared: &[&["system", "assistant", "user"]],
};

/// How strongly a record is of sjlint's common form (see `agents::detect`): a type of its
/// vocabulary with a numeric `line`. It outweighs the marks a record keeps of the agent it was
/// converted from (cursor-agent's `timestamp_ms`, its `thinking` type; `usage`, `error` and
/// `end` are other agents' types too), so it counts as four marks.
pub fn evidence(s: &super::Sniff<'_>) -> u32 {
    let own = s.line.json_type() == Some(JsonType::Number)
        && s.ty.as_str().and_then(Kind::from_name).is_some();
    if own { 4 * super::MARK } else { 0 }
}
