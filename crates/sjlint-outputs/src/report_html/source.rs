//! Where a report's events come from: the common events every agent's checker gives while the
//! stream is checked (the events `sjlint fmt --to common` writes), handed to the model as they
//! come; the findings of the same pass are collected beside them. An event that carries no time
//! of its own gets its record's arrival time, when `sjlint run --save` kept them.
//!
//! This is the one adapter between the checker and the page. It owns only that plumbing: it
//! must not lay out, count or write HTML.

use super::model::{Builder, Run};
use sjlint_core::agents::Agent;
use sjlint_core::arrivals::Arrivals;
use sjlint_core::check::{self, CheckOptions, Consumer};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::vocab;
use std::cell::RefCell;
use std::io::{self, Read};

/// Reads a whole stream into a [`Run`] named `name`. `keep` says which findings the page shows
/// (the settings of `check` for this input); the others are dropped. A read error ends the
/// reading and is returned with nothing built.
pub(crate) fn read_run(
    name: &str,
    reader: impl Read,
    check: &CheckOptions,
    keep: &mut dyn FnMut(&Diagnostic) -> Option<Diagnostic>,
    arrivals: Option<&Arrivals>,
) -> io::Result<Run> {
    let page = RefCell::new(Collect::new(name));
    let mut emit = |d: Diagnostic| {
        if let Some(d) = keep(&d) {
            page.borrow_mut().finding(&d);
        }
        Ok(())
    };
    let mut events = Events {
        page: &page,
        arrivals,
    };
    check::check_with(reader, check, &mut emit, &mut events)?;
    Ok(page.into_inner().finish())
}

/// A run's page, collected as its stream is checked: the check's consumer hands it the agent
/// and each common event, its emitter each finding the page shows. `sjlint run --report`
/// collects one beside its own reading of the agent's stdout, so that the page comes from the
/// same pass as everything else the run reports.
pub struct Collect {
    builder: Builder,
}

impl Collect {
    /// A page for the run named `name` (its title).
    pub fn new(name: &str) -> Collect {
        Collect {
            builder: Builder::new(name),
        }
    }

    /// The agent the check knows the stream to be (what [`Consumer::agent`] says).
    pub fn agent(&mut self, agent: Option<Agent>) {
        // The common form names the agent of its source on its events.
        if let Some(a) = agent.filter(|&a| a != Agent::Common) {
            self.builder.agent(a.as_str());
        }
    }

    /// One common event; `arrived_ms` is when its record arrived (Unix milliseconds), which
    /// times an event that carries no time of its own.
    pub fn common(&mut self, ev: &vocab::Event<'_>, arrived_ms: Option<u64>) {
        self.builder.event(ev, arrived_ms);
    }

    /// One finding the page shows, as it is reported. Past the page's cap findings are only
    /// counted.
    pub fn finding(&mut self, d: &Diagnostic) {
        self.builder.finding(d);
    }

    /// The run, laid out for [`page`](super::page).
    pub fn finish(self) -> Run {
        self.builder.finish()
    }
}

/// The consumer that hands each common event to the page.
struct Events<'a> {
    page: &'a RefCell<Collect>,
    /// When each record arrived, for the events that carry no time.
    arrivals: Option<&'a Arrivals>,
}

impl Consumer for Events<'_> {
    fn agent(&mut self, agent: Option<Agent>) {
        self.page.borrow_mut().agent(agent);
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        let arrived = self.arrivals.and_then(|a| a.at(ev.line));
        self.page.borrow_mut().common(ev, arrived);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fact cursor-agent's calls carry in the common events reaches the page: a refused
    /// call, a command's exit code, the lines a read read, the directory the run worked in.
    #[test]
    fn the_page_says_what_each_call_did_and_where_the_run_worked() {
        let stream = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/render/fix-the-cart.ndjson"
        ))
        .expect("fixture");
        let run = read_run(
            "fix-the-cart",
            &stream[..],
            &CheckOptions::default(),
            &mut |_| None,
            None,
        )
        .expect("read");
        assert_eq!(run.cwd.as_deref(), Some("/home/dev/shop"));
        assert!(run.calls.iter().any(|c| c.rejected && c.ok == Some(false)));
        assert!(run.calls.iter().any(|c| c.exit_code == Some(1)));
        assert!(run.calls.iter().any(|c| c.lines == Some(54)));
        let html = super::super::page(&run, None);
        assert!(html.contains("<dt>directory</dt><dd>/home/dev/shop</dd>"));
        assert!(html.contains("<span class=\"st open\">rejected</span>"));
        assert!(html.contains("<span class=\"st bad\">exit 1</span>"));
        assert!(html.contains("<span class=\"st\">54 lines</span>"));
    }
}
