//! Classification: a borrowed view of one record as an event.
//!
//! This module owns turning a record's bytes into an [`Event`]: full RFC 8259 and UTF-8
//! validation, the fields the rules read (borrowed from the record wherever the JSON text has no
//! escapes), and the JSON type of each known field so that wrong types are findings rather than
//! parse failures. No JSON tree is built: custom serde visitors pick out the known fields and skip
//! the rest. It must not keep state across records nor decide which rules fire (that is
//! `validate`); it reports only what the record itself is.
//!
//! It also owns the dialects. Each record is classified by its own shape ([`Dialect`]) and its
//! dialect's fields are mapped into the canonical view, whose names are the cursor dialect's: a
//! `payload` wrapper is read as the event body, `toolCall.id` as `call_id`, an sdk
//! `tool-call-started` as `tool_call`/`started` with its `tool_name` turned into a tool kind, and so
//! on. `fmt` rewrites records with the same mapping, so the two must change together.
//!
//! The visitors are generic over serde's `Deserializer`, so the dialect logic is written once and
//! runs over two readers, both of which deserialize straight into these borrowed structs without
//! an intermediate tape and without rewriting the input (which `--tee` and snippets need intact):
//! the fast reader of `crate::json` first, and `serde_json` for whatever the fast reader does not
//! accept, which gives the exact errors and positions. Whatever the fast reader accepts it must
//! read exactly as `serde_json` does (`tests/it/fast_path.rs`, `fuzz/fuzz_targets/fast_path.rs`).
//! `benches/pipeline.rs` keeps the comparison against bare `serde_json` and simd-json loops on
//! realistic streams.
//!
//! Two entry points: [`parse`], which gives a record's view boxed (strict, or lenient given a
//! scratch copy: `fmt`, tools, tests, and the checker's slow path), and [`parse_into`], the
//! checker's strict parse of every record into a reused slot and arena, which allocates nothing.
//! This file holds the view types and those entry points; the parts of the reading are its
//! modules, each with its own contract:
//!
//! - `record`: a record's top level, every dialect's keys, the dialect detected and mapped;
//! - `cursor`: the canonical objects (`tool_call`, `message`, `usage`, queries);
//! - `payload`, `sdk`: what each other dialect means in the canonical view (a new dialect is a
//!   module beside them: its shape test, its mapping, and its keys in `record`);
//! - `visit`: keys, repeated keys, scalar fields, the macros that give a view its visitor;
//! - `lenient`: the substituted copy of valid JSON that `serde_json` refuses.

use crate::json::{Field, JsonType};
use bumpalo::Bump;
use serde::de::DeserializeSeed;
use serde_json::value::RawValue;
use std::borrow::Cow;

mod cursor;
mod lenient;
pub(crate) use lenient::substituted_in;
mod payload;
mod record;
mod sdk;
mod visit;

use cursor::Outcome;

pub use cursor::is_kind_key;
use record::TopVisitor;
pub use sdk::sdk_tool_kind;

/// The `tool_call` object of a tool call event.
#[derive(Clone, Debug, Default)]
pub struct ToolCall<'a> {
    /// The JSON type of `tool_call` when present.
    pub shape: Option<JsonType>,
    /// The first key ending in `ToolCall` (or `function`): the tool kind.
    pub kind: Option<Cow<'a, str>>,
    /// How many keys name a tool kind (a well-formed call has exactly one).
    pub kinds: u32,
    /// The second key naming a kind, for the diagnostic when there are several.
    pub other_kind: Option<Cow<'a, str>>,
    /// The JSON type of the kind's value (an object in a well-formed call).
    pub body_shape: Option<JsonType>,
    /// The exact JSON text of `args`, when present.
    pub args: Option<&'a RawValue>,
    /// The variant of `result`: `success`, `rejected`, `error`, `failure`, … when present.
    pub outcome: Option<Cow<'a, str>>,
    /// `result.success.exitCode` of a shell call.
    pub exit_code: Option<i64>,
    /// `result.success.totalLines` of a read call.
    pub total_lines: Option<u64>,
    /// What a `success` gave back as text (`interleavedOutput`, `stdout` or `content`): the
    /// exact JSON text of the string, when it is one and not empty.
    pub output: Option<&'a RawValue>,
    /// A key repeated inside `tool_call`.
    pub duplicate_key: Option<Cow<'a, str>>,
    /// `id` directly inside the tool call object (the payload dialect's `toolCall.id`).
    pub id: Field<'a>,
    /// `type` directly inside the tool call object (the cloud sdk's `toolCall.type`).
    pub type_name: Field<'a>,
    /// `result` sits directly inside the tool call object rather than inside a kind (a payload
    /// completion that names no kind). When no kind is named, `outcome` and the exit code come
    /// from it, and `args` from an `args` beside it.
    pub bare_result: bool,
}

