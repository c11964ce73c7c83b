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
use std::io::{self, Write};

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

/// The formatted output, compared with the file's bytes as it is written, and kept nowhere
/// unless it differs and a [`Target`] is to be replaced: then it goes to a temporary file beside
/// it, from the start (the part equal to the file is copied from the file's bytes).
pub(crate) struct Compare<'a> {
    original: &'a [u8],
    /// How many bytes of output were equal to the start of `original` (while `!differs`).
    same: usize,
    differs: bool,
    target: Option<&'a Target>,
    temp: Option<Temp>,
}

impl<'a> Compare<'a> {
    pub(crate) fn new(original: &'a [u8], target: Option<&'a Target>) -> Compare<'a> {
        Compare {
            original,
            same: 0,
            differs: false,
            target,
            temp: None,
        }
    }

    /// Whether the output differs from the file.
    pub(crate) fn changed(&self) -> bool {
        self.differs || self.same != self.original.len()
    }

    /// The temporary file holding the whole output, when it differs and there is a target.
    pub(crate) fn into_temp(mut self) -> io::Result<Option<Temp>> {
        if self.changed() && !self.differs {
            // The output is a shorter start of the file.
            self.start_temp()?;
        }
        Ok(self.temp.take())
    }

    fn start_temp(&mut self) -> io::Result<()> {
        self.differs = true;
        if let Some(target) = self.target {
            let mut temp = target.temp()?;
            temp.write_all(&self.original[..self.same])?;
            self.temp = Some(temp);
        }
        Ok(())
    }
}

impl Write for Compare<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.differs {
            if self.original[self.same..].starts_with(buf) {
                self.same += buf.len();
                return Ok(buf.len());
            }
            self.start_temp()?;
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

    #[test]
    fn compare_tells_equal_output_from_any_difference() {
        let same = |pieces: &[&[u8]]| {
            let mut c = Compare::new(b"abc\n", None);
            for p in pieces {
                c.write_all(p).unwrap();
            }
            !c.changed()
        };
        assert!(same(&[b"ab", b"c\n"]));
        assert!(!same(&[b"ab"]), "a shorter output differs");
        assert!(!same(&[b"abc\n", b"d"]), "a longer output differs");
        assert!(!same(&[b"ax", b"c\n"]));
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
