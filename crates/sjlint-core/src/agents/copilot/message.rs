//! Copilot CLI's streamed messages: the pieces of a message or a reasoning
//! (`assistant.message_delta`, `assistant.reasoning_delta`) remembered by a hash of their text,
//! the whole message that repeats them (`assistant.message`, `assistant.reasoning`) and what it
//! adds to them, and the pieces a run's `result` finds without their whole.

use super::shape::{count_field, text, tool_requests};
use super::{Data, MAX_PENDING, Validator};
use crate::agents::{Agent, Emit, Sink, count, id_prefix};
use crate::diagnostic::Diagnostic;
use crate::input::record::Position;
use crate::rules::messages::{self, EventType, Streamed};
use crate::vocab::{self, Kind};
use bumpalo::Bump;
use std::borrow::Cow;

/// Which kind of streamed text pieces belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stream {
    Message,
    Reasoning,
}

/// The pieces of one streamed message so far: their length and a hash that does not depend on
/// how the text was cut into pieces, to tell what the whole message adds.
pub(super) struct Pieces {
    stream: Stream,
    pub(super) id: String,
    line: u64,
    len: usize,
    hash: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a of `bytes` continued from `h`: hashing pieces one after the other gives the hash of
/// their concatenation.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// The first piece of `s` up to `n` bytes on a character boundary (`n` or less).
fn prefix_len(s: &str, n: usize) -> Option<usize> {
    (n <= s.len() && s.is_char_boundary(n)).then_some(n)
}

impl Validator {
    /// A streamed piece of a message or of a reasoning: a `delta` piece of the common form,
    /// remembered until its whole message repeats it.
    pub(super) fn piece(
        &mut self,
        pos: Position,
        ty: &str,
        d: &Data<'_>,
        ms: Option<u64>,
        sink: &mut Sink<'_, '_>,
    ) {
        let (stream, id) = if ty == "assistant.message_delta" {
            (Stream::Message, &d.message_id)
        } else {
            (Stream::Reasoning, &d.reasoning_id)
        };
        // The text is read (unescaped) only for the common form, which alone needs it.
        let text = sink.as_ref().and_then(|_| d.delta_content.text());
        // The first piece of a message begins it in the common form; the others continue it.
        let mut first = false;
        if let Some(id) = id.as_str() {
            let id = id_prefix(id);
            let i = match self
                .pieces
                .iter()
                .position(|p| p.stream == stream && p.id == id)
            {
                Some(i) => i,
                None => {
                    if self.pieces.len() >= MAX_PENDING {
                        let old = self.pieces.remove(0);
                        self.recycle(old.id);
                    }
                    let id = self.key(id);
                    self.pieces.push(Pieces {
                        stream,
                        id,
                        line: pos.line,
                        len: 0,
                        hash: FNV_OFFSET,
                    });
                    self.pieces.len() - 1
                }
            };
            first = self.pieces[i].len == 0;
            if let Some(t) = &text {
                let p = &mut self.pieces[i];
                p.len = p.len.saturating_add(t.len());
                p.hash = fnv(p.hash, t.as_bytes());
            }
        }
        if stream == Stream::Message
            && sink.is_some()
            && let Some(t) = &text
        {
            self.answer.push(t);
        }
        if let Some(sink) = sink {
            let kind = match stream {
                Stream::Message => Kind::AssistantText,
                Stream::Reasoning => Kind::Thinking,
            };
            let mut ev = vocab::Event::new(kind, pos.line);
            ev.text = text;
            ev.delta = !first;
            ev.parent = d.parent_tool_call_id.to_cow();
            ev.timestamp_ms = ms;
            sink(&ev);
        }
    }

