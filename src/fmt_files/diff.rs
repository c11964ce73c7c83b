//! `--diff`: the unified diff of a file and its new form, both read from files (the new form is
//! written to an unlinked temporary file first), made a window at a time so that neither is
//! held: only a key and a position of each line of the window are.
//!
//! A window is diffed when it has doubled since it was last diffed; everything up to its last
//! run of more than twice the context of equal lines is written as hunks and dropped, keeping
//! the last lines of the run as the context of what follows. A diff of the whole text splits
//! its hunks at such runs too, and where the two sides were in sync that long the whole diff
//! aligns them as the window does, so the hunks are the same (the lines, their numbers and
//! their escaping). A window with no such run is cut at [`WINDOW_MAX`] lines a side: what it
//! holds is written as hunks of its own (where the whole diff would go on with one hunk).
//!
//! Lines are split and compared as `similar`'s line diff does (after `\n`, `\r\n` or a lone
//! `\r`, as their lossy UTF-8 text), each by a keyed 128-bit hash of that text, and written read
//! back from the file, a piece at a time: a line far over the record limit is never held.

use super::Escaped;
use similar::{Algorithm, DiffOp, DiffTag};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;

/// Lines of context around a change, as `--diff` has always shown.
const CONTEXT: usize = 3;
/// The piece of a file read at a time.
const PIECE: usize = 64 << 10;
/// The lines a window is first diffed at.
const FIRST_TRY: usize = 64;
/// The most lines a side of a window holds: past them it is written as it stands.
const WINDOW_MAX: usize = 1 << 16;

/// Writes the unified diff of `old` and `new` (both read from their start) to `out`, headed
/// `--- shown` / `+++ shown` when they differ; each line's text is escaped as any untrusted
/// text is for a terminal.
pub(crate) fn write_diff<W: Write>(
    shown: &str,
    old: &File,
    new: &File,
    out: &mut W,
) -> io::Result<()> {
    diff_within(shown, old, new, out, WINDOW_MAX)
}

/// [`write_diff`], with windows of at most `window_max` lines a side.
fn diff_within<W: Write>(
    shown: &str,
    old: &File,
    new: &File,
    out: &mut W,
    window_max: usize,
) -> io::Result<()> {
    let keys = Keys(
        foldhash::fast::RandomState::default(),
        foldhash::fast::RandomState::default(),
    );
    let mut d = Differ {
        old: Side::new(old),
        new: Side::new(new),
        out: Escaped(out),
        shown,
        headed: false,
        piece: vec![0; PIECE],
    };
    let mut next_try = FIRST_TRY;
    loop {
        let more_old = d.old.pull(&keys)?;
        let more_new = d.new.pull(&keys)?;
        if !more_old && !more_new {
            let ops = d.ops();
            return d.write_hunks(ops);
        }
        let size = d.size();
        if size >= window_max {
            let ops = d.ops();
            d.write_hunks(ops)?;
            d.old.drop_before(d.old.window.len());
            d.new.drop_before(d.new.window.len());
        } else if size >= next_try {
            d.cut()?;
        } else {
            continue;
        }
        next_try = (2 * d.size()).max(FIRST_TRY);
    }
}

/// The two keyed hashes a line's key is made of.
struct Keys(foldhash::fast::RandomState, foldhash::fast::RandomState);

/// A line of a file: where it is, and whether it ends with a line break.
#[derive(Clone, Copy)]
struct Line {
    start: u64,
    len: u64,
    broken: bool,
}

/// One side of the diff: its lines read so far, and those of the window.
struct Side<'f> {
    lines: Lines<'f>,
    window: Vec<Line>,
    keys: Vec<u128>,
    /// The index in the file of the window's first line.
    first: usize,
    done: bool,
}

impl<'f> Side<'f> {
    fn new(file: &'f File) -> Side<'f> {
        Side {
            lines: Lines {
                file,
                buf: vec![0; PIECE],
                pos: 0,
                len: 0,
                at: 0,
                eof: false,
                block: Vec::with_capacity(BLOCK),
            },
            window: Vec::new(),
            keys: Vec::new(),
            first: 0,
            done: false,
        }
    }

    /// Reads the next line into the window; false at the end of the file.
    fn pull(&mut self, keys: &Keys) -> io::Result<bool> {
        if self.done {
            return Ok(false);
        }
        match self.lines.next(keys)? {
            Some((line, key)) => {
                self.window.push(line);
                self.keys.push(key);
                Ok(true)
            }
            None => {
                self.done = true;
                Ok(false)
            }
        }
    }

    /// Drops the window's first `n` lines.
    fn drop_before(&mut self, n: usize) {
        self.window.drain(..n);
        self.keys.drain(..n);
        self.first += n;
    }
}

struct Differ<'f, 'w, 's, W> {
    old: Side<'f>,
    new: Side<'f>,
    out: Escaped<'w, W>,
    shown: &'s str,
    /// Whether the `---`/`+++` lines were written.
    headed: bool,
    piece: Vec<u8>,
}

