//! Runs an agent and follows its output through the library's push API: every common event and
//! every finding is printed as a JSON line the moment the agent's bytes make it known.
//!
//! ```text
//! cargo run --example follow_child -- claude -p "fix the tests" --output-format stream-json --verbose
//! cargo run --example follow_child -- sh -c 'cat testdata/agents/codex/tool-run.ndjson'
//! ```
//!
//! It reads the child's stdout as it comes (no line buffering of its own: a `Stream` takes any
//! piece) and ends with the child's exit status, or 1 when a finding was an error.

use sjlint::{Event, Finding, Options, Severity, Sink, Stream};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::process::{Command, ExitCode, Stdio};

/// Prints what the stream hands out, one JSON line each.
struct Print<W: Write> {
    out: W,
    errors: u64,
}

impl<W: Write> Print<W> {
    fn line(&mut self, kind: &str, json: &str) -> ControlFlow<()> {
        // A closed stdout (`| head`) stops the stream: nothing more would be read.
        match writeln!(self.out, "{{\"{kind}\":{json}}}").and_then(|()| self.out.flush()) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    }
}

impl<W: Write> Sink for Print<W> {
    fn finding(&mut self, f: Finding) -> ControlFlow<()> {
        if f.severity == Severity::Error {
            self.errors += 1;
        }
        self.line("finding", &f.to_json())
    }

    fn event(&mut self, e: Event) -> ControlFlow<()> {
        self.line("event", &e.to_json())
    }

    fn wants_events(&self) -> bool {
        true
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: follow_child PROGRAM [ARGS...]");
        return ExitCode::from(2);
    };
    let mut child = match Command::new(&program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!(
                "follow_child: cannot run {}: {e}",
                program.to_string_lossy()
            );
            return ExitCode::from(2);
        }
    };
    let mut stdout = child.stdout.take().expect("piped");
    let mut sink = Print {
        out: io::stdout().lock(),
        errors: 0,
    };
    let mut stream = Stream::new(&Options::new());
    let mut buf = vec![0; 64 * 1024];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if stream.feed(&buf[..n], &mut sink).is_break() {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                eprintln!("follow_child: reading the child's output: {e}");
                break;
            }
        }
    }
    drop(stdout);
    let totals = stream.finish(&mut sink);
    let status = child.wait();
    eprintln!(
        "follow_child: {} records, {} bytes, agent {}, {} error findings, child {}",
        totals.records,
        totals.bytes,
        totals.agent.unwrap_or("unknown"),
        sink.errors,
        match &status {
            Ok(s) => s.to_string(),
            Err(e) => e.to_string(),
        }
    );
    match status {
        Ok(s) if s.success() && sink.errors == 0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}
