//! `--redact`, of every command that copies the text of records into what it writes.

use clap::Args;

/// Whether credentials are redacted from what a command writes.
#[derive(Args, Debug, Default, Clone, Copy)]
pub struct RedactArg {
    /// Replace every credential the records hold (API keys, tokens, private keys, passwords in
    /// URLs, command lines and .env assignments) by `[REDACTED:KIND]` in everything written;
    /// docs/redaction.md lists the kinds
    #[arg(long, help_heading = "Output")]
    pub redact: bool,
}

impl RedactArg {
    /// What the check options take (`CheckOptions::redact`): the process's redactor, whose
    /// counts are the run's, when `--redact` was given.
    pub fn redactor(self) -> Option<&'static sjlint_core::redact::Redactor> {
        self.redact.then(sjlint_core::redact::Redactor::shared)
    }
}
