//! One input on several threads: `check --jobs N` (N > 1) splits, parses and validates one
//! input on separate threads, and prints exactly what `--jobs 1` prints (stdout, stderr and
//! exit code), for files and for standard input, in every format, whatever the batch size
//! (the hidden `--batch-size`, down to one byte: one frame per batch), the segments a mapped
//! file is cut into (the hidden `--segment-size`, down to one byte), and whether a file is
//! mapped or read (`--no-mmap`).
//!
//! The runs compared are made in this process (`sjlint::unstable::commands::run_in_process`,
//! the code the binary runs, with its streams in memory): one input is checked up to a hundred
//! times here, and a process start costs more than a check in a test build. What only the
//! binary has is tested through it at the end: that it prints what a run in process prints, the
//! default number of threads, and `--tee` on a pipe that stays open.

use crate::generator;

use crate::common::{Run, corpus_dir, exec, manifest_dir};
use std::path::{Path, PathBuf};

const FORMATS: [&str; 6] = ["human", "concise", "json", "github", "sarif", "junit"];

/// What a run printed and how it ended, byte for byte.
fn outcome(run: Run) -> (i32, Vec<u8>, Vec<u8>) {
    (run.code, run.stdout, run.stderr)
}

/// `sjlint ARGS…` run in this process, with `stdin` (or nothing) as its standard input.
fn in_process(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let done = sjlint::unstable::commands::run_in_process(args, stdin.unwrap_or_default());
    Run {
        code: i32::from(done.code),
        stdout: done.stdout,
        stderr: done.stderr,
    }
}

/// Runs `sjlint check ARGS` in process with each of `variants` added, on `stdin` when given,
/// and asserts that every variant prints what the first one prints; returns its standard output.
fn same_output(args: &[&str], stdin: Option<&[u8]>, variants: &[&[&str]]) -> Vec<u8> {
    same_output_of(in_process, args, stdin, variants)
}

/// [`same_output`], each variant run by `run`.
fn same_output_of(
    run: impl Fn(&[&str], Option<&[u8]>) -> Run,
    args: &[&str],
    stdin: Option<&[u8]>,
    variants: &[&[&str]],
) -> Vec<u8> {
    let mut first = None;
    for extra in variants {
        let mut all = vec!["check", "--color", "never", "--progress", "never"];
        all.extend_from_slice(args);
        all.extend_from_slice(extra);
        let run = run(&all, stdin);
        assert!(
            !run.stderr().contains("panicked"),
            "sjlint {all:?}\n{}",
            run.describe()
        );
        let got = outcome(run);
        match &first {
            None => first = Some((all, got)),
            Some((base, want)) => {
                assert!(
                    *want == got,
                    "sjlint {all:?} differs from sjlint {base:?}\n--- expected\n{}\n{}\n--- got\n{}\n{}",
                    String::from_utf8_lossy(&want.1),
                    String::from_utf8_lossy(&want.2),
                    String::from_utf8_lossy(&got.1),
                    String::from_utf8_lossy(&got.2)
                );
            }
        }
    }
    first.map(|(_, (_, stdout, _))| stdout).unwrap_or_default()
}

/// Every format prints the findings the check hands it, in order, and the totals: `json` carries
/// every field of both, so it is compared under every way of threading; the other formats are
/// compared at the two extremes, one thread (the first variant) against batches of one frame on
/// three (`extreme`).
fn each_format(mut run: impl FnMut(&str, &[&[&str]]), variants: &[&[&str]], extreme: &[&str]) {
    run("json", variants);
    let extremes: [&[&str]; 2] = [variants[0], extreme];
    for format in FORMATS.iter().filter(|f| **f != "json") {
        run(format, &extremes);
    }
}

/// `--jobs 1` against several threads: the default batch size and batches of one frame; and
/// files read instead of mapped.
const THREADS: [&[&str]; 5] = [
    &["--jobs", "1"],
    &["--jobs", "2"],
    &["--jobs", "3", "--batch-size", "1"],
    &["--jobs", "1", "--no-mmap"],
    &["--jobs", "2", "--no-mmap"],
];

