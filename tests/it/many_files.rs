//! Many files at once: `--jobs` spreads them over threads, and the output keeps the order of the
//! paths, identical from run to run and to a one-thread run.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sjlint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn parallel_runs_match_the_one_thread_run() {
    let one = run(&["check", "testdata", "--format", "concise", "--jobs", "1"]);
    assert_eq!(one.0, 1, "testdata holds failing fixtures");
    assert!(one.1.lines().count() > 50, "{}", one.1);
    for _ in 0..3 {
        assert_eq!(
            run(&["check", "testdata", "--format", "concise", "--jobs", "4"]),
            one
        );
    }
    // The default uses every core; the human format and its summary are the same too.
    let human_one = run(&["check", "testdata", "--color", "never", "--jobs", "1"]);
    assert_eq!(run(&["check", "testdata", "--color", "never"]), human_one);
}

#[test]
fn findings_come_in_path_order() {
    let (_, out, _) = run(&[
        "check",
        "testdata/rules",
        "--format",
        "concise",
        "--jobs",
        "3",
    ]);
    // The last line is the summary.
    let mut lines: Vec<&str> = out.lines().collect();
    // (with the agents of the files when they are not all cursor-agent's).
    assert!(
        lines
            .pop()
            .is_some_and(|l| l.contains(" files") && l.contains(" records, ")),
        "{out}"
    );
    let files: Vec<&str> = lines.iter().map(|l| l.split(':').next().unwrap()).collect();
    let mut sorted = files.clone();
    sorted.sort_unstable();
    assert_eq!(files, sorted);
}

#[test]
fn a_missing_path_among_many_is_reported_in_place_and_the_rest_checked() {
    let (code, out, err) = run(&[
        "check",
        "testdata/healthy/two-sessions-appended.ndjson",
        "no/such/file.ndjson",
        "testdata/rules/orphan-completion/fails.ndjson",
        "--format",
        "concise",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no/such/file.ndjson"), "{err}");
    assert!(out.contains("orphan-completion"), "{out}");
    assert_eq!(
        err.lines().count(),
        1,
        "only the missing path is unreadable: {err}"
    );
}

#[test]
fn stats_on_several_threads_prints_what_one_thread_prints() {
    // Every fixture and, when it is here, every corpus file: stats reads several files at once
    // and still prints them in path order, with the totals and findings of a one-thread run; a
    // missing path among them is reported in its place, with the same exit code.
    let mut paths = vec!["testdata".to_owned()];
    if let Some(corpus) = crate::common::corpus_dir() {
        paths.push(corpus.to_str().unwrap().to_owned());
    }
    paths.insert(1, "testdata/no-such-file.ndjson".to_owned());
    for format in ["json", "table"] {
        let mut args = vec!["stats", "--format", format];
        args.extend(paths.iter().map(String::as_str));
        let one = run(&[&args[..], &["--jobs", "1"]].concat());
        assert_eq!(one.0, 2, "the missing path: {}", one.2);
        assert!(
            one.2.contains("no-such-file.ndjson"),
            "the missing path is named: {}",
            one.2
        );
        assert!(one.1.len() > 10_000, "{}", one.1);
        for jobs in ["2", "3"] {
            assert!(
                run(&[&args[..], &["--jobs", jobs]].concat()) == one,
                "stats --jobs {jobs} --format {format} differs from --jobs 1"
            );
        }
    }
}
