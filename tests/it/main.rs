//! The integration tests: one test binary that runs the real `sjlint` on the fixtures of
//! `testdata/`, on the examples of each rule's documentation and on the real captures of
//! `../shared/corpus`, and checks exit codes, findings, output formats and CLI behaviour.
//!
//! One binary rather than one per file: each file of `tests/` used to be linked on its own, and
//! their tests ran one binary after the other. Only the tests that need a process of their own
//! stay apart: `tests/allocations.rs` (a counting global allocator) and `tests/memory.rs` (peak
//! memory of the binary it runs, with nothing else of the suite beside it).

mod common;
/// The generated streams of the benches.
#[path = "../../benches/common/mod.rs"]
mod generator;

mod agent_amp;
mod agent_copilot;
mod agent_droid;
mod agent_kimi;
mod agent_matrix;
mod agent_pi;
mod agent_qwen;
mod agents;
mod agents_properties;
mod archive;
mod canonical;
mod catalogue;
mod ci;
mod cli;
mod config_walk;
mod conformance;
mod consumers;
mod detection;
mod drift;
mod fast_path;
mod first_day;
mod fmt_keep_invalid;
mod fmt_safety;
mod formats;
mod hostile;
mod hostile_streams;
mod library;
mod linter;
mod live;
mod many_files;
mod newest_formats;
mod nothing_lost;
mod one_account;
mod otlp;
mod outcomes;
mod outputs_hold;
mod properties;
mod redact;
mod registry;
mod report;
mod report_size;
mod rule_fixtures;
mod run;
mod run_faults;
mod session_logs;
mod session_logs_copilot;
mod session_logs_cursor;
mod session_logs_gemini;
mod session_logs_pi;
mod signals;
mod threads;
mod tokens;
mod usage;
mod vocabulary;
