//! JSON conformance: what sjlint accepts as one record, case by case, against RFC 8259 and
//! UTF-8 (RFC 3629).
//!
//! Each case is one record. "Accepted" means no `invalid-json`, `invalid-utf8` or
//! `truncated-record`; a valid text that is not an object is `not-an-object`, and a raw control
//! character inside a string is repaired with a `raw-control-character` warning (by design:
//! real runs write raw newlines inside `call_id`). Where RFC 8259 leaves the choice to the
//! implementation (numbers beyond the f64 range, unpaired surrogate escapes, a byte-order mark,
//! duplicate keys, nesting depth), the case says which choice sjlint made; "JSON conformance
//! choices" in docs/internals.md lists them.
//!
//! Every case is checked on its own through the library, and all one-line cases once more
//! through the real binary as one stream, one case per line, the way conformance suites are run
//! against sjlint.

use crate::common::check_json;
use proptest::prelude::*;
use sjlint::unstable::check::{CheckOptions, check};
use sjlint::unstable::rules::{Group, Rule};
use std::collections::BTreeMap;

/// What sjlint makes of one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    /// Valid JSON object: no framing finding.
    Obj,
    /// Valid JSON that is not an object: `not-an-object` only.
    Val,
    /// Not JSON: `invalid-json`.
    Bad,
    /// Not UTF-8: `invalid-utf8`.
    Utf8,
    /// A raw control character inside a string: `raw-control-character` (a warning), then valid.
    Fix,
    /// Not a record at all: an empty or whitespace-only line (`blank-line`).
    Blank,
}
use V::*;

/// `(name, record bytes, verdict)`; a record never holds its own line terminator.
type Case = (&'static str, &'static [u8], V);

