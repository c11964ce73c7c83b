//! The checker of sjlint: every coding agent's NDJSON event stream read, checked and mapped into
//! one vocabulary. Embed it through the `sjlint` crate, which re-exports this push API ([`Stream`],
//! [`check_bytes`], [`check`], [`to_common`], [`rules`]) with the outputs' `stats_json`.
//!
//! # Inside
//!
//! The pipeline is split → classify → validate → report, one record at a time: `input` (the
//! splitter and mapped files) finds records in a reused buffer, `json` reads a record's text,
//! and `agents` is the registry of the twelve agents: each recognises its stream, reads a record
//! into a borrowed view, checks it with its own rules and small bounded state, and maps it into
//! the common vocabulary (`vocab`). `check` wires it all together for one input, on one thread or
//! several (`check::pipeline`), and hands each finding and event to a `check::Consumer`: the
//! outputs of the `sjlint-outputs` crate are consumers. `rules` is the rule table, `config` the
//! configuration files, `schema` the JSON Schemas. The modules are public for the other crates of
//! the workspace, the benches, the fuzz targets and the tests only: hidden from the
//! documentation, and no stable API.

pub use rules::Severity;
pub use stream::{
    Error, Event, Finding, Item, Options, Related, RuleRow, Sink, Stream, Totals, check,
    check_bytes, check_bytes_on, rules, to_common,
};

mod stream;

#[doc(hidden)]
pub mod agents;
#[doc(hidden)]
pub mod arrivals;
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod diagnostic;
#[doc(hidden)]
pub mod drift;
#[doc(hidden)]
pub mod homes;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod interrupt;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod json_out;
#[doc(hidden)]
pub mod locate;
#[doc(hidden)]
pub mod pairing;
#[doc(hidden)]
pub mod preamble;
pub mod redact;
#[doc(hidden)]
pub mod rules;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod text;
#[doc(hidden)]
pub mod vocab;
#[doc(hidden)]
pub mod walk;

mod json_str;
