//! Agent homes: where each agent keeps the session logs it writes on disk, found from the
//! environment as the agent itself finds them (`HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
//! `COPILOT_HOME`, `GEMINI_CLI_HOME`, `PI_CODING_AGENT_DIR`, `KIMI_SHARE_DIR`, `KIMI_CODE_HOME`,
//! `XDG_CONFIG_HOME`, `XDG_DATA_HOME`), and which files under a home are its logs.
//!
//! This module owns those places and patterns, per agent, from the format notes of each agent's
//! logs; it is the one list `sjlint archive` (and what else reads the homes) consults. It must not
//! read the logs, nor decide anything about their contents: a home names files, by path.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One place an agent keeps its logs: a root folder, and the globs (relative to it, `/`
/// separated) of the files that are its logs or their sidecars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Home {
    /// The agent's name, as the registry names it (`claude`, `codex`, …).
    pub agent: &'static str,
    /// The folder the globs start from.
    pub root: PathBuf,
    /// Which files under `root` are logs (or the small files a log is read with: a subagent's
    /// `.meta.json`, droid's `.settings.json`, Kimi's `state.json`).
    pub files: &'static [&'static str],
}

/// The logs of Claude Code: the main transcripts, their `subagents/` (and workflows under them),
/// and the subagents' `.meta.json`.
const CLAUDE: &[&str] = &["projects/**/*.jsonl", "projects/**/*.meta.json"];
/// Codex rollouts: dated under `sessions/`, flat under `archived_sessions/`.
const CODEX: &[&str] = &[
    "sessions/*/*/*/rollout-*.jsonl",
    "archived_sessions/rollout-*.jsonl",
];
/// Copilot CLI: `session-state/<id>/events.jsonl`, and the flat `<id>.jsonl` of 0.0.4xx.
const COPILOT: &[&str] = &["session-state/*/events.jsonl", "session-state/*.jsonl"];
/// Gemini CLI chats: `.json` documents before v0.39.0, `.jsonl` after, subagents' below.
const GEMINI: &[&str] = &["tmp/*/chats/**/*.jsonl", "tmp/*/chats/**/*.json"];
/// Qwen Code chats.
const QWEN: &[&str] = &["projects/*/chats/**/*.jsonl"];
/// cursor-agent's transcripts (JSONL, with `subagents/`; the legacy text ones too).
const CURSOR: &[&str] = &[
    "projects/*/agent-transcripts/**/*.jsonl",
    "projects/*/agent-transcripts/**/*.txt",
];
/// Pi sessions, one file each.
const PI: &[&str] = &["sessions/**/*.jsonl"];
/// kimi-cli sessions: the wire and context logs and the state beside them.
const KIMI: &[&str] = &[
    "sessions/**/wire.jsonl",
    "sessions/**/context.jsonl",
    "sessions/**/state.json",
];
/// droid sessions and the settings file that holds their token totals.
const DROID: &[&str] = &["sessions/**/*.jsonl", "sessions/**/*.settings.json"];
/// OpenCode's JSON storage tree (its database is not a file to copy while it is open).
const OPENCODE: &[&str] = &["storage/**/*.json"];

/// The homes the environment `env` names (a variable's value, or `None` when it is unset or
/// empty), in a fixed order; a home is listed whether or not it exists.
pub fn homes(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<Home> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let Some(home) = var("HOME") else {
        return Vec::new();
    };
    let dot = |name: &str| home.join(name);
    let mut out = Vec::new();
    let mut add = |agent, root: PathBuf, files| {
        let h = Home { agent, root, files };
        if !out.contains(&h) {
            out.push(h);
        }
    };
    // Claude Code: the folders `CLAUDE_CONFIG_DIR` lists (comma separated), else its two
    // defaults.
    match env("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(list) => {
            for dir in list.to_string_lossy().split(',').map(str::trim) {
                if !dir.is_empty() {
                    add("claude", PathBuf::from(dir), CLAUDE);
                }
            }
        }
        None => {
            add("claude", dot(".claude"), CLAUDE);
            let config = var("XDG_CONFIG_HOME").unwrap_or_else(|| dot(".config"));
            add("claude", config.join("claude"), CLAUDE);
        }
    }
    add(
        "codex",
        var("CODEX_HOME").unwrap_or_else(|| dot(".codex")),
        CODEX,
    );
    let copilot = var("COPILOT_HOME").unwrap_or_else(|| dot(".copilot"));
    add("copilot", copilot, COPILOT);
    let gemini = var("GEMINI_CLI_HOME").unwrap_or_else(|| home.clone());
    add("gemini", gemini.join(".gemini"), GEMINI);
    add("qwen", dot(".qwen"), QWEN);
    add("cursor", dot(".cursor"), CURSOR);
    let pi = var("PI_CODING_AGENT_DIR").unwrap_or_else(|| dot(".pi").join("agent"));
    add("pi", pi, PI);
    add(
        "kimi",
        var("KIMI_SHARE_DIR").unwrap_or_else(|| dot(".kimi")),
        KIMI,
    );
    let kimi_code = var("KIMI_CODE_HOME").unwrap_or_else(|| dot(".kimi-code"));
    add(
        "kimi",
        kimi_code,
        &["sessions/**/*.jsonl", "sessions/**/state.json"],
    );
    add("droid", dot(".factory"), DROID);
    let data = var("XDG_DATA_HOME").unwrap_or_else(|| dot(".local").join("share"));
    add("opencode", data.join("opencode"), OPENCODE);
    out
}

