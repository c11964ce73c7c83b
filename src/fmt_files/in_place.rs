//! `fmt --write`'s file handling: which files may be replaced, the temporary file the new form
//! is written to, and the rename that replaces the original only if nobody touched it meanwhile.
//!
//! This module owns the safety of writing in place: a FIFO, a device or a symbolic link met in
//! a directory walk is never written through; a read-only or hard-linked file only with
//! `--force`; the temporary file is created beside the original with `O_EXCL`, an unpredictable
//! name and the original's mode, and is given its owner and group before it replaces it. It
//! must not format nor print: each refusal is a [`NotWritten`] with its reason, said by the
//! caller.

use std::borrow::Cow;
use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why a file was not written.
#[derive(Debug)]
pub(crate) struct NotWritten {
    /// Said after "not written: ".
    pub reason: String,
    /// An I/O failure (exit 2) rather than a file left alone on purpose (exit 1).
    pub failure: bool,
}

impl NotWritten {
    fn skip(reason: impl Into<String>) -> NotWritten {
        NotWritten {
            reason: reason.into(),
            failure: false,
        }
    }

    fn failed(what: &str, e: &io::Error) -> NotWritten {
        NotWritten {
            reason: format!("{what}: {e}"),
            failure: true,
        }
    }
}

/// A file `--write` may replace, open for reading.
pub(crate) struct Target {
    /// Where the file is (a symbolic link named on the command line, resolved).
    path: PathBuf,
    file: File,
    /// The file as it was opened: what it must still be when it is replaced.
    meta: Metadata,
}

impl Target {
    /// Opens `path` for `--write`. `walked`: it was found in a directory walk, where symbolic
    /// links are not followed. `force`: read-only and hard-linked files are written too.
    pub(crate) fn open(path: &Path, walked: bool, force: bool) -> Result<Target, NotWritten> {
        let path = resolved(path, walked)?;
        // No FIFO is waited on, nor any link followed, should the path change under us.
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| NotWritten::failed("cannot read", &e))?;
        let meta = file
            .metadata()
            .map_err(|e| NotWritten::failed("cannot read", &e))?;
        not_regular(&meta)?;
        if sjlint_core::input::compressed::is_zstd(&file)
            .map_err(|e| NotWritten::failed("cannot read", &e))?
        {
            // Its new form would be plain text over a compressed copy (an archived log).
            return Err(NotWritten::skip(
                "the file is compressed (zstd): format a decompressed copy instead",
            ));
        }
        if !force {
            if meta.mode() & 0o222 == 0 {
                return Err(NotWritten::skip(
                    "the file is read-only (--force writes it anyway)",
                ));
            }
            if meta.nlink() > 1 {
                return Err(NotWritten::skip(format!(
                    "the file has {} hard links, and only this name would get the new form (--force writes it anyway)",
                    meta.nlink()
                )));
            }
        }
        Ok(Target {
            path: path.into_owned(),
            file,
            meta,
        })
    }

    /// The file, to read its bytes from.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Copies the first `len` bytes of the file to `temp`, a piece at a time (from where they
    /// lie, whatever has been read of the file).
    pub(crate) fn copy_start(&self, len: u64, temp: &mut Temp) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0; (1 << 20).min(usize::try_from(len).unwrap_or(usize::MAX))];
        let mut at = 0;
        while at < len {
            let want = buf
                .len()
                .min(usize::try_from(len - at).unwrap_or(usize::MAX));
            let n = self.file.read_at(&mut buf[..want], at)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file became shorter while it was being formatted",
                ));
            }
            temp.write_all(&buf[..n])?;
            at += n as u64;
        }
        Ok(())
    }

    /// A new temporary file beside the target, for its new form.
    pub(crate) fn temp(&self) -> io::Result<Temp> {
        Temp::beside(&self.path, self.meta.mode())
    }

    /// Replaces the file with `temp`, given the file's owner, group and mode first, if the file
    /// is still what was read.
    pub(crate) fn replace(&self, mut temp: Temp) -> Result<(), NotWritten> {
        temp.flush()
            .map_err(|e| NotWritten::failed("cannot write", &e))?;
        let file = temp.get_ref();
        let mine = file
            .metadata()
            .map_err(|e| NotWritten::failed("cannot write", &e))?;
        let (uid, gid) = (self.meta.uid(), self.meta.gid());
        if (mine.uid(), mine.gid()) != (uid, gid)
            && let Err(e) = std::os::unix::fs::fchown(file, Some(uid), Some(gid))
        {
            return Err(NotWritten::skip(format!(
                "the new file cannot be given the owner and group of the old one (uid {uid}, gid {gid}): {e}"
            )));
        }
        // After the owner: a change of owner clears the set-user-ID and set-group-ID bits.
        file.set_permissions(Permissions::from_mode(self.meta.mode() & 0o7777))
            .and_then(|()| file.sync_all())
            .map_err(|e| NotWritten::failed("cannot write", &e))?;
        if !self.unchanged() {
            return Err(NotWritten::skip(
                "the file changed while it was being formatted (run again once nothing writes to it)",
            ));
        }
        fs::rename(temp.path(), &self.path).map_err(|e| NotWritten::failed("cannot write", &e))?;
        temp.keep();
        Ok(())
    }

    /// Whether the path still holds the file that was read, as it was read: same file, size and
    /// modification and change times (an appended line, a truncation, a replacement all show).
    fn unchanged(&self) -> bool {
        let Ok(now) = fs::symlink_metadata(&self.path) else {
            return false;
        };
        let was = &self.meta;
        (
            now.dev(),
            now.ino(),
            now.len(),
            now.mtime(),
            now.mtime_nsec(),
        ) == (
            was.dev(),
            was.ino(),
            was.len(),
            was.mtime(),
            was.mtime_nsec(),
        ) && (now.ctime(), now.ctime_nsec()) == (was.ctime(), was.ctime_nsec())
    }
}

/// The file `path` names, if it is a regular file: a symbolic link named on the command line
/// is followed (the file it points at is replaced, the link stays), one met in a walk is not.
fn resolved(path: &Path, walked: bool) -> Result<Cow<'_, Path>, NotWritten> {
    let cannot_read = |e: io::Error| NotWritten::failed("cannot read", &e);
    let lstat = fs::symlink_metadata(path).map_err(cannot_read)?;
    if !lstat.file_type().is_symlink() {
        not_regular(&lstat)?;
        return Ok(Cow::Borrowed(path));
    }
    if walked {
        return Err(NotWritten::skip(
            "a symbolic link met in a directory walk is not followed (name it to write the file it points at)",
        ));
    }
    not_regular(&fs::metadata(path).map_err(cannot_read)?)?;
    fs::canonicalize(path).map(Cow::Owned).map_err(cannot_read)
}

/// Refuses anything but a regular file: replacing a FIFO or a device with a file would break
/// whatever uses it.
fn not_regular(meta: &Metadata) -> Result<(), NotWritten> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let kind = if t.is_file() {
        return Ok(());
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(NotWritten::skip(format!(
        "--write replaces regular files only, and this is {kind}"
    )))
}

/// The temporary file a new form is written to, beside its target (created exclusively under
/// an unpredictable name, with the target's mode); removed unless it replaced its target.
pub(crate) type Temp = crate::out_file::TempFile;
