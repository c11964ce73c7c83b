//! `sjlint fmt --check | --diff | --write`: the canonical form of each file compared with the
//! file, shown as a diff, or written over it, one file at a time (a directory is never turned
//! into one concatenated stream).
//!
//! This module owns what happens to each file and the words said about it. It must not format
//! (that is [`sjlint_outputs::fmt`]); the caller formats from a [`Compare::reader`] into a [`Compare`],
//! which compares the new form with the input as both go, holding no more than the gap between
//! them (about a record), and for `--write` streams it to a temporary file from the first byte
//! that differs (an unchanged file costs no write). `--diff` of a file that changes writes its
//! new form to an unlinked temporary file and diffs the two a window at a time (`diff`); standard
//! input is kept in one first ([`kept`]). `in_place` owns which files may be replaced and how:
//! see there.

use sjlint_core::text::escape_untrusted;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};

mod diff;
mod in_place;

pub(crate) use diff::write_diff;

pub(crate) use in_place::{NotWritten, Target, Temp};

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
    /// Files that could not be read, or (`--write`) were not written.
    pub failed: u64,
}

impl Outcome {
    /// "2 files would be reformatted, 3 files already formatted", as ruff words it, and the
    /// files that were not read or not written.
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
        if self.unchanged > 0 || (self.changed == 0 && self.failed == 0) {
            let left = if mode == Mode::Write {
                "left unchanged"
            } else {
                "already formatted"
            };
            parts.push(format!("{} {left}", files(self.unchanged)));
        }
        if self.failed > 0 {
            let not = if mode == Mode::Write {
                "not written"
            } else {
                "not checked"
            };
            parts.push(format!("{} {not}", files(self.failed)));
        }
        parts.join(", ")
    }
}

/// The input as the formatter reads it and its new form as the formatter writes it, compared
/// as both go. [`Compare::reader`] passes the input through to the formatter; [`Compare`] takes
/// its output. A file is read again where the output has come to, a piece at a time; standard
/// input cannot be, so the bytes read that no output has been compared with yet are kept, and
/// so is output written ahead of the input, until the other comes. That gap is about the record
/// being read (the formatter writes a record once it has read it), and once a byte differs
/// nothing more is kept. The new form of a [`Target`] goes to a temporary file beside it from
/// then on, after the part that was equal, which is copied from the file. Neither the file nor
/// its new form is ever held whole.
pub(crate) struct Compare<'a> {
    state: &'a RefCell<Window>,
    /// The file the input is, read again where the output has come to.
    file: Option<Reread<'a>>,
    target: Option<&'a Target>,
    temp: Option<Temp>,
}

/// What [`Compare`] and its reader share.
#[derive(Default)]
pub(crate) struct Window {
    /// How many bytes of output were equal to the start of the input (while `!differs`).
    same: u64,
    differs: bool,
    /// How many bytes the formatter has read.
    read: u64,
    /// Standard input: the bytes read that no output has been compared with yet (kept only
    /// when there is no file to read them again from).
    keep: bool,
    unread: Pending,
    /// Output written that no input has been compared with yet (then `unread` is empty).
    ahead: Pending,
    /// Bytes read since the last LF, and past how many of them the line is known to be left
    /// out (see [`Window::streamed`]).
    line: u64,
    dropped_past: Option<u64>,
    /// Reading the input failed (not writing the output).
    read_failed: bool,
}

impl Window {
    /// The window of a file: the file itself is read again to compare with.
    pub(crate) fn of_file() -> RefCell<Window> {
        RefCell::new(Window::default())
    }

    /// The window of standard input, which keeps what it has read until the output comes.
    /// `dropped_past`: when a physical line longer than this many bytes is always left out of
    /// the new form (a record over the limit is, unless `--keep-invalid` passes it through),
    /// and each record gives at most one line. Such an input always changes, since the new
    /// form has fewer lines than the input has LFs: so the line is known to differ as soon as
    /// it is read this far, and is not kept until the output after it comes.
    pub(crate) fn streamed(dropped_past: Option<u64>) -> RefCell<Window> {
        RefCell::new(Window {
            keep: true,
            dropped_past,
            ..Window::default()
        })
    }

    /// Whether the formatter's error was the input's.
    pub(crate) fn read_failed(&self) -> bool {
        self.read_failed
    }

