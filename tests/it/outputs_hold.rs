//! Nothing lost, nothing hung: what every output format keeps whatever happens to its reader
//! (the exit code through a closed stdout), what it never passes on raw (bidi and C1 controls,
//! line separators, format and tag characters quoted from a record), and verdicts that once were wrong (numbers out of
//! `f64` range, counts that are not counts, one cause reported three times, a misspelt rule
//! name without a suggestion).

use crate::common::{exec, sjlint, testdata};

/// Every `--format` of `check`.
const FORMATS: [&str; 7] = [
    "human",
    "concise",
    "json",
    "json-lines",
    "github",
    "sarif",
    "junit",
];

/// `sjlint ARGS…` with a stdout whose reader is gone before sjlint starts: its exit code.
fn exit_code_with_stdout_closed(args: &[&str]) -> i32 {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = sjlint()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "sjlint {args:?}: nothing on stderr, got {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.code().unwrap_or(-1)
}

#[test]
fn every_format_keeps_the_exit_code_when_stdout_is_closed() {
    // Three thousand infos (blank lines) before the one error (no record at all): a format
    // that writes as it goes meets the closed pipe long before the error is found.
    let file = testdata("regressions/infos-then-an-error.ndjson");
    let file = file.to_str().unwrap();
    for format in FORMATS {
        let open = exec(&["check", "--format", format, file], None);
        assert_eq!(open.code, 1, "{format}: {}", open.describe());
        for jobs in ["1", "2"] {
            let args = ["check", "--format", format, "--jobs", jobs, file, file];
            assert_eq!(
                exit_code_with_stdout_closed(&args),
                1,
                "sjlint {args:?} with its stdout closed"
            );
        }
    }
}

#[test]
fn the_check_under_tee_keeps_its_exit_code_when_stdout_is_closed() {
    // --tee copies the stream to stdout and the findings go to stderr.
    let file = testdata("regressions/infos-then-an-error.ndjson");
    let file = file.to_str().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = sjlint()
        .args(["check", "--tee", "--quiet", file])
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error[empty-stream]"),
        "{out:?}"
    );
}

#[test]
fn explain_suggests_the_rule_a_misspelt_word_begins() {
    let run = exec(&["explain", "unfinshed"], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("did you mean `unfinished-tool-call`?"),
        "{}",
        run.describe()
    );
    let run = exec(&["check", "--select", "unfinshed", "-"], Some(b""));
    assert!(
        run.stderr()
            .contains("did you mean `unfinished-tool-call`?"),
        "{}",
        run.describe()
    );
}

/// The characters a reader's terminal or editor obeys (bidi controls, C1 controls, line and
/// paragraph separators), which no output may carry raw.
fn obeyed(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{9f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{61c}'
            | '\u{2028}'
            | '\u{2029}')
}

