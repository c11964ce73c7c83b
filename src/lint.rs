//! What `check` prints about its findings as a whole rather than one by one: the
//! `--statistics` table.
//!
//! This module owns that wording. It must not decide what a finding is nor count them: the
//! caller passes the counts per rule (indexed by the rule's discriminant).

use crate::rules::RULES;
use std::fmt::Write as _;

/// `--statistics`: per rule with findings, most first, the count, the rule, the severity its
/// findings were reported with by default, and its summary. As a JSON array with `json`.
pub fn statistics(counts: &[u64], json: bool) -> String {
    let mut rows: Vec<(u64, usize)> = counts
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| (*n, i))
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = String::new();
    if json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|&(n, i)| {
                let r = &RULES[i];
                serde_json::json!({
                    "rule": r.name,
                    "count": n,
                    "severity": r.severity.as_str(),
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
        .map(|&(n, _)| n.to_string().len())
        .max()
        .unwrap_or(1);
    let name_width = rows
        .iter()
        .map(|&(_, i)| RULES[i].name.len())
        .max()
        .unwrap_or(0);
    for &(n, i) in &rows {
        let r = &RULES[i];
        let _ = writeln!(
            out,
            "{n:>width$}  {:name_width$}  {:7}  {}",
            r.name,
            r.severity.as_str(),
            r.summary
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    #[test]
    fn most_first_and_only_rules_with_findings() {
        let mut counts = vec![0; RULES.len()];
        counts[Rule::InvalidJson as usize] = 3;
        counts[Rule::BlankLine as usize] = 12;
        let table = statistics(&counts, false);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("12  blank-line"), "{table}");
        assert!(lines[1].starts_with(" 3  invalid-json  error"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&statistics(&counts, true)).unwrap();
        assert_eq!(json[0]["rule"], "blank-line");
        assert_eq!(json[1]["count"], 3);
    }
}