/// Every stream file below `dir`.
fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            files_below(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("ndjson" | "jsonl" | "json")
        ) {
            out.push(path);
        }
    }
}

/// The fixtures, and the corpus when it is there (required under CI=true).
fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    files_below(&manifest_dir().join("testdata"), &mut files);
    if let Some(corpus) = corpus_dir() {
        files_below(&corpus, &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    files
}

/// Runs `each` on every file, spread over a few threads of the test (each run is a process).
fn for_each_file(files: &[PathBuf], each: impl Fn(&Path) + Sync) {
    let each = &each;
    std::thread::scope(|scope| {
        for part in files.chunks(files.len().div_ceil(4)) {
            scope.spawn(move || part.iter().for_each(|f| each(f)));
        }
    });
}

/// As a file, `json` under every way of threading, and two other formats at the extremes:
/// `concise` for every file (it carries the totals, which `json` does not), `human` for the
/// files with findings (on a clean file it prints the totals only). The other formats print the
/// findings `json` carries; each is compared at the extremes on every file below, under `--tee`.
#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn every_fixture_and_corpus_file_as_a_file() {
    for_each_file(&fixture_files(), |file| {
        let path = file.to_str().unwrap();
        let json = same_output(&["--format", "json", path], None, &THREADS);
        let extremes: [&[&str]; 2] = [THREADS[0], THREADS[2]];
        same_output(&["--format", "concise", path], None, &extremes);
        if !json.starts_with(b"[]") {
            same_output(&["--format", "human", path], None, &extremes);
        }
    });
}

/// On standard input, `json` under each way of threading a pipe (`--no-mmap` is what a pipe
/// gets anyway); the other formats print the same findings whatever the input is, and are
/// compared on files above.
#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn every_fixture_and_corpus_file_on_stdin() {
    for_each_file(&fixture_files(), |file| {
        let input = std::fs::read(file).unwrap();
        same_output(&["--format", "json"], Some(&input), &THREADS[..3]);
    });
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn every_fixture_one_after_the_other_under_tee() {
    // --tee checks several files one at a time, each on several threads.
    let files = fixture_files();
    let paths: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    each_format(
        |format, variants| {
            let mut args = vec!["--tee", "--format", format];
            args.extend_from_slice(&paths);
            same_output(&args, None, variants);
        },
        &THREADS,
        THREADS[2],
    );
}

