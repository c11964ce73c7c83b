//! The redactor alone, record by record, in bytes per second: the generated stream as it is
//! (records with no credential: the prefilter's one pass, nothing copied), and the same stream
//! with a credential in one record of fifty (those records searched by their kinds' patterns and
//! copied with the replacement).

mod common;

use common::Variant;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sjlint::unstable::redact::Redactor;
use std::hint::black_box;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SIZE: usize = 16 << 20;

fn redact_all(redactor: &Redactor, records: &[Vec<u8>]) -> usize {
    records
        .iter()
        .map(|r| redactor.redact_record(r).len())
        .sum()
}

fn bench(c: &mut Criterion) {
    let input = common::generate(Variant::Clean, 42, SIZE);
    let clean: Vec<Vec<u8>> = input
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let seeded: Vec<Vec<u8>> = clean
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if i % 50 != 0 || r.len() < 2 {
                return r.clone();
            }
            let mut r = r[..r.len() - 1].to_vec();
            r.extend_from_slice(
                br#","note":"export DB_PASSWORD=hunter22x AWS_ACCESS_KEY_ID=AKIAQWERTYUIOPASDFGH postgres://app:pw123456@db/app"}"#,
            );
            r
        })
        .collect();
    let redactor = Redactor::new();
    let mut group = c.benchmark_group("redact");
    for (name, records) in [("no credential", &clean), ("one record in fifty", &seeded)] {
        let bytes: usize = records.iter().map(Vec::len).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(redact_all(&redactor, records)));
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
