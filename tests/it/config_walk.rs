//! Configuration files and directory walks as users met them (issue 20, "Nothing lost,
//! nothing hung"), through the real binary: another tool's section of `pyproject.toml` never
//! fails a check, a selection that turns every rule off says so, lists of globs are bounded and
//! a glob too complex to match names its file and line, and a folder that `.gitignore` lists
//! can be checked (`.gitignore` counts only inside a git repository; `--no-ignore`, `--hidden`).

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory outside any git repository (the system's temporary directory), removed
/// when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sjlint-cw-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `sjlint ARGS` run in this directory.
    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = sjlint();
        cmd.current_dir(&self.0).args(args);
        run_cmd(cmd, None)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A stream with one `orphan-completion` error (and nothing else of severity error).
fn orphan() -> String {
    std::fs::read_to_string(testdata("rules/orphan-completion/fails.ndjson")).unwrap()
}

/// The files a `--format json` run's findings name, relative to `dir`, sorted and deduplicated.
fn files_found(run: &Run, dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = run
        .findings()
        .iter()
        .map(|f| {
            let p = Path::new(&f.file);
            p.strip_prefix(dir)
                .or_else(|_| p.strip_prefix("."))
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

// ------------------------------------------------------------------------------------------
// 1. pyproject.toml: only [tool.sjlint] is sjlint's.

#[test]
fn another_tools_section_of_pyproject_toml_never_fails_a_check() {
    let dir = Scratch::new("pyproject");
    dir.write("a.ndjson", &orphan());
    for (what, pyproject) in [
        ("`tool` that is not a table", "tool = \"oops\"\n"),
        (
            "`tool` that is an array",
            "[project]\nname = \"x\"\ntool = 1\n[[tool]]\nx = 1\n",
        ),
        (
            "[tool.black] that TOML rejects",
            "[tool.black]\nline-length = 88\nline-length = 99\n",
        ),
        (
            "[tool.black] of any shape",
            "[tool.black]\nx = { a = [1, \"b\", { c = true }] }\n",
        ),
    ] {
        dir.write("pyproject.toml", pyproject);
        let run = dir.run(&["check", "--format", "json", "a.ndjson"]);
        assert_eq!(run.code, 1, "{what}: {}", run.describe());
        assert!(
            run.findings().iter().any(|f| f.rule == "orphan-completion"),
            "{what}: {}",
            run.describe()
        );
        assert!(
            !run.stderr().contains("pyproject"),
            "{what}: {}",
            run.describe()
        );
    }
    // Beside other tools' sections, sjlint's own table is read, and strictly.
    dir.write(
        "pyproject.toml",
        "tool.black = 1\n[tool.sjlint]\nselect = [\"invalid-jsn\"]\n",
    );
    let run = dir.run(&["check", "a.ndjson"]);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .starts_with("sjlint: pyproject.toml:3: unknown rule or group `invalid-jsn`"),
        "{}",
        run.describe()
    );
    dir.write(
        "pyproject.toml",
        "[tool.black]\nx = 1\n[tool.sjlint]\nselect = [\"invalid-json\"]\n",
    );
    let run = dir.run(&["check", "a.ndjson"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    dir.write(
        "pyproject.toml",
        "[tool.sjlint]\nselect = [\"invalid-json\"\n",
    );
    let run = dir.run(&["check", "a.ndjson"]);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().starts_with("sjlint: pyproject.toml:"),
        "{}",
        run.describe()
    );
}

// ------------------------------------------------------------------------------------------
// 2. A selection that turns every rule off says so.

#[test]
fn select_nothing_in_a_parent_configuration_is_said_before_no_problems_found() {
    let dir = Scratch::new("select-none");
    dir.write(
        "sjlint.toml",
        "# the team's settings\n# (someone emptied the list)\nselect = []\n",
    );
    dir.write("runs/a.ndjson", &orphan());
    let run = dir.run(&["check", "runs/a.ndjson"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stderr().contains(
            "sjlint: warning: sjlint.toml:3: `select = []` turns every rule off; nothing is checked"
        ),
        "{}",
        run.describe()
    );
    // A selection that turns some rules on says nothing.
    dir.write("sjlint.toml", "select = [\"orphan-completion\"]\n");
    let run = dir.run(&["check", "runs/a.ndjson"]);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(!run.stderr().contains("warning"), "{}", run.describe());
    // Nor does the command line's selection over an empty one.
    dir.write("sjlint.toml", "select = []\n");
    let run = dir.run(&["check", "--select", "orphan-completion", "runs/a.ndjson"]);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(!run.stderr().contains("warning"), "{}", run.describe());
    // The command line alone can turn every rule off too.
    let run = dir.run(&["check", "--isolated", "--ignore", "all", "runs/a.ndjson"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("turn every rule off; nothing is checked"),
        "{}",
        run.describe()
    );
}

// ------------------------------------------------------------------------------------------
// 3. Globs: bounded in number, and build errors name their file and line.

#[test]
fn too_many_globs_in_a_configuration_is_an_error_at_the_first_one_too_many() {
    let dir = Scratch::new("many-globs");
    dir.write("a.ndjson", &orphan());
    let mut toml = String::from("exclude = [\n");
    for i in 0..10_001 {
        toml.push_str(&format!("  \"dir{i}/**/*.ndjson\",\n"));
    }
    toml.push_str("]\n");
    dir.write("sjlint.toml", &toml);
    let run = dir.run(&["check", "."]);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().starts_with(
            "sjlint: sjlint.toml:10002: exclude: 10001 globs, more than the 10000 one list may hold"
        ),
        "{}",
        run.describe()
    );
    // 10,000 are taken.
    toml.truncate(toml.rfind("  \"dir10000").unwrap());
    toml.push_str("]\n");
    dir.write("sjlint.toml", &toml);
    let run = dir.run(&["check", "--format", "json", "."]);
    assert_eq!(run.code, 1, "{}", run.describe());
}

#[test]
fn a_glob_too_complex_to_match_names_its_file_and_line() {
    let dir = Scratch::new("complex-glob");
    dir.write("a.ndjson", &orphan());
    let glob = "[^a]".repeat(200_000);
    dir.write(
        "sjlint.toml",
        &format!("include = [\"*.ndjson\"]\nexclude = [\n  \"old/\",\n  \"{glob}\",\n]\n"),
    );
    let run = dir.run(&["check", "."]);
    assert_eq!(run.code, 2, "{}", run.describe());
    let stderr = run.stderr();
    assert!(
        stderr.starts_with("sjlint: sjlint.toml:4: exclude `[^a][^a]")
            && stderr.contains("… (800000 bytes)` is too complex to match: "),
        "{stderr}"
    );
    // The whole glob is not echoed back.
    assert!(stderr.len() < 400, "{stderr}");
}

// ------------------------------------------------------------------------------------------
// 4. Ignore files: .gitignore only inside a git repository; --no-ignore; --hidden.

#[test]
fn a_folder_that_gitignore_lists_is_checked_outside_a_git_repository() {
    let dir = Scratch::new("gitignored");
    dir.write(".gitignore", "transcripts/\n*.log\n");
    dir.write("transcripts/a.ndjson", &orphan());
    let run = dir.run(&["check", "--format", "json", "."]);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(files_found(&run, &dir.0), ["transcripts/a.ndjson"]);
}

#[test]
fn inside_a_git_repository_no_ignore_takes_what_gitignore_lists() {
    let dir = Scratch::new("repo");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir.0)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        eprintln!("skipped: git is not available");
        return;
    }
    dir.write(".gitignore", "transcripts/\n");
    dir.write(".ignore", "scratch/\n");
    dir.write("transcripts/a.ndjson", &orphan());
    dir.write("scratch/b.ndjson", &orphan());
    dir.write(".hidden/c.ndjson", &orphan());
    dir.write("d.ndjson", &orphan());

    let run = dir.run(&["check", "--format", "json", "."]);
    assert_eq!(
        files_found(&run, &dir.0),
        ["d.ndjson"],
        "{}",
        run.describe()
    );
    let run = dir.run(&["check", "--format", "json", "--no-ignore", "."]);
    assert_eq!(
        files_found(&run, &dir.0),
        ["d.ndjson", "scratch/b.ndjson", "transcripts/a.ndjson"],
        "{}",
        run.describe()
    );
    let run = dir.run(&["check", "--format", "json", "--hidden", "."]);
    assert_eq!(
        files_found(&run, &dir.0),
        [".hidden/c.ndjson", "d.ndjson"],
        "{}",
        run.describe()
    );
    // `--exclude` still holds under --no-ignore.
    let args = [
        "check",
        "--format",
        "json",
        "--no-ignore",
        "--exclude",
        "scratch/",
        ".",
    ];
    let run = dir.run(&args);
    assert_eq!(
        files_found(&run, &dir.0),
        ["d.ndjson", "transcripts/a.ndjson"],
        "{}",
        run.describe()
    );
    // A folder with nothing but ignored files points at the flags.
    dir.write("logs/.gitignore", "*.ndjson\n");
    dir.write("logs/e.ndjson", &orphan());
    let run = dir.run(&["check", "logs"]);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stderr().contains("--no-ignore"), "{}", run.describe());
    // The help says so too, for every command that walks.
    for command in ["check", "fmt", "stats", "render"] {
        let help = dir.run(&[command, "--help"]).stdout();
        assert!(
            help.contains("--no-ignore") && help.contains("--hidden"),
            "{command}: {help}"
        );
    }
}
