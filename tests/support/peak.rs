//! A child's own peak resident set, for the memory tests: the most memory it held at once apart
//! from the pages of its own executable, read from `/proc/<pid>/smaps` while it runs.
//!
//! Not `ru_maxrss` from `wait4`: a child started with `posix_spawn` (which `Command` uses)
//! shares its parent's memory until it execs, and Linux carries the parent's high-water mark
//! into the child's `ru_maxrss` at that exec. The test process grows as its tests make their
//! inputs, so a child's `ru_maxrss` said as much of the tests as of sjlint (a `/bin/true` started
//! by a process of 600 MB reports 600 MB).
//!
//! Not `VmHWM` either: it counts the executable's own code, and the binary `cargo test` builds is
//! unoptimised: its code is 17 MiB resident where the release build's is 6 MiB, the same for
//! every input. What the tests bound is what the input makes sjlint hold: its heap and stacks,
//! the pages of a mapped file, the shared libraries. Each sample is the sum of `Rss` over every
//! mapping of `smaps` but the executable's; the samples are a millisecond apart, so a growth
//! shorter than that may be missed, which the tests' inputs, steady to their end, make harmless.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Watches the process `pid` from a thread of its own until [`Watch::stop`].
pub(crate) struct Watch {
    done: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<i64>,
}

impl Watch {
    /// Starts watching `pid`, a child that `Command::spawn` has started: it has exec'd by then
    /// (`spawn` returns once the exec succeeded), so `/proc/<pid>/exe` names its executable.
    pub(crate) fn start(pid: u32) -> Watch {
        let done = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&done);
        let exe = std::fs::read_link(format!("/proc/{pid}/exe"))
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let thread = std::thread::spawn(move || {
            let path = format!("/proc/{pid}/smaps");
            let mut peak = 0;
            while !seen.load(Ordering::Relaxed) {
                if let Ok(smaps) = std::fs::read_to_string(&path) {
                    peak = peak.max(held(&smaps, &exe));
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            peak
        });
        Watch { done, thread }
    }

    /// The most memory seen held at once, in KiB; call it once the child has exited.
    pub(crate) fn stop(self) -> i64 {
        self.done.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// The `Rss` of every mapping of an `smaps` text but those of the file `exe`, in KiB.
fn held(smaps: &str, exe: &str) -> i64 {
    let mut own_code = false;
    let mut kib = 0;
    for line in smaps.lines() {
        if let Some(rss) = line.strip_prefix("Rss:") {
            if !own_code {
                kib += rss
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse::<i64>().ok())
                    .unwrap_or(0);
            }
        } else if is_mapping_header(line) {
            // `start-end perms offset dev inode path`: the path is the sixth field on.
            let path = line
                .split_whitespace()
                .skip(5)
                .collect::<Vec<_>>()
                .join(" ");
            own_code = !exe.is_empty() && path == exe;
        }
    }
    kib
}

/// Whether a line of `smaps` opens a mapping (`7f…-7f… r-xp …`) rather than giving one of its
/// fields (`Rss:      12 kB`).
fn is_mapping_header(line: &str) -> bool {
    line.split_once(' ')
        .and_then(|(range, _)| range.split_once('-'))
        .is_some_and(|(a, b)| {
            !a.is_empty() && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_hexdigit())
        })
}
