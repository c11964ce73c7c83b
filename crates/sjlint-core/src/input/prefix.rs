//! The JSON prefix automaton that decides whether a record broken over lines is joined.
//!
//! This module owns one question: are these bytes still a prefix of one valid JSON text? The
//! splitter asks it when a line ends inside a string, to tell a string that a writer broke with
//! raw LFs (joined into one record) from a broken line (left alone). It answers a byte at a
//! time in bounded memory. It must not read values, classify events, check UTF-8 or decide
//! anything about framing itself: that is `split`.

use memchr::memchr2;

const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// What the prefix automaton accepts next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Value,
    /// Right after `[`.
    ValueOrClose,
    /// Right after `{`.
    KeyOrClose,
    Key,
    Colon,
    CommaOrClose,
    /// The top-level value is complete: only whitespace may follow.
    End,
    Str,
    Escape,
    /// Hex digits still missing in a `\u` escape.
    Hex(u8),
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    ExpMark,
    ExpSign,
    Exp,
    /// Index into `LITERALS`, and the next byte of it.
    Lit(u8, u8),
    Failed,
}

/// Decides whether bytes are still a prefix of one valid JSON text (RFC 8259; raw control bytes
/// are tolerated inside strings and string bytes are not checked as UTF-8, since the point is
/// only to tell a broken-up string from a broken line). Nesting is a bit stack, one bit per open
/// container, so its memory is bounded by the record limit.
#[derive(Debug)]
pub(super) struct Prefix {
    at: Expect,
    /// The open string is an object key.
    key: bool,
    depth: usize,
    /// Bit set = object, clear = array.
    stack: Vec<u64>,
}

impl Prefix {
    pub(super) fn new() -> Self {
        Prefix {
            at: Expect::Value,
            key: false,
            depth: 0,
            stack: Vec::new(),
        }
    }

    pub(super) fn reset(&mut self) {
        self.at = Expect::Value;
        self.key = false;
        self.depth = 0;
        self.stack.clear();
    }

    pub(super) fn in_plain_string(&self) -> bool {
        self.at == Expect::Str
    }

    pub(super) fn in_string(&self) -> bool {
        matches!(self.at, Expect::Str | Expect::Escape | Expect::Hex(_))
    }

    /// The top-level value is whole: only whitespace may follow.
    pub(super) fn complete(&self) -> bool {
        use Expect::{End, Exp, Frac, Int, Zero};
        self.at == End || (self.depth == 0 && matches!(self.at, Zero | Int | Frac | Exp))
    }

    /// Feeds `bytes`; false once they cannot start a JSON text.
    pub(super) fn feed(&mut self, bytes: &[u8]) -> bool {
        let mut i = 0;
        while i < bytes.len() {
            if self.at == Expect::Str {
                match memchr2(b'"', b'\\', &bytes[i..]) {
                    Some(j) => i += j,
                    None => return true,
                }
            }
            if !self.step(bytes[i]) {
                return false;
            }
            i += 1;
        }
        true
    }

    pub(super) fn step(&mut self, b: u8) -> bool {
        let next = self.next(b);
        self.at = next.unwrap_or(Expect::Failed);
        next.is_some()
    }

    fn next(&mut self, b: u8) -> Option<Expect> {
        use Expect::{
            Colon, CommaOrClose, Dot, End, Escape, Exp, ExpMark, ExpSign, Failed, Frac, Hex, Int,
            Key, KeyOrClose, Lit, Minus, Str, Value, ValueOrClose, Zero,
        };
        let ws = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        let at = self.at;
        match at {
            Str => Some(match b {
                b'"' => self.after_string(),
                b'\\' => Escape,
                _ => Str,
            }),
            Escape => match b {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(Str),
                b'u' => Some(Hex(4)),
                _ => None,
            },
            Hex(k) => b
                .is_ascii_hexdigit()
                .then_some(if k == 1 { Str } else { Hex(k - 1) }),
            Value | ValueOrClose | KeyOrClose | Key | Colon | CommaOrClose | End if ws => Some(at),
            ValueOrClose if b == b']' => self.close(false),
            Value | ValueOrClose => self.open_value(b),
            KeyOrClose if b == b'}' => self.close(true),
            KeyOrClose | Key => (b == b'"').then(|| {
                self.key = true;
                Str
            }),
            Colon => (b == b':').then_some(Value),
            CommaOrClose => match b {
                b',' if self.top_is_object() => Some(Key),
                b',' => Some(Value),
                b']' => self.close(false),
                b'}' => self.close(true),
                _ => None,
            },
            End | Failed => None,
            Minus => match b {
                b'0' => Some(Zero),
                b'1'..=b'9' => Some(Int),
                _ => None,
            },
            Zero => match b {
                b'.' => Some(Dot),
                b'e' | b'E' => Some(ExpMark),
                _ => self.after_number(b),
            },
            Int => match b {
                b'0'..=b'9' => Some(Int),
                b'.' => Some(Dot),
                b'e' | b'E' => Some(ExpMark),
                _ => self.after_number(b),
            },
            Dot => b.is_ascii_digit().then_some(Frac),
            Frac => match b {
                b'0'..=b'9' => Some(Frac),
                b'e' | b'E' => Some(ExpMark),
                _ => self.after_number(b),
            },
            ExpMark => match b {
                b'+' | b'-' => Some(ExpSign),
                b'0'..=b'9' => Some(Exp),
                _ => None,
            },
            ExpSign => b.is_ascii_digit().then_some(Exp),
            Exp if b.is_ascii_digit() => Some(Exp),
            Exp => self.after_number(b),
            Lit(w, i) => {
                let word = LITERALS[usize::from(w)];
                if b != word[usize::from(i)] {
                    None
                } else if usize::from(i) + 1 == word.len() {
                    Some(self.after_value())
                } else {
                    Some(Lit(w, i + 1))
                }
            }
        }
    }

