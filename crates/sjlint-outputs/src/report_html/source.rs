//! Where a report's events come from: the common events every agent's checker gives while the
//! stream is checked (the events `sjlint fmt --to common` writes), handed to the model as they
//! come; the findings of the same pass are collected beside them. An event that carries no time
//! of its own gets its record's arrival time, when `sjlint run --save` kept them.
//!
//! This is the one adapter between the checker and the page. It owns only that plumbing: it
//! must not lay out, count or write HTML.

use super::model::{Builder, Ev, MAX_FINDINGS, Run, Usage};
use sjlint_core::agents::Agent;
use sjlint_core::arrivals::Arrivals;
use sjlint_core::check::{self, CheckOptions, Consumer};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::vocab;
use std::borrow::Cow;
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
        agent: None,
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
    /// The agent of the input, named on the first event (then `None`), as the common form
    /// names it.
    agent: Option<&'static str>,
}

impl Consumer for Events<'_> {
    fn agent(&mut self, agent: Option<Agent>) {
        self.agent = agent.filter(|&a| a != Agent::Common).map(Agent::as_str);
    }

    fn wants_common(&self) -> bool {
        true
    }

    fn common(&mut self, ev: &vocab::Event<'_>) {
        let agent = match self.agent.take() {
            Some(a) if ev.agent.is_none() => Some(a),
            _ => ev.agent,
        };
        let mut model = model_event(ev, agent);
        if model.timestamp_ms.is_none()
            && let Some(a) = self.arrivals
        {
            model.timestamp_ms = a.at(ev.line);
        }
        self.builder.event(&model);
    }
}

/// `ev` as the model reads it, with the fields the common form writes.
fn model_event<'e>(ev: &'e vocab::Event<'_>, agent: Option<&'static str>) -> Ev<'e> {
    Ev {
        ty: Cow::Borrowed(ev.kind.as_str()),
        line: ev.line,
        agent: agent.map(Cow::Borrowed),
        session_id: ev.session_id.as_deref().map(Cow::Borrowed),
        model: ev.model.as_deref().map(Cow::Borrowed),
        parent: ev.parent.as_deref().map(Cow::Borrowed),
        call_id: ev.call_id.as_deref().map(Cow::Borrowed),
        name: ev.name.as_deref().map(Cow::Borrowed),
        tool_kind: ev.tool_kind.map(Cow::Borrowed),
        args: ev.args,
        ok: ev.ok,
        outcome: (ev.kind == vocab::Kind::End)
            .then(|| Cow::Borrowed(ev.outcome.unwrap_or(vocab::Outcome::of_ok(ev.ok)).as_str())),
        reason: ev.reason.as_deref().map(Cow::Borrowed),
        text: ev.text.as_deref().map(Cow::Borrowed),
        delta: ev.delta,
        usage: ev.usage.map(|u| Usage {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            reasoning: u.reasoning,
        }),
        // The common form leaves out a cost that is not a finite number.
        cost_usd: ev.cost_usd.filter(|c| c.is_finite()),
        duration_ms: ev.duration_ms,
        timestamp_ms: ev.timestamp_ms,
    }
}
