//! Bytes kept for a document written at the end of the run, in memory while they are few and in
//! a temporary file past [`SPILL_AT`], so that keeping them costs bounded memory however many
//! findings there are.
//!
//! The file is created in the temporary directory with a name no other process holds, and on
//! Unix removed from the directory at once (the open descriptor keeps it), so nothing is left
//! behind whatever way the run ends. This module must not know what the bytes mean.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::PathBuf;

/// Bytes kept in memory before they go to a file.
pub(super) const SPILL_AT: usize = 8 << 20;

/// An append-only store of bytes, read back by ranges.
#[derive(Default)]
pub(super) struct Spill {
    mem: Vec<u8>,
    file: Option<(BufWriter<File>, PathBuf)>,
    len: u64,
}

impl Spill {
    /// How many bytes were appended.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    pub(super) fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.file.is_none() && self.mem.len() + bytes.len() > SPILL_AT {
            let (mut file, path) = create()?;
            file.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some((file, path));
        }
        match &mut self.file {
            Some((file, _)) => file.write_all(bytes)?,
            None => self.mem.extend_from_slice(bytes),
        }
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Writes the bytes of `range` (appended earlier) to `out`.
    pub(super) fn copy<W: Write>(&mut self, range: Range<u64>, out: &mut W) -> io::Result<()> {
        match &mut self.file {
            None => out.write_all(&self.mem[range.start as usize..range.end as usize]),
            Some((file, _)) => {
                file.flush()?;
                let f = file.get_mut();
                f.seek(SeekFrom::Start(range.start))?;
                let copied = io::copy(&mut f.take(range.end - range.start), out)?;
                f.seek(SeekFrom::End(0))?;
                if copied != range.end - range.start {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the temporary file of the report is shorter than what was written to it",
                    ));
                }
                Ok(())
            }
        }
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if let Some((_, path)) = &self.file
            && !cfg!(unix)
        {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A new temporary file, open for reading and writing, that no other process holds.
fn create() -> io::Result<(BufWriter<File>, PathBuf)> {
    let dir = std::env::temp_dir();
    let mut last = None;
    for attempt in 0..100u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = dir.join(format!(
            "sjlint-report-{}-{nanos:x}-{attempt}",
            std::process::id()
        ));
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => {
                if cfg!(unix) {
                    // The descriptor keeps the file; nothing is left behind.
                    let _ = std::fs::remove_file(&path);
                }
                return Ok((BufWriter::with_capacity(1 << 16, file), path));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file could be created")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_back_the_same_in_memory_and_from_the_file() {
        let mut spill = Spill::default();
        let piece: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let mut ranges = Vec::new();
        while spill.len() < (SPILL_AT as u64) * 2 {
            let start = spill.len();
            spill.append(&piece).unwrap();
            ranges.push(start..spill.len());
            if ranges.len() == 3 {
                let mut out = Vec::new();
                spill.copy(ranges[1].clone(), &mut out).unwrap();
                assert_eq!(out, piece);
            }
        }
        assert!(spill.file.is_some());
        for r in [
            &ranges[0],
            &ranges[ranges.len() / 2],
            ranges.last().unwrap(),
        ] {
            let mut out = Vec::new();
            spill.copy(r.clone(), &mut out).unwrap();
            assert_eq!(out, piece);
        }
        spill.append(b"after").unwrap();
        let mut out = Vec::new();
        spill.copy(spill.len() - 5..spill.len(), &mut out).unwrap();
        assert_eq!(out, b"after");
    }
}
