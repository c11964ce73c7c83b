//! Arrival times: when each record of a saved transcript reached `sjlint run`.
//!
//! `sjlint run --save PATH` keeps the agent's bytes in PATH and, beside it in `PATH.arrivals`
//! ([`sidecar_path`]), one NDJSON line per record: a header
//! `{"sjlint_arrivals":1,"started_unix_ms":N}` (when the agent was started), then
//! `{"line":L,"t":T}`, where L is the physical line the record starts on (1-based, as findings
//! number lines) and T the Unix time in milliseconds its last byte was read. A record the
//! checker passes over unread (another agent's, in a mixed stream) may have no line of its own:
//! [`Arrivals::at`] then gives the time of the record before it. Streams that carry
//! no times of their own (Codex, Claude Code) get times from it in `stats` and `report`.
//!
//! This module owns that file: the [`Writer`] a run appends to (buffered; whoever holds it
//! flushes it on a timer, so that a killed run leaves a usable prefix) and the reader
//! ([`Arrivals::load`], [`Arrivals::at`]). A sidecar that cannot be read as one is a warning on
//! stderr and is ignored: it never stops a command nor makes one fail. A last line cut short
//! (the run was killed while writing it) is left out silently. It must not read transcripts
//! nor decide what a time means to a command.

use crate::text::escape_untrusted;
use serde::Deserialize;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The version of the sidecar's format, in its header.
const VERSION: u64 = 1;

/// Where the arrival times of `transcript` are kept: `transcript` with `.arrivals` added.
pub fn sidecar_path(transcript: &Path) -> PathBuf {
    let mut p = transcript.as_os_str().to_owned();
    p.push(".arrivals");
    PathBuf::from(p)
}

/// The arrival times of a transcript's records, read from its sidecar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrivals {
    started_unix_ms: u64,
    /// Record start lines, strictly increasing, and the time of each (Unix ms).
    lines: Vec<u64>,
    times: Vec<u64>,
}

#[derive(Deserialize)]
struct Header {
    sjlint_arrivals: u64,
    started_unix_ms: u64,
}

#[derive(Deserialize)]
struct Entry {
    line: u64,
    t: u64,
}

impl Arrivals {
    /// The arrival times kept beside `transcript` ([`sidecar_path`]): `None` when there is no
    /// sidecar, or when it is not one (then a warning on stderr says why). An error is an I/O
    /// error reading a sidecar that exists.
    pub fn load(transcript: &Path) -> io::Result<Option<Arrivals>> {
        let path = sidecar_path(transcript);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        match Arrivals::read(BufReader::new(file))? {
            Ok(a) => Ok(Some(a)),
            Err(why) => {
                let _ = writeln!(
                    io::stderr(),
                    "sjlint: warning: ignoring the arrival times in {}: {why}",
                    escape_untrusted(&path.display().to_string())
                );
                Ok(None)
            }
        }
    }

    /// [`Arrivals::load`], with an error reading the sidecar said as a warning on stderr: for
    /// the commands to which the times are an extra.
    pub fn beside(transcript: &Path) -> Option<Arrivals> {
        Arrivals::load(transcript).unwrap_or_else(|e| {
            let _ = writeln!(
                io::stderr(),
                "sjlint: warning: cannot read the arrival times in {}: {e}",
                escape_untrusted(&sidecar_path(transcript).display().to_string())
            );
            None
        })
    }

    /// Reads a sidecar: `Ok(Err(why))` when it is not one.
    fn read(mut reader: impl BufRead) -> io::Result<Result<Arrivals, String>> {
        let mut buf = Vec::new();
        let mut n = 0u64;
        let mut arrivals = Arrivals::default();
        loop {
            buf.clear();
            if reader.read_until(b'\n', &mut buf)? == 0 {
                break;
            }
            n += 1;
            let whole = buf.last() == Some(&b'\n');
            let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
            if n == 1 {
                match serde_json::from_slice::<Header>(text) {
                    Ok(h) if h.sjlint_arrivals == VERSION => {
                        arrivals.started_unix_ms = h.started_unix_ms;
                    }
                    Ok(h) => {
                        return Ok(Err(format!(
                            "version {} is not one this sjlint reads (1)",
                            h.sjlint_arrivals
                        )));
                    }
                    Err(_) => {
                        return Ok(Err(
                            "line 1 is not the header {\"sjlint_arrivals\":1,…}".to_owned()
                        ));
                    }
                }
                continue;
            }
            let entry = match serde_json::from_slice::<Entry>(text) {
                Ok(e) => e,
                // Cut short by a run that was killed while writing it: the prefix stands.
                Err(_) if !whole => break,
                Err(_) => {
                    return Ok(Err(format!("line {n} is not {{\"line\":L,\"t\":UNIX_MS}}")));
                }
            };
            if arrivals.lines.last().is_some_and(|&l| entry.line <= l) {
                return Ok(Err(format!(
                    "line {n}: record line {} does not follow line {}",
                    entry.line,
                    arrivals.lines.last().copied().unwrap_or(0)
                )));
            }
            arrivals.lines.push(entry.line);
            arrivals.times.push(entry.t);
        }
        if n == 0 {
            return Ok(Err("it is empty".to_owned()));
        }
        Ok(Ok(arrivals))
    }

