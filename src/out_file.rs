//! The files sjlint writes that are not a stream on stdout: report pages, `run`'s transcript,
//! summary and findings, and every temporary file among them.
//!
//! This module owns how such a file comes to be: a temporary file is created beside its
//! destination exclusively (`O_EXCL`), under a name nobody can guess ahead, so that a file or a
//! link planted there makes the creation fail instead of being written through; a page is
//! written whole into one and renamed over its destination, so that a reader never sees half a
//! page, and a link at the destination is replaced, not followed. It also tells whether an output
//! names one of the inputs (by the file's identity, so a link or another name of the input counts
//! too), which every command that writes files refuses before it writes anything. It must not
//! decide what is written.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A file created under a fresh name beside `dest`: removed when dropped, unless
/// [`TempFile::commit`] renamed it over its destination or [`TempFile::keep`] kept it.
pub(crate) struct TempFile {
    path: PathBuf,
    file: BufWriter<File>,
    kept: bool,
}

impl TempFile {
    /// Creates `.NAME.sjlint-RANDOM.tmp` in `dest`'s folder, exclusively, with `mode` (before the
    /// umask).
    pub(crate) fn beside(dest: &Path, mode: u32) -> io::Result<TempFile> {
        let (path, file) = create_beside(dest, "tmp", mode)?;
        Ok(TempFile {
            path,
            file: BufWriter::with_capacity(1 << 16, file),
            kept: false,
        })
    }

    /// Where the file is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The open file (what was written through [`Write`] may still be buffered).
    pub(crate) fn get_ref(&self) -> &File {
        self.file.get_ref()
    }

    /// Leaves the file where it is when this is dropped (a rename took it).
    pub(crate) fn keep(&mut self) {
        self.kept = true;
    }

    /// Writes out what is buffered, and renames the file over `dest` (which becomes this file,
    /// whatever it was: a link there is replaced, not written through).
    pub(crate) fn commit(mut self, dest: &Path) -> io::Result<()> {
        self.file.flush()?;
        fs::rename(&self.path, dest)?;
        self.kept = true;
        Ok(())
    }
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Creates `.NAME.sjlint-RANDOM.SUFFIX` in `dest`'s folder with `O_EXCL | O_CLOEXEC` and `mode`
/// (before the umask): its path and the open file.
pub(crate) fn create_beside(dest: &Path, suffix: &str, mode: u32) -> io::Result<(PathBuf, File)> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Room for the prefix and suffix within a file name's 255 bytes.
    let stem = dest
        .file_name()
        .map_or(&b"sjlint"[..], |n| &n.as_bytes()[..n.len().min(200)]);
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..16 {
        let mut name = b".".to_vec();
        name.extend_from_slice(stem);
        name.extend_from_slice(format!(".sjlint-{:016x}.{suffix}", random()).as_bytes());
        let path = dir.join(OsString::from_vec(name));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(mode & 0o777)
            .custom_flags(libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Writes `bytes` to `dest` whole or not at all: into a temporary file beside it, renamed over
/// it once complete. A device or a pipe at `dest` (`/dev/null`, `/dev/stdout`, a FIFO) is
/// written through instead: a file renamed over it would replace the device itself.
pub(crate) fn write_whole(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Ok(meta) = fs::metadata(dest)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(dest)?
            .write_all(bytes);
    }
    let mut temp = TempFile::beside(dest, 0o666)?;
    temp.write_all(bytes)?;
    temp.commit(dest)
}

/// 64 bits nobody can guess ahead: from the kernel, or failing that from the standard
/// library's randomly keyed hasher over the time, the process and a counter.
pub(crate) fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut bytes = [0u8; 8];
    if File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok()
    {
        return u64::from_ne_bytes(bytes);
    }
    let mut h = std::hash::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

/// Which file a path names (device and inode, links followed); `None` when nothing is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Identity(u64, u64);

impl Identity {
    pub(crate) fn of(path: &Path) -> Option<Identity> {
        fs::metadata(path).ok().map(|m| Identity(m.dev(), m.ino()))
    }
}

/// The first of `inputs` that `output` names (the same file by identity: another name, a hard
/// link or a symbolic link to it), or that a link at `output` would lead to were it written
/// through.
pub(crate) fn names_an_input<'i>(output: &Path, inputs: &'i [PathBuf]) -> Option<&'i Path> {
    let out = Identity::of(output)?;
    inputs
        .iter()
        .find(|p| Identity::of(p) == Some(out))
        .map(PathBuf::as_path)
}

/// Whether two output paths name the same file: by identity when both exist, else by their
/// folders (resolved) and names.
pub(crate) fn same_destination(a: &Path, b: &Path) -> bool {
    if let (Some(x), Some(y)) = (Identity::of(a), Identity::of(b)) {
        return x == y;
    }
    let place = |p: &Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some((fs::canonicalize(dir).ok()?, p.file_name()?.to_owned()))
    };
    match (place(a), place(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The refusal for an output that names an input.
pub(crate) fn names_input_error(what: &str, output: &Path, input: &Path) -> io::Error {
    use sjlint_core::text::escape_untrusted;
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{what} {} is the input {}: nothing written (name another file)",
            escape_untrusted(&output.display().to_string()),
            escape_untrusted(&input.display().to_string()),
        ),
    )
}

/// Whether a file could be created at `path` as far as can be told without creating it: its
/// folder exists and is a folder, and `path` is not a folder. The error says why not.
pub(crate) fn can_create(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ));
        }
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))),
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_file_never_writes_through_a_planted_link() {
        let dir = std::env::temp_dir().join(format!("sjlint-out-file-{}", random()));
        fs::create_dir(&dir).unwrap();
        let dest = dir.join("page.html");
        let victim = dir.join("victim");
        fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(&victim, &dest).unwrap();
        write_whole(&dest, b"<html>").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
        assert_eq!(fs::read(&dest).unwrap(), b"<html>");
        assert!(!fs::symlink_metadata(&dest).unwrap().is_symlink());
        // Nothing is left beside it.
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// `--output /dev/null` (or any device or pipe) is written through, never replaced by a
    /// regular file: checked on a FIFO, whose reader gets the page and which stays a FIFO.
    #[test]
    fn a_pipe_as_the_output_is_written_through_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("sjlint-out-file-{}", random()));
        fs::create_dir(&dir).unwrap();
        let fifo = dir.join("page.html");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_whole(&fifo, b"<html>").unwrap();
        // Before the reader is waited for: a FIFO replaced by a file would leave it blocked.
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(reader.join().unwrap(), b"<html>");
        // Nothing is left beside it.
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_output_names_an_input_by_identity() {
        let dir = std::env::temp_dir().join(format!("sjlint-out-file-{}", random()));
        fs::create_dir(&dir).unwrap();
        let input = dir.join("run.ndjson");
        fs::write(&input, b"{}\n").unwrap();
        let link = dir.join("link.html");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = dir.join("hard.ndjson");
        fs::hard_link(&input, &hard).unwrap();
        let inputs = [input.clone()];
        assert!(names_an_input(&input, &inputs).is_some());
        assert!(names_an_input(&link, &inputs).is_some());
        assert!(names_an_input(&hard, &inputs).is_some());
        assert!(names_an_input(&dir.join("./run.ndjson"), &inputs).is_some());
        assert!(names_an_input(&dir.join("other.html"), &inputs).is_none());
        fs::remove_dir_all(&dir).unwrap();
    }
}
