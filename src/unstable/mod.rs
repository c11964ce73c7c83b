//! Not API: the modules the `sjlint` binary is made of, public only so that the binary, the
//! benches, the fuzz targets and the tests can reach them. Anything here may change or go in
//! any release, patch releases included; embed the crate through its root (the push API)
//! instead.
//!
//! Each module says at its top what it owns and what it must not do; the crate root's
//! documentation tells how they fit.

#[doc(hidden)]
#[path = "../agents/mod.rs"]
pub mod agents;
#[doc(hidden)]
#[path = "../arrivals.rs"]
pub mod arrivals;
#[doc(hidden)]
#[path = "../check/mod.rs"]
pub mod check;
#[doc(hidden)]
#[path = "../cli.rs"]
pub mod cli;
#[doc(hidden)]
#[path = "../commands/mod.rs"]
pub mod commands;
#[doc(hidden)]
#[path = "../config.rs"]
pub mod config;
#[doc(hidden)]
#[path = "../diagnostic.rs"]
pub mod diagnostic;
#[doc(hidden)]
#[path = "../drift.rs"]
pub mod drift;
#[doc(hidden)]
#[path = "../event/mod.rs"]
pub mod event;
#[doc(hidden)]
#[path = "../fmt/mod.rs"]
pub mod fmt;
#[doc(hidden)]
#[path = "../input/mod.rs"]
pub mod input;
#[doc(hidden)]
#[path = "../interrupt.rs"]
pub mod interrupt;
#[doc(hidden)]
#[path = "../json_out.rs"]
pub mod json_out;
#[doc(hidden)]
#[path = "../lint.rs"]
pub mod lint;
#[doc(hidden)]
#[path = "../locate.rs"]
pub mod locate;
#[doc(hidden)]
#[path = "../otlp/mod.rs"]
pub mod otlp;
#[doc(hidden)]
#[path = "../pairing.rs"]
pub mod pairing;
#[doc(hidden)]
#[path = "../preamble.rs"]
pub mod preamble;
#[doc(hidden)]
#[path = "../render/mod.rs"]
pub mod render;
#[doc(hidden)]
#[path = "../report/mod.rs"]
pub mod report;
#[doc(hidden)]
#[path = "../rules/mod.rs"]
pub mod rules;
#[doc(hidden)]
#[path = "../run/mod.rs"]
pub mod run;
#[doc(hidden)]
#[path = "../schema.rs"]
pub mod schema;
#[doc(hidden)]
#[path = "../sink.rs"]
pub mod sink;
#[doc(hidden)]
#[path = "../stats/mod.rs"]
pub mod stats;
#[doc(hidden)]
#[path = "../status.rs"]
pub mod status;
#[doc(hidden)]
#[path = "../terminal.rs"]
pub mod terminal;
#[doc(hidden)]
#[path = "../text/mod.rs"]
pub mod text;
#[doc(hidden)]
#[path = "../units.rs"]
pub mod units;
#[doc(hidden)]
#[path = "../validate/mod.rs"]
pub mod validate;
#[doc(hidden)]
#[path = "../vocab/mod.rs"]
pub mod vocab;
#[doc(hidden)]
#[path = "../walk.rs"]
pub mod walk;
