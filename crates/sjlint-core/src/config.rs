//! Configuration files: `sjlint.toml`, `.sjlint.toml`, or `[tool.sjlint]` in `pyproject.toml`,
//! found by walking up from each input as ruff finds its own, and the settings they resolve to
//! together with the command line.
//!
//! ```toml
//! select = ["all"]                       # rules or groups; the default is every rule but the
//!                                        # opt-in `unknown-field`
//! ignore = ["blank-line"]                # left out of the selection
//! include = ["*.ndjson", "*.log"]        # what a directory walk takes
//! exclude = ["archive/"]                 # what it leaves out (gitignore syntax)
//!
//! [severity]                             # a rule's or group's severity: error|warning|info|off
//! unknown-event-type = "error"
//!
//! [per-file-ignores]                     # glob (relative to the file's directory) = rules
//! "legacy/*.ndjson" = ["missing-init"]
//! ```
//!
//! A key, rule or level sjlint does not know is an error that names the file and the line, and
//! so is a glob that does not compile and a list of more than 10,000. A `pyproject.toml` counts
//! only when it holds `[tool.sjlint]`; nothing else in it is looked at. Settings that turn every
//! rule off carry a warning for the caller to say. The
//! command line goes over the file: `--select` replaces its selection, `--ignore` adds to its
//! ignores, `--severity` goes over its severities, `--include` and `--exclude` replace its globs.
//! The file's globs (and its per-file ignores) are relative to its directory, wherever a walk
//! starts; the command line's to the directory walked.
//! `--config PATH` takes one file for every input; `--isolated` takes none.
//!
//! This module owns reading and resolving settings. It must not read inputs or print findings:
//! the caller applies [`Settings`] to what the checker reports.

use crate::diagnostic::Diagnostic;
use crate::rules::{Group, RULES, Rule, RuleSet, Severity};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The names sjlint looks for in each directory, first match wins.
pub const FILE_NAMES: [&str; 3] = ["sjlint.toml", ".sjlint.toml", "pyproject.toml"];

/// One configuration file's settings, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileSettings {
    select: Option<Spanned<Vec<Spanned<String>>>>,
    ignore: Option<Vec<Spanned<String>>>,
    include: Option<Vec<Spanned<String>>>,
    exclude: Option<Vec<Spanned<String>>>,
    severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    per_file_ignores: Option<BTreeMap<Spanned<String>, Vec<Spanned<String>>>>,
}

/// A severity override: a level, or `off` (the rule is not run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "off" => Level::Off,
            "info" => Level::On(Severity::Info),
            "warning" | "warn" => Level::On(Severity::Warning),
            "error" => Level::On(Severity::Error),
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::On(s) => s.as_str(),
        }
    }
}

/// The rules a name stands for: a rule, a group, or `all`.
pub fn rules_named(name: &str) -> Option<Vec<Rule>> {
    if name == "all" {
        return Some(Rule::all().collect());
    }
    if let Some(rule) = Rule::from_name(name) {
        return Some(vec![rule]);
    }
    let group = Group::ALL.iter().find(|g| g.as_str() == name)?;
    Some(
        RULES
            .iter()
            .filter(|r| r.group == *group)
            .map(|r| r.rule)
            .collect(),
    )
}

/// "unknown rule or group `x`; did you mean `y`?"
pub fn unknown_name(name: &str) -> String {
    let mut msg = format!("unknown rule or group `{name}`");
    if let Some(near) = closest_name(name) {
        msg.push_str(&format!("; did you mean `{near}`?"));
    }
    msg.push_str(" (`sjlint rules` lists them)");
    msg
}

/// The rule or group name nearest to `name`, when it is close enough to be a typo. A name is
/// also compared with its leading words (`unfinished`, `unfinished-tool` of
/// `unfinished-tool-call`), so that a misspelt first word finds the rule it begins.
pub fn closest_name(name: &str) -> Option<&'static str> {
    RULES
        .iter()
        .map(|r| r.name)
        .chain(Group::ALL.iter().map(|g| g.as_str()))
        .filter_map(|n| {
            let prefixes = n.match_indices('-').map(|(i, _)| &n[..i]);
            prefixes
                .chain([n])
                .map(|p| (edit_distance(name, p), p.len()))
                .filter(|&(d, len)| d <= 3.min(len / 2).max(1))
                .map(|(d, _)| d)
                .min()
                .map(|d| (d, edit_distance(name, n), n))
        })
        .min()
        .map(|(_, _, n)| n)
}

