//! sjlint: parse, validate and normalize the NDJSON event streams that AI coding-agent CLIs
//! write (`cursor-agent --print --output-format stream-json` first of all).
//!
//! The pipeline is split → classify → validate → report, one record at a time:
//! [`split`] finds records in a reused buffer, [`event`] gives a borrowed view of each one,
//! [`validate`] keeps the small state the lifecycle and pairing rules need, and [`report`]
//! prints what was found. [`check`] wires them together for one input. Payload and sdk records
//! are mapped by [`event`] into the one canonical view every rule reads, and [`fmt`] writes that
//! canonical form back out; [`schema`] carries the JSON Schemas of both outputs.

pub mod check;
pub mod cli;
pub mod commands;
pub mod diagnostic;
pub mod event;
pub mod excerpt;
pub mod fmt;
pub mod interrupt;
mod json;
mod json_str;
pub mod locate;
pub mod mapped;
pub mod pairing;
pub mod pipeline;
pub mod record;
pub mod render;
pub mod report;
pub mod rules;
pub mod schema;
pub mod simd;
pub mod sink;
pub mod split;
pub mod stats;
pub mod status;
pub mod validate;
