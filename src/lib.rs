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
//! splitter and mapped files) finds records in a reused buffer, `event` gives a borrowed view of
//! each cursor-agent record, `validate` keeps the small state the lifecycle and pairing rules
//! need, and `report` prints what was found. `check` wires them together for one input, on one
//! thread or several (`check::pipeline`). `agents` is the registry of the twelve agents: each
//! recognises its stream, checks it with its own rules and maps it into the common vocabulary
//! (`vocab`), which `stats`, `render`, `run` and `fmt --to common` read; `fmt` also writes
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
pub mod unstable;
use unstable::{
    agents, arrivals, check, cli, config, diagnostic, drift, event, fmt, input, interrupt,
    json_out, lint, locate, otlp, pairing, preamble, render, report, rules, run, schema, sink,
    stats, status, terminal, text, units, validate, vocab, walk,
};

mod fmt_files;
mod json;
mod json_str;
mod out_file;
mod report_html;
