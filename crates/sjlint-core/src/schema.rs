//! The JSON Schemas bundled into the binary, for `sjlint schema`.
//!
//! This module owns the table of schemas the binary carries (embedded at build time, so
//! `sjlint schema` works offline) and finding one by name. It must not validate anything; the
//! schemas describe sjlint's outputs and the canonical events, and tests hold them to the code.

/// One bundled schema.
pub struct Schema {
    /// The name `sjlint schema NAME` takes: the file name without `.schema.json`.
    pub name: &'static str,
    /// The schema document.
    pub text: &'static str,
}

impl Schema {
    const fn new(name: &'static str, text: &'static str) -> Schema {
        Schema { name, text }
    }
}

/// Every bundled schema, one line each: `schemas/<name>.schema.json`. (Kept out of rustfmt so
/// that adding a schema stays a one-line change.)
#[rustfmt::skip]
pub static SCHEMAS: &[Schema] = &[
    Schema::new("amp", include_str!("../../../schemas/amp.schema.json")),
    Schema::new("claude", include_str!("../../../schemas/claude.schema.json")),
    Schema::new("claude-log", include_str!("../../../schemas/claude-log.schema.json")),
    Schema::new("codex", include_str!("../../../schemas/codex.schema.json")),
    Schema::new("codex-log", include_str!("../../../schemas/codex-log.schema.json")),
    Schema::new("common", include_str!("../../../schemas/common.schema.json")),
    Schema::new("copilot", include_str!("../../../schemas/copilot.schema.json")),
    Schema::new("copilot-log", include_str!("../../../schemas/copilot-log.schema.json")),
    Schema::new("cursor-log", include_str!("../../../schemas/cursor-log.schema.json")),
    Schema::new("diagnostic", include_str!("../../../schemas/diagnostic.schema.json")),
    Schema::new("droid", include_str!("../../../schemas/droid.schema.json")),
    Schema::new("events", include_str!("../../../schemas/events.schema.json")),
    Schema::new("gemini", include_str!("../../../schemas/gemini.schema.json")),
    Schema::new(
        "gemini-log",
        include_str!("../../../schemas/gemini-log.schema.json"),
    ),
    Schema::new("grok", include_str!("../../../schemas/grok.schema.json")),
    Schema::new("kimi", include_str!("../../../schemas/kimi.schema.json")),
    Schema::new("opencode", include_str!("../../../schemas/opencode.schema.json")),
    Schema::new("pi", include_str!("../../../schemas/pi.schema.json")),
    Schema::new("pi-log", include_str!("../../../schemas/pi-log.schema.json")),
    Schema::new("qwen", include_str!("../../../schemas/qwen.schema.json")),
    Schema::new("run-events", include_str!("../../../schemas/run-events.schema.json")),
    Schema::new("run-summary", include_str!("../../../schemas/run-summary.schema.json")),
    Schema::new("stats", include_str!("../../../schemas/stats.schema.json")),
];

/// The schema called `name`, given as `events` or as its file name `events.schema.json`.
pub fn find(name: &str) -> Option<&'static Schema> {
    let name = name.strip_suffix(".schema.json").unwrap_or(name);
    SCHEMAS.iter().find(|s| s.name == name)
}