/// Levenshtein distance, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `RULE=LEVEL` of `--severity`.
pub fn parse_severity_arg(s: &str) -> Result<(String, Level), String> {
    let (name, level) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected RULE=LEVEL (e.g. unknown-event-type=error)"))?;
    let (name, level) = (name.trim(), level.trim());
    rules_named(name).ok_or_else(|| unknown_name(name))?;
    let level = Level::parse(level)
        .ok_or_else(|| format!("`{level}` is not a level (error, warning, info or off)"))?;
    Ok((name.to_owned(), level))
}

/// What the command line says about rules, laid over a configuration file.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub severity: Vec<(String, Level)>,
    /// `--strict-schema`: `unknown-field` is on whatever the selection.
    pub strict_schema: bool,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

/// Per-file ignores: a glob and the rules it leaves out.
#[derive(Clone, Debug)]
pub struct PerFile {
    pub glob: String,
    matcher: globset::GlobSet,
    pub rules: RuleSet,
}

/// The settings in force for the inputs under one configuration (or none).
#[derive(Clone, Debug)]
pub struct Settings {
    /// The file they come from, if any.
    pub source: Option<PathBuf>,
    /// The directory globs of `per-file-ignores` are relative to.
    pub root: PathBuf,
    pub enabled: RuleSet,
    /// Per rule (indexed by its discriminant), the severity set over its default.
    pub severity: Vec<Option<Severity>>,
    pub per_file: Vec<PerFile>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// The directory `include` is relative to when the configuration file gave it (`None`: the
    /// command line's or the default, relative to the walked directory).
    pub include_root: Option<PathBuf>,
    /// The same for `exclude`.
    pub exclude_root: Option<PathBuf>,
    /// What the user should hear about these settings before anything is checked (every rule
    /// turned off), naming the file and line that did it.
    pub warning: Option<String>,
}

impl Settings {
    /// The defaults, with the command line laid over them.
    pub fn defaults(cli: &Overrides) -> Settings {
        Settings::resolve(None, Path::new("."), FileSettings::default(), "", cli)
            .expect("the command line was validated when it was parsed")
    }

    /// What a directory walk under these settings takes and leaves.
    pub fn filter(&self) -> crate::walk::Filter {
        crate::walk::Filter {
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            include_root: self.include_root.clone(),
            exclude_root: self.exclude_root.clone(),
            ..crate::walk::Filter::default()
        }
    }

    /// The severity of `rule`'s findings.
    pub fn severity_of(&self, rule: Rule) -> Severity {
        self.severity
            .get(rule as usize)
            .copied()
            .flatten()
            .unwrap_or(rule.severity())
    }

    /// The severity `d` is reported with: its rule's when the settings set one, else the one
    /// the checker gave it (the rule's default, or less where the checker knows the stream
    /// allows it: the calls a cancelled Grok Build run or an aborted Copilot CLI run leaves open).
    pub fn severity_for(&self, d: &Diagnostic) -> Severity {
        graded_severity(&self.severity, d)
    }

