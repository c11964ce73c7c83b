//! What `check` prints about its findings as a whole rather than one by one: the
//! `--statistics` table (per rule and the severity reported), repeated identical findings
//! collapsed into one note, and the findings `--max-diagnostics` keeps (errors before warnings)
//! with a note of how many it did not show, put back among their files' brackets where the
//! output groups findings by file (junit).
//!
//! This module owns those choices and their wording. It must not decide what a finding is, nor
//! print: the caller passes findings in and writes what comes out.

use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::{RULES, Rule, Severity};
use sjlint_core::text::escape_untrusted;
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// The severities of [`statistics`]' counts, in the order of their index.
pub const SEVERITIES: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

/// `--statistics`: per rule and severity with findings, most first, the count, the rule, the
/// severity its findings were reported with (`--severity` and the configuration files count),
/// and its summary. `counts` holds, per rule (by its discriminant), the findings of each of
/// [`SEVERITIES`]. As a JSON array with `json`.
pub fn statistics(counts: &[[u64; 3]], json: bool) -> String {
    let mut rows: Vec<(u64, usize, Severity)> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, per)| {
            per.iter()
                .zip(SEVERITIES)
                .filter(|(n, _)| **n > 0)
                .map(move |(n, s)| (*n, i, s))
        })
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(b.2.cmp(&a.2)));
    let mut out = String::new();
    if json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|&(n, i, s)| {
                let r = &RULES[i];
                serde_json::json!({
                    "rule": r.name,
                    "count": n,
                    "severity": s.as_str(),
                    "summary": r.summary,
                })
            })
            .collect();
        out.push_str(&serde_json::Value::Array(items).to_string());
        out.push('\n');
        return out;
    }
    let width = rows
        .iter()
        .map(|&(n, _, _)| n.to_string().len())
        .max()
        .unwrap_or(1);
    let name_width = rows
        .iter()
        .map(|&(_, i, _)| RULES[i].name.len())
        .max()
        .unwrap_or(0);
    for &(n, i, s) in &rows {
        let r = &RULES[i];
        let _ = writeln!(
            out,
            "{n:>width$}  {:name_width$}  {:7}  {}",
            r.name,
            s.as_str(),
            r.summary
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjlint_core::rules::Rule;

    #[test]
    fn most_first_and_only_rules_with_findings() {
        let mut counts = vec![[0; 3]; RULES.len()];
        counts[Rule::InvalidJson as usize][2] = 3;
        counts[Rule::BlankLine as usize][0] = 12;
        counts[Rule::BlankLine as usize][1] = 2;
        let table = statistics(&counts, false);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("12  blank-line    info"), "{table}");
        assert!(lines[1].starts_with(" 3  invalid-json  error"), "{table}");
        assert!(lines[2].starts_with(" 2  blank-line    warning"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&statistics(&counts, true)).unwrap();
        assert_eq!(json[0]["rule"], "blank-line");
        assert_eq!(json[1]["count"], 3);
    }
}

#[cfg(test)]
mod replay_tests {
    use super::*;

    fn finding(line: u64) -> Diagnostic {
        let pos = sjlint_core::input::record::Position {
            byte: 0,
            line,
            record: 1,
        };
        Diagnostic::new(Rule::InvalidJson, pos, "x")
    }

    #[test]
    fn kept_findings_go_back_into_their_files() {
        let brackets = vec![
            Bracket::Begin("a".into()),
            Bracket::End("a".into(), None, 1, 1),
            Bracket::Begin("b".into()),
            Bracket::Begin("c".into()),
            Bracket::End("c".into(), None, 1, 1),
        ];
        let kept = vec![
            ("a".to_owned(), finding(1)),
            ("b".to_owned(), finding(2)),
            ("c".to_owned(), finding(3)),
        ];
        let order: Vec<String> = interleave(brackets, kept)
            .into_iter()
            .map(|step| match step {
                Replay::Finding(name, d) => format!("{name}:{}", d.line),
                Replay::Bracket(Bracket::Begin(name)) => format!("begin {name}"),
                Replay::Bracket(Bracket::End(name, ..)) => format!("end {name}"),
            })
            .collect();
        assert_eq!(
            order,
            [
                "begin a", "a:1", "end a", "begin b", "b:2", "begin c", "c:3", "end c"
            ]
        );
    }
}

/// How many findings of one kind (same rule, same message) in one file the human format shows
/// before it collapses the rest into one note.
pub const COLLAPSE_SHOWN: u64 = 3;

/// Most kinds tracked per file: past it, findings are shown as they come.
const COLLAPSE_KINDS: usize = 4096;

/// Repeated identical findings in one file, collapsed in the human output: the first
/// [`COLLAPSE_SHOWN`] are shown, the rest counted and named in one note at the end of the file.
#[derive(Default)]
pub struct Collapse {
    /// Per kind, how many were seen, in the order the kinds were first met.
    kinds: Vec<(Rule, String, u64)>,
    index: std::collections::HashMap<(Rule, String), usize>,
}

impl Collapse {
    /// Whether `d` is shown; otherwise it is counted for the note.
    pub fn show(&mut self, d: &Diagnostic) -> bool {
        let key = (d.rule, d.message.clone());
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None if self.kinds.len() >= COLLAPSE_KINDS => return true,
            None => {
                self.kinds.push((d.rule, d.message.clone(), 0));
                self.index.insert(key, self.kinds.len() - 1);
                self.kinds.len() - 1
            }
        };
        self.kinds[i].2 += 1;
        self.kinds[i].2 <= COLLAPSE_SHOWN
    }

    /// The notes for the file that ended (one line each, escaped for a terminal), and a fresh
    /// start for the next file.
    pub fn notes(&mut self, file: &str) -> String {
        let mut out = String::new();
        for (rule, message, n) in self.kinds.drain(..) {
            if n > COLLAPSE_SHOWN {
                let _ = writeln!(
                    out,
                    "note: … and {} more {rule} like \"{}\" in {}; `--no-collapse` to see all",
                    n - COLLAPSE_SHOWN,
                    escape_untrusted(&message),
                    escape_untrusted(file),
                );
            }
        }
        self.index.clear();
        out
    }
}

