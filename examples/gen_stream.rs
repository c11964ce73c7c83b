//! Writes a generated stream that looks like real cursor-agent runs, for whole-binary timings:
//! `cargo run --release --example gen_stream -- 1G > big.ndjson` (sizes take K, M, G suffixes;
//! `--raw-newlines` puts a raw newline inside about 1.5 % of call ids; `--adversarial` writes
//! the hostile variant: unterminated strings, runs of thousands of backslashes and one record
//! of a quarter of the size, at most just under 64 MiB; `--seed N`; `--agent NAME`
//! writes that agent's stream instead of cursor-agent's: claude, codex, gemini, grok, copilot,
//! opencode, pi, droid, kimi, qwen or amp).

#[path = "../benches/common/mod.rs"]
mod common;

use common::Variant;
use std::io::Write;

fn main() {
    let mut size = 64usize << 20;
    let mut variant = Variant::Clean;
    let mut seed = 42;
    let mut agent = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--raw-newlines" => variant = Variant::RawNewlines,
            "--adversarial" => variant = Variant::Adversarial,
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).expect("--seed N"),
            "--agent" => {
                let name = args
                    .next()
                    .expect("--agent NAME (an agent of the registry but cursor)");
                agent = common::agents::generated()
                    .into_iter()
                    .find(|a| a.as_str() == name);
                assert!(
                    agent.is_some(),
                    "--agent NAME (an agent of the registry but cursor)"
                );
            }
            s => size = sjlint::unstable::units::parse_size(s).expect("a size such as 64M or 1G"),
        }
    }
    let mut out = std::io::stdout().lock();
    // Written in pieces of about 64 MiB so a large file needs little memory; the adversarial
    // stream's one big record, sized for the whole output, is in the first piece.
    let mut written = 0;
    let mut part = 0;
    while written < size {
        let want = (size - written).min(64 << 20);
        let piece = match variant {
            _ if agent.is_some() => {
                // A piece's runs are numbered after the ones before (a piece holds far fewer
                // than a million), so that their times go on.
                common::agents::stream_from(agent.expect("checked"), seed + part, want, part << 20)
            }
            Variant::Adversarial => {
                let big = if part == 0 {
                    common::big_record_len(size)
                } else {
                    0
                };
                common::adversarial(seed + part, want, big)
            }
            _ => common::generate(variant, seed + part, want),
        };
        out.write_all(&piece).expect("write");
        written += piece.len();
        part += 1;
    }
}