    /// `d` as it is reported in the input at `path`: `None` when its rule is off there,
    /// otherwise with the severity these settings give it ([`Settings::severity_for`]), borrowed
    /// when that is the one it has. Every command grades its findings here.
    pub fn grade<'d>(&self, d: &'d Diagnostic, path: &Path) -> Option<Cow<'d, Diagnostic>> {
        if !self.reports(d.rule, path) {
            return None;
        }
        let severity = self.severity_for(d);
        Some(if severity == d.severity {
            Cow::Borrowed(d)
        } else {
            Cow::Owned(Diagnostic {
                severity,
                ..d.clone()
            })
        })
    }

    /// Whether a finding of `rule` in the input at `path` is reported.
    pub fn reports(&self, rule: Rule, path: &Path) -> bool {
        if !self.enabled.contains(rule) {
            return false;
        }
        if self.per_file.is_empty() {
            return true;
        }
        // Cold: only for findings, only with per-file ignores. Neither path is looked up on
        // disk, so a name given to standard input matches too.
        let abs = crate::walk::normalized(path);
        let rel = abs.strip_prefix(&self.root).unwrap_or(path);
        !self.per_file.iter().any(|p| {
            p.rules.contains(rule) && (p.matcher.is_match(rel) || p.matcher.is_match(path))
        })
    }

    fn resolve(
        source: Option<PathBuf>,
        root: &Path,
        file: FileSettings,
        text: &str,
        cli: &Overrides,
    ) -> Result<Settings, String> {
        let at = |span: std::ops::Range<usize>, msg: String| match &source {
            Some(p) => format!("{}:{}: {msg}", p.display(), line_of(text, span.start)),
            None => msg,
        };
        let names = |list: &[Spanned<String>]| -> Result<Vec<Rule>, String> {
            let mut rules = Vec::new();
            for item in list {
                match rules_named(item.get_ref()) {
                    Some(r) => rules.extend(r),
                    None => return Err(at(item.span(), unknown_name(item.get_ref()))),
                }
            }
            Ok(rules)
        };
        let cli_names = |list: &[String]| -> Vec<Rule> {
            list.iter()
                .flat_map(|n| rules_named(n).unwrap_or_default())
                .collect()
        };
        let mut enabled = RuleSet::empty();
        match (&cli.select, &file.select) {
            (Some(select), _) => cli_names(select)
                .into_iter()
                .for_each(|r| enabled.insert(r)),
            (None, Some(select)) => names(select.get_ref())?
                .into_iter()
                .for_each(|r| enabled.insert(r)),
            (None, None) => enabled = RuleSet::defaults(),
        }
        if let Some(ignore) = &file.ignore {
            names(ignore)?.into_iter().for_each(|r| enabled.remove(r));
        }
        for r in cli_names(&cli.ignore) {
            enabled.remove(r);
        }

        let mut severity = vec![None; RULES.len()];
        let mut set = |rules: Vec<Rule>, level: Level, enabled: &mut RuleSet| {
            for r in rules {
                match level {
                    Level::Off => enabled.remove(r),
                    Level::On(s) => severity[r as usize] = Some(s),
                }
            }
        };
        for (name, level) in file.severity.iter().flatten() {
            let rules = rules_named(name.get_ref())
                .ok_or_else(|| at(name.span(), unknown_name(name.get_ref())))?;
            let parsed = Level::parse(level.get_ref()).ok_or_else(|| {
                at(
                    level.span(),
                    format!(
                        "`{}` is not a level (error, warning, info or off)",
                        level.get_ref()
                    ),
                )
            })?;
            set(rules, parsed, &mut enabled);
            opt_in(name.get_ref(), parsed, &mut enabled);
        }
        for (name, level) in &cli.severity {
            set(cli_names(std::slice::from_ref(name)), *level, &mut enabled);
            opt_in(name, *level, &mut enabled);
        }
        if cli.strict_schema {
            enabled.insert(Rule::UnknownField);
        }

        let per_file = per_file_ignores(&file, &names, &at)?;
        check_globs(&file, &at)?;
        let warning =
            (enabled == RuleSet::empty()).then(|| all_off(source.as_deref(), &file, cli, &at));
        let root = crate::walk::normalized(root);
        let from_file = source.is_some().then_some(root.as_path());
        let (include, include_root) = globs_of(&cli.include, file.include, from_file);
        let (exclude, exclude_root) = globs_of(&cli.exclude, file.exclude, from_file);
        Ok(Settings {
            source,
            root,
            enabled,
            severity,
            per_file,
            include,
            exclude,
            include_root,
            exclude_root,
            warning,
        })
    }
}

/// A severity given to an opt-in rule by its own name turns it on (`unknown-field = "warning"`).
fn opt_in(name: &str, level: Level, enabled: &mut RuleSet) {
    if let (Some(rule), Level::On(_)) = (Rule::from_name(name), level)
        && rule.opt_in()
    {
        enabled.insert(rule);
    }
}

