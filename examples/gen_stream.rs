//! Writes a generated stream that looks like real cursor-agent runs, for whole-binary timings:
//! `cargo run --release --example gen_stream -- 1G > big.ndjson` (sizes take K, M, G suffixes;
//! `--raw-newlines` puts a raw newline inside about 1.5 % of call ids; `--seed N`).

#[path = "../benches/common/mod.rs"]
mod common;

use std::io::Write;

fn main() {
    let mut size = 64usize << 20;
    let mut raw = false;
    let mut seed = 42;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--raw-newlines" => raw = true,
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).expect("--seed N"),
            s => size = sjlint::cli::parse_size(s).expect("a size such as 64M or 1G"),
        }
    }
    let mut out = std::io::stdout().lock();
    // Written in pieces of about 64 MiB so a large file needs little memory.
    let mut written = 0;
    let mut part = 0;
    while written < size {
        let piece = common::stream(seed + part, (size - written).min(64 << 20), raw);
        out.write_all(&piece).expect("write");
        written += piece.len();
        part += 1;
    }
}