/// `message` of a user or assistant event.
#[derive(Clone, Debug, Default)]
pub struct Message<'a> {
    pub shape: Option<JsonType>,
    pub role: Field<'a>,
    /// The JSON type of `content` when present (an array in every real run).
    pub content_shape: Option<JsonType>,
    /// The texts of the `text` items of `content`, joined (borrowed when there is one).
    pub text: Option<Cow<'a, str>>,
    /// A `content[].text` that is not a string.
    pub bad_text: Option<JsonType>,
}

/// `query` or `response` of an `interaction_query` event.
#[derive(Clone, Debug, Default)]
pub struct Query<'a> {
    pub shape: Option<JsonType>,
    pub id: Field<'a>,
    /// `query.<queryType>.args.toolCallId`: the tool call this request announces.
    pub tool_call_id: Option<Cow<'a, str>>,
    /// For a response: `approved`, `rejected`, … (the key inside `<…Response>`).
    pub decision: Option<Cow<'a, str>>,
}

/// The dialects of the stream. Records are classified one by one, by their own shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `cursor-agent --output-format stream-json` itself (seeds 000, 001, 003, FORMAT.md): the
    /// canonical form. A record whose shape several dialects share is classified as this one.
    #[default]
    Cursor,
    /// A web client's wrapping (seed 002): the body inside `payload`, `toolCall.id`, tool kinds
    /// on starts only, `thinking` with `content`, `error` and `raw` events.
    Payload,
    /// A Python client's events (seed 004) and Cursor's cloud SDK stream:
    /// `tool-call-started`/`tool-call-completed` with `tool_name` (or `toolCall.type`),
    /// `tool_call_id` (or `callId`), `parameters`, `result`; top-level assistant `text`;
    /// `result` with `error`; a `system`/`init` without cursor's `apiKeySource`, `cwd`,
    /// `permissionMode`.
    Sdk,
}

impl Dialect {
    pub const ALL: [Dialect; 3] = [Dialect::Cursor, Dialect::Payload, Dialect::Sdk];

    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Cursor => "cursor",
            Dialect::Payload => "payload",
            Dialect::Sdk => "sdk",
        }
    }
}

/// The borrowed view of one event: every field a rule reads. Field names follow the cursor
/// dialect, which is the canonical view every dialect maps into.
#[derive(Clone, Debug, Default)]
pub struct Event<'a> {
    /// The dialect the record is written in (or the one `--dialect` forced).
    pub dialect: Dialect,
    pub ty: Field<'a>,
    pub subtype: Field<'a>,
    pub session_id: Field<'a>,
    pub timestamp_ms: Field<'a>,
    pub call_id: Field<'a>,
    pub model_call_id: Field<'a>,
    /// `model` (of `system`/`init`).
    pub model: Field<'a>,
    pub tool_call: ToolCall<'a>,
    pub message: Message<'a>,
    /// `text` of a thinking delta.
    pub text: Field<'a>,
    pub is_error: Field<'a>,
    pub result: Field<'a>,
    pub duration_ms: Field<'a>,
    pub duration_api_ms: Field<'a>,
    pub request_id: Field<'a>,
    pub usage: Usage,
    pub query_type: Field<'a>,
    pub query: Query<'a>,
    pub response: Query<'a>,
    /// `data` of a payload-dialect `raw` event (the line the wrapper could not parse).
    pub data: Field<'a>,
    /// The record has a key that only cursor's `system`/`init` writes (`apiKeySource`, `cwd`,
    /// `permissionMode`), at the top level or inside `payload`. Such an init opens a session that
    /// is held to cursor's required fields.
    pub init_keys: bool,
    /// The first top-level key that appears twice (keys inside `payload` count as top-level).
    pub duplicate_key: Option<Cow<'a, str>>,
}