/// A stream that takes every path of the check at least once: records repaired for raw
/// control characters, joined multi-line records and failed joins, numbers beyond the f64
/// range, unpaired surrogates, a run of binary records, records too large for
/// `--max-record-bytes 2K`, invalid UTF-8, blank lines, BOMs at the start and mid-stream, CRLF,
/// values that are not objects, and a last record cut off inside a string.
fn slow_paths() -> Vec<u8> {
    let mut s = Vec::new();
    s.extend_from_slice(
        b"\xEF\xBB\xBF{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\r\n",
    );
    s.extend_from_slice(b"\n   \n\t\n");
    s.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"one\ntwo\nthree\"}]},\"session_id\":\"s\"}\n");
    s.extend_from_slice(b"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"call_a\nfc_b\",\"tool_call\":{\"lsToolCall\":{\"args\":{}}},\"session_id\":\"s\"}\n");
    s.extend_from_slice(b"{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"call_a\\nfc_b\",\"tool_call\":{\"lsToolCall\":{\"args\":{},\"result\":{\"success\":{}}}},\"session_id\":\"s\"}\n");
    s.extend_from_slice(b"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"tab\there \x01 bell\"}]},\"session_id\":\"s\"}\n");
    s.extend_from_slice(b"{\"type\":\"assistant\",\"n\":1e400,\"big\":-123456789012345678901234567890e999,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"\\ud800 and \\udc00\"}]},\"session_id\":\"s\"}\n");
    s.extend_from_slice(b"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"\\ud83d\",\"tool_call\":{\"readToolCall\":{\"args\":{}}},\"session_id\":\"s\"}\n");
    s.extend_from_slice(b"{\"type\":\"assistant\",\"text\":\"caf\xE9\"}\n");
    s.extend_from_slice(b"{\"type\":\"assistant\",\"text\":\"cut \xE2\x82\"}\n");
    s.extend_from_slice(b"[1,2]\n\"text\"\n42\nnull\n");
    s.extend_from_slice(b"not json at all\n\x1b[31merror\x1b[0m: plain text\nNaN\n{\"a\":1} {\"b\":2}\n{\"a\":1}\r{\"b\":2}\n");
    s.extend_from_slice(b"{\"type\":\"x\",\"open\":\"this string is never closed\n{\"type\":\"thinking\",\"subtype\":\"delta\",\"text\":\"x\",\"session_id\":\"s\"}\n");
    s.extend_from_slice(
        b"\xEF\xBB\xBF{\"type\":\"thinking\",\"subtype\":\"completed\",\"session_id\":\"s\"}\n",
    );
    s.extend_from_slice(
        format!("{{\"type\":\"x\",\"pad\":\"{}\"}}\n", "y".repeat(3000)).as_bytes(),
    );
    s.extend_from_slice(b"\xEF\xBB\xBF");
    s.extend_from_slice(
        format!("{{\"type\":\"x\",\"pad\":\"{}\"}}\r\n", "z".repeat(5000)).as_bytes(),
    );
    s.extend_from_slice(b"{\"type\":\"x\",\"deep\":");
    s.extend_from_slice(&b"[".repeat(200));
    s.extend_from_slice(&b"]".repeat(200));
    s.extend_from_slice(b"}\n");
    // Binary data: far more than BINARY_SHOWN records in a row, with a normal one in between.
    let mut seed = 7u64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 56) as u8
            })
            .collect()
    };
    s.extend_from_slice(&noise(8 << 10));
    s.extend_from_slice(b"\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n");
    s.extend_from_slice(&noise(4 << 10));
    s.extend_from_slice(b"\n\n{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"t\"}\n");
    s.extend_from_slice(b"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"call_t\",\"tool_call\":{\"lsToolCall\":{\"args\":{}}},\"session_id\":\"t\"}\n");
    // Cut off at the end; an array, so that it is no event that could have ended the session
    // (a cut-off object could have been its result, which silences missing-result).
    s.extend_from_slice(b"[{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"cut off");
    s
}

#[test]
fn every_slow_path_and_batch_boundary() {
    let input = slow_paths();
    let dir = TempDir::new("slow");
    let file = dir.0.join("slow.ndjson");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    // The input does take every path.
    let one = exec(
        &[
            "check",
            "--format",
            "json",
            "--max-record-bytes",
            "2K",
            "--jobs",
            "1",
            path,
        ],
        None,
    );
    let text = one.stdout();
    for rule in [
        "raw-control-character",
        "invalid-utf8",
        "invalid-json",
        "not-an-object",
        "record-too-large",
        "blank-line",
        "byte-order-mark",
        "truncated-record",
        "unknown-event-type",
        "unfinished-tool-call",
        "missing-result",
    ] {
        assert!(text.contains(&format!("\"{rule}\"")), "{rule}: {text}");
    }
    for message in [
        "look binary; their framing findings, not shown one by one",
        "spans 3 physical lines",
        "is never closed",
        "separated by bare CR",
    ] {
        assert!(text.contains(message), "{message}: {text}");
    }
    let variants: [&[&str]; 12] = [
        &["--jobs", "1"],
        &["--jobs", "2"],
        &["--jobs", "2", "--batch-size", "1"],
        &["--jobs", "2", "--batch-size", "100"],
        &["--jobs", "3", "--batch-size", "1K"],
        &["--jobs", "2", "--batch-size", "4K"],
        &["--jobs", "4", "--batch-size", "64K"],
        &["--jobs", "1", "--no-mmap"],
        &["--jobs", "2", "--no-mmap", "--batch-size", "1"],
        // A file cut into segments that start at nearly every line, inside records over
        // several lines among them.
        &["--jobs", "2", "--segment-size", "1"],
        &["--jobs", "3", "--segment-size", "7", "--batch-size", "100"],
        &["--jobs", "4", "--segment-size", "64"],
    ];
    for format in FORMATS {
        for limit in ["2K", "64M"] {
            let args = ["--format", format, "--max-record-bytes", limit];
            same_output(&[&args[..], &[path]].concat(), None, &variants);
            same_output(&args, Some(&input), &variants);
            same_output(&[&args[..], &["--tee"]].concat(), Some(&input), &variants);
        }
    }
    // The same, with records other than the last cut off by a too-small limit, and with rules
    // left out (findings of disabled rules are dropped in order, never counted).
    for extra in [
        &["--max-record-bytes", "40"][..],
        &["--ignore", "framing"],
        &["--select", "invalid-json,raw-control-character"],
        &["--max-diagnostics", "3", "--strict"],
        &["--dialect", "sdk"],
    ] {
        let args = [&["--format", "json"][..], extra].concat();
        same_output(&args, Some(&input), &variants);
    }
}

