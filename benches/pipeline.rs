//! Throughput of each stage beside its floor, on a generated stream that looks like real runs:
//! the splitter beside a plain newline count, classification beside bare parse-only loops
//! (`serde_json` into `IgnoredAny`, simd-json's tape), and `check` end to end. Then the splitter
//! and `check` again on the stream with raw newlines in call ids and on the adversarial one
//! (see `common::adversarial`), in bytes per second like the clean stream, so their time per
//! byte compares with the clean stream's in one run.

mod common;

use bumpalo::Bump;
use common::Variant;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sjlint::unstable::agents::cursor::view::{self, Event};
use sjlint::unstable::check::pipeline::{self, Settings, SharedInput};
use sjlint::unstable::check::{self, CheckOptions};
use sjlint::unstable::input::record::Frame;
use sjlint::unstable::input::split::{Source, Splitter};
use std::hint::black_box;
use std::sync::Arc;

// The allocator the binary ships with, so that `check end to end` measures what users run.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SIZE: usize = 16 << 20;

fn records(input: &[u8]) -> Vec<&[u8]> {
    input
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect()
}

/// Every record's bytes through the splitter, split where they lie (as a file is).
fn split_all(input: &[u8]) -> usize {
    count_records(Splitter::in_place(input, 64 << 20))
}

/// The same through a reader, which copies the bytes into the splitter's buffer (as standard
/// input is).
fn split_all_read(input: &[u8]) -> usize {
    count_records(Splitter::new(input, 64 << 20))
}

fn count_records<S: Source>(mut s: Splitter<S>) -> usize {
    let mut n = 0usize;
    while let Some(f) = s.next_frame().unwrap() {
        if let Frame::Record(r) = f {
            n += r.bytes.len();
        }
    }
    n
}

/// `check` with default options on the input where it lies (as a file is), counting
/// diagnostics.
fn check_all(input: &[u8]) -> u64 {
    let mut n = 0u64;
    check::check_bytes(input, &CheckOptions::default(), &mut |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    n
}

/// `check` with default options on every core (`--jobs` left to its default), on the input in
/// memory as a mapped file is: the segments of the pipeline split and examined side by side.
fn check_all_threads(input: &Arc<dyn SharedInput>) -> u64 {
    let mut n = 0u64;
    let workers = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    pipeline::check_in_place(
        Arc::clone(input),
        |_, _| Ok(()),
        &CheckOptions::default(),
        &Settings::new(workers),
        &mut |_| {
            n += 1;
            Ok(())
        },
        &mut (),
        &mut check::Totals::default(),
    )
    .unwrap();
    n
}

/// The same through a reader (as standard input is).
fn check_all_read(input: &[u8]) -> u64 {
    let mut n = 0u64;
    check::check(input, &CheckOptions::default(), &mut |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    n
}

fn bench(c: &mut Criterion) {
    let input = common::generate(Variant::Clean, 42, SIZE);
    let mut g = c.benchmark_group("split");
    g.throughput(Throughput::Bytes(input.len() as u64));
    g.bench_function("memchr newline count (floor)", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(&input)).count());
    });
    g.bench_function("string tracking alone (one call)", |b| {
        b.iter(|| sjlint::unstable::input::simd::string_state(false, false, black_box(&input)));
    });
    g.bench_function("splitter", |b| b.iter(|| split_all(black_box(&input))));
    g.bench_function("splitter through a reader", |b| {
        b.iter(|| split_all_read(black_box(&input)));
    });
    g.finish();

    let recs = records(&input);
    let mut g = c.benchmark_group("classify");
    g.throughput(Throughput::Bytes(input.len() as u64));
    g.bench_function("serde_json IgnoredAny (floor)", |b| {
        b.iter(|| {
            for r in &recs {
                let _: serde::de::IgnoredAny = serde_json::from_slice(black_box(r)).unwrap();
            }
        });
    });
    g.bench_function("simd-json tape (floor)", |b| {
        let mut buf = Vec::new();
        let mut buffers = simd_json::Buffers::default();
        b.iter(|| {
            for r in &recs {
                // simd-json parses in place: the record is copied into a reused scratch buffer.
                buf.clear();
                buf.extend_from_slice(r);
                let tape = simd_json::to_tape_with_buffers(&mut buf, &mut buffers).unwrap();
                black_box(tape);
            }
        });
    });
    g.bench_function("utf8 + classifier", |b| {
        let mut arena = Bump::new();
        b.iter(|| {
            for r in &recs {
                // As `check` does it: the event view goes to a slot on the stack, unescaped
                // strings to an arena emptied for each record.
                arena.reset();
                let text = simdutf8::basic::from_utf8(black_box(r)).unwrap();
                let mut ev = Event::default();
                black_box(view::parse_into(text, None, &mut ev, &arena).unwrap());
                black_box(&ev);
            }
        });
    });
    g.finish();

    let mut g = c.benchmark_group("check");
    g.throughput(Throughput::Bytes(input.len() as u64));
    g.bench_function("end to end", |b| b.iter(|| check_all(black_box(&input))));
    g.bench_function("end to end through a reader", |b| {
        b.iter(|| check_all_read(black_box(&input)));
    });
    g.finish();

    for variant in [Variant::RawNewlines, Variant::Adversarial] {
        let input = common::generate(variant, 42, SIZE);
        let mut g = c.benchmark_group(variant.name());
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_function("splitter", |b| b.iter(|| split_all(black_box(&input))));
        g.bench_function("check end to end", |b| {
            b.iter(|| check_all(black_box(&input)));
        });
        g.finish();
    }
}

