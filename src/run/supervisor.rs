//! The supervising thread: it sleeps until a message or the next timer, then does what is due.
//!
//! This module owns the [`Supervisor`]: what it has learnt of the run (the agent's exit, the end
//! of its stdout, the signals received and sent), the loop that waits on the channel with a
//! deadline (no polling while the agent runs), and the escalation on the agent's process group:
//! SIGTERM, SIGKILL after `--kill-after`, the signal sjlint received passed on (or SIGTERM, for
//! the signals `run` does not pass on as they are), the leftovers of an exited agent ended.
//! Signals are sent before the note that says so: a note may be dropped, never waited for.
//! The timers that decide to end a running agent, and the finding that says why, are in
//! `timers`. It must not read the pipes nor decide the exit code.

use super::outcome::{self, Ending};
use super::pipe::{Activity, Stop};
use super::session::Session;
use super::{Msg, Notes, RunOptions, child, note};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::interrupt;
use std::os::fd::AsRawFd;
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
    pub(super) opts: &'a RunOptions,
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
    /// The read end of the agent's stdout, to see whether leftovers still hold the pipe.
    pub(super) stdout_probe: std::os::fd::OwnedFd,
    /// The agent exited, and processes it left in its group held its stdout open.
    pub(super) left_holding_stdout: bool,
    /// `--max-cost` was said to be unable to act, the agent reporting no cost (said once).
    pub(super) said_no_cost: bool,
    /// `--events`, and what was said there (see `events`).
    pub(super) events: Option<&'a super::events::Events>,
    pub(super) said: super::events::Said,
    /// The arrival times of `--save`, flushed each interval.
    pub(super) arrivals: Option<&'a Mutex<sjlint_core::arrivals::Writer>>,
}

/// What a supervisor shares with the rest of the run.
pub(super) struct Around<'a> {
    pub(super) session: &'a Mutex<Session>,
    pub(super) activity: &'a Activity,
    pub(super) stop: &'a Stop,
    pub(super) notes: &'a Notes,
    pub(super) events: Option<&'a super::events::Events>,
    pub(super) arrivals: Option<&'a Mutex<sjlint_core::arrivals::Writer>>,
}

