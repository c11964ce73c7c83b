//! sjlint: parse, validate and normalize the NDJSON event streams that AI coding-agent CLIs
//! write (`cursor-agent --print --output-format stream-json` first of all).
//!
//! # As a library
//!
//! Feed a [`Stream`] the bytes of an agent's output as they arrive; it hands a [`Sink`] each
//! [`Finding`] and each [`Event`] of the common vocabulary (what every agent's records come to)
//! as soon as the bytes that decide it are in, and a sink stops it by returning
//! [`ControlFlow::Break`](std::ops::ControlFlow::Break). [`Options`] are the command line's
//! `--agent`, `--select`, `--ignore` and `--severity`. For a whole input at once:
//! [`check_bytes`], [`check`] (any reader), [`to_common`] (the lines of `fmt --to common`),
//! [`stats_json`] (one file of `stats --format json`) and [`rules`] (the rule table).
//!
//! ```
//! use std::ops::ControlFlow;
//!
//! /// Prints each tool call as it starts, and stops at the first error.
//! struct Watch;
//!
//! impl sjlint::Sink for Watch {
//!     fn finding(&mut self, f: sjlint::Finding) -> ControlFlow<()> {
//!         println!("line {}: {}[{}] {}", f.line, f.severity, f.rule, f.message);
//!         if f.severity == sjlint::Severity::Error {
//!             return ControlFlow::Break(());
//!         }
//!         ControlFlow::Continue(())
//!     }
//!     fn event(&mut self, e: sjlint::Event) -> ControlFlow<()> {
//!         if e.kind() == "tool_start" {
//!             println!("{}", e.to_json());
//!         }
//!         ControlFlow::Continue(())
//!     }
//!     fn wants_events(&self) -> bool {
//!         true
//!     }
//! }
//!
//! let mut stream = sjlint::Stream::new(&sjlint::Options::new());
//! for piece in [
//!     &b"{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n{\"type\":\"turn.st"[..],
//!     &b"arted\"}\n"[..],
//! ] {
//!     if stream.feed(piece, &mut Watch).is_break() {
//!         break;
//!     }
//! }
//! let totals = stream.finish(&mut Watch);
//! assert_eq!(totals.agent, Some("codex"));
//! ```
//!
//! Bad input is never an error: every problem with the bytes is a finding. Nothing here
//! prints, installs a signal handler or spawns a thread. The crate's other modules serve the
//! `sjlint` binary, its benches, fuzz targets and tests: they are in [`unstable`], hidden from
//! the documentation, and may change in any release.
//!
//! # Inside
//!
//! The pipeline is split → classify → validate → report, one record at a time: `input` (the
//! splitter and mapped files) finds records in a reused buffer, `json` reads a record's text,
//! and `agents` is the registry of the twelve agents: each recognises its stream, reads a record
//! into a borrowed view, checks it with its own rules and small bounded state, and maps it into
//! the common vocabulary (`vocab`), which `stats`, `render`, `run` and `fmt --to common` read.
//! `report` prints what was found, and `check` wires it all together for one input, on one
//! thread or several (`check::pipeline`). `fmt` also writes
//! cursor-agent's canonical form; `schema` carries the JSON Schemas; `run` starts an agent and
//! supervises it. They live in [`unstable`]: public for the binary, the benches, the fuzz
//! targets and the tests only, hidden from the documentation, and no stable API.

pub use rules::Severity;
pub use stream::{
    Error, Event, Finding, Item, Options, Related, RuleRow, Sink, Stream, Totals, check,
    check_bytes, rules, stats_json, to_common,
};

mod stream;

#[doc(hidden)]
pub mod agents;
#[doc(hidden)]
pub mod arrivals;
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod commands;
#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod diagnostic;
#[doc(hidden)]
pub mod drift;
#[doc(hidden)]
pub mod fmt;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod interrupt;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod json_out;
#[doc(hidden)]
pub mod lint;
#[doc(hidden)]
pub mod locate;
#[doc(hidden)]
pub mod otlp;
#[doc(hidden)]
pub mod pairing;
#[doc(hidden)]
pub mod preamble;
#[doc(hidden)]
pub mod render;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod rules;
#[doc(hidden)]
pub mod run;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod sink;
#[doc(hidden)]
pub mod stats;
#[doc(hidden)]
pub mod status;
#[doc(hidden)]
pub mod terminal;
#[doc(hidden)]
pub mod text;
#[doc(hidden)]
pub mod units;
#[doc(hidden)]
pub mod vocab;
#[doc(hidden)]
pub mod walk;

#[doc(hidden)]
pub mod unstable;

mod fmt_files;
mod json_str;
mod out_file;
mod report_html;