/// The homes of this process's environment.
pub fn from_env() -> Vec<Home> {
    homes(&|name| std::env::var_os(name))
}

impl Home {
    /// The log files under this home, sorted, each once; a home that is not there has none.
    /// Links are not followed (a link inside a home may lead anywhere). An unreadable folder
    /// inside is passed over and said in the returned notes.
    pub fn files(&self) -> (Vec<PathBuf>, Vec<String>) {
        let mut notes = Vec::new();
        if !self.root.is_dir() {
            return (Vec::new(), notes);
        }
        let set = self.set();
        let mut found = Vec::new();
        let walker = ignore::WalkBuilder::new(&self.root)
            .standard_filters(false)
            .follow_links(false)
            .build();
        for entry in walker {
            match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                    let rel = e.path().strip_prefix(&self.root).unwrap_or(e.path());
                    if set.is_match(rel) {
                        found.push(e.into_path());
                    }
                }
                Ok(_) => {}
                Err(e) => notes.push(e.to_string()),
            }
        }
        found.sort();
        found.dedup();
        (found, notes)
    }

    /// Whether `path` (under this home's root) is one of its log files.
    pub fn holds(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        self.set().is_match(rel)
    }

    /// The home's globs, compiled (`*` stays within a folder, `**` crosses them), to match
    /// paths relative to its root.
    pub fn set(&self) -> globset::GlobSet {
        let mut b = globset::GlobSetBuilder::new();
        for g in self.files {
            // The globs are this module's own, and tested to compile.
            if let Ok(g) = globset::GlobBuilder::new(g).literal_separator(true).build() {
                b.add(g);
            }
        }
        b.build().unwrap_or_else(|_| globset::GlobSet::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn each_agents_variable_moves_its_home() {
        let defaults = homes(&env(&[("HOME", "/h")]));
        let root = |hs: &[Home], agent| {
            hs.iter()
                .filter(|h| h.agent == agent)
                .map(|h| h.root.display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            root(&defaults, "claude"),
            ["/h/.claude", "/h/.config/claude"]
        );
        assert_eq!(root(&defaults, "codex"), ["/h/.codex"]);
        assert_eq!(root(&defaults, "pi"), ["/h/.pi/agent"]);
        assert_eq!(root(&defaults, "opencode"), ["/h/.local/share/opencode"]);
        let moved = homes(&env(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/a, /b"),
            ("CODEX_HOME", "/c"),
            ("COPILOT_HOME", "/p"),
            ("GEMINI_CLI_HOME", "/g"),
            ("XDG_DATA_HOME", "/d"),
        ]));
        assert_eq!(root(&moved, "claude"), ["/a", "/b"]);
        assert_eq!(root(&moved, "codex"), ["/c"]);
        assert_eq!(root(&moved, "copilot"), ["/p"]);
        assert_eq!(root(&moved, "gemini"), ["/g/.gemini"]);
        assert_eq!(root(&moved, "opencode"), ["/d/opencode"]);
        assert!(homes(&env(&[])).is_empty(), "no HOME, no default home");
    }

    #[test]
    fn a_homes_logs_are_its_patterns_files_only() {
        let codex = Home {
            agent: "codex",
            root: PathBuf::from("/c"),
            files: CODEX,
        };
        assert!(codex.holds(Path::new(
            "/c/sessions/2026/11/28/rollout-2026-11-28T10-00-00-x.jsonl"
        )));
        assert!(codex.holds(Path::new("/c/archived_sessions/rollout-x.jsonl")));
        assert!(!codex.holds(Path::new("/c/history.jsonl")));
        assert!(!codex.holds(Path::new("/c/sessions/2026/rollout-x.jsonl")));
        let claude = Home {
            agent: "claude",
            root: PathBuf::from("/k"),
            files: CLAUDE,
        };
        assert!(claude.holds(Path::new("/k/projects/-w/0a1b/subagents/agent-a1.jsonl")));
        assert!(claude.holds(Path::new(
            "/k/projects/-w/0a1b/subagents/agent-a1.meta.json"
        )));
        assert!(!claude.holds(Path::new("/k/history.jsonl")));
        assert!(!claude.holds(Path::new("/k/todos/x.json")));
    }
}
