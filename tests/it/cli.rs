//! Integration tests: they run the real `sjlint` binary on the fixtures of `testdata/`, on the
//! examples of each rule's documentation (`crates/sjlint-core/src/rules/*.md`) and on the real captures of
//! `../shared/corpus`, and check exit codes, findings, output formats and CLI behaviour.
//!
//! Snapshot tests compare the human rendering with `tests/snapshots/*.txt`. To rewrite the
//! snapshots after an intended change, run `SJLINT_BLESS=1 cargo test --test it cli::snapshot`,
//! then review the diff of `tests/snapshots/` by eye.

use crate::common::*;
use sjlint::unstable::rules::{RULES, Rule, RuleInfo, Severity};
use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::Path;
use std::process::Stdio;

// ------------------------------------------------------------------------------------------
// The rule table and its fixtures. Every rule of the table has a folder `testdata/rules/<rule>/`
// (`fails.ndjson`, `passes.ndjson`, `expected.txt`) and a doc `crates/sjlint-core/src/rules/<rule>.md`; the tests
// below find them by themselves, so a rule added to the table is tested without naming it here.

/// `testdata/rules/<rule>/expected.txt`: what the fixtures beside it must give.
struct Expected {
    /// Lines of `fails.ndjson` on which the rule must fire, exactly; `None` (`any`): it must
    /// fire, on a line that is not asserted.
    fires_at: Option<Vec<u64>>,
    /// Other rules that `fails.ndjson` may also trigger (consequences of the same defect).
    fails_also: Vec<String>,
    /// Other rules that `passes.ndjson` may trigger (info findings it cannot avoid).
    passes_also: Vec<String>,
    /// Extra arguments for both runs.
    args: Vec<String>,
    /// `run-only: OPTIONS -- BEHAVIOUR`: a rule only `sjlint run` fires. Each fixture (and doc
    /// example) is written by the fake agent `testdata/agents/replay.sh`, run by `sjlint run
    /// OPTIONS`; for the failing one the agent then does BEHAVIOUR (`hang`, `no-login`), for
    /// the passing one it exits 0.
    run_only: Option<RunOnly>,
}

struct RunOnly {
    options: Vec<String>,
    behaviour: Vec<String>,
    /// `run-exit:` the exit code of `sjlint run` on the failing fixture.
    exit: i32,
}