#[test]
fn large_records_across_many_batches_and_reads() {
    // Records of 1 MiB and 3 MiB, far larger than a batch and than one read, between small
    // ones; one of them also past --max-record-bytes 2M.
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n");
    for (n, len) in [(1, 1 << 20), (2, 3 << 20), (3, 10), (4, 1 << 20)] {
        input.extend_from_slice(
            format!(
                "{{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"c{n}\",\"tool_call\":{{\"readToolCall\":{{\"args\":{{\"path\":\"{}\"}}}}}},\"session_id\":\"s\"}}\n",
                "p".repeat(len)
            )
            .as_bytes(),
        );
    }
    input.extend_from_slice(b"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n");
    let variants: [&[&str]; 7] = [
        &["--jobs", "1"],
        &["--jobs", "2"],
        &["--jobs", "2", "--batch-size", "1"],
        &["--jobs", "3", "--batch-size", "100K"],
        &["--jobs", "2", "--no-mmap"],
        // Segments that start inside each large record, many times over.
        &["--jobs", "2", "--segment-size", "100K"],
        &["--jobs", "3", "--segment-size", "4K", "--batch-size", "1"],
    ];
    // As a file too: mapped, records larger than the steps a mapped file is taken in.
    let dir = TempDir::new("large");
    let file = dir.0.join("large.ndjson");
    std::fs::write(&file, &input).unwrap();
    for limit in ["2M", "64M"] {
        let args = ["--format", "json", "--max-record-bytes", limit];
        same_output(&args, Some(&input), &variants);
        same_output(
            &[&args[..], &[file.to_str().unwrap()]].concat(),
            None,
            &variants,
        );
    }
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn generated_streams_as_files_and_on_stdin() {
    let dir = TempDir::new("generated");
    for (seed, raw) in [(1, false), (2, true)] {
        let input = generator::stream(seed, 1 << 20, raw);
        let file = dir.0.join(format!("gen{seed}.ndjson"));
        std::fs::write(&file, &input).unwrap();
        let path = file.to_str().unwrap();
        let variants: [&[&str]; 7] = [
            &["--jobs", "1"],
            &["--jobs", "2"],
            &["--jobs", "2", "--batch-size", "5K"],
            &["--jobs", "3", "--batch-size", "1"],
            &["--jobs", "1", "--no-mmap"],
            &["--jobs", "2", "--segment-size", "3K"],
            &["--jobs", "3", "--segment-size", "50K"],
        ];
        each_format(
            |format, variants| {
                same_output(&["--format", format, path], None, variants);
                same_output(&["--format", format], Some(&input), variants);
            },
            &variants,
            variants[3],
        );
    }
}

/// Every agent's generated stream, with findings spread through it (a run whose tool call is
/// never answered, text that is not JSON, a record with a raw newline in a string, a number
/// beyond the f64 range), recognised from its first records or named with `--agent`: the lanes
/// read the records as the agent's once the in-order stage knows it, and as cursor-agent's
/// before, and every way prints what one thread prints.
#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn every_agents_generated_stream_as_a_file_and_on_stdin() {
    use generator::agents::{generated, one_run, stream};
    let dir = TempDir::new("agents");
    for agent in generated() {
        let mut input = Vec::new();
        for seed in 0..3u64 {
            input.extend_from_slice(&stream(agent, seed, 40 << 10));
            input.extend_from_slice(one_run(agent, seed, &[1, 0, 2], Some(1)).0.as_bytes());
            input.extend_from_slice(b"{not json\n{\"type\":\"x\",\"a\":\"raw\nnewline\"}\n");
            input.extend_from_slice(b"{\"type\":\"x\",\"n\":1e400}\n");
        }
        let file = dir.0.join(format!("{}.ndjson", agent.as_str()));
        std::fs::write(&file, &input).unwrap();
        let path = file.to_str().unwrap();
        let variants: [&[&str]; 6] = [
            &["--jobs", "1"],
            &["--jobs", "2"],
            &["--jobs", "3", "--batch-size", "1"],
            &["--jobs", "2", "--batch-size", "5K", "--no-mmap"],
            &["--jobs", "2", "--segment-size", "3K"],
            &["--jobs", "3", "--segment-size", "50K"],
        ];
        let named = ["--agent", agent.as_str()];
        same_output(&["--format", "json", path], None, &variants);
        same_output(&["--format", "json"], Some(&input), &variants);
        same_output(
            &["--format", "json", named[0], named[1], path],
            None,
            &variants[..3],
        );
        same_output(
            &["--format", "human", named[0], named[1]],
            Some(&input),
            &variants[..3],
        );
    }
}

