//! A file checked in segments side by side gives exactly the findings, consumer calls and
//! totals of one thread, wherever the segments start: inside strings over several lines,
//! inside records over the limit, on BOMs and CRLFs.
//!
//! Input layout: byte 0 picks the segment size, byte 1 the record size limit (low bits) and
//! the number of threads (high bits), byte 2 the batch size; the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjlint::unstable::check::{self, Checked, Consumer, CheckOptions, Totals};
use sjlint::unstable::check::pipeline::{self, Settings, SharedInput};
use sjlint::unstable::input::record::{Position, Record};
use std::sync::Arc;

const LIMITS: [usize; 4] = [8, 64, 4096, check::DEFAULT_MAX_RECORD_BYTES];
const BATCHES: [usize; 4] = [1, 100, 4096, pipeline::DEFAULT_BATCH_BYTES];

/// Everything a run shows, in order.
#[derive(Default)]
struct Seen(String);

impl Consumer for Seen {
    fn agent_record(&mut self, rec: &Record<'_>, json: &str, read: &Checked<'_, '_>) {
        self.0 += &format!(
            "record {:?} {} {} {json} {:?}\n",
            rec.pos,
            rec.lines,
            rec.flags & !sjlint::unstable::input::record::UTF8,
            read.ty()
        );
    }
    fn invalid(&mut self, pos: Position, bytes: &[u8]) {
        self.0 += &format!("invalid {pos:?} {bytes:?}\n");
    }
}

fn run(data: &[u8], opts: &CheckOptions, settings: Option<&Settings>) -> String {
    let mut seen = Seen::default();
    let mut totals = Totals::default();
    let mut found = String::new();
    let mut emit = |d: sjlint::unstable::diagnostic::Diagnostic| {
        found += &format!("{d:?}\n");
        Ok(())
    };
    match settings {
        None => check::check_into(data, opts, &mut emit, &mut seen, &mut totals),
        Some(settings) => {
            let whole: Arc<dyn SharedInput> = Arc::new(data.to_vec());
            let pace = |_: usize, _: usize| Ok(());
            pipeline::check_in_place(
                whole,
                pace,
                opts,
                settings,
                &mut emit,
                &mut seen,
                &mut totals,
            )
        }
    }
    .expect("checking bytes in memory cannot fail");
    format!("{found}{}{totals:?}", seen.0)
}

fuzz_target!(|input: &[u8]| {
    let [segment, knob, batch, data @ ..] = input else {
        return;
    };
    let opts = CheckOptions {
        max_record_bytes: LIMITS[usize::from(knob & 3)],
        ..CheckOptions::default()
    };
    let settings = Settings {
        workers: 2 + usize::from(knob >> 6),
        batch_bytes: BATCHES[usize::from(batch & 3)],
        ready: None,
        segment_bytes: 1 + usize::from(*segment),
    };
    let one = run(data, &opts, None);
    let parts = run(data, &opts, Some(&settings));
    assert_eq!(one, parts, "{settings:?}");
});
