//! The CI formats (github, sarif, junit) and the GitHub Actions annotations, through the real
//! binary on streams written here: exact github lines, the SARIF log validated against the
//! official SARIF 2.1.0 schema, the `JUnit` XML parsed back.

use quick_xml::XmlVersion;
use quick_xml::events::Event;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const INIT: &str = r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/work","session_id":"s1","model":"Auto","permissionMode":"default"}"#;
const USER: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"list files"}]},"session_id":"s1"}"#;
const STARTED: &str = r#"{"type":"tool_call","subtype":"started","call_id":"call_1","tool_call":{"lsToolCall":{"args":{"path":"/work"}}},"model_call_id":"m1","session_id":"s1","timestamp_ms":1200}"#;
const COMPLETED: &str = r#"{"type":"tool_call","subtype":"completed","call_id":"call_1","tool_call":{"lsToolCall":{"args":{"path":"/work"},"result":{"success":{}}}},"model_call_id":"m1","session_id":"s1","timestamp_ms":1000}"#;
const ASSISTANT: &str = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"s1"}"#;
const RESULT: &str = r#"{"type":"result","subtype":"success","duration_ms":10,"duration_api_ms":10,"is_error":false,"result":"Done.","session_id":"s1","request_id":"r1"}"#;
/// An event type with a `%`, `:`, `,` and (JSON-escaped) CR LF in it; the rule's message quotes
/// it with the CR LF escaped.
const ODD_TYPE: &str = r#"{"type":"50% done: a, b\r\nc","session_id":"s1"}"#;

/// Text, a blank line, a completion never started, an unknown type, and no result: three
/// errors and two infos.
fn bad() -> String {
    [INIT, "not json", "", COMPLETED, ODD_TYPE].join("\n") + "\n"
}

/// A healthy session.
fn clean() -> String {
    let started = STARTED.replace("1200", "900");
    [INIT, USER, &started, COMPLETED, ASSISTANT, RESULT].join("\n") + "\n"
}

/// A healthy session but for a timestamp that goes back: one warning.
fn warn() -> String {
    [INIT, USER, STARTED, COMPLETED, ASSISTANT, RESULT].join("\n") + "\n"
}

