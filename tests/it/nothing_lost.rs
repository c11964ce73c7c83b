//! Round 4 of "nothing lost": outputs that would replace an input, temporary files a planted
//! link could redirect, output paths found wrong only after the agent ran, and pages said to be
//! written when they were not. Each case was once reproduced by hand.

use crate::common::{exec, testdata};
use std::fs;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("nothing-lost-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A transcript in `dir`, and its bytes.
fn transcript(dir: &Path) -> (PathBuf, Vec<u8>) {
    let bytes = fs::read(testdata("sample.ndjson")).unwrap();
    let path = dir.join("run.ndjson");
    fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

#[test]
fn a_report_page_never_replaces_its_input() {
    let dir = scratch("report-input");
    let (input, bytes) = transcript(&dir);
    let link = dir.join("page.html");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = dir.join("hard.html");
    fs::hard_link(&input, &hard).unwrap();
    let dotted = dir.join(".").join("run.ndjson");
    for output in [&input, &link, &hard, &dotted] {
        let run = exec(&["report", s(&input), "-o", s(output)], None);
        assert_eq!(run.code, 2, "{}", run.describe());
        assert!(
            run.stderr().contains("is the input") && !run.stderr().contains("wrote"),
            "{}",
            run.describe()
        );
        assert_eq!(fs::read(&input).unwrap(), bytes, "-o {output:?}");
    }
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    // A directory of pages whose index would be an input is refused as well.
    let pages = dir.join("pages");
    fs::create_dir(&pages).unwrap();
    let index = pages.join("index.html");
    fs::write(&index, &bytes).unwrap();
    let run = exec(&["report", s(&input), s(&index), "-o", s(&pages)], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert_eq!(fs::read(&index).unwrap(), bytes);
}

#[test]
fn a_report_of_nothing_readable_writes_nothing_and_says_so() {
    let dir = scratch("report-missing");
    let page = dir.join("page.html");
    fs::write(&page, "<p>yesterday's page</p>").unwrap();
    let run = exec(
        &["report", s(&dir.join("missing.ndjson")), "-o", s(&page)],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(!run.stderr().contains("wrote"), "{}", run.describe());
    assert!(
        run.stderr().contains("nothing written"),
        "{}",
        run.describe()
    );
    assert_eq!(
        fs::read_to_string(&page).unwrap(),
        "<p>yesterday's page</p>"
    );
}

#[test]
fn a_report_page_replaces_a_link_at_its_name_instead_of_writing_through_it() {
    let dir = scratch("report-link");
    let (input, _) = transcript(&dir);
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    let page = dir.join("page.html");
    std::os::unix::fs::symlink(&victim, &page).unwrap();
    let run = exec(&["report", s(&input), "-o", s(&page)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(fs::read_to_string(&page).unwrap().contains("<html"));
    // Nothing temporary is left beside it.
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["page.html", "run.ndjson", "victim.txt"]);
}

/// `sjlint run` of an agent that prints the sample session and leaves a mark that it ran.
fn run_agent(dir: &Path, args: &[&str]) -> crate::common::Run {
    let mark = dir.join("agent-ran");
    let script = format!(
        "touch '{}'; cat '{}'",
        mark.display(),
        testdata("sample.ndjson").display()
    );
    let mut all = vec!["run", "--color", "never"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--", "sh", "-c", &script]);
    exec(&all, None)
}

#[test]
fn run_reports_through_a_fresh_temporary_file_and_never_a_planted_link() {
    let dir = scratch("run-report");
    let page = dir.join("page.html");
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    // The name the transcript once had, planted as a link to the victim.
    std::os::unix::fs::symlink(&victim, dir.join("page.html.stream.tmp")).unwrap();
    let run = run_agent(&dir, &["--report", s(&page)]);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(fs::read_to_string(&page).unwrap().contains("<html"));
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "agent-ran",
            "page.html",
            "page.html.stream.tmp",
            "victim.txt"
        ],
        "the temporary transcript and its arrival times are removed"
    );
}

#[test]
fn run_refuses_output_paths_before_the_agent_starts() {
    let dir = scratch("run-outputs");
    let save = dir.join("run.ndjson");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--summary".into(),
                s(&dir.join("missing/summary.json")).into(),
            ],
            "--summary",
        ),
        (
            vec!["--report".into(), s(&dir.join("missing/page.html")).into()],
            "--report",
        ),
        (
            vec![
                "--save".into(),
                s(&save).into(),
                "--report".into(),
                s(&save).into(),
            ],
            "names the same file as --save",
        ),
        (
            vec![
                "--save".into(),
                s(&save).into(),
                "--summary".into(),
                s(&dir.join(".").join("run.ndjson")).into(),
            ],
            "names the same file as --save",
        ),
        (vec!["--summary".into(), s(&dir).into()], "is a directory"),
    ];
    for (args, said) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = run_agent(&dir, &args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.describe());
        assert!(run.stderr().contains(said), "{args:?}: {}", run.describe());
        assert!(
            !dir.join("agent-ran").exists(),
            "{args:?}: the agent was started"
        );
    }
}
