//! Printing diagnostics: the output formats and terminal escaping (whether to colour is decided
//! by [`crate::terminal`]).
//!
//! This module owns how a [`Diagnostic`] looks on the way out. The format is a closed enum chosen
//! once; each format is a plain function below it, so nothing is dispatched through a trait
//! object per finding. Every diagnostic is rendered into a reused scratch buffer and reaches the
//! writer in one `write_all`, so findings never interleave with other output mid-line, and write
//! errors (a closed pipe included) come back as `io::Error`. This module must not decide what is
//! a finding, nor count findings: the caller passes the totals to [`Printer::summary`].
//!
//! Two formats are documents rather than streams: sarif writes its log's head with the first
//! finding, each result as it comes and the log's end in [`Printer::finish`]; junit keeps what
//! it needs of each finding (serialized, nothing more) and writes the document in
//! [`Printer::finish`]. The caller
//! brackets each input with [`Printer::begin_file`] and [`Printer::end_file`], which junit needs
//! to list every file, and calls [`Printer::finish`] once at the end, whatever the format.
//!
//! Text that comes from the input (messages quote it, snippets are made of it, file names are
//! whatever the file system holds) is untrusted: the human and concise formats pass it through
//! [`escape_untrusted`](sjlint_core::text::escape_untrusted) before it reaches a terminal, and so does the github format for the text
//! the runner prints in the job log. The json and sarif formats leave it to JSON escaping
//! ([`sjlint_core::json_out`]), junit to XML escaping; both write the characters a terminal or editor
//! would obey (bidi and C1 controls, U+2028/U+2029) as escapes.

mod concise;
mod github;
mod human;
mod json;
mod junit;
mod sarif;
mod spill;

use sjlint_core::agents::Agent;
use sjlint_core::diagnostic::Diagnostic;
use std::io::{self, Write};