impl Event<'_> {
    /// A `--stream-partial-output` delta: an assistant event with `timestamp_ms` but no
    /// `model_call_id` (the validator's reading, and `fmt`'s).
    pub fn is_delta(&self) -> bool {
        self.timestamp_ms.is_present() && !self.model_call_id.is_present()
    }
}

/// Token counts of `result.usage`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub shape: Option<JsonType>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    /// The first count that is present but no count, by its key, with its type: a number
    /// (`-5`, `1.5`, 2^64 or more) or another type than a number or null. `wrong-field-type`;
    /// the count itself is `None` as if absent.
    pub not_a_count: Option<(&'static str, JsonType)>,
}

/// What a record turned out to be.
#[derive(Debug)]
pub enum Parsed<'a> {
    Event(Box<Event<'a>>),
    /// Valid JSON whose top-level value is not an object.
    NotAnObject(JsonType),
}

/// Parses one record's `text` (already known to be valid UTF-8) as one JSON text: the event
/// view of an object, each record classified by its own shape, or read as `dialect` when given
/// (`--dialect`: only that dialect's shapes are mapped).
///
/// The record is read by the fast reader of `crate::json` first; whatever it does not accept (errors,
/// and the few things it leaves to `serde_json`) is read again by `serde_json`, which gives the
/// exact error and position.
///
/// Given `lenient`, it never rejects a valid JSON text. `serde_json` refuses two things RFC 8259's
/// grammar allows: numbers beyond the f64 range (`1e400`, a 400-digit integer) and `\u` escapes
/// of unpaired UTF-16 surrogates (`"\ud800"`, which JavaScript's `JSON.stringify` writes for a
/// string cut between the two halves of a pair). When the strict parse fails for one of these,
/// `lenient` receives a copy of `text` of the same length in which each such number reads as
/// ±1e308 (padded with spaces) and each such escape `\uDxyz` as the private-use character
/// `\uExyz` (so that distinct escapes stay distinct: two `call_id`s, two keys), and the copy is
/// parsed instead; the event then borrows from `lenient`. Byte offsets in the copy are offsets
/// in `text`, so error positions stay exact. Without it (`None`), those are `serde_json`'s errors.
pub fn parse<'a>(
    text: &'a str,
    dialect: Option<Dialect>,
    lenient: Option<&'a mut Vec<u8>>,
) -> Result<Parsed<'a>, serde_json::Error> {
    match (parse_strict(text, dialect), lenient) {
        (Err(e), Some(scratch)) => {
            lenient::retry(text, e, scratch, |copy| parse_strict(copy, dialect))
        }
        (parsed, _) => parsed,
    }
}

/// What a record's top-level value is (see [`parse_into`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An object: the event view is in the caller's slot.
    Object,
    /// Valid JSON whose top-level value is not an object.
    Other(JsonType),
}

/// The strict [`parse`] into the caller's `ev`, which must be `Event::default()`: the event
/// view of an object is written there, and the strings it keeps that had escapes go to `arena`,
/// so that nothing is allocated per record (but for records only `serde_json` reads). On an
/// error, `ev` holds whatever was read before it. This is the checker's parse of every record;
/// what it refuses, the checker reads again with [`parse`] and a lenient copy.
pub fn parse_into<'a>(
    text: &'a str,
    dialect: Option<Dialect>,
    ev: &mut Event<'a>,
    arena: &'a Bump,
) -> Result<Shape, serde_json::Error> {
    let top = TopVisitor {
        forced: dialect,
        ev: &mut *ev,
        arena: Some(arena),
    };
    if let Ok(shape) = crate::json::from_str(text, Some(arena), top) {
        return Ok(shape);
    }
    *ev = Event::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let top = TopVisitor {
        forced: dialect,
        ev,
        arena: None,
    };
    let shape = top.deserialize(&mut de)?;
    de.end()?;
    Ok(shape)
}

/// [`parse`] without a lenient copy.
fn parse_strict(text: &str, forced: Option<Dialect>) -> Result<Parsed<'_>, serde_json::Error> {
    match parse_fast(text, forced, None) {
        Some(parsed) => Ok(parsed),
        None => parse_serde_json(text, forced),
    }
}