fn expected(rule: &str) -> Expected {
    let path = testdata(&format!("rules/{rule}/expected.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut fires_at = None;
    let mut out = Expected {
        fires_at: None,
        fails_also: Vec::new(),
        passes_also: Vec::new(),
        args: Vec::new(),
        run_only: None,
    };
    let mut run_exit = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("{}:{}: not `key: value`", path.display(), n + 1));
        let words = || {
            value
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        match key.trim() {
            "fires-at" if value.trim() == "any" => fires_at = Some(None),
            "fires-at" => {
                let lines = value.split_whitespace().map(|w| {
                    w.parse().unwrap_or_else(|_| {
                        panic!("{}:{}: `{w}` is no line", path.display(), n + 1)
                    })
                });
                fires_at = Some(Some(lines.collect()));
            }
            "fails-also" => out.fails_also = words(),
            "passes-also" => out.passes_also = words(),
            "args" => out.args = words(),
            "run-only" => {
                let all = words();
                let dash = all.iter().position(|w| w == "--").unwrap_or_else(|| {
                    panic!(
                        "{}:{}: `run-only: OPTIONS -- BEHAVIOUR`",
                        path.display(),
                        n + 1
                    )
                });
                out.run_only = Some(RunOnly {
                    options: all[..dash].to_vec(),
                    behaviour: all[dash + 1..].to_vec(),
                    exit: 0,
                });
            }
            "run-exit" => run_exit = Some(value.trim().parse::<i32>().expect("an exit code")),
            other => panic!("{}:{}: unknown key `{other}`", path.display(), n + 1),
        }
    }
    out.fires_at = fires_at.unwrap_or_else(|| panic!("{}: no `fires-at:`", path.display()));
    if let Some(run) = &mut out.run_only {
        run.exit = run_exit.unwrap_or_else(|| panic!("{}: no `run-exit:`", path.display()));
    }
    for also in out.fails_also.iter().chain(&out.passes_also) {
        assert!(
            Rule::from_name(also).is_some(),
            "{}: `{also}` is no rule",
            path.display()
        );
    }
    out
}

/// Runs `check` on every rule of the table, two at a time, and fails once with every rule's
/// failure: one broken fixture does not hide the others.
fn for_every_rule(check: fn(&RuleInfo)) {
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(info) = RULES.get(i) else { break };
                    let outcome = std::panic::catch_unwind(|| check(info));
                    if let Err(panic) = outcome {
                        let text = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                            .unwrap_or_default();
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{}: {text}", info.name));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} rule(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Where a rule fixture's bytes come from: a text file given as a path, or a `.template` whose
/// `<0xNN>` markers are expanded and fed on stdin under the fixture's name.
enum Input {
    Path(String),
    Bytes { name: String, bytes: Vec<u8> },
}

fn rule_fixture(rule: &str, which: &str) -> Input {
    let rel = format!("testdata/rules/{rule}/{which}.ndjson");
    let path = manifest_dir().join(&rel);
    if path.is_file() {
        return Input::Path(rel);
    }
    let template = manifest_dir().join(format!("{rel}.template"));
    let text = std::fs::read_to_string(&template)
        .unwrap_or_else(|e| panic!("neither {rel} nor its .template: {e}"));
    Input::Bytes {
        name: rel,
        bytes: expand_bytes(&text),
    }
}

fn check_input(input: &Input, args: &[&str]) -> (Run, Vec<Finding>) {
    match input {
        Input::Path(path) => {
            let mut all = args.to_vec();
            all.push(path);
            check_json(&all, None)
        }
        Input::Bytes { name, bytes } => {
            let mut all = args.to_vec();
            all.extend(["--stdin-filename", name.as_str(), "-"]);
            check_json(&all, Some(bytes))
        }
    }
}

fn expected_exit(severity: &str, strict: bool) -> i32 {
    match (severity, strict) {
        ("error", _) | ("warning", true) => 1,
        _ => 0,
    }
}

/// `fails.ndjson` fires the rule exactly where expected, with its group and severity, and
/// nothing unexpected; the exit code follows the severity (alone, with `--select`); and
/// `passes.ndjson` does not fire it.
fn check_rule_fixtures(info: &RuleInfo) {
    let rule = info.name;
    let case = expected(rule);
    if let Some(run) = &case.run_only {
        let fixture = |which: &str| testdata(&format!("rules/{rule}/{which}.ndjson"));
        return check_run_rule(info, &case, run, &fixture("fails"), &fixture("passes"));
    }
    let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
    let (group, severity) = (info.group.as_str(), info.severity.as_str());

    let fails = rule_fixture(rule, "fails");
    let (run, findings) = check_input(&fails, &args);
    let lines = lines_of(&findings, rule);
    if let Some(fires_at) = &case.fires_at {
        assert_eq!(
            &lines,
            fires_at,
            "lines where {rule} fires on fails.ndjson\n{}",
            show(&findings)
        );
    } else {
        assert!(
            !lines.is_empty(),
            "{rule} must fire on fails.ndjson\n{}",
            show(&findings)
        );
    }
    for f in &findings {
        if f.rule == rule {
            assert_eq!(
                (f.group.as_str(), f.severity.as_str()),
                (group, severity),
                "group and severity of {rule}"
            );
            assert_eq!(f.file, format!("testdata/rules/{rule}/fails.ndjson"));
        } else {
            assert!(
                case.fails_also.contains(&f.rule),
                "fails.ndjson of {rule} also triggers {} (not expected)\n{}",
                f.rule,
                show(&findings)
            );
        }
    }
    let any_error = findings.iter().any(|f| f.severity == "error");
    assert_eq!(run.code, i32::from(any_error), "exit code on fails.ndjson");

    // The rule alone decides the exit code.
    let mut alone = vec!["--select", rule];
    alone.extend_from_slice(&args);
    let (run, _) = check_input(&fails, &alone);
    assert_eq!(
        run.code,
        expected_exit(severity, false),
        "exit code of `--select {rule}` on fails.ndjson\n{}",
        run.describe()
    );
    alone.push("--strict");
    let (run, _) = check_input(&fails, &alone);
    assert_eq!(
        run.code,
        expected_exit(severity, true),
        "exit code of `--select {rule} --strict` on fails.ndjson\n{}",
        run.describe()
    );

    let passes = rule_fixture(rule, "passes");
    let (run, findings) = check_input(&passes, &args);
    let unexpected: Vec<&Finding> = findings
        .iter()
        .filter(|f| !case.passes_also.contains(&f.rule))
        .collect();
    assert!(
        unexpected.is_empty(),
        "passes.ndjson of {rule} must give no finding\n{}",
        show(&findings)
    );
    assert_eq!(run.code, 0, "exit code on passes.ndjson of {rule}");
}

/// `sjlint run --format json OPTIONS -- testdata/agents/replay.sh BEHAVIOUR` with the agent
/// writing `stream`: the run and its findings (from `--output-file`, apart from the agent's
/// stderr and sjlint's notes).
fn run_json(options: &[String], behaviour: &[String], stream: &Path) -> (Run, Vec<Finding>) {
    let out = stream.with_extension(format!("findings-{}.json", behaviour.join("-")));
    let mut cmd = sjlint();
    cmd.args(["run", "--format", "json", "--output-file"])
        .arg(&out)
        .args(options)
        .arg("--")
        .arg(testdata("agents/replay.sh"))
        .args(behaviour)
        .env("STREAM", stream)
        .env_remove("PIDS");
    let run = run_cmd(cmd, None);
    assert!(
        !run.stderr().contains("panicked"),
        "sjlint run panicked\n{}",
        run.describe()
    );
    let written = std::fs::read(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    (run, parse_findings(&written))
}

/// A rule only `sjlint run` fires: the failing stream, replayed by an agent that then does
/// what `run-only` says, fires it where expected (with its group and severity, and only the
/// expected other rules) and `sjlint run` exits with `run-exit`; `--ignore RULE` silences it;
/// the passing stream, replayed by an agent that exits 0, gives no finding and exit 0.
fn check_run_rule(info: &RuleInfo, case: &Expected, run: &RunOnly, fails: &Path, passes: &Path) {
    if !cfg!(unix) {
        return;
    }
    let rule = info.name;
    let (ran, findings) = run_json(&run.options, &run.behaviour, fails);
    let lines = lines_of(&findings, rule);
    match &case.fires_at {
        Some(at) => assert_eq!(&lines, at, "lines where {rule} fires\n{}", ran.describe()),
        None => assert!(!lines.is_empty(), "{rule} must fire\n{}", ran.describe()),
    }
    for f in &findings {
        if f.rule == rule {
            assert_eq!(
                (f.group.as_str(), f.severity.as_str()),
                (info.group.as_str(), info.severity.as_str()),
                "group and severity of {rule}"
            );
        } else {
            assert!(
                case.fails_also.contains(&f.rule),
                "the failing run of {rule} also gives {} (not expected)\n{}",
                f.rule,
                show(&findings)
            );
        }
    }
    assert_eq!(
        ran.code,
        run.exit,
        "exit code of the failing run of {rule}\n{}",
        ran.describe()
    );

    let mut ignoring = run.options.clone();
    ignoring.extend(["--ignore".to_owned(), rule.to_owned()]);
    let (ran, findings) = run_json(&ignoring, &run.behaviour, fails);
    assert!(
        lines_of(&findings, rule).is_empty(),
        "--ignore {rule}\n{}",
        ran.describe()
    );

    let (ran, findings) = run_json(&run.options, &[], passes);
    assert!(
        findings.iter().all(|f| case.passes_also.contains(&f.rule)),
        "the passing run of {rule} must give no finding\n{}",
        show(&findings)
    );
    assert_eq!(
        ran.code,
        0,
        "exit code of the passing run of {rule}\n{}",
        ran.describe()
    );
}

#[test]
fn every_rule_has_its_fixtures_and_doc_and_nothing_else_does() {
    let table: BTreeSet<String> = RULES.iter().map(|r| r.name.to_owned()).collect();
    let folders: BTreeSet<String> = std::fs::read_dir(testdata("rules"))
        .expect("testdata/rules")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        folders.difference(&table).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "folders of testdata/rules/ that name no rule"
    );
    assert_eq!(
        table.difference(&folders).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "rules with no folder in testdata/rules/"
    );
    let docs: BTreeSet<String> = documented_rules().into_iter().collect();
    assert_eq!(
        docs, table,
        "crates/sjlint-core/src/rules/*.md against the rule table"
    );
    for rule in &table {
        for which in ["fails", "passes"] {
            let base = testdata(&format!("rules/{rule}/{which}.ndjson"));
            let template = testdata(&format!("rules/{rule}/{which}.ndjson.template"));
            assert!(
                base.is_file() || template.is_file(),
                "missing fixture {}",
                base.display()
            );
        }
        expected(rule);
    }
}

/// Every rule's `fails.ndjson` fires it on the lines of its `expected.txt`, and its
/// `passes.ndjson` does not.
#[test]
fn rule_fixtures() {
    for_every_rule(check_rule_fixtures);
}
#[test]
fn related_locations_point_at_the_started_event() {
    for rule in [
        "duplicate-call-id",
        "tool-kind-mismatch",
        "tool-args-mismatch",
    ] {
        let (_, findings) = check_input(&rule_fixture(rule, "fails"), &[]);
        let f = findings
            .iter()
            .find(|f| f.rule == rule)
            .unwrap_or_else(|| panic!("{rule} must fire\n{}", show(&findings)));
        assert!(
            f.related.iter().any(|(line, _)| *line == 3),
            "{rule} at line {} should name the `started` on line 3 as related: {:?}",
            f.line,
            f.related
        );
    }
}

// ------------------------------------------------------------------------------------------
// The examples of each rule's documentation.

fn doc_example_input(rule: &str, heading: &str) -> Vec<u8> {
    let text = doc_example(rule, heading);
    // The invalid-utf8 doc writes its bad byte as `<0xE9>`; the fixtures use the same notation.
    expand_bytes(&text)
}

fn check_doc_examples(info: &RuleInfo) {
    let rule = info.name;
    let mut case = expected(rule);
    if let Some(run) = case.run_only.take() {
        // The examples are what the agent writes; the expectations are the fixtures' own,
        // except where the rule fires.
        let dir = std::env::temp_dir().join(format!("sjlint-doc-{}-{rule}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (fails, passes) = (dir.join("fails.ndjson"), dir.join("passes.ndjson"));
        std::fs::write(&fails, doc_example_input(rule, "## Example that fails")).unwrap();
        std::fs::write(&passes, doc_example_input(rule, "## Example that passes")).unwrap();
        case.fires_at = None;
        let outcome =
            std::panic::catch_unwind(|| check_run_rule(info, &case, &run, &fails, &passes));
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
        return;
    }
    let mut args = vec!["--stdin-filename", "example.ndjson"];
    if rule == "record-too-large" {
        args.extend(["--max-record-bytes", "200"]);
    }
    if rule == "too-many-open-calls" {
        args.extend(["--max-open-calls", "2"]);
    }
    if rule == "unknown-field" {
        // Off unless turned on.
        args.push("--strict-schema");
    }
    let fails = doc_example_input(rule, "## Example that fails");
    if rule == "byte-order-mark" {
        assert!(
            fails.starts_with(b"\xEF\xBB\xBF"),
            "the failing example starts with a BOM"
        );
    }
    if rule == "invalid-utf8" {
        assert!(
            std::str::from_utf8(&fails).is_err(),
            "the marker must become a raw byte"
        );
    }
    let (run, findings) = check_json(&args, Some(&fails));
    assert!(
        rules_of(&findings).contains(rule),
        "the failing example of {rule}.md must fire it\n{}",
        show(&findings)
    );
    if info.severity == Severity::Error {
        assert_eq!(run.code, 1, "exit code on the failing example of {rule}.md");
    }

    let passes = doc_example_input(rule, "## Example that passes");
    let (run, findings) = check_json(&args, Some(&passes));
    assert!(
        findings.is_empty(),
        "the passing example of {rule}.md must give no finding\n{}",
        show(&findings)
    );
    assert_eq!(run.code, 0, "exit code on the passing example of {rule}.md");
}

/// The failing example of every rule's `explain` text fires it; the passing one gives nothing.
#[test]
fn doc_examples() {
    for_every_rule(check_doc_examples);
}

// ------------------------------------------------------------------------------------------
// Files generated from the rule table: the table of docs/rules.md and the diagnostic schema's list
// of rule names. They are checked in; a test fails when they drift from `crates/sjlint-core/src/rules/mod.rs`, and
// `SJLINT_BLESS=1 cargo test --test it generated` rewrites them.

const RULE_TABLE_START: &str = "| rule | group | severity | fires when |\n";
const RULE_TABLE_END: &str = "<!-- end of the generated rule table -->";

fn rules_page_table() -> String {
    let mut out = String::from(RULE_TABLE_START);
    out.push_str("|---|---|---|---|\n");
    for info in RULES {
        let summary = info.summary.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | {} | {summary} |\n",
            info.name,
            info.group.as_str(),
            info.severity.as_str()
        ));
    }
    out
}

fn schema_rule_list(indent: &str) -> String {
    let names: Vec<String> = RULES
        .iter()
        .map(|r| format!("{indent}  \"{}\"", r.name))
        .collect();
    format!("[\n{}\n{indent}]", names.join(",\n"))
}

/// `text` with the part from `start` up to (not including) `end` replaced by `with`.
fn replace_between(text: &str, start: &str, end: &str, with: &str) -> String {
    let a = text
        .find(start)
        .unwrap_or_else(|| panic!("`{start}` not found"));
    let b = a + text[a..]
        .find(end)
        .unwrap_or_else(|| panic!("`{end}` not found"));
    format!("{}{with}{}", &text[..a], &text[b..])
}

fn check_generated(rel: &str, generate: impl Fn(&str) -> String) -> Option<String> {
    let path = manifest_dir().join(rel);
    let now = std::fs::read_to_string(&path).unwrap();
    let want = generate(&now);
    if now == want {
        return None;
    }
    if std::env::var_os("SJLINT_BLESS").is_some() {
        std::fs::write(&path, want).unwrap();
        return None;
    }
    Some(format!(
        "{rel} is out of date with crates/sjlint-core/src/rules/mod.rs: run `SJLINT_BLESS=1 cargo test --test it generated`"
    ))
}

#[test]
fn generated_files_follow_the_rule_table() {
    let rules_page = check_generated("docs/rules.md", |now| {
        replace_between(now, RULE_TABLE_START, RULE_TABLE_END, &rules_page_table())
    });
    let schema = check_generated("schemas/diagnostic.schema.json", |now| {
        let start = "\"rule\": {";
        let at = now.find(start).expect("the schema has a rule property");
        let list = at + now[at..].find("\"enum\": ").unwrap() + "\"enum\": ".len();
        let end = list + now[list..].find(']').unwrap() + 1;
        let line_start = now[..list].rfind('\n').unwrap() + 1;
        let indent = &now[line_start..list - "\"enum\": ".len()];
        format!(
            "{}{}{}",
            &now[..list],
            schema_rule_list(indent),
            &now[end..]
        )
    });
    let drift: Vec<String> = [rules_page, schema].into_iter().flatten().collect();
    assert!(drift.is_empty(), "{}", drift.join("\n"));
}

// ------------------------------------------------------------------------------------------
// Healthy streams, as real runs write them.

/// A healthy stream: exit 0 and no finding of error or warning severity.
fn assert_healthy(rel: &str) {
    let path = format!("testdata/{rel}");
    let (run, findings) = check_json(&[&path], None);
    let serious: Vec<&Finding> = findings.iter().filter(|f| f.severity != "info").collect();
    assert!(
        serious.is_empty(),
        "{path} must be healthy\n{}",
        show(&findings)
    );
    assert_eq!(run.code, 0, "{path}: {}", run.describe());
    let (run, _) = check_json(&["--strict", &path], None);
    assert_eq!(run.code, 0, "{path} with --strict: {}", run.describe());
}

macro_rules! healthy_tests {
    ($($(#[$meta:meta])* $name:ident => $file:literal,)*) => {
        mod healthy {
            /// Every file of `testdata/healthy/` has a test below.
            #[test]
            fn every_fixture_is_listed() {
                let listed: &[&str] = &[$($file),*];
                let dir = super::testdata("healthy");
                for entry in std::fs::read_dir(&dir).expect("testdata/healthy") {
                    let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                    assert!(listed.contains(&name.as_str()), "healthy/{name} has no test");
                }
            }
            $(
                $(#[$meta])*
                #[test]
                fn $name() {
                    super::assert_healthy(concat!("healthy/", $file));
                }
            )*
        }
    };
}

healthy_tests! {
    thinking_deltas_then_completed => "thinking-deltas-then-completed.ndjson",
    parallel_shell_calls_complete_out_of_order => "parallel-shell-calls-complete-out-of-order.ndjson",
    openai_call_ids_with_escaped_newline => "openai-call-ids-with-escaped-newline.ndjson",
    two_sessions_appended => "two-sessions-appended.ndjson",
    partial_output_deltas_then_flush => "partial-output-deltas-then-flush.ndjson",
    partial_output_flush_stamped_before_a_tool_call => "partial-output-flush-stamped-before-a-tool-call.ndjson",
    web_search_only_completes_announced_by_query => "web-search-only-completes-announced-by-query.ndjson",
    rejected_edit_completed_without_args => "rejected-edit-completed-without-args.ndjson",
    tool_call_sibling_keys => "tool-call-sibling-keys.ndjson",
    result_with_usage => "result-with-usage.ndjson",
    unicode_text => "unicode-text.ndjson",
    single_result_output_format_json => "single-result-output-format-json.json",
}

/// The sample the README's first command checks, whole: `sjlint testdata/sample.ndjson` passes with
/// no finding at all (the first command's sample-with-problem.ndjson lacks one completion).
#[test]
fn sample_has_no_finding() {
    let (run, findings) = check_json(&["testdata/sample.ndjson"], None);
    assert!(findings.is_empty(), "{}", show(&findings));
    assert_eq!(run.code, 0);
    let run = exec(&["testdata/sample.ndjson"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    for marker in ["error[", "warning[", "info["] {
        assert!(!out.contains(marker), "{}", run.describe());
    }
}

#[test]
fn sample_with_crlf_line_endings_is_still_healthy() {
    let text = std::fs::read_to_string(testdata("sample.ndjson")).unwrap();
    let crlf = text.replace('\n', "\r\n");
    let (run, findings) = check_json(&["-"], Some(crlf.as_bytes()));
    assert!(
        serious_rules_of(&findings).is_empty(),
        "CRLF endings must not break records\n{}",
        show(&findings)
    );
    assert_eq!(run.code, 0);
}

#[test]
fn raw_newline_in_call_id_gives_one_warning_and_pairs() {
    let path = "testdata/warnings/raw-newline-in-call-id.ndjson";
    let (run, findings) = check_json(&[path], None);
    assert_eq!(
        findings
            .iter()
            .map(|f| (f.rule.as_str(), f.line))
            .collect::<Vec<_>>(),
        [("raw-control-character", 4)],
        "{}",
        show(&findings)
    );
    assert_eq!(run.code, 0);
    let (run, _) = check_json(&["--strict", path], None);
    assert_eq!(run.code, 1, "warnings fail the run under --strict");
}

#[test]
fn line_numbers_count_the_physical_lines_of_a_multi_line_record() {
    // Line 3-4: one record with a raw LF in its call_id; line 5: an unknown event type.
    let input = concat!(
        r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"session_id":"s1"}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"started","call_id":"call_1"#,
        "\n",
        r#"fc_2","tool_call":{"lsToolCall":{"args":{"path":"/w"}}},"model_call_id":"m1","session_id":"s1","timestamp_ms":1000}"#,
        "\n",
        r#"{"type":"heartbeat","session_id":"s1"}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"completed","call_id":"call_1\nfc_2","tool_call":{"lsToolCall":{"args":{"path":"/w"},"result":{"success":{}}}},"model_call_id":"m1","session_id":"s1","timestamp_ms":1200}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"session_id":"s1"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"ok","session_id":"s1","request_id":"r1"}"#,
        "\n",
    );
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(
        got,
        [("raw-control-character", 3), ("unknown-event-type", 5)],
        "{}",
        show(&findings)
    );
}

#[test]
fn a_line_that_opens_a_string_does_not_swallow_the_next_lines() {
    // Line 3 opens a string it never closes; lines 4 and 5 are records of their own.
    let input = concat!(
        r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"session_id":"s1"}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"cut here"#,
        "\n",
        r#"{"type":"heartbeat","session_id":"s1"}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"session_id":"s1"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"ok","session_id":"s1","request_id":"r1"}"#,
        "\n",
    );
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    assert_eq!(
        findings.iter().filter(|f| f.line == 3).count(),
        1,
        "one framing finding for line 3\n{}",
        show(&findings)
    );
    let at3 = findings.iter().find(|f| f.line == 3).unwrap();
    assert_eq!(at3.group, "framing", "{}", show(&findings));
    assert_eq!(
        lines_of(&findings, "unknown-event-type"),
        [4],
        "{}",
        show(&findings)
    );
    let others: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.line != 3 && f.line != 4)
        .collect();
    assert!(others.is_empty(), "lines 5-6 are fine\n{}", show(&findings));

    // The same with plain text holding one quote, as merged stderr can.
    let input = input.replacen(
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"cut here"#,
        r#"Error: unexpected token "}" in config"#,
        1,
    );
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    assert_eq!(
        lines_of(&findings, "invalid-json"),
        [3],
        "{}",
        show(&findings)
    );
    assert_eq!(
        lines_of(&findings, "unknown-event-type"),
        [4],
        "{}",
        show(&findings)
    );
}

/// missing-field.md: only `started` and `completed` need `call_id` and `tool_call`; a
/// `tool_call` event of an unknown subtype is reported by unknown-subtype alone.
#[test]
fn a_tool_call_event_of_unknown_subtype_needs_no_tool_call_field() {
    let input = concat!(
        r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"progress","percent":40,"session_id":"s1","timestamp_ms":1000}"#,
        "\n",
        r#"{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"ok","session_id":"s1","request_id":"r1"}"#,
        "\n",
    );
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(got, [("unknown-subtype", 2)], "{}", show(&findings));
}

#[test]
fn empty_input_is_an_empty_stream_on_line_zero() {
    let (run, findings) = check_json(&[], Some(b""));
    assert_eq!(
        findings
            .iter()
            .map(|f| (f.rule.as_str(), f.line, f.file.as_str()))
            .collect::<Vec<_>>(),
        [("empty-stream", 0, "-")],
        "{}",
        show(&findings)
    );
    assert_eq!(run.code, 1);
}

// ------------------------------------------------------------------------------------------
// The real captures of ../shared/corpus and the verdicts its README gives.

/// The corpus files whose name ends with one of `suffixes`, checked to exist.
fn corpus_files(dir: &Path, suffixes: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("corpus is readable")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| suffixes.iter().any(|s| n.ends_with(s)))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no corpus file ends with {suffixes:?}");
    names
}

fn check_corpus_file(dir: &Path, name: &str) -> (Run, Vec<Finding>) {
    let path = dir.join(name);
    check_json(&[path.to_str().expect("UTF-8 path")], None)
}

const CLEAN_CAPTURES: &[&str] = &[
    "__experiments__direct-sleep.jsonl",
    "__experiments__parallel-sleep.jsonl",
    "__experiments__subagent-sleep.jsonl",
    "__experiments__subagent-sleep-v2.jsonl",
    "__hello-response.ndjson",
    "__tool-use-response.ndjson",
];

/// `(file suffix, the exact set of rules the single event fires as a whole stream)`.
const SINGLE_EVENTS: &[(&str, &[&str])] = &[
    ("testdata__result.json", &[]),
    ("testdata__system_init.json", &["missing-result"]),
    (
        "testdata__tool_call_started.json",
        &["missing-init", "missing-result", "unfinished-tool-call"],
    ),
    (
        "testdata__tool_call_completed.json",
        &["missing-init", "missing-result", "orphan-completion"],
    ),
    (
        "testdata__assistant_final.json",
        &["missing-init", "missing-result"],
    ),
    (
        "testdata__assistant_mid_turn.json",
        &["missing-init", "missing-result"],
    ),
    (
        "testdata__thinking_completed.json",
        &["missing-init", "missing-result"],
    ),
    (
        "testdata__thinking_delta.json",
        &["missing-init", "missing-result"],
    ),
    ("testdata__user.json", &["missing-init", "missing-result"]),
];

#[test]
fn corpus_every_file_has_a_verdict() {
    let Some(dir) = corpus_dir() else { return };
    let mut known: Vec<&str> = CLEAN_CAPTURES.to_vec();
    known.extend(SINGLE_EVENTS.iter().map(|(s, _)| *s));
    known.extend(["__full_session.jsonl", "__error-auth.ndjson", "README.md"]);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        // `agents/` holds the other agents' captures, with verdicts of their own.
        if entry.file_type().unwrap().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            known.iter().any(|s| name.ends_with(s)),
            "corpus file {name} has no expected verdict in tests/it/cli.rs"
        );
    }
}

#[test]
fn corpus_clean_captures_pass() {
    let Some(dir) = corpus_dir() else { return };
    for name in corpus_files(&dir, CLEAN_CAPTURES) {
        let (run, findings) = check_corpus_file(&dir, &name);
        assert!(
            serious_rules_of(&findings).is_empty(),
            "{name} is clean\n{}",
            show(&findings)
        );
        assert_eq!(run.code, 0, "{name}");
    }
    assert_eq!(
        corpus_files(&dir, CLEAN_CAPTURES).len(),
        CLEAN_CAPTURES.len()
    );
}

#[test]
fn corpus_trimmed_full_session_warns_about_the_result_text_only() {
    let Some(dir) = corpus_dir() else { return };
    for name in corpus_files(&dir, &["__full_session.jsonl"]) {
        let (run, findings) = check_corpus_file(&dir, &name);
        assert_eq!(
            serious_rules_of(&findings),
            BTreeSet::from(["result-text-mismatch".to_owned()]),
            "{name}\n{}",
            show(&findings)
        );
        assert!(findings.iter().all(|f| f.severity != "error"));
        assert_eq!(run.code, 0, "{name}");
    }
}

#[test]
fn corpus_error_auth_is_a_result_flag_mismatch() {
    let Some(dir) = corpus_dir() else { return };
    for name in corpus_files(&dir, &["__error-auth.ndjson"]) {
        let (run, findings) = check_corpus_file(&dir, &name);
        let errors: BTreeSet<String> = findings
            .iter()
            .filter(|f| f.severity == "error")
            .map(|f| f.rule.clone())
            .collect();
        assert_eq!(
            errors,
            BTreeSet::from(["result-flag-mismatch".to_owned()]),
            "{name}\n{}",
            show(&findings)
        );
        assert_eq!(run.code, 1, "{name}");
    }
}

#[test]
fn corpus_single_events_are_well_formed_and_fire_only_lifecycle_rules() {
    let Some(dir) = corpus_dir() else { return };
    for (suffix, expected) in SINGLE_EVENTS {
        for name in corpus_files(&dir, &[suffix]) {
            let (run, findings) = check_corpus_file(&dir, &name);
            for f in &findings {
                assert!(
                    f.group != "framing" && f.group != "schema",
                    "{name}: no framing or schema finding\n{}",
                    show(&findings)
                );
            }
            let expected: BTreeSet<String> = expected
                .iter()
                .map(std::string::ToString::to_string)
                .collect();
            assert_eq!(rules_of(&findings), expected, "{name}\n{}", show(&findings));
            assert_eq!(run.code, i32::from(!expected.is_empty()), "{name}");
        }
    }
}

// ------------------------------------------------------------------------------------------
// Output formats.

const MANY: &str = "testdata/many-findings.ndjson";

#[test]
fn json_output_validates_against_the_schema() {
    let schema_text =
        std::fs::read_to_string(manifest_dir().join("schemas/diagnostic.schema.json"))
            .expect("the schema is readable");
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");

    let (run, findings) = check_json(&[MANY], None);
    assert!(
        rules_of(&findings).len() >= 20,
        "many-findings.ndjson should trigger many rules\n{}",
        show(&findings)
    );
    let mut also = check_json(
        &["--max-record-bytes", "100", "testdata/sample.ndjson"],
        None,
    )
    .0
    .stdout;
    also.extend(check_json(&[], Some(b"")).0.stdout);
    // One finding per line inside the array's brackets.
    let stdout = run.stdout();
    let also = String::from_utf8(also).unwrap();
    for line in stdout
        .lines()
        .chain(also.lines())
        .filter(|l| !matches!(*l, "[" | "]" | "[]"))
        .map(|l| l.trim_end_matches(','))
    {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{line}\ndoes not match the schema: {errors:?}"
        );
        let keys = keys_in_written_order(line);
        assert_eq!(
            keys,
            [
                "file",
                "line",
                "column",
                "end_column",
                "record",
                "byte",
                "rule",
                "group",
                "severity",
                "message",
                "related",
                "help"
            ],
            "keys in the documented order"
        );
    }
}

