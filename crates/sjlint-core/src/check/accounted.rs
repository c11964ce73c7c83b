//! The consumer as the check hands it events: each stream's common events pass through a
//! [`vocab::Account`] first, so that every consumer (statistics, render, the common form, `run`,
//! the report, the library) sees the same outcome on each `end`, an `end` with outcome
//! `no_result` where a session was left open at the end of the input, and a `session_start`
//! first in a stream whose start record is missing.

use super::{Checked, Consumer};
use crate::agents::Agent;
use crate::input::record::{Position, Record};
use crate::vocab;

/// `C` with its common events accounted for.
pub(crate) struct Accounted<C> {
    inner: C,
    account: vocab::Account,
}

impl<C: Consumer> Accounted<C> {
    pub(crate) fn new(inner: C) -> Self {
        Accounted {
            inner,
            account: vocab::Account::default(),
        }
    }

    /// The input has ended: a session its checker found `open` (without the agent's last
    /// record) gets its `end`.
    pub(crate) fn input_ended(&mut self, open: bool) {
        if open && self.inner.wants_common() {
            let inner = &mut self.inner;
            self.account.finish(&mut |ev| inner.common(ev));
        }
    }
}

impl<C: Consumer> Consumer for Accounted<C> {
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
        self.account
            .set_agent(agent.filter(|a| *a != Agent::Common).map(Agent::as_str));
        self.account.set_ends_untold(
            agent.is_some_and(|a| a.source() == crate::agents::Source::SessionLog),
        );
        self.inner.agent(agent);
    }
    fn wants_common(&self) -> bool {
        self.inner.wants_common()
    }
    fn common(&mut self, ev: &vocab::Event<'_>) {
        let inner = &mut self.inner;
        self.account.pass(ev, &mut |e| inner.common(e));
    }
    fn wants_unlisted(&self) -> bool {
        self.inner.wants_unlisted()
    }
    fn unlisted(&mut self, u: &crate::drift::Unlisted) {
        self.inner.unlisted(u);
    }
    fn agent_record(&mut self, rec: &Record<'_>, json: &str, read: &Checked<'_, '_>) {
        self.inner.agent_record(rec, json, read);
    }
    fn foreign(&mut self, rec: &Record<'_>) {
        self.inner.foreign(rec);
    }
}