/// The diagnostic output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// rustc-style, with a snippet of the offending line and a closing summary.
    Human,
    /// One `file:line:col: severity[rule] message` line per finding.
    Concise,
    /// One JSON array of findings (`[]` when there are none), each object on its own line;
    /// see `schemas/diagnostic.schema.json`.
    Json,
    /// NDJSON, one object per finding, the same objects as [`Format::Json`].
    JsonLines,
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`), one line per finding.
    Github,
    /// One SARIF 2.1.0 log for the whole run, written by [`Printer::finish`].
    Sarif,
    /// `JUnit` XML, a test suite per file, written by [`Printer::finish`].
    Junit,
}

/// Totals for the closing summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    pub files: u64,
    pub records: u64,
    pub bytes: u64,
    /// How many files each agent wrote, in the order of [`Agent::ALL`]; the summary names the
    /// agents when any file is not cursor-agent's.
    pub agents: [u64; Agent::ALL.len()],
}

impl Summary {
    /// Counts one input checked as `agent` (`None`: no agent sjlint knows).
    pub fn add_agent(&mut self, agent: Option<Agent>) {
        if let Some(i) = agent.and_then(|a| Agent::ALL.iter().position(|&b| b == a)) {
            self.agents[i] += 1;
        }
    }
}

/// Writes diagnostics in one format to one writer.
pub struct Printer<W: Write> {
    format: Format,
    out: W,
    color: bool,
    /// Number of diagnostics written so far; the human format puts a blank line between them.
    printed: u64,
    /// Each diagnostic is rendered here first, then written at once.
    scratch: Vec<u8>,
    /// What a document format keeps until [`Printer::finish`] writes it.
    document: Document,
    /// The json format's array was closed by [`Printer::finish`].
    closed: bool,
}

/// The pending document of the sarif and junit formats.
enum Document {
    /// A streaming format, or the document was written.
    None,
    Sarif(sarif::Log),
    Junit(Box<junit::Report>),
}

impl<W: Write> Printer<W> {
    pub fn new(format: Format, out: W, color: bool) -> Self {
        Printer {
            format,
            out,
            color,
            printed: 0,
            scratch: Vec::with_capacity(512),
            closed: false,
            document: match format {
                Format::Sarif => Document::Sarif(sarif::Log::new()),
                Format::Junit => Document::Junit(Box::new(junit::Report::new(false))),
                _ => Document::None,
            },
        }
    }

    /// `--strict`: warnings fail the run, so the junit format reports them as failures.
    pub fn strict(mut self, strict: bool) -> Self {
        if let Document::Junit(report) = &mut self.document {
            **report = junit::Report::new(strict);
        }
        self
    }

    /// An input named `file` starts.
    pub fn begin_file(&mut self, file: &str) -> io::Result<()> {
        if let Document::Junit(report) = &mut self.document {
            report.begin_file(file);
        }
        Ok(())
    }

    /// The input named `file` was read to its end: `records` records, `bytes` bytes. An input
    /// that was begun and never ended is one whose reading failed.
    /// The agent that wrote the file ending next (the junit format names it, unless it is
    /// cursor-agent's).
    pub fn file_agent(&mut self, agent: Option<Agent>) {
        if let Document::Junit(report) = &mut self.document {
            report.agent(agent.filter(|&a| a != Agent::DEFAULT).map(Agent::as_str));
        }
    }

    /// `--max-diagnostics` left out findings of `file` (by severity: info, warning, error): the
    /// junit format says so in the file's suite, so that a file whose findings were all left out
    /// does not read as one with none.
    pub fn hidden(&mut self, file: &str, counts: [u64; 3], max: usize) {
        if let Document::Junit(report) = &mut self.document
            && counts.iter().any(|&n| n > 0)
        {
            report.hidden(file, counts, max);
        }
    }

    /// The format findings are printed in.
    pub fn format(&self) -> Format {
        self.format
    }

    pub fn end_file(&mut self, file: &str, records: u64, bytes: u64) -> io::Result<()> {
        if let Document::Junit(report) = &mut self.document {
            report.end_file(file, records, bytes);
        }
        Ok(())
    }

    /// Print one finding about `file` (`-` or the --stdin-filename for stdin) now.
    pub fn diagnostic(&mut self, file: &str, d: &Diagnostic) -> io::Result<()> {
        self.scratch.clear();
        match self.format {
            Format::Human => {
                if self.printed > 0 {
                    self.scratch.push(b'\n');
                }
                human::write_diagnostic(&mut self.scratch, file, d, self.color)?;
            }
            Format::Concise => concise::write_diagnostic(&mut self.scratch, file, d, self.color)?,
            Format::Json => {
                self.scratch
                    .extend_from_slice(if self.printed == 0 { b"[\n" } else { b",\n" });
                json::write_diagnostic(&mut self.scratch, file, d)?;
                // The newline goes before the next element or the closing bracket.
                self.scratch.pop();
            }
            Format::JsonLines => json::write_diagnostic(&mut self.scratch, file, d)?,
            Format::Github => github::write_diagnostic(&mut self.scratch, file, d)?,
            Format::Sarif | Format::Junit => {
                match &mut self.document {
                    Document::Sarif(log) => log.push(&mut self.out, file, d)?,
                    Document::Junit(report) => report.push(file, d),
                    Document::None => {}
                }
                self.printed += 1;
                return Ok(());
            }
        }
        self.out.write_all(&self.scratch)?;
        self.printed += 1;
        Ok(())
    }

    /// The closing summary (human only; the other formats print nothing here).
    pub fn summary(&mut self, s: &Summary) -> io::Result<()> {
        match self.format {
            Format::Human => {
                self.scratch.clear();
                if self.printed > 0 {
                    self.scratch.push(b'\n');
                }
                human::write_summary(&mut self.scratch, s, self.color)?;
                self.out.write_all(&self.scratch)
            }
            // One closing line, so that a log shows the run's outcome too.
            Format::Concise => {
                self.scratch.clear();
                human::write_summary(&mut self.scratch, s, false)?;
                self.out.write_all(&self.scratch)
            }
            Format::Json | Format::JsonLines | Format::Github | Format::Sarif | Format::Junit => {
                Ok(())
            }
        }
    }

    /// The end of the run: writes the sarif or junit document (nothing for the other formats)
    /// and flushes. Call it once, after the last input and the summary, even with `--quiet`.
    pub fn finish(&mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.document, Document::None) {
            Document::Sarif(log) => log.write(&mut self.out)?,
            Document::Junit(report) => report.write(&mut self.out)?,
            Document::None if self.format == Format::Json && !self.closed => {
                self.out
                    .write_all(if self.printed == 0 { b"[]\n" } else { b"\n]\n" })?;
                self.closed = true;
            }
            Document::None => {}
        }
        self.out.flush()
    }

    /// Text that is not a finding (the `--statistics` table), written as it is. The caller
    /// escapes what it holds.
    /// With the json format, the text takes the place of the array of findings (the
    /// statistics as a JSON array), so none is written.
    pub fn write_text(&mut self, text: &str) -> io::Result<()> {
        if self.format == Format::Json {
            self.closed = true;
        }
        self.out.write_all(text.as_bytes())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::input::record::Position;
    use sjlint_core::rules::Rule;

    fn diag() -> Diagnostic {
        let pos = Position {
            byte: 10,
            line: 3,
            record: 2,
        };
        Diagnostic::new(Rule::MissingType, pos, "no `type`")
    }

    #[test]
    fn printer_separates_human_diagnostics_with_a_blank_line() {
        let mut p = Printer::new(Format::Human, Vec::new(), false);
        p.diagnostic("a", &diag()).unwrap();
        p.diagnostic("a", &diag()).unwrap();
        let s = Summary {
            errors: 2,
            files: 1,
            records: 3,
            bytes: 40,
            ..Summary::default()
        };
        p.summary(&s).unwrap();
        p.flush().unwrap();
        let out = String::from_utf8(p.into_inner()).unwrap();
        let one = "error[missing-type]: no `type`\n --> a:3\n";
        assert_eq!(
            out,
            format!("{one}\n{one}\n2 errors in 1 file; 3 records, 40 B\n")
        );
    }

    #[test]
    fn printer_summary_alone_has_no_leading_blank_line() {
        let mut p = Printer::new(Format::Human, Vec::new(), false);
        p.summary(&Summary::default()).unwrap();
        let out = String::from_utf8(p.into_inner()).unwrap();
        assert_eq!(out, "Nothing checked: no input could be read\n");
    }

    #[test]
    fn printer_streaming_formats_print_no_summary() {
        let s = Summary {
            errors: 1,
            ..Summary::default()
        };
        for format in [Format::JsonLines, Format::Github] {
            let mut p = Printer::new(format, Vec::new(), true);
            p.diagnostic("f", &diag()).unwrap();
            let before = p.scratch.len();
            p.summary(&s).unwrap();
            let out = p.into_inner();
            assert_eq!(out.len(), before, "{format:?}");
            assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1, "{format:?}");
        }
    }

    #[test]
    fn printer_documents_are_completed_once_at_the_end() {
        let s = Summary {
            errors: 1,
            files: 1,
            ..Summary::default()
        };
        for format in [Format::Sarif, Format::Junit] {
            let mut p = Printer::new(format, Vec::new(), false);
            p.begin_file("f").unwrap();
            p.diagnostic("f", &diag()).unwrap();
            p.end_file("f", 3, 40).unwrap();
            p.summary(&s).unwrap();
            // Junit waits for the end; sarif streams its results, and only finish ends the log.
            match format {
                Format::Junit => assert!(p.out.is_empty()),
                _ => assert!(!p.out.is_empty() && !p.out.ends_with(b"}\n")),
            }
            p.finish().unwrap();
            let len = p.out.len();
            p.finish().unwrap();
            let out = String::from_utf8(p.into_inner()).unwrap();
            assert_eq!(out.len(), len, "{format:?}: written twice");
            let findings = match format {
                Format::Sarif => out.matches("\"ruleId\":\"missing-type\"").count(),
                _ => out.matches("<failure type=\"missing-type\"").count(),
            };
            assert_eq!(findings, 1, "{format:?}: {out}");
        }
    }

    #[test]
    fn printer_streaming_formats_finish_by_flushing_only() {
        for format in [
            Format::Human,
            Format::Concise,
            Format::JsonLines,
            Format::Github,
        ] {
            let mut p = Printer::new(format, Vec::new(), false);
            p.begin_file("f").unwrap();
            p.end_file("f", 0, 0).unwrap();
            p.finish().unwrap();
            assert!(p.into_inner().is_empty(), "{format:?}");
        }
    }

    #[test]
    fn printer_junit_follows_strict() {
        let mut warning = diag();
        warning.severity = sjlint_core::rules::Severity::Warning;
        for (strict, failures) in [(false, 0), (true, 1)] {
            let mut p = Printer::new(Format::Junit, Vec::new(), false).strict(strict);
            p.begin_file("f").unwrap();
            p.diagnostic("f", &warning).unwrap();
            p.end_file("f", 3, 40).unwrap();
            p.finish().unwrap();
            let out = String::from_utf8(p.into_inner()).unwrap();
            let totals = format!("<testsuites name=\"sjlint\" tests=\"1\" failures=\"{failures}\"");
            assert!(out.contains(&totals), "{out}");
        }
    }

    /// A writer whose reader went away.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
    }

    #[test]
    fn a_closed_pipe_is_an_error_not_a_panic() {
        for format in [
            Format::Human,
            Format::Concise,
            Format::Json,
            Format::Github,
            Format::Sarif,
        ] {
            let mut p = Printer::new(format, ClosedPipe, false);
            let err = p.diagnostic("f", &diag()).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
            assert!(p.flush().is_err());
        }
        let mut p = Printer::new(Format::Junit, ClosedPipe, false);
        p.diagnostic("f", &diag()).unwrap();
        let err = p.finish().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        let mut p = Printer::new(Format::Human, ClosedPipe, false);
        let err = p.summary(&Summary::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
