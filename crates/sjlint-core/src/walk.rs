//! Finding the inputs under a directory, as ripgrep and ruff do: `.ignore` files are honoured,
//! and `.gitignore` and `.git/info/exclude` inside a git repository (ripgrep's `require_git`;
//! `--no-ignore` honours none), hidden files and directories are skipped (unless `--hidden`),
//! and only stream
//! files are taken (`*.ndjson`, `*.jsonl`, `*.json` files that hold a stream, and their `.zst`
//! copies; under an agent's home, only its session logs: `homes`), unless
//! `--include` names other globs. `--exclude` globs leave paths out, with gitignore's syntax.
//! Below a directory that holds a configuration file, that file's globs take over, as ruff
//! lets the nearest configuration govern (reading the file is the caller's, through
//! [`Filter::nested`]).
//!
//! This module owns which files a directory stands for. It must not read more of a file than
//! the few bytes that tell a stream from another JSON document, and never opens anything that
//! is not a regular file: a FIFO or a device under a walked directory would block or never end,
//! so it is skipped with a note. (A path named explicitly is read whatever it is; that is the
//! caller's business.)

use ignore::WalkBuilder;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The globs a directory walk takes when `--include` names none (the compressed copies
/// `sjlint archive` makes among them).
pub const DEFAULT_INCLUDE: &[&str] = &[
    "*.ndjson",
    "*.jsonl",
    "*.json",
    "*.ndjson.zst",
    "*.jsonl.zst",
];

/// What a walk takes and leaves.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Globs of the files to take; empty: [`DEFAULT_INCLUDE`], with `*.json` files sniffed.
    pub include: Vec<String>,
    /// Globs (gitignore syntax) of paths to leave out.
    pub exclude: Vec<String>,
    /// The directory `include` globs with a `/` are relative to: the configuration file's that
    /// gave them. `None` (the command line's): the walked directory.
    pub include_root: Option<PathBuf>,
    /// The same for `exclude`.
    pub exclude_root: Option<PathBuf>,
    /// The filter of a directory below the walked one that holds a configuration file (given
    /// its absolute path), when such files govern the walk: its globs replace these below it.
    pub nested: Option<Nested>,
    /// `--no-ignore`: ignore files are not honoured (the exclude globs still are).
    pub no_ignore: bool,
    /// `--hidden`: hidden files and directories are walked too.
    pub hidden: bool,
}

/// The filter in force in a directory (absolute), or an error naming its configuration file.
pub type FilterOf = dyn Fn(&Path) -> Result<Filter, String> + Send + Sync;

/// [`Filter::nested`]: a directory's own filter.
#[derive(Clone)]
pub struct Nested(pub Arc<FilterOf>);

impl std::fmt::Debug for Nested {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Nested(..)")
    }
}

impl Filter {
    /// With the command line's `--no-ignore` and `--hidden`, which no configuration file sets.
    #[must_use]
    pub fn honouring(self, no_ignore: bool, hidden: bool) -> Filter {
        Filter {
            no_ignore,
            hidden,
            ..self
        }
    }

    /// The include globs in force.
    pub fn include_globs(&self) -> Vec<&str> {
        if self.include.is_empty() {
            DEFAULT_INCLUDE.to_vec()
        } else {
            self.include.iter().map(String::as_str).collect()
        }
    }

    /// Checks that every glob compiles, so a typo is a usage error before anything is read.
    /// The default globs are not compiled here: they always do, and every run of sjlint on a
    /// file would pay for it.
    pub fn validate(&self) -> Result<(), String> {
        if !self.include.is_empty() {
            self.includes()?;
        }
        self.excludes(Path::new("/")).map(|_| ())
    }

    /// The include globs, matched against a file's name and its path below its root.
    /// (Not overrides: an override's whitelist would win over `.gitignore`.)
    fn includes(&self) -> Result<globset::GlobSet, String> {
        include_set(&self.include_globs()).map_err(|e| e.naming("--include"))
    }

    /// The exclude globs, with gitignore's syntax, relative to `root` (absolute).
    fn excludes(&self, root: &Path) -> Result<Gitignore, String> {
        let globs: Vec<&str> = self.exclude.iter().map(String::as_str).collect();
        exclude_set(root, &globs).map_err(|e| e.naming("--exclude"))
    }
}

/// Most globs one list may hold (`--include`, `--exclude`, and each list of a configuration
/// file): the compiled matcher grows with their number (about 10 KB each), and a list of
/// hundreds of thousands is a generated file gone wrong, not a choice.
pub const MAX_GLOBS: usize = 10_000;

