//! `sjlint fmt --check | --diff | --write`: the canonical form of each file compared with the
//! file, shown as a diff, or written over it, one file at a time (a directory is never turned
//! into one concatenated stream).
//!
//! This module owns what happens to each file and the words said about it. It must not format
//! (that is [`crate::fmt`]); the caller formats into a [`Compare`], which compares the new form
//! with the file as it is written and, for `--write`, streams it to a temporary file from the
//! first byte that differs (an unchanged file costs no write). `in_place` owns which files may
//! be replaced and how: see there.

use crate::text::escape_untrusted;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read, Write};

mod in_place;

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
/// as both go: [`Compare::reader`] passes the input through and keeps the bytes read that no
/// output has been compared with yet, [`Compare`] (the formatter's output) compares what it is
/// given with them, or keeps what it was given ahead of the input until the input comes. Only
/// the gap between the two is held: the formatter writes a record once it has read it, so the
/// gap is about the record being read, and once a byte differs nothing more is kept. The new
/// form of a [`Target`] goes to a temporary file beside it from then on, after the part that was
/// equal, which is read again from the file (the file is never held).
pub(crate) struct Compare<'a> {
    state: &'a RefCell<Window>,
    target: Option<&'a Target>,
    temp: Option<Temp>,
}

/// What [`Compare`] and its reader share.
#[derive(Default)]
pub(crate) struct Window {
    /// How many bytes of output were equal to the start of the input (while `!differs`).
    same: u64,
    differs: bool,
    /// Input read that no output has been compared with yet.
    unread: VecDeque<u8>,
    /// Output written that no input has been compared with yet (then `unread` is empty).
    ahead: VecDeque<u8>,
    /// Bytes read since the last LF, and past how many of them the line is known to be left
    /// out (see [`Window::new`]).
    line: u64,
    dropped_past: Option<u64>,
    /// Reading the input failed (not writing the output).
    read_failed: bool,
}

impl Window {
    /// `dropped_past`: when a physical line longer than this many bytes is always left out of
    /// the new form (a record over the limit is, unless `--keep-invalid` passes it through),
    /// and each record gives at most one line. Such a file always changes: the new form has
    /// fewer lines than the file has LFs. So the line is known to differ as soon as it is read
    /// this far, and is not kept until the output after it comes.
    pub(crate) fn new(dropped_past: Option<u64>) -> RefCell<Window> {
        RefCell::new(Window {
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
        self.unread = VecDeque::new();
    }

    /// The input bytes `bytes`, just read.
    fn input(&mut self, bytes: &[u8]) {
        if self.differs {
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
        let k = self.ahead.len().min(bytes.len());
        if !self.ahead.iter().take(k).eq(bytes[..k].iter()) {
            self.diverged();
            return;
        }
        self.ahead.drain(..k);
        self.same += k as u64;
        self.unread.extend(&bytes[k..]);
    }

    /// The output bytes `bytes`, just written; false when they differ from the input.
    fn output(&mut self, bytes: &[u8]) -> bool {
        if self.differs {
            return false;
        }
        let k = self.unread.len().min(bytes.len());
        if !self.unread.iter().take(k).eq(bytes[..k].iter()) {
            self.diverged();
            self.ahead.extend(bytes);
            return false;
        }
        self.unread.drain(..k);
        self.same += k as u64;
        self.ahead.extend(&bytes[k..]);
        true
    }
}

impl<'a> Compare<'a> {
    pub(crate) fn new(state: &'a RefCell<Window>, target: Option<&'a Target>) -> Compare<'a> {
        Compare {
            state,
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
        w.differs || !w.unread.is_empty() || !w.ahead.is_empty()
    }

    /// The temporary file holding the whole output, when it differs and there is a target.
    pub(crate) fn into_temp(mut self) -> io::Result<Option<Temp>> {
        if self.changed() {
            self.state.borrow_mut().diverged();
            self.start_temp()?;
        }
        Ok(self.temp.take())
    }

    /// Once the output differs: the temporary file, given the part that was equal (read again
    /// from the file, a piece at a time) and the output not compared yet.
    fn start_temp(&mut self) -> io::Result<()> {
        let (Some(target), None) = (self.target, &self.temp) else {
            return Ok(());
        };
        let mut temp = target.temp()?;
        let mut w = self.state.borrow_mut();
        target.copy_start(w.same, &mut temp)?;
        let (a, b) = w.ahead.as_slices();
        temp.write_all(a)?;
        temp.write_all(b)?;
        w.ahead = VecDeque::new();
        self.temp = Some(temp);
        Ok(())
    }
}

impl Write for Compare<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.temp.is_none() && !self.state.borrow_mut().output(buf) {
            // Also when the reader found the difference: what it left ahead goes first.
            self.start_temp()?;
            if self.target.is_none() {
                self.state.borrow_mut().ahead = VecDeque::new();
            }
            return Ok(buf.len());
        }
        if let Some(temp) = &mut self.temp {
            temp.write_all(buf)?;
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
            if !crate::interrupt::is_stop(e) {
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

/// `--diff`: the unified diff of `original` and `formatted`, each line's text escaped as any
/// untrusted text is for a terminal (no escape sequence or bidi control of the file reaches
/// it). Written as it is made: nothing but the diff's own bookkeeping is held.
pub(crate) fn write_diff<W: Write>(
    shown: &str,
    original: &[u8],
    formatted: &[u8],
    out: &mut W,
) -> io::Result<()> {
    let old = String::from_utf8_lossy(original);
    let new = String::from_utf8_lossy(formatted);
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    diff.unified_diff()
        .context_radius(3)
        .header(shown, shown)
        .to_writer(Escaped(out))
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
        let window = Window::new(dropped_past);
        let mut c = Compare::new(&window, None);
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
            assert!(!same(b"abc\n", step, &[b"ab"], None), "a shorter output differs");
            assert!(!same(b"abc\n", step, &[b"abc\n", b"d"], None), "a longer one too");
            assert!(!same(b"abc\n", step, &[b"ax", b"c\n"], None));
            assert!(!same(b"abc\n", step, &[b"abcd\n"], None));
        }
    }

    #[test]
    fn a_line_past_the_bound_is_a_difference_once_read() {
        let window = Window::new(Some(4));
        let mut r = Compare::reader(&window, &b"abcd\nabcdefgh\n"[..]);
        let mut buf = [0; 7];
        r.read(&mut buf).unwrap();
        assert!(!window.borrow().differs, "a line of the bound is not");
        r.read(&mut buf).unwrap();
        assert!(window.borrow().differs);
        assert!(window.borrow().unread.is_empty(), "nothing more is kept");
    }

    #[test]
    fn diff_lines_are_escaped() {
        let mut out = Vec::new();
        write_diff("f", "a\x1b[31m\u{202e}\n".as_bytes(), b"b\n", &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("-a\\u{1b}[31m\\u{202e}\n"), "{out}");
        assert!(!out.contains('\x1b'), "{out}");
    }
}