/// The `per-file-ignores` table: at most [`crate::walk::MAX_GLOBS`] globs, each compiled.
fn per_file_ignores(
    file: &FileSettings,
    names: &impl Fn(&[Spanned<String>]) -> Result<Vec<Rule>, String>,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Vec<PerFile>, String> {
    let globs = file.per_file_ignores.iter().flatten();
    if let Some((glob, _)) = globs.clone().nth(crate::walk::MAX_GLOBS) {
        return Err(at(
            glob.span(),
            format!(
                "per-file-ignores: more than the {} globs one table may hold",
                crate::walk::MAX_GLOBS
            ),
        ));
    }
    let mut per_file = Vec::new();
    for (glob, list) in globs {
        let matcher = crate::walk::include_set(&[glob.get_ref()]).map_err(|e| {
            let shown = e.glob_shown().unwrap_or_default();
            at(glob.span(), format!("`{shown}` {}", e.why))
        })?;
        let mut rules = RuleSet::empty();
        names(list)?.into_iter().for_each(|r| rules.insert(r));
        per_file.push(PerFile {
            glob: glob.get_ref().clone(),
            matcher,
            rules,
        });
    }
    Ok(per_file)
}

/// The warning of settings that turn every rule off, at the `select = []` that does it when
/// one does.
fn all_off(
    source: Option<&Path>,
    file: &FileSettings,
    cli: &Overrides,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> String {
    match (&cli.select, &file.select) {
        (None, Some(select)) if select.get_ref().is_empty() => at(
            select.span(),
            "`select = []` turns every rule off; nothing is checked (remove it to check every \
             rule)"
                .to_owned(),
        ),
        _ => match source {
            Some(path) => format!(
                "{}: its settings with the command line's turn every rule off; nothing is \
                 checked",
                path.display()
            ),
            None => "--select, --ignore and --severity turn every rule off; nothing is checked"
                .to_owned(),
        },
    }
}

/// The globs in force and the directory they are relative to: the command line's replace the
/// file's (`from_file`: its directory) and are relative to the directory walked (`None`).
fn globs_of(
    cli: &[String],
    file: Option<Vec<Spanned<String>>>,
    from_file: Option<&Path>,
) -> (Vec<String>, Option<PathBuf>) {
    match (file, from_file) {
        (Some(file), Some(root)) if cli.is_empty() => (
            file.into_iter().map(Spanned::into_inner).collect(),
            Some(root.to_path_buf()),
        ),
        _ => (cli.to_vec(), None),
    }
}

/// Checks that a file's `include` and `exclude` lists compile, each as one set, as a walk
/// compiles them; `at` names the file and the line of the glob to blame (or of the first).
fn check_globs(
    file: &FileSettings,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<(), String> {
    let blame = |list: &[Spanned<String>], what: &str, e: crate::walk::GlobError| {
        let item = e.index.and_then(|i| list.get(i)).or(list.first());
        let span = item.map_or(0..0, Spanned::span);
        at(span, e.naming(what))
    };
    if let Some(list) = &file.include {
        let globs: Vec<&str> = list.iter().map(|g| g.get_ref().as_str()).collect();
        crate::walk::include_set(&globs).map_err(|e| blame(list, "include", e))?;
    }
    if let Some(list) = &file.exclude {
        let globs: Vec<&str> = list.iter().map(|g| g.get_ref().as_str()).collect();
        crate::walk::exclude_set(Path::new("/"), &globs).map_err(|e| blame(list, "exclude", e))?;
    }
    Ok(())
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The severity `d` is reported with under a table of severities set per rule (by discriminant):
/// its rule's when the table sets one, else the one the checker gave it.
pub fn graded_severity(set: &[Option<Severity>], d: &Diagnostic) -> Severity {
    set.get(d.rule as usize)
        .copied()
        .flatten()
        .unwrap_or(d.severity)
}

/// Reads the configuration file at `path` (any name: `pyproject.toml` is read for its
/// `[tool.sjlint]`). `Ok(None)` for a `pyproject.toml` without that table: as ruff reads one
/// only for its `[tool.ruff]`, whatever else the file holds (other tools' sections, a `tool`
/// that is not a table, TOML that does not parse) is not sjlint's to judge.
pub fn load(path: &Path, cli: &Overrides) -> Result<Option<Settings>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let located = |e: toml::de::Error| {
        let line = e.span().map_or(1, |s| line_of(&text, s.start));
        format!("{}:{line}: {}", path.display(), e.message().trim_end())
    };
    let file: FileSettings = if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        if !holds_sjlint_table(&text) {
            return Ok(None);
        }
        // Parsed whole, so that spans and lines are those of the file.
        let whole: PyProjectSpanned = toml::from_str(&text).map_err(located)?;
        whole.tool.sjlint
    } else {
        toml::from_str(&text).map_err(located)?
    };
    let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    Settings::resolve(Some(path.to_path_buf()), &root, file, &text, cli).map(Some)
}

/// Whether the `pyproject.toml` text holds a `[tool.sjlint]` table (or `[tool.sjlint.…]`
/// tables, or dotted `tool.sjlint.…` keys). A file that does not parse holds none: a syntax
/// error there is another tool's to report, unless sjlint's own table is written in the file.
fn holds_sjlint_table(text: &str) -> bool {
    if !text.contains("sjlint") {
        return false;
    }
    let Ok(table) = text.parse::<toml::Table>() else {
        // The file does not parse: the error is sjlint's to report only when its table is
        // written there.
        return text.lines().any(|line| {
            let line = line.trim_start().trim_start_matches('[').trim_start();
            line.starts_with("tool.sjlint")
        });
    };
    table
        .get("tool")
        .and_then(toml::Value::as_table)
        .is_some_and(|tool| tool.contains_key("sjlint"))
}

/// `pyproject.toml` read once it is known to hold `[tool.sjlint]`, with its settings checked as
/// strictly as `sjlint.toml`'s; other tools' tables are not looked at.
#[derive(Deserialize)]
struct PyProjectSpanned {
    tool: ToolsSpanned,
}

#[derive(Deserialize)]
struct ToolsSpanned {
    sjlint: FileSettings,
}

/// The configuration file that governs `path`: the first of [`FILE_NAMES`] in its directory
/// (or itself, when it is one) and then in each parent, a `pyproject.toml` counting only when
/// it holds `[tool.sjlint]`.
pub fn find(path: &Path, cli: &Overrides) -> Result<Option<Settings>, String> {
    let start = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    // `..` folded away first: the parent of `a/..` is not `a`.
    let abs = crate::walk::normalized(&start);
    let mut dir = Some(abs.as_path());
    while let Some(d) = dir {
        for name in FILE_NAMES {
            let candidate = d.join(name);
            if candidate.is_file() {
                // Shown relative to where the input was named, when it lies under it.
                let shown = relative_to_cwd(&candidate);
                if let Some(settings) = load(&shown, cli)? {
                    return Ok(Some(settings));
                }
            }
        }
        dir = d.parent();
    }
    Ok(None)
}

/// `path` relative to the current directory when it lies below it.
fn relative_to_cwd(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_path_buf())
}

/// Writes `settings` as `sjlint config` shows them.
pub fn describe(settings: &Settings) -> String {
    let mut out = String::new();
    match &settings.source {
        Some(p) => out.push_str(&format!("config file: {}\n", p.display())),
        None => out.push_str("config file: none (defaults)\n"),
    }
    let enabled: Vec<&str> = RULES
        .iter()
        .filter(|r| settings.enabled.contains(r.rule))
        .map(|r| r.name)
        .collect();
    let off: Vec<&str> = RULES
        .iter()
        .filter(|r| !settings.enabled.contains(r.rule))
        .map(|r| r.name)
        .collect();
    out.push_str(&format!(
        "rules enabled: {} of {}\n",
        enabled.len(),
        RULES.len()
    ));
    if !off.is_empty() {
        out.push_str(&format!("rules off: {}\n", off.join(", ")));
    }
    let changed: Vec<String> = RULES
        .iter()
        // A rule that is off has no severity to show.
        .filter(|r| settings.enabled.contains(r.rule))
        .filter_map(|r| {
            let s = settings.severity[r.rule as usize]?;
            (s != r.severity).then(|| format!("{} = {} (default {})", r.name, s, r.severity))
        })
        .collect();
    out.push_str("severity overrides:");
    if changed.is_empty() {
        out.push_str(" none\n");
    } else {
        out.push('\n');
        for c in changed {
            out.push_str(&format!("  {c}\n"));
        }
    }
    out.push_str("per-file ignores:");
    if settings.per_file.is_empty() {
        out.push_str(" none\n");
    } else {
        out.push('\n');
        for p in &settings.per_file {
            let rules: Vec<&str> = RULES
                .iter()
                .filter(|r| p.rules.contains(r.rule))
                .map(|r| r.name)
                .collect();
            out.push_str(&format!("  {} = {}\n", p.glob, rules.join(", ")));
        }
    }
    let globs = |g: &[String], default: &str| {
        if g.is_empty() {
            default.to_owned()
        } else {
            g.join(", ")
        }
    };
    let relative = |root: &Option<PathBuf>| match root {
        Some(root) => format!(" (relative to {})", relative_to_cwd(root).display()),
        None => String::new(),
    };
    out.push_str(&format!(
        "include: {}{}\n",
        globs(
            &settings.include,
            "*.ndjson, *.jsonl, *.json (when it holds a stream), *.ndjson.zst, *.jsonl.zst"
        ),
        relative(&settings.include_root)
    ));
    out.push_str(&format!(
        "exclude: {}{}\n",
        globs(&settings.exclude, "none"),
        relative(&settings.exclude_root)
    ));
    out
}

/// The settings of every input of a run, found once per directory.
pub struct Configs {
    cli: Overrides,
    /// `--config PATH`, or the defaults under `--isolated`: the one settings of every input.
    fixed: Option<std::sync::Arc<Settings>>,
    cache: std::collections::HashMap<PathBuf, std::sync::Arc<Settings>>,
}

impl Configs {
    pub fn new(cli: Overrides, config: Option<&Path>, isolated: bool) -> Result<Configs, String> {
        let fixed = match (config, isolated) {
            (_, true) => Some(Settings::defaults(&cli)),
            (Some(path), false) => Some(
                load(path, &cli)?
                    .ok_or_else(|| format!("{}: no [tool.sjlint] table", path.display()))?,
            ),
            (None, false) => None,
        };
        Ok(Configs {
            cli,
            fixed: fixed.map(std::sync::Arc::new),
            cache: std::collections::HashMap::default(),
        })
    }

    /// What a walk needs to honour the configuration files below the directory it walks: the
    /// filter of each (none with `--config` or `--isolated`, which take one for every input).
    pub fn nested_filters(&self) -> Option<crate::walk::Nested> {
        if self.fixed.is_some() {
            return None;
        }
        let cli = self.cli.clone();
        Some(crate::walk::Nested(std::sync::Arc::new(
            move |dir: &Path| {
                let settings = find(dir, &cli)?.unwrap_or_else(|| Settings::defaults(&cli));
                Ok(settings.filter())
            },
        )))
    }

    /// The settings that govern the input at `path` (a file or a directory; `None`: standard
    /// input, governed by the current directory's).
    pub fn for_path(&mut self, path: Option<&Path>) -> Result<std::sync::Arc<Settings>, String> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let dir = match path {
            Some(p) if p.is_dir() => p.to_path_buf(),
            Some(p) => p.parent().map_or_else(PathBuf::new, Path::to_path_buf),
            None => PathBuf::new(),
        };
        if let Some(s) = self.cache.get(&dir) {
            return Ok(s.clone());
        }
        let dir_or_dot = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir.as_path()
        };
        let settings = match find(dir_or_dot, &self.cli)? {
            Some(s) => s,
            None => Settings::defaults(&self.cli),
        };
        let settings = std::sync::Arc::new(settings);
        self.cache.insert(dir, settings.clone());
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(text: &str) -> Result<Settings, String> {
        let file: FileSettings = toml::from_str(text).map_err(|e| e.to_string())?;
        Settings::resolve(
            Some("sjlint.toml".into()),
            Path::new("."),
            file,
            text,
            &Overrides::default(),
        )
    }

    #[test]
    fn select_ignore_and_severity() {
        let s = from(
            "select = [\"lifecycle\", \"invalid-json\"]\nignore = [\"missing-init\"]\n[severity]\nmissing-result = \"warning\"\ntimestamp-regression = \"off\"\n",
        )
        .unwrap();
        assert!(s.enabled.contains(Rule::MissingResult));
        assert!(!s.enabled.contains(Rule::MissingInit));
        assert!(!s.enabled.contains(Rule::TimestampRegression));
        assert!(!s.enabled.contains(Rule::OrphanCompletion));
        assert_eq!(s.severity_of(Rule::MissingResult), Severity::Warning);
        assert_eq!(s.severity_of(Rule::InvalidJson), Severity::Error);
    }

    #[test]
    fn unknown_names_point_at_their_line() {
        let e = from("ignore = [\n  \"blank-line\",\n  \"orphan-completon\",\n]\n").unwrap_err();
        assert!(e.starts_with("sjlint.toml:3: unknown rule or group `orphan-completon`; did you mean `orphan-completion`?"), "{e}");
    }

    #[test]
    fn typos_get_the_nearest_rule_or_group() {
        assert_eq!(closest_name("lifecyle"), Some("lifecycle"));
        assert_eq!(closest_name("orphan-completon"), Some("orphan-completion"));
        assert_eq!(closest_name("something-else-entirely"), None);
        assert_eq!(closest_name("unfinshed"), Some("unfinished-tool-call"));
    }

    #[test]
    fn severity_args() {
        assert_eq!(
            parse_severity_arg("unknown-event-type=error").unwrap(),
            ("unknown-event-type".to_owned(), Level::On(Severity::Error))
        );
        assert!(
            parse_severity_arg("unknown-event-typ=error")
                .unwrap_err()
                .contains("did you mean")
        );
        assert!(parse_severity_arg("schema=loud").is_err());
    }
}
