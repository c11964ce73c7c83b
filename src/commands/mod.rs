//! Running the commands: the command line resolved once into what each command does, inputs
//! opened, findings sent to a printer, and what was found turned into an exit code.
//!
//! This module owns everything with side effects on the outside world (files, stdin, stdout,
//! stderr). It must not contain checking logic. Here: the dispatch, the exit codes, and the one
//! place an error that ends a command is reported. Each command has its module: `check`, `fmt`,
//! `read` (stats and render), `report` (HTML pages), `reference` (rules, explain, schema, config, man, completions);
//! `run` is [`crate::run`]'s. `resolve` turns their arguments into one configuration before any
//! work, `inputs` opens what they read, and [`sjlint_outputs::terminal`] decides colour and the status
//! line.
//!
//! Errors: a command returns `anyhow::Result`; an error is a usage error or one that stopped
//! the run (exit 2), printed once here with its context (`sjlint: cannot read PATH: reason`) and
//! escaped, since paths and messages quote what the user or the file system gave. An input that
//! cannot be read is reported where it is met (`inputs::unreadable_input`) and the run goes on.

mod check;
mod ci;
mod fmt;
mod inputs;
mod read;
mod reference;
mod report;
mod resolve;
mod stdio;
mod usage;
mod usage_cache;

use crate::cli::{Cli, Command};
use sjlint_core::interrupt;
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::sink;
use sjlint_outputs::terminal::Terminal;
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit codes: no error-severity finding; findings; usage or unreadable path.
pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
/// Ctrl-C: the run stopped where it stood (128 + SIGINT, as shells report it; SIGTERM and
/// SIGHUP give 143 and 129, see [`interrupt::exit_code`]).
pub const EXIT_INTERRUPTED: u8 = 130;

pub fn run(cli: Cli) -> ExitCode {
    if matches!(
        cli.command,
        Command::Check(_)
            | Command::Stats(_)
            | Command::Render(_)
            | Command::Fmt(_)
            | Command::Usage(_)
            | Command::Ci(_)
    ) && let Err(e) = interrupt::install()
    {
        let _ = writeln!(
            stdio::stderr(),
            "sjlint: cannot handle Ctrl-C, SIGTERM, SIGHUP: {e}"
        );
    }
    match dispatch(cli.command, &Terminal::detect()) {
        Ok(code) => ExitCode::from(code),
        Err(e) => ExitCode::from(exit_for(&e)),
    }
}

/// What a command run by [`run_in_process`] did: its exit code and what it printed.
#[derive(Debug)]
pub struct InProcess {
    pub code: u8,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Runs the command line `args` (the words after `sjlint`) in this process with `stdin` as its
/// standard input, through the code the binary runs, and returns the exit code and what it
/// printed on stdout and stderr. What it leaves out is what only a process of its own has: the
/// handler of Ctrl-C, terminals (none is seen, and the colour variables are not read: what the
/// binary does with `NO_COLOR`, `FORCE_COLOR` and `CLICOLOR_FORCE` unset) and `run`, which
/// starts processes and is refused. Paths are relative to this process's directory. Several
/// threads may each run a command at once.
pub fn run_in_process(args: &[&str], stdin: &[u8]) -> InProcess {
    let words = std::iter::once("sjlint")
        .chain(args.iter().copied())
        .map(std::ffi::OsString::from);
    let (code, stdout, stderr) = stdio::captured(stdin, || {
        match crate::cli::try_parse_from(words) {
            Ok(cli) if matches!(cli.command, Command::Run(_)) => {
                let why = "sjlint: `run` starts processes and signal handlers of its own; it runs in the binary only";
                let _ = writeln!(stdio::stderr(), "{why}");
                EXIT_USAGE
            }
            Ok(cli) => dispatch(cli.command, &Terminal::none()).unwrap_or_else(|e| exit_for(&e)),
            // As clap prints it: help and the version on stdout, errors on stderr.
            Err(e) => {
                let text = e.render().to_string();
                let _ = if e.use_stderr() {
                    stdio::stderr().write_all(text.as_bytes())
                } else {
                    stdio::stdout().write_all(text.as_bytes())
                };
                u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE)
            }
        }
    });
    InProcess {
        code,
        stdout,
        stderr,
    }
}

fn dispatch(command: Command, terminal: &Terminal) -> anyhow::Result<u8> {
    match command {
        Command::Check(args) => check::run(&args, terminal),
        Command::Rules => reference::print_rules(),
        Command::Explain { rule } => reference::explain(&rule),
        Command::Stats(args) => read::run_stats(&args, terminal),
        Command::Ci(args) => ci::run(&args, terminal),
        Command::Render(args) => read::run_render(&args, terminal),
        Command::Completions { shell } => reference::print_generated(|cmd, out| {
            clap_complete::generate(shell, cmd, "sjlint", out);
            Ok(())
        }),
        Command::Man { command } => reference::print_man(command.as_deref()),
        Command::Fmt(args) => fmt::run(&args, terminal),
        Command::Agents { format } => {
            reference::print_agents(format == crate::cli::ListFormatArg::Json)
        }
        Command::Schema { name } => reference::print_schema(name.as_deref()),
        Command::Config {
            path,
            walk,
            select,
            ignore,
            severity,
        } => {
            let overrides = sjlint_core::config::Overrides {
                select: (!select.is_empty()).then_some(select),
                ignore,
                severity,
                ..walk.overrides()
            };
            reference::show_config(path.as_deref(), &walk, overrides)
        }
        Command::Run(args) => Ok(crate::run::run(&args.into())?),
        Command::Report(args) => report::run(&args, terminal),
        Command::Usage(args) => usage::run(args, terminal),
        Command::Archive(args) => {
            let Some(to) = args.to.or_else(crate::archive::default_folder) else {
                anyhow::bail!("no archive folder: HOME is not set; name one with --to DIR");
            };
            let opts = crate::archive::Options {
                to,
                dry_run: args.dry_run,
            };
            crate::archive::run(&sjlint_core::homes::from_env(), &opts)
        }
    }
}

/// The exit code of a command that ended with `e`, reported on stderr unless it is a closed
/// stdout.
fn exit_for(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<io::Error>() {
        // A closed stdout (`sjlint … | head -1`) is a normal, quiet end, with the exit code of
        // what was found before it.
        Some(io) if io.kind() == io::ErrorKind::BrokenPipe => sink::exit_so_far(),
        Some(io) if sink::is_write_error(io) => {
            let _ = writeln!(stdio::stderr(), "sjlint: cannot write the output: {io}");
            EXIT_USAGE
        }
        _ => {
            let _ = report_error(e);
            EXIT_USAGE
        }
    }
}

/// Prints `e` with its context on stderr, escaped: `sjlint: cannot read PATH: reason`.
fn report_error(e: &anyhow::Error) -> io::Result<()> {
    let message = format!("{e:#}");
    writeln!(stdio::stderr(), "sjlint: {}", escape_untrusted(&message))
}
