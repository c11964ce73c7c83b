//! The json and json-lines formats' objects, one per finding, described by
//! `schemas/diagnostic.schema.json` (the printer puts them in an array or on lines).
//!
//! Output goes through borrowed wire structs kept apart from [`Diagnostic`], so the domain type
//! can change without changing the format. Every key is always present: an unknown `column` and
//! an absent `help` are `null`. Text is written as found (JSON escaping, [`sjlint_core::json_out`], makes
//! it safe to carry: bidi and C1 controls are `\uXXXX` on the wire); consumers that print the
//! values to a terminal must escape them themselves.

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use sjlint_core::diagnostic::{Diagnostic, Related};
use std::io::{self, Write};

/// One line of the json format. The field order is the key order on the wire.
#[derive(Serialize)]
struct WireDiagnostic<'a> {
    file: &'a str,
    line: u64,
    column: Option<u32>,
    end_column: Option<u32>,
    record: Option<u64>,
    byte: Option<u64>,
    rule: &'static str,
    group: &'static str,
    severity: &'static str,
    message: &'a str,
    related: WireRelatedList<'a>,
    help: Option<&'a str>,
}

#[derive(Serialize)]
struct WireRelated<'a> {
    line: u64,
    message: &'a str,
}

/// Serializes the related locations as an array without collecting them first.
struct WireRelatedList<'a>(&'a [Related]);

impl Serialize for WireRelatedList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for related in self.0 {
            seq.serialize_element(&WireRelated {
                line: related.line,
                message: &related.message,
            })?;
        }
        seq.end()
    }
}