    /// When the record that starts on `line` arrived (Unix ms), or the nearest record before
    /// it; `None` before the first record.
    pub fn at(&self, line: u64) -> Option<u64> {
        let after = self.lines.partition_point(|&l| l <= line);
        after.checked_sub(1).map(|i| self.times[i])
    }

    /// When the agent was started (Unix ms).
    pub fn started_unix_ms(&self) -> u64 {
        self.started_unix_ms
    }
}

/// Appends arrival times to a sidecar as a run reads records. Buffered: its holder calls
/// [`Writer::flush`] at least once per interval and at the end. A failed write stops the
/// writing and is kept to be said once.
pub struct Writer {
    out: Option<BufWriter<File>>,
    last_line: u64,
    dirty: bool,
    error: Option<io::Error>,
}

impl Writer {
    /// Creates (or truncates) the sidecar of `transcript` and writes its header.
    pub fn create(transcript: &Path, started_unix_ms: u64) -> io::Result<Writer> {
        let file = File::create(sidecar_path(transcript))?;
        let mut out = BufWriter::new(file);
        writeln!(
            out,
            "{{\"sjlint_arrivals\":{VERSION},\"started_unix_ms\":{started_unix_ms}}}"
        )?;
        out.flush()?;
        Ok(Writer {
            out: Some(out),
            last_line: 0,
            dirty: false,
            error: None,
        })
    }

    /// The record starting on `line` arrived at `t` (Unix ms). A line at or before the last one
    /// written is the same record seen again, and is left out.
    pub fn record(&mut self, line: u64, t: u64) {
        if line <= self.last_line {
            return;
        }
        self.last_line = line;
        if let Some(out) = &mut self.out {
            match writeln!(out, "{{\"line\":{line},\"t\":{t}}}") {
                Ok(()) => self.dirty = true,
                Err(e) => self.fail(e),
            }
        }
    }

    /// Writes what is buffered.
    pub fn flush(&mut self) {
        if !std::mem::take(&mut self.dirty) {
            return;
        }
        if let Some(out) = &mut self.out
            && let Err(e) = out.flush()
        {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: io::Error) {
        self.out = None;
        self.error.get_or_insert(e);
    }

    /// The first write that failed, once.
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Arrivals, String> {
        Arrivals::read(text.as_bytes()).unwrap()
    }

    #[test]
    fn a_time_is_of_the_record_on_the_line_or_the_nearest_before() {
        let a = read(
            "{\"sjlint_arrivals\":1,\"started_unix_ms\":1000}\n{\"line\":1,\"t\":1010}\n{\"line\":2,\"t\":1020}\n{\"line\":5,\"t\":1500}\n",
        )
        .unwrap();
        assert_eq!(a.started_unix_ms(), 1000);
        assert_eq!(a.at(0), None);
        assert_eq!(a.at(1), Some(1010));
        assert_eq!(a.at(4), Some(1020));
        assert_eq!(a.at(5), Some(1500));
        assert_eq!(a.at(99), Some(1500));
    }

    #[test]
    fn a_last_line_cut_short_is_left_out_and_a_bad_one_is_no_sidecar() {
        let a = read("{\"sjlint_arrivals\":1,\"started_unix_ms\":1}\n{\"line\":1,\"t\":2}\n{\"li")
            .unwrap();
        assert_eq!(a.at(3), Some(2));
        assert!(read("").is_err());
        assert!(read("{\"line\":1,\"t\":2}\n").is_err());
        assert!(read("{\"sjlint_arrivals\":2,\"started_unix_ms\":1}\n").is_err());
        assert!(read("{\"sjlint_arrivals\":1,\"started_unix_ms\":1}\nnope\n").is_err());
        assert!(
            read("{\"sjlint_arrivals\":1,\"started_unix_ms\":1}\n{\"line\":2,\"t\":2}\n{\"line\":2,\"t\":3}\n")
                .is_err()
        );
    }
}
