//! The family of streams written in Claude Code's shape: Claude Code's own, Qwen Code's
//! (`qwen -p … --output-format stream-json`) and Amp's (`amp -x … --stream-json`). One checker
//! reads the three ([`super::Validator`]), given the [`Profile`] of the agent; this module owns
//! what tells them apart.
//!
//! The marks that told Claude Code from cursor-agent (`parent_tool_use_id`, `num_turns`, an API
//! message's `id`, `model` and `usage`, the `stream_event` type) are now the family's: each of
//! the three scores them alike, so they tell the family from every other agent and decide
//! nothing inside it. What decides is each agent's own mark:
//! - Claude Code: `claude_code_version` (every init since 2.0.25), `total_cost_usd` on a result
//!   (Qwen Code's result type has none), its own types and `system` subtypes.
//! - Qwen Code: `qwen_code_version` and `permission_mode` (Claude Code's is `permissionMode`),
//!   both on every init its source builds, a `stream_event` whose event is a `tool_progress`,
//!   and an error result's `error` object (so a lone error result is Qwen Code's).
//! - Amp: a session id that is a thread id, `T-` and a UUID, on every line that has one.
//!
//! No agent is told by what it leaves out (Amp's missing `uuid`, Qwen Code's missing `cost`):
//! those fields are optional, and a capture that lacks them proves nothing.
//!
//! A record with the family's marks and no agent's own is a tie of the three, and a tie is
//! Claude Code's, as an undecided stream's always was (the agent first in the registry wins
//! it): the shape is Claude Code's, which the other two copy, and most such streams are its.
//! The tie decides at once rather than after the wait for a deciding record: a live stream's
//! open tool calls must be known when they open (`sjlint run`, the status line), and a Claude
//! Code before 2.0.25 writes no `claude_code_version`, so waiting would leave its run unknown
//! until its `result`. Waiting would find little: Qwen Code's source writes both its init
//! marks on every init, and Amp's thread id is on every line with a session id, the init
//! first, so their streams decide on their first record; only a stream cut before its init
//! could be told later. Such a Qwen Code stream is taken for Claude Code's, and a later
//! `tool_progress` is a `mixed-agents` finding. It must not check anything.

use super::{Line, OWN_SUBTYPES, OWN_TYPES};
use crate::agents::Types;
use crate::agents::{Agent, MARK, SHAPE, Sniff, count_marks};

/// Which agent of the family a stream is, for the checker's rules that differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    #[default]
    Claude,
    Qwen,
    Amp,
}

impl Profile {
    /// The agent of this profile.
    pub fn agent(self) -> Agent {
        match self {
            Profile::Claude => Agent::Claude,
            Profile::Qwen => Agent::Qwen,
            Profile::Amp => Agent::Amp,
        }
    }

    /// The profile of `agent`'s streams: Claude Code's for any agent outside the family.
    pub fn of(agent: Agent) -> Profile {
        match agent {
            Agent::Qwen => Profile::Qwen,
            Agent::Amp => Profile::Amp,
            _ => Profile::Claude,
        }
    }
}

/// Whether `agent` writes the family's shape.
pub fn is_member(agent: Agent) -> bool {
    matches!(agent, Agent::Claude | Agent::Qwen | Agent::Amp)
}

/// Whether `id` is an Amp thread id: `T-` and a UUID (hex digits and dashes, as its session
/// ids are shown).
pub fn is_thread_id(id: &str) -> bool {
    id.strip_prefix("T-").is_some_and(|rest| {
        rest.len() >= 8 && rest.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
    })
}

/// The family's score of a record: [`MARK`] for each family mark, [`SHAPE`] for a record of a
/// type the family shares with cursor-agent; `None` when the record is not of the family's
/// types at all.
fn shared(s: &Sniff<'_>) -> Option<u32> {
    let ty = s.ty.as_str()?;
    if super::FAMILY_TYPES.contains(&ty) {
        return Some(MARK);
    }
    if !matches!(ty, "system" | "assistant" | "user" | "result") {
        return None;
    }
    Some(
        count_marks(&[
            s.parent_tool_use_id.is_present(),
            s.num_turns.is_present(),
            s.message.id.is_present()
                || s.message.model.is_present()
                || s.message.usage.is_present(),
        ]) + SHAPE,
    )
}

/// How strongly a record is Claude Code's: the family's marks, and its own (see the module).
pub fn claude(s: &Sniff<'_>) -> u32 {
    if s.ty.as_str().is_some_and(|t| OWN_TYPES.contains(&t)) {
        return MARK;
    }
    let Some(family) = shared(s) else {
        return 0;
    };
    let ty = s.ty.as_str().unwrap_or_default();
    family
        + count_marks(&[
            ty == "system"
                && s.subtype
                    .as_str()
                    .is_some_and(|st| OWN_SUBTYPES.contains(&st)),
            s.claude_code_version.is_present(),
            ty == "result" && s.total_cost_usd.is_present(),
        ])
}

/// Qwen Code and Amp own no type: they write Claude Code's, the family's included.
pub const TYPE_NAMES: Types = Types {
    own: &[],
    own_prefixes: &[],
    shared: &[super::FAMILY_TYPES, &["system", "assistant", "user"]],
};

