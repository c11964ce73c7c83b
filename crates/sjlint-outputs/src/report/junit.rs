//! The junit format: `JUnit` XML for the test-report views of CI services, written at the end of
//! the run because the root element carries the totals.
//!
//! One `<testsuite>` per checked file (its name is the file's, with the records and bytes read
//! as properties, and the agent that wrote it when that is not cursor-agent) and one `<testcase>` per finding. Whether a finding's test case fails follows
//! the exit code: errors are `<failure>`s, warnings too under `--strict`; otherwise warnings and
//! infos are passing test cases that carry the finding in `<system-out>`, so the report shows a
//! run that passed as passed without hiding what was found. A file with no finding gets one
//! passing test case, so every checked file appears. A file that could not be opened, or whose
//! reading failed part way (the reason is on stderr), gets a test case with an `<error>`.
//!
//! Everything is escaped for XML 1.0: markup characters become entities, tab/LF/CR in attribute
//! values become character references (attribute normalization would turn them into spaces), CR in
//! text too, and the characters XML 1.0 forbids (the other C0 controls, U+FFFE and U+FFFF) are
//! replaced by a visible `\u{…}` escape; bidi and C1 controls, U+2028/U+2029 and zero-width
//! characters anywhere (file names included) become character references (`&#x202E;`). The text of
//! findings (messages, notes, help) quotes the input, and CI services show it in their logs and
//! views: it first goes through [`escape_untrusted`], so it carries no raw line break, escape
//! sequence, bidi control or zero-width character.

use super::spill::Spill;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::Severity;
use sjlint_core::text::{escape_untrusted, is_unsafe_char};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Test case counts of a suite or of the whole report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    tests: u64,
    failures: u64,
    errors: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.tests += other.tests;
        self.failures += other.failures;
        self.errors += other.errors;
    }
}

/// The suite of the file being checked.
struct Suite {
    name: String,
    /// Where its `<testcase>` elements begin in [`Report::cases`].
    start: u64,
    counts: Counts,
}

/// A suite that is closed: what its `<testsuite>` element says, and where its test cases are.
struct Closed {
    name: String,
    counts: Counts,
    /// Records and bytes read; `None` when reading stopped early.
    read: Option<(u64, u64)>,
    /// The agent that wrote the file, when it is not cursor-agent (`--agent`'s name).
    agent: Option<&'static str>,
    cases: std::ops::Range<u64>,
}

/// What the report keeps until it is written: the serialized `<testcase>` elements of every
/// file in order (spilled to a temporary file past a few megabytes, so that memory does not
/// grow with the number of findings), the suites' headers, the totals, and the suite of the
/// file being checked.
pub(super) struct Report {
    /// `--strict`: warnings fail.
    warnings_fail: bool,
    cases: Spill,
    suites: Vec<Closed>,
    totals: Counts,
    open: Option<Suite>,
    /// The agent of the file being checked, once it is known (see [`Report::agent`]).
    agent: Option<&'static str>,
    /// One test case is serialized here, then appended to `cases`.
    scratch: String,
    /// The first error of the temporary file, reported by [`Report::write`].
    error: Option<io::Error>,
}

impl Report {
    pub(super) fn new(warnings_fail: bool) -> Self {
        Report {
            warnings_fail,
            cases: Spill::default(),
            suites: Vec::new(),
            totals: Counts::default(),
            open: None,
            agent: None,
            scratch: String::new(),
            error: None,
        }
    }

    pub(super) fn begin_file(&mut self, file: &str) {
        self.close(None);
        self.open = Some(Suite {
            name: file.to_owned(),
            start: self.cases.len(),
            counts: Counts::default(),
        });
    }

