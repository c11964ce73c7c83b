//! The outputs of sjlint: what is written from a checked stream. Each is a consumer of the
//! core's check pipeline (`sjlint_core::check::Consumer`), or writes what one gathered: the
//! report formats of findings (`report`, with `lint`'s summaries and `sink`'s destinations),
//! `stats` (counts, durations, cost), `render` (a transcript for people), `report_html` (the
//! HTML report), `ci` (what a CI step is told: summary, outputs, gates), `fmt` (the canonical and common forms), `status` (a session's state as `run`
//! and `check` tell it) and, with the `otlp` feature, `otlp` (OpenTelemetry spans). None opens
//! a file of its own accord, starts a process or reads the command line.
//!
//! The modules are public for the `sjlint` binary, the bindings, the benches and the tests:
//! hidden from the documentation, and no stable API. [`stats_json`] is the one function of the
//! embedding API that lives here.

pub use stats::stats_json;

#[doc(hidden)]
pub mod ci;
#[doc(hidden)]
pub mod fmt;
#[doc(hidden)]
pub mod lint;
#[cfg(feature = "otlp")]
#[doc(hidden)]
pub mod otlp;
#[doc(hidden)]
pub mod render;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod report_html;
#[doc(hidden)]
pub mod sink;
#[doc(hidden)]
pub mod stats;
#[doc(hidden)]
pub mod status;
#[doc(hidden)]
pub mod terminal;
#[doc(hidden)]
pub mod usage;