#[test]
fn no_output_carries_bidi_or_c1_controls_raw() {
    // A Claude session whose unknown type, tool call id and tool name hold U+202E, U+2066,
    // U+2067, U+0085, U+009B, U+2028, U+2029, U+200F and U+061C, raw; checked under a file
    // name that holds two of them as well.
    let dir = std::env::temp_dir().join(format!("sjlint-outputs-hold-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("name\u{202e}\u{85}.ndjson");
    std::fs::copy(
        testdata("regressions/bidi-and-c1-in-quoted-names.ndjson"),
        &file,
    )
    .unwrap();
    let file = file.to_str().unwrap().to_owned();
    let mut runs: Vec<(String, Vec<u8>)> = Vec::new();
    for format in FORMATS {
        let run = exec(&["check", "--format", format, &file], None);
        assert_eq!(run.code, 1, "{format}: {}", run.describe());
        runs.push((format!("check --format {format}"), run.stdout));
    }
    for format in ["json", "table"] {
        let run = exec(&["stats", "--format", format, &file], None);
        assert_eq!(run.code, 0, "stats {format}: {}", run.describe());
        runs.push((format!("stats --format {format}"), run.stdout));
    }
    // The agent-neutral form of the session: the tool call's id, name and arguments.
    let common = exec(&["fmt", "--to", "common", &file], None);
    assert!(
        common.stdout().contains("tool_start"),
        "{}",
        common.describe()
    );
    runs.push(("fmt --to common".to_owned(), common.stdout));
    let _ = std::fs::remove_dir_all(&dir);
    for (what, stdout) in &runs {
        let text = String::from_utf8_lossy(stdout);
        let raw: Vec<String> = text
            .chars()
            .filter(|&c| obeyed(c))
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .collect();
        assert!(raw.is_empty(), "{what} wrote {raw:?} raw:\n{text}");
    }
    // Escaped, not dropped: the JSON values read back hold the characters.
    let json = &runs[2].1;
    let findings: serde_json::Value = serde_json::from_slice(json).unwrap();
    let messages: Vec<&str> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("Bash\u{202e}\u{2066}")),
        "{messages:?}"
    );
    assert!(
        findings[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("name\u{202e}\u{85}.ndjson"),
        "{findings}"
    );
}

/// Format characters (general category Cf: soft hyphen, invisible operators, Arabic and Syriac
/// marks, musical formatting, interlinear annotation, Egyptian hieroglyph controls, the byte
/// order mark) and the tag block, which can hide a prompt inside text: no output may carry them
/// raw.
fn hidden(c: char) -> bool {
    matches!(c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e007f}')
}

/// `sjlint run` replaying `stream`: its stderr (notes and findings) and its `--summary`.
fn run_outputs(stream: &std::path::Path, dir: &std::path::Path) -> [(String, Vec<u8>); 2] {
    let summary = dir.join("summary.json");
    let out = sjlint()
        .args(["run", "--progress", "never", "--summary"])
        .arg(&summary)
        .arg("--")
        .arg(testdata("agents/replay.sh"))
        .env("STREAM", stream)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.stdout.is_empty(), "{out:?}");
    let summary = std::fs::read(&summary).unwrap();
    [
        ("run (stderr)".to_owned(), out.stderr),
        ("run --summary".to_owned(), summary),
    ]
}

