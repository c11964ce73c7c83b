//! Bounded excerpts of untrusted text, for the messages of findings.
//!
//! A finding that quotes the stream (an id, a kind, a type) quotes at most
//! [`EXCERPT_CHARS`] characters of it, then says how long the whole text was: `"abc…"… (N bytes)`.
//! So the output stays proportional to the number of findings, never to the size of what they
//! quote: a 10 MB `session_id` repeated in a hundred findings costs a hundred short lines. This
//! module owns the cut and its spelling; it must not escape for a terminal (the report formats
//! do that) nor allocate: [`Excerpt`] writes straight into the message being formatted.

use std::fmt;

/// Most characters of untrusted text a message quotes.
pub const EXCERPT_CHARS: usize = 120;

/// `text`, cut to [`EXCERPT_CHARS`] characters when longer. `Display` writes it as is,
/// `Debug` quoted and escaped like `{:?}` of a `str`; either way a cut text is followed by
/// `… (N bytes)`, N being the length of the whole text.
#[derive(Clone, Copy)]
pub struct Excerpt<'a>(pub &'a str);

impl<'a> Excerpt<'a> {
    /// The part quoted, and the whole text's length when it was cut.
    fn parts(self) -> (&'a str, Option<usize>) {
        let s = self.0;
        // A text of at most EXCERPT_CHARS bytes has at most that many characters.
        if s.len() <= EXCERPT_CHARS {
            return (s, None);
        }
        match s.char_indices().nth(EXCERPT_CHARS) {
            Some((end, _)) => (&s[..end], Some(s.len())),
            None => (s, None),
        }
    }
}

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (part, whole) = self.parts();
        f.write_str(part)?;
        match whole {
            Some(n) => write!(f, "… ({n} bytes)"),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (part, whole) = self.parts();
        fmt::Debug::fmt(part, f)?;
        match whole {
            Some(n) => write!(f, "… ({n} bytes)"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole() {
        assert_eq!(format!("{}", Excerpt("abc")), "abc");
        assert_eq!(format!("{:?}", Excerpt("a\"b")), r#""a\"b""#);
        let exact = "é".repeat(EXCERPT_CHARS);
        assert_eq!(format!("{}", Excerpt(&exact)), exact);
    }

    #[test]
    fn long_text_is_cut_at_a_character_and_its_length_said() {
        let long = "é".repeat(EXCERPT_CHARS + 1);
        let shown = format!("{}", Excerpt(&long));
        assert_eq!(
            shown,
            format!("{}… ({} bytes)", "é".repeat(EXCERPT_CHARS), long.len())
        );
        let big = "x".repeat(10_000_000);
        let quoted = format!("{:?}", Excerpt(&big));
        assert_eq!(
            quoted,
            format!("\"{}\"… (10000000 bytes)", "x".repeat(EXCERPT_CHARS))
        );
    }
}