    fn diverged(&mut self) {
        self.differs = true;
        self.unread = Pending::default();
    }

    /// The input bytes `bytes`, just read.
    fn input(&mut self, bytes: &[u8]) {
        self.read += bytes.len() as u64;
        if self.differs || !self.keep {
            return;
        }
        if let Some(past) = self.dropped_past {
            let mut from = 0;
            for lf in memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]) {
                self.line += (lf - from) as u64;
                if self.line > past {
                    self.diverged();
                    return;
                }
                if lf < bytes.len() {
                    self.line = 0;
                }
                from = lf + 1;
            }
        }
        match self.ahead.take_equal(bytes) {
            Some(k) => {
                self.same += k as u64;
                self.unread.push(&bytes[k..]);
            }
            None => self.diverged(),
        }
    }
}

/// Bytes waiting to be compared, in the pieces they came in (no buffer grown by doubling).
#[derive(Default)]
struct Pending {
    pieces: VecDeque<Vec<u8>>,
    /// How much of the first piece was compared already.
    at: usize,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    fn push(&mut self, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.pieces.push_back(bytes.to_vec());
        }
    }

    /// Compares the start of `bytes` with what is pending: when as far as both go they are
    /// equal, that much is taken off and its length returned; `None` when they differ (and
    /// nothing is taken).
    fn take_equal(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut at = self.at;
        let mut k = 0;
        for piece in &self.pieces {
            let n = (piece.len() - at).min(bytes.len() - k);
            if piece[at..at + n] != bytes[k..k + n] {
                return None;
            }
            k += n;
            at = 0;
            if k == bytes.len() {
                break;
            }
        }
        let mut left = k;
        while left > 0 {
            let first = self.pieces.front().map_or(0, Vec::len) - self.at;
            if first > left {
                self.at += left;
                break;
            }
            left -= first;
            self.at = 0;
            self.pieces.pop_front();
        }
        Some(k)
    }

    fn write_to(&mut self, out: &mut impl Write) -> io::Result<()> {
        for piece in std::mem::take(&mut self.pieces) {
            out.write_all(&piece[std::mem::take(&mut self.at)..])?;
        }
        Ok(())
    }
}

/// A file read again at the offsets the output has come to, through a small buffer.
struct Reread<'a> {
    file: &'a File,
    buf: Vec<u8>,
    /// The offset of `buf`'s first byte, and how many of its bytes are the file's.
    pos: u64,
    len: usize,
}

impl Reread<'_> {
    /// Whether the file holds `bytes` at `at` (false past its end).
    fn holds(&mut self, mut at: u64, mut bytes: &[u8]) -> io::Result<bool> {
        use std::os::unix::fs::FileExt;
        while !bytes.is_empty() {
            if at < self.pos || at >= self.pos + self.len as u64 {
                self.buf.resize(REREAD, 0);
                self.pos = at;
                self.len = self.file.read_at(&mut self.buf, at)?;
                if self.len == 0 {
                    return Ok(false);
                }
            }
            let off = usize::try_from(at - self.pos).unwrap_or(usize::MAX);
            let n = (self.len - off).min(bytes.len());
            if self.buf[off..off + n] != bytes[..n] {
                return Ok(false);
            }
            at += n as u64;
            bytes = &bytes[n..];
        }
        Ok(true)
    }
}

/// The piece of a file read again at a time.
const REREAD: usize = 64 << 10;

impl<'a> Compare<'a> {
    /// The output compared with standard input (kept in `state` as it is read).
    pub(crate) fn streamed(state: &'a RefCell<Window>) -> Compare<'a> {
        Compare {
            state,
            file: None,
            target: None,
            temp: None,
        }
    }

    /// The output compared with `file`, which is read again; written to a temporary file
    /// beside `target` once it differs.
    pub(crate) fn of_file(
        state: &'a RefCell<Window>,
        file: &'a File,
        target: Option<&'a Target>,
    ) -> Compare<'a> {
        Compare {
            state,
            file: Some(Reread {
                file,
                buf: Vec::new(),
                pos: 0,
                len: 0,
            }),
            target,
            temp: None,
        }
    }

