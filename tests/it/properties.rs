//! The fuzz targets' properties as fast property tests, and the fuzzers' finds as fixtures.
//!
//! - Splitting: feeding the splitter in chunks of any size gives the frames of feeding it whole,
//!   and the block string tracker agrees with the portable one (the `split_chunks` target;
//!   `crates/sjlint-core/src/input/split.rs` also tests the splitter against a reference splitter).
//! - The pipeline on any bytes: `check` never panics, every json finding parses and points inside
//!   the input, the human output holds no raw control character, and `stats` and `render` never
//!   panic (the `check_pipeline` target).
//!
//! Every file under `testdata/regressions/` is run through the same checks.

use proptest::prelude::*;
use serde_json::Value;
use sjlint::unstable::check::{self, CheckOptions};
use sjlint::unstable::input::record::{Frame, Position, UTF8};
use sjlint::unstable::input::simd::Kernel;
use sjlint::unstable::input::split::{InPlace, Source, Splitter};
use sjlint::unstable::report::{Format, Printer};
use sjlint::unstable::rules::Rule;
use sjlint::unstable::{render, stats};
use std::io::{self, Read};
use std::path::Path;

const LIMITS: [usize; 5] = [8, 64, 300, 4096, check::DEFAULT_MAX_RECORD_BYTES];

fn printed(format: Format, data: &[u8], opts: &CheckOptions, color: bool) -> Vec<u8> {
    let mut printer = Printer::new(format, Vec::new(), color);
    printer.begin_file("in.ndjson").unwrap();
    let totals = check::check(data, opts, &mut |d| printer.diagnostic("in.ndjson", &d))
        .expect("reading from memory cannot fail");
    assert_eq!(totals.bytes, data.len() as u64);
    printer
        .end_file("in.ndjson", totals.records, totals.bytes)
        .unwrap();
    printer.finish().unwrap();
    printer.into_inner()
}

/// What the `check_pipeline` fuzz target asserts, for one record size limit.
fn pipeline_holds(data: &[u8], max_record_bytes: usize, color: bool) -> Result<(), String> {
    let opts = CheckOptions {
        max_record_bytes,
        ..CheckOptions::default()
    };
    let out = printed(Format::JsonLines, data, &opts, false);
    let text = String::from_utf8(out).map_err(|e| format!("json output not UTF-8: {e}"))?;
    let lines = 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
    for line in text.lines() {
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("json finding ({e}): {line}"))?;
        let rule = v["rule"].as_str().unwrap_or_default();
        let at = v["line"].as_u64().unwrap_or(u64::MAX);
        // null: a finding about no place in particular (a session's end).
        let byte = if v["byte"].is_null() {
            0
        } else {
            v["byte"].as_u64().unwrap_or(u64::MAX)
        };
        let col = v["column"].as_u64();
        if Rule::from_name(rule).is_none()
            || v["message"].as_str().is_none_or(str::is_empty)
            || at > lines
            || byte > data.len() as u64
            || col == Some(0)
        {
            return Err(format!("bad finding for {} bytes: {line}", data.len()));
        }
    }
    let human = printed(Format::Human, data, &opts, color);
    let human = String::from_utf8(human).map_err(|e| format!("human output not UTF-8: {e}"))?;
    let shown = if color {
        human.replace('\x1b', "")
    } else {
        human
    };
    if let Some(c) = shown.chars().find(|c| c.is_control() && *c != '\n') {
        return Err(format!("raw {c:?} in the human output:\n{shown}"));
    }
    let s = stats::collect(data, &opts).expect("reading from memory cannot fail");
    let mut out = Vec::new();
    stats::write_json(&mut out, &[("in.ndjson".to_owned(), s)]).unwrap();
    serde_json::from_slice::<Value>(&out).map_err(|e| format!("stats json: {e}"))?;
    for plain in [false, true] {
        let render_opts = render::RenderOptions {
            thinking: !plain,
            plain,
            color,
        };
        render::render(data, io::sink(), None, &render_opts, &opts, false)
            .expect("writing to a sink cannot fail");
    }
    Ok(())
}

#[test]
fn regression_fixtures_hold_the_pipeline_properties() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/regressions");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("testdata/regressions") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        for max in LIMITS {
            for color in [false, true] {
                if let Err(e) = pipeline_holds(&data, max, color) {
                    panic!("{} (limit {max}): {e}", path.display());
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 0, "no fixture in {}", dir.display());
}

