//! The inputs of a command: paths resolved into files and standard input (directories walked),
//! each opened (a file mapped when it can be), and standard input read without a buffer of its
//! own so the parallel pipeline can ask whether bytes are waiting.
//!
//! This module owns opening and naming inputs, and the message of one that cannot be read (the
//! run goes on and exits 2 at the end), of a run whose paths matched no file (exit 2), and of a
//! named directory that matched none while other paths did (a warning). It must not check, format or count anything.

use super::stdio;
use super::{EXIT_USAGE, report_error};
use crate::cli::WalkArgs;
use anyhow::{Context, bail};
use sjlint_core::config::{Configs, Settings};
use sjlint_core::input::array::Unrolled;
use sjlint_core::input::compressed;
use sjlint_core::input::mapped::Mapped;
use sjlint_core::interrupt::{self, Interruptible};
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::sink;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One thing to check.
pub(super) enum Input {
    Stdin,
    File(PathBuf),
}

/// The inputs `paths` name: `-` and no path at all are standard input (`stdin_is_terminal`: a
/// usage error then, rather than waiting for typing), directories are walked ([`sjlint_core::walk`]).
/// An error is a usage error: a glob does not compile, a configuration cannot be used, or the
/// paths matched no file at all (a run that checked nothing must not pass). Directories that
/// cannot be walked are reported and set `unreadable`.
pub(super) fn resolve_inputs(
    paths: &[PathBuf],
    walk: &WalkArgs,
    stdin_is_terminal: bool,
    configs: &mut Configs,
    unreadable: &mut bool,
) -> anyhow::Result<Vec<Input>> {
    let mut inputs = Vec::new();
    if paths.is_empty() {
        if stdin_is_terminal {
            bail!(
                "no input: pipe a stream in (`cursor-agent -p --output-format stream-json … | sjlint`) or name files or directories (`sjlint run.ndjson`). See `sjlint --help`."
            );
        }
        inputs.push(Input::Stdin);
    }
    let mut filter = walk.filter();
    filter.validate().map_err(anyhow::Error::msg)?;
    let mut walked = Vec::new();
    // Directories named that gave no file: said even when other inputs were found.
    let mut empty = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if path.is_dir() {
            walked.push(path);
            // The globs of the configuration that governs the directory, unless given.
            let settings = configs.for_path(Some(path)).map_err(anyhow::Error::msg)?;
            // Its globs were compiled when the file was read, and the walk compiles them again
            // (a large list takes a while): not a third time here.
            filter = settings.filter().honouring(walk.no_ignore, walk.hidden);
            filter.nested = configs.nested_filters();
            match sjlint_core::walk::walk(path, &filter) {
                Ok((files, notes)) => {
                    if files.is_empty() {
                        empty.push(path);
                    }
                    inputs.extend(files.into_iter().map(Input::File));
                    for note in notes {
                        walk_note(&note, unreadable)?;
                    }
                }
                // A configuration file below that cannot be used: a usage error, as for any
                // other. (Entries that cannot be read are notes.)
                Err(e) => return Err(anyhow::Error::msg(e)),
            }
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    let globs = filter.include_globs().join(", ");
    let streams = if filter.include.is_empty() {
        " (*.json only when it holds a stream)"
    } else {
        ""
    };
    if !inputs.is_empty() {
        // A CI job that names two directories and finds streams in one only must not pass
        // silently on the other.
        for path in empty {
            writeln!(
                stdio::stderr(),
                "sjlint: warning: `{}` holds no file matching {globs}{streams}; nothing in it was checked (pass --include GLOB or name the files)",
                escape_untrusted(&path.display().to_string())
            )?;
        }
    } else if !*unreadable {
        let shown: Vec<String> = walked
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        bail!(
            "no files matched: {} holds no file matching {globs}{streams}, once ignored and hidden files are left out; pass --include GLOB, --no-ignore or --hidden, or name the files",
            shown.join(", ")
        );
    }
    Ok(inputs)
}

/// Tells what a directory walk skipped; an entry that could not be read sets `unreadable`.
fn walk_note(note: &sjlint_core::walk::Note, unreadable: &mut bool) -> io::Result<()> {
    match note {
        sjlint_core::walk::Note::NotRegular(path, what) => writeln!(
            stdio::stderr(),
            "sjlint: note: skipped {}: {what}, not a regular file (name it to read it)",
            escape_untrusted(&path.display().to_string())
        ),
        sjlint_core::walk::Note::Unreadable(e) => {
            *unreadable = true;
            writeln!(
                stdio::stderr(),
                "sjlint: cannot read {}",
                escape_untrusted(e)
            )
        }
    }
}

/// The settings of each input, in the order of `inputs`.
pub(super) fn settings_of(
    inputs: &[Input],
    configs: &mut Configs,
) -> anyhow::Result<Vec<Arc<Settings>>> {
    inputs
        .iter()
        .map(|input| match input {
            Input::File(p) => configs.for_path(Some(p)),
            Input::Stdin => configs.for_path(None),
        })
        .collect::<Result<_, _>>()
        .map_err(anyhow::Error::msg)
}

/// An input, opened.
pub(super) struct Opened {
    /// The name it is shown under.
    pub name: String,
    pub reader: Box<dyn Read + Send>,
    /// The file mapped into memory, when it was asked for and the file can be.
    pub mapped: Option<Arc<Mapped>>,
    /// Standard input: findings and output are shown as it arrives.
    pub live: bool,
}

/// Opens `input`, and with `map` also maps it when it is a file that can be. A file that cannot
/// be opened is an error saying so, for [`cannot_read`]'s kind of report.
pub(super) fn open_input(input: &Input, stdin_name: &str, map: bool) -> anyhow::Result<Opened> {
    Ok(match input {
        Input::Stdin => Opened {
            name: stdin_name.to_owned(),
            reader: Box::new(Interruptible(stdin())),
            mapped: None,
            live: true,
        },
        Input::File(path) => {
            let f = File::open(path).with_context(|| cannot_read_message(path))?;
            let name = path.display().to_string();
            // A compressed file (an archived log) is read through its decoder.
            if compressed::is_zstd(&f).with_context(|| cannot_read_message(path))? {
                let reader = compressed::decoder(f).with_context(|| cannot_read_message(path))?;
                return Ok(Opened {
                    name,
                    reader: Box::new(Interruptible(reader)),
                    mapped: None,
                    live: false,
                });
            }
            Opened {
                name,
                mapped: map.then(|| Mapped::new(&f).map(Arc::new)).flatten(),
                reader: Box::new(Interruptible(f)),
                live: false,
            }
        }
    })
}

/// Reports an input that cannot be read, and makes the run exit 2 however it ends; the run goes
/// on with the other inputs.
pub(super) fn unreadable_input(e: &anyhow::Error) -> io::Result<()> {
    sink::note_exit(EXIT_USAGE);
    report_error(e)
}

/// Reports the error `e` that stopped reading `path` ([`unreadable_input`]).
pub(super) fn cannot_read(path: &Path, e: impl Into<anyhow::Error>) -> io::Result<()> {
    unreadable_input(&e.into().context(cannot_read_message(path)))
}

/// What the failure `e` of the input `name` means for a command that writes what it reads
/// (`fmt`, `stats`, `render`): a write error ends the run (returned as the error); a stop
/// (Ctrl-C, SIGTERM) ends it with its exit code (`Some`), after a note that the output covers
/// what was read; anything else is reported against the input, and the run goes on with the
/// next one (`None`).
pub(super) fn input_failure(name: &str, e: io::Error) -> io::Result<Option<u8>> {
    if e.kind() == io::ErrorKind::BrokenPipe || sink::is_write_error(&e) {
        return Err(e);
    }
    if interrupt::is_stop(&e) {
        writeln!(
            stdio::stderr(),
            "sjlint: {}; the output covers the input read so far",
            interrupt::describe()
        )?;
        return Ok(Some(interrupt::exit_code()));
    }
    cannot_read(Path::new(name), e)?;
    Ok(None)
}

fn cannot_read_message(path: &Path) -> String {
    format!("cannot read {}", path.display())
}

/// Standard input, read without a buffer of its own: the reader stage of a pipeline asks the
/// descriptor whether bytes are waiting ([`stdin_ready`]), which must then be all there is. A
/// pipe also gets a larger buffer, so a fast producer is not held up by the reads. In memory
/// while the command runs in process ([`stdio`]).
pub(super) fn stdin() -> Box<dyn Read + Send> {
    if let Some(bytes) = stdio::stdin_in_memory() {
        return bytes;
    }
    #[cfg(unix)]
    {
        raise_pipe_buffer();
        Box::new(RawStdin)
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdin())
    }
}

