//! Properties of the Claude Code, Codex, Gemini CLI and Copilot CLI checkers over generated runs (the
//! generator of the benches, `benches/common/agents.rs`):
//!
//! - any number of parallel tool calls, completing in any order, is a clean run;
//! - leaving out the result of any one call (Claude Code's `tool_result`, Codex's
//!   `item.completed`, Gemini CLI's `tool_result`, Copilot CLI's `tool.execution_complete`) gives exactly one finding,
//!   `unfinished-tool-call`, on the line that opened the call;
//! - a generated stream of many runs is clean, on one thread and on several;
//! - every generator (OpenCode, Pi, droid, Kimi CLI, Qwen Code and Amp too) writes a stream the
//!   binary finds clean and recognises as its agent.

use crate::generator as generate;

use generate::agents::{Agent, generated, one_run, stream};
use proptest::prelude::*;
use sjlint::unstable::check::{self, CheckOptions};
use sjlint::unstable::diagnostic::Diagnostic;

fn findings(input: &[u8]) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    check::check_bytes(input, &CheckOptions::default(), &mut |d| {
        found.push(d);
        Ok(())
    })
    .expect("reading from memory cannot fail");
    found
}

fn show(found: &[Diagnostic]) -> String {
    found
        .iter()
        .map(|d| format!("{}:{} {}\n", d.line, d.rule.name(), d.message))
        .collect()
}

/// A permutation of `0..n`, from proptest's shuffle.
fn order() -> impl Strategy<Value = Vec<usize>> {
    (1usize..=6).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
}

fn agent() -> impl Strategy<Value = Agent> {
    prop_oneof![
        Just(Agent::Claude),
        Just(Agent::Codex),
        Just(Agent::Gemini),
        Just(Agent::Copilot)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn parallel_completions_in_any_order_are_clean(agent in agent(), order in order(), seed in 1u64..1000) {
        let (run, _) = one_run(agent, seed, &order, None);
        let found = findings(run.as_bytes());
        prop_assert!(found.is_empty(), "{agent:?} {order:?}\n{}\n{run}", show(&found));
    }

    #[test]
    fn a_missing_result_is_one_finding_at_its_call(
        agent in agent(),
        order in order(),
        pick in any::<prop::sample::Index>(),
        seed in 1u64..1000,
    ) {
        let skip = pick.index(order.len());
        let (run, opened) = one_run(agent, seed, &order, Some(skip));
        let found = findings(run.as_bytes());
        let got: Vec<(&str, u64)> = found.iter().map(|d| (d.rule.name(), d.line)).collect();
        prop_assert_eq!(
            got,
            vec![("unfinished-tool-call", opened[skip])],
            "{:?} {:?} without the result of call {}\n{}",
            agent,
            order,
            skip,
            run
        );
    }
}

#[test]
fn generated_streams_are_clean() {
    for agent in generated() {
        let input = stream(agent, 7, 1 << 20);
        let found = findings(&input);
        assert!(found.is_empty(), "{agent:?}\n{}", show(&found));
        // On several threads, in small batches: the held first records and the lanes' cursor
        // reading do not change the verdict.
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sjlint"))
            .args(["check", "--strict", "--jobs", "3", "--batch-size", "4096"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            use std::io::Write as _;
            stdin.write_all(&input).unwrap();
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(
            out.status.success(),
            "{agent:?} on three threads: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// Every generator of `benches/common/agents.rs` (which `examples/gen_stream.rs --agent` and the
/// benches use) writes a stream its agent's checker finds clean, recognised as that agent
/// without `--agent`: read from a file on one thread and on every core, the verdict is the
/// same and strict, and `stats` names the agent.
#[test]
fn every_generator_writes_a_clean_stream_of_its_own_agent() {
    use crate::common::exec;
    let dir =
        Removed(std::env::temp_dir().join(format!("sjlint-generators-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    for agent in generated() {
        let file = dir.0.join(format!("{}.ndjson", agent.as_str()));
        std::fs::write(&file, stream(agent, 3, 1 << 20)).unwrap();
        let path = file.to_str().unwrap();
        for jobs in ["1", "2"] {
            let run = exec(&["check", "--strict", "--jobs", jobs, path], None);
            assert_eq!(run.code, 0, "{agent:?} --jobs {jobs}: {}", run.describe());
        }
        let run = exec(&["stats", "--format", "json", path], None);
        assert_eq!(run.code, 0, "{agent:?}: {}", run.describe());
        let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(doc["files"][0]["agent"], agent.as_str(), "{agent:?}");
    }
}

/// A directory removed when dropped.
struct Removed(std::path::PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