#[derive(Debug, PartialEq, Eq)]
enum Owned {
    Record(Vec<u8>, Position, u32, u8),
    Blank(Position, bool),
    TooLarge(Position, u64, bool),
}

/// Reads in the given sizes, cycling; a size of 0 is an `Interrupted` error.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        if size == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = size.min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn frames(reader: impl Read, max: usize) -> Vec<Owned> {
    frames_of(Splitter::new(reader, max).checking_utf8())
}

fn frames_of<S: Source>(mut splitter: Splitter<S>) -> Vec<Owned> {
    let mut out = Vec::new();
    while let Some(frame) = splitter.next_frame().unwrap() {
        out.push(match frame {
            Frame::Record(r) => {
                // Whether a record's bytes are known to be UTF-8 depends on the reads; when
                // they are said to be, they must be.
                if r.has(UTF8) {
                    assert!(std::str::from_utf8(r.bytes).is_ok(), "{r:?}");
                }
                Owned::Record(r.bytes.to_vec(), r.pos, r.lines, r.flags & !UTF8)
            }
            Frame::Blank { pos, bom } => Owned::Blank(pos, bom),
            Frame::TooLarge { pos, len, bom } => Owned::TooLarge(pos, len, bom),
        });
    }
    out
}

/// Lines that look like a stream and like the ways streams break.
fn streamish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(br#"{"type":"system","subtype":"init","session_id":"s"}"#.to_vec()),
        Just(br#"{"type":"tool_call","subtype":"started","call_id":"c"#.to_vec()),
        Just(br#"","tool_call":{"shellToolCall":{"args":{"command":"ls"}}}}"#.to_vec()),
        Just(br#"{"type":"result","subtype":"success","is_error":false,"result":"","duration_ms":1e400}"#.to_vec()),
        Just(br#"["\ud800",-0,1E400]"#.to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just("\u{feff}".as_bytes().to_vec()),
        Just(b"\x1b[31merror\x1b[0m".to_vec()),
        Just(b"\x1e".to_vec()),
        Just(b"\x00\x00".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\\u".to_vec()),
        Just(b"\xc3".to_vec()),
        Just(b"\xff".to_vec()),
        Just(b"\t".to_vec()),
        Just("\u{2028}".as_bytes().to_vec()),
        Just(b"[[[[".to_vec()),
        Just(b"}}}".to_vec()),
        Just(b"NaN".to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        // Every seed file of the crate is in proptest-regressions/ at its root.
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct("proptest-regressions/properties.txt"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_bytes_hold_the_pipeline_properties(
        data in prop_oneof![prop::collection::vec(any::<u8>(), 0..600), streamish()],
        limit in 0..LIMITS.len(),
        color in any::<bool>(),
    ) {
        let held = pipeline_holds(&data, LIMITS[limit], color);
        prop_assert!(held.is_ok(), "{}", held.unwrap_err());
    }

    #[test]
    fn chunking_never_changes_the_frames(
        data in prop_oneof![prop::collection::vec(any::<u8>(), 0..600), streamish()],
        sizes in prop::collection::vec(0usize..40, 1..5),
        limit in 0..LIMITS.len(),
    ) {
        let mut sizes = sizes;
        if sizes.iter().all(|&s| s == 0) {
            sizes[0] = 1;
        }
        let max = LIMITS[limit];
        let whole = frames(&data[..], max);
        let step = sizes.iter().copied().max().unwrap_or(1);
        let chunked = frames(Chunked { data: &data, sizes, turn: 0 }, max);
        prop_assert_eq!(&whole, &chunked);
        let in_place = InPlace::with_step(&data, step, |_, _| Ok(()));
        let in_place = frames_of(Splitter::over(in_place, max, Kernel::best()).checking_utf8());
        prop_assert_eq!(whole, in_place);
    }

    /// The block string tracker (AVX2 and carry-less multiplication where the CPU has them)
    /// agrees with the portable one.
    #[test]
    fn block_string_tracking_agrees_with_the_portable_one(
        data in prop_oneof![prop::collection::vec(any::<u8>(), 0..600), streamish()],
        start in 0usize..3,
    ) {
        let (in_str, esc) = [(false, false), (true, false), (true, true)][start];
        prop_assert_eq!(
            sjlint::unstable::input::simd::string_state(in_str, esc, &data),
            sjlint::unstable::input::simd::string_state_portable(in_str, esc, &data)
        );
    }
}
