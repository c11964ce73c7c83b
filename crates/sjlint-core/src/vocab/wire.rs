//! The JSON form of the common vocabulary: one event a line, `type` and `line` first, then the
//! fields the event has (`schemas/common.schema.json`). It owns the field names of that form
//! and their escaping (through [`crate::json_out`]); it must not decide what an event holds.

use super::Event;
use serde::Serialize;
use serde_json::value::RawValue;

/// The JSON form of one event (`schemas/common.schema.json`): `type` and `line` first, then the
/// fields the event has.
#[derive(Serialize)]
struct Wire<'e> {
    #[serde(rename = "type")]
    ty: &'static str,
    line: u64,
    /// The version of the form, on every `session_start`.
    #[serde(skip_serializing_if = "Option::is_none")]
    v: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'e RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rejected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'e str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    denied: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'e str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    delta: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<WireTokens>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp_ms: Option<u64>,
}

#[derive(Serialize)]
struct WireTokens {
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    reasoning_tokens: u64,
}

/// Appends `ev` as one JSON line to `out`, escaped by [`crate::json_out`].
///
/// # Panics
///
/// Never: every field serializes (non-finite costs are left out), and a `Vec` takes any write.
pub fn write_line(ev: &Event<'_>, out: &mut Vec<u8>) {
    let wire = Wire {
        ty: ev.kind.as_str(),
        line: ev.line,
        v: (ev.kind == super::Kind::SessionStart).then_some(super::VERSION),
        agent: ev.agent,
        session_id: ev.session_id.as_deref(),
        model: ev.model.as_deref(),
        cwd: ev.cwd.as_deref(),
        parent: ev.parent.as_deref(),
        call_id: ev.call_id.as_deref(),
        name: ev.name.as_deref(),
        tool_kind: ev.tool_kind,
        args: ev.args,
        ok: ev.ok,
        rejected: ev.rejected,
        outcome: (ev.kind == super::Kind::End)
            .then(|| ev.outcome.unwrap_or(super::Outcome::of_ok(ev.ok)).as_str()),
        reason: ev.reason.as_deref(),
        denied: ev.denied,
        exit_code: ev.exit_code,
        lines: ev.lines,
        text: ev.text.as_deref(),
        delta: ev.delta,
        usage: ev.usage.map(|u| WireTokens {
            input_tokens: u.input,
            output_tokens: u.output,
            cache_read_tokens: u.cache_read,
            cache_write_tokens: u.cache_write,
            reasoning_tokens: u.reasoning,
        }),
        cost_usd: ev.cost_usd.filter(|c| c.is_finite()),
        duration_ms: ev.duration_ms,
        timestamp_ms: ev.timestamp_ms,
    };
    crate::json_out::to_writer(&mut *out, &wire).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

/// Writes events as [`write_line`] does, naming the input's agent on the first one (when the
/// event does not name it itself): `fmt --to common` and the library's events.
#[derive(Debug, Default)]
pub struct Named {
    agent: Option<&'static str>,
}

impl Named {
    /// The input's agent, once known (`None`: none to name).
    pub fn set(&mut self, agent: Option<&'static str>) {
        self.agent = agent;
    }

    /// Appends `ev` to `out` as one JSON line.
    pub fn write(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) {
        match self.agent.take() {
            Some(agent) if ev.agent.is_none() => {
                let mut named = ev.clone();
                named.agent = Some(agent);
                write_line(&named, out);
            }
            _ => write_line(ev, out),
        }
    }
}
