//! The library's push API as an embedding program uses it: a `Stream` fed in pieces cut
//! anywhere gives the findings `sjlint check --format json` prints and the events `sjlint fmt
//! --to common` writes, for every file in `testdata/` and the real captures; a sink stops it;
//! options say what the command line's flags say.

use crate::common::{corpus_dir, exec, files_under, manifest_dir};
use sjlint::{Finding, Item, Options, Sink, Stream};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

fn streams_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut all = Vec::new();
    files_under(dir, &mut all);
    out.extend(
        all.into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "ndjson" || e == "jsonl")),
    );
}

/// Every stream of `testdata/` and of the corpus (when it is there).
fn all_streams() -> Vec<PathBuf> {
    let mut files = Vec::new();
    streams_under(&manifest_dir().join("testdata"), &mut files);
    if let Some(corpus) = corpus_dir() {
        streams_under(&corpus, &mut files);
    }
    assert!(files.len() > 100, "too few streams found: {}", files.len());
    files
}

/// The findings of `path` as the command line prints them, without `file`.
fn cli_findings(path: &Path) -> Vec<serde_json::Value> {
    let run = exec(
        &[
            "check",
            "--isolated",
            "--jobs",
            "1",
            "--format",
            "json",
            path.to_str().unwrap(),
        ],
        None,
    );
    let mut all: Vec<serde_json::Value> = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: check --format json: {e}\n{}",
            path.display(),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    for f in &mut all {
        f.as_object_mut().unwrap().remove("file");
    }
    all
}

fn as_values(findings: &[Finding]) -> Vec<serde_json::Value> {
    findings
        .iter()
        .map(|f| serde_json::from_str(&f.to_json()).unwrap())
        .collect()
}

/// Feeds `bytes` in pieces whose sizes follow a small generator seeded by `seed` (1 to 97
/// bytes: records, characters and line ends are cut everywhere).
fn fed_in_pieces(bytes: &[u8], opts: &Options, seed: u64) -> (Vec<Item>, sjlint::Totals) {
    let mut stream = Stream::new(opts);
    let mut items = Vec::new();
    let mut state = seed;
    let mut at = 0;
    while at < bytes.len() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let n = (1 + (state >> 33) % 97) as usize;
        let end = (at + n).min(bytes.len());
        assert!(stream.feed(&bytes[at..end], &mut items).is_continue());
        at = end;
    }
    let totals = stream.finish(&mut items);
    (items, totals)
}

fn findings_of(items: &[Item]) -> Vec<Finding> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Finding(f) => Some(f.clone()),
            Item::Event(_) => None,
        })
        .collect()
}

fn events_of(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Event(e) => Some(e.to_json()),
            Item::Finding(_) => None,
        })
        .collect()
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn a_stream_fed_in_pieces_finds_what_the_command_line_finds_in_every_file() {
    let opts = Options::new();
    let mut mismatches = Vec::new();
    for (i, path) in all_streams().iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let cli = cli_findings(path);
        let mut at_once: Vec<Finding> = Vec::new();
        let totals = sjlint::check_bytes(&bytes, &opts, &mut at_once);
        assert_eq!(totals.bytes, bytes.len() as u64, "{}", path.display());
        let (items, fed_totals) = fed_in_pieces(&bytes, &opts, i as u64);
        let pieces = as_values(&findings_of(&items));
        if as_values(&at_once) != cli {
            mismatches.push(format!(
                "{}: check_bytes differs from the CLI",
                path.display()
            ));
        }
        if pieces != cli {
            mismatches.push(format!(
                "{}: a Stream fed in pieces differs from the CLI",
                path.display()
            ));
        }
        assert_eq!(totals, fed_totals, "{}", path.display());
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn a_streams_events_are_the_lines_of_fmt_to_common() {
    let opts = Options::new();
    let mut checked = 0;
    for (i, path) in all_streams().iter().enumerate() {
        let run = exec(
            &[
                "fmt",
                "--to",
                "common",
                "--isolated",
                path.to_str().unwrap(),
            ],
            None,
        );
        if !run.stderr.is_empty() && run.stdout.is_empty() {
            continue;
        }
        let cli: Vec<String> = String::from_utf8(run.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        let bytes = std::fs::read(path).unwrap();
        let whole: Vec<String> = sjlint::to_common(&bytes, &opts)
            .iter()
            .map(sjlint::Event::to_json)
            .collect();
        assert_eq!(whole, cli, "{}: to_common", path.display());
        let (items, _) = fed_in_pieces(&bytes, &opts, 1000 + i as u64);
        assert_eq!(events_of(&items), cli, "{}: Stream events", path.display());
        checked += usize::from(!cli.is_empty());
    }
    assert!(checked > 50, "only {checked} files gave events");
}

/// Every item of `check_bytes` on `threads` threads, as a `Vec<Item>` sink takes them.
fn items_on(bytes: &[u8], threads: usize) -> (Vec<Item>, sjlint::Totals) {
    let mut items = Vec::new();
    let totals = sjlint::check_bytes_on(bytes, threads, &Options::new(), &mut items);
    (items, totals)
}

#[test]
fn checking_on_threads_gives_what_one_thread_gives() {
    // Enough records that the worker threads take several batches each.
    let one = std::fs::read(manifest_dir().join("testdata/many-findings.ndjson")).unwrap();
    let big: Vec<u8> = one.iter().copied().cycle().take(one.len() * 400).collect();
    for bytes in [&one, &big] {
        let (want, want_totals) = items_on(bytes, 1);
        assert!(findings_of(&want).len() > 2 && !events_of(&want).is_empty());
        for threads in [2, 3, 4] {
            let (got, totals) = items_on(bytes, threads);
            assert!(got == want, "{threads} threads: other items");
            assert_eq!(totals, want_totals);
        }
    }
    // A sink that breaks stops the threads too: the first finding only.
    let mut first: Vec<Finding> = Vec::new();
    struct First<'a>(&'a mut Vec<Finding>);
    impl Sink for First<'_> {
        fn finding(&mut self, f: Finding) -> ControlFlow<()> {
            self.0.push(f);
            ControlFlow::Break(())
        }
    }
    sjlint::check_bytes_on(&big, 2, &Options::new(), &mut First(&mut first));
    assert_eq!(first, findings_of(&items_on(&big, 1).0)[..1]);
}

