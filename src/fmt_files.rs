//! `sjlint fmt --check | --diff | --write`: the canonical form of each file compared with the
//! file, shown as a diff, or written over it, one file at a time (a directory is never turned
//! into one concatenated stream).
//!
//! This module owns what happens to each file and the words said about it. It must not format
//! (that is [`crate::fmt`]); it is handed a function that formats one input into a buffer.
//! `--write` writes a temporary file beside the original and renames it over it, so that a
//! crash or a full disk leaves the original whole; the file's permissions are kept.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// What to do with each file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Say which files would change; exit 1 when any would.
    Check,
    /// Print a unified diff of each file that would change; exit 1 when any would.
    Diff,
    /// Write the canonical form over each file that changes.
    Write,
}

/// What happened to the files.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub changed: u64,
    pub unchanged: u64,
}

impl Outcome {
    /// "2 files would be reformatted, 3 files already formatted", as ruff words it.
    pub(crate) fn summary(&self, mode: Mode) -> String {
        let files = |n: u64| {
            if n == 1 {
                "1 file".to_owned()
            } else {
                format!("{n} files")
            }
        };
        let verb = match mode {
            Mode::Write => "reformatted",
            Mode::Check | Mode::Diff => "would be reformatted",
        };
        let mut parts = Vec::new();
        if self.changed > 0 {
            parts.push(format!("{} {verb}", files(self.changed)));
        }
        if self.unchanged > 0 || self.changed == 0 {
            let left = if mode == Mode::Write {
                "left unchanged"
            } else {
                "already formatted"
            };
            parts.push(format!("{} {left}", files(self.unchanged)));
        }
        parts.join(", ")
    }
}

/// One file through `mode`: `formatted` is its canonical form, `original` its bytes. Returns
/// whether it changes (or would). `shown` is the name in messages and diff headers.
pub(crate) fn one<W: Write>(
    mode: Mode,
    path: &Path,
    shown: &str,
    original: &[u8],
    formatted: &[u8],
    out: &mut W,
) -> io::Result<bool> {
    if original == formatted {
        return Ok(false);
    }
    match mode {
        Mode::Check => writeln!(out, "Would reformat: {shown}")?,
        Mode::Diff => {
            let old = String::from_utf8_lossy(original);
            let new = String::from_utf8_lossy(formatted);
            let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
            let text = diff
                .unified_diff()
                .context_radius(3)
                .header(shown, shown)
                .to_string();
            out.write_all(text.as_bytes())?;
        }
        Mode::Write => write_atomically(path, formatted)?,
    }
    Ok(true)
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`. A symbolic link
/// is written through: the file it points at is replaced, and the link stays a link.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target;
    let path = if fs::symlink_metadata(path)?.file_type().is_symlink() {
        target = fs::canonicalize(path)?;
        target.as_path()
    } else {
        path
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "stream".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.sjlint-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Ok(meta) = fs::metadata(path) {
            fs::set_permissions(&tmp, meta.permissions())?;
        }
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries() {
        let o = Outcome {
            changed: 1,
            unchanged: 2,
        };
        assert_eq!(
            o.summary(Mode::Check),
            "1 file would be reformatted, 2 files already formatted"
        );
        assert_eq!(
            o.summary(Mode::Write),
            "1 file reformatted, 2 files left unchanged"
        );
        assert_eq!(
            Outcome::default().summary(Mode::Check),
            "0 files already formatted"
        );
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_nothing_beside_it() {
        let dir = std::env::temp_dir().join(format!("sjlint-atomic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.ndjson");
        fs::write(&path, "old\n").unwrap();
        write_atomically(&path, b"new\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }
}