    /// Appends `scratch` to the test cases.
    fn keep(&mut self) {
        let r = self.cases.append(self.scratch.as_bytes());
        self.scratch.clear();
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    pub(super) fn push(&mut self, file: &str, d: &Diagnostic) {
        let fails = match d.severity {
            Severity::Error => true,
            Severity::Warning => self.warnings_fail,
            Severity::Info => false,
        };
        let mut out = std::mem::take(&mut self.scratch);
        let suite = self.suite(file);
        let out = &mut out;
        out.push_str("    <testcase name=\"");
        push_escaped(out, d.rule.name(), Place::Attribute);
        if d.line > 0 {
            let _ = write!(out, " at line {}", d.line);
            if let Some(column) = d.column {
                let _ = write!(out, ", column {column}");
            }
        }
        out.push_str("\" classname=\"");
        push_escaped(out, file, Place::Attribute);
        out.push_str("\" file=\"");
        push_escaped(out, file, Place::Attribute);
        out.push('"');
        if d.line > 0 {
            let _ = write!(out, " line=\"{}\"", d.line);
        }
        out.push_str(">\n");
        if fails {
            out.push_str("      <failure type=\"");
            push_escaped(out, d.rule.name(), Place::Attribute);
            out.push_str("\" message=\"");
            push_escaped(out, &escape_untrusted(&d.message), Place::Attribute);
            out.push_str("\">");
            push_description(out, file, d);
            out.push_str("</failure>\n");
            suite.counts.failures += 1;
        } else {
            out.push_str("      <system-out>");
            push_description(out, file, d);
            out.push_str("</system-out>\n");
        }
        out.push_str("    </testcase>\n");
        suite.counts.tests += 1;
        self.scratch = std::mem::take(out);
        self.keep();
    }

    /// Findings of `file` that `--max-diagnostics` left out, by severity (info, warning,
    /// error): one test case that counts them, failing when they would have failed.
    pub(super) fn hidden(&mut self, file: &str, counts: [u64; 3], max: usize) {
        let [infos, warnings, errors] = counts;
        let fails = errors > 0 || (self.warnings_fail && warnings > 0);
        let total = infos + warnings + errors;
        let words: Vec<String> = [(errors, "error"), (warnings, "warning"), (infos, "info")]
            .into_iter()
            .filter(|&(n, _)| n > 0)
            .map(|(n, w)| format!("{n} {w}{}", if n == 1 { "" } else { "s" }))
            .collect();
        let mut out = std::mem::take(&mut self.scratch);
        let suite = self.suite(file);
        let _ = write!(
            out,
            "    <testcase name=\"{total} finding{} not shown (--max-diagnostics {max})\" classname=\"",
            if total == 1 { "" } else { "s" }
        );
        push_escaped(&mut out, file, Place::Attribute);
        out.push_str("\">\n");
        if fails {
            out.push_str("      <failure type=\"max-diagnostics\" message=\"");
            let _ = write!(out, "{}", words.join(", "));
            out.push_str("\"/>\n");
            suite.counts.failures += 1;
        } else {
            let _ = writeln!(out, "      <system-out>{}</system-out>", words.join(", "));
        }
        out.push_str("    </testcase>\n");
        suite.counts.tests += 1;
        self.scratch = out;
        self.keep();
    }

    /// The file was read to its end.
    /// The agent that wrote the file ending next, named in its suite's properties.
    pub(super) fn agent(&mut self, agent: Option<&'static str>) {
        self.agent = agent;
    }

    pub(super) fn end_file(&mut self, file: &str, records: u64, bytes: u64) {
        self.suite(file);
        self.close(Some((records, bytes)));
    }

    /// Writes the whole report. A suite still open was not read to its end.
    pub(super) fn write<W: Write>(mut self, out: &mut W) -> io::Result<()> {
        self.close(None);
        if let Some(e) = self.error.take() {
            return Err(crate::sink::marked(e));
        }
        let t = self.totals;
        write!(
            out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuites name=\"sjlint\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
            t.tests, t.failures, t.errors
        )?;
        let mut head = String::new();
        for suite in std::mem::take(&mut self.suites) {
            head.clear();
            let c = suite.counts;
            head.push_str("  <testsuite name=\"");
            push_escaped(&mut head, &suite.name, Place::Attribute);
            let _ = writeln!(
                head,
                "\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
                c.tests, c.failures, c.errors
            );
            if let Some((records, bytes)) = suite.read {
                let _ = write!(
                    head,
                    "    <properties>\n      \
                     <property name=\"records\" value=\"{records}\"/>\n      \
                     <property name=\"bytes\" value=\"{bytes}\"/>\n"
                );
                if let Some(agent) = suite.agent {
                    let _ = writeln!(head, "      <property name=\"agent\" value=\"{agent}\"/>");
                }
                head.push_str("    </properties>\n");
            }
            out.write_all(head.as_bytes())?;
            // An error of the temporary file is the output's too.
            self.cases
                .copy(suite.cases, out)
                .map_err(crate::sink::marked)?;
            out.write_all(b"  </testsuite>\n")?;
        }
        out.write_all(b"</testsuites>\n")
    }

    /// The open suite for `file`, opened now if another file's (or none) is open.
    fn suite(&mut self, file: &str) -> &mut Suite {
        if self.open.as_ref().is_some_and(|s| s.name != file) {
            self.close(None);
        }
        let start = self.cases.len();
        self.open.get_or_insert_with(|| Suite {
            name: file.to_owned(),
            start,
            counts: Counts::default(),
        })
    }

    /// Serializes the open suite; `read` is the records and bytes read, `None` when reading
    /// stopped early.
    fn close(&mut self, read: Option<(u64, u64)>) {
        let Some(mut suite) = self.open.take() else {
            return;
        };
        let out = &mut self.scratch;
        match read {
            None => {
                out.push_str("    <testcase name=\"read the input\" classname=\"");
                push_escaped(out, &suite.name, Place::Attribute);
                out.push_str(
                    "\">\n      <error message=\"the input could not be read; \
                     the reason is on stderr\"/>\n    </testcase>\n",
                );
                suite.counts.tests += 1;
                suite.counts.errors += 1;
            }
            Some(_) if suite.counts.tests == 0 => {
                out.push_str("    <testcase name=\"no findings\" classname=\"");
                push_escaped(out, &suite.name, Place::Attribute);
                out.push_str("\"/>\n");
                suite.counts.tests += 1;
            }
            Some(_) => {}
        }
        self.keep();
        self.totals.add(suite.counts);
        self.suites.push(Closed {
            name: suite.name,
            counts: suite.counts,
            read,
            agent: self.agent.take(),
            cases: suite.start..self.cases.len(),
        });
    }
}

/// The finding as text: a concise line, then its related locations and help on lines of their
/// own.
fn push_description(out: &mut String, file: &str, d: &Diagnostic) {
    push_escaped(out, file, Place::Text);
    if d.line > 0 {
        let _ = write!(out, ":{}", d.line);
        if let Some(column) = d.column {
            let _ = write!(out, ":{column}");
        }
    }
    let _ = write!(out, ": {}[{}] ", d.severity.as_str(), d.rule.name());
    push_escaped(out, &escape_untrusted(&d.message), Place::Text);
    for related in &d.related {
        out.push_str("\nnote: ");
        push_escaped(out, &escape_untrusted(&related.message), Place::Text);
        if related.line > 0 {
            let _ = write!(out, ": line {}", related.line);
        }
    }
    if let Some(help) = &d.help {
        out.push_str("\nhelp: ");
        push_escaped(out, &escape_untrusted(help), Place::Text);
    }
}

/// Where escaped text goes in the document.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Character data of an element.
    Text,
    /// A double-quoted attribute value.
    Attribute,
}

