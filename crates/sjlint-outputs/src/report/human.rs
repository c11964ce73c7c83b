//! The human format: rustc-style findings with a window of the offending line, and the closing
//! summary.
//!
//! Layout, for a gutter as wide as the line number:
//! ```text
//! error[orphan-completion]: `completed` for call_id "call_1" that was never started
//!   --> run.ndjson:12:34
//!    |
//! 12 | …"subtype":"completed","call_id":"call_1","tool_call":{"readToolCall":…
//!    |                        ^^^^^^^^^
//!    |
//!    = note: started here: line 4
//!    = help: …
//! ```
//! Snippet text is escaped first and the carets are placed by the display width of the escaped
//! text, so a control character or a wide character before the mark cannot shift them. Widths
//! come from the Unicode tables (`unicode-width`): two columns for wide CJK and emoji, none for
//! combining marks.

use super::Summary;
use owo_colors::Style;
use sjlint_core::agents::Agent;
use sjlint_core::diagnostic::{Diagnostic, Snippet};
use sjlint_core::rules::Severity;
use sjlint_core::text::{escape_untrusted, format_bytes, thousands};
use std::fmt;
use std::io::{self, Write};

/// Shown where the snippet's line continues beyond the window.
const ELLIPSIS: &str = "…";

pub(super) fn severity_style(severity: Severity) -> Style {
    match severity {
        Severity::Error => Style::new().red().bold(),
        Severity::Warning => Style::new().yellow().bold(),
        Severity::Info => Style::new().cyan().bold(),
    }
}

fn gutter_style() -> Style {
    Style::new().blue()
}

/// `value`, wrapped in `style`'s escape codes when colour is on.
struct Paint<T> {
    value: T,
    style: Option<Style>,
}

impl<T: fmt::Display> fmt::Display for Paint<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.style {
            Some(style) => style.style(&self.value).fmt(f),
            None => self.value.fmt(f),
        }
    }
}

/// The styles of one rendering; all `None` without colour, so no escape code is written.
struct Palette {
    severity: Option<Style>,
    gutter: Option<Style>,
    bold: Option<Style>,
}

impl Palette {
    fn new(severity: Severity, color: bool) -> Self {
        let on = |style: Style| color.then_some(style);
        Palette {
            severity: on(severity_style(severity)),
            gutter: on(gutter_style()),
            bold: on(Style::new().bold()),
        }
    }

    fn severity<T>(&self, value: T) -> Paint<T> {
        Paint {
            value,
            style: self.severity,
        }
    }

    fn gutter<T>(&self, value: T) -> Paint<T> {
        Paint {
            value,
            style: self.gutter,
        }
    }

    fn bold<T>(&self, value: T) -> Paint<T> {
        Paint {
            value,
            style: self.bold,
        }
    }
}

/// `width` spaces.
struct Pad(usize);

impl fmt::Display for Pad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:1$}", "", self.0)
    }
}

pub(super) fn write_diagnostic<W: Write>(
    out: &mut W,
    file: &str,
    d: &Diagnostic,
    color: bool,
) -> io::Result<()> {
    let p = Palette::new(d.severity, color);
    let width = digits(d.line);
    let pad = Pad(width);

    writeln!(
        out,
        "{}{}: {}",
        p.severity(d.severity.as_str()),
        p.bold(format_args!("[{}]", d.rule.name())),
        escape_untrusted(&d.message)
    )?;

    write!(out, "{pad}{} {}", p.gutter("-->"), escape_untrusted(file))?;
    // Line 0 means the finding concerns no line (an empty input).
    if d.line > 0 {
        write!(out, ":{}", d.line)?;
        if let Some(column) = d.column {
            write!(out, ":{column}")?;
        }
    }
    writeln!(out)?;

    if let Some(snippet) = &d.snippet {
        // A snippet of a multi-line record may lie on a later physical line than `d.line`.
        let number = (d.line > 0).then(|| d.line + snippet.line_offset);
        write_snippet(out, &p, width, number, snippet)?;
    }

    if !d.related.is_empty() || d.help.is_some() {
        if d.snippet.is_some() {
            writeln!(out, "{pad} {}", p.gutter("|"))?;
        }
        for related in &d.related {
            write!(
                out,
                "{pad} {} {} {}",
                p.gutter("="),
                p.bold("note:"),
                escape_untrusted(&related.message)
            )?;
            if related.line > 0 {
                write!(out, ": line {}", related.line)?;
            }
            writeln!(out)?;
        }
        if let Some(help) = &d.help {
            writeln!(
                out,
                "{pad} {} {} {}",
                p.gutter("="),
                p.bold("help:"),
                escape_untrusted(help)
            )?;
        }
    }
    Ok(())
}

