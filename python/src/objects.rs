//! Python objects from the facade's JSON text: a finding's, an event's or a file's statistics
//! become dicts, lists, strs, ints, floats, bools and `None`, as Python's `json.loads` would
//! make them, but with no limit on nesting.
//!
//! The facade reads a record nested as deep as its line may be long, and hands an event's
//! `args` on as they came; `json.loads` (and any recursive reader) stops at the interpreter's
//! recursion limit, which would turn a record the command line reads into an exception that
//! loses every item of the call. So the text is read here with a stack of the containers still
//! open, on the heap, never by recursion. It owns that reading only: it must not interpret a
//! field, and it needs the interpreter's lock (it makes Python objects), so the callers do the
//! checking without it first. The text is the facade's own output, JSON by construction;
//! anything else is an error, not a panic.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use std::collections::HashMap;

/// The Python value of the JSON text `text`, of any depth.
pub(crate) fn from_json<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let mut r = Reader {
        py,
        text,
        at: 0,
        keys: HashMap::new(),
    };
    let value = r.value()?;
    r.space();
    if r.at != text.len() {
        return Err(r.bad("text after the value"));
    }
    Ok(value)
}

/// A container still open, with (for an object) the key its next value goes to.
enum Open<'py> {
    List(Bound<'py, PyList>),
    Dict(Bound<'py, PyDict>, Bound<'py, PyString>),
}

struct Reader<'py, 't> {
    py: Python<'py>,
    text: &'t str,
    /// Byte offset of what is read next.
    at: usize,
    /// The keys made so far, shared as `json.loads` shares them: events repeat a few keys
    /// many times.
    keys: HashMap<&'t str, Bound<'py, PyString>>,
}

impl<'py, 't> Reader<'py, 't> {
    /// One whole value: scalars as they come, containers on `stack` until they close.
    fn value(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let mut stack: Vec<Open<'py>> = Vec::new();
        loop {
            // A value begins here; `done` is set once one is complete.
            self.space();
            let mut done = match self.peek()? {
                b'[' => {
                    self.at += 1;
                    self.space();
                    if !self.eat(b']') {
                        stack.push(Open::List(PyList::empty(self.py)));
                        continue;
                    }
                    PyList::empty(self.py).into_any()
                }
                b'{' => {
                    self.at += 1;
                    self.space();
                    if !self.eat(b'}') {
                        let key = self.key()?;
                        stack.push(Open::Dict(PyDict::new(self.py), key));
                        continue;
                    }
                    PyDict::new(self.py).into_any()
                }
                _ => self.scalar()?,
            };
            // Put it where it belongs, then close every container that ends after it.
            loop {
                let Some(open) = stack.last_mut() else {
                    return Ok(done);
                };
                match open {
                    Open::List(list) => list.append(done)?,
                    Open::Dict(dict, key) => dict.set_item(&*key, done)?,
                }
                self.space();
                let close = match (self.next()?, &mut *open) {
                    (b',', Open::List(_)) => false,
                    (b',', Open::Dict(_, key)) => {
                        self.space();
                        *key = self.key()?;
                        false
                    }
                    (b']', Open::List(_)) | (b'}', Open::Dict(..)) => true,
                    _ => return Err(self.bad("a `,` or the container's end")),
                };
                if !close {
                    break;
                }
                done = match stack.pop() {
                    Some(Open::List(list)) => list.into_any(),
                    Some(Open::Dict(dict, _)) => dict.into_any(),
                    None => unreachable!("a container was open"),
                };
            }
        }
    }

