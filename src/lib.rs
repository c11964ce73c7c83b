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
//! # The workspace
//!
//! This crate is the binary (`cli`, `commands`, `run`) and the library that re-exports the
//! other two: `sjlint-core` reads and checks streams (the push API above comes from it) and
//! `sjlint-outputs` writes what is found and counted. `docs/internals.md` tells how they fit.

pub use sjlint_core::{
    Error, Event, Finding, Item, Options, Related, RuleRow, Severity, Sink, Stream, Totals, check,
    check_bytes, check_bytes_on, rules, to_common,
};
pub use sjlint_outputs::stats_json;

#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod commands;
#[doc(hidden)]
pub mod run;
#[doc(hidden)]
pub mod units;
#[doc(hidden)]
pub mod unstable;

mod archive;
mod fmt_files;
mod out_file;
