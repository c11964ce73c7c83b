//! The supervising thread: it sleeps until a message or the next timer, then does what is due.
//!
//! This module owns the [`Supervisor`]: what it has learnt of the run (the agent's exit, the end
//! of its stdout, the signals received and sent), the loop that waits on the channel with a
//! deadline (no polling while the agent runs), and the escalation on the agent's process group:
//! SIGTERM, SIGKILL after `--kill-after`, the signal sjlint received passed on, the leftovers
//! of an exited agent ended. The timers that decide to end a running agent, and the finding
//! that says why, are in `timers`. It must not read the pipes nor decide the exit code.

use super::outcome::{self, Ending};
use super::pipe::{Activity, Stop};
use super::session::Session;
use super::{Msg, Notes, child, note};
use crate::cli::RunArgs;
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::interrupt;
use crate::rules::Rule;
use crate::text::escape_untrusted;
use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How often the supervisor looks again whether the processes an exited agent left in its
/// group have gone, where it cannot reap them itself.
const LEFTOVER_POLL: Duration = Duration::from_millis(20);
/// How long after SIGKILL the group may still be seen before sjlint stops waiting for it: a
/// killed process that nobody reaps (no init reaping orphans, as in some containers) stays a
/// zombie and a member of its group for ever.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// The timers and the escalation; see the module documentation.
pub(super) struct Supervisor<'a> {
    pub(super) args: &'a RunArgs,
    pub(super) pgid: i32,
    pub(super) start: Instant,
    pub(super) session: &'a Mutex<Session>,
    pub(super) activity: &'a Activity,
    pub(super) stop: &'a Stop,
    pub(super) notes: &'a Notes,
    /// Why the run ended, once it is known (the first reason wins).
    pub(super) ending: Option<Ending>,
    pub(super) stall: Option<outcome::Stall>,
    /// The finding of an ending sjlint decided (after the result, a stall, a timeout).
    pub(super) finding: Option<Diagnostic>,
    pub(super) exited: Option<std::process::ExitStatus>,
    /// When the agent's stdout was read to its end.
    pub(super) stdout_done: Option<Instant>,
    /// When the group was first sent a signal to end it.
    pub(super) term_at: Option<Instant>,
    /// When SIGKILL was sent to the group.
    pub(super) kill_at: Option<Instant>,
    pub(super) signals_sent: Vec<i32>,
    pub(super) received: Option<i32>,
    /// Leftovers are sjlint's children, and each one's end wakes the supervisor: no polling.
    pub(super) subreaper: bool,
}

