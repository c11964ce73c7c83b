//! What a session of the Claude Code family has spent, as its messages come: each assistant
//! line's `usage` turned into what it adds, so that the common form's `usage` events are
//! increments whose sum is the session's tokens, known as they are spent (what `run`'s budgets
//! act on) and not only at the `result`.
//!
//! One API message is written as several assistant lines (one a content block) that repeat its
//! `usage`, and with partial output its counts grow: a message counts once, as the largest
//! copy of each count seen, keyed by `message.id` (a handful of messages are open at once when a
//! subagent's lines interleave with the main thread's). Amp's messages have no `id`: each of its
//! lines is a message of its own. The `result.usage` is the main thread's total (a subagent's
//! messages are not in it): what it has beyond the main thread's messages seen is added at the
//! result, so that a session's tokens are its `result.usage` plus its subagents' messages. It
//! must not read records.

use crate::vocab::Tokens;

/// How many message ids are remembered: the oldest is forgotten first.
const KEPT: usize = 64;

#[derive(Default)]
pub(super) struct Spent {
    /// The messages whose usage was counted, with the largest counts seen, newest last.
    messages: Vec<(Box<str>, Tokens)>,
    /// What the main thread's messages added so far in the open session.
    main: Tokens,
}

impl Spent {
    /// The usage `u` of an assistant line of message `id` (`None`: a line with no id, which is
    /// a message of its own); `main`: not a subagent's. Returns what it adds, if anything.
    pub(super) fn message(&mut self, id: Option<&str>, u: Tokens, main: bool) -> Option<Tokens> {
        let before = match id {
            Some(id) => match self.messages.iter().position(|(m, _)| &**m == id) {
                Some(i) => {
                    let kept = self.messages.remove(i);
                    self.messages.push((kept.0, kept.1.max(u)));
                    kept.1
                }
                None => {
                    if self.messages.len() == KEPT {
                        self.messages.remove(0);
                    }
                    self.messages.push((id.into(), u));
                    Tokens::default()
                }
            },
            None => Tokens::default(),
        };
        let added = before.max(u).beyond(before);
        if main {
            self.main = self.main.plus(added);
        }
        (!added.is_zero()).then_some(added)
    }

    /// The session's `result`, with the main thread's total it reports (if any): what that
    /// total has beyond the main thread's messages counted. The session is over.
    pub(super) fn result(&mut self, total: Option<Tokens>) -> Option<Tokens> {
        let added = total.map(|t| t.beyond(self.main));
        self.reset();
        added.filter(|a| !a.is_zero())
    }

    /// A new session begins.
    pub(super) fn reset(&mut self) {
        self.messages.clear();
        self.main = Tokens::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(input: u64, output: u64) -> Tokens {
        Tokens {
            input,
            output,
            ..Tokens::default()
        }
    }

    #[test]
    fn a_message_counts_once_as_its_largest_copy_and_the_result_adds_the_rest() {
        let mut s = Spent::default();
        assert_eq!(s.message(Some("m1"), t(3, 1), true), Some(t(3, 1)));
        // The same message's next content block repeats its usage.
        assert_eq!(s.message(Some("m1"), t(3, 1), true), None);
        // A subagent's message interleaves; it is not in the result's total.
        assert_eq!(s.message(Some("s1"), t(40, 2), false), Some(t(40, 2)));
        // The main message's output grew as it streamed.
        assert_eq!(s.message(Some("m1"), t(3, 9), true), Some(t(0, 8)));
        assert_eq!(s.message(Some("s1"), t(40, 2), false), None);
        // The result's main-thread total has 10 more output tokens than its lines said.
        assert_eq!(s.result(Some(t(3, 19))), Some(t(0, 10)));
        // All told: 3 + 40 in, 19 + 2 out, summed over what was reported.
        // A next session starts from nothing.
        assert_eq!(s.message(Some("m1"), t(1, 1), true), Some(t(1, 1)));
    }

    #[test]
    fn lines_without_an_id_are_messages_of_their_own() {
        let mut s = Spent::default();
        assert_eq!(s.message(None, t(5, 1), true), Some(t(5, 1)));
        assert_eq!(s.message(None, t(5, 1), true), Some(t(5, 1)));
        assert_eq!(s.result(None), None);
    }
}