    /// `input`, compared with the output as the formatter reads it.
    pub(crate) fn reader<R: Read>(state: &'a RefCell<Window>, input: R) -> Tee<'a, R> {
        Tee { state, input }
    }

    /// Whether the output differs from the input (once the input was read to its end).
    pub(crate) fn changed(&self) -> bool {
        let w = self.state.borrow();
        w.differs || w.same != w.read || !w.ahead.is_empty()
    }

    /// The temporary file holding the whole output, when it differs and there is a target.
    pub(crate) fn into_temp(mut self) -> io::Result<Option<Temp>> {
        if self.changed() {
            self.state.borrow_mut().diverged();
            self.start_temp()?;
        }
        Ok(self.temp.take())
    }

    /// Whether `buf`, the next output, is equal to the input where the output has come to
    /// (and if so, it is counted as such).
    fn equal(&mut self, buf: &[u8]) -> io::Result<bool> {
        let mut w = self.state.borrow_mut();
        if w.differs {
            return Ok(false);
        }
        if let Some(file) = &mut self.file {
            let held = file
                .holds(w.same, buf)
                .inspect_err(|_| w.read_failed = true)?;
            if held {
                w.same += buf.len() as u64;
            }
            return Ok(held);
        }
        let Some(k) = w.unread.take_equal(buf) else {
            return Ok(false);
        };
        w.same += k as u64;
        w.ahead.push(&buf[k..]);
        Ok(true)
    }

    /// Once the output differs: the temporary file, given the part that was equal (copied
    /// from the file, a piece at a time) and the output not compared yet.
    fn start_temp(&mut self) -> io::Result<()> {
        let (Some(target), None) = (self.target, &self.temp) else {
            self.state.borrow_mut().ahead = Pending::default();
            return Ok(());
        };
        let mut temp = target.temp()?;
        let mut w = self.state.borrow_mut();
        target.copy_start(w.same, &mut temp)?;
        w.ahead.write_to(&mut temp)?;
        self.temp = Some(temp);
        Ok(())
    }
}

impl Write for Compare<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(temp) = &mut self.temp {
            temp.write_all(buf)?;
        } else if !self.equal(buf)? {
            self.state.borrow_mut().diverged();
            // After what the reader may have left ahead when it found the difference; `buf`
            // itself is not copied (it may be a whole long record).
            self.start_temp()?;
            if let Some(temp) = &mut self.temp {
                temp.write_all(buf)?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The input of a [`Compare`], passed through to the formatter.
pub(crate) struct Tee<'a, R> {
    state: &'a RefCell<Window>,
    input: R,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf).inspect_err(|e| {
            // A stop (Ctrl-C) is no failure of the input.
            if !sjlint_core::interrupt::is_stop(e) {
                self.state.borrow_mut().read_failed = true;
            }
        })?;
        self.state.borrow_mut().input(&buf[..n]);
        Ok(n)
    }
}

/// `--check`'s line for a file that would change.
pub(crate) fn would_reformat<W: Write>(shown: &str, out: &mut W) -> io::Result<()> {
    writeln!(out, "Would reformat: {shown}")
}

/// A new temporary file, open for reading and writing, that no other process holds and no
/// name reaches (`--diff` keeps the new form in it, and standard input or a pipe).
pub(crate) fn temp_file() -> io::Result<File> {
    let dir = std::env::temp_dir();
    let mut last = None;
    for _ in 0..100u32 {
        // A name nobody can guess ahead, created exclusively: nothing planted is written.
        let path = dir.join(format!("sjlint-diff-{:016x}", crate::out_file::random()));
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => {
                // The descriptor keeps the file; nothing is left behind.
                let _ = std::fs::remove_file(&path);
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file could be created")))
}

/// What `input` yields, kept in a [`temp_file`] (read from its start); `Err(true)` when the
/// input could not be read, `Err(false)` when it could not be kept.
pub(crate) fn kept<R: Read>(mut input: R) -> Result<File, (bool, io::Error)> {
    use std::io::Seek;
    let temp = temp_file().map_err(|e| (false, e))?;
    let mut buf = vec![0; 64 << 10];
    let mut to = &temp;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err((true, e)),
        };
        to.write_all(&buf[..n]).map_err(|e| (false, e))?;
    }
    to.rewind().map_err(|e| (false, e))?;
    Ok(temp)
}

