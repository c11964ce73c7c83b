//! The run lifecycle most agents' streams share: a run opens (with its opener, or with any
//! record), goes on, and ends with its terminal record; a record after the end that does not
//! open the next run is `event-after-result`, once for the records up to the next run; an
//! opener while a run is open is `duplicate-init`; a run whose first record is not its opener
//! is `missing-init` where the agent always writes one.
//!
//! This module owns that state machine ([`Lifecycle`]) and the wording of those three findings
//! from an agent's [`Words`], and the common `session_start` event ([`session_start`]). The
//! agents say which record opens and which ends a run; what a run keeps (its calls, its answer)
//! stays theirs. Agents whose lifecycle differs (a run that ends at a stopped step, a retry, a
//! turn) keep their own state and may use the findings alone ([`Lifecycle::reopened`],
//! [`Lifecycle::after_end`], [`Lifecycle::missing_init`] take no state of theirs).

use super::{Agent, Emit};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::messages::{self, AfterEnd, EventType, Opening, Reopened};
use crate::vocab::{self, Kind};
use std::borrow::Cow;

/// How an agent's stream names the pieces of its lifecycle, for the findings: one `const` an
/// agent.
pub struct Words {
    pub agent: Agent,
    /// What opens and ends: "run", "session".
    pub unit: &'static str,
    /// The record that opens one: "`init`", "`system`/`init`".
    pub opener: &'static str,
    /// The record that ends one, as `duplicate-init` names it: "`end` (or `error`)".
    pub closer: &'static str,
    /// The record that ends one, as `event-after-result` names it.
    pub end: &'static str,
    /// What begins the next one, as `event-after-result` names it.
    pub next: Option<&'static str>,
    /// An opener while a run is open is `duplicate-init` (and opens another run); otherwise it
    /// goes on with the open one.
    pub reopens: bool,
    /// Every run opens with the opener: a first record of another type is `missing-init`.
    /// Otherwise any record opens a run.
    pub needs_opener: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Before,
    /// A run began on this line.
    Open(u64),
    /// The run ended on this line.
    Ended(u64),
    /// Records came after the run that ended on this line without a new one (said once).
    Stray(u64),
}

/// Where the stream stands in its runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lifecycle {
    state: State,
}

impl Lifecycle {
    /// Where the record on `pos` of type `ty` (`opens` when it is one that opens a run) stands,
    /// with its findings: `true` when a run begins on it.
    pub fn step(
        &mut self,
        words: &Words,
        pos: Position,
        bytes: &[u8],
        ty: &str,
        opens: bool,
        emit: Emit<'_>,
    ) -> bool {
        match self.state {
            State::Open(at) if opens && words.reopens => {
                emit(Self::reopened(words, pos, bytes, at));
            }
            State::Open(_) => return false,
            State::Before if !opens && words.needs_opener => {
                emit(Self::missing_init(words, pos, bytes, ty));
            }
            State::Before => {}
            State::Ended(_) | State::Stray(_) if opens => {}
            State::Stray(_) => return false,
            State::Ended(at) => {
                emit(Self::after_end(words, pos, bytes, ty, at));
                self.state = State::Stray(at);
                return false;
            }
        }
        self.state = State::Open(pos.line);
        true
    }

    /// A run begins on `line`, whatever came before.
    pub fn open(&mut self, line: u64) {
        self.state = State::Open(line);
    }

    /// The run ends on `line` (its terminal record).
    pub fn end(&mut self, line: u64) {
        self.state = State::Ended(line);
    }

    /// The line the open run began on, when one is open.
    pub fn open_since(&self) -> Option<u64> {
        match self.state {
            State::Open(at) => Some(at),
            _ => None,
        }
    }

    /// No run has begun yet.
    pub fn before(&self) -> bool {
        self.state == State::Before
    }

    /// The last run has ended (and records may have come after it).
    pub fn ended(&self) -> bool {
        matches!(self.state, State::Ended(_) | State::Stray(_))
    }

    /// Records came after the last run ended (`event-after-result` was said).
    pub fn stray(&self) -> bool {
        matches!(self.state, State::Stray(_))
    }

    /// `duplicate-init`: an opener on `pos` while the run that began on `began` is open.
    #[cold]
    pub fn reopened(words: &Words, pos: Position, bytes: &[u8], began: u64) -> Diagnostic {
        Diagnostic::from_message(
            pos,
            messages::duplicate_init(&Reopened::new(
                words.agent.display_name(),
                words.unit,
                words.opener,
                began,
                words.closer,
            )),
        )
        .with_related(began, format!("the {} began here", words.unit))
        .with_snippet(bytes)
    }

    /// `missing-init`: a run that begins on `pos` with a record of type `ty`.
    #[cold]
    pub fn missing_init(words: &Words, pos: Position, bytes: &[u8], ty: &str) -> Diagnostic {
        Diagnostic::from_message(
            pos,
            messages::missing_init(&Opening {
                agent: words.agent.display_name(),
                unit: words.unit,
                first: EventType::of(ty),
                opener: words.opener,
                aside: None,
            }),
        )
        .with_snippet(bytes)
    }

    /// `event-after-result`: a record of type `ty` on `pos` after the run that ended on `ended`.
    #[cold]
    pub fn after_end(
        words: &Words,
        pos: Position,
        bytes: &[u8],
        ty: &str,
        ended: u64,
    ) -> Diagnostic {
        Diagnostic::from_message(
            pos,
            messages::event_after_result(&AfterEnd {
                agent: words.agent.display_name(),
                unit: words.unit,
                record: EventType::of(ty),
                end: words.end,
                ended,
                next: words.next,
            }),
        )
        .with_snippet(bytes)
    }
}

/// The common `session_start` of `agent`'s run that begins on `line`, with what its opener says.
pub fn session_start<'e>(
    agent: Agent,
    line: u64,
    session_id: Option<Cow<'e, str>>,
    model: Option<Cow<'e, str>>,
    timestamp_ms: Option<u64>,
) -> vocab::Event<'e> {
    let mut ev = vocab::Event::new(Kind::SessionStart, line);
    ev.agent = Some(agent.as_str());
    ev.session_id = session_id;
    ev.model = model;
    ev.timestamp_ms = timestamp_ms;
    ev
}
