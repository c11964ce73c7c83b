//! Where a report's events come from: the common events every agent's checker gives while the
//! stream is checked (the events `sjlint fmt --to common` writes), handed to the model as they
//! come; the findings of the same pass are collected beside them. An event that carries no time
//! of its own gets its record's arrival time, when `sjlint run --save` kept them.
//!
//! This is the one adapter between the checker and the page. It owns only that plumbing: it
//! must not lay out, count or write HTML.

use super::model::{Builder, MAX_FINDINGS, Run};
use sjlint_core::agents::Agent;
use sjlint_core::arrivals::Arrivals;
use sjlint_core::check::{self, CheckOptions, Consumer};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::vocab;
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
    let mut events = Events {
        builder: Builder::new(name),
        arrivals,
    };
    // Bounded as the model's list is: past the cap findings are only counted.
    let mut findings = Vec::new();
    let mut left_out = 0;
    let mut emit = |d: Diagnostic| {
        if let Some(d) = keep(&d) {
            if findings.len() < MAX_FINDINGS {
                findings.push(d);
            } else {
                left_out += 1;
            }
        }
        Ok(())
    };
    check::check_with(reader, check, &mut emit, &mut events)?;
    let mut builder = events.builder;
    for d in &findings {
        builder.finding(d);
    }
    builder.findings_left_out(left_out);
    Ok(builder.finish())
}

/// The consumer that hands each common event to the builder.
struct Events<'a> {
    builder: Builder,
    /// When each record arrived, for the events that carry no time.
    arrivals: Option<&'a Arrivals>,
}

impl Consumer for Events<'_> {
    fn agent(&mut self, agent: Option<Agent>) {
        // The common form names the agent of its source on its events.
        if let Some(a) = agent.filter(|&a| a != Agent::Common) {
            self.builder.agent(a.as_str());
        }
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        let arrived = self.arrivals.and_then(|a| a.at(ev.line));
        self.builder.event(ev, arrived);
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
