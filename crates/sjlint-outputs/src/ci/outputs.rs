//! A step's outputs, in the syntax GitHub Actions reads from the file `GITHUB_OUTPUT` names:
//! `key=value` lines, and for a value with a line break in it a block
//! `key<<DELIMITER` … `DELIMITER` whose delimiter is found nowhere in the value.

use super::Account;
use std::io::{self, Write};

/// Writes the outputs of `account`: `outcome`, `cost_usd` (empty when unknown), the four
/// token counts, `tool_calls`, `errors`, `warnings`, `passed`, and `report` (empty without a
/// page).
pub fn outputs<W: Write>(out: &mut W, account: &Account) -> io::Result<()> {
    let t = &account.total;
    let calls: u64 = t.tools.iter().map(|k| k.count).sum();
    let cost = account
        .cost()
        .map(|c| format!("{c:.6}"))
        .unwrap_or_default();
    let pairs: [(&str, String); 12] = [
        ("outcome", super::outcome_name(account.outcome()).to_owned()),
        ("cost_usd", cost),
        ("input_tokens", t.tokens.input.to_string()),
        ("output_tokens", t.tokens.output.to_string()),
        ("cache_read_tokens", t.tokens.cache_read.to_string()),
        ("cache_write_tokens", t.tokens.cache_write.to_string()),
        ("tool_calls", calls.to_string()),
        ("errors", t.findings.errors.to_string()),
        ("warnings", t.findings.warnings.to_string()),
        ("passed", account.passed().to_string()),
        ("report", account.report.clone().unwrap_or_default()),
        (
            "redacted",
            account
                .redacted
                .iter()
                .map(|(_, n)| n)
                .sum::<u64>()
                .to_string(),
        ),
    ];
    for (key, value) in &pairs {
        write_output(out, key, value)?;
    }
    Ok(())
}

/// One output: on one line when the value has no line break, else in a delimited block.
fn write_output<W: Write>(out: &mut W, key: &str, value: &str) -> io::Result<()> {
    if !value.contains(['\n', '\r']) {
        return writeln!(out, "{key}={value}");
    }
    let mut delimiter = String::from("SJLINT_EOF");
    let mut n = 0u32;
    while value.contains(&delimiter) {
        n += 1;
        delimiter = format!("SJLINT_EOF_{n}");
    }
    writeln!(out, "{key}<<{delimiter}\n{value}\n{delimiter}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(key: &str, value: &str) -> String {
        let mut out = Vec::new();
        write_output(&mut out, key, value).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_value_with_a_line_break_gets_a_delimiter_it_does_not_contain() {
        assert_eq!(written("a", "b"), "a=b\n");
        assert_eq!(
            written("report", "x\nSJLINT_EOF\ny"),
            "report<<SJLINT_EOF_1\nx\nSJLINT_EOF\ny\nSJLINT_EOF_1\n"
        );
    }
}
