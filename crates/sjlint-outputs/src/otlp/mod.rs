//! OpenTelemetry traces of agent runs: `sjlint fmt --to otlp` and `sjlint run --otlp-endpoint`.
//!
//! This module owns the OTLP side of sjlint: the resource and scope every span is sent under,
//! the OTLP/JSON form of an `ExportTraceServiceRequest` written one span at a time
//! ([`JsonRequest`]), and the protobuf and JSON bodies of a batch ([`request`]). The spans
//! themselves are built from the common events in `builder`; ids in `ids`; the live exporter
//! of `sjlint run` is the binary's. The message types are `opentelemetry-proto`'s (prost), with their serde
//! form; where that form strays from the OTLP/JSON mapping it is mended here (see
//! [`json_value`]). It must not know any agent's records (only the common vocabulary), and it
//! must not print anything but what it is given to write.

mod builder;
mod ids;

pub use builder::{Builder, CONTENT_BYTES, NO_TIME_BASE_MS, Options, provider};
pub use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
pub use opentelemetry_proto::tonic::trace::v1::Span;

use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};
use std::io::{self, Write};

/// The resource of a stream's spans: `service.name` is the agent (`claude`, `codex`, …), so
/// that a backend lists each agent as a service.
pub fn resource(agent: Option<&str>) -> Resource {
    let attr = |key: &str, value: &str| KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.to_owned())),
        }),
        ..KeyValue::default()
    };
    Resource {
        attributes: vec![
            attr("service.name", agent.unwrap_or("unknown_agent")),
            attr("telemetry.sdk.name", "sjlint"),
            attr("telemetry.sdk.language", "rust"),
            attr("telemetry.sdk.version", env!("CARGO_PKG_VERSION")),
        ],
        ..Resource::default()
    }
}

/// The instrumentation scope: sjlint, at its version.
pub fn scope() -> InstrumentationScope {
    InstrumentationScope {
        name: "sjlint".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        ..InstrumentationScope::default()
    }
}

/// One request holding `spans`, under the agent's resource.
pub fn request(agent: Option<&str>, spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(resource(agent)),
            scope_spans: vec![ScopeSpans {
                scope: Some(scope()),
                spans,
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

/// The OTLP/JSON form of a message (<https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding>),
/// from the crate's serde form, mended where that strays or says more than it needs:
///
/// - fields at their default (`""`, `0`, `[]`, `false`, `null`) are left out, as protobuf's JSON
///   mapping does, so that a reader of an older version of the protocol meets no field it does
///   not know at its default (the crate writes every field, `entityRefs: []` included);
/// - ids are lowercase hex (the crate's, as the mapping asks, not base64), enums integers,
///   64-bit integers (`…UnixNano`, `intValue`) decimal strings: kept as they are.
///
/// The `value` of an attribute is kept even when empty: `{"stringValue": ""}` says the value is
/// an empty string.
pub fn json_value<T: serde::Serialize>(message: &T) -> serde_json::Value {
    let mut v = serde_json::to_value(message).unwrap_or(serde_json::Value::Null);
    prune(&mut v);
    v
}

fn prune(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            // An AnyValue's one field says its type even at its default (`{"intValue": "0"}`).
            let any_value = map.len() == 1
                && map.keys().next().is_some_and(|k| {
                    matches!(
                        k.as_str(),
                        "stringValue"
                            | "boolValue"
                            | "intValue"
                            | "doubleValue"
                            | "arrayValue"
                            | "kvlistValue"
                            | "bytesValue"
                    )
                });
            for (_, child) in map.iter_mut() {
                prune(child);
            }
            if !any_value {
                map.retain(|key, child| !is_default(key, child));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(prune),
        _ => {}
    }
}

/// Whether a field is at its protobuf default. A 64-bit integer is a string (`"0"` at its
/// default) in the fields that end in `UnixNano`; any other string is text.
fn is_default(key: &str, v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty() || (s == "0" && key.ends_with("UnixNano")),
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    }
}

/// An `ExportTraceServiceRequest` in OTLP/JSON written one span at a time, on one line (the
/// line of the OTLP file exporter's JSON Lines form), so that a stream of any length is written
/// holding one span at a time: the resource is written before the first span, with the agent
/// known by then.
pub struct JsonRequest<W: Write> {
    out: W,
    spans: u64,
}

impl<W: Write> JsonRequest<W> {
    pub fn new(out: W) -> Self {
        JsonRequest { out, spans: 0 }
    }

    /// Spans written so far.
    pub fn spans(&self) -> u64 {
        self.spans
    }

    /// Writes `span`, the resource of `agent` before the first one.
    ///
    /// # Errors
    ///
    /// The errors of writing to the output.
    pub fn span(&mut self, agent: Option<&str>, span: &Span) -> io::Result<()> {
        if self.spans == 0 {
            self.out.write_all(b"{\"resourceSpans\":[{\"resource\":")?;
            sjlint_core::json_out::to_writer(&mut self.out, &json_value(&resource(agent)))?;
            self.out.write_all(b",\"scopeSpans\":[{\"scope\":")?;
            sjlint_core::json_out::to_writer(&mut self.out, &json_value(&scope()))?;
            self.out.write_all(b",\"spans\":[")?;
        } else {
            self.out.write_all(b",")?;
        }
        sjlint_core::json_out::to_writer(&mut self.out, &json_value(span))?;
        self.spans += 1;
        Ok(())
    }

    /// Closes the request (one with no span when none was written) and its line.
    ///
    /// # Errors
    ///
    /// The errors of writing to the output.
    pub fn finish(mut self) -> io::Result<W> {
        if self.spans == 0 {
            self.out.write_all(b"{\"resourceSpans\":[]}\n")?;
        } else {
            self.out.write_all(b"]}]}]}\n")?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(key: &str, value: any_value::Value) -> KeyValue {
        KeyValue {
            key: key.to_owned(),
            value: Some(AnyValue { value: Some(value) }),
            ..KeyValue::default()
        }
    }

    #[test]
    fn defaults_are_left_out_but_an_attribute_keeps_its_value_and_type() {
        let span = Span {
            trace_id: vec![0xab; 16],
            span_id: vec![1; 8],
            name: "0".to_owned(),
            kind: 1,
            start_time_unix_nano: 0,
            end_time_unix_nano: 1_000,
            attributes: vec![
                kv("zero", any_value::Value::IntValue(0)),
                kv("empty", any_value::Value::StringValue(String::new())),
                kv("no", any_value::Value::BoolValue(false)),
            ],
            ..Span::default()
        };
        let v = json_value(&span);
        assert_eq!(v["traceId"], "abababababababababababababababab");
        assert_eq!(v["spanId"], "0101010101010101");
        assert!(v.get("parentSpanId").is_none());
        assert!(v.get("traceState").is_none());
        assert!(v.get("startTimeUnixNano").is_none());
        assert_eq!(v["endTimeUnixNano"], "1000");
        assert_eq!(v["name"], "0", "a name is text, even \"0\"");
        assert_eq!(v["kind"], 1);
        assert_eq!(
            v["attributes"][0]["value"],
            serde_json::json!({"intValue": "0"})
        );
        assert_eq!(
            v["attributes"][1]["value"],
            serde_json::json!({"stringValue": ""})
        );
        assert_eq!(
            v["attributes"][2]["value"],
            serde_json::json!({"boolValue": false})
        );
    }
}
