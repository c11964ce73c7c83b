//! SIGTERM and SIGHUP (CI cancellation, `timeout`, a closed terminal) stop `check`, `stats`,
//! `render` and `fmt` as Ctrl-C does: what was read so far is reported, and the exit code is
//! 128 + the signal's number. Linux only (`/proc`, signals).
#![cfg(target_os = "linux")]

use crate::common::sjlint;
use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

const HANG: Duration = Duration::from_secs(30);

const INIT: &str = r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"m","permissionMode":"default"}"#;
const USER: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hello there"}]},"session_id":"s1"}"#;

/// Waits until `pid` blocks reading standard input or polling (a live stream that is silent);
/// where that cannot be seen, waits a second.
fn wait_until_waiting(pid: u32) {
    let start = Instant::now();
    while start.elapsed() < HANG {
        if !cfg!(target_arch = "x86_64") {
            std::thread::sleep(Duration::from_secs(1));
            return;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            std::thread::sleep(Duration::from_secs(1));
            return;
        };
        // x86-64 syscalls: 0 read(2) of descriptor 0, 7 poll(2), 271 ppoll(2).
        let waiting = tasks.flatten().any(|task| {
            std::fs::read_to_string(task.path().join("syscall")).is_ok_and(|s| {
                s.starts_with("0 0x0 ") || s.starts_with("7 ") || s.starts_with("271 ")
            })
        });
        if waiting {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `sjlint ARGS` on a stream that stays open, sends `signal` once it waits for more, and
/// returns its exit code, stdout and stderr.
fn stopped_by(args: &[&str], signal: i32) -> (Option<i32>, String, String) {
    let mut child = sjlint()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).unwrap();
        s
    });
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    writeln!(stdin, "{INIT}\n{USER}").unwrap();
    stdin.flush().unwrap();
    wait_until_waiting(child.id());
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; the pid is our own live child's.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < HANG, "sjlint {args:?} did not stop");
        std::thread::sleep(Duration::from_millis(5));
    };
    drop(stdin);
    (
        status.code(),
        stdout.join().unwrap(),
        stderr.join().unwrap(),
    )
}

#[test]
fn sigterm_and_sighup_report_what_was_read_and_exit_128_plus_n() {
    let commands: [(&[&str], &str); 4] = [
        (&["check", "--color", "never", "--jobs", "1"], "2 records"),
        (&["stats"], "records"),
        (&["render", "--color", "never"], "hello there"),
        (&["fmt"], r#""subtype":"init""#),
    ];
    for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")] {
        for (args, shows) in commands {
            let (code, stdout, stderr) = stopped_by(args, signal);
            assert_eq!(
                code,
                Some(128 + signal),
                "sjlint {args:?} on {name}\n{stdout}\n{stderr}"
            );
            assert!(
                stdout.contains(shows),
                "sjlint {args:?} on {name}: the output so far is shown\n{stdout}\n{stderr}"
            );
            assert!(
                stderr.contains(&format!("stopped by {name}")),
                "sjlint {args:?}: {stderr}"
            );
        }
    }
}
