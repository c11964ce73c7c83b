//! Not API: the modules the `sjlint` binary is made of, public only so that the binary, the
//! benches, the fuzz targets and the tests can reach them. Anything here may change or go in
//! any release, patch releases included; embed the crate through its root (the push API)
//! instead.
//!
//! Each module says at its top what it owns and what it must not do; the crate root's
//! documentation tells how they fit.
//!
//! They are the modules of the workspace's three crates, gathered under one name that says
//! they are not API: the core's, the outputs' and the binary's own.

pub use crate::{cli, commands, run, units};
pub use sjlint_core::{
    agents, arrivals, check, config, diagnostic, drift, input, interrupt, json, json_out, locate,
    pairing, preamble, redact, rules, schema, text, vocab, walk,
};
pub use sjlint_outputs::{
    fmt, lint, otlp, render, report, report_html, sink, stats, status, terminal,
};