#[test]
fn the_default_is_the_one_thread_output_too() {
    let sample = std::fs::read(manifest_dir().join("testdata/many-findings.ndjson")).unwrap();
    let variants: [&[&str]; 2] = [&["--jobs", "1"], &[]];
    same_output_of(exec, &["testdata/many-findings.ndjson"], None, &variants);
    same_output_of(exec, &[], Some(&sample), &variants);
}

/// The runs above are made in process: the binary prints what they print, byte for byte, in
/// every format, for a file and on stdin, on one thread and on several, and for a file that
/// cannot be read (exit 2 and its message) and a usage error.
#[test]
fn the_binary_prints_what_a_run_in_process_prints() {
    let input = slow_paths();
    let dir = TempDir::new("binary");
    let file = dir.0.join("slow.ndjson");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    let missing = dir.0.join("missing.ndjson");
    let missing = missing.to_str().unwrap();
    let mut cases: Vec<(Vec<&str>, Option<&[u8]>)> = Vec::new();
    for format in FORMATS {
        for jobs in ["1", "3"] {
            let args = [
                "check", "--format", format, "--jobs", jobs, "--color", "never",
            ];
            cases.push(([&args[..], &[path]].concat(), None));
            cases.push(([&args[..], &["--tee"]].concat(), Some(&input[..])));
        }
    }
    cases.push((vec!["check", "--format", "concise", path, missing], None));
    cases.push((vec!["check", "--format", "nope", path], None));
    cases.push((vec!["stats", "--format", "json", path], None));
    cases.push((vec!["fmt", "--to", "common"], Some(&input[..])));
    for (args, stdin) in cases {
        let binary = exec(&args, stdin);
        assert!(
            binary.code != 0 || !binary.stdout.is_empty(),
            "{args:?}: {}",
            binary.describe()
        );
        let here = in_process(&args, stdin);
        assert!(
            (here.code, &here.stdout, &here.stderr)
                == (binary.code, &binary.stdout, &binary.stderr),
            "sjlint {args:?} in process printed\n{}\nthe binary\n{}",
            here.describe(),
            binary.describe()
        );
    }
}

/// A directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("sjlint-threads-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)]
#[test]
fn with_tee_a_silent_producer_gets_its_bytes_and_findings_at_once() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let mut child = crate::common::sjlint()
        .args(["check", "--tee", "--format", "concise", "--jobs", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let sent = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\nnot json\n";
    stdin.write_all(sent).unwrap();
    stdin.flush().unwrap();
    // The pipe stays open and silent: the copy and the finding come now.
    let mut copy = vec![0; sent.len()];
    stdout.read_exact(&mut copy).unwrap();
    assert_eq!(&copy[..], &sent[..]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let finding = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .expect("the finding, while stdin is still open");
        if line.contains("invalid-json") {
            break line;
        }
    };
    assert_eq!(
        finding,
        "-:2:1: error[invalid-json] the line is plain text, not JSON"
    );
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}
