//! The github format: one GitHub Actions workflow command per finding, which the runner turns
//! into an annotation on the file and line:
//! ```text
//! ::error file=run.ndjson,line=12,col=43,title=sjlint(orphan-completion)::`completed` for …
//! ```
//! Errors become `::error`, warnings `::warning`, infos `::notice`. `line` and `col` are left out
//! when unknown. Related locations and help follow the message on lines of their own (`note: …`,
//! `help: …`), as the human format shows them.
//!
//! Escaping is the runner's documented one, and it is what keeps input text from ending the
//! command early or starting another: in the message (the command's data) `%`, CR and LF become
//! `%25`, `%0D`, `%0A`; in property values `:` and `,` also become `%3A` and `%2C`. The message
//! quotes the input and the runner shows it in the job log, so it first goes through
//! [`escape_untrusted`] like any text bound for a terminal, and so does the file name: the runner
//! matches it against the repository's paths, which a name with control characters in it does
//! not match anyway, and prints it in the log.

use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::Severity;
use sjlint_core::text::escape_untrusted;
use std::io::{self, Write};

pub(super) fn write_diagnostic<W: Write>(
    out: &mut W,
    file: &str,
    d: &Diagnostic,
) -> io::Result<()> {
    let command = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    write!(out, "::{command} file=")?;
    write_escaped(out, &escape_untrusted(file), Escape::Property)?;
    // Line 0 means the finding concerns no line (an empty input).
    if d.line > 0 {
        write!(out, ",line={}", d.line)?;
        if let Some(column) = d.column {
            write!(out, ",col={column}")?;
        }
    }
    // Rule names are kebab-case ASCII: nothing in the title needs escaping.
    write!(out, ",title=sjlint({})::", d.rule.name())?;
    write_escaped(out, &escape_untrusted(&d.message), Escape::Data)?;
    for related in &d.related {
        write_escaped(out, "\nnote: ", Escape::Data)?;
        write_escaped(out, &escape_untrusted(&related.message), Escape::Data)?;
        if related.line > 0 {
            write!(out, ": line {}", related.line)?;
        }
    }
    if let Some(help) = &d.help {
        write_escaped(out, "\nhelp: ", Escape::Data)?;
        write_escaped(out, &escape_untrusted(help), Escape::Data)?;
    }
    out.write_all(b"\n")
}

/// Where a text goes in a workflow command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// After the `::` that ends the properties.
    Data,
    /// A `key=value` property, where `,` separates properties and `::` ends them.
    Property,
}

/// Writes `s` with the workflow-command escaping for `place`.
fn write_escaped<W: Write>(out: &mut W, s: &str, place: Escape) -> io::Result<()> {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'%' => b"%25",
            b'\r' => b"%0D",
            b'\n' => b"%0A",
            b':' if place == Escape::Property => b"%3A",
            b',' if place == Escape::Property => b"%2C",
            _ => continue,
        };
        out.write_all(&bytes[start..i])?;
        out.write_all(escaped)?;
        start = i + 1;
    }
    out.write_all(&bytes[start..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::Rule;

    fn render(file: &str, d: &Diagnostic) -> String {
        let mut out = Vec::new();
        write_diagnostic(&mut out, file, d).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn escaped(s: &str, place: Escape) -> String {
        let mut out = Vec::new();
        write_escaped(&mut out, s, place).unwrap();
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
    fn data_escaping() {
        assert_eq!(escaped("plain text", Escape::Data), "plain text");
        assert_eq!(
            escaped("100% a\r\nb: c, d", Escape::Data),
            "100%25 a%0D%0Ab: c, d"
        );
        assert_eq!(escaped("%0A", Escape::Data), "%250A");
        assert_eq!(escaped("", Escape::Data), "");
    }

    #[test]
    fn property_escaping() {
        assert_eq!(
            escaped("C:\\runs\\a,b%\r\n.ndjson", Escape::Property),
            "C%3A\\runs\\a%2Cb%25%0D%0A.ndjson"
        );
        assert_eq!(escaped("::,,", Escape::Property), "%3A%3A%2C%2C");
        assert_eq!(escaped("é/漢字.jsonl", Escape::Property), "é/漢字.jsonl");
    }

    #[test]
    fn error_with_line_and_column() {
        let rec = br#"{"type":"tool_call","subtype":"completed","call_id":"call_1"}"#;
        let d = Diagnostic::new(Rule::OrphanCompletion, pos(12), "never started").at(rec, 42..51);
        assert_eq!(
            render("run.ndjson", &d),
            "::error file=run.ndjson,line=12,col=43,title=sjlint(orphan-completion)::never started\n"
        );
    }

    #[test]
    fn warning_and_notice_without_column() {
        let d = Diagnostic::new(Rule::TimestampRegression, pos(7), "went back");
        assert_eq!(
            render("-", &d),
            "::warning file=-,line=7,title=sjlint(timestamp-regression)::went back\n"
        );
        let d = Diagnostic::new(Rule::BlankLine, pos(3), "blank line between records");
        assert_eq!(
            render("a.ndjson", &d),
            "::notice file=a.ndjson,line=3,title=sjlint(blank-line)::blank line between records\n"
        );
    }

    #[test]
    fn no_line_for_a_finding_about_no_line() {
        let d = Diagnostic::new(Rule::EmptyStream, pos(0), "the input is empty");
        assert_eq!(
            render("e.ndjson", &d),
            "::error file=e.ndjson,title=sjlint(empty-stream)::the input is empty\n"
        );
    }

    #[test]
    fn related_and_help_are_further_lines_of_the_message() {
        let d = Diagnostic::new(Rule::DuplicateCallId, pos(9), "call_id \"c\" is still open")
            .with_related(4, "started here")
            .with_related(0, "somewhere")
            .with_help("end a call before reusing its id, 100%");
        assert_eq!(
            render("x.ndjson", &d),
            "::error file=x.ndjson,line=9,title=sjlint(duplicate-call-id)::\
             call_id \"c\" is still open%0Anote: started here: line 4%0Anote: somewhere\
             %0Ahelp: end a call before reusing its id, 100%25\n"
        );
    }

    #[test]
    fn file_names_get_property_escaping() {
        let d = Diagnostic::new(Rule::MissingType, pos(2), "no `type`");
        assert_eq!(
            render("runs/a:b,c%d\r\ne.ndjson", &d),
            "::error file=runs/a%3Ab%2Cc%25d\\r\\ne.ndjson,line=2,title=sjlint(missing-type)::no `type`\n"
        );
    }

    #[test]
    fn untrusted_message_cannot_start_another_command_nor_reach_the_log_raw() {
        let msg = "unknown type \"x\n::error file=evil::owned\r\u{1b}[2J\u{202e}\" at 50%: a, b";
        let d = Diagnostic::new(Rule::UnknownEventType, pos(5), msg);
        let out = render("f", &d);
        assert_eq!(
            out,
            "::notice file=f,line=5,title=sjlint(unknown-event-type)::\
             unknown type \"x\\n::error file=evil::owned\\r\\u{1b}[2J\\u{202e}\" at 50%25: a, b\n"
        );
        assert_eq!(out.matches('\n').count(), 1);
        assert!(!out.contains('\r') && !out.contains('\u{1b}'));
    }
}