impl<W: Write> Differ<'_, '_, '_, W> {
    fn size(&self) -> usize {
        self.old.window.len().max(self.new.window.len())
    }

    /// The diff of the window, as `similar`'s line diff makes it.
    fn ops(&self) -> Vec<DiffOp> {
        similar::capture_diff_slices(Algorithm::Myers, &self.old.keys, &self.new.keys)
    }

    /// Writes the hunks up to the window's last run of more than twice the context of equal
    /// lines, and drops them but the last lines of the run.
    fn cut(&mut self) -> io::Result<()> {
        let mut ops = self.ops();
        let Some(at) = ops
            .iter()
            .rposition(|op| matches!(op, DiffOp::Equal { len, .. } if *len > 2 * CONTEXT))
        else {
            return Ok(());
        };
        ops.truncate(at + 1);
        let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = ops[at]
        else {
            unreachable!("found as equal");
        };
        self.write_hunks(ops)?;
        self.old.drop_before(old_index + len - CONTEXT);
        self.new.drop_before(new_index + len - CONTEXT);
        Ok(())
    }

    /// Writes `ops` (of the window) as `similar`'s unified diff groups and writes them.
    fn write_hunks(&mut self, ops: Vec<DiffOp>) -> io::Result<()> {
        for group in similar::group_diff_ops(ops, CONTEXT) {
            if !self.headed {
                self.headed = true;
                writeln!(self.out, "--- {}", self.shown)?;
                writeln!(self.out, "+++ {}", self.shown)?;
            }
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let old = Range(
                self.old.first + first.old_range().start,
                self.old.first + last.old_range().end,
            );
            let new = Range(
                self.new.first + first.new_range().start,
                self.new.first + last.new_range().end,
            );
            writeln!(self.out, "@@ -{old} +{new} @@")?;
            for op in &group {
                let (tag, old, new) = op.as_tag_tuple();
                match tag {
                    DiffTag::Equal => self.write_lines(' ', true, old)?,
                    DiffTag::Delete => self.write_lines('-', true, old)?,
                    DiffTag::Insert => self.write_lines('+', false, new)?,
                    DiffTag::Replace => {
                        self.write_lines('-', true, old)?;
                        self.write_lines('+', false, new)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the window's lines `range` of a side, each after `tag`, read back from its file.
    fn write_lines(
        &mut self,
        tag: char,
        old: bool,
        range: std::ops::Range<usize>,
    ) -> io::Result<()> {
        for i in range {
            let side = if old { &self.old } else { &self.new };
            let line = side.window[i];
            let file = side.lines.file;
            write!(self.out, "{tag}")?;
            let (mut at, end) = (line.start, line.start + line.len);
            while at < end {
                let want = usize::try_from(end - at).map_or(PIECE, |n| n.min(PIECE));
                let n = read_full(file, &mut self.piece[..want], at)?;
                if n == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file was cut short while its diff was written",
                    ));
                }
                let last = at + n as u64 == end;
                let out = &mut self.out;
                let used = lossy(&self.piece[..n], last, &mut |s| out.write_all(s.as_bytes()))?;
                at += used as u64;
            }
            if !line.broken {
                writeln!(self.out, "\n\\ No newline at end of file")?;
            }
        }
        Ok(())
    }
}

/// A hunk's range of lines, as a unified diff gives it (`similar`'s form).
struct Range(usize, usize);

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut beginning = self.0 + 1;
        let len = self.1.saturating_sub(self.0);
        if len == 1 {
            write!(f, "{beginning}")
        } else {
            if len == 0 {
                // An empty range begins at the line before it.
                beginning -= 1;
            }
            write!(f, "{beginning},{len}")
        }
    }
}

