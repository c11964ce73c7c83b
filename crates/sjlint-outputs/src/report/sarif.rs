//! The sarif format: one SARIF 2.1.0 log for the whole run, for code-scanning services.
//!
//! The log has one run whose tool driver lists every rule with its metadata (summary, the doc's
//! "What it checks" section, the whole doc as help, default level, group), and one result per
//! finding. The results come last in the log, so it is streamed: the first finding writes the
//! log up to its `results` array, each finding is written as it arrives, and [`Log::write`]
//! closes the array and the log when the run is over (or writes the whole log, when nothing was
//! found). Nothing is kept per finding, so memory does not grow with the number of findings.
//!
//! Paths become URI references: relative paths stay relative (code scanning resolves them against
//! the repository root), absolute paths become `file://` URIs, and every byte that is not an
//! unreserved URI character or `/` is percent-encoded. Columns count Unicode code points, as the
//! log declares with `columnKind`. Text is written as found; JSON escaping ([`sjlint_core::json_out`],
//! which writes bidi and C1 controls as `\uXXXX`) makes it safe to carry.

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::value::RawValue;
use sjlint_core::diagnostic::{Diagnostic, Related};
use sjlint_core::rules::{RULES, RuleInfo, Severity};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;
use std::sync::OnceLock;

/// Where the SARIF 2.1.0 schema is published (with the standard's errata applied).
const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The project's home, as the diagnostic schema's `$id` names it.
const INFORMATION_URI: &str = "https://sjlint.dev";

/// A log being written: how far it is.
pub(super) struct Log {
    /// Results written so far; the log's head is written before the first.
    results: u64,
}

/// What closes the `results` array, the run, the `runs` array and the log.
const TAIL: &str = "]}]}";

impl Log {
    pub(super) fn new() -> Self {
        Log { results: 0 }
    }

    /// Writes the result of `d` (after the log's head, for the first one) to `out`.
    pub(super) fn push<W: Write>(
        &mut self,
        out: &mut W,
        file: &str,
        d: &Diagnostic,
    ) -> io::Result<()> {
        if self.results == 0 {
            let log = empty_log()?;
            // The log ends with the `[` of its empty results array and the tail, which begins
            // with that array's `]`: the head is all of it up to that `[`.
            let head = &log[..log.len() - TAIL.len()];
            out.write_all(head.as_bytes())?;
        } else {
            out.write_all(b",")?;
        }
        self.results += 1;
        let uri = artifact_uri(file);
        let wire = WireResult {
            rule_id: d.rule.name(),
            rule_index: d.rule as usize,
            level: level(d.severity),
            message: WireMessage { text: &d.message },
            locations: [WireLocation {
                id: None,
                physical_location: WirePhysicalLocation::new(&uri, d.line, d.column)
                    .ending(d.end_column()),
                message: None,
            }],
            related_locations: WireRelatedList {
                uri: &uri,
                related: &d.related,
            },
        };
        sjlint_core::json_out::to_writer(&mut *out, &wire)?;
        Ok(())
    }

    /// Ends the log (writes all of it when no result was written), followed by a newline.
    pub(super) fn write<W: Write>(self, out: &mut W) -> io::Result<()> {
        if self.results == 0 {
            out.write_all(empty_log()?.as_bytes())?;
        } else {
            out.write_all(TAIL.as_bytes())?;
        }
        out.write_all(b"\n")
    }
}

