//! The commands that print what sjlint itself knows and read no stream: `rules`, `explain`,
//! `schema`, `config`, `man` and `completions`.
//!
//! This module owns their wording on stdout and their usage errors (an unknown rule, schema or
//! subcommand). It must not read inputs or check anything.

use super::EXIT_OK;
use super::stdio;
use crate::cli::{Cli, WalkArgs};
use anyhow::bail;
use sjlint_core::rules::{Group, RULES, Rule};
use sjlint_core::text::escape_untrusted;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Prints what `generate` writes about the command line. The generators are rendered into a
/// buffer first: `clap_complete` panics when its writer fails, and a closed stdout must not.
pub(super) fn print_generated(
    generate: impl FnOnce(&mut clap::Command, &mut Vec<u8>) -> io::Result<()>,
) -> anyhow::Result<u8> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let mut text = Vec::new();
    generate(&mut cmd, &mut text)?;
    let mut out = stdio::stdout();
    out.write_all(&text)?;
    out.flush()?;
    Ok(EXIT_OK)
}

/// The main manual page, or the page of `sub` (whose title is `sjlint-<sub>`, as the main page's
/// SUBCOMMANDS section names it).
pub(super) fn print_man(sub: Option<&str>) -> anyhow::Result<u8> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    // Gives subcommands their display names.
    cmd.build();
    let page = match sub {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => bail!("no subcommand `{name}` (`sjlint --help` lists them)"),
        },
    };
    let main = sub.is_none();
    print_generated(|_, out| {
        clap_mangen::Man::new(page).render(out)?;
        if main {
            out.extend_from_slice(MAN_EXTRA.as_bytes());
        }
        Ok(())
    })
}

/// The main page's sections that clap does not write: EXIT STATUS and EXAMPLES (roff).
const MAN_EXTRA: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
No error-severity finding (with \fB\-\-strict\fR, no warning either), or \fB\-\-exit\-zero\fR.
.TP
\fB1\fR
Findings; for \fBfmt \-\-check\fR and \fBfmt \-\-diff\fR, a file that is not in canonical form.
.TP
\fB2\fR
A usage error, a bad configuration file, no file matched, or a path that cannot be read (the other paths are still checked).
.TP
\fB128+n\fR
Ended by signal n: 130 for Ctrl\-C (SIGINT), 143 for SIGTERM, 129 for SIGHUP; what was read so far is reported.
.PP
\fBsjlint run\fR has codes of its own (3: the agent failed; 124: a stall or timeout; 126, 127: the agent could not be run): see \fBsjlint\-run\fR(1).
.SH EXAMPLES
.TP
\fBcursor\-agent \-p \-\-output\-format stream\-json "fix the tests" | sjlint check \-\-tee | consumer\fR
Check a live run, forwarding the stream unchanged; findings on stderr as they are found.
.TP
\fBsjlint check transcripts/ \-\-format github\fR
Check captured transcripts in CI, as GitHub Actions annotations.
.TP
\fBsjlint check run.ndjson \-\-statistics\fR
Count the findings per rule.
.TP
\fBsjlint explain unfinished\-tool\-call\fR
What a rule checks, with a failing and a passing example.
.TP
\fBsjlint fmt \-\-check transcripts/\fR
Fail when a file is not in canonical form; \fB\-\-write\fR rewrites them.
.TP
\fBsjlint config transcripts/\fR
Show the configuration in force (sjlint.toml, .sjlint.toml, or [tool.sjlint] in pyproject.toml).
"#;

