//! The concise format: one `file:line:col: severity[rule] message` line per finding, for editors
//! and `grep`. Related locations and help are left out; the human and json formats carry them.

use super::human::severity_style;
use owo_colors::Style;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::text::escape_untrusted;
use std::io::{self, Write};

pub(super) fn write_diagnostic<W: Write>(
    out: &mut W,
    file: &str,
    d: &Diagnostic,
    color: bool,
) -> io::Result<()> {
    write!(out, "{}:{}:", escape_untrusted(file), d.line)?;
    if let Some(column) = d.column {
        write!(out, "{column}:")?;
    }
    let severity = d.severity.as_str();
    if color {
        let style: Style = severity_style(d.severity);
        write!(out, " {}", style.style(severity))?;
    } else {
        write!(out, " {severity}")?;
    }
    writeln!(out, "[{}] {}", d.rule.name(), escape_untrusted(&d.message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::{Rule, Severity};

    fn render(file: &str, d: &Diagnostic, color: bool) -> String {
        let mut out = Vec::new();
        write_diagnostic(&mut out, file, d, color).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn pos(line: u64) -> Position {
        Position {
            byte: 0,
            line,
            record: line,
        }
    }

    #[test]
    fn line_and_column() {
        let rec = br#"{"type":"tool_call","subtype":"completed","call_id":"call_1"}"#;
        let d = Diagnostic::new(Rule::OrphanCompletion, pos(12), "never started").at(rec, 42..51);
        assert_eq!(
            render("run.ndjson", &d, false),
            "run.ndjson:12:43: error[orphan-completion] never started\n"
        );
    }

    #[test]
    fn no_column_when_unknown() {
        let d = Diagnostic::new(Rule::BlankLine, pos(7), "blank line");
        assert_eq!(render("-", &d, false), "-:7: info[blank-line] blank line\n");
        let mut d = Diagnostic::new(Rule::TimestampRegression, pos(1_000_000), "went back");
        d.severity = Severity::Error;
        assert_eq!(
            render("a b.jsonl", &d, false),
            "a b.jsonl:1000000: error[timestamp-regression] went back\n"
        );
    }

    #[test]
    fn related_and_help_are_left_out() {
        let d = Diagnostic::new(Rule::DuplicateCallId, pos(9), "call_id \"c\" is still open")
            .with_related(4, "started here")
            .with_help("end a call before reusing its id");
        assert_eq!(
            render("x", &d, false),
            "x:9: error[duplicate-call-id] call_id \"c\" is still open\n"
        );
    }

    #[test]
    fn untrusted_text_is_escaped() {
        let d = Diagnostic::new(
            Rule::UnknownEventType,
            pos(2),
            "unknown type \"\u{1b}[2J\u{202e}evil\"",
        );
        let out = render("dir/\u{1b}]0;x\u{7}.ndjson", &d, false);
        assert_eq!(
            out,
            "dir/\\u{1b}]0;x\\u{7}.ndjson:2: info[unknown-event-type] \
             unknown type \"\\u{1b}[2J\\u{202e}evil\"\n"
        );
        assert!(!out.contains('\u{1b}') && !out.contains('\u{202e}'));
    }

    #[test]
    fn colour_only_on_the_severity() {
        let d = Diagnostic::new(Rule::InvalidJson, pos(1), "bad");
        let out = render("f", &d, true);
        assert!(out.starts_with("f:1: \u{1b}["));
        assert!(out.ends_with("[invalid-json] bad\n"));
        assert!(out.contains("error"));
        assert!(!render("f", &d, false).contains('\u{1b}'));
    }
}
