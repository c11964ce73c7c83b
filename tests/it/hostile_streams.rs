//! Streams crafted to slow sjlint down, blow its output up or hide findings from it, through the
//! real binary: each test is the reproduction of one way a hostile input once got through.

use crate::common::{check_json, exec, lines_of};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s"}"#;

/// A directory of the test's own under the temporary directory, removed however the test ends.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("sjlint-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `n` started tool calls, each of its own kind: names of `width` bytes that differ only at the
/// end, so that comparing two of them reads them whole.
fn distinct_kinds(n: usize, width: usize) -> Vec<u8> {
    let mut s = format!("{INIT}\n");
    let pad = "x".repeat(width);
    for i in 0..n {
        let _ = writeln!(
            s,
            r#"{{"type":"tool_call","subtype":"started","call_id":"c{i}","tool_call":{{"{pad}{i:06}ToolCall":{{"args":{{}}}}}},"session_id":"s"}}"#
        );
    }
    s.into_bytes()
}

#[test]
fn many_distinct_tool_kinds_are_each_counted_by_every_command() {
    // 5,000 kinds of 2 KB, past the kinds kept by name: every command reads them all, and stats
    // names each call once. (A list scanned per call made this quadratic once; how long the
    // lookup takes is measured by the benches, not here.)
    let calls = 5_000;
    let input = distinct_kinds(calls, 2_000);
    for command in ["check", "render", "fmt"] {
        let run = exec(&[command, "-"], Some(&input));
        assert!(run.code <= 1, "{command}: {}", run.describe());
    }
    let run = exec(&["stats", "--format", "json", "-"], Some(&input));
    assert!(run.code <= 1, "{}", run.describe());
    let stats: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let kinds = &stats["total"]["tool_calls"];
    let counted: u64 = kinds
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, calls as u64, "{kinds}");
}

#[test]
fn a_kind_mismatch_is_found_past_the_kinds_kept_by_name() {
    // Past the kinds kept by name, a call's kind is kept as a keyed hash: a completion of
    // another kind is still a mismatch, one of the same kind is not.
    let mut input = distinct_kinds(2_000, 100);
    input.extend_from_slice(
        br#"{"type":"tool_call","subtype":"completed","call_id":"c1999","tool_call":{"readToolCall":{"args":{},"result":{}}},"session_id":"s"}
"#,
    );
    let same = format!(
        r#"{{"type":"tool_call","subtype":"completed","call_id":"c1998","tool_call":{{"{}001998ToolCall":{{"args":{{}},"result":{{}}}}}},"session_id":"s"}}"#,
        "x".repeat(100)
    );
    input.extend_from_slice(same.as_bytes());
    input.push(b'\n');
    let (_, findings) = check_json(&["-"], Some(&input));
    assert_eq!(lines_of(&findings, "tool-kind-mismatch"), [2002]);
    let mismatch = findings
        .iter()
        .find(|f| f.rule == "tool-kind-mismatch")
        .unwrap();
    assert!(
        mismatch.message.contains("started as another kind"),
        "{}",
        mismatch.message
    );
}

