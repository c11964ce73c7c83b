//! Escaping for the page: text and attribute values of HTML, JSON inside a `<script>` element,
//! and the neutralising of characters that could change how text is shown (controls, bidi
//! overrides and isolates, zero-width characters).
//!
//! Everything the page shows from a stream goes through here. This module owns only escaping:
//! it must not decide what is shown.

use sjlint_core::text::escape_untrusted;
use std::borrow::Cow;

/// `s` with controls and bidi or zero-width characters made visible (`\u{202e}`); newlines
/// and tabs stay.
pub(crate) fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && c != '\t' && escapes(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for (j, piece) in line.split('\t').enumerate() {
            if j > 0 {
                out.push('\t');
            }
            out.push_str(&escape_untrusted(piece));
        }
    }
    Cow::Owned(out)
}

fn escapes(c: char) -> bool {
    let mut buf = [0u8; 4];
    matches!(escape_untrusted(c.encode_utf8(&mut buf)), Cow::Owned(_))
}

/// Appends `s` to `out` as HTML text or a double-quoted attribute value: made [`visible`], and
/// `& < > " '` as character references.
pub(crate) fn push_text(out: &mut String, s: &str) {
    for c in visible(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `s` escaped as [`push_text`] does.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_text(&mut out, s);
    out
}

/// Appends JSON text so it is safe inside `<script type="application/json">`: `<`, `>`, `&`
/// and U+2028/U+2029 as `\u` escapes (valid JSON, and no `</script>` or `<!--` can form).
pub(crate) fn push_script_json(out: &mut String, json: &str) {
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_bidi_controls_are_inert() {
        assert_eq!(
            text("<script>a&b</script>\"'"),
            "&lt;script&gt;a&amp;b&lt;/script&gt;&quot;&#39;"
        );
        assert_eq!(text("a\u{202e}b\nc\td"), "a\\u{202e}b\nc\td");
        let mut s = String::new();
        push_script_json(&mut s, "\"</script><!--&\u{2028}\"");
        assert_eq!(s, "\"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\"");
    }
}
