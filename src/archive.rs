//! `sjlint archive`: a compressed copy of every session log the agents keep, before they delete
//! them (Claude Code removes transcripts after 30 days).
//!
//! This module owns the archive folder: one Zstandard file per log, at `<agent>/<path under the
//! agent's home>.zst`, written in frames of at most [`FRAME`] bytes; a log that grew gets the new
//! bytes as frames appended to its copy (a reader decodes the frames in turn, as one stream). A
//! manifest (`.sjlint-archive.jsonl`, one line per copy, the last line of a log winning) says how
//! much of each log is copied, how long its copy is, and where the copy's last frame starts.
//! Every copy is verified (what was written is decompressed and compared with the log) before
//! the manifest counts it; a copy that fails is put back as it was. A log that no longer starts
//! with what was copied (rewritten, or cut shorter) is copied anew, and the old copy kept beside
//! it as `<name>.zst.superseded-<n>`, which the readers' walk does not take. Nothing here
//! deletes or changes a log. It must not read what the logs say: a log is bytes.

use anyhow::{Context, bail};
use sjlint_core::homes::Home;
use sjlint_core::input::compressed::read_full;
use sjlint_core::text::{escape_untrusted, format_bytes};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The most bytes of a log one frame holds: the last frame, read again to check that a grown
/// log still starts with what was copied, stays this small.
pub(crate) const FRAME: usize = 4 << 20;
/// The manifest's name, in the archive folder.
pub(crate) const MANIFEST: &str = ".sjlint-archive.jsonl";
const LOCK: &str = ".sjlint-archive.lock";
/// Copies synced together before the manifest counts them.
const BATCH: usize = 256;
/// Zstandard's default level: about 10× on agents' logs at a few hundred MB/s.
const LEVEL: i32 = 3;

/// What the manifest says of one log's copy.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
struct Entry {
    /// The log, as found in its home.
    source: PathBuf,
    /// Its copy, relative to the archive folder.
    archive: PathBuf,
    /// Bytes of the log copied.
    len: u64,
    /// Bytes of the copy.
    zlen: u64,
    /// Where the copy's last frame starts.
    tail_at: u64,
    /// The log's modification time when it was copied (ns since the epoch).
    mtime_ns: i128,
}

/// What was done with one log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Done {
    New,
    Grown,
    Rewritten,
    Unchanged,
}

impl Done {
    fn word(self) -> &'static str {
        match self {
            Done::New => "new",
            Done::Grown => "grown",
            Done::Rewritten => "rewritten",
            Done::Unchanged => "unchanged",
        }
    }
}

/// What was done with one log: its copy (relative to the archive folder), the log's bytes
/// copied and the copy's bytes written.
struct Copied {
    done: Done,
    archive: PathBuf,
    added: u64,
    zadded: u64,
}

impl Copied {
    fn unchanged() -> Copied {
        Copied {
            done: Done::Unchanged,
            archive: PathBuf::new(),
            added: 0,
            zadded: 0,
        }
    }
}

/// The options of a run.
pub(crate) struct Options {
    /// The archive folder.
    pub(crate) to: PathBuf,
    /// Say what would be copied, copy nothing.
    pub(crate) dry_run: bool,
}

