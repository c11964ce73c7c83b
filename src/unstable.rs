//! Not API: the modules the `sjlint` binary is made of, public only so that the binary, the
//! benches, the fuzz targets and the tests can reach them. Anything here may change or go in
//! any release, patch releases included; embed the crate through its root (the push API)
//! instead.
//!
//! Each module says at its top what it owns and what it must not do; the crate root's
//! documentation tells how they fit.
//!
//! The modules are the crate root's own (each file of `src/` is the module of its name); this one
//! gathers them under one name that says they are not API.

pub use crate::{
    agents, arrivals, check, cli, commands, config, diagnostic, drift, fmt, input, interrupt, json,
    json_out, lint, locate, otlp, pairing, preamble, render, report, rules, run, schema, sink,
    stats, status, terminal, text, units, vocab, walk,
};
