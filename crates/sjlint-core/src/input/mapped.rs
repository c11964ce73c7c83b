//! Files checked where they lie: mapped into memory instead of read into a buffer.
//!
//! This module owns the mapping of one file and giving its pages back as checking moves past
//! them, so that what the process holds stays bounded however large the file is. It must not
//! decide which inputs are mapped (that is `commands`) nor split or check anything.
//!
//! A mapped file that another process truncates while it is being checked has pages that no
//! longer exist: touching them raises `SIGBUS`, which would kill the process with no output. So
//! every mapping is listed in a small table, and a `SIGBUS` handler that finds the faulting
//! address in it maps zero pages over the rest of that mapping, notes it, and returns; the
//! access then reads zeros, and [`Mapped::truncated`] tells the checker, which stops with an
//! error naming the file after the findings so far. [`Mapped::touch`] reads one byte per page of
//! the next step first, so that a truncation is noticed before that step is checked. A fault at
//! any other address gets the default action, as before. Where no handler can be installed, or
//! the table is full, files are read instead of mapped.

use memmap2::{Advice, Mmap, UncheckedAdvice};
use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Pages are given back in runs of this many bytes (a multiple of every page size in use), the
/// runs aligned to it from the start of the mapping: one `madvise` per 4 MiB at most.
pub(crate) const RELEASE: usize = 4 << 20;

/// The bytes of one file, mapped read-only.
pub struct Mapped {
    map: Mmap,
    /// Everything below this offset has been given back.
    released: AtomicUsize,
    /// Its entry in the table of mappings the `SIGBUS` handler knows.
    #[cfg(unix)]
    slot: &'static bus::Slot,
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
        #[cfg(unix)]
        let slot = bus::register(map.as_ptr() as usize, map.len())?;
        Some(Mapped {
            map,
            released: AtomicUsize::new(0),
            #[cfg(unix)]
            slot,
        })
    }

    /// Whether the file turned out shorter than it was when mapped: a page past its new end was
    /// touched, and reads zeros.
    pub fn truncated(&self) -> bool {
        #[cfg(unix)]
        {
            self.slot.hit.load(Ordering::Acquire)
        }
        #[cfg(not(unix))]
        {
            false
        }
    }

    /// Reads one byte of every page of `from..to`, so that a truncation inside that range is
    /// noticed ([`Mapped::truncated`]) before its bytes are checked. A range of more than two
    /// [`RELEASE`] runs is one checking has passed already (the in-order stage reaching past a
    /// record over the limit; a step to be checked is at most `IN_PLACE_STEP`): its whole runs
    /// are given back as they are touched, so that touching it does not hold it all.
    pub fn touch(&self, from: usize, to: usize) {
        let bytes = self.bytes();
        let to = to.min(bytes.len());
        let passed = to.saturating_sub(from) > 2 * RELEASE;
        let mut at = from;
        while at < to {
            let run_end = ((at / RELEASE + 1) * RELEASE).min(to);
            let run_start = at;
            while at < run_end {
                // SAFETY: `at` lies inside the mapping; a volatile read so that it is not elided.
                let _ = unsafe { std::ptr::read_volatile(bytes.as_ptr().add(at)) };
                at = (at | (PAGE - 1)) + 1;
            }
            at = at.max(run_end);
            if passed && run_end < to {
                self.release_range(run_start..run_end);
            }
        }
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

impl Mapped {
    /// A stage has read past `range` and nothing reads it again (the middle of a record over
    /// the limit): the pages of the whole [`RELEASE`] runs inside it are given back, whatever
    /// was given back before. Read again, they read the same (see [`Mapped::release_below`]).
    pub fn release_range(&self, range: std::ops::Range<usize>) {
        let from = range.start.div_ceil(RELEASE).saturating_mul(RELEASE);
        let to = range.end.min(self.map.len()) / RELEASE * RELEASE;
        if to > from {
            // SAFETY: as in `release_below`: a read-only shared file mapping, a range inside
            // it whose ends are multiples of RELEASE from its page-aligned start.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, from, to - from)
            };
        }
    }
}