impl<'a> Supervisor<'a> {
    /// The supervisor of the agent whose process group is `pgid`, started at `start`.
    pub(super) fn new(
        opts: &'a RunOptions,
        (pgid, start): (i32, Instant),
        around: Around<'a>,
        subreaper: bool,
        stdout_probe: std::os::fd::OwnedFd,
    ) -> Supervisor<'a> {
        let Around {
            session,
            activity,
            stop,
            notes,
            events,
            arrivals,
        } = around;
        Supervisor {
            opts,
            pgid,
            start,
            session,
            activity,
            stop,
            notes,
            ending: None,
            stall: None,
            finding: None,
            exited: None,
            stdout_done: None,
            term_at: None,
            kill_at: None,
            signals_sent: Vec::new(),
            received: None,
            subreaper,
            stdout_probe,
            left_holding_stdout: false,
            said_no_cost: false,
            events,
            said: super::events::Said::default(),
            arrivals,
        }
    }
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
            Msg::StdoutDone { closed, full } => {
                self.stdout_done = Some(now);
                if closed {
                    // The run ends because nothing reads its output, even when the agent was
                    // quicker to die of the closed pipe than this message was to arrive.
                    self.ending.get_or_insert(if full {
                        Ending::OutputFailed
                    } else {
                        Ending::OutputClosed
                    });
                    if self.exited.is_none() {
                        self.end_group(now, libc::SIGTERM);
                    }
                }
            }
            Msg::Exited(status) => self.exited = Some(status),
            Msg::Signal(n) => {
                if self.received.is_none() {
                    self.received = Some(n);
                    let interrupted = self.ending.is_none();
                    self.ending.get_or_insert(Ending::Interrupted(n));
                    // The signal first: a note may wait for a stderr nobody reads.
                    let name = interrupt::signal_name(n);
                    if interrupted {
                        self.interrupted(&name);
                    }
                    if interrupt::passed_on(n) {
                        self.end_group(now, n);
                        note(
                            self.notes,
                            &format!("received {name}; passing it on to the agent's process group"),
                        );
                    } else {
                        self.end_group(now, libc::SIGTERM);
                        note(
                            self.notes,
                            &format!(
                                "received {name}; sending SIGTERM to the agent's process group"
                            ),
                        );
                    }
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
    pub(super) fn end_group(&mut self, now: Instant, signal: i32) {
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
            // The agent is gone: whatever still holds its stdout open is what it left behind.
            let held = !super::pipe::writers_gone(self.stdout_probe.as_raw_fd());
            self.end_group(now, libc::SIGTERM);
            note(
                self.notes,
                if held {
                    "the agent exited and left processes in its group that hold its stdout open; sending them SIGTERM"
                } else {
                    "the agent exited and left processes in its group; sending them SIGTERM"
                },
            );
            // Reported once the stream is read to its end (its result may still be in the pipe).
            self.left_holding_stdout = held;
        } else if self.exited.is_some()
            && self.kill_at.is_none()
            && !self.signals_sent.contains(&libc::SIGTERM)
            && self.group_alive()
        {
            // The agent ended on the signal sjlint passed on (Ctrl-C, SIGHUP), but what it
            // started may ignore that one: a shell's background jobs ignore SIGINT and SIGQUIT.
            // They are told to end as the leftovers of any agent are, not left to SIGKILL.
            self.send(libc::SIGTERM);
            note(
                self.notes,
                "the agent ended and left processes in its group; sending them SIGTERM",
            );
        }
        if let Some(t) = self.term_at {
            let alive = !self.group_gone(now);
            if alive && self.kill_at.is_none() {
                let due = t.checked_add(self.opts.kill_after);
                if due.is_some_and(|due| now >= due) {
                    self.kill();
                    note(
                        self.notes,
                        &format!(
                            "the agent's process group was still running {} after it was told to end; sending SIGKILL",
                            outcome::duration(self.opts.kill_after)
                        ),
                    );
                } else if let Some(due) = due {
                    next = earliest(next, due);
                }
            }
            if alive && self.exited.is_some() && !self.subreaper {
                next = earliest(next, now + LEFTOVER_POLL);
            }
        }
        if let Some(at) = self.report(now) {
            next = earliest(next, at);
        }
        if self.exited.is_some() && self.group_gone(now) {
            // Nothing of the group can write any more: take what is in the pipes, then stop,
            // even if a process outside the group still holds them open; and a stderr that
            // nobody reads is not waited for.
            self.stop.drain();
            self.notes.ending();
        }
        next
    }
}

pub(super) fn earliest(a: Option<Instant>, b: Instant) -> Option<Instant> {
    Some(a.map_or(b, |a| a.min(b)))
}

impl Supervisor<'_> {
    /// sjlint was interrupted (Ctrl-C, or a signal from whoever runs it) while the run went on:
    /// one finding says so, where the stream had got to, and what the stream then lacks (its
    /// result, the calls left running) is said as notes of it, as for a stall.
    fn interrupted(&mut self, signal: &str) {
        self.session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .ended_by_stall = true;
        // Placed once the stream is read (`place_interrupt`): the bytes the agent wrote before
        // the signal may not have been read yet.
        let line = 0;
        let at = sjlint_core::input::record::Position {
            byte: 0,
            line,
            record: 0,
        };
        self.finding.get_or_insert_with(|| {
            Diagnostic::new(
                sjlint_core::rules::Rule::RunInterrupted,
                at,
                format!("the run was interrupted by {signal}; sjlint ended the agent"),
            )
            .with_help(
                "sjlint received a signal while the agent ran and passed it on (or ended the agent's process group); what the stream lacks because of it is listed as notes",
            )
        });
    }
}

impl Supervisor<'_> {
    /// Once the stream is read: the interrupt's finding goes where the stream had got to,
    /// the first call still running, else the last event.
    pub(super) fn place_interrupt(&mut self) {
        let Some(d) = self
            .finding
            .as_mut()
            .filter(|d| d.rule == sjlint_core::rules::Rule::RunInterrupted)
        else {
            return;
        };
        let s = self
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        d.line = s
            .open
            .iter()
            .map(|c| c.line)
            .min()
            .or((s.events > 0).then_some(s.last.line))
            .unwrap_or(0);
    }
}