/// Descriptor 0, read directly.
#[cfg(unix)]
struct RawStdin;

#[cfg(unix)]
impl Read for RawStdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len().min(isize::MAX as usize);
        // SAFETY: `buf` is valid for writes of `len` bytes for the duration of the call.
        let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), len) };
        match usize::try_from(n) {
            Ok(n) => Ok(n),
            // A closed descriptor reads as an empty input, as std's stdin does.
            Err(_) if io::Error::last_os_error().raw_os_error() == Some(libc::EBADF) => Ok(0),
            Err(_) => Err(io::Error::last_os_error()),
        }
    }
}

/// Asks for a 1 MiB pipe buffer when standard input is a pipe (best effort: the system's
/// `fs.pipe-max-size` may not allow it).
fn raise_pipe_buffer() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: fstat writes into the zeroed stat buffer it is given; fcntl with
        // F_SETPIPE_SZ takes an int and touches no memory of ours; both only read descriptor 0.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(0, &raw mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFIFO {
                libc::fcntl(0, libc::F_SETPIPE_SZ, 1 << 20);
            }
        }
    }
}

/// [`sjlint_core::check::pipeline::Ready`] for standard input: whether a read would not wait for the
/// producer. After Ctrl-C it always would not, since the read then stops at once.
pub(super) fn stdin_ready(timeout: std::time::Duration) -> bool {
    if interrupt::interrupted() {
        return true;
    }
    #[cfg(unix)]
    {
        let mut fd = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: `fd` is one valid pollfd for the duration of the call.
        let rc = unsafe { libc::poll(&raw mut fd, 1, ms) };
        // A signal (Ctrl-C included, checked on the next call) is a wait that ended early; any
        // other failure is left for the read to report.
        rc > 0 || (rc < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted)
    }
    #[cfg(not(unix))]
    {
        let _ = timeout;
        true
    }
}

/// Most bytes of a file read whole to be unrolled; a larger array is read as it is.
const MAX_ARRAY_FILE: u64 = 256 << 20;

/// The events of the file at `path` when it is one JSON array of them (claude-code-action's
/// execution file), for `ci` and its report: `None` for any other file, read as it is.
pub(super) fn unrolled(path: &Path) -> Option<Unrolled> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut head = [0u8; 64];
    let n = file.read(&mut head).ok()?;
    let head = &head[..n];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    if head.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
        return None;
    }
    if file.metadata().ok()?.len() > MAX_ARRAY_FILE {
        return None;
    }
    sjlint_core::input::array::unroll(&std::fs::read(path).ok()?)
}
