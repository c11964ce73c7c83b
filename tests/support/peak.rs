//! A child's own peak resident set, for the memory tests: the largest `VmHWM` of
//! `/proc/<pid>/status` read while it runs.
//!
//! Not `ru_maxrss` from `wait4`: a child started with `posix_spawn` (which `Command` uses)
//! shares its parent's memory until it execs, and Linux carries the parent's high-water mark
//! into the child's `ru_maxrss` at that exec. The test process grows as its tests make their
//! inputs, so a child's `ru_maxrss` said as much of the tests as of sjlint (a `/bin/true` started
//! by a process of 600 MB reports 600 MB). `VmHWM` is the high-water mark of the child's own
//! address space, made at its exec. It is read every millisecond; the last growth before the
//! child exits may be missed, which the tests' inputs, steady to their end, make harmless.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Watches the process `pid` from a thread of its own until [`Watch::stop`].
pub(crate) struct Watch {
    done: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<i64>,
}

impl Watch {
    pub(crate) fn start(pid: u32) -> Watch {
        let done = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let path = format!("/proc/{pid}/status");
            let mut peak = 0;
            while !seen.load(Ordering::Relaxed) {
                if let Some(kib) = std::fs::read_to_string(&path)
                    .ok()
                    .as_deref()
                    .and_then(vm_hwm)
                {
                    peak = peak.max(kib);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            peak
        });
        Watch { done, thread }
    }

    /// The largest `VmHWM` seen, in KiB; call it once the child has exited.
    pub(crate) fn stop(self) -> i64 {
        self.done.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// `VmHWM` of a `/proc/<pid>/status` text, in KiB.
fn vm_hwm(status: &str) -> Option<i64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
