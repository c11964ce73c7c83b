//! sjlint: parse, validate and normalize the NDJSON event streams that AI coding-agent CLIs
//! write (`cursor-agent --print --output-format stream-json` first of all).
//!
//! # As a library
//!
//! The crate's API is the few items re-exported here: check a stream held in memory
//! ([`check_bytes`]) or read from any reader ([`check()`]) with [`CheckOptions`], and receive
//! each finding as a [`Diagnostic`] as soon as it is known; the rule table ([`RULES`], [`Rule`],
//! [`RuleSet`]); and a [`Printer`] that writes findings in any of the command line's formats.
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! let stream = std::fs::read("run.ndjson")?;
//! let mut errors = 0;
//! let totals = sjlint::check_bytes(&stream, &sjlint::CheckOptions::default(), &mut |d| {
//!     if d.severity == sjlint::Severity::Error {
//!         errors += 1;
//!     }
//!     println!("line {}: {}[{}] {}", d.line, d.severity, d.rule, d.message);
//!     Ok(())
//! })?;
//! println!("{} records, {} bytes, {errors} errors", totals.records, totals.bytes);
//! # Ok(())
//! # }
//! ```
//!
//! Bad input is never an `Err`: every problem with the bytes is a diagnostic. `Err` is an I/O
//! error of the reader, or one returned by the callback (which stops the check).
//!
//! # Inside
//!
//! The pipeline is split → classify → validate → report, one record at a time: `input` (the
//! splitter and mapped files) finds records in a reused buffer, `event`
//! gives a borrowed view of each one, `validate` keeps the small state the lifecycle and pairing
//! rules need, and `report` prints what was found.
//! `check` wires them together for one input, on one thread or several (`check::pipeline`). Payload and sdk records are mapped by `event`
//! into the one canonical view every rule reads, and `fmt` writes that canonical form back out;
//! `schema` carries the JSON Schemas of the outputs. `agents` recognises Claude Code, Codex and
//! Gemini CLI streams, checks each with its agent's rules and maps them into one agent-neutral
//! vocabulary; `run` starts an agent and supervises it. These modules are public for the binary,
//! the benches, the fuzz targets and the tests only: they are hidden from the documentation and
//! are no stable API.

pub use check::{CheckOptions, Totals, check, check_bytes};
pub use diagnostic::{Diagnostic, Related};
pub use report::{Format, Printer};
pub use rules::{Group, RULES, Rule, RuleInfo, RuleSet, Severity};

#[doc(hidden)]
pub mod agents;
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
pub mod event;
#[doc(hidden)]
pub mod fmt;
mod fmt_files;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod interrupt;
mod json;
#[doc(hidden)]
pub mod json_out;
mod json_str;
#[doc(hidden)]
pub mod lint;
#[doc(hidden)]
pub mod locate;
pub mod otlp;
#[doc(hidden)]
pub mod pairing;
#[doc(hidden)]
pub mod preamble;
#[doc(hidden)]
pub mod render;
#[doc(hidden)]
pub mod report;
mod report_html;
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
pub mod validate;
pub mod vocab;
#[doc(hidden)]
pub mod walk;