fn parsed(shape: Shape, ev: Box<Event<'_>>) -> Parsed<'_> {
    match shape {
        Shape::Object => Parsed::Event(ev),
        Shape::Other(t) => Parsed::NotAnObject(t),
    }
}

/// [`parse_strict`] on the fast reader alone: `None` when it does not accept the record.
/// Whatever it accepts, [`parse_serde_json`] accepts and reads the same ([`readers_agree`]),
/// with and without an `arena` for unescaped strings.
fn parse_fast<'a>(
    text: &'a str,
    forced: Option<Dialect>,
    arena: Option<&'a Bump>,
) -> Option<Parsed<'a>> {
    let mut ev = Box::<Event<'_>>::default();
    let shape = crate::json::from_str(
        text,
        arena,
        TopVisitor {
            forced,
            ev: &mut ev,
            arena,
        },
    )
    .ok()?;
    Some(parsed(shape, ev))
}

/// [`parse_strict`] on `serde_json` alone.
fn parse_serde_json(text: &str, forced: Option<Dialect>) -> Result<Parsed<'_>, serde_json::Error> {
    let mut ev = Box::<Event<'_>>::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let shape = TopVisitor {
        forced,
        ev: &mut ev,
        arena: None,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(parsed(shape, ev))
}

/// Holds the fast reader to its contract on `text` read as `dialect`: whatever it accepts (with
/// an arena for unescaped strings, as `check` reads, and without, as `fmt` reads), serde_json
/// accepts and reads into the same event, compared through `Debug`; and when it accepts
/// nothing, [`parse`] gives serde_json's answer. `Ok(true)` when the fast reader accepted
/// `text`; `Err` says how the readers differ.
///
/// Not a way to parse: it is here for `tests/it/fast_path.rs` and
/// `fuzz/fuzz_targets/fast_path.rs`, which cannot reach the readers one by one.
#[doc(hidden)]
pub fn readers_agree(text: &str, dialect: Option<Dialect>) -> Result<bool, String> {
    let slow = parse_serde_json(text, dialect);
    let arena = Bump::new();
    let mut accepted = false;
    for arena in [Some(&arena), None] {
        let Some(fast) = parse_fast(text, dialect, arena) else {
            continue;
        };
        accepted = true;
        match &slow {
            Ok(slow) if format!("{fast:?}") == format!("{slow:?}") => {}
            Ok(slow) => {
                return Err(format!(
                    "the two readers read {text:?} ({dialect:?}, arena {}) differently:\nfast: {fast:?}\nserde_json: {slow:?}",
                    arena.is_some()
                ));
            }
            Err(e) => {
                return Err(format!(
                    "the fast reader accepted what serde_json rejects ({e}): {text:?}"
                ));
            }
        }
    }
    if !accepted {
        let public = parse(text, dialect, None);
        match (&public, &slow) {
            (Ok(a), Ok(b)) if format!("{a:?}") == format!("{b:?}") => {}
            (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
            _ => {
                return Err(format!(
                    "parse and serde_json disagree on {text:?} ({dialect:?}): {public:?} / {slow:?}"
                ));
            }
        }
    }
    Ok(accepted)
}

/// What a record holds beyond the canonical fields: the other dialects' fields, kept until the
/// record's dialect is known and they are mapped.
#[derive(Default)]
struct Extras<'a> {
    /// The record has a `payload` object.
    payload: bool,
    /// `result` when it is an object: a tool result (sdk completions).
    outcome: Option<Outcome<'a>>,
    tool_name: Field<'a>,
    /// The first of `tool_call_id` and `callId`.
    call_id_alias: Field<'a>,
    parameters: Option<&'a RawValue>,
    /// `toolCall`: the payload dialect's tool call, or the cloud sdk's `{type, args}`. Set
    /// aside out of line: most records have none, and this struct is set up for every record.
    tool_call: Option<ParkedToolCall<'a>>,
    error: Field<'a>,
    prompt: Field<'a>,
    content: Field<'a>,
}

/// A tool call set aside until the record's dialect is known: in the arena when there is one,
/// so that reading it allocates nothing.
enum ParkedToolCall<'a> {
    InArena(bumpalo::boxed::Box<'a, ToolCall<'a>>),
    Boxed(Box<ToolCall<'a>>),
}

impl<'a> ParkedToolCall<'a> {
    fn new(tc: ToolCall<'a>, arena: Option<&'a Bump>) -> Self {
        match arena {
            Some(arena) => ParkedToolCall::InArena(bumpalo::boxed::Box::new_in(tc, arena)),
            None => ParkedToolCall::Boxed(Box::new(tc)),
        }
    }

