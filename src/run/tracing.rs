//! `run --otlp-endpoint`: the run's spans, built from its common events as they arrive and
//! handed to the exporter thread as each one ends.
//!
//! This module owns the link between the stdout thread and the OTLP exporter: the span builder
//! of the run (its events timed by their arrival when their records carry no time, its trace
//! ids salted with the run's own start so that two runs are two traces), and the hand-over of
//! finished spans, which never waits (`crate::run::export`). It must not build spans itself,
//! send anything, or print anything.

use crate::run::export::Exporter;
use sjlint_core::vocab::Event;
use sjlint_outputs::otlp::{Builder, Options};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The arrival time of the line being read: now, since the run reads each line as it comes.
fn now_ms(_line: u64) -> Option<u64> {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|d| d.as_millis() as u64)
}

/// The run's spans on their way to the exporter.
pub(super) struct Tracing {
    builder: Builder<fn(u64) -> Option<u64>>,
    exporter: Exporter,
    /// The agent, which the exporter thread names as the resource's `service.name`.
    agent: Arc<Mutex<Option<&'static str>>>,
}

impl Tracing {
    pub(super) fn start(
        settings: crate::run::export::Settings,
        content: bool,
        max_open_calls: usize,
    ) -> Tracing {
        let agent = Arc::new(Mutex::new(None));
        let exporter = Exporter::start(settings, Arc::clone(&agent));
        let salt = format!(
            "{}.{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
            std::process::id()
        );
        let arrival: fn(u64) -> Option<u64> = now_ms;
        Tracing {
            builder: Builder::new(Options { content }, arrival)
                .salt(salt.as_bytes())
                .max_open_calls(max_open_calls),
            exporter,
            agent,
        }
    }

    pub(super) fn agent(&mut self, agent: Option<&'static str>) {
        self.builder.agent(agent);
        *self
            .agent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = agent;
    }

    pub(super) fn event(&mut self, ev: &Event<'_>) {
        if let Some(a) = ev.agent {
            self.agent(Some(a));
        }
        self.builder.event(ev);
        for span in self.builder.drain() {
            self.exporter.send(span);
        }
    }

    /// Ends what is still open (the stream is over) and hands it over; the exporter is left to
    /// send the rest.
    pub(super) fn finish(mut self) -> Exporter {
        self.builder.finish();
        for span in self.builder.drain() {
            self.exporter.send(span);
        }
        self.exporter
    }
}