#[test]
fn concise_format_is_one_line_per_finding() {
    let (_, findings) = check_json(&[MANY], None);
    let run = exec(&["--format", "concise", MANY], None);
    assert_eq!(run.code, 1);
    let out = run.stdout();
    let mut lines: Vec<&str> = out.lines().collect();
    // The last line sums the run up, as the human format's does.
    let summary = lines.pop().unwrap_or_default();
    assert!(
        summary.ends_with("in 1 file; 25 records, 5.5 kB"),
        "{summary}"
    );
    assert_eq!(lines.len(), findings.len(), "{out}");
    for (line, f) in lines.iter().zip(&findings) {
        let location = match f.column {
            Some(col) => format!("{MANY}:{}:{col}:", f.line),
            None => format!("{MANY}:{}:", f.line),
        };
        let expected = format!("{location} {}[{}] ", f.severity, f.rule);
        assert!(
            line.starts_with(&expected),
            "{line:?} should start with {expected:?}"
        );
    }
}

#[test]
fn human_format_names_rule_and_location() {
    let run = exec(
        &[
            "--color",
            "never",
            "testdata/rules/orphan-completion/fails.ndjson",
        ],
        None,
    );
    assert_eq!(run.code, 1);
    let out = run.stdout();
    assert!(out.contains("error[orphan-completion]"), "{out}");
    assert!(
        out.contains(" --> testdata/rules/orphan-completion/fails.ndjson:5"),
        "{out}"
    );
}