/// The smallest page size in use: touching one byte in every run of this many touches every page.
const PAGE: usize = 4096;

impl Drop for Mapped {
    fn drop(&mut self) {
        // Before the mapping goes (the fields are dropped after this).
        #[cfg(unix)]
        bus::unregister(self.slot);
    }
}

/// The table of mappings and the `SIGBUS` handler; see the module documentation.
#[cfg(unix)]
mod bus {
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// One mapping: its address range (`start == 0`: a free entry) and whether it was cut.
    pub(super) struct Slot {
        start: AtomicUsize,
        end: AtomicUsize,
        pub hit: AtomicBool,
        taken: AtomicBool,
    }

    /// As many mappings at once as files are checked at once, and then some.
    const SLOTS: usize = 64;

    #[expect(
        clippy::declare_interior_mutable_const,
        reason = "only the initializer of the table's entries; each entry is a static of its own"
    )]
    const FREE: Slot = Slot {
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        hit: AtomicBool::new(false),
        taken: AtomicBool::new(false),
    };

    static TABLE: [Slot; SLOTS] = [FREE; SLOTS];

    /// The disposition of `SIGBUS` before ours, given back for faults that are not ours.
    struct Old(libc::sigaction);
    // SAFETY: a plain C struct, written once before the handler is installed, then only read.
    unsafe impl Sync for Old {}
    unsafe impl Send for Old {}
    static OLD: std::sync::OnceLock<Old> = std::sync::OnceLock::new();
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);

    /// Lists the mapping `start..start + len`; `None` when the table is full or no handler could
    /// be installed (the file is then read instead).
    pub(super) fn register(start: usize, len: usize) -> Option<&'static Slot> {
        install();
        if !INSTALLED.load(Ordering::Acquire) {
            return None;
        }
        let slot = TABLE.iter().find(|s| {
            s.taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        slot.hit.store(false, Ordering::Relaxed);
        slot.end.store(start + len, Ordering::Relaxed);
        slot.start.store(start, Ordering::Release);
        Some(slot)
    }

    pub(super) fn unregister(slot: &Slot) {
        slot.start.store(0, Ordering::Release);
        slot.end.store(0, Ordering::Relaxed);
        slot.taken.store(false, Ordering::Release);
    }

    fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: sysconf and sigaction with a zeroed, then filled, sigaction struct; the
            // handler only calls mmap and touches atomics.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE_SIZE.store(page as usize, Ordering::Relaxed);
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_bus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&raw mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, &raw const action, &raw mut old) == 0 {
                    let _ = OLD.set(Old(old));
                    INSTALLED.store(true, Ordering::Release);
                }
            }
        });
    }

    /// The handler: a fault inside a listed mapping gets zero pages from the faulting page to
    /// the mapping's end, and the access is retried; any other fault gets the default action.
    extern "C" fn on_bus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE_SIZE.load(Ordering::Relaxed);
        for slot in &TABLE {
            let start = slot.start.load(Ordering::Acquire);
            let end = slot.end.load(Ordering::Relaxed);
            if start == 0 || addr < start || addr >= end {
                continue;
            }
            let from = addr & !(page - 1);
            // SAFETY: `from..end` lies inside a mapping this process made and still holds
            // (it is listed); replacing it with private zero pages changes only bytes that no
            // longer exist in the file. mmap is a plain system call.
            let zeros = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                slot.hit.store(true, Ordering::Release);
                return;
            }
            break;
        }
        // Not ours (or no zero pages): the disposition from before, which the retried access
        // meets (the default one kills the process, as it would have without this handler).
        // SAFETY: sigaction is async-signal-safe; OLD holds a valid sigaction.
        unsafe {
            match OLD.get() {
                Some(old) => libc::sigaction(libc::SIGBUS, &raw const old.0, std::ptr::null_mut()),
                None => libc::signal(libc::SIGBUS, libc::SIG_DFL) as libc::c_int,
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
