//! The files a run writes besides its stdout: where the agent's stdout is saved (`--save`), the
//! checks every output path passes before the agent starts (none names another, each can be
//! created), and the page `--report` writes once the run ended. It must not supervise the agent nor
//! decide the run's verdict.

use super::RunOptions;
use sjlint_core::text::escape_untrusted;
use sjlint_outputs::report_html::Run;
use std::fs::File;
use std::io;
use std::path::PathBuf;

pub(super) fn create(path: &std::path::Path) -> io::Result<File> {
    File::create(path).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot create {}: {e}",
                escape_untrusted(&path.display().to_string())
            ),
        )
    })
}

pub(super) fn stderr_path(save: &std::path::Path) -> PathBuf {
    let mut p = save.as_os_str().to_owned();
    p.push(".stderr");
    PathBuf::from(p)
}

/// `--save`: where the agent's stdout is saved, open.
pub(super) fn open_transcript(opts: &RunOptions) -> io::Result<Option<(File, PathBuf)>> {
    let Some(path) = &opts.save else {
        return Ok(None);
    };
    Ok(Some((create(path)?, path.clone())))
}

/// The files `run` writes, refused before the agent starts when one names another (by identity
/// when both exist, else by folder and name), or when one cannot be created (its folder is
/// missing or not a folder, or it is a folder itself).
pub(super) fn check_outputs(opts: &RunOptions) -> io::Result<()> {
    let mut outputs: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(p) = &opts.save {
        outputs.push(("--save", p.clone()));
        outputs.push((
            "--save's arrival times",
            sjlint_core::arrivals::sidecar_path(p),
        ));
        if opts.save_stderr {
            outputs.push(("--save-stderr", stderr_path(p)));
        }
    }
    for (what, p) in [
        ("--output-file", &opts.output_file),
        ("--summary", &opts.summary),
        ("--report", &opts.report),
    ] {
        if let Some(p) = p {
            outputs.push((what, p.clone()));
        }
    }
    for (i, (what, path)) in outputs.iter().enumerate() {
        let shown = || escape_untrusted(&path.display().to_string()).into_owned();
        if let Some((other, _)) = outputs[..i]
            .iter()
            .find(|(_, p)| crate::out_file::same_destination(p, path))
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{what} {} names the same file as {other}: nothing started",
                    shown()
                ),
            ));
        }
        // `--save` may be a FIFO or a device, which are written as they are.
        if matches!(*what, "--summary" | "--report") {
            crate::out_file::can_create(path).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot write {what} {}: {e}: nothing started", shown()),
                )
            })?;
        }
    }
    Ok(())
}

/// `--report`: the page of the run, collected as its stdout was read (what the supervisor found
/// about the process is in the closing line, not on the page).
pub(super) fn write_report(page: &std::path::Path, run: &Run) -> io::Result<()> {
    crate::out_file::write_whole(
        page,
        sjlint_outputs::report_html::page(run, None).as_bytes(),
    )
}
