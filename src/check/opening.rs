//! Every session of the common form begins with a `session_start`: the [`Opening`] a check's
//! consumer is wrapped in.
//!
//! Some streams begin without their start record: a lone Claude Code `result` (what
//! `--output-format json` writes), Codex turns without their `thread.started`, a capture cut at
//! its start. Each agent's mapping says only what its records say, so here, where every agent's
//! common events pass on their way to the consumer, a `session_start` is put before the first
//! event of a stream that has none (with the agent, and the session id, time and line of that
//! event). Only the first: after an `end`, events without a start of their own continue the
//! session (Codex's next turn in the same thread, Amp's next turn of `--stream-json-input`). It
//! keeps nothing per record and must not change what it passes on.

use super::Consumer;
use crate::agents::Agent;
use crate::drift::Unlisted;
use crate::event::Event;
use crate::input::record::{Position, Record};
use crate::vocab::{self, Kind};

/// A consumer, with a `session_start` put before the first common event when it is not one.
pub(crate) struct Opening<C> {
    inner: C,
    /// The agent that wrote the input, as the common form names it (`None` for the common form
    /// read back, whose events name their agent themselves).
    agent: Option<&'static str>,
    /// A common event was passed on.
    begun: bool,
}

impl<C: Consumer> Opening<C> {
    pub(crate) fn new(inner: C) -> Self {
        Opening {
            inner,
            agent: None,
            begun: false,
        }
    }
}

impl<C: Consumer> Consumer for Opening<C> {
    fn event(&mut self, rec: &Record<'_>, json: &str, ev: &Event<'_>) {
        self.inner.event(rec, json, ev);
    }
    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        self.inner.invalid(pos, bytes);
    }
    fn passes_over_limit(&self) -> bool {
        self.inner.passes_over_limit()
    }
    fn over_limit_piece(&mut self, bytes: &[u8]) {
        self.inner.over_limit_piece(bytes);
    }
    fn agent(&mut self, agent: Option<Agent>) {
        self.agent = agent.filter(|a| *a != Agent::Common).map(Agent::as_str);
        self.inner.agent(agent);
    }
    fn wants_common(&self) -> bool {
        self.inner.wants_common()
    }
    fn common(&mut self, ev: &vocab::Event<'_>) {
        if !std::mem::replace(&mut self.begun, true) && ev.kind != Kind::SessionStart {
            let mut start = vocab::Event::new(Kind::SessionStart, ev.line);
            start.agent = ev.agent.or(self.agent);
            start.session_id.clone_from(&ev.session_id);
            start.timestamp_ms = ev.timestamp_ms;
            self.inner.common(&start);
        }
        self.inner.common(ev);
    }
    fn wants_unlisted(&self) -> bool {
        self.inner.wants_unlisted()
    }
    fn unlisted(&mut self, u: &Unlisted) {
        self.inner.unlisted(u);
    }
    fn agent_record(
        &mut self,
        rec: &Record<'_>,
        json: &str,
        ty: Option<&str>,
        subtype: Option<&str>,
    ) {
        self.inner.agent_record(rec, json, ty, subtype);
    }
    fn foreign(&mut self, rec: &Record<'_>) {
        self.inner.foreign(rec);
    }
}