/// A fresh directory holding bad.ndjson, clean.ndjson and warn.ndjson.
fn fixtures(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("formats-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("bad.ndjson", bad()),
        ("clean.ndjson", clean()),
        ("warn.ndjson", warn()),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs sjlint in `dir` with `args`, `stdin` as standard input and `env` on top of an
/// environment cleared of the variables that change the output.
fn sjlint(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sjlint"));
    cmd.current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in [
        "GITHUB_ACTIONS",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR_FORCE",
    ] {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied());
    let mut child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.as_bytes().to_vec();
    // Written from another thread so that a full stdout pipe cannot block the write.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The findings of `--format json` for the same arguments: (file, rule, line, column, message).
fn json_findings(dir: &Path, args: &[&str]) -> Vec<(String, String, u64, Option<u64>, String)> {
    let args: Vec<&str> = ["--format", "json-lines"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    let run = sjlint(dir, &args, "", &[]);
    run.stdout
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["file"].as_str().unwrap().to_owned(),
                v["rule"].as_str().unwrap().to_owned(),
                v["line"].as_u64().unwrap(),
                v["column"].as_u64(),
                v["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

const BAD_GITHUB: [&str; 5] = [
    "::error file=bad.ndjson,line=2,col=1,title=sjlint(invalid-json)::the line is plain text, not JSON%0Ahelp: plain text between records usually means stderr was merged into stdout (2>&1)",
    "::notice file=bad.ndjson,line=3,title=sjlint(blank-line)::blank line between records",
    "::error file=bad.ndjson,line=4,col=43,title=sjlint(orphan-completion)::`tool_call`/`completed` for \"call_1\", which no `tool_call`/`started` opened%0Ahelp: pairing is by `call_id`: each `tool_call`/`started` is ended by one `tool_call`/`completed` with its id; an `interaction_query` request whose `args.toolCallId` names the call opens it too",
    "::notice file=bad.ndjson,line=5,col=9,title=sjlint(unknown-event-type)::unknown event type \"50%25 done: a, b\\r\\nc\" for cursor-agent%0Ahelp: new event types appear in new CLI versions; a consumer should skip what it does not know",
    "::error file=bad.ndjson,line=5,title=sjlint(missing-result)::the input ends while the session that began on line 1 has no `result`%0Anote: the session started here: line 1%0Ahelp: cursor-agent ends every session with `result`; a session that was killed, crashed or cut off has none",
];

const WARN_GITHUB: &str = "::warning file=warn.ndjson,line=4,col=193,title=sjlint(timestamp-regression)::`timestamp_ms` 1000 is 200 ms earlier than the previous event's 1200%0Anote: the previous timestamp: line 3";

fn lines(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn github_exact_lines() {
    let dir = fixtures("github");
    let run = sjlint(
        &dir,
        &[
            "--format",
            "github",
            "bad.ndjson",
            "clean.ndjson",
            "warn.ndjson",
        ],
        "",
        &[],
    );
    let mut expected = BAD_GITHUB.to_vec();
    expected.push(WARN_GITHUB);
    assert_eq!(run.stdout, lines(&expected));
    assert_eq!(run.stderr, "");
    assert_eq!(run.code, 1);

    let run = sjlint(&dir, &["--format", "github", "clean.ndjson"], "", &[]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
}

#[test]
fn github_names_stdin_by_its_filename_with_property_escaping() {
    let dir = fixtures("github-stdin");
    let run = sjlint(&dir, &["--format", "github"], &warn(), &[]);
    assert_eq!(
        run.stdout,
        lines(&[&WARN_GITHUB.replace("warn.ndjson", "-")])
    );
    assert_eq!(run.code, 0);

    let name = "runs/a,b: 100%.ndjson";
    let args = ["--format", "github", "--stdin-filename", name, "-"];
    let run = sjlint(&dir, &args, &warn(), &[]);
    let escaped = "runs/a%2Cb%3A 100%25.ndjson";
    assert_eq!(
        run.stdout,
        lines(&[&WARN_GITHUB.replace("warn.ndjson", escaped)])
    );
}

#[test]
fn github_actions_adds_annotations_on_stderr() {
    let dir = fixtures("github-actions");
    let files = ["bad.ndjson", "clean.ndjson"];
    let plain = sjlint(&dir, &files, "", &[]);
    assert!(plain.stdout.contains("error[orphan-completion]"));
    assert_eq!(plain.stderr, "");

    let actions = [("GITHUB_ACTIONS", "true")];
    let run = sjlint(&dir, &files, "", &actions);
    assert_eq!(run.stdout, plain.stdout, "stdout is the same as elsewhere");
    assert_eq!(run.stderr, lines(&BAD_GITHUB));
    assert_eq!(run.code, plain.code);

    // An explicit format, human included, means no annotations.
    for format in ["human", "concise", "json"] {
        let args = ["--format", format, "bad.ndjson"];
        let run = sjlint(&dir, &args, "", &actions);
        assert_eq!(run.stderr, "", "{format}");
    }
    let run = sjlint(&dir, &["--format", "github", "bad.ndjson"], "", &actions);
    assert_eq!(
        (run.stdout, run.stderr),
        (lines(&BAD_GITHUB), String::new())
    );
    // Only the value GitHub sets counts.
    let run = sjlint(&dir, &files, "", &[("GITHUB_ACTIONS", "false")]);
    assert_eq!(run.stderr, "");

    // With --tee, stdout is the input byte for byte; findings and annotations share stderr.
    let run = sjlint(&dir, &["--tee"], &bad(), &actions);
    assert_eq!(run.stdout, bad());
    let annotations: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("::")).collect();
    let expected: Vec<String> = BAD_GITHUB
        .iter()
        .map(|l| l.replace("file=bad.ndjson", "file=-"))
        .collect();
    assert_eq!(annotations, expected);
    assert!(
        run.stderr
            .starts_with("error[invalid-json]: the line is plain text, not JSON\n")
    );
    assert!(run.stderr.contains("3 errors, 2 infos"), "{}", run.stderr);
}

/// The SARIF 2.1.0 schema that the serde-sarif crate ships (the OASIS file), found through
/// `cargo metadata` so that the crate's source is read wherever Cargo keeps it.
fn sarif_schema() -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("serde-sarif is a dev-dependency");
    let path = Path::new(manifest).with_file_name("src/schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    schema
}

/// A validator for the official schema. It is strict: every SARIF object forbids properties it
/// does not define, so a misspelt key anywhere fails.
fn sarif_validator() -> jsonschema::Validator {
    let mut schema = sarif_schema();
    // The official schema's pattern for `language` (of a run and of a tool component; sjlint
    // writes neither) has a stray `]` that only the lenient Annex B grammar of ECMA 262 reads as
    // a literal, and jsonschema rejects the schema for it. Escaping it keeps its meaning.
    for definition in ["run", "toolComponent"] {
        let language = &mut schema["definitions"][definition]["properties"]["language"];
        assert_eq!(
            language["pattern"],
            "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"
        );
        language["pattern"] = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$".into();
    }
    // Formats are checked too: `uri` for `$schema` and `informationUri`, `uri-reference` for
    // artifact locations.
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn assert_valid_sarif(log: &Value) {
    let validator = sarif_validator();
    let errors: Vec<String> = validator.iter_errors(log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // serde-sarif's types, generated from the same schema, must read it too.
    let typed: serde_sarif::sarif::Sarif = serde_json::from_value(log.clone()).unwrap();
    assert_eq!(typed.runs.len(), 1);
}

#[test]
fn the_sarif_schema_check_has_teeth() {
    let dir = fixtures("sarif-teeth");
    let run = sjlint(&dir, &["--format", "sarif", "bad.ndjson"], "", &[]);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let validator = sarif_validator();
    assert!(validator.is_valid(&log));
    let region = "/runs/0/results/0/locations/0/physicalLocation/region";
    let breakages: [(&str, Value); 5] = [
        ("/version", "2.0.0".into()),
        ("/$schema", "not a uri".into()),
        ("/runs/0/results/0/level", "fatal".into()),
        ("/runs/0/results/0/ruleIndex", (-2).into()),
        (region, serde_json::json!({"startline": 2})),
    ];
    for (pointer, value) in breakages {
        let mut broken = log.clone();
        *broken.pointer_mut(pointer).unwrap() = value;
        assert!(!validator.is_valid(&broken), "{pointer}");
    }
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let dir = fixtures("sarif");
    let files = ["bad.ndjson", "clean.ndjson", "warn.ndjson"];
    let args: Vec<&str> = ["--format", "sarif"]
        .iter()
        .chain(&files)
        .copied()
        .collect();
    let run = sjlint(&dir, &args, "", &[]);
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));
    assert_eq!(
        run.stdout.matches('\n').count(),
        1,
        "one document, one line"
    );
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_valid_sarif(&log);

    let run0 = &log["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(run0["tool"]["driver"]["name"], "sjlint");
    assert_eq!(run0["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    let listed = sjlint(&dir, &["rules"], "", &[]).stdout;
    assert_eq!(rules.len(), listed.lines().count());
    for rule in rules {
        for key in ["id", "name", "shortDescription", "fullDescription", "help"] {
            assert!(rule.get(key).is_some(), "{key} in {rule}");
        }
    }

    // The same findings as the json format, in the same order.
    let results = run0["results"].as_array().unwrap();
    let expected = json_findings(&dir, &files);
    assert_eq!(results.len(), expected.len());
    for (result, (file, rule, line, column, message)) in results.iter().zip(&expected) {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert_eq!(result["ruleId"], rule.as_str());
        assert_eq!(result["message"]["text"], message.as_str());
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], file.as_str());
        assert_eq!(location["region"]["startLine"], *line);
        assert_eq!(location["region"]["startColumn"].as_u64(), *column);
    }
    let missing = results
        .iter()
        .find(|r| r["ruleId"] == "missing-result")
        .unwrap();
    assert_eq!(missing["level"], "error");
    let related = &missing["relatedLocations"][0];
    assert_eq!(related["physicalLocation"]["region"]["startLine"], 1);
    assert_eq!(related["message"]["text"], "the session started here");
    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(
        levels,
        ["error", "note", "error", "note", "error", "warning"]
    );
}

#[test]
fn sarif_is_written_even_with_no_findings_and_quiet() {
    let dir = fixtures("sarif-quiet");
    for args in [
        &["--format", "sarif", "clean.ndjson"][..],
        &["--format", "sarif", "--quiet", "clean.ndjson"],
        &[
            "--format",
            "sarif",
            "--quiet",
            "--stdin-filename",
            "a b:c.ndjson",
        ],
    ] {
        let run = sjlint(&dir, args, &warn(), &[]);
        assert_eq!(run.code, 0);
        let log: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_valid_sarif(&log);
        if args.contains(&"clean.ndjson") {
            assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
        } else {
            let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
            assert_eq!(location["artifactLocation"]["uri"], "a%20b%3Ac.ndjson");
        }
    }
}

/// An element of a parsed XML document: what the tests read of it.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> &str {
        self.attributes.iter().find(|(k, _)| k == name).map_or_else(
            || panic!("no {name} on <{}>", self.name),
            |(_, v)| v.as_str(),
        )
    }

    fn count(&self, name: &str) -> u64 {
        self.attr(name).parse().unwrap()
    }

    fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

/// Parses `xml` with quick-xml into a tree, resolving entity and character references.
fn parse_xml(xml: &str) -> Element {
    fn open(e: &quick_xml::events::BytesStart<'_>) -> Element {
        let attributes = e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                let value = a.normalized_value(XmlVersion::Explicit1_0).unwrap();
                (a.key.as_ref().to_owned(), value.into_owned())
            })
            .collect();
        Element {
            name: e.name().as_ref().to_owned(),
            attributes,
            ..Element::default()
        }
    }
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack = vec![Element::default()];
    loop {
        match reader.read_event().unwrap() {
            Event::Start(e) => stack.push(open(&e)),
            Event::Empty(e) => stack.last_mut().unwrap().children.push(open(&e)),
            Event::End(_) => {
                let done = stack.pop().unwrap();
                stack.last_mut().unwrap().children.push(done);
            }
            Event::Text(t) => stack.last_mut().unwrap().text += &t.xml10_content(),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref().unwrap() {
                    Some(c) => c.to_string(),
                    None => quick_xml::escape::resolve_xml_entity(&r.xml10_content())
                        .unwrap()
                        .to_owned(),
                };
                stack.last_mut().unwrap().text += &resolved;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(stack.len(), 1, "unclosed elements");
    let mut document = stack.pop().unwrap();
    assert_eq!(document.children.len(), 1, "one root element");
    document.children.pop().unwrap()
}

/// No character that XML 1.0 forbids.
fn assert_xml10_chars(xml: &str) {
    let bad = xml.chars().find(|&c| {
        matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
    });
    assert_eq!(bad, None);
}

#[test]
fn junit_parses_back() {
    let dir = fixtures("junit");
    let files = ["bad.ndjson", "clean.ndjson", "warn.ndjson"];
    let args: Vec<&str> = ["--format", "junit"]
        .iter()
        .chain(&files)
        .copied()
        .collect();
    let run = sjlint(&dir, &args, "", &[]);
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));
    assert!(
        run.stdout
            .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    );
    assert_xml10_chars(&run.stdout);
    let root = parse_xml(&run.stdout);
    assert_eq!(root.name, "testsuites");

    let suites: Vec<&Element> = root.children("testsuite").collect();
    let names: Vec<&str> = suites.iter().map(|s| s.attr("name")).collect();
    assert_eq!(names, files);
    // bad: 3 errors (failures), a warning and an info (passing); clean: one passing case;
    // warn: a warning (passing without --strict).
    let counts: Vec<(u64, u64, u64)> = suites
        .iter()
        .map(|s| (s.count("tests"), s.count("failures"), s.count("errors")))
        .collect();
    assert_eq!(counts, [(5, 3, 0), (1, 0, 0), (1, 0, 0)]);
    assert_eq!(
        (
            root.count("tests"),
            root.count("failures"),
            root.count("errors")
        ),
        (7, 3, 0)
    );
    for suite in &suites {
        let cases = suite.children("testcase").count() as u64;
        assert_eq!(cases, suite.count("tests"));
        let failures = suite
            .children("testcase")
            .filter(|c| c.child("failure").is_some())
            .count() as u64;
        assert_eq!(failures, suite.count("failures"));
        let properties = suite.child("properties").unwrap();
        let records: Vec<&str> = properties
            .children("property")
            .map(|p| p.attr("name"))
            .collect();
        assert_eq!(records, ["records", "bytes"]);
    }
    let clean = suites[1].child("testcase").unwrap();
    assert_eq!(clean.attr("name"), "no findings");
    assert!(clean.children.is_empty());

    // Every finding is a test case carrying its message.
    let expected = json_findings(&dir, &files);
    let cases: Vec<(&str, &Element)> = suites
        .iter()
        .flat_map(|s| s.children("testcase").map(move |c| (s.attr("name"), c)))
        .filter(|(_, c)| c.attr("name") != "no findings")
        .collect();
    assert_eq!(cases.len(), expected.len());
    for ((suite, case), (file, rule, line, _, message)) in cases.iter().zip(&expected) {
        assert_eq!(suite, file);
        assert_eq!(case.attr("classname"), file);
        assert_eq!(case.attr("line"), line.to_string());
        assert!(case.attr("name").starts_with(rule.as_str()));
        match case.child("failure") {
            Some(failure) => {
                assert_eq!(failure.attr("type"), rule);
                assert_eq!(failure.attr("message"), message);
                assert!(failure.text.contains(message.as_str()), "{}", failure.text);
            }
            None => {
                let out = &case.child("system-out").unwrap().text;
                assert!(out.contains(&format!("[{rule}] {message}")), "{out}");
            }
        }
    }
    let odd = cases[3].1.child("system-out").unwrap();
    assert_eq!(
        odd.text,
        "bad.ndjson:5:9: info[unknown-event-type] unknown event type \"50% done: a, b\\r\\nc\" for cursor-agent\n\
         help: new event types appear in new CLI versions; a consumer should skip what it does not know"
    );

    // Under --strict, warnings fail, as they fail the run.
    let args: Vec<&str> = ["--format", "junit", "--strict"]
        .iter()
        .chain(&files)
        .copied()
        .collect();
    let root = parse_xml(&sjlint(&dir, &args, "", &[]).stdout);
    assert_eq!((root.count("tests"), root.count("failures")), (7, 4));
    let warn = root.children("testsuite").nth(2).unwrap();
    let failure = warn.child("testcase").unwrap().child("failure").unwrap();
    assert_eq!(failure.attr("type"), "timestamp-regression");
}

#[test]
fn junit_survives_hostile_names_and_messages() {
    let dir = fixtures("junit-hostile");
    let name = "a<b>&\"c\"\t\n\u{1b}[31m.ndjson";
    let stream =
        format!("{INIT}\n{{\"type\":\"x\\u0000\\u001b]]>&<y>\\r\\n\",\"session_id\":\"s1\"}}\n");
    // An unknown type is information by default; raised to a warning, --strict fails it.
    let args = [
        "--format",
        "junit",
        "--strict",
        "--severity",
        "unknown-event-type=warning",
        "--stdin-filename",
        name,
    ];
    let run = sjlint(&dir, &args, &stream, &[]);
    assert_xml10_chars(&run.stdout);
    let root = parse_xml(&run.stdout);
    let suite = root.child("testsuite").unwrap();
    // Tab and LF survive attribute normalization; ESC, which XML 1.0 forbids, is replaced.
    assert_eq!(suite.attr("name"), "a<b>&\"c\"\t\n\\u{1b}[31m.ndjson");
    let failure = suite
        .children("testcase")
        .find_map(|c| {
            c.child("failure")
                .filter(|f| f.attr("type") == "unknown-event-type")
        })
        .unwrap();
    // The rule quotes the type with Rust's escaping; the markup in it reaches XML as is.
    let quoted = "\"x\\0\\u{1b}]]>&<y>\\r\\n\"";
    assert_eq!(
        failure.attr("message"),
        format!("unknown event type {quoted} for cursor-agent")
    );
    let line = format!(
        "a<b>&\"c\"\t\n\\u{{1b}}[31m.ndjson:2:9: warning[unknown-event-type] unknown event type {quoted} for cursor-agent"
    );
    assert!(failure.text.starts_with(&line), "{}", failure.text);
}

#[test]
fn an_unreadable_path_is_an_error_case_and_the_documents_stay_whole() {
    let dir = fixtures("unreadable");
    let args = ["--format", "junit", "clean.ndjson", "missing.ndjson"];
    let run = sjlint(&dir, &args, "", &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot read missing.ndjson"),
        "{}",
        run.stderr
    );
    let root = parse_xml(&run.stdout);
    let totals = (root.count("tests"), root.count("errors"));
    assert_eq!(totals, (2, 1));
    let missing = root.children("testsuite").nth(1).unwrap();
    assert_eq!(missing.attr("name"), "missing.ndjson");
    assert!(missing.child("properties").is_none());
    let error = missing.child("testcase").unwrap().child("error").unwrap();
    assert!(error.attr("message").contains("could not be read"));

    let args = ["--format", "sarif", "bad.ndjson", "missing.ndjson"];
    let run = sjlint(&dir, &args, "", &[]);
    assert_eq!(run.code, 2);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_valid_sarif(&log);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 5);
}