#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn checking_on_threads_gives_what_one_thread_gives_in_every_file() {
    for path in all_streams() {
        let bytes = std::fs::read(&path).unwrap();
        let (want, want_totals) = items_on(&bytes, 1);
        let (got, totals) = items_on(&bytes, 3);
        assert!(got == want, "{}: other items on threads", path.display());
        assert_eq!(totals, want_totals, "{}", path.display());
    }
}

#[test]
fn a_sink_that_breaks_stops_the_stream() {
    struct First(Vec<Finding>);
    impl Sink for First {
        fn finding(&mut self, f: Finding) -> ControlFlow<()> {
            self.0.push(f);
            ControlFlow::Break(())
        }
    }
    let bytes = std::fs::read(manifest_dir().join("testdata/many-findings.ndjson")).unwrap();
    let mut all: Vec<Finding> = Vec::new();
    sjlint::check_bytes(&bytes, &Options::new(), &mut all);
    assert!(all.len() > 2, "the fixture has several findings");

    let mut stream = Stream::new(&Options::new());
    let mut first = First(Vec::new());
    let mut flow = ControlFlow::Continue(());
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        flow = stream.feed(line, &mut first);
        if flow.is_break() {
            break;
        }
    }
    assert!(flow.is_break());
    // Fed again after it stopped: nothing more is read or handed out.
    assert!(
        stream
            .feed(b"{\"type\":\"bogus\"}\n", &mut first)
            .is_break()
    );
    stream.finish(&mut first);
    assert_eq!(first.0, all[..1]);
}

#[test]
fn options_say_what_the_flags_say() {
    let path = manifest_dir().join("testdata/many-findings.ndjson");
    let bytes = std::fs::read(&path).unwrap();
    let opts = Options::new()
        .ignore(&["unknown-event-type"])
        .unwrap()
        .severity("missing-result", "info")
        .unwrap();
    let mut lib: Vec<Finding> = Vec::new();
    sjlint::check_bytes(&bytes, &opts, &mut lib);
    let run = exec(
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "--ignore",
            "unknown-event-type",
            "--severity",
            "missing-result=info",
            path.to_str().unwrap(),
        ],
        None,
    );
    let mut cli: Vec<serde_json::Value> = serde_json::from_slice(&run.stdout).unwrap();
    for f in &mut cli {
        f.as_object_mut().unwrap().remove("file");
    }
    assert_eq!(as_values(&lib), cli);

    let bad = Options::new().agent("cursor-agent-9").unwrap_err();
    assert!(bad.to_string().contains("cursor-agent-9"), "{bad}");
    let bad = Options::new().select(&["no-such-rule"]).unwrap_err();
    assert!(bad.to_string().contains("no-such-rule"), "{bad}");
    let bad = Options::new()
        .severity("missing-result", "loud")
        .unwrap_err();
    assert!(bad.to_string().contains("loud"), "{bad}");
}

#[test]
fn a_stream_is_send_and_owns_what_it_holds() {
    fn send_static<T: Send + 'static>(_: &T) {}
    let stream = Stream::new(&Options::new());
    send_static(&stream);
    // Fed on another thread than the one that made it.
    let bytes =
        std::fs::read(manifest_dir().join("testdata/agents/codex/tool-run.ndjson")).unwrap();
    let totals = std::thread::spawn(move || {
        let mut stream = stream;
        let mut items: Vec<Item> = Vec::new();
        let _ = stream.feed(&bytes, &mut items);
        stream.finish(&mut items)
    })
    .join()
    .unwrap();
    assert_eq!(totals.agent, Some("codex"));
}
