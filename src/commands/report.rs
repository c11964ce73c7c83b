//! `sjlint report`: writes the HTML page of each input, and with several inputs or a directory,
//! an `index.html` beside them.
//!
//! This module owns the command's side effects: resolving inputs and the settings that choose
//! which findings are shown (as `check` would report them), reading each input in turn (one that
//! cannot be read is reported and the others are still written), naming the pages and writing
//! the files. It must not lay out or escape anything; `sjlint_outputs::report_html` does.

use super::inputs::{Input, open_input, resolve_inputs, settings_of, unreadable_input};
use super::stdio;
use super::{EXIT_OK, EXIT_USAGE};
use crate::cli::{InputArgs, ReportArgs};
use anyhow::Context;
use sjlint_core::check::CheckOptions;
use sjlint_core::config::Settings;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::{Rule, RuleSet};
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::report_html::{self, Summary};
use sjlint_outputs::terminal::Terminal;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(super) fn run(args: &ReportArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let how = Pages {
        redact: args.redact.redactor(),
        ..Pages::default()
    };
    Ok(pages(&args.input, &args.output, how, terminal)?.0)
}

/// How [`pages`] writes and reads.
#[derive(Clone, Copy, Default)]
pub(super) struct Pages {
    /// A directory with `index.html` and a page per run, even for one input.
    pub(super) folder: bool,
    /// A file that is one JSON array of events (claude-code-action's execution file) is read
    /// as the stream of its elements (`ci`'s reading of it).
    pub(super) arrays: bool,
    /// `--redact`: every record's text redacted before it is read.
    pub(super) redact: Option<&'static sjlint_core::redact::Redactor>,
}

/// Writes the report of the inputs of `input` to `output`: one page, or with several inputs,
/// a directory (see [`Pages`]). The exit code, and the page written that shows them all (none
/// when no input could be read).
pub(super) fn pages(
    input: &InputArgs,
    output: &Path,
    how: Pages,
    terminal: &Terminal,
) -> anyhow::Result<(u8, Option<PathBuf>)> {
    let mut configs = input
        .walk
        .configs(input.walk.overrides())
        .map_err(anyhow::Error::msg)?;
    let mut unreadable = false;
    let list = resolve_inputs(
        &input.paths,
        &input.walk,
        terminal.stdin,
        &mut configs,
        &mut unreadable,
    )?;
    let per_input = settings_of(&list, &mut configs)?;
    let mut enabled = RuleSet::empty();
    for s in &per_input {
        for rule in Rule::all().filter(|r| s.enabled.contains(*r)) {
            enabled.insert(rule);
        }
    }
    let check = CheckOptions {
        enabled,
        max_record_bytes: input.max_record_bytes,
        dialect: input.dialect.forced(),
        agent: input.agent.forced(),
        max_open_calls: input.max_open_calls,
        redact: how.redact,
    };
    let stdin_name = input.stdin_filename.as_deref().unwrap_or("-");
    let many = how.folder
        || list.len() > 1
        || input.paths.iter().any(|p| p.is_dir())
        || output.is_dir()
        || output.as_os_str().to_string_lossy().ends_with('/');
    if many {
        std::fs::create_dir_all(output)
            .with_context(|| format!("cannot create {}", output.display()))?;
    }
    // No page may replace an input: refused before anything is written.
    let input_files: Vec<PathBuf> = list
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => Some(p.clone()),
            Input::Stdin => None,
        })
        .collect();
    let pages: Vec<PathBuf> = if many {
        (0..list.len())
            .map(|i| output.join(page_name(i, &list[i])))
            .chain([output.join("index.html")])
            .collect()
    } else {
        vec![output.to_path_buf()]
    };
    for page in &pages {
        if let Some(input) = crate::out_file::names_an_input(page, &input_files) {
            return Err(crate::out_file::names_input_error("the page", page, input).into());
        }
    }
    let mut summaries = Vec::new();
    let mut written_pages = 0;
    for (i, (item, settings)) in list.iter().zip(&per_input).enumerate() {
        let run = match read_one(item, stdin_name, &check, settings, how.arrays) {
            Ok(run) => run,
            Err(e) => {
                unreadable = true;
                unreadable_input(&e)?;
                continue;
            }
        };
        if many {
            let file = page_name(i, item);
            let path = output.join(&file);
            write_file(&path, &report_html::page(&run, Some("index.html")))?;
            summaries.push(Summary::of(&run, file));
        } else {
            write_file(output, &report_html::page(&run, None))?;
        }
        written_pages += 1;
    }
    if written_pages == 0 {
        // Nothing was read: a page from an earlier run is left as it is, and not called new.
        writeln!(
            stdio::stderr(),
            "sjlint: nothing written: no input could be read"
        )?;
        return Ok((EXIT_USAGE, None));
    }
    let written = if many {
        let path = output.join("index.html");
        write_file(&path, &report_html::index(&summaries))?;
        path
    } else {
        output.to_path_buf()
    };
    writeln!(
        stdio::stderr(),
        "sjlint: wrote {}",
        escape_untrusted(&written.display().to_string())
    )?;
    let code = if unreadable { EXIT_USAGE } else { EXIT_OK };
    Ok((code, Some(written)))
}

/// Reads one input into a run, with the findings its settings report, graded as they say.
fn read_one(
    item: &Input,
    stdin_name: &str,
    check: &CheckOptions,
    settings: &Settings,
    arrays: bool,
) -> anyhow::Result<report_html::Run> {
    let mut opened = open_input(item, stdin_name, false)?;
    if let (true, Input::File(p)) = (arrays, item)
        && let Some(u) = super::inputs::unrolled(p)
    {
        opened.reader = Box::new(std::io::Cursor::new(u.stream));
    }
    let path = PathBuf::from(&opened.name);
    let mut keep = |d: &Diagnostic| graded(settings, &path, d);
    // The arrival times `sjlint run --save` kept beside a file time what its records do not.
    let arrivals = match item {
        Input::File(p) => sjlint_core::arrivals::Arrivals::beside(p),
        Input::Stdin => None,
    };
    report_html::read(
        &opened.name,
        opened.reader,
        check,
        &mut keep,
        arrivals.as_ref(),
    )
    .with_context(|| format!("cannot read {}", opened.name))
}

/// `d` as `check` would report it under `settings`: dropped, or with its severity set.
pub(crate) fn graded(settings: &Settings, path: &Path, d: &Diagnostic) -> Option<Diagnostic> {
    settings.grade(d, path).map(std::borrow::Cow::into_owned)
}

/// The file name of input `i`'s page in a directory: its number and its file stem, reduced to
/// characters safe in a file name and a URL.
fn page_name(i: usize, item: &Input) -> String {
    let stem = match item {
        Input::Stdin => "stdin".to_owned(),
        Input::File(p) => p
            .file_stem()
            .map_or("run".into(), |s| s.to_string_lossy().into_owned()),
    };
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    format!("{:03}-{safe}.html", i + 1)
}

/// Writes a page whole or not at all (through a temporary file renamed over it).
fn write_file(path: &Path, html: &str) -> anyhow::Result<()> {
    crate::out_file::write_whole(path, html.as_bytes()).with_context(|| {
        format!(
            "cannot write {}",
            escape_untrusted(&path.display().to_string())
        )
    })
}