pub(super) fn write_diagnostic<W: Write>(
    out: &mut W,
    file: &str,
    d: &Diagnostic,
) -> io::Result<()> {
    let wire = WireDiagnostic {
        file,
        line: d.line,
        column: d.column,
        end_column: d.end_column(),
        // A blank line is no record; a session's end is no place in particular.
        record: (d.record > 0).then_some(d.record),
        byte: (d.byte != sjlint_core::diagnostic::UNKNOWN_BYTE).then_some(d.byte),
        rule: d.rule.name(),
        group: d.rule.group().as_str(),
        severity: d.severity.as_str(),
        message: &d.message,
        related: WireRelatedList(&d.related),
        help: d.help.as_deref(),
    };
    sjlint_core::json_out::to_writer(&mut *out, &wire)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::{Group, RULES, Rule, Severity};

    const SCHEMA: &str = include_str!("../../../../schemas/diagnostic.schema.json");

    fn render(file: &str, d: &Diagnostic) -> String {
        let mut out = Vec::new();
        write_diagnostic(&mut out, file, d).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn pos() -> Position {
        Position {
            byte: 1000,
            line: 12,
            record: 9,
        }
    }

    fn orphan() -> Diagnostic {
        let rec = br#"{"type":"tool_call","subtype":"completed","call_id":"call_1"}"#;
        Diagnostic::new(Rule::OrphanCompletion, pos(), "never started")
            .at(rec, 42..60)
            .with_related(4, "started here")
            .with_related(7, "announced here")
            .with_help("start it first")
    }

    #[test]
    fn exact_line() {
        assert_eq!(
            render("run.ndjson", &orphan()),
            concat!(
                r#"{"file":"run.ndjson","line":12,"column":43,"end_column":61,"record":9,"byte":1042,"#,
                r#""rule":"orphan-completion","group":"tool-calls","severity":"error","#,
                r#""message":"never started","related":[{"line":4,"message":"started here"},"#,
                r#"{"line":7,"message":"announced here"}],"help":"start it first"}"#,
                "\n"
            )
        );
    }

    #[test]
    fn parses_back_with_keys_in_order() {
        let out = render("run.ndjson", &orphan());
        assert!(out.ends_with('\n') && out.matches('\n').count() == 1);
        let value: Value = serde_json::from_str(&out).unwrap();
        let keys = [
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
            "help",
        ];
        assert_eq!(value.as_object().unwrap().len(), keys.len());
        // The parsed map may be sorted, so the order is checked on the raw text. The first
        // occurrence of each key is the top-level one: `related` comes after `line`/`message`.
        let offsets: Vec<usize> = keys
            .iter()
            .map(|key| out.find(&format!("\"{key}\":")).unwrap())
            .collect();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{out}");
        assert_eq!(value["file"], "run.ndjson");
        assert_eq!(value["line"], 12);
        assert_eq!(value["column"], 43);
        assert_eq!(value["record"], 9);
        assert_eq!(value["byte"], 1042);
        assert_eq!(value["rule"], "orphan-completion");
        assert_eq!(value["group"], "tool-calls");
        assert_eq!(value["severity"], "error");
        assert_eq!(value["message"], "never started");
        assert_eq!(
            value["related"],
            json!([
                {"line": 4, "message": "started here"},
                {"line": 7, "message": "announced here"}
            ])
        );
        assert_eq!(value["help"], "start it first");
    }

    #[test]
    fn unknown_column_and_no_help_are_null() {
        let mut d = Diagnostic::new(Rule::BlankLine, pos(), "blank line");
        d.severity = Severity::Warning;
        let value: Value = serde_json::from_str(&render("-", &d)).unwrap();
        assert_eq!(value["column"], Value::Null);
        assert_eq!(value["help"], Value::Null);
        assert_eq!(value["related"], json!([]));
        assert_eq!(value["severity"], "warning");
        assert_eq!(value["group"], "framing");
        assert_eq!(value["file"], "-");
    }

    #[test]
    fn untrusted_text_survives_exactly() {
        let msg = "type \"\u{1b}[31m\u{202e}x\" and a\nnewline";
        let file = "dir/\u{1b}é.ndjson";
        let d = Diagnostic::new(Rule::UnknownEventType, pos(), msg).with_related(1, "\u{2066}");
        let out = render(file, &d);
        assert!(
            !out.contains('\u{1b}'),
            "control characters are JSON-escaped"
        );
        let value: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(value["message"], msg);
        assert_eq!(value["file"], file);
        assert_eq!(value["related"][0]["message"], "\u{2066}");
    }

    #[test]
    fn output_validates_against_the_schema() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        jsonschema::meta::validate(&schema).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut diagnostics = vec![orphan()];
        for info in RULES {
            let pos = Position {
                byte: 0,
                line: 0,
                record: 0,
            };
            diagnostics.push(Diagnostic::new(info.rule, pos, info.summary));
        }
        for d in &diagnostics {
            let value: Value = serde_json::from_str(&render("f", d)).unwrap();
            if let Err(e) = validator.validate(&value) {
                panic!("{value}: {e}");
            }
        }
        let mut bad: Value = serde_json::from_str(&render("f", &orphan())).unwrap();
        bad["extra"] = json!(1);
        assert!(!validator.is_valid(&bad));
        let mut bad: Value = serde_json::from_str(&render("f", &orphan())).unwrap();
        bad["column"] = json!(0);
        assert!(!validator.is_valid(&bad));
        let mut bad: Value = serde_json::from_str(&render("f", &orphan())).unwrap();
        bad["rule"] = json!("no-such-rule");
        assert!(!validator.is_valid(&bad));
    }

    #[test]
    fn schema_lists_every_rule_group_and_severity() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let props = &schema["properties"];
        let names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        assert_eq!(props["rule"]["enum"], json!(names));
        let groups: Vec<&str> = Group::ALL.iter().map(|g| g.as_str()).collect();
        assert_eq!(props["group"]["enum"], json!(groups));
        let severities = [Severity::Error, Severity::Warning, Severity::Info].map(Severity::as_str);
        assert_eq!(props["severity"]["enum"], json!(severities));
    }
}