/// The archive folder when `--to` names none: `$XDG_DATA_HOME/sjlint/archive`, else
/// `~/.local/share/sjlint/archive`.
pub(crate) fn default_folder() -> Option<PathBuf> {
    let var = |n: &str| {
        std::env::var_os(n)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let data = var("XDG_DATA_HOME").or_else(|| var("HOME").map(|h| h.join(".local/share")))?;
    Some(data.join("sjlint").join("archive"))
}

/// Copies the logs of `homes` into the archive; returns the exit code (0, or 1 when a log could
/// not be copied: each is said on stderr, and the others are copied).
pub(crate) fn run(homes: &[Home], opts: &Options) -> anyhow::Result<u8> {
    if !opts.dry_run {
        // Logs hold prompts, code and secrets: the archive is its owner's alone.
        std::os::unix::fs::DirBuilderExt::mode(fs::DirBuilder::new().recursive(true), 0o700)
            .create(&opts.to)
            .with_context(|| {
                format!(
                    "cannot create the archive folder {}",
                    escape_untrusted(&opts.to.display().to_string())
                )
            })?;
    }
    let _lock = if opts.dry_run {
        None
    } else {
        Some(lock(&opts.to)?)
    };
    let manifest = Manifest::load(&opts.to)?;
    let mut failed = 0u64;
    let mut work: Vec<(&Home, PathBuf)> = Vec::new();
    for home in homes {
        let (files, notes) = home.files();
        for note in notes {
            eprintln!("sjlint: warning: {}", escape_untrusted(&note));
            failed += 1;
        }
        work.extend(files.into_iter().map(|f| (home, f)));
    }
    let results = copy_all(&manifest, &work, opts);
    let mut out = io::stdout().lock();
    let (mut counts, mut bytes, mut zbytes) = ([0u64; 4], 0u64, 0u64);
    for ((_, source), result) in work.iter().zip(results) {
        match result {
            Ok(Copied {
                done,
                archive,
                added,
                zadded,
            }) => {
                counts[done as usize] += 1;
                if done != Done::Unchanged {
                    bytes += added;
                    zbytes += zadded;
                    writeln!(
                        out,
                        "{:<9} {}  {} → {}",
                        done.word(),
                        escape_untrusted(&archive.display().to_string()),
                        format_bytes(added),
                        format_bytes(zadded)
                    )?;
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!(
                    "sjlint: cannot archive {}: {e:#}",
                    escape_untrusted(&source.display().to_string())
                );
            }
        }
    }
    out.flush()?;
    if !opts.dry_run {
        manifest.compact()?;
    }
    let [new, grown, rewritten, unchanged] = counts;
    eprintln!(
        "sjlint: {} {new} new, {grown} grown and {rewritten} rewritten logs ({} as {}) into {}; {unchanged} unchanged{}",
        if opts.dry_run {
            "would archive"
        } else {
            "archived"
        },
        format_bytes(bytes),
        format_bytes(zbytes),
        escape_untrusted(&opts.to.display().to_string()),
        if failed > 0 {
            format!("; {failed} not archived")
        } else {
            String::new()
        }
    );
    Ok(u8::from(failed > 0))
}

/// Copies every log of `work`, a file at a time on each core, compressing and verifying side by
/// side; the results in `work`'s order.
fn copy_all(
    manifest: &Manifest,
    work: &[(&Home, PathBuf)],
    opts: &Options,
) -> Vec<anyhow::Result<Copied>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(work.len().max(1));
    let mut results: Vec<(usize, anyhow::Result<Copied>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((home, source)) = work.get(i) else {
                            return done;
                        };
                        done.push((i, manifest.copy(home, source, opts)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join().unwrap_or_else(|_| {
                    // A worker that panicked: its logs are said not copied below.
                    Vec::new()
                })
            })
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let mut by_index = results.into_iter().peekable();
    (0..work.len())
        .map(|i| match by_index.next_if(|(j, _)| *j == i) {
            Some((_, r)) => r,
            None => Err(anyhow::anyhow!("not copied: its worker stopped")),
        })
        .collect()
}

/// Holds the archive folder for this run: two runs at once would append to the same copies.
fn lock(dir: &Path) -> anyhow::Result<File> {
    use std::os::fd::AsRawFd;
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    // SAFETY: `file` is open for as long as the call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        bail!(
            "another `sjlint archive` is writing to {}",
            escape_untrusted(&dir.display().to_string())
        );
    }
    Ok(file)
}

/// The manifest, read, and the copies of this run.
struct Manifest {
    dir: PathBuf,
    /// What the manifest said when the run began.
    by_source: HashMap<PathBuf, Entry>,
    state: std::sync::Mutex<State>,
}

/// What the copies of a run change, shared by the threads that make them.
struct State {
    /// Which log each copy is of, to give a copy that another log's would take another name.
    owners: HashMap<PathBuf, PathBuf>,
    /// Every log's entry, as the manifest will say it at the end.
    entries: HashMap<PathBuf, Entry>,
    /// The manifest, open for appending each copy once it is verified and synced.
    log: Option<File>,
    /// Copies verified, waiting for their batch to be synced.
    pending: Vec<Entry>,
}

