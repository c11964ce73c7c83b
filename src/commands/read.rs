//! `sjlint stats` and `sjlint render`: streams read without reporting findings, each input
//! counted (stats) or shown as a transcript (render) on stdout.
//!
//! This module owns reading their inputs one after another ([`each_input`]): an input that
//! cannot be read is reported and the others are still read, and Ctrl-C keeps what was read so
//! far. It must not count or render anything itself (`stats`, `render` do).

use super::inputs::{Input, Opened, input_failure, open_input, unreadable_input};
use super::resolve::{ReadConfig, render_options};
use super::stdio;
use super::{EXIT_OK, EXIT_USAGE};
use crate::cli::{RenderArgs, StatsArgs, StatsFormat};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::interrupt;
use sjlint_outputs::sink::Sink;
use sjlint_outputs::terminal::Terminal;
use sjlint_outputs::{render, stats};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The input [`each_input`] hands on, and where it stands among them.
pub(super) struct Reading<'a> {
    pub(super) name: &'a str,
    /// How many inputs were read before this one.
    index: usize,
    /// Where it stands in the inputs' list (`ReadConfig::per_input` is in its order).
    pub(super) position: usize,
    /// Standard input: shown as it arrives.
    live: bool,
    /// More than one input is read.
    several: bool,
    /// The file read, when it is one.
    pub(super) path: Option<&'a std::path::Path>,
}

