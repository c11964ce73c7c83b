//! The formats of `sjlint usage`: an aligned table for a terminal, one JSON document, or CSV.
//!
//! This module owns the wording and the columns; every key from the inputs (a project path, a
//! session id, a model name) is escaped for the terminal in the table, and quoted in CSV and
//! JSON. It must not add anything up (that is [`super::Table::group`]).

use super::{By, Row, Table};
use serde_json::{Map, Value, json};
use sjlint_core::text::{Excerpt, escape_untrusted, thousands};
use std::io::{self, Write};
use unicode_width::UnicodeWidthStr;

/// How `sjlint usage` prints its ledger (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

/// The columns of the counts, in order, as JSON and CSV name them.
const COUNTS: [&str; 6] = [
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "total_tokens",
];

/// The counts of a row in [`COUNTS`]' order; total = input + output + cache read + cache write
/// (reasoning is part of the output).
fn counts(r: &Row) -> [u64; 6] {
    let t = &r.spent.tokens;
    let total = t
        .input
        .saturating_add(t.output)
        .saturating_add(t.cache_read)
        .saturating_add(t.cache_write);
    [
        t.input,
        t.output,
        t.cache_read,
        t.cache_write,
        t.reasoning,
        total,
    ]
}

/// A row's cost, when some of its tokens have one.
fn cost(r: &Row) -> Option<f64> {
    r.spent.priced.then_some(r.spent.cost)
}

fn named(set: &std::collections::BTreeSet<Box<str>>) -> Vec<&str> {
    set.iter().map(|m| &**m).filter(|m| !m.is_empty()).collect()
}

/// Prints `table` in `format`.
pub fn write<W: Write>(out: &mut W, table: &Table, format: Format) -> io::Result<()> {
    match format {
        Format::Table => write_table(out, table),
        Format::Json => write_json(out, table),
        Format::Csv => write_csv(out, table),
    }
}

/// The fields of one row of the JSON document (the totals: without keys).
fn row_json(by: &[By], r: &Row, with_keys: bool) -> Value {
    let mut m = Map::new();
    if with_keys {
        for (b, k) in by.iter().zip(&r.keys) {
            let v = if k.is_empty() {
                Value::Null
            } else {
                Value::from(k.as_str())
            };
            m.insert(b.as_str().to_owned(), v);
        }
    }
    for (name, n) in COUNTS.iter().zip(counts(r)) {
        m.insert((*name).to_owned(), json!(n));
    }
    m.insert("cost_usd".to_owned(), json!(cost(r)));
    m.insert("sessions".to_owned(), json!(r.sessions.len()));
    m.insert("models".to_owned(), json!(named(&r.models)));
    m.insert("unpriced_models".to_owned(), json!(named(&r.unpriced)));
    Value::Object(m)
}

fn write_json<W: Write>(out: &mut W, table: &Table) -> io::Result<()> {
    let doc = json!({
        "by": table.by.iter().map(|b| b.as_str()).collect::<Vec<_>>(),
        "prices": table.prices,
        "rows": table.rows.iter().map(|r| row_json(&table.by, r, true)).collect::<Vec<_>>(),
        "totals": row_json(&table.by, &table.totals, false),
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

/// One CSV field, quoted when it must be (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn write_csv<W: Write>(out: &mut W, table: &Table) -> io::Result<()> {
    let mut header: Vec<&str> = table.by.iter().map(|b| b.as_str()).collect();
    header.extend(COUNTS);
    header.extend(["cost_usd", "sessions", "models", "unpriced_models"]);
    let mut text = header.join(",");
    text.push('\n');
    for r in &table.rows {
        let mut fields: Vec<String> = r.keys.iter().map(|k| csv_field(k)).collect();
        fields.extend(counts(r).iter().map(u64::to_string));
        fields.push(cost(r).map(|c| format!("{c:.6}")).unwrap_or_default());
        fields.push(r.sessions.len().to_string());
        fields.push(csv_field(&named(&r.models).join(";")));
        fields.push(csv_field(&named(&r.unpriced).join(";")));
        text.push_str(&fields.join(","));
        text.push('\n');
    }
    out.write_all(text.as_bytes())
}

/// A key as the table shows it: escaped, and cut when it is long.
fn shown(k: &str) -> String {
    if k.is_empty() {
        return "-".to_owned();
    }
    escape_untrusted(&Excerpt(k).to_string()).into_owned()
}

/// Dollars and cents; a cost under a cent shows four decimals, not `$0.00`.
fn dollars(c: Option<f64>) -> String {
    match c {
        None => "-".to_owned(),
        Some(c) if c > 0.0 && c < 0.01 => format!("${c:.4}"),
        Some(c) => format!("${c:.2}"),
    }
}

/// How many of a row's models the table names (`--by model` gives each its row).
const SHOWN_MODELS: usize = 2;

fn write_table<W: Write>(out: &mut W, table: &Table) -> io::Result<()> {
    let with_models = !table.by.contains(&By::Model);
    let mut head: Vec<String> = table.by.iter().map(|b| title(*b).to_owned()).collect();
    if with_models {
        head.push("Models".to_owned());
    }
    let first_count = head.len();
    head.extend(
        [
            "Input",
            "Output",
            "Cache read",
            "Cache write",
            "Total",
            "Cost",
        ]
        .map(str::to_owned),
    );
    let line = |keys: Vec<String>, r: &Row| {
        let mut cells = keys;
        if with_models {
            let models = named(&r.models);
            let mut cell: Vec<String> =
                models.iter().take(SHOWN_MODELS).map(|m| shown(m)).collect();
            if models.len() > SHOWN_MODELS {
                cell.push(format!("+{}", models.len() - SHOWN_MODELS));
            }
            cells.push(if cell.is_empty() {
                "-".to_owned()
            } else {
                cell.join(", ")
            });
        }
        let [input, output, read, write, _, total] = counts(r);
        cells.extend([input, output, read, write, total].map(thousands));
        let mut c = dollars(cost(r));
        if !r.unpriced.is_empty() && r.spent.priced {
            c.push('*');
        }
        cells.push(c);
        cells
    };
    let mut lines = vec![head];
    for r in &table.rows {
        lines.push(line(r.keys.iter().map(|k| shown(k)).collect(), r));
    }
    let mut total_keys = vec![String::new(); first_count];
    if let Some(first) = total_keys.first_mut() {
        "Total".clone_into(first);
    }
    if with_models {
        total_keys.pop();
    }
    let total = line(total_keys, &table.totals);
    lines.push(total);
    let widths: Vec<usize> = (0..lines[0].len())
        .map(|i| lines.iter().map(|l| l[i].width()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for (n, l) in lines.iter().enumerate() {
        if n == lines.len() - 1 {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            text.push_str(rule.join("  ").trim_end());
            text.push('\n');
        }
        let mut cells = Vec::new();
        for (i, cell) in l.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.width());
            cells.push(if i >= first_count {
                format!("{}{cell}", " ".repeat(pad))
            } else {
                format!("{cell}{}", " ".repeat(pad))
            });
        }
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text.push_str(&format!("Prices: {}.\n", table.prices));
    if !table.totals.unpriced.is_empty() {
        text.push_str("*: without the tokens of the models the list has no price for.\n");
    }
    out.write_all(text.as_bytes())
}

fn title(b: By) -> &'static str {
    match b {
        By::Day => "Day",
        By::Week => "Week",
        By::Month => "Month",
        By::Session => "Session",
        By::Project => "Project",
        By::Model => "Model",
        By::Agent => "Agent",
    }
}