pub(super) fn print_rules() -> anyhow::Result<u8> {
    let mut out = BufWriter::new(stdio::stdout());
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in RULES {
        writeln!(
            out,
            "{:width$}  {:10}  {:7}  {}",
            r.name,
            r.group.as_str(),
            r.severity.as_str(),
            r.summary
        )?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

pub(super) fn explain(name: &str) -> anyhow::Result<u8> {
    if let Some(rule) = Rule::from_name(name) {
        let mut out = stdio::stdout();
        out.write_all(rule.info().doc.as_bytes())?;
        out.flush()?;
        return Ok(EXIT_OK);
    }
    if let Some(group) = Group::ALL.iter().find(|g| g.as_str() == name) {
        return explain_group(*group);
    }
    let near = sjlint_core::config::closest_name(name)
        .map(|near| format!("; did you mean `{near}`?"))
        .unwrap_or_default();
    bail!("unknown rule or group `{name}`{near} (`sjlint rules` lists them all)")
}

/// `sjlint explain GROUP`: the group's rules, each with its severity and summary.
fn explain_group(group: Group) -> anyhow::Result<u8> {
    let mut out = BufWriter::new(stdio::stdout());
    writeln!(out, "# {}\n", group.as_str())?;
    writeln!(
        out,
        "Rules of the `{}` group (`sjlint explain RULE` for one):\n",
        group.as_str()
    )?;
    for r in RULES.iter().filter(|r| r.group == group) {
        writeln!(out, "- `{}` ({}): {}", r.name, r.severity, r.summary)?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// `sjlint config [PATH]`: the settings in force for PATH, with the command line's `overrides`.
pub(super) fn show_config(
    path: Option<&Path>,
    walk: &WalkArgs,
    overrides: sjlint_core::config::Overrides,
) -> anyhow::Result<u8> {
    let path = path.unwrap_or(Path::new("."));
    let settings = walk
        .configs(overrides)
        .and_then(|mut c| c.for_path(Some(path)))
        .map_err(anyhow::Error::msg)?;
    let mut out = stdio::stdout();
    for line in sjlint_core::config::describe(&settings).lines() {
        writeln!(out, "{}", escape_untrusted(line))?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// `sjlint schema [NAME]`: a bundled schema, or the list of their names.
/// `sjlint agents`: the registry, one line an agent, or as JSON.
pub(super) fn print_agents(json: bool) -> anyhow::Result<u8> {
    let mut out = BufWriter::new(stdio::stdout());
    let registry = sjlint_core::agents::REGISTRY;
    if json {
        #[derive(serde::Serialize)]
        struct Line {
            name: &'static str,
            display_name: &'static str,
            command: &'static str,
            schema: &'static str,
            fixtures: String,
            /// `stream`, or `session-log` for the log an agent keeps on disk.
            source: &'static str,
        }
        let lines: Vec<Line> = registry
            .iter()
            .map(|e| Line {
                name: e.name,
                display_name: e.display,
                command: e.command,
                schema: e.schema,
                fixtures: format!("testdata/{}", e.fixtures),
                source: e.source.as_str(),
            })
            .collect();
        sjlint_core::json_out::to_writer(&mut out, &lines)?;
        writeln!(out)?;
    } else {
        let width = registry.iter().map(|e| e.name.len()).max().unwrap_or(0);
        let display = registry.iter().map(|e| e.display.len()).max().unwrap_or(0);
        for e in registry {
            writeln!(
                out,
                "{:width$}  {:display$}  {}",
                e.name, e.display, e.command
            )?;
        }
    }
    out.flush()?;
    Ok(EXIT_OK)
}

pub(super) fn print_schema(name: Option<&str>) -> anyhow::Result<u8> {
    let mut out = stdio::stdout();
    let Some(name) = name else {
        for s in sjlint_core::schema::SCHEMAS {
            writeln!(out, "{}", s.name)?;
        }
        out.flush()?;
        return Ok(EXIT_OK);
    };
    match sjlint_core::schema::find(name) {
        Some(s) => {
            out.write_all(s.text.as_bytes())?;
            out.flush()?;
            Ok(EXIT_OK)
        }
        None => {
            let names: Vec<&str> = sjlint_core::schema::SCHEMAS
                .iter()
                .map(|s| s.name)
                .collect();
            bail!("no schema named `{name}` (bundled: {})", names.join(", "))
        }
    }
}