#[rustfmt::skip]
const CASES: &[Case] = &[
    // Numbers: the grammar is -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    ("number zero", b"[0]", Val),
    ("number negative zero", b"[-0]", Val),
    ("number negative zero top level", b"-0", Val),
    ("number integer", b"[123]", Val),
    ("number negative integer", b"[-123]", Val),
    ("number fraction", b"[1.5]", Val),
    ("number negative fraction", b"[-0.5]", Val),
    ("number zero fraction exponent", b"[-0.0e-0]", Val),
    ("number exponent", b"[1e3]", Val),
    ("number capital exponent", b"[1E3]", Val),
    ("number exponent plus", b"[1e+3]", Val),
    ("number exponent minus", b"[1E-3]", Val),
    ("number exponent leading zeros", b"[1e007]", Val),
    ("number zero exponent", b"[0e0]", Val),
    ("number fraction and exponent", b"[12.34e-56]", Val),
    ("number u64 max", b"[18446744073709551615]", Val),
    ("number u64 max plus one", b"[18446744073709551616]", Val),
    ("number i64 min", b"[-9223372036854775808]", Val),
    ("number i64 min minus one", b"[-9223372036854775809]", Val),
    ("number 30 digits", b"[123456789012345678901234567890]", Val),
    ("number f64 max", b"[1.7976931348623157e308]", Val),
    ("number smallest subnormal", b"[4.9e-324]", Val),
    ("number long fraction", b"[0.000000000000000000000000000000000000000000000001]", Val),
    ("number top level", b"42", Val),
    ("number negative fraction top level", b"-0.1", Val),
    ("number 1E22", b"[1E22]", Val),
    ("number then NUL", b"123\x00", Bad),
    ("number then invalid UTF-8 in the exponent", b"[1e\xe5]", Utf8),
    // Beyond the f64 range: valid JSON, read as +-1e308 (a choice).
    ("number 1E400 top level", b"1E400", Val),
    ("number 1e400", b"[1e400]", Val),
    ("number -1e400", b"[-1e400]", Val),
    ("number 1e-400 underflows to zero", b"[1e-400]", Val),
    ("number huge exponent", b"[1e999999999999999999999]", Val),
    ("number huge negative exponent", b"[-1e-999999999999999999999]", Val),
    ("number zero with huge exponent", b"[0e999999999999999999999]", Val),
    ("number 1e400 in a read field", br#"{"type":"result","subtype":"success","is_error":false,"result":"","duration_ms":1e400}"#, Obj),
    ("number -1e400 in timestamp_ms", br#"{"type":"user","timestamp_ms":-1e400}"#, Obj),
    ("number 1e400 in usage", br#"{"type":"result","usage":{"inputTokens":1e400}}"#, Obj),
    ("number 1e400 as exitCode", br#"{"type":"tool_call","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":1e400}}}}}"#, Obj),
    ("number 1e400 as message", br#"{"type":"user","message":1e400}"#, Obj),
    ("number 1e400 as a query id", br#"{"type":"interaction_query","query":{"id":1e400}}"#, Obj),
    ("number leading zero", b"[01]", Bad),
    ("number negative leading zero", b"[-01]", Bad),
    ("number double zero", b"[00]", Bad),
    ("number plus sign", b"[+1]", Bad),
    ("number plus sign top level", b"+1", Bad),
    ("number leading dot", b"[.5]", Bad),
    ("number trailing dot", b"[1.]", Bad),
    ("number dot before exponent", b"[1.e3]", Bad),
    ("number zero dot before exponent", b"[0.e1]", Bad),
    ("number bare minus", b"[-]", Bad),
    ("number minus dot", b"[-.5]", Bad),
    ("number minus space", b"[- 1]", Bad),
    ("number double minus", b"[--1]", Bad),
    ("number minus plus", b"[-+1]", Bad),
    ("number exponent without digits", b"[1e]", Bad),
    ("number exponent sign without digits", b"[1e+]", Bad),
    ("number double exponent", b"[1e5e5]", Bad),
    ("number double e", b"[1ee3]", Bad),
    ("number fractional exponent", b"[1e1.5]", Bad),
    ("number two dots", b"[1.5.5]", Bad),
    ("number hex", b"[0x10]", Bad),
    ("number capital hex", b"[0X1F]", Bad),
    ("number underscore", b"[1_000]", Bad),
    ("number space inside", b"[1 000]", Bad),
    ("number fullwidth digit", "[\u{ff11}]".as_bytes(), Bad),
    ("number leading zero 1e400", b"[01e400]", Bad),
    ("number NaN", b"[NaN]", Bad),
    ("number -NaN", b"[-NaN]", Bad),
    ("number Infinity", b"[Infinity]", Bad),
    ("number -Infinity", b"[-Infinity]", Bad),
    ("number inf", b"[inf]", Bad),
    ("number nan top level", b"nan", Bad),
    ("number Infinity in a field", br#"{"type":"result","duration_ms":Infinity}"#, Bad),
    // Strings and escapes.
    ("string empty", br#"[""]"#, Val),
    ("string top level", br#""abc""#, Val),
    ("string every short escape", br#"["\"\\\/\b\f\n\r\t"]"#, Val),
    ("string escaped solidus", br#"["a\/b"]"#, Val),
    ("string plain solidus", br#"["/"]"#, Val),
    ("string escaped NUL", br#"["\u0000"]"#, Val),
    ("string escaped NUL in a field", br#"{"type":"user","session_id":"a\u0000b"}"#, Obj),
    ("string escaped U+001F", br#"["\u001f"]"#, Val),
    ("string escape lower hex", br#"["\u00e9\uabcd"]"#, Val),
    ("string escape upper hex", br#"["\u00E9\uABCD"]"#, Val),
    ("string escape every hex digit", br#"["\u0123\u4567\u89ab\ucdef"]"#, Val),
    ("string escaped noncharacters", br#"["\uFFFE\uFFFF"]"#, Val),
    ("string escaped surrogate pair", br#"["\uD834\uDD1E"]"#, Val),
    ("string escaped surrogate pair lower", br#"["\ud83d\ude00"]"#, Val),
    ("string escaped line separators", br#"["\u2028\u2029"]"#, Val),
    ("string raw line separators", "[\"a\u{2028}b\u{2029}c\"]".as_bytes(), Val),
    ("string raw two-byte", "[\"caf\u{e9}\"]".as_bytes(), Val),
    ("string raw three-byte", "[\"\u{65e5}\u{672c}\"]".as_bytes(), Val),
    ("string raw four-byte", "[\"\u{1f600}\"]".as_bytes(), Val),
    ("string raw U+0080", b"[\"\xc2\x80\"]", Val),
    ("string raw U+10FFFF", b"[\"\xf4\x8f\xbf\xbf\"]", Val),
    ("string raw noncharacter U+FFFF", b"[\"\xef\xbf\xbf\"]", Val),
    ("string raw DEL", b"[\"\x7f\"]", Val),
    ("string escaped backslash then u", br#"["\\u0041"]"#, Val),
    ("string as key", br#"{"\u0074ype":"user"}"#, Obj),
    ("string empty key", br#"{"":0,"type":"user"}"#, Obj),
    // Unpaired surrogate escapes: valid by the grammar, read as private-use characters (a choice).
    ("string lone high surrogate", br#"["\ud800"]"#, Val),
    ("string lone low surrogate", br#"["\udfff"]"#, Val),
    ("string two high surrogates", br#"["\ud800\ud800"]"#, Val),
    ("string low before high", br#"["\udc00\ud800"]"#, Val),
    ("string high then text", br#"["\ud800abc"]"#, Val),
    ("string high then other escape", br#"["\ud800\n"]"#, Val),
    ("string high then non-surrogate escape", br#"["\ud800\u0041"]"#, Val),
    ("string lone surrogate as key", br#"{"\ud800":1,"type":"user"}"#, Obj),
    ("string lone surrogate in a read field", br#"{"type":"user","session_id":"\udbff"}"#, Obj),
    ("string lone surrogate lower-case hex", br#"["\udada"]"#, Val),
    ("string inverted surrogate pair", br#"["\uDD1E\uD834"]"#, Val),
    ("string single quotes", b"['a']", Bad),
    ("string surrogate then escaped quote", br#"["\uD800\"]"#, Bad),
    ("string surrogate then short escape", br#"["\uD800\u"]"#, Bad),
    ("string surrogate then bad escape", br#"["\uD800\uD800\x"]"#, Bad),
    ("string escaped emoji", "[\"\\\u{1f300}\"]".as_bytes(), Bad),
    ("string unquoted key", b"{a:1}", Bad),
    ("string single-quoted key", b"{'a':1}", Bad),
    ("string hex escape", br#"["\x41"]"#, Bad),
    ("string bell escape", br#"["\a"]"#, Bad),
    ("string escaped apostrophe", br#"["\'"]"#, Bad),
    ("string escaped space", br#"["\ "]"#, Bad),
    ("string capital U escape", br#"["\U0041"]"#, Bad),
    ("string braced escape", br#"["\u{41}"]"#, Bad),
    ("string short unicode escape", br#"["\u12"]"#, Bad),
    ("string bad hex digit", br#"["\u12G4"]"#, Bad),
    ("string signed hex", br#"["\u+123"]"#, Bad),
    ("string escape outside a string", br"[\u0041]", Bad),
    ("string unclosed", br#"["abc"#, Bad),
    ("string closing quote escaped", br#"["\"]"#, Bad),
    ("string trailing backslash", br#"["\"#, Bad),
    ("string stray quote", br#"["a"b"]"#, Bad),
    ("string lone surrogate then syntax error", br#"["\ud800",]"#, Bad),
    // Raw control characters inside strings: repaired with a warning (by design).
    ("string raw tab", b"[\"a\tb\"]", Fix),
    ("string raw NUL", b"[\"a\x00b\"]", Fix),
    ("string raw U+001F", b"[\"\x1f\"]", Fix),
    ("string raw escape character", b"[\"\x1b[31mred\"]", Fix),
    ("string raw CR", b"[\"a\rb\"]", Fix),
    ("string raw LF", b"[\"a\nb\"]", Fix),
    ("string raw LF in call_id", b"{\"type\":\"user\",\"call_id\":\"a\nb\"}", Fix),
    // UTF-8 validity (RFC 3629).
    ("utf8 lone continuation byte", b"[\"\x80\"]", Utf8),
    ("utf8 lone continuation byte bf", b"[\"\xbf\"]", Utf8),
    ("utf8 overlong slash two bytes", b"[\"\xc0\xaf\"]", Utf8),
    ("utf8 overlong c1", b"[\"\xc1\xbf\"]", Utf8),
    ("utf8 overlong slash three bytes", b"[\"\xe0\x80\xaf\"]", Utf8),
    ("utf8 overlong U+07FF three bytes", b"[\"\xe0\x9f\xbf\"]", Utf8),
    ("utf8 overlong slash four bytes", b"[\"\xf0\x80\x80\xaf\"]", Utf8),
    ("utf8 overlong U+FFFF four bytes", b"[\"\xf0\x8f\xbf\xbf\"]", Utf8),
    ("utf8 encoded high surrogate", b"[\"\xed\xa0\x80\"]", Utf8),
    ("utf8 encoded low surrogate", b"[\"\xed\xbf\xbf\"]", Utf8),
    ("utf8 encoded surrogate pair (CESU-8)", b"[\"\xed\xa0\xbd\xed\xb8\x80\"]", Utf8),
    ("utf8 past U+10FFFF", b"[\"\xf4\x90\x80\x80\"]", Utf8),
    ("utf8 lead f5", b"[\"\xf5\x80\x80\x80\"]", Utf8),
    ("utf8 lead f7", b"[\"\xf7\xbf\xbf\xbf\"]", Utf8),
    ("utf8 five-byte form", b"[\"\xf8\x88\x80\x80\x80\"]", Utf8),
    ("utf8 six-byte form", b"[\"\xfc\x84\x80\x80\x80\x80\"]", Utf8),
    ("utf8 byte fe", b"[\"\xfe\"]", Utf8),
    ("utf8 byte ff", b"[\"\xff\"]", Utf8),
    ("utf8 truncated two-byte", b"[\"\xc3\"]", Utf8),
    ("utf8 truncated three-byte", b"[\"\xe6\x97\"]", Utf8),
    ("utf8 truncated four-byte", b"[\"\xf0\x9f\x98\"]", Utf8),
    ("utf8 truncated then ASCII", b"[\"\xe6a\"]", Utf8),
    ("utf8 Latin-1", b"[\"caf\xe9\"]", Utf8),
    ("utf8 invalid outside a string", b"[\xff]", Utf8),
    ("utf8 invalid in a key", b"{\"\xff\":1}", Utf8),
    ("utf8 UTF-16 BOM", b"\xfe\xff[]", Utf8),
    ("utf8 truncated at the end of the record", b"[1]\xe2\x82", Utf8),
    // Literals.
    ("literal true", b"[true]", Val),
    ("literal false", b"[false]", Val),
    ("literal null", b"[null]", Val),
    ("literal null top level", b"null", Val),
    ("literal true top level", b"true", Val),
    ("literal capitalised", b"[True]", Bad),
    ("literal upper case", b"[NULL]", Bad),
    ("literal short", b"[nul]", Bad),
    ("literal short true", b"[tru]", Bad),
    ("literal long", b"[nulll]", Bad),
    ("literal run together", b"[truefalse]", Bad),
    ("literal split", b"[t rue]", Bad),
    ("literal undefined", b"[undefined]", Bad),
    ("literal None", b"[None]", Bad),
    ("bare word", b"hello", Bad),
    ("bare non-ASCII word", "\u{e5}".as_bytes(), Bad),
    // Whitespace: only space, tab, CR and LF (LF ends an NDJSON line, so it is not here).
    ("whitespace spaces", b"[ 1 , 2 ]", Val),
    ("whitespace leading and trailing", b"  {\"type\":\"user\"}  ", Obj),
    ("whitespace tabs", b"\t[\t1\t]\t", Val),
    ("whitespace CR inside", b"[\r1\r]", Val),
    ("whitespace around colon and comma", b"{ \"type\" \t: \"user\" , \"a\" : 1 }", Obj),
    ("whitespace form feed", b"[\x0c1]", Bad),
    ("whitespace vertical tab", b"[\x0b1]", Bad),
    ("whitespace NUL", b"[\x001]", Bad),
    ("whitespace NUL after the value", b"{}\x00", Bad),
    ("whitespace no-break space", "[\u{a0}1]".as_bytes(), Bad),
    ("whitespace raw line separator", "[\u{2028}1]".as_bytes(), Bad),
    ("whitespace ideographic space", "[\u{3000}1]".as_bytes(), Bad),
    ("whitespace word joiner", "[\u{2060}1]".as_bytes(), Bad),
    ("whitespace BOM inside", "[\u{feff}1]".as_bytes(), Bad),
    ("whitespace BOM after the value", "{}\u{feff}".as_bytes(), Bad),
    ("empty line", b"", Blank),
    ("whitespace-only line", b" \t ", Blank),
    // A BOM at the start of a line is stripped with an info finding (a choice).
    ("BOM then object", "\u{feff}{\"type\":\"user\"}".as_bytes(), Obj),
    ("BOM then array", "\u{feff}[]".as_bytes(), Val),
    ("BOM alone", "\u{feff}".as_bytes(), Blank),
    ("BOM cut short", b"\xef\xbb{}", Utf8),
    ("two BOMs", "\u{feff}\u{feff}{}".as_bytes(), Bad),
    // Structure.
    ("object empty", b"{}", Obj),
    ("array empty", b"[]", Val),
    ("array nested empty", b"[[]]", Val),
    ("array of everything", br#"[1,-2.5e3,"s",true,false,null,[],{}]"#, Val),
    ("object nested", br#"{"type":"user","a":{"b":[1,{"c":null}]}}"#, Obj),
    ("object duplicate key", br#"{"type":"user","a":1,"a":2}"#, Obj),
    ("object duplicate type key", br#"{"type":"user","type":"user"}"#, Obj),
    ("array trailing comma", b"[1,]", Bad),
    ("array leading comma", b"[,1]", Bad),
    ("array double comma", b"[1,,2]", Bad),
    ("array only comma", b"[,]", Bad),
    ("array missing comma", b"[1 2]", Bad),
    ("array semicolon", b"[1;2]", Bad),
    ("array string trailing comma", br#"["a",]"#, Bad),
    ("object trailing comma", br#"{"a":1,}"#, Bad),
    ("object only comma", b"{,}", Bad),
    ("object key without value", br#"{"a"}"#, Bad),
    ("object key and colon only", br#"{"a":}"#, Bad),
    ("object missing colon", br#"{"a" 1}"#, Bad),
    ("object double colon", br#"{"a"::1}"#, Bad),
    ("object equals sign", br#"{"a"=1}"#, Bad),
    ("object number key", b"{1:1}", Bad),
    ("object null key", b"{null:1}", Bad),
    ("object missing comma", br#"{"a":1 "b":2}"#, Bad),
    ("object in array without comma", b"[{}{}]", Bad),
    ("unclosed array", b"[1,2", Bad),
    ("unclosed array after comma", b"[1,", Bad),
    ("unclosed object", br#"{"a":1"#, Bad),
    ("unclosed object after colon", br#"{"a":"#, Bad),
    ("unclosed object after key", br#"{"a""#, Bad),
    ("unclosed nested", b"[[[]]", Bad),
    ("lone open bracket", b"[", Bad),
    ("lone open brace", b"{", Bad),
    ("lone close bracket", b"]", Bad),
    ("lone close brace", b"}", Bad),
    ("mismatched close", b"[}", Bad),
    ("mismatched close object", b"{]", Bad),
    ("mismatched close in array", b"[1}", Bad),
    ("extra close", b"[]]", Bad),
    ("extra close object", b"{}}", Bad),
    ("lone colon", b":", Bad),
    ("lone comma", b",", Bad),
    ("trailing garbage", b"[1]x", Bad),
    ("two values", b"[1] [2]", Bad),
    ("two objects", b"{} {}", Bad),
    ("two objects without space", b"{}{}", Bad),
    ("line comment after", b"[1]//c", Bad),
    ("block comment before", b"/*c*/[1]", Bad),
    ("block comment inside", b"[1/*c*/]", Bad),
    ("hash comment", b"# c", Bad),
    ("JavaScript assignment", b"x = {}", Bad),
    ("record separator prefix", b"\x1e{}", Bad),
    ("UTF-16LE object", b"{\x00}\x00", Bad),
];

/// Cases built rather than written: long, deep and wide records.
fn generated_cases() -> Vec<(String, Vec<u8>, V)> {
    let nest = |open: &str, inner: &str, close: &str, n: usize| {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n)).into_bytes()
    };
    let mut digits400 = b"[".to_vec();
    digits400.extend(std::iter::repeat_n(b'9', 400));
    digits400.push(b']');
    let long_string = format!("[\"{}\"]", "a\\n\u{e9}".repeat(20_000)).into_bytes();
    vec![
        // No nesting limit (a choice): nothing recurses per level.
        ("arrays 128 deep".into(), nest("[", "", "]", 128), Val),
        ("arrays 129 deep".into(), nest("[", "", "]", 129), Val),
        (
            "arrays 100,000 deep".into(),
            nest("[", "1", "]", 100_000),
            Val,
        ),
        (
            "objects 100,000 deep".into(),
            nest("{\"a\":", "1", "}", 100_000),
            Obj,
        ),
        (
            "objects 10,000 deep under a read field".into(),
            [
                b"{\"type\":\"result\",\"usage\":".as_slice(),
                &nest("{\"inputTokens\":", "[1]", "}", 10_000),
                b"}",
            ]
            .concat(),
            Obj,
        ),
        (
            "arrays 100,000 deep unclosed".into(),
            nest("[", "1", "", 100_000),
            Bad,
        ),
        (
            "arrays deep with a trailing comma".into(),
            nest("[", "1,", "]", 1000),
            Bad,
        ),
        ("number 400 digits".into(), digits400.clone(), Val),
        (
            "number 400 digits negative".into(),
            [b"[-", &digits400[1..]].concat(),
            Val,
        ),
        ("string of 60,000 escapes".into(), long_string, Val),
        (
            "array of 100,000 numbers".into(),
            format!("[{}0]", "1e400,".repeat(100_000)).into_bytes(),
            Val,
        ),
    ]
}

fn all_cases() -> Vec<(String, Vec<u8>, V)> {
    let mut all: Vec<_> = CASES
        .iter()
        .map(|&(name, bytes, v)| (name.to_owned(), bytes.to_vec(), v))
        .collect();
    all.extend(generated_cases());
    all
}

/// The verdict from the framing rules that fired (other groups are about events, not JSON).
fn verdict(framing: &[&str]) -> V {
    let has = |rule| framing.contains(&rule);
    if has("invalid-utf8") {
        Utf8
    } else if has("invalid-json") || has("truncated-record") {
        Bad
    } else if has("raw-control-character") {
        Fix
    } else if has("not-an-object") {
        Val
    } else if has("blank-line") {
        Blank
    } else {
        Obj
    }
}

/// The framing rules that fire for `record` as the only line of an input.
fn framing_rules(record: &[u8]) -> Vec<&'static str> {
    let mut input = record.to_vec();
    input.push(b'\n');
    let mut rules = Vec::new();
    // Without the headline of an input that holds no event, which stands in for the findings of
    // its lines: each line is judged on its own here.
    let mut opts = CheckOptions::default();
    opts.enabled.remove(Rule::EmptyStream);
    check(&input[..], &opts, &mut |d| {
        if d.rule.group() == Group::Framing && d.rule.name() != "byte-order-mark" {
            rules.push(d.rule.name());
        }
        Ok(())
    })
    .expect("reading from memory cannot fail");
    rules
}

fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(&bytes[..bytes.len().min(60)]);
    format!("{:?}{}", s, if bytes.len() > 60 { "…" } else { "" })
}

#[test]
fn every_case_gets_its_verdict() {
    let mut wrong = Vec::new();
    for (name, bytes, want) in all_cases() {
        let rules = framing_rules(&bytes);
        let got = verdict(&rules);
        if got != want {
            wrong.push(format!(
                "{name}: {} is {got:?}, want {want:?} ({rules:?})",
                show(&bytes)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cases wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn case_names_are_unique() {
    let mut seen = std::collections::BTreeSet::new();
    for (name, ..) in all_cases() {
        assert!(seen.insert(name.clone()), "duplicate case name {name}");
    }
}

/// The whole table through the real binary, one case per line: every line gets the verdict it
/// gets alone, so a bad case never changes what is said about the next one.
#[test]
fn one_case_per_line_through_the_binary() {
    let cases: Vec<_> = all_cases()
        .into_iter()
        // A case that holds an LF is several lines, and a final CR would read as CRLF.
        .filter(|(_, b, _)| !b.contains(&b'\n') && b.last() != Some(&b'\r'))
        .collect();
    let mut input = Vec::new();
    for (_, bytes, _) in &cases {
        input.extend_from_slice(bytes);
        input.push(b'\n');
    }
    let (run, findings) = check_json(&["--max-record-bytes", "1M"], Some(&input));
    let mut by_line: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for f in &findings {
        if f.group == "framing" && f.rule != "byte-order-mark" {
            by_line.entry(f.line).or_default().push(&f.rule);
        }
    }
    let mut wrong = Vec::new();
    for (i, (name, bytes, want)) in cases.iter().enumerate() {
        let rules = by_line.remove(&(i as u64 + 1)).unwrap_or_default();
        let got = verdict(&rules);
        if got != *want {
            wrong.push(format!(
                "line {} {name}: {} is {got:?}, want {want:?} ({rules:?})",
                i + 1,
                show(bytes)
            ));
        }
    }
    assert!(
        by_line.is_empty(),
        "findings on no case's line: {by_line:?}"
    );
    assert!(wrong.is_empty(), "{}\n{}", wrong.join("\n"), run.stderr());
}

/// A generated JSON value, written with random (non-LF) whitespace: valid by construction.
fn json_value() -> impl Strategy<Value = String> {
    let ws = prop::sample::select(vec!["", " ", "\t", "\r", "  \t"]);
    let number = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        (prop::bool::ANY, 0u32..5, 0u32..3, -3000i64..3000).prop_map(|(neg, int, frac, exp)| {
            let sign = if neg { "-" } else { "" };
            let frac = if frac > 0 {
                format!(".{}", "7".repeat(frac as usize))
            } else {
                String::new()
            };
            format!(
                "{sign}{}{frac}e{exp}",
                if int == 0 {
                    "0".to_owned()
                } else {
                    "9".repeat(int as usize)
                }
            )
        }),
        "[1-9][0-9]{0,400}",
    ];
    let string = prop::collection::vec(
        prop_oneof![
            "[a-z ]{1,4}",
            "[\u{80}-\u{7ff}\u{800}-\u{ffff}\u{10000}-\u{10ffff}]",
            prop::sample::select(vec![
                "\\\"",
                "\\\\",
                "\\/",
                "\\b",
                "\\f",
                "\\n",
                "\\r",
                "\\t",
                "\\u0000",
                "\\u001F",
                "\\ud83d\\ude00",
                "\\ud800",
                "\\uDFFF",
                "\\u2028",
                "\u{2028}",
                "\u{feff}",
            ])
            .prop_map(str::to_owned),
        ],
        0..6,
    )
    .prop_map(|parts| format!("\"{}\"", parts.concat()));
    let leaf = prop_oneof![
        number,
        string.clone(),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
    ];
    leaf.prop_recursive(6, 48, 6, move |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..6), ws.clone())
                .prop_map(|(items, w)| { format!("[{w}{}{w}]", items.join(&format!("{w},{w}"))) }),
            (
                prop::collection::vec((string.clone(), inner), 0..6),
                ws.clone()
            )
                .prop_map(|(entries, w)| {
                    let body: Vec<String> = entries
                        .into_iter()
                        .map(|(k, v)| format!("{k}{w}:{w}{v}"))
                        .collect();
                    format!("{{{w}{}{w}}}", body.join(","))
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        // Every seed file of the crate is in proptest-regressions/ at its root.
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/conformance.txt"),
        )),
        ..ProptestConfig::default()
    })]

    /// Valid JSON is never `invalid-json`, as a record of its own or as the value of any field
    /// the classifier reads.
    #[test]
    fn valid_json_is_never_rejected(value in json_value(), lead in "[ \t]{0,2}") {
        let verdicts = [
            verdict(&framing_rules(format!("{lead}{value}").as_bytes())),
            verdict(&framing_rules(format!(r#"{{"type":"result","subtype":"success","duration_ms":{value},"session_id":{value},"usage":{{"inputTokens":{value}}},"message":{{"content":[{{"text":{value}}}]}},"tool_call":{{"xToolCall":{{"args":{value},"result":{{"success":{{"exitCode":{value}}}}}}}}}}}"#).as_bytes())),
        ];
        prop_assert!(matches!(verdicts[0], Obj | Val), "{value}: {:?}", verdicts[0]);
        prop_assert_eq!(verdicts[1], Obj, "{}", value);
    }
}