/// Reads into `buf` from `at` until it is full or the file ends; how much was read.
fn read_full(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Decodes `bytes` as `String::from_utf8_lossy` does, into `out` a piece at a time, and says
/// how many were decoded: all of them, but for a character cut off at their end when `end` is
/// false (it is decoded with what follows it).
fn lossy(
    bytes: &[u8],
    end: bool,
    out: &mut impl FnMut(&str) -> io::Result<()>,
) -> io::Result<usize> {
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        if !chunk.valid().is_empty() {
            out(chunk.valid())?;
        }
        let bad = chunk.invalid();
        if bad.is_empty() {
            continue;
        }
        if !end
            && chunks.peek().is_none()
            && std::str::from_utf8(bad).is_err_and(|e| e.error_len().is_none())
        {
            return Ok(bytes.len() - bad.len());
        }
        out("\u{FFFD}")?;
    }
    Ok(bytes.len())
}

/// The block a line's text is hashed in, so that its key does not depend on how it was read.
const BLOCK: usize = 4096;

/// The lines of a file, read a piece at a time: where each is, and a key of its text.
struct Lines<'f> {
    file: &'f File,
    buf: Vec<u8>,
    /// The offset of `buf`'s first byte, how many of its bytes are the file's, and how many of
    /// them were taken.
    pos: u64,
    len: usize,
    at: usize,
    /// `buf` holds the end of the file.
    eof: bool,
    block: Vec<u8>,
}

impl Lines<'_> {
    /// The next line and its key (`None` at the end of the file).
    fn next(&mut self, keys: &Keys) -> io::Result<Option<(Line, u128)>> {
        let start = self.pos + self.at as u64;
        let mut key = Key {
            a: keys.0.build_hasher(),
            b: keys.1.build_hasher(),
            block: &mut self.block,
            len: 0,
        };
        key.block.clear();
        loop {
            if self.at == self.len {
                if self.eof {
                    let len = self.pos + self.at as u64 - start;
                    let line = Line {
                        start,
                        len,
                        broken: false,
                    };
                    return Ok((len > 0).then(|| (line, key.finish())));
                }
                refill(
                    self.file,
                    &mut self.buf,
                    &mut self.pos,
                    &mut self.len,
                    &mut self.at,
                    &mut self.eof,
                )?;
                continue;
            }
            let rest = &self.buf[self.at..self.len];
            match memchr::memchr2(b'\n', b'\r', rest) {
                // A CR at the end of what is read: whether an LF follows is read next.
                Some(i) if rest[i] == b'\r' && i + 1 == rest.len() && !self.eof => {
                    self.at += key.feed(&rest[..i], false);
                    refill(
                        self.file,
                        &mut self.buf,
                        &mut self.pos,
                        &mut self.len,
                        &mut self.at,
                        &mut self.eof,
                    )?;
                }
                Some(i) => {
                    let end = if rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n') {
                        i + 2
                    } else {
                        i + 1
                    };
                    key.feed(&rest[..end], true);
                    self.at += end;
                    let line = Line {
                        start,
                        len: self.pos + self.at as u64 - start,
                        broken: true,
                    };
                    return Ok(Some((line, key.finish())));
                }
                None => {
                    self.at += key.feed(rest, self.eof);
                    if self.at < self.len {
                        // A character cut off: read again with what follows it.
                        refill(
                            self.file,
                            &mut self.buf,
                            &mut self.pos,
                            &mut self.len,
                            &mut self.at,
                            &mut self.eof,
                        )?;
                    }
                }
            }
        }
    }
}

/// Moves what is left of `buf` to its start and reads after it.
fn refill(
    file: &File,
    buf: &mut [u8],
    pos: &mut u64,
    len: &mut usize,
    at: &mut usize,
    eof: &mut bool,
) -> io::Result<()> {
    buf.copy_within(*at..*len, 0);
    *pos += *at as u64;
    *len -= *at;
    *at = 0;
    let n = read_full(file, &mut buf[*len..], *pos + *len as u64)?;
    if n < buf.len() - *len {
        *eof = true;
    }
    *len += n;
    Ok(())
}

/// A line's key being made: two keyed hashes of its lossy text, fed in whole blocks.
struct Key<'b, H> {
    a: H,
    b: H,
    block: &'b mut Vec<u8>,
    len: u64,
}

