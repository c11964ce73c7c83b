//! Merging `--stream-partial-output` deltas with the flush that repeats them.
//!
//! This module owns [`Piece`] (what an assistant event is: a delta, a flush, a segment) and
//! [`TextMerge`], which tells the mapping into the common vocabulary the part of an assistant
//! text not said yet and whether it continues the text said just before, so that the common form
//! carries each piece of text once. Memory is constant: only a hash of the deltas since the last
//! flush is kept, never their text. It must not write anything.

use crate::agents::cursor::validate::TextHash;
use crate::agents::cursor::view::Event;

/// What an assistant event is, by the fields real runs set (FORMAT.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    /// `timestamp_ms` and no `model_call_id`: a `--stream-partial-output` token delta.
    Delta,
    /// Neither field: a final message, or a flush repeating the deltas since the last flush.
    Flush,
    /// `model_call_id`: a segment before tool calls.
    Segment,
}

impl Piece {
    pub(super) fn of(ev: &Event<'_>) -> Piece {
        match (ev.timestamp_ms.is_present(), ev.model_call_id.is_present()) {
            (_, true) => Piece::Segment,
            (true, false) => Piece::Delta,
            (false, false) => Piece::Flush,
        }
    }
}

/// Merges partial-output deltas with the flush that repeats them, in constant memory: only a
/// hash of the deltas since the last flush is kept.
#[derive(Default)]
pub(super) struct TextMerge {
    pending: TextHash,
}

impl TextMerge {
    /// The part of `text` not said yet, and whether it continues the text said just before
    /// (`false`: it starts a new message).
    pub(super) fn push<'t>(&mut self, text: &'t str, piece: Piece) -> (&'t str, bool) {
        match piece {
            Piece::Delta => {
                let continues = self.pending.len > 0;
                self.pending = self.pending.append(TextHash::of(text.as_bytes()));
                (text, continues)
            }
            Piece::Flush | Piece::Segment => {
                let pending = std::mem::take(&mut self.pending);
                let n = pending.len as usize;
                // Known by what it repeats: newer builds stamp the flush before a tool call
                // with `model_call_id` and `timestamp_ms`, as a segment.
                let repeats = n > 0
                    && text.is_char_boundary(n.min(text.len()))
                    && text.len() >= n
                    && TextHash::of(&text.as_bytes()[..n]) == pending;
                if repeats {
                    (&text[n..], true)
                } else {
                    (text, false)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(pieces: &[(&str, Piece)]) -> Vec<(String, bool)> {
        let mut m = TextMerge::default();
        pieces
            .iter()
            .map(|(t, p)| {
                let (s, c) = m.push(t, *p);
                (s.to_owned(), c)
            })
            .collect()
    }

    #[test]
    fn a_flush_repeating_the_deltas_shows_nothing_new() {
        let out = merged(&[
            ("Hel", Piece::Delta),
            ("lo", Piece::Delta),
            ("Hello", Piece::Flush),
        ]);
        assert_eq!(
            out,
            vec![
                ("Hel".into(), false),
                ("lo".into(), true),
                (String::new(), true)
            ]
        );
    }

    #[test]
    fn a_flush_longer_than_the_deltas_shows_the_rest() {
        let out = merged(&[("Hé", Piece::Delta), ("Héllo!", Piece::Flush)]);
        assert_eq!(out[1], ("llo!".into(), true));
    }

    #[test]
    fn a_flush_that_differs_is_shown_whole_as_a_new_paragraph() {
        let out = merged(&[("abc", Piece::Delta), ("xyz!", Piece::Flush)]);
        assert_eq!(out[1], ("xyz!".into(), false));
        // Shorter than the deltas, and cut inside a character.
        let out = merged(&[("abcdef", Piece::Delta), ("ab", Piece::Flush)]);
        assert_eq!(out[1], ("ab".into(), false));
        let out = merged(&[("a", Piece::Delta), ("é", Piece::Flush)]);
        assert_eq!(out[1], ("é".into(), false));
    }

    #[test]
    fn without_deltas_every_message_is_its_own_paragraph() {
        let out = merged(&[
            ("I'll run it.", Piece::Segment),
            ("done", Piece::Flush),
            ("again", Piece::Flush),
        ]);
        assert!(out.iter().all(|(_, continues)| !continues));
        assert_eq!(out[1].0, "done");
    }

    #[test]
    fn deltas_after_a_flush_start_over() {
        let out = merged(&[
            ("a", Piece::Delta),
            ("a", Piece::Flush),
            ("b", Piece::Delta),
            ("c", Piece::Delta),
            ("bc", Piece::Flush),
        ]);
        assert_eq!(out[2], ("b".into(), false));
        assert_eq!(out[3], ("c".into(), true));
        assert_eq!(out[4], (String::new(), true));
    }
}
