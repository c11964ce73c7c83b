//! Memory in CI: 1 GiB of generated events streamed through the binary's stdin, with a peak
//! resident set below 32 MiB; a record far over the limit, mapped on every number of lanes or
//! read from stdin, in memory bounded by the limit and not by the record.
//!
//! The peak is what the child itself holds apart from its own code, read from its `smaps` while
//! it runs (`support/peak.rs` says why neither `ru_maxrss` nor `VmHWM` measures that).
//!
//! It runs the binary `cargo test` builds (the dev profile, the crate at `opt-level = 1`): on two
//! cores it streams 1 GiB in under a minute, which is cheaper than building the release profile
//! first, and its allocations are the release build's. The tests over 10 s are `#[ignore]`d for
//! a plain `cargo test`; CI runs them in a step of their own (`-- --ignored`).
#![cfg(target_os = "linux")]

#[path = "support/peak.rs"]
mod peak;

#[path = "../benches/common/mod.rs"]
mod generator;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

const TOTAL: usize = 1 << 30;
/// The bytes of a child's output kept from its start, and from its end.
const HEAD_KEPT: usize = 1 << 20;
const END_KEPT: usize = 4 << 10;
const LIMIT_KIB: i64 = 32 << 10;

/// What one measured run did.
struct Measured {
    code: i32,
    /// The first MiB of stdout (a diff of a long record is not held by the test either: the
    /// memory of the process that starts the child can count in the child's peak), its length
    /// and its last bytes.
    stdout: String,
    stdout_len: usize,
    stdout_end: String,
    stderr: String,
    written: usize,
    seconds: f64,
    peak_kib: i64,
}

/// Runs `sjlint ARGS` with `feed` writing its stdin, watching its peak resident memory (apart
/// from its code), which must stay below 32 MiB.
fn measured(
    args: &[&str],
    feed: impl FnOnce(&mut dyn Write) -> usize + Send + 'static,
) -> Measured {
    measured_within(args, LIMIT_KIB, feed)
}