/// Appends `s` escaped for `place`; see the module documentation.
fn push_escaped(out: &mut String, s: &str, place: Place) {
    let attribute = place == Place::Attribute;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escaped = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            // Always, so that `]]>` can never appear in text.
            '>' => "&gt;",
            '"' if attribute => "&quot;",
            '\t' if attribute => "&#9;",
            '\n' if attribute => "&#10;",
            '\r' => "&#13;",
            '\t' | '\n' => continue,
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {
                out.push_str(&s[start..i]);
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
                start = i + c.len_utf8();
                continue;
            }
            c if !c.is_ascii() && is_unsafe_char(c) => {
                out.push_str(&s[start..i]);
                let _ = write!(out, "&#x{:X};", u32::from(c));
                start = i + c.len_utf8();
                continue;
            }
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(escaped);
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::Rule;

    fn pos(line: u64) -> Position {
        Position {
            byte: 0,
            line,
            record: line,
        }
    }

    fn escaped(s: &str, place: Place) -> String {
        let mut out = String::new();
        push_escaped(&mut out, s, place);
        out
    }

    fn write(report: Report) -> String {
        let mut out = Vec::new();
        report.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn orphan() -> Diagnostic {
        let rec = br#"{"type":"tool_call","subtype":"completed","call_id":"call_1"}"#;
        Diagnostic::new(
            Rule::OrphanCompletion,
            pos(12),
            "never <started> & \"open\"",
        )
        .at(rec, 42..51)
        .with_related(4, "started here")
        .with_help("start it first")
    }

    const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

    #[test]
    fn markup_escaping() {
        assert_eq!(escaped("plain é 漢字", Place::Text), "plain é 漢字");
        assert_eq!(
            escaped("a<b>&\"c\" 'd' ]]>", Place::Text),
            "a&lt;b&gt;&amp;\"c\" 'd' ]]&gt;"
        );
        assert_eq!(
            escaped("a<b>&\"c\" 'd'", Place::Attribute),
            "a&lt;b&gt;&amp;&quot;c&quot; 'd'"
        );
    }

    #[test]
    fn whitespace_escaping() {
        assert_eq!(escaped("a\tb\nc\r\nd", Place::Text), "a\tb\nc&#13;\nd");
        assert_eq!(
            escaped("a\tb\nc\r\nd", Place::Attribute),
            "a&#9;b&#10;c&#13;&#10;d"
        );
    }

    #[test]
    fn forbidden_characters_are_replaced() {
        for place in [Place::Text, Place::Attribute] {
            assert_eq!(
                escaped("\u{0}x\u{1b}[31m\u{8}\u{1f}", place),
                "\\u{0}x\\u{1b}[31m\\u{8}\\u{1f}"
            );
            assert_eq!(escaped("\u{fffe}\u{ffff}", place), "\\u{fffe}\\u{ffff}");
            // Allowed, if discouraged: kept, but for the C1 control a reader would obey.
            assert_eq!(
                escaped("\u{7f}\u{85}\u{fffd}\u{10ffff}", place),
                "\u{7f}&#x85;\u{fffd}\u{10ffff}"
            );
            assert_eq!(
                escaped("a\u{202e}b\u{2066}c\u{2028}", place),
                "a&#x202E;b&#x2066;c&#x2028;"
            );
        }
    }

    #[test]
    fn a_report_exactly() {
        let mut r = Report::new(false);
        r.begin_file("run.ndjson");
        r.push("run.ndjson", &orphan());
        let warning = Diagnostic::new(Rule::TimestampRegression, pos(7), "went back");
        r.push("run.ndjson", &warning);
        r.end_file("run.ndjson", 8, 1700);
        r.begin_file("clean.ndjson");
        r.end_file("clean.ndjson", 2, 300);
        let expected = [
            HEAD,
            "<testsuites name=\"sjlint\" tests=\"3\" failures=\"1\" errors=\"0\">\n",
            "  <testsuite name=\"run.ndjson\" tests=\"2\" failures=\"1\" errors=\"0\">\n",
            "    <properties>\n",
            "      <property name=\"records\" value=\"8\"/>\n",
            "      <property name=\"bytes\" value=\"1700\"/>\n",
            "    </properties>\n",
            "    <testcase name=\"orphan-completion at line 12, column 43\" classname=\"run.ndjson\" file=\"run.ndjson\" line=\"12\">\n",
            "      <failure type=\"orphan-completion\" message=\"never &lt;started&gt; &amp; &quot;open&quot;\">",
            "run.ndjson:12:43: error[orphan-completion] never &lt;started&gt; &amp; \"open\"\n",
            "note: started here: line 4\n",
            "help: start it first</failure>\n",
            "    </testcase>\n",
            "    <testcase name=\"timestamp-regression at line 7\" classname=\"run.ndjson\" file=\"run.ndjson\" line=\"7\">\n",
            "      <system-out>run.ndjson:7: warning[timestamp-regression] went back</system-out>\n",
            "    </testcase>\n",
            "  </testsuite>\n",
            "  <testsuite name=\"clean.ndjson\" tests=\"1\" failures=\"0\" errors=\"0\">\n",
            "    <properties>\n",
            "      <property name=\"records\" value=\"2\"/>\n",
            "      <property name=\"bytes\" value=\"300\"/>\n",
            "    </properties>\n",
            "    <testcase name=\"no findings\" classname=\"clean.ndjson\"/>\n",
            "  </testsuite>\n",
            "</testsuites>\n",
        ]
        .concat();
        assert_eq!(write(r), expected);
    }

    #[test]
    fn warnings_fail_when_strict_and_infos_never() {
        let warning = Diagnostic::new(Rule::TimestampRegression, pos(7), "went back");
        let info = Diagnostic::new(Rule::BlankLine, pos(2), "blank line");
        let mut r = Report::new(true);
        r.begin_file("-");
        r.push("-", &warning);
        r.push("-", &info);
        r.end_file("-", 3, 30);
        let out = write(r);
        assert!(
            out.contains("tests=\"2\" failures=\"1\" errors=\"0\""),
            "{out}"
        );
        assert!(out.contains("<failure type=\"timestamp-regression\" message=\"went back\">"));
        assert!(out.contains("<system-out>-:2: info[blank-line] blank line</system-out>"));
    }

    #[test]
    fn a_file_read_part_way_gets_an_error() {
        let mut r = Report::new(false);
        r.begin_file("a.ndjson");
        r.push("a.ndjson", &Diagnostic::new(Rule::MissingType, pos(1), "x"));
        r.begin_file("b.ndjson");
        r.end_file("b.ndjson", 1, 10);
        r.begin_file("c.ndjson");
        let out = write(r);
        assert!(
            out.contains("<testsuites name=\"sjlint\" tests=\"4\" failures=\"1\" errors=\"2\">")
        );
        assert!(out.contains(
            "  <testsuite name=\"a.ndjson\" tests=\"2\" failures=\"1\" errors=\"1\">\n    <testcase"
        ));
        assert!(out.contains(
            "  <testsuite name=\"c.ndjson\" tests=\"1\" failures=\"0\" errors=\"1\">\n    \
             <testcase name=\"read the input\" classname=\"c.ndjson\">\n      \
             <error message=\"the input could not be read; the reason is on stderr\"/>\n    \
             </testcase>\n  </testsuite>\n"
        ));
    }

    #[test]
    fn an_empty_run_is_an_empty_report() {
        assert_eq!(
            write(Report::new(false)),
            format!(
                "{HEAD}<testsuites name=\"sjlint\" tests=\"0\" failures=\"0\" errors=\"0\">\n</testsuites>\n"
            )
        );
    }

    #[test]
    fn untrusted_names_and_messages_are_escaped() {
        let file = "dir/a\"<b>&\n\u{1b}.ndjson";
        let mut d = Diagnostic::new(Rule::UnknownEventType, pos(0), "type \"\u{0}\r\n\"")
            .with_related(3, "<x>")
            .with_help("a & b");
        // Raised from its default (info), as `--severity` does, so that --strict fails it.
        d.severity = sjlint_core::rules::Severity::Warning;
        let mut r = Report::new(true);
        r.begin_file(file);
        r.push(file, &d);
        r.end_file(file, 1, 1);
        let out = write(r);
        let name = "dir/a&quot;&lt;b&gt;&amp;&#10;\\u{1b}.ndjson";
        assert!(
            out.contains(&format!("<testsuite name=\"{name}\"")),
            "{out}"
        );
        assert!(out.contains(&format!(
            "<testcase name=\"unknown-event-type\" classname=\"{name}\" file=\"{name}\">"
        )));
        assert!(out.contains(
            "<failure type=\"unknown-event-type\" message=\"type &quot;\\u{0}\\r\\n&quot;\">"
        ));
        assert!(out.contains(
            "dir/a\"&lt;b&gt;&amp;\n\\u{1b}.ndjson: warning[unknown-event-type] type \"\\u{0}\\r\\n\"\n\
             note: &lt;x&gt;: line 3\nhelp: a &amp; b</failure>"
        ));
        assert!(!out.contains('\u{0}') && !out.contains('\u{1b}') && !out.contains('\r'));
    }
}