fn write_snippet<W: Write>(
    out: &mut W,
    p: &Palette,
    width: usize,
    number: Option<u64>,
    snippet: &Snippet,
) -> io::Result<()> {
    let text = snippet.text.as_str();
    let (start, end) = mark_bounds(text, &snippet.mark);
    let before = escape_untrusted(&text[..start]);
    let marked = escape_untrusted(&text[start..end]);
    let after = escape_untrusted(&text[end..]);
    let left = if snippet.cut_left { ELLIPSIS } else { "" };
    let right = if snippet.cut_right { ELLIPSIS } else { "" };

    let pad = Pad(width);
    writeln!(out, "{pad} {}", p.gutter("|"))?;
    let number = match number {
        Some(n) => format!("{n:>width$}"),
        None => Pad(width).to_string(),
    };
    write!(out, "{} ", p.gutter(format_args!("{number} |")))?;
    writeln!(out, "{left}{before}{marked}{after}{right}")?;

    let indent = display_width(left) + display_width(&before);
    let carets = display_width(&marked).max(1);
    writeln!(
        out,
        "{pad} {} {}{}",
        p.gutter("|"),
        Pad(indent),
        p.severity("^".repeat(carets))
    )
}

/// The snippet's mark clamped to `text` and widened to character boundaries.
fn mark_bounds(text: &str, mark: &std::ops::Range<usize>) -> (usize, usize) {
    let mut end = mark.end.min(text.len());
    let mut start = mark.start.min(end);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Terminal columns `s` takes, by the Unicode East Asian Width and emoji presentation tables
/// (`unicode-width`); the text is escaped before, so it holds no control characters.
fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

fn digits(mut n: u64) -> usize {
    let mut count = 1;
    while n >= 10 {
        n /= 10;
        count += 1;
    }
    count
}

pub(super) fn write_summary<W: Write>(out: &mut W, s: &Summary, color: bool) -> io::Result<()> {
    let paint = |value: String, style: Style| Paint {
        value,
        style: color.then_some(style),
    };
    let totals = format!(
        "in {}{}; {}, {}",
        count(s.files, "file", "files"),
        agents(s),
        count(s.records, "record", "records"),
        format_bytes(s.bytes)
    );
    // Every input failed to open: no problem was found because nothing was read.
    if s.files == 0 && s.errors == 0 && s.warnings == 0 && s.infos == 0 {
        return writeln!(out, "Nothing checked: no input could be read");
    }
    if s.errors == 0 && s.warnings == 0 && s.infos == 0 {
        let green = Style::new().green().bold();
        return writeln!(out, "{} {totals}", paint("No problems found".into(), green));
    }
    let errors = count(s.errors, "error", "errors");
    let error_style = if s.errors > 0 {
        severity_style(Severity::Error)
    } else {
        Style::new().bold()
    };
    write!(out, "{}", paint(errors, error_style))?;
    let others = [
        (s.warnings, "warning", "warnings", Severity::Warning),
        (s.infos, "info", "infos", Severity::Info),
    ];
    for (n, one, many, severity) in others {
        if n > 0 {
            write!(
                out,
                ", {}",
                paint(count(n, one, many), severity_style(severity))
            )?;
        }
    }
    writeln!(out, " {totals}")
}

/// The agents that wrote the inputs, ` (Claude Code)` or ` (2 Claude Code, 1 Codex)`; nothing
/// when every input is cursor-agent's (or none names an agent sjlint knows), so that the
/// summary of a cursor run reads as it always has. Inputs no agent sjlint knows are counted as
/// `unknown` beside the others.
fn agents(s: &Summary) -> String {
    let cursor = Agent::ALL.iter().position(|&a| a == Agent::DEFAULT);
    let others = s
        .agents
        .iter()
        .enumerate()
        .any(|(i, &n)| n > 0 && Some(i) != cursor);
    if !others {
        return String::new();
    }
    let named: Vec<(u64, &str)> = Agent::ALL
        .iter()
        .zip(s.agents)
        .filter(|&(_, n)| n > 0)
        .map(|(a, n)| (n, a.display_name()))
        .collect();
    let unknown = s.files.saturating_sub(named.iter().map(|&(n, _)| n).sum());
    if let ([(_, name)], 0) = (named.as_slice(), unknown) {
        return format!(" ({name})");
    }
    let mut parts: Vec<String> = named
        .iter()
        .map(|(n, name)| format!("{} {name}", thousands(*n)))
        .collect();
    if unknown > 0 {
        parts.push(format!("{} unknown", thousands(unknown)));
    }
    format!(" ({})", parts.join(", "))
}

/// `n` with thousands separators and the noun that agrees with it.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::Rule;

    fn render(file: &str, d: &Diagnostic, color: bool) -> String {
        let mut out = Vec::new();
        write_diagnostic(&mut out, file, d, color).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn summary(s: Summary, color: bool) -> String {
        let mut out = Vec::new();
        write_summary(&mut out, &s, color).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn pos(line: u64) -> Position {
        Position {
            byte: 0,
            line,
            record: line,
        }
    }

    const COMPLETED: &str = r#"{"type":"tool_call","subtype":"completed","call_id":"call_1","tool_call":{"readToolCall":{"args":{"path":"src/main.rs"}}}}"#;

    fn orphan() -> Diagnostic {
        let at = COMPLETED.find(r#""call_id""#).unwrap();
        Diagnostic::new(
            Rule::OrphanCompletion,
            pos(12),
            "`completed` for call_id \"call_1\" that was never started",
        )
        .at(COMPLETED.as_bytes(), at..at + 18)
        .with_related(4, "started here")
        .with_help("start the call before completing it")
    }

    #[test]
    fn full_diagnostic() {
        let expected = concat!(
            "error[orphan-completion]: `completed` for call_id \"call_1\" that was never started\n",
            "  --> run.ndjson:12:43\n",
            "   |\n",
            r#"12 | {"type":"tool_call","subtype":"completed","call_id":"call_1","tool_call":{"readToolCall":{"args":{"path":"src/main.rs"}}…"#,
            "\n",
            "   |                                           ^^^^^^^^^^^^^^^^^^\n",
            "   |\n",
            "   = note: started here: line 4\n",
            "   = help: start the call before completing it\n",
        );
        assert_eq!(render("run.ndjson", &orphan(), false), expected);
    }

    #[test]
    fn cut_window_on_a_long_line() {
        let mut rec = "x".repeat(300);
        rec.replace_range(150..153, "abc");
        let d =
            Diagnostic::new(Rule::InvalidJson, pos(7), "expected `,`").at(rec.as_bytes(), 150..153);
        let out = render("big.ndjson", &d, false);
        let window = format!("…{}abc{}…", "x".repeat(60), "x".repeat(60));
        let expected = format!(
            "error[invalid-json]: expected `,`\n \
             --> big.ndjson:7:151\n  \
             |\n\
             7 | {window}\n  \
             | {}^^^\n",
            " ".repeat(61)
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn no_snippet_means_no_gutter_block() {
        let d = Diagnostic::new(
            Rule::MissingResult,
            pos(1234),
            "the input ends in a session",
        )
        .with_related(1, "the session starts here");
        let expected = "error[missing-result]: the input ends in a session\n    \
                        --> a.ndjson:1234\n     \
                        = note: the session starts here: line 1\n";
        assert_eq!(render("a.ndjson", &d, false), expected);

        let d = Diagnostic::new(Rule::EmptyStream, pos(0), "no record");
        assert_eq!(
            render("-", &d, false),
            "error[empty-stream]: no record\n --> -\n"
        );
    }

    #[test]
    fn point_mark_gets_one_caret_and_the_line_number() {
        let d = Diagnostic::new(Rule::MissingType, pos(3), "an object without `type`")
            .with_snippet(br#"{"subtype":"init"}"#);
        let expected = concat!(
            "warning[missing-type]: an object without `type`\n",
            " --> f:3\n",
            "  |\n",
            "3 | {\"subtype\":\"init\"}\n",
            "  | ^\n",
        );
        let mut d = d;
        d.severity = Severity::Warning;
        assert_eq!(render("f", &d, false), expected);
    }

    #[test]
    fn escaping_in_message_and_snippet_keeps_carets_aligned() {
        let rec = "{\"a\":\"\u{1b}[31m\u{202e}\",\"type\":7}";
        let at = rec.find('7').unwrap();
        let d = Diagnostic::new(
            Rule::WrongFieldType,
            pos(5),
            "`type` is a number in \"\u{1b}[31m\u{202e}\"",
        )
        .at(rec.as_bytes(), at..at + 1);
        let out = render("e\u{1b}.ndjson", &d, false);
        let expected = concat!(
            "error[wrong-field-type]: `type` is a number in \"\\u{1b}[31m\\u{202e}\"\n",
            " --> e\\u{1b}.ndjson:5:22\n",
            "  |\n",
            "5 | {\"a\":\"\\u{1b}[31m\\u{202e}\",\"type\":7}\n",
            "  |                                  ^\n",
        );
        assert_eq!(out, expected);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{202e}'));
    }

    #[test]
    fn escaped_text_inside_the_mark_widens_the_carets() {
        let rec = "{\"k\":\"a\tb\"}";
        let d =
            Diagnostic::new(Rule::RawControlCharacter, pos(1), "raw tab").at(rec.as_bytes(), 7..8);
        let out = render("t", &d, false);
        assert!(out.contains("1 | {\"k\":\"a\\tb\"}\n"), "{out}");
        assert!(out.ends_with("  |        ^^\n"), "{out}");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        let rec = "{\"t\":\"漢字\",\"x\":1}";
        let at = rec.find("\"x\"").unwrap();
        let d = Diagnostic::new(Rule::UnknownSubtype, pos(2), "m").at(rec.as_bytes(), at..at + 3);
        let out = render("w", &d, false);
        assert!(
            out.ends_with(&format!("  | {}^^^\n", " ".repeat(12))),
            "{out}"
        );
    }

    #[test]
    fn related_and_help_are_escaped() {
        let d = Diagnostic::new(Rule::DuplicateInit, pos(9), "second init")
            .with_related(2, "first \u{2066}init\u{2069}")
            .with_help("line\nbreak");
        let out = render("f", &d, false);
        assert!(
            out.contains("  = note: first \\u{2066}init\\u{2069}: line 2\n"),
            "{out}"
        );
        assert!(out.contains("  = help: line\\nbreak\n"), "{out}");
    }

    #[test]
    fn gutter_grows_with_the_line_number() {
        let d = Diagnostic::new(Rule::InvalidJson, pos(123_456), "m").at(b"{", 0..1);
        let out = render("f", &d, false);
        let expected = concat!(
            "error[invalid-json]: m\n",
            "      --> f:123456:1\n",
            "       |\n",
            "123456 | {\n",
            "       | ^\n",
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn colour_on_adds_codes_and_off_adds_none() {
        let plain = render("run.ndjson", &orphan(), false);
        assert!(!plain.contains('\u{1b}'));
        let coloured = render("run.ndjson", &orphan(), true);
        // owo-colors writes `ESC[31;1m` for red bold, `ESC[34m` for blue, `ESC[1m` for bold.
        assert!(
            coloured.starts_with("\u{1b}[31;1merror\u{1b}[0m"),
            "{coloured:?}"
        );
        assert!(coloured.contains("\u{1b}[34m-->\u{1b}[0m"), "{coloured:?}");
        assert!(
            coloured.contains("\u{1b}[1m[orphan-completion]\u{1b}[0m"),
            "{coloured:?}"
        );
        assert!(coloured.contains("\u{1b}[31;1m^^^"), "{coloured:?}");
        let mut warning = orphan();
        warning.severity = Severity::Warning;
        assert!(render("f", &warning, true).starts_with("\u{1b}[33;1mwarning"));
        let mut info = orphan();
        info.severity = Severity::Info;
        assert!(render("f", &info, true).starts_with("\u{1b}[36;1minfo"));
        let stripped = strip_ansi(&coloured);
        assert_eq!(stripped, plain);
    }

    fn strip_ansi(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
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
    fn summary_wording() {
        let s = Summary {
            errors: 3,
            warnings: 1,
            infos: 2,
            files: 2,
            records: 1234,
            bytes: 5_600_000,
            ..Summary::default()
        };
        assert_eq!(
            summary(s, false),
            "3 errors, 1 warning, 2 infos in 2 files; 1,234 records, 5.6 MB\n"
        );
        let s = Summary {
            errors: 1,
            warnings: 0,
            infos: 1,
            files: 1,
            records: 1,
            bytes: 999,
            ..Summary::default()
        };
        assert_eq!(
            summary(s, false),
            "1 error, 1 info in 1 file; 1 record, 999 B\n"
        );
        let s = Summary {
            errors: 0,
            warnings: 2,
            infos: 0,
            files: 3,
            records: 1_000_000,
            bytes: 1000,
            ..Summary::default()
        };
        assert_eq!(
            summary(s, false),
            "0 errors, 2 warnings in 3 files; 1,000,000 records, 1.0 kB\n"
        );
    }

    #[test]
    fn summary_without_findings() {
        let s = Summary {
            files: 1,
            records: 12,
            bytes: 3_400,
            ..Summary::default()
        };
        assert_eq!(
            summary(s, false),
            "No problems found in 1 file; 12 records, 3.4 kB\n"
        );
        let coloured = summary(s, true);
        assert!(coloured.contains("\u{1b}["));
        assert_eq!(strip_ansi(&coloured), summary(s, false));
    }

    #[test]
    fn summary_colour() {
        let s = Summary {
            errors: 2,
            warnings: 1,
            infos: 1,
            ..Summary::default()
        };
        let coloured = summary(s, true);
        for code in ["[31;1m2 errors", "[33;1m1 warning", "[36;1m1 info"] {
            assert!(coloured.contains(code), "{coloured:?}");
        }
        assert_eq!(strip_ansi(&coloured), summary(s, false));
    }
}