/// Escapes what goes through it line by line (the line breaks themselves stay). The diff writes
/// whole `str` pieces, so a piece never ends inside a character.
struct Escaped<'w, W>(&'w mut W);

impl<W: Write> Write for Escaped<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for piece in buf.split_inclusive(|&b| b == b'\n') {
            let (text, nl) = match piece.split_last() {
                Some((b'\n', text)) => (text, true),
                _ => (piece, false),
            };
            self.0
                .write_all(escape_untrusted(&String::from_utf8_lossy(text)).as_bytes())?;
            if nl {
                self.0.write_all(b"\n")?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries() {
        let o = Outcome {
            changed: 1,
            unchanged: 2,
            failed: 0,
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
    fn failures_are_counted() {
        let o = Outcome {
            failed: 1,
            ..Outcome::default()
        };
        assert_eq!(o.summary(Mode::Write), "1 file not written");
        assert_eq!(o.summary(Mode::Check), "1 file not checked");
    }

    /// Reads `input` through a compare in pieces of `step` bytes, writing `output`'s pieces
    /// after the read of the same number (the rest at the end); whether they were equal.
    fn same(input: &[u8], step: usize, output: &[&[u8]], dropped_past: Option<u64>) -> bool {
        let window = Window::streamed(dropped_past);
        let mut c = Compare::streamed(&window);
        let mut r = Compare::reader(&window, input);
        let mut out = output.iter();
        let mut buf = vec![0; step];
        while r.read(&mut buf).unwrap() > 0 {
            if let Some(p) = out.next() {
                c.write_all(p).unwrap();
            }
        }
        for p in out {
            c.write_all(p).unwrap();
        }
        !c.changed()
    }

    #[test]
    fn compare_tells_equal_output_from_any_difference() {
        for step in [1, 2, 3, 100] {
            assert!(same(b"abc\n", step, &[b"ab", b"c\n"], None));
            assert!(same(b"abc\n", step, &[b"", b"", b"abc\n"], None));
            assert!(
                !same(b"abc\n", step, &[b"ab"], None),
                "a shorter output differs"
            );
            assert!(
                !same(b"abc\n", step, &[b"abc\n", b"d"], None),
                "a longer one too"
            );
            assert!(!same(b"abc\n", step, &[b"ax", b"c\n"], None));
            assert!(!same(b"abc\n", step, &[b"abcd\n"], None));
        }
    }

    #[test]
    fn a_file_is_read_again_to_compare_with() {
        let path = std::env::temp_dir().join(format!("sjlint-compare-{}", std::process::id()));
        let input: Vec<u8> = (0..3 * REREAD + 5).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &input).unwrap();
        let file = File::open(&path).unwrap();
        let same = |output: &[&[u8]]| {
            let window = Window::of_file();
            let mut c = Compare::of_file(&window, &file, None);
            let mut r = Compare::reader(&window, &input[..]);
            io::copy(&mut r, &mut io::sink()).unwrap();
            for p in output {
                c.write_all(p).unwrap();
            }
            !c.changed()
        };
        let (a, b) = input.split_at(REREAD + 3);
        assert!(same(&[a, b]));
        assert!(same(&[&input]));
        assert!(!same(&[a]), "a shorter output differs");
        assert!(!same(&[a, b, b"x"]), "a longer one too");
        assert!(!same(&[a, b"x", &b[1..]]));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_line_past_the_bound_is_a_difference_once_read() {
        let window = Window::streamed(Some(4));
        let mut r = Compare::reader(&window, &b"abcd\nabcdefgh\n"[..]);
        let mut buf = [0; 7];
        r.read_exact(&mut buf).unwrap();
        assert!(!window.borrow().differs, "a line of the bound is not");
        r.read_exact(&mut buf).unwrap();
        assert!(window.borrow().differs);
        assert!(window.borrow().unread.is_empty(), "nothing more is kept");
    }

    #[test]
    fn diff_lines_are_escaped() {
        let files = |bytes: &[u8]| kept(bytes).unwrap();
        let mut out = Vec::new();
        let (old, new) = (files("a\x1b[31m\u{202e}\n".as_bytes()), files(b"b\n"));
        write_diff("f", &old, &new, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("-a\\u{1b}[31m\\u{202e}\n"), "{out}");
        assert!(!out.contains('\x1b'), "{out}");
    }
}