/// Reads every input of `config` with `each`, which sees the input and its reader. Errors of
/// `each` other than a closed stdout are read errors: reported, and the run goes on with exit 2.
fn each_input(
    config: &ReadConfig,
    mut each: impl FnMut(&Reading<'_>, Box<dyn Read>) -> io::Result<()>,
) -> io::Result<u8> {
    let inputs = &config.inputs;
    let mut unreadable = inputs.unreadable;
    let mut index = 0;
    for (position, input) in inputs.list.iter().enumerate() {
        let Opened {
            name, reader, live, ..
        } = match open_input(input, &inputs.stdin_name, false) {
            Ok(opened) => opened,
            Err(e) => {
                unreadable = true;
                unreadable_input(&e)?;
                continue;
            }
        };
        let reading = Reading {
            name: &name,
            index,
            position,
            live,
            several: inputs.list.len() > 1,
            path: match input {
                super::inputs::Input::File(p) => Some(p),
                super::inputs::Input::Stdin => None,
            },
        };
        index += 1;
        match each(&reading, reader) {
            Ok(()) => {}
            Err(e) => match input_failure(&name, e)? {
                Some(code) => return Ok(code),
                None => unreadable = true,
            },
        }
    }
    Ok(if unreadable { EXIT_USAGE } else { EXIT_OK })
}

/// `sjlint stats`: the statistics of every input, as tables or one JSON document. Several
/// files are read at once, on `--jobs` threads.
pub(super) fn run_stats(args: &StatsArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let config = ReadConfig::resolve_judged(&args.input, terminal)?;
    let jobs = super::resolve::jobs(args.jobs)?;
    let mut files = Vec::new();
    let code = read_all(
        &config,
        jobs,
        &|reading, reader| stats_of(&config, reading, reader),
        &mut files,
    )?;
    let mut out = BufWriter::new(Sink(stdio::stdout()));
    match args.format {
        StatsFormat::Table => stats::write_tables(&mut out, &files)?,
        StatsFormat::Json => stats::write_json(&mut out, &files)?,
    }
    out.flush()?;
    Ok(code)
}

/// What `count` makes of each input of `config`, in the inputs' order, into `files` (with the
/// input's name); the exit code. Several files are read at once on `jobs` threads; the output
/// and the exit code are those of one thread. An input read part way (Ctrl-C) is kept.
pub(super) fn read_all<T: Send>(
    config: &ReadConfig,
    jobs: usize,
    count: &Count<'_, T>,
    files: &mut Vec<(String, T)>,
) -> io::Result<u8> {
    let list = &config.inputs.list;
    if jobs > 1 && list.len() > 1 && list.iter().all(|i| matches!(i, Input::File(_))) {
        return read_in_parallel(config, jobs, count, files);
    }
    each_input(config, |reading, reader| {
        let (counted, read) = count(reading, reader);
        // After Ctrl-C, what was read so far is still shown.
        if read.as_ref().is_ok() || read.as_ref().is_err_and(interrupt::is_stop) {
            files.push((reading.name.to_owned(), counted));
        }
        read
    })
}

/// The statistics of one input, and how reading it ended.
fn stats_of(
    config: &ReadConfig,
    reading: &Reading<'_>,
    reader: Box<dyn Read>,
) -> (stats::Stats, io::Result<()>) {
    // The arrival times `sjlint run --save` kept beside a file time what its records do not.
    let arrivals = reading
        .path
        .and_then(sjlint_core::arrivals::Arrivals::beside);
    // The findings `check` reports of this input, with their severities.
    let settings = &config.per_input[reading.position];
    let mut judge = |d: &Diagnostic| {
        settings
            .grade(d, Path::new(reading.name))
            .map(|d| d.severity)
    };
    stats::collect_judged(reader, &config.check, arrivals, &mut judge)
}

/// What [`read_all`] makes of one input: a count of it, and how reading it ended.
pub(super) type Count<'c, T> =
    dyn Fn(&Reading<'_>, Box<dyn Read>) -> (T, io::Result<()>) + Sync + 'c;

/// What a thread of [`read_in_parallel`] made of one file.
enum Counted<T> {
    Unopened(anyhow::Error),
    Read(String, Box<T>, io::Result<()>),
}

/// [`read_all`] over files only, `jobs` of them at once: each thread takes the next file and
/// counts it; then the files are taken in the order of the paths, each reported as
/// [`each_input`] reports it (an unreadable one, Ctrl-C), so the output and the exit code are
/// those of one thread.
fn read_in_parallel<T: Send>(
    config: &ReadConfig,
    jobs: usize,
    count: &Count<'_, T>,
    files: &mut Vec<(String, T)>,
) -> io::Result<u8> {
    let inputs = &config.inputs;
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Counted<T>>>> =
        inputs.list.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(inputs.list.len()) {
            scope.spawn(|| {
                loop {
                    let position = next.fetch_add(1, Ordering::Relaxed);
                    let Some(input) = inputs.list.get(position) else {
                        break;
                    };
                    if interrupt::interrupted() {
                        break;
                    }
                    let counted = match open_input(input, &inputs.stdin_name, false) {
                        Err(e) => Counted::Unopened(e),
                        Ok(Opened { name, reader, .. }) => {
                            let reading = Reading {
                                name: &name,
                                index: position,
                                position,
                                live: false,
                                several: true,
                                path: match input {
                                    Input::File(p) => Some(p),
                                    Input::Stdin => None,
                                },
                            };
                            let (counted, read) = count(&reading, reader);
                            Counted::Read(name, Box::new(counted), read)
                        }
                    };
                    *slots[position]
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = Some(counted);
                }
            });
        }
    });
    let mut unreadable = inputs.unreadable;
    for slot in slots {
        // A file no thread took: Ctrl-C came first, and an earlier file says so.
        let Some(counted) = slot.into_inner().unwrap_or_else(PoisonError::into_inner) else {
            break;
        };
        match counted {
            Counted::Unopened(e) => {
                unreadable = true;
                unreadable_input(&e)?;
            }
            Counted::Read(name, counted, read) => {
                if read.as_ref().is_ok() || read.as_ref().is_err_and(interrupt::is_stop) {
                    files.push((name.clone(), *counted));
                }
                if let Err(e) = read {
                    match input_failure(&name, e)? {
                        Some(code) => return Ok(code),
                        None => unreadable = true,
                    }
                }
            }
        }
    }
    Ok(if unreadable { EXIT_USAGE } else { EXIT_OK })
}

/// `sjlint render`: the transcript of every input, each under its name when there are several.
pub(super) fn run_render(args: &RenderArgs, terminal: &Terminal) -> anyhow::Result<u8> {
    let mut config = ReadConfig::resolve(&args.input, terminal)?;
    config.check.redact = args.redact.redactor();
    let opts = render_options(args, terminal);
    let mut out = BufWriter::new(Sink(stdio::stdout()));
    let code = each_input(&config, |reading, reader| {
        if reading.index > 0 {
            out.write_all(b"\n")?;
        }
        let header = reading.several.then_some(reading.name);
        render::render(reader, &mut out, header, &opts, &config.check, reading.live)
    })?;
    out.flush()?;
    Ok(code)
}
