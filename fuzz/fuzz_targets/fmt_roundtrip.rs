//! `fmt` on arbitrary bytes: it never panics, its output is strict one-object-per-line UTF-8
//! JSON, `fmt` of its output is byte-identical (idempotent), and `check` finds in the output no
//! framing finding and no rule more often than in the input.
//!
//! Input layout: byte 0 picks the options (keep invalid records, drop thinking, drop deltas) and
//! the forced dialect; the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjlint::unstable::check::{self, CheckOptions};
use sjlint::unstable::agents::cursor::view::{Dialect, Parsed, parse};
use sjlint::unstable::fmt::{self, FmtOptions, Target};
use sjlint::unstable::rules::{Group, Rule};
use std::collections::BTreeMap;

fn format(data: &[u8], check: &CheckOptions, opts: &FmtOptions) -> Vec<u8> {
    let mut out = Vec::new();
    fmt::format(data, check, opts, &mut out, &mut |_| Ok(())).expect("memory cannot fail");
    out
}

fn findings(data: &[u8], dialect: Option<Dialect>) -> BTreeMap<Rule, usize> {
    let opts = CheckOptions {
        dialect,
        ..CheckOptions::default()
    };
    let mut per_rule = BTreeMap::new();
    check::check(data, &opts, &mut |d| {
        *per_rule.entry(d.rule).or_insert(0) += 1;
        Ok(())
    })
    .expect("memory cannot fail");
    per_rule
}

fuzz_target!(|input: &[u8]| {
    let Some((&knobs, data)) = input.split_first() else {
        return;
    };
    let dialect = match knobs >> 4 & 3 {
        0 => None,
        1 => Some(Dialect::Cursor),
        2 => Some(Dialect::Payload),
        _ => Some(Dialect::Sdk),
    };
    let check = CheckOptions {
        enabled: fmt::reported_rules(),
        dialect,
        ..CheckOptions::default()
    };
    let opts = FmtOptions {
        keep_invalid: knobs & 1 != 0,
        drop_thinking: knobs & 2 != 0,
        drop_deltas: knobs & 4 != 0,
        to: Target::Ndjson,
        lossless: false,
        otlp_content: false,
    };
    let once = format(data, &check, &opts);

    // Strict NDJSON: every line one JSON object, valid UTF-8, LF endings, a final LF.
    let text = std::str::from_utf8(&once).expect("fmt writes UTF-8");
    assert!(once.is_empty() || once.ends_with(b"\n"), "no final LF");
    // JSON as sjlint accepts it (RFC 8259, so numbers past f64 and unpaired surrogate escapes
    // too, which serde_json alone refuses).
    let mut scratch = Vec::new();
    for line in text.split_terminator('\n') {
        assert!(!line.contains('\r'), "CR in fmt output: {line:?}");
        match parse(line, None, Some(&mut scratch)) {
            Ok(Parsed::Event(_)) => {}
            Ok(Parsed::NotAnObject(t)) => panic!("not an object ({t:?}): {line}"),
            Err(e) => panic!("not JSON ({e}): {line}"),
        }
    }

    // Idempotent: the canonical form is its own canonical form.
    let canonical = FmtOptions {
        keep_invalid: false,
        drop_thinking: false,
        drop_deltas: false,
        to: Target::Ndjson,
        lossless: false,
        otlp_content: false,
    };
    let again = format(&once, &check, &canonical);
    if opts.keep_invalid == canonical.keep_invalid && !opts.drop_thinking && !opts.drop_deltas {
        assert_eq!(again, once, "fmt of fmt output differs");
    } else {
        // Filters and kept invalid records aside, the second pass changes nothing further.
        let third = format(&again, &check, &canonical);
        assert_eq!(third, again, "fmt is not idempotent on its own output");
    }

    // No new findings: nothing of the framing group, no rule more often than in the input.
    let before = findings(data, dialect);
    // Read as the same `--dialect` the input was.
    let mut after = findings(&once, dialect);
    if once.is_empty() {
        after.remove(&Rule::EmptyStream);
    }
    for (rule, n) in after {
        assert!(rule.group() != Group::Framing, "framing finding {rule} in fmt output");
        if opts.keep_invalid || opts.drop_thinking || opts.drop_deltas {
            continue;
        }
        let had = before.get(&rule).copied().unwrap_or(0);
        assert!(n <= had, "{rule}: {n} in the output, {had} in the input");
    }
});