/// Why a list of globs cannot be compiled: the glob to blame (its index in the list), when one
/// is, and why.
#[derive(Debug)]
pub struct GlobError {
    pub index: Option<usize>,
    pub glob: Option<String>,
    pub why: String,
}

impl GlobError {
    /// The message, the list named `what` (`--exclude`, `exclude`).
    pub fn naming(&self, what: &str) -> String {
        match &self.glob {
            Some(glob) => format!("{what} `{}` {}", shortened(glob), self.why),
            None => format!("{what}: {}", self.why),
        }
    }

    /// The glob to blame as a message shows it: its start, when it is long.
    pub fn glob_shown(&self) -> Option<String> {
        self.glob.as_deref().map(shortened)
    }
}

/// `glob` whole, or its first 60 characters and how long it is.
fn shortened(glob: &str) -> String {
    match glob.char_indices().nth(60) {
        Some((at, _)) => format!("{}… ({} bytes)", &glob[..at], glob.len()),
        None => glob.to_owned(),
    }
}

/// The include globs `globs`, compiled into one set: each is matched against a file's name and
/// its path below its root.
pub fn include_set(globs: &[&str]) -> Result<globset::GlobSet, GlobError> {
    compile(globs, |globs| {
        let mut b = globset::GlobSetBuilder::new();
        for (i, g) in globs.iter().enumerate() {
            b.add(globset::Glob::new(g).map_err(|e| not_a_glob(i, g, &e.to_string()))?);
        }
        b.build().map_err(|e| too_complex(e.to_string()))
    })
}

/// The exclude globs `globs` (gitignore syntax), relative to `root` (absolute), compiled.
pub fn exclude_set(root: &Path, globs: &[&str]) -> Result<Gitignore, GlobError> {
    compile(globs, |globs| {
        let mut b = GitignoreBuilder::new(root);
        for (i, g) in globs.iter().enumerate() {
            b.add_line(None, g)
                .map_err(|e| not_a_glob(i, g, &glob_error(&e)))?;
        }
        b.build().map_err(|e| too_complex(glob_error(&e)))
    })
}

/// `build` over `globs`, bounded by [`MAX_GLOBS`]; a set that does not compile is built again
/// glob by glob (only then) to find the one to blame.
fn compile<T>(
    globs: &[&str],
    build: impl Fn(&[&str]) -> Result<T, GlobError>,
) -> Result<T, GlobError> {
    if globs.len() > MAX_GLOBS {
        return Err(GlobError {
            index: Some(MAX_GLOBS),
            glob: None,
            why: format!(
                "{} globs, more than the {MAX_GLOBS} one list may hold (exclude a directory \
                 rather than each file in it)",
                globs.len()
            ),
        });
    }
    build(globs).map_err(|e| {
        if e.index.is_some() {
            return e;
        }
        let blamed = (0..globs.len()).find(|&i| build(&globs[i..=i]).is_err());
        match blamed {
            Some(i) => GlobError {
                index: Some(i),
                glob: Some(globs[i].to_owned()),
                why: format!("is too complex to match: {}", e.why),
            },
            None => GlobError {
                why: format!(
                    "the {} globs together are too complex to match: {}",
                    globs.len(),
                    e.why
                ),
                ..e
            },
        }
    })
}

fn not_a_glob(index: usize, glob: &str, e: &str) -> GlobError {
    GlobError {
        index: Some(index),
        glob: Some(glob.to_owned()),
        why: format!("is not a glob: {e}"),
    }
}

fn too_complex(why: String) -> GlobError {
    GlobError {
        index: None,
        glob: None,
        why,
    }
}

/// What is wrong with a glob, without the `ignore` crate's wrapping.
fn glob_error(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Glob { err, .. } => err.clone(),
        other => other.to_string(),
    }
}