impl Supervisor<'_> {
    pub(super) fn supervise(&mut self, rx: &mpsc::Receiver<Msg>) {
        loop {
            let now = Instant::now();
            let next = self.step(now);
            if self.exited.is_some() && self.stdout_done.is_some() && self.group_gone(now) {
                return;
            }
            let msg = match next {
                Some(at) => match rx.recv_timeout(at.saturating_duration_since(now)) {
                    Ok(msg) => msg,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => match rx.recv() {
                    Ok(msg) => msg,
                    Err(_) => return,
                },
            };
            self.on(msg, Instant::now());
        }
    }

    fn on(&mut self, msg: Msg, now: Instant) {
        match msg {
            Msg::Changed | Msg::Reaped => {}
            Msg::StdoutDone { closed } => {
                self.stdout_done = Some(now);
                if closed && self.exited.is_none() {
                    self.ending.get_or_insert(Ending::OutputClosed);
                    self.end_group(now, libc::SIGTERM);
                }
            }
            Msg::Exited(status) => self.exited = Some(status),
            Msg::Signal(n) => {
                if self.received.is_none() {
                    self.received = Some(n);
                    self.ending.get_or_insert(Ending::Interrupted(n));
                    note(
                        self.notes,
                        &format!(
                            "received {}; passing it on to the agent's process group",
                            interrupt::signal_name(n)
                        ),
                    );
                    self.end_group(now, n);
                } else if self.kill_at.is_none() {
                    // A second signal: no more waiting.
                    self.kill();
                }
            }
        }
    }

    fn group_alive(&self) -> bool {
        child::group_alive(self.pgid)
    }

    /// No process of the group is left, or none that anything can still end.
    fn group_gone(&self, now: Instant) -> bool {
        !self.group_alive() || self.kill_at.is_some_and(|t| now >= t + KILL_GRACE)
    }

    fn send(&mut self, signal: i32) {
        if child::signal_group(self.pgid, signal) {
            self.signals_sent.push(signal);
        }
    }

    /// Starts ending the group with `signal` (SIGTERM, or the one sjlint received).
    fn end_group(&mut self, now: Instant, signal: i32) {
        self.send(signal);
        self.term_at.get_or_insert(now);
    }

    fn kill(&mut self) {
        self.send(libc::SIGKILL);
        self.kill_at = Some(Instant::now());
    }

    /// Does what is due at `now` and returns when to look again (`None`: only when a message
    /// arrives).
    fn step(&mut self, now: Instant) -> Option<Instant> {
        let mut next = None;
        if self.term_at.is_none() && self.exited.is_none() {
            next = self.watch(now);
        }
        if self.exited.is_some() && self.term_at.is_none() && self.group_alive() {
            note(
                self.notes,
                "the agent exited and left processes in its group; sending them SIGTERM",
            );
            self.end_group(now, libc::SIGTERM);
        }
        if let Some(t) = self.term_at {
            let alive = !self.group_gone(now);
            if alive && self.kill_at.is_none() {
                let due = t + self.args.kill_after;
                if now >= due {
                    note(
                        self.notes,
                        &format!(
                            "the agent's process group was still running {} after it was told to end; sending SIGKILL",
                            outcome::duration(self.args.kill_after)
                        ),
                    );
                    self.kill();
                } else {
                    next = earliest(next, due);
                }
            }
            if alive && self.exited.is_some() && !self.subreaper {
                next = earliest(next, now + LEFTOVER_POLL);
            }
        }
        if self.exited.is_some() && self.group_gone(now) {
            // Nothing of the group can write any more: take what is in the pipes, then stop,
            // even if a process outside the group still holds them open.
            self.stop.drain();
        }
        next
    }

    /// The timers of a running agent: ends the group when one is due, else returns the next.
    fn watch(&mut self, now: Instant) -> Option<Instant> {
        let args = self.args;
        let mut next = None;
        let mut due: Option<(Ending, Instant)> = None;
        {
            let s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            // Each timer: what it ends the run as, since when its condition holds, how long.
            let mut consider = |ending: Ending, since: Instant, limit: Duration| {
                let at = since + limit;
                if now >= at {
                    due.get_or_insert((ending, since));
                } else {
                    next = earliest(next, at);
                }
            };
            if let Some(t) = args.timeout {
                consider(Ending::Timeout, self.start, t);
            }
            if s.ended
                && let Some(r) = &s.result
            {
                consider(Ending::AfterResult, r.at, args.after_result);
            }
            if let (Some(t), Some(oldest)) = (args.tool_timeout, s.open.first()) {
                consider(Ending::ToolTimeout, oldest.since, t);
            }
            if let Some(idle) = args.idle_timeout
                && !s.ended
                && s.open.is_empty()
            {
                match self.activity.waiting_since().or(self.stdout_done) {
                    Some(since) => consider(Ending::Idle, since, idle),
                    // Busy writing to sjlint's own stdout: not the agent's stall. Look again.
                    None => next = earliest(next, now + idle),
                }
            }
            if let Some((_, since)) = due {
                self.stall = Some(stall_of(&s, now, now.saturating_duration_since(since)));
            }
        }
        if let Some((ending, _)) = due {
            self.ending = Some(ending);
            self.announce(ending);
            self.end_group(now, libc::SIGTERM);
            return None;
        }
        next
    }

    /// Says why the group is being ended, and keeps the finding that reports it.
    fn announce(&mut self, ending: Ending) {
        let args = self.args;
        let stall = self.stall.take();
        let last_event = stall.as_ref().and_then(|s| s.last_event.as_ref());
        let last = last_event
            .map(|e| {
                format!(
                    "; last event: {} on line {}",
                    event_name(e.ty.as_deref(), e.subtype.as_deref()),
                    e.line
                )
            })
            .unwrap_or_default();
        let first = stall.as_ref().and_then(|s| s.running.first());
        let running = first
            .map(|c| {
                format!(
                    "; running: {} `{}` (line {}) for {}",
                    c.kind,
                    c.id,
                    c.line,
                    outcome::duration(Duration::from_millis(c.age_ms))
                )
            })
            .unwrap_or_default();
        // A stall is reported where what was running began, else at the last event.
        let stall_line = first
            .map(|c| c.line)
            .or(last_event.map(|e| e.line))
            .unwrap_or(0);
        let (rule, line, short, what, help) = match ending {
            Ending::AfterResult => {
                let line = self
                    .session
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .result
                    .as_ref()
                    .map_or(0, |r| r.line);
                let d = outcome::duration(args.after_result);
                (
                    Rule::AgentHungAfterResult,
                    line,
                    format!("the agent did not exit {d} after its result (line {line})"),
                    format!(
                        "the agent did not exit {d} after its result (line {line}); sjlint ended it"
                    ),
                    "headless agent CLIs often keep running after their result (a child holding the pipe, a background task); the result stands, and a run ended after a successful result is a success",
                )
            }
            Ending::Idle => {
                let d = outcome::duration(args.idle_timeout.unwrap_or_default());
                (
                    Rule::AgentStalled,
                    stall_line,
                    format!("no output for {d} while no tool call was running"),
                    format!("stalled: no output for {d} while no tool call was running{last}"),
                    "the agent wrote nothing for --idle-timeout while no tool call ran; raise it if the model thinks silently for longer",
                )
            }
            Ending::ToolTimeout => {
                let d = outcome::duration(args.tool_timeout.unwrap_or_default());
                (
                    Rule::AgentStalled,
                    stall_line,
                    format!("a tool call ran longer than --tool-timeout {d}"),
                    format!(
                        "stalled: a tool call ran longer than --tool-timeout {d}{running}{last}"
                    ),
                    "the tool call got no result within --tool-timeout; raise it for long builds or tests",
                )
            }
            Ending::Timeout => {
                let d = outcome::duration(args.timeout.unwrap_or_default());
                (
                    Rule::AgentStalled,
                    stall_line,
                    format!("the run reached --timeout {d}"),
                    format!("the run reached --timeout {d}{running}{last}"),
                    "the whole run took longer than --timeout",
                )
            }
            Ending::Exited | Ending::Interrupted(_) | Ending::OutputClosed => return,
        };
        note(
            self.notes,
            &format!(
                "{}; sending SIGTERM to its process group",
                escape_untrusted(&short)
            ),
        );
        let at = Position {
            byte: 0,
            line,
            record: 0,
        };
        self.finding = Some(Diagnostic::new(rule, at, what).with_help(help));
        self.stall = stall;
    }
}

fn earliest(a: Option<Instant>, b: Instant) -> Option<Instant> {
    Some(a.map_or(b, |a| a.min(b)))
}

fn event_name(ty: Option<&str>, subtype: Option<&str>) -> String {
    match (ty, subtype) {
        (Some(t), Some(s)) => format!("{t}/{s}"),
        (Some(t), None) => t.to_owned(),
        (None, _) => "(not an event)".to_owned(),
    }
}

/// What was running at `now`, when the condition that ends the run had held for `lasted`.
fn stall_of(s: &Session, now: Instant, lasted: Duration) -> outcome::Stall {
    outcome::Stall {
        after_ms: lasted.as_millis() as u64,
        running: s
            .open
            .iter()
            .map(|c| outcome::Running {
                id: c.id.clone(),
                kind: c.kind.clone(),
                line: c.line,
                age_ms: now.saturating_duration_since(c.since).as_millis() as u64,
            })
            .collect(),
        last_event: (s.events > 0).then(|| outcome::LastEvent {
            ty: s.last.ty.clone(),
            subtype: s.last.subtype.clone(),
            line: s.last.line,
        }),
    }
}
