//! Measures the latency `sjlint run` adds to the agent's stream: the time from a record written
//! by an agent to the same record read from sjlint's stdout.
//!
//! `cargo run --release --example forward_latency -- [RECORDS] [SJLINT]` runs this program
//! itself as the agent (`forward_latency agent RECORDS`): it writes RECORDS records (default
//! 1000) 2 ms apart,
//! each carrying the `CLOCK_MONOTONIC` time it was written, then a `result`. The reader takes the
//! clock again as each record arrives. Three paths are measured: the agent's pipe read directly
//! (the floor), `agent | sjlint check --tee`, and `sjlint run -- agent`. SJLINT defaults to the
//! `sjlint` built beside this example.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is valid for writes during the call.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn agent(records: usize) {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        r#"{{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"m","permissionMode":"default"}}"#
    )
    .unwrap();
    for _ in 0..records {
        std::thread::sleep(Duration::from_millis(2));
        writeln!(
            out,
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"t{}"}}]}},"session_id":"s"}}"#,
            now_ns()
        )
        .unwrap();
        out.flush().unwrap();
    }
    writeln!(
        out,
        r#"{{"type":"result","subtype":"success","duration_ms":1,"duration_api_ms":1,"is_error":false,"result":"","session_id":"s","request_id":"r"}}"#
    )
    .unwrap();
}

/// Reads `child`'s stdout to its end and returns each record's latency in microseconds.
fn latencies(mut child: Child) -> Vec<u64> {
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut found = Vec::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let arrived = now_ns();
        if let Some(rest) = line.split(r#""text":"t"#).nth(1) {
            let sent: u64 = rest.split('"').next().unwrap().parse().unwrap();
            found.push((arrived - sent) / 1000);
        }
    }
    child.wait().unwrap();
    found.sort_unstable();
    found
}

fn report(what: &str, sorted: &[u64]) {
    let at = |p: usize| sorted[(sorted.len() * p / 100).min(sorted.len() - 1)];
    println!(
        "{what:<28} records {:>4}  median {:>4} µs  p99 {:>5} µs  max {:>5} µs",
        sorted.len(),
        at(50),
        at(99),
        sorted[sorted.len() - 1]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("agent") {
        agent(args[2].parse().unwrap());
        return;
    }
    let records = args.get(1).map_or(1000, |n| n.parse().unwrap());
    let me = std::env::current_exe().unwrap();
    let sjlint = args.get(2).map_or_else(
        || me.parent().unwrap().parent().unwrap().join("sjlint"),
        std::path::PathBuf::from,
    );
    let n = records.to_string();
    let agent_cmd = || {
        let mut c = Command::new(&me);
        c.args(["agent", &n]);
        c
    };

    let direct = agent_cmd().stdout(Stdio::piped()).spawn().unwrap();
    report("agent's pipe, read directly", &latencies(direct));

    let mut feeder = agent_cmd().stdout(Stdio::piped()).spawn().unwrap();
    let tee = Command::new(&sjlint)
        .args(["check", "--tee", "--progress", "never", "-q"])
        .stdin(Stdio::from(feeder.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    report("agent | sjlint check --tee", &latencies(tee));
    feeder.wait().unwrap();

    let run = Command::new(&sjlint)
        .args(["run", "--progress", "never", "-q", "--"])
        .arg(&me)
        .args(["agent", &n])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    report("sjlint run -- agent", &latencies(run));
}
