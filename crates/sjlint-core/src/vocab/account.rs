//! What a session earned, from its common events: the [`Account`] every stream's events pass
//! through on their way to a consumer.
//!
//! An agent's checker reads its own `end` record into an [`Outcome`]; some outcomes need the
//! whole session to tell. The account keeps, per session, how many tool calls began, how many
//! were refused, and whether the assistant said anything, and gives the `end` of a session the
//! agent calls a success `denied` (calls were refused permission) or `empty` (no call, no text).
//! At the end of the input it says the session still open ended with `no_result`.
//!
//! It also puts a `session_start` before the first event of a stream that has none: some
//! streams begin without their start record (a lone Claude Code `result`, what
//! `--output-format json` writes; Codex turns without their `thread.started`; a capture cut at
//! its start), and each agent's mapping says only what its records say. Only the first: after an
//! `end`, events without a start of their own continue the session (Codex's next turn in the
//! same thread, Amp's next turn of `--stream-json-input`). It keeps a few counters, whatever the
//! input's length.

use super::{Event, Kind, Outcome};

/// The session under way, as far as its outcome needs it.
#[derive(Debug, Default)]
pub struct Account {
    /// The agent that wrote the input, as the common form names it, for a `session_start` put
    /// before the first event (`None` for the common form read back, whose events name theirs).
    agent: Option<&'static str>,
    /// An event was passed on.
    begun: bool,
    /// An event of a session came since the last `end` (tokens and errors alone do not count).
    open: bool,
    calls: u64,
    refused: u64,
    said: bool,
    /// The line of the last event, where an `end` the stream did not write is placed.
    last_line: u64,
    /// The input says nothing of how its sessions end (a session log): the one open at its
    /// end gets no `end`, since a log that stops anywhere is whole.
    ends_untold: bool,
}

impl Account {
    /// The agent that wrote the input, once known.
    pub fn set_agent(&mut self, agent: Option<&'static str>) {
        self.agent = agent;
    }

    /// The input's sessions end with no record that says so (an agent's session log, not its
    /// stream): the last one is not `no_result` at the end of the input.
    pub fn set_ends_untold(&mut self, untold: bool) {
        self.ends_untold = untold;
    }

    /// Passes `ev` on to `out`: an `end` with the outcome its session earned, and the first
    /// event of a stream after a `session_start`.
    pub fn pass(&mut self, ev: &Event<'_>, out: &mut dyn FnMut(&Event<'_>)) {
        self.last_line = self.last_line.max(ev.line);
        if !std::mem::replace(&mut self.begun, true) && ev.kind != Kind::SessionStart {
            let mut start = Event::new(Kind::SessionStart, ev.line);
            start.agent = ev.agent.or(self.agent);
            start.session_id.clone_from(&ev.session_id);
            start.timestamp_ms = ev.timestamp_ms;
            out(&start);
        }
        match ev.kind {
            Kind::End => {
                let earned = self.earned(ev);
                self.open = false;
                self.calls = 0;
                self.refused = 0;
                self.said = false;
                match earned {
                    Some(e) => out(&e),
                    None => out(ev),
                }
                return;
            }
            Kind::SessionStart => {
                // A session that begins while one is open: the open one gets no account of its
                // own (agents that write no `end` per session, a resumed session); its calls
                // and text count toward the next `end`.
            }
            Kind::ToolStart => self.calls += 1,
            Kind::ToolEnd => self.refused += u64::from(ev.rejected),
            Kind::AssistantText => {
                self.said |= ev.text.as_deref().is_some_and(|t| !t.trim().is_empty());
            }
            Kind::UserPrompt | Kind::Thinking => {}
            // Tokens and errors said after an `end` (a shutdown's totals, a late error) open
            // no session.
            Kind::Usage | Kind::Error => {
                out(ev);
                return;
            }
        }
        self.open = true;
        out(ev);
    }

    /// An `end` of the input: a session still open ended without the agent's account of it,
    /// and gets an `end` with outcome `no_result`.
    pub fn finish(&mut self, out: &mut dyn FnMut(&Event<'_>)) {
        if std::mem::take(&mut self.open) && !self.ends_untold {
            let mut ev = Event::new(Kind::End, self.last_line);
            ev.ok = Some(false);
            ev.outcome = Some(Outcome::NoResult);
            out(&ev);
        }
    }

    /// `ev` (an `end`) with the outcome its session earned, when that differs from what the
    /// agent's record says.
    fn earned<'a>(&self, ev: &Event<'a>) -> Option<Event<'a>> {
        let said = ev.outcome.unwrap_or(Outcome::of_ok(ev.ok));
        let denied = ev.denied.unwrap_or(0).max(self.refused);
        let earned = match said {
            Outcome::Completed if denied > 0 => Outcome::Denied,
            Outcome::Completed
                if self.calls == 0
                    && !self.said
                    && ev.text.as_deref().is_none_or(|t| t.trim().is_empty()) =>
            {
                Outcome::Empty
            }
            o => o,
        };
        if ev.outcome == Some(earned) && ev.denied == (denied > 0).then_some(denied) {
            return None;
        }
        let mut e = ev.clone();
        e.outcome = Some(earned);
        e.denied = (denied > 0).then_some(denied);
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn outcomes(events: &[Event<'_>]) -> Vec<(u64, Outcome)> {
        let mut a = Account::default();
        let mut got = Vec::new();
        let mut out = |e: &Event<'_>| {
            if e.kind == Kind::End {
                got.push((e.line, e.outcome.unwrap_or(Outcome::of_ok(e.ok))));
            }
        };
        for e in events {
            a.pass(e, &mut out);
        }
        a.finish(&mut out);
        got
    }

    fn ev(kind: Kind, line: u64) -> Event<'static> {
        Event::new(kind, line)
    }

    #[test]
    fn a_session_of_an_input_that_tells_no_end_is_left_open() {
        let events = [ev(Kind::SessionStart, 1), ev(Kind::AssistantText, 2)];
        assert_eq!(outcomes(&events), [(2, Outcome::NoResult)]);
        let mut a = Account::default();
        a.set_ends_untold(true);
        let mut ends = 0;
        for e in &events {
            a.pass(e, &mut |e| ends += usize::from(e.kind == Kind::End));
        }
        a.finish(&mut |e| ends += usize::from(e.kind == Kind::End));
        assert_eq!(ends, 0);
    }

    #[test]
    fn a_session_earns_its_outcome() {
        let mut text = ev(Kind::AssistantText, 2);
        text.text = Some(Cow::Borrowed("done"));
        let mut end = ev(Kind::End, 3);
        end.ok = Some(true);
        let mut refused = ev(Kind::ToolEnd, 6);
        refused.rejected = true;
        let mut failed = ev(Kind::End, 9);
        failed.ok = Some(false);
        let got = outcomes(&[
            ev(Kind::SessionStart, 1),
            text,
            end.clone(),
            ev(Kind::SessionStart, 4),
            ev(Kind::ToolStart, 5),
            refused,
            Event {
                line: 7,
                ..end.clone()
            },
            ev(Kind::SessionStart, 8),
            Event { line: 8, ..end },
            failed,
            ev(Kind::SessionStart, 10),
            ev(Kind::ToolStart, 11),
        ]);
        assert_eq!(
            got,
            [
                (3, Outcome::Completed),
                (7, Outcome::Denied),
                (8, Outcome::Empty),
                (9, Outcome::Failed),
                (11, Outcome::NoResult)
            ]
        );
    }
}