/// The whole log with no result: the same for every log a process writes (the tool and its
/// rules, whose docs make it about 350 kB), so it is written once and kept.
fn empty_log() -> io::Result<&'static str> {
    static LOG: OnceLock<String> = OnceLock::new();
    if let Some(log) = LOG.get() {
        return Ok(log);
    }
    let results: &RawValue = serde_json::from_str("[]")?;
    let log = WireLog {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: [WireRun {
            tool: WireTool {
                driver: WireDriver {
                    name: "sjlint",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: INFORMATION_URI,
                    rules: WireRules,
                },
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    let text = sjlint_core::json_out::to_string(&log)?;
    debug_assert!(text.ends_with(&format!("[{TAIL}")));
    Ok(LOG.get_or_init(|| text))
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `file` as a URI reference: see the module documentation.
fn artifact_uri(file: &str) -> String {
    let path: Cow<'_, str> = if cfg!(windows) {
        Cow::Owned(file.replace('\\', "/"))
    } else {
        Cow::Borrowed(file)
    };
    let absolute = Path::new(file).is_absolute();
    let mut uri = String::with_capacity(path.len() + 8);
    if absolute {
        uri.push_str("file://");
        if !path.starts_with('/') {
            // A Windows drive letter: file:///C:/…
            uri.push('/');
        }
    }
    for &b in path.as_bytes() {
        // A `:` in a relative reference would read as a scheme; in a file URI's path it is an
        // ordinary character (and the drive letter needs it).
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) || (absolute && b == b':') {
            uri.push(char::from(b));
        } else {
            uri.push('%');
            uri.push(char::from(HEX[usize::from(b >> 4)]));
            uri.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
    uri
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// The doc's "What it checks" section, with the line breaks inside its paragraphs undone.
fn what_it_checks(doc: &str) -> String {
    const HEADING: &str = "## What it checks\n";
    let Some(start) = doc.find(HEADING) else {
        return String::new();
    };
    let section = &doc[start + HEADING.len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let paragraphs: Vec<String> = section
        .trim()
        .split("\n\n")
        .map(|p| p.lines().map(str::trim).collect::<Vec<_>>().join(" "))
        .collect();
    paragraphs.join("\n\n")
}

/// Converts a kebab-case rule name into the `PascalCase` that SARIF asks of `name`.
fn pascal_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for word in name.split('-') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

// The wire structs below are SARIF's object model, trimmed to what sjlint fills in. Field order
// is key order on the wire.

#[derive(Serialize)]
struct WireLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [WireRun<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireRun<'a> {
    tool: WireTool,
    column_kind: &'static str,
    results: &'a RawValue,
}

#[derive(Serialize)]
struct WireTool {
    driver: WireDriver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireDriver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: WireRules,
}

/// Every rule, in table order, so a rule's discriminant is its `ruleIndex`.
struct WireRules;

impl Serialize for WireRules {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(RULES.len()))?;
        for info in RULES {
            seq.serialize_element(&WireRule::new(info))?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireRule {
    id: &'static str,
    name: String,
    short_description: WireText,
    full_description: WireText,
    help: WireHelp,
    default_configuration: WireConfiguration,
    properties: WireRuleProperties,
}

impl WireRule {
    fn new(info: &RuleInfo) -> Self {
        WireRule {
            id: info.name,
            name: pascal_case(info.name),
            short_description: WireText {
                text: Cow::Borrowed(info.summary),
            },
            full_description: WireText {
                text: Cow::Owned(what_it_checks(info.doc)),
            },
            help: WireHelp {
                text: info.doc,
                markdown: info.doc,
            },
            default_configuration: WireConfiguration {
                level: level(info.severity),
            },
            properties: WireRuleProperties {
                group: info.group.as_str(),
                tags: [info.group.as_str()],
            },
        }
    }
}

#[derive(Serialize)]
struct WireText {
    text: Cow<'static, str>,
}

#[derive(Serialize)]
struct WireHelp {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
struct WireConfiguration {
    level: &'static str,
}

#[derive(Serialize)]
struct WireRuleProperties {
    group: &'static str,
    /// Code scanning shows tags and filters by them.
    tags: [&'static str; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: WireMessage<'a>,
    locations: [WireLocation<'a>; 1],
    #[serde(skip_serializing_if = "WireRelatedList::is_empty")]
    related_locations: WireRelatedList<'a>,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireLocation<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: WirePhysicalLocation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<WireMessage<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WirePhysicalLocation<'a> {
    artifact_location: WireArtifactLocation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<WireRegion>,
}

impl<'a> WirePhysicalLocation<'a> {
    fn new(uri: &'a str, line: u64, column: Option<u32>) -> Self {
        WirePhysicalLocation {
            artifact_location: WireArtifactLocation { uri },
            // Line 0 means the finding concerns no line (an empty input): no region then.
            region: (line > 0).then_some(WireRegion {
                start_line: line,
                start_column: column,
                end_column: None,
            }),
        }
    }

    /// The column just past the region, on its first line.
    fn ending(mut self, end_column: Option<u32>) -> Self {
        if let Some(region) = &mut self.region {
            region.end_column = end_column.filter(|_| region.start_column.is_some());
        }
        self
    }
}

#[derive(Serialize)]
struct WireArtifactLocation<'a> {
    uri: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireRegion {
    start_line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
}

/// The related locations, in the same file, serialized without collecting them first.
struct WireRelatedList<'a> {
    uri: &'a str,
    related: &'a [Related],
}

impl WireRelatedList<'_> {
    fn is_empty(&self) -> bool {
        self.related.is_empty()
    }
}

impl Serialize for WireRelatedList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.related.len()))?;
        for (id, related) in self.related.iter().enumerate() {
            seq.serialize_element(&WireLocation {
                id: Some(id),
                physical_location: WirePhysicalLocation::new(self.uri, related.line, None),
                message: Some(WireMessage {
                    text: &related.message,
                }),
            })?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::Rule;

    fn pos(line: u64) -> Position {
        Position {
            byte: 0,
            line,
            record: line,
        }
    }

    fn orphan() -> Diagnostic {
        let rec = br#"{"type":"tool_call","subtype":"completed","call_id":"call_1"}"#;
        Diagnostic::new(Rule::OrphanCompletion, pos(12), "never started")
            .at(rec, 42..51)
            .with_related(4, "started here")
            .with_related(7, "announced here")
            .with_help("start it first")
    }

    fn log(findings: &[(&str, Diagnostic)]) -> Value {
        let mut log = Log::new();
        let mut out = Vec::new();
        for (file, d) in findings {
            log.push(&mut out, file, d).unwrap();
        }
        log.write(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("}\n") && text.matches('\n').count() == 1);
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn one_result_exactly() {
        let mut log = Log::new();
        let mut out = Vec::new();
        log.push(&mut out, "run.ndjson", &orphan()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let results = text.split_once(r#""results":["#).unwrap().1;
        assert_eq!(
            results,
            concat!(
                r#"{"ruleId":"orphan-completion","ruleIndex":25,"level":"error","#,
                r#""message":{"text":"never started"},"#,
                r#""locations":[{"physicalLocation":{"artifactLocation":{"uri":"run.ndjson"},"#,
                r#""region":{"startLine":12,"startColumn":43,"endColumn":52}}}],"#,
                r#""relatedLocations":["#,
                r#"{"id":0,"physicalLocation":{"artifactLocation":{"uri":"run.ndjson"},"#,
                r#""region":{"startLine":4}},"message":{"text":"started here"}},"#,
                r#"{"id":1,"physicalLocation":{"artifactLocation":{"uri":"run.ndjson"},"#,
                r#""region":{"startLine":7}},"message":{"text":"announced here"}}]}"#,
            )
        );
    }

    #[test]
    fn log_structure() {
        let blank = Diagnostic::new(Rule::BlankLine, pos(3), "blank line");
        let empty = Diagnostic::new(Rule::EmptyStream, pos(0), "the input is empty");
        let value = log(&[("a.ndjson", orphan()), ("-", blank), ("e.ndjson", empty)]);
        assert_eq!(value["$schema"], SCHEMA_URI);
        assert_eq!(value["version"], "2.1.0");
        assert_eq!(value.as_object().unwrap().len(), 3);
        let runs = value["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run["columnKind"], "unicodeCodePoints");
        let driver = &run["tool"]["driver"];
        assert_eq!(driver["name"], "sjlint");
        assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(driver["informationUri"], INFORMATION_URI);

        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[1]["ruleId"], "blank-line");
        assert_eq!(results[1]["level"], "note");
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"],
            json!({"artifactLocation": {"uri": "-"}, "region": {"startLine": 3}})
        );
        assert!(results[1].get("relatedLocations").is_none());
        assert_eq!(
            results[2]["locations"][0]["physicalLocation"],
            json!({"artifactLocation": {"uri": "e.ndjson"}})
        );
    }

    #[test]
    fn every_rule_with_its_metadata() {
        let value = log(&[]);
        let run = &value["runs"][0];
        assert_eq!(run["results"], json!([]));
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), RULES.len());
        for (index, (rule, info)) in rules.iter().zip(RULES).enumerate() {
            assert_eq!(info.rule as usize, index);
            assert_eq!(rule["id"], info.name);
            assert_eq!(rule["shortDescription"]["text"], info.summary);
            let full = rule["fullDescription"]["text"].as_str().unwrap();
            assert!(!full.is_empty() && !full.contains("##"), "{}", info.name);
            assert_eq!(rule["help"]["text"], info.doc);
            assert_eq!(rule["help"]["markdown"], info.doc);
            assert_eq!(rule["properties"]["group"], info.group.as_str());
            assert_eq!(rule["properties"]["tags"], json!([info.group.as_str()]));
            let level = rule["defaultConfiguration"]["level"].as_str().unwrap();
            assert_eq!(level, super::level(info.severity));
        }
        let orphan = &rules[Rule::OrphanCompletion as usize];
        assert_eq!(orphan["name"], "OrphanCompletion");
        assert_eq!(orphan["defaultConfiguration"]["level"], "error");
        assert_eq!(
            rules[Rule::UnknownToolKind as usize]["defaultConfiguration"]["level"],
            "note"
        );
    }

    #[test]
    fn what_it_checks_is_the_section_with_paragraphs_unwrapped() {
        let doc = "# r\n\nGroup: x\n\n## What it checks\nOne line\nwrapped here.\n\n\
                   Second  \nparagraph.\n\n## Why it matters\nNot this.\n";
        assert_eq!(
            what_it_checks(doc),
            "One line wrapped here.\n\nSecond paragraph."
        );
        assert_eq!(what_it_checks("# r\nno sections\n"), "");
        let orphan = what_it_checks(Rule::OrphanCompletion.info().doc);
        assert!(orphan.starts_with("A `tool_call`/`completed` event has a `call_id`"));
        assert_eq!(orphan.matches("\n\n").count(), 1);
        assert!(!orphan.contains("Why it matters"));
    }

    #[test]
    fn names_are_pascal_case() {
        assert_eq!(pascal_case("invalid-utf8"), "InvalidUtf8");
        assert_eq!(pascal_case("result-text-mismatch"), "ResultTextMismatch");
        assert_eq!(pascal_case("x"), "X");
    }

    #[test]
    fn uris() {
        assert_eq!(artifact_uri("run.ndjson"), "run.ndjson");
        assert_eq!(
            artifact_uri("runs/a b#1%.ndjson"),
            "runs/a%20b%231%25.ndjson"
        );
        assert_eq!(artifact_uri("a:b.ndjson"), "a%3Ab.ndjson");
        assert_eq!(artifact_uri("é.jsonl"), "%C3%A9.jsonl");
        assert_eq!(artifact_uri("-"), "-");
        if cfg!(unix) {
            assert_eq!(
                artifact_uri("/tmp/x y:z.ndjson"),
                "file:///tmp/x%20y:z.ndjson"
            );
        }
    }

    #[test]
    fn text_survives_exactly() {
        let msg = "quote \" backslash \\ newline \n escape \u{1b} bidi \u{202e}";
        let d = Diagnostic::new(Rule::UnknownEventType, pos(2), msg).with_related(1, "\u{0}");
        let value = log(&[("f", d)]);
        let result = &value["runs"][0]["results"][0];
        assert_eq!(result["message"]["text"], msg);
        assert_eq!(result["relatedLocations"][0]["message"]["text"], "\u{0}");
    }
}