// ------------------------------------------------------------------------------------------
// Rule selection and exit codes.

#[test]
fn select_by_rule_keeps_only_that_rule() {
    let (run, findings) = check_json(&["--select", "orphan-completion", MANY], None);
    assert_eq!(
        rules_of(&findings),
        BTreeSet::from(["orphan-completion".to_owned()]),
        "{}",
        show(&findings)
    );
    assert_eq!(run.code, 1);

    let (run, findings) = check_json(&["--select", "unknown-tool-kind", MANY], None);
    assert_eq!(
        rules_of(&findings),
        BTreeSet::from(["unknown-tool-kind".to_owned()])
    );
    assert_eq!(run.code, 0, "infos alone do not fail the run");
}

#[test]
fn select_by_group_keeps_only_that_group() {
    let (_, all) = check_json(&[MANY], None);
    let (_, findings) = check_json(&["--select", "tool-calls", MANY], None);
    let expected: Vec<(String, u64)> = all
        .iter()
        .filter(|f| f.group == "tool-calls")
        .map(|f| (f.rule.clone(), f.line))
        .collect();
    assert!(expected.len() >= 3, "{}", show(&all));
    let got: Vec<(String, u64)> = findings.iter().map(|f| (f.rule.clone(), f.line)).collect();
    assert_eq!(got, expected);
}