/// `--max-diagnostics N`: the N findings shown, errors kept before warnings and warnings before
/// infos, earlier before later; printed in input order at the end of the run.
pub struct Kept {
    max: usize,
    seq: u64,
    kept: BTreeMap<(Severity, Reverse<u64>), (String, Diagnostic)>,
    /// Findings not shown, by severity (info, warning, error).
    hidden: [u64; 3],
    /// The same, by file, for the outputs that report each file (junit's suites).
    hidden_by_file: HashMap<String, [u64; 3]>,
}

impl Kept {
    pub fn new(max: u64) -> Kept {
        Kept {
            max: usize::try_from(max).unwrap_or(usize::MAX),
            seq: 0,
            kept: BTreeMap::new(),
            hidden: [0; 3],
            hidden_by_file: HashMap::new(),
        }
    }

    /// Counts a finding of `file` not shown.
    fn hide(&mut self, file: &str, severity: Severity) {
        self.hidden[severity as usize] += 1;
        match self.hidden_by_file.get_mut(file) {
            Some(counts) => counts[severity as usize] += 1,
            None => {
                let mut counts = [0; 3];
                counts[severity as usize] = 1;
                self.hidden_by_file.insert(file.to_owned(), counts);
            }
        }
    }

    /// The findings of `file` not shown, by severity (info, warning, error).
    pub fn hidden_in(&self, file: &str) -> [u64; 3] {
        self.hidden_by_file.get(file).copied().unwrap_or_default()
    }

    /// The most findings shown (`--max-diagnostics`).
    pub fn max(&self) -> usize {
        self.max
    }

    pub fn push(&mut self, file: &str, d: &Diagnostic) {
        self.seq += 1;
        if self.max == 0 {
            self.hide(file, d.severity);
            return;
        }
        let key = (d.severity, Reverse(self.seq));
        // Full, and this one would be the first to go: counted without a copy (the usual case
        // once N findings were kept, since a later finding of the same severity goes first).
        if self.kept.len() >= self.max
            && self
                .kept
                .first_key_value()
                .is_some_and(|(first, _)| key < *first)
        {
            self.hide(file, d.severity);
            return;
        }
        self.kept.insert(key, (file.to_owned(), d.clone()));
        if self.kept.len() > self.max
            && let Some(((severity, _), (name, _))) = self.kept.pop_first()
        {
            self.hide(&name, severity);
        }
    }

    /// The findings kept, in input order.
    pub fn take(&mut self) -> Vec<(String, Diagnostic)> {
        let mut kept: Vec<(u64, (String, Diagnostic))> = std::mem::take(&mut self.kept)
            .into_iter()
            .map(|((_, Reverse(seq)), v)| (seq, v))
            .collect();
        kept.sort_by_key(|(seq, _)| *seq);
        kept.into_iter().map(|(_, v)| v).collect()
    }

    /// "12 findings not shown (--max-diagnostics 5): 2 warnings, 10 infos", when any were not.
    pub fn hidden_note(&self) -> Option<String> {
        let total: u64 = self.hidden.iter().sum();
        if total == 0 {
            return None;
        }
        let parts: Vec<String> = [
            (Severity::Error, "error"),
            (Severity::Warning, "warning"),
            (Severity::Info, "info"),
        ]
        .iter()
        .filter(|(s, _)| self.hidden[*s as usize] > 0)
        .map(|(s, word)| plural(self.hidden[*s as usize], word))
        .collect();
        Some(format!(
            "note: {} not shown (--max-diagnostics {}): {}",
            plural(total, "finding"),
            self.max,
            parts.join(", ")
        ))
    }
}

/// Where an input began or ended, held back with the findings `--max-diagnostics` keeps when
/// the output groups findings by file (junit's suites): see [`interleave`].
pub enum Bracket {
    Begin(String),
    /// The file, its agent, records and bytes.
    End(String, Option<sjlint_core::agents::Agent>, u64, u64),
}

/// What to write, in order, once the kept findings are known.
pub enum Replay {
    Bracket(Bracket),
    Finding(String, Diagnostic),
}

/// The inputs' brackets with the kept findings (in input order) put back inside them: each
/// finding before the end of its file, or before the next file begins when its file never
/// ended (it could not be read to its end).
pub fn interleave(brackets: Vec<Bracket>, kept: Vec<(String, Diagnostic)>) -> Vec<Replay> {
    let mut kept = kept.into_iter().peekable();
    let mut out = Vec::new();
    let mut open: Option<String> = None;
    for bracket in brackets {
        let file = match &bracket {
            Bracket::Begin(_) => open.take(),
            Bracket::End(name, ..) => Some(name.clone()),
        };
        while let Some((name, d)) = kept.next_if(|(name, _)| Some(name) == file.as_ref()) {
            out.push(Replay::Finding(name, d));
        }
        match &bracket {
            Bracket::Begin(name) => open = Some(name.clone()),
            Bracket::End(..) => open = None,
        }
        out.push(Replay::Bracket(bracket));
    }
    out.extend(kept.map(|(name, d)| Replay::Finding(name, d)));
    out
}

/// "1 error", "2 errors".
fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
