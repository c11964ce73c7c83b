//! What the supervisor knows of the session: whether its terminal `result` has arrived, which
//! tool calls are running and since when, and the last event.
//!
//! This module is the one place where `run` reads the meaning of events. [`Session::observe`]
//! takes each event of the canonical view (every dialect and agent maps into it) and asks three
//! questions of it: [`ends_session`], [`call_started`], [`call_completed`]. A new agent whose
//! records map into the canonical view needs nothing here; one whose terminal record or tool
//! pairing does not map needs its answer added to those three functions only. It must not
//! signal processes nor decide exit codes.

use crate::event::Event;
use std::time::Instant;

/// At most this many running calls are remembered (the oldest are forgotten first): a stream
/// with thousands of calls that never complete keeps memory flat.
const MAX_OPEN: usize = 64;

/// The session's terminal result.
#[derive(Clone, Debug)]
pub struct ResultSeen {
    pub subtype: Option<String>,
    pub is_error: bool,
    /// The physical line it starts on.
    pub line: u64,
    pub at: Instant,
}

/// A tool call started and not completed.
#[derive(Clone, Debug)]
pub struct OpenCall {
    pub id: String,
    pub kind: String,
    pub line: u64,
    pub since: Instant,
}

/// The last event read.
#[derive(Clone, Debug, Default)]
pub struct LastEvent {
    pub ty: Option<String>,
    pub subtype: Option<String>,
    pub line: u64,
}

#[derive(Default, Debug)]
pub struct Session {
    /// The last terminal result read.
    pub result: Option<ResultSeen>,
    /// The last event read was a terminal result: the agent has nothing left to say.
    pub ended: bool,
    /// Running calls, oldest first.
    pub open: Vec<OpenCall>,
    pub last: LastEvent,
    pub events: u64,
}

impl Session {
    /// Takes one event on line `line` into account. Returns whether the timers the supervisor
    /// keeps may have changed (a call started or ended, a result arrived or was followed).
    pub fn observe(&mut self, ev: &Event<'_>, line: u64, now: Instant) -> bool {
        self.events += 1;
        // The strings are reused: no allocation per record once they are long enough.
        set(&mut self.last.ty, ev.ty.as_str());
        set(&mut self.last.subtype, ev.subtype.as_str());
        self.last.line = line;
        let was_ended = std::mem::take(&mut self.ended);
        if ends_session(ev) {
            self.result = Some(ResultSeen {
                subtype: ev.subtype.as_str().map(str::to_owned),
                is_error: result_is_error(ev),
                line,
                at: now,
            });
            self.ended = true;
            // What is still open will never complete.
            self.open.clear();
            return true;
        }
        if let Some((id, kind)) = call_started(ev) {
            if self.open.len() == MAX_OPEN {
                self.open.remove(0);
            }
            self.open.retain(|c| c.id != id);
            self.open.push(OpenCall {
                id: id.to_owned(),
                kind: kind.to_owned(),
                line,
                since: now,
            });
            return true;
        }
        if let Some(id) = call_completed(ev) {
            let before = self.open.len();
            self.open.retain(|c| c.id != id);
            return before != self.open.len() || was_ended;
        }
        was_ended
    }

    /// A record that is no event still counts as the agent speaking: the session goes on.
    pub fn observe_invalid(&mut self, line: u64) -> bool {
        self.events += 1;
        self.last = LastEvent {
            ty: None,
            subtype: None,
            line,
        };
        std::mem::take(&mut self.ended)
    }
}

fn set(slot: &mut Option<String>, value: Option<&str>) {
    match value {
        Some(v) => {
            let s = slot.get_or_insert_with(String::new);
            s.clear();
            s.push_str(v);
        }
        None => *slot = None,
    }
}

/// Whether `ev` is the terminal record of a session: after it the agent should exit.
pub fn ends_session(ev: &Event<'_>) -> bool {
    ev.ty.as_str() == Some("result")
}

/// Whether a terminal result reports failure: `is_error: true`, or without a boolean
/// `is_error`, a subtype other than `success`.
pub fn result_is_error(ev: &Event<'_>) -> bool {
    match ev.is_error.as_bool() {
        Some(e) => e,
        None => ev.subtype.as_str().is_some_and(|s| s != "success"),
    }
}

/// The id and tool kind of a call that `ev` starts.
pub fn call_started<'e>(ev: &'e Event<'_>) -> Option<(&'e str, &'e str)> {
    if ev.ty.as_str() != Some("tool_call") || ev.subtype.as_str() != Some("started") {
        return None;
    }
    let id = ev.call_id.as_str()?;
    Some((id, ev.tool_call.kind.as_deref().unwrap_or("tool")))
}

/// The id of a call that `ev` completes.
pub fn call_completed<'e>(ev: &'e Event<'_>) -> Option<&'e str> {
    if ev.ty.as_str() != Some("tool_call") || ev.subtype.as_str() != Some("completed") {
        return None;
    }
    ev.call_id.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Parsed, parse};

    fn observe(s: &mut Session, line: &str, n: u64) -> bool {
        let Parsed::Event(ev) = parse(line).unwrap() else {
            panic!("not an event: {line}")
        };
        s.observe(&ev, n, Instant::now())
    }

    #[test]
    fn calls_open_and_close_and_a_result_ends_the_session() {
        let mut s = Session::default();
        observe(
            &mut s,
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            1,
        );
        assert!(observe(
            &mut s,
            r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{}}},"session_id":"s"}"#,
            2
        ));
        assert_eq!(s.open.len(), 1);
        assert_eq!(s.open[0].kind, "shellToolCall");
        assert!(observe(
            &mut s,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"args":{}}},"session_id":"s"}"#,
            3
        ));
        assert!(s.open.is_empty());
        assert!(!s.ended);
        assert!(observe(
            &mut s,
            r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
            4
        ));
        assert!(s.ended);
        let r = s.result.as_ref().unwrap();
        assert!(!r.is_error);
        assert_eq!(r.line, 4);
        // Anything after the result means the session goes on.
        assert!(observe(
            &mut s,
            r#"{"type":"assistant","session_id":"s"}"#,
            5
        ));
        assert!(!s.ended);
        assert_eq!(s.last.ty.as_deref(), Some("assistant"));
    }

    #[test]
    fn an_error_result_is_a_failure() {
        let mut s = Session::default();
        observe(
            &mut s,
            r#"{"type":"result","subtype":"error","session_id":"s"}"#,
            1,
        );
        assert!(s.result.unwrap().is_error);
    }
}