#[test]
fn select_several_names_mixing_rules_and_groups() {
    let (_, all) = check_json(&[MANY], None);
    let (_, findings) = check_json(&["--select", "lifecycle,blank-line", MANY], None);
    let expected: BTreeSet<String> = all
        .iter()
        .filter(|f| f.group == "lifecycle" || f.rule == "blank-line")
        .map(|f| f.rule.clone())
        .collect();
    assert!(
        expected.contains("blank-line") && expected.len() >= 3,
        "{}",
        show(&all)
    );
    assert_eq!(rules_of(&findings), expected, "{}", show(&findings));
}

#[test]
fn ignore_by_rule_and_by_group() {
    let (_, all) = check_json(&[MANY], None);
    let all_rules = rules_of(&all);
    for needed in [
        "invalid-json",
        "blank-line",
        "unknown-tool-kind",
        "orphan-completion",
    ] {
        assert!(all_rules.contains(needed), "{needed}\n{}", show(&all));
    }

    let (_, findings) = check_json(&["--ignore", "unknown-tool-kind,blank-line", MANY], None);
    let mut expected = all_rules.clone();
    expected.remove("unknown-tool-kind");
    expected.remove("blank-line");
    assert_eq!(rules_of(&findings), expected);

    let (_, findings) = check_json(&["--ignore", "framing", MANY], None);
    assert!(
        findings.iter().all(|f| f.group != "framing"),
        "{}",
        show(&findings)
    );
    assert_eq!(
        findings.len(),
        all.iter().filter(|f| f.group != "framing").count()
    );

    let (_, findings) = check_json(
        &["--select", "lifecycle", "--ignore", "missing-result", MANY],
        None,
    );
    assert!(!findings.is_empty());
    assert!(
        findings
            .iter()
            .all(|f| f.group == "lifecycle" && f.rule != "missing-result"),
        "{}",
        show(&findings)
    );
}

