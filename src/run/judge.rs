//! Which findings of a run are reported, and as what: the same judgement `check --tee` passes
//! on the stream it reads from standard input.
//!
//! This module owns the [`Judge`] of a run: the settings in force (the configuration file found
//! from the current directory, or `--config`, or none with `--isolated`, with `--select`,
//! `--ignore` and `--severity` over it; its `per-file-ignores` matched against the name findings
//! are reported under), the `--level` floor, and the human format's collapsing of repeated
//! identical findings into one note. The stream's findings and those of the `run` group go
//! through it alike. It must not print anything itself nor decide the exit code.

use sjlint_core::config::Settings;
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::{RuleSet, Severity};
use sjlint_outputs::lint::Collapse;
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

/// See the module documentation.
pub(super) struct Judge {
    settings: Arc<Settings>,
    /// The name findings are reported under, for `per-file-ignores`.
    path: PathBuf,
    /// `--level`: findings below it are neither shown nor counted.
    floor: Severity,
    /// Not with `--no-collapse` nor a machine format.
    collapse: Option<Collapse>,
}

impl Judge {
    pub(super) fn new(
        settings: Arc<Settings>,
        name: &str,
        floor: Severity,
        collapse: bool,
    ) -> Self {
        Judge {
            settings,
            path: PathBuf::from(name),
            floor,
            collapse: collapse.then(Collapse::default),
        }
    }

    /// The rules the checker runs.
    pub(super) fn enabled(&self) -> RuleSet {
        self.settings.enabled
    }

    /// `d` as it is reported (with the severity the settings give its rule), or `None` when
    /// it is not reported at all (its rule is off for this input, or it is below `--level`).
    pub(super) fn judge<'d>(&self, d: &'d Diagnostic) -> Option<Cow<'d, Diagnostic>> {
        self.settings
            .grade(d, &self.path)
            .filter(|d| d.severity >= self.floor)
    }

    /// `d` as the settings grade it, whatever `--level` says: what `sjlint report` shows of it
    /// (`None` when its rule is off for this input).
    pub(super) fn graded<'d>(&self, d: &'d Diagnostic) -> Option<Cow<'d, Diagnostic>> {
        self.settings.grade(d, &self.path)
    }

    /// Whether a reported finding is printed; otherwise it is counted for the note at the end.
    pub(super) fn shown(&mut self, d: &Diagnostic) -> bool {
        self.collapse.as_mut().is_none_or(|c| c.show(d))
    }

    /// The notes of the findings collapsed (empty when none was), one line each.
    pub(super) fn notes(&mut self, name: &str) -> String {
        self.collapse
            .as_mut()
            .map(|c| c.notes(name))
            .unwrap_or_default()
    }
}