    /// The whole message (or reasoning) that repeats its streamed pieces: its text goes to the
    /// common form once, as a whole when nothing was streamed, else only the part the pieces
    /// lacked. The message's text, for the run's answer.
    pub(super) fn whole(
        &mut self,
        pos: Position,
        stream: Stream,
        d: &Data<'_>,
        ms: Option<u64>,
        sink: &mut Sink<'_, '_>,
    ) {
        let id = match stream {
            Stream::Message => &d.message_id,
            Stream::Reasoning => &d.reasoning_id,
        };
        let streamed = id.as_str().map(id_prefix).and_then(|id| {
            let i = self
                .pieces
                .iter()
                .position(|p| p.stream == stream && p.id == id)?;
            let p = self.pieces.remove(i);
            let seen = (p.len, p.hash);
            self.recycle(p.id);
            Some(seen)
        });
        let Some(sink) = sink else {
            return;
        };
        let was_streamed = streamed.is_some();
        let Some(content) = d.content.text() else {
            return;
        };
        if stream == Stream::Message {
            self.answer.clear();
            self.answer.push(&content);
        }
        let rest: Option<Cow<'_, str>> = match streamed {
            None => Some(content),
            Some((len, hash)) => match prefix_len(&content, len) {
                // The pieces were the start of the message: what they lacked, if anything.
                Some(n) if fnv(FNV_OFFSET, &content.as_bytes()[..n]) == hash => (n < content.len())
                    .then(|| match content {
                        Cow::Borrowed(c) => Cow::Borrowed(&c[n..]),
                        Cow::Owned(c) => Cow::Owned(c[n..].to_owned()),
                    }),
                // The pieces said otherwise: they stand.
                _ => None,
            },
        };
        let Some(text) = rest.filter(|t| !t.is_empty()) else {
            return;
        };
        let kind = match stream {
            Stream::Message => Kind::AssistantText,
            Stream::Reasoning => Kind::Thinking,
        };
        let mut ev = vocab::Event::new(kind, pos.line);
        ev.delta = was_streamed;
        ev.text = Some(text);
        ev.parent = d.parent_tool_call_id.to_cow();
        ev.timestamp_ms = ms;
        sink(&ev);
    }

    /// The fields of an `assistant.message`, and its output tokens for the run's (its text goes
    /// to the common form by [`Validator::whole`]).
    pub(super) fn message<'a>(
        &mut self,
        pos: Position,
        bytes: &[u8],
        d: &Data<'a>,
        arena: &'a Bump,
        emit: Emit<'_>,
    ) {
        let what = "an `assistant.message`";
        text(
            &d.content,
            true,
            what,
            pos,
            bytes,
            &["data", "content"],
            emit,
        );
        if count_field(
            &d.output_tokens,
            false,
            what,
            pos,
            bytes,
            &["data", "outputTokens"],
            emit,
        ) && let Some(n) = count(&d.output_tokens)
        {
            let t = self.tokens.message_output.get_or_insert(0);
            *t = t.saturating_add(n);
        }
        tool_requests((pos, bytes), d, true, arena, emit);
    }

    /// The streamed messages the run's `result` finds without their whole message.
    pub(super) fn unfinished_pieces(&mut self, pos: Position, emit: Emit<'_>) {
        // Taken and put back, so that its room is kept for the next run.
        let mut all = std::mem::take(&mut self.pieces);
        for p in all.drain(..) {
            let (pieces, whole) = match p.stream {
                Stream::Message => ("`assistant.message_delta`", "`assistant.message`"),
                Stream::Reasoning => ("`assistant.reasoning_delta`", "`assistant.reasoning`"),
            };
            emit(Diagnostic::from_message(
                pos,
                messages::thinking_not_completed(&Streamed {
                    agent: Agent::Copilot.display_name(),
                    pieces,
                    whole,
                    id: Some(&p.id),
                    cut_by: EventType::of("result"),
                    began: p.line,
                }),
            ));
            self.recycle(p.id);
        }
        self.pieces = all;
    }
}

#[cfg(test)]
mod tests {
    use super::{FNV_OFFSET, fnv, prefix_len};

    #[test]
    fn the_hash_of_pieces_is_the_hash_of_their_text() {
        let whole = "I'll run the test suite.";
        let pieces = fnv(fnv(FNV_OFFSET, b"I'll run the"), b" test suite.");
        assert_eq!(pieces, fnv(FNV_OFFSET, whole.as_bytes()));
        assert_ne!(pieces, fnv(FNV_OFFSET, b"I'll run the test suite!"));
        // A length inside a character is no prefix.
        assert_eq!(prefix_len("é", 1), None);
        assert_eq!(prefix_len("ab", 3), None);
        assert_eq!(prefix_len("ab", 1), Some(1));
    }
}