    fn open_value(&mut self, b: u8) -> Option<Expect> {
        use Expect::{Int, KeyOrClose, Lit, Minus, Str, ValueOrClose, Zero};
        Some(match b {
            b'{' => {
                self.push(true);
                KeyOrClose
            }
            b'[' => {
                self.push(false);
                ValueOrClose
            }
            b'"' => {
                self.key = false;
                Str
            }
            b'-' => Minus,
            b'0' => Zero,
            b'1'..=b'9' => Int,
            b't' => Lit(0, 1),
            b'f' => Lit(1, 1),
            b'n' => Lit(2, 1),
            _ => return None,
        })
    }

    /// A number has no terminator of its own: the byte that ends it belongs to what follows.
    fn after_number(&mut self, b: u8) -> Option<Expect> {
        self.at = self.after_value();
        self.next(b)
    }

    fn after_string(&mut self) -> Expect {
        if self.key {
            self.key = false;
            Expect::Colon
        } else {
            self.after_value()
        }
    }

    fn after_value(&self) -> Expect {
        if self.depth == 0 {
            Expect::End
        } else {
            Expect::CommaOrClose
        }
    }

    fn push(&mut self, object: bool) {
        let (word, bit) = (self.depth / 64, self.depth % 64);
        if word == self.stack.len() {
            self.stack.push(0);
        }
        if object {
            self.stack[word] |= 1 << bit;
        } else {
            self.stack[word] &= !(1 << bit);
        }
        self.depth += 1;
    }

    fn top_is_object(&self) -> bool {
        self.depth > 0 && {
            let d = self.depth - 1;
            self.stack[d / 64] >> (d % 64) & 1 == 1
        }
    }

    fn close(&mut self, object: bool) -> Option<Expect> {
        if self.depth == 0 || self.top_is_object() != object {
            return None;
        }
        self.depth -= 1;
        Some(self.after_value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn prefix_automaton_examples() {
        let accepts = |s: &[u8]| {
            let mut p = Prefix::new();
            s.iter().all(|&b| p.step(b))
        };
        for ok in [
            &b"{\"a\":[1,-0.5e+7,true,false,null,\"\\u12aF\\n\"],\"b\":{}} "[..],
            b"[[[[",
            b"\"raw\x01\ncontrol",
            b"  12",
            b"{\"k\"",
        ] {
            assert!(accepts(ok), "{}", String::from_utf8_lossy(ok));
        }
        for bad in [
            &b"{,"[..],
            b"[1,]",
            b"{\"a\" 1",
            b"01",
            b"-01",
            b"[-0.1e1,01]",
            b"1.e",
            b"-a",
            b"tru ",
            b"\"\\x",
            b"\"\\u12g",
            b"{]",
            b"[}",
            b"{} {",
            b"{\"a\":1,}",
            b"\\",
        ] {
            assert!(!accepts(bad), "{}", String::from_utf8_lossy(bad));
        }
        let mut deep = Prefix::new();
        let text = [b"[{\"k\":".repeat(200), b"1".to_vec(), b"}]".repeat(200)].concat();
        assert!(text.iter().all(|&b| deep.step(b)));
        assert!(deep.complete());
    }

    fn json_token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "{", "}", "[", "]", "\"k\"", "\"", ":", ",", " ", "1", "0", "-", ".", "e", "E", "+",
            "true", "null", "fals", "\\", "\\n", "\\u00e9", "\\u", "a", "/",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            // Every seed file of the crate is in proptest-regressions/ at its root.
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/split.txt"),
            )),
            ..ProptestConfig::default()
        })]

        #[test]
        fn prefix_automaton_agrees_with_serde_json(
            tokens in prop::collection::vec(json_token(), 0..40),
        ) {
            let text = tokens.concat();
            let mut prefix = Prefix::new();
            let accepted = text.bytes().all(|b| prefix.step(b));
            let parsed = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            prop_assert_eq!(accepted && prefix.complete(), parsed, "{}", text);
            if parsed {
                // Every prefix of a valid text is accepted as one.
                let mut prefix = Prefix::new();
                prop_assert!(text.bytes().all(|b| prefix.step(b)));
            }
        }
    }
}