    /// An object's key and the `:` after it.
    fn key(&mut self) -> PyResult<Bound<'py, PyString>> {
        if !self.eat(b'"') {
            return Err(self.bad("a key"));
        }
        let (raw, escaped) = self.string_end()?;
        let key = if escaped {
            self.unescape(raw)?
        } else if let Some(k) = self.keys.get(raw) {
            k.clone()
        } else {
            let k = PyString::new(self.py, raw);
            self.keys.insert(raw, k.clone());
            k
        };
        self.space();
        if !self.eat(b':') {
            return Err(self.bad("a `:`"));
        }
        Ok(key)
    }

    fn scalar(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let rest = &self.text.as_bytes()[self.at..];
        let (word, value) = match rest.first() {
            Some(b'"') => {
                self.at += 1;
                let (raw, escaped) = self.string_end()?;
                if escaped {
                    return Ok(self.unescape(raw)?.into_any());
                }
                return Ok(PyString::new(py, raw).into_any());
            }
            Some(b'n') => ("null", py.None().into_bound(py)),
            Some(b't') => ("true", PyBool::new(py, true).to_owned().into_any()),
            Some(b'f') => ("false", PyBool::new(py, false).to_owned().into_any()),
            // What `json.loads` reads besides JSON (the facade does not write them).
            Some(b'N') => ("NaN", PyFloat::new(py, f64::NAN).into_any()),
            Some(b'I') => ("Infinity", PyFloat::new(py, f64::INFINITY).into_any()),
            Some(b'-') if rest.starts_with(b"-Infinity") => {
                ("-Infinity", PyFloat::new(py, f64::NEG_INFINITY).into_any())
            }
            Some(b'-' | b'0'..=b'9') => return self.number(),
            _ => return Err(self.bad("a value")),
        };
        if !rest.starts_with(word.as_bytes()) {
            return Err(self.bad("a value"));
        }
        self.at += word.len();
        Ok(value)
    }

    /// A number as `json.loads` reads it: an int (of any size) unless it has a fraction or an
    /// exponent, then a float (Rust's and Python's parsing both round correctly).
    fn number(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        while self.at < bytes.len()
            && matches!(
                bytes[self.at],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.at += 1;
        }
        let token = &self.text[start..self.at];
        if token.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            let f: f64 = token.parse().map_err(|_| self.bad("a number"))?;
            return Ok(PyFloat::new(self.py, f).into_any());
        }
        if let Ok(i) = token.parse::<i64>() {
            return Ok(PyInt::new(self.py, i).into_any());
        }
        if !token.bytes().skip(1).all(|b| b.is_ascii_digit()) {
            return Err(self.bad("a number"));
        }
        // Too big for 64 bits: Python's int reads any length.
        self.py
            .get_type::<PyInt>()
            .call1((token,))
            .map_err(|_| self.bad("a number"))
    }

    /// The text of a string whose opening quote is read, up to its closing quote (read), and
    /// whether it holds an escape.
    fn string_end(&mut self) -> PyResult<(&'t str, bool)> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut escaped = false;
        while let Some(&b) = bytes.get(self.at) {
            match b {
                b'"' => {
                    self.at += 1;
                    // Both ends are ASCII, hence on character boundaries.
                    return Ok((&self.text[start..self.at - 1], escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.at += 2;
                }
                _ => self.at += 1,
            }
        }
        Err(self.bad("the string's end"))
    }

    /// A string with escapes. One that names a lone surrogate (`\ud800`), which a Rust string
    /// cannot hold and a Python str can, is read by `json.loads` itself: a string is flat, so
    /// that reading has no depth.
    fn unescape(&self, raw: &str) -> PyResult<Bound<'py, PyString>> {
        match unescape(raw) {
            Some(s) => Ok(PyString::new(self.py, &s)),
            None => {
                let quoted = format!("\"{raw}\"");
                let value = self.py.import("json")?.getattr("loads")?.call1((quoted,))?;
                Ok(value.cast_into::<PyString>()?)
            }
        }
    }

    fn space(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn peek(&self) -> PyResult<u8> {
        match self.text.as_bytes().get(self.at) {
            Some(&b) => Ok(b),
            None => Err(self.bad("a value")),
        }
    }

    fn next(&mut self) -> PyResult<u8> {
        let b = self.peek()?;
        self.at += 1;
        Ok(b)
    }

    fn eat(&mut self, want: u8) -> bool {
        if self.text.as_bytes().get(self.at) == Some(&want) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    #[cold]
    fn bad(&self, wanted: &str) -> PyErr {
        PyValueError::new_err(format!(
            "sjlint's own JSON is broken at byte {}: {wanted} was expected",
            self.at
        ))
    }
}

/// The characters of a string's escaped text, or `None` when it is not whole (a bad escape,
/// or a surrogate without its pair).
fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let c = match chars.next()? {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let unit = hex4(&mut chars)?;
                if (0xD800..0xDC00).contains(&unit) {
                    // A high surrogate must be followed by `\u` and a low one.
                    if chars.next()? != '\\' || chars.next()? != 'u' {
                        return None;
                    }
                    let low = hex4(&mut chars)?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?
                } else {
                    char::from_u32(unit)?
                }
            }
            _ => return None,
        };
        out.push(c);
    }
    Some(out)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut unit = 0;
    for _ in 0..4 {
        unit = unit * 16 + chars.next()?.to_digit(16)?;
    }
    Some(unit)
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn escapes() {
        assert_eq!(
            unescape(r#"a\"b\\c\/d\n\t"#).as_deref(),
            Some("a\"b\\c/d\n\t")
        );
        assert_eq!(unescape(r"\u00e9\ud83d\ude00").as_deref(), Some("é😀"));
        // A lone surrogate, either half, is left to Python.
        assert_eq!(unescape(r"\ud800"), None);
        assert_eq!(unescape(r"\ud800x"), None);
        assert_eq!(unescape(r"\ude00"), None);
        assert_eq!(unescape(r"\q"), None);
    }
}