    fn shape(&self) -> Option<JsonType> {
        match self {
            ParkedToolCall::InArena(tc) => tc.shape,
            ParkedToolCall::Boxed(tc) => tc.shape,
        }
    }

    fn into_inner(self) -> ToolCall<'a> {
        match self {
            ParkedToolCall::InArena(tc) => bumpalo::boxed::Box::into_inner(tc),
            ParkedToolCall::Boxed(tc) => *tc,
        }
    }
}

/// A message view for text that a dialect writes outside `message.content[]`.
fn text_message(text: Field<'_>) -> Message<'_> {
    let (text, bad_text) = match text {
        Field::Str(t) => (Some(t), None),
        other => (None, other.json_type()),
    };
    Message {
        shape: Some(JsonType::Object),
        role: Field::Absent,
        content_shape: Some(JsonType::Array),
        text,
        bad_text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn event(text: &str) -> Box<Event<'_>> {
        match parse(text, None, None).expect("valid JSON") {
            Parsed::Event(e) => e,
            Parsed::NotAnObject(t) => panic!("not an object: {t:?}"),
        }
    }

    /// The event view of `text` as `check` reads it: into a slot, with an arena.
    pub(super) fn event_in<'a>(text: &'a str, arena: &'a Bump) -> Event<'a> {
        let mut ev = Event::default();
        let shape = parse_into(text, None, &mut ev, arena).expect("valid JSON");
        assert_eq!(shape, Shape::Object);
        ev
    }

    #[test]
    fn not_objects_and_errors() {
        assert!(matches!(
            parse("[1,2]", None, None),
            Ok(Parsed::NotAnObject(JsonType::Array))
        ));
        assert!(matches!(
            parse("\"x\"", None, None),
            Ok(Parsed::NotAnObject(JsonType::String))
        ));
        assert!(parse("{} {}", None, None).is_err());
        assert!(parse("{\"a\":NaN}", None, None).is_err());
        assert!(parse("{\"a\":1", None, None).is_err());
        let deep = "[".repeat(100_000);
        assert!(parse(&deep, None, None).is_err());
    }

    #[test]
    fn the_fast_reader_agrees_with_serde_json_and_leaves_it_the_rest() {
        for dialect in [None].into_iter().chain(Dialect::ALL.map(Some)) {
            let mixed = r#"{"type":"tool-call-started","tool_name":"web_fetch","payload":{"prompt":"a\nb"}}"#;
            assert_eq!(readers_agree(mixed, dialect), Ok(true), "{dialect:?}");
            for rest in [r#"{"type":"result","duration_ms":1e400}"#, r#"{"a":1,}"#] {
                assert_eq!(
                    readers_agree(rest, dialect),
                    Ok(false),
                    "{rest} {dialect:?}"
                );
            }
        }
    }

    #[test]
    fn valid_json_that_serde_json_refuses_is_read() {
        let mut scratch = Vec::new();
        let text = r#"{"type":"result","duration_ms":1e400,"session_id":"a\ud800b","timestamp_ms":-1e999}"#;
        assert!(parse(text, None, None).is_err());
        let Ok(Parsed::Event(ev)) = parse(text, None, Some(&mut scratch)) else {
            panic!("valid JSON refused")
        };
        assert_eq!(ev.duration_ms, Field::Float(1e308));
        assert_eq!(ev.timestamp_ms, Field::Float(-1e308));
        assert_eq!(ev.session_id.as_str(), Some("a\u{e800}b"));
        // Distinct escapes stay distinct: no duplicate key.
        let Ok(Parsed::Event(ev)) = parse(r#"{"\ud800":1,"\ud801":2}"#, None, Some(&mut scratch))
        else {
            panic!("valid JSON refused")
        };
        assert_eq!(ev.duplicate_key, None);
        assert!(matches!(
            parse("1E400", None, Some(&mut scratch)),
            Ok(Parsed::NotAnObject(JsonType::Number))
        ));
        // Real errors after a substitution are still errors, at the same place.
        let e = parse(r#"{"a":1e400,"b":x}"#, None, Some(&mut scratch)).unwrap_err();
        assert_eq!(e.column(), 16);
    }
}