impl Manifest {
    fn load(dir: &Path) -> anyhow::Result<Manifest> {
        let path = dir.join(MANIFEST);
        let mut by_source = HashMap::new();
        match File::open(&path) {
            Ok(f) => {
                for (i, line) in BufReader::new(f).lines().enumerate() {
                    let line = line.with_context(|| format!("cannot read {}", path.display()))?;
                    // A last line cut short by a killed run is left out: its copy is not counted,
                    // and is made again.
                    if let Ok(e) = serde_json::from_str::<Entry>(&line) {
                        by_source.insert(e.source.clone(), e);
                    } else if !line.trim().is_empty() {
                        eprintln!(
                            "sjlint: warning: {}:{}: not a line of the archive's manifest; left out",
                            escape_untrusted(&path.display().to_string()),
                            i + 1
                        );
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
        let owners = by_source
            .values()
            .map(|e| (e.archive.clone(), e.source.clone()))
            .collect();
        Ok(Manifest {
            dir: dir.to_owned(),
            state: std::sync::Mutex::new(State {
                owners,
                entries: by_source.clone(),
                log: None,
                pending: Vec::new(),
            }),
            by_source,
        })
    }

    /// The name a new copy of `source` takes: `<agent>/<path under the home>.zst`, or, when
    /// another log's copy has that name (two homes of one agent), `<agent>+<n>/…`. Taken for
    /// `source` at once, so that no other log of this run gets it.
    fn name_for(&self, home: &Home, source: &Path) -> PathBuf {
        let rel = source.strip_prefix(&home.root).unwrap_or(source);
        let mut name = rel.as_os_str().to_owned();
        name.push(".zst");
        let mut state = self.lock_state();
        for n in 1.. {
            let folder = if n == 1 {
                home.agent.to_owned()
            } else {
                format!("{}+{n}", home.agent)
            };
            let candidate = Path::new(&folder).join(&name);
            match state.owners.get(&candidate) {
                Some(owner) if owner != source => {}
                _ => {
                    state.owners.insert(candidate.clone(), source.to_owned());
                    return candidate;
                }
            }
        }
        unreachable!("some name is free")
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Brings the copy of `source` up to date.
    fn copy(&self, home: &Home, source: &Path, opts: &Options) -> anyhow::Result<Copied> {
        let meta = fs::symlink_metadata(source)?;
        let mtime_ns = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
        let len = meta.len();
        let old = self.by_source.get(source).cloned();
        if let Some(e) = &old
            && e.len == len
            && e.mtime_ns == mtime_ns
            && fs::metadata(self.dir.join(&e.archive)).is_ok_and(|m| m.len() == e.zlen)
        {
            return Ok(Copied::unchanged());
        }
        let mut log = File::open(source)?;
        let kept = match &old {
            Some(e) => self.still_starts(e, &mut log, len)?,
            None => false,
        };
        let (done, archive) = match (&old, kept) {
            (Some(e), true) if e.len == len => {
                // Touched, not grown: only the time is new (and frames past what the manifest
                // counts, of a run stopped before it verified them, go).
                if !opts.dry_run {
                    OpenOptions::new()
                        .write(true)
                        .open(self.dir.join(&e.archive))?
                        .set_len(e.zlen)?;
                    let e = Entry {
                        mtime_ns,
                        ..e.clone()
                    };
                    self.record(e)?;
                }
                return Ok(Copied::unchanged());
            }
            (Some(e), true) => (Done::Grown, e.archive.clone()),
            (Some(e), false) => (Done::Rewritten, e.archive.clone()),
            (None, _) => (Done::New, self.name_for(home, source)),
        };
        let from = match (&old, done) {
            (Some(e), Done::Grown) => e.len,
            _ => 0,
        };
        if opts.dry_run {
            return Ok(Copied {
                done,
                archive,
                added: len - from,
                zadded: 0,
            });
        }
        let path = self.dir.join(&archive);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let entry = match (&old, done) {
            (Some(e), Done::Grown) => append(&path, e, &mut log, len)?,
            _ => {
                if done == Done::Rewritten {
                    supersede(&path)?;
                }
                fresh(&path, &mut log, len)?
            }
        };
        let zadded = entry.zlen
            - old
                .as_ref()
                .filter(|_| done == Done::Grown)
                .map_or(0, |e| e.zlen);
        self.record(Entry {
            source: source.to_owned(),
            archive: archive.clone(),
            mtime_ns,
            ..entry
        })?;
        Ok(Copied {
            done,
            archive,
            added: len - from,
            zadded,
        })
    }

    /// Whether the log `log` (now `len` bytes) still starts with what its copy `e` holds: its
    /// bytes where the copy's last frame came from are that frame's. A copy longer than the
    /// manifest says (frames of a run stopped before it verified them) is cut back when the
    /// log's new bytes are appended.
    fn still_starts(&self, e: &Entry, log: &mut File, len: u64) -> anyhow::Result<bool> {
        if len < e.len {
            return Ok(false);
        }
        let path = self.dir.join(&e.archive);
        let mut copy = match File::open(&path) {
            Ok(f) => f,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(err) => return Err(err.into()),
        };
        let zlen = copy.metadata()?.len();
        if zlen < e.zlen || e.tail_at > e.zlen {
            return Ok(false);
        }
        copy.seek(SeekFrom::Start(e.tail_at))?;
        let mut tail = Vec::new();
        zstd::stream::read::Decoder::new((&copy).take(e.zlen - e.tail_at))?
            .read_to_end(&mut tail)
            .context("the copy's last frame does not decompress")?;
        let Some(at) = e.len.checked_sub(tail.len() as u64) else {
            return Ok(false);
        };
        let mut theirs = vec![0; tail.len()];
        log.seek(SeekFrom::Start(at))?;
        log.read_exact(&mut theirs)?;
        Ok(theirs == tail)
    }

    /// Counts a verified copy once it is on disk: the copies of a batch are synced together
    /// (one `syncfs` rather than one `fsync` a file), then their lines are appended to the
    /// manifest. A run stopped before leaves copies the manifest does not count, made again by
    /// the next run.
    fn record(&self, e: Entry) -> anyhow::Result<()> {
        let mut state = self.lock_state();
        state.pending.push(e);
        if state.pending.len() >= BATCH {
            self.flush(&mut state)?;
        }
        Ok(())
    }

    /// Syncs the copies of the batch and appends their lines to the manifest.
    fn flush(&self, state: &mut State) -> anyhow::Result<()> {
        if state.pending.is_empty() {
            return Ok(());
        }
        sync_copies(&self.dir, &state.pending)?;
        if state.log.is_none() {
            state.log = Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(self.dir.join(MANIFEST))?,
            );
        }
        let mut lines = Vec::new();
        for e in &state.pending {
            serde_json::to_writer(&mut lines, e)?;
            lines.push(b'\n');
        }
        if let Some(log) = &mut state.log {
            log.write_all(&lines)?;
            log.sync_data()?;
        }
        for e in std::mem::take(&mut state.pending) {
            state.entries.insert(e.source.clone(), e);
        }
        Ok(())
    }

    /// Writes the manifest anew with one line per log (sorted), replacing the appended one.
    fn compact(&self) -> anyhow::Result<()> {
        let mut state = self.lock_state();
        self.flush(&mut state)?;
        if state.log.take().is_none() {
            return Ok(());
        }
        let mut entries: Vec<&Entry> = state.entries.values().collect();
        entries.sort_by(|a, b| a.source.cmp(&b.source));
        let mut text = Vec::new();
        for e in entries {
            serde_json::to_writer(&mut text, e)?;
            text.push(b'\n');
        }
        crate::out_file::write_whole(&self.dir.join(MANIFEST), &text)?;
        Ok(())
    }
}

/// The bytes `from..to` of `log`, compressed into frames of at most [`FRAME`] bytes appended to
/// `out`: where the last frame starts (relative to `out`'s start offset `base`).
fn frames(log: &mut File, from: u64, to: u64, out: &mut File, base: u64) -> io::Result<u64> {
    log.seek(SeekFrom::Start(from))?;
    let mut buf = vec![0; FRAME];
    let (mut at, mut written, mut last) = (from, base, base);
    while at < to {
        let want = usize::try_from((to - at).min(FRAME as u64)).unwrap_or(FRAME);
        log.read_exact(&mut buf[..want])?;
        let frame = zstd::bulk::compress(&buf[..want], LEVEL)?;
        out.write_all(&frame)?;
        last = written;
        written += frame.len() as u64;
        at += want as u64;
    }
    Ok(last)
}

/// Whether the frames of `copy` from `at` to its end decompress to the bytes `from..to` of
/// `log`.
fn verify(copy: &Path, at: u64, log: &mut File, from: u64, to: u64) -> io::Result<bool> {
    let mut c = File::open(copy)?;
    c.seek(SeekFrom::Start(at))?;
    let mut decoded = zstd::stream::read::Decoder::new(c)?;
    log.seek(SeekFrom::Start(from))?;
    let mut original = log.take(to - from);
    let (mut a, mut b) = (vec![0; 1 << 16], vec![0; 1 << 16]);
    loop {
        let n = read_full(&mut decoded, &mut a)?;
        let m = read_full(&mut original, &mut b[..n.max(1)])?;
        if n != m || a[..n] != b[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// A new copy of the first `len` bytes of `log` at `path`: written beside it, verified, then
/// renamed into place.
fn fresh(path: &Path, log: &mut File, len: u64) -> anyhow::Result<Entry> {
    let (temp_path, mut temp) = crate::out_file::create_beside(path, "tmp", 0o600)?;
    let written = (|| -> anyhow::Result<Entry> {
        let tail_at = frames(log, 0, len, &mut temp, 0)?;
        if !verify(&temp_path, 0, log, 0, len)? {
            bail!("the copy does not decompress to the log (the log changed while it was copied?)");
        }
        Ok(Entry {
            source: PathBuf::new(),
            archive: PathBuf::new(),
            len,
            zlen: temp.metadata()?.len(),
            tail_at,
            mtime_ns: 0,
        })
    })();
    match written {
        Ok(e) => {
            fs::rename(&temp_path, path)?;
            Ok(e)
        }
        Err(e) => {
            let _ = fs::remove_file(&temp_path);
            Err(e)
        }
    }
}

/// The bytes of `log` past what the copy `e` holds, up to `len`, appended to the copy at `path`
/// as new frames and verified; on any failure the copy is cut back to what it was.
fn append(path: &Path, e: &Entry, log: &mut File, len: u64) -> anyhow::Result<Entry> {
    let mut copy = OpenOptions::new().write(true).open(path)?;
    // Frames past what the manifest counts were never verified: they go.
    copy.set_len(e.zlen)?;
    copy.seek(SeekFrom::Start(e.zlen))?;
    let done = (|| -> anyhow::Result<Entry> {
        let tail_at = frames(log, e.len, len, &mut copy, e.zlen)?;
        if !verify(path, e.zlen, log, e.len, len)? {
            bail!("the appended frames do not decompress to the log's new bytes");
        }
        Ok(Entry {
            len,
            zlen: copy.metadata()?.len(),
            tail_at,
            ..e.clone()
        })
    })();
    if done.is_err() {
        let _ = copy.set_len(e.zlen);
    }
    done
}

/// Puts the copies `done` (in the archive folder `dir`) on disk: one `syncfs` of the folder's
/// file system where there is one, else an `fsync` of each.
fn sync_copies(dir: &Path, done: &[Entry]) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let folder = File::open(dir)?;
        // SAFETY: the descriptor is open for the call.
        if unsafe { libc::syncfs(folder.as_raw_fd()) } == 0 {
            return Ok(());
        }
    }
    for e in done {
        File::open(dir.join(&e.archive))?.sync_all()?;
    }
    Ok(())
}

/// Keeps the copy at `path` of a log that was rewritten beside it, under a name no walk takes.
fn supersede(path: &Path) -> io::Result<()> {
    if !path.exists() {
        return Ok(());
    }
    for n in 1.. {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".superseded-{n}"));
        let kept = PathBuf::from(name);
        if !kept.exists() {
            return fs::rename(path, kept);
        }
    }
    unreachable!("some name is free")
}
