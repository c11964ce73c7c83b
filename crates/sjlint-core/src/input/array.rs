//! Events saved as one JSON array (claude-code-action's `claude-execution-output.json` is the
//! stream's events gathered into a pretty-printed array) turned back into a stream: each
//! element on a line of its own, with the whitespace between its tokens taken out, and the
//! line of the file where it began, so that a finding can name the file's line.
//!
//! This module owns that conversion only. `check` does not use it: there, an array is the one
//! `invalid-json` that says so. `sjlint ci` reads such a file through it.

/// The stream of an array's elements, one per line, and the 1-based line of the document on
/// which each began.
pub struct Unrolled {
    pub stream: Vec<u8>,
    pub lines: Vec<u64>,
}

impl Unrolled {
    /// The document's line for line `line` of the stream (the element's first line); lines past
    /// the elements, and line 0 (no line), stay as they are.
    pub fn line_in_document(&self, line: u64) -> u64 {
        usize::try_from(line)
            .ok()
            .and_then(|l| l.checked_sub(1))
            .and_then(|i| self.lines.get(i))
            .copied()
            .unwrap_or(line)
    }
}

/// `doc` unrolled when it is one JSON array (whitespace and a BOM around it allowed) whose
/// elements are objects; `None` for anything else, which is read as it is. Strings may hold
/// anything; the elements are not otherwise checked (that is what checking the stream does).
pub fn unroll(doc: &[u8]) -> Option<Unrolled> {
    let doc = doc.strip_prefix(b"\xef\xbb\xbf").unwrap_or(doc);
    let start = doc.iter().position(|b| !b.is_ascii_whitespace())?;
    if doc[start] != b'[' {
        return None;
    }
    let mut out = Unrolled {
        stream: Vec::with_capacity(doc.len() / 2),
        lines: Vec::new(),
    };
    let mut line = 1 + bytecount(&doc[..start]);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut closed = false;
    for &b in &doc[start..] {
        if b == b'\n' {
            line += 1;
        }
        if closed {
            if !b.is_ascii_whitespace() {
                return None;
            }
            continue;
        }
        if in_string {
            out.stream.push(b);
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {}
            b'[' | b'{' if depth == 0 => {
                if b != b'[' {
                    return None;
                }
                depth = 1;
            }
            b',' if depth == 1 => {}
            b']' if depth == 1 => {
                depth = 0;
                closed = true;
            }
            _ if depth == 1 => {
                // An element begins: only objects are events.
                if b != b'{' {
                    return None;
                }
                if !out.stream.is_empty() {
                    out.stream.push(b'\n');
                }
                out.lines.push(line);
                out.stream.push(b);
                depth = 2;
            }
            _ => {
                out.stream.push(b);
                match b {
                    b'"' => in_string = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => depth -= 1,
                    _ => {}
                }
            }
        }
    }
    if !closed || in_string {
        return None;
    }
    if !out.stream.is_empty() {
        out.stream.push(b'\n');
    }
    Some(out)
}

fn bytecount(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pretty_array_of_objects_becomes_one_line_each_with_its_first_line() {
        let doc = b"\n[\n  {\n    \"type\": \"a\",\n    \"t\": \"x , ] \\\" }\"\n  },\n  {\"type\": [1, {\"b\": 2}]}\n]\n";
        let u = unroll(doc).unwrap();
        assert_eq!(
            String::from_utf8(u.stream.clone()).unwrap(),
            "{\"type\":\"a\",\"t\":\"x , ] \\\" }\"}\n{\"type\":[1,{\"b\":2}]}\n"
        );
        assert_eq!(u.lines, [3, 7]);
        assert_eq!(u.line_in_document(2), 7);
        assert_eq!(u.line_in_document(0), 0);
    }

    #[test]
    fn anything_but_an_array_of_objects_is_left_alone() {
        for doc in [
            &b"{\"type\":\"a\"}\n"[..],
            b"[1, 2]",
            b"[{\"a\":1}",
            b"[{\"a\":\"1}]",
            b"[{\"a\":1}] x",
            b"",
            b"   ",
        ] {
            assert!(unroll(doc).is_none(), "{}", String::from_utf8_lossy(doc));
        }
        assert_eq!(unroll(b"[]").unwrap().stream, b"");
    }
}
