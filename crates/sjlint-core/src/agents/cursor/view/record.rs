//! The top level of a record: every dialect's keys read in one pass, the record's dialect
//! detected by its own shape, and that dialect's mapping applied.
//!
//! This module owns the walk over a record's top-level object and over a `payload` object's
//! keys, which count as top-level: the canonical fields go to the [`Event`], the other
//! dialects' fields aside until the dialect is known, repeated keys are noted. It decides the
//! dialect (or takes the forced one) from what each dialect's module says its shape is, and has
//! that module map what was set aside. It must not read the canonical objects themselves
//! (`cursor`) nor know what another dialect's fields mean (`payload`, `sdk`).

use super::cursor::{MessageSeed, ResultValue};
use super::payload::{self, map_payload};
use super::sdk::{self, map_sdk, sdk_event_name};
use super::visit::{Key, KeySet, non_object_visits};
use super::{Dialect, Event, Extras, Field, JsonType, ParkedToolCall, Shape};
use bumpalo::Bump;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Accepts any value; of an object it writes the event view to `ev`.
pub(super) struct TopVisitor<'e, 'de> {
    pub(super) forced: Option<Dialect>,
    pub(super) ev: &'e mut Event<'de>,
    /// Where what the record's text does not hold as such (the joined texts of a content array,
    /// a tool call set aside, a tool kind spelled from an sdk name) is kept when given, so that
    /// reading a record allocates nothing.
    pub(super) arena: Option<&'de Bump>,
}

impl<'de> DeserializeSeed<'de> for TopVisitor<'_, 'de> {
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopVisitor<'_, 'de> {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    non_object_visits!(Shape::Other);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ev = self.ev;
        let arena = self.arena;
        let mut x = Extras::default();
        let mut seen = KeySet::default();
        // A forced cursor or sdk reading leaves `payload` an unknown field.
        let read_payload = matches!(self.forced, None | Some(Dialect::Payload));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if seen.insert(&key) && ev.duplicate_key.is_none() {
                ev.duplicate_key = Some(key.name.clone());
            }
            match &*key.name {
                "type" => ev.ty = map.next_value()?,
                "subtype" => ev.subtype = map.next_value()?,
                "payload" if read_payload => {
                    x.payload |= map.next_value_seed(PayloadSeed {
                        ev: &mut *ev,
                        x: &mut x,
                        arena,
                    })?;
                }
                name => body_field(ev, &mut x, name, &mut map, arena)?,
            }
        }
        ev.dialect = self.forced.unwrap_or_else(|| detect(ev, &x));
        match ev.dialect {
            Dialect::Cursor => {}
            Dialect::Payload => map_payload(ev, &mut x),
            Dialect::Sdk => map_sdk(ev, &mut x, arena),
        }
        // Read by shape, a record may mix dialects (sdk fields in a payload wrapper): what the
        // payload mapping leaves, the sdk mapping takes, as `fmt` does when it writes the record,
        // so the canonical view is the one `fmt` writes. A forced dialect reads only its own
        // shapes.
        if self.forced.is_none() {
            match ev.dialect {
                Dialect::Payload => map_sdk(ev, &mut x, arena),
                Dialect::Cursor => sdk_event_name(ev),
                Dialect::Sdk => {}
            }
        }
        Ok(Shape::Object)
    }
}

/// Reads one key of the event body: a top-level key, or (payload dialect) a key inside `payload`.
fn body_field<'de, A: MapAccess<'de>>(
    ev: &mut Event<'de>,
    x: &mut Extras<'de>,
    name: &str,
    map: &mut A,
    arena: Option<&'de Bump>,
) -> Result<(), A::Error> {
    match name {
        "session_id" => ev.session_id = map.next_value()?,
        "timestamp_ms" => ev.timestamp_ms = map.next_value()?,
        "call_id" => ev.call_id = map.next_value()?,
        "model_call_id" => ev.model_call_id = map.next_value()?,
        "model" => ev.model = map.next_value()?,
        "tool_call" => ev.tool_call = map.next_value()?,
        "message" => ev.message = map.next_value_seed(MessageSeed { arena })?,
        "text" => ev.text = map.next_value()?,
        "is_error" => ev.is_error = map.next_value()?,
        "result" => {
            let r: ResultValue<'de> = map.next_value()?;
            ev.result = r.field;
            x.outcome = r.outcome;
        }
        "duration_ms" => ev.duration_ms = map.next_value()?,
        "duration_api_ms" => ev.duration_api_ms = map.next_value()?,
        "request_id" => ev.request_id = map.next_value()?,
        "usage" => ev.usage = map.next_value()?,
        "query_type" => ev.query_type = map.next_value()?,
        "query" => ev.query = map.next_value()?,
        "response" => ev.response = map.next_value()?,
        "data" => ev.data = map.next_value()?,
        "apiKeySource" | "cwd" | "permissionMode" => {
            ev.init_keys = true;
            map.next_value::<IgnoredAny>()?;
        }
        "tool_name" => x.tool_name = map.next_value()?,
        "tool_call_id" | "callId" => {
            let id: Field<'de> = map.next_value()?;
            if !x.call_id_alias.is_present() {
                x.call_id_alias = id;
            }
        }
        "parameters" => x.parameters = Some(map.next_value()?),
        "toolCall" => x.tool_call = Some(ParkedToolCall::new(map.next_value()?, arena)),
        "error" => x.error = map.next_value()?,
        "prompt" => x.prompt = map.next_value()?,
        "content" => x.content = map.next_value()?,
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(())
}

/// Reads a `payload` object into the event as if its keys were top-level; true when it was an
/// object.
struct PayloadSeed<'e, 'de> {
    ev: &'e mut Event<'de>,
    x: &'e mut Extras<'de>,
    arena: Option<&'de Bump>,
}

impl<'de> DeserializeSeed<'de> for PayloadSeed<'_, 'de> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PayloadSeed<'_, 'de> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    non_object_visits!(|_| false);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut seen = KeySet::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if seen.insert(&key) && self.ev.duplicate_key.is_none() {
                self.ev.duplicate_key = Some(key.name.clone());
            }
            match &*key.name {
                // The event's own `type` and `subtype` are the top-level ones; copies inside the
                // wrapper stay the wrapper's (and `fmt` leaves them there).
                "type" | "subtype" | "payload" => {
                    map.next_value::<IgnoredAny>()?;
                }
                name => body_field(self.ev, self.x, name, &mut map, self.arena)?,
            }
        }
        Ok(true)
    }
}