/// `check` of each agent's generated stream on one thread and on every core, beside cursor's:
/// the agents' checkers are to stay within 15 % of cursor's speed on one thread, and every agent
/// is to gain from threads as cursor does.
fn agents(c: &mut Criterion) {
    let cursor = common::generate(Variant::Clean, 42, SIZE);
    let mut inputs = vec![("cursor", cursor)];
    for agent in common::agents::generated() {
        inputs.push((agent.as_str(), common::agents::stream(agent, 42, SIZE)));
    }
    for (name, input) in inputs {
        let mut g = c.benchmark_group("agents");
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_function(format!("{name} end to end"), |b| {
            b.iter(|| check_all(black_box(&input)));
        });
        let shared: Arc<dyn SharedInput> = Arc::new(input);
        g.bench_function(format!("{name} all threads"), |b| {
            b.iter(|| check_all_threads(black_box(&shared)));
        });
        g.finish();
    }
}

/// `check` of every agent of the registry on its own clean run (`tool-run.ndjson` of its fixture
/// folder, `tool-run.jsonl` for the session logs agents keep on disk; cursor-agent's the fake
/// agents' session), repeated to the same size, on one thread and
/// on every core: the throughput of each agent's checker on a stream written as the agent writes
/// it, beside the generated streams above, which are larger runs of the same shapes.
fn fixtures(c: &mut Criterion) {
    // The benches' package is `benches/`, in the project's root.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    for entry in sjlint::unstable::agents::REGISTRY {
        let run = if entry.name == "cursor" {
            let mut run = std::fs::read(root.join("agents/session.ndjson")).unwrap();
            run.extend(std::fs::read(root.join("agents/result.ndjson")).unwrap());
            run
        } else {
            // A stream's run is `.ndjson`, a session log's `.jsonl`, as the agents name them.
            let folder = root.join(entry.fixtures);
            let read = |name: &str| std::fs::read(folder.join(name));
            let Ok(run) = read("tool-run.ndjson").or_else(|_| read("tool-run.jsonl")) else {
                // The common form is no agent one runs.
                continue;
            };
            run
        };
        let mut input = Vec::with_capacity(SIZE + run.len());
        while input.len() < SIZE {
            input.extend_from_slice(&run);
        }
        let mut g = c.benchmark_group("fixtures");
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_function(format!("{} end to end", entry.name), |b| {
            b.iter(|| check_all(black_box(&input)));
        });
        let shared: Arc<dyn SharedInput> = Arc::new(input);
        g.bench_function(format!("{} all threads", entry.name), |b| {
            b.iter(|| check_all_threads(black_box(&shared)));
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench, agents, fixtures
}
criterion_main!(benches);