/// [`measured`], with a peak that must stay below `limit_kib`.
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped with wait4, for its peak memory, not with Child::wait"
)]
fn measured_within(
    args: &[&str],
    limit_kib: i64,
    feed: impl FnOnce(&mut dyn Write) -> usize + Send + 'static,
) -> Measured {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sjlint"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sjlint");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let watch = peak::Watch::start(child.id());
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || feed(&mut stdin));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let (mut head, mut end, mut len) = (Vec::new(), Vec::new(), 0);
            let mut buf = vec![0; 1 << 16];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                len += n;
                let keep = (HEAD_KEPT - head.len().min(HEAD_KEPT)).min(n);
                head.extend_from_slice(&buf[..keep]);
                end.extend_from_slice(&buf[..n]);
                end.drain(..end.len().saturating_sub(END_KEPT));
            }
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (text(&head), len, text(&end))
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let written = writer.join().unwrap();

    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not reaped yet (Child::wait is never called); `status` and
    // `usage` are valid for writes for the duration of the call.
    let reaped = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let peak_kib = watch.stop();
    let seconds = start.elapsed().as_secs_f64();
    let ((stdout, stdout_len, stdout_end), (stderr, ..)) =
        (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(
        libc::WIFEXITED(status),
        "sjlint did not exit normally: {stderr}"
    );
    let m = Measured {
        code: libc::WEXITSTATUS(status),
        stdout,
        stdout_len,
        stdout_end,
        stderr,
        written,
        seconds,
        peak_kib,
    };
    eprintln!(
        "sjlint {args:?}: {} MiB in {:.1} s ({:.0} MiB/s), peak RSS {} KiB",
        m.written >> 20,
        m.seconds,
        (m.written >> 20) as f64 / m.seconds,
        m.peak_kib
    );
    assert!(
        m.peak_kib < limit_kib,
        "peak RSS {} KiB for {} bytes, limit {limit_kib} KiB",
        m.peak_kib,
        m.written
    );
    m
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn one_gibibyte_through_stdin_in_under_32_mib() {
    // Whole sessions, about 1.5 % of them with a raw newline inside a call_id (the slow path),
    // repeated: appended sessions are a healthy stream.
    let block = generator::stream(11, 4 << 20, true);
    let run = measured(
        &[
            "check",
            "--format",
            "json-lines",
            "--max-diagnostics",
            "100",
        ],
        move |stdin| {
            let mut written = 0;
            while written < TOTAL {
                stdin.write_all(&block).expect("sjlint reads all of stdin");
                written += block.len();
            }
            written
        },
    );
    assert!(
        run.code == 0 || run.code == 1,
        "exit code {}: {}",
        run.code,
        run.stderr
    );
    // Only raw-newline warnings: the generated stream is otherwise healthy.
    for line in run.stdout.lines() {
        assert!(line.contains("\"raw-control-character\""), "{line}");
    }
}

#[test]
fn a_record_of_256_mib_is_skipped_in_constant_memory() {
    let run = measured(
        &["check", "--format", "json", "--max-record-bytes", "1M"],
        |stdin| {
            let head: &[u8] = br#"{"type":"assistant","text":""#;
            let tail: &[u8] = b"\"}\n{\"type\":\"user\",\"session_id\":\"s\"}\n";
            let chunk = vec![b'x'; 1 << 20];
            stdin.write_all(head).unwrap();
            for _ in 0..256 {
                stdin.write_all(&chunk).unwrap();
            }
            stdin.write_all(tail).unwrap();
            head.len() + (256 << 20) + tail.len()
        },
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("\"record-too-large\""),
        "{}",
        run.stdout
    );
    // The record after it was checked.
    assert!(run.stdout.contains("\"line\":2"), "{}", run.stdout);
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn a_mapped_file_gives_its_pages_back() {
    // Four times the limit: held whole, the file's pages alone would break it.
    let block = generator::stream(12, 4 << 20, false);
    let path = std::env::temp_dir().join(format!("sjlint-mapped-{}.ndjson", std::process::id()));
    // Removed however the test ends: a failed run must not leave 128 MiB behind.
    struct Removed<'p>(&'p std::path::Path);
    impl Drop for Removed<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _removed = Removed(&path);
    let mut file = std::fs::File::create(&path).unwrap();
    let mut size = 0;
    while size < (4 * LIMIT_KIB as usize) << 10 {
        file.write_all(&block).unwrap();
        size += block.len();
    }
    drop(file);
    for jobs in ["1", "2"] {
        let run = measured(
            &[
                "check",
                "--format",
                "json",
                "--jobs",
                jobs,
                path.to_str().unwrap(),
            ],
            move |_| size,
        );
        assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    }
}

/// A file removed however the test ends: a failed run must not leave hundreds of MiB behind.
struct Removed(std::path::PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// One record of `size` bytes of `x` in a string, then a short record.
fn huge_record(out: &mut dyn Write, size: usize) -> usize {
    let head: &[u8] = br#"{"type":"assistant","text":""#;
    let tail: &[u8] = b"\"}\n{\"type\":\"user\",\"session_id\":\"s\"}\n";
    let chunk = vec![b'x'; 1 << 20];
    out.write_all(head).unwrap();
    for _ in 0..size >> 20 {
        out.write_all(&chunk).unwrap();
    }
    out.write_all(tail).unwrap();
    head.len() + (size >> 20 << 20) + tail.len()
}

#[test]
fn a_mapped_record_far_over_the_limit_is_not_held_whole_on_any_number_of_lanes() {
    // One line of 128 MiB, four times the bound: each lane that searches it, skips it or
    // touches it gives its pages back as it goes (it used to take the whole line with more
    // than one lane).
    let path = std::env::temp_dir().join(format!("sjlint-huge-{}.ndjson", std::process::id()));
    let _removed = Removed(path.clone());
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let size = huge_record(&mut file, (4 * LIMIT_KIB as usize) << 10);
    file.flush().unwrap();
    drop(file);
    // Each lane holds the runs it stands in (up to 8 MiB): more lanes, a little more.
    for (jobs, limit_kib) in [("1", LIMIT_KIB), ("2", LIMIT_KIB), ("4", LIMIT_KIB * 3 / 2)] {
        let run = measured_within(
            &[
                "check",
                "--format",
                "json",
                "--max-record-bytes",
                "1M",
                "--jobs",
                jobs,
                path.to_str().unwrap(),
            ],
            limit_kib,
            move |_| size,
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stdout.contains("\"record-too-large\""),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("\"line\":2"), "{}", run.stdout);
    }
}

#[test]
fn a_record_over_the_limit_from_stdin_takes_about_the_limit_not_three_times_it() {
    // A 16 MiB limit and a 96 MiB record: the read buffer grows to the limit and no further,
    // and the buffers it grew through are not all still held (they were about twice the limit
    // more, with a last growth by a few bytes that copied the whole buffer).
    // What the debug binary takes for a small input (about 15 MiB), and a margin.
    let base_kib = 20 << 10;
    let run = measured_within(
        &["check", "--format", "json", "--max-record-bytes", "16M"],
        base_kib + (16 << 10) * 3 / 2,
        |stdin| huge_record(stdin, 96 << 20),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("\"record-too-large\""),
        "{}",
        run.stdout
    );
}

/// What the debug binary takes for a small input (about 15 MiB), and a margin.
const BASE_KIB: i64 = 20 << 10;

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn fmt_check_write_and_diff_of_a_file_hold_the_limit_not_the_file() {
    // A 256 MiB record over a 16 MiB limit, then a short one: left out (the file would
    // change), or with --keep-invalid passed through (the file is left as it is). The new form
    // is compared with the file as it is made; neither is held (they took the whole file once
    // more and the read buffer: over 300 MiB).
    let path = std::env::temp_dir().join(format!("sjlint-fmt-{}.ndjson", std::process::id()));
    let _removed = Removed(path.clone());
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let size = huge_record(&mut file, 256 << 20);
    file.flush().unwrap();
    drop(file);
    let p = path.to_str().unwrap();
    let limit = "--max-record-bytes=16M";
    for (args, code, said) in [
        (vec!["fmt", "--check", limit, p], 1, "Would reformat"),
        (
            vec!["fmt", "--write", "--keep-invalid", limit, p],
            0,
            "1 file left unchanged",
        ),
        // --diff compares first as --check does: a file that does not change is not read whole.
        (
            vec!["fmt", "--diff", "--keep-invalid", limit, p],
            0,
            "1 file already formatted",
        ),
    ] {
        let run = measured_within(&args, BASE_KIB + (40 << 10), move |_| size);
        assert_eq!(run.code, code, "{}", run.stderr);
        let said_all = format!("{}{}", run.stdout, run.stderr);
        assert!(said_all.contains(said), "{said_all}");
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), size as u64);
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn fmt_check_of_stdin_keeps_a_record_not_the_input() {
    // The same record from standard input: what is read is kept only until the output it is
    // compared with comes, and a line over the limit is known to change the input once it is
    // that long (it used to keep the whole input: over 600 MiB).
    let run = measured_within(
        &["fmt", "--check", "--max-record-bytes=16M", "-"],
        BASE_KIB + (40 << 10),
        |stdin| huge_record(stdin, 256 << 20),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("Would reformat"), "{}", run.stdout);
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn fmt_diff_of_a_file_that_changes_and_of_stdin_holds_the_limit_not_the_file() {
    // A 96 MiB record over a 16 MiB limit, left out: the file changes, and its diff writes the
    // whole record as a line taken out. The new form is kept in a temporary file and the diff
    // made a window at a time, each line read back in pieces (the file and its new form were
    // held whole, as lines: over 130 MiB; from stdin over 250 MiB).
    let path = std::env::temp_dir().join(format!("sjlint-diff-{}.ndjson", std::process::id()));
    let _removed = Removed(path.clone());
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let size = huge_record(&mut file, 96 << 20);
    file.flush().unwrap();
    drop(file);
    let p = path.to_str().unwrap();
    let limit = "--max-record-bytes=16M";
    let check = |run: Measured| {
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stderr.contains("1 file would be reformatted"),
            "{}",
            run.stderr
        );
        assert!(run.stdout.starts_with("--- "), "{}", &run.stdout[..200]);
        assert!(run.stdout_len > 96 << 20, "the record is in the diff whole");
        assert!(
            run.stdout_end
                .ends_with(" {\"type\":\"user\",\"session_id\":\"s\"}\n"),
            "the short record is its context: {}",
            run.stdout_end
        );
    };
    check(measured_within(
        &["fmt", "--diff", limit, p],
        BASE_KIB + (40 << 10),
        move |_| size,
    ));
    check(measured_within(
        &["fmt", "--diff", limit, "-"],
        BASE_KIB + (40 << 10),
        |stdin| huge_record(stdin, 96 << 20),
    ));
}
