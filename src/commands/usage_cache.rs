//! The ledger's cache: each file's rows, kept between runs of `sjlint usage` under the user's
//! cache folder (`$XDG_CACHE_HOME/sjlint/usage.json`, else `~/.cache/sjlint/usage.json`), so that
//! a second run over an unchanged history reads no log again.
//!
//! A file's rows are used again only when its path, size and modification time are those they
//! were counted from, and when everything else they depend on is too (the cache's format, the
//! time zone, the price list, the reading options: [`Cache::open`]'s `settings`); anything else
//! reads the file anew. A cache that cannot be read is no cache; one that cannot be written is
//! said once and the ledger is printed all the same. This module owns that file; it must not
//! count anything.

use jiff::civil::Date;
use serde_json::{Value, json};
use sjlint_core::vocab::Tokens;
use sjlint_outputs::usage::{Entries, Key, Spent};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The cache's format: a change to what a row holds or how it is counted bumps it.
const FORMAT: u32 = 1;

/// What a file was when its rows were counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Stamp {
    size: u64,
    modified_ns: u128,
}

impl Stamp {
    pub(super) fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        let modified_ns = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos();
        Some(Stamp {
            size: m.len(),
            modified_ns,
        })
    }
}

/// The cache of one run: what was kept, and what this run counted.
pub(super) struct Cache {
    file: PathBuf,
    settings: String,
    kept: HashMap<PathBuf, (Stamp, Value)>,
    counted: Mutex<Vec<(PathBuf, Stamp, Value)>>,
}

impl Cache {
    /// The cache folder's file, when the environment names a place for it.
    pub(super) fn default_file() -> Option<PathBuf> {
        let var = |n: &str| {
            std::env::var_os(n)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dir = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?;
        Some(dir.join("sjlint").join("usage.json"))
    }

    /// The cache kept in `file`, for rows counted under `settings` (what else they depend on,
    /// said as text); empty when there is none, or it was counted otherwise.
    pub(super) fn open(file: PathBuf, settings: String) -> Cache {
        let kept = std::fs::read(&file)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .filter(|doc| doc["format"] == FORMAT && doc["settings"] == settings.as_str())
            .map(|doc| load(&doc))
            .unwrap_or_default();
        Cache {
            file,
            settings,
            kept,
            counted: Mutex::new(Vec::new()),
        }
    }

    /// The rows of `path` as counted before, if it has not changed since.
    pub(super) fn get(&self, path: &Path) -> Option<Entries> {
        let (stamp, rows) = self.kept.get(path)?;
        if Stamp::of(path)? != *stamp {
            return None;
        }
        entries(rows)
    }

    /// The rows of `path`, counted now from what `stamp` says it was before reading.
    pub(super) fn put(&self, path: &Path, stamp: Stamp, e: &Entries) {
        self.counted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((path.to_owned(), stamp, rows(e)));
    }

    /// Writes the cache: what this run counted, and what was kept of files still there.
    /// Whether it changed anything.
    pub(super) fn save(self) -> std::io::Result<bool> {
        let counted = self
            .counted
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if counted.is_empty() {
            return Ok(false);
        }
        let mut files = serde_json::Map::new();
        for (path, (stamp, rows)) in self.kept {
            if path.exists() {
                files.insert(path.display().to_string(), file_json(stamp, rows));
            }
        }
        for (path, stamp, rows) in counted {
            files.insert(path.display().to_string(), file_json(stamp, rows));
        }
        let doc = json!({"format": FORMAT, "settings": self.settings, "files": files});
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Written beside, then renamed over: a run stopped part way leaves the old cache whole.
        let tmp = self
            .file
            .with_extension(format!("json.{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec(&doc)?)?;
        std::fs::rename(&tmp, &self.file)?;
        Ok(true)
    }
}

fn file_json(stamp: Stamp, rows: Value) -> Value {
    json!({"size": stamp.size, "modified_ns": stamp.modified_ns.to_string(), "rows": rows})
}

fn load(doc: &Value) -> HashMap<PathBuf, (Stamp, Value)> {
    let mut kept = HashMap::new();
    for (path, f) in doc["files"].as_object().into_iter().flatten() {
        let (Some(size), Some(modified_ns)) = (
            f["size"].as_u64(),
            f["modified_ns"].as_str().and_then(|s| s.parse().ok()),
        ) else {
            continue;
        };
        kept.insert(
            PathBuf::from(path),
            (Stamp { size, modified_ns }, f["rows"].clone()),
        );
    }
    kept
}

/// A file's rows as the cache keeps them: one array per row.
fn rows(e: &Entries) -> Value {
    let rows: Vec<Value> = e
        .rows
        .iter()
        .map(|(k, s)| {
            let t = &s.tokens;
            json!([
                k.day.to_string(),
                k.agent,
                &*k.project,
                &*k.session,
                &*k.model,
                [t.input, t.output, t.cache_read, t.cache_write, t.reasoning],
                s.cost,
                s.priced,
                s.unpriced
            ])
        })
        .collect();
    let disagree: Vec<Value> = e
        .disagree
        .iter()
        .map(|(own, listed, session)| json!([own, listed, &**session]))
        .collect();
    json!({"rows": rows, "disagree": disagree})
}

/// The rows [`rows`] kept, if they read back whole.
fn entries(v: &Value) -> Option<Entries> {
    let mut e = Entries::default();
    for r in v["rows"].as_array()? {
        let n = |i: usize| r[5][i].as_u64();
        let key = Key {
            day: r[0].as_str()?.parse::<Date>().ok()?,
            agent: agent_name(r[1].as_str()?)?,
            project: r[2].as_str()?.into(),
            session: r[3].as_str()?.into(),
            model: r[4].as_str()?.into(),
        };
        let spent = Spent {
            tokens: Tokens {
                input: n(0)?,
                output: n(1)?,
                cache_read: n(2)?,
                cache_write: n(3)?,
                reasoning: n(4)?,
            },
            cost: r[6].as_f64()?,
            priced: r[7].as_bool()?,
            unpriced: r[8].as_bool()?,
        };
        e.rows.insert(key, spent);
    }
    for d in v["disagree"].as_array()? {
        e.disagree
            .push((d[0].as_f64()?, d[1].as_f64()?, d[2].as_str()?.into()));
    }
    Some(e)
}

/// The agent's name as the registry spells it (the ledger's keys hold the registry's own text).
fn agent_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("");
    }
    sjlint_core::agents::REGISTRY
        .iter()
        .map(|e| e.agent.as_str())
        .find(|a| *a == name)
}