/// How strongly a record is Qwen Code's: the family's marks, and its own (see the module).
pub fn qwen(s: &Sniff<'_>) -> u32 {
    let Some(family) = shared(s) else {
        return 0;
    };
    let ty = s.ty.as_str().unwrap_or_default();
    family
        + count_marks(&[
            s.qwen_code_version.is_present(),
            ty == "system" && s.permission_mode_snake.is_present(),
            ty == "stream_event" && s.event.ty.as_str() == Some("tool_progress"),
            // Its error result's `error{type?, message}` (Claude Code's has `errors`, strings).
            ty == "result"
                && s.num_turns.is_present()
                && s.error.json_type() == Some(crate::json::JsonType::Object),
        ])
}

/// How strongly a record is Amp's: the family's marks, and its thread id.
pub fn amp(s: &Sniff<'_>) -> u32 {
    let Some(family) = shared(s) else {
        return 0;
    };
    family + count_marks(&[s.thread_id.as_str().is_some_and(is_thread_id)])
}

/// Whether a record read into the family's view carries `profile`'s mark, or the family's with
/// no sign of a sibling (what [`crate::agents::Line::own_mark`] asks): such a record needs no
/// second reading to know no other agent's run has begun. The view does not hold Qwen Code's
/// init keys; an init has none of the family's marks, so it is read again anyway.
pub(crate) fn own_mark(l: &Line<'_>, profile: Profile) -> bool {
    let ty = l.ty.as_str();
    let amp = l.session_id.as_str().is_some_and(is_thread_id);
    let qwen = ty == Some("stream_event") && l.event.ty.as_str() == Some("tool_progress");
    let claude = ty.is_some_and(|t| OWN_TYPES.contains(&t))
        || (ty == Some("result") && l.total_cost_usd.is_present());
    let family = l.parent_tool_use_id.is_present()
        || l.num_turns.is_present()
        || l.message.id.is_present()
        || l.message.model.is_present()
        || l.message.usage.shape.is_some()
        || ty.is_some_and(|t| super::FAMILY_TYPES.contains(&t));
    match profile {
        Profile::Claude => (claude || family) && !amp && !qwen,
        Profile::Qwen => qwen || (family && !amp && !claude),
        Profile::Amp => amp,
    }
}

#[cfg(test)]
mod tests {
    use crate::agents::{Agent, Reading, read};

    fn decides(text: &str) -> Option<Agent> {
        match read(text, &bumpalo::Bump::new()) {
            Reading::Scored(e) => e.decisive(),
            _ => None,
        }
    }

    #[test]
    fn each_agent_of_the_family_is_told_by_its_own_mark() {
        assert_eq!(
            decides(
                r#"{"type":"system","subtype":"init","uuid":"u","session_id":"s","tools":[],"permission_mode":"yolo","qwen_code_version":"0.2.0"}"#
            ),
            Some(Agent::Qwen)
        );
        assert_eq!(
            decides(
                r#"{"type":"system","subtype":"init","cwd":"/","session_id":"T-5928a90d-d53b-488f-a829-4e36442142ee","tools":[],"mcp_servers":[]}"#
            ),
            Some(Agent::Amp)
        );
        assert_eq!(
            decides(
                r#"{"type":"system","subtype":"init","session_id":"s","tools":[],"claude_code_version":"2.1.0"}"#
            ),
            Some(Agent::Claude)
        );
        // Amp's thread id outweighs the family's marks on the same line.
        assert_eq!(
            decides(
                r#"{"type":"assistant","message":{"role":"assistant","content":[]},"parent_tool_use_id":null,"session_id":"T-5928a90d-d53b-488f-a829-4e36442142ee"}"#
            ),
            Some(Agent::Amp)
        );
        assert_eq!(
            decides(
                r#"{"type":"stream_event","uuid":"u","session_id":"s","parent_tool_use_id":null,"event":{"type":"tool_progress","tool_use_id":"t","content":{}}}"#
            ),
            Some(Agent::Qwen)
        );
        assert_eq!(
            decides(
                r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s","total_cost_usd":0.01}"#
            ),
            Some(Agent::Claude)
        );
    }

    #[test]
    fn the_familys_marks_tie_and_a_tie_is_claude_codes() {
        let line = r#"{"type":"assistant","message":{"id":"m","model":"x","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}"#;
        let Reading::Scored(e) = read(line, &bumpalo::Bump::new()) else {
            panic!()
        };
        assert_eq!(e.score(Agent::Qwen), e.score(Agent::Claude));
        assert_eq!(e.score(Agent::Amp), e.score(Agent::Claude));
        assert_eq!(decides(line), Some(Agent::Claude));
        assert_eq!(
            decides(r#"{"type":"stream_event","event":{"type":"message_stop"}}"#),
            Some(Agent::Claude)
        );
        // A session id that only begins with `T` is no thread id.
        assert!(!super::is_thread_id("T-"));
        assert!(!super::is_thread_id("Thread-1"));
        assert!(super::is_thread_id(
            "T-5928a90d-d53b-488f-a829-4e36442142ee"
        ));
    }
}
