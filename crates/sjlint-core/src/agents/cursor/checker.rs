//! cursor-agent behind the interface every agent's checker has: its record read into a view
//! ([`Line`], which the pipeline's lanes make like any agent's) and its [`Checker`] (the
//! validator's rules and the mapping into the common vocabulary, in that order).
//!
//! This module owns only the seams: what `agents::Line` and `agents::Checker` ask of an agent
//! (a parse into a slot, whether the record carries cursor-agent's own mark, its `type`, a
//! check that gives common events). The reading is `view`'s, the rules `validate`'s, the
//! mapping `ToCommon`'s.

use super::ToCommon;
use super::validate::Validator;
use super::view::{self, Dialect, Event, Shape};
use crate::agents::Types;
use crate::agents::{Agent, Cx, Emit, Rules, SHAPE, Sniff, View, count_marks};
use crate::json::JsonType;
use crate::rules::RuleSet;
use bumpalo::Bump;

/// A record read into cursor-agent's view: its event (every dialect mapped into the canonical
/// one), the shape of its value, and the dialect `--dialect` forces, if any.
#[derive(Debug)]
pub struct Line<'a> {
    /// The dialect every record is read as (`--dialect`); `None` reads each by its shape.
    pub(crate) forced: Option<Dialect>,
    /// What the value is: an object (then [`Line::ev`] holds its view), or another JSON type.
    pub(crate) shape: Shape,
    pub ev: Event<'a>,
    /// A message with Claude Code's envelope (see [`claude_envelope`]): no mark of cursor's.
    envelope: bool,
}

impl Default for Line<'_> {
    fn default() -> Self {
        Line {
            forced: None,
            shape: Shape::Object,
            ev: Event::default(),
            envelope: false,
        }
    }
}

impl<'a> View<'a> for Line<'a> {
    /// An empty view whose records are read as `dialect` (`None`: each by its shape). Made
    /// where it goes (inlined into the slot's assignment): the view is large, and a copy of it
    /// per record costs as much as reading a short one.
    #[inline(always)]
    fn empty(dialect: Option<Dialect>) -> Self {
        Line {
            forced: dialect,
            shape: Shape::Object,
            ev: Event::default(),
            envelope: false,
        }
    }

    /// Reads `json` into this view, which is empty: the strict parse, then, for valid JSON it
    /// refuses (numbers beyond the f64 range, unpaired surrogate escapes), the substituted copy
    /// in `arena`, as every agent's view reads it.
    fn parse_into(&mut self, json: &'a str, arena: &'a Bump) -> Result<(), serde_json::Error> {
        let shape = match view::parse_into(json, self.forced, &mut self.ev, arena) {
            Ok(shape) => shape,
            Err(e) => {
                let Some(copy) = view::substituted_in(json, &e, arena) else {
                    return Err(e);
                };
                self.ev = Event::default();
                view::parse_into(copy, self.forced, &mut self.ev, arena)?
            }
        };
        self.shape = shape;
        self.envelope =
            matches!(self.ev.ty.as_str(), Some("assistant" | "user")) && claude_envelope(json);
        Ok(())
    }

    /// The record carries what only cursor-agent writes, so that no other agent's run can have
    /// begun with it: a message or result, or a thinking or tool call event with cursor's stamps.
    /// Another agent's session in the stream begins with its own first record (Claude Code's
    /// `system`/`init`, Gemini CLI's `init`, Codex's `thread.started`), which is read again, as
    /// every `system` record and every other type is.
    fn own_mark(&self, _agent: Agent) -> bool {
        let ev = &self.ev;
        self.shape == Shape::Object
            && match ev.ty.as_str() {
                Some("assistant" | "user") => !self.envelope,
                Some("result") => true,
                Some("thinking" | "tool_call") => {
                    ev.timestamp_ms.is_present()
                        || ev.call_id.is_present()
                        || ev.model_call_id.is_present()
                }
                _ => false,
            }
    }

    /// cursor-agent's checker names a repeated key itself, with the event's schema.
    fn has_duplicate_key(&self) -> bool {
        false
    }

    fn ty(&self) -> Option<&str> {
        self.ev.ty.as_str()
    }

    fn subtype(&self) -> Option<&str> {
        self.ev.subtype.as_str()
    }
}

impl<'a> Line<'a> {
    /// The event's view, when the value is an object.
    pub fn event(&self) -> Option<&Event<'a>> {
        (self.shape == Shape::Object).then_some(&self.ev)
    }

    /// The JSON type of a value that is not an object.
    pub(crate) fn not_an_object(&self) -> Option<JsonType> {
        match self.shape {
            Shape::Object => None,
            Shape::Other(t) => Some(t),
        }
    }
}

