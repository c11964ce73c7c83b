//! The lifecycle rules: a stream is a sequence of sessions, each opened by a `system`/`init` and
//! closed by one `result`, with one `session_id`, time that does not run backwards and thinking
//! phases that complete.
//!
//! It owns the current [`Session`] and decides where sessions begin and end: which session an
//! event belongs to, and when the pairing state is closed. It must not judge an event's own
//! shape (the schema rules do) nor pair calls (the tool-call rules do).

use super::assistant_text::TextTracker;
use super::schema::Required;
use super::{Ctx, Validator, event_type, line_pos};
use crate::agents::Agent;
use crate::agents::cursor::view::{Dialect, Event};
use crate::diagnostic::Diagnostic;
use crate::rules::Rule;
use crate::rules::messages::{self, AfterEnd, Clock, Reopened, SessionIds, Streamed, Unended};

/// How a session began, which decides the fields its events must have.
#[derive(Clone, Copy)]
pub(super) struct Opening {
    /// With cursor's own `system`/`init` (or one wrapping it): cursor's fields are required.
    cursor_init: bool,
    /// With a `system`/`init` of any dialect, rather than with whatever event came first.
    by_init: bool,
}

impl Opening {
    /// How a session would open with `ev` (an init when `is_init`).
    #[inline]
    pub(super) fn of(ev: &Event<'_>, is_init: bool) -> Opening {
        Opening {
            cursor_init: is_init && (ev.init_keys || ev.dialect == Dialect::Cursor),
            by_init: is_init,
        }
    }

    #[inline]
    pub(super) fn required(self, ev: &Event<'_>) -> Required {
        Required {
            session_id: self.cursor_init,
            result_fields: self.cursor_init || (!self.by_init && ev.session_id.is_present()),
        }
    }
}

pub(super) struct Session {
    id: Option<String>,
    pub(super) opening: Opening,
    start_line: u64,
    pub(super) result_line: Option<u64>,
    pub(super) last_line: u64,
    last_timestamp: Option<(u64, u64)>,
    /// Line of the first `thinking`/`delta` of a thinking phase not yet completed.
    thinking_since: Option<u64>,
    pub(super) text: TextTracker,
    /// Tool calls started in the session.
    pub(super) calls: u64,
    /// Line of the last record of the session (or just before it began) that could not be read
    /// as an event. It may have been any event, so the findings it could cause are not made:
    /// no `unfinished-tool-call` for a call started before it, no orphan completions, no
    /// `missing-result` when it came last, no `result-text-mismatch`.
    pub(super) unreadable: Option<u64>,
    /// The differing `session_id` last reported: the events after it that repeat it are the
    /// same fact, not reported again.
    mismatched_id: Option<String>,
    /// An event after the `result` was reported: the ones after it, up to the next init, are
    /// the same fact.
    stray_reported: bool,
}

impl Session {
    fn new(line: u64, opening: Opening) -> Session {
        Session {
            id: None,
            opening,
            start_line: line,
            result_line: None,
            last_line: line,
            last_timestamp: None,
            thinking_since: None,
            text: TextTracker::default(),
            calls: 0,
            unreadable: None,
            mismatched_id: None,
            stray_reported: false,
        }
    }
}

impl Validator {
    /// Puts `ev` in its session: opens, closes and reopens sessions as it says. False when it
    /// belongs to none (it follows a `result`), and nothing more is checked of it.
    pub(super) fn enter_session(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
        is_init: bool,
        opening: Opening,
    ) -> bool {
        let line = ctx.pos.line;
        match &self.session {
            None => {
                self.open_session(line, opening);
                if !is_init {
                    self.missing_init(ctx, ev);
                }
            }
            // After an unreadable record, which may have been the next init.
            Some(s) if s.result_line.is_some() => {
                if is_init || self.unreadable_between.is_some() {
                    self.open_session(line, opening);
                } else {
                    self.event_after_result(ctx, ev);
                    return false;
                }
            }
            // After an unreadable record, which may have been the session's result.
            Some(s) if is_init && s.unreadable.is_some_and(|u| u > s.last_line) => {
                self.close_session(ctx);
                self.open_session(line, opening);
            }
            Some(_) if is_init => self.duplicate_init(ctx, ev, opening),
            Some(_) => {}
        }
        true
    }