/// `path` made absolute against the current directory, with `.` and `..` folded away as
/// written (as ruff does), so that paths named either way compare equal.
pub fn normalized(path: &Path) -> PathBuf {
    // The parent of a bare file name is the empty path: the current directory.
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A filter compiled for one walk.
struct Matchers {
    excludes: Gitignore,
    includes: globset::GlobSet,
    include_root: PathBuf,
    /// Default globs: `*.json` files are taken only when they hold a stream.
    sniff_json: bool,
}

impl Matchers {
    /// `filter` compiled; globs without a root of their own are relative to `base`.
    fn new(filter: &Filter, base: &Path) -> Result<Matchers, String> {
        let exclude_root = filter.exclude_root.as_deref().unwrap_or(base);
        Ok(Matchers {
            excludes: filter.excludes(exclude_root)?,
            includes: filter.includes()?,
            include_root: filter
                .include_root
                .clone()
                .unwrap_or_else(|| base.to_path_buf()),
            sniff_json: filter.include.is_empty(),
        })
    }

    /// Whether the file at `abs` (named `path`) matches the include globs.
    fn includes(&self, abs: &Path, path: &Path) -> bool {
        let rel = abs.strip_prefix(&self.include_root).unwrap_or(abs);
        self.includes.is_match(rel) || path.file_name().is_some_and(|n| self.includes.is_match(n))
    }
}

/// The filters in force in each directory of a walk: the walked directory's, replaced below
/// a directory that holds a configuration file by that file's. Looked up once per directory.
struct Scopes {
    base: PathBuf,
    top: Arc<Matchers>,
    nested: Option<Nested>,
    cache: Mutex<HashMap<PathBuf, Arc<Matchers>>>,
    /// The first configuration file below that could not be used.
    error: Mutex<Option<String>>,
}

impl Scopes {
    /// The filter in force in the directory `dir` (absolute).
    fn of(&self, dir: &Path) -> Arc<Matchers> {
        let Some(nested) = &self.nested else {
            return self.top.clone();
        };
        if dir == self.base || !dir.starts_with(&self.base) {
            return self.top.clone();
        }
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(dir)
            .cloned();
        if let Some(m) = cached {
            return m;
        }
        let holds_config = crate::config::FILE_NAMES
            .iter()
            .any(|name| dir.join(name).is_file());
        let own = holds_config.then(|| (nested.0)(dir).and_then(|f| Matchers::new(&f, &self.base)));
        let m = match own {
            Some(Ok(m)) => Arc::new(m),
            Some(Err(e)) => {
                self.error
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(e);
                self.of(dir.parent().unwrap_or(dir))
            }
            None => self.of(dir.parent().unwrap_or(dir)),
        };
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dir.to_path_buf(), m.clone());
        m
    }
}

/// What happened to a path met during a walk that is not taken, worth telling the user.
#[derive(Debug, PartialEq, Eq)]
pub enum Note {
    /// Not a regular file (a FIFO, a socket, a device, or a symlink to one): never opened.
    NotRegular(PathBuf, &'static str),
    /// An entry that could not be read (permissions, a loop of symlinks).
    Unreadable(String),
}

/// The agent homes (of this environment) a walk of `base` meets, with their logs' globs: under
/// one, only its session logs are taken (not its prompt history, settings or caches), when no
/// `--include` says otherwise.
fn homes_around(base: &Path) -> Vec<(PathBuf, globset::GlobSet)> {
    crate::homes::from_env()
        .into_iter()
        .filter(|h| h.root.starts_with(base) || base.starts_with(&h.root))
        .map(|h| (h.set(), h.root))
        .map(|(set, root)| (root, set))
        .collect()
}

/// The stream files under `dir`, sorted by path, with notes about what was skipped.
pub fn walk(dir: &Path, filter: &Filter) -> Result<(Vec<PathBuf>, Vec<Note>), String> {
    // Globs are matched against absolute paths, so that those of a configuration file are
    // relative to its directory wherever the walk starts.
    let base = normalized(dir);
    let scopes = Arc::new(Scopes {
        top: Arc::new(Matchers::new(filter, &base)?),
        base: base.clone(),
        nested: filter.nested.clone(),
        cache: Mutex::default(),
        error: Mutex::default(),
    });
    let (walked, entries) = (dir.to_path_buf(), scopes.clone());
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let honour = !filter.no_ignore;
    let walker = WalkBuilder::new(dir)
        .hidden(!filter.hidden)
        .git_ignore(honour)
        .git_global(false)
        .git_exclude(honour)
        .ignore(honour)
        .parents(honour)
        // As ripgrep: a `.gitignore` outside a git repository is somebody's folder of
        // transcripts, not a repository's list of build products.
        .require_git(true)
        .follow_links(false)
        .filter_entry(move |entry| {
            let rel = entry.path().strip_prefix(&walked).unwrap_or(entry.path());
            let abs = entries.base.join(rel);
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let scope = entries.of(abs.parent().unwrap_or(&abs));
            !scope.excludes.matched(&abs, is_dir).is_ignore()
        })
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build();
    let homes = if scopes.top.sniff_json {
        homes_around(&base)
    } else {
        Vec::new()
    };
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                notes.push(Note::Unreadable(e.to_string()));
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            continue;
        }
        let abs = base.join(path.strip_prefix(dir).unwrap_or(path));
        let scope = scopes.of(abs.parent().unwrap_or(&abs));
        let taken = match homes.iter().find(|(root, _)| abs.starts_with(root)) {
            Some((root, logs)) => abs.strip_prefix(root).is_ok_and(|rel| logs.is_match(rel)),
            None => scope.includes(&abs, path),
        };
        if !taken {
            continue;
        }
        // A symlink is judged by what it points at; links to directories are not followed.
        let target = if kind.is_symlink() {
            match std::fs::metadata(path) {
                // Not followed; one that a glob names is handed on, to be reported unreadable.
                Ok(m) if m.is_dir() => {
                    files.push(path.to_path_buf());
                    continue;
                }
                Ok(m) => m.file_type(),
                Err(e) => {
                    notes.push(Note::Unreadable(format!("{}: {e}", path.display())));
                    continue;
                }
            }
        } else {
            kind
        };
        if !target.is_file() {
            notes.push(Note::NotRegular(path.to_path_buf(), describe(&target)));
            continue;
        }
        if scope.sniff_json && path.extension().is_some_and(|e| e == "json") && !holds_stream(path)
        {
            continue;
        }
        files.push(path.to_path_buf());
    }
    if let Some(e) = scopes
        .error
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
    {
        return Err(e);
    }
    Ok((files, notes))
}

