//! Files checked where they lie: mapped into memory instead of read into a buffer.
//!
//! This module owns the mapping of one file and giving its pages back as checking moves past
//! them, so that what the process holds stays bounded however large the file is. It must not
//! decide which inputs are mapped (that is `commands`) nor split or check anything.
//!
//! A mapped file that another process truncates while it is being checked makes the process
//! fail with `SIGBUS` when it touches the missing pages; `--no-mmap` reads such files instead.

use memmap2::{Advice, Mmap, UncheckedAdvice};
use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Pages are given back in runs of this many bytes (a multiple of every page size in use).
const RELEASE: usize = 4 << 20;

/// The bytes of one file, mapped read-only.
pub struct Mapped {
    map: Mmap,
    /// Everything below this offset has been given back.
    released: AtomicUsize,
}

impl Mapped {
    /// Maps `file` when it is a regular file that is not empty; `None` for anything else
    /// (pipes, terminals, devices, empty files, a failed mapping), which is read instead.
    pub fn new(file: &File) -> Option<Mapped> {
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() == 0 || usize::try_from(meta.len()).is_err() {
            return None;
        }
        // SAFETY: the mapping is read-only and lives as long as `Mapped`. Its contents change
        // only if another process writes the file meanwhile, which the module documentation
        // and `--no-mmap` address; appending to the file (what a writer of a stream does) does
        // not touch the mapped bytes.
        let map = unsafe { Mmap::map(file) }.ok()?;
        // Only a hint: read ahead generously.
        let _ = map.advise(Advice::Sequential);
        Some(Mapped {
            map,
            released: AtomicUsize::new(0),
        })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// The caller is done with the bytes below `offset`: their pages are given back (whole
    /// runs of [`RELEASE`] bytes). They can still be read, and read the same; the pages then
    /// come back from the page cache.
    pub fn release_below(&self, offset: usize) {
        let upto = offset.min(self.map.len()) / RELEASE * RELEASE;
        let from = self.released.fetch_max(upto, Ordering::Relaxed);
        if upto > from {
            // SAFETY: MADV_DONTNEED on a read-only shared file mapping drops the process's page
            // table entries only; the next access maps the same page of the file again, so no
            // byte any reference points to changes. The range lies inside the mapping, and
            // both ends are multiples of RELEASE from its page-aligned start.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, from, upto - from)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn released_pages_read_the_same_and_empty_files_are_not_mapped() {
        let dir = std::env::temp_dir().join(format!("sjlint-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big");
        let data: Vec<u8> = (0..(3 * RELEASE + 12345))
            .map(|i| (i % 251) as u8)
            .collect();
        File::create(&path).unwrap().write_all(&data).unwrap();
        let mapped = Mapped::new(&File::open(&path).unwrap()).unwrap();
        assert_eq!(mapped.bytes(), &data[..]);
        for offset in [RELEASE - 1, RELEASE, 2 * RELEASE + 7, 1, usize::MAX] {
            mapped.release_below(offset);
            assert_eq!(mapped.bytes(), &data[..]);
        }
        assert_eq!(mapped.released.load(Ordering::Relaxed), 3 * RELEASE);

        let empty = dir.join("empty");
        File::create(&empty).unwrap();
        assert!(Mapped::new(&File::open(&empty).unwrap()).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