#[test]
fn an_unknown_rule_name_is_a_usage_error() {
    let run = exec(&["--select", "orphan-completon", MANY], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    let run = exec(&["--ignore", "no-such-group", MANY], None);
    assert_eq!(run.code, 2, "{}", run.describe());
}

#[test]
fn strict_makes_warnings_fail() {
    let path = "testdata/rules/result-text-mismatch/fails.ndjson";
    assert_eq!(check_json(&[path], None).0.code, 0);
    assert_eq!(check_json(&["--strict", path], None).0.code, 1);
    // Infos never fail the run.
    let path = "testdata/rules/unknown-tool-kind/fails.ndjson";
    assert_eq!(check_json(&["--strict", path], None).0.code, 0);
}

#[test]
fn exit_zero_reports_but_exits_zero() {
    let (run, findings) = check_json(&["--exit-zero", MANY], None);
    assert_eq!(run.code, 0);
    assert!(findings.iter().any(|f| f.severity == "error"));
    let (run, _) = check_json(&["--exit-zero", "--strict", MANY], None);
    assert_eq!(run.code, 0);
}

#[test]
fn max_diagnostics_limits_the_printed_findings() {
    let (run, findings) = check_json(&["--max-diagnostics", "1", MANY], None);
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert_eq!(run.code, 1, "the findings not printed still count");

    let run = exec(
        &["--format", "concise", "--max-diagnostics", "1", MANY],
        None,
    );
    // The finding and the summary line.
    assert_eq!(run.stdout().lines().count(), 2, "{}", run.describe());

    let run = exec(&["--color", "never", "--max-diagnostics", "1", MANY], None);
    let out = run.stdout();
    let headers = out
        .lines()
        .filter(|l| l.starts_with("error[") || l.starts_with("warning[") || l.starts_with("info["))
        .count();
    assert_eq!(headers, 1, "{out}");
}

// ------------------------------------------------------------------------------------------
// Inputs: stdin, paths, directories.

#[test]
fn stdin_is_the_default_input_and_named_dash() {
    let bytes = std::fs::read(testdata("rules/missing-init/fails.ndjson")).unwrap();
    let (run, findings) = check_json(&[], Some(&bytes));
    assert_eq!(run.code, 1);
    assert!(!findings.is_empty());
    assert!(
        findings.iter().all(|f| f.file == "-"),
        "{}",
        show(&findings)
    );
    assert_eq!(lines_of(&findings, "missing-init"), [1]);

    // `sjlint -` and `sjlint check -` are the same.
    let (_, again) = check_json(&["-"], Some(&bytes));
    assert_eq!(show(&again), show(&findings));
    let run2 = exec(&["--format", "json"], Some(&bytes));
    assert_eq!(run2.stdout, run.stdout, "`check` is the default command");
}

#[test]
fn stdin_filename_names_stdin_in_every_format() {
    let bytes = std::fs::read(testdata("rules/missing-init/fails.ndjson")).unwrap();
    let (_, findings) = check_json(&["--stdin-filename", "runs/today.ndjson"], Some(&bytes));
    assert!(!findings.is_empty());
    assert!(
        findings.iter().all(|f| f.file == "runs/today.ndjson"),
        "{}",
        show(&findings)
    );
    let run = exec(
        &[
            "--format",
            "concise",
            "--stdin-filename",
            "runs/today.ndjson",
        ],
        Some(&bytes),
    );
    assert!(
        run.stdout().starts_with("runs/today.ndjson:1:"),
        "{}",
        run.describe()
    );
    let run = exec(
        &["--color", "never", "--stdin-filename", "runs/today.ndjson"],
        Some(&bytes),
    );
    assert!(
        run.stdout().contains(" --> runs/today.ndjson:1"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_missing_path_exits_2_and_the_other_paths_are_still_checked() {
    let other = "testdata/rules/orphan-completion/fails.ndjson";
    let run = exec(
        &["--format", "json", "testdata/no-such-file.ndjson", other],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().contains("no-such-file.ndjson"),
        "{}",
        run.describe()
    );
    let findings = run.findings();
    assert_eq!(
        lines_of(&findings, "orphan-completion"),
        [5],
        "{}",
        show(&findings)
    );
    assert!(findings.iter().all(|f| f.file == other));

    // Also when the missing path comes last.
    let run = exec(
        &["--format", "json", other, "testdata/no-such-file.ndjson"],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert_eq!(lines_of(&run.findings(), "orphan-completion"), [5]);
}

#[test]
fn stdin_and_files_together() {
    let bytes = std::fs::read(testdata("rules/missing-init/fails.ndjson")).unwrap();
    let other = "testdata/rules/orphan-completion/fails.ndjson";
    let (_, findings) = check_json(&[other, "-"], Some(&bytes));
    let files: Vec<&str> = findings.iter().map(|f| f.file.as_str()).collect();
    let first_stdin = files.iter().position(|f| *f == "-").expect("stdin checked");
    assert!(
        files[..first_stdin].iter().all(|f| *f == other),
        "{files:?}"
    );
    assert!(files[first_stdin..].iter().all(|f| *f == "-"), "{files:?}");
}

#[test]
fn a_directory_is_walked_in_sorted_order() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("walk");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    // Each file starts without `init`: one missing-init on line 1 names the file.
    let stream = |text: &str| {
        format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}},\"session_id\":\"s1\"}}\n"
        )
    };
    for name in [
        "b.ndjson",
        "a.jsonl",
        "c.json",
        "sub/d.ndjson",
        "notes.txt",
        "z.log",
    ] {
        std::fs::write(dir.join(name), stream(name)).unwrap();
    }
    let dir_arg = dir.to_str().unwrap();
    let (run, findings) = check_json(&["--select", "missing-init", dir_arg], None);
    assert_eq!(run.code, 1);
    let files: Vec<String> = findings
        .iter()
        .map(|f| {
            Path::new(&f.file)
                .strip_prefix(&dir)
                .unwrap_or_else(|_| panic!("{} is not under the walked directory", f.file))
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(files, ["a.jsonl", "b.ndjson", "c.json", "sub/d.ndjson"]);

    // Deterministic: the same bytes every time.
    let again = check_json(&["--select", "missing-init", dir_arg], None).0;
    assert_eq!(again.stdout, run.stdout);
}

#[test]
fn walking_the_healthy_fixtures_finds_no_problem() {
    let (run, findings) = check_json(&["testdata/healthy"], None);
    assert!(
        serious_rules_of(&findings).is_empty(),
        "{}",
        show(&findings)
    );
    assert_eq!(run.code, 0);
}

// ------------------------------------------------------------------------------------------
// `rules` and `explain`.

#[test]
fn rules_lists_every_rule_with_its_group_and_severity() {
    let run = exec(&["rules"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), RULES.len(), "{out}");
    let mut listed = BTreeSet::new();
    for line in &lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let info = Rule::from_name(words[0])
            .unwrap_or_else(|| panic!("`{}` is no rule", words[0]))
            .info();
        assert_eq!(
            (words.get(1).copied(), words.get(2).copied()),
            (Some(info.group.as_str()), Some(info.severity.as_str())),
            "{line}"
        );
        listed.insert(words[0].to_owned());
    }
    assert_eq!(
        listed,
        documented_rules().into_iter().collect::<BTreeSet<_>>()
    );
}

#[test]
fn explain_prints_the_rule_documentation() {
    let run = exec(&["explain", "orphan-completion"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc = std::fs::read_to_string(
        manifest_dir().join("crates/sjlint-core/src/rules/orphan-completion.md"),
    )
    .unwrap();
    assert_eq!(run.stdout(), doc);
}

#[test]
fn explain_knows_every_rule() {
    for rule in documented_rules() {
        let run = exec(&["explain", &rule], None);
        assert_eq!(run.code, 0, "{rule}: {}", run.describe());
        let doc = std::fs::read_to_string(
            manifest_dir().join(format!("crates/sjlint-core/src/rules/{rule}.md")),
        );
        assert_eq!(run.stdout(), doc.unwrap(), "{rule}");
    }
}

#[test]
fn explain_an_unknown_rule_suggests_the_nearest() {
    let run = exec(&["explain", "orphan-completon"], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr().contains("orphan-completion"),
        "a suggestion: {}",
        run.describe()
    );
}

// ------------------------------------------------------------------------------------------
// --tee, a closed stdout, colour.

/// A stream with every framing oddity a byte-for-byte copy must keep: a BOM, CRLF, a blank
/// line, a raw newline inside a string, a byte that is not UTF-8, a long line, and no final LF.
fn awkward_stream() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"\xEF\xBB\xBF");
    b.extend_from_slice(br#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#);
    b.extend_from_slice(b"\r\n");
    b.extend_from_slice(br#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"session_id":"s1"}"#);
    b.extend_from_slice(b"\n  \n");
    b.extend_from_slice(br#"{"type":"tool_call","subtype":"started","call_id":"call_1"#);
    b.push(b'\n');
    b.extend_from_slice(br#"fc_2","tool_call":{"lsToolCall":{"args":{"path":"/w"}}},"model_call_id":"m1","session_id":"s1","timestamp_ms":1000}"#);
    b.push(b'\n');
    b.extend_from_slice(br#"{"type":"thinking","subtype":"delta","text":"caf"#);
    b.push(0xE9);
    b.extend_from_slice(br#"","session_id":"s1","timestamp_ms":1100}"#);
    b.push(b'\n');
    b.extend_from_slice(br#"{"type":"thinking","subtype":"delta","text":""#);
    b.extend(std::iter::repeat_n(b'x', 300_000));
    b.extend_from_slice(br#"","session_id":"s1","timestamp_ms":1150}"#);
    b.push(b'\n');
    b.extend_from_slice(
        br#"{"type":"thinking","subtype":"completed","session_id":"s1","timestamp_ms":1160}"#,
    );
    b.push(b'\n');
    b.extend_from_slice(br#"{"type":"tool_call","subtype":"completed","call_id":"call_1\nfc_2","tool_call":{"lsToolCall":{"args":{"path":"/w"},"result":{"success":{}}}},"model_call_id":"m1","session_id":"s1","timestamp_ms":1200}"#);
    b.push(b'\n');
    b.extend_from_slice(br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"session_id":"s1"}"#);
    b.push(b'\n');
    b.extend_from_slice(br#"{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"ok","session_id":"s1","request_id":"r1"}"#);
    b
}

#[test]
fn tee_copies_stdin_byte_for_byte_and_reports_on_stderr() {
    let input = awkward_stream();
    let run = exec(&["check", "--tee", "--format", "json"], Some(&input));
    assert_eq!(run.stdout.len(), input.len(), "{}", run.stderr());
    assert!(run.stdout == input, "--tee must copy the input unchanged");
    let findings = parse_findings(&run.stderr);
    let rules = rules_of(&findings);
    for rule in [
        "byte-order-mark",
        "blank-line",
        "raw-control-character",
        "invalid-utf8",
    ] {
        assert!(
            rules.contains(rule),
            "{rule} on stderr\n{}",
            show(&findings)
        );
    }
    assert_eq!(run.code, 1, "invalid-utf8 is an error");
}

#[test]
fn tee_copies_records_that_are_too_large_to_check() {
    let input = awkward_stream();
    let run = exec(
        &["--tee", "--format", "json", "--max-record-bytes", "100"],
        Some(&input),
    );
    assert!(run.stdout == input, "--tee must copy the input unchanged");
    let findings = parse_findings(&run.stderr);
    assert!(
        lines_of(&findings, "record-too-large").len() >= 3,
        "{}",
        show(&findings)
    );
}

#[test]
fn tee_with_human_output_keeps_stdout_clean() {
    let input = std::fs::read(testdata("many-findings.ndjson")).unwrap();
    let run = exec(&["--tee", "--color", "never"], Some(&input));
    assert!(run.stdout == input, "only the stream goes to stdout");
    assert!(run.stderr().contains("error["), "{}", run.describe());
    assert_eq!(run.code, 1);
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    // 200,000 broken records: one invalid-json finding each, far more output than a pipe
    // buffer holds, so sjlint is still writing when its stdout is closed. (Plain text alone
    // would get one finding: a stream with no event is summed up in one headline.)
    let input = "{not json at all}\n".repeat(200_000).into_bytes();
    let mut cmd = sjlint();
    cmd.args(["--format", "concise"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write as _;
        let _ = stdin.write_all(&input);
    });
    let mut stderr = child.stderr.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 4096];
    let n = stdout.read(&mut first).unwrap();
    assert!(n > 0, "sjlint printed findings");
    drop(stdout);
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    let stderr = drain.join().unwrap();
    assert!(stderr.is_empty(), "nothing on stderr, got: {stderr}");
    assert_ne!(status.code(), Some(101), "no panic");
    assert!(
        status.code().is_some(),
        "not killed by a signal: {status:?}"
    );
}

#[test]
fn a_closed_stdout_under_tee_ends_the_run_quietly() {
    // Healthy sessions appended many times: --tee copies megabytes to a stdout that is closed
    // after the first read.
    let sample = std::fs::read(testdata("sample.ndjson")).unwrap();
    let input = sample.repeat(2_000);
    let mut cmd = sjlint();
    cmd.args(["--tee", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write as _;
        let _ = stdin.write_all(&input);
    });
    let mut stderr = child.stderr.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 4096];
    assert!(stdout.read(&mut first).unwrap() > 0);
    drop(stdout);
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    let stderr = drain.join().unwrap();
    assert!(stderr.is_empty(), "nothing on stderr, got: {stderr}");
    assert!(status.code().is_some_and(|c| c != 101), "{status:?}");
}

#[test]
fn colour_always_never_and_no_color() {
    let fixture = "testdata/rules/orphan-completion/fails.ndjson";
    let esc = |run: &Run| run.stdout.contains(&0x1b);

    let always = exec(&["--color", "always", fixture], None);
    assert!(esc(&always), "--color always: {}", always.describe());
    let never = exec(&["--color", "never", fixture], None);
    assert!(!esc(&never), "--color never");

    let mut cmd = sjlint();
    cmd.args([fixture]).env("NO_COLOR", "1");
    let no_color = run_cmd(cmd, None);
    assert!(!esc(&no_color), "NO_COLOR=1");

    // The environment is read at all: FORCE_COLOR turns colour on for a pipe.
    let mut cmd = sjlint();
    cmd.args([fixture]).env("FORCE_COLOR", "1");
    let forced = run_cmd(cmd, None);
    assert!(esc(&forced), "FORCE_COLOR=1: {}", forced.describe());

    // Colour does not change the text.
    let stripped = strip_ansi(&always.stdout());
    assert_eq!(stripped, never.stdout());
    // Never colour in machine formats.
    let json = exec(&["--color", "always", "--format", "json", fixture], None);
    assert!(!esc(&json), "json output has no escape codes");
}

/// Colour is decided for the stream the findings go to: stdout, stderr under `--tee` and for
/// `fmt`, or a file; the environment's wishes reach each of them alike.
#[test]
fn colour_follows_the_stream_the_findings_go_to() {
    let fixture = "testdata/rules/invalid-json/fails.ndjson";
    let input = std::fs::read(fixture).unwrap();
    let esc = |bytes: &[u8]| bytes.contains(&0x1b);
    let with_env = |args: &[&str], var: &str, stdin: Option<&[u8]>| {
        let mut cmd = sjlint();
        cmd.args(args).env(var, "1");
        run_cmd(cmd, stdin)
    };

    // --tee: stdout is the stream itself, the findings on stderr take the colour.
    let tee = exec(&["--tee", "--color", "always"], Some(&input));
    assert_eq!(tee.stdout, input, "{}", tee.describe());
    assert!(esc(&tee.stderr), "{}", tee.describe());
    let forced = with_env(&["--tee"], "FORCE_COLOR", Some(&input));
    assert_eq!(forced.stdout, input);
    assert!(esc(&forced.stderr), "FORCE_COLOR=1: {}", forced.describe());
    let plain = with_env(&["--tee"], "NO_COLOR", Some(&input));
    assert!(!esc(&plain.stderr), "NO_COLOR=1: {}", plain.describe());

    // fmt: the canonical form on stdout never, the findings on stderr as asked.
    for (args, var, coloured) in [
        (&["fmt", "--color", "always", fixture][..], "NO_COLOR", true),
        (&["fmt", fixture], "FORCE_COLOR", true),
        (&["fmt", fixture], "NO_COLOR", false),
        (&["fmt", "--color", "never", fixture], "FORCE_COLOR", false),
    ] {
        let run = with_env(args, var, None);
        assert_eq!(run.code, 1, "{args:?} {var}: {}", run.describe());
        assert!(!esc(&run.stdout), "{args:?} {var}: {}", run.describe());
        assert_eq!(
            esc(&run.stderr),
            coloured,
            "{args:?} {var}: {}",
            run.describe()
        );
    }

    // --output-file: not a terminal, so only an explicit or forced choice colours it.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-colour-file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("findings.txt");
    let out = file.to_str().unwrap();
    for (args, coloured) in [
        (&["--output-file", out, fixture][..], false),
        (&["--output-file", out, "--color", "always", fixture], true),
    ] {
        let run = exec(args, None);
        assert_eq!(run.code, 1, "{}", run.describe());
        let written = std::fs::read(&file).unwrap();
        assert!(!written.is_empty(), "{args:?}");
        assert_eq!(esc(&written), coloured, "{args:?}");
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn untrusted_text_is_escaped_in_human_output() {
    // invalid-json on a line full of ANSI codes: they must not reach the terminal raw.
    let fixture = "testdata/rules/invalid-json/fails.ndjson";
    let run = exec(&["--color", "never", fixture], None);
    assert!(!run.stdout.contains(&0x1b), "{}", run.describe());
    assert!(run.stdout().contains("invalid-json"));

    // A file name is untrusted too.
    let bytes = std::fs::read(testdata("rules/missing-init/fails.ndjson")).unwrap();
    for format in ["human", "concise"] {
        let run = exec(
            &[
                "--format",
                format,
                "--color",
                "never",
                "--stdin-filename",
                "\u{1b}]0;owned\u{7}run.ndjson",
            ],
            Some(&bytes),
        );
        assert!(run.stdout().contains("run.ndjson"), "{}", run.describe());
        assert!(
            !run.stdout.contains(&0x1b) && !run.stdout.contains(&0x07),
            "{format}: {}",
            run.describe()
        );
    }
}

#[test]
fn quiet_prints_findings_without_the_summary() {
    let fixture = "testdata/rules/orphan-completion/fails.ndjson";
    let loud = exec(&["--color", "never", fixture], None).stdout();
    let quiet = exec(&["--color", "never", "--quiet", fixture], None);
    assert_eq!(quiet.code, 1);
    let summary = loud.lines().last().unwrap();
    assert!(summary.contains("1 error"), "{loud}");
    assert!(quiet.stdout().contains("error[orphan-completion]"));
    assert!(!quiet.stdout().contains(summary), "{}", quiet.describe());
    let clean = exec(&["--quiet", "testdata/sample.ndjson"], None);
    assert_eq!((clean.code, clean.stdout()), (0, String::new()));
}

#[test]
fn the_summary_counts_findings_and_files() {
    let run = exec(
        &[
            "--color",
            "never",
            "testdata/rules/orphan-completion/fails.ndjson",
            "testdata/rules/result-text-mismatch/fails.ndjson",
        ],
        None,
    );
    let out = run.stdout();
    let summary = out.lines().last().unwrap();
    assert!(
        summary.starts_with("1 error, 1 warning in 2 files;"),
        "{summary}"
    );
    assert!(summary.contains("12 records"), "{summary}");
}

#[test]
fn max_record_bytes_takes_size_suffixes() {
    let fixture = "testdata/rules/record-too-large/fails.ndjson";
    let (_, findings) = check_json(&["--max-record-bytes", "1K", fixture], None);
    assert!(findings.is_empty(), "{}", show(&findings));
    let (_, findings) = check_json(&["--max-record-bytes", "512", fixture], None);
    assert_eq!(lines_of(&findings, "record-too-large"), [3]);
    let run = exec(&["--max-record-bytes", "twelve", fixture], None);
    assert_eq!(run.code, 2, "{}", run.describe());
}

// ------------------------------------------------------------------------------------------
// Snapshots of the human rendering.

/// Compares `actual` with `tests/snapshots/<name>.txt`, or rewrites that file when
/// `SJLINT_BLESS=1` is set.
fn assert_snapshot(name: &str, actual: &str) {
    let path = manifest_dir().join(format!("tests/snapshots/{name}.txt"));
    if std::env::var("SJLINT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `SJLINT_BLESS=1 cargo test --test it cli::snapshot` to create it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "the human output differs from {} (SJLINT_BLESS=1 rewrites it)\n--- expected\n{expected}--- actual\n{actual}---",
        path.display()
    );
}

fn human(args: &[&str], stdin: Option<&[u8]>) -> String {
    let mut all = vec!["--color", "never"];
    all.extend_from_slice(args);
    let run = exec(&all, stdin);
    assert!(run.code == 0 || run.code == 1, "{}", run.describe());
    run.stdout()
}

#[test]
fn snapshot_orphan_completion() {
    let out = human(&["testdata/rules/orphan-completion/fails.ndjson"], None);
    assert_snapshot("orphan-completion", &out);
}

#[test]
fn snapshot_tool_kind_mismatch_with_related_note() {
    let out = human(&["testdata/rules/tool-kind-mismatch/fails.ndjson"], None);
    assert_snapshot("tool-kind-mismatch", &out);
}

#[test]
fn snapshot_raw_control_characters() {
    let out = human(&["testdata/rules/raw-control-character/fails.ndjson"], None);
    assert_snapshot("raw-control-character", &out);
}

#[test]
fn snapshot_invalid_json_with_ansi_text() {
    let out = human(&["testdata/rules/invalid-json/fails.ndjson"], None);
    assert_snapshot("invalid-json", &out);
}

#[test]
fn snapshot_invalid_utf8_from_stdin() {
    let Input::Bytes { bytes, .. } = rule_fixture("invalid-utf8", "fails") else {
        panic!("invalid-utf8 fails is a template");
    };
    let out = human(&["--stdin-filename", "menu.ndjson"], Some(&bytes));
    assert_snapshot("invalid-utf8", &out);
}

#[test]
fn snapshot_record_too_large() {
    let out = human(
        &[
            "--max-record-bytes",
            "512",
            "testdata/rules/record-too-large/fails.ndjson",
        ],
        None,
    );
    assert_snapshot("record-too-large", &out);
}

#[test]
fn snapshot_many_findings() {
    let out = human(&[MANY], None);
    assert_snapshot("many-findings", &out);
}

#[test]
fn snapshot_clean_sample() {
    let clean = human(&["testdata/sample.ndjson"], None);
    assert_snapshot("sample", &clean);
}

#[test]
fn snapshot_empty_stdin() {
    let empty = human(&[], Some(b""));
    assert_snapshot("empty-stdin", &empty);
}

/// The column counts characters, not bytes (the schema says "character column").
#[test]
fn columns_count_characters_not_bytes() {
    let input = concat!(
        r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"thinking","subtype":"delta","text":"日本語 → 한국어 🙂","session_id":"s1","timestamp_ms":"1000"}"#,
        "\n",
    );
    let (_, findings) = check_json(&["--select", "wrong-field-type"], Some(input.as_bytes()));
    let f = findings.first().expect("wrong-field-type fires");
    assert_eq!((f.line, f.column), (2, Some(92)), "{}", show(&findings));
}

/// Carets stay under the offending value when wide (CJK) characters come before it.
#[test]
fn snapshot_wide_characters_before_the_mark() {
    let input = concat!(
        r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"thinking","subtype":"delta","text":"日本語 → 한국어 🙂","session_id":"s1","timestamp_ms":"1000"}"#,
        "\n",
        r#"{"type":"thinking","subtype":"completed","session_id":"s1","timestamp_ms":1010}"#,
        "\n",
        r#"{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"ok","session_id":"s1","request_id":"r1"}"#,
        "\n",
    );
    let out = human(&["--stdin-filename", "wide.ndjson"], Some(input.as_bytes()));
    assert!(out.contains("wrong-field-type"), "{out}");
    assert_snapshot("wide-characters", &out);
}

/// Emoji outside the CJK blocks (U+1F680, U+2705) and combining marks count by their display
/// width too: the carets stay under the value.
#[test]
fn carets_follow_the_display_width_of_emoji_and_combining_marks() {
    let input = concat!(
        r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"thinking","subtype":"delta","note":"🚀🚀✅ e\u0301","text":"🚀🚀✅ é","timestamp_ms":"1000","session_id":"s1"}"#,
        "\n",
        r#"{"type":"thinking","subtype":"completed","session_id":"s1","timestamp_ms":1010}"#,
        "\n",
        r#"{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"ok","session_id":"s1","request_id":"r1"}"#,
        "\n",
    );
    let out = human(
        &["--stdin-filename", "emoji.ndjson"],
        Some(input.as_bytes()),
    );
    let lines: Vec<&str> = out.lines().collect();
    let snippet = lines
        .iter()
        .position(|l| l.starts_with("2 | "))
        .unwrap_or_else(|| panic!("a snippet of line 2\n{out}"));
    let text = lines[snippet];
    let carets = lines[snippet + 1];
    // Columns before the value: each emoji takes two, `é` as e + U+0301 one.
    let before = &text[..text.find(r#""1000""#).expect("the value is shown")];
    let columns: usize = before
        .chars()
        .map(|c| match c {
            '🚀' | '✅' => 2,
            '\u{301}' => 0,
            _ => 1,
        })
        .sum();
    assert_eq!(
        carets.find('^'),
        Some(columns),
        "the carets start under the value\n{out}"
    );
    assert_eq!(carets.matches('^').count(), r#""1000""#.len(), "{out}");
}