#[test]
fn no_output_carries_format_or_tag_characters_raw() {
    // A Claude session whose prompt, unknown type, tool call id, name and command hold format
    // characters of every kind and tag characters (U+E0001, U+E0041, U+E007F), raw.
    let dir = std::env::temp_dir().join(format!("sjlint-outputs-cf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = testdata("regressions/format-and-tag-characters-in-quoted-names.ndjson");
    let input = std::fs::read_to_string(&file).unwrap();
    assert!(input.contains('\u{e0041}') && input.contains('\u{ad}'));
    let file_arg = file.to_str().unwrap();
    let mut runs: Vec<(String, Vec<u8>)> = Vec::new();
    for format in FORMATS {
        let run = exec(&["check", "--format", format, file_arg], None);
        assert_eq!(run.code, 1, "{format}: {}", run.describe());
        runs.push((format!("check --format {format}"), run.stdout));
    }
    for args in [
        &["render", file_arg][..],
        &["stats", "--format", "json", file_arg],
        &["stats", file_arg],
        &["fmt", "--to", "common", file_arg],
        &["fmt", "--to", "otlp", file_arg],
    ] {
        let run = exec(args, None);
        assert!(!run.stdout.is_empty(), "{args:?}: {}", run.describe());
        runs.push((args.join(" "), run.stdout));
    }
    let page = dir.join("page.html");
    let report = exec(&["report", "-o", page.to_str().unwrap(), file_arg], None);
    assert!(page.exists(), "{}", report.describe());
    runs.push(("report".to_owned(), std::fs::read(&page).unwrap()));
    runs.extend(run_outputs(&file, &dir));
    let _ = std::fs::remove_dir_all(&dir);
    for (what, out) in &runs {
        let text = String::from_utf8_lossy(out);
        let raw: Vec<String> = text
            .chars()
            .filter(|&c| hidden(c))
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .collect();
        assert!(raw.is_empty(), "{what} wrote {raw:?} raw:\n{text:.3000}");
    }
    // Escaped, not dropped: the JSON read back holds the tag characters.
    let findings: serde_json::Value = serde_json::from_slice(&runs[2].1).unwrap();
    assert!(findings.to_string().contains("Bash\u{ad}"), "{findings}");
    assert!(String::from_utf8_lossy(&runs[0].1).contains("\\u{e0041}"));
}

#[test]
fn a_number_beyond_the_f64_range_is_json_for_every_agent() {
    // RFC 8259 sets no range: `1e400` is a number, which serde_json alone refuses.
    let (run, findings) = crate::common::check_json(
        &["testdata/regressions/claude-duration-beyond-f64.ndjson"],
        None,
    );
    assert!(findings.is_empty(), "{}", run.describe());
    assert_eq!(run.code, 0, "{}", run.describe());
    let run = exec(
        &[
            "stats",
            "--format",
            "json",
            "testdata/regressions/claude-duration-beyond-f64.ndjson",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
}

#[test]
fn a_token_count_that_is_no_count_is_a_wrong_field_type_for_every_agent() {
    // (fixture, the count as written there, the field the finding names)
    let agents = [
        (
            "healthy/result-with-usage.ndjson",
            "\"inputTokens\":18342",
            "usage.inputTokens",
        ),
        (
            "agents/claude-result.ndjson",
            "\"input_tokens\":32",
            "usage.input_tokens",
        ),
        (
            "agents/codex-completed.ndjson",
            "\"input_tokens\":1200",
            "usage.input_tokens",
        ),
        (
            "agents/gemini/tool-run.ndjson",
            "\"input_tokens\":10210",
            "stats.input_tokens",
        ),
    ];
    let rule = "wrong-field-type";
    for (fixture, count, field) in agents {
        let stream = std::fs::read_to_string(testdata(fixture)).unwrap();
        assert!(stream.contains(count), "{fixture} holds {count}");
        let (key, _) = count.split_once(':').unwrap();
        // The largest count there is, and counts that are no counts.
        for (value, wrong) in [
            ("18446744073709551615", false),
            ("1.0", false),
            ("-5", true),
            ("1.5", true),
            ("18446744073709551617", true),
            ("1e20", true),
        ] {
            let changed = stream.replacen(count, &format!("{key}:{value}"), 1);
            let (run, findings) = crate::common::check_json(&["-"], Some(changed.as_bytes()));
            let found: Vec<_> = findings.iter().filter(|f| f.rule == rule).collect();
            if !wrong {
                assert!(
                    found.is_empty(),
                    "{fixture} with {value}: {}",
                    run.describe()
                );
                continue;
            }
            assert_eq!(found.len(), 1, "{fixture} with {value}: {}", run.describe());
            let message = &found[0].message;
            assert!(
                message.contains(&format!("`{field}` is {value}"))
                    && message.contains("a count must be a whole number from 0 to 2^64−1"),
                "{fixture} with {value}: {message}"
            );
            assert_eq!(run.code, 1, "{fixture} with {value}: {}", run.describe());
        }
    }
}

#[test]
fn a_stream_with_no_typed_event_has_one_finding_per_record() {
    for (stream, lines) in [
        (&b"{\"foo\":1}\n"[..], &[1][..]),
        (b"{\"foo\":1}\n{\"bar\":2}\n", &[1, 2]),
    ] {
        let (run, findings) = crate::common::check_json(&["-"], Some(stream));
        let rules: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        let want: Vec<(&str, u64)> = lines.iter().map(|&l| ("missing-type", l)).collect();
        assert_eq!(rules, want, "{}", run.describe());
        assert_eq!(run.code, 1, "{}", run.describe());
    }
    // A stream with events still misses its init and its result.
    let stream = b"{\"foo\":1}\n{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},\"session_id\":\"s\"}\n";
    let (run, findings) = crate::common::check_json(&["-"], Some(stream));
    let rules: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(
        rules,
        [
            ("missing-type", 1),
            ("missing-init", 1),
            ("missing-result", 2)
        ],
        "{}",
        run.describe()
    );
}