/// The types that name cursor-agent in another agent's stream, and the `system`, `assistant`
/// and `user` it shares with Claude Code.
pub const TYPE_NAMES: Types = Types {
    own: &[&[
        "tool_call",
        "thinking",
        "interaction_query",
        "tool-call-started",
        "tool-call-completed",
    ]],
    own_prefixes: &[],
    shared: &[&["system", "assistant", "user"]],
};

/// cursor-agent's marks: its `payload` wrapping; `timestamp_ms`, `call_id` and `model_call_id`
/// (on its thinking deltas, assistant segments, tool calls and transport records); its own
/// types (`thinking`, `interaction_query`, a `tool_call` without Grok Build's `toolCallId`, the
/// SDK's `tool-call-started`/`-completed`); `request_id` on `result` (Claude Code puts it on
/// `assistant` lines only); and a `system`/`init` with none of `tools`, `uuid` and
/// `claude_code_version`, which every Claude Code init has (`tools` in every version, `uuid`
/// from 1.0.86, the version from 2.0.25), and with `apiKeySource`, `permissionMode` or
/// `request_id`, or no `model`: droid's init has `model` and none of these, and is not
/// cursor-agent's mark either.
pub fn evidence(s: &Sniff<'_>) -> u32 {
    let Some(ty) = s.ty.as_str() else {
        return count_marks(&[s.payload.is_present()]);
    };
    let shape = matches!(ty, "system" | "assistant" | "user" | "result" | "raw");
    let own_type = match ty {
        "thinking" | "interaction_query" | "tool-call-started" | "tool-call-completed" => true,
        // Grok Build's has `toolCallId` and no subtype.
        "tool_call" => !s.tool_call_id.is_present() && s.subtype.is_present(),
        _ => false,
    };
    let bare_init = ty == "system"
        && s.subtype.as_str() == Some("init")
        && !s.tools.is_present()
        && !s.uuid.is_present()
        && !s.claude_code_version.is_present()
        && (s.api_key_source.is_present()
            || s.permission_mode.is_present()
            || s.request_id.is_present()
            || !s.model.is_present());
    count_marks(&[
        s.payload.is_present(),
        own_type,
        s.timestamp_ms.is_present(),
        s.call_id.is_present() || s.model_call_id.is_present(),
        ty == "result" && s.request_id.is_present(),
        bare_init,
    ]) + if shape { SHAPE } else { 0 }
}

/// A message line of the Claude Code family (Claude Code, Qwen Code, Amp): its envelope ends
/// with `parent_tool_use_id` (then `session_id`, `uuid`), a key cursor-agent never writes. Only
/// the record's tail is looked at, so the cost per record stays constant: such a line in a
/// cursor-agent stream is read again for whose it is, as another agent's run beginning.
fn claude_envelope(json: &str) -> bool {
    let b = json.as_bytes();
    memchr::memmem::find(&b[b.len().saturating_sub(256)..], b"\"parent_tool_use_id\"").is_some()
}

/// cursor-agent's checker: the validator, then the mapping into the common vocabulary.
pub struct Checker {
    validator: Validator,
    to_common: ToCommon,
}

impl Rules for Checker {
    type Line<'a> = Line<'a>;

    fn new(_agent: Agent, max_open_calls: usize, enabled: RuleSet) -> Checker {
        Checker {
            validator: Validator::new(enabled).max_open_calls(max_open_calls),
            to_common: ToCommon::new(max_open_calls),
        }
    }

    /// Checks one record read into `line`, and passes its common events to `cx.sink` when
    /// given: `Some(t)` when it is valid JSON but not an object.
    fn check<'a>(&mut self, cx: Cx<'a, '_>, line: &Line<'a>) -> Option<JsonType> {
        let Some(ev) = line.event() else {
            return line.not_an_object();
        };
        let emit = cx.emit;
        self.validator.check(cx.pos, cx.bytes, ev, &mut |d| emit(d));
        if let Some(sink) = cx.sink {
            self.to_common.map(cx.pos.line, cx.json, ev, sink);
        }
        None
    }

    /// Called for every record, read or not, before [`Rules::check`].
    fn on_record(&mut self, emit: Emit<'_>) {
        self.validator.on_record(&mut |d| emit(d));
    }

    /// A record on `line` could not be read.
    fn on_unreadable(&mut self, line: u64) {
        self.validator.on_unreadable(line);
    }

    /// Whether cursor-agent's schema describes the last event read: only its canonical dialect
    /// is what the schema lists.
    fn schema_describes_last(&self) -> bool {
        self.validator.last_dialect() == Dialect::Cursor
    }

    fn finish(&mut self, emit: Emit<'_>) {
        self.validator.finish(&mut |d| emit(d));
    }
}

impl crate::agents::Progress for Checker {
    /// No session is open: none began, or the last one has its `result`.
    fn ended(&self) -> bool {
        !self.validator.session_open()
    }
    fn open_calls(&self) -> Vec<(String, u64, String)> {
        Vec::new()
    }
}