impl<H: Hasher> Key<'_, H> {
    /// Feeds `bytes` of the line (see [`lossy`]); how many were taken.
    fn feed(&mut self, bytes: &[u8], end: bool) -> usize {
        let (a, b, block, len) = (&mut self.a, &mut self.b, &mut *self.block, &mut self.len);
        let mut add = |s: &str| -> io::Result<()> {
            let mut s = s.as_bytes();
            *len += s.len() as u64;
            while !s.is_empty() {
                let n = (BLOCK - block.len()).min(s.len());
                block.extend_from_slice(&s[..n]);
                s = &s[n..];
                if block.len() == BLOCK {
                    a.write(block);
                    b.write(block);
                    block.clear();
                }
            }
            Ok(())
        };
        lossy(bytes, end, &mut add).unwrap_or(bytes.len())
    }

    fn finish(mut self) -> u128 {
        self.a.write(self.block);
        self.b.write(self.block);
        self.a.write_u64(self.len);
        self.b.write_u64(self.len);
        (u128::from(self.a.finish()) << 64) | u128::from(self.b.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8], name: &str) -> File {
        let path = std::env::temp_dir().join(format!(
            "sjlint-diff-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, bytes).unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }

    /// The diff `similar` makes of the whole texts, as `--diff` wrote it before.
    fn whole(old: &[u8], new: &[u8]) -> String {
        let old = String::from_utf8_lossy(old);
        let new = String::from_utf8_lossy(new);
        let mut out = Vec::new();
        similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
            .unified_diff()
            .context_radius(CONTEXT)
            .header("f", "f")
            .to_writer(Escaped(&mut out))
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    fn windowed(old: &[u8], new: &[u8]) -> String {
        let mut out = Vec::new();
        write_diff("f", &file(old, "old"), &file(new, "new"), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn windows_give_the_hunks_of_the_whole_diff() {
        let mut old = Vec::new();
        let mut new = Vec::new();
        for i in 0..5000u32 {
            let line = format!("{{\"n\":{i}}}\n");
            match i % 97 {
                // Dropped, changed, kept: hunks near and far from each other.
                0 | 5 | 12 => old.extend_from_slice(line.as_bytes()),
                1 | 40 | 48 => {
                    old.extend_from_slice(format!("{{ \"n\": {i} }}\n").as_bytes());
                    new.extend_from_slice(line.as_bytes());
                }
                _ => {
                    old.extend_from_slice(line.as_bytes());
                    new.extend_from_slice(line.as_bytes());
                }
            }
        }
        let cases: [(&[u8], &[u8]); 9] = [
            (&old, &new),
            (b"", b"a\n"),
            (b"a\n", b""),
            (b"a\nb", b"a\nb\n"),
            (b"a\r\nb\rc\n", b"a\nb\rc\n"),
            (
                b"\xff\xfe\n\xe2\x82\n",
                b"\xef\xbf\xbd\xef\xbf\xbd\n\xe2\x82\n",
            ),
            (b"x\x1b[31m\n", b"y\n"),
            (b"same\n", b"same\n"),
            (&old[..old.len() - 1], &new),
        ];
        for (old, new) in cases {
            assert_eq!(windowed(old, new), whole(old, new));
        }
    }

    #[test]
    fn a_window_with_no_run_of_equal_lines_is_written_as_it_stands_at_its_bound() {
        let old: String = (0..300).map(|i| format!("{{ \"n\": {i} }}\n")).collect();
        let new: String = (0..300).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        let mut out = Vec::new();
        let (o, n) = (file(old.as_bytes(), "o"), file(new.as_bytes(), "n"));
        diff_within("f", &o, &n, &mut out, 256).unwrap();
        let out = String::from_utf8(out).unwrap();
        let hunks: Vec<&str> = out.lines().filter(|l| l.starts_with("@@")).collect();
        assert_eq!(hunks, ["@@ -1,256 +1,256 @@", "@@ -257,44 +257,44 @@"]);
        assert_eq!(out.lines().count(), 2 + 2 + 2 * 300, "every line once");
        assert_eq!(
            whole(old.as_bytes(), new.as_bytes()).lines().count(),
            2 + 1 + 2 * 300
        );
    }

    #[test]
    fn a_line_is_read_in_pieces_and_a_character_across_them_kept_whole() {
        // A line of several pieces, with a character of three bytes across their boundaries.
        let mut old = vec![b'a'; PIECE - 1];
        for _ in 0..PIECE {
            old.extend_from_slice("€".as_bytes());
        }
        old.push(b'\n');
        assert_eq!(windowed(&old, b"b\n"), whole(&old, b"b\n"));
        assert_eq!(windowed(&old, &old), "");
    }
}