/// The dialect a record's own shape names. Shapes several dialects share are cursor's.
fn detect(ev: &Event<'_>, x: &Extras<'_>) -> Dialect {
    if payload::shape_is_payload(ev, x) {
        Dialect::Payload
    } else if sdk::shape_is_sdk(ev, x) {
        Dialect::Sdk
    } else {
        Dialect::Cursor
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{event, event_in};
    use super::super::{Dialect, Parsed, parse};
    use bumpalo::Bump;
    use std::borrow::Cow;

    #[test]
    fn each_record_is_classified_by_its_own_shape() {
        let d = |t: &str| event(t).dialect;
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s"}"#),
            Dialect::Cursor
        );
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#),
            Dialect::Sdk
        );
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","payload":{}}"#),
            Dialect::Payload
        );
        assert_eq!(d(r#"{"type":"error","message":"boom"}"#), Dialect::Payload);
        assert_eq!(d(r#"{"type":"raw","data":"x"}"#), Dialect::Payload);
        assert_eq!(
            d(r#"{"type":"assistant","text":"a","timestamp_ms":1}"#),
            Dialect::Sdk
        );
        assert_eq!(
            d(r#"{"type":"result","subtype":"error","error":"timeout"}"#),
            Dialect::Sdk
        );
        // A shape every dialect shares is the canonical one.
        assert_eq!(
            d(r#"{"type":"user","message":{"role":"user","content":[]}}"#),
            Dialect::Cursor
        );
    }

    #[test]
    fn a_forced_dialect_maps_only_its_own_shapes() {
        let text = r#"{"type":"tool-call-started","tool_name":"Shell","tool_call_id":"c1"}"#;
        let Parsed::Event(e) = parse(text, Some(Dialect::Cursor), None).unwrap() else {
            panic!()
        };
        assert_eq!(e.ty.as_str(), Some("tool-call-started"));
        assert_eq!(e.dialect, Dialect::Cursor);
        let text = r#"{"type":"user","payload":{"prompt":"hi"}}"#;
        let Parsed::Event(e) = parse(text, Some(Dialect::Sdk), None).unwrap() else {
            panic!()
        };
        assert_eq!(e.message.shape, None);
    }

    #[test]
    fn set_aside_tool_calls_are_the_same_with_an_arena_and_without() {
        let arena = Bump::new();
        for text in [
            r#"{"type":"tool_call","subtype":"started","payload":{"toolCall":{"id":"shell-1","shellToolCall":{"name":"shell","args":{"command":"ls"}}}}}"#,
            r#"{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"s\n1","result":{"exitCode":2,"stdout":""}}}}"#,
            r#"{"type":"tool-call-started","callId":"c2","toolCall":{"type":"web_fetch","args":{"url":"x"}}}"#,
            r#"{"type":"tool-call-completed","callId":"c2","toolCall":{"type":"mcp\u0054oolCall","args":{},"result":{"success":true}}}"#,
            // Set aside and never used: `tool_call` is there, or `toolCall` is not an object.
            r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{}},"toolCall":{"id":"d","readToolCall":{}}}"#,
            r#"{"type":"tool-call-started","callId":"c3","toolCall":[1]}"#,
        ] {
            let with = event_in(text, &arena);
            let without = event(text);
            assert_eq!(format!("{with:?}"), format!("{without:?}"), "{text}");
        }
        let e = event_in(
            r#"{"type":"tool-call-started","callId":"c2","toolCall":{"type":"web_fetch","args":{"url":"x"}}}"#,
            &arena,
        );
        assert_eq!(e.call_id.as_str(), Some("c2"));
        assert_eq!(e.tool_call.kind.as_deref(), Some("webFetchToolCall"));
        assert!(matches!(e.tool_call.kind, Some(Cow::Borrowed(_))));
    }
}