#[test]
fn findings_quote_a_bounded_excerpt_of_huge_ids() {
    // An init with a 1 MB session_id, then 100 events of another session: each finding quotes
    // the id, which once printed 100 MB.
    let id = "a".repeat(1 << 20);
    let mut input = format!(r#"{{"type":"system","subtype":"init","session_id":"{id}"}}"#);
    input.push('\n');
    for _ in 0..100 {
        input.push_str(r#"{"type":"thinking","subtype":"completed","session_id":"t"}"#);
        input.push('\n');
    }
    for format in ["human", "concise", "json", "github", "sarif", "junit"] {
        let run = exec(&["check", "--format", format, "-"], Some(input.as_bytes()));
        assert_eq!(run.code, 1, "{format}: {}", run.stderr());
        let out = run.stdout();
        assert!(
            out.len() < 500_000,
            "{format}: {} bytes of output for 100 findings",
            out.len()
        );
        assert!(
            out.contains("… (1048576 bytes)"),
            "{format} does not say how long the id was"
        );
    }
}

/// Runs `sjlint ARGS` on `input`, reads one line of its stdout and closes it (`… | head -1`):
/// its exit code and stderr.
#[cfg(unix)]
fn closed_after_one_line(args: &[&str], input: &[u8]) -> (i32, String) {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;
    let mut child = crate::common::sjlint()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "sjlint {args:?} printed nothing");
    drop(stdout);
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    (status.code().unwrap_or(-1), errors.join().unwrap())
}

#[cfg(unix)]
#[test]
fn a_closed_stdout_keeps_the_exit_code_of_the_findings_so_far() {
    // Far more findings than a pipe buffer holds, so sjlint is still writing when the reader
    // goes away.
    let noisy = "not json at all\n".repeat(20_000).into_bytes();
    let cases: [(&[&str], i32); 6] = [
        (&["check", "-"], 1),
        (&["check", "--jobs", "1", "-"], 1),
        (&["check", "--jobs", "2", "--batch-size", "1K", "-"], 1),
        (&["check", "--format", "json", "-"], 1),
        (&["check", "--exit-zero", "-"], 0),
        (&["fmt", "--keep-invalid", "-"], 1),
    ];
    for (args, code) in cases {
        let (got, stderr) = closed_after_one_line(args, &noisy);
        assert_eq!(got, code, "sjlint {args:?}: {stderr}");
        if args[0] == "check" {
            assert!(stderr.is_empty(), "sjlint {args:?}: {stderr}");
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_is_reported_as_one_not_as_a_read_error() {
    let sample = crate::common::testdata("sample.ndjson");
    let sample = sample.to_str().unwrap();
    let commands: [&[&str]; 6] = [
        &["check", sample],
        &["check", "--tee", sample],
        &["check", "--format", "sarif", sample],
        &["fmt", sample],
        &["stats", sample],
        &["render", sample],
    ];
    for args in commands {
        let full = std::fs::File::create("/dev/full").unwrap();
        let out = crate::common::sjlint()
            .args(args)
            .stdout(full)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "sjlint {args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write the output: No space left on device"),
            "sjlint {args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("cannot read") && !stderr.contains("No problems found"),
            "sjlint {args:?}: {stderr}"
        );
    }
}

#[test]
fn stats_tables_take_names_of_any_width() {
    // Control characters are escaped as `\u{1}` for the terminal: 14,000 of them in a `type`
    // once made a column 70,000 characters wide, past what `format!` pads.
    let wide = "\\u0001".repeat(14_000);
    let input = format!(
        "{INIT}\n{{\"type\":\"{wide}\",\"session_id\":\"s\"}}\n{{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"c\",\"tool_call\":{{\"{wide}ToolCall\":{{\"args\":{{}}}}}},\"session_id\":\"s\"}}\n"
    );
    let run = exec(&["stats", "-"], Some(input.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    // Events are counted in the common vocabulary, which has no room for the stream's `type`;
    // the tool's own name is shown beside its kind.
    assert!(out.contains("other (\\u{1}"), "{out}");
    assert!(out.contains("… (14008 bytes)"), "{out}");
    assert!(out.lines().all(|l| l.len() < 2_000), "{out}");
}

#[test]
fn jobs_beyond_what_the_machine_can_use_are_cut_with_a_note() {
    // `--jobs 100000` on stdin once aborted (exit 134), and the largest count spawned threads
    // until memory ran out.
    let sample = std::fs::read(crate::common::testdata("sample.ndjson")).unwrap();
    for jobs in ["100000", "18446744073709551615"] {
        let run = exec(&["check", "--jobs", jobs, "-"], Some(&sample));
        assert_eq!(run.code, 0, "--jobs {jobs}: {}", run.describe());
        assert!(run.stdout().contains("No problems found in 1 file"));
        let note =
            format!("sjlint: --jobs {jobs} is more than this machine can use; checking with");
        assert!(run.stderr().contains(&note), "{}", run.stderr());
    }
    let run = exec(&["check", "--jobs", "2", "-"], Some(&sample));
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(run.stderr().is_empty(), "{}", run.stderr());
}

#[test]
fn duplicate_keys_are_found_past_the_32nd_distinct_key() {
    let keys: String = (0..40).map(|i| format!(r#""k{i}":1,"#)).collect();
    let input = format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",{keys}\"k35\":2}}\n\
         {{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"c\",\"tool_call\":{{\"readToolCall\":{{\"args\":{{}}}},{keys}\"k39\":1}},\"session_id\":\"s\"}}\n"
    );
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    let dups: Vec<&str> = findings
        .iter()
        .filter(|f| f.rule == "duplicate-key")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(dups.len(), 2, "{dups:?}");
    assert!(dups[0].contains(r#"key "k35""#), "{dups:?}");
    assert!(dups[1].contains(r#"key "k39""#), "{dups:?}");
}

#[test]
fn an_object_of_many_keys_is_checked_in_linear_time() {
    // 300,000 distinct keys in one 4 MB record, then one of the last ones repeated.
    let keys: String = (0..300_000).map(|i| format!(r#""k{i}":1,"#)).collect();
    let input = format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",{keys}\"k250000\":1}}\n"
    );
    let start = Instant::now();
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    assert!(
        start.elapsed() < Duration::from_secs(40),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(lines_of(&findings, "duplicate-key"), [1]);
}

/// Two different texts of 4,096 bytes of `a` and `b` whose hashes were equal under the public
/// polynomial hash once used to compare texts (`Σ (b_i + 1)·1000003^(n−1−i) mod 2^61 − 1`),
/// found by the tree attack: sort the weights, subtract neighbours, repeat until one is zero.
fn forged_pair() -> (String, String) {
    const P: u128 = (1 << 61) - 1;
    const BASE: u128 = 1_000_003;
    const N: usize = 4096;
    let mut weight = vec![0u64; N];
    let mut w = 1u128;
    for i in (0..N).rev() {
        weight[i] = w as u64;
        w = w * BASE % P;
    }
    // Each cluster: its value and the positions it adds (+1) and subtracts (−1).
    let mut clusters: Vec<(u64, Vec<(usize, i8)>)> =
        (0..N).map(|i| (weight[i], vec![(i, 1)])).collect();
    loop {
        if let Some((_, coef)) = clusters.iter().find(|(v, _)| *v == 0) {
            let (mut a, mut b) = (vec![b'a'; N], vec![b'a'; N]);
            for &(i, c) in coef {
                if c > 0 {
                    a[i] = b'b';
                } else {
                    b[i] = b'b';
                }
            }
            return (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
        }
        assert!(clusters.len() > 1, "no collision found");
        clusters.sort_by_key(|(v, _)| *v);
        clusters = clusters
            .chunks_exact(2)
            .map(|pair| {
                let (low, high) = (&pair[0], &pair[1]);
                let mut coef = high.1.clone();
                coef.extend(low.1.iter().map(|&(i, c)| (i, -c)));
                (high.0 - low.0, coef)
            })
            .collect();
    }
}

#[test]
fn texts_crafted_to_collide_are_still_told_apart() {
    let (a, b) = forged_pair();
    assert_ne!(a, b);
    let assistant = |text: &str, ts: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"s"{ts}}}"#
        )
    };
    let result = |text: &str| {
        format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"result":"{text}","session_id":"s"}}"#
        )
    };
    // check: the result is not the assistant's text.
    let input = format!("{INIT}\n{}\n{}\n", assistant(&a, ""), result(&b));
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    assert_eq!(lines_of(&findings, "result-text-mismatch"), [3]);
    // render: a flush that differs from the deltas before it is shown, not taken as their
    // repetition.
    let input = format!(
        "{INIT}\n{}\n{}\n{}\n",
        assistant(&a, r#","timestamp_ms":1"#),
        assistant(&b, ""),
        result(&format!("{a}{b}"))
    );
    let run = exec(&["render", "--plain", "-"], Some(input.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.describe());
    let shown: String = run
        .stdout()
        .chars()
        .filter(|c| matches!(c, 'a' | 'b'))
        .collect();
    assert!(shown.contains(&a) && shown.contains(&b), "{}", run.stdout());
}

#[cfg(unix)]
#[test]
fn github_annotations_escape_control_characters_of_file_names() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("hostile-names");
    // An OSC 8 hyperlink and a colour change, as a file name may hold them.
    let name = std::ffi::OsStr::from_bytes(b"a\x1b]8;;x\x07b\x1b[31m:.ndjson");
    let path = dir.0.join(name);
    std::fs::write(&path, "not json\n").unwrap();
    let run = exec(
        &["check", "--format", "github", path.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let out = run.stdout();
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(
        out.contains(r"a\u{1b}]8;;x\u{7}b\u{1b}[31m%3A.ndjson"),
        "{out:?}"
    );
}

#[test]
fn junit_messages_carry_no_raw_line_breaks_nor_bidi_controls() {
    // A tool kind is quoted as is in `unknown-tool-kind`: here with a line break and U+202E.
    let input = format!(
        "{INIT}\n{}\n",
        r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"a\nb\u202ecToolCall":{"args":{}}},"session_id":"s"}"#
    );
    let run = exec(
        &["check", "--format", "junit", "--strict", "-"],
        Some(input.as_bytes()),
    );
    let out = run.stdout();
    let case = out
        .split("<testcase")
        .find(|c| c.contains("unknown-tool-kind"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(!case.contains('\u{202e}'), "{case}");
    assert!(case.contains(r"a\nb\u{202e}cToolCall"), "{case}");
    assert!(
        !case.contains("a\nb") && !case.contains("a&#10;b"),
        "{case}"
    );
}

#[test]
fn render_never_begins_a_line_with_a_workflow_command_nor_passes_invisible_characters() {
    let text =
        r"::error file=x::forged\nfine\n  ::set-output name=a::b\n:\u200bzero\u200dwidth\u202ebidi";
    let input = format!(
        "{INIT}\n{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}},\"session_id\":\"s\"}}\n"
    );
    for plain in [false, true] {
        let args: &[&str] = if plain {
            &["render", "--plain", "-"]
        } else {
            &["render", "-"]
        };
        let run = exec(args, Some(input.as_bytes()));
        let out = run.stdout();
        for line in out.lines() {
            assert!(
                !line.trim_start().starts_with("::"),
                "{args:?}: a line begins a workflow command: {line:?}"
            );
        }
        assert!(out.contains(r"\u{3a}:error file=x::forged"), "{out}");
        assert!(out.contains("\nfine\n"), "{out}");
        for c in ['\u{200b}', '\u{200d}', '\u{202e}'] {
            assert!(!out.contains(c), "{args:?}: {c:?} in {out:?}");
        }
        assert!(
            out.contains(r"\u{200b}zero\u{200d}width\u{202e}bidi"),
            "{out}"
        );
    }
}

#[test]
fn past_the_open_call_budget_one_finding_and_the_rest_still_checked() {
    let mut input = String::from(INIT);
    input.push('\n');
    for i in 0..6 {
        let _ = writeln!(
            input,
            r#"{{"type":"tool_call","subtype":"started","call_id":"c{i}","tool_call":{{"readToolCall":{{"args":{{}}}}}},"session_id":"s"}}"#
        );
    }
    // c0 completes as another kind: found, since c0 was kept; c5 was not kept, so its
    // completion is no orphan.
    for (i, kind) in [
        (0, "editToolCall"),
        (1, "readToolCall"),
        (5, "readToolCall"),
    ] {
        let _ = writeln!(
            input,
            r#"{{"type":"tool_call","subtype":"completed","call_id":"c{i}","tool_call":{{"{kind}":{{"args":{{}},"result":{{}}}}}},"session_id":"s"}}"#
        );
    }
    let (_, findings) = check_json(&["--max-open-calls", "3", "-"], Some(input.as_bytes()));
    assert_eq!(
        lines_of(&findings, "too-many-open-calls"),
        [5],
        "{findings:?}"
    );
    assert_eq!(lines_of(&findings, "tool-kind-mismatch"), [8]);
    assert!(lines_of(&findings, "orphan-completion").is_empty());
    // c2 is the one kept call left open.
    assert_eq!(lines_of(&findings, "unfinished-tool-call"), [4]);
    let run = exec(
        &["check", "--max-open-calls", "0", "-"],
        Some(input.as_bytes()),
    );
    assert_eq!(run.code, 2, "{}", run.describe());
}

#[test]
fn findings_about_long_call_ids_quote_a_bounded_excerpt() {
    let id = "i".repeat(100_000);
    let input = format!(
        "{INIT}\n{{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"{id}\",\"tool_call\":{{\"readToolCall\":{{\"args\":{{}}}}}},\"session_id\":\"s\"}}\n"
    );
    let (run, findings) = check_json(&["-"], Some(input.as_bytes()));
    let unfinished = findings
        .iter()
        .find(|f| f.rule == "unfinished-tool-call")
        .unwrap_or_else(|| panic!("{}", run.describe()));
    assert!(
        unfinished.message.contains("… (100000 bytes)") && unfinished.message.len() < 400,
        "{}",
        unfinished.message
    );
}

/// Waits until process `pid` has `path` mapped (at most `HANG`).
#[cfg(target_os = "linux")]
fn wait_until_mapped(pid: u32, path: &std::path::Path) {
    let start = Instant::now();
    let name = path.to_str().unwrap();
    while start.elapsed() < Duration::from_secs(30) {
        let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
        if maps.contains(name) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("sjlint never mapped {name}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_mapped_file_truncated_while_checked_ends_in_an_error_naming_it() {
    let dir = TempDir::new("hostile-shrink");
    let sample = std::fs::read(crate::common::testdata("sample.ndjson")).unwrap();
    // One finding first, then healthy sessions: 100 MB, which the debug build takes seconds
    // to check.
    let mut body = b"not json\n".to_vec();
    while body.len() < 100 << 20 {
        body.extend_from_slice(&sample);
    }
    for jobs in ["1", "2"] {
        let path = dir.0.join(format!("shrinking-{jobs}.ndjson"));
        std::fs::write(&path, &body).unwrap();
        let child = crate::common::sjlint()
            .args(["check", "--format", "concise", "--jobs", jobs])
            .arg(&path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        wait_until_mapped(child.id(), &path);
        // Cut at 2 MiB: the steps before the cut (1 MiB each) stay whole, so the finding of
        // line 1 is reported however early the cut comes, and every later step is gone.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2 << 20)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(
            out.status.code(),
            Some(2),
            "--jobs {jobs}: {:?} {stderr}",
            out.status
        );
        assert!(
            stderr.contains(&format!(
                "cannot read {}: the file was truncated while it was being checked",
                path.display()
            )),
            "--jobs {jobs}: {stderr}"
        );
        assert!(
            stdout.contains(":1: error[invalid-json]"),
            "--jobs {jobs}: {stdout}"
        );
    }
}
