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
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
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

impl<'a> Line<'a> {
    /// An empty view whose records are read as `dialect` (`None`: each by its shape). Made
    /// where it goes (inlined into the slot's assignment): the view is large, and a copy of it
    /// per record costs as much as reading a short one.
    #[inline(always)]
    pub(crate) fn forced(dialect: Option<Dialect>) -> Self {
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
    pub(crate) fn parse_into(
        &mut self,
        json: &'a str,
        arena: &'a Bump,
    ) -> Result<(), serde_json::Error> {
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
    pub(crate) fn own_mark(&self) -> bool {
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

impl Checker {
    pub fn new(enabled: RuleSet, max_open_calls: usize) -> Checker {
        Checker {
            validator: Validator::new(enabled).max_open_calls(max_open_calls),
            to_common: ToCommon::new(max_open_calls),
        }
    }

    /// Checks one record read into `line`, and passes its common events to `common` when given:
    /// `Some(t)` when it is valid JSON but not an object.
    pub(crate) fn check<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        json: &'a str,
        line: &Line<'a>,
        emit: &mut dyn FnMut(Diagnostic),
        common: Option<&mut dyn FnMut(&crate::vocab::Event<'_>)>,
    ) -> Option<JsonType> {
        let Some(ev) = line.event() else {
            return line.not_an_object();
        };
        self.validator.check(pos, bytes, ev, &mut |d| emit(d));
        if let Some(sink) = common {
            self.to_common.map(pos.line, json, ev, sink);
        }
        None
    }

    /// Called for every record, read or not, before [`Self::check`].
    pub(crate) fn on_record(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
        self.validator.on_record(&mut |d| emit(d));
    }

    /// A record on `line` could not be read.
    pub(crate) fn on_unreadable(&mut self, line: u64) {
        self.validator.on_unreadable(line);
    }

    /// Whether cursor-agent's schema describes the last event read: only its canonical dialect
    /// is what the schema lists.
    pub(crate) fn schema_describes_last(&self) -> bool {
        self.validator.last_dialect() == Dialect::Cursor
    }

    pub(crate) fn finish(&mut self, emit: &mut dyn FnMut(Diagnostic)) {
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