    /// A new session begins at `line` (the one before, if any, has ended).
    fn open_session(&mut self, line: u64, opening: Opening) {
        if let Some(id) = self.session.take().and_then(|s| s.id) {
            self.spare_session_id = id;
        }
        let mut session = Session::new(line, opening);
        session.unreadable = self.unreadable_between.take();
        self.session = Some(session);
    }

    /// Ends the current session: open calls are unfinished and open queries unanswered.
    pub(super) fn close_session(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>) {
        // A call or query open when a record could not be read may have ended in it.
        let unreadable = self
            .session
            .as_ref()
            .and_then(|s| s.unreadable)
            .unwrap_or(0);
        self.pairing.close(ctx, unreadable);
    }

    /// `missing-init`: the first event of the stream, which opened the session, is not an init.
    /// A stream whose first event is a `result` is only a finding when anything follows it,
    /// since a lone `result` is the `--output-format json` form; one whose first event has no
    /// type, only when an event with a type follows.
    fn missing_init(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>, ev: &Event<'_>) {
        // After an unreadable record, which may have been the init.
        if self.session.as_ref().is_none_or(|s| s.unreadable.is_some()) {
            return;
        }
        let d = Diagnostic::from_message(
            ctx.pos,
            messages::missing_init(&messages::Opening {
                agent: Agent::Cursor.display_name(),
                unit: "session",
                first: event_type(ev),
                opener: "`system`/`init`",
                aside: None,
            }),
        )
        .with_snippet(ctx.bytes);
        if ev.ty.as_str() == Some("result") && self.records <= 1 {
            if ctx.wants(Rule::MissingInit) {
                self.deferred_missing_init = Some(d);
            }
        } else if !self.typed {
            if ctx.wants(Rule::MissingInit) {
                self.untyped_missing_init = Some(d);
            }
        } else {
            ctx.emit(d);
        }
    }

    /// `event-after-result`: an event after its session's `result` that is not a new init.
    fn event_after_result(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
    ) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let result_line = s.result_line.unwrap_or_default();
        s.last_line = ctx.pos.line;
        // The events after the first stray one are strays for the same reason: one finding.
        if std::mem::replace(&mut s.stray_reported, true) {
            return;
        }
        ctx.emit(
            Diagnostic::from_message(
                ctx.pos,
                messages::event_after_result(&AfterEnd {
                    agent: Agent::Cursor.display_name(),
                    unit: "session",
                    record: event_type(ev),
                    end: "`result`",
                    ended: result_line,
                    next: Some("`system`/`init`"),
                }),
            )
            .with_snippet(ctx.bytes),
        );
    }

    /// `duplicate-init`: a `system`/`init` inside a session with no `result` yet. When it names
    /// another session id, the previous run ended without one and the init opens a new session.
    fn duplicate_init(
        &mut self,
        ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
        ev: &Event<'_>,
        opening: Opening,
    ) {
        let Some(s) = &self.session else {
            return;
        };
        let other_run = matches!((&s.id, ev.session_id.as_str()), (Some(a), Some(b)) if **a != *b);
        let note = other_run.then_some(
            "this one names another session_id: the previous run ended without a `result` (killed or crashed?) and a new one was appended",
        );
        let d = Diagnostic::from_message(
            ctx.pos,
            messages::duplicate_init(
                &Reopened::new(
                    Agent::Cursor.display_name(),
                    "session",
                    "`system`/`init`",
                    s.start_line,
                    "`result`",
                )
                .note(note),
            ),
        )
        .with_snippet(ctx.bytes)
        .with_related(s.start_line, "the session started here");
        ctx.emit(d);
        if other_run {
            self.close_session(ctx);
            self.open_session(ctx.pos.line, opening);
        }
    }

    /// `missing-result`: the input ends inside a session (unless its last record could not be
    /// read: it may have been the result). The session closes either way.
    pub(super) fn missing_result(&mut self, ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>) {
        let Some(s) = &self.session else {
            return;
        };
        if s.result_line.is_some() {
            return;
        }
        let (last, start) = (s.last_line, s.start_line);
        let cut = s.unreadable.is_some_and(|u| u > last);
        self.close_session(ctx);
        if cut {
            return;
        }
        ctx.emit(
            Diagnostic::from_message(
                line_pos(last),
                messages::missing_result(&Unended::new(
                    Agent::Cursor.display_name(),
                    "session",
                    Some(start),
                    "`result`",
                )),
            )
            .with_related(start, "the session started here"),
        );
    }
}

