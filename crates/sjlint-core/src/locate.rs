//! Finding where a field sits inside a record, for diagnostics.
//!
//! Cold path only: the classifier does not track byte offsets, so when a finding needs a column
//! this module scans the record's bytes once more for a key path. It must not be used on the hot
//! path and must never fail loudly: a path it cannot find yields `None`.

use std::ops::Range;

/// The byte range of the key (including its quotes) at `path` in the JSON object `record`, e.g.
/// `&["tool_call", "shellToolCall"]`. Keys are compared by their raw bytes.
pub fn key(record: &[u8], path: &[&str]) -> Option<Range<usize>> {
    find(record, path).map(|(k, _)| k)
}

/// The byte range of the value at `path`.
pub fn value(record: &[u8], path: &[&str]) -> Option<Range<usize>> {
    find(record, path).map(|(_, v)| v)
}

/// [`key`] or [`value`] of the canonical `path`, or of where another dialect writes that field
/// (inside `payload`, `toolCall.id` for `call_id`, `tool_name` for the tool kind, …).
pub fn in_any_dialect(record: &[u8], path: &[&str], value: bool) -> Option<Range<usize>> {
    let at = |p: &[&str]| find(record, p).map(|(k, v)| if value { v } else { k });
    if let Some(span) = at(path) {
        return Some(span);
    }
    let mut wrapped = Vec::with_capacity(path.len() + 2);
    wrapped.push("payload");
    wrapped.extend_from_slice(path);
    if let Some(span) = at(&wrapped) {
        return Some(span);
    }
    let aliases: &[&[&str]] = match path {
        ["call_id"] => &[
            &["payload", "toolCall", "id"],
            &["tool_call_id"],
            &["callId"],
        ],
        ["result"] => &[&["error"]],
        ["tool_call", _, ..] => &[&["tool_name"], &["toolCall"], &["payload", "toolCall"]],
        ["tool_call"] => &[&["toolCall"], &["payload", "toolCall"]],
        ["message", ..] => &[&["text"], &["payload", "prompt"]],
        ["text"] => &[&["payload", "content"]],
        _ => &[],
    };
    // A tool kind keeps its name inside the payload dialect's `toolCall`.
    if let ["tool_call", rest @ ..] = path
        && !rest.is_empty()
    {
        let mut inner = vec!["payload", "toolCall"];
        inner.extend_from_slice(rest);
        if let Some(span) = at(&inner) {
            return Some(span);
        }
    }
    aliases.iter().find_map(|p| at(p))
}

fn find(record: &[u8], path: &[&str]) -> Option<(Range<usize>, Range<usize>)> {
    let mut i = skip_ws(record, 0);
    for (depth, name) in path.iter().enumerate() {
        if record.get(i) != Some(&b'{') {
            return None;
        }
        i += 1;
        loop {
            i = skip_ws(record, i);
            match record.get(i)? {
                b'}' => return None,
                b',' => {
                    i += 1;
                    continue;
                }
                b'"' => {}
                _ => return None,
            }
            let key_end = skip_string(record, i)?;
            let key = i..key_end;
            i = skip_ws(record, key_end);
            if record.get(i) != Some(&b':') {
                return None;
            }
            i = skip_ws(record, i + 1);
            let value_end = skip_value(record, i)?;
            if &record[key.start + 1..key.end - 1] == name.as_bytes() {
                if depth + 1 == path.len() {
                    return Some((key, i..value_end));
                }
                // Descend into this value for the next name.
                break;
            }
            i = value_end;
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// `b[i]` is an opening quote; returns the index after the closing quote.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// Skips one value of any kind without recursion; returns the index after it.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_keys_and_values() {
        let rec = br#"{"type":"tool_call","n":12,"s":"a\"}","tool_call":{"toolCallId":"x","readToolCall":{"args":{}}},"call_id":"c"}"#;
        let k = key(rec, &["tool_call", "readToolCall"]).unwrap();
        assert_eq!(&rec[k], br#""readToolCall""#);
        let v = value(rec, &["call_id"]).unwrap();
        assert_eq!(&rec[v], br#""c""#);
        let v = value(rec, &["n"]).unwrap();
        assert_eq!(&rec[v], b"12");
        assert!(key(rec, &["missing"]).is_none());
        assert!(key(b"not json", &["a"]).is_none());
        assert!(key(br#"{"a":"#, &["a", "b"]).is_none());
    }

    #[test]
    fn finds_fields_where_other_dialects_write_them() {
        let payload =
            br#"{"type":"tool_call","payload":{"toolCall":{"id":"t1","fooToolCall":{}}}}"#;
        let k = in_any_dialect(payload, &["tool_call", "fooToolCall"], false).unwrap();
        assert_eq!(&payload[k], br#""fooToolCall""#);
        let v = in_any_dialect(payload, &["call_id"], true).unwrap();
        assert_eq!(&payload[v], br#""t1""#);
        let sdk = br#"{"type":"tool-call-started","tool_name":"Foo","tool_call_id":"c1"}"#;
        let k = in_any_dialect(sdk, &["tool_call", "fooToolCall"], false).unwrap();
        assert_eq!(&sdk[k], br#""tool_name""#);
        let v = in_any_dialect(sdk, &["call_id"], true).unwrap();
        assert_eq!(&sdk[v], br#""c1""#);
        let r = br#"{"type":"result","payload":{"is_error":"no"}}"#;
        let v = in_any_dialect(r, &["is_error"], true).unwrap();
        assert_eq!(&r[v], br#""no""#);
    }
}
