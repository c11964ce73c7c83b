//! `sjlint report`: a self-contained HTML page of a run (a timeline of its tool calls, its
//! numbers, its findings and its transcript), and an index page of several runs.
//!
//! This module owns turning a stream into those pages: `source` reads the stream into the
//! owned `model` of a run (the only part that knows how events arrive today), `page` and
//! `index` write the HTML, `html` escapes every text from the stream, and `assets` holds the
//! inline CSS and scripts. The pages load nothing from elsewhere. It must not open files, walk
//! directories nor decide exit codes (`commands::report` and `run` do), and it shows what the
//! common vocabulary says, never an agent's own records.

mod html;
mod index;
mod model;
mod page;
mod source;

use sjlint_core::arrivals::Arrivals;
use sjlint_core::check::CheckOptions;
use sjlint_core::diagnostic::Diagnostic;
use std::io::{self, Read};

pub use index::Summary;
pub use model::Run;
pub use source::Collect;

/// Reads a whole stream named `name` into a run; `keep` chooses (and may re-grade) the
/// findings the page shows; `arrivals`, the times `sjlint run --save` kept of its records, time
/// the events that carry none.
pub fn read(
    name: &str,
    reader: impl Read,
    check: &CheckOptions,
    keep: &mut dyn FnMut(&Diagnostic) -> Option<Diagnostic>,
    arrivals: Option<&Arrivals>,
) -> io::Result<Run> {
    source::read_run(name, reader, check, keep, arrivals)
}

/// The page of `run`; `back` is the address of the index it belongs to, if any.
pub fn page(run: &Run, back: Option<&str>) -> String {
    page::page(run, back)
}

/// The index page of several runs.
pub fn index(runs: &[Summary]) -> String {
    index::index(runs)
}