/// `session-id-mismatch`: an event names another session id than its session's first. The
/// first is kept in `spare` (the previous session's string) when the session has none yet.
#[inline]
pub(super) fn session_id_mismatch(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    session: &mut Session,
    ev: &Event<'_>,
    spare: &mut String,
) {
    let Some(id) = ev.session_id.as_str() else {
        return;
    };
    match &session.id {
        None => {
            let mut kept = std::mem::take(spare);
            kept.clear();
            kept.push_str(id);
            session.id = Some(kept);
        }
        Some(expected) if **expected != *id => session_id_differs(ctx, session, id),
        Some(_) => {}
    }
}

/// The report of [`session_id_mismatch`], out of the way of the events whose id is right: once
/// said, the same other id on the next events is the same fact.
#[cold]
#[inline(never)]
fn session_id_differs(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    session: &mut Session,
    id: &str,
) {
    if session.mismatched_id.as_deref() == Some(id) {
        return;
    }
    session.mismatched_id = Some(id.to_owned());
    let expected = session.id.as_deref().unwrap_or_default();
    let d = Diagnostic::from_message(
        ctx.pos,
        messages::session_id_mismatch(&SessionIds {
            agent: Agent::Cursor.display_name(),
            unit: "session",
            field: "`session_id`",
            id,
            expected,
            began: Some(session.start_line),
            each: false,
            note: None,
        }),
    );
    ctx.emit_at(d, &["session_id"], true);
}

/// `timestamp-regression`: `timestamp_ms` is smaller than the previous event's in the session.
#[inline]
pub(super) fn timestamp_regression(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    session: &mut Session,
    ev: &Event<'_>,
) {
    let Some(ts) = ev.timestamp_ms.as_millis() else {
        return;
    };
    if let Some((prev, prev_line)) = session.last_timestamp
        && ts < prev
    {
        let d = Diagnostic::from_message(
            ctx.pos,
            messages::timestamp_regression(&Clock {
                field: "`timestamp_ms`",
                millis: true,
                ms: ts,
                prev,
                prev_line,
            }),
        );
        ctx.emit_at(d, &["timestamp_ms"], true);
    }
    session.last_timestamp = Some((ts, ctx.pos.line));
}

/// `thinking-not-completed`: an event other than `thinking` ends a phase of thinking deltas
/// that has no `thinking`/`completed`. `ty` and `subtype` are `ev`'s.
#[inline]
pub(super) fn thinking_not_completed(
    ctx: &mut Ctx<'_, '_, impl FnMut(Diagnostic)>,
    session: &mut Session,
    ev: &Event<'_>,
    (ty, subtype): (Option<&str>, Option<&str>),
) {
    match (ty, subtype) {
        (Some("thinking"), Some("delta")) => {
            session.thinking_since.get_or_insert(ctx.pos.line);
        }
        (Some("thinking"), _) => session.thinking_since = None,
        _ => {
            // Not when a record that could not be read came since: it may have been the
            // phase's `thinking`/`completed`.
            if let Some(since) = session
                .thinking_since
                .take()
                .filter(|since| session.unreadable.is_none_or(|u| u < *since))
            {
                ctx.emit(
                    Diagnostic::from_message(
                        ctx.pos,
                        messages::thinking_not_completed(&Streamed {
                            agent: Agent::Cursor.display_name(),
                            pieces: "`thinking`/`delta`",
                            whole: "`thinking`/`completed`",
                            id: None,
                            cut_by: event_type(ev),
                            began: since,
                        }),
                    )
                    .with_snippet(ctx.bytes),
                );
            }
        }
    }
}