/// What kind of file that is not a regular file `t` is, for a note.
fn describe(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    let _ = t;
    "not a regular file"
}

/// Bytes of a `*.json` file read to tell a stream from another JSON document.
const SNIFF_BYTES: usize = 64 << 10;

/// Whether the `*.json` file at `path` holds a stream: its first line is one JSON object with a
/// `type` or `payload` key (an event of any dialect, or the one result object of
/// `--output-format json`). A `package.json`, pretty-printed over lines, is not one. A file that
/// cannot be read is taken, so that the error is reported rather than the file left out.
fn holds_stream(path: &Path) -> bool {
    let mut head = Vec::with_capacity(4096);
    match File::open(path).and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut head)) {
        Ok(_) => looks_like_stream(&head),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(_) => true,
    }
}

/// `holds_stream` on the first bytes of a file.
pub fn looks_like_stream(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let rest = &head[start..];
    if rest.first() != Some(&b'{') {
        return false;
    }
    let line = match memchr::memchr(b'\n', rest) {
        Some(end) => &rest[..end],
        // A first line longer than what was read: a large event, most likely.
        None if head.len() >= SNIFF_BYTES => return rest.starts_with(b"{\""),
        None => rest,
    };
    match serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line) {
        Ok(object) => object.contains_key("type") || object.contains_key("payload"),
        // One record with a raw control character in a string is still a stream's record.
        Err(_) => line.windows(7).any(|w| w == b"\"type\":"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_told_from_other_json() {
        assert!(looks_like_stream(
            b"{\"type\":\"system\",\"subtype\":\"init\"}\n{}"
        ));
        assert!(looks_like_stream(b"\xEF\xBB\xBF {\"type\":\"result\"}"));
        assert!(looks_like_stream(b"{\"payload\":{\"type\":\"user\"}}\n"));
        assert!(!looks_like_stream(
            b"{\n  \"name\": \"x\",\n  \"type\": \"module\"\n}\n"
        ));
        assert!(!looks_like_stream(
            b"{\"name\":\"x\",\"version\":\"1.0.0\"}"
        ));
        assert!(!looks_like_stream(b"[1,2,3]"));
        assert!(!looks_like_stream(b""));
    }

    #[test]
    fn bad_globs_are_usage_errors() {
        let f = Filter {
            include: vec!["a[".into()],
            ..Filter::default()
        };
        assert!(f.validate().unwrap_err().contains("--include `a[`"));
        let f = Filter {
            exclude: vec!["a{".into()],
            ..Filter::default()
        };
        let e = f.validate().unwrap_err();
        assert!(
            e.starts_with("--exclude `a{` is not a glob: ") && !e.contains("!a{"),
            "{e}"
        );
    }

    #[test]
    fn paths_are_normalized_as_written() {
        assert_eq!(normalized(Path::new("/a/b/../c/./d")), Path::new("/a/c/d"));
        assert_eq!(normalized(Path::new("/a/b/..")), Path::new("/a"));
        assert_eq!(normalized(Path::new("")), normalized(Path::new(".")));
    }
}
